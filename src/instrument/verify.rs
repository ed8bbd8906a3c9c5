//! `Verify()`: after every pass, checks that the output module is well-formed and well-typed,
//! and fails naming the pass that broke it. Catching the breaking pass at once is the point:
//! later passes would otherwise fail far from the cause.

use super::{Instrument, InstrumentCx};
use crate::ir::well_formed::check_module;
use crate::ir::Module;
use crate::pass::error::InstrumentError;
use crate::pass::PassInfo;
use crate::passes::infer_type::check_types;

/// Checks the IR after every pass.
#[derive(Clone, Copy, Debug, Default)]
pub struct Verify;

impl Verify {
    pub fn new() -> Verify {
        Verify
    }
}

/// The checks Verify runs: well-formedness, then types.
pub fn verify_module(m: &Module) -> Result<(), String> {
    check_module(m).map_err(|e| format!("ill-formed IR: {e}"))?;
    check_types(m).map_err(|e| format!("type error: {e}"))
}

impl Instrument for Verify {
    fn name(&self) -> &str {
        "Verify"
    }

    fn has_should_run(&self) -> bool {
        false
    }

    fn run_after_pass(
        &self,
        m: &Module,
        info: &PassInfo,
        _cx: &InstrumentCx<'_>,
    ) -> Result<(), InstrumentError> {
        verify_module(m)
            .map_err(|e| InstrumentError(format!("pass {} broke the IR: {e}", info.name())))
    }
}
