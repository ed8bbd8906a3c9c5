//! The indexed forward graph of a function's dataflow and its post-dominator tree (TVM's
//! `IndexedForwardGraph` and `DominatorTree`, `graph_partitioner.cc`).
//!
//! Nodes are the unique expressions of the function in post-DFS order (children before
//! parents, callee before arguments), except op references (shared by every call, never
//! fused: not nodes). Each node has a fusion pattern, its *inputs* (its children's node
//! numbers, and how many inputs it is itself: its consumers) and its *outputs*: edges to the
//! nodes that use it, each with an edge pattern. A node with `extern_ref` is used
//! somewhere fusion cannot follow (a function body or parameter, a `let`, an `if`), so it has
//! no post-dominator and is never fused into a consumer; other nodes may still be fused into
//! it.
//!
//! Patterns: an op call has its op's `TOpPattern` (opaque when TVM registers none, and for a
//! `dyn.*` op whose result shape is dynamic); a call of anything else is opaque; a tuple is
//! `Tuple`, a projection `Injective` (opaque when the tuple has a non-tensor field); a scalar
//! constant of int32/int64/float32/float64/bool is `ElemWise`, every other node opaque. The
//! edge from a `Broadcast` call to an argument of the call's own shape is `ElemWise`.
//!
//! Deliberately not done: nodes inside `Primitive` or `Compiler` functions are not indexed
//! (FuseOps leaves those functions alone, so their insides never matter).

use crate::ir::scratch;
use crate::ir::TypeKind;
use crate::ir::{DType, Expr, ExprKind, Function, OpPattern, Type};
use crate::passes::jump_tree::{self, jump_of_leaf, JumpTree};
use rustc_hash::FxHashMap;

/// A use of a node by another node.
#[derive(Clone, Copy, Debug)]
pub struct Edge {
    pub node: u32,
    pub pattern: OpPattern,
}

/// One node of the graph.
pub struct Node<'a> {
    pub expr: &'a Expr,
    pub pattern: OpPattern,
    pub extern_ref: bool,
    /// For a node of tuple type, once a projection of it asked: whether every field is a
    /// tensor. Answered once per tuple, not once per projection (a `split` into n parts has n
    /// projections of an n-field type: quadratic, asked each time).
    tensor_fields: Option<bool>,
}

/// The dataflow graph of one function, in post-DFS order.
pub struct Graph<'a> {
    pub nodes: Vec<Node<'a>>,
    /// Every node's inputs, node after node (`inputs_at[i]..inputs_at[i + 1]`): the nodes of
    /// its children in [`ExprKind::for_each_child`] order, [`NO_NODE`] for an op reference
    /// (ops are shared by every call and take no part in fusion, so they are not nodes).
    inputs: Vec<u32>,
    inputs_at: Vec<u32>,
    /// How many inputs (of all nodes) each node is: its number of consumers in the graph.
    pub uses: Vec<u32>,
    /// Every node's outputs, node after node (`outputs_at[i]..outputs_at[i + 1]`): one
    /// vector for the graph rather than one per node.
    outputs: Vec<Edge>,
    outputs_at: Vec<u32>,
    /// (child, edge) in the order `link` finds them, until `build` groups them by child.
    pending: Vec<(u32, Edge)>,
    /// The counting sort's next slot per child (kept only to be reused, see `Spare`).
    next: Vec<u32>,
}

/// The growable buffers of the last graph dropped on this thread, kept for the next one (as
/// [`scratch`] keeps traversal stacks): a graph's vectors grow with its nodes, and grown by
/// doubling from empty on every run they copied themselves about once over; on a 100k-op
/// function that is some 8 MB read and written again per run, none of it in cache. Held as
/// plain words, since a graph's nodes borrow from one program ([`scratch::recycle`] turns
/// them back into the element types; the assertions below keep sizes and alignments equal,
/// without which the buffers would silently start from empty). One set per thread, none
/// larger than [`scratch::KEEP`] elements.
#[derive(Default)]
struct Spare {
    nodes: Vec<[usize; 2]>,
    inputs: Vec<u32>,
    inputs_at: Vec<u32>,
    uses: Vec<u32>,
    outputs: Vec<[u32; 2]>,
    outputs_at: Vec<u32>,
    next: Vec<u32>,
    pending: Vec<[u32; 3]>,
}

const _: () = {
    use std::mem::{align_of, size_of};
    assert!(size_of::<Node<'static>>() == size_of::<[usize; 2]>());
    assert!(align_of::<Node<'static>>() == align_of::<[usize; 2]>());
    assert!(size_of::<Edge>() == size_of::<[u32; 2]>());
    assert!(align_of::<Edge>() == align_of::<[u32; 2]>());
    assert!(size_of::<(u32, Edge)>() == size_of::<[u32; 3]>());
    assert!(align_of::<(u32, Edge)>() == align_of::<[u32; 3]>());
};

/// The spare set of the run in progress (`pass::run_state`: dropped with the run); outside a
/// run every graph starts with fresh arrays.
static RUN_SPARE: crate::pass::run_state::RunTable<Spare> =
    crate::pass::run_state::RunTable::new(Spare::default);

fn take_spare() -> Spare {
    let mut spare = Spare::default();
    with_spare(|s| spare = std::mem::take(s));
    spare
}

/// `v` emptied for the spare set, or an empty vector when it is too large to keep.
fn keep<T, U>(v: Vec<T>) -> Vec<U> {
    if v.capacity() > scratch::KEEP {
        Vec::new()
    } else {
        scratch::recycle(v)
    }
}

/// A node's uses, back from the rewrite (which takes [`Graph::uses`] over), for the next graph.
pub fn give_uses(uses: Vec<u32>) {
    let uses = keep(uses);
    with_spare(|s| larger(&mut s.uses, uses));
}

/// Runs `f` on the run's spare set; outside a run (or while it is in use) does nothing.
fn with_spare(f: impl FnOnce(&mut Spare)) {
    RUN_SPARE.with(f);
}

/// Keeps the larger of two buffers (a graph built while another was alive got empty ones).
fn larger<T>(slot: &mut Vec<T>, v: Vec<T>) {
    if v.capacity() > slot.capacity() {
        *slot = v;
    }
}

impl Drop for Graph<'_> {
    fn drop(&mut self) {
        let nodes = keep(std::mem::take(&mut self.nodes));
        let inputs = keep(std::mem::take(&mut self.inputs));
        let inputs_at = keep(std::mem::take(&mut self.inputs_at));
        let uses = keep(std::mem::take(&mut self.uses));
        let outputs = keep(std::mem::take(&mut self.outputs));
        let outputs_at = keep(std::mem::take(&mut self.outputs_at));
        let next = keep(std::mem::take(&mut self.next));
        let pending = keep(std::mem::take(&mut self.pending));
        with_spare(|s| {
            larger(&mut s.nodes, nodes);
            larger(&mut s.inputs, inputs);
            larger(&mut s.inputs_at, inputs_at);
            larger(&mut s.uses, uses);
            larger(&mut s.outputs, outputs);
            larger(&mut s.outputs_at, outputs_at);
            larger(&mut s.next, next);
            larger(&mut s.pending, pending);
        });
    }
}

/// The input of a child that is not a node (an op reference).
pub const NO_NODE: u32 = u32::MAX;

/// True for functions FuseOps never looks into.
pub fn is_sealed(f: &Function) -> bool {
    let primitive = f
        .attr("Primitive")
        .is_some_and(|v| v.as_int().unwrap_or(0) != 0);
    primitive || f.attr("Compiler").is_some()
}

fn combine(a: OpPattern, b: OpPattern) -> OpPattern {
    a.max(b)
}

/// A step of the graph's post-order walk.
#[derive(Clone, Copy)]
enum Step {
    Enter,
    /// Leave a node, with what `Enter` learnt of it: leaving reads nothing of a `let` or an
    /// `if` again. (On a let chain the lets are left in a burst at the end, each long after
    /// it was entered: on a program larger than the caches, a read then is a wait on memory.)
    Leave {
        /// The children entered (none for a sealed function, whose body is not in the graph).
        children: u32,
        shared: bool,
        /// A `let` or an `if`: every child is used where fusion cannot follow.
        barrier: bool,
    },
}

impl<'a> Graph<'a> {
    /// The graph of `root` (a function expression).
    ///
    /// One post-order walk over borrowed nodes numbers the nodes and records their inputs: a
    /// child's number travels on a value stack to its parent (as results do in
    /// [`crate::ir::mutate::mutate_with`]), so only shared nodes, reached more than once, go
    /// into a table. No lookup per node or per edge: the rewrite then runs over the node array.
    pub fn build(root: &'a Expr) -> Graph<'a> {
        let spare = take_spare();
        let mut g = Graph {
            nodes: scratch::recycle(spare.nodes),
            inputs: spare.inputs,
            inputs_at: spare.inputs_at,
            uses: spare.uses,
            outputs: scratch::recycle(spare.outputs),
            outputs_at: spare.outputs_at,
            pending: scratch::recycle(spare.pending),
            next: spare.next,
        };
        g.inputs_at.push(0);
        // Each node's output count, one slot ahead (`outputs_at[i + 1]`), counted as its
        // consumers are linked: the counting sort below needs no pass over the edges of its own.
        g.outputs_at.push(0);
        let mut shared: FxHashMap<usize, u32> = FxHashMap::default();
        let mut stack: Vec<(&'a Expr, Step)> = scratch::take_vec();
        let mut values: Vec<u32> = scratch::take_vec();
        stack.push((root, Step::Enter));
        while let Some((e, step)) = stack.pop() {
            match step {
                Step::Enter => {
                    if let ExprKind::Op(_) = e.kind() {
                        values.push(NO_NODE);
                        continue;
                    }
                    let is_shared = e.is_shared();
                    if is_shared {
                        if let Some(&i) = shared.get(&e.id()) {
                            values.push(i);
                            continue;
                        }
                    }
                    e.prefetch_next();
                    let at = stack.len();
                    stack.push((e, Step::Enter));
                    let mut children = 0;
                    if e.ptr_eq(root) || !e.as_function().is_some_and(is_sealed) {
                        e.kind().for_each_child_rev(|k| {
                            stack.push((k, Step::Enter));
                            children += 1;
                        });
                    }
                    let barrier = matches!(e.kind(), ExprKind::Let(_) | ExprKind::If(_));
                    stack[at].1 = Step::Leave {
                        children,
                        shared: is_shared,
                        barrier,
                    };
                }
                Step::Leave {
                    children,
                    shared: is_shared,
                    barrier,
                } => {
                    for k in values.drain(values.len() - children as usize..) {
                        if k != NO_NODE {
                            g.uses[k as usize] += 1;
                        }
                        g.inputs.push(k);
                    }
                    let i = g.nodes.len() as u32;
                    g.nodes.push(Node {
                        expr: e,
                        pattern: OpPattern::Opaque,
                        extern_ref: false,
                        tensor_fields: None,
                    });
                    g.uses.push(0);
                    g.inputs_at.push(g.inputs.len() as u32);
                    g.outputs_at.push(0);
                    if is_shared {
                        shared.insert(e.id(), i);
                    }
                    values.push(i);
                    if barrier {
                        g.link_barrier(i);
                    } else {
                        // Linked now, while the node and its children are in cache (a
                        // separate pass over the nodes reads a large program from memory
                        // once more).
                        g.link(i);
                    }
                }
            }
        }
        scratch::give_vec(stack);
        scratch::give_vec(values);
        if let Some(root) = g.nodes.len().checked_sub(1) {
            g.nodes[root].extern_ref = true;
        }
        // A stable counting sort by child keeps each node's outputs in the order found: the
        // counts are in (see `add_edge`); one pass turns them into each node's end and the
        // cursor at its start (the separate fill, count-and-sum and copy passes it replaces
        // grew 14-28x from 10k to 100k nodes: buffers that stay in L2 at one size only).
        let mut at = std::mem::take(&mut g.outputs_at);
        let mut next = std::mem::take(&mut g.next);
        next.reserve(g.nodes.len());
        let mut sum = 0;
        for end in &mut at[1..] {
            next.push(sum);
            sum += *end;
            *end = sum;
        }
        let filler = Edge {
            node: 0,
            pattern: OpPattern::Opaque,
        };
        g.outputs.resize(g.pending.len(), filler);
        for &(child, edge) in &g.pending {
            let slot = &mut next[child as usize];
            g.outputs[*slot as usize] = edge;
            *slot += 1;
        }
        g.pending.clear();
        g.outputs_at = at;
        g.next = next;
        g
    }

    /// The edges from node `n` to the nodes that use it, in the order they were found.
    pub fn outputs(&self, n: u32) -> &[Edge] {
        let n = n as usize;
        &self.outputs[self.outputs_at[n] as usize..self.outputs_at[n + 1] as usize]
    }

    /// The nodes of node `n`'s children, in [`ExprKind::for_each_child`] order ([`NO_NODE`]
    /// for an op reference).
    pub fn inputs(&self, n: u32) -> &[u32] {
        let n = n as usize;
        &self.inputs[self.inputs_at[n] as usize..self.inputs_at[n + 1] as usize]
    }

    fn set_extern(&mut self, i: u32) {
        if i != NO_NODE {
            self.nodes[i as usize].extern_ref = true;
        }
    }

    fn add_edge(&mut self, child: u32, parent: u32, pattern: OpPattern) {
        if child != NO_NODE {
            self.outputs_at[child as usize + 1] += 1;
            self.pending.push((
                child,
                Edge {
                    node: parent,
                    pattern,
                },
            ));
        }
    }

    /// Links a `let` or an `if` (without reading it): every child (value and body; condition
    /// and branches) is used where fusion cannot follow.
    fn link_barrier(&mut self, i: u32) {
        for k in self.inputs_at[i as usize]..self.inputs_at[i as usize + 1] {
            self.set_extern(self.inputs[k as usize]);
        }
    }

    /// Sets node `i`'s pattern and the edges from its children (TVM's `Update` calls).
    fn link(&mut self, i: u32) {
        let e = self.nodes[i as usize].expr;
        let at = self.inputs_at[i as usize] as usize;
        // The node of child `k` (a copy: the edges below borrow the graph mutably).
        let input = |g: &Graph, k: usize| g.inputs[at + k];
        let pattern = match e.kind() {
            ExprKind::Call(c) => {
                let pattern = match c.callee.kind() {
                    ExprKind::Op(op) => {
                        let dynamic = e.ty().is_some_and(is_dynamic);
                        if dynamic && op.name().starts_with("dyn.") {
                            OpPattern::Opaque
                        } else {
                            op.pattern_or_opaque()
                        }
                    }
                    _ => {
                        self.add_edge(input(self, 0), i, OpPattern::Opaque);
                        OpPattern::Opaque
                    }
                };
                self.set_extern(input(self, 0));
                let out_shape = e.ty().and_then(Type::as_tensor).map(|t| &t.shape);
                for (k, a) in c.args.iter().enumerate() {
                    let arg_shape = a.ty().and_then(Type::as_tensor).map(|t| &t.shape);
                    let edge = match (pattern, out_shape, arg_shape) {
                        (OpPattern::Broadcast, Some(o), Some(s)) if o == s => OpPattern::ElemWise,
                        _ => pattern,
                    };
                    self.add_edge(input(self, 1 + k), i, edge);
                }
                pattern
            }
            ExprKind::Tuple(fields) => {
                for (k, f) in fields.iter().enumerate() {
                    if f.ty().and_then(Type::as_tensor).is_some() {
                        self.add_edge(input(self, k), i, OpPattern::Injective);
                    } else {
                        self.set_extern(input(self, k));
                    }
                }
                OpPattern::Tuple
            }
            ExprKind::TupleGetItem(t, _) => {
                let all_tensors = |t: &Expr| match t.ty().and_then(Type::as_tuple) {
                    Some(fs) => fs.iter().all(|f| f.as_tensor().is_some()),
                    _ => false,
                };
                let k = input(self, 0) as usize;
                let all_tensors = match self.nodes.get_mut(k) {
                    Some(n) => *n.tensor_fields.get_or_insert_with(|| all_tensors(t)),
                    None => all_tensors(t),
                };
                if all_tensors {
                    self.add_edge(input(self, 0), i, OpPattern::Injective);
                    OpPattern::Injective
                } else {
                    self.set_extern(input(self, 0));
                    OpPattern::Opaque
                }
            }
            ExprKind::Constant(c) => {
                let simple = [
                    DType::INT32,
                    DType::INT64,
                    DType::FLOAT32,
                    DType::FLOAT64,
                    DType::BOOL,
                ];
                match &c.data {
                    Some(d) if c.is_scalar() && simple.contains(&d.dtype) => OpPattern::ElemWise,
                    _ => OpPattern::Opaque,
                }
            }
            ExprKind::Let(_)
            | ExprKind::If(_)
            | ExprKind::Match(_)
            | ExprKind::RefNew(_)
            | ExprKind::RefRead(_)
            | ExprKind::RefWrite(..) => {
                self.link_barrier(i);
                OpPattern::Opaque
            }
            ExprKind::Function(f) => {
                // A sealed function has no inputs: its body is not part of the graph.
                if f.attr("Compiler").is_none() && self.inputs(i).len() == 1 {
                    self.set_extern(input(self, 0));
                }
                OpPattern::Opaque
            }
            ExprKind::Var(_)
            | ExprKind::GlobalVar(_)
            | ExprKind::Op(_)
            | ExprKind::Constructor(_) => OpPattern::Opaque,
        };
        self.nodes[i as usize].pattern = pattern;
    }
}

fn is_dynamic(t: &Type) -> bool {
    match t.kind() {
        TypeKind::Tensor(t) => t.shape.iter().any(|d| d.as_static().is_none()),
        TypeKind::Tuple(fs) => fs.iter().any(is_dynamic),
        _ => false,
    }
}

/// A node of the post-dominator tree: its immediate post-dominator, its depth in the tree, the
/// combined edge pattern on the way to the post-dominator, and a jump pointer (see
/// [`post_dominators`]). 16 bytes.
#[derive(Clone, Copy, Debug)]
pub struct DomNode {
    /// The immediate post-dominator, [`NO_NODE`] for none.
    parent: u32,
    pub depth: u32,
    /// A proper ancestor, its parent's or further up, for climbing in logarithmic steps
    /// ([`NO_NODE`] for a root, which has none).
    jump: u32,
    pub pattern: OpPattern,
    /// The patterns of the nodes from this one up to `jump` (exclusive), combined.
    jump_pattern: OpPattern,
}

const _: () = assert!(std::mem::size_of::<DomNode>() == 16);

impl DomNode {
    /// The immediate post-dominator, if any.
    pub fn parent(&self) -> Option<u32> {
        (self.parent != NO_NODE).then_some(self.parent)
    }
}

/// The post-dominator tree of a graph (TVM's `DominatorTree::PostDom`): nodes are handled in
/// reverse post-DFS order, so every consumer is placed before its producers, and a node's
/// immediate post-dominator is the least common ancestor of its consumers, with the patterns
/// on the way combined.
///
/// TVM finds that ancestor by stepping up one parent at a time, which is quadratic when many
/// nodes' consumers meet far up the tree: a running sum of a recurrent model's states (each
/// state used by the next step and by the sum) takes steps quadratic in the model's length.
/// Each node here also gets a skew-binary jump pointer ([`jump_tree`]), so a climb takes
/// logarithmic steps, with the patterns of the nodes jumped over kept beside each pointer.
/// The nodes passed on the way are the same as TVM's, and combining patterns (their maximum)
/// does not depend on the grouping, so the tree is TVM's exactly.
pub fn post_dominators(g: &Graph) -> Vec<DomNode> {
    let n = g.nodes.len();
    let mut tree = vec![
        DomNode {
            parent: NO_NODE,
            depth: 1,
            jump: NO_NODE,
            pattern: OpPattern::Opaque,
            jump_pattern: OpPattern::Opaque,
        };
        n
    ];
    for i in (0..n).rev() {
        let node = &g.nodes[i];
        if node.extern_ref {
            continue;
        }
        let mut pattern = OpPattern::ElemWise;
        let mut parent = NO_NODE;
        for (k, edge) in g.outputs(i as u32).iter().enumerate() {
            parent = if k == 0 {
                edge.node
            } else {
                lca(&tree, parent, edge.node, &mut pattern)
            };
            pattern = combine(pattern, edge.pattern);
        }
        tree[i] = if parent == NO_NODE {
            DomNode {
                parent,
                depth: 1,
                jump: NO_NODE,
                pattern,
                jump_pattern: pattern,
            }
        } else {
            let p = tree[parent as usize];
            let (jump, jump_pattern) = match jump_of_leaf(&Dom(&tree), parent) {
                (j, true) => {
                    let jn = tree[p.jump as usize];
                    (
                        j,
                        combine(pattern, combine(p.jump_pattern, jn.jump_pattern)),
                    )
                }
                (j, false) => (j, pattern),
            };
            DomNode {
                parent,
                depth: p.depth + 1,
                jump,
                pattern,
                jump_pattern,
            }
        };
    }
    tree
}

/// The post-dominator tree as a [`JumpTree`].
struct Dom<'t>(&'t [DomNode]);

impl JumpTree for Dom<'_> {
    fn depth(&self, n: u32) -> u32 {
        self.0[n as usize].depth
    }
    fn parent(&self, n: u32) -> Option<u32> {
        self.0[n as usize].parent()
    }
    fn jump(&self, n: u32) -> u32 {
        self.0[n as usize].jump
    }
}

/// The least common ancestor of two tree nodes ([`NO_NODE`] when they are in different
/// trees, or either is [`NO_NODE`]), combining into `pattern` the patterns of every node
/// passed on the way up from either side (the ancestor's own excluded).
fn lca(tree: &[DomNode], a: u32, b: u32, pattern: &mut OpPattern) -> u32 {
    if a == NO_NODE || b == NO_NODE {
        return NO_NODE;
    }
    let passed = |n: u32, jumped: bool| {
        let d = tree[n as usize];
        *pattern = combine(*pattern, if jumped { d.jump_pattern } else { d.pattern });
    };
    jump_tree::lca(&Dom(tree), a, b, passed).unwrap_or(NO_NODE)
}

#[cfg(test)]
mod tests {
    use super::{combine, post_dominators, Graph};
    use crate::ir::OpPattern;
    use crate::passes::infer_type::infer_module;
    use crate::text::parse_module;

    /// TVM's post-dominator tree, climbing one parent at a time: (parent, depth, pattern).
    fn one_step_climb(g: &Graph) -> Vec<(Option<u32>, u32, OpPattern)> {
        let n = g.nodes.len();
        let mut tree = vec![(None, 1, OpPattern::Opaque); n];
        for i in (0..n).rev() {
            if g.nodes[i].extern_ref {
                continue;
            }
            let mut pattern = OpPattern::ElemWise;
            let mut parent: Option<u32> = None;
            for (k, edge) in g.outputs(i as u32).iter().enumerate() {
                parent = if k == 0 {
                    Some(edge.node)
                } else {
                    let (mut a, mut b) = (parent, Some(edge.node));
                    loop {
                        if a == b {
                            break a;
                        }
                        let (Some(x), Some(y)) = (a, b) else {
                            break None;
                        };
                        let (dx, dy) = (tree[x as usize], tree[y as usize]);
                        if dx.1 <= dy.1 {
                            pattern = combine(pattern, dy.2);
                            b = dy.0;
                        }
                        if dy.1 <= dx.1 {
                            pattern = combine(pattern, dx.2);
                            a = dx.0;
                        }
                    }
                };
                pattern = combine(pattern, edge.pattern);
            }
            let depth = parent.map_or(1, |p| tree[p as usize].1 + 1);
            tree[i] = (parent, depth, pattern);
        }
        tree
    }

    /// A random dataflow program of `n` bindings over one tensor shape: element-wise and
    /// broadcast calls, a dense layer (out-element-wise fusable), a reduction, each taking
    /// a recent binding or one from anywhere before, so uses meet near and far.
    fn random_program(seed: u64, n: usize) -> String {
        let mut state = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let mut next = move |m: usize| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((state >> 33) as usize) % m
        };
        let mut s =
            String::from("def @main(%x: Tensor[(1, 4), float32], %w: Tensor[(4, 4), float32]) {\n");
        let pick = |i: usize, next: &mut dyn FnMut(usize) -> usize| -> String {
            if i == 0 || next(8) == 0 {
                "%x".to_string()
            } else if next(2) == 0 {
                format!("%{}", i - 1 - next(i.min(4)))
            } else {
                format!("%{}", next(i))
            }
        };
        for i in 0..n {
            let a = pick(i, &mut next);
            let b = pick(i, &mut next);
            let call = match next(7) {
                0 => format!("add({a}, {b})"),
                1 => format!("multiply({a}, {b})"),
                2 => format!("nn.relu({a})"),
                3 => format!("tanh({a})"),
                4 => format!("nn.dense({a}, %w, units=4)"),
                5 => format!("add({a}, sum({b}, axis=[1], keepdims=True))"),
                _ => format!("subtract({a}, {b})"),
            };
            s.push_str(&format!("  %{i} = {call};\n"));
        }
        s.push_str(&format!("  %{}\n}}\n", n - 1));
        s
    }

    /// The jump-pointer climb finds TVM's tree exactly: the same post-dominator, depth and
    /// combined pattern for every node of random programs, including the running-sum shape
    /// that made the one-step climb quadratic.
    #[test]
    fn post_dominators_match_the_one_step_climb() {
        let mut programs: Vec<String> = (0..60)
            .map(|seed| random_program(seed, 10 + 7 * seed as usize))
            .collect();
        let mut sum =
            String::from("def @main(%x: Tensor[(1, 4), float32]) {\n  %0 = nn.relu(%x);\n");
        for i in 1..400 {
            sum.push_str(&format!(
                "  %{} = tanh(%{});\n  %{} = add(%{}, %{});\n",
                2 * i - 1,
                2 * i - 2,
                2 * i,
                2 * i - 2,
                2 * i - 1
            ));
        }
        sum.push_str("  %798\n}\n");
        programs.push(sum);
        programs.push(crate::testgen::rnn_model(40));
        for (k, text) in programs.iter().enumerate() {
            let m = infer_module(&parse_module(text, "dag").expect("parses")).expect("types");
            let g = Graph::build(m.get("main").expect("@main"));
            let want = one_step_climb(&g);
            let got = post_dominators(&g);
            for (i, (w, d)) in want.iter().zip(&got).enumerate() {
                assert_eq!(
                    (w.0, w.1, w.2),
                    (d.parent(), d.depth, d.pattern),
                    "program {k}, node {i}"
                );
            }
        }
    }
}
