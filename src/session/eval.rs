//! Expression evaluation: literals, variables, indexing (`mod["main"]`), calls of builtins,
//! of registered pass constructors (`FoldConstant()`), and of pass values on modules
//! (`seq(mod)`, run under the current context).
//!
//! The evaluator is a machine with an explicit stack of [`Frame`]s, so that a pass
//! application that pauses at a breakpoint can leave the statement half evaluated and have it
//! continued later exactly where it stopped: the frames hold the values computed so far and
//! which child comes next, never references into the statement, and are kept in the
//! [`Suspension`] with the statement itself. When the run ends, [`Session::resume_eval`]
//! rebuilds the path to the paused call from the frames and hands the run's module to the
//! frame that was waiting for it; nothing before it is evaluated again. The machine is
//! iterative: nesting costs heap, not stack.

use super::builtins::{self, Args};
use super::debug::worker::{Msg, Run};
use super::history::RunHistory;
use super::suspend::Suspension;
use super::{Session, SessionError, Value};
use crate::ir::Span;
use crate::lang::ast::{Arg, Expr, ExprKind, Stmt};
use crate::lang::MAX_NESTING;
use crate::pass::PassOptions;
use std::sync::{Arc, Mutex};

/// What is left of a partly evaluated statement: its frames, outermost first. The first
/// frame is the statement's own expressions.
pub(crate) struct Progress {
    frames: Vec<Frame>,
}

/// One expression being evaluated: the values of the children evaluated so far. The child
/// being evaluated is the next one in order (see [`next_child`]).
enum Frame {
    /// The statement's expressions (`diff a b` has two).
    Root {
        done: Vec<Value>,
    },
    List {
        done: Vec<Value>,
    },
    Map {
        done: Vec<(Value, Value)>,
        key: Option<Value>,
    },
    /// `base[index]`; `history[k]` evaluates only its index.
    Index {
        base: Option<Value>,
        index: Option<Value>,
        history: bool,
    },
    Call {
        target: Target,
        args: Args,
    },
}

/// What a call calls.
enum Target {
    /// A name that is not a variable: a builtin or a registered pass constructor, looked up
    /// once its arguments are evaluated.
    Named(String),
    /// A value (a pass), once the callee is evaluated.
    Callee(Option<Value>),
}

/// What evaluating a statement's expressions came to.
pub(crate) enum Evaluated {
    Values(Vec<Value>),
    /// A pass application paused; the suspension holds the rest of the statement.
    Paused(Box<Suspension>),
}

/// The expressions a statement evaluates before it acts, in order.
pub(crate) fn stmt_exprs(stmt: &Stmt) -> Vec<&Expr> {
    use crate::lang::ast::StmtKind as K;
    match &stmt.kind {
        K::Assign { value, .. } => vec![value],
        K::Expr(e) => vec![e],
        K::Command { args, .. } => args.exprs(),
    }
}

/// The child of `node` that `frame` evaluates next, or `None` when it has them all.
fn next_child<'a>(frame: &Frame, node: &'a Expr) -> Option<&'a Expr> {
    match (frame, &node.kind) {
        (Frame::List { done }, ExprKind::List(items)) => items.get(done.len()),
        (Frame::Map { done, key }, ExprKind::Map(items)) => {
            let (k, v) = items.get(done.len())?;
            Some(if key.is_none() { k } else { v })
        }
        (Frame::Index { base: None, .. }, ExprKind::Index { base, .. }) => Some(base),
        (Frame::Index { index: None, .. }, ExprKind::Index { index, .. }) => Some(index),
        (
            Frame::Call { target, args },
            ExprKind::Call {
                callee,
                args: given,
            },
        ) => match target {
            Target::Callee(None) => Some(callee),
            _ => given
                .get(args.pos.len() + args.kw.len())
                .map(|a: &Arg| &a.value),
        },
        _ => None,
    }
}

/// The machine's next move.
enum Step<'a> {
    Eval(&'a Expr),
    Return(Value),
    /// The pass application just made paused.
    Paused(Box<PausedRun>),
}

/// Adds a child's value to the frame evaluating `node`.
fn deliver(frame: &mut Frame, node: &Expr, v: Value) -> Result<(), SessionError> {
    match frame {
        Frame::Root { done } | Frame::List { done } => done.push(v),
        Frame::Map { done, key } => match key.take() {
            None => *key = Some(v),
            Some(k) => done.push((k, v)),
        },
        Frame::Index { base: b @ None, .. } => *b = Some(v),
        Frame::Index { index, .. } => *index = Some(v),
        Frame::Call { target, args } => match target {
            Target::Callee(c @ None) => *c = Some(v),
            _ => {
                let ExprKind::Call { args: given, .. } = &node.kind else {
                    unreachable!("a call frame evaluates a call")
                };
                let a = &given[args.pos.len() + args.kw.len()];
                match &a.name {
                    Some((n, nspan)) => {
                        if args.kw.iter().any(|(k, ..)| k == n) {
                            return Err(SessionError::at(
                                format!("argument `{n}` is given twice"),
                                *nspan,
                            ));
                        }
                        args.kw.push((n.clone(), *nspan, v, a.value.span));
                    }
                    None => args.pos.push((v, a.value.span)),
                }
            }
        },
    }
    Ok(())
}

/// A list or map built a level at a time by statements such as `x = [x]` is held to the
/// nesting the language allows in one expression.
fn nested_checked(v: Value, e: &Expr) -> Result<Value, SessionError> {
    if v.nesting(MAX_NESTING + 1) > MAX_NESTING {
        return Err(SessionError::at(
            format!("a list or map nested more than {MAX_NESTING} levels deep"),
            e.span,
        ));
    }
    Ok(v)
}

/// What a pass application came to.
pub(crate) enum Ran {
    Done(crate::ir::Module),
    Paused(Box<PausedRun>),
}

/// A run paused at a breakpoint, as its pass application left it.
pub(crate) struct PausedRun {
    pub run: Run,
    pub pause: super::debug::worker::Pause,
    /// The run's history.
    pub history: Arc<Mutex<RunHistory>>,
    /// The pass application (for errors) and its input module.
    pub call: Span,
    pub input: crate::ir::Module,
}

/// The last line of a failed pass application's error, when a reproducer was kept.
const REPRODUCER_OFFER: &str =
    "note: `reproducer(\"failure.passlab\")` writes this failure as a script that `passlab run` fails on the same way";

impl Session {
    /// Evaluates `stmt`'s expressions in order.
    pub(crate) fn eval_stmt(&mut self, stmt: &Stmt) -> Result<Evaluated, SessionError> {
        let roots = stmt_exprs(stmt);
        let Some(first) = roots.first().copied() else {
            return Ok(Evaluated::Values(Vec::new()));
        };
        let frames = vec![Frame::Root { done: Vec::new() }];
        self.drive(stmt, &roots, frames, Vec::new(), Step::Eval(first))
    }

    /// Continues `stmt`'s evaluation where it paused, with `value` as the result of the
    /// pass application that paused.
    pub(crate) fn resume_eval(
        &mut self,
        stmt: &Stmt,
        progress: Progress,
        value: Value,
    ) -> Result<Evaluated, SessionError> {
        let roots = stmt_exprs(stmt);
        let frames = progress.frames;
        // The path from the statement down to the paused call's parent.
        let mut nodes: Vec<&Expr> = Vec::with_capacity(frames.len());
        for k in 1..frames.len() {
            let child = match (&frames[k - 1], nodes.last()) {
                (Frame::Root { done }, _) => roots.get(done.len()).copied(),
                (f, Some(node)) => next_child(f, node),
                (_, None) => None,
            };
            nodes.push(child.ok_or_else(|| {
                SessionError::at("internal error: the paused statement changed", stmt.span)
            })?);
        }
        self.drive(stmt, &roots, frames, nodes, Step::Return(value))
    }

    /// Runs the machine: `frames[k]` (k >= 1) evaluates `nodes[k - 1]`.
    fn drive<'a>(
        &mut self,
        stmt: &Stmt,
        roots: &[&'a Expr],
        mut frames: Vec<Frame>,
        mut nodes: Vec<&'a Expr>,
        mut step: Step<'a>,
    ) -> Result<Evaluated, SessionError> {
        loop {
            step = match step {
                Step::Eval(e) => match self.start(e)? {
                    Ok(v) => Step::Return(v),
                    Err(frame) => {
                        frames.push(frame);
                        nodes.push(e);
                        self.advance(&mut frames, &mut nodes)?
                    }
                },
                Step::Return(v) => {
                    let top = frames.last_mut().expect("the root frame stays");
                    if let Frame::Root { done } = top {
                        done.push(v);
                        match roots.get(done.len()) {
                            Some(next) => Step::Eval(next),
                            None => return Ok(Evaluated::Values(std::mem::take(done))),
                        }
                    } else {
                        let node = *nodes.last().expect("a node per frame");
                        deliver(top, node, v)?;
                        self.advance(&mut frames, &mut nodes)?
                    }
                }
                Step::Paused(run) => {
                    let progress = Progress { frames };
                    let source = self.input.clone();
                    return Ok(Evaluated::Paused(Box::new(Suspension::new(
                        *run,
                        stmt.clone(),
                        progress,
                        source,
                    ))));
                }
            };
        }
    }

    /// Starts evaluating `e`: a leaf's value, or the frame of a compound expression.
    fn start(&mut self, e: &Expr) -> Result<Result<Value, Frame>, SessionError> {
        Ok(Ok(match &e.kind {
            ExprKind::Int(i) => Value::Int(*i),
            ExprKind::Float(f) => Value::Float(*f),
            ExprKind::Str(s) => Value::Str(s.clone()),
            ExprKind::Bool(b) => Value::Bool(*b),
            ExprKind::None => Value::None,
            ExprKind::Global(g) => Value::Str(g.clone()),
            ExprKind::Ident(name) => match self.vars.get(name) {
                _ if name == "ir" && self.paused_module().is_some() => {
                    Value::Module(self.paused_module().expect("checked"))
                }
                Some(v) => v.clone(),
                None => return Err(self.unknown_name(name, e)),
            },
            ExprKind::List(_) => return Ok(Err(Frame::List { done: Vec::new() })),
            ExprKind::Map(_) => {
                return Ok(Err(Frame::Map {
                    done: Vec::new(),
                    key: None,
                }))
            }
            ExprKind::Index { base, .. } => {
                let history = base.as_ident() == Some("history");
                return Ok(Err(Frame::Index {
                    base: history.then_some(Value::None),
                    index: None,
                    history,
                }));
            }
            ExprKind::Call { callee, .. } => {
                let target = match callee.as_ident() {
                    Some(name) if !self.vars.contains_key(name) => Target::Named(name.into()),
                    _ => Target::Callee(None),
                };
                return Ok(Err(Frame::Call {
                    target,
                    args: Args {
                        pos: Vec::new(),
                        kw: Vec::new(),
                        span: e.span,
                    },
                }));
            }
        }))
    }

    /// The top frame's next child, or, when it has all its children, its value (the frame
    /// is popped).
    fn advance<'a>(
        &mut self,
        frames: &mut Vec<Frame>,
        nodes: &mut Vec<&'a Expr>,
    ) -> Result<Step<'a>, SessionError> {
        let node = *nodes.last().expect("a node per frame");
        let frame = frames.last().expect("a frame per node");
        if let Some(child) = next_child(frame, node) {
            return Ok(Step::Eval(child));
        }
        let frame = frames.pop().expect("checked");
        nodes.pop();
        match frame {
            Frame::List { done } => Ok(Step::Return(nested_checked(Value::List(done), node)?)),
            Frame::Map { done, .. } => Ok(Step::Return(nested_checked(Value::Map(done), node)?)),
            Frame::Index {
                base: Some(base),
                index: Some(index),
                history,
            } => Ok(Step::Return(if history {
                self.history_module(&index, node.span)?
            } else {
                self.index(base, index, node)?
            })),
            Frame::Index { .. } | Frame::Root { .. } => {
                unreachable!("an index has both parts; the root frame is never popped")
            }
            Frame::Call { target, args } => self.call(target, args, node),
        }
    }

    /// A call whose arguments are all evaluated.
    fn call<'a>(&mut self, target: Target, args: Args, e: &Expr) -> Result<Step<'a>, SessionError> {
        let ExprKind::Call { callee, .. } = &e.kind else {
            unreachable!("a call frame evaluates a call")
        };
        match target {
            Target::Named(name) => {
                if let Some(b) = builtins::find(&name) {
                    return (b.run)(self, args).map(Step::Return);
                }
                if self.pm.registry().contains(&name) {
                    return self.construct_pass(&name, args).map(Step::Return);
                }
                Err(self.unknown_name(&name, callee))
            }
            Target::Callee(Some(Value::Pass(p))) => {
                let m = args.module_arg("module", p.info().name())?;
                Ok(match self.run_pass(&p, &m, e.span)? {
                    Ran::Done(out) => Step::Return(Value::Module(out)),
                    Ran::Paused(run) => Step::Paused(run),
                })
            }
            Target::Callee(Some(other)) => Err(SessionError::at(
                format!("a {} cannot be called", other.kind()),
                callee.span,
            )),
            Target::Callee(None) => unreachable!("the callee is evaluated first"),
        }
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
        candidates.extend(
            super::COMMANDS
                .iter()
                .filter(|c| c.is_statement())
                .map(|c| c.name.to_string()),
        );
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
    /// goes on a worker thread that records its history and may pause at a breakpoint. While
    /// a run is paused, other runs go straight through: no breakpoints, no history.
    pub(crate) fn run_pass(
        &mut self,
        pass: &crate::pass::Pass,
        m: &crate::ir::Module,
        call: Span,
    ) -> Result<Ran, SessionError> {
        let ctx = self.pm.current().clone();
        self.note_timing(&ctx);
        if self.debug.suspended.is_some() {
            return self
                .pm
                .run(pass, m)
                .map(Ran::Done)
                .map_err(|err| self.pass_error(err, m, call));
        }
        let text = self.source_text(call).unwrap_or(pass.info().name());
        let history = Arc::new(Mutex::new(RunHistory::new(text, m.clone())));
        self.debug.history = Some(history.clone());
        let mut run = Run::start(
            self.pm.cx(),
            pass.clone(),
            m.clone(),
            self.debug.breakpoints.clone(),
            history.clone(),
        )
        .map_err(|err| SessionError::at(format!("cannot start the run: {err}"), call))?;
        match run.wait() {
            Msg::Done(Ok(out)) => Ok(Ran::Done(out)),
            Msg::Done(Err(err)) => {
                use crate::pass::error::PassErrorKind::{Aborted, Interrupted};
                // Stopping a run is not a failure a script could replay.
                let stopped = matches!(err.kind(), Interrupted { .. } | Aborted { .. });
                let mut e = self.pass_error(err, m, call);
                self.last_failure = None;
                if !stopped {
                    self.note_failure(pass, m, &e);
                }
                if self.last_failure.is_some() {
                    e = e.with_note(REPRODUCER_OFFER);
                }
                Err(e)
            }
            Msg::Paused(pause) => Ok(Ran::Paused(Box::new(PausedRun {
                run,
                pause,
                history,
                call,
                input: m.clone(),
            }))),
        }
    }

    /// Keeps the reproducer of a failed pass application for `reproducer(...)` (none when
    /// the pipeline has no text, e.g. a pass built in Rust): the pass
    /// that failed is the last one the run's history still has open.
    fn note_failure(&mut self, pass: &crate::pass::Pass, m: &crate::ir::Module, e: &SessionError) {
        let open = self
            .debug
            .history
            .as_ref()
            .and_then(|h| crate::pass::sink::lock(h).open.last().cloned());
        let (info, module) = open.unwrap_or_else(|| (pass.info().clone(), m.clone()));
        let mut error = format!("error: {}", e.message);
        if let Some(d) = &e.detail {
            error.push('\n');
            error.push_str(d);
        }
        let ctx = self.pm.run_context();
        self.last_failure =
            super::reproducer::Reproducer::new(pass, &info, module, &ctx, &error).ok();
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

    /// A statement's scope value (`enter`, `with`): what `enter` and `with` take: a PassContext or a Target.
    pub(crate) fn to_scope(
        &self,
        v: Value,
        span: Span,
    ) -> Result<super::contexts::Scoped, SessionError> {
        match v {
            Value::Context(c) => Ok(super::contexts::Scoped::Context(c)),
            Value::Target(t) => Ok(super::contexts::Scoped::Target(t)),
            other => Err(SessionError::at(
                format!("expected a PassContext or a Target, got a {}", other.kind()),
                span,
            )),
        }
    }
}
