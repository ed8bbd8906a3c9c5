//! The graph partitioner (TVM's `GraphPartitioner`): decides which nodes share a fused group,
//! with a union-find over groups and the post-dominator tree.
//!
//! Every node starts in its own group (pattern = the node's, anchor = the node itself when it
//! is `OutEWiseFusable`). At fusion level 0 that is the answer. Otherwise three phases walk the
//! nodes in post-DFS order and try to merge each node's group into the group of its immediate
//! post-dominator, when every node on every path between them (and the post-dominator itself)
//! satisfies the phase's condition and the merged group stays within `max_depth` nodes:
//! * phase 0: `OutEWiseFusable` nodes (conv2d, dense, ...) into an element-wise post-dominator
//!   through paths of at most `Broadcast`;
//! * phases 0 and 1: `ElemWise`/`Broadcast` nodes into an `Injective` or `CommReduce`
//!   post-dominator (the sink may already be a conv group);
//! * phase 1: `Injective` nodes and tuples through all-injective paths;
//! * phase 2: injective nodes into a tuple that has itself been fused into an injective group.
//!
//! `CommReduce` nodes never fuse into their consumers and nothing fuses *into* a tuple before
//! phase 2. With an argument limit (the target's `max_function_args`), a node whose fusion would
//! give its consumers' group more arguments than the limit (less the consumers' outputs) stays
//! apart, and a fusion that meets a producer group not yet counted waits for its consumer's
//! turn ([`Args`]). Path checks and merges are iterative (explicit stacks, visit stamps), so they are
//! stack-safe and allocation-free per query.

use super::graph::{DomNode, Graph, NO_NODE};
use crate::ir::{Dim, Expr, ExprKind, OpPattern, Type};

const NONE: u32 = u32::MAX;

/// One group of the union-find. A group is named by its root node, which is also the node
/// its result comes from (TVM's `root_ref`: a merge keeps the parent's root), so it is not
/// stored. 16 bytes a node.
#[derive(Clone, Debug)]
struct Group {
    parent: u32,
    pattern: OpPattern,
    /// The group's `OutEWiseFusable` node, [`NONE`] for none.
    anchor: u32,
    num_nodes: u32,
    /// This node was found too far from its post-dominator to fuse into it
    /// ([`Partition::exceeds_depth`]); it stays so in later phases, which then skip the count.
    too_deep: bool,
}

const _: () = assert!(std::mem::size_of::<Group>() == 16);

/// TVM's argument counting for a limited fused function (`GraphPartitioner::CountArgs_` and
/// its postponed fusions), present only under a limit.
struct Args {
    limit: usize,
    /// Each node's group record's arguments (TVM's `Group::args_num`): a root's is its
    /// group's; a merged node keeps what it had.
    count: Vec<u32>,
    /// Set while counting a fusion's arguments when a producer group had none counted yet: the
    /// fusion then waits for that consumer's turn (TVM's `postpone_node_`).
    postpone: Option<u32>,
    /// Waiting fusions: (node whose turn decides, node to fuse), in the order they were put off.
    postponed: Vec<(u32, u32)>,
    /// Nodes of `postponed` by the node whose turn decides (first entry, and each entry's next).
    first: rustc_hash::FxHashMap<u32, usize>,
    next: Vec<usize>,
    last: rustc_hash::FxHashMap<u32, usize>,
    /// Group roots already counted in one [`Partition::count_args`].
    seen: Vec<u32>,
}

/// Most counting steps one postponed check may take (TVM's recursive count can revisit shared
/// producers along every path); past it the fusion is refused.
const MAX_COUNT_STEPS: usize = 1 << 10;

/// The result of partitioning: one group per node, found with [`Partition::root`].
pub struct Partition {
    groups: Vec<Group>,
    args: Option<Args>,
    stamp: Vec<u32>,
    epoch: u32,
    stack: Vec<u32>,
    max_depth: usize,
    /// Nodes visited by the region walks (counts, checks, merges): the partitioner's work,
    /// which a test holds to a constant per node.
    #[cfg(test)]
    visits: usize,
}

impl Partition {
    /// Partitions `g` at fusion level `opt_level` with groups of at most `max_depth` nodes
    /// and, when `max_args` is not 0, fused functions of at most `max_args` arguments.
    pub fn run(
        g: &Graph,
        dom: &[DomNode],
        opt_level: i64,
        max_depth: usize,
        max_args: usize,
    ) -> Partition {
        let groups = g
            .nodes
            .iter()
            .enumerate()
            .map(|(i, n)| Group {
                parent: NONE,
                pattern: n.pattern,
                anchor: if n.pattern == OpPattern::OutEWiseFusable {
                    i as u32
                } else {
                    NONE
                },
                num_nodes: 1,
                too_deep: false,
            })
            .collect();
        let args = (max_args > 0).then(|| Args {
            limit: max_args,
            count: (0..g.nodes.len() as u32)
                .map(|n| initial_args(g, n))
                .collect(),
            postpone: None,
            postponed: Vec::new(),
            first: Default::default(),
            next: Vec::new(),
            last: Default::default(),
            seen: Vec::new(),
        });
        let mut p = Partition {
            groups,
            args,
            stamp: vec![0; g.nodes.len()],
            epoch: 0,
            stack: Vec::new(),
            max_depth,
            #[cfg(test)]
            visits: 0,
        };
        if opt_level > 0 {
            for phase in 0..3 {
                p.run_phase(g, dom, phase);
            }
        }
        p
    }

    /// The root group of node `i`'s group (with path compression).
    pub fn root(&mut self, i: u32) -> u32 {
        let mut r = i;
        while self.groups[r as usize].parent != NONE {
            r = self.groups[r as usize].parent;
        }
        let mut p = i;
        while p != r {
            let next = self.groups[p as usize].parent;
            self.groups[p as usize].parent = r;
            p = next;
        }
        r
    }

    fn next_epoch(&mut self) {
        self.epoch += 1;
        if self.epoch == u32::MAX {
            self.stamp.iter_mut().for_each(|s| *s = 0);
            self.epoch = 1;
        }
    }

    /// Marks `n` visited; false when it already was in this epoch.
    fn visit(&mut self, n: u32) -> bool {
        #[cfg(test)]
        {
            self.visits += 1;
        }
        let s = &mut self.stamp[n as usize];
        if *s == self.epoch {
            return false;
        }
        *s = self.epoch;
        true
    }

    fn push_outputs(&mut self, g: &Graph, n: u32) {
        self.stack.extend(g.outputs(n).iter().map(|e| e.node));
    }

    /// True when every node reachable from `src`'s outputs up to and including `sink`
    /// satisfies `cond(root group pattern, is_sink)`.
    fn check_path(
        &mut self,
        g: &Graph,
        src: u32,
        sink: u32,
        cond: impl Fn(OpPattern, bool) -> bool,
    ) -> bool {
        self.next_epoch();
        self.stack.clear();
        self.push_outputs(g, src);
        while let Some(n) = self.stack.pop() {
            if !self.visit(n) {
                continue;
            }
            let root = self.root(n);
            if !cond(self.groups[root as usize].pattern, n == sink) {
                self.stack.clear();
                return false;
            }
            if n != sink {
                self.push_outputs(g, n);
            }
        }
        true
    }

    /// Merges every node from `src` up to (not including) `sink` into `sink`'s group; or,
    /// when counting its arguments met an uncounted producer group, puts it off ([`Args`]).
    fn commit_fuse(&mut self, g: &Graph, src: u32, sink: u32) {
        if let Some(a) = &mut self.args {
            if let Some(at) = a.postpone {
                let k = a.postponed.len();
                a.postponed.push((at, src));
                a.next.push(usize::MAX);
                match a.last.insert(at, k) {
                    Some(prev) => a.next[prev] = k,
                    None => {
                        a.first.insert(at, k);
                    }
                }
                return;
            }
        }
        self.next_epoch();
        self.stack.clear();
        self.stack.push(src);
        while let Some(n) = self.stack.pop() {
            if n == sink || !self.visit(n) {
                continue;
            }
            self.merge(n, sink);
            self.push_outputs(g, n);
        }
    }

    fn merge(&mut self, child: u32, parent: u32) {
        let (c, p) = (self.root(child), self.root(parent));
        if c == p {
            return;
        }
        let child_group = self.groups[c as usize].clone();
        if let Some(a) = &mut self.args {
            a.count[p as usize] = a.count[p as usize].saturating_add(a.count[c as usize]);
        }
        let pg = &mut self.groups[p as usize];
        pg.num_nodes += child_group.num_nodes;
        if child_group.anchor != NONE {
            debug_assert!(pg.anchor == NONE, "cannot merge two complex groups");
            pg.anchor = child_group.anchor;
            pg.pattern = pg.pattern.max(child_group.pattern);
        }
        self.groups[c as usize].parent = p;
    }

    /// Whether `dom_parent`'s group would grow past `max_depth` nodes if `child` and every
    /// node between them joined it (TVM's `CountFusedNodesWithNewChild(..) > max_fuse_depth_`).
    ///
    /// The count stops as soon as it passes the limit, which decides the answer: every node
    /// counted adds at least one, so at most `max_depth + 1` nodes are visited. TVM counts the
    /// whole region, and on a recurrent model (each step's state is used by the next step and
    /// by the final result, so its post-dominator is the last node) the region of every step
    /// runs to the end of the model: quadratic in the number of steps. The check and the merge
    /// that may follow visit the same region, which is then known to be within the limit, so
    /// the phase stays linear.
    ///
    /// A node found over the limit stays over it: the region is fixed and every count in the
    /// sum only grows (merges add to a root's count, and a new root of `dom_parent`'s group
    /// holds the old one's), so the answer is kept for the later phases.
    fn exceeds_depth(&mut self, g: &Graph, child: u32, dom_parent: u32) -> bool {
        if self.groups[child as usize].too_deep {
            return true;
        }
        let over = self.count_exceeds(g, child, dom_parent);
        if over {
            self.groups[child as usize].too_deep = true;
        }
        over
    }

    fn count_exceeds(&mut self, g: &Graph, child: u32, dom_parent: u32) -> bool {
        let r = self.root(dom_parent);
        let mut sum = self.groups[r as usize].num_nodes as usize;
        if sum > self.max_depth {
            return true;
        }
        self.next_epoch();
        self.stack.clear();
        self.stack.push(child);
        while let Some(n) = self.stack.pop() {
            if n == dom_parent || !self.visit(n) {
                continue;
            }
            sum += self.groups[n as usize].num_nodes as usize;
            if sum > self.max_depth {
                self.stack.clear();
                return true;
            }
            self.push_outputs(g, n);
        }
        false
    }

    /// The arguments of `src`'s group with the groups of its inputs (TVM's `CountArgs_`): a
    /// counted input group adds its count, once; an uncounted one puts the fusion off
    /// (`postpone`) or, when deciding a postponed fusion, is counted through its own inputs.
    /// `None` when that count passes [`MAX_COUNT_STEPS`].
    fn count_args(&mut self, g: &Graph, src: u32, postpone: bool) -> Option<usize> {
        let mut total = 0usize;
        let mut steps = 0usize;
        self.stack.clear();
        self.stack.push(src);
        while let Some(n) = self.stack.pop() {
            steps += 1;
            if steps > MAX_COUNT_STEPS {
                self.stack.clear();
                return None;
            }
            let root = self.root(n);
            let inputs = counted_inputs(g, n);
            let a = self.args.as_mut().expect("counting needs a limit");
            total += a.count[n as usize] as usize;
            a.seen.clear();
            a.seen.push(root);
            for &k in inputs {
                if k == NO_NODE || matches!(g.nodes[k as usize].expr.kind(), ExprKind::Var(_)) {
                    continue;
                }
                let prev = self.root(k);
                let a = self.args.as_mut().expect("counting needs a limit");
                if a.seen.contains(&prev) {
                    continue;
                }
                a.seen.push(prev);
                let c = a.count[prev as usize];
                if c > 0 {
                    total += c as usize;
                } else if postpone {
                    a.postpone = Some(n);
                } else {
                    self.stack.push(k);
                }
            }
        }
        Some(total)
    }

    /// The argument limit left for a group ending at `child`: the limit less one argument per
    /// output of `child` (and the `?` dimensions of an output call's result) (TVM's
    /// `CountArgsLimit_`).
    fn args_limit(&self, g: &Graph, child: u32) -> usize {
        let Some(a) = &self.args else { return 0 };
        let outputs: usize = g
            .outputs(child)
            .iter()
            .map(|e| {
                let out = g.nodes[e.node as usize].expr;
                match out.kind() {
                    ExprKind::Call(_) => 1 + out.ty().map_or(0, |t| any_dims(t, false)),
                    _ => 1,
                }
            })
            .sum();
        a.limit.saturating_sub(outputs)
    }

    /// Whether fusing `child` would give a consumer's group more arguments than the limit
    /// allows (TVM's `CountFusedArgs(..) > CountArgsLimit_(..)`, with a limit left).
    fn exceeds_args(&mut self, g: &Graph, child: u32) -> bool {
        if self.args.is_none() {
            return false;
        }
        let limit = self.args_limit(g, child);
        if limit == 0 {
            return false;
        }
        let mut most = 0;
        for i in 0..g.outputs(child).len() {
            let out = g.outputs(child)[i].node;
            match self.count_args(g, out, true) {
                Some(c) => most = most.max(c),
                None => return true,
            }
        }
        most > limit
    }

    /// The fusions put off until `nid`'s turn, decided now: each goes ahead when `nid`'s
    /// arguments are within its limit and its post-dominator's group has no anchor.
    fn run_postponed(&mut self, g: &Graph, dom: &[DomNode], nid: u32) {
        let Some(a) = &mut self.args else { return };
        a.postpone = None;
        let Some(mut k) = a.first.remove(&nid) else {
            return;
        };
        a.last.remove(&nid);
        while k != usize::MAX {
            let a = self.args.as_ref().expect("a limit");
            let (src, next) = (a.postponed[k].1, a.next[k]);
            let fits = self
                .count_args(g, nid, false)
                .is_some_and(|c| c <= self.args_limit(g, nid));
            if fits {
                if let Some(sink) = dom[src as usize].parent() {
                    if self.groups[sink as usize].anchor == NONE {
                        self.commit_fuse(g, src, sink);
                    }
                }
            }
            k = next;
        }
    }

    fn run_phase(&mut self, g: &Graph, dom: &[DomNode], phase: u32) {
        use OpPattern::*;
        for nid in 0..g.nodes.len() as u32 {
            if self.args.is_some() {
                self.run_postponed(g, dom, nid);
            }
            let own = self.groups[nid as usize].pattern;
            if own == Opaque {
                continue;
            }
            let dn = dom[nid as usize];
            let Some(sink) = dn.parent() else { continue };
            if self.exceeds_depth(g, nid, sink) {
                continue;
            }
            if self.exceeds_args(g, nid) {
                continue;
            }
            if phase == 2 {
                if own > Injective {
                    continue;
                }
                let sink_root = self.root(sink);
                let root_pattern = self.groups[sink_root as usize].pattern;
                if root_pattern == Tuple {
                    continue;
                }
                if self.groups[sink as usize].pattern == Tuple
                    && root_pattern <= Injective
                    && self.check_path(g, nid, sink, |k, _| k <= Injective)
                {
                    self.commit_fuse(g, nid, sink);
                }
                continue;
            }
            if self.root(nid) == self.root(sink) {
                continue;
            }
            if self.groups[sink as usize].pattern == Tuple {
                continue;
            }
            let fuse = match own {
                OutEWiseFusable => {
                    phase == 0
                        && dn.pattern == ElemWise
                        && self.check_path(g, nid, sink, |k, _| k <= Broadcast)
                }
                ElemWise | Broadcast => {
                    (dn.pattern <= Injective || dn.pattern == CommReduce)
                        && self.check_path(g, nid, sink, |k, is_sink| {
                            if is_sink {
                                k <= Injective || k == CommReduce || k == OutEWiseFusable
                            } else {
                                k <= Injective
                            }
                        })
                }
                Injective | Tuple => {
                    phase == 1 && self.check_path(g, nid, sink, |k, _| k <= Injective)
                }
                _ => false,
            };
            if fuse {
                self.commit_fuse(g, nid, sink);
            }
        }
    }
}

/// The inputs TVM counts arguments over: a call's arguments (not its callee), a tuple's fields.
fn counted_inputs<'g>(g: &'g Graph, n: u32) -> &'g [u32] {
    let inputs = g.inputs(n);
    match g.nodes[n as usize].expr.kind() {
        ExprKind::Call(_) => &inputs[1..],
        ExprKind::Tuple(_) => inputs,
        _ => &[],
    }
}

/// A node's own arguments (TVM's `InitGroups` count): a call's or a tuple's inputs that are
/// variables or projections, and a variable itself, each one plus its tensor's `?` dimensions
/// with their strides.
fn initial_args(g: &Graph, n: u32) -> u32 {
    let one = |e: &Expr| 1 + e.ty().map_or(0, |t| any_dims(t, true));
    let e = g.nodes[n as usize].expr;
    let count: usize = match e.kind() {
        ExprKind::Var(_) => one(e),
        ExprKind::Call(c) => c
            .args
            .iter()
            .filter(|a| matches!(a.kind(), ExprKind::Var(_) | ExprKind::TupleGetItem(..)))
            .map(one)
            .sum(),
        ExprKind::Tuple(fields) => fields
            .iter()
            .filter(|a| matches!(a.kind(), ExprKind::Var(_) | ExprKind::TupleGetItem(..)))
            .map(one)
            .sum(),
        _ => 0,
    };
    u32::try_from(count).unwrap_or(u32::MAX)
}

/// A tensor type's `?` dimensions, and with `strides` its rank again when it has any (TVM's
/// `CountAdditionalArgs_`); 0 for other types.
fn any_dims(t: &Type, strides: bool) -> usize {
    let Some(tt) = t.as_tensor() else { return 0 };
    let any = tt.shape.iter().filter(|d| matches!(d, Dim::Any)).count();
    if strides && any > 0 {
        any + tt.shape.len()
    } else {
        any
    }
}

#[cfg(test)]
mod tests {
    use super::super::graph::{post_dominators, Graph};
    use super::Partition;
    use crate::passes::infer_type::infer_module;
    use crate::text::parse_module;

    /// On an unrolled LSTM every step's hidden and cell states are post-dominated by the
    /// final concatenation, so the region between each and its post-dominator runs to the
    /// end of the model. The region walks stop once a group would pass the depth limit (4
    /// here), so the work stays a constant per node: 3.7 visits a node at 300 steps, where
    /// counting whole regions, as TVM does, took 1,495 a node, growing with the length.
    #[test]
    fn a_recurrent_model_is_partitioned_in_a_constant_number_of_visits_per_node() {
        for steps in [300, 600] {
            let text = crate::testgen::rnn_model(steps);
            let m = infer_module(&parse_module(&text, "rnn").expect("parses")).expect("types");
            let f = m.get("main").expect("@main");
            let g = Graph::build(f);
            let dom = post_dominators(&g);
            let p = Partition::run(&g, &dom, 3, 4, 0);
            let per_node = p.visits as f64 / g.nodes.len() as f64;
            assert!(
                per_node < 20.0,
                "{steps} steps: {} visits for {} nodes ({per_node:.1} a node)",
                p.visits,
                g.nodes.len()
            );
        }
    }
}
