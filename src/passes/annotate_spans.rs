//! AnnotateSpans (TVM `src/relay/parser/parser.cc`): prints the module as Relay text, with its
//! `#[metadata]` section, and parses that text back under the source name `GeneratedSource`,
//! so every node gets a span into the text and diagnostics about a module built in code (or
//! rewritten by passes) point at a line and column. The text becomes the module's source.
//!
//! The result is the parsed module: checked types are dropped (the parser reads the printed
//! type comments as comments, as TVM's does) while annotations stay, so run InferType after
//! it as after TVM's. A module whose text would pass the printer's cap
//! (`text::MAX_PRINTED_BYTES`) is an error, not a truncated source.

use crate::ir::Module;
use crate::pass::PassError;
use crate::text::{parse_module, try_print_module_with, PrintOptions};

/// The source name TVM gives the printed text.
pub const SOURCE_NAME: &str = "GeneratedSource";

/// Reparses `m` from its printed text.
pub fn annotate_spans(m: &Module) -> Result<Module, PassError> {
    let opts = PrintOptions {
        types: true,
        header: true,
        metadata: true,
    };
    let text = try_print_module_with(m, opts).map_err(|e| PassError::failed(e.to_string()))?;
    parse_module(&text, SOURCE_NAME).map_err(|e| {
        PassError::failed(format!(
            "the printed module does not parse back (a printer bug): {}",
            e.render(SOURCE_NAME, &text, false)
        ))
    })
}
