//! The registry's constructors for the standard passes: each wraps a pure function of
//! `passes/` as a module or function pass with TVM's name, kind, opt_level and options. Function
//! passes go through the pass manager's per-function loop (which applies the skip rules of
//! SEMANTICS.md §7), so the pure functions are called one function at a time.

use super::{
    annotate_spans, canonicalize_cast, canonicalize_ops, dead_code, dynamic_to_static,
    eliminate_common_subexpr, fast_math, fold_constant, simplify_expr, simplify_inference,
    to_a_normal_form, to_graph_normal_form,
};
use crate::ir::{Expr, GlobalVar, Module};
use crate::pass::{leaf_function_pass, module_pass, Pass, PassError, PassOptions};

use super::builtin_info as info;

/// Runs a module-level function on a module holding just `f` (bound to `g`).
fn one_function(g: &GlobalVar, f: &Expr, run: fn(&Module) -> Module) -> Result<Expr, PassError> {
    let mut single = Module::new();
    single
        .update(g.name(), f.clone())
        .map_err(|e| PassError::failed(e.to_string()))?;
    let out = run(&single);
    out.get(g.name())
        .cloned()
        .ok_or_else(|| PassError::failed(format!("the pass removed @{}", g.name())))
}

pub fn fold_constant(options: &PassOptions) -> Result<Pass, PassError> {
    let fold_qnn = options.get_bool("fold_qnn").unwrap_or(false);
    Ok(leaf_function_pass(
        info("FoldConstant"),
        move |_, f, _, _| Ok(fold_constant::fold_expr_with(f, fold_qnn)),
    ))
}

pub fn dynamic_to_static(_: &PassOptions) -> Result<Pass, PassError> {
    Ok(leaf_function_pass(
        info("DynamicToStatic"),
        |g, f, m, cx| match dynamic_to_static::dynamic_to_static(g, f, m) {
            Ok(out) => Ok(out),
            Err(e) => {
                let mut d = crate::pass::PassDiagnostic::error(e.message.clone());
                d.span = e.span;
                d.function = e.function.clone();
                cx.report(d);
                Ok(f.clone())
            }
        },
    ))
}

pub fn dead_code_elimination(options: &PassOptions) -> Result<Pass, PassError> {
    let inline_once = options.get_bool("inline_once").unwrap_or(false);
    let ignore_impurity = options.get_bool("ignore_impurity").unwrap_or(false);
    Ok(module_pass(info("DeadCodeElimination"), move |m, cx| {
        Ok(dead_code::dead_code_elimination_on(
            m,
            inline_once,
            ignore_impurity,
            super::infer_type::threads_for(m, cx)?,
        ))
    }))
}

pub fn eliminate_common_subexpr(options: &PassOptions) -> Result<Pass, PassError> {
    let skip_ops: Vec<std::sync::Arc<str>> = options
        .get_strs("skip_ops")
        .unwrap_or_default()
        .into_iter()
        .map(|name| {
            crate::ir::Op::lookup(&name)
                .map(|op| std::sync::Arc::from(op.name()))
                .map_err(|e| {
                    PassError::failed(format!("EliminateCommonSubexpr(skip_ops=...): {e}"))
                })
        })
        .collect::<Result<_, _>>()?;
    Ok(leaf_function_pass(
        info("EliminateCommonSubexpr"),
        move |_, f, _, _| {
            Ok(eliminate_common_subexpr::eliminate_expr_skipping(
                f, &skip_ops,
            ))
        },
    ))
}

pub fn simplify_expr(_: &PassOptions) -> Result<Pass, PassError> {
    Ok(leaf_function_pass(info("SimplifyExpr"), |_, f, _, _| {
        Ok(simplify_expr::simplify_expr(f, simplify_expr::Mode::Full))
    }))
}

pub fn simplify_expr_post_alter_op(_: &PassOptions) -> Result<Pass, PassError> {
    Ok(leaf_function_pass(
        info("SimplifyExprPostAlterOp"),
        |_, f, _, _| {
            Ok(simplify_expr::simplify_expr(
                f,
                simplify_expr::Mode::PostAlterOp,
            ))
        },
    ))
}

pub fn fast_math(_: &PassOptions) -> Result<Pass, PassError> {
    Ok(leaf_function_pass(info("FastMath"), |_, f, _, _| {
        Ok(fast_math::fast_math(f))
    }))
}

pub fn to_a_normal_form(_: &PassOptions) -> Result<Pass, PassError> {
    Ok(module_pass(info("ToANormalForm"), |m, _| {
        Ok(to_a_normal_form::to_a_normal_form(m))
    }))
}

pub fn to_graph_normal_form(_: &PassOptions) -> Result<Pass, PassError> {
    Ok(leaf_function_pass(
        info("ToGraphNormalForm"),
        |_, f, _, _| Ok(to_graph_normal_form::to_graph_expr(f)),
    ))
}

pub fn simplify_inference(_: &PassOptions) -> Result<Pass, PassError> {
    Ok(leaf_function_pass(
        info("SimplifyInference"),
        |g, f, _, _| one_function(g, f, simplify_inference::simplify_inference),
    ))
}

pub fn canonicalize_ops(_: &PassOptions) -> Result<Pass, PassError> {
    Ok(leaf_function_pass(info("CanonicalizeOps"), |g, f, _, _| {
        one_function(g, f, canonicalize_ops::canonicalize_ops)
    }))
}

pub fn canonicalize_cast(_: &PassOptions) -> Result<Pass, PassError> {
    Ok(leaf_function_pass(
        info("CanonicalizeCast"),
        |_, f, _, _| Ok(canonicalize_cast::canonicalize_cast(f)),
    ))
}

pub fn annotate_spans(_: &PassOptions) -> Result<Pass, PassError> {
    Ok(module_pass(info("AnnotateSpans"), |m, _| {
        annotate_spans::annotate_spans(m)
    }))
}
