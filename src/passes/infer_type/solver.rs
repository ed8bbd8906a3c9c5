//! The type solver: a union-find over type terms (with the relation queue of `relations.rs`),
//! in the manner of TVM's `TypeSolver`.
//!
//! A term is a hole (TVM's `IncompleteType`), a fully known [`Type`], or a tuple/function
//! whose fields are themselves solver variables. Unification links roots; a hole always links
//! under the other side, so a root is a hole only while nothing is known about it.
//!
//! Binding a hole wakes only the relations waiting on it (`relations.rs` owns them); when two
//! holes merge, the shorter waiting list joins the longer, so long chains stay linear.
//! Tensor dimensions follow TVM's `UnifyDim`: equal extents unify, `?` against anything
//! gives `?`, a symbolic `meta[...]` extent takes the other side.
//!
//! Deliberately not here: anything about expressions (the generator in `generate.rs` owns
//! the messages that name expressions) and the op shape rules (`shape_rules.rs`). Recursion
//! here follows the nesting of *types* only, never of expressions, and each tuple/function
//! level grows the stack on demand ([`grow`]), so even 100,000-deep tuple types are fine.

use super::relations::Relation;
use crate::ir::TypeKind;
use crate::ir::{scratch, Dim, Span, Type};
use rustc_hash::FxHashMap;
use std::sync::Arc;

/// A solver variable.
pub(super) type TV = u32;

/// Whether `t` mentions one of `map`'s type variables free (not rebound by a nested
/// polymorphic function type).
fn mentions(t: &Type, map: &[(crate::ir::TypeVar, TV)]) -> bool {
    match t.kind() {
        TypeKind::Var(v) => map.iter().any(|(k, _)| k == v),
        TypeKind::Tuple(fs) => fs.iter().any(|f| grow(|| mentions(f, map))),
        TypeKind::Func(ft) => {
            let inner: Vec<(crate::ir::TypeVar, TV)> = map
                .iter()
                .filter(|(k, _)| !ft.type_params.contains(k))
                .cloned()
                .collect();
            !inner.is_empty()
                && ft
                    .params
                    .iter()
                    .chain(std::iter::once(&ft.ret))
                    .any(|p| grow(|| mentions(p, &inner)))
        }
        TypeKind::Named(n) => n.args.iter().any(|a| grow(|| mentions(a, map))),
        TypeKind::Ref(i) => grow(|| mentions(i, map)),
        TypeKind::Tensor(_) | TypeKind::Incomplete => false,
    }
}

/// Runs `f` with room for one more level of type nesting (the stack grows on demand).
fn grow<R>(f: impl FnOnce() -> R) -> R {
    stacker::maybe_grow(64 * 1024, 1024 * 1024, f)
}

#[derive(Clone, Debug)]
pub(super) enum Term {
    Hole,
    Known(Type),
    Tuple(Arc<[TV]>),
    Func(Arc<[TV]>, TV),
    /// An ADT type applied to (partly unknown) arguments, `List[_]`.
    Adt(Arc<str>, Arc<[TV]>),
    /// `ref(_)`.
    Ref(TV),
}

/// Where a constraint came from: the span of the expression and the global function index.
#[derive(Clone, Copy, Debug)]
pub(super) struct Origin {
    pub span: Span,
    pub func: u32,
}

/// An error raised while solving, with the place it is reported at.
#[derive(Debug)]
pub(super) struct SolveError {
    pub message: String,
    pub origin: Origin,
}

/// Two types that do not unify: the innermost conflicting pair, printed.
#[derive(Debug)]
pub(super) struct Mismatch {
    pub left: String,
    pub right: String,
}

#[derive(Default)]
pub(super) struct Solver {
    parent: Vec<TV>,
    terms: Vec<Term>,
    /// Relations that had to wait (see `relations.rs`).
    pub(super) rels: Vec<Relation>,
    /// Woken relations to rerun.
    pub(super) queue: Vec<u32>,
    /// Relations waiting on each hole root.
    pub(super) watchers: FxHashMap<TV, Vec<u32>>,
    pub(super) scratch_types: Vec<Option<Type>>,
    /// Whether each tuple, function or named type asked about in [`Solver::is_complete`] is
    /// complete, by address (the entry holds the type, so the address is not reused).
    complete: FxHashMap<usize, (Type, bool)>,
}

impl Drop for Solver {
    fn drop(&mut self) {
        scratch::give_vec(std::mem::take(&mut self.parent));
        scratch::give_vec(std::mem::take(&mut self.terms));
    }
}

impl Solver {
    /// A solver whose tables have room for `n` variables, or the room this thread's last
    /// solver left (see `ir::scratch`).
    pub fn with_capacity(n: usize) -> Solver {
        let mut parent: Vec<TV> = scratch::take_vec();
        parent.reserve(n);
        let mut terms: Vec<Term> = scratch::take_vec();
        terms.reserve(n);
        Solver {
            parent,
            terms,
            rels: Vec::new(),
            queue: Vec::new(),
            watchers: FxHashMap::default(),
            scratch_types: Vec::new(),
            complete: FxHashMap::default(),
        }
    }

    fn push(&mut self, t: Term) -> TV {
        let id = self.terms.len() as TV;
        self.parent.push(id);
        self.terms.push(t);
        id
    }

    pub fn hole(&mut self) -> TV {
        self.push(Term::Hole)
    }

    pub fn known(&mut self, t: Type) -> TV {
        self.push(Term::Known(t))
    }

    pub fn tuple(&mut self, fields: Vec<TV>) -> TV {
        self.push(Term::Tuple(fields.into()))
    }

    pub fn func(&mut self, params: Vec<TV>, ret: TV) -> TV {
        self.push(Term::Func(params.into(), ret))
    }

    pub fn adt(&mut self, name: Arc<str>, args: Vec<TV>) -> TV {
        self.push(Term::Adt(name, args.into()))
    }

    pub fn reference(&mut self, inner: TV) -> TV {
        self.push(Term::Ref(inner))
    }

    /// A fresh instance of a polymorphic function type: each type parameter a new hole.
    pub fn instantiate(&mut self, ft: &crate::ir::FuncType) -> TV {
        let map: Vec<(crate::ir::TypeVar, TV)> = ft
            .type_params
            .iter()
            .map(|p| (p.clone(), self.hole()))
            .collect();
        let params = ft
            .params
            .iter()
            .map(|p| self.of_type_with(p, &map))
            .collect();
        let ret = self.of_type_with(&ft.ret, &map);
        self.func(params, ret)
    }

    /// A variable for `t` with the type variables of `map` replaced by their solver
    /// variables (instantiating a polymorphic type); other parts as [`Solver::of_type`].
    pub fn of_type_with(&mut self, t: &Type, map: &[(crate::ir::TypeVar, TV)]) -> TV {
        if map.is_empty() {
            return self.of_type(t);
        }
        match t.kind() {
            TypeKind::Var(v) => match map.iter().find(|(k, _)| k == v) {
                Some((_, tv)) => *tv,
                None => self.known(t.clone()),
            },
            TypeKind::Tuple(fs) => {
                let vs = fs
                    .iter()
                    .map(|f| grow(|| self.of_type_with(f, map)))
                    .collect();
                self.tuple(vs)
            }
            TypeKind::Func(ft) if !ft.type_params.is_empty() && mentions(t, map) => {
                // A polymorphic function type inside the one instantiated that uses its type
                // parameters (`fn [a](a) -> fn [b](b) -> (b, a)`): the solver has no
                // polymorphic term with unknown parts, so it becomes one instance of itself,
                // its own type parameters fresh holes too, rather than keep `a` rigid outside
                // its scope.
                let mut inner: Vec<(crate::ir::TypeVar, TV)> = map
                    .iter()
                    .filter(|(k, _)| !ft.type_params.contains(k))
                    .cloned()
                    .collect();
                for p in &ft.type_params {
                    let h = self.hole();
                    inner.push((p.clone(), h));
                }
                let ps = ft
                    .params
                    .iter()
                    .map(|p| grow(|| self.of_type_with(p, &inner)))
                    .collect();
                let r = grow(|| self.of_type_with(&ft.ret, &inner));
                self.func(ps, r)
            }
            TypeKind::Func(ft) if ft.type_params.is_empty() => {
                let ps = ft
                    .params
                    .iter()
                    .map(|p| grow(|| self.of_type_with(p, map)))
                    .collect();
                let r = grow(|| self.of_type_with(&ft.ret, map));
                self.func(ps, r)
            }
            TypeKind::Named(n) => {
                let args = n
                    .args
                    .iter()
                    .map(|a| grow(|| self.of_type_with(a, map)))
                    .collect();
                self.adt(n.name.clone(), args)
            }
            TypeKind::Ref(inner) => {
                let i = grow(|| self.of_type_with(inner, map));
                self.reference(i)
            }
            _ => self.of_type(t),
        }
    }

    /// [`Type::is_complete`], answered once per compound type: a function literal's return
    /// type holds the types of the literals nested in it, so asking each literal's annotation
    /// whole would read a nest n deep n times over. Each tuple, function or named type is
    /// read once (its parts looked up), without recursion.
    pub fn is_complete(&mut self, t: &Type) -> bool {
        fn parts(t: &Type) -> &[Type] {
            match t.kind() {
                TypeKind::Tuple(fs) => fs,
                TypeKind::Func(f) => &f.params,
                TypeKind::Named(n) => &n.args,
                TypeKind::Ref(t) => std::slice::from_ref(t),
                TypeKind::Tensor(_) | TypeKind::Incomplete | TypeKind::Var(_) => &[],
            }
        }
        let leaf = |t: &Type| match t.kind() {
            TypeKind::Tensor(_) | TypeKind::Var(_) => Some(true),
            TypeKind::Incomplete => Some(false),
            _ => None,
        };
        if let Some(b) = leaf(t) {
            return b;
        }
        if let Some((_, b)) = self.complete.get(&t.addr()) {
            return *b;
        }
        // Post-order over the compound types not answered yet: a type is pushed to be entered,
        // then, once its parts are answered, decided.
        let mut stack: Vec<(&Type, bool)> = vec![(t, false)];
        while let Some((u, decide)) = stack.pop() {
            let ret = u.as_func().map(|f| &f.ret);
            if decide {
                let all = parts(u).iter().chain(ret).all(|p| {
                    leaf(p).unwrap_or_else(|| self.complete.get(&p.addr()).is_some_and(|e| e.1))
                });
                self.complete.insert(u.addr(), (u.clone(), all));
                continue;
            }
            if self.complete.contains_key(&u.addr()) {
                continue;
            }
            stack.push((u, true));
            for p in parts(u).iter().chain(ret) {
                if leaf(p).is_none() && !self.complete.contains_key(&p.addr()) {
                    stack.push((p, false));
                }
            }
        }
        self.complete[&t.addr()].1
    }

    /// A variable for a written type; every `_` inside becomes a fresh hole.
    pub fn of_type(&mut self, t: &Type) -> TV {
        if self.is_complete(t) {
            return self.known(t.clone());
        }
        match t.kind() {
            TypeKind::Incomplete => self.hole(),
            TypeKind::Tuple(fs) => {
                let vs = fs.iter().map(|f| grow(|| self.of_type(f))).collect();
                self.tuple(vs)
            }
            TypeKind::Func(ft) => {
                let ps = ft.params.iter().map(|p| grow(|| self.of_type(p))).collect();
                let r = grow(|| self.of_type(&ft.ret));
                self.func(ps, r)
            }
            TypeKind::Named(n) => {
                let args = n.args.iter().map(|a| grow(|| self.of_type(a))).collect();
                self.adt(n.name.clone(), args)
            }
            TypeKind::Ref(inner) => {
                let i = grow(|| self.of_type(inner));
                self.reference(i)
            }
            _ => self.known(t.clone()),
        }
    }

    pub fn find(&mut self, mut x: TV) -> TV {
        let mut root = x;
        while self.parent[root as usize] != root {
            root = self.parent[root as usize];
        }
        while self.parent[x as usize] != root {
            let next = self.parent[x as usize];
            self.parent[x as usize] = root;
            x = next;
        }
        root
    }

    /// The root's term (after `find`).
    pub fn term(&mut self, x: TV) -> &Term {
        let r = self.find(x);
        &self.terms[r as usize]
    }

    /// Records `t`, equal to `x`'s resolved type, as that type: types resolved later are built
    /// from `t`, so they share its nodes (see `Resolver::next_ty`).
    pub fn settle(&mut self, x: TV, t: Type) {
        let r = self.find(x);
        debug_assert!(matches!(&self.terms[r as usize], Term::Known(k) if *k == t));
        self.terms[r as usize] = Term::Known(t);
    }

    /// [`Solver::resolve`] for a node that had type `like` before (re-typing a typed module):
    /// when `x` is a tuple or function whose parts resolve to `like`'s own parts, the result
    /// is `like` itself, with no new type made (and the types built from it later share it).
    pub fn resolve_like(&mut self, x: TV, like: &Type) -> Option<Type> {
        let r = self.find(x);
        let (olds, old_ret) = match like.kind() {
            TypeKind::Tuple(fs) => (fs.as_slice(), None),
            TypeKind::Func(f) => (f.params.as_slice(), Some(&f.ret)),
            _ => return self.resolve(x),
        };
        let (vs, ret) = match &self.terms[r as usize] {
            Term::Tuple(vs) if old_ret.is_none() => (vs.clone(), None),
            Term::Func(ps, ret) if old_ret.is_some() => (ps.clone(), Some(*ret)),
            _ => return self.resolve(x),
        };
        if vs.len() != olds.len() {
            return self.resolve(x);
        }
        let mut same = true;
        for (v, old) in vs.iter().zip(olds) {
            same &= grow(|| self.resolve(*v))?.ptr_eq(old);
        }
        if let (Some(ret), Some(old)) = (ret, old_ret) {
            same &= grow(|| self.resolve(ret))?.ptr_eq(old);
        }
        if !same {
            return self.resolve(x);
        }
        self.terms[r as usize] = Term::Known(like.clone());
        Some(like.clone())
    }

    /// The fully known type of `x`, if it has no holes left. Caches the result on the root.
    pub fn resolve(&mut self, x: TV) -> Option<Type> {
        let r = self.find(x);
        let t = match &self.terms[r as usize] {
            Term::Known(t) => return Some(t.clone()),
            Term::Hole => return None,
            Term::Tuple(vs) => {
                let vs = vs.clone();
                let fields = vs
                    .iter()
                    .map(|v| grow(|| self.resolve(*v)))
                    .collect::<Option<Vec<_>>>()?;
                Type::tuple(fields)
            }
            Term::Func(ps, ret) => {
                let (ps, ret) = (ps.clone(), *ret);
                let params = ps
                    .iter()
                    .map(|v| grow(|| self.resolve(*v)))
                    .collect::<Option<Vec<_>>>()?;
                Type::func(params, grow(|| self.resolve(ret))?)
            }
            Term::Adt(name, vs) => {
                let (name, vs) = (name.clone(), vs.clone());
                let args = vs
                    .iter()
                    .map(|v| grow(|| self.resolve(*v)))
                    .collect::<Option<Vec<_>>>()?;
                Type::named(name, args)
            }
            Term::Ref(v) => {
                let v = *v;
                Type::reference(grow(|| self.resolve(v))?)
            }
        };
        self.terms[r as usize] = Term::Known(t.clone());
        Some(t)
    }

    /// The type of `x` as far as it is known, with `_` for holes (for messages).
    pub fn partial(&mut self, x: TV) -> Type {
        let r = self.find(x);
        match &self.terms[r as usize] {
            Term::Known(t) => t.clone(),
            Term::Hole => Type::incomplete(),
            Term::Tuple(vs) => {
                let vs = vs.clone();
                Type::tuple(vs.iter().map(|v| grow(|| self.partial(*v))).collect())
            }
            Term::Func(ps, ret) => {
                let (ps, ret) = (ps.clone(), *ret);
                let params = ps.iter().map(|v| grow(|| self.partial(*v))).collect();
                Type::func(params, grow(|| self.partial(ret)))
            }
            Term::Adt(name, vs) => {
                let (name, vs) = (name.clone(), vs.clone());
                Type::named(name, vs.iter().map(|v| grow(|| self.partial(*v))).collect())
            }
            Term::Ref(v) => {
                let v = *v;
                Type::reference(grow(|| self.partial(v)))
            }
        }
    }

    fn mismatch(&mut self, a: TV, b: TV) -> Mismatch {
        Mismatch {
            left: self.partial(a).to_string(),
            right: self.partial(b).to_string(),
        }
    }

    /// Binds hole root `h` to root `to`, waking (or handing over) the relations waiting on it.
    fn link_hole(&mut self, h: TV, to: TV) {
        self.parent[h as usize] = to;
        if let Some(ws) = self.watchers.remove(&h) {
            if matches!(self.terms[to as usize], Term::Hole) {
                // Nothing learned yet: the relations now wait on the merged hole.
                self.watchers.entry(to).or_default().extend(ws);
            } else {
                self.wake(ws);
            }
        }
    }

    pub(super) fn wake(&mut self, ws: Vec<u32>) {
        for r in ws {
            let rel = &mut self.rels[r as usize];
            if !rel.solved && !rel.queued {
                rel.queued = true;
                self.queue.push(r);
            }
        }
    }

    pub fn unify(&mut self, a: TV, b: TV) -> Result<(), Mismatch> {
        let (ra, rb) = (self.find(a), self.find(b));
        if ra == rb {
            return Ok(());
        }
        match (&self.terms[ra as usize], &self.terms[rb as usize]) {
            (Term::Hole, Term::Hole) => {
                // Keep the longer watcher list in place, so merging many holes stays linear.
                let len = |s: &Self, h: TV| s.watchers.get(&h).map_or(0, Vec::len);
                if len(self, ra) > len(self, rb) {
                    self.link_hole(rb, ra);
                } else {
                    self.link_hole(ra, rb);
                }
                Ok(())
            }
            (Term::Hole, _) => {
                self.link_hole(ra, rb);
                Ok(())
            }
            (_, Term::Hole) => {
                self.link_hole(rb, ra);
                Ok(())
            }
            (Term::Known(x), Term::Known(y)) if is_poly(x) != is_poly(y) => {
                // A polymorphic function where a monomorphic one is expected: an instance.
                let (p, other) = if is_poly(x) {
                    (x.clone(), rb)
                } else {
                    (y.clone(), ra)
                };
                let inst = self.instantiate(p.as_func().expect("a function type"));
                grow(|| self.unify(inst, other))
            }
            (Term::Known(x), Term::Func(..)) | (Term::Func(..), Term::Known(x)) if is_poly(x) => {
                let x = x.clone();
                let other = if matches!(self.terms[ra as usize], Term::Func(..)) {
                    ra
                } else {
                    rb
                };
                let inst = self.instantiate(x.as_func().expect("a function type"));
                grow(|| self.unify(inst, other))
            }
            (Term::Known(x), Term::Known(y)) => {
                let merged = match merge(x, y) {
                    Ok(m) => m,
                    Err(()) => return Err(self.mismatch(ra, rb)),
                };
                self.parent[rb as usize] = ra;
                if let Some(m) = merged {
                    self.terms[ra as usize] = Term::Known(m);
                }
                Ok(())
            }
            (Term::Known(x), _) => {
                let x = x.clone();
                grow(|| self.unify_with_type(rb, &x))?;
                self.parent[rb as usize] = ra;
                Ok(())
            }
            (_, Term::Known(y)) => {
                let y = y.clone();
                grow(|| self.unify_with_type(ra, &y))?;
                self.parent[ra as usize] = rb;
                Ok(())
            }
            (Term::Tuple(va), Term::Tuple(vb)) => {
                if va.len() != vb.len() {
                    return Err(self.mismatch(ra, rb));
                }
                let (va, vb) = (va.clone(), vb.clone());
                self.parent[rb as usize] = ra;
                for (x, y) in va.iter().zip(vb.iter()) {
                    grow(|| self.unify(*x, *y))?;
                }
                Ok(())
            }
            (Term::Func(pa, reta), Term::Func(pb, retb)) => {
                if pa.len() != pb.len() {
                    return Err(self.mismatch(ra, rb));
                }
                let (pa, pb, reta, retb) = (pa.clone(), pb.clone(), *reta, *retb);
                self.parent[rb as usize] = ra;
                for (x, y) in pa.iter().zip(pb.iter()) {
                    grow(|| self.unify(*x, *y))?;
                }
                grow(|| self.unify(reta, retb))
            }
            (Term::Adt(na, va), Term::Adt(nb, vb)) => {
                if na != nb || va.len() != vb.len() {
                    return Err(self.mismatch(ra, rb));
                }
                let (va, vb) = (va.clone(), vb.clone());
                self.parent[rb as usize] = ra;
                for (x, y) in va.iter().zip(vb.iter()) {
                    grow(|| self.unify(*x, *y))?;
                }
                Ok(())
            }
            (Term::Ref(x), Term::Ref(y)) => {
                let (x, y) = (*x, *y);
                self.parent[rb as usize] = ra;
                grow(|| self.unify(x, y))
            }
            _ => Err(self.mismatch(ra, rb)),
        }
    }

    /// Unifies `x` with a fully known type without allocating a variable for it.
    pub fn unify_with_type(&mut self, x: TV, t: &Type) -> Result<(), Mismatch> {
        let r = self.find(x);
        let fail = |s: &mut Solver| Mismatch {
            left: s.partial(r).to_string(),
            right: t.to_string(),
        };
        match &self.terms[r as usize] {
            Term::Hole => {
                self.terms[r as usize] = Term::Known(t.clone());
                if let Some(ws) = self.watchers.remove(&r) {
                    self.wake(ws);
                }
                Ok(())
            }
            Term::Known(k) => match merge(k, t) {
                Ok(None) => Ok(()),
                Ok(Some(m)) => {
                    self.terms[r as usize] = Term::Known(m);
                    Ok(())
                }
                Err(()) => Err(fail(self)),
            },
            Term::Tuple(vs) => match t.kind() {
                TypeKind::Tuple(ts) if ts.len() == vs.len() => {
                    let vs = vs.clone();
                    for (v, f) in vs.iter().zip(ts.iter()) {
                        grow(|| self.unify_with_type(*v, f))?;
                    }
                    Ok(())
                }
                _ => Err(fail(self)),
            },
            Term::Func(..) if is_poly(t) => {
                let inst = self.instantiate(t.as_func().expect("a function type"));
                grow(|| self.unify(r, inst))
            }
            Term::Func(ps, ret) => match t.kind() {
                TypeKind::Func(ft) if ft.params.len() == ps.len() => {
                    let (ps, ret) = (ps.clone(), *ret);
                    for (v, p) in ps.iter().zip(ft.params.iter()) {
                        grow(|| self.unify_with_type(*v, p))?;
                    }
                    grow(|| self.unify_with_type(ret, &ft.ret))
                }
                _ => Err(fail(self)),
            },
            Term::Adt(name, vs) => match t.kind() {
                TypeKind::Named(n) if n.name == *name && n.args.len() == vs.len() => {
                    let vs = vs.clone();
                    for (v, a) in vs.iter().zip(n.args.iter()) {
                        grow(|| self.unify_with_type(*v, a))?;
                    }
                    Ok(())
                }
                _ => Err(fail(self)),
            },
            Term::Ref(v) => match t.kind() {
                TypeKind::Ref(inner) => {
                    let v = *v;
                    grow(|| self.unify_with_type(v, inner))
                }
                _ => Err(fail(self)),
            },
        }
    }

    /// Every hole root reachable inside `x`'s term.
    pub(super) fn holes(&mut self, x: TV, out: &mut Vec<TV>) {
        let r = self.find(x);
        match &self.terms[r as usize] {
            Term::Hole => out.push(r),
            Term::Known(_) => {}
            Term::Tuple(vs) => {
                let vs = vs.clone();
                vs.iter().for_each(|v| grow(|| self.holes(*v, out)));
            }
            Term::Func(ps, ret) => {
                let (ps, ret) = (ps.clone(), *ret);
                ps.iter().for_each(|v| grow(|| self.holes(*v, out)));
                grow(|| self.holes(ret, out));
            }
            Term::Adt(_, vs) => {
                let vs = vs.clone();
                vs.iter().for_each(|v| grow(|| self.holes(*v, out)));
            }
            Term::Ref(v) => {
                let v = *v;
                grow(|| self.holes(v, out));
            }
        }
    }
}

/// Unifies two known types: `Ok(None)` when `x` already is the result, `Ok(Some(t))` when the
/// result differs from `x` (a `?` dimension won), `Err` when they conflict.
pub(super) fn merge(x: &Type, y: &Type) -> Result<Option<Type>, ()> {
    if x.ptr_eq(y) {
        return Ok(None);
    }
    match (x.kind(), y.kind()) {
        (TypeKind::Tensor(a), TypeKind::Tensor(b)) => {
            if a == b {
                return Ok(None);
            }
            if a.dtype != b.dtype || a.shape.len() != b.shape.len() {
                return Err(());
            }
            let mut changed = false;
            let mut shape = Vec::with_capacity(a.shape.len());
            for (da, db) in a.shape.iter().zip(&b.shape) {
                let d = merge_dim(da, db)?;
                changed |= d != *da;
                shape.push(d);
            }
            Ok(changed.then(|| Type::tensor(shape, a.dtype)))
        }
        (TypeKind::Tuple(a), TypeKind::Tuple(b)) => {
            if a.len() != b.len() {
                return Err(());
            }
            let mut out: Option<Vec<Type>> = None;
            for (i, (fa, fb)) in a.iter().zip(b.iter()).enumerate() {
                if let Some(m) = grow(|| merge(fa, fb))? {
                    out.get_or_insert_with(|| a.to_vec())[i] = m;
                }
            }
            Ok(out.map(Type::tuple))
        }
        (TypeKind::Func(a), TypeKind::Func(b)) => {
            if a.type_params != b.type_params {
                // Polymorphic types named apart: equal up to renaming, or not at all.
                return if x == y { Ok(None) } else { Err(()) };
            }
            if a.params.len() != b.params.len() {
                return Err(());
            }
            let mut changed = false;
            let mut params = Vec::with_capacity(a.params.len());
            for (pa, pb) in a.params.iter().zip(&b.params) {
                let m = grow(|| merge(pa, pb))?;
                changed |= m.is_some();
                params.push(m.unwrap_or_else(|| pa.clone()));
            }
            let ret = grow(|| merge(&a.ret, &b.ret))?;
            changed |= ret.is_some();
            Ok(changed.then(|| {
                Type::poly_func(
                    a.type_params.clone(),
                    params,
                    ret.unwrap_or_else(|| a.ret.clone()),
                )
            }))
        }
        (TypeKind::Named(a), TypeKind::Named(b)) => {
            if a.name != b.name || a.args.len() != b.args.len() {
                return Err(());
            }
            let mut out: Option<Vec<Type>> = None;
            for (i, (fa, fb)) in a.args.iter().zip(b.args.iter()).enumerate() {
                if let Some(m) = grow(|| merge(fa, fb))? {
                    out.get_or_insert_with(|| a.args.to_vec())[i] = m;
                }
            }
            Ok(out.map(|args| Type::named(a.name.clone(), args)))
        }
        (TypeKind::Ref(a), TypeKind::Ref(b)) => Ok(grow(|| merge(a, b))?.map(Type::reference)),
        _ if x == y => Ok(None),
        _ => Err(()),
    }
}

/// A function type with type parameters.
fn is_poly(t: &Type) -> bool {
    t.as_func().is_some_and(|f| !f.type_params.is_empty())
}

/// TVM's `UnifyDim`: equal extents (either width) unify, `?` wins, a symbol takes the other.
fn merge_dim(a: &Dim, b: &Dim) -> Result<Dim, ()> {
    match (a, b) {
        (Dim::Any, _) | (_, Dim::Any) => Ok(Dim::Any),
        _ if a == b => Ok(a.clone()),
        (Dim::Meta(..), _) => Ok(b.clone()),
        (_, Dim::Meta(..)) => Ok(a.clone()),
        _ if a.as_static() == b.as_static() => Ok(a.clone()),
        _ => Err(()),
    }
}
