//! EliminateCommonSubexpr (TVM `src/relay/transforms/eliminate_common_subexpr.cc`,
//! RELAY_PASSES.md B.4): replaces a call by an earlier equal call, and a tuple projection by an
//! earlier projection of the same tuple.
//!
//! Per optimizable function, one post-order mutation (children already rewritten). A call is
//! a candidate unless it has no arguments, its callee is not an op, or the op is stateful. Two
//! calls are equal when they call the same op with structurally equal attributes and, for each
//! argument, the same node (after rewriting), or references to the same variable (a variable is
//! one node in TVM; here two reference nodes of one variable are the same argument), or equal
//! scalar constants, or two tuples whose fields are pairwise so (TVM v0.9+). The first recorded
//! equal call wins. `x.i` is merged with an earlier `x.i` of the same tuple (node or
//! variable).
//!
//! Invariants: linear time — candidates are found by hashing (op, attrs, argument identities),
//! never by scanning the calls of the same op; sharing is preserved; the table
//! is global to the function, as in TVM (the pass is meant for graph-form dataflow).
//!
//! TVM's `fskip` callback is offered as a list of op names: `skip_ops=["add"]` leaves every
//! call of those ops as it is, neither merged nor recorded (TVM's `fskip` returning true for
//! them). The callback `relay.build` passes (backend/utils.cc) skips nothing in v0.18 (it sets
//! its result to false after every test), so the build pipeline runs the pass without skips.
//!
//! Deliberately not done: merging non-scalar constants with equal data (TVM compares those by identity too), and any
//! special treatment of `let`, `if` or functions.

use crate::ir::attrs::AttrsNode;
use crate::ir::mutate::{mutate, rebuild_call, rebuild_get_item, Mutator, Unchanged};
use crate::ir::{Attrs, Expr, ExprKind, Module, Op};
use hashbrown::HashTable;
use rustc_hash::{FxHashMap, FxHasher};
use std::hash::{Hash, Hasher};
use std::sync::Arc;

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
    eliminate_expr_skipping(e, &[])
}

/// [`eliminate_expr`] leaving calls of the ops named in `skip_ops` alone (TVM's `fskip`).
pub fn eliminate_expr_skipping(e: &Expr, skip_ops: &[Arc<str>]) -> Expr {
    match e.as_function() {
        Some(f) if f.skips_optimization() => e.clone(),
        _ => mutate(
            &mut Eliminator {
                skip_ops: skip_ops.to_vec(),
                ..Eliminator::default()
            },
            e,
        ),
    }
}

/// A scalar constant takes part in call equality by value, a variable reference by its
/// variable, anything else by identity.
fn hash_field(h: &mut FxHasher, e: &Expr) {
    match e.kind() {
        ExprKind::Constant(c) if c.is_scalar() => {
            h.write_u8(1);
            c.hash(h);
        }
        ExprKind::Var(v) => {
            h.write_u8(3);
            h.write_u64(v.id());
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
            (ExprKind::Var(x), ExprKind::Var(y)) => x == y,
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

/// What a field is compared by when it is compared by identity (not a scalar constant): the
/// rank of its address as an anchor, and its number of handles. A variable reference counts
/// as its variable (every reference node of one variable gives the same identity), ranked
/// below every other node: a variable's node lies apart from the nodes a pass builds, so a
/// call with another node to anchor at is placed near that one.
fn identity(e: &Expr) -> Option<((bool, usize), usize)> {
    match e.kind() {
        ExprKind::Constant(c) if c.is_scalar() => None,
        ExprKind::Var(v) => Some(((false, v.addr()), e.strong_count().max(v.strong_count()))),
        _ => Some(((true, e.id()), e.strong_count())),
    }
}

/// A call's anchor (see [`Eliminator`]): the latest-allocated node among those its arguments
/// are compared by identity (a variable only when no other node is), with whether the call may
/// be placed near it.
fn anchor(args: &[Expr]) -> Option<(usize, bool)> {
    let mut best: Option<((bool, usize), bool)> = None;
    for a in args {
        let ((id, handles), holder) = match a.kind() {
            ExprKind::Tuple(fields) => {
                match fields.iter().filter_map(identity).max_by_key(|(id, _)| *id) {
                    Some(f) => (f, Some(a)),
                    None => continue,
                }
            }
            _ => match identity(a) {
                Some(n) => (n, None),
                None => continue,
            },
        };
        if best.is_none_or(|(best, _)| id > best) {
            let few = handles <= CROWDED && holder.is_none_or(|t| t.strong_count() <= CROWDED);
            best = Some((id, few));
        }
    }
    best.map(|((_, id), few)| (id, few))
}

/// Where a call not met before is recorded: its mixed hash and its anchor.
struct CallKey {
    mixed: u64,
    anchor: Option<(usize, bool)>,
}

/// The bits of a call's hash above any bucket mask (see [`Eliminator`]).
const HIGH: u64 = 0xFFFF_FF00_0000_0000;

/// A node with more handles than this is used by many calls: calls anchored at it are spread
/// by their full hash (see [`Eliminator`]).
const CROWDED: usize = 32;

/// The mixed hash of a call's whole key.
fn call_hash(op: Op, attrs_hash: u64, args: &[Expr]) -> u64 {
    let mut h = FxHasher::default();
    op.hash(&mut h);
    h.write_u64(attrs_hash);
    h.write_usize(args.len());
    args.iter().for_each(|a| hash_arg(&mut h, a));
    h.finish()
}

/// The hash that places a call near its anchor. The low 8 bits are the anchor's granule (16
/// bytes, the allocator's) within its 4 KiB page, so calls anchored in one page land in one
/// 256-bucket window; the bits above scatter the pages by a multiplicative hash of the page
/// number, so the table's load never depends on how the heap laid the pages out (address
/// order itself in the bucket bits made probing grow with the model on some layouts); the
/// key's mixed hash is above them all.
fn local_hash(anchor: usize, mixed: u64) -> u64 {
    let a = anchor as u64;
    let page = ((a >> 12).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32) << 8;
    (page | ((a >> 4) & 0xFF)) ^ (mixed & HIGH)
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
///
/// Locality: on a large function, a table indexed by a general hash is a cache miss per call.
/// A call is instead placed by its *anchor*, the latest-allocated node among those its
/// arguments are compared by identity with (equal calls have the same anchor): arguments are
/// mostly nodes the mutation has just built or reached, so consecutive calls land in nearby
/// buckets of `local` (as [`NodeMap`](crate::ir::NodeMap) does for nodes). A node used by
/// many different calls would pile them into one neighbourhood and make probing quadratic:
/// every recorded call holds its anchor (directly or through a tuple argument), so once the
/// anchor (or that tuple) has more than [`CROWDED`] handles, further calls go to `spread`,
/// placed by their mixed hash, as do calls with no anchor (only scalar-constant arguments). A
/// lookup tries `local`, then `spread` unless it is empty, so where a call was recorded never
/// depends on counts read later.
#[derive(Default)]
struct Eliminator {
    local: HashTable<(u64, Expr)>,
    spread: HashTable<(u64, Expr)>,
    projections: FxHashMap<(usize, usize), Expr>,
    /// The content hashes of the attribute nodes met last, by node (direct-mapped): a model's
    /// calls share a few attribute nodes (`Attrs::shared`), and hashing a node's fields (ten
    /// for a conv2d) for every call was a sixth of the pass. The node itself is kept, so an
    /// address is never another node's.
    attrs_hashes: [Option<(Arc<AttrsNode>, u64)>; 8],
    /// Ops whose calls are neither merged nor recorded (`skip_ops`).
    skip_ops: Vec<Arc<str>>,
}

impl Eliminator {
    /// Whether calls of `op` take part (not stateful, not skipped).
    fn candidate(&self, op: Op) -> bool {
        !op.stateful && !self.skip_ops.iter().any(|s| &**s == op.name())
    }

    /// The content hash of `attrs` (equal attributes, shared or not, hash alike).
    fn attrs_hash(&mut self, attrs: &Attrs) -> u64 {
        let Some(node) = &attrs.0 else {
            return 0;
        };
        let slot = (Arc::as_ptr(node) as usize >> 6) % self.attrs_hashes.len();
        match &self.attrs_hashes[slot] {
            Some((n, h)) if Arc::ptr_eq(n, node) => *h,
            _ => {
                let mut h = FxHasher::default();
                attrs.hash(&mut h);
                let h = h.finish();
                self.attrs_hashes[slot] = Some((node.clone(), h));
                h
            }
        }
    }

    /// The recorded call equal to a call of `op` with `attrs` and `args`, if any.
    fn find(
        &self,
        op: Op,
        attrs: &Attrs,
        args: &[Expr],
        mixed: u64,
        anchor: Option<usize>,
    ) -> Option<&Expr> {
        let eq = |h: u64| move |(hh, c): &(u64, Expr)| *hh == h && same_call(c, op, attrs, args);
        if let Some(a) = anchor {
            let h = local_hash(a, mixed);
            if let Some((_, c)) = self.local.find(h, eq(h)) {
                return Some(c);
            }
        }
        if self.spread.is_empty() {
            return None;
        }
        self.spread.find(mixed, eq(mixed)).map(|(_, c)| c)
    }

    /// The recorded call equal to a call of `op` with `attrs` and `args` (already rewritten),
    /// or the key to record such a call under.
    fn merge_call(&mut self, op: Op, attrs: &Attrs, args: &[Expr]) -> Result<Expr, CallKey> {
        let attrs_hash = self.attrs_hash(attrs);
        let mixed = call_hash(op, attrs_hash, args);
        let anchor = anchor(args);
        match self.find(op, attrs, args, mixed, anchor.map(|(a, _)| a)) {
            Some(earlier) => Ok(earlier.clone()),
            None => Err(CallKey { mixed, anchor }),
        }
    }

    /// The recorded projection `tuple.index`, or the key to record it under. The recorded
    /// projection keeps its tuple alive, so the identity stays unique. A variable's references
    /// are one tuple.
    fn merge_get_item(&self, tuple: &Expr, index: usize) -> Result<Expr, (usize, usize)> {
        let at = match tuple.kind() {
            ExprKind::Var(v) => v.addr(),
            _ => tuple.id(),
        };
        let key = (at, index);
        self.projections.get(&key).cloned().ok_or(key)
    }

    fn record(&mut self, call: &Expr, CallKey { mixed, anchor }: CallKey) {
        match anchor {
            Some((a, true)) => {
                let h = local_hash(a, mixed);
                self.local.insert_unique(h, (h, call.clone()), |(h, _)| *h);
            }
            _ => {
                self.spread
                    .insert_unique(mixed, (mixed, call.clone()), |(h, _)| *h);
            }
        }
    }
}

impl Mutator for Eliminator {
    fn call(&mut self, e: &Expr, callee: Expr, args: Vec<Expr>, attrs: &Attrs) -> Expr {
        let op = match callee.kind() {
            ExprKind::Op(op) if self.candidate(*op) && !args.is_empty() => *op,
            _ => return rebuild_call(e, callee, args),
        };
        match self.merge_call(op, attrs, &args) {
            Ok(earlier) => earlier,
            Err(key) => {
                let new = rebuild_call(e, callee, args);
                self.record(&new, key);
                new
            }
        }
    }

    fn get_item(&mut self, e: &Expr, tuple: Expr, index: usize) -> Expr {
        match self.merge_get_item(&tuple, index) {
            Ok(earlier) => earlier,
            Err(key) => {
                let new = rebuild_get_item(e, tuple, index);
                self.projections.insert(key, new.clone());
                new
            }
        }
    }

    // The same decisions as `call` and `get_item`, read from the node itself when none of its
    // children changed (most nodes of a program without common subexpressions).
    fn unchanged(&mut self, e: &Expr) -> Unchanged {
        match e.kind() {
            ExprKind::Call(c) => match c.callee.kind() {
                ExprKind::Op(op) if self.candidate(*op) && !c.args.is_empty() => {
                    match self.merge_call(*op, &c.attrs, &c.args) {
                        Ok(earlier) => Unchanged::Replace(earlier),
                        Err(key) => {
                            self.record(e, key);
                            Unchanged::Keep
                        }
                    }
                }
                _ => Unchanged::Keep,
            },
            ExprKind::TupleGetItem(t, i) => match self.merge_get_item(t, *i) {
                Ok(earlier) => Unchanged::Replace(earlier),
                Err(key) => {
                    self.projections.insert(key, e.clone());
                    Unchanged::Keep
                }
            },
            // Every other hook returns the node itself when its children are unchanged.
            _ => Unchanged::Keep,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Eliminator;
    use crate::ir::mutate::mutate;
    use crate::ir::ExprKind;
    use crate::text::parse_module;

    /// Calls and projections whose children did not change are merged or recorded from the
    /// node itself: the same output as through the hooks.
    #[test]
    fn the_unchanged_path_gives_the_hooks_output() {
        let mut programs = crate::ir::mutate::sample_programs("ecse");
        programs.push((
            "duplicates".into(),
            "#[version = \"0.0.5\"]\ndef @main(%x: (float32, float32), %y: float32) {\n  \
             %0 = %x.0;\n  %1 = %x.0;\n  %2 = add(%0, %y);\n  %3 = add(%1, %y);\n  \
             %4 = negative(%y);\n  %5 = negative(%y);\n  (%2, %3, %4, %5, add(%4, %5))\n}\n"
                .into(),
        ));
        crate::ir::mutate::assert_unchanged_path_agrees(|_| Eliminator::default(), &programs);
    }

    /// Many different calls of one node go to the table by their full hash (so probing stays
    /// short); calls of nodes with few users are placed near them; equal calls are merged
    /// wherever they were put.
    #[test]
    fn calls_of_a_crowded_node_are_spread_and_still_merged() {
        let n = 300;
        let mut text =
            String::from("#[version = \"0.0.5\"]\ndef @main(%x: Tensor[(4), float32]) {\n");
        let mut fields = Vec::new();
        for i in 0..n {
            // Two equal calls of %x (used by all 2n of them), then two equal calls of each.
            let [a, b, c, d] = [4 * i, 4 * i + 1, 4 * i + 2, 4 * i + 3];
            text += &format!("  %{a} = nn.leaky_relu(%x, alpha={i}f);\n");
            text += &format!("  %{b} = nn.leaky_relu(%x, alpha={i}f);\n");
            text += &format!("  %{c} = nn.relu(%{a});\n  %{d} = nn.relu(%{b});\n");
            fields.extend([a, b, c, d].map(|k| format!("%{k}")));
        }
        text += &format!("  ({})\n}}\n", fields.join(", "));
        let m = parse_module(&text, "crowded").expect("parses");
        let mut elim = Eliminator::default();
        let out = mutate(&mut elim, m.get("main").expect("main"));
        let ExprKind::Tuple(fs) = out.as_function().expect("a function").body.kind() else {
            panic!("a tuple body");
        };
        for pair in fs.chunks(2) {
            assert!(pair[0].ptr_eq(&pair[1]), "equal calls merged");
        }
        let distinct: std::collections::HashSet<usize> = fs.iter().map(|f| f.id()).collect();
        assert_eq!(distinct.len(), 2 * n, "different calls kept apart");
        assert_eq!(elim.spread.len(), n, "the calls of %x");
        assert_eq!(elim.local.len(), n, "the relu calls, near their arguments");
    }

    /// A variable is one argument however many reference nodes point at it (as built through
    /// the Rust API, `Expr::var` per use): calls and projections of it merge; another variable
    /// of the same name does not.
    #[test]
    fn references_to_one_variable_are_one_argument() {
        use crate::ir::{Expr, Var};
        let (x, y) = (Var::new("x", None), Var::new("x", None));
        let t = Var::new("t", None);
        let neg = |v: &Var| Expr::call_op("negative", vec![Expr::var(v)]);
        let add = |a: &Var, b: &Var| Expr::call_op("add", vec![Expr::var(a), Expr::var(b)]);
        let items = vec![
            neg(&x),
            neg(&x),
            neg(&y),
            add(&x, &y),
            add(&x, &y),
            Expr::get_item(Expr::var(&t), 0),
            Expr::get_item(Expr::var(&t), 0),
            Expr::call_op(
                "concatenate",
                vec![Expr::tuple(vec![Expr::var(&x), Expr::var(&y)])],
            ),
            Expr::call_op(
                "concatenate",
                vec![Expr::tuple(vec![Expr::var(&x), Expr::var(&y)])],
            ),
        ];
        let out = mutate(&mut Eliminator::default(), &Expr::tuple(items));
        let ExprKind::Tuple(fs) = out.kind() else {
            panic!("a tuple");
        };
        assert!(fs[0].ptr_eq(&fs[1]), "negative(%x) twice: one call");
        assert!(
            !fs[0].ptr_eq(&fs[2]),
            "another variable named x: another call"
        );
        assert!(fs[3].ptr_eq(&fs[4]), "add(%x, %y) twice: one call");
        assert!(fs[5].ptr_eq(&fs[6]), "%t.0 twice: one projection");
        assert!(fs[7].ptr_eq(&fs[8]), "tuple arguments field by field");
    }

    /// Attributes are compared by content: equal attributes in two different nodes (not
    /// shared) still make equal calls, and attributes hashed from the pass's cache of nodes
    /// match ones hashed afresh.
    #[test]
    fn equal_attributes_in_different_nodes_make_equal_calls() {
        use crate::ir::{AttrValue, Attrs, Expr, Op, Var};
        let x = Expr::var(&Var::new("x", None));
        let alpha = |a: f64| {
            let key = "relay.attrs.LeakyReluAttrs";
            Attrs::new(Some(key), vec![("alpha".into(), AttrValue::Float(a))])
        };
        let relu = |a: Attrs| {
            Expr::call(
                Expr::op(Op::get("nn.leaky_relu").unwrap()),
                vec![x.clone()],
                a,
            )
        };
        let (a1, a2, b) = (alpha(0.5), alpha(0.5), alpha(0.25));
        assert!(!std::sync::Arc::ptr_eq(
            a1.0.as_ref().unwrap(),
            a2.0.as_ref().unwrap()
        ));
        let calls = vec![relu(a1.clone()), relu(b), relu(a2), relu(a1)];
        let out = mutate(&mut Eliminator::default(), &Expr::tuple(calls));
        let ExprKind::Tuple(fs) = out.kind() else {
            panic!("a tuple");
        };
        assert!(
            fs[0].ptr_eq(&fs[2]) && fs[0].ptr_eq(&fs[3]),
            "equal attributes: one call"
        );
        assert!(!fs[0].ptr_eq(&fs[1]), "different attributes: two calls");
    }
}
