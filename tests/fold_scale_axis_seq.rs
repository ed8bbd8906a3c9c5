//! `FoldScaleAxis` is TVM's `Sequential([BackwardFoldScaleAxis, ForwardFoldScaleAxis,
//! FoldConstant], "FoldScaleAxis")`. FoldConstant is found in the run's registry when the pass
//! runs: these tests register a stand-in under that name and check the whole event log (the
//! Sequential gate, the required InferType runs, the order), and that without one the pass
//! fails naming FoldConstant and FoldScaleAxis.

mod common;

use common::pass_lab::*;
use expect_test::expect;
use passlab::pass::{PassKind, PassOptions};

#[test]
fn runs_backward_forward_then_the_registered_fold_constant() {
    let mut lab = Lab::new();
    // TVM's FoldConstant: a function pass at level 2 (a stand-in that only logs).
    lab.pm.register(
        marker("FoldConstant", 2, &[]),
        "stand-in for the real FoldConstant",
    );
    let pass = lab.pm.create("FoldScaleAxis", &PassOptions::new()).unwrap();
    assert_eq!(pass.kind(), PassKind::Sequential);
    let names: Vec<&str> = pass.children().iter().map(|p| p.name()).collect();
    assert_eq!(names, ["BackwardFoldScaleAxis", "ForwardFoldScaleAxis"]);
    let m = module();
    for level in [3, 2] {
        let c = ctx()
            .opt_level(level)
            .instrument(trace("t"))
            .build()
            .unwrap();
        lab.note(&format!("opt_level {level}"));
        lab.pm.with_context(&c, |pm| pm.run(&pass, &m)).unwrap();
    }
    expect![[r#"
        opt_level 3
        [t] enter_pass_ctx
        [t] should_run FoldScaleAxis
        [t] run_before_pass FoldScaleAxis
        [t] should_run InferType
        [t] run_before_pass InferType
        [t] run_after_pass InferType
        [t] should_run BackwardFoldScaleAxis
        [t] run_before_pass BackwardFoldScaleAxis
        [t] run_after_pass BackwardFoldScaleAxis
        [t] should_run InferType
        [t] run_before_pass InferType
        [t] run_after_pass InferType
        [t] should_run ForwardFoldScaleAxis
        [t] run_before_pass ForwardFoldScaleAxis
        [t] run_after_pass ForwardFoldScaleAxis
        [t] should_run FoldConstant
        [t] run_before_pass FoldConstant
        [body] FoldConstant
        [t] run_after_pass FoldConstant
        [t] run_after_pass FoldScaleAxis
        [t] exit_pass_ctx
        opt_level 2
        [t] enter_pass_ctx
        [t] should_run FoldScaleAxis
        [t] run_before_pass FoldScaleAxis
        [t] should_run FoldConstant
        [t] run_before_pass FoldConstant
        [body] FoldConstant
        [t] run_after_pass FoldConstant
        [t] run_after_pass FoldScaleAxis
        [t] exit_pass_ctx
    "#]]
    .assert_eq(&lab.log());
}

#[test]
fn without_fold_constant_it_fails_naming_both_passes() {
    let lab = Lab::new();
    let pass = lab.pm.create("FoldScaleAxis", &PassOptions::new()).unwrap();
    let result = lab.pm.run(&pass, &module());
    if lab.pm.registry().contains("FoldConstant") {
        // Once the real FoldConstant is registered, the Sequential simply runs.
        result.unwrap();
        return;
    }
    let err = result.unwrap_err().to_string();
    assert!(err.contains("FoldConstant"), "{err}");
    assert!(err.contains("FoldScaleAxis"), "{err}");
}
