//! Shared helpers for the pass-infrastructure tests: a pass manager writing to a buffer, marker
//! passes that log their body into the same buffer as `Trace` instruments, so a test compares
//! one whole event log.

use passlab::instrument::{InstrumentRef, Trace};
use passlab::ir::{AttrValue, Module};
use passlab::pass::{
    module_pass, BufferSink, ChunkKind, Pass, PassContext, PassContextBuilder, PassInfo, PassKind,
    PassManager, Sequential,
};
use std::sync::Arc;

/// A pass manager whose output (instrument logs, pass bodies) lands in one buffer.
pub struct Lab {
    pub pm: PassManager,
    pub sink: BufferSink,
}

impl Lab {
    pub fn new() -> Lab {
        let sink = BufferSink::new();
        let pm = PassManager::new(passlab::passes::registry()).with_sink(Arc::new(sink.clone()));
        Lab { pm, sink }
    }

    /// The log so far, emptying it.
    pub fn log(&self) -> String {
        self.sink.take()
    }

    /// Writes a line of the test's own into the log.
    pub fn note(&self, text: &str) {
        passlab::pass::sink::emit(&self.sink, ChunkKind::Log, "test", text);
    }

    /// Registers marker passes under these names (opt_level 0, nothing required).
    pub fn register_markers(&mut self, names: &[&str]) {
        for n in names {
            self.pm.register(marker(n, 0, &[]), "test marker");
        }
    }
}

/// A module pass that logs `[body] <name>` and returns its input.
pub fn marker(name: &str, opt_level: i32, required: &[&str]) -> Pass {
    let info = PassInfo::with_kind(name, opt_level, required, PassKind::Module);
    let label = format!("[body] {name}");
    module_pass(info, move |m, cx| {
        cx.emit(ChunkKind::Log, &label);
        Ok(m.clone())
    })
}

/// A module pass that logs its body and returns a new module with the attribute `name=1`.
pub fn tagger(name: &str, opt_level: i32, required: &[&str]) -> Pass {
    let info = PassInfo::with_kind(name, opt_level, required, PassKind::Module);
    let label = format!("[body] {name}");
    let key: Arc<str> = name.into();
    module_pass(info, move |m, cx| {
        cx.emit(ChunkKind::Log, &label);
        let mut out = m.clone();
        out.attrs.push((key.clone(), AttrValue::int(1)));
        Ok(out)
    })
}

/// A Sequential with a name and opt_level.
pub fn seq(name: &str, opt_level: i32, passes: Vec<Pass>) -> Pass {
    Sequential::with_info(PassInfo::new(name, opt_level), passes).into_pass()
}

pub fn trace(name: &str) -> InstrumentRef {
    Arc::new(Trace::new(name))
}

pub fn trace_failing(name: &str, at: &str) -> InstrumentRef {
    Arc::new(Trace::new(name).fail_at(at).unwrap())
}

pub fn ctx() -> PassContextBuilder {
    PassContext::builder()
}

pub fn ctx_with(instruments: Vec<InstrumentRef>) -> PassContext {
    PassContext::builder()
        .instruments(instruments)
        .build()
        .unwrap()
}

pub const MAIN: &str = r#"#[version = "0.0.5"]
def @main(%x: Tensor[(2, 2), float32]) {
  add(%x, %x)
}
"#;

/// A small module.
pub fn module() -> Module {
    passlab::text::parse_module(MAIN, "main.relay").unwrap()
}

/// The names of the module's attributes, in order.
pub fn tags(m: &Module) -> Vec<String> {
    m.attrs.iter().map(|(k, _)| k.to_string()).collect()
}
