//! EliminateCommonSubexpr (TVM `src/relay/transforms/eliminate_common_subexpr.cc`,
//! RELAY_PASSES.md B.4): replaces a call by an earlier equal call, and a tuple projection by an
//! earlier projection of the same tuple.
//!
//! Per optimizable function, one post-order mutation (children already rewritten). A call is
//! a candidate unless it has no arguments, its callee is not an op, or the op is stateful. Two
//! calls are equal when they call the same op with structurally equal attributes and, for each
//! argument, the same node (after rewriting), or equal scalar constants, or two tuples whose
//! fields are pairwise the same node or equal scalar constants (TVM v0.9+). The first recorded
//! equal call wins. `x.i` is merged with an earlier `x.i` of the same tuple node.
//!
//! Invariants: linear time — candidates are found by hashing a key of (op, attrs, argument
//! identities), never by scanning the calls of the same op; sharing is preserved; the table
//! is global to the function, as in TVM (the pass is meant for graph-form dataflow).
//!
//! Deliberately not done: TVM's `fskip` callback (its only user in `relay.build` never skips),
//! merging non-scalar constants with equal data (TVM compares those by identity too), and any
//! special treatment of `let`, `if` or functions.

use crate::ir::mutate::{mutate, rebuild_call, rebuild_get_item, Mutator};
use crate::ir::{Attrs, Constant, Expr, ExprKind, Module, Op};
use rustc_hash::FxHashMap;

/// Eliminates common subexpressions in every optimizable function of `m`.
pub fn eliminate_common_subexpr(m: &Module) -> Module {
    let out: Result<Module, std::convert::Infallible> =
        m.map_functions(|_, f| Ok(eliminate_expr(f)));
    match out {
        Ok(m) => m,
        Err(never) => match never {},
    }
}

/// Eliminates common subexpressions in one expression (functions that skip optimization are
/// returned unchanged).
pub fn eliminate_expr(e: &Expr) -> Expr {
    match e.as_function() {
        Some(f) if f.skips_optimization() => e.clone(),
        _ => mutate(&mut Eliminator::default(), e),
    }
}

/// How an argument takes part in call equality.
#[derive(Clone, PartialEq, Eq, Hash)]
enum ArgKey {
    Node(usize),
    Scalar(Constant),
    Tuple(Vec<ArgKey>),
}

fn field_key(e: &Expr) -> ArgKey {
    match e.kind() {
        ExprKind::Constant(c) if c.is_scalar() => ArgKey::Scalar((**c).clone()),
        _ => ArgKey::Node(e.id()),
    }
}

fn arg_key(e: &Expr) -> ArgKey {
    match e.kind() {
        ExprKind::Tuple(fields) => ArgKey::Tuple(fields.iter().map(field_key).collect()),
        _ => field_key(e),
    }
}

#[derive(PartialEq, Eq, Hash)]
struct CallKey {
    op: Op,
    attrs: Attrs,
    args: Vec<ArgKey>,
}

#[derive(Default)]
struct Eliminator {
    calls: FxHashMap<CallKey, Expr>,
    projections: FxHashMap<(usize, usize), Expr>,
    /// Keeps every recorded node alive, so the identities in the keys stay unique.
    keep: Vec<Expr>,
}

impl Mutator for Eliminator {
    fn call(&mut self, e: &Expr, callee: Expr, args: Vec<Expr>, attrs: &Attrs) -> Expr {
        let op = match callee.kind() {
            ExprKind::Op(op) if !op.stateful && !args.is_empty() => *op,
            _ => return rebuild_call(e, callee, args),
        };
        let key = CallKey {
            op,
            attrs: attrs.clone(),
            args: args.iter().map(arg_key).collect(),
        };
        if let Some(earlier) = self.calls.get(&key) {
            return earlier.clone();
        }
        self.keep.extend(args.iter().cloned());
        let new = rebuild_call(e, callee, args);
        self.calls.insert(key, new.clone());
        new
    }

    fn get_item(&mut self, e: &Expr, tuple: Expr, index: usize) -> Expr {
        let key = (tuple.id(), index);
        if let Some(earlier) = self.projections.get(&key) {
            return earlier.clone();
        }
        self.keep.push(tuple.clone());
        let new = rebuild_get_item(e, tuple, index);
        self.projections.insert(key, new.clone());
        new
    }
}
