//! FuseOps (TVM's `relay.transform.FuseOps`, `fuse_ops.cc`): groups the op calls of each
//! function into fused kernels. Every group becomes a function literal marked `Primitive=1`,
//! called in place: `%0 = fn (%p0: T0, %p1: T1, Primitive=1) -> R { ... }; %1 = %0(%x, %w);`.
//!
//! How: the function's dataflow graph and post-dominator tree (`graph.rs`), TVM's graph
//! partitioner over op patterns (`partition.rs`), then one rewrite (this file) that builds the
//! functions: a single pass over the graph's node array in post-DFS order, each node's new form
//! built from its inputs' (recorded by node number while the graph was built), so nothing is
//! walked or looked up by node address a second time. A group's parameters are named `p0, p1,
//! ...` in order of first use (the printer makes names unique), typed with the argument's
//! checked type; one expression (or one variable) feeding a group twice becomes one parameter.
//! Scalar constants fused into a group stay inline; other constants become parameters unless
//! `relay.FuseOps.link_params` is set. The function is `Primitive=1` when its body calls
//! something (else `Primitive=0`) and also `relay.reshape_only=1` when every call in it is
//! reshape-like. Tuples are never wrapped (a tuple root stays a tuple of fused calls); a
//! projection whose tuple is in another group is kept as a projection; `annotation.stop_fusion`
//! disappears (its argument is used); non-computational ops (`on_device`, memory and VM ops)
//! are left as plain calls.
//!
//! Options: `fuse_opt_level` (-1: the context's opt_level; 0 puts every op in its own group);
//! config `relay.FuseOps.max_depth` (default 256 nodes per group) and
//! `relay.FuseOps.link_params`.
//!
//! Invariants: existing `Primitive` functions and functions with a `Compiler` attribute are left
//! untouched; fusion never crosses a `let`, an `if` or a function boundary (their values are
//! fused separately inside); the output is typed (every new node carries its type), well-formed,
//! and shares every node that did not change. Linear in the graph size for the usual shapes
//! (each node's path check covers the nodes up to its post-dominator), with no recursion.
//!
//! Under a target with a `max_function_args` (metal 31, opencl 128, or `-max_function_args=`),
//! a group is not grown past that many arguments, counted as TVM counts them (a tensor with
//! `?` dimensions also passes its shape and strides), with TVM's postponed fusion of a node
//! whose producers' groups are not yet counted. Deliberately not done:
//! the `TShapeDataDependent` attribute (only `dyn.*` ops with a dynamic result are opaque).

mod graph;
mod partition;

use crate::ir::attrs::static_str;
use crate::ir::mutate::{
    rebuild_call, rebuild_function, rebuild_get_item, rebuild_if, rebuild_tuple,
};
use crate::ir::{
    AttrValue, Attrs, Call, Expr, ExprKind, Function, GlobalVar, Let, Module, Type, Var,
};
use crate::pass::{leaf_function_pass, Pass, PassCx, PassError, PassOptions};
use graph::{post_dominators, Graph, NO_NODE};
use partition::Partition;
use rustc_hash::FxHashMap;

/// TVM's `kMaxFusedOps`, the default of `relay.FuseOps.max_depth`.
pub const DEFAULT_MAX_DEPTH: usize = 256;

/// Settings of one FuseOps run.
#[derive(Clone, Copy, Debug)]
pub struct FuseConfig {
    /// The fusion level: 0 puts every op in its own group.
    pub opt_level: i64,
    /// The largest number of nodes in a group.
    pub max_depth: usize,
    /// Keep constants inside the fused functions instead of passing them as parameters.
    pub link_params: bool,
    /// The most arguments a fused function may take (the target's `max_function_args`), 0
    /// for no limit.
    pub max_function_args: usize,
}

impl FuseConfig {
    pub fn new(opt_level: i64) -> FuseConfig {
        FuseConfig {
            opt_level,
            max_depth: DEFAULT_MAX_DEPTH,
            link_params: false,
            max_function_args: 0,
        }
    }
}

/// Fuses the ops of one typed function (a `Function` expression). Primitive and `Compiler`
/// functions come back unchanged.
pub fn fuse_function(f: &Expr, cfg: FuseConfig) -> Expr {
    if f.as_function().is_some_and(graph::is_sealed) {
        return f.clone();
    }
    let mut g = Graph::build(f);
    let uses = std::mem::take(&mut g.uses);
    let dom = post_dominators(&g);
    let partition = Partition::run(
        &g,
        &dom,
        cfg.opt_level,
        cfg.max_depth,
        cfg.max_function_args,
    );
    let mut fuser = Fuser {
        graph: &g,
        partition,
        groups: FxHashMap::default(),
        link_params: cfg.link_params,
        results: Vec::with_capacity(g.nodes.len()),
        pending_uses: uses,
        param_names: ParamNames::default(),
    };
    let out = fuser.run();
    graph::give_uses(fuser.pending_uses);
    out
}

/// Fuses every function of a typed module that a function pass would visit.
pub fn fuse_module(m: &Module, cfg: FuseConfig) -> Module {
    m.map_functions(|_, f| {
        let skip = f.as_function().is_some_and(Function::skips_optimization);
        Ok::<_, ()>(if skip {
            f.clone()
        } else {
            fuse_function(f, cfg)
        })
    })
    .expect("infallible")
}

/// The parameters and arguments collected for one group, and what its body calls (TVM walks
/// each finished body for that, `CheckReshapeOnly`; the rewrite sees every call and parameter
/// of the group as it builds them, so nothing is walked again).
#[derive(Default)]
struct GroupInfo {
    /// One vector for the group (the function's parameters and the call's arguments are
    /// split out of it once, at their exact sizes).
    params: Vec<Param>,
    /// The body calls something.
    has_call: bool,
    /// A call of an op that is not reshape-like, or a parameter that is not a tensor.
    not_reshape_only: bool,
    /// Where each parameter's key is in `params`, once the group has more than [`INDEXED`]
    /// parameters (a linear search made a group fed by many nodes quadratic: the fused
    /// `concatenate` of an unrolled LSTM's hidden states takes one parameter a step). Boxed:
    /// nearly every group has a few parameters and never builds one.
    index: Option<Box<FxHashMap<ArgKey, u32>>>,
}

/// How many parameters a group finds by a linear search before it indexes them.
const INDEXED: usize = 16;

/// A parameter of a group: the variable, its use in the body, the argument passed for it and
/// what makes another argument the same one.
struct Param {
    var: Var,
    use_: Expr,
    arg: Expr,
    key: ArgKey,
}

/// What makes two arguments the same parameter: the same variable, or the same node.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum ArgKey {
    Var(u64),
    Node(usize),
}

impl GroupInfo {
    fn param_for(&mut self, arg: &Expr, ty: Option<&Type>, names: &mut ParamNames) -> Expr {
        let key = match arg.kind() {
            ExprKind::Var(v) => ArgKey::Var(v.id()),
            _ => ArgKey::Node(arg.id()),
        };
        let found = match &self.index {
            None => self.params.iter().position(|p| p.key == key),
            Some(index) => index.get(&key).map(|&i| i as usize),
        };
        if let Some(i) = found {
            return self.params[i].use_.clone();
        }
        self.not_reshape_only |= ty.and_then(Type::as_tensor).is_none();
        let var = Var::named(names.get(self.params.len()), ty.cloned());
        let use_ = Expr::with_info(ExprKind::Var(var.clone()), ty.cloned(), Default::default());
        self.params.push(Param {
            var,
            use_: use_.clone(),
            arg: arg.clone(),
            key,
        });
        let at = self.params.len() - 1;
        match &mut self.index {
            Some(index) => {
                index.insert(key, at as u32);
            }
            None if self.params.len() > INDEXED => {
                let keys = self.params.iter().enumerate();
                self.index = Some(Box::new(keys.map(|(i, p)| (p.key, i as u32)).collect()));
            }
            None => {}
        }
        use_
    }
}

/// `p0`, `p1`, ...: a fused function's parameters are named by position, so every group of a
/// run uses the same few names; a run keeps one string per position it has named (each is
/// inline in its `EcoString`: no allocation) instead of formatting one per parameter.
#[derive(Default)]
struct ParamNames(Vec<ecow::EcoString>);

impl ParamNames {
    fn get(&mut self, i: usize) -> ecow::EcoString {
        while self.0.len() <= i {
            let k = self.0.len();
            self.0.push(ecow::eco_format!("p{k}"));
        }
        self.0[i].clone()
    }
}

/// The rewrite: one pass over the graph's nodes in post-DFS order (children first), each
/// node's new form built from its inputs' and stored under its number; no second traversal of
/// the function and no table from nodes to numbers.
struct Fuser<'g> {
    graph: &'g Graph<'g>,
    partition: Partition,
    groups: FxHashMap<u32, GroupInfo>,
    link_params: bool,
    /// The new form of every node built so far, until its last consumer takes it out.
    results: Vec<Option<Expr>>,
    /// Every node's consumers not yet built (from [`Graph::uses`]). The last one takes the
    /// result instead of cloning it, so the rewrite ends with no result left to release: a
    /// sweep over the results dropping each would reach every shared node once more, on a
    /// program larger than the caches a wait on memory per node.
    pending_uses: Vec<u32>,
    /// The parameter names made so far in this run.
    param_names: ParamNames,
}

/// How many nodes ahead the rewrite prefetches.
const PREFETCH_NODES: usize = 8;

impl Fuser<'_> {
    fn run(&mut self) -> Expr {
        let graph = self.graph;
        for n in 0..graph.nodes.len() as u32 {
            // The nodes come in a known order: fetch a few ahead (on a program larger than
            // the caches each one is otherwise a wait on memory).
            if let Some(ahead) = graph.nodes.get(n as usize + PREFETCH_NODES) {
                ahead.expr.prefetch();
            }
            let e = graph.nodes[n as usize].expr;
            let out = self.node(n, e);
            self.results.push(Some(out));
        }
        let root = self.results.len().checked_sub(1).expect("a function node");
        self.results[root].take().expect("the root's result")
    }

    /// The new form of input `i` (`orig`, the child itself, for an op reference).
    fn input(&mut self, i: u32, orig: &Expr) -> Expr {
        if i == NO_NODE {
            return orig.clone();
        }
        let left = &mut self.pending_uses[i as usize];
        *left -= 1;
        let slot = &mut self.results[i as usize];
        if *left > 0 { slot.clone() } else { slot.take() }
            .expect("an input is built before its consumers, and taken by the last one")
    }

    /// The new forms of all of node `n`'s inputs.
    fn inputs(&mut self, n: u32, e: &Expr) -> Vec<Expr> {
        let ins = self.graph.inputs(n);
        let mut kids: Vec<&Expr> = Vec::with_capacity(ins.len());
        e.kind().for_each_child(|c| kids.push(c));
        debug_assert_eq!(kids.len(), ins.len());
        kids.into_iter()
            .zip(ins)
            .map(|(c, &i)| self.input(i, c))
            .collect()
    }

    fn node(&mut self, n: u32, e: &Expr) -> Expr {
        match e.kind() {
            ExprKind::Var(_)
            | ExprKind::GlobalVar(_)
            | ExprKind::Constant(_)
            | ExprKind::Op(_)
            | ExprKind::Constructor(_) => e.clone(),
            ExprKind::Match(_)
            | ExprKind::RefNew(_)
            | ExprKind::RefRead(_)
            | ExprKind::RefWrite(..) => {
                let kids = self.inputs(n, e);
                crate::ir::mutate::rebuild_other(e, kids)
            }
            ExprKind::Function(f) => {
                let Some(&b) = self.graph.inputs(n).first() else {
                    // A sealed (Primitive or external) function: kept as it is.
                    return e.clone();
                };
                let body = self.input(b, &f.body);
                rebuild_function(e, f, body)
            }
            ExprKind::Let(l) => {
                let ins = self.graph.inputs(n);
                let (vi, bi) = (ins[0], ins[1]);
                let value = self.input(vi, &l.value);
                let body = self.input(bi, &l.body);
                if value.ptr_eq(&l.value) && body.ptr_eq(&l.body) {
                    return e.clone();
                }
                // Fusion keeps every type, so the let's is its own: the children's types are
                // not compared (on a let chain, reading the values again is a wait on memory
                // per let when the program is larger than the caches).
                let kind = ExprKind::Let(Let {
                    var: l.var.clone(),
                    value,
                    body,
                });
                Expr::with_info(kind, e.ty().cloned(), e.span())
            }
            ExprKind::If(_) => {
                let mut kids = self.inputs(n, e).into_iter();
                let mut next = || kids.next().expect("three children");
                let (c, t, f) = (next(), next(), next());
                rebuild_if(e, c, t, f)
            }
            ExprKind::Call(c) => self.call(n, e, c),
            ExprKind::Tuple(old) => self.tuple(n, e, old),
            ExprKind::TupleGetItem(t, index) => self.get_item(n, e, t, *index),
        }
    }

    /// Node `n`'s group and whether `n` is that group's root.
    fn group_of(&mut self, n: u32) -> (u32, bool) {
        let group = self.partition.root(n);
        (group, group == n)
    }

    /// TVM's `GetNewArguments`: arguments from another group become parameters. `old` are the
    /// original arguments, `nodes` their nodes.
    fn new_arguments(&mut self, old: &[Expr], nodes: &[u32], group: u32) -> Vec<Expr> {
        old.iter()
            .zip(nodes)
            .map(|(o, &i)| {
                let n = self.input(i, o);
                let same_group = i != NO_NODE && self.partition.root(i) == group;
                if same_group || (self.link_params && n.as_constant().is_some()) {
                    n
                } else {
                    let names = &mut self.param_names;
                    self.groups
                        .entry(group)
                        .or_default()
                        .param_for(&n, o.ty(), names)
                }
            })
            .collect()
    }

    /// Wraps a group's body in a `Primitive` function and calls it with the group's arguments.
    fn make_function(&mut self, group: u32, orig: &Expr, body: Expr) -> Expr {
        let info = self.groups.remove(&group).unwrap_or_default();
        let (has_call, reshape_only) = (info.has_call, !info.not_reshape_only);
        // The attribute names are shared strings (`static_str`), not an allocation per kernel.
        let mut attrs: Vec<(std::sync::Arc<str>, AttrValue)> =
            Vec::with_capacity(1 + usize::from(has_call && reshape_only));
        attrs.push((static_str("Primitive"), AttrValue::int(has_call as i64)));
        if has_call && reshape_only {
            attrs.push((static_str("relay.reshape_only"), AttrValue::int(1)));
        }
        let ret = orig.ty().cloned();
        let n = info.params.len();
        let (mut params, mut args) = (Vec::with_capacity(n), Vec::with_capacity(n));
        let mut param_types: Option<Vec<Type>> = Some(Vec::with_capacity(n));
        for p in info.params {
            match (&mut param_types, p.var.ann()) {
                (Some(ts), Some(t)) => ts.push(t.clone()),
                _ => param_types = None,
            }
            params.push(p.var);
            args.push(p.arg);
        }
        let fn_ty = param_types
            .zip(ret.clone())
            .map(|(ps, r)| Type::func(ps, r));
        let func = Function {
            type_params: Vec::new(),
            params,
            body,
            ret_type: ret.clone(),
            attrs,
        };
        let callee = Expr::with_info(ExprKind::Function(Box::new(func)), fn_ty, orig.span());
        let call = Call {
            callee,
            args: args.into_boxed_slice(),
            attrs: Attrs::NONE,
        };
        Expr::with_info(ExprKind::Call(call), ret, orig.span())
    }

    /// A call of an op outside fusion, of a function, a variable or a global: rebuilt only when
    /// an input changed.
    fn plain_call(&mut self, n: u32, e: &Expr, c: &Call, callee: Expr) -> Expr {
        let ins = self.graph.inputs(n);
        let args = c
            .args
            .iter()
            .zip(&ins[1..])
            .map(|(a, &i)| self.input(i, a))
            .collect();
        rebuild_call(e, callee, args)
    }

    fn call(&mut self, n: u32, e: &Expr, c: &Call) -> Expr {
        let graph = self.graph;
        let ins = graph.inputs(n);
        let callee = self.input(ins[0], &c.callee);
        let ExprKind::Op(op) = c.callee.kind() else {
            return self.plain_call(n, e, c, callee);
        };
        if op.non_computational && !op.name().starts_with("qnn.") {
            return self.plain_call(n, e, c, callee);
        }
        if op.name() == "annotation.stop_fusion" {
            // The annotation disappears: its argument is used.
            let mut args = c.args.iter().zip(&ins[1..]).map(|(a, &i)| self.input(i, a));
            return args.next().unwrap_or_else(|| e.clone());
        }
        let (group, is_root) = self.group_of(n);
        let info = self.groups.entry(group).or_default();
        info.has_call = true;
        info.not_reshape_only |= !RESHAPES.contains(&op.name());
        let new_args = self.new_arguments(&c.args, &ins[1..], group);
        let kind = ExprKind::Call(Call {
            callee,
            args: new_args.into(),
            attrs: c.attrs.clone(),
        });
        let new_call = Expr::with_info(kind, e.ty().cloned(), e.span());
        if is_root {
            self.make_function(group, e, new_call)
        } else {
            new_call
        }
    }

    fn tuple(&mut self, n: u32, e: &Expr, old: &[Expr]) -> Expr {
        let (group, is_root) = self.group_of(n);
        if is_root {
            let fields = self.inputs(n, e);
            return rebuild_tuple(e, fields);
        }
        let fields = self.new_arguments(old, self.graph.inputs(n), group);
        Expr::with_info(ExprKind::Tuple(fields), e.ty().cloned(), e.span())
    }

    fn get_item(&mut self, n: u32, e: &Expr, old: &Expr, index: usize) -> Expr {
        let (group, is_root) = self.group_of(n);
        let t = self.graph.inputs(n)[0];
        if is_root && (t == NO_NODE || self.partition.root(t) != group) {
            // The tuple comes from another group (an opaque op): keep a plain projection.
            self.groups.remove(&group);
            let tuple = self.input(t, old);
            return rebuild_get_item(e, tuple, index);
        }
        let new_tuple = self
            .new_arguments(std::slice::from_ref(old), &[t], group)
            .remove(0);
        let new_node = Expr::with_info(
            ExprKind::TupleGetItem(new_tuple, index),
            e.ty().cloned(),
            e.span(),
        );
        if is_root {
            self.make_function(group, e, new_node)
        } else {
            new_node
        }
    }
}

/// The reshape-like ops (TVM's `TReshapeOp`): a kernel of only these is `relay.reshape_only`.
const RESHAPES: &[&str] = &[
    "reshape",
    "contrib_reverse_reshape",
    "squeeze",
    "expand_dims",
    "dyn.reshape",
    "dyn.squeeze",
    "dyn.expand_dims",
];

/// The fusion level a run uses: the option, or the context's opt_level for -1.
fn level(option: i64, cx: &PassCx) -> i64 {
    if option < 0 {
        cx.context().opt_level().into()
    } else {
        option
    }
}

/// The FuseOps function pass.
pub fn fuse_ops(fuse_opt_level: i64) -> Pass {
    let info = super::builtin_info("FuseOps");
    leaf_function_pass(
        info,
        move |g: &GlobalVar, f: &Expr, m: &Module, cx: &mut PassCx| {
            if f.as_function().is_some_and(graph::is_sealed) {
                return Ok(f.clone());
            }
            let config = cx.context().config();
            let max_depth = config
                .get_or_default("relay.FuseOps.max_depth")
                .and_then(|v| v.as_int())
                .map_or(DEFAULT_MAX_DEPTH, |d| d.max(1) as usize);
            let link_params = config
                .get_or_default("relay.FuseOps.link_params")
                .and_then(|v| v.as_bool())
                .unwrap_or(false);
            let max_function_args = cx.context().target().map_or(0, |t| t.max_function_args());
            let cfg = FuseConfig {
                opt_level: level(fuse_opt_level, cx),
                max_depth,
                link_params,
                max_function_args,
            };
            let typed = super::typed::typed_function("FuseOps", g, f, m)?;
            Ok(fuse_function(&typed, cfg))
        },
    )
}

/// The registry's constructor: `FuseOps(fuse_opt_level=-1)`.
pub fn create(options: &PassOptions) -> Result<Pass, PassError> {
    Ok(fuse_ops(options.get_int("fuse_opt_level").unwrap_or(-1)))
}

#[cfg(test)]
mod tests {
    use super::{fuse_module, FuseConfig};
    use crate::passes::infer_type::infer_module;
    use crate::text::{parse_module, print_module};

    /// `relay.reshape_only=1` marks exactly the kernels whose every call is reshape-like (on
    /// tensor parameters); `Primitive=1` every kernel that calls something.
    #[test]
    fn kernels_of_only_reshapes_are_marked_reshape_only() {
        let m = parse_module(
            r#"def @main(%x: Tensor[(1, 4, 1), float32], %y: Tensor[(4), float32]) {
                 %0 = squeeze(%x, axis=[2]);
                 %1 = reshape(%0, newshape=[4]);
                 %2 = expand_dims(%1, axis=0);
                 %3 = nn.softmax(%2);
                 %4 = reshape(%3, newshape=[4]);
                 %5 = add(%4, %y);
                 (%5, %1)
               }"#,
            "reshapes",
        )
        .unwrap();
        let fused = print_module(&fuse_module(&infer_module(&m).unwrap(), FuseConfig::new(2)));
        let kernels: Vec<(Vec<&str>, bool)> = fused
            .split("= fn (")
            .skip(1)
            .map(|k| {
                let k = &k[..k.find("} /*").expect("a kernel ends")];
                let ops = ["squeeze", "reshape", "expand_dims", "nn.softmax", "add"]
                    .into_iter()
                    .filter(|op| k.contains(&format!(" {op}(")))
                    .collect();
                assert!(k.contains("Primitive=1"), "{k}");
                (ops, k.contains("relay.reshape_only=1"))
            })
            .collect();
        assert_eq!(
            kernels,
            vec![
                (vec!["squeeze", "reshape"], true),
                (vec!["expand_dims"], true),
                (vec!["nn.softmax"], false),
                (vec!["reshape", "add"], false),
            ],
            "{fused}"
        );
    }

    /// A graph takes the buffers the last graph on its thread left (as a repeated pipeline
    /// builds the same graph again and again): the second build of a function grows nothing,
    /// and fusing with reused buffers gives the same module as with fresh ones.
    #[test]
    fn a_graph_reuses_the_last_graphs_buffers() {
        use super::graph::Graph;
        let m = infer_module(&parse_module(&crate::testgen::peer_model(40, 8), "peer").unwrap())
            .unwrap();
        let f = m.get("main").expect("main");
        let first = Graph::build(f);
        let (len, at) = (first.nodes.len(), first.nodes.as_ptr() as usize);
        assert!(len > 300, "{len} nodes");
        drop(first);
        let again = Graph::build(f);
        assert_eq!(again.nodes.len(), len);
        assert_eq!(
            again.nodes.as_ptr() as usize,
            at,
            "the node buffer was reused"
        );
        drop(again);
        let once = print_module(&fuse_module(&m, FuseConfig::new(2)));
        let twice = print_module(&fuse_module(&m, FuseConfig::new(2)));
        assert_eq!(once, twice);
    }
}
