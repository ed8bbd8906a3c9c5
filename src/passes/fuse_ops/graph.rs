//! The indexed forward graph of a function's dataflow and its post-dominator tree (TVM's
//! `IndexedForwardGraph` and `DominatorTree`, `graph_partitioner.cc`).
//!
//! Nodes are the unique expressions of the function in post-DFS order (children before
//! parents, callee before arguments). Each node has a fusion pattern and its *outputs*: edges
//! to the nodes that use it, each with an edge pattern. A node with `extern_ref` is used
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

use crate::ir::TypeKind;
use crate::ir::{DType, Expr, ExprKind, Function, OpPattern, Type};

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
}

/// The dataflow graph of one function, in post-DFS order.
pub struct Graph<'a> {
    pub nodes: Vec<Node<'a>>,
    index: crate::ir::NodeMap<u32>,
    /// Every node's outputs, node after node (`outputs_at[i]..outputs_at[i + 1]`): one
    /// vector for the graph rather than one per node.
    outputs: Vec<Edge>,
    outputs_at: Vec<u32>,
    /// (child, edge) in the order `link` finds them, until `build` groups them by child.
    pending: Vec<(u32, Edge)>,
}

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

impl<'a> Graph<'a> {
    /// The graph of `root` (a function expression).
    pub fn build(root: &'a Expr) -> Graph<'a> {
        // Post-order over borrowed nodes (no clone per node), not into sealed nested functions.
        let mut order: Vec<&'a Expr> = Vec::new();
        crate::ir::mutate::walk_refs(root, |e, exit| {
            if exit {
                order.push(e);
                return true;
            }
            e.ptr_eq(root) || !e.as_function().is_some_and(is_sealed)
        });
        // Built once the size is known: no rehash of a table with an entry per node.
        let mut index: crate::ir::NodeMap<u32> =
            crate::ir::NodeMap::with_capacity_and_hasher(order.len(), Default::default());
        index.extend(order.iter().enumerate().map(|(i, e)| (e.id(), i as u32)));
        let nodes = order
            .into_iter()
            .map(|expr| Node {
                expr,
                pattern: OpPattern::Opaque,
                extern_ref: false,
            })
            .collect();
        let mut g = Graph {
            nodes,
            index,
            outputs: Vec::new(),
            outputs_at: Vec::new(),
            pending: Vec::new(),
        };
        g.set_extern(root);
        for i in 0..g.nodes.len() {
            g.link(i as u32);
        }
        // A stable counting sort by child keeps each node's outputs in the order found.
        let mut at = vec![0u32; g.nodes.len() + 1];
        for &(child, _) in &g.pending {
            at[child as usize + 1] += 1;
        }
        for i in 0..g.nodes.len() {
            at[i + 1] += at[i];
        }
        let mut next = at.clone();
        let filler = Edge {
            node: 0,
            pattern: OpPattern::Opaque,
        };
        g.outputs = vec![filler; g.pending.len()];
        for (child, edge) in std::mem::take(&mut g.pending) {
            let slot = &mut next[child as usize];
            g.outputs[*slot as usize] = edge;
            *slot += 1;
        }
        g.outputs_at = at;
        g
    }

    /// The edges from node `n` to the nodes that use it, in the order they were found.
    pub fn outputs(&self, n: u32) -> &[Edge] {
        let n = n as usize;
        &self.outputs[self.outputs_at[n] as usize..self.outputs_at[n + 1] as usize]
    }

    /// The node of an expression, if it is part of the graph.
    pub fn node_of(&self, e: &Expr) -> Option<u32> {
        self.index.get(&e.id()).copied()
    }

    fn set_extern(&mut self, e: &Expr) {
        if let Some(i) = self.node_of(e) {
            self.nodes[i as usize].extern_ref = true;
        }
    }

    fn add_edge(&mut self, child: &Expr, parent: u32, pattern: OpPattern) {
        if let Some(i) = self.node_of(child) {
            self.pending.push((
                i,
                Edge {
                    node: parent,
                    pattern,
                },
            ));
        }
    }

    /// Sets node `i`'s pattern and the edges from its children (TVM's `Update` calls).
    fn link(&mut self, i: u32) {
        let e = self.nodes[i as usize].expr;
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
                        self.add_edge(&c.callee, i, OpPattern::Opaque);
                        OpPattern::Opaque
                    }
                };
                self.set_extern(&c.callee);
                let out_shape = e.ty().and_then(Type::as_tensor).map(|t| &t.shape);
                for a in &c.args {
                    let arg_shape = a.ty().and_then(Type::as_tensor).map(|t| &t.shape);
                    let edge = match (pattern, out_shape, arg_shape) {
                        (OpPattern::Broadcast, Some(o), Some(s)) if o == s => OpPattern::ElemWise,
                        _ => pattern,
                    };
                    self.add_edge(a, i, edge);
                }
                pattern
            }
            ExprKind::Tuple(fields) => {
                for f in fields {
                    if f.ty().and_then(Type::as_tensor).is_some() {
                        self.add_edge(f, i, OpPattern::Injective);
                    } else {
                        self.set_extern(f);
                    }
                }
                OpPattern::Tuple
            }
            ExprKind::TupleGetItem(t, _) => {
                let all_tensors = match t.ty().and_then(Type::as_tuple) {
                    Some(fs) => fs.iter().all(|f| f.as_tensor().is_some()),
                    _ => false,
                };
                if all_tensors {
                    self.add_edge(t, i, OpPattern::Injective);
                    OpPattern::Injective
                } else {
                    self.set_extern(t);
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
            ExprKind::Let(l) => {
                self.set_extern(&l.value);
                self.set_extern(&l.body);
                OpPattern::Opaque
            }
            ExprKind::If(x) => {
                self.set_extern(&x.cond);
                self.set_extern(&x.then_branch);
                self.set_extern(&x.else_branch);
                OpPattern::Opaque
            }
            ExprKind::Function(f) => {
                if f.attr("Compiler").is_none() {
                    self.set_extern(&f.body);
                }
                OpPattern::Opaque
            }
            ExprKind::Var(_) | ExprKind::GlobalVar(_) | ExprKind::Op(_) => OpPattern::Opaque,
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

/// A node of the post-dominator tree: its immediate post-dominator, its depth in the tree, and
/// the combined edge pattern on the way to the post-dominator.
#[derive(Clone, Copy, Debug)]
pub struct DomNode {
    pub parent: Option<u32>,
    pub depth: u32,
    pub pattern: OpPattern,
}

/// The post-dominator tree of a graph (TVM's `DominatorTree::PostDom`): nodes are handled in
/// reverse post-DFS order, so every consumer is placed before its producers, and a node's
/// immediate post-dominator is the least common ancestor of its consumers.
pub fn post_dominators(g: &Graph) -> Vec<DomNode> {
    let n = g.nodes.len();
    let mut tree = vec![
        DomNode {
            parent: None,
            depth: 1,
            pattern: OpPattern::Opaque,
        };
        n
    ];
    for i in (0..n).rev() {
        let node = &g.nodes[i];
        if node.extern_ref {
            continue;
        }
        let mut pattern = OpPattern::ElemWise;
        let mut parent: Option<u32> = None;
        for (k, edge) in g.outputs(i as u32).iter().enumerate() {
            parent = if k == 0 {
                Some(edge.node)
            } else {
                lca(&tree, parent, Some(edge.node), &mut pattern)
            };
            pattern = combine(pattern, edge.pattern);
        }
        tree[i] = DomNode {
            parent,
            depth: parent.map_or(1, |p| tree[p as usize].depth + 1),
            pattern,
        };
    }
    tree
}

/// The least common ancestor of two tree nodes, combining the patterns on the way up.
fn lca(
    tree: &[DomNode],
    mut a: Option<u32>,
    mut b: Option<u32>,
    pattern: &mut OpPattern,
) -> Option<u32> {
    while a != b {
        let (x, y) = (a?, b?);
        let (dx, dy) = (tree[x as usize], tree[y as usize]);
        if dx.depth < dy.depth {
            *pattern = combine(*pattern, dy.pattern);
            b = dy.parent;
        } else if dy.depth < dx.depth {
            *pattern = combine(*pattern, dx.pattern);
            a = dx.parent;
        } else {
            *pattern = combine(combine(*pattern, dx.pattern), dy.pattern);
            a = dx.parent;
            b = dy.parent;
        }
    }
    a
}
