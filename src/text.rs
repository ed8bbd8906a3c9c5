//! The Relay text format: parser (nom), printer, the `#[metadata]` section, and a terminal
//! highlighter kept apart from the plain printer.

pub mod highlight;
pub(crate) mod lexer;
pub mod metadata;
pub mod parser;
pub mod printer;

pub use highlight::{highlight, highlight_html};
pub use parser::{parse_expr, parse_module, parse_module_with_meta, ParseError};
pub use printer::{
    attr_value_to_string, print_expr, print_module, print_module_display, print_module_with,
    PrintOptions,
};
