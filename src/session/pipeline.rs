//! Pipelines as text in the language: `text(p)` (the canonical expression of
//! [`crate::pass::pipeline_text`]) and `pipeline(t)`, which builds it back. A pipeline text is
//! one expression made only of pass constructors (a registered pass's name, `Sequential`,
//! `function_pass`, `module_pass`) and literals: no variables, no pass applications, so
//! reading one has no effect on the session. `passlab opt -p` reads its pipeline here too.

use super::{Origin, Session, SessionError, Value};
use crate::lang::ast::{Expr, ExprKind, StmtKind};
use crate::pass::Pass;

/// The constructors a pipeline text may call besides registered passes.
const CONSTRUCTORS: &[&str] = &["Sequential", "function_pass", "module_pass"];

impl Session {
    /// Builds the pass a pipeline text describes: one expression of pass constructors and
    /// literals, or a registered pass's bare name. Errors point into the text, shown as
    /// `<pipeline>`.
    pub fn pipeline(&mut self, text: &str) -> Result<Pass, SessionError> {
        let origin = Origin::new("<pipeline>", text);
        let trimmed = text.trim();
        let source = if !trimmed.is_empty()
            && trimmed.chars().all(|c| c.is_alphanumeric() || c == '_')
            && self.pass_manager().registry().contains(trimmed)
        {
            format!("{trimmed}()")
        } else {
            text.to_string()
        };
        let origin = if source != text {
            Origin::new("<pipeline>", source.as_str())
        } else {
            origin
        };
        let stmts = crate::lang::parse_program(&source, super::COMMANDS)
            .map_err(|e| SessionError::from_parse(e).in_source(&origin))?;
        let expr = match stmts.as_slice() {
            [s] => match &s.kind {
                StmtKind::Expr(e) => e,
                _ => {
                    return Err(
                        SessionError::at("a pipeline is one pass expression", s.span)
                            .in_source(&origin),
                    )
                }
            },
            [] => return Err(SessionError::new("the pipeline text is empty")),
            [_, second, ..] => {
                return Err(SessionError::at(
                    "a pipeline is one pass expression, not several statements",
                    second.span,
                )
                .in_source(&origin))
            }
        };
        self.check_pipeline_expr(expr)
            .map_err(|e| e.in_source(&origin))?;
        let value = self
            .eval_expr_alone(&stmts[0])
            .map_err(|e| e.in_source(&origin))?;
        match value {
            Value::Pass(p) => Ok(p),
            other => Err(SessionError::at(
                format!("a pipeline must be a pass, this is a {}", other.kind()),
                expr.span,
            )
            .in_source(&origin)),
        }
    }

    /// Only constructors and literals: walks the expression with an explicit stack.
    fn check_pipeline_expr(&self, root: &Expr) -> Result<(), SessionError> {
        let mut stack = vec![root];
        while let Some(e) = stack.pop() {
            match &e.kind {
                ExprKind::Int(_)
                | ExprKind::Float(_)
                | ExprKind::Str(_)
                | ExprKind::Bool(_)
                | ExprKind::None => {}
                ExprKind::List(items) => stack.extend(items.iter()),
                ExprKind::Map(items) => {
                    for (k, v) in items {
                        stack.push(k);
                        stack.push(v);
                    }
                }
                ExprKind::Call { callee, args } => {
                    let known = callee.as_ident().filter(|n| {
                        CONSTRUCTORS.contains(n) || self.pass_manager().registry().contains(n)
                    });
                    if known.is_none() {
                        let registry = self.pass_manager().registry();
                        let hint = callee.as_ident().and_then(|n| {
                            let names = registry
                                .entries()
                                .into_iter()
                                .map(|e| e.name.to_string())
                                .chain(CONSTRUCTORS.iter().map(|c| c.to_string()))
                                .collect::<Vec<_>>();
                            crate::suggest::closest(n, names.iter().map(String::as_str))
                                .map(|s| format!("did you mean {s}?"))
                        });
                        return Err(SessionError::at(
                            "a pipeline calls only pass constructors (a registered pass, Sequential, function_pass, module_pass)",
                            callee.span,
                        )
                        .with_label(hint));
                    }
                    stack.extend(args.iter().map(|a| &a.value));
                }
                ExprKind::Ident(name) => {
                    let hint = if self.pass_manager().registry().contains(name) {
                        format!("write {name}() for the pass")
                    } else {
                        "a pipeline holds no variables".to_string()
                    };
                    return Err(SessionError::at(
                        format!("`{name}` is not a pass constructor call"),
                        e.span,
                    )
                    .with_label(Some(hint)));
                }
                ExprKind::Global(_) | ExprKind::Index { .. } => {
                    return Err(SessionError::at(
                        "a pipeline holds only pass constructors and literals",
                        e.span,
                    ))
                }
            }
        }
        Ok(())
    }

    /// Evaluates a statement that was checked to apply no pass.
    fn eval_expr_alone(&mut self, stmt: &crate::lang::ast::Stmt) -> Result<Value, SessionError> {
        match self.eval_stmt(stmt)? {
            super::eval::Evaluated::Values(mut v) if !v.is_empty() => Ok(v.swap_remove(0)),
            _ => Err(SessionError::at(
                "internal error: a pipeline expression gave no value",
                stmt.span,
            )),
        }
    }

    /// The reproducer of the last failed pass application, if any.
    pub fn last_failure(&self) -> Option<&super::reproducer::Reproducer> {
        self.last_failure.as_ref()
    }

    /// The canonical text of a pass (see [`crate::pass::pipeline_text`]).
    pub fn pipeline_text(&self, p: &Pass) -> Result<String, SessionError> {
        crate::pass::pipeline_text(p).map_err(|e| SessionError::new(e.to_string()))
    }
}

/// `text(p)`.
pub(super) fn b_text(s: &mut Session, a: super::builtins::Bound) -> Result<Value, SessionError> {
    match a.require("pass")? {
        Value::Pass(p) => s
            .pipeline_text(p)
            .map(Value::Str)
            .map_err(|e| SessionError::at(e.message, a.span_of("pass"))),
        // A module: its Relay text with the metadata section, so its constants parse back
        // (TVM's `astext()`); a function: its text as `print` writes it.
        Value::Module(m) => Ok(Value::Str(crate::text::print_module(m))),
        v @ Value::Function { .. } => Ok(Value::Str(s.plain_text(v))),
        v => Err(a.type_err("pass", "a pass, module or function", v)),
    }
}

/// `reproducer("file.passlab")`: writes the last failure's reproducer.
pub(super) fn b_reproducer(
    s: &mut Session,
    a: super::builtins::Bound,
) -> Result<Value, SessionError> {
    let path = a
        .str("path")?
        .ok_or_else(|| SessionError::at("reproducer needs a file name", a.span))?;
    let Some(r) = &s.last_failure else {
        return Err(SessionError::at(
            "no pass application has failed in this session yet",
            a.span,
        ));
    };
    let full = super::builtins::resolve(s, &path);
    r.write(&full)
        .map_err(|e| SessionError::at(e, a.span_of("path")))?;
    Ok(Value::None)
}

/// `pipeline(t)`.
pub(super) fn b_pipeline(
    s: &mut Session,
    a: super::builtins::Bound,
) -> Result<Value, SessionError> {
    let text = a
        .str("text")?
        .ok_or_else(|| SessionError::at("pipeline needs the pipeline text", a.span))?;
    s.pipeline(&text).map(Value::Pass)
}
