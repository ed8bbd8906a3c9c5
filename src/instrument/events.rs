//! `EventLog`: the per-pass event log as data (`passlab opt --json`): for every pass the funnel
//! reaches, whether it ran or an instrument's `should_run` skipped it, whether it changed the
//! module (a different module value that is not structurally equal), the node counts before
//! and after, and its time. It also keeps the input of every pass still running, so after a
//! failure [`EventLog::failing`] names the innermost pass that did not finish and the module
//! it received (what a reproducer holds). Entering a context holding it starts a new log.
//!
//! Passes the opt_level gate or `disabled_pass` keeps out never reach an instrument (the gate
//! belongs to Sequential); the driver reports those from the pipeline's tree.

use super::stats::module_node_count;
use super::{Instrument, InstrumentCx};
use crate::ir::structural::module_equal;
use crate::ir::Module;
use crate::pass::error::InstrumentError;
use crate::pass::sink::lock;
use crate::pass::PassInfo;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// One pass the funnel reached.
#[derive(Clone, Debug)]
pub struct PassEventRecord {
    pub info: PassInfo,
    /// Nesting depth in the run (0 = applied directly).
    pub depth: usize,
    /// False when an instrument's `should_run` skipped it.
    pub ran: bool,
    /// Set once the pass finished.
    pub changed: Option<bool>,
    pub nodes_before: usize,
    pub nodes_after: Option<usize>,
    pub time: Option<Duration>,
}

/// Records every pass the funnel reaches.
#[derive(Default)]
pub struct EventLog {
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    events: Vec<PassEventRecord>,
    /// Per running pass: its event, its input and when it started.
    open: Vec<(usize, Module, Instant)>,
    /// The event `should_run` opened at this depth, until `run_before_pass` claims it.
    asked: Option<(usize, usize)>,
}

impl EventLog {
    pub fn new() -> EventLog {
        EventLog::default()
    }

    /// The events so far, in the order the passes started.
    pub fn events(&self) -> Vec<PassEventRecord> {
        lock(&self.state).events.clone()
    }

    /// The innermost pass that started and did not finish, with the module it received.
    pub fn failing(&self) -> Option<(PassInfo, Module)> {
        let st = lock(&self.state);
        let (event, m, _) = st.open.last()?;
        Some((st.events[*event].info.clone(), m.clone()))
    }

    /// The events as a JSON array.
    pub fn to_json(&self) -> serde_json::Value {
        let events = self.events();
        serde_json::Value::Array(
            events
                .iter()
                .map(|e| {
                    serde_json::json!({
                        "pass": e.info.name(),
                        "kind": e.info.kind().as_str(),
                        "depth": e.depth,
                        "status": if !e.ran {
                            "skipped"
                        } else if e.time.is_some() {
                            "ran"
                        } else {
                            "failed"
                        },
                        "reason": if e.ran { None } else { Some("an instrument's should_run") },
                        "changed": e.changed,
                        "nodes_before": e.nodes_before,
                        "nodes_after": e.nodes_after,
                        "time_us": e.time.map(|t| t.as_secs_f64() * 1e6),
                    })
                })
                .collect(),
        )
    }
}

impl Instrument for EventLog {
    fn name(&self) -> &str {
        "EventLog"
    }

    fn enter_pass_ctx(&self, _cx: &InstrumentCx<'_>) -> Result<(), InstrumentError> {
        *lock(&self.state) = State::default();
        Ok(())
    }

    fn should_run(
        &self,
        m: &Module,
        info: &PassInfo,
        cx: &InstrumentCx<'_>,
    ) -> Result<bool, InstrumentError> {
        let mut st = lock(&self.state);
        let index = st.events.len();
        st.events.push(PassEventRecord {
            info: info.clone(),
            depth: cx.depth,
            ran: false,
            changed: None,
            nodes_before: module_node_count(m),
            nodes_after: None,
            time: None,
        });
        st.asked = Some((cx.depth, index));
        Ok(true)
    }

    fn run_before_pass(
        &self,
        m: &Module,
        info: &PassInfo,
        cx: &InstrumentCx<'_>,
    ) -> Result<(), InstrumentError> {
        let mut st = lock(&self.state);
        let index = match st.asked.take() {
            Some((depth, index)) if depth == cx.depth && st.events[index].info.same_as(info) => {
                st.events[index].ran = true;
                index
            }
            _ => {
                // A pass in `required_pass` is not asked.
                st.events.push(PassEventRecord {
                    info: info.clone(),
                    depth: cx.depth,
                    ran: true,
                    changed: None,
                    nodes_before: module_node_count(m),
                    nodes_after: None,
                    time: None,
                });
                st.events.len() - 1
            }
        };
        st.open.push((index, m.clone(), Instant::now()));
        Ok(())
    }

    fn run_after_pass(
        &self,
        m: &Module,
        _info: &PassInfo,
        _cx: &InstrumentCx<'_>,
    ) -> Result<(), InstrumentError> {
        let mut st = lock(&self.state);
        if let Some((index, input, start)) = st.open.pop() {
            let time = start.elapsed();
            let changed = !m.same_as(&input) && !module_equal(m, &input, false);
            let e = &mut st.events[index];
            e.time = Some(time);
            e.changed = Some(changed);
            e.nodes_after = Some(module_node_count(m));
        }
        Ok(())
    }
}
