//! TVM's printing instruments. `PrintBeforeAll` / `PrintAfterAll` write a header naming the
//! pass info and then the module, before / after every pass that runs (a Sequential too: its
//! Before first, its After last). `PassPrintingInstrument` does the same only for the listed
//! pass names. Output goes to the sink as IR chunks.

use super::{Instrument, InstrumentCx};
use crate::ir::Module;
use crate::pass::error::InstrumentError;
use crate::pass::sink::{emit, ChunkKind};
use crate::pass::PassInfo;
use crate::text::print_module_display as print_module;

/// Prints the module before every pass.
#[derive(Clone, Copy, Debug, Default)]
pub struct PrintBeforeAll;

/// Prints the module after every pass.
#[derive(Clone, Copy, Debug, Default)]
pub struct PrintAfterAll;

impl Instrument for PrintBeforeAll {
    fn name(&self) -> &str {
        "PrintBeforeAll"
    }

    fn has_should_run(&self) -> bool {
        false
    }

    fn run_before_pass(
        &self,
        m: &Module,
        info: &PassInfo,
        cx: &InstrumentCx<'_>,
    ) -> Result<(), InstrumentError> {
        let text = format!("Before Running Pass: {info}\n{}", print_module(m));
        emit(cx.sink, ChunkKind::Ir, self.name(), &text);
        Ok(())
    }
}

impl Instrument for PrintAfterAll {
    fn name(&self) -> &str {
        "PrintAfterAll"
    }

    fn has_should_run(&self) -> bool {
        false
    }

    fn run_after_pass(
        &self,
        m: &Module,
        info: &PassInfo,
        cx: &InstrumentCx<'_>,
    ) -> Result<(), InstrumentError> {
        let text = format!("After Running Pass: {info}\n{}", print_module(m));
        emit(cx.sink, ChunkKind::Ir, self.name(), &text);
        Ok(())
    }
}

/// Prints the module before the passes named in `print_before_pass_names` and after those
/// named in `print_after_pass_names`.
#[derive(Clone, Debug, Default)]
pub struct PassPrintingInstrument {
    pub print_before_pass_names: Vec<String>,
    pub print_after_pass_names: Vec<String>,
}

impl PassPrintingInstrument {
    pub fn new<S: AsRef<str>>(before: &[S], after: &[S]) -> PassPrintingInstrument {
        PassPrintingInstrument {
            print_before_pass_names: before.iter().map(|s| s.as_ref().to_string()).collect(),
            print_after_pass_names: after.iter().map(|s| s.as_ref().to_string()).collect(),
        }
    }
}

impl Instrument for PassPrintingInstrument {
    fn name(&self) -> &str {
        "PassPrintingInstrument"
    }

    fn has_should_run(&self) -> bool {
        false
    }

    fn run_before_pass(
        &self,
        m: &Module,
        info: &PassInfo,
        cx: &InstrumentCx<'_>,
    ) -> Result<(), InstrumentError> {
        if self
            .print_before_pass_names
            .iter()
            .any(|n| n == info.name())
        {
            let text = format!("Print IR before: {}\n{}\n", info.name(), print_module(m));
            emit(cx.sink, ChunkKind::Ir, self.name(), &text);
        }
        Ok(())
    }

    fn run_after_pass(
        &self,
        m: &Module,
        info: &PassInfo,
        cx: &InstrumentCx<'_>,
    ) -> Result<(), InstrumentError> {
        if self.print_after_pass_names.iter().any(|n| n == info.name()) {
            let text = format!("Print IR after: {}\n{}\n", info.name(), print_module(m));
            emit(cx.sink, ChunkKind::Ir, self.name(), &text);
        }
        Ok(())
    }

    fn describe(&self) -> String {
        format!(
            "PassPrintingInstrument(print_before_pass_names={:?}, print_after_pass_names={:?})",
            self.print_before_pass_names, self.print_after_pass_names
        )
    }
}
