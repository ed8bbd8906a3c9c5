//! Every pass of this branch, and those relay.build's pipeline adds, on a million-deep let
//! chain (`testgen::let_chain`), on a thread with a 2 MiB stack: nothing may recurse per node.
//! Each output must be well-formed and type-check again.

mod common;

use passlab::ir::{well_formed, Module};
use passlab::pass::{PassContext, PassManager, PassOptions};
use passlab::passes::infer_type::infer_module;
use passlab::testgen::let_chain;
use passlab::text::parse_module;
use std::sync::OnceLock;

const DEPTH: usize = 1_000_000;

/// The chain, parsed and typed once for all tests.
fn chain() -> Module {
    static CHAIN: OnceLock<Module> = OnceLock::new();
    CHAIN
        .get_or_init(|| {
            common::on_small_stack(|| {
                let m = parse_module(&let_chain(DEPTH), "chain").expect("parses");
                infer_module(&m).expect("types")
            })
        })
        .clone()
}

/// Runs the registered pass `name` (with `options`, at opt_level 3) on the typed chain, on a
/// small stack, and checks the output.
fn deep(name: &'static str, options: PassOptions) {
    let m = chain();
    common::on_small_stack(move || {
        let mut pm = PassManager::new(passlab::passes::registry());
        let pass = pm.create(name, &options).expect("registered");
        let ctx = PassContext::builder().opt_level(3).build().unwrap();
        let out = pm
            .with_context(&ctx, |pm| pm.run(&pass, &m))
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        well_formed::check_module(&out).unwrap_or_else(|e| panic!("{name}: {e}"));
        // An unchanged module is the typed chain itself; anything else must type-check again.
        if !out.same_as(&m) {
            infer_module(&out).unwrap_or_else(|e| panic!("{name}: {e}"));
        }
    });
}

#[test]
fn fuse_ops_on_a_million_lets() {
    deep("FuseOps", PassOptions::new().with("fuse_opt_level", 2));
}

#[test]
fn lambda_lift_on_a_million_lets() {
    deep("LambdaLift", PassOptions::new());
}

#[test]
fn inline_globals_on_a_million_lets() {
    deep("InlineGlobals", PassOptions::new());
}

#[test]
fn remove_unused_functions_on_a_million_lets() {
    deep("RemoveUnusedFunctions", PassOptions::new());
}

#[test]
fn backward_fold_scale_axis_on_a_million_lets() {
    deep("BackwardFoldScaleAxis", PassOptions::new());
}

#[test]
fn forward_fold_scale_axis_on_a_million_lets() {
    deep("ForwardFoldScaleAxis", PassOptions::new());
}

#[test]
fn convert_layout_on_a_million_lets() {
    let desired =
        passlab::pass::ConfigValue::Map(vec![("nn.conv2d".into(), vec!["NCHW", "default"].into())]);
    deep(
        "ConvertLayout",
        PassOptions::new().with("desired_layouts", desired),
    );
}

#[test]
fn alter_op_layout_on_a_million_lets() {
    deep("AlterOpLayout", PassOptions::new());
}

/// InlineGlobals on `testgen::inline_chains_model` with 20,000 globals a chain (100,000 ops),
/// on a small stack: the chain whose globals each wrap the next in an `add`, and the chain
/// `@main` calls from each of its 20,000 lines, are inlined; the chain ending in a global that
/// is not marked stays whole. The output is counted op by op and type-checks.
#[test]
fn inline_globals_on_long_chains() {
    const COUNT: usize = 20_000;
    common::on_small_stack(|| {
        let text = passlab::testgen::inline_chains_model(COUNT);
        let m = infer_module(&parse_module(&text, "chains").expect("parses")).expect("types");
        let pm = PassManager::new(passlab::passes::registry());
        let pass = pm.create("InlineGlobals", &PassOptions::new()).unwrap();
        let out = pm.run(&pass, &m).unwrap();
        well_formed::check_module(&out).unwrap();
        let names: Vec<&str> = out.names();
        assert_eq!(names.len(), COUNT + 1);
        assert!(names.iter().all(|n| *n == "main" || n.starts_with('b')));
        let (mut adds, mut relus, mut calls) = (0, 0, 0);
        passlab::ir::visit::each_node(out.get("main").unwrap(), |e| match e.call_op_of() {
            Some((op, _)) if op.name() == "add" => adds += 1,
            Some((op, _)) if op.name() == "nn.relu" => relus += 1,
            Some(_) => {}
            None => calls += usize::from(e.as_call().is_some()),
        });
        // @a's adds, @a0's relu and one per call of @c; the one call of @b.
        assert_eq!((adds, relus, calls), (COUNT - 1, COUNT + 1, 1));
        infer_module(&out).unwrap();
    });
}

/// 100,000 globals each calling the one before (`@f0` adds 1), `@main` calling the last: one
/// add is left.
#[test]
fn inline_globals_on_a_hundred_thousand_calls() {
    const COUNT: usize = 100_000;
    common::on_small_stack(|| {
        let mut text =
            "#[version = \"0.0.5\"]\ndef @f0(%x: int32, Inline=1) { add(%x, 1) }\n".to_string();
        for i in 1..COUNT {
            text += &format!("def @f{i}(%x: int32, Inline=1) {{ @f{}(%x) }}\n", i - 1);
        }
        text += &format!("def @main(%y: int32) {{ @f{}(%y) }}\n", COUNT - 1);
        let m = parse_module(&text, "calls").expect("parses");
        let pm = PassManager::new(passlab::passes::registry());
        let pass = pm.create("InlineGlobals", &PassOptions::new()).unwrap();
        let out = pm.run(&pass, &m).unwrap();
        assert_eq!(out.names(), vec!["main"]);
        let printed = passlab::text::print_module(&out);
        assert!(
            printed.contains("def @main(%y: int32) {\n  add(%y, 1)\n}"),
            "{printed}"
        );
    });
}

#[test]
fn simplify_expr_on_a_million_lets() {
    deep("SimplifyExpr", PassOptions::new());
}

#[test]
fn simplify_expr_post_alter_op_on_a_million_lets() {
    deep("SimplifyExprPostAlterOp", PassOptions::new());
}

#[test]
fn canonicalize_cast_on_a_million_lets() {
    deep("CanonicalizeCast", PassOptions::new());
}

#[test]
fn fast_math_on_a_million_lets() {
    deep("FastMath", PassOptions::new());
}

#[test]
fn combine_parallel_conv2d_on_a_million_lets() {
    deep("CombineParallelConv2D", PassOptions::new());
}

#[test]
fn combine_parallel_dense_on_a_million_lets() {
    deep("CombineParallelDense", PassOptions::new());
}

#[test]
fn combine_parallel_batch_matmul_on_a_million_lets() {
    deep("CombineParallelBatchMatmul", PassOptions::new());
}

#[test]
fn annotate_spans_on_a_million_lets() {
    deep("AnnotateSpans", PassOptions::new());
}

/// SimplifyExpr on a million nested calls in graph form (no lets), each a rewrite of the one
/// inside it: `x + 1 + 1 + ...` folds, innermost first, into `x + 1000000`.
#[test]
fn simplify_expr_on_a_million_nested_rewrites() {
    use std::fmt::Write;
    common::on_small_stack(|| {
        let n = DEPTH;
        let mut text = String::with_capacity(n * 24);
        text.push_str(
            "#[version = \"0.0.5\"]\ndef @main(%x: float32) -> float32 {\n  %0 = add(%x, 1f);\n",
        );
        for i in 1..n {
            let _ = writeln!(text, "  %{i} = add(%{}, 1f);", i - 1);
        }
        let _ = writeln!(text, "  %{}\n}}", n - 1);
        let m = infer_module(&parse_module(&text, "adds").expect("parses")).expect("types");
        let mut pm = PassManager::new(passlab::passes::registry());
        let pass = pm.create("SimplifyExpr", &PassOptions::new()).unwrap();
        let ctx = PassContext::builder().opt_level(3).build().unwrap();
        let out = pm.with_context(&ctx, |pm| pm.run(&pass, &m)).unwrap();
        let want = parse_module(
            "#[version = \"0.0.5\"]\ndef @main(%x: float32) -> float32 { add(%x, 1000000f) }",
            "want",
        )
        .unwrap();
        assert!(passlab::ir::module_equal(&out, &want, true));
    });
}
