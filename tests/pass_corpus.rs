//! The passes reproduce TVM's own before/after pairs from the shared corpus (read in place from
//! `../shared/corpus/relay`, never copied): DeadCodeElimination on the `dce_*` pairs,
//! FoldConstant and EliminateCommonSubexpr on the pass-infra tutorial, SimplifyInference on
//! glenside's MobileNet.
//!
//! The tutorial's `meta[relay.Constant][i]` are (1, 64, 54, 54) float32 tensors whose data the
//! docs do not include, so an opaque constant could not be folded. The test gives them data:
//! the input is parsed with a metadata table holding a deterministic tensor `c` for
//! `meta[relay.Constant][0]`; the expected program is parsed with a table holding, in the
//! printed order, the folded `(c + c) * 2` (computed here in f32, independently of the pass)
//! and `c` itself. Structural equality then checks both the program and the folded data.

mod common;

use passlab::ir::{module_equal, well_formed, DType, Module, TensorData};
use passlab::passes::{
    dead_code, eliminate_common_subexpr, fold_constant, infer_type, simplify_inference,
};
use passlab::text::metadata::MetaTable;
use passlab::text::{parse_module, parse_module_with_meta, print_module_with, PrintOptions};
use std::sync::Arc;

fn read(name: &str) -> String {
    std::fs::read_to_string(common::corpus_dir().join(name))
        .unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn parse(name: &str) -> Module {
    parse_module(&read(name), name).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn show(m: &Module) -> String {
    print_module_with(
        m,
        PrintOptions {
            types: false,
            header: false,
            metadata: false,
        },
    )
}

/// Both modules re-typed when they type-check (TVM's pipelines end with InferType), then
/// compared with free variables mapped, as the TVM tests do.
fn assert_same(actual: &Module, expected: &Module, what: &str) {
    well_formed::check_module(actual).unwrap_or_else(|e| panic!("{what}: not well-formed: {e}"));
    let (a, e) = match (
        infer_type::infer_module(actual),
        infer_type::infer_module(expected),
    ) {
        (Ok(a), Ok(e)) => (a, e),
        _ => (actual.clone(), expected.clone()),
    };
    assert!(
        module_equal(&a, &e, true),
        "{what}: output differs\n--- actual:\n{}\n--- expected:\n{}",
        show(&a),
        show(&e)
    );
}

#[test]
fn dead_code_pairs() {
    for (stem, inline_once) in [
        ("dce_add_with_let", false),
        ("dce_dead_recursion", false),
        ("dce_one_live_let", false),
        ("dce_inline_into_function", true),
    ] {
        let before = parse(&format!("{stem}.before.relay"));
        let after = parse(&format!("{stem}.after.relay"));
        let out = dead_code::dead_code_elimination(&before, inline_once, false);
        assert_same(&out, &after, stem);
    }
}

/// The deterministic stand-in for the tutorial's constant.
fn tutorial_constant() -> TensorData {
    let n = 64 * 54 * 54;
    let v: Vec<f64> = (0..n)
        .map(|i| ((i * 37 % 1000) as f32 / 100.0 - 5.0) as f64)
        .collect();
    TensorData::from_f64(DType::FLOAT32, vec![1, 64, 54, 54], &v)
}

fn table(constants: Vec<TensorData>) -> MetaTable {
    MetaTable {
        constants: constants.into_iter().map(|t| Some(Arc::new(t))).collect(),
        ..Default::default()
    }
}

fn with_header(name: &str) -> String {
    // The tutorial's dumps are printed without the version header.
    format!("#[version = \"0.0.5\"]\n{}", read(name))
}

fn folded_expected() -> TensorData {
    let c = tutorial_constant();
    let v: Vec<f64> = c
        .to_f64_vec()
        .iter()
        .map(|&x| {
            let x = x as f32;
            ((x + x) * 2.0f32) as f64
        })
        .collect();
    TensorData::from_f64(DType::FLOAT32, c.shape.clone(), &v)
}

fn tutorial(name: &str, constants: Vec<TensorData>) -> Module {
    parse_module_with_meta(&with_header(name), name, Some(&table(constants)))
        .unwrap_or_else(|e| panic!("{name}: {e}"))
}

#[test]
fn fold_constant_tutorial() {
    let input = tutorial("pass_infra_example.input.relay", vec![tutorial_constant()]);
    let expected = tutorial(
        "pass_infra_example.fold_constant.relay",
        vec![folded_expected(), tutorial_constant()],
    );
    let out = fold_constant::fold_constant(&input);
    assert_same(&out, &expected, "pass_infra_example.fold_constant");
    // Without data the constant cannot be evaluated: the program is left as it is.
    let opaque = parse_module(&with_header("pass_infra_example.input.relay"), "opaque").unwrap();
    let same = fold_constant::fold_constant(&opaque);
    assert!(module_equal(&same, &opaque, false));
}

#[test]
fn eliminate_common_subexpr_tutorial() {
    let constants = || vec![folded_expected(), tutorial_constant()];
    let input = tutorial("pass_infra_example.fold_constant.relay", constants());
    let expected = tutorial("pass_infra_example.ecse.relay", constants());
    let out = eliminate_common_subexpr::eliminate_common_subexpr(&input);
    assert_same(&out, &expected, "pass_infra_example.ecse");
}

#[test]
fn simplify_inference_mobilenet() {
    let input = infer_type::infer_module(&parse("glenside_mobilenet.relay"))
        .expect("mobilenet type-checks");
    let expected = parse("glenside_mobilenet_simplified.relay");
    let out = simplify_inference::simplify_inference(&input);
    assert_same(&out, &expected, "glenside_mobilenet_simplified");
}
