//! The command language: its lossless lexer, syntax tree, parser (nom), the shape of statement
//! commands, and the completeness check front ends use for multi-line input. Executing
//! statements is the session's job; the session supplies the command table.

pub mod ast;
pub mod commands;
pub mod complete;
pub mod lexer;
pub mod parser;

pub use commands::{Command, Form};
pub use complete::{is_complete, Completeness, Scanner};
pub use lexer::{matching_bracket, tokens, Token, TokenKind};
pub use parser::{parse_program, parse_program_range, MAX_NESTING};
