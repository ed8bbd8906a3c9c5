//! `Bisect(limit)`: finds the pass that breaks a pipeline by halving (LLVM's `-opt-bisect-limit`).
//! Once `limit` passes have run, `should_run` is false for every further pass. Sequentials are
//! containers: they are neither counted nor skipped. Each decision is logged as
//! `BISECT: running pass (N) Name` or `BISECT: NOT running pass (N) Name`, numbering the passes
//! from 1. The count restarts when the instrument is entered.

use super::{Instrument, InstrumentCx};
use crate::ir::Module;
use crate::pass::error::InstrumentError;
use crate::pass::sink::{emit, lock, ChunkKind};
use crate::pass::PassInfo;
use std::sync::Mutex;

/// Lets only the first `limit` passes run.
#[derive(Debug)]
pub struct Bisect {
    limit: usize,
    state: Mutex<BisectState>,
}

#[derive(Debug, Default)]
struct BisectState {
    /// Passes that ran.
    ran: usize,
    /// Passes refused.
    refused: usize,
}

impl Bisect {
    pub fn new(limit: usize) -> Bisect {
        Bisect {
            limit,
            state: Mutex::new(BisectState::default()),
        }
    }

    pub fn limit(&self) -> usize {
        self.limit
    }

    /// How many passes ran since the instrument was entered.
    pub fn ran(&self) -> usize {
        lock(&self.state).ran
    }
}

impl Instrument for Bisect {
    fn name(&self) -> &str {
        "Bisect"
    }

    fn enter_pass_ctx(&self, _cx: &InstrumentCx<'_>) -> Result<(), InstrumentError> {
        *lock(&self.state) = BisectState::default();
        Ok(())
    }

    fn should_run(
        &self,
        _m: &Module,
        info: &PassInfo,
        cx: &InstrumentCx<'_>,
    ) -> Result<bool, InstrumentError> {
        if info.is_sequential() {
            return Ok(true);
        }
        let mut st = lock(&self.state);
        if st.ran < self.limit {
            return Ok(true);
        }
        st.refused += 1;
        let n = st.ran + st.refused;
        let line = format!("BISECT: NOT running pass ({n}) {}", info.name());
        emit(cx.sink, ChunkKind::Log, self.name(), &line);
        Ok(false)
    }

    fn run_before_pass(
        &self,
        _m: &Module,
        info: &PassInfo,
        cx: &InstrumentCx<'_>,
    ) -> Result<(), InstrumentError> {
        if info.is_sequential() {
            return Ok(());
        }
        let mut st = lock(&self.state);
        st.ran += 1;
        let n = st.ran + st.refused;
        let line = format!("BISECT: running pass ({n}) {}", info.name());
        emit(cx.sink, ChunkKind::Log, self.name(), &line);
        Ok(())
    }

    fn describe(&self) -> String {
        format!("Bisect({})", self.limit)
    }
}
