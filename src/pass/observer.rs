//! Hooks for a step debugger: a [`PassObserver`] installed on the pass manager is called at
//! the two points of the funnel where a run can pause — before a pass (before any instrument
//! sees it, so instruments changed while paused apply to it) and after it (after every
//! instrument saw it). It can let the run go on or abort it; it may block to pause (the run
//! then lives on another thread, which is why a run owns everything it uses).

use super::info::PassInfo;
use crate::ir::Module;
use std::time::Duration;

/// What the run does after an observer callback.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    Continue,
    /// Stop the run with [`PassErrorKind::Aborted`](super::PassErrorKind::Aborted).
    Abort,
}

/// One pause point.
pub struct PassEvent<'a> {
    pub info: &'a PassInfo,
    /// The module the pass receives.
    pub input: &'a Module,
    /// The module it returned (only after the pass).
    pub output: Option<&'a Module>,
    /// How many passes enclose this one in the run (0 for the outermost).
    pub depth: usize,
    /// The names of the enclosing passes, outermost first (`where`).
    pub stack: &'a [PassInfo],
    /// After the pass: how long its body took (instrument callbacks excluded).
    pub elapsed: Option<Duration>,
}

impl PassEvent<'_> {
    /// After the pass: true when it changed the module (structurally: see
    /// [`crate::ir::structural::module_changed`]).
    pub fn changed(&self) -> Option<bool> {
        self.output
            .map(|o| crate::ir::structural::module_changed(self.input, o))
    }
}

/// Called by the funnel around every pass run (including skipped ones before the skip is
/// decided, and required passes).
pub trait PassObserver: Send + Sync {
    fn before_pass(&self, _event: &PassEvent<'_>) -> Flow {
        Flow::Continue
    }

    fn after_pass(&self, _event: &PassEvent<'_>) -> Flow {
        Flow::Continue
    }
}
