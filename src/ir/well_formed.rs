//! The well-formedness check: every variable is bound before it is used and bound only once,
//! and function parameters are distinct. A `match` clause's pattern variables are bound in
//! its body only. Iterative, so deep programs are fine.

use super::expr::{Expr, ExprKind, Span, Var};
use super::module::Module;
use rustc_hash::{FxHashMap, FxHashSet};

/// A well-formedness violation, pointing at the offending node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WellFormedError {
    pub message: String,
    pub span: Span,
    /// The global function it was found in, if any.
    pub function: Option<String>,
}

impl std::fmt::Display for WellFormedError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.function {
            Some(g) => write!(f, "in @{g}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for WellFormedError {}

/// Checks every function of a module.
pub fn check_module(m: &Module) -> Result<(), WellFormedError> {
    for (g, e) in m.functions() {
        check_expr(e).map_err(|mut err| {
            err.function = Some(g.name().to_string());
            err
        })?;
    }
    Ok(())
}

/// Checks one expression; free variables are errors.
pub fn check_expr(e: &Expr) -> Result<(), WellFormedError> {
    Checker::default().run(e)
}

#[derive(Default)]
struct Checker {
    bound_ever: FxHashSet<u64>,
    in_scope: FxHashMap<u64, usize>,
    seen: super::NodeSet,
}

enum Step {
    Visit(Expr),
    Bind(Vec<Var>, Span),
    Unbind(Vec<Var>),
}

impl Checker {
    fn bind(&mut self, v: &Var, span: Span) -> Result<(), WellFormedError> {
        if !self.bound_ever.insert(v.id()) {
            return Err(WellFormedError {
                message: format!("variable %{} is bound more than once", v.name()),
                span,
                function: None,
            });
        }
        *self.in_scope.entry(v.id()).or_insert(0) += 1;
        Ok(())
    }

    fn run(&mut self, root: &Expr) -> Result<(), WellFormedError> {
        let mut stack = vec![Step::Visit(root.clone())];
        while let Some(step) = stack.pop() {
            let e = match step {
                Step::Unbind(vars) => {
                    for v in vars {
                        if let Some(n) = self.in_scope.get_mut(&v.id()) {
                            *n -= 1;
                            if *n == 0 {
                                self.in_scope.remove(&v.id());
                            }
                        }
                    }
                    continue;
                }
                Step::Bind(vars, span) => {
                    for v in &vars {
                        self.bind(v, span)?;
                    }
                    continue;
                }
                Step::Visit(e) => e,
            };
            if !self.seen.insert(e.id()) {
                continue;
            }
            match e.kind() {
                ExprKind::Var(v) => {
                    if !self.in_scope.contains_key(&v.id()) {
                        return Err(WellFormedError {
                            message: format!("variable %{} is used but not bound here", v.name()),
                            span: e.span(),
                            function: None,
                        });
                    }
                }
                ExprKind::Let(l) => {
                    // The variable is visible in its own value (recursive local functions).
                    self.bind(&l.var, e.span())?;
                    stack.push(Step::Unbind(vec![l.var.clone()]));
                    stack.push(Step::Visit(l.body.clone()));
                    stack.push(Step::Visit(l.value.clone()));
                }
                ExprKind::Function(f) => {
                    for p in &f.params {
                        self.bind(p, e.span()).map_err(|mut err| {
                            err.message = format!("parameter %{} is not distinct", p.name());
                            err
                        })?;
                    }
                    stack.push(Step::Unbind(f.params.clone()));
                    stack.push(Step::Visit(f.body.clone()));
                }
                ExprKind::Match(m) => {
                    for c in m.clauses.iter().rev() {
                        let mut vars = Vec::new();
                        c.pattern.for_each_var(&mut |v| vars.push(v.clone()));
                        // Bound when the clause's body is reached: pushed as a visit of the
                        // body after binding steps, in order.
                        stack.push(Step::Unbind(vars.clone()));
                        stack.push(Step::Visit(c.rhs.clone()));
                        stack.push(Step::Bind(vars, e.span()));
                    }
                    stack.push(Step::Visit(m.data.clone()));
                }
                kind => {
                    let mut children = Vec::new();
                    kind.for_each_child(|c| children.push(c.clone()));
                    stack.extend(children.into_iter().rev().map(Step::Visit));
                }
            }
        }
        Ok(())
    }
}
