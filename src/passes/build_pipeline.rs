//! `build_pipeline(opt_level)`: the optimization passes TVM v0.18's `relay.build` runs on a
//! module before code generation, as one `Sequential` named `relay.build` whose passes a user
//! can `step` through. The order is `GetPassPrefix` (src/relay/backend/utils.cc, homogeneous
//! target, not the VM) followed by what `OptimizeImpl` (src/relay/backend/build_module.cc)
//! runs after it:
//!
//! RemoveUnusedFunctions(entry_functions=["main"]), SimplifyInference,
//! EliminateCommonSubexpr, CombineParallelConv2D, CombineParallelDense,
//! CombineParallelBatchMatmul (each with `min_num_branches=3`, level 4), FoldConstant,
//! FoldScaleAxis, SimplifyExpr, CanonicalizeCast, CanonicalizeOps,
//! InferType, SimplifyExprPostAlterOp, FastMath, FoldConstant, FuseOps, InferType,
//! InlineGlobals (TVM's `Inline`), InferType.
//!
//! Under a target (`with Target("llvm ...") { build_pipeline(...) }`, what `relay.build(mod,
//! target=...)` runs under) `AlterOpLayout` comes between that InferType and
//! SimplifyExprPostAlterOp, as in TVM; without one it is left out (it would change nothing).
//!
//! Left out, each with its reason: the target-specific passes (`qnn.Legalize`, `Legalize`,
//! `SplitArgs`, `PlanDevices`, `AnnotateMemoryScope`, the auto-scheduler and
//! MetaSchedule layout rewrites), the backend's `LabelOps`, and the passes passlab does not have
//! yet (`ToBasicBlockNormalForm`, `FlattenAtrousConv`). TVM's EliminateCommonSubexpr here gets an `fskip`
//! that means to skip casts to int32 but overwrites its answer with false, so it skips nothing;
//! passlab's runs without skips, the same behaviour.
//!
//! `opt_level` keeps the passes whose own opt_level is at most that (what `relay.build` under
//! `PassContext(opt_level=N)` lets run; FastMath and the CombineParallel passes are level 4),
//! so the value shows what runs. A pass the current context lists in `required_pass` is kept
//! whatever its level, as TVM's Sequential runs a required pass (TVM's
//! `PassContext(opt_level=3, required_pass=["FastMath"])` around `relay.build`).
//! The passes are built through the registry, so a user registration under a standard name is
//! what the pipeline runs, as for `required` lists.

use crate::pass::config::ConfigValue;
use crate::pass::{Pass, PassError, PassInfo, PassKind, PassManager, PassOptions, Sequential};

/// The name of the Sequential [`build_pipeline`] returns.
pub const NAME: &str = "relay.build";

/// The passes in TVM's order: name and options.
fn steps() -> Vec<(&'static str, PassOptions)> {
    let none = PassOptions::new;
    let branches = || PassOptions::new().with("min_num_branches", ConfigValue::Int(3));
    vec![
        (
            "RemoveUnusedFunctions",
            PassOptions::new().with(
                "entry_functions",
                ConfigValue::List(vec![ConfigValue::Str("main".into())]),
            ),
        ),
        ("SimplifyInference", none()),
        ("EliminateCommonSubexpr", none()),
        ("CombineParallelConv2D", branches()),
        ("CombineParallelDense", branches()),
        ("CombineParallelBatchMatmul", branches()),
        ("FoldConstant", none()),
        ("FoldScaleAxis", none()),
        ("SimplifyExpr", none()),
        ("CanonicalizeCast", none()),
        ("CanonicalizeOps", none()),
        ("InferType", none()),
        ("SimplifyExprPostAlterOp", none()),
        ("FastMath", none()),
        ("FoldConstant", none()),
        ("FuseOps", none()),
        ("InferType", none()),
        ("InlineGlobals", none()),
        ("InferType", none()),
    ]
}

/// The `relay.build` pipeline at `opt_level` (see the module documentation).
pub fn build_pipeline(pm: &PassManager, opt_level: i32) -> Result<Pass, PassError> {
    let mut passes = Vec::new();
    let required = pm.current().required_pass();
    let mut steps = steps();
    if pm.target().is_some() {
        let at = steps
            .iter()
            .position(|(n, _)| *n == "SimplifyExprPostAlterOp")
            .expect("the prefix has SimplifyExprPostAlterOp");
        steps.insert(at, ("AlterOpLayout", PassOptions::new()));
    }
    for (name, options) in steps {
        let pass = pm.create(name, &options)?;
        if pass.info().opt_level() <= opt_level || required.iter().any(|r| &**r == name) {
            passes.push(pass);
        }
    }
    let info = PassInfo::with_kind(NAME, 0, &[] as &[&str], PassKind::Sequential);
    Ok(Sequential::with_info(info, passes).into_pass())
}
