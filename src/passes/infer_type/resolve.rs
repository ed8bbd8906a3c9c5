//! Resolution: rebuilds an expression with every node's checked type once the solver is done
//! (TVM's `Resolver`). Missing variable annotations and function return types are filled in:
//! an unannotated binder gets a fresh `Var` with the inferred annotation, and every use of it
//! is rewritten to the same new `Var`. Sharing is preserved (nodes are memoised by identity,
//! so a DAG stays a DAG) and spans are kept. A node whose children and type are unchanged is
//! returned as is, so re-typing a typed module rebuilds nothing.
//!
//! The walk is iterative, like generation. When some type stayed unknown, [`explain`] picks
//! the most useful culprit to report: an opaque constant first, then a variable, then the
//! node itself.

use super::generate::{describe, Gen};
use super::solver::{Origin, SolveError};
use crate::ir::{visit, Constant, Expr, ExprKind, Function, Type, Var};
use rustc_hash::FxHashMap;

pub(super) enum ResolveError<'a> {
    /// This node's type is still (partly) unknown.
    Unresolved(&'a Expr),
    Solve(SolveError),
}

impl From<SolveError> for ResolveError<'_> {
    fn from(e: SolveError) -> Self {
        ResolveError::Solve(e)
    }
}

pub(super) struct Resolver<'g, 'a> {
    pub gen: &'g mut Gen<'a>,
    memo: FxHashMap<usize, Expr>,
    vars: FxHashMap<u64, Var>,
}

enum Step<'a> {
    Enter(&'a Expr),
    Exit(&'a Expr),
}

impl<'g, 'a> Resolver<'g, 'a> {
    pub fn new(gen: &'g mut Gen<'a>) -> Self {
        let mut memo = FxHashMap::default();
        memo.reserve(gen.expr_tv.len());
        Resolver {
            gen,
            memo,
            vars: FxHashMap::default(),
        }
    }

    fn ty(&mut self, e: &'a Expr) -> Result<Type, ResolveError<'a>> {
        let tv = self.gen.tv(e)?;
        self.gen.s.resolve(tv).ok_or(ResolveError::Unresolved(e))
    }

    /// The variable to use for `v`: itself when fully annotated, else an annotated copy.
    fn var(&mut self, v: &Var, at: &'a Expr) -> Result<Var, ResolveError<'a>> {
        if let Some(nv) = self.vars.get(&v.id()) {
            return Ok(nv.clone());
        }
        let tv = self.gen.var(v);
        let t = self.gen.s.resolve(tv).ok_or(ResolveError::Unresolved(at))?;
        let nv = match v.ann() {
            Some(a) if a.is_complete() => v.clone(),
            _ => v.with_ann(Some(t)),
        };
        self.vars.insert(v.id(), nv.clone());
        Ok(nv)
    }

    fn get(&self, e: &Expr) -> Expr {
        self.memo[&e.id()].clone()
    }

    pub fn expr(&mut self, root: &'a Expr) -> Result<Expr, ResolveError<'a>> {
        let mut stack = vec![Step::Enter(root)];
        while let Some(step) = stack.pop() {
            match step {
                Step::Enter(e) => {
                    if self.memo.contains_key(&e.id()) {
                        continue;
                    }
                    stack.push(Step::Exit(e));
                    let start = stack.len();
                    e.kind().for_each_child(|c| stack.push(Step::Enter(c)));
                    stack[start..].reverse();
                }
                Step::Exit(e) => {
                    if !self.memo.contains_key(&e.id()) {
                        let new = self.rebuild(e)?;
                        self.memo.insert(e.id(), new);
                    }
                }
            }
        }
        Ok(self.get(root))
    }

    /// `e` itself when nothing changed, else a new node of `kind` with type `t`.
    fn finish(e: &Expr, changed: bool, kind: impl FnOnce() -> ExprKind, t: Type) -> Expr {
        if !changed && e.ty() == Some(&t) {
            e.clone()
        } else {
            Expr::with_info(kind(), Some(t), e.span())
        }
    }

    fn rebuild(&mut self, e: &'a Expr) -> Result<Expr, ResolveError<'a>> {
        let same = |a: &Expr, b: &Expr| a.ptr_eq(b);
        Ok(match e.kind() {
            ExprKind::Op(_) => e.clone(),
            ExprKind::Var(v) => {
                let nv = self.var(v, e)?;
                let t = self.ty(e)?;
                Self::finish(e, nv != *v, || ExprKind::Var(nv), t)
            }
            ExprKind::GlobalVar(g) => {
                let t = self.ty(e)?;
                Self::finish(e, false, || ExprKind::GlobalVar(g.clone()), t)
            }
            ExprKind::Constant(c) => {
                let t = self.ty(e)?;
                if c.ty.is_some() {
                    Self::finish(e, false, || ExprKind::Constant(c.clone()), t)
                } else {
                    // An opaque constant typed from its use: record the type on it too.
                    let mut c = c.clone();
                    if let Type::Tensor(tt) = &t {
                        c.ty = Some((**tt).clone());
                    }
                    Expr::with_info(ExprKind::Constant(c), Some(t), e.span())
                }
            }
            ExprKind::Tuple(fs) => {
                let nfs: Vec<Expr> = fs.iter().map(|f| self.get(f)).collect();
                let changed = fs.iter().zip(&nfs).any(|(a, b)| !same(a, b));
                let t = self.ty(e)?;
                Self::finish(e, changed, || ExprKind::Tuple(nfs), t)
            }
            ExprKind::TupleGetItem(x, i) => {
                let nx = self.get(x);
                let t = self.ty(e)?;
                Self::finish(e, !same(x, &nx), || ExprKind::TupleGetItem(nx, *i), t)
            }
            ExprKind::Call(c) => {
                let callee = self.get(&c.callee);
                let args: Vec<Expr> = c.args.iter().map(|a| self.get(a)).collect();
                let changed = !same(&c.callee, &callee) || c.args.iter().zip(&args).any(|(a, b)| !same(a, b));
                let t = self.ty(e)?;
                let attrs = c.attrs.clone();
                Self::finish(e, changed, || ExprKind::Call(crate::ir::Call { callee, args, attrs }), t)
            }
            ExprKind::Let(l) => {
                let var = self.var(&l.var, e)?;
                let (value, body) = (self.get(&l.value), self.get(&l.body));
                let changed = var != l.var || !same(&l.value, &value) || !same(&l.body, &body);
                let t = self.ty(e)?;
                Self::finish(e, changed, || ExprKind::Let(crate::ir::Let { var, value, body }), t)
            }
            ExprKind::If(i) => {
                let (c, th, el) = (self.get(&i.cond), self.get(&i.then_branch), self.get(&i.else_branch));
                let changed = !same(&i.cond, &c) || !same(&i.then_branch, &th) || !same(&i.else_branch, &el);
                let t = self.ty(e)?;
                let kind = || {
                    ExprKind::If(crate::ir::If {
                        cond: c,
                        then_branch: th,
                        else_branch: el,
                    })
                };
                Self::finish(e, changed, kind, t)
            }
            ExprKind::Function(f) => {
                let params = f.params.iter().map(|p| self.var(p, e)).collect::<Result<Vec<_>, _>>()?;
                let body = self.get(&f.body);
                let t = self.ty(e)?;
                let ret_type = match (&f.ret_type, &t) {
                    (Some(r), _) if r.is_complete() => Some(r.clone()),
                    (_, Type::Func(ft)) => Some(ft.ret.clone()),
                    _ => f.ret_type.clone(),
                };
                let changed = params.iter().zip(&f.params).any(|(a, b)| a != b)
                    || !same(&f.body, &body)
                    || ret_type != f.ret_type;
                let kind = || {
                    ExprKind::Function(Function {
                        params,
                        body,
                        ret_type,
                        attrs: f.attrs.clone(),
                    })
                };
                Self::finish(e, changed, kind, t)
            }
        })
    }
}

/// Explains why some type under `root` stayed unknown (`failed` is where resolution stopped).
pub(super) fn explain(gen: &mut Gen<'_>, root: &Expr, failed: &Expr) -> SolveError {
    let func = gen.func;
    let origin = |e: &Expr| Origin { span: e.span(), func };
    let mut constant: Option<Expr> = None;
    let mut var: Option<(Expr, Var)> = None;
    visit::post_order(root, |e| {
        match e.kind() {
            ExprKind::Constant(Constant { data: None, .. }) if constant.is_none() => {
                let tv = gen.expr_tv[&e.id()];
                if gen.s.resolve(tv).is_none() {
                    constant = Some(e.clone());
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
        }
    });
    if let Some(c) = constant {
        let tv = gen.expr_tv[&c.id()];
        let usage = match gen.s.pending_use_of(tv) {
            Some((what, i)) => format!("; it is argument {} of {what}, whose type rule cannot decide without it", i + 1),
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
        let so_far = if matches!(known, Type::Incomplete) {
            String::new()
        } else {
            format!(" (known so far: {known})")
        };
        return SolveError {
            message: format!("cannot infer the type of `%{}`{so_far}; add a type annotation", v.name()),
            origin: origin(&at),
        };
    }
    let known = match gen.tv(failed) {
        Ok(tv) => gen.s.partial(tv).to_string(),
        Err(e) => return e,
    };
    SolveError {
        message: format!("cannot infer the type of {} (known so far: {known})", describe(failed)),
        origin: origin(failed),
    }
}
