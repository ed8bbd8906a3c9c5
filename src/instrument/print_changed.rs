//! `PrintChanged`: after a pass, writes a unified diff of the printed module, but only when
//! the pass changed the IR. The change is detected structurally — the very same module value
//! (`same_as`) or a structurally equal one (`module_equal`) is no change — so unchanged passes
//! cost no printing. Checked types are not part of structural equality, so a pass that only
//! fills in types is reported as unchanged. Sequentials are not reported: their children's
//! diffs already show every change. [`PrintChanged::only`] limits the diffs to some functions
//! (`passlab opt --filter-print-funcs`): a pass that changed none of them prints nothing.

use super::{Instrument, InstrumentCx};
use crate::ir::structural::{expr_equal, module_changed};
use crate::ir::Module;
use crate::pass::error::InstrumentError;
use crate::pass::sink::{emit, lock, ChunkKind};
use crate::pass::PassInfo;
use crate::text::diff::{self, Lines};
use crate::text::print_module_display as print_module;
use std::sync::Mutex;

/// Prints a diff after every pass that changed the module.
#[derive(Default)]
pub struct PrintChanged {
    /// The input modules of the running passes, outermost first (`None` for a pass that
    /// started before the instrument was installed, e.g. by `override_instruments` while a
    /// run is paused).
    inputs: Mutex<Vec<Option<Module>>>,
    /// The functions to diff (names without `@`); empty: all.
    only: Vec<String>,
}

impl PrintChanged {
    pub fn new() -> PrintChanged {
        PrintChanged::default()
    }

    /// Diffs only the named functions (`main` or `@main`); an empty list keeps them all.
    pub fn only(mut self, funcs: &[String]) -> PrintChanged {
        self.only = funcs
            .iter()
            .map(|f| f.trim_start_matches('@').to_string())
            .collect();
        self
    }

    /// `m` with only the functions to diff (and its type definitions).
    fn kept(&self, m: &Module) -> Module {
        if self.only.is_empty() {
            return m.clone();
        }
        let mut out = Module::new();
        out.type_defs = m.type_defs.clone();
        for (g, e) in m.functions() {
            if self.only.iter().any(|f| f == g.name()) {
                // Names come from a valid module, so the update cannot fail.
                let _ = out.update(g.name(), e.clone());
            }
        }
        out
    }
}

/// A unified diff of two printed modules with the given file labels (empty when they are
/// equal): lines are matched up to the renumbering of `%N` bindings
/// ([`Lines::Renumbered`](crate::text::diff::Lines)), so a pass that adds one binding does not
/// show the rest of the function as changed.
pub fn unified_diff(old: &str, new: &str, old_label: &str, new_label: &str) -> String {
    diff::unified_diff(old, new, old_label, new_label, Lines::Renumbered)
}

/// The functions that differ between two modules (changed, added or removed), `@`-prefixed.
pub fn changed_functions(before: &Module, after: &Module) -> Vec<String> {
    let mut out = Vec::new();
    for (g, e) in after.functions() {
        match before.get(g.name()) {
            Some(old) if old.ptr_eq(e) || expr_equal(old, e, false) => {}
            _ => out.push(format!("@{}", g.name())),
        }
    }
    for (g, _) in before.functions() {
        if !after.contains(g.name()) {
            out.push(format!("@{} (removed)", g.name()));
        }
    }
    out
}

impl Instrument for PrintChanged {
    fn name(&self) -> &str {
        "PrintChanged"
    }

    fn has_should_run(&self) -> bool {
        false
    }

    fn enter_pass_ctx(&self, _cx: &InstrumentCx<'_>) -> Result<(), InstrumentError> {
        lock(&self.inputs).clear();
        Ok(())
    }

    fn run_before_pass(
        &self,
        m: &Module,
        _info: &PassInfo,
        cx: &InstrumentCx<'_>,
    ) -> Result<(), InstrumentError> {
        let mut inputs = lock(&self.inputs);
        inputs.truncate(cx.depth);
        inputs.resize(cx.depth, None);
        inputs.push(Some(m.clone()));
        Ok(())
    }

    fn run_after_pass(
        &self,
        m: &Module,
        info: &PassInfo,
        cx: &InstrumentCx<'_>,
    ) -> Result<(), InstrumentError> {
        let before = {
            let mut inputs = lock(&self.inputs);
            if inputs.len() != cx.depth + 1 {
                inputs.truncate(cx.depth);
                return Ok(());
            }
            match inputs.pop().expect("checked length") {
                Some(before) => before,
                None => return Ok(()),
            }
        };
        if info.is_sequential() || !module_changed(&before, m) {
            return Ok(());
        }
        let funcs: Vec<String> = changed_functions(&before, m)
            .into_iter()
            .filter(|f| {
                let name = f.trim_start_matches('@').trim_end_matches(" (removed)");
                self.only.is_empty() || self.only.iter().any(|o| o == name)
            })
            .collect();
        if !self.only.is_empty() && funcs.is_empty() {
            return Ok(());
        }
        let (old, new) = (
            print_module(&self.kept(&before)),
            print_module(&self.kept(m)),
        );
        if old == new {
            return Ok(());
        }
        let name = info.name();
        let diff = unified_diff(
            &old,
            &new,
            &format!("before {name}"),
            &format!("after {name}"),
        );
        let head = if funcs.is_empty() {
            format!("{name} changed the module")
        } else {
            format!("{name} changed {}", funcs.join(", "))
        };
        emit(
            cx.sink,
            ChunkKind::Diff,
            self.name(),
            &format!("{head}\n{diff}"),
        );
        Ok(())
    }
}
