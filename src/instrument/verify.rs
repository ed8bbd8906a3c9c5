//! `Verify()`: after every pass, checks that the output module is well-formed and well-typed,
//! and fails naming the pass that broke it. Catching the breaking pass at once is the point:
//! later passes would otherwise fail far from the cause.
//!
//! `Verify(numerics=true)` also evaluates `@main` before and after every pass that is not a
//! Sequential (on seeded random inputs of its parameter types, `eval::numerics`) and fails
//! at the first pass whose output's numbers differ from its input's beyond the tolerances,
//! saying by how much; a module that cannot be evaluated fails it too, with the reason.

use super::{Instrument, InstrumentCx};
use crate::eval::numerics::NumericsCheck;
use crate::ir::well_formed::check_module;
use crate::ir::Module;
use crate::pass::error::InstrumentError;
use crate::pass::PassInfo;
use crate::passes::infer_type::check_types;
use std::sync::Mutex;

/// Checks the IR after every pass.
#[derive(Debug, Default)]
pub struct Verify {
    numerics: Option<Numerics>,
}

#[derive(Debug)]
struct Numerics {
    check: Mutex<NumericsCheck>,
    /// The input of the running pass at each depth.
    inputs: Mutex<Vec<Module>>,
}

impl Verify {
    pub fn new() -> Verify {
        Verify::default()
    }

    /// Verify that also compares the numbers before and after each pass.
    pub fn with_numerics(rtol: f64, atol: f64, seed: u64) -> Verify {
        Verify::with_check(NumericsCheck::new(rtol, atol, seed))
    }

    /// Compares `@main`'s numbers on these inputs (in parameter order).
    pub fn with_numerics_on(rtol: f64, atol: f64, inputs: Vec<crate::ir::TensorData>) -> Verify {
        Verify::with_check(NumericsCheck::with_inputs(rtol, atol, inputs))
    }

    fn with_check(check: NumericsCheck) -> Verify {
        Verify {
            numerics: Some(Numerics {
                check: Mutex::new(check),
                inputs: Mutex::new(Vec::new()),
            }),
        }
    }

    /// The numbers check's tolerances and given inputs (`None` without numerics; no inputs
    /// when they are seeded).
    pub fn numerics_inputs(&self) -> Option<(f64, f64, Option<Vec<crate::ir::TensorData>>)> {
        let n = self.numerics.as_ref()?;
        let c = lock(&n.check);
        Some((c.rtol, c.atol, c.given_inputs().map(<[_]>::to_vec)))
    }
}

/// The checks Verify runs: well-formedness, then types.
pub fn verify_module(m: &Module) -> Result<(), String> {
    check_module(m).map_err(|e| format!("ill-formed IR: {e}"))?;
    check_types(m).map_err(|e| format!("type error: {e}"))
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Instrument for Verify {
    fn name(&self) -> &str {
        "Verify"
    }

    fn describe(&self) -> String {
        match &self.numerics {
            None => "Verify".into(),
            Some(n) => {
                let c = lock(&n.check);
                match c.given_inputs() {
                    Some(given) => format!(
                        "Verify(numerics=true, rtol={}, atol={}, inputs=[{} tensors])",
                        c.rtol,
                        c.atol,
                        given.len()
                    ),
                    None => format!(
                        "Verify(numerics=true, rtol={}, atol={}, seed={})",
                        c.rtol, c.atol, c.seed
                    ),
                }
            }
        }
    }

    fn has_should_run(&self) -> bool {
        false
    }

    fn run_before_pass(
        &self,
        m: &Module,
        _info: &PassInfo,
        cx: &InstrumentCx<'_>,
    ) -> Result<(), InstrumentError> {
        if let Some(n) = &self.numerics {
            let mut inputs = lock(&n.inputs);
            inputs.truncate(cx.depth);
            inputs.push(m.clone());
        }
        Ok(())
    }

    fn run_after_pass(
        &self,
        m: &Module,
        info: &PassInfo,
        cx: &InstrumentCx<'_>,
    ) -> Result<(), InstrumentError> {
        verify_module(m)
            .map_err(|e| InstrumentError(format!("pass {} broke the IR: {e}", info.name())))?;
        let Some(n) = &self.numerics else {
            return Ok(());
        };
        let input = lock(&n.inputs).get(cx.depth).cloned();
        let (Some(input), false) = (input, info.is_sequential()) else {
            return Ok(());
        };
        let name = info.name();
        match lock(&n.check).compare(&input, m, name) {
            Ok(None) => Ok(()),
            Ok(Some(d)) => Err(InstrumentError(format!(
                "pass {name} changed the numbers of @main: {d}"
            ))),
            Err(e) => Err(InstrumentError(format!("Verify(numerics): {e}"))),
        }
    }
}
