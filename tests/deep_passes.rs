//! Every pass is stack-safe: a 1,000,000-deep let chain (`let %x1 = add(%x0, 1f); ...`) goes
//! through each pass on a thread with a 2 MiB stack, and the output is well-formed. The chain
//! is parsed (and typed, for the passes that need types) once per test.

mod common;

use passlab::ir::{visit, well_formed, Module};
use passlab::passes::{
    canonicalize_ops, dead_code, eliminate_common_subexpr, fold_constant, infer_type,
    simplify_inference, to_a_normal_form, to_graph_normal_form,
};
use passlab::testgen;
use passlab::text::parse_module;

const DEPTH: usize = 1_000_000;

fn chain(typed: bool) -> Module {
    let m = parse_module(&testgen::let_chain(DEPTH), "chain").expect("the chain parses");
    if typed {
        infer_type::infer_module(&m).expect("the chain type-checks")
    } else {
        m
    }
}

fn nodes(m: &Module) -> usize {
    visit::count_nodes(m.get("main").unwrap())
}

/// A pass under test.
type PassFn = fn(&Module) -> Module;

/// Runs every pass over one parse of the chain on a small stack (parsing a million lets is
/// the expensive part); returns the node count of each output.
fn deep(typed: bool, passes: Vec<(&'static str, PassFn)>) -> Vec<(&'static str, usize)> {
    common::on_small_stack(move || {
        let m = chain(typed);
        passes
            .into_iter()
            .map(|(name, pass)| {
                let out = pass(&m);
                well_formed::check_module(&out).unwrap_or_else(|e| panic!("{name}: {e}"));
                (name, nodes(&out))
            })
            .collect()
    })
}

#[test]
fn untyped_passes_on_a_million_deep_let_chain() {
    let counts = deep(
        false,
        vec![
            ("FoldConstant", fold_constant::fold_constant),
            ("DeadCodeElimination", |m| {
                dead_code::dead_code_elimination(m, false, false)
            }),
            ("DeadCodeElimination(inline_once)", |m| {
                dead_code::dead_code_elimination(m, true, false)
            }),
            (
                "EliminateCommonSubexpr",
                eliminate_common_subexpr::eliminate_common_subexpr,
            ),
            ("ToANormalForm", to_a_normal_form::to_a_normal_form),
            (
                "ToGraphNormalForm",
                to_graph_normal_form::to_graph_normal_form,
            ),
        ],
    );
    for (name, n) in counts {
        match name {
            // With inline_once every single-use binding is inlined; GNF removes every let.
            "DeadCodeElimination(inline_once)" | "ToGraphNormalForm" => {
                assert!(n < 4 * DEPTH, "{name}: {n}")
            }
            _ => assert!(n >= 4 * DEPTH, "{name}: {n}"),
        }
    }
}

#[test]
fn typed_passes_on_a_million_deep_let_chain() {
    let counts = deep(
        true,
        vec![
            ("SimplifyInference", simplify_inference::simplify_inference),
            ("CanonicalizeOps", canonicalize_ops::canonicalize_ops),
            ("FoldConstant", fold_constant::fold_constant),
        ],
    );
    for (name, n) in counts {
        assert!(n >= 4 * DEPTH, "{name}: {n}");
    }
}

/// EliminateCommonSubexpr finds candidates by hashing, not by scanning earlier calls of the
/// same op: 102,000 calls (a third of them duplicates) are handled at once.
#[test]
fn eliminate_common_subexpr_on_100k_calls() {
    use std::fmt::Write;
    let n = 34_000;
    let mut s = String::from("#[version = \"0.0.5\"]\ndef @main(%x: float32) {\n");
    let mut prev = "%x".to_string();
    for i in 0..n {
        let (a, b, c) = (3 * i, 3 * i + 1, 3 * i + 2);
        let _ = writeln!(
            s,
            "  %{a} = add({prev}, 1f);\n  %{b} = add({prev}, 1f);\n  %{c} = multiply(%{a}, %{b});"
        );
        prev = format!("%{c}");
    }
    let _ = writeln!(s, "  {prev}\n}}");
    let m = parse_module(&s, "wide").unwrap();
    let out = eliminate_common_subexpr::eliminate_common_subexpr(&m);
    well_formed::check_module(&out).unwrap();
    let calls = |m: &Module| {
        let mut k = 0;
        visit::post_order(m.get("main").unwrap(), |e| {
            k += e.as_call().is_some() as usize
        });
        k
    };
    assert_eq!(calls(&m), 3 * n);
    assert_eq!(calls(&out), 2 * n);
}
