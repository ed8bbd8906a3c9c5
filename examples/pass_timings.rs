//! Times each standard pass on a generated ResNet-like model (`testgen::conv_model`, about six
//! bindings per layer), typed first as the passes expect.
//! Run: `cargo run --release --example pass_timings -- 1000 10000` (layer counts; default 100).

use passlab::ir::{visit, well_formed, Module};
use passlab::passes::{
    canonicalize_ops, dead_code, eliminate_common_subexpr, fold_constant, infer_type,
    simplify_inference, to_a_normal_form, to_graph_normal_form,
};
use passlab::testgen;
use passlab::text::parse_module;
use std::time::Instant;

/// A pass as the timing table runs it.
type PassFn = fn(&Module) -> Module;

fn time<T>(f: impl FnOnce() -> T) -> (T, f64) {
    let t = Instant::now();
    let out = f();
    (out, t.elapsed().as_secs_f64() * 1e3)
}

fn run(layers: usize) {
    let text = testgen::conv_model(layers);
    let (m, parse_ms) = time(|| parse_module(&text, "conv_model").expect("parses"));
    let (typed, infer_ms) = time(|| infer_type::infer_module(&m).expect("type-checks"));
    let nodes = visit::count_nodes(typed.get("main").unwrap());
    println!(
        "conv_model({layers}): {nodes} nodes; parse {parse_ms:.1} ms, InferType {infer_ms:.1} ms"
    );
    let anf = to_a_normal_form::to_a_normal_form(&typed);
    let passes: Vec<(&str, &Module, PassFn)> = vec![
        ("FoldConstant", &typed, fold_constant::fold_constant),
        ("DeadCodeElimination", &typed, |m| {
            dead_code::dead_code_elimination(m, false, false)
        }),
        ("DeadCodeElimination (ANF input)", &anf, |m| {
            dead_code::dead_code_elimination(m, true, false)
        }),
        (
            "EliminateCommonSubexpr",
            &typed,
            eliminate_common_subexpr::eliminate_common_subexpr,
        ),
        ("ToANormalForm", &typed, to_a_normal_form::to_a_normal_form),
        (
            "ToGraphNormalForm (ANF input)",
            &anf,
            to_graph_normal_form::to_graph_normal_form,
        ),
        (
            "SimplifyInference",
            &typed,
            simplify_inference::simplify_inference,
        ),
        (
            "CanonicalizeOps",
            &typed,
            canonicalize_ops::canonicalize_ops,
        ),
    ];
    for (name, input, pass) in passes {
        let (out, ms) = time(|| pass(input));
        well_formed::check_module(&out).expect("well-formed output");
        let n = visit::count_nodes(out.get("main").unwrap());
        println!("  {name:<34} {ms:>9.1} ms   ({n} nodes out)");
    }
}

fn main() {
    let sizes: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    for layers in if sizes.is_empty() { vec![100] } else { sizes } {
        run(layers);
    }
}
