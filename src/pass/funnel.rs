//! The one funnel every pass execution goes through (SEMANTICS.md §2), and [`PassCx`], the
//! state of one run: the context it started with, the registry, the output sink, the
//! cancellation flag, the observer, the stack of running passes and pending diagnostics.
//!
//! The funnel: interrupt check; observer `before_pass`; unless the name is in the context's
//! `required_pass`, `should_run` on every instrument (no short-circuit; any false skips the
//! pass, which then returns its input); `run_before_pass` on every instrument; the body, with
//! panics caught; the diagnostics and `testing.immutable_module` checks; `run_after_pass` on
//! every instrument; observer `after_pass`. Any error propagates at once. The opt_level gate
//! is not here: it belongs to Sequential.
//!
//! Speed: with no instruments and no observer a pass costs an atomic load or two, a push and
//! a pop of the stack of running passes (a counted handle on the pass's info), and the body:
//! no allocation, no locking, no printing.
//! A `PassCx` owns everything it uses (no borrow of the manager), so a run can move to another
//! thread, e.g. to be paused by a debugger while the session goes on.

use super::diagnostics::PassDiagnostic;
use super::error::{panic_message, InstrumentPoint, PassError, PassErrorKind};
use super::info::PassInfo;
use super::instrument::{self, InstrumentCx, InstrumentRef};
use super::observer::{Flow, PassEvent, PassObserver};
use super::registry::Registry;
use super::sink::{emit, ChunkKind, OutputSink};
use super::{Pass, PassContext};
use crate::ir::{structural::module_hash, Module};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The state of one run of passes under one context.
pub struct PassCx {
    ctx: PassContext,
    registry: Arc<Registry>,
    sink: Arc<dyn OutputSink>,
    interrupt: Option<Arc<AtomicBool>>,
    observer: Option<Arc<dyn PassObserver>>,
    /// The running passes, outermost first.
    frames: Vec<PassInfo>,
    diagnostics: Vec<PassDiagnostic>,
    /// The context's instrument list as last read, with its version (re-read on change).
    instruments: (u64, Arc<[InstrumentRef]>),
    /// Some instrument of that list has a `should_run` of its own.
    asks_should_run: bool,
}

impl PassCx {
    /// A run under `ctx`, finding required passes in `registry` and writing to `sink`.
    pub fn new(ctx: PassContext, registry: Arc<Registry>, sink: Arc<dyn OutputSink>) -> PassCx {
        let instruments = ctx.instruments_versioned();
        let asks_should_run = asks_should_run(&instruments.1);
        PassCx {
            ctx,
            instruments,
            asks_should_run,
            registry,
            sink,
            interrupt: None,
            observer: None,
            frames: Vec::with_capacity(16),
            diagnostics: Vec::new(),
        }
    }

    /// Checks `flag` before every pass; once it is set, the run stops with
    /// [`PassErrorKind::Interrupted`]. The flag is the caller's to reset.
    pub fn with_interrupt(mut self, flag: Option<Arc<AtomicBool>>) -> PassCx {
        self.interrupt = flag;
        self
    }

    pub fn with_observer(mut self, observer: Option<Arc<dyn PassObserver>>) -> PassCx {
        self.observer = observer;
        self
    }

    /// A run for one worker of a parallel function pass ([`super::parallel`]): the same
    /// context, registry, interrupt flag and stack of running passes, output going to `sink`,
    /// no observer (a function pass runs in parallel only without one) and no diagnostics yet.
    pub(crate) fn fork(&self, sink: Arc<dyn OutputSink>) -> PassCx {
        PassCx {
            ctx: self.ctx.clone(),
            instruments: self.instruments.clone(),
            asks_should_run: self.asks_should_run,
            registry: self.registry.clone(),
            sink,
            interrupt: self.interrupt.clone(),
            observer: None,
            frames: self.frames.clone(),
            diagnostics: Vec::new(),
        }
    }

    /// True when an observer (a debugger) watches this run.
    pub(crate) fn is_observed(&self) -> bool {
        self.observer.is_some()
    }

    /// The diagnostics reported since there were `from`, removed.
    pub(crate) fn take_diagnostics(&mut self, from: usize) -> Vec<PassDiagnostic> {
        self.diagnostics.split_off(from.min(self.diagnostics.len()))
    }

    /// How many diagnostics are pending.
    pub(crate) fn diagnostics_len(&self) -> usize {
        self.diagnostics.len()
    }

    /// The context of this run (the one current when the run started).
    pub fn context(&self) -> &PassContext {
        &self.ctx
    }

    pub fn registry(&self) -> &Registry {
        &self.registry
    }

    pub fn sink(&self) -> &dyn OutputSink {
        &*self.sink
    }

    /// The running passes, outermost first.
    pub fn stack(&self) -> &[PassInfo] {
        &self.frames
    }

    /// Writes output attributed to the running pass.
    pub fn emit(&self, kind: ChunkKind, text: &str) {
        let source = self
            .frames
            .as_slice()
            .last()
            .map(|f| f.name())
            .unwrap_or("");
        emit(&*self.sink, kind, source, text);
    }

    /// Reports a diagnostic for the running pass. Errors fail the pass when its body returns;
    /// warnings go to the sink.
    pub fn report(&mut self, diagnostic: PassDiagnostic) {
        self.diagnostics.push(diagnostic);
    }

    /// Runs `pass` on `m` through the funnel and returns the new module (`m` itself when an
    /// instrument skipped the pass). `m` is never modified.
    pub fn run(&mut self, pass: &Pass, m: &Module) -> Result<Module, PassError> {
        // The outermost run owns the passes' memo tables (`run_state`), dropped as it returns.
        let _state = self.frames.is_empty().then(super::run_state::enter);
        let info = pass.info();
        self.check_interrupt(info)?;
        self.observe(info, m, None, None)?;
        if self.ctx.has_instruments() && !self.instrument_before(info, m)? {
            return Ok(m.clone());
        }
        // The observer gets the body's duration (`break slower 10ms`); without one, no clock.
        let started = self.observer.is_some().then(Instant::now);
        let out = match self.run_body(pass, m) {
            Ok(out) => out,
            Err(e) => return Err(self.failed(info, m, e)),
        };
        let elapsed = started.map(|t| t.elapsed());
        if self.ctx.caches_required() {
            self.ctx.record_run(info.name_arc(), &out);
        }
        if self.ctx.has_instruments() {
            self.after_pass(info, &out)?;
        }
        self.observe(info, m, Some(&out), elapsed)?;
        Ok(out)
    }

    /// Fails with [`PassErrorKind::Interrupted`] once the interrupt flag is set.
    #[inline]
    fn check_interrupt(&self, info: &PassInfo) -> Result<(), PassError> {
        match &self.interrupt {
            Some(flag) if flag.load(Ordering::Relaxed) => Err(PassErrorKind::Interrupted {
                pass: info.name_arc().clone(),
            }
            .into()),
            _ => Ok(()),
        }
    }

    /// `run_after_pass` on every instrument.
    fn after_pass(&mut self, info: &PassInfo, out: &Module) -> Result<(), PassError> {
        self.refresh_instruments();
        let icx = InstrumentCx {
            sink: &*self.sink,
            depth: self.frames.len(),
        };
        for inst in self.instruments.1.iter() {
            instrument::call(&**inst, InstrumentPoint::RunAfterPass, Some(info), || {
                inst.run_after_pass(out, info, &icx)
            })?;
        }
        Ok(())
    }

    /// Runs the registered pass `name`, which `required_by` requires, through the funnel.
    /// With `passlab.required = "cached"` it is skipped when its last run produced `m`.
    pub fn run_required(
        &mut self,
        name: &str,
        required_by: &PassInfo,
        m: &Module,
    ) -> Result<Module, PassError> {
        if self.ctx.caches_required() && self.ctx.already_ran_on(name, m) {
            return Ok(m.clone());
        }
        let pass = self.registry.create_required(name, required_by)?;
        self.run(&pass, m)
    }

    /// `run_failed_pass` on every instrument, for a pass whose body failed with `error`
    /// (returned as it is).
    #[cold]
    #[inline(never)]
    fn failed(&mut self, info: &PassInfo, m: &Module, error: PassError) -> PassError {
        if self.ctx.has_instruments() {
            self.refresh_instruments();
            let icx = InstrumentCx {
                sink: &*self.sink,
                depth: self.frames.len(),
            };
            for inst in self.instruments.1.iter() {
                let _ = catch_unwind(AssertUnwindSafe(|| {
                    inst.run_failed_pass(m, info, &error, &icx)
                }));
            }
        }
        error
    }

    /// `run_suspended` (`resumed` false) or `run_resumed` on every instrument, around an
    /// observer callback. A panic in one is ignored: the time is all they are told.
    fn suspension(&mut self, resumed: bool) {
        self.refresh_instruments();
        let icx = InstrumentCx {
            sink: &*self.sink,
            depth: self.frames.len(),
        };
        for inst in self.instruments.1.iter() {
            let _ = catch_unwind(AssertUnwindSafe(|| match resumed {
                false => inst.run_suspended(&icx),
                true => inst.run_resumed(&icx),
            }));
        }
    }

    /// `should_run` (unless required by the context) and `run_before_pass`; false = skip.
    fn instrument_before(&mut self, info: &PassInfo, m: &Module) -> Result<bool, PassError> {
        self.refresh_instruments();
        let list = &self.instruments.1;
        let icx = InstrumentCx {
            sink: &*self.sink,
            depth: self.frames.len(),
        };
        if self.asks_should_run && !self.ctx.is_required(info.name()) {
            let mut run = true;
            for inst in list.iter() {
                run &= instrument::call(&**inst, InstrumentPoint::ShouldRun, Some(info), || {
                    inst.should_run(m, info, &icx)
                })?;
            }
            if !run {
                return Ok(false);
            }
        }
        for inst in list.iter() {
            instrument::call(&**inst, InstrumentPoint::RunBeforePass, Some(info), || {
                inst.run_before_pass(m, info, &icx)
            })?;
        }
        Ok(true)
    }

    /// Re-reads the context's instrument list if it changed since the last read (a lock and a
    /// pointer copy then; two atomic loads otherwise).
    fn refresh_instruments(&mut self) {
        if self.ctx.instruments_version() != self.instruments.0 {
            self.instruments = self.ctx.instruments_versioned();
            self.asks_should_run = asks_should_run(&self.instruments.1);
        }
    }

    /// The body, with panics caught, diagnostics collected and the input checked.
    fn run_body(&mut self, pass: &Pass, m: &Module) -> Result<Module, PassError> {
        let info = pass.info();
        let input_hash = self
            .ctx
            .checks_immutable_module()
            .then(|| module_hash(m, false));
        let (result, diag_start) = self.framed(info, |cx| pass.imp().transform(m, cx));
        let out = self.finish_body(info, diag_start, result, m)?;
        if let Some(h) = input_hash {
            if module_hash(m, false) != h {
                return Err(PassErrorKind::ModifiedInput {
                    pass: info.name_arc().clone(),
                }
                .into());
            }
        }
        Ok(out)
    }

    /// Runs a body under the pass's frame with panics caught: its raw result, and where the
    /// diagnostics it reports start (for [`finish_body`](Self::finish_body)).
    #[inline]
    fn framed<T>(
        &mut self,
        info: &PassInfo,
        body: impl FnOnce(&mut PassCx) -> Result<T, PassError>,
    ) -> (std::thread::Result<Result<T, PassError>>, usize) {
        let depth = self.frames.len();
        let diag_start = self.diagnostics.len();
        self.frames.push(info.clone());
        let result = catch_unwind(AssertUnwindSafe(|| body(self)));
        self.frames.truncate(depth);
        (result, diag_start)
    }

    /// A body's result: a panic becomes an error naming the pass; the diagnostics it reported
    /// (from `diag_start` on) are rendered against `m` (warnings to the sink; any error fails
    /// the pass).
    fn finish_body<T>(
        &mut self,
        info: &PassInfo,
        diag_start: usize,
        result: std::thread::Result<Result<T, PassError>>,
        m: &Module,
    ) -> Result<T, PassError> {
        let mut out = match result {
            Ok(r) => r.map_err(|e| e.attach_pass(info.name_arc())),
            Err(payload) => Err(PassErrorKind::Panic {
                pass: info.name_arc().clone(),
                message: panic_message(&*payload),
            }
            .into()),
        };
        if self.diagnostics.len() > diag_start {
            let diags = self.diagnostics.split_off(diag_start);
            for d in diags.iter().filter(|d| !d.is_error()) {
                emit(
                    &*self.sink,
                    ChunkKind::Warning,
                    info.name(),
                    &d.render(m, false),
                );
            }
            if out.is_ok() && diags.iter().any(PassDiagnostic::is_error) {
                out = Err(PassErrorKind::Diagnostics {
                    pass: info.name_arc().clone(),
                    diagnostics: diags,
                }
                .into());
            }
        }
        out
    }

    /// The observer's callback, with the instruments told that the run is out of their
    /// hands meanwhile (it may pause at a breakpoint for as long as the user likes).
    fn observe(
        &mut self,
        info: &PassInfo,
        input: &Module,
        output: Option<&Module>,
        elapsed: Option<Duration>,
    ) -> Result<(), PassError> {
        let Some(obs) = self.observer.clone() else {
            return Ok(());
        };
        let tell = self.ctx.has_instruments();
        if tell {
            self.suspension(false);
        }
        let event = PassEvent {
            info,
            input,
            output,
            depth: self.frames.len(),
            stack: &self.frames,
            elapsed,
        };
        let flow = match output {
            None => obs.before_pass(&event),
            Some(_) => obs.after_pass(&event),
        };
        if tell {
            self.suspension(true);
        }
        match flow {
            Flow::Continue => Ok(()),
            Flow::Abort => Err(PassErrorKind::Aborted {
                pass: info.name_arc().clone(),
            }
            .into()),
        }
    }
}

fn asks_should_run(list: &[InstrumentRef]) -> bool {
    list.iter().any(|i| i.has_should_run())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pass::{module_pass, sequential, NullSink, Sequential};
    use std::sync::Mutex;

    fn names(stack: &[PassInfo]) -> Vec<String> {
        stack.iter().map(|i| i.name().to_string()).collect()
    }

    fn fresh_cx() -> PassCx {
        PassCx::new(
            PassContext::default(),
            Arc::new(crate::passes::registry()),
            Arc::new(NullSink),
        )
    }

    #[test]
    fn the_stack_holds_the_running_passes_outermost_first() {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let s = seen.clone();
        let p = module_pass(PassInfo::new("P", 0), move |m, cx| {
            s.lock().unwrap().push(names(cx.stack()));
            Ok(m.clone())
        });
        let inner = Sequential::with_info(PassInfo::new("inner", 0), vec![p.clone()]).into_pass();
        let outer = sequential(vec![inner, p]);
        let mut cx = fresh_cx();
        cx.run(&outer, &crate::ir::Module::new()).unwrap();
        assert!(cx.stack().is_empty());
        assert_eq!(
            *seen.lock().unwrap(),
            vec![vec!["sequential", "inner", "P"], vec!["sequential", "P"]]
        );
    }

    /// `should_run` is asked only when some instrument has one; a list mixing both kinds
    /// still skips, also after the list changes mid-run.
    #[test]
    fn should_run_is_asked_when_some_instrument_has_one() {
        use crate::instrument::{PassTimingInstrument, Skip};
        let ran = Arc::new(Mutex::new(Vec::new()));
        let marker = |name: &'static str| {
            let ran = ran.clone();
            module_pass(PassInfo::new(name, 0), move |m, _| {
                ran.lock().unwrap().push(name);
                Ok(m.clone())
            })
        };
        let timing: InstrumentRef = Arc::new(PassTimingInstrument::new());
        let ctx = PassContext::builder()
            .instruments(vec![timing.clone()])
            .build()
            .unwrap();
        let skip_b: InstrumentRef = Arc::new(Skip::new(&["B"]));
        let swap_in = {
            let ctx = ctx.clone();
            let list = vec![timing, skip_b];
            module_pass(PassInfo::new("Install", 0), move |m, _| {
                ctx.override_instruments(list.clone(), &NullSink).unwrap();
                Ok(m.clone())
            })
        };
        let pipeline = sequential(vec![marker("A"), marker("B"), swap_in, marker("B")]);
        let mut cx = PassCx::new(ctx, Arc::new(crate::passes::registry()), Arc::new(NullSink));
        cx.run(&pipeline, &crate::ir::Module::new()).unwrap();
        assert_eq!(*ran.lock().unwrap(), vec!["A", "B"]);
    }

    /// A body that swaps its `PassCx` away and keeps it: the kept stack still names the
    /// passes after every one of them is dropped (it holds counted handles on their infos).
    #[test]
    fn a_stack_swapped_away_by_a_body_stays_valid_after_the_passes_are_gone() {
        let kept: Arc<Mutex<Option<PassCx>>> = Arc::new(Mutex::new(None));
        let k = kept.clone();
        let thief = module_pass(PassInfo::new(&"Thief".repeat(8), 0), move |m, cx| {
            let mut other = fresh_cx();
            std::mem::swap(cx, &mut other);
            *k.lock().unwrap() = Some(other);
            Ok(m.clone())
        });
        let after = module_pass(PassInfo::new("After", 0), |m, cx| {
            // The swapped-in PassCx did not see the enclosing pass start.
            assert_eq!(names(cx.stack()), vec!["After"]);
            Ok(m.clone())
        });
        let outer = Sequential::with_info(PassInfo::new(&"Outer".repeat(8), 0), vec![thief, after])
            .into_pass();
        let infos = [outer.info().clone(), outer.children()[0].info().clone()];
        let mut cx = fresh_cx();
        cx.run(&outer, &crate::ir::Module::new()).unwrap();
        drop(outer);
        // Ours, and the one each level leaked for the kept stack.
        assert_eq!(infos.map(|i| i.handle_count()), [2, 2]);
        // Reuse the freed memory, so a dangling entry would read garbage.
        let noise: Vec<String> = (0..1000).map(|i| format!("{i:040}")).collect();
        let kept = kept
            .lock()
            .unwrap()
            .take()
            .expect("the body kept its PassCx");
        assert_eq!(
            names(kept.stack()),
            vec!["Outer".repeat(8), "Thief".repeat(8)]
        );
        drop(noise);
    }
}
