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
//! Invariants: linear time — candidates are found by hashing (op, attrs, argument identities),
//! never by scanning the calls of the same op; sharing is preserved; the table
//! is global to the function, as in TVM (the pass is meant for graph-form dataflow).
//!
//! Deliberately not done: TVM's `fskip` callback (its only user in `relay.build` never skips),
//! merging non-scalar constants with equal data (TVM compares those by identity too), and any
//! special treatment of `let`, `if` or functions.

use crate::ir::mutate::{mutate, rebuild_call, rebuild_get_item, Mutator};
use crate::ir::{Attrs, Expr, ExprKind, Module, Op};
use hashbrown::HashTable;
use rustc_hash::{FxHashMap, FxHasher};
use std::hash::{Hash, Hasher};

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

/// A scalar constant takes part in call equality by value, anything else by identity.
fn hash_field(h: &mut FxHasher, e: &Expr) {
    match e.kind() {
        ExprKind::Constant(c) if c.is_scalar() => {
            h.write_u8(1);
            c.hash(h);
        }
        _ => {
            h.write_u8(0);
            h.write_usize(e.id());
        }
    }
}

fn field_eq(a: &Expr, b: &Expr) -> bool {
    a.ptr_eq(b)
        || match (a.kind(), b.kind()) {
            (ExprKind::Constant(x), ExprKind::Constant(y)) => {
                x.is_scalar() && y.is_scalar() && x == y
            }
            _ => false,
        }
}

/// A tuple argument compares field by field; any other argument as a field.
fn hash_arg(h: &mut FxHasher, e: &Expr) {
    match e.kind() {
        ExprKind::Tuple(fields) => {
            h.write_u8(2);
            h.write_usize(fields.len());
            fields.iter().for_each(|f| hash_field(h, f));
        }
        _ => hash_field(h, e),
    }
}

fn arg_eq(a: &Expr, b: &Expr) -> bool {
    match (a.kind(), b.kind()) {
        (ExprKind::Tuple(x), ExprKind::Tuple(y)) => {
            x.len() == y.len() && x.iter().zip(y.iter()).all(|(x, y)| field_eq(x, y))
        }
        (ExprKind::Tuple(_), _) | (_, ExprKind::Tuple(_)) => false,
        _ => field_eq(a, b),
    }
}

fn call_hash(op: Op, attrs: &Attrs, args: &[Expr]) -> u64 {
    let mut h = FxHasher::default();
    op.hash(&mut h);
    attrs.hash(&mut h);
    h.write_usize(args.len());
    args.iter().for_each(|a| hash_arg(&mut h, a));
    h.finish()
}

/// Whether the recorded call `earlier` is equal to a call of `op` with `attrs` and `args`.
fn same_call(earlier: &Expr, op: Op, attrs: &Attrs, args: &[Expr]) -> bool {
    let ExprKind::Call(c) = earlier.kind() else {
        return false;
    };
    matches!(c.callee.kind(), ExprKind::Op(o) if *o == op)
        && c.args.len() == args.len()
        && c.args.iter().zip(args).all(|(a, b)| arg_eq(a, b))
        && c.attrs == *attrs
}

/// Speed: a call's key is hashed straight from its rewritten arguments (no key is built or
/// allocated) and looked up once; the table holds the recorded calls themselves with their
/// hashes, and equality is checked against the recorded call's own arguments. A recorded call
/// keeps its arguments alive, so the identities it is compared by stay unique.
#[derive(Default)]
struct Eliminator {
    calls: HashTable<(u64, Expr)>,
    projections: FxHashMap<(usize, usize), Expr>,
}

impl Mutator for Eliminator {
    fn call(&mut self, e: &Expr, callee: Expr, args: Vec<Expr>, attrs: &Attrs) -> Expr {
        let op = match callee.kind() {
            ExprKind::Op(op) if !op.stateful && !args.is_empty() => *op,
            _ => return rebuild_call(e, callee, args),
        };
        let hash = call_hash(op, attrs, &args);
        if let Some((_, earlier)) = self
            .calls
            .find(hash, |(h, c)| *h == hash && same_call(c, op, attrs, &args))
        {
            return earlier.clone();
        }
        let new = rebuild_call(e, callee, args);
        self.calls
            .insert_unique(hash, (hash, new.clone()), |(h, _)| *h);
        new
    }

    fn get_item(&mut self, e: &Expr, tuple: Expr, index: usize) -> Expr {
        // The recorded projection keeps its tuple alive, so the identity stays unique.
        let key = (tuple.id(), index);
        if let Some(earlier) = self.projections.get(&key) {
            return earlier.clone();
        }
        let new = rebuild_get_item(e, tuple, index);
        self.projections.insert(key, new.clone());
        new
    }
}
