//! The REPL's history file, which every session using it shares. A statement is appended when
//! it is entered, before it runs, under an exclusive advisory lock (`flock`, through std's
//! `File::lock`), as shells with a shared history do: no session rewrites another's lines, and
//! Ctrl-C, an error or a crash of the statement cannot lose it. The format is rustyline's
//! (`#V2`, then one entry a line with `\n` and `\` escaped), which the editor loads at start
//! under a shared lock of the same kind. A new file is made `0600`, as shells make theirs.
//!
//! The file is kept short: past `Limits::compact_at` bytes, the session holding the lock
//! rewrites it with the newest entries (at most `Limits::keep`, in at most half that many
//! bytes) through `files::write_atomic`. A session that then gets the lock on the file that
//! was replaced sees that the path names another file now, and appends to that one.

use passlab::files::write_atomic;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::Path;

/// How many entries the editor keeps in memory, and the file at most after compaction.
pub const KEEP: usize = 1000;

/// When and how far the file is compacted.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Compact once the file is larger than this many bytes.
    pub compact_at: u64,
    /// Keep at most this many entries.
    pub keep: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            compact_at: 1 << 20,
            keep: KEEP,
        }
    }
}

const HEADER: &[u8] = b"#V2\n";

/// Appends `entry` to the history file at `path` (see the module note).
pub fn append(path: &Path, entry: &str) -> io::Result<()> {
    append_with(path, entry, Limits::default())
}

/// [`append`] with given limits.
pub fn append_with(path: &Path, entry: &str, limits: Limits) -> io::Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        fs::create_dir_all(dir)?;
    }
    let mut record = Vec::with_capacity(entry.len() + 8);
    escape(entry, &mut record);
    record.push(b'\n');
    loop {
        let mut file = open_locked(path)?;
        if !still_at(path, &file)? {
            // Compacted (or removed) while we waited for the lock: that file is gone.
            continue;
        }
        let len = file.metadata()?.len();
        let mut bytes = Vec::with_capacity(record.len() + HEADER.len() + 1);
        if len == 0 {
            bytes.extend_from_slice(HEADER);
        } else if !ends_with_newline(&mut file, len)? {
            // The last write was cut short (a full disk): its line ends here.
            bytes.push(b'\n');
        }
        bytes.extend_from_slice(&record);
        file.write_all(&bytes)?;
        if len + bytes.len() as u64 > limits.compact_at {
            compact(path, &mut file, limits)?;
        }
        return Ok(());
    }
}

/// Whether `path` is a history file the editor may load (a FIFO would block it forever).
pub fn loadable(path: &Path) -> bool {
    fs::metadata(path).is_ok_and(|m| m.is_file())
}

/// Opens (creating) the file for appending and waits for its exclusive lock.
fn open_locked(path: &Path) -> io::Result<File> {
    if let Ok(meta) = fs::metadata(path) {
        if !meta.is_file() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "it is not a regular file",
            ));
        }
    }
    let mut options = OpenOptions::new();
    options.read(true).append(true).create(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let file = options.open(path)?;
    file.lock()?;
    Ok(file)
}

/// Whether `path` still names the file we hold open.
fn still_at(path: &Path, file: &File) -> io::Result<bool> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let held = file.metadata()?;
        Ok(fs::metadata(path).is_ok_and(|m| m.dev() == held.dev() && m.ino() == held.ino()))
    }
    #[cfg(not(unix))]
    {
        let _ = (path, file);
        Ok(true)
    }
}

fn ends_with_newline(file: &mut File, len: u64) -> io::Result<bool> {
    let mut last = [0u8];
    file.seek(SeekFrom::Start(len - 1))?;
    file.read_exact(&mut last)?;
    Ok(last[0] == b'\n')
}

/// Rewrites the locked file with its newest entries.
fn compact(path: &Path, file: &mut File, limits: Limits) -> io::Result<()> {
    let mut text = Vec::new();
    file.seek(SeekFrom::Start(0))?;
    file.read_to_end(&mut text)?;
    let body = text.strip_prefix(HEADER).unwrap_or(&text);
    let budget = (limits.compact_at / 2) as usize;
    let mut bytes = 0;
    let mut start = body.len();
    let newest_first = body.split(|&b| b == b'\n').rev().filter(|l| !l.is_empty());
    for (kept, line) in newest_first.enumerate() {
        if kept == limits.keep || (kept > 0 && bytes + line.len() + 1 > budget) {
            break;
        }
        bytes += line.len() + 1;
        // `line` is a subslice of `body`: where it starts.
        start = line.as_ptr() as usize - body.as_ptr() as usize;
    }
    let mut out = Vec::with_capacity(HEADER.len() + body.len() - start);
    out.extend_from_slice(HEADER);
    out.extend_from_slice(&body[start..]);
    if !out.ends_with(b"\n") {
        out.push(b'\n');
    }
    write_atomic(path, &out)
}

/// rustyline's V2 escaping: a newline as `\n`, a backslash as `\\`.
fn escape(entry: &str, out: &mut Vec<u8>) {
    for &b in entry.as_bytes() {
        match b {
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\\' => out.extend_from_slice(b"\\\\"),
            _ => out.push(b),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rustyline::history::{DefaultHistory, History, SearchDirection};

    fn dir(name: &str) -> std::path::PathBuf {
        let d = std::env::temp_dir().join(format!("passlab-hist-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&d);
        fs::create_dir_all(&d).unwrap();
        d
    }

    /// The entries as the editor loads them.
    fn loaded(path: &Path) -> Vec<String> {
        let mut h = DefaultHistory::new();
        h.set_max_len(100_000).unwrap();
        h.ignore_dups(false).unwrap();
        h.load(path).unwrap();
        (0..h.len())
            .map(|i| {
                h.get(i, SearchDirection::Forward)
                    .unwrap()
                    .unwrap()
                    .entry
                    .into_owned()
            })
            .collect()
    }

    #[test]
    fn the_editor_loads_what_is_appended() {
        let d = dir("format");
        let p = d.join("sub").join("history");
        for e in ["x = 1", "with A {\n  y = \"a\\b\"\n}", "x"] {
            append(&p, e).unwrap();
        }
        assert_eq!(loaded(&p), ["x = 1", "with A {\n  y = \"a\\b\"\n}", "x"]);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            assert_eq!(
                fs::metadata(&p).unwrap().permissions().mode() & 0o777,
                0o600
            );
        }
        fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn a_line_cut_short_does_not_swallow_the_next() {
        let d = dir("cut");
        let p = d.join("history");
        fs::write(&p, "#V2\nfirst\nhalf a li").unwrap();
        append(&p, "next").unwrap();
        assert_eq!(loaded(&p), ["first", "half a li", "next"]);
        fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn concurrent_appends_and_compactions_lose_no_new_line() {
        let d = dir("threads");
        let p = d.join("history");
        // Small limits, so that compactions replace the file while others wait for its lock.
        let limits = Limits {
            compact_at: 2048,
            keep: 100_000,
        };
        let threads: Vec<_> = (0..6)
            .map(|t| {
                let p = p.clone();
                std::thread::spawn(move || {
                    for i in 0..300 {
                        append_with(&p, &format!("thread {t} line {i}"), limits).unwrap();
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        let entries = loaded(&p);
        // Compaction keeps the newest KiB. A line appended to a file that was being
        // replaced would be missing from the middle of its thread's lines: the lines of each
        // thread that are there must be a run up to its last one.
        assert!(entries.len() > 25, "{entries:?}");
        for t in 0..6 {
            let mine: Vec<usize> = entries
                .iter()
                .filter_map(|e| e.strip_prefix(&format!("thread {t} line ")))
                .map(|i| i.parse().unwrap())
                .collect();
            if let Some(&first) = mine.first() {
                assert_eq!(mine, (first..300).collect::<Vec<_>>(), "thread {t}");
            }
        }
        assert!(fs::metadata(&p).unwrap().len() <= 2048 + 64);
        let names: Vec<_> = fs::read_dir(&d).unwrap().collect();
        assert_eq!(names.len(), 1, "no temporary file is left");
        fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn a_writer_waiting_on_a_file_that_is_replaced_appends_to_the_new_one() {
        let d = dir("replaced");
        let p = d.join("history");
        append(&p, "old").unwrap();
        // Hold the lock as a compacting session does, while another session waits for it.
        let held = open_locked(&p).unwrap();
        let waiter = {
            let p = p.clone();
            std::thread::spawn(move || append(&p, "waited").unwrap())
        };
        std::thread::sleep(std::time::Duration::from_millis(200));
        write_atomic(&p, b"#V2\ncompacted\n").unwrap();
        drop(held);
        waiter.join().unwrap();
        assert_eq!(loaded(&p), ["compacted", "waited"]);
        fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn without_compaction_every_line_of_every_writer_is_kept() {
        let d = dir("all");
        let p = d.join("history");
        let threads: Vec<_> = (0..4)
            .map(|t| {
                let p = p.clone();
                std::thread::spawn(move || {
                    for i in 0..100 {
                        append(&p, &format!("{t}:{i}")).unwrap();
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        let mut entries = loaded(&p);
        entries.sort();
        let mut expected: Vec<String> = (0..4)
            .flat_map(|t| (0..100).map(move |i| format!("{t}:{i}")))
            .collect();
        expected.sort();
        assert_eq!(entries, expected);
        fs::remove_dir_all(&d).unwrap();
    }
}
