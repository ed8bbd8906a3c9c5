//! `PrintIR(header="")`: a module pass (opt_level 0) that writes `PrintIR(<header>):` and the
//! module to the output sink and returns the module unchanged (the very same value). It does
//! not print: the sink decides where the text goes.

use crate::pass::registry::PassOptions;
use crate::pass::{module_pass, ChunkKind, Pass, PassError};
use crate::text::print_module_display as print_module;

/// The PrintIR pass with a header.
pub fn print_ir(header: &str) -> Pass {
    let header = header.to_string();
    module_pass(super::builtin_info("PrintIR"), move |m, cx| {
        cx.emit(
            ChunkKind::Ir,
            &format!("PrintIR({header}):\n{}", print_module(m)),
        );
        Ok(m.clone())
    })
}

/// The registry's constructor.
pub fn create(options: &PassOptions) -> Result<Pass, PassError> {
    Ok(print_ir(options.get_str("header").unwrap_or("")))
}
