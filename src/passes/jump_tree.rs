//! Least common ancestors in a tree that grows leaf by leaf (parents before children), by
//! skew-binary jump pointers (Myers' random-access lists): each node keeps one jump, its
//! parent's jump's jump when the two jumps below it span equal depths, else its parent, so a
//! climb takes logarithmic steps in O(1) space a node. Shared by FuseOps' post-dominator tree
//! and ToANormalForm's scope tree, where TVM steps up one parent at a time (quadratic when many
//! nodes' uses meet far up). The nodes passed on the way are reported, so a caller can combine
//! what it keeps per node (FuseOps' edge patterns) exactly as the one-step climb would.

/// A tree the caller stores in its own layout.
pub trait JumpTree {
    /// The node's depth (a root's is the smallest).
    fn depth(&self, n: u32) -> u32;
    /// The node's parent; `None` for a root.
    fn parent(&self, n: u32) -> Option<u32>;
    /// The node's jump (asked of non-roots only).
    fn jump(&self, n: u32) -> u32;
}

/// The jump of a new leaf under `parent`, and whether it skips two jumps (the parent's and
/// that jump's own: what the leaf skips is then what those two skip, plus itself).
pub fn jump_of_leaf(t: &impl JumpTree, parent: u32) -> (u32, bool) {
    if t.parent(parent).is_none() {
        return (parent, false);
    }
    let j = t.jump(parent);
    let jj = if t.parent(j).is_none() { j } else { t.jump(j) };
    if jj != j && t.depth(parent) - t.depth(j) == t.depth(j) - t.depth(jj) {
        (jj, true)
    } else {
        (parent, false)
    }
}

/// The least common ancestor of `a` and `b` (`None` when they are in different trees),
/// calling `passed(n, jumped)` for every node left on the way up from either side (the
/// ancestor excluded): `jumped` when the climb left it by its jump, else by its parent.
pub fn lca(t: &impl JumpTree, a: u32, b: u32, mut passed: impl FnMut(u32, bool)) -> Option<u32> {
    let depth = t.depth(a).min(t.depth(b));
    let mut a = climb(t, a, depth, &mut passed);
    let mut b = climb(t, b, depth, &mut passed);
    // At equal depths the jumps are at equal depths too (a jump's depth follows from the
    // node's): jump both while the jumps differ (the ancestor is above them), else step both.
    while a != b {
        let (Some(pa), Some(pb)) = (t.parent(a), t.parent(b)) else {
            // Two roots (equal depths): different trees.
            return None;
        };
        let (ja, jb) = (t.jump(a), t.jump(b));
        let jumped = ja != jb;
        passed(a, jumped);
        passed(b, jumped);
        (a, b) = if jumped { (ja, jb) } else { (pa, pb) };
    }
    Some(a)
}

/// The ancestor of `x` at `depth` (at most `x`'s own), by jumps that do not overshoot it.
fn climb(t: &impl JumpTree, mut x: u32, depth: u32, passed: &mut impl FnMut(u32, bool)) -> u32 {
    while t.depth(x) > depth {
        // Deeper than a root: `x` has a parent, and its jump is a proper ancestor.
        let j = t.jump(x);
        let jumped = t.depth(j) >= depth;
        passed(x, jumped);
        x = if jumped {
            j
        } else {
            t.parent(x)
                .expect("a node below the target depth has a parent")
        };
    }
    x
}
