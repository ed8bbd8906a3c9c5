//! Reproducers and timing files written from a session, as a user meets them: a failed pass
//! application's `reproducer("f.passlab")` fails the same way under `passlab run`, and
//! `save_timing("trace.json")` writes Chrome's trace-event format.

mod common;

use passlab::session::Session;
use std::process::Command;

fn run_script(path: &std::path::Path) -> (Option<i32>, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_passlab"))
        .args(["run", path.to_str().unwrap()])
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    (o.status.code(), String::from_utf8(o.stdout).unwrap())
}

const MODULE: &str = r#"m = parse("""def @main(%x: Tensor[(2, 2), float32], %y: Tensor[(2, 2), float32]) {
  %0 = multiply(%x, 2f);
  nn.relu(add(%0, %y))
}""")"#;

fn session_in(dir: &std::path::Path) -> Session {
    let mut s = Session::new();
    s.set_base_dir(dir);
    let o = s.execute(MODULE);
    assert!(!o.is_error(), "{}", o.plain());
    s
}

#[test]
fn a_failed_application_replays_the_same_error() {
    let dir = common::fresh_dir("reproducers", "failed");
    let mut s = session_in(&dir);
    let o = s.execute("reproducer(\"none.passlab\")");
    assert!(
        o.plain().contains("no pass application has failed"),
        "{}",
        o.plain()
    );
    let o = s.execute(
        "seq = Sequential([InferType(), FoldConstant(), function_pass(name=\"Boom\", fail=\"boom\"), DeadCodeElimination()])\n\
         with PassContext(opt_level=3, disabled_pass=[\"SimplifyExpr\"], config={\"relay.FuseOps.max_depth\": 4}, instruments=[Verify()]) {\n  out = seq(m)\n}",
    );
    let first = o.plain().lines().next().unwrap().to_string();
    assert_eq!(first, "error: Boom: boom");
    let o = s.execute("reproducer(\"r.passlab\")");
    assert!(!o.is_error(), "{}", o.plain());
    let script = std::fs::read_to_string(dir.join("r.passlab")).unwrap();
    assert!(
        script.contains("ctx = PassContext(opt_level=3, disabled_pass=[\"SimplifyExpr\"], config={\"relay.FuseOps.max_depth\": 4}, instruments=[Verify()])"),
        "{script}"
    );
    assert!(script.contains("out = Sequential([function_pass(name=\"Boom\", fail=\"boom\"), DeadCodeElimination()])(m)"), "{script}");
    // The module as Boom received it: typed by InferType.
    assert!(
        script.contains("/* ty=Tensor[(2, 2), float32] */"),
        "{script}"
    );
    let (code, out) = run_script(&dir.join("r.passlab"));
    assert_eq!(code, Some(1));
    assert_eq!(out.lines().next().unwrap(), first);
}

/// A run under an entered target: the reproducer enters the same target around its context,
/// so target-dependent passes (AlterOpLayout's TOPI hooks) see it when the script replays.
#[test]
fn a_reproducer_enters_the_target_the_run_was_for() {
    let dir = common::fresh_dir("reproducers", "target");
    let mut s = session_in(&dir);
    let o = s.execute(
        "seq = Sequential([AlterOpLayout(), function_pass(name=\"Boom\", fail=\"boom\")])\n\
         with Target(\"llvm -mtriple=x86_64-linux-gnu -mcpu=core-avx2\") {\n  \
         with PassContext(opt_level=3) {\n    out = seq(m)\n  }\n}",
    );
    let first = o.plain().lines().next().unwrap().to_string();
    assert_eq!(first, "error: Boom: boom");
    let o = s.execute("reproducer(\"t.passlab\")");
    assert!(!o.is_error(), "{}", o.plain());
    let script = std::fs::read_to_string(dir.join("t.passlab")).unwrap();
    assert!(
        script.contains(
            "with Target(\"llvm -keys=cpu -mcpu=core-avx2 -mtriple=x86_64-linux-gnu\") {\n  with ctx {"
        ),
        "{script}"
    );
    let (code, out) = run_script(&dir.join("t.passlab"));
    assert_eq!(code, Some(1), "{out}");
    assert_eq!(out.lines().next().unwrap(), first);
}

#[test]
fn a_bisected_numerics_break_replays_under_verify() {
    let dir = common::fresh_dir("reproducers", "numerics");
    let mut s = session_in(&dir);
    let o = s.execute(
        "bad = function_pass(name=\"Bad\", rewrite=[\"add(?a, ?b) => subtract(?a, ?b)\"])\n\
         bisect(Sequential([InferType(), bad, FoldConstant()]), m, check=\"numerics\")\n\
         reproducer(\"n.passlab\")",
    );
    assert!(!o.is_error(), "{}", o.plain());
    let (code, out) = run_script(&dir.join("n.passlab"));
    assert_eq!(code, Some(1));
    assert!(
        out.starts_with("error: pass Bad changed the numbers of @main"),
        "{out}"
    );
}

/// bisect's `inputs` go next to the reproducer as .npy files, and the replay compares the
/// numbers on them (the error quotes values only those inputs give), not on seeded ones.
#[test]
fn a_numerics_reproducer_replays_on_the_inputs_given_to_bisect() {
    let dir = common::fresh_dir("reproducers", "inputs");
    let mut s = session_in(&dir);
    let o = s.execute(
        "bad = function_pass(name=\"Bad\", rewrite=[\"add(?a, ?b) => subtract(?a, ?b)\"])\n\
         x = tensor([[1, 2], [3, 4]], dtype=\"float32\")\n\
         y = tensor([[1, 1], [1, 1]], dtype=\"float32\")\n\
         bisect(Sequential([InferType(), bad, FoldConstant()]), m, check=\"numerics\", inputs=[x, y])\n\
         reproducer(\"given.passlab\")",
    );
    assert!(!o.is_error(), "{}", o.plain());
    let script = std::fs::read_to_string(dir.join("given.passlab")).unwrap();
    assert!(
        script.contains(
            "instruments=[Verify(numerics=true, rtol=0.0001, atol=0.00001, inputs=[tensor(\"given.input0.npy\"), tensor(\"given.input1.npy\")])]"
        ),
        "{script}"
    );
    for f in ["given.input0.npy", "given.input1.npy"] {
        assert!(dir.join(f).is_file(), "{f} was not written");
    }
    let (code, out) = run_script(&dir.join("given.passlab"));
    assert_eq!(code, Some(1));
    assert!(
        out.starts_with("error: pass Bad changed the numbers of @main") && out.contains("(1 vs 3)"),
        "{out}"
    );
}

#[test]
fn save_timing_writes_a_chrome_trace() {
    let dir = common::fresh_dir("reproducers", "trace");
    let mut s = session_in(&dir);
    let o = s.execute("save_timing(\"t.json\")");
    assert!(
        o.plain().contains("no PassTimingInstrument"),
        "{}",
        o.plain()
    );
    let o = s.execute(
        "with PassContext(instruments=[PassTimingInstrument()]) {\n  out = Sequential([InferType(), FoldConstant()])(m)\n}\nsave_timing(\"t.json\")",
    );
    assert!(!o.is_error(), "{}", o.plain());
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("t.json")).unwrap()).unwrap();
    let ev = v["traceEvents"].as_array().unwrap();
    let names: Vec<&str> = ev.iter().map(|e| e["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["sequential", "InferType", "FoldConstant"]);
    assert!(ev
        .iter()
        .all(|e| e["ph"] == "X" && e["dur"].as_f64().unwrap() >= 0.0));
    // Children lie inside their parent.
    let end = |e: &serde_json::Value| e["ts"].as_f64().unwrap() + e["dur"].as_f64().unwrap();
    assert!(end(&ev[2]) <= end(&ev[0]) + 1e-6);
}
