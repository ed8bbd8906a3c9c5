//! Step-by-step debugging of pipeline runs (LANGUAGE.md, "Step-by-step debugging"): the
//! commands `break`, `breakpoints`, `delete`, `where`, `step`, `continue`, `abort` and
//! `history`, the names `ir` (the module where a run is paused) and `history[k]` (the module
//! after step k of the last run).
//!
//! Every pass application a statement makes (`x = seq(m)`) runs on a worker thread
//! (`worker.rs`) that records each pass in the run's history and pauses at breakpoints. When
//! it pauses, the statement stops where it is and the session keeps what is left of it
//! (`suspend.rs`); the session then answers every statement as usual until `step`,
//! `continue` or `abort`. The paused state lives in the session, so it lasts across
//! `execute` calls (REPL lines, Jupyter cells).

pub mod breakpoint;
pub mod worker;

use super::history::RunHistory;
use super::suspend::Suspension;
use super::{Outputs, Session, SessionError, Value};
use crate::ir::{Module, Span};
use crate::lang::ast::BreakSpec;
use crate::pass::sink::lock;
use crate::present::render::Tab;
use breakpoint::{Breakpoints, When};
use std::sync::{Arc, Mutex};
use worker::Resume;

/// A session's debugging state.
#[derive(Default)]
pub(crate) struct Debugger {
    /// Shared with the running worker, so breakpoints set while paused apply at once.
    pub breakpoints: Arc<Mutex<Breakpoints>>,
    /// The last run's history (the paused run's, while paused).
    pub history: Option<Arc<Mutex<RunHistory>>>,
    /// The paused run and the rest of the statement that started it.
    pub suspended: Option<Box<Suspension>>,
}

impl Session {
    /// Where the paused run is (`paused before FoldConstant (2 of 4) in sequential`), or
    /// `None` when no run is paused. The REPL shows `(paused) >>> ` then.
    pub fn paused(&self) -> Option<String> {
        self.debug.suspended.as_ref().map(|s| s.pause.describe())
    }

    /// The passes a paused run is inside, outermost first (empty when no run is paused).
    pub(crate) fn running_passes(&self) -> &[crate::pass::PassInfo] {
        match &self.debug.suspended {
            Some(s) => &s.pause.stack,
            None => &[],
        }
    }

    pub(crate) fn cmd_break(&mut self, spec: &BreakSpec, out: &mut Outputs) {
        let when = When::from_spec(spec);
        let note = when
            .pass_name()
            .and_then(|name| self.unknown_pass_note(name));
        let mut text = {
            let mut bps = lock(&self.debug.breakpoints);
            let b = bps.add(when);
            format!("breakpoint {}: {}", b.id, b.when.describe())
        };
        if let Some(n) = note {
            text.push_str(&format!("\nnote: {n}"));
        }
        out.display(text, None, None);
    }

    /// A note when no registered or bound pass has this name (a typo would never hit).
    fn unknown_pass_note(&self, name: &str) -> Option<String> {
        let names = self.known_pass_names();
        if names.iter().any(|n| n == name) {
            return None;
        }
        let hint = crate::suggest::closest(name, names.iter().map(String::as_str))
            .map(|s| format!(" (did you mean `{s}`?)"))
            .unwrap_or_default();
        Some(format!(
            "no registered or bound pass is named {name} yet{hint}"
        ))
    }

    /// The names a `break NAME` can refer to: registered passes and the passes bound to
    /// variables, with everything inside bound Sequentials; sorted, without duplicates.
    pub(crate) fn known_pass_names(&self) -> Vec<String> {
        let mut names: Vec<String> = self
            .pm
            .registry()
            .entries()
            .iter()
            .map(|r| r.name.to_string())
            .collect();
        fn walk(p: &crate::pass::Pass, names: &mut Vec<String>) {
            names.push(p.info().name().to_string());
            for k in p.children() {
                walk(k, names);
            }
        }
        for v in self.vars.values() {
            if let Value::Pass(p) = v {
                walk(p, &mut names);
            }
        }
        names.sort();
        names.dedup();
        names
    }

    pub(crate) fn cmd_breakpoints(&mut self, out: &mut Outputs) {
        let bps = lock(&self.debug.breakpoints);
        if bps.is_empty() {
            out.display("(no breakpoints)", None, None);
        } else {
            let tab = bps.table();
            out.display(tab.plain(self.front().width), None, Some(tab.html()));
        }
    }

    pub(crate) fn cmd_delete(
        &mut self,
        id: Option<usize>,
        span: Span,
        out: &mut Outputs,
    ) -> Result<(), SessionError> {
        let mut bps = lock(&self.debug.breakpoints);
        let text = match id {
            None => match bps.clear() {
                0 => "(no breakpoints)".to_string(),
                1 => "deleted 1 breakpoint".to_string(),
                n => format!("deleted {n} breakpoints"),
            },
            Some(id) => {
                let b = bps.delete(id).map_err(|e| SessionError::at(e, span))?;
                format!("deleted breakpoint {id} ({})", b.when.describe())
            }
        };
        out.display(text, None, None);
        Ok(())
    }

    pub(crate) fn cmd_where(&mut self, span: Span, out: &mut Outputs) -> Result<(), SessionError> {
        let s = self.paused_run(span)?;
        let text = format!(
            "{}\n{}, running `{}`",
            s.pause.stack_line(),
            s.pause.describe(),
            s.statement_line()
        );
        out.display(text, None, None);
        Ok(())
    }

    pub(crate) fn cmd_step(&mut self, span: Span, out: &mut Outputs) -> Result<(), SessionError> {
        self.paused_run(span)?;
        self.resume(Resume::Step, out)
    }

    pub(crate) fn cmd_continue(
        &mut self,
        span: Span,
        out: &mut Outputs,
    ) -> Result<(), SessionError> {
        self.paused_run(span)?;
        self.resume(Resume::Continue, out)
    }

    pub(crate) fn cmd_abort(&mut self, span: Span, out: &mut Outputs) -> Result<(), SessionError> {
        self.paused_run(span)?;
        self.abort_suspended(out)
    }

    fn paused_run(&self, span: Span) -> Result<&Suspension, SessionError> {
        self.debug.suspended.as_deref().ok_or_else(|| {
            SessionError::at("no run is paused", span).with_label(Some(
                "`break NAME` sets a breakpoint; a run that reaches it pauses".into(),
            ))
        })
    }

    pub(crate) fn cmd_history(&mut self, out: &mut Outputs) {
        let Some(h) = &self.debug.history else {
            out.display("(no pipeline has run yet)", None, None);
            return;
        };
        let h = lock(h);
        let title = h.title();
        if h.steps.is_empty() {
            out.display(title, None, None);
            return;
        }
        let tab: Tab = h.table();
        let plain = format!("{title}\n{}", tab.plain(self.front().width));
        let html = format!(
            "<div class=\"passlab-history\"><div style=\"font-family:monospace\">{}</div>{}</div>",
            crate::present::html_escape(&title),
            tab.sortable_html(None)
        );
        out.display(plain, None, Some(html));
    }

    /// `history[k]`: the module after step k of the last run.
    pub(crate) fn history_module(&self, k: &Value, span: Span) -> Result<Value, SessionError> {
        let Value::Int(k) = k else {
            return Err(SessionError::at(
                format!("history[k] takes a step number, got a {}", k.kind()),
                span,
            ));
        };
        let Some(h) = &self.debug.history else {
            return Err(SessionError::at("no pipeline has run yet", span));
        };
        let m = lock(h).module(*k).map_err(|e| SessionError::at(e, span))?;
        Ok(Value::Module(m))
    }

    /// Drops the last run's history and the modules it holds (`history` then says no
    /// pipeline has run).
    pub fn forget_run_history(&mut self) {
        if self.debug.suspended.is_none() {
            self.debug.history = None;
        }
    }

    /// `ir`: the module at the pause point.
    pub(crate) fn paused_module(&self) -> Option<Module> {
        self.debug
            .suspended
            .as_ref()
            .map(|s| s.pause.module.clone())
    }
}
