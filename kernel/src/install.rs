//! `passlab-kernel install`: writes the kernelspec (kernel.json and the logos) where Jupyter
//! looks for kernels: the user's data directory, a Python environment's prefix, or any prefix.

use serde_json::json;
use std::path::{Path, PathBuf};

/// Where to install.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// The user's Jupyter data directory (`$JUPYTER_DATA_DIR`, else the platform's).
    User,
    /// `sys.prefix` of the active Python environment.
    SysPrefix,
    /// `<prefix>/share/jupyter/kernels`.
    Prefix(PathBuf),
}

pub const KERNEL_NAME: &str = "passlab";

const LOGO_32: &[u8] = include_bytes!("../assets/logo-32x32.png");
const LOGO_64: &[u8] = include_bytes!("../assets/logo-64x64.png");
const LOGO_SVG: &[u8] = include_bytes!("../assets/logo-svg.svg");

/// The kernel.json for the binary at `exe`.
pub fn kernel_json(exe: &Path) -> serde_json::Value {
    json!({
        "argv": [exe.to_string_lossy(), "--connection-file", "{connection_file}"],
        "display_name": "passlab",
        "language": "passlab",
        "interrupt_mode": "message",
        "metadata": {"debugger": false},
    })
}

/// The `kernels` directory of `target`.
pub fn kernels_dir(target: &Target) -> Result<PathBuf, String> {
    let data = match target {
        Target::Prefix(p) => p.join("share").join("jupyter"),
        Target::SysPrefix => sys_prefix()?.join("share").join("jupyter"),
        Target::User => user_data_dir()?,
    };
    Ok(data.join("kernels"))
}

/// Writes the kernelspec; returns its directory.
pub fn install(target: &Target) -> Result<PathBuf, String> {
    let exe = std::env::current_exe()
        .and_then(|p| p.canonicalize())
        .map_err(|e| format!("cannot find this binary's path: {e}"))?;
    let dir = kernels_dir(target)?.join(KERNEL_NAME);
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let text = serde_json::to_string_pretty(&kernel_json(&exe)).expect("JSON serializes");
    let files: [(&str, &[u8]); 4] = [
        ("kernel.json", text.as_bytes()),
        ("logo-32x32.png", LOGO_32),
        ("logo-64x64.png", LOGO_64),
        ("logo-svg.svg", LOGO_SVG),
    ];
    for (name, bytes) in files {
        let path = dir.join(name);
        passlab::files::write_atomic(&path, bytes)
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    Ok(dir)
}

/// Jupyter's per-user data directory, as `jupyter --data-dir` reports it.
fn user_data_dir() -> Result<PathBuf, String> {
    if let Some(d) = std::env::var_os("JUPYTER_DATA_DIR").filter(|d| !d.is_empty()) {
        return Ok(PathBuf::from(d));
    }
    let home = std::env::var_os("HOME")
        .or_else(|| std::env::var_os("USERPROFILE"))
        .map(PathBuf::from)
        .ok_or("cannot find the home directory (set JUPYTER_DATA_DIR)")?;
    if cfg!(target_os = "macos") {
        return Ok(home.join("Library").join("Jupyter"));
    }
    if cfg!(windows) {
        if let Some(appdata) = std::env::var_os("APPDATA") {
            return Ok(PathBuf::from(appdata).join("jupyter"));
        }
    }
    let xdg = std::env::var_os("XDG_DATA_HOME")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| home.join(".local").join("share"));
    Ok(xdg.join("jupyter"))
}

/// The active Python environment's prefix: a virtualenv's or conda's, else what `python3`
/// reports.
fn sys_prefix() -> Result<PathBuf, String> {
    for var in ["VIRTUAL_ENV", "CONDA_PREFIX"] {
        if let Some(p) = std::env::var_os(var).filter(|p| !p.is_empty()) {
            return Ok(PathBuf::from(p));
        }
    }
    let out = std::process::Command::new("python3")
        .args(["-c", "import sys; print(sys.prefix)"])
        .output()
        .map_err(|e| format!("--sys-prefix needs python3 to find the prefix: {e}"))?;
    if !out.status.success() {
        return Err("python3 could not report sys.prefix".into());
    }
    Ok(PathBuf::from(
        String::from_utf8_lossy(&out.stdout).trim().to_string(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kernel_json_points_at_the_binary() {
        let j = kernel_json(Path::new("/opt/bin/passlab-kernel"));
        assert_eq!(j["argv"][0], "/opt/bin/passlab-kernel");
        assert_eq!(j["argv"][2], "{connection_file}");
        assert_eq!(j["interrupt_mode"], "message");
        assert_eq!(j["display_name"], "passlab");
    }

    #[test]
    fn prefix_layout() {
        assert_eq!(
            kernels_dir(&Target::Prefix("/p".into())).unwrap(),
            Path::new("/p/share/jupyter/kernels")
        );
    }
}
