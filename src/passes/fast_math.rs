//! FastMath (TVM `src/relay/transforms/fast_math.cc`): replaces `exp`, `erf`, `tanh` and
//! `nn.softmax` with their fast approximations `fast_exp`, `fast_erf`, `fast_tanh` and
//! `nn.fast_softmax` (the softmax keeps its attributes). Registered at opt_level 4, as in TVM,
//! so a `Sequential` under the usual opt_level 3 skips it unless it is required.
//!
//! One post-order mutation per function; the new calls keep the old calls' spans and types
//! (each fast op has its exact op's type rule). Nothing else changes.
//!
//! Where passlab differs from TVM: the reference evaluator computes the fast ops exactly
//! (`fast_exp` as `exp`, ...), where TVM's kernels approximate, so FastMath never changes what
//! `evaluate` or FoldConstant computes.

use crate::ir::mutate::{mutate, rebuild_call, Mutator, Unchanged};
use crate::ir::{Attrs, Call, Expr, ExprKind, Op};

/// Rewrites one function (or any expression).
pub fn fast_math(e: &Expr) -> Expr {
    match e.as_function() {
        Some(f) if f.skips_optimization() => e.clone(),
        _ => mutate(&mut FastMath, e),
    }
}

/// The fast form of an op, if it has one.
fn fast_form(name: &str) -> Option<&'static str> {
    Some(match name {
        "exp" => "fast_exp",
        "erf" => "fast_erf",
        "tanh" => "fast_tanh",
        "nn.softmax" => "nn.fast_softmax",
        _ => return None,
    })
}

struct FastMath;

impl Mutator for FastMath {
    fn call(&mut self, e: &Expr, callee: Expr, args: Vec<Expr>, attrs: &Attrs) -> Expr {
        let fast = e
            .call_op_of()
            .and_then(|(op, _)| fast_form(op.name()))
            .and_then(Op::get);
        let Some(fast) = fast else {
            return rebuild_call(e, callee, args);
        };
        // The exact ops have no attributes except softmax's axis, which fast_softmax shares.
        let attrs = if attrs.is_empty() {
            fast.default_attrs()
        } else {
            attrs.clone()
        };
        let kind = ExprKind::Call(Call {
            callee: Expr::op(fast),
            args: args.into(),
            attrs,
        });
        let rebuilt = Expr::with_info(kind, None, e.span());
        crate::passes::infer_type::with_node_type(rebuilt)
    }

    fn unchanged(&mut self, e: &Expr) -> Unchanged {
        Unchanged::keep_if(
            e.call_op_of()
                .is_none_or(|(op, _)| fast_form(op.name()).is_none()),
        )
    }
}
