//! Parallel function passes (`passlab.num_threads`): every function pass, InferType and
//! DeadCodeElimination give the same module on several threads as on one, on the corpus and
//! on generated modules of many functions; instruments see the same calls; output,
//! diagnostics, errors and panics come in module order, naming the pass; the interrupt flag
//! still stops the run at the next pass.

mod common;

use passlab::instrument::{EventLog, PrintChanged, Stats, Trace};
use passlab::ir::{module_equal, Module};
use passlab::pass::{
    function_pass, sequential, BufferSink, ChunkKind, InstrumentRef, PassContext, PassDiagnostic,
    PassError, PassInfo, PassKind, PassManager, PassOptions,
};
use passlab::passes::infer_type;
use passlab::text::{parse_module, print_module};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// A context with `passlab.num_threads = n` and the given instruments.
fn ctx(n: i64, instruments: Vec<InstrumentRef>) -> PassContext {
    PassContext::builder()
        .opt_level(4)
        .config("passlab.num_threads", n)
        .instruments(instruments)
        .build()
        .expect("a valid context")
}

/// Runs `pass` on `m` under `n` threads: the result (printed, or the error) and the output.
fn run(
    pass: &passlab::pass::Pass,
    m: &Module,
    n: i64,
    instruments: Vec<InstrumentRef>,
) -> (Result<Module, String>, String) {
    let sink = BufferSink::new();
    let mut pm = PassManager::new(passlab::passes::registry()).with_sink(Arc::new(sink.clone()));
    let out = pm.with_context(&ctx(n, instruments), |pm| Ok(pm.run(pass, m)));
    let out = out.expect("the context enters and exits");
    (out.map_err(|e| e.to_string()), sink.take())
}

/// The passes that map functions: every registered function pass, InferType and DCE.
fn mapping_passes() -> Vec<String> {
    let registry = passlab::passes::registry();
    let mut names: Vec<String> = registry
        .entries()
        .iter()
        .filter(|e| e.kind == PassKind::Function)
        .map(|e| e.name.to_string())
        .collect();
    names.push("InferType".into());
    names.push("DeadCodeElimination".into());
    names
}

/// Modules with many functions: generated ones and the corpus (typed where it type-checks).
fn modules() -> Vec<(String, Module)> {
    let mut out = vec![
        ("globals".to_string(), passlab::testgen::globals_model(300)),
        (
            "inline".to_string(),
            passlab::testgen::inline_chains_model(40),
        ),
    ];
    out.extend(common::corpus_files());
    out.into_iter()
        .map(|(name, text)| {
            let m = parse_module(&text, &name).unwrap_or_else(|e| panic!("{name}: {e}"));
            let m = infer_type::infer_module(&m).unwrap_or(m);
            (name, m)
        })
        .collect()
}

#[test]
fn every_function_pass_gives_the_same_module_on_several_threads() {
    let pm = PassManager::new(passlab::passes::registry());
    let modules = modules();
    let mut compared = 0;
    let mut parallel = 0;
    for name in mapping_passes() {
        let Ok(pass) = pm.create(&name, &PassOptions::new()) else {
            continue; // a pass whose options have no defaults (ConvertLayout)
        };
        for (file, m) in &modules {
            let (one, _) = run(&pass, m, 1, vec![]);
            let (three, _) = run(&pass, m, 3, vec![]);
            match (&one, &three) {
                (Ok(a), Ok(b)) => {
                    assert!(
                        module_equal(a, b, false),
                        "{name} on {file}: modules differ"
                    );
                    assert_eq!(print_module(a), print_module(b), "{name} on {file}");
                }
                _ => assert_eq!(one.as_ref().err(), three.as_ref().err(), "{name} on {file}"),
            }
            compared += 1;
            parallel += usize::from(m.len() > 1);
        }
    }
    assert!(compared > 300, "only {compared} runs compared");
    assert!(parallel > 30, "only {parallel} runs had several functions");
}

#[test]
fn the_standard_pipeline_is_the_same_on_several_threads_with_instruments() {
    let m = parse_module(&passlab::testgen::globals_model(200), "globals").unwrap();
    let pm = PassManager::new(passlab::passes::registry());
    let names = [
        "FoldConstant",
        "EliminateCommonSubexpr",
        "SimplifyExpr",
        "DeadCodeElimination",
    ];
    let seq = sequential(
        names
            .iter()
            .map(|n| pm.create(n, &PassOptions::new()).unwrap())
            .collect(),
    );
    let logs = |n: i64| {
        let instruments: Vec<InstrumentRef> = vec![
            Arc::new(Trace::new("t")),
            Arc::new(PrintChanged::new()),
            Arc::new(Stats::new()),
        ];
        run(&seq, &m, n, instruments)
    };
    let (one, log1) = logs(1);
    for n in [2, 3, 8] {
        let (other, log) = logs(n);
        assert_eq!(log1, log, "{n} threads: the instruments saw something else");
        assert!(module_equal(
            one.as_ref().unwrap(),
            other.as_ref().unwrap(),
            false
        ));
    }
    assert!(
        log1.contains("[t] run_before_pass EliminateCommonSubexpr"),
        "{log1}"
    );
    // The event log's events, without their times, are the same too.
    let events = |n: i64| {
        let log = Arc::new(EventLog::new());
        run(&seq, &m, n, vec![log.clone() as InstrumentRef])
            .0
            .expect("the pipeline runs");
        let mut v = log.to_json();
        for e in v.as_array_mut().expect("a list of events") {
            e.as_object_mut().expect("an event").remove("time_us");
        }
        v
    };
    assert_eq!(events(1), events(2));
}

/// A pass that writes a line, reports a warning, and fails or panics on chosen functions.
fn noisy(fail: &'static [&'static str], panic: &'static [&'static str]) -> passlab::pass::Pass {
    function_pass(PassInfo::new("Noisy", 0), move |g, f, _, cx| {
        cx.emit(ChunkKind::Log, &format!("saw @{}", g.name()));
        cx.report(PassDiagnostic::warning(format!("looked at @{}", g.name())));
        if panic.contains(&g.name()) {
            panic!("cannot take @{}", g.name());
        }
        if fail.contains(&g.name()) {
            return Err(PassError::failed(format!("no @{}", g.name())));
        }
        Ok(f.clone())
    })
}

#[test]
fn output_diagnostics_errors_and_panics_come_in_module_order() {
    let m = parse_module(&passlab::testgen::globals_model(500), "globals").unwrap();
    let cases: [(&[&str], &[&str]); 4] = [
        (&[], &[]),
        (&["f400", "f20", "f7"], &[]),
        (&[], &["f300", "f11"]),
        (&["f40"], &["f41", "f480"]),
    ];
    for (fail, panic) in cases {
        let pass = noisy(fail, panic);
        let (one, out1) = run(&pass, &m, 1, vec![]);
        for n in [2, 4] {
            let (other, out) = run(&pass, &m, n, vec![]);
            assert_eq!(out1, out, "{fail:?} {panic:?} on {n} threads");
            match (&one, &other) {
                (Ok(a), Ok(b)) => assert!(a.same_as(b) || module_equal(a, b, false)),
                _ => assert_eq!(one.as_ref().err(), other.as_ref().err()),
            }
        }
        if let Err(e) = &one {
            assert!(e.contains("Noisy"), "the error names the pass: {e}");
        }
    }
    let (err, out) = run(&noisy(&["f400", "f20", "f7"], &[]), &m, 2, vec![]);
    assert!(err.unwrap_err().contains("no @f7"));
    assert!(
        out.contains("saw @f7\n") && !out.contains("saw @f8\n"),
        "output stops at the failing function"
    );
    let (err, _) = run(&noisy(&[], &["f300", "f11"]), &m, 2, vec![]);
    let err = err.unwrap_err();
    assert!(
        err.contains("Noisy") && err.contains("panicked") && err.contains("cannot take @f11"),
        "{err}"
    );
}

#[test]
fn the_interrupt_flag_stops_the_run_at_the_next_pass() {
    let m = parse_module(&passlab::testgen::globals_model(400), "globals").unwrap();
    for n in [1, 2, 4] {
        let flag = Arc::new(AtomicBool::new(false));
        let set = flag.clone();
        let stopper = function_pass(PassInfo::new("Stopper", 0), move |g, f, _, _| {
            if g.name() == "f100" {
                set.store(true, Ordering::Relaxed);
            }
            Ok(f.clone())
        });
        let after = function_pass(PassInfo::new("After", 0), |_, f, _, _| Ok(f.clone()));
        let mut pm = PassManager::new(passlab::passes::registry());
        pm.set_interrupt(Some(flag.clone()));
        let err = pm
            .with_context(&ctx(n, vec![]), |pm| {
                Ok(pm.run(&sequential(vec![stopper, after]), &m))
            })
            .unwrap()
            .unwrap_err();
        assert!(err.to_string().contains("After"), "{n} threads: {err}");
        assert!(flag.load(Ordering::Relaxed));
    }
}

#[test]
fn num_threads_is_a_checked_config_key() {
    let key = passlab::pass::config::config_key("passlab.num_threads").expect("registered");
    assert_eq!((key.default)(), passlab::pass::ConfigValue::Int(0));
    for bad in [-1i64, 257, 1 << 40] {
        let err = PassContext::builder()
            .config("passlab.num_threads", bad)
            .build()
            .unwrap_err()
            .to_string();
        assert!(err.contains("from 0 to 256"), "{err}");
    }
    assert!(passlab::pass::parallel::cores() >= 1);
}

/// InferType on several threads checks runs of consecutive functions apart when every
/// function is annotated in full: on untyped modules of many functions it gives the module one
/// thread gives, and where a function is not annotated in full, is polymorphic or has a type
/// error, the module is solved together, so the result or the error is one thread's.
#[test]
fn infer_type_on_several_threads_types_runs_apart_and_falls_back_to_the_joint_run() {
    let ty = "Tensor[(1, 8), float32]";
    let text = passlab::testgen::globals_model(300);
    let wrong = text.replace(
        &format!("def @f150(%a: {ty}) -> {ty}"),
        "def @f150(%a: Tensor[(1, 8), float32]) -> Tensor[(1, 9), float32]",
    );
    let unannotated = text.replace(
        &format!("def @f77(%a: {ty}) -> {ty}"),
        &format!("def @f77(%a: {ty})"),
    );
    let polymorphic = format!("{text}def @id[A](%x: A) -> A {{ %x }}\n")
        .replace("{ nn.relu(%a) }", "{ @id(nn.relu(%a)) }");
    let base = passlab::testgen::globals_model(300);
    for (name, text) in [
        ("annotated", &text),
        ("a type error in @f150", &wrong),
        ("@f77 without a return type", &unannotated),
        ("a polymorphic @id", &polymorphic),
    ] {
        assert_eq!(name == "annotated", *text == base, "{name}: the edit took");
        let m = parse_module(text, name).unwrap_or_else(|e| panic!("{name}: {e}"));
        let one = infer_type::infer_module(&m);
        for threads in [2, 3, 8] {
            let many = infer_type::infer_module_on(&m, threads);
            match (&one, &many) {
                (Ok(a), Ok(b)) => {
                    assert!(module_equal(a, b, false), "{name}, {threads} threads");
                    assert_eq!(print_module(a), print_module(b), "{name}");
                }
                _ => assert_eq!(
                    one.as_ref().err(),
                    many.as_ref().err(),
                    "{name}, {threads} threads"
                ),
            }
        }
        match name {
            "a type error in @f150" => {
                let e = one.expect_err("the wrong return type is an error");
                assert_eq!(e.function.as_deref(), Some("f150"), "{e}");
            }
            _ => {
                let typed = one.unwrap_or_else(|e| panic!("{name}: {e}"));
                // Typed in full: the return type @f77 lacked is filled in.
                let f77 = typed.get_function("f77").expect("@f77");
                assert_eq!(
                    f77.ret_type.as_ref().map(|t| t.to_string()),
                    Some(ty.into())
                );
            }
        }
    }
}
