//! The files passlab reads and writes. Every file the product writes (`save`, DumpIR, `gen -o`,
//! `replay --bless`, the kernelspec, the compaction of the REPL history) goes through
//! [`write_atomic`]; every Relay file and script it reads goes through [`read_text`].
//!
//! [`write_atomic`] writes a uniquely named temporary file in the target's directory
//! (`.<name>.<random>.tmp`, made by the `tempfile` crate with `O_EXCL`), syncs it and renames
//! it over the target, then syncs the directory (best effort). So a reader, another writer or
//! a crash sees either the old file or the new one, never a torn or empty one, and concurrent
//! writers of one file never share a temporary file. A process killed while writing leaves its
//! own temporary file behind (nothing else can remove it); the target is untouched.
//!
//! The target is what the path leads to: a symbolic link is followed (the file it points to is
//! replaced, the link stays a link). A character device (`/dev/null`) is written directly: it
//! has no contents to tear. Anything else but a regular file (a directory, a FIFO, a block
//! device, a socket) is refused with an error naming it. An existing file keeps its permission
//! bits (a 0600 file stays 0600; set-id bits are dropped, as the kernel drops them on a write);
//! a new file gets `0666` less the umask, as a plain create does. A file we may not write (a
//! read-only file) is refused as a plain write would refuse it, though the directory would
//! allow replacing it.

use std::fs::{self, File};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// Writes `bytes` to `path` atomically (see the module note).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    write_atomic_with(path, |w| w.write_all(bytes))
}

/// Writes what `write` writes to `path` atomically (see the module note), through a buffer:
/// for text made as it is written (a module's text streams into the file). When `write`
/// fails the target is untouched and the temporary file is removed.
pub fn write_atomic_with(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> io::Result<()> {
    let target = target_of(path)?;
    let existing = match fs::metadata(&target) {
        Ok(meta) => Some(meta),
        Err(e) if e.kind() == io::ErrorKind::NotFound => None,
        Err(e) => return Err(e),
    };
    if let Some(meta) = &existing {
        if is_char_device(meta) {
            // `-o /dev/null`: a device has no contents to tear, and no directory entry to
            // replace; it is written directly.
            let mut device = fs::OpenOptions::new().write(true).open(&target)?;
            let mut buffered = io::BufWriter::with_capacity(1 << 16, &mut device);
            write(&mut buffered)?;
            return buffered.flush();
        }
        if !meta.is_file() {
            return Err(not_regular(path, &target, meta));
        }
        // The same permission check a plain write makes (opening without truncating changes
        // nothing).
        fs::OpenOptions::new().write(true).open(&target)?;
    }
    let dir = match target.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let prefix = temp_prefix(&target);
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix).suffix(".tmp");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        // Created as a plain create would create it: 0666 less the umask.
        builder.permissions(fs::Permissions::from_mode(0o666));
    }
    let mut tmp = builder.tempfile_in(dir)?;
    #[cfg(unix)]
    if let Some(meta) = &existing {
        use std::os::unix::fs::PermissionsExt;
        let mode = meta.permissions().mode() & 0o777;
        tmp.as_file()
            .set_permissions(fs::Permissions::from_mode(mode))?;
    }
    {
        let mut buffered = io::BufWriter::with_capacity(1 << 16, tmp.as_file_mut());
        write(&mut buffered)?;
        buffered.flush()?;
    }
    tmp.as_file().sync_all()?;
    tmp.persist(&target).map_err(|e| e.error)?;
    sync_dir(dir);
    Ok(())
}

/// The temporary file's name before its random part: `.<name>.`.
fn temp_prefix(target: &Path) -> std::ffi::OsString {
    let mut prefix = std::ffi::OsString::from(".");
    match target.file_name() {
        // A long name would make the temporary one longer than a file name may be.
        Some(name) if name.len() <= 200 => prefix.push(name),
        _ => prefix.push("passlab"),
    }
    prefix.push(".");
    prefix
}

/// Where writing `path` lands: the path itself, or the file a symbolic link leads to (also
/// when that file does not exist yet).
fn target_of(path: &Path) -> io::Result<PathBuf> {
    let mut p = path.to_path_buf();
    for _ in 0..40 {
        match fs::symlink_metadata(&p) {
            Ok(meta) if meta.file_type().is_symlink() => match fs::canonicalize(&p) {
                Ok(resolved) => return Ok(resolved),
                Err(e) if e.kind() == io::ErrorKind::NotFound => {
                    let to = fs::read_link(&p)?;
                    p = match p.parent() {
                        Some(dir) => dir.join(to),
                        None => to,
                    };
                }
                Err(e) => return Err(e),
            },
            _ => return Ok(p),
        }
    }
    Err(io::Error::other(format!(
        "too many levels of symbolic links from {}",
        path.display()
    )))
}

fn not_regular(path: &Path, target: &Path, meta: &fs::Metadata) -> io::Error {
    let what = kind_of(meta);
    let msg = if target == path {
        format!("it is {what}, not a regular file")
    } else {
        format!("{} is {what}, not a regular file", target.display())
    };
    io::Error::new(io::ErrorKind::InvalidInput, msg)
}

fn is_char_device(meta: &fs::Metadata) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        meta.file_type().is_char_device()
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        false
    }
}

fn kind_of(meta: &fs::Metadata) -> &'static str {
    let t = meta.file_type();
    if t.is_dir() {
        return "a directory";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a FIFO";
        }
        if t.is_char_device() {
            return "a character device";
        }
        if t.is_block_device() {
            return "a block device";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    "a special file"
}

/// Makes a rename in `dir` durable; a file system that cannot sync a directory loses nothing
/// but that guarantee.
fn sync_dir(dir: &Path) {
    #[cfg(unix)]
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
    #[cfg(not(unix))]
    let _ = dir;
}

/// Why a text file could not be read.
#[derive(Debug)]
pub enum ReadError {
    Io(io::Error),
    /// The first byte that is not UTF-8 (or that starts a sequence the text cuts short), with
    /// its 1-based line and column (in characters).
    Utf8 {
        line: usize,
        col: usize,
        byte: u8,
    },
}

impl ReadError {
    /// The message, naming the file as the user gave it: `cannot read NAME: ...` or
    /// `NAME:LINE:COL: invalid UTF-8 (byte 0xff)`.
    pub fn message(&self, name: &str) -> String {
        match self {
            ReadError::Io(e) => format!("cannot read {name}: {e}"),
            ReadError::Utf8 { line, col, byte } => {
                format!("{name}:{line}:{col}: invalid UTF-8 (byte 0x{byte:02x})")
            }
        }
    }
}

/// Reads a text file of at most [`MAX_TEXT_BYTES`](crate::limits::MAX_TEXT_BYTES), saying
/// where the first invalid UTF-8 byte is if there is one.
pub fn read_text(path: &Path) -> Result<String, ReadError> {
    let bytes = read_bytes(path, crate::limits::MAX_TEXT_BYTES).map_err(ReadError::Io)?;
    text_of(bytes)
}

/// Reads a binary file of at most `max` bytes (checked before reading, and again while
/// reading in case the file grows), so a huge file is refused instead of exhausting memory.
pub fn read_bytes(path: &Path, max: u64) -> io::Result<Vec<u8>> {
    use std::io::Read;
    let f = File::open(path)?;
    let len = f.metadata()?.len();
    if len > max {
        return Err(io::Error::other(format!(
            "the file has {len} bytes, more than the {max} allowed"
        )));
    }
    let mut bytes = Vec::with_capacity(len as usize);
    f.take(max + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > max {
        return Err(io::Error::other(format!(
            "the file has more than the {max} bytes allowed"
        )));
    }
    Ok(bytes)
}

/// `bytes` as text, or where its first invalid UTF-8 byte is.
pub fn text_of(bytes: Vec<u8>) -> Result<String, ReadError> {
    String::from_utf8(bytes).map_err(|e| {
        let bytes = e.as_bytes();
        let at = e.utf8_error().valid_up_to();
        let valid = std::str::from_utf8(&bytes[..at]).expect("valid up to here");
        let (line, col) = crate::diagnostic::line_col(valid, at);
        ReadError::Utf8 {
            line,
            col,
            byte: bytes[at],
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("passlab-files-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&d);
        fs::create_dir_all(&d).unwrap();
        d
    }

    fn names(d: &Path) -> Vec<String> {
        let mut v: Vec<String> = fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    #[test]
    fn replaces_the_file_and_leaves_no_temporary_file() {
        let d = dir("replace");
        let p = d.join("m.relay");
        write_atomic(&p, b"one").unwrap();
        write_atomic(&p, b"two").unwrap();
        assert_eq!(fs::read_to_string(&p).unwrap(), "two");
        assert_eq!(names(&d), ["m.relay"]);
        // A relative path with no directory part writes in the current directory's terms.
        assert_eq!(temp_prefix(Path::new("m.relay")), ".m.relay.");
        fs::remove_dir_all(&d).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn keeps_permissions_and_creates_as_a_plain_create_does() {
        use std::os::unix::fs::PermissionsExt;
        let d = dir("mode");
        let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o7777;
        let private = d.join("private.relay");
        fs::write(&private, "old").unwrap();
        fs::set_permissions(&private, fs::Permissions::from_mode(0o600)).unwrap();
        write_atomic(&private, b"new").unwrap();
        assert_eq!(mode(&private), 0o600);
        let wide = d.join("wide.relay");
        fs::write(&wide, "old").unwrap();
        fs::set_permissions(&wide, fs::Permissions::from_mode(0o640)).unwrap();
        write_atomic(&wide, b"new").unwrap();
        assert_eq!(mode(&wide), 0o640);
        // A new file: the mode `fs::write` gives (0666 less the umask), not tempfile's 0600.
        let plain = d.join("plain");
        fs::write(&plain, "x").unwrap();
        let fresh = d.join("fresh.relay");
        write_atomic(&fresh, b"x").unwrap();
        assert_eq!(mode(&fresh), mode(&plain));
        fs::remove_dir_all(&d).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn writes_through_symbolic_links() {
        let d = dir("link");
        let real = d.join("real.relay");
        fs::write(&real, "old").unwrap();
        let link = d.join("link.relay");
        std::os::unix::fs::symlink("real.relay", &link).unwrap();
        write_atomic(&link, b"new").unwrap();
        assert!(fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(fs::read_to_string(&real).unwrap(), "new");
        // A dangling link: the file it names is created.
        let dangling = d.join("dangling.relay");
        std::os::unix::fs::symlink("made.relay", &dangling).unwrap();
        write_atomic(&dangling, b"made").unwrap();
        assert!(fs::symlink_metadata(&dangling)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(fs::read_to_string(d.join("made.relay")).unwrap(), "made");
        assert_eq!(
            names(&d),
            ["dangling.relay", "link.relay", "made.relay", "real.relay"]
        );
        fs::remove_dir_all(&d).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn refuses_what_is_not_a_regular_file() {
        let d = dir("special");
        let e = write_atomic(&d, b"x").unwrap_err();
        assert_eq!(e.to_string(), "it is a directory, not a regular file");
        let link = d.join("to-dir");
        std::os::unix::fs::symlink(&d, &link).unwrap();
        let e = write_atomic(&link, b"x").unwrap_err();
        assert!(
            e.to_string()
                .ends_with(" is a directory, not a regular file"),
            "{e}"
        );
        // A character device is written directly (`-o /dev/null`).
        write_atomic(Path::new("/dev/null"), b"x").unwrap();
        fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn read_errors_say_where_the_invalid_byte_is() {
        let msg = |bytes: &[u8]| text_of(bytes.to_vec()).unwrap_err().message("f.relay");
        assert_eq!(
            msg(b"a\nb\n\xc3\xa9\xc3\xa9 x\xff y"),
            "f.relay:3:5: invalid UTF-8 (byte 0xff)"
        );
        assert_eq!(msg(b"\xfe"), "f.relay:1:1: invalid UTF-8 (byte 0xfe)");
        assert_eq!(
            msg(b"ok\n\xe2\x82"),
            "f.relay:2:1: invalid UTF-8 (byte 0xe2)"
        );
        assert_eq!(text_of(b"fine".to_vec()).unwrap(), "fine");
        let e = read_text(Path::new("/nonexistent-dir/f.relay")).unwrap_err();
        assert!(e.message("f.relay").starts_with("cannot read f.relay: "));
    }
}
