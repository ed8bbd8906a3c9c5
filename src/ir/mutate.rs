//! The traversal API passes are written with (TVM's `ExprVisitor` / `ExprMutator`, seed 003):
//! a visitor and a mutator with per-node-kind hooks and a default that visits every child, so a
//! pass overrides only the kinds it cares about.
//!
//! Both walk the graph post-order with an explicit stack (stack-safe on million-deep programs)
//! and memoize by node identity, so a shared node is visited once and a DAG stays a DAG. The
//! mutator does functional update: when no child changed, a hook's default returns the original
//! node and allocates nothing. A rebuilt node keeps its span, and keeps its checked type when
//! every child kept its type (types in Relay are determined by the children's types and the
//! attributes); otherwise the type is dropped until InferType runs again.

use super::adt::Match;
use super::attrs::Attrs;
use super::expr::{Call, Expr, ExprKind, Function, If, Let, Var};
use super::tensor::Constant;
use super::types::Type;

/// Read-only traversal. `pre` decides whether to descend into a node's children; `visit` is
/// called once per unique node, after its children.
pub trait Visitor {
    fn pre(&mut self, _e: &Expr) -> bool {
        true
    }
    fn visit(&mut self, e: &Expr);
}

/// Walks `root` with `v` (see [`Visitor`]).
///
/// The work stack holds borrowed nodes: every node reached is owned by `root`'s graph, which
/// outlives the walk, so no reference count is touched (on large programs the atomic
/// increments on cold cache lines were most of a walk's time). Only shared nodes go into the
/// seen-set: a node with a single reference has a single parent and is reached once (see
/// [`Expr::is_shared`]), and most nodes of a program are such nodes.
pub fn walk<V: Visitor + ?Sized>(v: &mut V, root: &Expr) {
    walk_refs(root, |e, exit| {
        if exit {
            v.visit(e);
            true
        } else {
            v.pre(e)
        }
    });
}

/// [`walk`] with one closure and the borrow's lifetime: `f(e, false)` on entering a node
/// (return false to skip its children), `f(e, true)` after its children. The references
/// stay valid as long as `root`, so a pass can keep them (a post-order list of `&Expr`)
/// instead of cloning every node: no reference count touched now, none to drop later.
pub fn walk_refs<'a>(root: &'a Expr, mut f: impl FnMut(&'a Expr, bool) -> bool) {
    // Buffers reused from this thread's last traversals (see `scratch`).
    let mut seen = super::scratch::take_set();
    let mut stack: Vec<(&Expr, bool)> = super::scratch::take_vec();
    stack.push((root, false));
    while let Some((e, expanded)) = stack.pop() {
        if expanded {
            f(e, true);
            continue;
        }
        if e.is_shared() && !seen.insert(e.id()) {
            continue;
        }
        stack.push((e, true));
        e.prefetch_next();
        if f(e, false) {
            push_children(e, &mut stack, |k| !k.is_shared() || !seen.contains(&k.id()));
        }
    }
    super::scratch::give_vec(stack);
    super::scratch::give_set(seen);
}

/// Pushes `e`'s unexpanded children so that they pop in evaluation order.
fn push_children<'a>(
    e: &'a Expr,
    stack: &mut Vec<(&'a Expr, bool)>,
    wanted: impl Fn(&Expr) -> bool,
) {
    e.kind().for_each_child_rev(|k| {
        if wanted(k) {
            stack.push((k, false));
        }
    });
}

/// A rewrite. Every hook receives the original node and its already-rewritten children and
/// returns the replacement; the defaults rebuild only when a child changed.
pub trait Mutator {
    /// Called before the children are visited; returning `Some` replaces the node without
    /// visiting its children.
    fn pre(&mut self, _e: &Expr) -> Option<Expr> {
        None
    }
    fn var(&mut self, e: &Expr, _v: &Var) -> Expr {
        e.clone()
    }
    fn constant(&mut self, e: &Expr, _c: &Constant) -> Expr {
        e.clone()
    }
    /// Globals and op references.
    fn leaf(&mut self, e: &Expr) -> Expr {
        e.clone()
    }
    fn call(&mut self, e: &Expr, callee: Expr, args: Vec<Expr>, attrs: &Attrs) -> Expr {
        let _ = attrs;
        rebuild_call(e, callee, args)
    }
    fn tuple(&mut self, e: &Expr, fields: Vec<Expr>) -> Expr {
        rebuild_tuple(e, fields)
    }
    fn get_item(&mut self, e: &Expr, tuple: Expr, index: usize) -> Expr {
        rebuild_get_item(e, tuple, index)
    }
    fn let_(&mut self, e: &Expr, var: &Var, value: Expr, body: Expr) -> Expr {
        rebuild_let(e, var.clone(), value, body)
    }
    /// Whether the value of the let `e` (binding `var`) is rewritten. When false its value is
    /// not visited at all and [`Mutator::let_`] receives the original value: for a pass that
    /// drops the binding (a dead let), so that dead code costs nothing. Asked when the let is
    /// reached, before its value and body.
    fn let_value_wanted(&mut self, _e: &Expr, _var: &Var) -> bool {
        true
    }
    fn if_(&mut self, e: &Expr, cond: Expr, then_branch: Expr, else_branch: Expr) -> Expr {
        rebuild_if(e, cond, then_branch, else_branch)
    }
    fn function(&mut self, e: &Expr, f: &Function, body: Expr) -> Expr {
        rebuild_function(e, f, body)
    }
    /// A `match`: its rewritten scrutinee and clause bodies (in clause order).
    fn match_(&mut self, e: &Expr, m: &Match, data: Expr, rhs: Vec<Expr>) -> Expr {
        let _ = m;
        let mut kids = rhs;
        kids.insert(0, data);
        rebuild_other(e, kids)
    }
    /// `ref`, `ref_read` and `ref_write`, with their rewritten operands.
    fn reference(&mut self, e: &Expr, kids: Vec<Expr>) -> Expr {
        rebuild_other(e, kids)
    }
    /// Asked, before the hook, for a node none of whose children changed (never for one
    /// whose let value was left unvisited): [`Unchanged::Keep`] when the hook would return
    /// `e` itself, [`Unchanged::Replace`] with the result when the mutator can tell it from
    /// the node alone, [`Unchanged::Hook`] (the default) to run the hook. Skipping the hook
    /// spares an unchanged subgraph its argument vectors and the reference counts on its
    /// nodes, which on a program larger than the caches are writes to cold lines (without
    /// it FoldConstant, FoldScaleAxis and EliminateCommonSubexpr take about twice as long on
    /// a large model: benches/README.md, "The session path").
    fn unchanged(&mut self, _e: &Expr) -> Unchanged {
        Unchanged::Hook
    }
}

/// What a mutation does with a node none of whose children changed ([`Mutator::unchanged`]).
pub enum Unchanged {
    /// Run the node's hook.
    Hook,
    /// The node is its own result.
    Keep,
    /// This is the node's result.
    Replace(Expr),
}

impl Unchanged {
    /// `Keep` when `keep`, else `Hook`.
    pub fn keep_if(keep: bool) -> Unchanged {
        if keep {
            Unchanged::Keep
        } else {
            Unchanged::Hook
        }
    }
}

/// The memo of a mutation, reusable across several roots (e.g. all functions of a module).
/// Its tables come from, and go back to, this thread's [`scratch`](super::scratch) buffers.
pub struct MutateState {
    /// Shared node -> its rewritten form, `None` when that is the node itself.
    memo: super::NodeMap<Option<Expr>>,
    /// Keeps the roots alive, and with them every original node, and every node the mutation
    /// built (memo keys and passes' side tables are node addresses, which must not be reused
    /// while the mutation runs).
    keep: Vec<Expr>,
}

impl Default for MutateState {
    fn default() -> Self {
        MutateState {
            memo: super::scratch::take_memo(),
            keep: super::scratch::take_vec(),
        }
    }
}

impl Drop for MutateState {
    fn drop(&mut self) {
        super::scratch::give_memo(std::mem::take(&mut self.memo));
        super::scratch::give_vec(std::mem::take(&mut self.keep));
    }
}

impl MutateState {
    /// The rewritten form of a shared node already visited (unshared nodes are not kept).
    pub fn get(&self, e: &Expr) -> Option<Expr> {
        let r = self.memo.get(&e.id())?;
        Some(r.clone().unwrap_or_else(|| e.clone()))
    }
}

/// Rewrites `root` with `m`.
pub fn mutate<M: Mutator + ?Sized>(m: &mut M, root: &Expr) -> Expr {
    mutate_with(m, root, &mut MutateState::default())
}

/// Rewrites `root` with `m`, sharing `state` with earlier calls.
///
/// Children's results travel on a value stack, `None` standing for "the original node"; only
/// shared nodes (see [`Expr::is_shared`]) go into the memo, since a node with one reference is
/// reached once. A node none of whose children changed goes to its hook only when
/// [`Mutator::unchanged`] says so. (When `state` is shared
/// across roots and a later root is a borrowed descendant of an earlier one, its unshared
/// nodes are rewritten again: equal results, less sharing, never a wrong one.)
pub fn mutate_with<M: Mutator + ?Sized>(m: &mut M, root: &Expr, state: &mut MutateState) -> Expr {
    enum Task<'a> {
        Visit(&'a Expr),
        /// The node, whether it was shared when visited (asked before its hook runs: an
        /// unchanged result is a second handle to the node itself), and, for a let, whether
        /// its value was left unvisited ([`Mutator::let_value_wanted`]).
        Build(&'a Expr, bool, bool),
    }
    state.keep.push(root.clone());
    // Borrowed nodes, as in `walk`: `root` owns them all for the whole mutation.
    let mut tasks: Vec<Task<'_>> = super::scratch::take_vec();
    tasks.push(Task::Visit(root));
    // `None`: the result is the original node (no handle taken on it).
    let mut results: Vec<Option<Expr>> = super::scratch::take_vec();
    let same_or = |out: Expr, e: &Expr| if out.ptr_eq(e) { None } else { Some(out) };
    while let Some(task) = tasks.pop() {
        match task {
            Task::Visit(e) => {
                e.prefetch_next();
                let shared = e.is_shared();
                if shared {
                    if let Some(r) = state.memo.get(&e.id()) {
                        results.push(r.clone());
                        continue;
                    }
                }
                if let Some(r) = m.pre(e) {
                    let r = same_or(r, e);
                    if shared {
                        state.memo.insert(e.id(), r.clone());
                    }
                    results.push(r);
                    continue;
                }
                if let ExprKind::Let(l) = e.kind() {
                    if !m.let_value_wanted(e, &l.var) {
                        tasks.push(Task::Build(e, shared, true));
                        tasks.push(Task::Visit(&l.body));
                        continue;
                    }
                }
                tasks.push(Task::Build(e, shared, false));
                e.kind().for_each_child_rev(|k| tasks.push(Task::Visit(k)));
            }
            Task::Build(e, shared, value_skipped) => {
                let mut n = 0;
                if value_skipped {
                    n = 1;
                } else {
                    e.kind().for_each_child(|_| n += 1);
                }
                let base = results.len() - n;
                let as_is = if !value_skipped && results[base..].iter().all(Option::is_none) {
                    m.unchanged(e)
                } else {
                    Unchanged::Hook
                };
                let out = match as_is {
                    Unchanged::Keep => {
                        results.truncate(base);
                        None
                    }
                    Unchanged::Replace(r) => {
                        results.truncate(base);
                        same_or(r, e)
                    }
                    Unchanged::Hook => {
                        let mut kids = results.drain(base..);
                        let mut next = |orig: &Expr| {
                            kids.next()
                                .expect("one result per child")
                                .unwrap_or_else(|| orig.clone())
                        };
                        let out = match e.kind() {
                            ExprKind::Var(v) => m.var(e, v),
                            ExprKind::Constant(c) => m.constant(e, c),
                            ExprKind::GlobalVar(_) | ExprKind::Op(_) | ExprKind::Constructor(_) => {
                                m.leaf(e)
                            }
                            ExprKind::Match(mt) => {
                                let data = next(&mt.data);
                                let rhs = mt.clauses.iter().map(|c| next(&c.rhs)).collect();
                                m.match_(e, mt, data, rhs)
                            }
                            ExprKind::RefNew(_) | ExprKind::RefRead(_) | ExprKind::RefWrite(..) => {
                                let mut kids_in = Vec::with_capacity(2);
                                e.kind().for_each_child(|c| kids_in.push(next(c)));
                                m.reference(e, kids_in)
                            }
                            ExprKind::Call(c) => {
                                let callee = next(&c.callee);
                                let args = c.args.iter().map(&mut next).collect();
                                m.call(e, callee, args, &c.attrs)
                            }
                            ExprKind::Tuple(fs) => {
                                let fields = fs.iter().map(&mut next).collect();
                                m.tuple(e, fields)
                            }
                            ExprKind::TupleGetItem(t, i) => {
                                let t = next(t);
                                m.get_item(e, t, *i)
                            }
                            ExprKind::Let(l) => {
                                let value = if value_skipped {
                                    l.value.clone()
                                } else {
                                    next(&l.value)
                                };
                                let body = next(&l.body);
                                m.let_(e, &l.var, value, body)
                            }
                            ExprKind::If(i) => {
                                let c = next(&i.cond);
                                let t = next(&i.then_branch);
                                let f = next(&i.else_branch);
                                m.if_(e, c, t, f)
                            }
                            ExprKind::Function(f) => {
                                let body = next(&f.body);
                                m.function(e, f, body)
                            }
                        };
                        drop(kids);
                        same_or(out, e)
                    }
                };
                if shared {
                    state.memo.insert(e.id(), out.clone());
                }
                if let Some(out) = &out {
                    // New nodes live as long as the mutation: passes key side tables on the
                    // identity of nodes they built, which must not be freed and reused.
                    state.keep.push(out.clone());
                }
                results.push(out);
            }
        }
    }
    let out = results.pop().expect("the root's result");
    super::scratch::give_vec(tasks);
    super::scratch::give_vec(results);
    out.unwrap_or_else(|| root.clone())
}

fn same(a: &[Expr], b: &[Expr]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.ptr_eq(y))
}

/// True when `new` may stand where `old` stood without changing the parent's type: the same
/// node, or a node of the same (known) type.
fn same_type(old: &Expr, new: &Expr) -> bool {
    old.ptr_eq(new) || (old.ty().is_some() && old.ty() == new.ty())
}

/// The original's type, if every new child has the same type as the old one.
fn inherited_type(orig: &Expr, new_children: &[&Expr]) -> Option<Type> {
    let mut keep = true;
    let mut i = 0;
    orig.kind().for_each_child(|o| {
        let n = new_children.get(i);
        i += 1;
        keep &= n.is_some_and(|n| same_type(o, n));
    });
    if keep && i == new_children.len() {
        orig.ty().cloned()
    } else {
        None
    }
}

fn rebuilt(orig: &Expr, kind: ExprKind, children: &[&Expr]) -> Expr {
    let ty = inherited_type(orig, children);
    Expr::with_info(kind, ty, orig.span())
}

/// `orig` if nothing changed, else a new call with `orig`'s attributes.
pub fn rebuild_call(orig: &Expr, callee: Expr, args: Vec<Expr>) -> Expr {
    let ExprKind::Call(c) = orig.kind() else {
        return orig.clone();
    };
    if callee.ptr_eq(&c.callee) && same(&args, &c.args) {
        return orig.clone();
    }
    // `inherited_type` without a list of the children (a block allocated, grown and freed
    // for every call rebuilt).
    let keeps_type = same_type(&c.callee, &callee)
        && c.args.len() == args.len()
        && c.args.iter().zip(&args).all(|(o, n)| same_type(o, n));
    let ty = if keeps_type { orig.ty().cloned() } else { None };
    Expr::with_info(
        ExprKind::Call(Call {
            callee,
            args: args.into(),
            attrs: c.attrs.clone(),
        }),
        ty,
        orig.span(),
    )
}

pub fn rebuild_tuple(orig: &Expr, fields: Vec<Expr>) -> Expr {
    if let ExprKind::Tuple(old) = orig.kind() {
        if same(&fields, old) {
            return orig.clone();
        }
    }
    let keeps_type = match orig.kind() {
        ExprKind::Tuple(old) => {
            old.len() == fields.len() && old.iter().zip(&fields).all(|(o, n)| same_type(o, n))
        }
        _ => false,
    };
    let ty = if keeps_type { orig.ty().cloned() } else { None };
    Expr::with_info(ExprKind::Tuple(fields), ty, orig.span())
}

pub fn rebuild_get_item(orig: &Expr, tuple: Expr, index: usize) -> Expr {
    if let ExprKind::TupleGetItem(t, i) = orig.kind() {
        if t.ptr_eq(&tuple) && *i == index {
            return orig.clone();
        }
    }
    let kind = ExprKind::TupleGetItem(tuple.clone(), index);
    rebuilt(orig, kind, &[&tuple])
}

pub fn rebuild_let(orig: &Expr, var: Var, value: Expr, body: Expr) -> Expr {
    if let ExprKind::Let(l) = orig.kind() {
        if l.var == var && l.value.ptr_eq(&value) && l.body.ptr_eq(&body) {
            return orig.clone();
        }
    }
    let kids = [&value, &body];
    let ty = inherited_type(orig, &kids);
    Expr::with_info(ExprKind::Let(Let { var, value, body }), ty, orig.span())
}

pub fn rebuild_if(orig: &Expr, cond: Expr, then_branch: Expr, else_branch: Expr) -> Expr {
    if let ExprKind::If(i) = orig.kind() {
        if i.cond.ptr_eq(&cond)
            && i.then_branch.ptr_eq(&then_branch)
            && i.else_branch.ptr_eq(&else_branch)
        {
            return orig.clone();
        }
    }
    let ty = inherited_type(orig, &[&cond, &then_branch, &else_branch]);
    Expr::with_info(
        ExprKind::If(If {
            cond,
            then_branch,
            else_branch,
        }),
        ty,
        orig.span(),
    )
}

/// `orig` if every child in `kids` (in `for_each_child` order) is the old one, else a node of
/// the same kind with these children (keeping the type when the children's types are kept).
pub fn rebuild_other(orig: &Expr, kids: Vec<Expr>) -> Expr {
    let mut i = 0;
    let mut same_kids = true;
    orig.kind().for_each_child(|c| {
        same_kids &= kids.get(i).is_some_and(|k| k.ptr_eq(c));
        i += 1;
    });
    if same_kids && i == kids.len() {
        return orig.clone();
    }
    let refs: Vec<&Expr> = kids.iter().collect();
    rebuilt(orig, orig.kind().with_children(&kids), &refs)
}

pub fn rebuild_function(orig: &Expr, f: &Function, body: Expr) -> Expr {
    if f.body.ptr_eq(&body) {
        return orig.clone();
    }
    let ty = inherited_type(orig, &[&body]);
    Expr::with_info(
        ExprKind::Function(Box::new(Function {
            type_params: f.type_params.clone(),
            params: f.params.clone(),
            body,
            ret_type: f.ret_type.clone(),
            attrs: f.attrs.clone(),
        })),
        ty,
        orig.span(),
    )
}

/// `M` with its [`Mutator::unchanged`] answers taken (counted in `taken`) or, when not
/// `fast`, never asked (every node goes to its hook): tests compare a pass's output both ways.
#[cfg(test)]
pub(crate) struct FastPath<M> {
    pub inner: M,
    pub fast: bool,
    pub taken: usize,
}

#[cfg(test)]
impl<M: Mutator> Mutator for FastPath<M> {
    fn pre(&mut self, e: &Expr) -> Option<Expr> {
        self.inner.pre(e)
    }
    fn var(&mut self, e: &Expr, v: &Var) -> Expr {
        self.inner.var(e, v)
    }
    fn constant(&mut self, e: &Expr, c: &Constant) -> Expr {
        self.inner.constant(e, c)
    }
    fn leaf(&mut self, e: &Expr) -> Expr {
        self.inner.leaf(e)
    }
    fn call(&mut self, e: &Expr, callee: Expr, args: Vec<Expr>, attrs: &Attrs) -> Expr {
        self.inner.call(e, callee, args, attrs)
    }
    fn tuple(&mut self, e: &Expr, fields: Vec<Expr>) -> Expr {
        self.inner.tuple(e, fields)
    }
    fn get_item(&mut self, e: &Expr, tuple: Expr, index: usize) -> Expr {
        self.inner.get_item(e, tuple, index)
    }
    fn let_(&mut self, e: &Expr, var: &Var, value: Expr, body: Expr) -> Expr {
        self.inner.let_(e, var, value, body)
    }
    fn let_value_wanted(&mut self, e: &Expr, var: &Var) -> bool {
        self.inner.let_value_wanted(e, var)
    }
    fn if_(&mut self, e: &Expr, cond: Expr, then_branch: Expr, else_branch: Expr) -> Expr {
        self.inner.if_(e, cond, then_branch, else_branch)
    }
    fn function(&mut self, e: &Expr, f: &Function, body: Expr) -> Expr {
        self.inner.function(e, f, body)
    }
    fn match_(&mut self, e: &Expr, m: &Match, data: Expr, rhs: Vec<Expr>) -> Expr {
        self.inner.match_(e, m, data, rhs)
    }
    fn reference(&mut self, e: &Expr, kids: Vec<Expr>) -> Expr {
        self.inner.reference(e, kids)
    }
    fn unchanged(&mut self, e: &Expr) -> Unchanged {
        if !self.fast {
            // Not even asked: an answer may have side effects (ECSE records the call).
            return Unchanged::Hook;
        }
        let r = self.inner.unchanged(e);
        self.taken += usize::from(!matches!(r, Unchanged::Hook));
        r
    }
}

/// Checks that the mutator `make(function)` makes gives the same printed module with and
/// without its [`Mutator::unchanged`] answers, on every function of each program (typed first
/// when it type-checks), and that the fast path was taken at all.
#[cfg(test)]
pub(crate) fn assert_unchanged_path_agrees<M: Mutator>(
    make: impl Fn(&Expr) -> M,
    programs: &[(String, String)],
) {
    use crate::text::{parse_module, print_module};
    let mut fast_nodes = 0;
    for (name, text) in programs {
        let parsed = parse_module(text, name).unwrap_or_else(|e| panic!("{name}: {e:?}"));
        let m = crate::passes::infer_type::infer_module(&parsed).unwrap_or(parsed);
        let run = |fast: bool, taken: &mut usize| {
            let out: Result<crate::ir::Module, std::convert::Infallible> =
                m.map_functions(|_, f| {
                    let mut p = FastPath {
                        inner: make(f),
                        fast,
                        taken: 0,
                    };
                    let out = mutate(&mut p, f);
                    *taken += p.taken;
                    Ok(out)
                });
            match out {
                Ok(m) => print_module(&m),
                Err(never) => match never {},
            }
        };
        let fast = run(true, &mut fast_nodes);
        let hooks = run(false, &mut 0);
        assert!(
            fast == hooks,
            "{name}: the unchanged path differs from the hooks"
        );
    }
    assert!(fast_nodes > 0, "the unchanged path was never taken");
}

/// Programs to check a pass's fast path on: generated models (peer, conv, LSTM), the golden
/// cases of `tests/relay/<pass>/` whose file name starts with `golden_prefix` (their input
/// part), and the shared corpus when it is next to the checkout.
#[cfg(test)]
pub(crate) fn sample_programs(golden_prefix: &str) -> Vec<(String, String)> {
    use crate::testgen;
    let mut out = vec![
        ("peer".to_string(), testgen::peer_model(40, 8)),
        ("conv".to_string(), testgen::conv_model(40)),
        ("rnn".to_string(), testgen::rnn_model(4)),
    ];
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let sorted = |dir: &std::path::Path| -> Vec<std::path::PathBuf> {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return Vec::new();
        };
        let mut paths: Vec<_> = entries.filter_map(|e| Some(e.ok()?.path())).collect();
        paths.sort();
        paths
    };
    // The golden cases, one folder per pass under tests/relay, then the corpus.
    let mut files: Vec<(bool, std::path::PathBuf)> = Vec::new();
    for dir in sorted(&root.join("tests/relay")) {
        files.extend(sorted(&dir).into_iter().map(|p| (true, p)));
    }
    files.extend(
        sorted(&root.join("../shared/corpus/relay"))
            .into_iter()
            .map(|p| (false, p)),
    );
    for (golden, path) in files {
        let name = path
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .to_string();
        if !name.ends_with(".relay") || (golden && !name.starts_with(golden_prefix)) {
            continue;
        }
        let text = std::fs::read_to_string(&path).expect("readable");
        let input = text.split("// expected:").next().unwrap_or_default();
        // A few corpus programs use what passlab does not parse (references); a golden case
        // may be one whose input is meant not to parse.
        if crate::text::parse_module(input, &name).is_ok() {
            out.push((name, input.to_string()));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::{parse_module, print_module_with, PrintOptions};

    /// Drops the lets of variables named `dead*` without visiting their values; counts the
    /// calls it rebuilds.
    struct DropDead {
        calls: Vec<String>,
    }
    impl Mutator for DropDead {
        fn call(&mut self, e: &Expr, callee: Expr, args: Vec<Expr>, _attrs: &Attrs) -> Expr {
            if let Some((op, _)) = e.call_op_of() {
                self.calls.push(op.name().to_string());
            }
            rebuild_call(e, callee, args)
        }
        fn let_value_wanted(&mut self, _e: &Expr, var: &Var) -> bool {
            !var.name().starts_with("dead")
        }
        fn let_(&mut self, e: &Expr, var: &Var, value: Expr, body: Expr) -> Expr {
            if var.name().starts_with("dead") {
                let ExprKind::Let(l) = e.kind() else {
                    unreachable!("a let")
                };
                assert!(value.ptr_eq(&l.value), "an unvisited value comes as it was");
                return body;
            }
            rebuild_let(e, var.clone(), value, body)
        }
    }

    #[test]
    fn a_let_value_not_wanted_is_never_visited() {
        let m = parse_module(
            "def @main(%x: float32) {
               let %dead = negative(exp(%x));
               let %a = log(%x);
               let %dead2 = sqrt(%a);
               %a
             }",
            "dead",
        )
        .unwrap();
        let mut d = DropDead { calls: Vec::new() };
        let out = mutate(&mut d, m.get("main").unwrap());
        assert_eq!(d.calls, ["log"], "only the live value's call is visited");
        let mut out_m = crate::ir::Module::new();
        out_m.add("main", out).unwrap();
        let text = print_module_with(&out_m, PrintOptions::default());
        assert!(!text.contains("dead") && text.contains("log("), "{text}");
    }

    /// The seed's example: collapse every `if` to its true branch.
    struct TakeTrueBranch;
    impl Mutator for TakeTrueBranch {
        fn if_(&mut self, _e: &Expr, _c: Expr, t: Expr, _f: Expr) -> Expr {
            t
        }
    }

    #[test]
    fn mutator_rewrites_and_shares() {
        let m = parse_module(
            "def @main(%c: bool, %x: float32) { %0 = add(%x, 1f); if (%c) { multiply(%0, %0) } else { %0 } }",
            "t",
        )
        .unwrap();
        let f = m.get("main").unwrap();
        let out = mutate(&mut TakeTrueBranch, f);
        let mut m2 = m.clone();
        m2.replace("main", out).unwrap();
        let text = print_module_with(
            &m2,
            PrintOptions {
                types: false,
                header: false,
                metadata: false,
            },
        );
        assert!(text.contains("multiply(%0, %0)"), "{text}");
        assert!(!text.contains("if"), "{text}");
        // Nothing to change: the very same node comes back.
        struct Nothing;
        impl Mutator for Nothing {}
        assert!(mutate(&mut Nothing, f).ptr_eq(f));
    }

    /// Negates every `exp` (`exp(x)` -> `negative(exp(x))`), keeping every other node, and
    /// records which calls its hook saw.
    struct NegateExp {
        seen: Vec<String>,
    }
    impl Mutator for NegateExp {
        fn call(&mut self, e: &Expr, callee: Expr, args: Vec<Expr>, _attrs: &Attrs) -> Expr {
            let name = e.call_op_of().map(|(op, _)| op.name()).unwrap_or("?");
            self.seen.push(name.to_string());
            let out = rebuild_call(e, callee, args);
            if name == "exp" {
                return Expr::call_op("negative", vec![out]);
            }
            out
        }
        fn unchanged(&mut self, e: &Expr) -> Unchanged {
            Unchanged::keep_if(e.call_op_of().is_none_or(|(op, _)| op.name() != "exp"))
        }
    }

    #[test]
    fn kept_nodes_with_unchanged_children_skip_their_hooks() {
        let m = parse_module(
            "def @main(%x: float32) {
               %0 = add(%x, 1f);
               %1 = multiply(%0, %0);
               %2 = exp(%1);
               %3 = log(%1);
               (subtract(%2, %3), sqrt(%3))
             }",
            "t",
        )
        .unwrap();
        let f = m.get("main").unwrap();
        let mut n = NegateExp { seen: Vec::new() };
        let out = mutate(&mut n, f);
        // add, multiply, log and sqrt have no changed child and are kept: no hook. exp is not
        // kept; subtract has a changed child, so its hook runs (and rebuilds it).
        assert_eq!(n.seen, ["exp", "subtract"]);
        let mut m2 = m.clone();
        m2.replace("main", out.clone()).unwrap();
        let text = print_module_with(&m2, PrintOptions::default());
        assert!(text.contains("negative(%"), "{text}");
        let fields = match &out.as_function().unwrap().body.kind() {
            ExprKind::Tuple(fs) => fs.clone(),
            k => panic!("a tuple, not {}", k.name()),
        };
        let old = match &f.as_function().unwrap().body.kind() {
            ExprKind::Tuple(fs) => fs.clone(),
            k => panic!("a tuple, not {}", k.name()),
        };
        assert!(!fields[0].ptr_eq(&old[0]), "the subtract is rebuilt");
        assert!(fields[1].ptr_eq(&old[1]), "the sqrt comes back as it was");
        // Nothing to change: the root itself comes back, with no hook run.
        let g = parse_module("def @main(%x: float32) { log(add(%x, %x)) }", "t").unwrap();
        let mut n = NegateExp { seen: Vec::new() };
        let root = g.get("main").unwrap();
        assert!(mutate(&mut n, root).ptr_eq(root));
        assert!(n.seen.is_empty());
    }

    #[test]
    fn visitor_counts_each_shared_node_once() {
        let m = parse_module(
            "def @main(%x: float32) { %0 = add(%x, %x); multiply(%0, %0) }",
            "t",
        )
        .unwrap();
        struct Count(usize);
        impl Visitor for Count {
            fn visit(&mut self, e: &Expr) {
                if e.as_call().is_some() {
                    self.0 += 1;
                }
            }
        }
        let mut c = Count(0);
        walk(&mut c, m.get("main").unwrap());
        assert_eq!(c.0, 2);
    }

    /// Every node a mutation builds lives until it ends, so that no address a pass keyed a
    /// side table on is reused meanwhile: a rebuilt argument's hook sees the handle in its
    /// argument vector and the mutation's own.
    #[test]
    fn built_nodes_are_held_to_the_end() {
        struct Rebuild(Vec<usize>);
        impl Mutator for Rebuild {
            fn call(&mut self, e: &Expr, _callee: Expr, args: Vec<Expr>, attrs: &Attrs) -> Expr {
                if let Some(a) = args.first().filter(|a| a.as_call().is_some()) {
                    self.0.push(a.strong_count());
                }
                let op = e.call_op_of().map(|(op, _)| op).expect("op calls");
                Expr::call(Expr::op(op), args, attrs.clone())
            }
        }
        let m = parse_module("def @main(%x: float32) { exp(log(sqrt(%x))) }", "t").unwrap();
        let mut held = Rebuild(Vec::new());
        let out = mutate(&mut held, m.get("main").unwrap());
        assert_eq!(held.0, [2, 2]);
        let mut m2 = m.clone();
        m2.replace("main", out).unwrap();
        let print = |m: &crate::ir::Module| print_module_with(m, PrintOptions::default());
        assert_eq!(print(&m2), print(&m));
    }

    #[test]
    fn the_memo_holds_only_shared_nodes() {
        // An unchanged node's result is a second handle to it: sharing is judged before the
        // hook runs, or every unchanged node of a pass would land in the memo.
        struct Identity;
        impl Mutator for Identity {}
        let m = parse_module(
            "def @main(%x: float32) { %0 = add(%x, 1f); let %y = multiply(%0, %0); negative(%y) }",
            "t",
        )
        .unwrap();
        let f = m.get("main").unwrap();
        let mut state = MutateState::default();
        let out = mutate_with(&mut Identity, f, &mut state);
        assert!(out.ptr_eq(f));
        let body = &f.as_function().unwrap().body;
        let ExprKind::Let(l) = body.kind() else {
            panic!("a let")
        };
        let shared_add = &l.value.as_call().unwrap().args[0];
        assert!(state.get(shared_add).is_some(), "the add has two parents");
        assert!(state.get(body).is_none(), "the let has one");
        assert!(state.get(&l.value).is_none(), "the multiply has one");
        assert!(state.get(&l.body).is_none(), "the negative has one");
    }
}
