//! The files the `passlab` binary writes and reads, with real processes: sessions saving one
//! file at once, DumpIR from two pipelines into one directory, writers killed with SIGKILL
//! mid-write, two REPLs sharing a history file, symbolic links, FIFOs and permissions, a
//! standard output that is closed early or full, and input that is not UTF-8.
//!
//! Every file is written through `files::write_atomic`: a reader sees the old file or the new
//! one, never a torn or empty one. A writer killed mid-write may leave its own temporary file
//! (`.<name>.<random>.tmp`) beside the target; nothing else does.

#![cfg(unix)]

mod common;

use std::fs;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

fn passlab() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_passlab"));
    cmd.env("NO_COLOR", "1");
    cmd
}

fn tmp(name: &str) -> PathBuf {
    common::fresh_dir("files", name)
}

/// Two different models in `dir` (`a.relay`, `b.relay`, about 160 and 130 KB) and their text
/// as `save` writes it.
fn models(dir: &Path) -> (Vec<u8>, Vec<u8>) {
    let text = |name: &str, ops: usize| {
        let src = passlab::testgen::let_chain(ops);
        fs::write(dir.join(name), &src).unwrap();
        let m = passlab::text::parse_module(&src, name).unwrap();
        passlab::text::print_module(&m).into_bytes()
    };
    (text("a.relay", 5_000), text("b.relay", 4_000))
}

/// A script in `dir` that loads `model` and saves it to `target` `times` times. It loads both
/// models first, so that two scripts start saving at about the same time.
fn save_script(dir: &Path, name: &str, model: &str, target: &str, times: usize) -> PathBuf {
    let mut src = format!("a = load(\"a.relay\")\nb = load(\"b.relay\")\nm = load(\"{model}\")\n");
    for _ in 0..times {
        src.push_str(&format!("save(m, \"{target}\")\n"));
    }
    let path = dir.join(name);
    fs::write(&path, src).unwrap();
    path
}

fn run_script(script: &Path) -> Child {
    passlab()
        .args(["run", "--keep-going"])
        .arg(script)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn passlab")
}

/// Waits for a writer and checks that it succeeded and said nothing on stderr.
fn succeeded(child: Child) {
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && err.is_empty(),
        "{:?}: {err}",
        out.status
    );
}

/// The names in `dir` that are temporary files (they start with a dot).
fn temporaries(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.'))
        .collect();
    names.sort();
    names
}

/// Checks that `path` is absent or holds one of `complete`; which one (0, 1), or `None`.
fn whole(path: &Path, complete: &[&[u8]]) -> Option<usize> {
    match fs::read(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => panic!("{}: {e}", path.display()),
        Ok(bytes) => Some(
            complete
                .iter()
                .position(|c| *c == bytes.as_slice())
                .unwrap_or_else(|| {
                    panic!(
                        "{} is torn: {} bytes, a complete one has {:?}",
                        path.display(),
                        bytes.len(),
                        complete.iter().map(|c| c.len()).collect::<Vec<_>>()
                    )
                }),
        ),
    }
}

fn wait_until(what: &str, mut done: impl FnMut() -> bool) {
    let start = Instant::now();
    while !done() {
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "timed out: {what}"
        );
        std::thread::sleep(Duration::from_millis(2));
    }
}

#[test]
fn concurrent_saves_never_show_a_torn_file() {
    let dir = tmp("concurrent_saves");
    let (a, b) = models(&dir);
    // With one temporary name for both (`.out.relay.tmp`), a few of these 600 saves failed
    // ("No such file or directory": the other writer had renamed it) or left a torn file.
    let wa = run_script(&save_script(
        &dir,
        "wa.passlab",
        "a.relay",
        "out.relay",
        300,
    ));
    let wb = run_script(&save_script(
        &dir,
        "wb.passlab",
        "b.relay",
        "out.relay",
        300,
    ));
    let out = dir.join("out.relay");
    let (mut wa, mut wb) = (Some(wa), Some(wb));
    let mut seen = [0; 2];
    while wa.is_some() || wb.is_some() {
        if let Some(i) = whole(&out, &[&a, &b]) {
            seen[i] += 1;
        }
        for w in [&mut wa, &mut wb] {
            if w.as_mut().is_some_and(|c| c.try_wait().unwrap().is_some()) {
                succeeded(w.take().unwrap());
            }
        }
    }
    assert!(seen[0] + seen[1] > 0, "the reader saw no save");
    assert!(whole(&out, &[&a, &b]).is_some());
    assert_eq!(temporaries(&dir), Vec::<String>::new());
}

#[test]
fn a_writer_killed_mid_save_leaves_the_target_whole() {
    let dir = tmp("killed_save");
    let (a, b) = models(&dir);
    let out = dir.join("out.relay");
    fs::write(&out, &a).unwrap();
    let script = save_script(&dir, "w.passlab", "b.relay", "out.relay", 500);
    for round in 0..4u64 {
        let mut w = run_script(&script);
        // Saving: the first save has replaced the target; kill at some point of a later one.
        wait_until("the first save", || fs::read(&out).unwrap() == b);
        std::thread::sleep(Duration::from_millis(3 + 7 * round));
        w.kill().unwrap();
        w.wait().unwrap();
        assert_eq!(whole(&out, &[&a, &b]), Some(1));
        // At most one temporary file per killed writer, its own.
        let left = temporaries(&dir);
        assert!(left.len() <= round as usize + 1, "{left:?}");
        assert!(
            left.iter()
                .all(|n| n.starts_with(".out.relay.") && n.ends_with(".tmp")),
            "{left:?}"
        );
    }
    // The file is still written as usual afterwards.
    succeeded(run_script(&save_script(
        &dir,
        "again.passlab",
        "a.relay",
        "out.relay",
        1,
    )));
    assert_eq!(whole(&out, &[&a, &b]), Some(0));
}

/// A script running `passes` DeadCodeElimination passes on `model` (`a` or `b`) under DumpIR
/// into `dumps`. It loads both models first, so that two scripts start at about the same time.
fn dump_script(dir: &Path, name: &str, model: &str, passes: usize, refresh: bool) -> PathBuf {
    let list = vec!["DeadCodeElimination()"; passes].join(", ");
    let src = format!(
        "a = load(\"a.relay\")\nb = load(\"b.relay\")\nm = {model}\n\
         with PassContext(instruments=[DumpIR(\"dumps\", refresh={refresh})]) {{\n  \
           x = Sequential([{list}])(m)\n\
         }}\n"
    );
    let path = dir.join(name);
    fs::write(&path, src).unwrap();
    path
}

/// The text DumpIR writes for `model` (the typed module: every dump of these pipelines is the
/// same), from a run of its own.
fn dumped(dir: &Path, model: &str) -> Vec<u8> {
    let sub = dir.join(format!("ref-{model}"));
    fs::create_dir_all(&sub).unwrap();
    for m in ["a.relay", "b.relay"] {
        fs::copy(dir.join(m), sub.join(m)).unwrap();
    }
    succeeded(run_script(&dump_script(
        &sub,
        "ref.passlab",
        model,
        1,
        false,
    )));
    let text = fs::read(sub.join("dumps/000_InferType.relay")).unwrap();
    assert_eq!(
        fs::read(sub.join("dumps/001_DeadCodeElimination.relay")).unwrap(),
        text
    );
    text
}

fn dumps_are_whole(dumps: &Path, complete: &[&[u8]]) -> usize {
    let Ok(entries) = fs::read_dir(dumps) else {
        return 0;
    };
    let mut n = 0;
    for e in entries {
        let name = e.unwrap().file_name().to_string_lossy().into_owned();
        if !name.starts_with('.') {
            n += usize::from(whole(&dumps.join(&name), complete).is_some());
        }
    }
    n
}

#[test]
fn dump_ir_from_two_pipelines_into_one_directory() {
    let dir = tmp("dump_concurrent");
    models(&dir);
    let (a, b) = (dumped(&dir, "a"), dumped(&dir, "b"));
    // 121 dumps each, to the same names.
    let wa = run_script(&dump_script(&dir, "wa.passlab", "a", 60, false));
    let wb = run_script(&dump_script(&dir, "wb.passlab", "b", 60, false));
    let dumps = dir.join("dumps");
    let (mut wa, mut wb) = (Some(wa), Some(wb));
    let mut checked = 0;
    while wa.is_some() || wb.is_some() {
        checked += dumps_are_whole(&dumps, &[&a, &b]);
        for w in [&mut wa, &mut wb] {
            if w.as_mut().is_some_and(|c| c.try_wait().unwrap().is_some()) {
                succeeded(w.take().unwrap());
            }
        }
    }
    assert!(checked > 0, "the reader saw no dump");
    // InferType before each of the 60 passes, the passes, the Sequential.
    assert_eq!(dumps_are_whole(&dumps, &[&a, &b]), 121);
    assert_eq!(temporaries(&dumps), Vec::<String>::new());
}

#[test]
fn a_pipeline_killed_mid_dump_leaves_whole_dumps_and_refresh_removes_its_temporary_file() {
    let dir = tmp("dump_killed");
    models(&dir);
    let a = dumped(&dir, "a");
    let dumps = dir.join("dumps");
    let mut w = run_script(&dump_script(&dir, "w.passlab", "a", 2000, false));
    wait_until("a few dumps", || dumps_are_whole(&dumps, &[&a]) >= 3);
    w.kill().unwrap();
    w.wait().unwrap();
    dumps_are_whole(&dumps, &[&a]);
    let left = temporaries(&dumps);
    assert!(left.len() <= 1, "{left:?}");
    // `refresh` counts a killed writer's temporary file as a dump, and removes it.
    succeeded(run_script(&dump_script(&dir, "r.passlab", "a", 1, true)));
    assert_eq!(dumps_are_whole(&dumps, &[&a]), 3);
    assert_eq!(temporaries(&dumps), Vec::<String>::new());
}

/// Runs `passlab` with `args` in `dir`, giving up after 20 s (a FIFO opened for writing would
/// block forever).
fn passlab_in(dir: &Path, args: &[&str]) -> Output {
    let mut child = passlab()
        .args(args)
        .current_dir(dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > Duration::from_secs(20) {
            child.kill().unwrap();
            panic!("passlab {args:?} hangs");
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    child.wait_with_output().unwrap()
}

fn mode(p: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    fs::metadata(p).unwrap().permissions().mode() & 0o7777
}

#[test]
fn writes_go_through_symlinks_and_keep_modes() {
    use std::os::unix::fs::{symlink, PermissionsExt};
    let dir = tmp("links_modes");
    let model = passlab::testgen::let_chain(3);
    fs::write(dir.join("m.relay"), &model).unwrap();
    let saved = |target: &str| {
        fs::write(
            dir.join("s.passlab"),
            format!("m = load(\"m.relay\")\nsave(m, \"{target}\")\n"),
        )
        .unwrap();
        passlab_in(&dir, &["run", "s.passlab"])
    };
    // A symbolic link stays a link; the file it points to gets the text.
    fs::create_dir(dir.join("real")).unwrap();
    fs::write(dir.join("real/target.relay"), "old").unwrap();
    symlink("real/target.relay", dir.join("link.relay")).unwrap();
    for out in [
        saved("link.relay"),
        passlab_in(&dir, &["gen", "lets", "3", "-o", "link.relay"]),
    ] {
        assert!(out.status.success(), "{out:?}");
        let link = fs::symlink_metadata(dir.join("link.relay")).unwrap();
        assert!(link.file_type().is_symlink());
        let text = fs::read_to_string(dir.join("real/target.relay")).unwrap();
        assert!(text.contains("def @main"), "{text}");
    }
    assert_eq!(temporaries(&dir.join("real")), Vec::<String>::new());
    // A private file stays private; a new one gets what a plain create gives.
    fs::write(dir.join("private.relay"), "old").unwrap();
    fs::set_permissions(dir.join("private.relay"), fs::Permissions::from_mode(0o600)).unwrap();
    assert!(saved("private.relay").status.success());
    assert_eq!(mode(&dir.join("private.relay")), 0o600);
    fs::set_permissions(dir.join("private.relay"), fs::Permissions::from_mode(0o640)).unwrap();
    let out = passlab_in(&dir, &["gen", "lets", "3", "-o", "private.relay"]);
    assert!(out.status.success(), "{out:?}");
    assert_eq!(mode(&dir.join("private.relay")), 0o640);
    fs::write(dir.join("plain"), "").unwrap();
    assert!(saved("new.relay").status.success());
    assert_eq!(mode(&dir.join("new.relay")), mode(&dir.join("plain")));
}

#[test]
fn special_files_are_refused_by_name() {
    let dir = tmp("special");
    fs::write(dir.join("m.relay"), passlab::testgen::let_chain(3)).unwrap();
    let fifo = dir.join("fifo.relay");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    std::os::unix::fs::symlink("fifo.relay", dir.join("to-fifo.relay")).unwrap();
    fs::create_dir(dir.join("d.relay")).unwrap();
    fs::write(
        dir.join("s.passlab"),
        "m = load(\"m.relay\")\nsave(m, \"fifo.relay\")\nsave(m, \"d.relay\")\n",
    )
    .unwrap();
    let out = passlab_in(&dir, &["run", "--keep-going", "s.passlab"]);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("cannot write fifo.relay: it is a FIFO, not a regular file"),
        "{text}"
    );
    assert!(
        text.contains("cannot write d.relay: it is a directory, not a regular file"),
        "{text}"
    );
    let out = passlab_in(&dir, &["gen", "lets", "3", "-o", "to-fifo.relay"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    let real = fifo.canonicalize().unwrap();
    assert_eq!(
        err,
        format!(
            "error: cannot write to-fifo.relay: {} is a FIFO, not a regular file\n",
            real.display()
        )
    );
    // Nothing was replaced.
    use std::os::unix::fs::FileTypeExt;
    assert!(fs::metadata(&fifo).unwrap().file_type().is_fifo());
    assert!(fs::metadata(dir.join("d.relay")).unwrap().is_dir());
    assert_eq!(temporaries(&dir), Vec::<String>::new());
}

/// A script printing a large module `times` times.
fn printing_script(dir: &Path, times: usize) -> PathBuf {
    fs::write(dir.join("big.relay"), passlab::testgen::let_chain(20_000)).unwrap();
    let mut src = String::from("m = load(\"big.relay\")\n");
    for _ in 0..times {
        src.push_str("print(m)\n");
    }
    fs::write(dir.join("p.passlab"), &src).unwrap();
    fs::write(dir.join("t.passlab"), "x = 1\n").unwrap();
    dir.join("p.passlab")
}

/// The commands of the pipe and /dev/full tests, as (arguments, standard input).
fn writers(dir: &Path) -> Vec<(Vec<String>, Option<String>)> {
    let script = printing_script(dir, 3);
    let piped = fs::read_to_string(&script).unwrap();
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    vec![
        (s(&["print", "big.relay"]), None),
        (s(&["check", "big.relay"]), None),
        (s(&["run", "p.passlab"]), None),
        (s(&["replay", "t.passlab"]), None),
        (s(&["gen", "lets", "20000"]), None),
        (s(&[]), Some(piped)),
    ]
}

fn spawn_writer(dir: &Path, args: &[String], input: &Option<String>, stdout: Stdio) -> Child {
    let mut child = passlab()
        .args(args)
        .current_dir(dir)
        .stdin(if input.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(stdout)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    if let Some(text) = input {
        child
            .stdin
            .take()
            .unwrap()
            .write_all(text.as_bytes())
            .unwrap();
    }
    child
}

#[test]
fn a_closed_pipe_ends_output_quietly() {
    let dir = tmp("pipe");
    for (args, input) in writers(&dir) {
        // A reader that takes 20 bytes (if there are that many) and goes away.
        let mut child = spawn_writer(&dir, &args, &input, Stdio::piped());
        let mut head = [0u8; 20];
        let mut stdout = child.stdout.take().unwrap();
        let _ = stdout.read(&mut head).unwrap();
        drop(stdout);
        let out = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.is_empty(), "{args:?}: {err}");
        // The status a shell reports for `cat` killed by SIGPIPE; or success, when the
        // command had written everything before the reader left.
        assert!(
            matches!(out.status.code(), Some(141) | Some(0)),
            "{args:?}: {:?}",
            out.status
        );
        if args.first().is_some_and(|a| a != "check" && a != "replay") {
            assert_eq!(out.status.code(), Some(141), "{args:?}");
        }
    }
}

#[cfg(target_os = "linux")]
#[test]
fn a_full_disk_is_an_error() {
    let dir = tmp("full");
    for (args, input) in writers(&dir) {
        let full = fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap();
        let child = spawn_writer(&dir, &args, &input, Stdio::from(full));
        let out = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(
            err.starts_with("error: cannot write to standard output: No space left on device"),
            "{args:?}: {err}"
        );
    }
}

#[test]
fn input_that_is_not_utf8_is_located() {
    let dir = tmp("utf8");
    fs::write(
        dir.join("bad.relay"),
        b"def @main() {\n  1\n}\n// caf\xc3\xa9 \xff\n",
    )
    .unwrap();
    fs::write(dir.join("bad.passlab"), b"x = 1\ny = \"\xfe\"\n").unwrap();
    fs::write(dir.join("load.passlab"), "m = load(\"bad.relay\")\n").unwrap();
    let at_relay = "bad.relay:4:9: invalid UTF-8 (byte 0xff)";
    let at_script = "bad.passlab:2:6: invalid UTF-8 (byte 0xfe)";
    for (args, expected) in [
        (&["check", "bad.relay"][..], at_relay),
        (&["print", "bad.relay"], at_relay),
        (&["bench", "bad.relay", "--walk"], at_relay),
        (&["run", "bad.passlab"], at_script),
        (&["replay", "bad.passlab"], at_script),
    ] {
        let out = passlab_in(&dir, args);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err, format!("error: {expected}\n"), "{args:?}");
    }
    // `load` in the language: the statement fails with the place.
    let out = passlab_in(&dir, &["run", "load.passlab"]);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains(at_relay), "{text}");
    // Piped statements: the line of standard input; nothing after it runs.
    let mut child = passlab()
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"x = 1\nx\ny = \"\xc3\xa9\xff\"\nx\n")
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "1\n");
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "error: standard input:3:7: invalid UTF-8 (byte 0xff)\n"
    );
}

/// An interactive session in a pseudo-terminal, using the history file `history`.
fn repl(history: &Path) -> rexpect::session::PtySession {
    let mut cmd = passlab();
    cmd.env("PASSLAB_HISTORY", history).env("TERM", "xterm");
    let mut p = rexpect::session::spawn_command(cmd, Some(30_000)).expect("spawn passlab");
    p.exp_string(">>> ").expect("prompt");
    // Let the line editor switch the terminal to raw mode before typing.
    std::thread::sleep(Duration::from_millis(300));
    p
}

#[test]
fn two_repls_sharing_a_history_file_keep_every_line() {
    let dir = tmp("history");
    let hist = dir.join("history");
    let lines = |who: &str| -> Vec<String> {
        (0..8)
            .map(|i| match i {
                // A failing statement is history too.
                3 => format!("{who}_{i} = no_such_name"),
                _ => format!("{who}_{i} = {i}"),
            })
            .collect()
    };
    let sessions: Vec<_> = ["a", "b"]
        .into_iter()
        .map(|who| {
            let (hist, lines) = (hist.clone(), lines(who));
            std::thread::spawn(move || {
                let mut p = repl(&hist);
                for line in &lines {
                    p.send_line(line).unwrap();
                    p.exp_string(">>> ").unwrap();
                    // Typeahead sent while a statement runs is discarded.
                    std::thread::sleep(Duration::from_millis(250));
                }
                // Killed rather than ended: each line was written when it was entered.
                p.process
                    .kill(rexpect::process::signal::Signal::SIGKILL)
                    .unwrap();
            })
        })
        .collect();
    for s in sessions {
        s.join().unwrap();
    }
    let text = fs::read_to_string(&hist).unwrap();
    let mut saved: Vec<&str> = text.lines().collect();
    assert_eq!(saved.remove(0), "#V2");
    saved.sort();
    let mut all = [lines("a"), lines("b")].concat();
    all.sort();
    assert_eq!(saved, all);
    assert_eq!(temporaries(&dir), Vec::<String>::new());
}
