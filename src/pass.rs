//! The pass infrastructure (TVM's `tvm.transform`): passes and their info, contexts, the
//! funnel every pass runs through, Sequential, the registry of passes by name, the config
//! registry, and the [`PassManager`] that owns a session's default context and context stack.
//!
//! Running a pass:
//! ```
//! use passlab::pass::{PassContext, PassManager, PassInfo, module_pass, BufferSink};
//! use passlab::instrument::Trace;
//! use std::sync::Arc;
//!
//! let sink = BufferSink::new();
//! let mut pm = PassManager::new(passlab::passes::registry()).with_sink(Arc::new(sink.clone()));
//! let noop = module_pass(PassInfo::new("NoOp", 0), |m, _cx| Ok(m.clone()));
//! let ctx = PassContext::builder().instrument(Arc::new(Trace::new("t"))).build().unwrap();
//! let m = passlab::ir::Module::new();
//! let out = pm.with_context(&ctx, |pm| pm.run(&noop, &m)).unwrap();
//! assert!(out.same_as(&m));
//! assert!(sink.contents().starts_with("[t] enter_pass_ctx\n[t] should_run NoOp\n"));
//! ```

pub mod config;
pub mod context;
pub mod diagnostics;
pub mod error;
pub mod function_pass;
pub mod funnel;
pub mod info;
pub mod instrument;
pub mod manager;
pub mod module_pass;
pub mod observer;
pub mod parallel;
pub mod registry;
pub mod run_state;
pub mod sequential;
pub mod sink;
pub mod text;

pub use config::{register_config_key, Config, ConfigKey, ConfigType, ConfigValue};
pub use context::{Gate, PassContext, PassContextBuilder};
pub use diagnostics::{PassDiagnostic, Severity};
pub use error::{InstrumentError, InstrumentPoint, PassError, PassErrorKind};
pub use function_pass::{function_pass, leaf_function_pass, FunctionPass};
pub use funnel::PassCx;
pub use info::{PassInfo, PassKind};
pub use instrument::{Instrument, InstrumentCx, InstrumentRef};
pub use manager::{ContextScope, EntryId, PassManager, PassOutcome};
pub use module_pass::{module_pass, ModulePass};
pub use observer::{Flow, PassEvent, PassObserver};
pub use registry::{OptionSpec, PassEntry, PassOptions, Registry};
pub use sequential::{sequential, Sequential};
pub use sink::{emit, BufferSink, Chunk, ChunkKind, NullSink, OutputSink, Segment, StdoutSink};
pub use text::{pipeline_text, Origin};

use crate::ir::Module;
use std::fmt;
use std::sync::Arc;

/// What a pass is: its info and its body. Implement this for a pass type of your own, or use
/// [`module_pass`] / [`function_pass`] with a closure.
pub trait PassImpl: Send + Sync + 'static {
    fn info(&self) -> &PassInfo;

    /// The body: returns the new module, never modifying `m`. Run nested passes with
    /// `cx.run(..)` so they go through the funnel.
    fn transform(&self, m: &Module, cx: &mut PassCx) -> Result<Module, PassError>;

    /// The passes inside a composite pass, for display.
    fn children(&self) -> &[Pass] {
        &[]
    }

    /// The keyword options the pass was built with, for display.
    fn options(&self) -> Vec<(String, ConfigValue)> {
        Vec::new()
    }
}

/// A pass: a shared, immutable value (cloning is a pointer copy).
#[derive(Clone)]
pub struct Pass(Arc<PassNode<dyn PassImpl>>);

/// A pass's info next to its body: the funnel reads the info of every pass it runs (several
/// times), and a field load is cheaper than a virtual call each time.
struct PassNode<T: ?Sized> {
    info: PassInfo,
    /// How the pass was built, for [`pipeline_text`]: set once, by whatever built it.
    origin: std::sync::OnceLock<Origin>,
    imp: T,
}

impl Pass {
    pub fn new(imp: impl PassImpl) -> Pass {
        let info = imp.info().clone();
        Pass(Arc::new(PassNode {
            info,
            origin: std::sync::OnceLock::new(),
            imp,
        }))
    }

    /// Records how the pass was built (the registry and the language's pass constructors do
    /// this when they make a pass); the first record stays. Returns the pass.
    pub fn with_origin(self, origin: Origin) -> Pass {
        let _ = self.0.origin.set(origin);
        self
    }

    /// How the pass was built, when its builder said.
    pub fn origin(&self) -> Option<&Origin> {
        self.0.origin.get()
    }

    pub fn info(&self) -> &PassInfo {
        &self.0.info
    }

    pub fn name(&self) -> &str {
        self.0.info.name()
    }

    pub fn kind(&self) -> PassKind {
        self.0.info.kind()
    }

    pub fn children(&self) -> &[Pass] {
        self.0.imp.children()
    }

    pub fn options(&self) -> Vec<(String, ConfigValue)> {
        self.0.imp.options()
    }

    pub fn imp(&self) -> &dyn PassImpl {
        &self.0.imp
    }

    /// True when both handles are the same pass value.
    pub fn same_as(&self, other: &Pass) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl fmt::Debug for Pass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}({})", self.kind(), self.name())?;
        if !self.children().is_empty() {
            f.debug_list().entries(self.children()).finish()?;
        }
        Ok(())
    }
}
