//! The `evcxr` feature: an inherent `evcxr_display` method on every value with a
//! [`NotebookDisplay`], which evcxr calls for a cell's last expression. This file and the
//! front ends are the only places that write to standard output.

use super::{write_evcxr, ModuleDiff, NotebookDisplay, PassTree};
use crate::instrument::{Instrument, PassTimingInstrument, Stats};
use crate::ir::{Expr, Module};
use crate::pass::{Pass, PassContext};
use crate::present::render::Rendering;
use crate::session::Outputs;
use std::io::{self, Write};

/// Prints `value`'s evcxr blocks on standard output, holding its lock so no other Rust code
/// interleaves output with them.
pub fn print_evcxr<T: NotebookDisplay + ?Sized>(value: &T) {
    let stdout = io::stdout();
    let mut out = stdout.lock();
    if let Err(e) = write_evcxr(&mut out, value).and_then(|()| out.flush()) {
        eprintln!("passlab: cannot write the display to standard output: {e}");
    }
}

macro_rules! evcxr_display {
    ($($ty:ty),* $(,)?) => {$(
        impl $ty {
            /// Shows the value in an evcxr notebook cell (plain text and HTML blocks on
            /// standard output; see `passlab::notebook`).
            pub fn evcxr_display(&self) {
                print_evcxr(self)
            }
        }
    )*};
}

evcxr_display!(
    Module,
    Expr,
    Pass,
    PassTree,
    PassContext,
    PassTimingInstrument,
    Stats,
    dyn Instrument,
    ModuleDiff,
    Outputs,
    Rendering,
);
