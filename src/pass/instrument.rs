//! The instrument protocol (TVM's `PassInstrument`): the callbacks the pass manager calls
//! around every pass run under a context that lists instruments. The instruments themselves
//! (timing, printing, tracing, verification, ...) live in `crate::instrument`, above the passes;
//! the protocol lives here so the pass manager depends on nothing above it.
//!
//! An instrument is a shared value (`Arc<dyn Instrument>`, state behind interior mutability),
//! so the same one can sit in two contexts and be read after its context exits. Instruments
//! never print: they write to the [`OutputSink`] handed to every callback. Callbacks also
//! receive the funnel depth of the pass (0 for a pass applied directly), which lets
//! stack-keeping instruments drop frames a failed pass left open.

use super::error::{panic_message, InstrumentError, InstrumentPoint, PassError, PassErrorKind};
use super::sink::OutputSink;
use super::PassInfo;
use crate::ir::Module;
use std::any::Any;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

/// A shared instrument.
pub type InstrumentRef = Arc<dyn Instrument>;

/// What every callback gets besides the module and pass info.
#[derive(Clone, Copy)]
pub struct InstrumentCx<'a> {
    /// Where output goes.
    pub sink: &'a dyn OutputSink,
    /// How many passes enclose this one in the current run (0 for the outermost). Always 0
    /// for `enter_pass_ctx` / `exit_pass_ctx`.
    pub depth: usize,
}

/// A pass instrument. Every callback has a do-nothing default.
pub trait Instrument: AsAny + Send + Sync {
    /// The instrument's name, used in errors and listings.
    fn name(&self) -> &str;

    /// Called when a context holding the instrument is entered (or the instrument is
    /// installed by `override_instruments`).
    fn enter_pass_ctx(&self, _cx: &InstrumentCx<'_>) -> Result<(), InstrumentError> {
        Ok(())
    }

    /// Called when the context is exited (or the instrument is replaced).
    fn exit_pass_ctx(&self, _cx: &InstrumentCx<'_>) -> Result<(), InstrumentError> {
        Ok(())
    }

    /// Asked before every pass whose name is not in the context's `required_pass`; any
    /// instrument answering false skips the pass.
    fn should_run(
        &self,
        _m: &Module,
        _info: &PassInfo,
        _cx: &InstrumentCx<'_>,
    ) -> Result<bool, InstrumentError> {
        Ok(true)
    }

    /// False when [`Instrument::should_run`] always answers true (the default), so the funnel
    /// need not call it. An instrument that overrides `should_run` leaves this alone.
    fn has_should_run(&self) -> bool {
        true
    }

    /// Called with the input module before a pass that runs.
    fn run_before_pass(
        &self,
        _m: &Module,
        _info: &PassInfo,
        _cx: &InstrumentCx<'_>,
    ) -> Result<(), InstrumentError> {
        Ok(())
    }

    /// Called with the output module after a pass that ran and succeeded.
    fn run_after_pass(
        &self,
        _m: &Module,
        _info: &PassInfo,
        _cx: &InstrumentCx<'_>,
    ) -> Result<(), InstrumentError> {
        Ok(())
    }

    /// Called instead of [`run_after_pass`](Instrument::run_after_pass) for a pass that
    /// started (`run_before_pass` was called) and then failed: its body returned an error or
    /// panicked, a pass inside it failed, or the run was interrupted or aborted inside it.
    /// `m` is the pass's input. Called on the way out, innermost pass first; what this
    /// callback does cannot change the error (a panic in it is ignored).
    fn run_failed_pass(
        &self,
        _m: &Module,
        _info: &PassInfo,
        _error: &super::PassError,
        _cx: &InstrumentCx<'_>,
    ) {
    }

    /// Called before the run is handed to an observer (a step debugger, which may pause the
    /// run at a breakpoint, or check the module), and [`run_resumed`](Instrument::run_resumed)
    /// when it gets the run back. The time between the two belongs to no pass.
    fn run_suspended(&self, _cx: &InstrumentCx<'_>) {}

    /// See [`run_suspended`](Instrument::run_suspended).
    fn run_resumed(&self, _cx: &InstrumentCx<'_>) {}

    /// A one-line description with the instrument's settings, for listings.
    fn describe(&self) -> String {
        self.name().to_string()
    }
}

/// Downcasting support for instruments (reading a timing instrument's records through an
/// `Arc<dyn Instrument>`), implemented for every `'static` type.
pub trait AsAny: Any {
    fn as_any(&self) -> &dyn Any;
}

impl<T: Any> AsAny for T {
    fn as_any(&self) -> &dyn Any {
        self
    }
}

impl dyn Instrument {
    /// The instrument as a concrete type, when it is one.
    pub fn downcast_ref<T: Instrument>(&self) -> Option<&T> {
        self.as_any().downcast_ref::<T>()
    }
}

/// Calls one instrument callback, turning an error or a panic into a [`PassError`] naming the
/// instrument, the callback and the pass.
///
/// Inlined into the funnel: with an instrument installed, every pass makes three of these
/// calls, and the call frame around each callback cost more than a no-op callback itself
/// (a no-op instrument went from 39 to 30 ns a pass). The failure paths stay out of line.
#[inline(always)]
pub(crate) fn call<T>(
    inst: &dyn Instrument,
    point: InstrumentPoint,
    info: Option<&PassInfo>,
    f: impl FnOnce() -> Result<T, InstrumentError>,
) -> Result<T, PassError> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(v)) => Ok(v),
        Ok(Err(e)) => Err(failure(inst, point, info, e.0)),
        Err(payload) => Err(panicked(inst, point, info, payload)),
    }
}

#[cold]
#[inline(never)]
fn panicked(
    inst: &dyn Instrument,
    point: InstrumentPoint,
    info: Option<&PassInfo>,
    payload: Box<dyn Any + Send>,
) -> PassError {
    let message = format!(
        "{}{}",
        super::error::INSTRUMENT_PANICKED,
        panic_message(&*payload)
    );
    failure(inst, point, info, message)
}

#[cold]
#[inline(never)]
fn failure(
    inst: &dyn Instrument,
    point: InstrumentPoint,
    info: Option<&PassInfo>,
    message: String,
) -> PassError {
    PassErrorKind::Instrument {
        instrument: inst.name().to_string(),
        point,
        pass: info.map(|i| i.name_arc().clone()),
        message,
    }
    .into()
}
