//! The terminal front end: a line editor (rustyline) over the session engine when stdin is a
//! terminal, or a plain statement reader when it is piped. The editor knows nothing about the
//! language: multi-line input is decided by the engine's `is_complete`.

pub mod helper;

use crate::lang::{Completeness, Scanner};
use crate::session::Session;
use helper::ReplHelper;
use rustyline::error::ReadlineError;
use rustyline::history::DefaultHistory;
use rustyline::{Config, Editor};
use std::cell::RefCell;
use std::io::{BufRead, IsTerminal, Write};
use std::path::PathBuf;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

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
    session.set_html(false);
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

type Ed = Editor<ReplHelper, DefaultHistory>;

fn interactive(session: &mut Session) -> i32 {
    let color = session.color_enabled();
    let shared = Rc::new(RefCell::new(std::mem::take(session)));
    let config = Config::builder()
        .auto_add_history(false)
        .completion_type(rustyline::CompletionType::List)
        .build();
    let mut rl: Ed = match Editor::with_config(config) {
        Ok(rl) => rl,
        Err(e) => {
            eprintln!("error: cannot start the line editor: {e}");
            *session = Rc::try_unwrap(shared)
                .map(RefCell::into_inner)
                .unwrap_or_default();
            return piped(session);
        }
    };
    rl.set_helper(Some(ReplHelper {
        session: shared.clone(),
        color,
    }));
    let hist = history_path();
    if let Some(h) = &hist {
        let _ = rl.load_history(h);
    }
    // Ctrl-C while a statement runs interrupts the pipeline at the next pass boundary; while
    // typing, the editor sees it as a key and clears the line.
    let running = Arc::new(AtomicBool::new(false));
    let flag = shared.borrow().interrupt_flag();
    {
        let running = running.clone();
        let _ = ctrlc::set_handler(move || {
            if running.load(Ordering::SeqCst) {
                flag.store(true, Ordering::SeqCst);
            }
        });
    }
    println!("{}", banner());
    loop {
        // A paused run stays paused between statements; the prompt says so.
        let prompt = if shared.borrow().paused().is_some() {
            "(paused) >>> "
        } else {
            ">>> "
        };
        match rl.readline(prompt) {
            Ok(src) => {
                if src.trim().is_empty() {
                    continue;
                }
                let _ = rl.add_history_entry(src.as_str());
                if let Some(h) = &hist {
                    save_history(&mut rl, h);
                }
                running.store(true, Ordering::SeqCst);
                let out = shared.borrow_mut().execute(&src);
                running.store(false, Ordering::SeqCst);
                print!("{}", out.text(color));
                let _ = std::io::stdout().flush();
            }
            Err(ReadlineError::Interrupted) => continue,
            Err(ReadlineError::Eof) => break,
            Err(e) => {
                eprintln!("error: {e}");
                break;
            }
        }
    }
    drop(rl);
    *session = Rc::try_unwrap(shared)
        .map(RefCell::into_inner)
        .unwrap_or_default();
    exit_all(session);
    0
}

fn save_history(rl: &mut Ed, path: &std::path::Path) {
    if let Some(dir) = path.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    // Written to a temporary file and renamed, so a crash never leaves half a history.
    let tmp = path.with_extension("tmp");
    if rl.save_history(&tmp).is_ok() {
        let _ = std::fs::rename(&tmp, path);
    }
}

/// Exits every entered context (their instruments' exit_pass_ctx run) at the end of a
/// session; true when one failed.
fn exit_all(session: &mut Session) -> bool {
    let out = session.exit_all_contexts();
    print!("{}", out.text(session.color_enabled()));
    let _ = std::io::stdout().flush();
    out.is_error()
}

fn piped(session: &mut Session) -> i32 {
    let stdin = std::io::stdin();
    let mut buf = String::new();
    let mut scan = Scanner::new();
    let mut failed = false;
    for line in stdin.lock().lines() {
        let Ok(line) = line else { break };
        if !buf.is_empty() {
            buf.push('\n');
            scan.feed("\n");
        }
        buf.push_str(&line);
        scan.feed(&line);
        if matches!(scan.state(), Completeness::Incomplete { .. }) {
            continue;
        }
        scan = Scanner::new();
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
    failed |= exit_all(session);
    i32::from(failed)
}
