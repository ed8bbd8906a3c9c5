//! `Trace(name="t", skip=[], fail_at=None)`: logs every instrument event, one line each, in
//! the fixed format `[t] enter_pass_ctx`, `[t] should_run FoldConstant`, `[t] run_before_pass
//! FoldConstant`, `[t] run_after_pass FoldConstant`, `[t] exit_pass_ctx`. `should_run` answers
//! false for names in `skip`. `fail_at` names a callback (`"run_before_pass"`) or a callback
//! and a pass (`"run_before_pass FoldConstant"`) at which it fails with `t <point> failed`,
//! right after logging the event. The test suite's event logs are made of these lines.

use super::{Instrument, InstrumentCx};
use crate::ir::Module;
use crate::pass::error::{InstrumentError, InstrumentPoint};
use crate::pass::sink::{emit, ChunkKind};
use crate::pass::PassInfo;

/// Logs every instrument event.
#[derive(Clone, Debug)]
pub struct Trace {
    name: String,
    skip: Vec<String>,
    fail_at: Option<(InstrumentPoint, Option<String>)>,
}

impl Trace {
    pub fn new(name: &str) -> Trace {
        Trace {
            name: name.to_string(),
            skip: Vec::new(),
            fail_at: None,
        }
    }

    /// `should_run` is false for these pass names.
    pub fn skip<S: AsRef<str>>(mut self, names: &[S]) -> Trace {
        self.skip = names.iter().map(|s| s.as_ref().to_string()).collect();
        self
    }

    /// Fails at `spec`: `"<point>"` or `"<point> <pass>"`.
    pub fn fail_at(mut self, spec: &str) -> Result<Trace, String> {
        let (point, pass) = match spec.split_once(' ') {
            Some((p, pass)) => (p, Some(pass.trim().to_string())),
            None => (spec, None),
        };
        let point = InstrumentPoint::parse(point).ok_or_else(|| {
            let names: Vec<&str> = InstrumentPoint::ALL.iter().map(|p| p.as_str()).collect();
            format!(
                "unknown instrument point {point:?}; expected one of {}",
                names.join(", ")
            )
        })?;
        self.fail_at = Some((point, pass));
        Ok(self)
    }

    fn event(
        &self,
        point: InstrumentPoint,
        info: Option<&PassInfo>,
        cx: &InstrumentCx<'_>,
    ) -> Result<(), InstrumentError> {
        let line = match info {
            Some(i) => format!("[{}] {point} {}\n", self.name, i.name()),
            None => format!("[{}] {point}\n", self.name),
        };
        emit(cx.sink, ChunkKind::Log, &self.name, &line);
        match &self.fail_at {
            Some((p, pass))
                if *p == point
                    && pass
                        .as_deref()
                        .is_none_or(|n| info.is_some_and(|i| i.name() == n)) =>
            {
                Err(InstrumentError(format!("{} {point} failed", self.name)))
            }
            _ => Ok(()),
        }
    }
}

impl Instrument for Trace {
    fn name(&self) -> &str {
        &self.name
    }

    fn enter_pass_ctx(&self, cx: &InstrumentCx<'_>) -> Result<(), InstrumentError> {
        self.event(InstrumentPoint::EnterPassCtx, None, cx)
    }

    fn exit_pass_ctx(&self, cx: &InstrumentCx<'_>) -> Result<(), InstrumentError> {
        self.event(InstrumentPoint::ExitPassCtx, None, cx)
    }

    fn should_run(
        &self,
        _m: &Module,
        info: &PassInfo,
        cx: &InstrumentCx<'_>,
    ) -> Result<bool, InstrumentError> {
        self.event(InstrumentPoint::ShouldRun, Some(info), cx)?;
        Ok(!self.skip.iter().any(|s| s == info.name()))
    }

    fn run_before_pass(
        &self,
        _m: &Module,
        info: &PassInfo,
        cx: &InstrumentCx<'_>,
    ) -> Result<(), InstrumentError> {
        self.event(InstrumentPoint::RunBeforePass, Some(info), cx)
    }

    fn run_after_pass(
        &self,
        _m: &Module,
        info: &PassInfo,
        cx: &InstrumentCx<'_>,
    ) -> Result<(), InstrumentError> {
        self.event(InstrumentPoint::RunAfterPass, Some(info), cx)
    }

    fn describe(&self) -> String {
        let mut s = format!("Trace(name={:?}", self.name);
        if !self.skip.is_empty() {
            s.push_str(&format!(", skip={:?}", self.skip));
        }
        if let Some((p, pass)) = &self.fail_at {
            match pass {
                Some(n) => s.push_str(&format!(", fail_at=\"{p} {n}\"")),
                None => s.push_str(&format!(", fail_at=\"{p}\"")),
            }
        }
        s.push(')');
        s
    }
}
