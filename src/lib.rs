//! passlab: Apache TVM's pass infrastructure rebuilt in Rust, with a Relay-style IR, its text
//! format, and (as they land) the standard passes and an interactive front end.
//!
//! Layers, bottom up: [`ir`] (types, expressions, modules, ops, structural equality),
//! [`text`] (parse and print the Relay text format), [`diagnostic`] (rendering errors),
//! [`passes`] (the standard passes, starting with type inference).

pub mod diagnostic;
pub mod ir;
pub mod lang;
pub mod passes;
pub mod suggest;
pub mod testgen;
pub mod text;
