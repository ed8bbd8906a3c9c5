//! The benchmark commands of the `passlab` binary: `gen` writes the models that `bench` and
//! `benches/growth.py` time.

mod common;

use passlab::ir::ExprKind;
use std::process::Command;

fn passlab(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_passlab"))
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .expect("run passlab")
}

fn tmp(name: &str) -> std::path::PathBuf {
    common::fresh_dir("cli", name)
}

#[test]
fn gen_writes_the_benchmark_models_that_bench_times() {
    let dir = tmp("gen");
    for (model, ops, ops_made) in [("peer", "80", 80), ("conv", "60", 60), ("lets", "50", 50)] {
        let file = dir.join(format!("{model}.relay"));
        let out = passlab(&["gen", model, ops, "-o", file.to_str().unwrap()]);
        assert!(out.status.success(), "{out:?}");
        let text = std::fs::read_to_string(&file).unwrap();
        // The same text as the library's generators, which the unit tests pin down.
        let expected = match model {
            "peer" => passlab::testgen::peer_model(10, 64),
            "conv" => passlab::testgen::conv_model(10),
            _ => passlab::testgen::let_chain(50),
        };
        assert_eq!(text, expected, "{model}");
        let m = passlab::text::parse_module(&text, "gen").unwrap();
        let main = m.get("main").unwrap();
        let mut n = 0;
        passlab::ir::visit::post_order(main, |e| {
            let op = e.as_call().is_some() || matches!(e.kind(), ExprKind::TupleGetItem(..));
            n += usize::from(op);
        });
        assert_eq!(n, ops_made, "{model}: calls and projections");
        let out = passlab(&[
            "bench",
            file.to_str().unwrap(),
            "--pass",
            "DeadCodeElimination",
            "--runs",
            "1",
            "--json",
        ]);
        assert!(out.status.success(), "{out:?}");
        let json = String::from_utf8(out.stdout).unwrap();
        assert!(json.contains("\"DeadCodeElimination_s\""), "{json}");
        // With the caches flushed before each run: the same report.
        let file = file.to_str().unwrap();
        let cold = [
            "bench", file, "--pass", "FuseOps", "--runs", "2", "--cold", "--json",
        ];
        let out = passlab(&cold);
        assert!(out.status.success(), "{out:?}");
        let json = String::from_utf8(out.stdout).unwrap();
        assert!(json.contains("\"FuseOps_s\""), "{json}");
        // The fastest and slowest runs come with the median, in JSON and in the text report.
        let v: serde_json::Value = serde_json::from_str(&json).unwrap();
        let t = |k: &str| v[k].as_f64().unwrap_or_else(|| panic!("{k} in {json}"));
        assert!(t("FuseOps_min_s") <= t("FuseOps_s") && t("FuseOps_s") <= t("FuseOps_max_s"));
        // Passes to prepare with run once, untimed: only the timed pass is reported.
        let prepared = [
            "bench",
            file,
            "--prepare",
            "SimplifyInference",
            "--prepare",
            "FoldConstant",
            "--pass",
            "FuseOps",
            "--runs",
            "1",
            "--json",
        ];
        let out = passlab(&prepared);
        assert!(out.status.success(), "{out:?}");
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let keys: Vec<&String> = v.as_object().unwrap().keys().collect();
        assert!(v["FuseOps_s"].is_f64(), "{keys:?}");
        assert!(
            keys.iter()
                .all(|k| !k.starts_with("SimplifyInference") && !k.starts_with("FoldConstant")),
            "{keys:?}"
        );
        // The read-only walk, timed beside the passes (growth.py's floor).
        let out = passlab(&["bench", file, "--walk", "--runs", "2", "--json"]);
        assert!(out.status.success(), "{out:?}");
        let json = String::from_utf8(out.stdout).unwrap();
        let v: serde_json::Value = serde_json::from_str(&json).unwrap();
        let t = |k: &str| v[k].as_f64().unwrap_or_else(|| panic!("{k} in {json}"));
        assert!(t("walk_min_s") <= t("walk_s") && t("walk_s") <= t("walk_max_s"));
        // The passes as one pipeline, directly and through a session statement.
        let out = passlab(&[
            "bench",
            file,
            "--pass",
            "FoldConstant",
            "--pass",
            "FuseOps",
            "--session",
            "--runs",
            "2",
            "--json",
        ]);
        assert!(out.status.success(), "{out:?}");
        let json = String::from_utf8(out.stdout).unwrap();
        let v: serde_json::Value = serde_json::from_str(&json).unwrap();
        for k in ["pipeline_s", "session_s", "FuseOps_s"] {
            assert!(v[k].as_f64().is_some_and(|t| t > 0.0), "{k} in {json}");
        }
        let out = passlab(&["bench", file, "--pass", "FuseOps", "--runs", "3"]);
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(
            text.starts_with("FuseOps")
                && text.contains("ms (median; ")
                && text.contains(" over 3 runs)"),
            "{text}"
        );
    }
    // No file: the model goes to stdout.
    let out = passlab(&["gen", "lets", "2"]);
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        passlab::testgen::let_chain(2)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn host_measures_read_latency_by_working_set() {
    let out = passlab(&["host", "--max-mib", "1", "--json"]);
    assert!(out.status.success(), "{out:?}");
    let json = String::from_utf8(out.stdout).unwrap();
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let lat = v["latency_ns"].as_object().expect("latency_ns");
    let mut sizes: Vec<u64> = lat.keys().map(|k| k.parse().unwrap()).collect();
    sizes.sort();
    assert_eq!(sizes, [256 << 10, 512 << 10, 1 << 20], "{json}");
    assert!(lat.values().all(|ns| ns.as_f64().unwrap() > 0.0), "{json}");
    let cached = v["cached_bytes"].as_u64().unwrap();
    assert!(cached == 0 || sizes.contains(&cached), "{json}");
    let out = passlab(&["host", "--max-mib", "1"]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("  256 KiB") && text.contains("    1 MiB") && text.contains(" ns\n"),
        "{text}"
    );
    assert!(text.contains("served from cache up to "), "{text}");
    // A working set the machine cannot hold is refused, not attempted.
    let out = passlab(&["host", "--max-mib", "100000"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("100000 is not in 1..=1024"), "{err}");
    // The walk probe: three node sizes at N and 10 N nodes, in text and in JSON.
    let out = passlab(&["host", "--max-mib", "1", "--growth", "500", "--json"]);
    assert!(out.status.success(), "{out:?}");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["walk_growth"]["nodes"], 500);
    let ratios = v["walk_growth"]["ratio"].as_object().expect("ratio");
    let mut sizes: Vec<u64> = ratios.keys().map(|k| k.parse().unwrap()).collect();
    sizes.sort();
    assert_eq!(sizes, [32, 64, 128]);
    assert!(ratios.values().all(|r| r.as_f64().unwrap() > 0.0), "{v}");
    let out = passlab(&["host", "--max-mib", "1", "--growth", "500"]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("500 -> 5000 nodes"), "{text}");
    assert!(text.contains("  64-byte nodes"), "{text}");
    let out = passlab(&["host", "--growth", "5"]);
    assert_eq!(
        out.status.code(),
        Some(2),
        "too few nodes to time is refused"
    );
}

#[test]
fn gen_reports_what_it_cannot_do() {
    let out = passlab(&["gen", "resnet", "10"]);
    assert!(!out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains(
            "possible values: peer, conv, rnn, lets, sum, ifs, globals, closures, tuples, inline, fns"
        ),
        "{err}"
    );
    let out = passlab(&["gen", "peer", "8", "-o", "/nonexistent-dir/x.relay"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.starts_with("error: cannot write /nonexistent-dir/x.relay"),
        "{err}"
    );
}

#[test]
fn bench_reports_what_it_cannot_do() {
    let dir = tmp("bench_errors");
    let file = dir.join("peer.relay");
    std::fs::write(&file, passlab::testgen::peer_model(2, 8)).unwrap();
    let file = file.to_str().unwrap();
    let err = |args: &[&str]| {
        let out = passlab(args);
        assert!(!out.status.success(), "{args:?}: {out:?}");
        assert!(out.stdout.is_empty(), "{args:?}: {out:?}");
        String::from_utf8(out.stderr).unwrap()
    };
    // A misspelt pass: the closest registered name.
    let e = err(&["bench", file, "--pass", "FuseOp"]);
    assert!(
        e.contains("unknown pass FuseOp; did you mean FuseOps?"),
        "{e}"
    );
    // The same for a pass to prepare with.
    let e = err(&["bench", file, "--prepare", "FuseOp", "--pass", "FuseOps"]);
    assert!(
        e.contains("unknown pass FuseOp; did you mean FuseOps?"),
        "{e}"
    );
    // Nothing asked for: said so, not an empty report.
    let e = err(&["bench", file]);
    assert!(e.starts_with("error: nothing to measure"), "{e}");
    // No runs, or an empty Sequential: refused by the argument parser.
    let e = err(&["bench", file, "--pass", "FuseOps", "--runs", "0"]);
    assert!(e.contains("--runs"), "{e}");
    let e = err(&["bench", file, "--overhead", "0"]);
    assert!(e.contains("--overhead"), "{e}");
    // A missing file names the file.
    let e = err(&["bench", "/nonexistent-dir/x.relay", "--pass", "FuseOps"]);
    assert!(
        e.starts_with("error: cannot read /nonexistent-dir/x.relay"),
        "{e}"
    );
}

/// `passlab run` resolves a script's relative paths against the script's folder: `--help`
/// says so, and a missing file's error names the file that was tried.
#[test]
fn run_resolves_paths_against_the_script_and_says_so() {
    let help = passlab(&["run", "--help"]);
    let text = String::from_utf8(help.stdout).unwrap();
    assert!(
        text.contains("resolve against the script's folder"),
        "{text}"
    );
    let dir = tmp("run-paths");
    let script = dir.join("s.passlab");
    std::fs::write(&script, "m = load(\"missing.relay\")\n").unwrap();
    let out = passlab(&["run", script.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let shown = String::from_utf8(out.stdout).unwrap() + &String::from_utf8(out.stderr).unwrap();
    let tried = dir.join("missing.relay");
    assert!(
        shown.contains(&format!(
            "missing.relay (resolved against the script's folder: {})",
            tried.display()
        )),
        "{shown}"
    );
    // The file next to the script is the one loaded.
    std::fs::write(&tried, "def @main(%x: float32) { %x }").unwrap();
    let out = passlab(&["run", script.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
}
