//! InferType: type inference and checking for whole modules (TVM's `InferType` pass,
//! `src/relay/transforms/type_infer.cc` + `type_solver.cc`), as plain functions.
//!
//! [`infer_module`] returns a module in which every expression carries its checked type
//! (`Expr::ty()`), every function parameter has a type annotation and every function a return
//! type, exactly what TVM's `Resolver` fills in. It works in three phases:
//! 1. **generation** (`generate.rs`): a stack-safe walk gives each node a solver variable and
//!    emits constraints — op calls become relations with the op's shape rule
//!    (`shape_rules.rs`), other calls unify the callee with `fn (args) -> ret`;
//! 2. **solving** (`solver.rs`, `relations.rs`): union-find unification with
//!    `IncompleteType`-like holes and a wake-up queue of relations;
//! 3. **resolution** (`resolve.rs`): rebuilds the expressions with their types, preserving
//!    sharing and spans, and reports anything still unknown ([`infer_module_partial`] leaves
//!    it unknown instead).
//!
//! Both walks share `walk.rs` (iterative post-order with a value stack; only shared nodes are
//! memoised), and resolution replays generation's per-node variables in order.
//!
//! Invariants: linear time in the size of the module (every node is visited once per phase,
//! relations rerun only when one of their holes is bound), no recursion over expressions
//! (only over the nesting of types), input modules are never modified. The whole module is
//! solved together, so mutually recursive globals and unannotated parameters determined by a
//! caller are typed.
//!
//! Polymorphism is TVM's: a function with type parameters (`def @id[A](%x: A) -> A`) is
//! checked once with its type variables rigid, and every use of it elsewhere instantiates its
//! type scheme with fresh holes (a use inside its own body is monomorphic). Polymorphic
//! globals are walked first, those without a written return type before the rest, so their
//! scheme is known where they are used; a polymorphic function literal must be annotated in
//! full to be instantiated. ADT constructors are instantiated the same way from their type
//! definition; `match` unifies each pattern with the scrutinee and the clauses with each
//! other, and a complete `match` must cover every value (`exhaustive.rs`). References type
//! as `ref(T)`. There is no let-polymorphism (as in TVM).

mod exhaustive;
mod generate;
mod on_build;
mod recent;
mod relations;
mod resolve;
pub(crate) mod shape_rules;
mod solver;
mod walk;

pub use on_build::{
    call_type, call_type_error, constant_type, node_type, typed_call, typed_constant, typed_node,
    with_node_type,
};

use crate::diagnostic::Diagnostic;
use crate::ir::{Expr, Module, Span};
use generate::Gen;
use resolve::{ResolveError, Resolver};
use solver::SolveError;
use std::fmt;

/// A type error: what is wrong (naming the expression and the types involved), where, and in
/// which global function.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TypeError {
    pub message: String,
    pub span: Span,
    /// The global function the error was found in, if any.
    pub function: Option<String>,
}

impl fmt::Display for TypeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.function {
            Some(g) => write!(f, "in @{g}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for TypeError {}

impl TypeError {
    /// The error as a diagnostic pointing into the source text it was parsed from.
    pub fn diagnostic(&self) -> Diagnostic {
        Diagnostic::new(self.to_string(), self.span)
    }

    /// `error: ...` with the source line and a caret under the offending expression.
    pub fn render(&self, source_name: &str, text: &str, color: bool) -> String {
        self.diagnostic().render(source_name, text, color)
    }

    /// Renders against the module's own source when it has one and the span is real.
    pub fn render_for(&self, m: &Module, color: bool) -> String {
        match &m.source {
            Some(src) if !self.span.is_dummy() => self.render(&src.name, &src.text, color),
            _ => format!("error: {self}"),
        }
    }
}

fn to_type_error(e: SolveError, names: &[&str]) -> TypeError {
    TypeError {
        message: e.message,
        span: e.origin.span,
        function: names.get(e.origin.func as usize).map(|n| n.to_string()),
    }
}

/// Infers and checks the types of every function of `m`, returning the typed module.
pub fn infer_module(m: &Module) -> Result<Module, TypeError> {
    run(m, false).map(|(typed, _)| typed)
}

/// Like [`infer_module`], but a type the program does not determine (an opaque constant only
/// used by `add`, an unused unannotated parameter) is left unknown instead of failing: such
/// nodes keep no type (or the part that is known, with `_`), and one note per function says
/// what could not be inferred. Real type errors still fail. For showing what *is* known, e.g.
/// in a REPL; passes should use [`infer_module`].
pub fn infer_module_partial(m: &Module) -> Result<(Module, Vec<TypeError>), TypeError> {
    run(m, true)
}

fn run(m: &Module, lenient: bool) -> Result<(Module, Vec<TypeError>), TypeError> {
    let _run = crate::pass::run_state::enter_keeping_buffers();
    let funcs: Vec<(&str, &Expr)> = m.functions().map(|(g, e)| (g.name(), e)).collect();
    let names: Vec<&str> = funcs.iter().map(|(n, _)| *n).collect();
    let err = |e: SolveError| to_type_error(e, &names);
    let mut gen = Gen::new(1024);
    gen.declare_adts(&m.type_defs);
    for (name, e) in &funcs {
        if let Some(f) = e.as_function() {
            gen.declare_global(name, f);
        }
    }
    // Polymorphic functions first, those whose type is not written out in full before the
    // others (a use instantiates the finished type scheme), then the monomorphic ones,
    // solved together.
    let mut order: Vec<usize> = Vec::with_capacity(funcs.len());
    for pass in 0..3 {
        for (i, (name, e)) in funcs.iter().enumerate() {
            let scheme = gen.schemes.get(name).filter(|_| e.as_function().is_some());
            let wanted = match pass {
                0 => matches!(scheme, Some(None)),
                1 => matches!(scheme, Some(Some(_))),
                _ => scheme.is_none() || e.as_function().is_none(),
            };
            if wanted {
                order.push(i);
            }
        }
    }
    for &i in &order {
        let (name, e) = funcs[i];
        gen.func = i as u32;
        gen.current = Some(name);
        let t = gen.expr(e).map_err(err)?;
        let g = gen.globals[name];
        gen.s.unify(g, t).map_err(|mm| {
            err(SolveError {
                message: format!("@{name} has type {} but is used as {}", mm.right, mm.left),
                origin: solver::Origin {
                    span: e.span(),
                    func: i as u32,
                },
            })
        })?;
        if let Some(None) = gen.schemes.get(name) {
            // Its type scheme, now that its body is typed.
            gen.s.solve().map_err(err)?;
            let f = e.as_function().expect("a polymorphic global is a function");
            let Some(t) = gen.s.resolve(g) else {
                return Err(err(SolveError {
                    message: format!(
                        "cannot infer the type of the polymorphic function @{name} (known so far: {}); annotate it",
                        gen.s.partial(g)
                    ),
                    origin: solver::Origin {
                        span: e.span(),
                        func: i as u32,
                    },
                }));
            };
            let ft = t.as_func().expect("a function's type");
            let scheme = crate::ir::Type::poly_func(
                f.type_params.clone(),
                ft.params.clone(),
                ft.ret.clone(),
            );
            gen.schemes.insert(name, Some(scheme));
        }
    }
    gen.current = None;
    gen.s.solve().map_err(err)?;
    let mut typed: Vec<Option<Expr>> = vec![None; funcs.len()];
    let mut notes = Vec::new();
    let mut res = Resolver::new(&mut gen);
    res.lenient = lenient;
    for &i in &order {
        let (_, e) = funcs[i];
        res.gen.func = i as u32;
        match res.expr(e) {
            Ok(t) => typed[i] = Some(t),
            Err(ResolveError::Solve(s)) => return Err(err(s)),
            Err(ResolveError::Unresolved(at, tv)) => {
                return Err(err(resolve::explain(res.gen, e, at, tv)))
            }
        }
        if let Some((at, tv)) = res.first_unresolved.take() {
            notes.push(err(resolve::explain(res.gen, e, at, tv)));
        }
    }
    let mut it = typed.into_iter();
    let mut out = m.map_functions(|_, _| {
        Ok::<_, TypeError>(it.next().flatten().expect("one result per function"))
    })?;
    if !lenient {
        // Every node now carries its type: the passes that need types need not walk to check.
        out.mark_typed();
    }
    Ok((out, notes))
}

/// [`infer_module`] on `threads` threads: when every function is monomorphic and annotated
/// in full (parameters and return type) and the module defines no ADTs, no function's types
/// depend on another's body, so the functions are checked in runs of consecutive ones, each
/// run on its own against the others' signatures, in parallel. Otherwise, or when some
/// function fails (so that the error is the one the joint run reports), the module is solved
/// together as [`infer_module`] does.
pub fn infer_module_on(m: &Module, threads: usize) -> Result<Module, TypeError> {
    let _run = crate::pass::run_state::enter_keeping_buffers();
    if threads > 1 && m.len() > 1 {
        if let Some(out) = independent(m, threads) {
            return Ok(out);
        }
    }
    infer_module(m)
}

/// How many runs of functions each thread gets in [`independent`]: several, so a thread that
/// finishes early takes another run, and few, so each run's solver set-up is amortised over
/// many functions.
const RUNS_PER_THREAD: usize = 8;

/// The functions checked in runs (see [`infer_module_on`]); `None` when that does not apply
/// or some function fails.
fn independent(m: &Module, threads: usize) -> Option<Module> {
    if !m.type_defs.is_empty() {
        return None;
    }
    let funcs: Vec<(&str, &Expr)> = m.functions().map(|(g, e)| (g.name(), e)).collect();
    let size = funcs.len().div_ceil(threads * RUNS_PER_THREAD).max(1);
    let runs: Vec<(usize, &[(&str, &Expr)])> = funcs
        .chunks(size)
        .enumerate()
        .map(|(k, run)| (k * size, run))
        .collect();
    let typed = crate::pass::parallel::map_pure(threads, &runs, |_, (start, run)| {
        infer_run(m, *start, run)
    });
    let mut it = typed.into_iter().flat_map(|run| match run {
        Some(run) => run.into_iter().map(Some).collect(),
        None => vec![None],
    });
    let mut out = m.map_functions(|_, _| it.next().flatten().ok_or(())).ok()?;
    out.mark_typed();
    Some(out)
}

/// The inference of a run of consecutive functions of `m` (the first at index `start`), each
/// global they call declared from its signature; `None` when one of them is polymorphic or
/// not annotated in full (the run's functions' types could then depend on one another's
/// bodies), or on any error.
fn infer_run<'a>(m: &'a Module, start: usize, run: &[(&'a str, &'a Expr)]) -> Option<Vec<Expr>> {
    let mut gen = Gen::new(1024);
    gen.signatures = Some(m);
    for (k, &(name, e)) in run.iter().enumerate() {
        let f = e.as_function()?;
        let mut annotated = f.params.iter().map(|p| p.ann());
        if !f.type_params.is_empty()
            || !annotated.all(|t| t.is_some_and(|t| gen.s.is_complete(t)))
            || !f.ret_type.as_ref().is_some_and(|t| gen.s.is_complete(t))
        {
            return None;
        }
        if !gen.globals.contains_key(name) {
            gen.declare_global(name, f);
        }
        let g = gen.globals[name];
        gen.func = (start + k) as u32;
        gen.current = Some(name);
        let t = gen.expr(e).ok()?;
        gen.s.unify(g, t).ok()?;
    }
    gen.current = None;
    gen.s.solve().ok()?;
    let mut res = Resolver::new(&mut gen);
    let mut out = Vec::with_capacity(run.len());
    for (k, &(_, e)) in run.iter().enumerate() {
        res.gen.func = (start + k) as u32;
        out.push(res.expr(e).ok()?);
    }
    res.first_unresolved.is_none().then_some(out)
}

/// Infers the types of a standalone expression (free variables allowed). Globals it calls
/// are typed through their signatures in `m`, when given (their bodies are not checked).
pub fn infer_expr(e: &Expr, m: Option<&Module>) -> Result<Expr, TypeError> {
    let _run = crate::pass::run_state::enter_keeping_buffers();
    let err = |e: SolveError| to_type_error(e, &[]);
    let mut gen = Gen::new(64);
    if let Some(m) = m {
        gen.declare_adts(&m.type_defs);
        // Only the globals `e` uses are declared, as it reaches them: a pass that types each
        // of a module's functions this way does work linear in the module.
        gen.signatures = Some(m);
    }
    gen.expr(e).map_err(err)?;
    gen.s.solve().map_err(err)?;
    let mut res = Resolver::new(&mut gen);
    match res.expr(e) {
        Ok(t) => Ok(t),
        Err(ResolveError::Solve(s)) => Err(err(s)),
        Err(ResolveError::Unresolved(at, tv)) => Err(err(resolve::explain(res.gen, e, at, tv))),
    }
}

/// Runs inference and reports the error as one line (`in @main: type mismatch in ...`), for a
/// verifying instrument; use [`infer_module`] and [`TypeError::render_for`] for the source
/// excerpt.
pub fn check_types(m: &Module) -> Result<(), String> {
    infer_module(m).map(|_| ()).map_err(|e| e.to_string())
}

/// The registered `InferType` module pass (opt_level 0): types every function; a type error
/// is reported as a diagnostic at the offending node, which fails the pass.
pub fn create(
    _options: &crate::pass::PassOptions,
) -> Result<crate::pass::Pass, crate::pass::PassError> {
    use crate::pass::{module_pass, PassDiagnostic};
    Ok(module_pass(
        super::builtin_info("InferType"),
        |m, cx| match infer_module_on(m, threads_for(m, cx)?) {
            Ok(typed) => Ok(typed),
            Err(e) => {
                let mut d = PassDiagnostic::error(e.message.clone());
                d.span = e.span;
                d.function = e.function.clone();
                cx.report(d);
                Ok(m.clone())
            }
        },
    ))
}

/// The threads a module pass maps `m`'s functions on (1 for a module of one function).
pub(crate) fn threads_for(
    m: &Module,
    cx: &crate::pass::PassCx,
) -> Result<usize, crate::pass::PassError> {
    match m.len() > 1 {
        true => crate::pass::parallel::num_threads(cx),
        false => Ok(1),
    }
}

/// Whether passlab has a type rule for `op` (an op without one cannot be type-checked).
pub fn has_type_rule(op: crate::ir::Op) -> bool {
    shape_rules::rule_for(op).is_some()
}
