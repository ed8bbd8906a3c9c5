//! Structural equality and hashing, like TVM's `StructuralEqual` / `StructuralHash`:
//! bound variables are matched by binding position (names never matter), free variables by
//! identity, or by first use with `map_free_vars` (`assert_structural_equal(map_free_vars=True)`).
//! Checked types and spans are ignored; annotations, attributes and constant data are compared.
//! Non-constant expressions are graph nodes, as in TVM: one node matches one node of the other
//! side only, so sharing is part of the structure (CSE merging two equal calls changes the
//! program; compared as trees, PrintChanged, `history` and `break changed` would miss such
//! changes). Both walks are iterative and memoized by node identity, so
//! deep and shared graphs are cheap.

use super::adt::Pattern;
use super::attrs::AttrValue;
use super::expr::{Expr, ExprKind, GlobalVar, Var};
use super::module::{Module, TypeDef};
use super::types::{Type, TypeVar};
use rustc_hash::{FxHashMap, FxHashSet, FxHasher};
use std::hash::{Hash, Hasher};
use std::sync::Arc;

/// Structural equality of two expressions.
pub fn expr_equal(a: &Expr, b: &Expr, map_free_vars: bool) -> bool {
    Eq::new(map_free_vars).run(a, b)
}

/// Whether a pass that took `before` and returned `after` changed the module: what "changed"
/// means everywhere (Stats, PrintChanged, the debugger's history and `step`, `equal`'s
/// negation): the same module value, or a structurally equal one (a pass that rebuilt nodes
/// without changing them), is unchanged.
pub fn module_changed(before: &Module, after: &Module) -> bool {
    !before.same_as(after) && !module_equal(before, after, false)
}

/// Structural equality of two modules: same function names in the same order, each function
/// equal, same module attributes.
///
/// Modules are compared as TVM compares them, by name: the functions, type definitions and
/// attributes are maps from global names, so the order they were defined in does not matter.
pub fn module_equal(a: &Module, b: &Module, map_free_vars: bool) -> bool {
    if a.len() != b.len()
        || a.attrs.len() != b.attrs.len()
        || a.type_defs.len() != b.type_defs.len()
    {
        return false;
    }
    let attrs_equal = a
        .attrs
        .iter()
        .all(|(k, v)| b.attrs.iter().any(|(k2, v2)| k == k2 && v == v2));
    let defs_equal = a
        .type_defs
        .iter()
        .all(|d| b.type_defs.iter().any(|d2| d2.name == d.name && d2 == d));
    if !attrs_equal || !defs_equal {
        return false;
    }
    let mut eq = Eq::new(map_free_vars);
    by_name(a).into_iter().all(|(g, ea)| match b.get(g.name()) {
        Some(eb) => {
            eq.ty_rename.clear();
            eq.run(ea, eb)
        }
        None => false,
    })
}

/// The functions of `m` in the order of their names.
fn by_name(m: &Module) -> Vec<(&GlobalVar, &Expr)> {
    let mut fs: Vec<(&GlobalVar, &Expr)> = m.functions().collect();
    fs.sort_unstable_by(|x, y| x.0.name().cmp(y.0.name()));
    fs
}

struct Eq {
    map_free: bool,
    lhs_to_rhs: FxHashMap<u64, u64>,
    rhs_to_lhs: FxHashMap<u64, u64>,
    /// Graph nodes matched so far, both ways (see [`is_graph_node`]).
    nodes_l2r: FxHashMap<usize, usize>,
    nodes_r2l: FxHashMap<usize, usize>,
    done: FxHashSet<(usize, usize)>,
    /// The right side's type parameters renamed to the left side's, for functions whose
    /// type parameters are named differently (alpha-equivalence); empty almost always.
    ty_rename: Vec<(TypeVar, Type)>,
}

/// TVM compares non-constant Relay expression nodes as graph nodes: a node of one side may
/// match one node of the other only, so `%1 = x + y; %1 + %1` is not equal to
/// `%1 = x + y; %2 = x + y; %1 + %2` (a pass that merges or splits shared nodes changes the
/// program). Variable references are matched through their variables, constants by value,
/// ops and globals by name.
fn is_graph_node(e: &Expr) -> bool {
    matches!(
        e.kind(),
        ExprKind::Call(_)
            | ExprKind::Tuple(_)
            | ExprKind::TupleGetItem(..)
            | ExprKind::Let(_)
            | ExprKind::If(_)
            | ExprKind::Function(_)
            | ExprKind::Match(_)
            | ExprKind::RefNew(_)
            | ExprKind::RefRead(_)
            | ExprKind::RefWrite(..)
    )
}

/// Records `a` <-> `b` in a one-to-one matching (both directions), or checks it: false when
/// either side is already matched to something else.
fn match_one_to_one<K: std::hash::Hash + std::cmp::Eq + Copy>(
    l2r: &mut FxHashMap<K, K>,
    r2l: &mut FxHashMap<K, K>,
    a: K,
    b: K,
) -> bool {
    match (l2r.get(&a), r2l.get(&b)) {
        (None, None) => {
            l2r.insert(a, b);
            r2l.insert(b, a);
            true
        }
        (Some(x), Some(y)) => *x == b && *y == a,
        _ => false,
    }
}

impl Eq {
    fn new(map_free: bool) -> Eq {
        Eq {
            map_free,
            lhs_to_rhs: FxHashMap::default(),
            rhs_to_lhs: FxHashMap::default(),
            nodes_l2r: FxHashMap::default(),
            nodes_r2l: FxHashMap::default(),
            done: FxHashSet::default(),
            ty_rename: Vec::new(),
        }
    }

    /// Equal types, the right one read with the type parameters renamed so far.
    fn same_type(&self, a: Option<&Type>, b: Option<&Type>) -> bool {
        match (a, b) {
            (Some(a), Some(b)) if !self.ty_rename.is_empty() => *a == b.subst(&self.ty_rename),
            _ => a == b,
        }
    }

    /// Matches two functions' type parameters: positionally, renaming the right side's.
    fn bind_type_params(&mut self, a: &[TypeVar], b: &[TypeVar]) -> bool {
        if a.len() != b.len() {
            return false;
        }
        for (x, y) in a.iter().zip(b) {
            if x == y && !self.ty_rename.iter().any(|(k, _)| k == y) {
                continue;
            }
            match self.ty_rename.iter().find(|(k, _)| k == y) {
                Some((_, t)) if t.as_var() == Some(x) => {}
                // The same name bound again to another parameter: unequal (conservative).
                Some(_) => return false,
                None => self.ty_rename.push((y.clone(), Type::var(x.clone()))),
            }
        }
        true
    }

    /// Matches the variables two patterns bind, and their shapes.
    fn bind_pattern(&mut self, a: &Pattern, b: &Pattern) -> bool {
        crate::ir::deep(|| match (a, b) {
            (Pattern::Wildcard, Pattern::Wildcard) => true,
            (Pattern::Var(x), Pattern::Var(y)) => self.bind(x, y),
            (Pattern::Ctor(c, ps), Pattern::Ctor(d, qs)) => {
                c == d
                    && ps.len() == qs.len()
                    && ps.iter().zip(qs).all(|(p, q)| self.bind_pattern(p, q))
            }
            (Pattern::Tuple(ps), Pattern::Tuple(qs)) => {
                ps.len() == qs.len() && ps.iter().zip(qs).all(|(p, q)| self.bind_pattern(p, q))
            }
            _ => false,
        })
    }

    /// Matches graph nodes `a` and `b` (see [`is_graph_node`]): false when either is already
    /// matched to another node.
    fn match_nodes(&mut self, a: &Expr, b: &Expr) -> bool {
        if !is_graph_node(a) || !is_graph_node(b) {
            return true;
        }
        match_one_to_one(&mut self.nodes_l2r, &mut self.nodes_r2l, a.id(), b.id())
    }

    fn bind(&mut self, a: &Var, b: &Var) -> bool {
        if !self.same_type(a.ann(), b.ann()) || a.virtual_device != b.virtual_device {
            return false;
        }
        match_one_to_one(&mut self.lhs_to_rhs, &mut self.rhs_to_lhs, a.id(), b.id())
    }

    fn use_var(&mut self, a: &Var, b: &Var) -> bool {
        match (self.lhs_to_rhs.get(&a.id()), self.rhs_to_lhs.get(&b.id())) {
            (Some(x), _) => *x == b.id(),
            (None, Some(_)) => false,
            (None, None) if self.map_free => self.bind(a, b),
            (None, None) => a == b,
        }
    }

    fn run<'e>(&mut self, a: &'e Expr, b: &'e Expr) -> bool {
        // Borrowed nodes: the roots own every node reached, for the whole comparison.
        let mut stack: Vec<(&'e Expr, &'e Expr)> = vec![(a, b)];
        while let Some((a, b)) = stack.pop() {
            if a.ptr_eq(b) && !self.map_free {
                // Identical nodes are equal unless free variables may map differently; the
                // graph nodes inside still match themselves (walked, not compared), so that
                // one shared with the rest of one side is not matched to another node there.
                if a.is_shared() && is_graph_node(a) {
                    match (self.nodes_l2r.get(&a.id()), self.nodes_r2l.get(&a.id())) {
                        (Some(x), _) if *x == a.id() => continue,
                        (None, None) => {
                            self.nodes_l2r.insert(a.id(), a.id());
                            self.nodes_r2l.insert(a.id(), a.id());
                        }
                        _ => return false,
                    }
                }
                a.kind().for_each_child(|c| stack.push((c, c)));
                continue;
            }
            // A pair of nodes with one reference each is reached once (through its parents'
            // pair), so it can neither repeat nor meet either node again.
            if a.is_shared() || b.is_shared() {
                if !self.done.insert((a.id(), b.id())) {
                    continue;
                }
                if !self.match_nodes(a, b) {
                    return false;
                }
            }
            let ok = match (a.kind(), b.kind()) {
                (ExprKind::Var(x), ExprKind::Var(y)) => self.use_var(x, y),
                (ExprKind::GlobalVar(x), ExprKind::GlobalVar(y)) => x == y,
                (ExprKind::Constant(x), ExprKind::Constant(y)) => x == y,
                (ExprKind::Op(x), ExprKind::Op(y)) => x == y,
                (ExprKind::Tuple(xs), ExprKind::Tuple(ys)) => {
                    let same = xs.len() == ys.len();
                    if same {
                        stack.extend(xs.iter().zip(ys.iter()));
                    }
                    same
                }
                (ExprKind::TupleGetItem(x, i), ExprKind::TupleGetItem(y, j)) => {
                    stack.push((x, y));
                    i == j
                }
                (ExprKind::Call(x), ExprKind::Call(y)) => {
                    let same = x.args.len() == y.args.len() && x.attrs == y.attrs;
                    if same {
                        stack.push((&x.callee, &y.callee));
                        stack.extend(x.args.iter().zip(y.args.iter()));
                    }
                    same
                }
                (ExprKind::Let(x), ExprKind::Let(y)) => {
                    let same = self.bind(&x.var, &y.var);
                    stack.push((&x.body, &y.body));
                    stack.push((&x.value, &y.value));
                    same
                }
                (ExprKind::If(x), ExprKind::If(y)) => {
                    stack.push((&x.else_branch, &y.else_branch));
                    stack.push((&x.then_branch, &y.then_branch));
                    stack.push((&x.cond, &y.cond));
                    true
                }
                (ExprKind::Constructor(x), ExprKind::Constructor(y)) => x == y,
                (ExprKind::Match(x), ExprKind::Match(y)) => {
                    let same = x.complete == y.complete
                        && x.clauses.len() == y.clauses.len()
                        && x.clauses
                            .iter()
                            .zip(&y.clauses)
                            .all(|(p, q)| self.bind_pattern(&p.pattern, &q.pattern));
                    if same {
                        for (p, q) in x.clauses.iter().zip(&y.clauses).rev() {
                            stack.push((&p.rhs, &q.rhs));
                        }
                        stack.push((&x.data, &y.data));
                    }
                    same
                }
                (ExprKind::RefNew(x), ExprKind::RefNew(y))
                | (ExprKind::RefRead(x), ExprKind::RefRead(y)) => {
                    stack.push((x, y));
                    true
                }
                (ExprKind::RefWrite(x, v), ExprKind::RefWrite(y, w)) => {
                    stack.push((v, w));
                    stack.push((x, y));
                    true
                }
                (ExprKind::Function(x), ExprKind::Function(y)) => {
                    let same = x.params.len() == y.params.len()
                        && self.bind_type_params(&x.type_params, &y.type_params)
                        && self.same_type(x.ret_type.as_ref(), y.ret_type.as_ref())
                        && x.attrs == y.attrs
                        && x.params.iter().zip(&y.params).all(|(p, q)| self.bind(p, q));
                    stack.push((&x.body, &y.body));
                    same
                }
                _ => false,
            };
            if !ok {
                return false;
            }
        }
        true
    }
}

/// A structural hash consistent with [`expr_equal`] (`map_free_vars` as given).
pub fn expr_hash(e: &Expr, map_free_vars: bool) -> u64 {
    Hash_::new(map_free_vars).run(e)
}

/// A structural hash of a module (function names, functions, attributes).
pub fn module_hash(m: &Module, map_free_vars: bool) -> u64 {
    let mut h = FxHasher::default();
    let mut hs = Hash_::new(map_free_vars);
    for (g, e) in by_name(m) {
        g.hash(&mut h);
        hs.run(e).hash(&mut h);
    }
    let mut attrs: Vec<&(Arc<str>, AttrValue)> = m.attrs.iter().collect();
    attrs.sort_by(|x, y| x.0.cmp(&y.0));
    attrs.hash(&mut h);
    let mut defs: Vec<&TypeDef> = m.type_defs.iter().collect();
    defs.sort_by(|x, y| x.name.cmp(&y.name));
    defs.hash(&mut h);
    h.finish()
}

struct Hash_ {
    map_free: bool,
    var_index: FxHashMap<u64, u64>,
    memo: super::NodeMap<u64>,
}

impl Hash_ {
    fn new(map_free: bool) -> Self {
        Hash_ {
            map_free,
            var_index: FxHashMap::default(),
            memo: Default::default(),
        }
    }

    fn binder(&mut self, v: &Var) {
        let n = self.var_index.len() as u64;
        self.var_index.entry(v.id()).or_insert(n);
    }

    fn run(&mut self, root: &Expr) -> u64 {
        let mut stack: Vec<(Expr, bool)> = vec![(root.clone(), false)];
        while let Some((e, expanded)) = stack.pop() {
            if self.memo.contains_key(&e.id()) {
                continue;
            }
            if !expanded {
                match e.kind() {
                    ExprKind::Let(l) => self.binder(&l.var),
                    ExprKind::Function(f) => f.params.iter().for_each(|p| self.binder(p)),
                    ExprKind::Match(m) => m.for_each_bound_var(|v| self.binder(v)),
                    _ => {}
                }
                stack.push((e.clone(), true));
                for c in e.children().into_iter().rev() {
                    stack.push((c.clone(), false));
                }
                continue;
            }
            let h = self.node_hash(&e);
            self.memo.insert(e.id(), h);
        }
        self.memo[&root.id()]
    }

    fn child(&self, e: &Expr) -> u64 {
        self.memo[&e.id()]
    }

    fn var_hash(&mut self, v: &Var, h: &mut FxHasher) {
        match self.var_index.get(&v.id()) {
            Some(i) => (0u8, *i).hash(h),
            None if self.map_free => {
                self.binder(v);
                (1u8, self.var_index[&v.id()]).hash(h)
            }
            None => (2u8, v.id()).hash(h),
        }
        v.ann().hash(h);
    }

    fn pattern_hash(&mut self, p: &Pattern, h: &mut FxHasher) {
        crate::ir::deep(|| {
            std::mem::discriminant(p).hash(h);
            match p {
                Pattern::Wildcard => {}
                Pattern::Var(v) => self.var_hash(v, h),
                Pattern::Ctor(c, ps) => {
                    c.hash(h);
                    ps.iter().for_each(|p| self.pattern_hash(p, h));
                }
                Pattern::Tuple(ps) => ps.iter().for_each(|p| self.pattern_hash(p, h)),
            }
        })
    }

    fn node_hash(&mut self, e: &Expr) -> u64 {
        let mut h = FxHasher::default();
        std::mem::discriminant(e.kind()).hash(&mut h);
        match e.kind() {
            ExprKind::Var(v) => self.var_hash(v, &mut h),
            ExprKind::GlobalVar(g) => g.hash(&mut h),
            ExprKind::Constant(c) => c.hash(&mut h),
            ExprKind::Op(o) => o.hash(&mut h),
            ExprKind::Tuple(fs) => fs.iter().for_each(|f| self.child(f).hash(&mut h)),
            ExprKind::TupleGetItem(t, i) => (self.child(t), i).hash(&mut h),
            ExprKind::Call(c) => {
                self.child(&c.callee).hash(&mut h);
                c.args.iter().for_each(|a| self.child(a).hash(&mut h));
                c.attrs.hash(&mut h);
            }
            ExprKind::Let(l) => {
                self.var_hash(&l.var, &mut h);
                (self.child(&l.value), self.child(&l.body)).hash(&mut h);
            }
            ExprKind::If(i) => (
                self.child(&i.cond),
                self.child(&i.then_branch),
                self.child(&i.else_branch),
            )
                .hash(&mut h),
            ExprKind::Constructor(c) => c.hash(&mut h),
            ExprKind::Match(m) => {
                m.complete.hash(&mut h);
                self.child(&m.data).hash(&mut h);
                for c in &m.clauses {
                    self.pattern_hash(&c.pattern, &mut h);
                    self.child(&c.rhs).hash(&mut h);
                }
            }
            ExprKind::RefNew(x) | ExprKind::RefRead(x) => self.child(x).hash(&mut h),
            ExprKind::RefWrite(r, v) => (self.child(r), self.child(v)).hash(&mut h),
            ExprKind::Function(f) => {
                if !f.type_params.is_empty() {
                    // (Monomorphic functions hash as before: LambdaLift names by the hash.)
                    f.type_params.len().hash(&mut h);
                }
                for p in &f.params {
                    self.var_hash(p, &mut h);
                }
                f.ret_type.hash(&mut h);
                f.attrs.hash(&mut h);
                self.child(&f.body).hash(&mut h);
            }
        }
        h.finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::Call;
    use crate::text::parse_module;

    fn main_of(text: &str) -> Expr {
        parse_module(text, "test")
            .unwrap()
            .get("main")
            .unwrap()
            .clone()
    }

    /// TVM's documented example: `%1 = x + y; %1 + %1` is not `%1 = x + y; %2 = x + y; %1 + %2`.
    #[test]
    fn shared_and_duplicated_nodes_differ_as_in_tvm() {
        let shared = main_of("def @main(%x: float32) { %0 = add(%x, %x); multiply(%0, %0) }");
        let dup = main_of(
            "def @main(%x: float32) { %0 = add(%x, %x); %1 = add(%x, %x); multiply(%0, %1) }",
        );
        let inline = main_of("def @main(%x: float32) { multiply(add(%x, %x), add(%x, %x)) }");
        assert!(!expr_equal(&shared, &dup, false));
        assert!(!expr_equal(&dup, &shared, false));
        assert!(expr_equal(&dup, &inline, false), "two nodes either way");
        let again = main_of("def @main(%y: float32) { %5 = add(%y, %y); multiply(%5, %5) }");
        assert!(expr_equal(&shared, &again, false), "names never matter");
        assert!(expr_equal(&shared, &shared, false));
        assert!(expr_equal(&shared, &shared, true));
    }

    /// A node inside a subtree both sides share, also used outside it: it must meet itself
    /// there too, not a copy.
    #[test]
    fn a_node_shared_into_an_identical_subtree_is_matched_to_itself() {
        let a = main_of(
            "def @main(%x: float32) { %0 = add(%x, %x); %1 = negative(%0); %2 = exp(%1); \
             multiply(%2, %0) }",
        );
        let ExprKind::Function(f) = a.kind() else {
            panic!()
        };
        let ExprKind::Call(mul) = f.body.kind() else {
            panic!()
        };
        let (exp, add) = (mul.args[0].clone(), mul.args[1].clone());
        let ExprKind::Call(add_call) = add.kind() else {
            panic!()
        };
        // The same `exp` node, and a fresh copy of `add` (equal as a tree, another node).
        let copy = Expr::new(ExprKind::Call(add_call.clone()));
        let b_body = Expr::new(ExprKind::Call(Call {
            callee: mul.callee.clone(),
            args: vec![exp.clone(), copy].into(),
            attrs: mul.attrs.clone(),
        }));
        let same_body = Expr::new(ExprKind::Call(Call {
            callee: mul.callee.clone(),
            args: vec![exp, add].into(),
            attrs: mul.attrs.clone(),
        }));
        assert!(!expr_equal(&f.body, &b_body, false));
        assert!(expr_equal(&f.body, &same_body, false));
    }
}
