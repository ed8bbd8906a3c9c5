//! The terminal front end: a line editor (rustyline) over the session engine when stdin is a
//! terminal, or a plain statement reader when it is piped. The editor knows nothing about the
//! language: whether an entry needs more lines (read under the `... ` prompt) is decided by
//! the language's `Scanner`.

pub mod helper;
pub mod history;
pub mod stdio;

use helper::ReplHelper;
use passlab::lang::{Completeness, Scanner};
use passlab::session::Session;
use rustyline::error::ReadlineError;
use rustyline::history::DefaultHistory;
use rustyline::{Config, Editor};
use std::cell::RefCell;
use std::io::{BufRead, IsTerminal};
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
    let terminal = Arc::new(stdio::Terminal::new(color, session.interrupt_flag()));
    session.set_live(Some(terminal.clone()));
    if std::io::stdin().is_terminal() {
        interactive(&mut session, &terminal)
    } else {
        piped(&mut session, &terminal)
    }
}

/// Two lines of at most 80 columns.
fn banner() -> String {
    format!(
        "passlab {} — TVM-style pass pipelines, interactively.\n`help`, `passes`; `quit` or Ctrl-D to leave.",
        env!("CARGO_PKG_VERSION")
    )
}

type Ed = Editor<ReplHelper, DefaultHistory>;

fn interactive(session: &mut Session, terminal: &stdio::Terminal) -> i32 {
    let color = session.color_enabled();
    let shared = Rc::new(RefCell::new(std::mem::take(session)));
    let config = Config::builder()
        .auto_add_history(false)
        .completion_type(rustyline::CompletionType::List)
        .max_history_size(history::KEEP)
        .expect("a positive history size")
        .build();
    let mut rl: Ed = match Editor::with_config(config) {
        Ok(rl) => rl,
        Err(e) => {
            stdio::err(&format!("error: cannot start the line editor: {e}\n"));
            *session = Rc::try_unwrap(shared)
                .map(RefCell::into_inner)
                .unwrap_or_default();
            return piped(session, terminal);
        }
    };
    // Lines typed ahead while no line is being edited (a statement running, the gap before a
    // continuation line) reach the editor with the terminal's newline, Ctrl-J: it submits the
    // line as Enter does, instead of starting a new line inside it.
    rl.bind_sequence(
        rustyline::KeyEvent::ctrl('J'),
        rustyline::EventHandler::Simple(rustyline::Cmd::AcceptLine),
    );
    rl.set_helper(Some(ReplHelper {
        session: shared.clone(),
        color,
    }));
    let hist = history_path();
    if let Some(h) = hist.as_deref().filter(|h| history::loadable(h)) {
        let _ = rl.load_history(h);
    }
    let mut history_failed = false;
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
    stdio::out(&format!("{}\n", banner()));
    loop {
        // A paused run stays paused between statements; the prompt says so.
        let prompt = if shared.borrow().paused().is_some() {
            "(paused) >>> "
        } else {
            ">>> "
        };
        let src = match read_entry(&mut rl, prompt) {
            Entry::Text(src) => src,
            Entry::Interrupted => continue,
            Entry::End(None) => break,
            Entry::End(Some(e)) => {
                stdio::err(&format!("error: {e}\n"));
                break;
            }
        };
        if src.trim().is_empty() {
            continue;
        }
        let added = rl.add_history_entry(src.as_str()).unwrap_or(false);
        if let Some(h) = hist.as_deref().filter(|_| added) {
            if let Err(e) = history::append(h, &src) {
                if !std::mem::replace(&mut history_failed, true) {
                    stdio::err(&format!(
                        "warning: cannot save history to {}: {e}\n",
                        h.display()
                    ));
                }
            }
        }
        if is_quit(&src) {
            break;
        }
        terminal.reset();
        running.store(true, Ordering::SeqCst);
        // Tables and help fit the terminal (read again each time: the window may have been
        // resized since the last statement).
        let width = rl.dimensions().map(|(cols, _)| cols).filter(|&c| c > 0);
        shared.borrow_mut().set_width(width);
        let out = shared.borrow_mut().execute(&src);
        running.store(false, Ordering::SeqCst);
        stdio::out(&out.text(color));
    }
    drop(rl);
    *session = Rc::try_unwrap(shared)
        .map(RefCell::into_inner)
        .unwrap_or_default();
    exit_all(session);
    0
}

/// What the editor read: an entry (one or more lines), an interrupted one, or the end.
enum Entry {
    Text(String),
    Interrupted,
    /// End of input, or an error reading it.
    End(Option<ReadlineError>),
}

/// Reads one entry: a line, and while the language says the input is incomplete (an open
/// bracket, block or `"""`), more lines under the continuation prompt `... `, indented as the
/// open blocks suggest. An empty line submits what is there, so a typo cannot trap the user;
/// Ctrl-C drops the whole entry; end of input submits it.
fn read_entry(rl: &mut Ed, prompt: &str) -> Entry {
    let mut src = match rl.readline(prompt) {
        Ok(line) => line,
        Err(ReadlineError::Interrupted) => return Entry::Interrupted,
        Err(ReadlineError::Eof) => return Entry::End(None),
        Err(e) => return Entry::End(Some(e)),
    };
    let mut scan = Scanner::new();
    scan.feed(&src);
    while let Completeness::Incomplete { indent } = scan.state() {
        let line = match rl.readline_with_initial(CONTINUATION, (&" ".repeat(indent), "")) {
            Ok(line) => line,
            Err(ReadlineError::Interrupted) => return Entry::Interrupted,
            Err(ReadlineError::Eof) => break,
            Err(e) => return Entry::End(Some(e)),
        };
        if line.trim().is_empty() {
            break;
        }
        src.push('\n');
        scan.feed("\n");
        src.push_str(&line);
        scan.feed(&line);
    }
    Entry::Text(src)
}

/// The prompt of a line that continues an incomplete entry.
pub const CONTINUATION: &str = "... ";

/// `quit`, `quit()` and `exit()` leave the REPL as Ctrl-D does (`exit` alone is the
/// language's statement that exits a context).
fn is_quit(src: &str) -> bool {
    matches!(src.trim(), "quit" | "quit()" | "exit()")
}

/// Exits every entered context (their instruments' exit_pass_ctx run) at the end of a
/// session; true when one failed.
fn exit_all(session: &mut Session) -> bool {
    let out = session.exit_all_contexts();
    stdio::out(&out.text(session.color_enabled()));
    out.is_error()
}

/// Line `number` of piped input as text, or `None` after saying why it cannot be read.
fn stdin_line(line: std::io::Result<Vec<u8>>, number: usize) -> Option<String> {
    let mut bytes = match line {
        Ok(bytes) => bytes,
        Err(e) => {
            stdio::err(&format!("error: cannot read standard input: {e}\n"));
            return None;
        }
    };
    if bytes.last() == Some(&b'\r') {
        bytes.pop();
    }
    match passlab::files::text_of(bytes) {
        Ok(text) => Some(text),
        Err(mut e) => {
            if let passlab::files::ReadError::Utf8 { line, .. } = &mut e {
                *line = number;
            }
            stdio::err(&format!("error: {}\n", e.message("standard input")));
            None
        }
    }
}

fn piped(session: &mut Session, terminal: &stdio::Terminal) -> i32 {
    let mut buf = String::new();
    let mut scan = Scanner::new();
    let mut failed = false;
    for (i, line) in std::io::stdin().lock().split(b'\n').enumerate() {
        let Some(line) = stdin_line(line, i + 1) else {
            // Unreadable input: what is left of it would not mean what was written.
            failed = true;
            buf.clear();
            break;
        };
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
        if is_quit(&src) {
            break;
        }
        terminal.reset();
        let out = session.execute(&src);
        failed |= out.is_error();
        stdio::out(&out.text(session.color_enabled()));
    }
    if !buf.trim().is_empty() {
        let out = session.execute(&buf);
        failed |= out.is_error();
        stdio::out(&out.text(session.color_enabled()));
    }
    failed |= exit_all(session);
    i32::from(failed)
}
