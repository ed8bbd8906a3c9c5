//! Stack-safe traversals shared by the analyses: post-order over the unique nodes of a DAG,
//! with no recursion, so million-deep programs are visited in constant stack.

use super::expr::Expr;
use rustc_hash::FxHashSet;

/// Calls `f` once on every unique node reachable from `root`, children before parents
/// (callee before arguments, left to right, as TVM's `ExpandDataflow`).
///
/// Borrowed nodes on the work stack (no reference-count traffic), and only shared nodes in
/// the seen-set: a node with one reference has one parent in `root`'s graph, so it is reached
/// once (see [`Expr::is_shared`]).
pub fn post_order(root: &Expr, mut f: impl FnMut(&Expr)) {
    let mut seen: FxHashSet<usize> = FxHashSet::default();
    let mut stack: Vec<(&Expr, bool)> = vec![(root, false)];
    while let Some((e, expanded)) = stack.pop() {
        if expanded {
            f(e);
            continue;
        }
        if e.is_shared() && !seen.insert(e.id()) {
            continue;
        }
        stack.push((e, true));
        let start = stack.len();
        e.kind().for_each_child(|c| {
            if !c.is_shared() || !seen.contains(&c.id()) {
                stack.push((c, false));
            }
        });
        stack[start..].reverse();
    }
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
        let children = e.children();
        for c in children.into_iter().rev() {
            if !seen.contains(&c.id()) {
                stack.push((c.clone(), false));
            }
        }
    }
}

/// The number of unique nodes reachable from `root` (a DAG counts shared nodes once).
pub fn count_nodes(root: &Expr) -> usize {
    let mut n = 0;
    post_order(root, |_| n += 1);
    n
}
