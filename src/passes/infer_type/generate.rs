//! Constraint generation: one walk over an expression DAG that gives every node a solver
//! variable and states how they relate (TVM's `TypeInferencer` first phase).
//!
//! The walk is iterative (an explicit work stack: `Enter`, `Bind` between a let's value and
//! its body, `Exit`), so a million-deep let chain or 100,000 nested calls need no native
//! stack. Nodes are memoised by identity, so a shared node is visited once. Variables are
//! identified by their `Var` node, not by scope: a variable's solver variable is created the
//! first time it is seen (binder or use) from its annotation, and an unannotated `let`
//! variable simply shares its value's variable — no scoping is needed for typing.
//!
//! Op calls become relations (solved at once when their inputs are known); calls of
//! anything else unify the callee with `fn (args) -> ret`, which also covers recursive
//! local functions and globals (whose variables are declared before any body is walked).
//! This file writes the messages that name expressions; the solver only reports types.

use super::shape_rules::rule_for;
use super::solver::{projection_error, Origin, RelKind, SolveError, Solver, Term, TV};
use crate::ir::{DType, Expr, ExprKind, Function, Type};
use rustc_hash::FxHashMap;

pub(super) struct Gen<'a> {
    pub s: Solver,
    /// Solver variable of every non-leaf node (and constants), by node identity.
    pub expr_tv: FxHashMap<usize, TV>,
    /// Solver variable of every variable, by `Var` id.
    pub var_tv: FxHashMap<u64, TV>,
    /// The type of each global function, `fn (params) -> ret`.
    pub globals: FxHashMap<&'a str, TV>,
    /// Index of the global function being walked (for error locations).
    pub func: u32,
}

enum Step<'a> {
    Enter(&'a Expr),
    /// Between a `let`'s value and its body: bind the variable.
    Bind(&'a Expr),
    Exit(&'a Expr),
}

/// How a message names an expression.
pub(super) fn describe(e: &Expr) -> String {
    match e.kind() {
        ExprKind::Var(v) => format!("`%{}`", v.name()),
        ExprKind::GlobalVar(g) => format!("`@{}`", g.name()),
        ExprKind::Op(op) => format!("`{}`", op.name()),
        ExprKind::Function(_) => "the function literal".into(),
        ExprKind::Constant(c) => match (c.meta_index, &c.data) {
            (Some(i), None) => format!("`meta[relay.Constant][{i}]`"),
            _ => "the constant".into(),
        },
        ExprKind::Call(c) => match c.callee.kind() {
            ExprKind::Op(op) => format!("the `{}` call", op.name()),
            _ => format!("the call of {}", describe(&c.callee)),
        },
        k => format!("the {}", k.name()),
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

impl<'a> Gen<'a> {
    pub fn new(capacity: usize) -> Gen<'a> {
        let mut expr_tv = FxHashMap::default();
        expr_tv.reserve(capacity);
        Gen {
            s: Solver::with_capacity(capacity),
            expr_tv,
            var_tv: FxHashMap::default(),
            globals: FxHashMap::default(),
            func: u32::MAX,
        }
    }

    fn err(&self, e: &Expr, message: String) -> SolveError {
        SolveError {
            message,
            origin: self.origin(e),
        }
    }

    fn origin(&self, e: &Expr) -> Origin {
        Origin {
            span: e.span(),
            func: self.func,
        }
    }

    /// The variable of a `Var`, created from its annotation on first sight.
    pub fn var(&mut self, v: &crate::ir::Var) -> TV {
        if let Some(t) = self.var_tv.get(&v.id()) {
            return *t;
        }
        let t = match v.ann() {
            Some(a) => self.s.from_type(a),
            None => self.s.hole(),
        };
        self.var_tv.insert(v.id(), t);
        t
    }

    /// Declares a global function's type from its annotations (holes where there are none).
    pub fn declare_global(&mut self, name: &'a str, f: &Function) {
        let params = f.params.iter().map(|p| self.var(p)).collect();
        let ret = match &f.ret_type {
            Some(t) => self.s.from_type(t),
            None => self.s.hole(),
        };
        let t = self.s.func(params, ret);
        self.globals.insert(name, t);
    }

    /// The variable of a node that has been walked (or of a leaf).
    pub fn tv(&mut self, e: &Expr) -> Result<TV, SolveError> {
        match e.kind() {
            ExprKind::Var(v) => Ok(self.var(v)),
            ExprKind::GlobalVar(g) => match self.globals.get(g.name()) {
                Some(t) => Ok(*t),
                None => Err(self.err(e, format!("unknown global `@{}`", g.name()))),
            },
            ExprKind::Op(op) => Err(self.err(
                e,
                format!("the op `{}` is used as a value; passlab only types calls of ops", op.name()),
            )),
            _ => Ok(self.expr_tv[&e.id()]),
        }
    }

    /// Walks `root`, returning its variable.
    pub fn expr(&mut self, root: &'a Expr) -> Result<TV, SolveError> {
        let mut stack = vec![Step::Enter(root)];
        while let Some(step) = stack.pop() {
            match step {
                Step::Enter(e) => {
                    if self.expr_tv.contains_key(&e.id()) {
                        continue;
                    }
                    match e.kind() {
                        ExprKind::Var(_) | ExprKind::GlobalVar(_) | ExprKind::Op(_) => {}
                        ExprKind::Constant(c) => {
                            let t = match &c.ty {
                                Some(t) => self.s.known(Type::Tensor(t.clone().into())),
                                None => self.s.hole(),
                            };
                            self.expr_tv.insert(e.id(), t);
                        }
                        ExprKind::Tuple(fs) => {
                            stack.push(Step::Exit(e));
                            stack.extend(fs.iter().rev().map(Step::Enter));
                        }
                        ExprKind::TupleGetItem(t, _) => {
                            stack.push(Step::Exit(e));
                            stack.push(Step::Enter(t));
                        }
                        ExprKind::Call(c) => {
                            stack.push(Step::Exit(e));
                            stack.extend(c.args.iter().rev().map(Step::Enter));
                            if !matches!(c.callee.kind(), ExprKind::Op(_)) {
                                stack.push(Step::Enter(&c.callee));
                            }
                        }
                        ExprKind::Let(l) => {
                            stack.push(Step::Exit(e));
                            stack.push(Step::Enter(&l.body));
                            stack.push(Step::Bind(e));
                            stack.push(Step::Enter(&l.value));
                        }
                        ExprKind::If(i) => {
                            stack.push(Step::Exit(e));
                            stack.push(Step::Enter(&i.else_branch));
                            stack.push(Step::Enter(&i.then_branch));
                            stack.push(Step::Enter(&i.cond));
                        }
                        ExprKind::Function(f) => {
                            stack.push(Step::Exit(e));
                            stack.push(Step::Enter(&f.body));
                        }
                    }
                }
                Step::Bind(e) => self.bind_let(e)?,
                Step::Exit(e) => {
                    let t = self.exit(e)?;
                    self.expr_tv.insert(e.id(), t);
                    if self.s.has_pending_work() {
                        self.s.solve()?;
                    }
                }
            }
        }
        self.tv(root)
    }

    fn bind_let(&mut self, e: &Expr) -> Result<(), SolveError> {
        let ExprKind::Let(l) = e.kind() else { unreachable!("Bind is pushed for lets") };
        let vt = self.tv(&l.value)?;
        if l.var.ann().is_none() && !self.var_tv.contains_key(&l.var.id()) {
            // The common case: the variable simply has its value's type.
            self.var_tv.insert(l.var.id(), vt);
            return Ok(());
        }
        let xt = self.var(&l.var);
        self.s.unify(xt, vt).map_err(|m| {
            self.err(
                e,
                format!(
                    "type mismatch in the binding of `%{}`: it is annotated {} but its value has type {}",
                    l.var.name(),
                    m.left,
                    m.right
                ),
            )
        })
    }

    /// The variable of a node whose children have been walked.
    fn exit(&mut self, e: &'a Expr) -> Result<TV, SolveError> {
        match e.kind() {
            ExprKind::Tuple(fs) => {
                let vs = fs.iter().map(|f| self.tv(f)).collect::<Result<Vec<_>, _>>()?;
                Ok(self.s.tuple(vs))
            }
            ExprKind::TupleGetItem(t, i) => {
                let tt = self.tv(t)?;
                match self.s.term(tt).clone() {
                    Term::Tuple(vs) if *i < vs.len() => Ok(vs[*i]),
                    Term::Known(Type::Tuple(ts)) if *i < ts.len() => Ok(self.s.known(ts[*i].clone())),
                    Term::Hole => {
                        let out = self.s.hole();
                        self.s.add_relation(RelKind::Proj(*i), vec![tt, out], self.origin(e))?;
                        Ok(out)
                    }
                    _ => {
                        let ty = self.s.partial(tt);
                        Err(self.err(e, format!("in the projection of {}: {}", describe(t), projection_error(*i, &ty))))
                    }
                }
            }
            ExprKind::Call(c) => {
                let args = c.args.iter().map(|a| self.tv(a)).collect::<Result<Vec<_>, _>>()?;
                match c.callee.kind() {
                    ExprKind::Op(op) => {
                        let n = op.num_inputs;
                        if n >= 0 && n as usize != args.len() {
                            return Err(self.err(
                                e,
                                format!(
                                    "`{}` expects {n} argument{}, got {}",
                                    op.name(),
                                    plural(n as usize),
                                    args.len()
                                ),
                            ));
                        }
                        let Some(rule) = rule_for(*op) else {
                            return Err(self.err(e, format!("no type rule for op `{}`", op.name())));
                        };
                        let out = self.s.hole();
                        let mut all = args;
                        all.push(out);
                        let kind = RelKind::Op {
                            name: op.name(),
                            rule,
                            attrs: c.attrs.clone(),
                        };
                        self.s.add_relation(kind, all, self.origin(e))?;
                        Ok(out)
                    }
                    _ => self.general_call(e, &c.callee, args),
                }
            }
            ExprKind::Let(l) => self.tv(&l.body),
            ExprKind::If(i) => {
                let ct = self.tv(&i.cond)?;
                self.s.unify_with_type(ct, &Type::scalar(DType::BOOL)).map_err(|m| {
                    self.err(e, format!("the condition of `if` must be a bool scalar, found {}", m.left))
                })?;
                let (tt, ft) = (self.tv(&i.then_branch)?, self.tv(&i.else_branch)?);
                self.s.unify(tt, ft).map_err(|m| {
                    self.err(e, format!("the branches of `if` have different types: {} vs {}", m.left, m.right))
                })?;
                Ok(tt)
            }
            ExprKind::Function(f) => {
                let params: Vec<TV> = f.params.iter().map(|p| self.var(p)).collect();
                let ret = match &f.ret_type {
                    Some(t) => self.s.from_type(t),
                    None => self.s.hole(),
                };
                let bt = self.tv(&f.body)?;
                self.s.unify(ret, bt).map_err(|m| {
                    self.err(
                        e,
                        format!(
                            "type mismatch in the function's result: its body has type {} but the return type is annotated {}",
                            m.right, m.left
                        ),
                    )
                })?;
                Ok(self.s.func(params, ret))
            }
            _ => self.tv(e),
        }
    }

    /// A call of something other than an op: unify the callee with `fn (args) -> ret`.
    fn general_call(&mut self, e: &Expr, callee: &Expr, args: Vec<TV>) -> Result<TV, SolveError> {
        let ft = self.tv(callee)?;
        let arity = |g: &Gen<'a>, n: usize| {
            g.err(
                e,
                format!(
                    "{} expects {n} argument{}, got {}",
                    describe(callee),
                    plural(n),
                    args.len()
                ),
            )
        };
        let arg_err = |g: &Gen<'a>, i: usize, expected: &str, found: &str| {
            g.err(
                e,
                format!(
                    "type mismatch in argument {} of the call of {}: expected {expected}, found {found}",
                    i + 1,
                    describe(callee)
                ),
            )
        };
        match self.s.term(ft).clone() {
            Term::Func(ps, ret) => {
                if ps.len() != args.len() {
                    return Err(arity(self, ps.len()));
                }
                for (i, (p, a)) in ps.iter().zip(&args).enumerate() {
                    self.s.unify(*p, *a).map_err(|m| arg_err(self, i, &m.left, &m.right))?;
                }
                Ok(ret)
            }
            Term::Known(Type::Func(fty)) => {
                if fty.params.len() != args.len() {
                    return Err(arity(self, fty.params.len()));
                }
                for (i, (p, a)) in fty.params.iter().zip(&args).enumerate() {
                    self.s.unify_with_type(*a, p).map_err(|m| arg_err(self, i, &m.right, &m.left))?;
                }
                Ok(self.s.known(fty.ret.clone()))
            }
            Term::Hole => {
                let ret = self.s.hole();
                let f = self.s.func(args, ret);
                self.s.unify(ft, f).map_err(|m| self.err(e, format!("{} vs {}", m.left, m.right)))?;
                Ok(ret)
            }
            _ => {
                let t = self.s.partial(ft);
                Err(self.err(
                    e,
                    format!("{} is called but has type {t}, which is not a function type", describe(callee)),
                ))
            }
        }
    }
}
