//! Constraint generation: one walk over an expression DAG that gives every node a solver
//! variable and states how they relate (TVM's `TypeInferencer` first phase).
//!
//! The walk is `walk.rs`'s iterative post-order, so a million-deep let chain or 100,000
//! nested calls need no native stack; a shared node is visited once. Every node's variable is
//! also appended to a tape that resolution replays in the same order. Variables are
//! identified by their `Var` node, not by scope: a variable's solver variable is created the
//! first time it is seen (binder or use) from its annotation, and an unannotated `let`
//! variable simply shares its value's variable — no scoping is needed for typing.
//!
//! Op calls become relations (solved at once when their inputs are known); calls of
//! anything else unify the callee with `fn (args) -> ret`, which also covers recursive
//! local functions and globals (whose variables are declared before any body is walked).
//! This file writes the messages that name expressions; the solver only reports types.

use super::relations::{projection_error, RelKind};
use super::shape_rules::rule_for;
use super::solver::{Origin, SolveError, Solver, Term, TV};
use super::walk::{walk, Walker};
use crate::ir::{
    DType, Expr, ExprKind, FuncType, Function, Pattern, Type, TypeDef, TypeVar, Var, VarMap,
};
use rustc_hash::FxHashMap;

pub(super) struct Gen<'a> {
    pub s: Solver,
    /// The variable of every node in walk order (read back by resolution).
    pub tape: Vec<TV>,
    /// Variables of shared nodes, by node identity.
    memo: crate::ir::NodeMap<TV>,
    /// Variables of opaque constants (for explaining what stayed unknown).
    pub opaque: crate::ir::NodeMap<TV>,
    /// Scalar tensor types, allocated once per dtype.
    scalars: FxHashMap<DType, Type>,
    /// Every variable's solver variable (and, once resolved, its annotated copy), by `Var` id.
    pub vars: VarMap<VarSlot>,
    /// The type of each global function, `fn (params) -> ret`.
    pub globals: FxHashMap<&'a str, TV>,
    /// Index of the global function being walked (for error locations).
    pub func: u32,
    /// The global function being walked: its own name refers to it monomorphically.
    pub current: Option<&'a str>,
    /// Polymorphic globals: their type scheme (`fn [A](A) -> A`) once known; `None` while
    /// the function has no return type and its body is not typed yet.
    pub schemes: FxHashMap<&'a str, Option<Type>>,
    /// ADT definitions by name, and constructors by name (definition, position).
    pub adts: FxHashMap<&'a str, &'a TypeDef>,
    /// Where to find a global's signature when it is used and not declared yet (functions
    /// checked apart from the rest of their module, `infer_type::independent`).
    pub signatures: Option<&'a crate::ir::Module>,
}

/// What is known about one variable.
pub(super) struct VarSlot {
    pub tv: TV,
    /// The variable to use in the typed program (filled by resolution).
    pub typed: Option<Var>,
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

impl Drop for Gen<'_> {
    fn drop(&mut self) {
        crate::ir::scratch::give_vec(std::mem::take(&mut self.tape));
    }
}

impl<'a> Gen<'a> {
    pub fn new(capacity: usize) -> Gen<'a> {
        Gen {
            s: Solver::with_capacity(capacity),
            tape: {
                let mut t: Vec<TV> = crate::ir::scratch::take_vec();
                t.reserve(capacity);
                t
            },
            memo: Default::default(),
            opaque: Default::default(),
            scalars: FxHashMap::default(),
            vars: VarMap::new(),
            globals: FxHashMap::default(),
            func: u32::MAX,
            current: None,
            schemes: FxHashMap::default(),
            adts: FxHashMap::default(),
            signatures: None,
        }
    }

    /// Makes the module's type definitions known.
    pub fn declare_adts(&mut self, defs: &'a [TypeDef]) {
        for d in defs {
            self.adts.insert(&d.name, d);
        }
    }

    /// Whether `tv` is (so far) a polymorphic function type.
    fn is_poly(&mut self, tv: TV) -> bool {
        matches!(self.s.term(tv), Term::Known(t) if t.as_func().is_some_and(|f| !f.type_params.is_empty()))
    }

    /// The type scheme of polymorphic literal `f` from what its parameters and result are
    /// known to be at its end, when nothing of them is left to solve.
    fn determined_scheme(&mut self, f: &Function, params: &[TV], ret: TV) -> Option<Type> {
        let ps = params
            .iter()
            .map(|p| self.s.resolve(*p))
            .collect::<Option<Vec<_>>>()?;
        let r = self.s.resolve(ret)?;
        Some(Type::poly_func(f.type_params.clone(), ps, r))
    }

    /// A fresh instance of a polymorphic function type.
    fn instantiate(&mut self, ft: &FuncType) -> TV {
        self.s.instantiate(ft)
    }

    /// A constructor's type, instantiated: `fn (fields) -> Adt[holes]`.
    fn constructor_tv(&mut self, e: &Expr, c: &crate::ir::Constructor) -> Result<TV, SolveError> {
        let (fields, adt) = self.constructor_parts(e, c)?;
        Ok(self.s.func(fields, adt))
    }

    /// A constructor's field variables and its ADT's, with fresh holes for the ADT's type
    /// parameters.
    fn constructor_parts(
        &mut self,
        e: &Expr,
        c: &crate::ir::Constructor,
    ) -> Result<(Vec<TV>, TV), SolveError> {
        let Some(def) = self.adts.get(&*c.adt).copied() else {
            return Err(self.err(
                e,
                format!("unknown type `{}` of constructor `{}`", c.adt, c.name),
            ));
        };
        let Some((_, fields)) = def.ctors.iter().find(|(n, _)| *n == c.name) else {
            return Err(self.err(
                e,
                format!("type `{}` has no constructor `{}`", c.adt, c.name),
            ));
        };
        let map: Vec<(TypeVar, TV)> = def
            .params
            .iter()
            .map(|p| (TypeVar(p.clone()), self.s.hole()))
            .collect();
        let field_tvs = fields
            .iter()
            .map(|f| self.s.of_type_with(f, &map))
            .collect();
        let args = map.iter().map(|(_, tv)| *tv).collect();
        let adt = self.s.adt(def.name.clone(), args);
        Ok((field_tvs, adt))
    }

    /// States that the value matched by `p` has type `tv` (and binds its variables).
    fn pattern(&mut self, e: &Expr, p: &Pattern, tv: TV) -> Result<(), SolveError> {
        let mismatch = |g: &mut Gen<'a>, m: super::solver::Mismatch| {
            g.err(
                e,
                format!(
                    "type mismatch in a pattern of `match`: the pattern has type {} but the value matched has type {}",
                    m.right, m.left
                ),
            )
        };
        match p {
            Pattern::Wildcard => Ok(()),
            Pattern::Var(v) => {
                let vt = self.var(v);
                self.s.unify(tv, vt).map_err(|m| mismatch(self, m))
            }
            Pattern::Tuple(ps) => {
                let holes: Vec<TV> = ps.iter().map(|_| self.s.hole()).collect();
                let t = self.s.tuple(holes.clone());
                self.s.unify(tv, t).map_err(|m| mismatch(self, m))?;
                for (p, h) in ps.iter().zip(holes) {
                    self.pattern(e, p, h)?;
                }
                Ok(())
            }
            Pattern::Ctor(c, ps) => {
                let (fields, adt) = self.constructor_parts(e, c)?;
                self.s.unify(tv, adt).map_err(|m| mismatch(self, m))?;
                if fields.len() != ps.len() {
                    return Err(self.err(
                        e,
                        format!(
                            "constructor `{}` has {} fields, the pattern gives {}",
                            c.name,
                            fields.len(),
                            ps.len()
                        ),
                    ));
                }
                for (p, f) in ps.iter().zip(fields) {
                    self.pattern(e, p, f)?;
                }
                Ok(())
            }
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
    pub fn var(&mut self, v: &Var) -> TV {
        self.var_slot(v).tv
    }

    /// The slot of a `Var` (one table lookup), created from its annotation on first sight.
    pub fn var_slot(&mut self, v: &Var) -> &mut VarSlot {
        let s = &mut self.s;
        self.vars.get_or_insert_with(v.id(), || VarSlot {
            tv: match v.ann() {
                Some(a) => s.of_type(a),
                None => s.hole(),
            },
            typed: None,
        })
    }

    /// Declares a global function's type from its annotations (holes where there are none).
    /// A polymorphic one also gets its scheme when it is fully annotated.
    pub fn declare_global(&mut self, name: &'a str, f: &Function) {
        if !f.type_params.is_empty() {
            let scheme = f.func_type().filter(|t| self.s.is_complete(t));
            self.schemes.insert(name, scheme);
        }
        let params = f.params.iter().map(|p| self.var(p)).collect();
        let ret = match &f.ret_type {
            Some(t) => self.s.of_type(t),
            None => self.s.hole(),
        };
        let t = self.s.func(params, ret);
        self.globals.insert(name, t);
    }

    /// The type of global `name`: declared, or declared now from `signatures`.
    fn global_tv(&mut self, name: &str) -> Option<TV> {
        if let Some(t) = self.globals.get(name) {
            return Some(*t);
        }
        let (g, e) = self.signatures?.entry(name)?;
        self.declare_global(g.name(), e.as_function()?);
        self.globals.get(name).copied()
    }

    /// The variable of a leaf: a variable, a global or a constant.
    fn leaf_tv(&mut self, e: &Expr) -> Result<TV, SolveError> {
        match e.kind() {
            ExprKind::Var(v) => Ok(self.var(v)),
            ExprKind::GlobalVar(g) if self.current != Some(g.name()) => {
                // Declared on first use from `signatures` (a polymorphic one gets its scheme).
                if !self.globals.contains_key(g.name()) {
                    self.global_tv(g.name());
                }
                match self.schemes.get(g.name()) {
                    Some(Some(scheme)) => {
                        let scheme = scheme.clone();
                        Ok(self.instantiate(scheme.as_func().expect("a function type")))
                    }
                    Some(None) => Err(self.err(
                        e,
                        format!(
                            "the type of the polymorphic function `@{}` is not known where it is used: annotate its return type",
                            g.name()
                        ),
                    )),
                    None => match self.global_tv(g.name()) {
                        Some(t) => Ok(t),
                        None => Err(self.err(e, format!("unknown global `@{}`", g.name()))),
                    },
                }
            }
            ExprKind::GlobalVar(g) => match self.global_tv(g.name()) {
                Some(t) => Ok(t),
                None => Err(self.err(e, format!("unknown global `@{}`", g.name()))),
            },
            ExprKind::Constructor(c) => self.constructor_tv(e, c),
            ExprKind::Constant(c) => match &c.ty {
                Some(t) if t.shape.is_empty() => {
                    let ty = self
                        .scalars
                        .entry(t.dtype)
                        .or_insert_with(|| Type::scalar(t.dtype))
                        .clone();
                    Ok(self.s.known(ty))
                }
                Some(t) => Ok(self.s.known(Type::of_tensor(t))),
                None => {
                    let tv = self.s.hole();
                    self.opaque.insert(e.id(), tv);
                    Ok(tv)
                }
            },
            ExprKind::Op(op) => Err(self.err(
                e,
                format!(
                    "the op `{}` is used as a value; passlab only types calls of ops",
                    op.name()
                ),
            )),
            _ => unreachable!("not a leaf"),
        }
    }

    /// Walks `root`, returning its variable.
    pub fn expr(&mut self, root: &'a Expr) -> Result<TV, SolveError> {
        walk(self, root)
    }

    fn bind_let(&mut self, e: &Expr, vt: TV) -> Result<(), SolveError> {
        let ExprKind::Let(l) = e.kind() else {
            unreachable!("Bind is pushed for lets")
        };
        if l.var.ann().is_none() && !self.vars.contains(l.var.id()) {
            // The common case: the variable simply has its value's type.
            self.vars.insert(
                l.var.id(),
                VarSlot {
                    tv: vt,
                    typed: None,
                },
            );
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

    /// The variable of a node whose children have been walked (`kids`, in walk order).
    fn exit_node(&mut self, e: &'a Expr, kids: &[TV]) -> Result<TV, SolveError> {
        match e.kind() {
            ExprKind::Tuple(_) => Ok(self.s.tuple(kids.to_vec())),
            ExprKind::TupleGetItem(t, i) => {
                let tt = kids[0];
                match self.s.term(tt).clone() {
                    Term::Tuple(vs) if *i < vs.len() => Ok(vs[*i]),
                    Term::Known(t) if t.as_tuple().is_some_and(|ts| *i < ts.len()) => {
                        let ts = t.as_tuple().expect("a tuple");
                        Ok(self.s.known(ts[*i].clone()))
                    }
                    Term::Hole => {
                        let out = self.s.hole();
                        self.s
                            .add_relation(RelKind::Proj(*i), vec![tt, out], self.origin(e))?;
                        Ok(out)
                    }
                    _ => {
                        let ty = self.s.partial(tt);
                        Err(self.err(
                            e,
                            format!(
                                "in the projection of {}: {}",
                                describe(t),
                                projection_error(*i, &ty)
                            ),
                        ))
                    }
                }
            }
            ExprKind::Call(c) => match c.callee.kind() {
                ExprKind::Op(op) => {
                    let n = op.num_inputs;
                    if n >= 0 && n as usize != kids.len() {
                        return Err(self.err(
                            e,
                            format!(
                                "`{}` expects {n} argument{}, got {}",
                                op.name(),
                                plural(n as usize),
                                kids.len()
                            ),
                        ));
                    }
                    let Some(rule) = rule_for(*op) else {
                        return Err(self.err(e, format!("no type rule for op `{}`", op.name())));
                    };
                    let out = self.s.hole();
                    let mut all = Vec::with_capacity(kids.len() + 1);
                    all.extend_from_slice(kids);
                    all.push(out);
                    let kind = RelKind::Op {
                        name: op.name(),
                        rule,
                        attrs: c.attrs.clone(),
                    };
                    self.s.add_relation(kind, all, self.origin(e))?;
                    Ok(out)
                }
                _ => self.general_call(e, &c.callee, kids[0], kids[1..].to_vec()),
            },
            ExprKind::Let(_) => Ok(kids[1]),
            ExprKind::If(_) => {
                let (ct, tt, ft) = (kids[0], kids[1], kids[2]);
                self.s
                    .unify_with_type(ct, &Type::scalar(DType::BOOL))
                    .map_err(|m| {
                        self.err(
                            e,
                            format!(
                                "the condition of `if` must be a bool scalar, found {}",
                                m.left
                            ),
                        )
                    })?;
                self.s.unify(tt, ft).map_err(|m| {
                    self.err(
                        e,
                        format!(
                            "the branches of `if` have different types: {} vs {}",
                            m.left, m.right
                        ),
                    )
                })?;
                // A polymorphic branch unified with a monomorphic one stands for an instance:
                // the `if` has the monomorphic type.
                Ok(if self.is_poly(tt) { ft } else { tt })
            }
            ExprKind::Function(f) => {
                let params: Vec<TV> = f.params.iter().map(|p| self.var(p)).collect();
                let ret = match &f.ret_type {
                    Some(t) => self.s.of_type(t),
                    None => self.s.hole(),
                };
                self.s.unify(ret, kids[0]).map_err(|m| {
                    self.err(
                        e,
                        format!(
                            "type mismatch in the function's result: its body has type {} but the return type is annotated {}",
                            m.right, m.left
                        ),
                    )
                })?;
                if !f.type_params.is_empty() {
                    // A polymorphic literal is instantiated afresh at each call (TVM's
                    // let-polymorphism): its type is the one written out, or, where the
                    // result (or a parameter) is not annotated, the one its body determines
                    // by now in terms of its own type parameters and known types.
                    let written = f.func_type().filter(|t| self.s.is_complete(t));
                    let scheme = written.or_else(|| self.determined_scheme(f, &params, ret));
                    if let Some(t) = scheme {
                        let declared = self.s.func(params, ret);
                        let scheme_tv = self.s.known(t.clone());
                        let mono = match t.as_func() {
                            Some(ft) => Type::func(ft.params.clone(), ft.ret.clone()),
                            None => t.clone(),
                        };
                        self.s
                            .unify_with_type(declared, &mono)
                            .map_err(|m| self.err(e, format!("{} vs {}", m.left, m.right)))?;
                        return Ok(scheme_tv);
                    }
                }
                Ok(self.s.func(params, ret))
            }
            ExprKind::Match(m) => {
                let data = kids[0];
                for c in &m.clauses {
                    self.pattern(e, &c.pattern, data)?;
                }
                let Some(&first) = kids.get(1) else {
                    if m.complete {
                        // No clause: every value is unhandled (TVM reports the wildcard).
                        return Err(self.err(
                            e,
                            "match expression does not handle the following cases: _".to_string(),
                        ));
                    }
                    return Ok(self.s.hole());
                };
                for (i, &k) in kids[2..].iter().enumerate() {
                    self.s.unify(first, k).map_err(|mm| {
                        self.err(
                            e,
                            format!(
                                "the clauses of `match` have different types: clause 1 has type {} but clause {} has type {}",
                                mm.left,
                                i + 2,
                                mm.right
                            ),
                        )
                    })?;
                }
                let first = kids[1..]
                    .iter()
                    .copied()
                    .find(|&k| !self.is_poly(k))
                    .unwrap_or(first);
                if m.complete {
                    if let Some(missing) = super::exhaustive::unmatched(self, m) {
                        return Err(self.err(
                            e,
                            format!(
                                "match expression does not handle the following cases: {missing}"
                            ),
                        ));
                    }
                }
                Ok(first)
            }
            ExprKind::RefNew(_) => Ok(self.s.reference(kids[0])),
            ExprKind::RefRead(r) => {
                let inner = self.s.hole();
                let want = self.s.reference(inner);
                self.s.unify(kids[0], want).map_err(|m| {
                    self.err(
                        e,
                        format!(
                            "`ref_read` needs a reference, but {} has type {}",
                            describe(r),
                            m.left
                        ),
                    )
                })?;
                Ok(inner)
            }
            ExprKind::RefWrite(r, v) => {
                let inner = self.s.hole();
                let want = self.s.reference(inner);
                self.s.unify(kids[0], want).map_err(|m| {
                    self.err(
                        e,
                        format!(
                            "`ref_write` needs a reference, but {} has type {}",
                            describe(r),
                            m.left
                        ),
                    )
                })?;
                self.s.unify(inner, kids[1]).map_err(|m| {
                    self.err(
                        e,
                        format!(
                            "type mismatch in `ref_write`: the reference holds {} but {} has type {}",
                            m.left,
                            describe(v),
                            m.right
                        ),
                    )
                })?;
                Ok(self.s.known(Type::tuple(Vec::new())))
            }
            _ => unreachable!("leaves are handled by leaf_tv"),
        }
    }

    /// A call of something other than an op: unify the callee with `fn (args) -> ret`.
    fn general_call(
        &mut self,
        e: &Expr,
        callee: &Expr,
        ft: TV,
        args: Vec<TV>,
    ) -> Result<TV, SolveError> {
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
                    self.s
                        .unify(*p, *a)
                        .map_err(|m| arg_err(self, i, &m.left, &m.right))?;
                }
                Ok(ret)
            }
            Term::Known(t) if t.as_func().is_some_and(|f| !f.type_params.is_empty()) => {
                let inst = self.instantiate(t.as_func().expect("a function type"));
                self.general_call(e, callee, inst, args)
            }
            Term::Known(t) if t.as_func().is_some() => {
                let fty = t.as_func().expect("a function type");
                if fty.params.len() != args.len() {
                    return Err(arity(self, fty.params.len()));
                }
                for (i, (p, a)) in fty.params.iter().zip(&args).enumerate() {
                    self.s
                        .unify_with_type(*a, p)
                        .map_err(|m| arg_err(self, i, &m.right, &m.left))?;
                }
                Ok(self.s.known(fty.ret.clone()))
            }
            Term::Hole => {
                let ret = self.s.hole();
                let f = self.s.func(args, ret);
                self.s
                    .unify(ft, f)
                    .map_err(|m| self.err(e, format!("{} vs {}", m.left, m.right)))?;
                Ok(ret)
            }
            _ => {
                let t = self.s.partial(ft);
                Err(self.err(
                    e,
                    format!(
                        "{} is called but has type {t}, which is not a function type",
                        describe(callee)
                    ),
                ))
            }
        }
    }
}

impl<'a> Walker<'a> for Gen<'a> {
    type Out = TV;
    type Err = SolveError;

    fn memo_get(&mut self, id: usize) -> Option<TV> {
        self.memo.get(&id).copied()
    }

    fn memo_put(&mut self, id: usize, v: TV) {
        self.memo.insert(id, v);
    }

    fn leaf(&mut self, e: &'a Expr) -> Result<TV, SolveError> {
        let t = self.leaf_tv(e)?;
        self.tape.push(t);
        Ok(t)
    }

    fn bind(&mut self, e: &'a Expr, value: &TV) -> Result<(), SolveError> {
        self.bind_let(e, *value)
    }

    fn exit(&mut self, e: &'a Expr, kids: &[TV]) -> Result<TV, SolveError> {
        let t = self.exit_node(e, kids)?;
        self.tape.push(t);
        if self.s.has_pending_work() {
            self.s.solve()?;
        }
        Ok(t)
    }
}
