//! Structural equality and hashing, like TVM's `StructuralEqual` / `StructuralHash`:
//! bound variables are matched by binding position (names never matter), free variables by
//! identity, or by first use with `map_free_vars` (`assert_structural_equal(map_free_vars=True)`).
//! Checked types and spans are ignored; annotations, attributes and constant data are compared.
//! Both walks are iterative and memoized by node identity, so deep and shared graphs are cheap.

use super::expr::{Expr, ExprKind, Var};
use super::module::Module;
use rustc_hash::{FxHashMap, FxHashSet, FxHasher};
use std::hash::{Hash, Hasher};

/// Structural equality of two expressions.
pub fn expr_equal(a: &Expr, b: &Expr, map_free_vars: bool) -> bool {
    Eq::new(map_free_vars).run(a, b)
}

/// Structural equality of two modules: same function names in the same order, each function
/// equal, same module attributes.
pub fn module_equal(a: &Module, b: &Module, map_free_vars: bool) -> bool {
    if a.len() != b.len() || a.attrs != b.attrs || a.type_defs != b.type_defs {
        return false;
    }
    let mut eq = Eq::new(map_free_vars);
    a.functions()
        .zip(b.functions())
        .all(|((ga, ea), (gb, eb))| ga == gb && eq.run(ea, eb))
}

struct Eq {
    map_free: bool,
    lhs_to_rhs: FxHashMap<u64, u64>,
    rhs_to_lhs: FxHashMap<u64, u64>,
    done: FxHashSet<(usize, usize)>,
}

impl Eq {
    fn new(map_free: bool) -> Eq {
        Eq {
            map_free,
            lhs_to_rhs: FxHashMap::default(),
            rhs_to_lhs: FxHashMap::default(),
            done: FxHashSet::default(),
        }
    }

    fn bind(&mut self, a: &Var, b: &Var) -> bool {
        if a.ann() != b.ann() || a.virtual_device != b.virtual_device {
            return false;
        }
        match (self.lhs_to_rhs.get(&a.id()), self.rhs_to_lhs.get(&b.id())) {
            (None, None) => {
                self.lhs_to_rhs.insert(a.id(), b.id());
                self.rhs_to_lhs.insert(b.id(), a.id());
                true
            }
            (Some(x), Some(y)) => *x == b.id() && *y == a.id(),
            _ => false,
        }
    }

    fn use_var(&mut self, a: &Var, b: &Var) -> bool {
        match (self.lhs_to_rhs.get(&a.id()), self.rhs_to_lhs.get(&b.id())) {
            (Some(x), _) => *x == b.id(),
            (None, Some(_)) => false,
            (None, None) if self.map_free => self.bind(a, b),
            (None, None) => a == b,
        }
    }

    fn run(&mut self, a: &Expr, b: &Expr) -> bool {
        let mut stack = vec![(a.clone(), b.clone())];
        while let Some((a, b)) = stack.pop() {
            if a.ptr_eq(&b) && !self.map_free {
                // Identical nodes are equal unless free variables may map differently.
                continue;
            }
            if !self.done.insert((a.id(), b.id())) {
                continue;
            }
            let ok = match (a.kind(), b.kind()) {
                (ExprKind::Var(x), ExprKind::Var(y)) => self.use_var(x, y),
                (ExprKind::GlobalVar(x), ExprKind::GlobalVar(y)) => x == y,
                (ExprKind::Constant(x), ExprKind::Constant(y)) => x == y,
                (ExprKind::Op(x), ExprKind::Op(y)) => x == y,
                (ExprKind::Tuple(xs), ExprKind::Tuple(ys)) => {
                    let same = xs.len() == ys.len();
                    if same {
                        stack.extend(xs.iter().cloned().zip(ys.iter().cloned()));
                    }
                    same
                }
                (ExprKind::TupleGetItem(x, i), ExprKind::TupleGetItem(y, j)) => {
                    stack.push((x.clone(), y.clone()));
                    i == j
                }
                (ExprKind::Call(x), ExprKind::Call(y)) => {
                    let same = x.args.len() == y.args.len() && x.attrs == y.attrs;
                    if same {
                        stack.push((x.callee.clone(), y.callee.clone()));
                        stack.extend(x.args.iter().cloned().zip(y.args.iter().cloned()));
                    }
                    same
                }
                (ExprKind::Let(x), ExprKind::Let(y)) => {
                    let same = self.bind(&x.var, &y.var);
                    stack.push((x.body.clone(), y.body.clone()));
                    stack.push((x.value.clone(), y.value.clone()));
                    same
                }
                (ExprKind::If(x), ExprKind::If(y)) => {
                    stack.push((x.else_branch.clone(), y.else_branch.clone()));
                    stack.push((x.then_branch.clone(), y.then_branch.clone()));
                    stack.push((x.cond.clone(), y.cond.clone()));
                    true
                }
                (ExprKind::Function(x), ExprKind::Function(y)) => {
                    let same = x.params.len() == y.params.len()
                        && x.ret_type == y.ret_type
                        && x.attrs == y.attrs
                        && x.params.iter().zip(&y.params).all(|(p, q)| self.bind(p, q));
                    stack.push((x.body.clone(), y.body.clone()));
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
    for (g, e) in m.functions() {
        g.hash(&mut h);
        hs.run(e).hash(&mut h);
    }
    m.attrs.hash(&mut h);
    m.type_defs.hash(&mut h);
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
            ExprKind::Function(f) => {
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
