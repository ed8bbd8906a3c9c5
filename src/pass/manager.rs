//! `PassManager`: one session's pass state — the default context, the stack of entered
//! contexts, the pass registry, the output sink, the cancellation flag and the observer.
//! It replaces TVM's thread-local store with an explicit value, so one process can hold many
//! independent sessions (tests create many).
//!
//! Enter: `enter_pass_ctx` on every instrument, then push. Exit: the context must be the top
//! of the stack (else an error, stack unchanged), pop, then `exit_pass_ctx` on every
//! instrument. [`PassManager::with_context`] and [`ContextScope`] exit even when the block
//! fails; when both fail, the exit error comes first.
//!
//! Each entry on the stack has an [`EntryId`], so a front end whose scopes can interleave
//! (a block paused in a debugger while statements enter other contexts) exits exactly the
//! entry it made, wherever it is ([`PassManager::exit_entry`]); the same context entered
//! twice is two entries.
//!
//! A target (TVM's `with tvm.target.Target(...)`) is entered on the same stack, so scopes
//! nest and exit in one order; entering or exiting one runs no instrument. The innermost
//! entered target is the one every run sees ([`PassManager::cx`] attaches it to the context).

use super::error::PassErrorKind;
use super::funnel::PassCx;
use super::instrument::InstrumentRef;
use super::observer::PassObserver;
use super::registry::{PassOptions, Registry};
use super::sink::{NullSink, OutputSink};
use super::{Pass, PassContext, PassError};
use crate::ir::Module;
use crate::target::Target;
use std::ops::{Deref, DerefMut};
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// One entry of a context on the stack: entering returns it, and it names that entry
/// (not the context, which may be entered more than once) until it is exited.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct EntryId(u64);

/// One scope on the stack: a pass context, or a target.
#[derive(Clone)]
enum Scope {
    Context(PassContext),
    Target(Target),
}

/// A session's pass state. Output is discarded until a sink is installed.
pub struct PassManager {
    default: PassContext,
    stack: Vec<Scope>,
    /// The entry of each context in `stack`, in the same order.
    entries: Vec<EntryId>,
    next_entry: u64,
    registry: Arc<Registry>,
    sink: Arc<dyn OutputSink>,
    interrupt: Option<Arc<AtomicBool>>,
    observer: Option<Arc<dyn PassObserver>>,
}

impl PassManager {
    /// A fresh session: default context (opt_level 2), empty stack, the passes of `registry`
    /// (`crate::passes::registry()` for the built-in ones; the pass layer knows no pass by name).
    pub fn new(registry: Registry) -> PassManager {
        PassManager {
            default: PassContext::default(),
            stack: Vec::new(),
            entries: Vec::new(),
            next_entry: 0,
            registry: Arc::new(registry),
            sink: Arc::new(NullSink),
            interrupt: None,
            observer: None,
        }
    }

    pub fn with_sink(mut self, sink: Arc<dyn OutputSink>) -> PassManager {
        self.sink = sink;
        self
    }

    pub fn set_sink(&mut self, sink: Arc<dyn OutputSink>) {
        self.sink = sink;
    }

    pub fn sink(&self) -> &Arc<dyn OutputSink> {
        &self.sink
    }

    /// A flag checked before every pass (Ctrl-C, a kernel interrupt). The caller resets it.
    pub fn set_interrupt(&mut self, flag: Option<Arc<AtomicBool>>) {
        self.interrupt = flag;
    }

    /// Called before and after every pass (a step debugger).
    pub fn set_observer(&mut self, observer: Option<Arc<dyn PassObserver>>) {
        self.observer = observer;
    }

    /// The innermost entered context, or the default one.
    pub fn current(&self) -> &PassContext {
        self.stack
            .iter()
            .rev()
            .find_map(|s| match s {
                Scope::Context(c) => Some(c),
                Scope::Target(_) => None,
            })
            .unwrap_or(&self.default)
    }

    /// The innermost entered target (TVM's `Target.current()`), if any.
    pub fn target(&self) -> Option<&Target> {
        self.stack.iter().rev().find_map(|s| match s {
            Scope::Target(t) => Some(t),
            Scope::Context(_) => None,
        })
    }

    /// The current context as a run sees it: with the current target.
    pub fn run_context(&self) -> PassContext {
        self.current().with_target(self.target().cloned())
    }

    pub fn default_context(&self) -> &PassContext {
        &self.default
    }

    /// The entered contexts, outermost first (entered targets are not listed).
    pub fn stack(&self) -> Vec<PassContext> {
        self.stack
            .iter()
            .filter_map(|s| match s {
                Scope::Context(c) => Some(c.clone()),
                Scope::Target(_) => None,
            })
            .collect()
    }

    /// The entries of every entered scope, contexts and targets, outermost first.
    pub fn entries(&self) -> &[EntryId] {
        &self.entries
    }

    /// Whether entry `id` is an entered target.
    pub fn is_target_entry(&self, id: EntryId) -> bool {
        self.entries
            .iter()
            .position(|e| *e == id)
            .is_some_and(|k| matches!(self.stack[k], Scope::Target(_)))
    }

    /// Enters `target` (TVM's `with tvm.target.Target(...)`): no instrument runs.
    pub fn enter_target(&mut self, target: &Target) -> EntryId {
        let id = EntryId(self.next_entry);
        self.next_entry += 1;
        self.stack.push(Scope::Target(target.clone()));
        self.entries.push(id);
        id
    }

    /// Enters `ctx`: its instruments' `enter_pass_ctx`, then push. On failure nothing is
    /// pushed (and the context's instruments are cleared, see §5).
    pub fn enter(&mut self, ctx: &PassContext) -> Result<EntryId, PassError> {
        ctx.enter_instruments(&*self.sink)?;
        let id = EntryId(self.next_entry);
        self.next_entry += 1;
        self.stack.push(Scope::Context(ctx.clone()));
        self.entries.push(id);
        Ok(id)
    }

    /// Exits `ctx`, which must be the innermost entered context.
    pub fn exit(&mut self, ctx: &PassContext) -> Result<(), PassError> {
        match self.stack.last() {
            Some(Scope::Context(top)) if top.same_as(ctx) => {}
            Some(_) => {
                return Err(PassErrorKind::Context(
                    "cannot exit a PassContext that is not the innermost entered one".into(),
                )
                .into())
            }
            None => return Err(no_context()),
        }
        self.stack.pop();
        self.entries.pop();
        ctx.exit_instruments(&*self.sink)
    }

    /// Exits the innermost entered context (the language's `exit`), returning it. An
    /// entered target above it is an error (exit the target first).
    pub fn exit_innermost(&mut self) -> Result<PassContext, PassError> {
        match self.stack.last().cloned() {
            None => Err(no_context()),
            Some(Scope::Target(t)) => Err(PassErrorKind::Context(format!(
                "the innermost scope is the target {t}, not a PassContext"
            ))
            .into()),
            Some(Scope::Context(top)) => {
                self.exit(&top)?;
                Ok(top)
            }
        }
    }

    /// Exits the entry `id` wherever it is on the stack: removed, then its context's
    /// `exit_pass_ctx` (the entries above it stay entered, in order). For front ends whose
    /// scopes interleave; [`exit`](Self::exit) keeps TVM's innermost-only rule.
    /// An entered target is removed and `None` returned.
    pub fn exit_entry(&mut self, id: EntryId) -> Result<Option<PassContext>, PassError> {
        let Some(k) = self.entries.iter().rposition(|e| *e == id) else {
            return Err(
                PassErrorKind::Context("that PassContext entry was already exited".into()).into(),
            );
        };
        self.entries.remove(k);
        match self.stack.remove(k) {
            Scope::Context(ctx) => {
                ctx.exit_instruments(&*self.sink)?;
                Ok(Some(ctx))
            }
            Scope::Target(_) => Ok(None),
        }
    }

    /// Enters `ctx` and returns a guard that exits it when dropped (ignoring an exit error)
    /// or when [`ContextScope::exit`] is called (reporting it).
    pub fn scope(&mut self, ctx: &PassContext) -> Result<ContextScope<'_>, PassError> {
        self.enter(ctx)?;
        Ok(ContextScope {
            pm: self,
            ctx: ctx.clone(),
            exited: false,
        })
    }

    /// Runs `block` inside `ctx` (Python's `with`): enter, the block, exit — also when the
    /// block fails or panics. When both the block and the exit fail, the error is
    /// [`PassErrorKind::Both`] with the exit error first.
    pub fn with_context<T>(
        &mut self,
        ctx: &PassContext,
        block: impl FnOnce(&mut PassManager) -> Result<T, PassError>,
    ) -> Result<T, PassError> {
        self.enter(ctx)?;
        let result = catch_unwind(AssertUnwindSafe(|| block(self)));
        let exited = self.exit(ctx);
        match (result, exited) {
            (Err(panic), _) => resume_unwind(panic),
            (Ok(r), Ok(())) => r,
            (Ok(Ok(_)), Err(x)) => Err(x),
            (Ok(Err(e)), Err(x)) => Err(PassError::both(x, e)),
        }
    }

    /// `override_instruments` on the current context.
    pub fn override_instruments(&self, list: Vec<InstrumentRef>) -> Result<(), PassError> {
        self.current().override_instruments(list, &*self.sink)
    }

    /// `override_instruments` on any context, entered or not (including the default one).
    pub fn override_instruments_of(
        &self,
        ctx: &PassContext,
        list: Vec<InstrumentRef>,
    ) -> Result<(), PassError> {
        ctx.override_instruments(list, &*self.sink)
    }

    /// A run under the current context, owning everything it needs (it can be moved to
    /// another thread).
    pub fn cx(&self) -> PassCx {
        PassCx::new(self.run_context(), self.registry.clone(), self.sink.clone())
            .with_interrupt(self.interrupt.clone())
            .with_observer(self.observer.clone())
    }

    /// Applies `pass` to `m` under the current context (a direct call: never gated).
    pub fn run(&self, pass: &Pass, m: &Module) -> Result<Module, PassError> {
        self.cx().run(pass, m)
    }

    /// [`run`](Self::run), also telling whether the pass changed the module (returned a
    /// different module value; see [`Module::same_as`]).
    pub fn apply(&self, pass: &Pass, m: &Module) -> Result<PassOutcome, PassError> {
        let module = self.run(pass, m)?;
        let changed = !module.same_as(m);
        Ok(PassOutcome { module, changed })
    }

    pub fn registry(&self) -> &Registry {
        &self.registry
    }

    /// The registry, for adding entries (runs already started keep the one they had).
    pub fn registry_mut(&mut self) -> &mut Registry {
        Arc::make_mut(&mut self.registry)
    }

    /// Registers a user pass under its name (found by `required` lists and by name).
    pub fn register(&mut self, pass: Pass, summary: &str) -> bool {
        self.registry_mut().register(pass, summary)
    }

    /// Builds a registered pass by name with its default options (`pm.pass("FoldConstant")?`,
    /// as `FoldConstant()` in the language).
    pub fn pass(&self, name: &str) -> Result<Pass, PassError> {
        self.create(name, &PassOptions::new())
    }

    /// Builds a registered pass by name with keyword options.
    pub fn create(&self, name: &str, options: &PassOptions) -> Result<Pass, PassError> {
        self.registry.create(name, options)
    }
}

/// A pass's result: the new module, and whether it differs from the input module value.
#[derive(Clone, Debug)]
pub struct PassOutcome {
    pub module: Module,
    pub changed: bool,
}

fn no_context() -> PassError {
    PassErrorKind::Context(
        "no PassContext is entered (the default context cannot be exited)".into(),
    )
    .into()
}

/// An entered context that is exited when the guard goes away.
pub struct ContextScope<'a> {
    pm: &'a mut PassManager,
    ctx: PassContext,
    exited: bool,
}

impl ContextScope<'_> {
    pub fn context(&self) -> &PassContext {
        &self.ctx
    }

    /// Exits the context, reporting a failure.
    pub fn exit(mut self) -> Result<(), PassError> {
        self.exited = true;
        self.pm.exit(&self.ctx)
    }
}

impl Deref for ContextScope<'_> {
    type Target = PassManager;
    fn deref(&self) -> &PassManager {
        self.pm
    }
}

impl DerefMut for ContextScope<'_> {
    fn deref_mut(&mut self) -> &mut PassManager {
        self.pm
    }
}

impl Drop for ContextScope<'_> {
    fn drop(&mut self) {
        if !self.exited {
            // Nowhere to report an error from a destructor; `exit()` reports it.
            let _ = self.pm.exit(&self.ctx);
        }
    }
}
