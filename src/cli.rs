//! The `passlab` binary's own parts, outside the library: the terminal REPL (`repl`, on
//! rustyline) and the measurements behind `passlab bench` and `passlab host` (`bench`). The
//! library is the engine they drive, the same one the Jupyter kernel and evcxr notebooks use;
//! nothing here is reachable from it.

pub mod bench;
pub mod opt;
pub mod repl;
