//! Standard output and standard error for the command-line front ends (the REPL and the
//! `passlab` subcommands); nothing there prints any other way.
//!
//! [`out`] writes and flushes. When the reader has gone away (`passlab print big.relay | head`)
//! the process ends quietly with status 141, the status a shell reports for `cat` killed by
//! SIGPIPE (Rust ignores that signal, so the write fails with a broken pipe instead). Any other
//! failure to write (`> /dev/full`) is reported on standard error and ends the process with
//! status 1. [`err`] writes a message to standard error and ignores failure: there is nowhere
//! left to report it.

use std::io::{self, Write};

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
