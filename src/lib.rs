//! passlab: Apache TVM's pass infrastructure rebuilt in Rust, with a Relay-style IR, its text
//! format, the standard passes, and the command language's engine and front ends.
//!
//! Layers, bottom up (a module uses only those before it; `tests/layers.rs` checks it):
//! [`limits`] and [`suggest`] (leaves), [`diagnostic`] (spans, parse errors, rendering them),
//! [`files`] (bounded reads, atomic writes), [`ir`] (types, expressions, modules, ops,
//! structural equality), [`text`] (parse and print the Relay text format), [`eval`] (the
//! reference evaluator), [`pass`] (the pass infrastructure: contexts, the funnel, Sequential,
//! the registry, the instrument protocol), [`passes`] (the passes and their table),
//! [`instrument`] (the standard instruments), [`onnx`] (the importer), [`lang`] (the command
//! language's syntax), [`present`] (rendering for terminals and notebooks), [`session`] (the
//! command language's engine) and [`notebook`] (rich displays in the evcxr Rust notebook
//! kernel). The terminal REPL, the benchmark commands and the global allocator belong to the
//! `passlab` binary (`src/main.rs`, `src/cli/`, the `passlab-alloc` crate), not to the
//! library.

pub mod diagnostic;
pub mod eval;
pub mod files;
pub mod instrument;
pub mod ir;
pub mod lang;
pub mod limits;
pub mod notebook;
pub mod onnx;
pub mod pass;
pub mod passes;
pub mod present;
pub mod session;
pub mod suggest;
pub mod target;
/// Generated models of any size (the benchmarks' inputs and the tests' shapes); behind the
/// `testgen` feature, which the binary's `cli` feature turns on.
#[cfg(any(test, feature = "testgen"))]
pub mod testgen;
pub mod text;
