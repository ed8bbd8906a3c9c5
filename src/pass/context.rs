//! `PassContext`: the settings a pass runs under — opt_level, required and disabled pass
//! names, instruments and a validated config — and the instrument life-cycle rules of
//! SEMANTICS.md §4-5 (enter, exit, override, and what a failure in each leaves behind).
//!
//! A context is a shared value: clones are the same context (entering one enters all), and
//! its instrument list is the only mutable part (`override_instruments`, or cleared by a
//! failure). Contexts never merge: the pass manager uses only the innermost one.

use super::config::{Config, ConfigValue};
use super::error::{InstrumentPoint, PassError};
use super::info::PassInfo;
use super::instrument::{self, InstrumentCx, InstrumentRef};
use super::sink::{lock, OutputSink};
use crate::ir::Module;
use crate::target::Target;
use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// A pass context. `PassContext::default()` is TVM's: opt_level 2 and nothing else.
///
/// The second field is the target a run sees (TVM's `Target.current()`, a scope of its own
/// that the pass manager attaches to the context of each run); it is not part of the
/// context's identity.
#[derive(Clone)]
pub struct PassContext(Arc<Inner>, Option<Target>);

struct Inner {
    opt_level: i32,
    required_pass: Vec<Arc<str>>,
    disabled_pass: Vec<Arc<str>>,
    config: Config,
    immutable_module: bool,
    cached_required: bool,
    instruments: Mutex<Arc<[InstrumentRef]>>,
    /// Mirrors `!instruments.is_empty()` so the funnel can skip the lock when there are none.
    has_instruments: AtomicBool,
    /// Bumped whenever the instrument list changes, so a run can keep its snapshot until then.
    version: AtomicU64,
    /// `passlab.required = "cached"`: per pass name, the module its last run produced.
    ran_on: Mutex<Vec<(Arc<str>, Module)>>,
}

/// Why the Sequential gate lets a pass through or not (SEMANTICS.md §3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Gate {
    /// The name is in `disabled_pass` (this beats `required_pass`).
    Disabled,
    /// The name is in `required_pass`.
    Required,
    /// Decided by `context opt_level >= pass opt_level`.
    OptLevel {
        enabled: bool,
        context: i32,
        pass: i32,
    },
}

impl Gate {
    pub fn enabled(self) -> bool {
        match self {
            Gate::Disabled => false,
            Gate::Required => true,
            Gate::OptLevel { enabled, .. } => enabled,
        }
    }
}

impl fmt::Display for Gate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Gate::Disabled => f.write_str("disabled by the context"),
            Gate::Required => f.write_str("required by the context"),
            Gate::OptLevel {
                enabled: true,
                context,
                pass,
            } => write!(f, "opt_level {pass} <= context opt_level {context}"),
            Gate::OptLevel {
                enabled: false,
                context,
                pass,
            } => write!(f, "opt_level {pass} > context opt_level {context}"),
        }
    }
}

/// Builds a [`PassContext`]; `build` validates the config.
#[derive(Clone)]
pub struct PassContextBuilder {
    opt_level: i32,
    required_pass: Vec<Arc<str>>,
    disabled_pass: Vec<Arc<str>>,
    instruments: Vec<InstrumentRef>,
    config: Vec<(String, ConfigValue)>,
}

impl PassContextBuilder {
    pub fn opt_level(mut self, level: i32) -> Self {
        self.opt_level = level;
        self
    }

    pub fn required_pass<S: AsRef<str>>(mut self, names: impl IntoIterator<Item = S>) -> Self {
        self.required_pass = names.into_iter().map(|s| Arc::from(s.as_ref())).collect();
        self
    }

    pub fn disabled_pass<S: AsRef<str>>(mut self, names: impl IntoIterator<Item = S>) -> Self {
        self.disabled_pass = names.into_iter().map(|s| Arc::from(s.as_ref())).collect();
        self
    }

    pub fn instruments(mut self, list: impl IntoIterator<Item = InstrumentRef>) -> Self {
        self.instruments = list.into_iter().collect();
        self
    }

    pub fn instrument(mut self, inst: InstrumentRef) -> Self {
        self.instruments.push(inst);
        self
    }

    pub fn config(mut self, key: &str, value: impl Into<ConfigValue>) -> Self {
        self.config.push((key.to_string(), value.into()));
        self
    }

    /// Validates the config against the registered keys and makes the context.
    pub fn build(self) -> Result<PassContext, PassError> {
        let config = Config::new(self.config)?;
        let immutable_module = config.get("testing.immutable_module") == Some(&true.into());
        let cached_required = config.get("passlab.required") == Some(&"cached".into());
        let has = !self.instruments.is_empty();
        Ok(PassContext(
            Arc::new(Inner {
                opt_level: self.opt_level,
                required_pass: self.required_pass,
                disabled_pass: self.disabled_pass,
                config,
                immutable_module,
                cached_required,
                instruments: Mutex::new(self.instruments.into()),
                has_instruments: AtomicBool::new(has),
                version: AtomicU64::new(0),
                ran_on: Mutex::new(Vec::new()),
            }),
            None,
        ))
    }
}

impl Default for PassContext {
    fn default() -> Self {
        PassContext::builder()
            .build()
            .expect("an empty config is valid")
    }
}

impl PassContext {
    pub fn builder() -> PassContextBuilder {
        PassContextBuilder {
            opt_level: 2,
            required_pass: Vec::new(),
            disabled_pass: Vec::new(),
            instruments: Vec::new(),
            config: Vec::new(),
        }
    }

    pub fn opt_level(&self) -> i32 {
        self.0.opt_level
    }

    pub fn required_pass(&self) -> &[Arc<str>] {
        &self.0.required_pass
    }

    pub fn disabled_pass(&self) -> &[Arc<str>] {
        &self.0.disabled_pass
    }

    pub fn config(&self) -> &Config {
        &self.0.config
    }

    /// The current instrument list (a snapshot; cheap).
    pub fn instruments(&self) -> Arc<[InstrumentRef]> {
        lock(&self.0.instruments).clone()
    }

    pub fn has_instruments(&self) -> bool {
        self.0.has_instruments.load(Ordering::Acquire)
    }

    /// Changes whenever the instrument list changes.
    pub(crate) fn instruments_version(&self) -> u64 {
        self.0.version.load(Ordering::Acquire)
    }

    /// The instrument list and its version, read together.
    pub(crate) fn instruments_versioned(&self) -> (u64, Arc<[InstrumentRef]>) {
        let list = lock(&self.0.instruments);
        (self.0.version.load(Ordering::Acquire), list.clone())
    }

    /// The target passes run for (TVM's `Target.current()`), if a run has one.
    pub fn target(&self) -> Option<&Target> {
        self.1.as_ref()
    }

    /// The same context (instruments, settings, identity), seen with `target`.
    pub fn with_target(&self, target: Option<Target>) -> PassContext {
        PassContext(self.0.clone(), target)
    }

    /// True when both handles are the same context.
    pub fn same_as(&self, other: &PassContext) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }

    /// True when `name` is in `required_pass` (such a pass skips every `should_run`).
    pub fn is_required(&self, name: &str) -> bool {
        self.0.required_pass.iter().any(|r| &**r == name)
    }

    pub fn is_disabled(&self, name: &str) -> bool {
        self.0.disabled_pass.iter().any(|r| &**r == name)
    }

    /// The Sequential gate for a child: disabled beats required beats opt_level.
    pub fn gate(&self, info: &PassInfo) -> Gate {
        if self.is_disabled(info.name()) {
            Gate::Disabled
        } else if self.is_required(info.name()) {
            Gate::Required
        } else {
            Gate::OptLevel {
                enabled: self.0.opt_level >= info.opt_level(),
                context: self.0.opt_level,
                pass: info.opt_level(),
            }
        }
    }

    /// True when the gate is `opt_level >=` alone for every pass (no `required_pass`, no
    /// `disabled_pass`): Sequential then gates its children without reading their names.
    pub fn gates_by_opt_level_only(&self) -> bool {
        self.0.required_pass.is_empty() && self.0.disabled_pass.is_empty()
    }

    /// TVM's `PassEnabled`.
    pub fn pass_enabled(&self, info: &PassInfo) -> bool {
        self.gate(info).enabled()
    }

    /// `testing.immutable_module` is on.
    pub fn checks_immutable_module(&self) -> bool {
        self.0.immutable_module
    }

    /// `passlab.required` is `"cached"`.
    pub fn caches_required(&self) -> bool {
        self.0.cached_required
    }

    /// With `passlab.required = "cached"`: did the pass already run and produce `m` itself?
    pub(crate) fn already_ran_on(&self, name: &str, m: &Module) -> bool {
        lock(&self.0.ran_on)
            .iter()
            .any(|(n, out)| &**n == name && out.same_as(m))
    }

    /// Remembers that the pass's last run produced `out`.
    pub(crate) fn record_run(&self, name: &Arc<str>, out: &Module) {
        let mut ran = lock(&self.0.ran_on);
        match ran.iter_mut().find(|(n, _)| n == name) {
            Some(slot) => slot.1 = out.clone(),
            None => ran.push((name.clone(), out.clone())),
        }
    }

    fn set_instruments(&self, list: Arc<[InstrumentRef]>) {
        let mut slot = lock(&self.0.instruments);
        self.0
            .has_instruments
            .store(!list.is_empty(), Ordering::Release);
        self.0.version.fetch_add(1, Ordering::AcqRel);
        *slot = list;
    }

    /// Calls `enter_pass_ctx` on every instrument in order. When instrument k fails,
    /// instruments 0..k-1 are exited in reverse order, the list is cleared for good and the
    /// error is returned.
    pub fn enter_instruments(&self, sink: &dyn OutputSink) -> Result<(), PassError> {
        let list = self.instruments();
        let cx = InstrumentCx { sink, depth: 0 };
        for (k, inst) in list.iter().enumerate() {
            let entered = instrument::call(&**inst, InstrumentPoint::EnterPassCtx, None, || {
                inst.enter_pass_ctx(&cx)
            });
            if let Err(err) = entered {
                self.set_instruments(Arc::from([]));
                for done in list[..k].iter().rev() {
                    instrument::call(&**done, InstrumentPoint::ExitPassCtx, None, || {
                        done.exit_pass_ctx(&cx)
                    })
                    .map_err(|exit_err| PassError::both(exit_err, err.clone()))?;
                }
                return Err(err);
            }
        }
        Ok(())
    }

    /// Calls `exit_pass_ctx` on every instrument in order. When one fails, the later ones
    /// are not exited, the list is cleared and the error is returned.
    pub fn exit_instruments(&self, sink: &dyn OutputSink) -> Result<(), PassError> {
        let list = self.instruments();
        let cx = InstrumentCx { sink, depth: 0 };
        for inst in list.iter() {
            let exited = instrument::call(&**inst, InstrumentPoint::ExitPassCtx, None, || {
                inst.exit_pass_ctx(&cx)
            });
            if let Err(err) = exited {
                self.set_instruments(Arc::from([]));
                return Err(err);
            }
        }
        Ok(())
    }

    /// Replaces the instruments, entered or not: the old ones are exited (a failure clears the
    /// list and installs nothing), the new ones installed and entered (a failure follows the
    /// enter rule). An empty list clears.
    pub fn override_instruments(
        &self,
        list: Vec<InstrumentRef>,
        sink: &dyn OutputSink,
    ) -> Result<(), PassError> {
        self.exit_instruments(sink)?;
        self.set_instruments(list.into());
        self.enter_instruments(sink)
    }
}

impl fmt::Debug for PassContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<String> = self.instruments().iter().map(|i| i.describe()).collect();
        f.debug_struct("PassContext")
            .field("opt_level", &self.opt_level())
            .field("required_pass", &self.required_pass())
            .field("disabled_pass", &self.disabled_pass())
            .field("instruments", &names)
            .field("config", &self.config())
            .finish()
    }
}
