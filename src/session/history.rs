//! The history of the last pipeline run: every pass that ran (Sequentials excluded: their
//! children are the steps), with its input and output modules, its time and where it sat in
//! the pipeline. Modules share structure (a pass rebuilds only what it changes, and a
//! `Module` clone is a pointer copy), so keeping every intermediate module costs little.
//! `history` shows the steps as a table; `history[k]` is the module after step k (`history[0]`
//! the run's input, negative k counts from the end).

use crate::instrument::print_changed::changed_functions;
use crate::instrument::stats::module_node_count;
use crate::instrument::timing::human_duration;
use crate::ir::Module;
use crate::pass::PassInfo;
use crate::present::render::Tab;
use std::time::Duration;

/// One pass that ran.
#[derive(Clone)]
pub struct Step {
    pub info: PassInfo,
    /// The enclosing pass (`None` at the run's root) and how many passes enclose this one.
    pub parent: Option<PassInfo>,
    pub depth: usize,
    pub input: Module,
    pub output: Module,
    /// The pass body's time (instrument callbacks excluded).
    pub elapsed: Duration,
}

impl Step {
    /// The functions this step changed (structurally), `@`-prefixed.
    pub fn changed_functions(&self) -> Vec<String> {
        if self.output.same_as(&self.input) {
            Vec::new()
        } else {
            changed_functions(&self.input, &self.output)
        }
    }
}

/// How a run ended (or that it has not).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RunStatus {
    Running,
    Paused,
    Finished,
    Failed(String),
    Aborted,
}

/// The steps of one run.
#[derive(Clone)]
pub struct RunHistory {
    /// The statement text that applied the pass (`seq(m)`).
    pub call: String,
    pub input: Module,
    pub steps: Vec<Step>,
    pub status: RunStatus,
    /// The passes running now, outermost first, each with the module it received: after a
    /// failure the last is the pass that failed (what a reproducer starts from).
    pub open: Vec<(crate::pass::PassInfo, Module)>,
}

impl RunHistory {
    pub fn new(call: &str, input: Module) -> RunHistory {
        RunHistory {
            call: call.to_string(),
            input,
            steps: Vec::new(),
            status: RunStatus::Running,
            open: Vec::new(),
        }
    }

    /// The module after step `k` (0 = the input; negative counts from the end).
    pub fn module(&self, k: i64) -> Result<Module, String> {
        let n = self.steps.len() as i64;
        let i = if k < 0 { n + 1 + k } else { k };
        if i < 0 || i > n {
            let what = match self.steps.len() {
                0 => "no steps (history[0] is its input)".to_string(),
                1 => "1 step (history[0] is its input, history[1] the module after it)".into(),
                n => format!(
                    "{n} steps (history[0] is its input, history[{n}] the module after the last)"
                ),
            };
            return Err(format!(
                "history[{k}] is out of range: the last run has {what}"
            ));
        }
        Ok(if i == 0 {
            self.input.clone()
        } else {
            self.steps[i as usize - 1].output.clone()
        })
    }

    /// The line above the table: what ran and how it ended.
    pub fn title(&self) -> String {
        let n = self.steps.len();
        let passes = format!("{n} pass{}", if n == 1 { "" } else { "es" });
        let status = match &self.status {
            RunStatus::Running => "running".to_string(),
            RunStatus::Paused => "paused".to_string(),
            RunStatus::Finished => "finished".to_string(),
            RunStatus::Failed(e) => format!("failed: {e}"),
            RunStatus::Aborted => "aborted".to_string(),
        };
        format!("{}: {passes}, {status}", self.call)
    }

    /// The steps as a table: #, pass, changed, time, nodes before -> after.
    pub(crate) fn table(&self) -> Tab {
        let mut counts = NodeCounts::default();
        let rows = self
            .steps
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let changed = if s.changed_functions().is_empty() {
                    "no"
                } else {
                    "yes"
                };
                vec![
                    (i + 1).to_string(),
                    step_name(s),
                    changed.to_string(),
                    format!("{:>8}", human_duration(s.elapsed)),
                    format!("{} → {}", counts.of(&s.input), counts.of(&s.output)),
                ]
            })
            .collect();
        Tab {
            header: ["#", "pass", "changed", "time", "nodes"]
                .map(String::from)
                .to_vec(),
            rows,
        }
    }
}

/// A step's pass name, with its enclosing Sequential when that is not the run's root.
fn step_name(s: &Step) -> String {
    match &s.parent {
        Some(p) if s.depth > 1 => format!("{} > {}", p.name(), s.info.name()),
        _ => s.info.name().to_string(),
    }
}

/// Node counts, computed once per module value (a step's input is usually the output of the
/// step before).
#[derive(Default)]
struct NodeCounts {
    recent: Vec<(Module, usize)>,
}

impl NodeCounts {
    fn of(&mut self, m: &Module) -> usize {
        if let Some((_, n)) = self.recent.iter().rev().take(4).find(|(k, _)| k.same_as(m)) {
            return *n;
        }
        let n = module_node_count(m);
        self.recent.push((m.clone(), n));
        n
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::parse_module;

    fn step(name: &str, input: &Module, output: &Module) -> Step {
        Step {
            info: PassInfo::new(name, 0),
            parent: None,
            depth: 0,
            input: input.clone(),
            output: output.clone(),
            elapsed: Duration::from_micros(1500),
        }
    }

    #[test]
    fn modules_by_step_and_a_table() {
        let a = parse_module("def @main(%x: float32) { add(%x, 0f) }", "a").unwrap();
        let b = parse_module("def @main(%x: float32) { %x }", "b").unwrap();
        let mut h = RunHistory::new("seq(m)", a.clone());
        h.steps.push(step("Same", &a, &a));
        h.steps.push(step("Simplify", &a, &b));
        h.status = RunStatus::Finished;
        assert!(h.module(0).unwrap().same_as(&a));
        assert!(h.module(2).unwrap().same_as(&b));
        assert!(h.module(-1).unwrap().same_as(&b));
        assert!(h.module(-2).unwrap().same_as(&a));
        assert!(h.module(3).unwrap_err().ends_with(
            "has 2 steps (history[0] is its input, history[2] the module after the last)"
        ));
        assert!(h.module(-4).is_err());
        assert_eq!(h.title(), "seq(m): 2 passes, finished");
        let t = h.table();
        assert_eq!(t.rows[0][2], "no");
        assert_eq!(t.rows[1][2], "yes");
        assert_eq!(t.rows[1][3], "  1.5 ms");
        assert_eq!(
            t.rows[1][4], "5 → 2",
            "function, var, call, op, constant → function, var"
        );
    }
}
