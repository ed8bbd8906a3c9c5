//! Session errors: a message, optionally the place in the input it points at (with a label
//! such as "did you mean ..."), rendered like every other diagnostic.

use crate::diagnostic::Diagnostic;
use crate::diagnostic::ParseError;
use crate::ir::Span;
use std::sync::Arc;

/// What follows the location of a caught panic.
pub(crate) const PANIC_NOTE: &str = "note: this is a bug in passlab; only this statement failed, \
     and the session and its variables are as they were before it";

/// An input text and the name its locations are shown under (`<input>`, `In [3]`, a script's
/// file name). Statements, errors and entered contexts share one, never a copy of the text.
#[derive(Debug, PartialEq)]
pub struct Origin {
    pub name: String,
    pub text: Arc<str>,
}

impl Origin {
    pub fn new(name: impl Into<String>, text: impl Into<Arc<str>>) -> Arc<Origin> {
        Arc::new(Origin {
            name: name.into(),
            text: text.into(),
        })
    }
}

/// An error while executing a statement.
#[derive(Clone, Debug, PartialEq)]
pub struct SessionError {
    pub message: String,
    pub span: Option<Span>,
    pub label: Option<String>,
    /// Extra lines after the location (e.g. an error inside IR text, already rendered).
    pub detail: Option<String>,
    /// The input the span points into, when it is not the statement being executed (a paused
    /// statement that fails after `continue`).
    pub origin: Option<Arc<Origin>>,
}

impl SessionError {
    pub fn new(message: impl Into<String>) -> SessionError {
        SessionError {
            message: message.into(),
            span: None,
            label: None,
            detail: None,
            origin: None,
        }
    }

    pub fn at(message: impl Into<String>, span: Span) -> SessionError {
        SessionError {
            message: message.into(),
            span: Some(span),
            label: None,
            detail: None,
            origin: None,
        }
    }

    /// A pass manager error at `span`; a caught panic says that only the statement failed.
    pub fn from_pass(err: &crate::pass::PassError, span: Span) -> SessionError {
        let e = SessionError::at(err.to_string(), span);
        if err.is_panic() {
            e.with_detail(PANIC_NOTE.into())
        } else {
            e
        }
    }

    /// A panic (a bug) caught while running a statement, at the statement.
    pub(crate) fn panicked(message: &str, span: Span) -> SessionError {
        SessionError::at(format!("internal error: {message}"), span)
            .with_label(Some("this statement panicked".into()))
            .with_detail(PANIC_NOTE.into())
    }

    /// Points the span into `origin` rather than the statement being executed.
    pub fn in_source(mut self, origin: &Arc<Origin>) -> SessionError {
        if self.origin.is_none() {
            self.origin = Some(origin.clone());
        }
        self
    }

    pub fn with_label(mut self, label: Option<String>) -> SessionError {
        self.label = label;
        self
    }

    pub fn with_detail(mut self, detail: String) -> SessionError {
        self.detail = Some(detail);
        self
    }

    /// Adds a last line of detail (after any detail already there).
    pub fn with_note(mut self, note: &str) -> SessionError {
        let detail = match self.detail.take() {
            Some(d) => format!("{d}\n{note}"),
            None => note.to_string(),
        };
        self.detail = Some(detail);
        self
    }

    pub fn from_parse(e: ParseError) -> SessionError {
        SessionError {
            message: e.message,
            span: Some(e.span),
            label: e.label,
            detail: None,
            origin: None,
        }
    }

    /// `error: message`, then the location in its origin, or else in `input` (the statement
    /// being executed), when there is one.
    pub fn render(&self, input: &Origin, color: bool) -> String {
        let o = self.origin.as_deref().unwrap_or(input);
        let (source_name, source) = (o.name.as_str(), &*o.text);
        let mut out = match self.span {
            Some(span) => Diagnostic {
                message: self.message.clone(),
                span,
                label: self.label.clone(),
            }
            .render(source_name, source, color),
            None => {
                let mut s = format!("error: {}", self.message);
                if let Some(l) = &self.label {
                    s.push_str(&format!(" ({l})"));
                }
                s
            }
        };
        if let Some(d) = &self.detail {
            out.push('\n');
            out.push_str(d);
        }
        out
    }
}

impl std::fmt::Display for SessionError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for SessionError {}
