//! Resolution: rebuilds an expression with every node's checked type once the solver is done
//! (TVM's `Resolver`). Missing variable annotations and function return types are filled in:
//! an unannotated binder gets a fresh `Var` with the inferred annotation, and every use of it
//! is rewritten to the same new `Var`. Sharing is preserved (nodes are memoised by identity,
//! so a DAG stays a DAG) and spans are kept. A node whose children and type are unchanged is
//! returned as is, so re-typing a typed module rebuilds nothing.
//!
//! The walk is `walk.rs`'s, replaying generation's tape of solver variables in the same
//! order (so no node-to-variable table is needed). When some type stayed unknown, [`explain`]
//! picks the most useful culprit to report: an opaque constant first, then a variable, then
//! the node itself. In lenient mode unknown types are left out and only noted.

use super::generate::{describe, Gen};
use super::solver::{Origin, SolveError, Term, TV};
use super::walk::{walk, Walker};
use crate::ir::{visit, Expr, ExprKind, Function, Type, Var};

pub(super) enum ResolveError<'a> {
    /// This node's type (its solver variable given) is still (partly) unknown.
    Unresolved(&'a Expr, TV),
    Solve(SolveError),
}

impl From<SolveError> for ResolveError<'_> {
    fn from(e: SolveError) -> Self {
        ResolveError::Solve(e)
    }
}

pub(super) struct Resolver<'g, 'a> {
    pub gen: &'g mut Gen<'a>,
    /// Position in the generation tape.
    pos: usize,
    /// (Always `Some`: the table is the pooled memo type of `mutate_with`.)
    memo: crate::ir::NodeMap<Option<Expr>>,
    /// Keep going past unknown types (leaving them unknown) instead of failing.
    pub lenient: bool,
    /// In lenient mode, the first node whose type stayed unknown.
    pub first_unresolved: Option<(&'a Expr, TV)>,
}

impl Drop for Resolver<'_, '_> {
    fn drop(&mut self) {
        crate::ir::scratch::give_memo(std::mem::take(&mut self.memo));
    }
}

impl<'g, 'a> Resolver<'g, 'a> {
    pub fn new(gen: &'g mut Gen<'a>) -> Self {
        Resolver {
            gen,
            pos: 0,
            memo: crate::ir::scratch::take_memo(),
            lenient: false,
            first_unresolved: None,
        }
    }

    /// The type of `tv`; when it is unknown, an error, or in lenient mode what is known
    /// (`None` when nothing is).
    fn resolve(&mut self, e: &'a Expr, tv: TV) -> Result<Option<Type>, ResolveError<'a>> {
        let known = match e.ty() {
            Some(like) => self.gen.s.resolve_like(tv, like),
            None => self.gen.s.resolve(tv),
        };
        match known {
            Some(t) => Ok(Some(t)),
            None if self.lenient => {
                self.first_unresolved.get_or_insert((e, tv));
                let p = self.gen.s.partial(tv);
                Ok((!p.is_incomplete()).then_some(p))
            }
            None => Err(ResolveError::Unresolved(e, tv)),
        }
    }

    /// The type of the next node in walk order.
    fn next_ty(&mut self, e: &'a Expr) -> Result<Option<Type>, ResolveError<'a>> {
        let tv = self.gen.tape[self.pos];
        self.pos += 1;
        let t = self.resolve(e, tv)?;
        if let (Some(t), Some(old)) = (&t, e.ty()) {
            // Re-typing a typed node: keep its type object when equal, and let the types built
            // after it (its users' tuples and functions) share it, so the next comparison
            // finds equal fields by pointer. Without this, n tuples nested n deep compared
            // their whole nested types once a node: quadratic. (`resolve_like` already kept
            // it when the parts were its own; this is for equal types made apart.)
            if !t.ptr_eq(old) && t == old && matches!(self.gen.s.term(tv), Term::Known(_)) {
                self.gen.s.settle(tv, old.clone());
                return Ok(Some(old.clone()));
            }
        }
        Ok(t)
    }

    /// The variable to use for `v`: itself when fully annotated, else an annotated copy.
    fn var(&mut self, v: &Var, at: &'a Expr) -> Result<Var, ResolveError<'a>> {
        let slot = self.gen.var_slot(v);
        if let Some(nv) = &slot.typed {
            return Ok(nv.clone());
        }
        let tv = slot.tv;
        let t = self.resolve(at, tv)?;
        let complete = v.ann().is_some_and(|a| self.gen.s.is_complete(a));
        let nv = match (v.ann(), t) {
            (Some(_), _) if complete => v.clone(),
            (_, Some(t)) => v.with_ann(Some(t)),
            (_, None) => v.clone(),
        };
        self.gen.var_slot(v).typed = Some(nv.clone());
        Ok(nv)
    }

    pub fn expr(&mut self, root: &'a Expr) -> Result<Expr, ResolveError<'a>> {
        walk(self, root)
    }

    /// `e` itself when nothing changed, else a new node of `kind` with type `t`.
    fn finish(e: &Expr, changed: bool, kind: impl FnOnce() -> ExprKind, t: Option<Type>) -> Expr {
        if !changed && e.ty() == t.as_ref() {
            e.clone()
        } else {
            Expr::with_info(kind(), t, e.span())
        }
    }

    fn leaf_expr(&mut self, e: &'a Expr) -> Result<Expr, ResolveError<'a>> {
        Ok(match e.kind() {
            ExprKind::Op(_) => e.clone(),
            ExprKind::Var(v) => {
                let t = self.next_ty(e)?;
                let nv = self.var(v, e)?;
                Self::finish(e, nv != *v, || ExprKind::Var(nv), t)
            }
            ExprKind::GlobalVar(g) => {
                let t = self.next_ty(e)?;
                Self::finish(e, false, || ExprKind::GlobalVar(g.clone()), t)
            }
            ExprKind::Constructor(c) => {
                let t = self.next_ty(e)?;
                Self::finish(e, false, || ExprKind::Constructor(c.clone()), t)
            }
            ExprKind::Constant(c) => {
                let t = self.next_ty(e)?;
                if c.ty.is_some() {
                    Self::finish(e, false, || ExprKind::Constant(c.clone()), t)
                } else {
                    // An opaque constant typed from its use: record the type on it too.
                    let mut c = c.clone();
                    if let Some(tt) = t.as_ref().and_then(Type::as_tensor) {
                        std::sync::Arc::make_mut(&mut c).ty = Some(tt.clone());
                    }
                    Expr::with_info(ExprKind::Constant(c), t, e.span())
                }
            }
            _ => unreachable!("not a leaf"),
        })
    }

    fn rebuild(&mut self, e: &'a Expr, kids: &[Expr]) -> Result<Expr, ResolveError<'a>> {
        let t = self.next_ty(e)?;
        let changed = |old: &[&Expr]| old.iter().zip(kids).any(|(a, b)| !a.ptr_eq(b));
        Ok(match e.kind() {
            ExprKind::Tuple(fs) => {
                let ch = fs.iter().zip(kids).any(|(a, b)| !a.ptr_eq(b));
                Self::finish(e, ch, || ExprKind::Tuple(kids.to_vec()), t)
            }
            ExprKind::TupleGetItem(x, i) => Self::finish(
                e,
                changed(&[x]),
                || ExprKind::TupleGetItem(kids[0].clone(), *i),
                t,
            ),
            ExprKind::Call(c) => {
                // The kids are the arguments, after the callee unless it is an op.
                let op_callee = matches!(c.callee.kind(), ExprKind::Op(_));
                let (callee, args) = if op_callee {
                    (&c.callee, kids)
                } else {
                    (&kids[0], &kids[1..])
                };
                let ch =
                    !callee.ptr_eq(&c.callee) || c.args.iter().zip(args).any(|(a, b)| !a.ptr_eq(b));
                Self::finish(
                    e,
                    ch,
                    || {
                        ExprKind::Call(crate::ir::Call {
                            callee: callee.clone(),
                            args: args.into(),
                            attrs: c.attrs.clone(),
                        })
                    },
                    t,
                )
            }
            ExprKind::Let(l) => {
                let var = self.var(&l.var, e)?;
                let ch = var != l.var || changed(&[&l.value, &l.body]);
                let (value, body) = (kids[0].clone(), kids[1].clone());
                Self::finish(
                    e,
                    ch,
                    || ExprKind::Let(crate::ir::Let { var, value, body }),
                    t,
                )
            }
            ExprKind::If(i) => {
                let ch = changed(&[&i.cond, &i.then_branch, &i.else_branch]);
                let kind = || {
                    ExprKind::If(crate::ir::If {
                        cond: kids[0].clone(),
                        then_branch: kids[1].clone(),
                        else_branch: kids[2].clone(),
                    })
                };
                Self::finish(e, ch, kind, t)
            }
            ExprKind::Function(f) => {
                let params = f
                    .params
                    .iter()
                    .map(|p| self.var(p, e))
                    .collect::<Result<Vec<_>, _>>()?;
                let complete = f
                    .ret_type
                    .as_ref()
                    .is_some_and(|r| self.gen.s.is_complete(r));
                let ret_type = match (&f.ret_type, &t) {
                    (Some(r), _) if complete => Some(r.clone()),
                    (_, Some(t)) if t.as_func().is_some_and(|ft| !ft.ret.is_incomplete()) => {
                        let ft = t.as_func().expect("a function type");
                        Some(ft.ret.clone())
                    }
                    _ => f.ret_type.clone(),
                };
                let ch = params.iter().zip(&f.params).any(|(a, b)| a != b)
                    || changed(&[&f.body])
                    || ret_type != f.ret_type;
                // A polymorphic function's type carries its type parameters.
                let t = match t {
                    Some(ft) if !f.type_params.is_empty() => match ft.as_func() {
                        Some(x) if x.type_params.is_empty() => Some(Type::poly_func(
                            f.type_params.clone(),
                            x.params.clone(),
                            x.ret.clone(),
                        )),
                        _ => Some(ft),
                    },
                    t => t,
                };
                let kind = || {
                    ExprKind::Function(Box::new(Function {
                        type_params: f.type_params.clone(),
                        params,
                        body: kids[0].clone(),
                        ret_type,
                        attrs: f.attrs.clone(),
                    }))
                };
                Self::finish(e, ch, kind, t)
            }
            ExprKind::Match(m) => {
                let mut renamed = Vec::new();
                let mut err = None;
                m.for_each_bound_var(|v| {
                    if err.is_none() {
                        match self.var(v, e) {
                            Ok(nv) => renamed.push((v.id(), nv)),
                            Err(x) => err = Some(x),
                        }
                    }
                });
                if let Some(x) = err {
                    return Err(x);
                }
                let vars_changed = renamed.iter().any(|(id, nv)| *id != nv.id());
                let mut all: Vec<&Expr> = vec![&m.data];
                all.extend(m.clauses.iter().map(|c| &c.rhs));
                let ch = vars_changed || changed(&all);
                let kind = || {
                    let mut look = |v: &Var| {
                        renamed
                            .iter()
                            .find(|(id, _)| *id == v.id())
                            .map_or_else(|| v.clone(), |(_, nv)| nv.clone())
                    };
                    ExprKind::Match(Box::new(crate::ir::Match {
                        data: kids[0].clone(),
                        clauses: m
                            .clauses
                            .iter()
                            .zip(&kids[1..])
                            .map(|(c, rhs)| crate::ir::Clause {
                                pattern: c.pattern.map_vars(&mut look),
                                rhs: rhs.clone(),
                            })
                            .collect(),
                        complete: m.complete,
                    }))
                };
                Self::finish(e, ch, kind, t)
            }
            ExprKind::RefNew(_) | ExprKind::RefRead(_) | ExprKind::RefWrite(..) => {
                let mut old = Vec::new();
                e.kind().for_each_child(|c| old.push(c));
                let ch = changed(&old);
                Self::finish(e, ch, || e.kind().with_children(kids), t)
            }
            _ => unreachable!("leaves are handled by leaf_expr"),
        })
    }
}

impl<'a> Walker<'a> for Resolver<'_, 'a> {
    type Out = Expr;
    type Err = ResolveError<'a>;

    fn memo_get(&mut self, id: usize) -> Option<Expr> {
        self.memo.get(&id).cloned().flatten()
    }

    fn memo_put(&mut self, id: usize, v: Expr) {
        self.memo.insert(id, Some(v));
    }

    fn leaf(&mut self, e: &'a Expr) -> Result<Expr, Self::Err> {
        self.leaf_expr(e)
    }

    fn bind(&mut self, _: &'a Expr, _: &Expr) -> Result<(), Self::Err> {
        Ok(())
    }

    fn exit(&mut self, e: &'a Expr, kids: &[Expr]) -> Result<Expr, Self::Err> {
        self.rebuild(e, kids)
    }
}

/// Explains why some type under `root` stayed unknown (`failed` is where resolution stopped).
pub(super) fn explain(gen: &mut Gen<'_>, root: &Expr, failed: &Expr, failed_tv: TV) -> SolveError {
    let func = gen.func;
    let origin = |e: &Expr| Origin {
        span: e.span(),
        func,
    };
    let mut constant: Option<Expr> = None;
    let mut var: Option<(Expr, Var)> = None;
    visit::post_order(root, |e| match e.kind() {
        ExprKind::Constant(_) if constant.is_none() => {
            if let Some(&tv) = gen.opaque.get(&e.id()) {
                if gen.s.resolve(tv).is_none() {
                    constant = Some(e.clone());
                }
            }
        }
        ExprKind::Var(v) if var.is_none() => {
            let tv = gen.var(v);
            if gen.s.resolve(tv).is_none() {
                var = Some((e.clone(), v.clone()));
            }
        }
        ExprKind::Function(f) if var.is_none() => {
            for p in &f.params {
                let tv = gen.var(p);
                if gen.s.resolve(tv).is_none() {
                    var = Some((e.clone(), p.clone()));
                    break;
                }
            }
        }
        _ => {}
    });
    if let Some(c) = constant {
        let tv = gen.opaque[&c.id()];
        let usage = match gen.s.pending_use_of(tv) {
            Some((what, i)) => format!(
                "; it is argument {} of {what}, whose type rule cannot decide without it",
                i + 1
            ),
            None => String::new(),
        };
        return SolveError {
            message: format!(
                "cannot infer the type of {}: it is an opaque constant (no data) and the program does not determine its type{usage}",
                describe(&c)
            ),
            origin: origin(&c),
        };
    }
    if let Some((at, v)) = var {
        let tv = gen.var(&v);
        let known = gen.s.partial(tv);
        let so_far = if known.is_incomplete() {
            String::new()
        } else {
            format!(" (known so far: {known})")
        };
        return SolveError {
            message: format!(
                "cannot infer the type of `%{}`{so_far}; add a type annotation",
                v.name()
            ),
            origin: origin(&at),
        };
    }
    let known = gen.s.partial(failed_tv).to_string();
    SolveError {
        message: format!(
            "cannot infer the type of {} (known so far: {known})",
            describe(failed)
        ),
        origin: origin(failed),
    }
}
