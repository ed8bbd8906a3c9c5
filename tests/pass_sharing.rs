//! Passes share what they do not change: a pass with nothing to do returns the very same
//! function node, and a rewrite keeps a DAG a DAG (shared nodes are rewritten once).

use passlab::ir::{visit, Module};
use passlab::passes::{
    canonicalize_ops, dead_code, eliminate_common_subexpr, fold_constant, infer_type,
    simplify_inference, to_graph_normal_form,
};
use passlab::testgen;
use passlab::text::parse_module;

fn model() -> Module {
    let m = parse_module(&testgen::conv_model(20), "conv_model").unwrap();
    infer_type::infer_module(&m).unwrap()
}

fn main_of(m: &Module) -> &passlab::ir::Expr {
    m.get("main").unwrap()
}

#[test]
fn nothing_to_do_returns_the_same_node() {
    let m = model();
    let unchanged: [(&str, Module); 4] = [
        ("FoldConstant", fold_constant::fold_constant(&m)),
        (
            "DeadCodeElimination",
            dead_code::dead_code_elimination(&m, true, false),
        ),
        (
            "EliminateCommonSubexpr",
            eliminate_common_subexpr::eliminate_common_subexpr(&m),
        ),
        (
            "ToGraphNormalForm",
            to_graph_normal_form::to_graph_normal_form(&m),
        ),
    ];
    for (name, out) in unchanged {
        assert!(
            main_of(&out).ptr_eq(main_of(&m)),
            "{name} rebuilt an unchanged function"
        );
    }
}

#[test]
fn rewrites_keep_sharing() {
    let m = model();
    let before = visit::count_nodes(main_of(&m));
    // Each layer's bias_add call becomes an add plus an expand_dims: one more node per layer
    // (op nodes are shared by every call: `add` was already there, `expand_dims` replaces
    // `nn.bias_add`). The residual input, used twice, is still one node, and the parameters
    // shared by every layer appear once.
    let canon = canonicalize_ops::canonicalize_ops(&m);
    assert_eq!(visit::count_nodes(main_of(&canon)), before + 20);
    // batch_norm(...).0 becomes 11 calls (+ op nodes and 2 scalar constants) per layer; the
    // parameters are shared by all layers and appear once.
    let simplified = simplify_inference::simplify_inference(&m);
    let after = visit::count_nodes(main_of(&simplified));
    assert!(after < before + 20 * 30, "{before} -> {after}");
    // Untouched parts are the very same nodes: the first conv2d of both programs.
    let first_conv = |m: &Module| {
        let mut found = None;
        visit::post_order(main_of(m), |e| {
            if found.is_none()
                && e.call_op_of()
                    .is_some_and(|(op, _)| op.name() == "nn.conv2d")
            {
                found = Some(e.clone());
            }
        });
        found.unwrap()
    };
    assert!(first_conv(&simplified).ptr_eq(&first_conv(&m)));
}
