//! `Stats()`: per pass run, the IR node count before and after and whether the module changed
//! (a different module value). Each non-Sequential pass writes one log line
//! (`Stats: FoldConstant 412 -> 389 nodes, changed`); every run, Sequentials included, is kept
//! as a [`StatRecord`] until the instrument is entered again.

use super::{Instrument, InstrumentCx};
use crate::ir::visit::post_order_with;
use crate::ir::Module;
use crate::pass::error::InstrumentError;
use crate::pass::sink::{emit, lock, ChunkKind};
use crate::pass::{PassInfo, PassKind};
use rustc_hash::FxHashSet;
use std::sync::{Arc, Mutex};

/// One pass run's statistics.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StatRecord {
    pub pass: Arc<str>,
    pub kind: PassKind,
    /// Nesting depth in the run (0 = applied directly).
    pub depth: usize,
    pub nodes_before: usize,
    pub nodes_after: usize,
    pub changed: bool,
}

/// Counts IR nodes around every pass.
#[derive(Default)]
pub struct Stats {
    state: Mutex<StatsState>,
}

#[derive(Default)]
struct StatsState {
    /// Input module and its node count, per running pass.
    open: Vec<Option<(Module, usize)>>,
    records: Vec<StatRecord>,
}

/// The number of unique expression nodes of a module's functions (an op counts once, see
/// [`crate::ir::visit::count_nodes`]).
pub fn module_node_count(m: &Module) -> usize {
    let mut seen = FxHashSet::default();
    let mut counter = crate::ir::visit::NodeCounter::default();
    for (_, e) in m.functions() {
        post_order_with(e, &mut seen, &mut |e| counter.add(e));
    }
    counter.n
}

impl Stats {
    pub fn new() -> Stats {
        Stats::default()
    }

    /// The runs recorded since the instrument was last entered, in completion order.
    pub fn records(&self) -> Vec<StatRecord> {
        lock(&self.state).records.clone()
    }
}

impl Instrument for Stats {
    fn name(&self) -> &str {
        "Stats"
    }

    fn has_should_run(&self) -> bool {
        false
    }

    fn enter_pass_ctx(&self, _cx: &InstrumentCx<'_>) -> Result<(), InstrumentError> {
        *lock(&self.state) = StatsState::default();
        Ok(())
    }

    fn run_before_pass(
        &self,
        m: &Module,
        _info: &PassInfo,
        cx: &InstrumentCx<'_>,
    ) -> Result<(), InstrumentError> {
        let count = module_node_count(m);
        let mut st = lock(&self.state);
        // Padding stands for passes that started before the instrument was installed.
        st.open.truncate(cx.depth);
        st.open.resize(cx.depth, None);
        st.open.push(Some((m.clone(), count)));
        Ok(())
    }

    fn run_after_pass(
        &self,
        m: &Module,
        info: &PassInfo,
        cx: &InstrumentCx<'_>,
    ) -> Result<(), InstrumentError> {
        let (input, before) = {
            let mut st = lock(&self.state);
            if st.open.len() != cx.depth + 1 {
                st.open.truncate(cx.depth);
                return Ok(());
            }
            match st.open.pop().expect("checked length") {
                Some(open) => open,
                None => return Ok(()),
            }
        };
        let after = module_node_count(m);
        let changed = crate::ir::structural::module_changed(&input, m);
        let rec = StatRecord {
            pass: info.name_arc().clone(),
            kind: info.kind(),
            depth: cx.depth,
            nodes_before: before,
            nodes_after: after,
            changed,
        };
        if !info.is_sequential() {
            let line = format!(
                "Stats: {} {before} -> {after} nodes, {}",
                info.name(),
                if changed { "changed" } else { "unchanged" }
            );
            emit(cx.sink, ChunkKind::Log, self.name(), &line);
        }
        lock(&self.state).records.push(rec);
        Ok(())
    }
}
