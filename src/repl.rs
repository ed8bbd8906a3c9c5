//! The terminal front end: a line editor (rustyline) over the session engine when stdin is a
//! terminal, or a plain statement reader when it is piped. The editor knows nothing about the
//! language: multi-line input is decided by the engine's `is_complete`.

use crate::lang::{is_complete, Completeness};
use crate::session::Session;
use rustyline::error::ReadlineError;
use rustyline::DefaultEditor;
use std::io::{BufRead, IsTerminal, Write};
use std::path::PathBuf;

/// Where the history lives: `$XDG_DATA_HOME/passlab/history` (or the platform's data dir).
pub fn history_path() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("PASSLAB_HISTORY") {
        return Some(PathBuf::from(p));
    }
    dirs::data_dir().map(|d| d.join("passlab").join("history"))
}

/// Runs the REPL until end of input. Returns the process exit code.
pub fn run(color: bool) -> i32 {
    let mut session = Session::new();
    session.set_color(color);
    if std::io::stdin().is_terminal() {
        interactive(&mut session)
    } else {
        piped(&mut session)
    }
}

fn banner() -> String {
    format!(
        "passlab {} — TVM-style pass pipelines, interactively. `help`, `passes`, Ctrl-D to quit.",
        env!("CARGO_PKG_VERSION")
    )
}

fn interactive(session: &mut Session) -> i32 {
    let mut rl = match DefaultEditor::new() {
        Ok(rl) => rl,
        Err(e) => {
            eprintln!("error: cannot start the line editor: {e}");
            return piped(session);
        }
    };
    let hist = history_path();
    if let Some(h) = &hist {
        let _ = rl.load_history(h);
    }
    println!("{}", banner());
    let mut buf = String::new();
    loop {
        let prompt = if buf.is_empty() { ">>> " } else { "... " };
        match rl.readline(prompt) {
            Ok(line) => {
                // An empty line after an incomplete input submits it anyway.
                let submit_anyway = !buf.is_empty() && line.trim().is_empty();
                if !buf.is_empty() {
                    buf.push('\n');
                }
                buf.push_str(&line);
                if !submit_anyway && matches!(is_complete(&buf), Completeness::Incomplete { .. }) {
                    continue;
                }
                let src = std::mem::take(&mut buf);
                if src.trim().is_empty() {
                    continue;
                }
                let _ = rl.add_history_entry(src.as_str());
                if let Some(h) = &hist {
                    save_history(&mut rl, h);
                }
                let out = session.execute(&src);
                print!("{}", out.text(session_color(session)));
                let _ = std::io::stdout().flush();
            }
            Err(ReadlineError::Interrupted) => {
                // Ctrl-C while typing clears the input.
                buf.clear();
            }
            Err(ReadlineError::Eof) => break,
            Err(e) => {
                eprintln!("error: {e}");
                break;
            }
        }
    }
    exit_all(session);
    0
}

fn session_color(s: &Session) -> bool {
    s.color_enabled()
}

fn save_history(rl: &mut DefaultEditor, path: &std::path::Path) {
    if let Some(dir) = path.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    // Written to a temporary file and renamed, so a crash never leaves half a history.
    let tmp = path.with_extension("tmp");
    if rl.save_history(&tmp).is_ok() {
        let _ = std::fs::rename(&tmp, path);
    }
}

/// Exits every entered context (their instruments' exit_pass_ctx run) at the end of a session.
fn exit_all(session: &mut Session) {
    let out = session.exit_all_contexts();
    print!("{}", out.text(session.color_enabled()));
    let _ = std::io::stdout().flush();
}

fn piped(session: &mut Session) -> i32 {
    let stdin = std::io::stdin();
    let mut buf = String::new();
    let mut failed = false;
    for line in stdin.lock().lines() {
        let Ok(line) = line else { break };
        if !buf.is_empty() {
            buf.push('\n');
        }
        buf.push_str(&line);
        if matches!(is_complete(&buf), Completeness::Incomplete { .. }) {
            continue;
        }
        let src = std::mem::take(&mut buf);
        if src.trim().is_empty() {
            continue;
        }
        let out = session.execute(&src);
        failed |= out.is_error();
        print!("{}", out.text(session.color_enabled()));
        let _ = std::io::stdout().flush();
    }
    if !buf.trim().is_empty() {
        let out = session.execute(&buf);
        failed |= out.is_error();
        print!("{}", out.text(session.color_enabled()));
    }
    exit_all(session);
    i32::from(failed)
}
