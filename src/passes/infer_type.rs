//! InferType: type inference and checking for whole modules (TVM's `InferType` pass,
//! `src/relay/transforms/type_infer.cc` + `type_solver.cc`), as plain functions.
//!
//! [`infer_module`] returns a module in which every expression carries its checked type
//! (`Expr::ty()`), every function parameter has a type annotation and every function a return
//! type, exactly what TVM's `Resolver` fills in. It works in three phases:
//! 1. **generation** (`generate.rs`): a stack-safe walk gives each node a solver variable and
//!    emits constraints — op calls become relations with the op's shape rule
//!    (`shape_rules.rs`), other calls unify the callee with `fn (args) -> ret`;
//! 2. **solving** (`solver.rs`): union-find unification with `IncompleteType`-like holes and
//!    a wake-up queue of relations;
//! 3. **resolution** (`resolve.rs`): rebuilds the expressions with their types, preserving
//!    sharing and spans, and reports anything still unknown.
//!
//! Invariants: linear time in the size of the module (every node is visited once per phase,
//! relations rerun only when one of their holes is bound), no recursion over expressions
//! (only over the nesting of types), input modules are never modified. The whole module is
//! solved together and monomorphically, so mutually recursive globals and unannotated
//! parameters determined by a caller are typed; there is no let-polymorphism and no support
//! for ADTs/`match` (type definitions pass through untouched) or type parameters.

mod generate;
mod resolve;
mod shape_rules;
mod solver;

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
    let funcs: Vec<(&str, &Expr)> = m.functions().map(|(g, e)| (g.name(), e)).collect();
    let names: Vec<&str> = funcs.iter().map(|(n, _)| *n).collect();
    let err = |e: SolveError| to_type_error(e, &names);
    let mut gen = Gen::new(1024);
    for (name, e) in &funcs {
        if let Some(f) = e.as_function() {
            gen.declare_global(name, f);
        }
    }
    for (i, (name, e)) in funcs.iter().enumerate() {
        gen.func = i as u32;
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
    }
    gen.s.solve().map_err(err)?;
    let mut typed = Vec::with_capacity(funcs.len());
    let mut res = Resolver::new(&mut gen);
    for (i, (_, e)) in funcs.iter().enumerate() {
        res.gen.func = i as u32;
        match res.expr(e) {
            Ok(t) => typed.push(t),
            Err(ResolveError::Solve(s)) => return Err(err(s)),
            Err(ResolveError::Unresolved(at)) => return Err(err(resolve::explain(res.gen, e, at))),
        }
    }
    let mut it = typed.into_iter();
    m.map_functions(|_, _| Ok::<_, TypeError>(it.next().expect("one result per function")))
}

/// Infers the types of a standalone expression (free variables allowed). Globals it calls
/// are typed through their signatures in `m`, when given (their bodies are not checked).
pub fn infer_expr(e: &Expr, m: Option<&Module>) -> Result<Expr, TypeError> {
    let err = |e: SolveError| to_type_error(e, &[]);
    let mut gen = Gen::new(64);
    if let Some(m) = m {
        for (g, f) in m.functions() {
            if let Some(f) = f.as_function() {
                gen.declare_global(g.name(), f);
            }
        }
    }
    gen.expr(e).map_err(err)?;
    gen.s.solve().map_err(err)?;
    let mut res = Resolver::new(&mut gen);
    match res.expr(e) {
        Ok(t) => Ok(t),
        Err(ResolveError::Solve(s)) => Err(err(s)),
        Err(ResolveError::Unresolved(at)) => Err(err(resolve::explain(res.gen, e, at))),
    }
}

/// Runs inference and reports the error text, if any (for a verifying instrument).
pub fn check_types(m: &Module) -> Result<(), String> {
    infer_module(m).map(|_| ()).map_err(|e| e.render_for(m, false))
}
