//! Types on build (`passes::infer_type::{call_type, node_type}`): a node a pass builds gets
//! exactly the type InferType would give it, so the InferType after the pass keeps it (and
//! its ancestors) instead of rebuilding the graph.
//!
//! - On every call, tuple and projection of every corpus program and golden input, the type
//!   computed from the children's checked types equals the checked type InferType gave the
//!   node (whenever it is computed at all).
//! - The rewriting passes (SimplifyInference, CanonicalizeOps, session rewrite rules) produce
//!   nodes whose types agree with re-inference, node by node, and on the conv model the
//!   re-inference rebuilds nothing (the very same function node comes back).

mod common;

use passlab::ir::{visit, Expr, ExprKind, Module};
use passlab::passes::infer_type::{infer_module, node_type};
use passlab::passes::{canonicalize_ops, simplify_inference};
use passlab::session::rewrite::{apply, Rule};
use passlab::testgen;
use passlab::text::parse_module;
use rustc_hash::FxHashSet;
use std::path::Path;

/// The input sections of the golden pass cases (`tests/relay/<pass>/*.relay`).
fn golden_inputs() -> Vec<(String, String)> {
    let mut out = Vec::new();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/relay");
    let mut dirs: Vec<_> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    for dir in dirs {
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "relay"))
            .collect();
        files.sort();
        for p in files {
            let text = std::fs::read_to_string(&p).unwrap();
            let input = text.split("// expected:").next().unwrap().to_string();
            out.push((p.file_name().unwrap().to_string_lossy().into_owned(), input));
        }
    }
    out
}

/// Every program that parses and type-checks, typed.
fn typed_programs() -> Vec<(String, Module)> {
    let mut out = Vec::new();
    for (name, text) in common::corpus_files().into_iter().chain(golden_inputs()) {
        let Ok(m) = parse_module(&text, &name) else {
            continue;
        };
        if let Ok(typed) = infer_module(&m) {
            out.push((name, typed));
        }
    }
    out.push((
        "conv_model(3)".into(),
        infer_module(&parse_module(&testgen::conv_model(3), "conv").unwrap()).unwrap(),
    ));
    out
}

#[test]
fn the_type_on_build_of_every_node_is_the_inferred_type() {
    let (mut computed, mut nodes) = (0, 0);
    for (name, m) in typed_programs() {
        for (_, f) in m.functions() {
            visit::post_order(f, |e| {
                if !matches!(
                    e.kind(),
                    ExprKind::Call(_) | ExprKind::Tuple(_) | ExprKind::TupleGetItem(..)
                ) {
                    return;
                }
                nodes += 1;
                if let Some(t) = node_type(e.kind()) {
                    computed += 1;
                    assert_eq!(
                        Some(&t),
                        e.ty(),
                        "{name}: the type on build of {} differs from the inferred one",
                        passlab::text::print_expr(e, Default::default())
                    );
                }
            });
        }
    }
    // Most nodes are calls of ops with a type rule over typed arguments.
    assert!(computed * 10 >= nodes * 8, "{computed} of {nodes} computed");
}

/// Every node of `built` that carries a type has the type the same node of `inferred` (the
/// same program, re-inferred) has. Both are walked in lockstep.
fn types_agree(name: &str, built: &Expr, inferred: &Expr) -> usize {
    let mut typed = 0;
    let mut seen = FxHashSet::default();
    let mut stack = vec![(built.clone(), inferred.clone())];
    while let Some((a, b)) = stack.pop() {
        if !seen.insert(a.id()) {
            continue;
        }
        if let Some(t) = a.ty() {
            typed += 1;
            assert_eq!(
                Some(t),
                b.ty(),
                "{name}: {} was built with another type than InferType gives it",
                passlab::text::print_expr(&a, Default::default())
            );
        }
        let (ka, kb) = (a.children(), b.children());
        assert_eq!(ka.len(), kb.len(), "{name}: re-inference changed the shape");
        stack.extend(ka.into_iter().cloned().zip(kb.into_iter().cloned()));
    }
    typed
}

/// Runs `pass` on the typed `m`, checks the built types against re-inference and returns
/// whether re-inference kept every function as it is.
fn check_pass(name: &str, m: &Module, pass: impl Fn(&Module) -> Module) -> bool {
    let out = pass(m);
    let again = infer_module(&out).unwrap_or_else(|e| panic!("{name}: {e}"));
    let mut kept = true;
    for ((_, a), (_, b)) in out.functions().zip(again.functions()) {
        types_agree(name, a, b);
        kept &= a.ptr_eq(b);
    }
    kept
}

type PassFn = fn(&Module) -> Module;

#[test]
fn rewriting_passes_build_nodes_infer_type_keeps() {
    let passes: [(&str, PassFn); 2] = [
        ("SimplifyInference", simplify_inference::simplify_inference),
        ("CanonicalizeOps", canonicalize_ops::canonicalize_ops),
    ];
    let programs = typed_programs();
    assert!(programs.len() > 80, "{} typed programs", programs.len());
    for (name, m) in programs {
        for (pass, f) in passes {
            let kept = check_pass(&format!("{name} / {pass}"), &m, f);
            assert!(kept, "{name}: InferType after {pass} rebuilt nodes");
        }
    }
}

#[test]
fn rewrite_rules_build_typed_nodes() {
    let m = infer_module(&parse_module(&testgen::conv_model(4), "conv").unwrap()).unwrap();
    let rules = [
        "nn.relu(?x) => nn.leaky_relu(?x)",
        // A constant in the replacement, typed when the rule is parsed.
        "nn.relu(?x) => maximum(?x, 0f)",
        // Tuples and projections.
        "nn.relu(?x) => (nn.relu(?x), ?x).0",
        // A result of another shape: the rebuilt parents are retyped from their children.
        "nn.relu(?x) => sum(?x, axis=[1], keepdims=True)",
    ];
    for text in rules {
        let rule = [Rule::parse(text).unwrap()];
        let out = m.map_functions(|_, f| apply(&rule, f)).unwrap();
        assert!(!out.same_as(&m), "{text}: the rule did not fire");
        let kept = check_pass(text, &m, |_| out.clone());
        assert!(kept, "{text}: InferType after the rewrite rebuilt nodes");
    }
}

#[test]
fn rewrite_rules_leave_an_untyped_function_untyped() {
    let m = parse_module(&testgen::conv_model(2), "conv").unwrap();
    for text in [
        "nn.relu(?x) => maximum(?x, 0f)",
        "nn.relu(?x) => (nn.relu(?x), 1f).0",
    ] {
        let rule = [Rule::parse(text).unwrap()];
        let f = apply(&rule, m.get("main").unwrap()).unwrap();
        assert!(!f.ptr_eq(m.get("main").unwrap()), "{text}: did not fire");
        visit::post_order(&f, |e| {
            assert!(e.ty().is_none(), "{text}: a node got a type");
        });
    }
}
