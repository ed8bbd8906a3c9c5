//! `PassInfo`: what the pass manager knows about a pass without running it — its name, the
//! optimization level it needs, the passes it requires, and its kind. Cloning is a pointer
//! copy, so instruments and records can keep one cheaply.

use std::fmt;
use std::sync::Arc;

/// The three kinds of pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PassKind {
    /// Module -> Module; may add or remove functions.
    Module,
    /// One function at a time; cannot add or remove functions.
    Function,
    /// An ordered list of passes, itself a pass.
    Sequential,
}

impl PassKind {
    pub fn as_str(self) -> &'static str {
        match self {
            PassKind::Module => "module",
            PassKind::Function => "function",
            PassKind::Sequential => "sequential",
        }
    }
}

impl fmt::Display for PassKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A pass's name, opt_level and required passes (TVM's `PassInfo`), plus its kind.
#[derive(Clone)]
pub struct PassInfo(Arc<InfoData>);

struct InfoData {
    name: Arc<str>,
    opt_level: i32,
    required: Arc<[Arc<str>]>,
    kind: PassKind,
}

impl PassInfo {
    /// Info for a module pass with no required passes.
    pub fn new(name: &str, opt_level: i32) -> PassInfo {
        PassInfo::with_kind(name, opt_level, &[] as &[&str], PassKind::Module)
    }

    pub fn with_kind<S: AsRef<str>>(
        name: &str,
        opt_level: i32,
        required: &[S],
        kind: PassKind,
    ) -> PassInfo {
        PassInfo(Arc::new(InfoData {
            name: name.into(),
            opt_level,
            required: required.iter().map(|r| Arc::from(r.as_ref())).collect(),
            kind,
        }))
    }

    /// The same info with another required list.
    pub fn required_passes<S: AsRef<str>>(&self, required: &[S]) -> PassInfo {
        PassInfo::with_kind(self.name(), self.opt_level(), required, self.kind())
    }

    /// The same info with another kind.
    pub fn of_kind(&self, kind: PassKind) -> PassInfo {
        PassInfo(Arc::new(InfoData {
            name: self.0.name.clone(),
            opt_level: self.0.opt_level,
            required: self.0.required.clone(),
            kind,
        }))
    }

    pub fn name(&self) -> &str {
        &self.0.name
    }

    /// The name as a shared string (no allocation to keep it).
    pub fn name_arc(&self) -> &Arc<str> {
        &self.0.name
    }

    pub fn opt_level(&self) -> i32 {
        self.0.opt_level
    }

    pub fn required(&self) -> &[Arc<str>] {
        &self.0.required
    }

    pub fn kind(&self) -> PassKind {
        self.0.kind
    }

    pub fn is_sequential(&self) -> bool {
        self.0.kind == PassKind::Sequential
    }

    /// How many handles share this info (tests check what the funnel keeps alive).
    #[cfg(test)]
    pub(crate) fn handle_count(&self) -> usize {
        Arc::strong_count(&self.0)
    }

    /// True when both handles are the same info value.
    pub fn same_as(&self, other: &PassInfo) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

/// TVM's repr of a `PassInfo`, used by `PrintBeforeAll` / `PrintAfterAll` headers:
/// `The meta data of the pass - pass name: X, opt_level: 2, required passes: []`.
impl fmt::Display for PassInfo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "The meta data of the pass - pass name: {}, opt_level: {}, required passes: [",
            self.name(),
            self.opt_level()
        )?;
        if !self.required().is_empty() {
            f.write_str("\n")?;
            for r in self.required() {
                write!(f, "{r}, ")?;
            }
        }
        f.write_str("]")
    }
}

impl fmt::Debug for PassInfo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PassInfo")
            .field("name", &self.name())
            .field("opt_level", &self.opt_level())
            .field("required", &self.required())
            .field("kind", &self.kind())
            .finish()
    }
}

impl PartialEq for PassInfo {
    fn eq(&self, other: &PassInfo) -> bool {
        self.same_as(other)
            || (self.name() == other.name()
                && self.opt_level() == other.opt_level()
                && self.required() == other.required()
                && self.kind() == other.kind())
    }
}

impl Eq for PassInfo {}
