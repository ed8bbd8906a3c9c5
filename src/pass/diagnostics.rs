//! Diagnostics a pass reports through its context (TVM's `DiagnosticContext`): errors and
//! warnings tied to an IR node. An error fails the pass, with the pass name attached, once its
//! body returns; warnings go to the output sink. When the node came from text, the rendering
//! shows the source line with a caret.

use crate::diagnostic::Diagnostic;
use crate::ir::{Expr, Module, Span};
use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Severity {
    Error,
    Warning,
}

/// One diagnostic reported by a pass.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PassDiagnostic {
    pub severity: Severity,
    pub message: String,
    /// The source range of the node it is about (dummy when the node was built in code).
    pub span: Span,
    /// The global function it is about, if known.
    pub function: Option<String>,
}

impl PassDiagnostic {
    pub fn error(message: impl Into<String>) -> PassDiagnostic {
        PassDiagnostic {
            severity: Severity::Error,
            message: message.into(),
            span: Span::DUMMY,
            function: None,
        }
    }

    pub fn warning(message: impl Into<String>) -> PassDiagnostic {
        PassDiagnostic {
            severity: Severity::Warning,
            ..PassDiagnostic::error(message)
        }
    }

    /// Ties the diagnostic to a node (its span).
    pub fn at(mut self, node: &Expr) -> PassDiagnostic {
        self.span = node.span();
        self
    }

    pub fn in_function(mut self, name: &str) -> PassDiagnostic {
        self.function = Some(name.to_string());
        self
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    /// The diagnostic with its place: `warning: msg` and, when the module was parsed from
    /// text and the span is known, the source line with a caret.
    pub fn render(&self, module: &Module, color: bool) -> String {
        let word = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        let mut out = format!("{word}: {self}");
        if let (Some(src), false) = (&module.source, self.span.is_dummy()) {
            let d = Diagnostic::new(self.message.clone(), self.span);
            out.push('\n');
            out.push_str(&d.render_location(&src.name, &src.text, color));
        }
        out
    }
}

impl fmt::Display for PassDiagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.function {
            Some(g) => write!(f, "in @{g}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}
