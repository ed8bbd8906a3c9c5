//! The terminal REPL driven in a real pseudo-terminal: completion, multi-line input, errors with
//! a caret, history across runs, Ctrl-C during a long pipeline, Ctrl-D running exit_pass_ctx.

mod common;

use rexpect::session::{spawn_command, PtySession};
use std::process::Command;

const TIMEOUT_MS: u64 = 30_000;

fn repl(history: &std::path::Path) -> PtySession {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_passlab"));
    cmd.env("PASSLAB_HISTORY", history)
        .env("NO_COLOR", "1")
        .env("TERM", "xterm");
    let mut p = spawn_command(cmd, Some(TIMEOUT_MS)).expect("spawn passlab");
    p.exp_string("Ctrl-D to leave").expect("banner");
    p.exp_string(">>> ").expect("prompt");
    // Let the line editor switch the terminal to raw mode before typing.
    std::thread::sleep(std::time::Duration::from_millis(300));
    p
}

/// Ctrl-D once the line editor is reading again: sent while it redraws the prompt (the
/// terminal still in cooked mode), the line discipline eats it as end-of-file and the editor
/// never sees it (one CI run on a loaded machine waited 30 s for EOF).
fn ctrl_d(p: &mut PtySession) {
    std::thread::sleep(std::time::Duration::from_millis(300));
    p.send_control('d').unwrap();
}

fn tmp(name: &str) -> std::path::PathBuf {
    common::fresh_dir("repl", name)
}

#[test]
fn tab_completes_pass_constructors() {
    let dir = tmp("complete");
    let mut p = repl(&dir.join("history"));
    p.send("InferT").unwrap();
    p.flush().unwrap();
    std::thread::sleep(std::time::Duration::from_millis(200));
    p.send("\t").unwrap();
    p.flush().unwrap();
    p.exp_string("ype(").expect("completed to InferType(");
    p.send_line(")").unwrap();
    p.exp_string("<module pass InferType, opt_level 0>")
        .unwrap();
    ctrl_d(&mut p);
    p.exp_eof().unwrap();
}

/// Types `text`, presses Tab, and waits for `expect` (the completed text as echoed).
fn tab(p: &mut PtySession, text: &str, expect: &str) {
    p.send(text).unwrap();
    p.flush().unwrap();
    std::thread::sleep(std::time::Duration::from_millis(200));
    p.send("\t").unwrap();
    p.flush().unwrap();
    p.exp_string(expect)
        .unwrap_or_else(|e| panic!("Tab after {text:?}: {e}"));
}

#[test]
fn an_incomplete_entry_continues_under_the_continuation_prompt() {
    let dir = tmp("continuation");
    let mut p = repl(&dir.join("history"));
    p.send_line("with PassContext(instruments=[Trace(name=\"t\")]) {")
        .unwrap();
    p.exp_string("... ").expect("the continuation prompt");
    p.send_line("x = [1,").unwrap();
    p.exp_string("... ").unwrap();
    p.send_line("2]").unwrap();
    p.exp_string("... ").unwrap();
    p.send_line("}").unwrap();
    p.exp_string("[t] enter_pass_ctx").unwrap();
    p.exp_string("[t] exit_pass_ctx").unwrap();
    p.exp_string(">>> ").unwrap();
    p.send_line("x").unwrap();
    p.exp_string("[1, 2]").unwrap();
    // A `"""` string spans lines too; an empty line submits an entry that stays incomplete.
    p.send_line("m = parse(\"\"\"def @main(%x: float32) {")
        .unwrap();
    p.exp_string("... ").unwrap();
    p.send_line("%x }\"\"\")").unwrap();
    p.exp_string(">>> ").unwrap();
    p.send_line("f(").unwrap();
    p.exp_string("... ").unwrap();
    p.send_line("").unwrap();
    p.exp_string("error: ").unwrap();
    p.exp_string(">>> ").unwrap();
    ctrl_d(&mut p);
    p.exp_eof().unwrap();
}

#[test]
fn tab_completes_help_names_and_module_functions() {
    let dir = tmp("complete_names");
    let mut p = repl(&dir.join("history"));
    // `help` names a pass: no `(` is left open.
    tab(&mut p, "help FoldC", "onstant");
    p.send_line("").unwrap();
    p.exp_string("function pass, opt_level 2").unwrap();
    p.exp_string(">>> ").unwrap();
    p.send_line(
        "m = parse(\"\"\"def @main(%x: float32) { %x } def @helper(%y: float32) { %y }\"\"\")",
    )
    .unwrap();
    p.exp_string(">>> ").unwrap();
    tab(&mut p, "diff m m @he", "lper");
    p.send_line("").unwrap();
    p.exp_string("(no differences)").unwrap();
    tab(&mut p, "m[\"hel", "per");
    p.send_line("\"]").unwrap();
    p.exp_string("def @helper").unwrap();
    ctrl_d(&mut p);
    p.exp_eof().unwrap();
}

#[test]
fn multi_line_with_block_and_error_caret() {
    let dir = tmp("multiline");
    let mut p = repl(&dir.join("history"));
    p.send_line("with PassContext(instruments=[Trace(name=\"t\")]) {")
        .unwrap();
    // Each further line is read under its own `... ` prompt.
    p.exp_string("... ").unwrap();
    p.send_line("  x = 1").unwrap();
    p.exp_string("... ").unwrap();
    p.send_line("}").unwrap();
    p.exp_string("[t] enter_pass_ctx").unwrap();
    p.exp_string("[t] exit_pass_ctx").unwrap();
    p.send_line("Sequentail([])").unwrap();
    p.exp_string("error: unknown name `Sequentail`").unwrap();
    p.exp_string("^^^^^^^^^^ did you mean `Sequential`?")
        .unwrap();
    p.send_line("x").unwrap();
    p.exp_string("\r\n1\r\n").unwrap();
    ctrl_d(&mut p);
    p.exp_eof().unwrap();
}

#[test]
fn history_is_recalled_across_runs() {
    let dir = tmp("history");
    let hist = dir.join("history");
    let mut p = repl(&hist);
    p.send_line("answer = 4242").unwrap();
    p.exp_string(">>> ").unwrap();
    ctrl_d(&mut p);
    p.exp_eof().unwrap();
    assert!(std::fs::read_to_string(&hist)
        .unwrap()
        .contains("answer = 4242"));
    let mut p = repl(&hist);
    p.send("\x1b[A").unwrap(); // Up
    p.flush().unwrap();
    p.exp_string("answer = 4242")
        .expect("the previous run's line is recalled");
    p.send_line("").unwrap();
    // Typeahead sent while the recalled statement runs would be discarded.
    std::thread::sleep(std::time::Duration::from_millis(300));
    run(&mut p, "answer", "\r\n4242\r\n");
    ctrl_d(&mut p);
    p.exp_eof().unwrap();
}

/// Sends a line and waits for `marker` in its output, then for the editor to be ready again
/// (typeahead sent while a statement runs is discarded when the editor re-enters raw mode).
fn run(p: &mut PtySession, line: &str, marker: &str) {
    p.send_line(line).unwrap();
    p.exp_string(marker)
        .unwrap_or_else(|e| panic!("{line}: {e}"));
    std::thread::sleep(std::time::Duration::from_millis(300));
}

#[test]
fn ctrl_c_interrupts_a_long_pipeline_and_keeps_values() {
    let dir = tmp("interrupt");
    let model = dir.join("model.relay");
    std::fs::write(&model, passlab::testgen::conv_model(200)).unwrap();
    let mut p = repl(&dir.join("history"));
    run(
        &mut p,
        &format!("m = load(\"{}\"); print(\"loaded\")", model.display()),
        "\r\nloaded",
    );
    // 100 x 100 x 10 InferType runs: far longer than the wait before the interrupt.
    let ten = ["InferType()"; 10].join(", ");
    run(
        &mut p,
        &format!("s1 = Sequential([{ten}]); print(\"s1 ok\")"),
        "\r\ns1 ok",
    );
    let hundred = ["s1"; 100].join(", ");
    run(
        &mut p,
        &format!("s2 = Sequential([{hundred}]); print(\"s2 ok\")"),
        "\r\ns2 ok",
    );
    let hundred = ["s2"; 100].join(", ");
    run(
        &mut p,
        &format!("seq = Sequential([{hundred}]); print(\"seq ok\")"),
        "\r\nseq ok",
    );
    p.send_line("m2 = seq(m)").unwrap();
    // Long enough for the statement to be running even on a loaded machine (it runs ~100 s).
    std::thread::sleep(std::time::Duration::from_millis(3000));
    p.send_control('c').unwrap();
    // Usually the run is inside InferType by then; on a loaded machine the interrupt may land
    // before the first pass (`interrupted before pass sequential`): either way at a boundary.
    p.exp_string("interrupted before pass ")
        .expect("the run stops at a pass boundary");
    p.exp_string(">>> ").unwrap();
    std::thread::sleep(std::time::Duration::from_millis(300));
    run(&mut p, "m2", "unknown name `m2`");
    run(&mut p, "equal(m, m)", "true");
    ctrl_d(&mut p);
    p.exp_eof().unwrap();
}

#[test]
fn the_prompt_says_when_a_run_is_paused_and_ctrl_d_aborts_it() {
    let dir = tmp("paused");
    let mut p = repl(&dir.join("history"));
    run(
        &mut p,
        "m = parse(\"\"\"def @main(%x: float32) { add(%x, 0f) }\"\"\"); break InferType",
        "breakpoint 1: before InferType",
    );
    run(
        &mut p,
        "with PassContext(instruments=[Trace(name=\"q\")]) { x = InferType()(m) }",
        "paused before InferType",
    );
    p.exp_string("(paused) >>> ").expect("the paused prompt");
    run(&mut p, "where", "InferType");
    p.exp_string("(paused) >>> ").unwrap();
    run(&mut p, "continue", "[q] exit_pass_ctx");
    // The editor clears the line, then draws the prompt: no "(paused) " before it now.
    p.exp_string("\u{1b}[K>>> ")
        .expect("the prompt is back to normal");
    run(&mut p, "x = InferType()(m)", "paused before InferType");
    ctrl_d(&mut p);
    p.exp_string("aborted InferType()(m) before InferType; nothing was bound")
        .expect("Ctrl-D aborts the paused run");
    p.exp_eof().unwrap();
}

#[test]
fn ctrl_d_exits_entered_contexts() {
    let dir = tmp("exit");
    let mut p = repl(&dir.join("history"));
    p.send_line("enter PassContext(instruments=[Trace(name=\"q\")])")
        .unwrap();
    p.exp_string("[q] enter_pass_ctx").unwrap();
    ctrl_d(&mut p);
    p.exp_string("[q] exit_pass_ctx")
        .expect("exit_pass_ctx runs at Ctrl-D");
    p.exp_eof().unwrap();
}

#[test]
fn piped_stdin_runs_statements_without_colors() {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_passlab"))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"x = [1, 2]\nx\nwith PassContext() {\n  y = 3\n}\ny\nnope\n")
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.starts_with("[1, 2]\n3\nerror: unknown name `nope`"),
        "{text}"
    );
    assert!(!text.contains('\x1b'), "no ANSI codes when piped");
    assert_eq!(
        out.status.code(),
        Some(1),
        "a failed statement makes the exit status 1"
    );
}

/// `quit`, `quit()` and `exit()` leave as Ctrl-D does (entered contexts are exited); `exit`
/// with no context entered says how to leave.
#[test]
fn quit_and_exit_call_leave_the_repl() {
    for word in ["quit", "quit()", "exit()"] {
        let dir = tmp(&format!("quit-{}", word.replace("()", "-call")));
        let mut p = repl(&dir.join("history"));
        p.send_line("exit").unwrap();
        p.exp_string("to leave the REPL: `quit`, `exit()` or Ctrl-D")
            .expect("exit with nothing entered says how to leave");
        p.send_line("enter PassContext(instruments=[Trace(name=\"q\")])")
            .unwrap();
        p.exp_string("[q] enter_pass_ctx").unwrap();
        std::thread::sleep(std::time::Duration::from_millis(300));
        p.send_line(word).unwrap();
        p.exp_string("[q] exit_pass_ctx")
            .expect("exit_pass_ctx runs when leaving");
        p.exp_eof().unwrap();
    }
    // Piped input stops at `quit` too.
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_passlab"))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let stdin = b"x = 1\nx\nquit\nnope\n";
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(String::from_utf8(out.stdout).unwrap(), "1\n");
    assert_eq!(out.status.code(), Some(0));
}

/// A pseudo-terminal for a test that floods it. rexpect's reader hands output over one byte
/// at a time and takes everything that has arrived before it looks for a match, so under a
/// flood on a loaded host it chases the writer and finds the first match only when the flood
/// ends. This one reads in chunks and looks at each chunk as it comes.
struct FloodPty {
    _process: rexpect::process::PtyProcess,
    writer: std::fs::File,
    chunks: std::sync::mpsc::Receiver<Vec<u8>>,
    /// What was read and not yet matched (only a needle's length of it is kept).
    tail: Vec<u8>,
    read: usize,
    eof: bool,
}

impl FloodPty {
    fn spawn(history: &std::path::Path) -> FloodPty {
        use std::io::Read;
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_passlab"));
        cmd.env("PASSLAB_HISTORY", history)
            .env("NO_COLOR", "1")
            .env("TERM", "xterm");
        let mut process = rexpect::process::PtyProcess::new(cmd).expect("spawn passlab");
        process.set_kill_timeout(Some(5_000));
        let mut reader = process.get_file_handle().unwrap();
        let writer = process.get_file_handle().unwrap();
        let (tx, chunks) = std::sync::mpsc::channel();
        std::thread::spawn(move || loop {
            let mut buf = vec![0u8; 64 * 1024];
            // The master reads EIO once the child has closed the terminal: the end.
            let n = reader.read(&mut buf).unwrap_or(0);
            buf.truncate(n);
            if tx.send(buf).is_err() || n == 0 {
                break;
            }
        });
        let mut p = FloodPty {
            _process: process,
            writer,
            chunks,
            tail: Vec::new(),
            read: 0,
            eof: false,
        };
        p.expect(&["Ctrl-D to leave"], "banner");
        p.expect(&[">>> "], "prompt");
        // Let the line editor switch the terminal to raw mode before typing.
        std::thread::sleep(std::time::Duration::from_millis(300));
        p
    }

    fn send(&mut self, bytes: &[u8]) {
        use std::io::Write;
        self.writer.write_all(bytes).unwrap();
        self.writer.flush().unwrap();
    }

    /// Reads until one of `needles` shows (or the end, with `needles` empty); returns its index.
    fn expect(&mut self, needles: &[&str], what: &str) -> usize {
        let deadline = std::time::Instant::now() + std::time::Duration::from_millis(TIMEOUT_MS);
        let keep = needles.iter().map(|n| n.len()).max().unwrap_or(1) - 1;
        loop {
            let found = needles
                .iter()
                .enumerate()
                .filter_map(|(i, n)| {
                    let at = self.tail.windows(n.len()).position(|w| w == n.as_bytes())?;
                    Some((at + n.len(), i))
                })
                .min();
            if let Some((end, i)) = found {
                self.tail.drain(..end);
                return i;
            }
            if self.eof {
                assert!(
                    needles.is_empty(),
                    "{what}: the REPL ended before {needles:?}"
                );
                return 0;
            }
            let cut = self.tail.len().saturating_sub(keep);
            self.tail.drain(..cut);
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            match self.chunks.recv_timeout(left) {
                Ok(chunk) if chunk.is_empty() => self.eof = true,
                Ok(chunk) => {
                    self.read += chunk.len();
                    self.tail.extend_from_slice(&chunk);
                }
                Err(_) => panic!(
                    "{what}: no {needles:?} in {TIMEOUT_MS} ms ({} bytes read; the last: {:?})",
                    self.read,
                    String::from_utf8_lossy(&self.tail)
                ),
            }
        }
    }

    /// As [`run`]: types `line` and waits for `marker`.
    fn run(&mut self, line: &str, marker: &str) {
        self.send(format!("{line}\n").as_bytes());
        self.expect(&[marker], line);
        std::thread::sleep(std::time::Duration::from_millis(300));
    }
}

/// The statements that build `seq`: 100,000 InferType runs. Re-typing a typed module is
/// quick, so the run is long by count: tens of seconds, far more than a Ctrl-C sent once its
/// first output shows can take to arrive.
fn long_pipeline(p: &mut FloodPty) {
    let ten = ["InferType()"; 10].join(", ");
    p.run(
        &format!("s1 = Sequential([{ten}]); print(\"s1 ok\")"),
        "\r\ns1 ok",
    );
    for (name, inner) in [("s2", "s1"), ("s3", "s2"), ("s4", "s3"), ("seq", "s4")] {
        let ten = [inner; 10].join(", ");
        let marker = format!("{name} ok");
        p.run(
            &format!("{name} = Sequential([{ten}]); print(\"{marker}\")"),
            &format!("\r\n{marker}"),
        );
    }
}

/// Output appears as passes produce it, and Ctrl-C stops a flood of it: PrintAfterAll prints
/// the module after each of 100,000 passes; the first print shows while the pipeline runs (it
/// would otherwise show only minutes later, after the test's timeout), and Ctrl-C drops the
/// rest and stops the run at the next pass boundary.
#[test]
fn output_streams_while_a_pipeline_runs_and_ctrl_c_stops_a_flood() {
    let dir = tmp("stream");
    let model = dir.join("model.relay");
    std::fs::write(&model, passlab::testgen::conv_model(40)).unwrap();
    let mut p = FloodPty::spawn(&dir.join("history"));
    p.run(
        &format!("m = load(\"{}\"); print(\"loaded\")", model.display()),
        "\r\nloaded",
    );
    long_pipeline(&mut p);
    p.send(b"with PassContext(instruments=[PrintAfterAll()]) { m2 = seq(m) }\n");
    p.expect(
        &["def @main("],
        "the first module printed while the pipeline runs",
    );
    p.send(b"\x03");
    // Ctrl-C stops the output (with a note when more output was on its way) and the run, at
    // the next pass boundary: a Ctrl-C landing between a print and that boundary leaves no
    // output to stop.
    let stopped = ["output stopped", "interrupted before pass "];
    if p.expect(&stopped, "Ctrl-C stops the output") == 0 {
        p.expect(&[stopped[1]], "and the run, at a pass boundary");
    }
    p.expect(&[">>> "], "the prompt after the interrupted run");
    std::thread::sleep(std::time::Duration::from_millis(300));
    p.run("m2", "unknown name `m2`");
    p.run("print(\"still here\")", "\r\nstill here");
    std::thread::sleep(std::time::Duration::from_millis(300));
    p.send(b"\x04");
    p.expect(&[], "the end after Ctrl-D");
}

/// Piped input streams too: the first Trace line of a statement that runs for minutes is read
/// while it runs.
#[test]
fn piped_stdin_streams_trace_lines_while_the_statement_runs() {
    use std::io::{BufRead, Write};
    let dir = tmp("stream-piped");
    let model = dir.join("model.relay");
    std::fs::write(&model, passlab::testgen::conv_model(40)).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_passlab"))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let ten = |p: &str| [p; 10].join(", ");
    let script = format!(
        "m = load(\"{}\")\ns1 = Sequential([{}])\ns2 = Sequential([{}])\n\
         s3 = Sequential([{}])\nseq = Sequential([{}])\n\
         with PassContext(instruments=[Trace(name=\"t\")]) {{ m2 = seq(m) }}\n",
        model.display(),
        ten("InferType()"),
        ten("s1"),
        ten("s2"),
        ten("s3"),
    );
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(script.as_bytes()).unwrap();
    // Standard input stays open: the REPL is still reading when the pipeline runs.
    let (tx, rx) = std::sync::mpsc::channel();
    let stdout = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let first = rx
        .recv_timeout(std::time::Duration::from_secs(60))
        .expect("a line while the pipeline runs");
    assert_eq!(first, "[t] enter_pass_ctx");
    let second = rx.recv_timeout(std::time::Duration::from_secs(60)).unwrap();
    assert_eq!(second, "[t] should_run sequential");
    assert!(child.try_wait().unwrap().is_none(), "still running");
    child.kill().unwrap();
    child.wait().unwrap();
    drop(stdin);
}

/// In an 80-column terminal the banner, `help`, help on a pass and the tables (`passes`,
/// `configs`, `timing`, `vars`) fit: no line is wider than the terminal. The same statements
/// piped (no terminal) keep their full width.
#[test]
fn tables_help_and_the_banner_fit_an_80_column_terminal() {
    let dir = tmp("width");
    let mut cmd = Command::new("sh");
    cmd.arg("-c")
        .arg(format!(
            "stty cols 80 rows 24 && exec '{}'",
            env!("CARGO_BIN_EXE_passlab")
        ))
        .env("PASSLAB_HISTORY", dir.join("history"))
        .env("NO_COLOR", "1")
        .env("TERM", "xterm");
    let mut p = spawn_command(cmd, Some(TIMEOUT_MS)).expect("spawn passlab");
    let banner = p.exp_string(">>> ").expect("banner and prompt");
    std::thread::sleep(std::time::Duration::from_millis(300));
    let mut shown = banner;
    let statements = [
        "help",
        "passes",
        "configs",
        "help FoldConstant",
        "help function_pass",
        "m = parse(\"\"\"def @main(%x: float32) { add(%x, 0f) }\"\"\")",
        "with PassContext(instruments=[PassTimingInstrument()]) { m2 = Sequential([InferType(), SimplifyExpr(), FoldConstant()])(m) }",
        "timing",
        "vars",
    ];
    for (i, s) in statements.iter().enumerate() {
        // One line: type-ahead sent while a statement runs would be discarded.
        p.send_line(&format!("{s}; print(\"done-{i}\")")).unwrap();
        let out = p
            .exp_string(&format!("\r\ndone-{i}\r\n"))
            .unwrap_or_else(|e| panic!("{s}: {e}"));
        shown.push_str(&out);
        std::thread::sleep(std::time::Duration::from_millis(300));
    }
    ctrl_d(&mut p);
    p.exp_eof().unwrap();
    // rexpect hands over each byte as a char: make the UTF-8 text again.
    let bytes: Vec<u8> = shown.chars().map(|c| c as u32 as u8).collect();
    let shown = String::from_utf8(bytes).expect("UTF-8 output");
    let escapes = regex::Regex::new(r"\x1b\[[0-9;?]*[A-Za-z]").unwrap();
    let text = escapes.replace_all(&shown, "");
    let mut checked = 0;
    for line in text.split(['\r', '\n']) {
        // The editor's echo of what was typed is the user's own line.
        if line.contains(">>> ") || line.contains("print(\"done-") {
            continue;
        }
        assert!(
            line.chars().count() <= 80,
            "wider than 80 columns:\n{line}\n\nin:\n{text}"
        );
        checked += 1;
    }
    for expected in [
        "Ctrl-D to leave",
        "  show expr ",
        "FoldConstant",
        "relay.FuseOps.max_depth",
        "SimplifyExprPostAlterOp",
        "│ m2 ",
    ] {
        assert!(text.contains(expected), "{expected:?} not shown:\n{text}");
    }
    assert!(checked > 150, "{checked} lines");
    // Piped, the passes table is one row per pass, as wide as it is.
    let out = Command::new(env!("CARGO_BIN_EXE_passlab"))
        .arg("run")
        .arg(write_script(&dir, "passes\n"))
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.lines().any(|l| l.chars().count() > 120), "{text}");
}

fn write_script(dir: &std::path::Path, text: &str) -> std::path::PathBuf {
    let path = dir.join("script.passlab");
    std::fs::write(&path, text).unwrap();
    path
}
