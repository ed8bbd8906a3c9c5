//! CanonicalizeCast (TVM `src/relay/transforms/canonicalize_cast.cc`): an upcast (`cast` to a
//! dtype of more bits than its operand's) used by several elementwise or broadcast calls is
//! copied, one copy per such use after the first, so that FuseOps can fuse each copy into its
//! consumer and the function before it returns the narrower tensor.
//!
//! One post-order mutation per function. A use counts when the consumer's op pattern is
//! elementwise or broadcast; the consumer that comes first in evaluation order keeps the cast
//! node itself (a consumer of another kind, a conv2d say, keeps sharing it), each later one
//! gets a copy with the same operand, attributes and type. The cast's operand must be typed
//! (run InferType first); a cast whose operand has no type is left shared.
//!
//! Where passlab differs from TVM: TVM's recursive mutator counts a consumer's uses as it
//! reaches each operand, passlab's iterative one when the consumer is rebuilt, after all its
//! operands: a cast used directly by a call and also deeper inside that call's later operands
//! gives the original node to the deeper use here, to the call in TVM (the same program, the
//! copies placed the other way round).

use crate::ir::mutate::{mutate, Mutator};
use crate::ir::{Attrs, Expr, OpPattern};
use rustc_hash::FxHashMap;

/// Canonicalizes the casts of one function (or any expression).
pub fn canonicalize_cast(e: &Expr) -> Expr {
    match e.as_function() {
        Some(f) if f.skips_optimization() => e.clone(),
        _ => mutate(&mut Canonicalizer::default(), e),
    }
}

#[derive(Default)]
struct Canonicalizer {
    /// Uses counted so far per original upcast node (alive through the root).
    uses: FxHashMap<usize, u32>,
}

/// Whether `e` is a cast to more bits than its operand has.
fn is_upcast(e: &Expr) -> bool {
    let Some((op, c)) = e.call_op_of() else {
        return false;
    };
    if op.name() != "cast" {
        return false;
    }
    let from = c
        .args
        .first()
        .and_then(|a| a.ty())
        .and_then(|t| t.as_tensor());
    let to = e.ty().and_then(|t| t.as_tensor());
    matches!((from, to), (Some(f), Some(t)) if f.dtype.bits < t.dtype.bits)
}

fn elementwise_or_broadcast(e: &Expr) -> bool {
    e.call_op_of()
        .is_some_and(|(op, _)| op.pattern.is_some_and(|p| p <= OpPattern::Broadcast))
}

impl Mutator for Canonicalizer {
    fn call(&mut self, e: &Expr, callee: Expr, mut args: Vec<Expr>, _: &Attrs) -> Expr {
        if elementwise_or_broadcast(e) {
            let orig = &e.as_call().expect("a call").args;
            for (o, new) in orig.iter().zip(args.iter_mut()) {
                if !is_upcast(o) {
                    continue;
                }
                let n = self.uses.entry(o.id()).or_insert(0);
                *n += 1;
                if *n > 1 {
                    *new =
                        Expr::with_info(new.kind().shallow_clone(), new.ty().cloned(), new.span());
                }
            }
        }
        crate::ir::mutate::rebuild_call(e, callee, args)
    }
}
