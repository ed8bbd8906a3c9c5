//! DynamicToStatic (TVM `src/relay/transforms/dynamic_to_static.cc`): a `dyn.*` call whose
//! shape, axis, count or scale arguments are constants becomes the static op with those values
//! as attributes (`dyn.reshape(%x, [8, 3])` => `reshape(%x, newshape=[8, 3])`). Like TVM's
//! pass, it first types the function and folds constants, so that arguments such as
//! `shape_of(%y)` of a statically shaped `%y` become constants, and the function comes out
//! folded.
//!
//! The ops and what must be constant (TVM's table): `dyn.reshape`, `dyn.squeeze`, `dyn.tile`,
//! `dyn.broadcast_to` and `dyn.full` (the 1-D shape / axes / reps); `dyn.topk` (`k`);
//! `dyn.zeros`/`dyn.ones` (the shape); `dyn.one_hot` (`depth`); `dyn.image.resize2d` (`size`
//! and `roi`); `dyn.nn.upsampling`/`dyn.nn.upsampling3d` (the 0-d scales); `dyn.nn.pad` (the
//! 2-D `pad_width` and the 0-d pad value); `dyn.strided_slice` (`begin`, `end`, `strides`);
//! `dyn.sparse_to_dense` (`output_shape`). The static call is built by
//! [`crate::eval::dynamic::static_form`], the function the evaluator runs `dyn.*` ops through,
//! so the rewritten program computes what the dynamic one did. `dyn.expand_dims` is not
//! rewritten (TVM's pass has no rule for it).
//!
//! One memoizing post-order walk per function, FoldConstant's ([`super::fold_constant`]) with
//! the rewrite added: each call's arguments are folded and rewritten before the call, and
//! every rebuilt node is typed on build, so a chain (`reshape(reshape(%x, shape_of(%y)),
//! shape_of(%0))`) turns static in the one walk. Linear and stack-safe.
//!
//! Where passlab differs from TVM: `dyn.reshape(..., allowzero=True)` keeps `allowzero` in
//! its static form (TVM's rewrite drops it, so a 0 in the shape would copy the input's extent
//! instead of making an empty axis). TVM folds and re-types the whole function again before
//! each `dyn.*` call it looks at (quadratic in the number of such calls); passlab's single walk
//! reaches the same program on TVM's tests. A let-bound variable keeps the type it had before
//! the pass, so `shape_of` of a let variable whose value only became static in this pass does
//! not fold here (TVM's re-typing of the whole function does fold it); a second application
//! of the pass does.

use crate::eval::dynamic::{deciding_args, static_form};
use crate::eval::Value;
use crate::ir::{Attrs, Call, Expr, ExprKind, GlobalVar, Module, Span};
use crate::passes::infer_type::{call_type, infer_expr, infer_module_partial, TypeError};

/// DynamicToStatic on one function of `m` (typed against `m`'s globals first).
pub fn dynamic_to_static(g: &GlobalVar, f: &Expr, m: &Module) -> Result<Expr, TypeError> {
    if f.as_function().is_some_and(|f| f.skips_optimization()) {
        return Ok(f.clone());
    }
    // TVM's order: fold, type, then fold again with the rewrite (an `if` on a constant
    // condition is gone before typing, as in TVM's test of it).
    let folded = super::fold_constant::fold_expr(f);
    // Nothing to rewrite and nothing folded: the function as it was (not re-typed).
    if folded.ptr_eq(f) && !has_dyn_call(f) {
        return Ok(f.clone());
    }
    let typed = match infer_expr(&folded, Some(m)) {
        Ok(typed) => typed,
        // A call whose type needs a shape that only folding gives (a `dyn.full` of a
        // `dyn.strided_slice` of `shape_of`): type what can be typed, rewrite, and leave the
        // rest to the InferType after the pass (TVM folds such a function before typing it).
        Err(e) => partially_typed(g, &folded, m).ok_or(e)?,
    };
    Ok(super::fold_constant::fold_expr_dyn_to_static(&typed))
}

/// Whether `e` calls a `dyn.*` op that the pass rewrites.
fn has_dyn_call(e: &Expr) -> bool {
    let mut found = false;
    crate::ir::visit::each_node(e, |n| {
        found |= n
            .call_op_of()
            .is_some_and(|(op, _)| deciding_args(op.name()).is_some());
    });
    found
}

/// `f` with every node typed that can be, in a copy of `m` where `@g` is `f`; `None` when
/// even that fails (an error outside the function's calls).
fn partially_typed(g: &GlobalVar, f: &Expr, m: &Module) -> Option<Expr> {
    let mut one = m.clone();
    one.update(g.name(), f.clone()).ok()?;
    let (typed, _) = infer_module_partial(&one).ok()?;
    typed.get(g.name()).cloned()
}

/// The static call for `callee(args)` when it is a `dyn.*` op whose deciding arguments are
/// constants with data; `None` otherwise.
pub(crate) fn rewrite_call(
    callee: &Expr,
    args: &[Expr],
    attrs: &Attrs,
    span: Span,
) -> Option<Expr> {
    let ExprKind::Op(op) = callee.kind() else {
        return None;
    };
    let deciding = deciding_args(op.name())?;
    let mut values: Vec<Option<Value>> = vec![None; args.len()];
    for &i in deciding {
        let data = args.get(i)?.as_constant()?.data.as_ref()?;
        values[i] = Some(Value::from_data(data)?);
    }
    let consts: Vec<Option<&Value>> = values.iter().map(Option::as_ref).collect();
    let form = static_form(op.name(), attrs, &consts)?;
    let kept: Vec<Expr> = form.args.iter().map(|&i| args[i].clone()).collect();
    let ty = call_type(form.op, &form.attrs, &kept);
    Some(Expr::with_info(
        ExprKind::Call(Call {
            callee: Expr::op(form.op),
            args: kept.into(),
            attrs: form.attrs,
        }),
        ty,
        span,
    ))
}
