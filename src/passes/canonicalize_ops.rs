//! CanonicalizeOps (TVM `src/relay/transforms/canonicalize_ops.cc`, RELAY_PASSES.md A.1):
//! rewrites `nn.bias_add(x, b, axis)` into `add(x, expand_dims(b, axis=1,
//! num_newaxis=ndim-axis-1))` (no `expand_dims` when the axis is the last one), so later
//! layout passes only see broadcasting `add`.
//!
//! Needs the checked type of `x` (run InferType first): a bias_add whose data type is unknown
//! is left unchanged. One post-order mutation per optimizable function; the rewritten `add`
//! has the checked type of the bias_add it replaces, as TVM sets it, and with a typed bias
//! the new `expand_dims` is typed too (`infer_type::typed_call`), so the InferType after this
//! pass rebuilds nothing. Nothing else changes.

use super::simplify_inference::{expand_to_axis, op_call};
use crate::ir::mutate::{mutate, rebuild_call, Mutator, Unchanged};
use crate::ir::{Attrs, Contains, Expr, ExprKind, Module};

/// Canonicalizes `nn.bias_add` in every optimizable function of a typed module.
pub fn canonicalize_ops(m: &Module) -> Module {
    let out: Result<Module, std::convert::Infallible> = m.map_functions(|_, f| {
        Ok(match f.as_function() {
            Some(func) if func.skips_optimization() => f.clone(),
            _ => mutate(&mut Canonicalizer, f),
        })
    });
    match out {
        Ok(m) => m,
        Err(never) => match never {},
    }
}

struct Canonicalizer;

impl Mutator for Canonicalizer {
    // A subtree without a `nn.bias_add` comes out as it is: not walked.
    fn pre(&mut self, e: &Expr) -> Option<Expr> {
        (!e.contains().any(Contains::BIAS_ADD)).then(|| e.clone())
    }

    fn call(&mut self, e: &Expr, callee: Expr, args: Vec<Expr>, attrs: &Attrs) -> Expr {
        let is_bias_add = matches!(callee.kind(), ExprKind::Op(op) if op.name() == "nn.bias_add");
        let ndim = e
            .as_call()
            .and_then(|c| c.args.first())
            .and_then(|x| x.ty())
            .and_then(|t| t.as_tensor())
            .map(|t| t.shape.len());
        if let (true, Some(ndim), [x, b]) = (is_bias_add, ndim, args.as_slice()) {
            let axis = attrs.get_int("axis").unwrap_or(1);
            let axis = if axis < 0 { axis + ndim as i64 } else { axis };
            if (0..ndim as i64).contains(&axis) {
                let bias = expand_to_axis(b.clone(), ndim, axis as usize);
                let add = op_call("add", vec![x.clone(), bias], vec![]);
                // Typed on build when the bias is typed; else the bias_add's type, as TVM sets it.
                return match add.ty() {
                    Some(_) => add,
                    None => add.with_ty(e.ty().cloned()),
                };
            }
        }
        rebuild_call(e, callee, args)
    }

    fn unchanged(&mut self, e: &Expr) -> Unchanged {
        Unchanged::keep_if(
            e.call_op_of()
                .is_none_or(|(op, _)| op.name() != "nn.bias_add"),
        )
    }
}
