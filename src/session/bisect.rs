//! `bisect(seq, m, check=...)`: runs a pipeline once, recording every pass (the run history
//! the debugger keeps), then walks the passes in the order they ran and names the first whose
//! output breaks the check:
//! - `"numerics"`: `@main` of its output, evaluated on `inputs` (or seeded random inputs of
//!   its parameter types), differs from the input module's (`allclose`'s rule, `rtol`/`atol`);
//! - `"verify"`: its output is ill-formed or ill-typed (`Verify`'s check);
//! - `"fails"`: it returned an error or panicked.
//!
//! It shows the diff across that pass, keeps a reproducer of it for `reproducer(...)` (for
//! "numerics" and "verify", its context gains the `Verify` instrument that makes the pass fail
//! when replayed: `Verify(numerics=true, seed=...)` compares against the same seeded inputs,
//! or against bisect's `inputs`, which the reproducer writes next to itself as .npy files) and returns
//! the pass's name, or None when no pass breaks the check. Breakpoints are not honoured: the
//! run is the search's, not the user's.

use super::builtins::Bound;
use super::debug::worker::{Msg, Run};
use super::history::RunHistory;
use super::reproducer::Reproducer;
use super::{Session, SessionError, Value};
use crate::eval::compare;
use crate::eval::numerics::{DEFAULT_ATOL, DEFAULT_RTOL};
use crate::instrument::{InstrumentRef, Verify};
use crate::ir::{Module, Span, TensorData};
use crate::pass::sink::{emit, lock, ChunkKind};
use crate::pass::{Pass, PassContext, PassInfo};
use std::sync::{Arc, Mutex};

/// What `bisect` looks for.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Check {
    Numerics,
    Verify,
    Fails,
}

/// The first pass that broke the check: which, what it received and (unless it failed) what
/// it returned.
pub(super) struct Culprit {
    pub(super) info: PassInfo,
    pub(super) input: Module,
    pub(super) output: Option<Module>,
    pub(super) why: String,
    pub(super) step: usize,
}

/// What to search for and how to compare numbers.
pub(super) struct Options {
    check: Check,
    inputs: Option<Vec<TensorData>>,
    rtol: f64,
    atol: f64,
    seed: u64,
}

/// The `check`, `inputs`, `rtol`, `atol` and `seed` arguments (shared with `reduce`).
pub(super) fn options(a: &Bound) -> Result<Options, SessionError> {
    let check = match a.str("check")?.as_deref() {
        None | Some("numerics") => Check::Numerics,
        Some("verify") => Check::Verify,
        Some("fails") => Check::Fails,
        Some(other) => {
            return Err(SessionError::at(
                format!(
                    "{}'s check is \"numerics\", \"verify\" or \"fails\", not {other:?}",
                    a.name
                ),
                a.span_of("check"),
            ))
        }
    };
    let inputs = tensor_list(a, "inputs")?;
    let rtol = a.tolerance("rtol")?.unwrap_or(DEFAULT_RTOL);
    let atol = a.tolerance("atol")?.unwrap_or(DEFAULT_ATOL);
    let seed = a.int("seed")?.unwrap_or(0);
    let seed = u64::try_from(seed).map_err(|_| {
        SessionError::at(
            format!("{}: the seed cannot be negative", a.name),
            a.span_of("seed"),
        )
    })?;
    Ok(Options {
        check,
        inputs,
        rtol,
        atol,
        seed,
    })
}

/// The pipeline and module arguments.
pub(super) fn pipeline_and_module(a: &Bound) -> Result<(Pass, Module), SessionError> {
    let pass = match a.require("pipeline")? {
        Value::Pass(p) => p.clone(),
        v => return Err(a.type_err("pipeline", "a pass", v)),
    };
    let module = match a.require("module")? {
        Value::Module(m) => m.clone(),
        v => return Err(a.type_err("module", "a module", v)),
    };
    Ok((pass, module))
}

pub(super) fn b_bisect(s: &mut Session, a: Bound) -> Result<Value, SessionError> {
    let (pass, module) = pipeline_and_module(&a)?;
    let opts = options(&a)?;
    let (found, ran) = s.bisect(&pass, &module, &opts, a.span)?;
    let Some(c) = found else {
        emit(
            &s.sink,
            ChunkKind::Log,
            "bisect",
            &format!("bisect: no pass breaks the check ({ran} passes ran)"),
        );
        return Ok(Value::None);
    };
    emit(
        &s.sink,
        ChunkKind::Log,
        "bisect",
        &format!(
            "bisect: {} (pass {} of the run) is the first to break the check: {}",
            c.info.name(),
            c.step,
            c.why
        ),
    );
    if let Some(out) = &c.output {
        let before = format!("before {}", c.info.name());
        let after = format!("after {}", c.info.name());
        let r = super::render::diff_rendering(&c.input, &before, out, &after, s.front());
        emit(&s.sink, ChunkKind::Diff, "bisect", &r.plain);
    }
    // The reproducer: the pass's input and the pipeline from it, under a context that makes
    // the check fail.
    s.keep_reproducer(&pass, &c, &opts, a.span)?;
    Ok(Value::Str(c.info.name().to_string()))
}

impl Session {
    /// Keeps the reproducer of `c` for `reproducer(...)`: under the current context plus the
    /// `Verify` that makes the check fail when the script runs.
    pub(super) fn keep_reproducer(
        &mut self,
        pass: &Pass,
        c: &Culprit,
        opts: &Options,
        span: Span,
    ) -> Result<(), SessionError> {
        let s = self;
        let mut ctx = s.pm.run_context();
        let extra: Option<InstrumentRef> = match opts.check {
            Check::Numerics => Some(match &opts.inputs {
                Some(inputs) => Arc::new(Verify::with_numerics_on(
                    opts.rtol,
                    opts.atol,
                    inputs.clone(),
                )),
                None => Arc::new(Verify::with_numerics(opts.rtol, opts.atol, opts.seed)),
            }),
            Check::Verify => Some(Arc::new(Verify::new())),
            Check::Fails => None,
        };
        if let Some(i) = extra {
            let mut list: Vec<InstrumentRef> = ctx.instruments().to_vec();
            list.push(i);
            let mut b = PassContext::builder()
                .opt_level(ctx.opt_level())
                .required_pass(ctx.required_pass())
                .disabled_pass(ctx.disabled_pass())
                .instruments(list);
            for (k, v) in ctx.config().iter() {
                b = b.config(k, v.clone());
            }
            ctx = b
                .build()
                .map_err(|e| SessionError::at(e.to_string(), span))?
                .with_target(ctx.target().cloned());
        }
        let error = format!("{} broke the check: {}", c.info.name(), c.why);
        if let Ok(r) = Reproducer::new(pass, &c.info, c.input.clone(), &ctx, &error) {
            s.last_failure = Some(r);
        }
        Ok(())
    }
}

pub(super) fn tensor_list(a: &Bound, p: &str) -> Result<Option<Vec<TensorData>>, SessionError> {
    match a.get(p) {
        None => Ok(None),
        Some(Value::Tensor(t)) => Ok(Some(vec![(**t).clone()])),
        Some(Value::List(items)) => items
            .iter()
            .map(|v| match v {
                Value::Tensor(t) => Ok((**t).clone()),
                other => Err(a.type_err(p, "a list of tensors", other)),
            })
            .collect::<Result<Vec<_>, _>>()
            .map(Some),
        Some(v) => Err(a.type_err(p, "a list of tensors", v)),
    }
}

impl Session {
    /// Runs `pass` on `m` with its history recorded and no breakpoints; the history, and the
    /// error if the run failed.
    fn run_recorded(
        &mut self,
        pass: &Pass,
        m: &Module,
        call: Span,
    ) -> Result<(Arc<Mutex<RunHistory>>, Option<SessionError>), SessionError> {
        let history = Arc::new(Mutex::new(RunHistory::new(pass.info().name(), m.clone())));
        let no_breakpoints = Arc::new(Mutex::new(Default::default()));
        let mut run = Run::start(
            self.pm.cx(),
            pass.clone(),
            m.clone(),
            no_breakpoints,
            history.clone(),
        )
        .map_err(|err| SessionError::at(format!("cannot start the run: {err}"), call))?;
        let err = match run.wait() {
            Msg::Done(Ok(_)) => None,
            Msg::Done(Err(err)) => Some(self.pass_error(err, m, call)),
            Msg::Paused(_) => Some(SessionError::at(
                "internal error: a run without breakpoints paused",
                call,
            )),
        };
        Ok((history, err))
    }

    pub(super) fn bisect(
        &mut self,
        pass: &Pass,
        m: &Module,
        opts: &Options,
        call: Span,
    ) -> Result<(Option<Culprit>, usize), SessionError> {
        let (history, err) = self.run_recorded(pass, m, call)?;
        let h = lock(&history);
        let ran = h.steps.len();
        // The reference numbers, once.
        let check = opts.check;
        let (rtol, atol) = (opts.rtol, opts.atol);
        let reference = if check == Check::Numerics {
            let main = m
                .get("main")
                .ok_or_else(|| SessionError::at("bisect: the module has no @main", call))?;
            let inputs = match &opts.inputs {
                Some(i) => i.clone(),
                None => crate::eval::random::inputs_for(main, opts.seed)
                    .map_err(|e| SessionError::at(format!("bisect: {e}"), call))?,
            };
            let refs: Vec<&TensorData> = inputs.iter().collect();
            let flag = self.interrupt_flag();
            let out = crate::eval::evaluate_with(m, "main", &refs, Some(&flag)).map_err(|e| {
                SessionError::at(format!("bisect: evaluating the input: {e}"), call)
            })?;
            Some((inputs, out))
        } else {
            None
        };
        for (k, step) in h.steps.iter().enumerate() {
            let why = match check {
                Check::Fails => None,
                Check::Verify => crate::instrument::verify::verify_module(&step.output).err(),
                Check::Numerics => {
                    let (inputs, want) = reference.as_ref().expect("made above");
                    if step.output.same_as(&step.input) {
                        None
                    } else {
                        let refs: Vec<&TensorData> = inputs.iter().collect();
                        match crate::eval::evaluate(&step.output, "main", &refs) {
                            Err(e) => Some(format!("its output cannot be evaluated: {e}")),
                            Ok(got) => compare::outputs(&got, want, rtol, atol, true).map(|d| {
                                format!("@main's result differs from the input module's: {d}")
                            }),
                        }
                    }
                }
            };
            if let Some(why) = why {
                return Ok((
                    Some(Culprit {
                        info: step.info.clone(),
                        input: step.input.clone(),
                        output: Some(step.output.clone()),
                        why,
                        step: k + 1,
                    }),
                    ran,
                ));
            }
        }
        if let Some(e) = err {
            let (info, input) = h
                .open
                .last()
                .cloned()
                .unwrap_or_else(|| (pass.info().clone(), m.clone()));
            return Ok((
                Some(Culprit {
                    info,
                    input,
                    output: None,
                    why: format!("it failed: {}", e.message),
                    step: ran + 1,
                }),
                ran,
            ));
        }
        Ok((None, ran))
    }
}
