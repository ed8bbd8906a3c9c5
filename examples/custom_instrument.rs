//! A user-written instrument: it counts the passes that ran and changed the module, reports
//! each change, and vetoes one pass through `should_run`. It sits in a context next to a
//! built-in instrument while a pipeline runs. Run: `cargo run --example custom_instrument`.

use passlab::instrument::{Instrument, InstrumentCx, Trace};
use passlab::ir::{AttrValue, Module};
use passlab::pass::{
    emit, module_pass, ChunkKind, InstrumentError, PassContext, PassError, PassInfo, PassManager,
    Sequential, StdoutSink,
};
use passlab::text::parse_module;
use std::sync::{Arc, Mutex};

/// Counts pass runs and changes; refuses to run the passes named in `veto`.
#[derive(Default)]
struct ChangeCounter {
    veto: Vec<String>,
    state: Mutex<Counts>,
}

#[derive(Default, Debug)]
struct Counts {
    ran: usize,
    changed: usize,
    /// The input module of each running pass, innermost last.
    inputs: Vec<Module>,
}

impl Instrument for ChangeCounter {
    fn name(&self) -> &str {
        "ChangeCounter"
    }

    fn enter_pass_ctx(&self, _cx: &InstrumentCx<'_>) -> Result<(), InstrumentError> {
        *self.state.lock().unwrap() = Counts::default();
        Ok(())
    }

    fn should_run(
        &self,
        _m: &Module,
        info: &PassInfo,
        _cx: &InstrumentCx<'_>,
    ) -> Result<bool, InstrumentError> {
        Ok(!self.veto.iter().any(|v| v == info.name()))
    }

    fn run_before_pass(
        &self,
        m: &Module,
        _info: &PassInfo,
        cx: &InstrumentCx<'_>,
    ) -> Result<(), InstrumentError> {
        let mut st = self.state.lock().unwrap();
        st.inputs.truncate(cx.depth);
        st.inputs.push(m.clone());
        Ok(())
    }

    fn run_after_pass(
        &self,
        m: &Module,
        info: &PassInfo,
        cx: &InstrumentCx<'_>,
    ) -> Result<(), InstrumentError> {
        let mut st = self.state.lock().unwrap();
        let input = st
            .inputs
            .pop()
            .ok_or("run_after_pass without run_before_pass")?;
        st.ran += 1;
        if !input.same_as(m) && !info.is_sequential() {
            st.changed += 1;
            emit(
                cx.sink,
                ChunkKind::Log,
                self.name(),
                &format!("{} changed the module", info.name()),
            );
        }
        Ok(())
    }

    fn exit_pass_ctx(&self, cx: &InstrumentCx<'_>) -> Result<(), InstrumentError> {
        let st = self.state.lock().unwrap();
        let line = format!("{} passes ran, {} changed the module", st.ran, st.changed);
        emit(cx.sink, ChunkKind::Log, self.name(), &line);
        Ok(())
    }
}

/// A module pass that adds a module attribute (a stand-in for a real transformation).
fn tag(name: &'static str) -> passlab::pass::Pass {
    module_pass(PassInfo::new(name, 0), move |m, _cx| {
        let mut out = m.clone();
        out.attrs.push((name.into(), AttrValue::int(1)));
        Ok(out)
    })
}

fn main() -> Result<(), PassError> {
    let counter = Arc::new(ChangeCounter {
        veto: vec!["Vetoed".into()],
        ..Default::default()
    });
    let mut pm = PassManager::new(passlab::passes::registry()).with_sink(Arc::new(StdoutSink));
    let ctx = PassContext::builder()
        .instrument(Arc::new(Trace::new("t")))
        .instrument(counter.clone())
        .build()?;
    let pipeline = Sequential::new(vec![
        tag("First"),
        module_pass(PassInfo::new("Unchanged", 0), |m, _| Ok(m.clone())),
        tag("Vetoed"),
        tag("Last"),
    ])
    .into_pass();
    let m = parse_module(
        "#[version = \"0.0.5\"]\ndef @main(%x: Tensor[(2, 2), float32]) {\n  add(%x, %x)\n}\n",
        "example.relay",
    )
    .expect("the example parses");
    let out = pm.with_context(&ctx, |pm| pm.run(&pipeline, &m))?;
    let tags: Vec<&str> = out.attrs.iter().map(|(k, _)| &**k).collect();
    assert_eq!(tags, ["First", "Last"], "Vetoed was skipped");
    // The instrument is a shared value: its state is readable after the context exits.
    let counts = counter.state.lock().unwrap();
    assert_eq!((counts.ran, counts.changed), (4, 2));
    Ok(())
}
