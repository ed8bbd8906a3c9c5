//! `build_pipeline(opt_level=3)`, TVM v0.18's `relay.build` optimization passes as one
//! Sequential, on every program of the corpus: it runs under `PassContext(opt_level=3)` with
//! `Verify` after every pass (well-formed, type-checks), and where the input's `@main` can be
//! evaluated, the output computes the same numbers on seeded random inputs.

mod common;

use passlab::eval::numerics::{DEFAULT_ATOL, DEFAULT_RTOL};
use passlab::instrument::Verify;
use passlab::ir::Module;
use passlab::pass::{PassContext, PassManager};
use passlab::passes::build_pipeline::build_pipeline;
use passlab::text::parse_module;
use std::sync::Arc;

fn run(m: &Module, opt_level: i32) -> Result<Module, String> {
    let mut pm = PassManager::new(passlab::passes::registry());
    let pipeline = build_pipeline(&pm, opt_level).map_err(|e| e.to_string())?;
    let ctx = PassContext::builder()
        .opt_level(opt_level)
        .instrument(Arc::new(Verify::new()))
        .build()
        .map_err(|e| e.to_string())?;
    pm.with_context(&ctx, |pm| pm.run(&pipeline, m))
        .map_err(|e| e.to_string())
}

#[test]
fn build_pipeline_runs_on_every_corpus_program() {
    let mut evaluated = 0;
    let mut fused = 0;
    let mut untypable = 0;
    for (name, text) in common::corpus_files() {
        let m = parse_module(&text, &name).unwrap_or_else(|e| panic!("{name}: {}", e.message));
        let result = run(&m, 3);
        // relay.build compiles @main: without one, TVM's RemoveUnusedFunctions stops at the
        // missing entry function, and so does passlab's.
        if m.get("main").is_none() {
            let e = result.expect_err("a module without @main cannot be built");
            assert!(
                e.contains("the entry function @main is not in the module"),
                "{name}: {e}"
            );
            continue;
        }
        // A program that does not type-check (an opaque constant whose type nothing decides)
        // stops at the first InferType, as relay.build stops; the error says why.
        if let Err(type_error) = passlab::passes::infer_type::infer_module(&m) {
            let e = result.expect_err("an untypable program cannot be built");
            assert!(e.contains(&type_error.message), "{name}: {e}");
            untypable += 1;
            continue;
        }
        let out = result.unwrap_or_else(|e| panic!("{name}: build_pipeline failed: {e}"));
        if passlab::text::print_module(&out).contains("Primitive=1") {
            fused += 1;
        }
        // The same numbers, where the input can be evaluated at all.
        let Some(main) = m.get("main") else { continue };
        let Ok(inputs) = passlab::eval::random::inputs_for(main, 0) else {
            continue;
        };
        let args: Vec<_> = inputs.iter().collect();
        let Ok(before) = passlab::eval::evaluate(&m, "main", &args) else {
            continue;
        };
        let after = match passlab::eval::evaluate(&out, "main", &args) {
            Ok(after) => after,
            // SimplifyInference writes layer_norm with `variance`, which has no kernel yet.
            Err(e) if e.to_string().contains("the op variance has no evaluator") => continue,
            Err(e) => panic!("{name}: the output cannot be evaluated: {e}"),
        };
        if let Some(d) =
            passlab::eval::compare::outputs(&after, &before, DEFAULT_RTOL, DEFAULT_ATOL, true)
        {
            panic!("{name}: build_pipeline changed the numbers: {d}");
        }
        evaluated += 1;
        eprintln!("{name}: the same numbers after build_pipeline");
    }
    assert!(untypable <= 3, "{untypable} programs do not type-check");
    assert!(fused >= 15, "only {fused} outputs have fused functions");
    assert!(
        evaluated >= 5,
        "only {evaluated} programs were compared by their numbers"
    );
}

#[test]
fn opt_level_selects_the_passes_relay_build_runs() {
    let pm = PassManager::new(passlab::passes::registry());
    let names = |level| -> Vec<String> {
        let p = build_pipeline(&pm, level).unwrap();
        assert_eq!(p.name(), "relay.build");
        p.children().iter().map(|p| p.name().to_string()).collect()
    };
    let three = names(3);
    assert_eq!(
        three,
        [
            "RemoveUnusedFunctions",
            "SimplifyInference",
            "EliminateCommonSubexpr",
            "FoldConstant",
            "FoldScaleAxis",
            "SimplifyExpr",
            "CanonicalizeCast",
            "CanonicalizeOps",
            "InferType",
            "SimplifyExprPostAlterOp",
            "FoldConstant",
            "FuseOps",
            "InferType",
            "InlineGlobals",
            "InferType",
        ]
    );
    let four = names(4);
    assert!(four.contains(&"FastMath".to_string()));
    // TVM runs the three after EliminateCommonSubexpr; they are level 4.
    let at = four
        .iter()
        .position(|n| n == "EliminateCommonSubexpr")
        .unwrap();
    assert_eq!(
        four[at + 1..at + 4],
        [
            "CombineParallelConv2D",
            "CombineParallelDense",
            "CombineParallelBatchMatmul"
        ]
    );
    let zero = names(0);
    assert!(!zero.contains(&"FoldConstant".to_string()) && zero.contains(&"FuseOps".to_string()));
}
