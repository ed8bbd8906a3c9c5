//! Standard output and standard error for the command-line front ends (the REPL and the
//! `passlab` subcommands); nothing there prints any other way.
//!
//! [`out`] writes and flushes. When the reader has gone away (`passlab print big.relay | head`)
//! the process ends quietly with status 141, the status a shell reports for `cat` killed by
//! SIGPIPE (Rust ignores that signal, so the write fails with a broken pipe instead). Any other
//! failure to write (`> /dev/full`) is reported on standard error and ends the process with
//! status 1. [`err`] writes a message to standard error and ignores failure: there is nowhere
//! left to report it.

use passlab::session::{LiveOutput, Part};
use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// The exit status of a process whose output pipe was closed: 128 + SIGPIPE.
pub const BROKEN_PIPE_STATUS: i32 = 141;

/// Writes `text` to standard output and flushes it (see the module note for failures).
pub fn out(text: &str) {
    let mut stdout = io::stdout().lock();
    if let Err(e) = stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
    {
        drop(stdout);
        fail(e)
    }
}

/// Writes `text` to standard error, ignoring failure.
pub fn err(text: &str) {
    let mut stderr = io::stderr().lock();
    let _ = stderr.write_all(text.as_bytes());
    let _ = stderr.flush();
}

/// Ends the process after standard output failed with `e`.
pub fn fail(e: io::Error) -> ! {
    if e.kind() == io::ErrorKind::BrokenPipe {
        std::process::exit(BROKEN_PIPE_STATUS);
    }
    err(&format!("error: cannot write to standard output: {e}\n"));
    std::process::exit(1)
}

/// The terminal as a live front end: parts are written as the session produces them (a
/// pipeline's Trace lines while it runs, not after), in slices, so that Ctrl-C (which sets
/// `interrupt`) also stops a flood of output: what is left of it is dropped, with one note.
pub struct Terminal {
    color: bool,
    interrupt: Arc<AtomicBool>,
    stopped: AtomicBool,
}

/// How much is written between two looks at the interrupt flag.
const SLICE_BYTES: usize = 16 * 1024;

/// Where the next slice of `rest` ends: after its last line within [`SLICE_BYTES`], else on
/// the last character boundary within it (never 0 for a non-empty `rest`).
fn slice_end(rest: &str) -> usize {
    if rest.len() <= SLICE_BYTES {
        return rest.len();
    }
    let boundary = (0..=SLICE_BYTES)
        .rev()
        .find(|&i| rest.is_char_boundary(i))
        .unwrap_or(0);
    match rest[..boundary].rfind('\n') {
        Some(nl) => nl + 1,
        None if boundary > 0 => boundary,
        None => rest.len(),
    }
}

impl Terminal {
    pub fn new(color: bool, interrupt: Arc<AtomicBool>) -> Terminal {
        Terminal {
            color,
            interrupt,
            stopped: AtomicBool::new(false),
        }
    }

    /// A new statement starts: output flows again.
    pub fn reset(&self) {
        self.stopped.store(false, Ordering::SeqCst);
    }

    /// Writes `text` unless output was stopped; true when it was all written.
    pub fn write(&self, text: &str) -> bool {
        let mut rest = text;
        while !rest.is_empty() {
            if self.interrupted() {
                return false;
            }
            let cut = slice_end(rest);
            out(&rest[..cut]);
            rest = &rest[cut..];
        }
        true
    }

    fn interrupted(&self) -> bool {
        if !self.interrupt.load(Ordering::SeqCst) {
            return false;
        }
        if !self.stopped.swap(true, Ordering::SeqCst) {
            let note = "\n^C: output stopped; the run stops at the next pass boundary\n";
            out(&if self.color {
                format!("\x1b[33m{note}\x1b[0m")
            } else {
                note.to_string()
            });
        }
        true
    }
}

impl LiveOutput for Terminal {
    fn part(&self, part: &Part) {
        let text = match (&part.ansi, self.color) {
            (Some(a), true) => a.as_str(),
            _ => part.plain.as_str(),
        };
        self.write(text);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Slices end after a line, or on a character boundary where no newline is near.
    #[test]
    fn slices_end_on_lines_or_character_boundaries() {
        // Three bytes a character: the slice size falls inside one.
        let wide = "→".repeat(SLICE_BYTES);
        let end = slice_end(&wide);
        assert!(
            end > 0 && end <= SLICE_BYTES && wide.is_char_boundary(end),
            "{end}"
        );
        let lines = "0123456789\n".repeat(SLICE_BYTES / 5);
        let end = slice_end(&lines);
        assert!(end <= SLICE_BYTES && lines[..end].ends_with('\n'), "{end}");
        assert_eq!(slice_end("short"), 5);
    }
}
