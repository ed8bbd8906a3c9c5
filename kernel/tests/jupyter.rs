//! The kernel against real Jupyter clients: runs `tests/jupyter/run.sh` (jupyter_kernel_test,
//! jupyter_client protocol tests, every notebook under nbclient) with the binary cargo just
//! built. Needs python3 with venv and access to PyPI on first run (the venv is cached under
//! target/); without them this test fails, loudly, rather than skipping.

use std::path::Path;
use std::process::Command;

#[test]
fn jupyter_clients_pass() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the kernel crate sits in the workspace");
    let script = root.join("tests").join("jupyter").join("run.sh");
    let status = Command::new("bash")
        .arg(&script)
        .env("PASSLAB_KERNEL_BIN", env!("CARGO_BIN_EXE_passlab-kernel"))
        .current_dir(root)
        .status()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", script.display()));
    assert!(
        status.success(),
        "{} failed ({status}): see the pytest output above",
        script.display()
    );
}
