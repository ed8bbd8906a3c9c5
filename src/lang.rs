//! The command language: syntax tree, parser (nom) and the completeness check front ends use
//! for multi-line input. Executing statements is the session's job.

pub mod ast;
pub mod complete;
pub mod parser;

pub use complete::{is_complete, Completeness, Scanner};
pub use parser::{parse_program, parse_program_range, MAX_NESTING};
