//! Stack-safe traversals shared by the analyses: post-order over the unique nodes of a DAG,
//! with no recursion, so million-deep programs are visited in constant stack.

use super::expr::{Expr, ExprKind};
use rustc_hash::FxHashSet;

/// Calls `f` once on every unique node reachable from `root`, children before parents
/// (callee before arguments, left to right, as TVM's `ExpandDataflow`).
///
/// This is [`walk`](super::mutate::walk) with a closure: borrowed nodes on the work stack and
/// only shared nodes in the seen-set.
pub fn post_order(root: &Expr, f: impl FnMut(&Expr)) {
    struct Each<F>(F);
    impl<F: FnMut(&Expr)> super::mutate::Visitor for Each<F> {
        fn visit(&mut self, e: &Expr) {
            (self.0)(e)
        }
    }
    super::mutate::walk(&mut Each(f), root);
}

/// Calls `f` once on every unique node reachable from `root`, in no promised order (today
/// pre-order), for analyses whose answer does not depend on the order: a node is read once,
/// when it is reached, where [`post_order`] reads it again after its children (on a large
/// program that second read is often a second cache miss).
#[inline]
pub fn each_node<'a>(root: &'a Expr, mut f: impl FnMut(&'a Expr)) {
    // `walk_refs` without its exit steps: half the stack traffic.
    let mut seen = super::scratch::take_set();
    let mut stack: Vec<&'a Expr> = super::scratch::take_vec();
    stack.push(root);
    while let Some(e) = stack.pop() {
        if e.is_shared() && !seen.insert(e.id()) {
            continue;
        }
        e.prefetch_next();
        f(e);
        e.kind().for_each_child_rev(|k| {
            if !k.is_shared() || !seen.contains(&k.id()) {
                stack.push(k);
            }
        });
    }
    super::scratch::give_vec(stack);
    super::scratch::give_set(seen);
}

/// [`post_order`] sharing a `seen` set across several roots (every node goes into the set, so
/// a root that is also a descendant of an earlier root is not visited twice).
pub fn post_order_with(root: &Expr, seen: &mut FxHashSet<usize>, f: &mut impl FnMut(&Expr)) {
    if seen.contains(&root.id()) {
        return;
    }
    let mut stack: Vec<(Expr, bool)> = vec![(root.clone(), false)];
    while let Some((e, expanded)) = stack.pop() {
        if expanded {
            f(&e);
            continue;
        }
        if !seen.insert(e.id()) {
            continue;
        }
        stack.push((e.clone(), true));
        e.kind().for_each_child_rev(|c| {
            if !seen.contains(&c.id()) {
                stack.push((c.clone(), false));
            }
        });
    }
}

/// The number of unique nodes reachable from `root` (a DAG counts shared nodes once; an op
/// counts once, as one node per op, however many nodes stand for it: which calls share an op
/// node depends on the thread that built them, see `ir::sharing`).
pub fn count_nodes(root: &Expr) -> usize {
    let mut counter = NodeCounter::default();
    post_order(root, |e| counter.add(e));
    counter.n
}

/// Counts visited nodes as [`count_nodes`] does: ops by op, other nodes by identity (the
/// caller visits each node once).
#[derive(Default)]
pub struct NodeCounter {
    pub n: usize,
    ops: FxHashSet<&'static str>,
}

impl NodeCounter {
    pub fn add(&mut self, e: &Expr) {
        match e.kind() {
            ExprKind::Op(op) => self.n += usize::from(self.ops.insert(op.name())),
            _ => self.n += 1,
        }
    }
}
