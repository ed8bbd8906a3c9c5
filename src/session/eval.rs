//! Expression evaluation: literals, variables, indexing (`mod["main"]`), calls of builtins,
//! of registered pass constructors (`FoldConstant()`), and of pass values on modules
//! (`seq(mod)`, run under the current context).

use super::builtins::{self, Args};
use super::debug::worker::{Msg, Run};
use super::debug::RunDone;
use super::history::RunHistory;
use super::suspend::Pending;
use super::{Session, SessionError, Value};
use crate::lang::ast::{Expr, ExprKind};
use crate::lang::MAX_NESTING;
use crate::pass::{PassContext, PassOptions};
use std::sync::{Arc, Mutex};

impl Session {
    pub(crate) fn eval(&mut self, e: &Expr) -> Result<Value, SessionError> {
        stacker::maybe_grow(64 * 1024, 1024 * 1024, || self.eval_inner(e))
    }

    fn eval_inner(&mut self, e: &Expr) -> Result<Value, SessionError> {
        let v = self.eval_kind(e)?;
        if matches!(e.kind, ExprKind::List(_) | ExprKind::Map(_))
            && v.nesting(MAX_NESTING + 1) > MAX_NESTING
        {
            // Values are built a level at a time by statements such as `x = [x]`: they are
            // held to the nesting the language allows in one expression.
            return Err(SessionError::at(
                format!("a list or map nested more than {MAX_NESTING} levels deep"),
                e.span,
            ));
        }
        Ok(v)
    }

    fn eval_kind(&mut self, e: &Expr) -> Result<Value, SessionError> {
        Ok(match &e.kind {
            ExprKind::Int(i) => Value::Int(*i),
            ExprKind::Float(f) => Value::Float(*f),
            ExprKind::Str(s) => Value::Str(s.clone()),
            ExprKind::Bool(b) => Value::Bool(*b),
            ExprKind::None => Value::None,
            ExprKind::Global(g) => Value::Str(g.clone()),
            ExprKind::List(items) => Value::List(
                items
                    .iter()
                    .map(|i| self.eval(i))
                    .collect::<Result<_, _>>()?,
            ),
            ExprKind::Map(items) => {
                let mut out = Vec::new();
                for (k, v) in items {
                    out.push((self.eval(k)?, self.eval(v)?));
                }
                Value::Map(out)
            }
            ExprKind::Ident(name) => match self.vars.get(name) {
                _ if name == "ir" && self.paused_module().is_some() => {
                    Value::Module(self.paused_module().expect("checked"))
                }
                Some(v) => v.clone(),
                None => return Err(self.unknown_name(name, e)),
            },
            ExprKind::Index { base, index } if base.as_ident() == Some("history") => {
                let i = self.eval(index)?;
                self.history_module(&i, e.span)?
            }
            ExprKind::Index { base, index } => {
                let b = self.eval(base)?;
                let i = self.eval(index)?;
                self.index(b, i, e)?
            }
            ExprKind::Call { callee, args } => self.call(callee, args, e)?,
        })
    }

    /// An unknown name: suggest variables, builtins, passes and instruments.
    pub(crate) fn unknown_name(&self, name: &str, e: &Expr) -> SessionError {
        let mut candidates: Vec<String> = self.vars.keys().cloned().collect();
        candidates.extend(builtins::BUILTINS.iter().map(|b| b.name.to_string()));
        candidates.extend(
            self.pm
                .registry()
                .entries()
                .iter()
                .map(|r| r.name.to_string()),
        );
        candidates.extend(crate::lang::ast::KEYWORDS.iter().map(|k| k.to_string()));
        let hint = match name {
            "ir" => Some("`ir` is the module where a run is paused, and no run is paused".into()),
            "history" => {
                Some("`history` is a command; `history[k]` is the module after step k".into())
            }
            _ => crate::suggest::closest(name, candidates.iter().map(String::as_str))
                .map(|s| format!("did you mean `{s}`?")),
        };
        SessionError::at(
            format!("unknown name `{}`", crate::suggest::shown(name)),
            e.span,
        )
        .with_label(hint)
    }

    fn index(&mut self, base: Value, index: Value, e: &Expr) -> Result<Value, SessionError> {
        match (&base, &index) {
            (Value::Module(m), Value::Str(name)) => {
                let name = name.trim_start_matches('@');
                match m.get(name) {
                    Some(f) => Ok(Value::Function {
                        name: name.to_string(),
                        func: f.clone(),
                        module: m.clone(),
                    }),
                    None => {
                        let hint = crate::suggest::closest(name, m.names())
                            .map(|s| format!("did you mean `{s}`?"));
                        Err(SessionError::at(
                            format!(
                                "the module has no function @{name} (it has {})",
                                m.names()
                                    .iter()
                                    .map(|n| format!("@{n}"))
                                    .collect::<Vec<_>>()
                                    .join(", ")
                            ),
                            e.span,
                        )
                        .with_label(hint))
                    }
                }
            }
            (Value::List(items), Value::Int(i)) => {
                let n = items.len() as i64;
                let k = if *i < 0 { n + i } else { *i };
                items
                    .get(k as usize)
                    .filter(|_| k >= 0)
                    .cloned()
                    .ok_or_else(|| {
                        SessionError::at(
                            format!("index {i} is out of range for a list of {n}"),
                            e.span,
                        )
                    })
            }
            (Value::Map(items), key) => items
                .iter()
                .find(|(k, _)| k.repr() == key.repr())
                .map(|(_, v)| v.clone())
                .ok_or_else(|| {
                    SessionError::at(format!("no key {} in the map", key.repr()), e.span)
                }),
            _ => Err(SessionError::at(
                format!("cannot index a {} with a {}", base.kind(), index.kind()),
                e.span,
            )),
        }
    }

    fn call(
        &mut self,
        callee: &Expr,
        args: &[crate::lang::ast::Arg],
        e: &Expr,
    ) -> Result<Value, SessionError> {
        // A name that is not a variable: a builtin or a registered pass constructor.
        if let Some(name) = callee.as_ident() {
            if !self.vars.contains_key(name) {
                let evaluated = Args::eval(self, args, e.span)?;
                if let Some(b) = builtins::find(name) {
                    return (b.run)(self, evaluated);
                }
                if self.pm.registry().contains(name) {
                    return self.construct_pass(name, evaluated);
                }
                return Err(self.unknown_name(name, callee));
            }
        }
        let f = self.eval(callee)?;
        let evaluated = Args::eval(self, args, e.span)?;
        match f {
            Value::Pass(p) => {
                let m = evaluated.module_arg("module", p.info().name())?;
                self.run_pass(&p, &m, e)
            }
            other => Err(SessionError::at(
                format!("a {} cannot be called", other.kind()),
                callee.span,
            )),
        }
    }

    fn construct_pass(&mut self, name: &str, args: Args) -> Result<Value, SessionError> {
        if let Some((_, span)) = args.pos.first() {
            return Err(SessionError::at(
                format!("{name}() takes keyword options only (e.g. {name}(option=value))"),
                *span,
            ));
        }
        let entry = self.pm.registry().get(name).cloned();
        let mut opts = PassOptions::new();
        for (k, kspan, v, vspan) in &args.kw {
            if let Some(entry) = &entry {
                if !entry.options.iter().any(|o| o.name == k) {
                    let names: Vec<&str> = entry.options.iter().map(|o| o.name).collect();
                    let hint = crate::suggest::closest(k, names.iter().copied())
                        .map(|s| format!("did you mean `{s}`?"));
                    let known = if names.is_empty() {
                        "none".to_string()
                    } else {
                        names.join(", ")
                    };
                    return Err(SessionError::at(
                        format!("{name} has no option `{k}` (its options: {known})"),
                        *kspan,
                    )
                    .with_label(hint));
                }
            }
            let cv = v.to_config().ok_or_else(|| {
                SessionError::at(format!("option `{k}` cannot be a {}", v.kind()), *vspan)
            })?;
            opts = opts.with(k, cv);
        }
        self.pm
            .create(name, &opts)
            .map(Value::Pass)
            .map_err(|err| SessionError::at(err.to_string(), args.span))
    }

    /// Runs a pass under the current context; instrument output goes to the sink. The run
    /// goes on a worker thread that records its history and may pause at a breakpoint (the
    /// statement then unwinds with the pause marker). While a run is paused, other runs go
    /// straight through: no breakpoints, no history.
    pub(crate) fn run_pass(
        &mut self,
        pass: &crate::pass::Pass,
        m: &crate::ir::Module,
        e: &Expr,
    ) -> Result<Value, SessionError> {
        if let Some(done) = self.debug.replay.pop_front() {
            self.debug.history = done.history.clone();
            let m = done.module.clone();
            self.debug.stmt_runs.push(done);
            return Ok(Value::Module(m));
        }
        let ctx = self.pm.current().clone();
        self.note_timing(&ctx);
        if self.debug.suspended.is_some() {
            return self
                .pm
                .run(pass, m)
                .map(Value::Module)
                .map_err(|err| self.pass_error(err, m, e.span));
        }
        let call = self.source_text(e.span).unwrap_or(pass.info().name());
        let history = Arc::new(Mutex::new(RunHistory::new(call, m.clone())));
        self.debug.history = Some(history.clone());
        let mut run = Run::start(
            self.pm.cx(),
            pass.clone(),
            m.clone(),
            self.debug.breakpoints.clone(),
            history.clone(),
        )
        .map_err(|err| SessionError::at(format!("cannot start the run: {err}"), e.span))?;
        match run.wait() {
            Msg::Done(Ok(out)) => {
                self.debug.stmt_runs.push(RunDone {
                    module: out.clone(),
                    history: Some(history),
                });
                Ok(Value::Module(out))
            }
            Msg::Done(Err(err)) => Err(self.pass_error(err, m, e.span)),
            Msg::Paused(pause) => {
                self.debug.pending = Some(Pending {
                    run,
                    pause,
                    memo: self.debug.stmt_runs.clone(),
                    history,
                    history_before: None,
                    call: e.span,
                    input: m.clone(),
                    stmt: None,
                    frames: Vec::new(),
                });
                Err(SessionError::paused())
            }
        }
    }

    /// A pass error as a session error at the pass application, with its diagnostics.
    pub(crate) fn pass_error(
        &self,
        err: crate::pass::PassError,
        m: &crate::ir::Module,
        span: crate::ir::Span,
    ) -> SessionError {
        let mut se = SessionError::from_pass(&err, span);
        if let crate::pass::error::PassErrorKind::Diagnostics { diagnostics, .. } = err.kind() {
            let rendered: Vec<String> = diagnostics.iter().map(|d| d.render(m, false)).collect();
            se = se.with_detail(rendered.join("\n"));
        }
        se
    }

    pub(crate) fn eval_context(&mut self, e: &Expr) -> Result<PassContext, SessionError> {
        match self.eval(e)? {
            Value::Context(c) => Ok(c),
            other => Err(SessionError::at(
                format!("expected a PassContext, got a {}", other.kind()),
                e.span,
            )),
        }
    }
}
