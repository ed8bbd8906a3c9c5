//! Errors of the pass manager. Every error that comes out of running a pass names the pass;
//! instrument errors also name the instrument and the callback. A panic inside a pass or an
//! instrument becomes one of these too (see the funnel), so bad input never crashes a session.

use super::diagnostics::PassDiagnostic;
use std::fmt;
use std::sync::Arc;

/// The instrument callbacks, in the order of a context's life.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum InstrumentPoint {
    EnterPassCtx,
    ExitPassCtx,
    ShouldRun,
    RunBeforePass,
    RunAfterPass,
}

impl InstrumentPoint {
    pub const ALL: [InstrumentPoint; 5] = [
        InstrumentPoint::EnterPassCtx,
        InstrumentPoint::ExitPassCtx,
        InstrumentPoint::ShouldRun,
        InstrumentPoint::RunBeforePass,
        InstrumentPoint::RunAfterPass,
    ];

    /// The callback's name as TVM spells it (`enter_pass_ctx`, `should_run`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            InstrumentPoint::EnterPassCtx => "enter_pass_ctx",
            InstrumentPoint::ExitPassCtx => "exit_pass_ctx",
            InstrumentPoint::ShouldRun => "should_run",
            InstrumentPoint::RunBeforePass => "run_before_pass",
            InstrumentPoint::RunAfterPass => "run_after_pass",
        }
    }

    pub fn parse(s: &str) -> Option<InstrumentPoint> {
        InstrumentPoint::ALL.into_iter().find(|p| p.as_str() == s)
    }
}

impl fmt::Display for InstrumentPoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What an instrument callback returns on failure: a message. The funnel adds the instrument,
/// the callback and the pass.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InstrumentError(pub String);

impl InstrumentError {
    pub fn new(msg: impl Into<String>) -> InstrumentError {
        InstrumentError(msg.into())
    }
}

impl From<String> for InstrumentError {
    fn from(s: String) -> Self {
        InstrumentError(s)
    }
}

impl From<&str> for InstrumentError {
    fn from(s: &str) -> Self {
        InstrumentError(s.to_string())
    }
}

impl fmt::Display for InstrumentError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// An error of the pass manager: a pointer to a [`PassErrorKind`], so results stay small
/// (`Result<Module, PassError>` is two words and travels in registers through the funnel).
#[derive(Clone)]
pub struct PassError(Box<PassErrorKind>);

/// Everything that can go wrong while constructing, entering or running passes.
#[derive(Clone, Debug)]
pub enum PassErrorKind {
    /// A pass body failed. `pass` is filled in by the funnel when the body leaves it empty.
    Failed {
        pass: Option<Arc<str>>,
        message: String,
    },
    /// A pass reported error diagnostics.
    Diagnostics {
        pass: Arc<str>,
        diagnostics: Vec<PassDiagnostic>,
    },
    /// An instrument callback failed (or panicked).
    Instrument {
        instrument: String,
        point: InstrumentPoint,
        /// The pass being run, for the per-pass callbacks.
        pass: Option<Arc<str>>,
        message: String,
    },
    /// A pass body panicked.
    Panic { pass: Arc<str>, message: String },
    /// A pass name that is not in the registry.
    UnknownPass {
        name: String,
        /// The pass whose `required` list named it.
        required_by: Option<Arc<str>>,
        suggestion: Option<String>,
    },
    /// Bad keyword options for a registered pass.
    Options { pass: String, message: String },
    /// A config key or value that does not validate.
    Config(String),
    /// `testing.immutable_module`: the pass changed its input module.
    ModifiedInput { pass: Arc<str> },
    /// The cancellation flag was set; `pass` is the pass that was about to run.
    Interrupted { pass: Arc<str> },
    /// A [`PassObserver`](super::observer::PassObserver) aborted the run.
    Aborted { pass: Arc<str> },
    /// Exiting a context that is not the innermost one, or exiting with none entered.
    Context(String),
    /// Two failures at once: exiting a context failed after its block had failed.
    Both { first: PassError, second: PassError },
}

impl PassError {
    /// A pass failure; the funnel attaches the pass name.
    pub fn failed(message: impl Into<String>) -> PassError {
        PassErrorKind::Failed {
            pass: None,
            message: message.into(),
        }
        .into()
    }

    /// What went wrong.
    pub fn kind(&self) -> &PassErrorKind {
        &self.0
    }

    pub fn into_kind(self) -> PassErrorKind {
        *self.0
    }

    /// Both errors, `first` reported first.
    pub fn both(first: PassError, second: PassError) -> PassError {
        PassErrorKind::Both { first, second }.into()
    }

    /// The pass the error is about, when there is one.
    pub fn pass(&self) -> Option<&str> {
        use PassErrorKind::*;
        match self.kind() {
            Failed { pass, .. } | Instrument { pass, .. } => pass.as_deref(),
            Diagnostics { pass, .. }
            | Panic { pass, .. }
            | ModifiedInput { pass }
            | Interrupted { pass }
            | Aborted { pass } => Some(pass),
            UnknownPass { required_by, .. } => required_by.as_deref(),
            Both { first, .. } => first.pass(),
            _ => None,
        }
    }

    /// True when the error is a caught panic: a pass body's, or an instrument callback's
    /// (possibly one of two errors).
    pub fn is_panic(&self) -> bool {
        match self.kind() {
            PassErrorKind::Panic { .. } => true,
            PassErrorKind::Instrument { message, .. } => message.starts_with(INSTRUMENT_PANICKED),
            PassErrorKind::Both { first, second } => first.is_panic() || second.is_panic(),
            _ => false,
        }
    }

    /// Fills in the pass name of a body failure that has none.
    pub(crate) fn attach_pass(mut self, name: &Arc<str>) -> PassError {
        if let PassErrorKind::Failed {
            pass: pass @ None, ..
        } = &mut *self.0
        {
            *pass = Some(name.clone());
        }
        self
    }
}

impl From<PassErrorKind> for PassError {
    fn from(kind: PassErrorKind) -> PassError {
        PassError(Box::new(kind))
    }
}

impl fmt::Debug for PassError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl fmt::Display for PassError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&*self.0, f)
    }
}

impl fmt::Display for PassErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use PassErrorKind::*;
        match self {
            Failed {
                pass: Some(p),
                message,
            } => write!(f, "{p}: {message}"),
            Failed {
                pass: None,
                message,
            } => f.write_str(message),
            Diagnostics { pass, diagnostics } => {
                write!(f, "{pass}: ")?;
                let errors: Vec<String> = diagnostics
                    .iter()
                    .filter(|d| d.is_error())
                    .map(|d| d.to_string())
                    .collect();
                f.write_str(&errors.join("; "))
            }
            Instrument {
                instrument,
                point,
                pass,
                message,
            } => {
                write!(f, "{message} (instrument {instrument}, {point}")?;
                if let Some(p) = pass {
                    write!(f, " of pass {p}")?;
                }
                f.write_str(")")
            }
            Panic { pass, message } => write!(f, "{pass}: the pass panicked: {message}"),
            UnknownPass {
                name,
                required_by,
                suggestion,
            } => {
                match required_by {
                    Some(r) => write!(
                        f,
                        "pass {r} requires {name}, which is not a registered pass"
                    )?,
                    None => write!(f, "unknown pass {name}")?,
                }
                if let Some(s) = suggestion {
                    write!(f, "; did you mean {s}?")?;
                }
                Ok(())
            }
            Options { pass, message } => write!(f, "{pass}: {message}"),
            Config(msg) | Context(msg) => f.write_str(msg),
            ModifiedInput { pass } => write!(
                f,
                "{pass}: the pass modified its input module (testing.immutable_module)"
            ),
            Interrupted { pass } => write!(f, "interrupted before pass {pass}"),
            Aborted { pass } => write!(f, "run aborted at pass {pass}"),
            Both { first, second } => write!(f, "{first}\nwhile handling: {second}"),
        }
    }
}

impl std::error::Error for PassError {}

/// The text of a panic payload.
/// How the message of an instrument callback that panicked begins.
pub(crate) const INSTRUMENT_PANICKED: &str = "the instrument panicked: ";

pub(crate) fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "unknown panic payload".to_string()
    }
}
