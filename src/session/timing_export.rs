//! The timing views beyond the `timing` table: `timing flat` and `timing_list()`, the flat
//! list by self time (MLIR's list view), and `save_timing("trace.json")`, Chrome's trace-event format (Perfetto
//! and `chrome://tracing` open it). Both read the timing instrument `timing` shows: the
//! current context's, or else the last one a context held.

use super::builtins::Bound;
use super::{Session, SessionError, Value};
use crate::instrument::timing_views::{chrome_trace, render_flat};
use crate::instrument::{PassTimingInstrument, TimingRecord};
use crate::ir::Span;

impl Session {
    /// The records of the timing instrument `timing` would show.
    fn timing_records(&self, span: Span) -> Result<Vec<TimingRecord>, SessionError> {
        let current = self
            .pm
            .current()
            .instruments()
            .iter()
            .find(|i| i.as_any().is::<PassTimingInstrument>())
            .cloned();
        let inst = current.or_else(|| self.last_timing.clone()).ok_or_else(|| {
            SessionError::at(
                "no PassTimingInstrument has been used: run passes under PassContext(instruments=[PassTimingInstrument()])",
                span,
            )
        })?;
        let t = inst
            .as_any()
            .downcast_ref::<PassTimingInstrument>()
            .expect("found by type");
        Ok(t.records_paused(self.running_passes()))
    }

    /// `timing flat`: the flat list as the statement's displayed result.
    pub(crate) fn cmd_timing_flat(
        &mut self,
        span: Span,
        out: &mut super::Outputs,
    ) -> Result<(), SessionError> {
        let text = flat_text(&self.timing_records(span)?, self.front().width);
        out.display(text, None, None);
        Ok(())
    }
}

fn flat_text(records: &[TimingRecord], width: Option<usize>) -> String {
    if records.is_empty() {
        "(no passes timed yet)".to_string()
    } else {
        render_flat(records, width)
    }
}

/// `timing_list()`.
pub(super) fn b_timing_list(s: &mut Session, a: Bound) -> Result<Value, SessionError> {
    let text = flat_text(&s.timing_records(a.span)?, s.front().width);
    crate::pass::sink::emit(&s.sink, crate::pass::ChunkKind::Log, "timing", &text);
    Ok(Value::None)
}

/// `save_timing("trace.json")`.
pub(super) fn b_save_timing(s: &mut Session, a: Bound) -> Result<Value, SessionError> {
    let path = a
        .str("path")?
        .ok_or_else(|| SessionError::at("save_timing needs a file name", a.span))?;
    let records = s.timing_records(a.span)?;
    let text = chrome_trace(&records).to_string();
    let full = super::builtins::resolve(s, &path);
    crate::files::write_atomic(&full, text.as_bytes())
        .map_err(|e| SessionError::at(format!("cannot write {path}: {e}"), a.span_of("path")))?;
    Ok(Value::None)
}
