//! The step debugger through the Rust API: what transcripts cannot show (threads, Ctrl-C,
//! dropping a session while a run is paused, the ANSI and HTML renderings).

mod common;

use passlab::ir::Module;
use passlab::pass::{module_pass, PassInfo};
use passlab::session::{PartKind, Session, Value};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::channel;
use std::sync::Arc;
use std::time::{Duration, Instant};

const M: &str = "m = parse(\"\"\"def @main(%x: float32) { multiply(add(%x, 0f), 1f) }\"\"\")\n\
    drop_add = function_pass(name=\"DropAdd\", rewrite=[\"add(?x, 0f) => ?x\"])\n\
    drop_mul = function_pass(name=\"DropMul\", rewrite=[\"multiply(?x, 1f) => ?x\"])";

fn session() -> Session {
    let mut s = Session::new();
    let out = s.execute(M);
    assert!(!out.is_error(), "{}", out.plain());
    s
}

fn ok(s: &mut Session, src: &str) -> String {
    let out = s.execute(src);
    assert!(!out.is_error(), "{src}:\n{}", out.plain());
    out.plain()
}

/// Sets a flag when dropped: tells when the last holder of a pass (the worker) let go.
struct DropFlag(Arc<AtomicBool>);

impl Drop for DropFlag {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

fn wait_for(flag: &AtomicBool, what: &str) {
    let start = Instant::now();
    while !flag.load(Ordering::SeqCst) {
        assert!(start.elapsed() < Duration::from_secs(10), "{what}");
        std::thread::sleep(Duration::from_millis(5));
    }
}

#[test]
fn paused_state_lasts_across_execute_calls() {
    let mut s = session();
    assert_eq!(s.paused(), None);
    ok(&mut s, "break DropMul");
    let out = ok(
        &mut s,
        "x = Sequential([drop_add, drop_mul])(m)\ny = 1\nshow ir",
    );
    assert!(
        out.starts_with("paused before DropMul (2 of 2) in sequential\n"),
        "{out}"
    );
    // The next statements of the same input ran while paused.
    assert!(out.contains("multiply(%x, 1f)"), "{out}");
    assert!(matches!(s.var("y"), Some(Value::Int(1))));
    assert_eq!(
        s.paused().as_deref(),
        Some("paused before DropMul (2 of 2) in sequential")
    );
    assert!(s.var("x").is_none());
    ok(&mut s, "continue");
    assert_eq!(s.paused(), None);
    assert!(matches!(s.var("x"), Some(Value::Module(_))));
}

#[test]
fn dropping_a_session_with_a_paused_run_ends_the_run() {
    let released = Arc::new(AtomicBool::new(false));
    let guard = DropFlag(released.clone());
    let held = module_pass(PassInfo::new("Held", 0), move |m: &Module, _cx| {
        let _keep = &guard;
        Ok(m.clone())
    });
    let mut s = session();
    s.set_var("held", Value::Pass(held));
    ok(&mut s, "break DropMul");
    let out = ok(&mut s, "x = Sequential([held, drop_add, drop_mul])(m)");
    assert!(out.contains("paused before DropMul (3 of 3)"), "{out}");
    let start = Instant::now();
    drop(s);
    assert!(
        start.elapsed() < Duration::from_secs(2),
        "drop waited for the run"
    );
    // The worker wakes up, aborts and lets go of the pipeline (and so of `held`).
    wait_for(&released, "the paused worker never ended");
}

/// A pass that says when it starts and then takes its time.
fn slow_pass(name: &str, started: std::sync::mpsc::Sender<()>) -> Value {
    let started = std::sync::Mutex::new(started);
    Value::Pass(module_pass(
        PassInfo::new(name, 0),
        move |m: &Module, _cx| {
            let _ = started.lock().unwrap().send(());
            std::thread::sleep(Duration::from_millis(300));
            Ok(m.clone())
        },
    ))
}

#[test]
fn ctrl_c_interrupts_a_run_on_the_worker_and_a_resumed_one() {
    let mut s = session();
    let (tx, rx) = channel();
    s.set_var("slow", slow_pass("Slow", tx));
    let flag = s.interrupt_flag();
    let t = std::thread::spawn(move || {
        let out = s.execute("x = Sequential([slow, drop_add])(m)");
        (s, out)
    });
    rx.recv().unwrap();
    flag.store(true, Ordering::SeqCst);
    let (mut s, out) = t.join().unwrap();
    assert!(
        out.plain()
            .contains("error: interrupted before pass DropAdd"),
        "{}",
        out.plain()
    );
    assert!(s.var("x").is_none());
    // The same after a pause: `continue` runs the rest on the worker, Ctrl-C still stops it.
    ok(&mut s, "break Slow");
    let out = ok(&mut s, "x = Sequential([drop_add, slow, drop_mul])(m)");
    assert!(out.contains("paused before Slow (2 of 3)"), "{out}");
    let t = std::thread::spawn(move || {
        let out = s.execute("continue");
        (s, out)
    });
    rx.recv().unwrap();
    flag.store(true, Ordering::SeqCst);
    let (s, out) = t.join().unwrap();
    assert!(
        out.plain()
            .contains("error: interrupted before pass DropMul"),
        "{}",
        out.plain()
    );
    assert_eq!(s.paused(), None);
    assert!(s.var("x").is_none());
}

#[test]
fn print_changed_and_diff_render_coloured_and_side_by_side() {
    let mut s = session();
    s.set_color(true);
    let out = s.execute(
        "with PassContext(instruments=[PrintChanged()]) {\n  x = drop_add(m)\n}\ndiff m x @main",
    );
    assert!(!out.is_error(), "{}", out.plain());
    let stream = &out.parts[0];
    assert_eq!(stream.kind, PartKind::Display);
    assert!(stream
        .plain
        .starts_with("DropAdd changed @main\n--- before DropAdd\n"));
    let ansi = stream.ansi.as_deref().expect("an ANSI rendering");
    assert!(
        ansi.contains("\x1b[31m-  %0 = add(%x, 0f);\x1b[0m"),
        "{ansi}"
    );
    let html = stream.html.as_deref().expect("an HTML rendering");
    assert!(html.contains("<table class=\"passlab-diff\""), "{html}");
    let diff = &out.parts[1];
    assert_eq!(diff.kind, PartKind::Display);
    assert!(diff.plain.starts_with("--- m\n+++ x\n"), "{}", diff.plain);
    assert!(diff
        .ansi
        .as_deref()
        .unwrap()
        .contains("\x1b[32m+  multiply(%x, 1f)"));
    let html = diff.html.as_deref().unwrap();
    assert!(
        html.contains(">m</th>") && html.contains(">x</th>"),
        "{html}"
    );
    // Without colour, no ANSI rendering; HTML is always there.
    s.set_color(false);
    let out = s.execute("diff m x");
    assert!(out.parts[0].ansi.is_none());
    assert!(out.parts[0].html.is_some());
}

#[test]
fn history_and_breakpoints_have_html_tables() {
    let mut s = session();
    ok(
        &mut s,
        "x = Sequential([drop_add, drop_mul])(m)\nbreak DropAdd",
    );
    let out = s.execute("history\nbreakpoints");
    let history = out.parts[0].html.as_deref().unwrap();
    assert!(history.contains(">changed</th>"), "{history}");
    assert!(
        history.contains("text-align:left\">DropMul</td>"),
        "{history}"
    );
    let bps = out.parts[1].html.as_deref().unwrap();
    assert!(bps.contains("before DropAdd"), "{bps}");
    // The pause line has its own renderings.
    s.set_color(true);
    let out = s.execute("y = drop_add(m)");
    let p = &out.parts[0];
    assert_eq!(p.plain, "paused before DropAdd\n");
    assert_eq!(
        p.ansi.as_deref(),
        Some("\x1b[1;33mpaused before DropAdd\x1b[0m\n")
    );
    assert!(p.html.as_deref().unwrap().contains("passlab-pause"));
}

#[test]
fn exit_all_contexts_aborts_a_paused_run_first() {
    let mut s = session();
    ok(
        &mut s,
        "break DropMul\nenter PassContext(instruments=[Trace(name=\"t\")])",
    );
    let out = ok(
        &mut s,
        "with PassContext(instruments=[Trace(name=\"u\")]) {\n  x = Sequential([drop_add, drop_mul])(m)\n}",
    );
    assert!(out.contains("paused before DropMul"), "{out}");
    let out = s.exit_all_contexts().plain();
    assert_eq!(
        out,
        "[u] exit_pass_ctx\naborted Sequential([drop_add, drop_mul])(m) before DropMul (2 of 2) in sequential; nothing was bound\n[t] exit_pass_ctx\n"
    );
    assert_eq!(s.paused(), None);
    assert!(s.pass_manager().stack().is_empty());
}

/// The unique expression nodes of all the modules (shared nodes count once).
fn unique_nodes(modules: &[Module]) -> usize {
    let mut seen = rustc_hash::FxHashSet::default();
    let mut n = 0;
    for m in modules {
        for (_, f) in m.functions() {
            passlab::ir::visit::post_order_with(f, &mut seen, &mut |_| n += 1);
        }
    }
    n
}

#[test]
fn a_runs_history_shares_structure_between_steps() {
    // The bound is 3x one module, in bytes (`tests/history_memory.rs`). In unique
    // expression nodes (deterministic) the measure is 3.0x / 2.8x: the user pipeline holds
    // three full copies (the untyped input, the typed one, the LeakyRelu rewrite; the
    // InferTypes after the rewrite keep it, its new nodes being typed on build) and the
    // standard one SimplifyInference's graph plus the rewrites by ECSE and CanonicalizeOps.
    // Guard at 3.25x. `examples/history_memory.rs` measures both on a 100k-node model
    // (README.md, "Benchmarks").
    let input = passlab::text::parse_module(&passlab::testgen::conv_model(300), "conv").unwrap();
    for (name, def) in passlab::testgen::HISTORY_PIPELINES {
        let mut s = Session::new();
        s.set_var("m", Value::Module(input.clone()));
        ok(&mut s, def);
        ok(
            &mut s,
            "with PassContext(opt_level=3) { out = pipeline(m) }",
        );
        let kept = common::history_snapshots(&mut s);
        assert!(kept.len() > 20, "{name}: {} snapshots", kept.len());
        let one = kept
            .iter()
            .map(|m| unique_nodes(std::slice::from_ref(m)))
            .max()
            .unwrap();
        let all = unique_nodes(&kept);
        assert!(
            4 * all <= 13 * one,
            "{name}: {} modules hold {all} unique nodes, the largest {one}",
            kept.len()
        );
        // A pass with nothing to change hands back the very same module: most steps of
        // these pipelines cost nothing.
        let same = (1..kept.len())
            .filter(|&k| kept[k].same_as(&kept[k - 1]))
            .count();
        assert!(
            same * 3 >= kept.len() * 2,
            "{name}: only {same} of {} steps returned their input",
            kept.len() - 1
        );
    }
}

#[test]
fn time_paused_at_a_breakpoint_is_not_pass_time() {
    let mut s = session();
    ok(&mut s, "t = PassTimingInstrument()\nbreak after DropAdd");
    let out =
        s.execute("with PassContext(instruments=[t]) { x = Sequential([drop_add, drop_mul])(m) }");
    assert!(
        out.plain().contains("paused after DropAdd"),
        "{}",
        out.plain()
    );
    std::thread::sleep(Duration::from_millis(1500));
    ok(&mut s, "continue");
    let Some(Value::Instrument(t)) = s.var("t") else {
        panic!("t is not an instrument")
    };
    let t = t
        .downcast_ref::<passlab::instrument::PassTimingInstrument>()
        .unwrap();
    let records = t.records();
    assert_eq!(records.len(), 1, "{records:?}");
    // Two rewrites of a three-node function take microseconds; the 1.5 s pause is not theirs.
    assert!(
        records[0].total < Duration::from_millis(750),
        "the pause was counted: {records:?}"
    );
    assert_eq!(records[0].children.len(), 2);
}
