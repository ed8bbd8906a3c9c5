//! SimplifyExpr and SimplifyExprPostAlterOp (TVM `src/relay/transforms/simplify_expr.cc`):
//! algebraic clean-ups that TVM writes as dataflow-pattern rewrites, here as one post-order
//! mutation per function that rewrites each call to a fixed point before its parents are
//! visited.
//!
//! The rewrites, in TVM's order (SimplifyExprPostAlterOp runs the six marked `*`):
//! * `*_like` concretization when the result shape is static: `zeros_like`, `ones_like`,
//!   `full_like`, `reshape_like`, `broadcast_to_like` become `zeros`, `ones`, `full`,
//!   `reshape`, `broadcast_to` with the shape written out, `collapse_sum_like` becomes
//!   `collapse_sum_to` (the shape as an int32 constant and as the attribute, as TVM builds it);
//!   `cast_like` becomes `cast` (any shape);
//! * `add(x, x)` => `multiply(x, 2)`; `divide(n, sqrt(x))` => `multiply(n, rsqrt(x))`;
//! * `*` identities: `x + 0`, `0 + x`, `x - 0`, `x * 1`, `1 * x`, `x / 1` => `x` when `x` already
//!   has the result's type (the 0 or 1 is `zeros`/`zeros_like`/`ones`/`ones_like` or a scalar
//!   constant);
//! * `*` consecutive `reshape`s or `contrib_reverse_reshape`s => one `reshape` to the (static)
//!   result shape;
//! * consecutive `transpose`/`layout_transform` => one `transpose` (or one `layout_transform`
//!   when one of them changes the rank); a transpose or layout_transform that keeps every axis
//!   in place is removed;
//! * `*` a cast to the dtype it already has is removed; `*` `cast(cast(x))` => one cast when the
//!   inner cast widens (TVM's `IsWidenCast`: same kind and no fewer bits, or int -> uint ->
//!   float with no fewer bits; never through bfloat16);
//! * a broadcast op with a `full`/`ones`/`zeros` operand of the result's shape takes the fill
//!   value as a scalar instead;
//! * `(x + c1) * c2` => `x * c2 + c1 * c2` and `(x * c1) * c2` => `x * (c1 * c2)` (likewise for
//!   `+`), the constant parts folded;
//! * `argmax`/`argmin`/`argsort` of `qnn.dequantize(x, ..)` => of `x`;
//! * `*` casts after a `clip` whose range every cast's dtype holds are removed; `*` a `clip` whose
//!   range holds the whole range of its dtype is removed (not after `qnn.requantize` or
//!   `qnn.add`);
//!
//! Needs checked types (run InferType first): a call whose type or whose operands' types the
//! rewrite reads and that has none is left alone. Built nodes are typed on build
//! (`infer_type::typed_call`), so rewrites can chain within one visit. Each call is rewritten
//! at most [`MAX_REWRITES`] times, so the pass stops even on a rule cycle.
//!
//! Where passlab differs from TVM: TVM runs each rewrite over the whole function in turn and
//! repeats the round until nothing changes (at most 100 rounds); passlab rewrites innermost
//! first, each call to its fixed point, which reaches the same program on TVM's tests in one
//! walk (linear where TVM's rounds are not). `SimplifyBinomial` (`a*x*x + b*x*y + c*y*y` =>
//! `a * ((x + y*p) * (x + y*q))`) is the last rule, as in TVM.

mod rules;
mod transpose;

use crate::ir::mutate::{mutate, rebuild_call, Mutator};
use crate::ir::{AttrValue, Attrs, Expr};
use crate::passes::infer_type::with_node_type;
use crate::passes::simplify_inference::op_call;

/// How many times one call may be rewritten before the pass leaves it as it is.
pub const MAX_REWRITES: usize = 64;

/// Which rewrites run.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Mode {
    /// SimplifyExpr: every rewrite.
    Full,
    /// SimplifyExprPostAlterOp: identities, reshapes, casts and clips.
    PostAlterOp,
}

/// Simplifies one function (or any expression).
pub fn simplify_expr(e: &Expr, mode: Mode) -> Expr {
    match e.as_function() {
        Some(f) if f.skips_optimization() => e.clone(),
        _ => mutate(&mut Simplifier { mode, depth: 0 }, e),
    }
}

pub(crate) struct Simplifier {
    mode: Mode,
    /// Nesting of [`Simplifier::normalize`] through rules that build calls.
    depth: usize,
}

impl Simplifier {
    /// Rewrites `e` (whose operands are already simplified) until no rule applies.
    pub(crate) fn normalize(&mut self, mut e: Expr) -> Expr {
        if self.depth > 16 {
            return e;
        }
        self.depth += 1;
        for _ in 0..MAX_REWRITES {
            match rules::rewrite(self, &e) {
                Some(next) => e = with_node_type(next),
                None => break,
            }
        }
        self.depth -= 1;
        e
    }

    /// A call of `name`, typed and simplified.
    pub(crate) fn build(
        &mut self,
        name: &str,
        args: Vec<Expr>,
        attrs: Vec<(&str, AttrValue)>,
    ) -> Expr {
        let e = op_call(name, args, attrs);
        self.normalize(e)
    }

    pub(crate) fn full(&self) -> bool {
        self.mode == Mode::Full
    }
}

impl Mutator for Simplifier {
    fn call(&mut self, e: &Expr, callee: Expr, args: Vec<Expr>, _attrs: &Attrs) -> Expr {
        let rebuilt = with_node_type(rebuild_call(e, callee, args));
        if rebuilt.call_op_of().is_none() {
            return rebuilt;
        }
        self.normalize(rebuilt)
    }
}
