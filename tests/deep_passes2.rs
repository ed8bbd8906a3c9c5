//! Every pass of this branch on a million-deep let chain (`testgen::let_chain`), on a thread
//! with a 2 MiB stack: nothing may recurse per node. Each output must be well-formed and
//! type-check again.

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
        let mut pm = PassManager::new();
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
