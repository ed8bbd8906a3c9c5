//! `passlab opt FILE -p PIPELINE`, as a user runs it: the result equals the session's for the
//! same pipeline on every corpus file, each flag does what it says, failures exit 1 with the
//! located error, and a reproducer replays the same error under `passlab run`.

mod common;
mod onnx_support;

use passlab::session::{Session, Value};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn passlab(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_passlab"))
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .expect("run passlab")
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

const MODULE: &str = r#"def @f(%y: float32) {
  multiply(%y, 2f)
}

def @main(%x: float32) {
  %0 = add(1f, 2f);
  %1 = add(%x, %0);
  %2 = add(%x, %0);
  @f(add(%1, %2))
}
"#;

/// A directory holding `a.relay` (MODULE).
fn fixture(name: &str) -> (PathBuf, String) {
    let dir = common::fresh_dir("opt", name);
    let file = dir.join("a.relay");
    std::fs::write(&file, MODULE).unwrap();
    let f = file.to_str().unwrap().to_string();
    (dir, f)
}

/// The session's result for `pipeline` on `file` under opt_level `level`: the printed
/// module, or the first line of the error.
fn session_result(file: &Path, pipeline: &str, level: i32) -> Result<String, String> {
    let mut s = Session::new();
    s.set_html(false);
    let src = format!(
        "with PassContext(opt_level={level}) {{\n  out = {pipeline}(load({:?}))\n}}",
        file.to_str().unwrap()
    );
    let o = s.execute(&src);
    if o.is_error() {
        return Err(o.plain().lines().next().unwrap_or("").to_string());
    }
    match s.var("out") {
        Some(Value::Module(m)) => Ok(passlab::text::print_module(m)),
        _ => Err("no module".into()),
    }
}

#[test]
fn opt_on_the_corpus_equals_the_session() {
    let pipeline = "Sequential([InferType(), SimplifyInference(), FoldConstant(), \
                    EliminateCommonSubexpr(), DeadCodeElimination(), FoldScaleAxis(), \
                    SimplifyExpr(), FuseOps()], opt_level=3)";
    let mut files: Vec<PathBuf> = std::fs::read_dir("../shared/corpus/relay")
        .expect("the shared corpus")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "relay"))
        .collect();
    files.sort();
    assert!(files.len() >= 20, "{} corpus files", files.len());
    let (mut ok, mut failed) = (0, 0);
    for f in &files {
        let out = passlab(&[
            "opt",
            f.to_str().unwrap(),
            "-p",
            pipeline,
            "--opt-level",
            "3",
        ]);
        match session_result(f, pipeline, 3) {
            Ok(text) => {
                assert!(out.status.success(), "{f:?}: {}", stderr(&out));
                assert_eq!(stdout(&out), text, "{f:?}");
                ok += 1;
            }
            Err(first) => {
                assert_eq!(out.status.code(), Some(1), "{f:?}");
                assert_eq!(stderr(&out).lines().next().unwrap_or(""), first, "{f:?}");
                failed += 1;
            }
        }
    }
    assert!(ok > failed, "{ok} ran, {failed} failed");
}

#[test]
fn a_pass_name_is_a_pipeline_and_o_writes_the_module() {
    let (dir, f) = fixture("name");
    let out_file = dir.join("out.relay");
    let o = passlab(&[
        "opt",
        &f,
        "-p",
        "FoldConstant",
        "-o",
        out_file.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o), "");
    let text = std::fs::read_to_string(&out_file).unwrap();
    assert!(text.contains("add(%x, 3f"), "{text}");
    // `-o /dev/null`, as with LLVM's opt: the run happens, nothing is printed, and the device
    // stays a device.
    #[cfg(unix)]
    {
        let o = passlab(&["opt", &f, "-p", "FoldConstant", "-o", "/dev/null"]);
        assert!(o.status.success(), "{}", stderr(&o));
        assert_eq!(stdout(&o), "");
        use std::os::unix::fs::FileTypeExt;
        let null = std::fs::metadata("/dev/null").unwrap();
        assert!(null.file_type().is_char_device());
    }
}

#[test]
fn context_flags_gate_the_passes() {
    let (_dir, f) = fixture("gate");
    let seq = "Sequential([InferType(), FoldConstant(), EliminateCommonSubexpr()])";
    // opt_level 2: ECSE (level 3) does not run; the two adds stay.
    let twice = "%1 = add(%x, 3f";
    let o = passlab(&["opt", &f, "-p", seq]);
    assert!(stdout(&o).contains(twice), "{}", stdout(&o));
    // --opt-level 3 runs it.
    let o = passlab(&["opt", &f, "-p", seq, "--opt-level", "3"]);
    assert!(!stdout(&o).contains(twice), "{}", stdout(&o));
    // --required-pass runs it at level 2.
    let o = passlab(&[
        "opt",
        &f,
        "-p",
        seq,
        "--required-pass",
        "EliminateCommonSubexpr",
    ]);
    assert!(!stdout(&o).contains(twice), "{}", stdout(&o));
    // --disable-pass keeps FoldConstant out.
    let o = passlab(&["opt", &f, "-p", seq, "--disable-pass", "FoldConstant"]);
    assert!(
        stdout(&o).contains("add(1f /* ty=float32 */, 2f"),
        "{}",
        stdout(&o)
    );
    // --bisect-limit 1: only InferType runs.
    let o = passlab(&["opt", &f, "-p", seq, "--bisect-limit", "1"]);
    assert!(
        stdout(&o).contains("add(1f /* ty=float32 */, 2f"),
        "{}",
        stdout(&o)
    );
    // --config: a known key is accepted, an unknown one is an error naming it.
    let o = passlab(&[
        "opt",
        &f,
        "-p",
        seq,
        "--config",
        "relay.FuseOps.max_depth=4",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = passlab(&["opt", &f, "-p", seq, "--config", "relay.FuseOps.max_dept=4"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("relay.FuseOps.max_dept"),
        "{}",
        stderr(&o)
    );
    let o = passlab(&["opt", &f, "-p", seq, "--config", "novalue"]);
    assert!(
        stderr(&o).contains("--config takes KEY=VALUE"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn printing_flags_write_to_stderr() {
    let (_dir, f) = fixture("print");
    let seq = "Sequential([InferType(), FoldConstant()])";
    let o = passlab(&["opt", &f, "-p", seq, "--print-changed"]);
    let e = stderr(&o);
    assert!(
        e.contains("--- before FoldConstant") && e.contains("+  %0 = add(%x, 3f"),
        "{e}"
    );
    let o = passlab(&["opt", &f, "-p", seq, "--print-after", "FoldConstant"]);
    let e = stderr(&o);
    assert!(
        e.contains("add(%x, 3f") && !e.contains("add(1f, 2f)"),
        "{e}"
    );
    let o = passlab(&["opt", &f, "-p", seq, "--print-before", "FoldConstant"]);
    assert!(
        stderr(&o).contains("add(1f /* ty=float32 */, 2f"),
        "{}",
        stderr(&o)
    );
    let o = passlab(&["opt", &f, "-p", seq, "--print-after-all"]);
    let e = stderr(&o);
    assert_eq!(e.matches("def @main").count(), 3, "{e}");
    let o = passlab(&[
        "opt",
        &f,
        "-p",
        seq,
        "--print-after-all",
        "--filter-print-funcs",
        "f",
    ]);
    let e = stderr(&o);
    assert!(e.contains("def @f") && !e.contains("def @main"), "{e}");
    // The module on stdout is not filtered.
    assert!(stdout(&o).contains("def @main"));
    // --print-changed diffs only the named functions: FoldConstant changed @main only.
    let changed = |funcs: &str| {
        let o = passlab(&[
            "opt",
            &f,
            "-p",
            seq,
            "--print-changed",
            "--filter-print-funcs",
            funcs,
        ]);
        stderr(&o)
    };
    let e = changed("main");
    assert!(
        e.contains("FoldConstant changed @main") && e.contains("+  %0 = add(%x, 3f"),
        "{e}"
    );
    assert!(!e.contains("def @f"), "{e}");
    let e = changed("f");
    assert!(!e.contains("FoldConstant changed"), "{e}");
    let o = passlab(&["opt", &f, "-p", seq, "--time-passes"]);
    let e = stderr(&o);
    assert!(
        e.contains("% parent") && e.contains("% self") && e.contains("FoldConstant"),
        "{e}"
    );
}

#[test]
fn json_gives_the_events() {
    let (_dir, f) = fixture("json");
    let seq = "Sequential([InferType(), FoldConstant(), EliminateCommonSubexpr()])";
    let o = passlab(&[
        "opt",
        &f,
        "-p",
        seq,
        "--json",
        "--disable-pass",
        "FoldConstant",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["ok"], true);
    assert_eq!(v["pipeline"], seq);
    let ran: Vec<(&str, &str)> = v["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["pass"].as_str().unwrap(), e["status"].as_str().unwrap()))
        .collect();
    assert_eq!(ran, [("sequential", "ran"), ("InferType", "ran")]);
    let gated: Vec<(&str, &str)> = v["gated"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["pass"].as_str().unwrap(), e["reason"].as_str().unwrap()))
        .collect();
    assert_eq!(
        gated,
        [
            ("FoldConstant", "disabled_pass"),
            (
                "EliminateCommonSubexpr",
                "opt_level 3 > context opt_level 2"
            )
        ]
    );
    let infer = &v["events"][1];
    assert_eq!(infer["nodes_before"], infer["nodes_after"]);
    assert!(infer["time_us"].as_f64().unwrap() > 0.0);
}

#[test]
fn failures_are_located_and_reproduced() {
    let (dir, f) = fixture("fail");
    // A bad pipeline text: located in it.
    let o = passlab(&["opt", &f, "-p", "Sequential([InferType(), FoldConstan()])"]);
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    assert!(
        e.contains("<pipeline>:1:26") && e.contains("did you mean FoldConstant?"),
        "{e}"
    );
    // A file that does not parse: located in the file.
    let broken = dir.join("broken.relay");
    std::fs::write(&broken, "def @main() {\n  add(1f, \n}\n").unwrap();
    let o = passlab(&["opt", broken.to_str().unwrap(), "-p", "InferType"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("broken.relay:3:"), "{}", stderr(&o));
    // A failing pass: the error, and a reproducer that fails the same way.
    let repro = dir.join("repro.passlab");
    let seq = "Sequential([InferType(), FoldConstant(), function_pass(name=\"Bad\", fail=\"boom\"), DeadCodeElimination()])";
    let o = passlab(&[
        "opt",
        &f,
        "-p",
        seq,
        "--reproducer",
        repro.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    assert!(e.starts_with("error: Bad: boom\n"), "{e}");
    assert!(e.contains("wrote a reproducer"), "{e}");
    let script = std::fs::read_to_string(&repro).unwrap();
    // The module as Bad received it (folded), and the pipeline from Bad on.
    assert!(script.contains("add(%x, 3f"), "{script}");
    assert!(
        script.contains(
            "out = Sequential([function_pass(name=\"Bad\", fail=\"boom\"), DeadCodeElimination()])(m)"
        ),
        "{script}"
    );
    let r = passlab(&["run", repro.to_str().unwrap()]);
    assert_eq!(r.status.code(), Some(1));
    assert!(
        stdout(&r).starts_with("error: Bad: boom\n"),
        "{}",
        stdout(&r)
    );
    // Verify failing after a pass that breaks types: Verify is in the reproducer's context.
    let breaker =
        "function_pass(name=\"Breaker\", replace_with=\"def @g(%a: float32) { add(%a, 1) }\")";
    let seq = format!("Sequential([InferType(), {breaker}])");
    let o = passlab(&[
        "opt",
        &f,
        "-p",
        &seq,
        "--verify-each",
        "--reproducer",
        repro.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    let first = stderr(&o).lines().next().unwrap().to_string();
    assert!(first.contains("Verify"), "{}", stderr(&o));
    let script = std::fs::read_to_string(&repro).unwrap();
    assert!(
        script.contains("instruments=[Verify]") || script.contains("instruments=[Verify()]"),
        "{script}"
    );
    let r = passlab(&["run", repro.to_str().unwrap()]);
    assert_eq!(stdout(&r).lines().next().unwrap(), first);
}

#[test]
fn opt_reads_onnx() {
    use onnx_support::*;
    let dir = common::fresh_dir("opt", "onnx");
    let bytes = model(
        13,
        vec![
            node("Add", &["x", "c"], &["y"], vec![]),
            node("Relu", &["y"], &["z"], vec![]),
        ],
        vec![value_info("x", FLOAT, &[2])],
        &["z"],
        vec![tensor_f32("c", &[2], &[1.0, 2.0])],
    );
    let file = dir.join("m.onnx");
    std::fs::write(&file, bytes).unwrap();
    let o = passlab(&["opt", file.to_str().unwrap(), "-p", "FoldConstant"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("nn.relu"), "{}", stdout(&o));
}

/// `--target` enters the target around the context: AlterOpLayout then applies the target's
/// TOPI hook (x86 dense packing), without one it changes nothing, and a target TVM would
/// refuse is an error.
#[test]
fn target_enters_a_target_for_the_run() {
    let dir = common::fresh_dir("opt", "target");
    let file = dir.join("dense.relay");
    std::fs::write(
        &file,
        "def @main(%x: Tensor[(1, 64), float32], %w: Tensor[(32, 64), float32]) {\n  nn.dense(%x, %w, units=32)\n}\n",
    )
    .unwrap();
    let f = file.to_str().unwrap();
    let pipeline = "Sequential([InferType(), AlterOpLayout()])";
    let run = |extra: &[&str]| {
        let mut args = vec!["opt", f, "-p", pipeline, "--opt-level", "3"];
        args.extend_from_slice(extra);
        passlab(&args)
    };
    let o = run(&["--target", "llvm -mtriple=x86_64-linux-gnu -mcpu=core-avx2"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("nn.contrib_dense_pack(%x, %0, units=None, out_dtype=\"float32\", weight_layout=\"NC16n\")"),
        "{}",
        stdout(&o)
    );
    let o = run(&[]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("nn.dense(%x, %w, units=32)"),
        "{}",
        stdout(&o)
    );
    let o = run(&["--target", "llvm -bogus=1"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains(
            "error: --target: attribute \"bogus\" is not available for target kind \"llvm\""
        ),
        "{}",
        stderr(&o)
    );
}
