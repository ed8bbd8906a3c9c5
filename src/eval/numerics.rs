//! Whether a pass changed what a module computes: `@main` of the module before and after is
//! evaluated on the same seeded random inputs (made from `@main`'s parameter types, and made
//! again when a later module's `@main` has other parameter types) and the results compared with `allclose`'s rule. Shared by the
//! `Verify(numerics=true)` instrument and the debugger's `break numerics`.
//!
//! A module that is the very same value as the one before (a pass that changed nothing) is
//! not evaluated again, and the last two results are kept, so a pipeline evaluates each
//! distinct module once.

use super::compare::{self, Difference};
use super::{evaluate_with, Output};
use crate::ir::{Module, TensorData};

/// Default tolerances: passes legitimately reorder float arithmetic (FoldScaleAxis folds a
/// scale into the weights, SimplifyInference rewrites batch_norm), which moves float32
/// results by a few units in the last place, also near zero.
pub const DEFAULT_RTOL: f64 = 1e-4;
pub const DEFAULT_ATOL: f64 = 1e-5;

/// The state of one numeric check across a run.
#[derive(Debug)]
pub struct NumericsCheck {
    pub rtol: f64,
    pub atol: f64,
    pub seed: u64,
    inputs: Option<Vec<TensorData>>,
    /// The inputs were given, not seeded.
    given: bool,
    /// The parameter types the seeded inputs were made for.
    made_for: Vec<Option<crate::ir::Type>>,
    recent: Vec<(Module, Output)>,
}

impl NumericsCheck {
    pub fn new(rtol: f64, atol: f64, seed: u64) -> NumericsCheck {
        NumericsCheck {
            rtol,
            atol,
            seed,
            inputs: None,
            given: false,
            made_for: Vec::new(),
            recent: Vec::new(),
        }
    }

    /// A check on these inputs of `@main` (in parameter order) instead of seeded ones.
    pub fn with_inputs(rtol: f64, atol: f64, inputs: Vec<TensorData>) -> NumericsCheck {
        NumericsCheck {
            inputs: Some(inputs),
            given: true,
            ..NumericsCheck::new(rtol, atol, 0)
        }
    }

    /// The inputs given to [`NumericsCheck::with_inputs`], if any (else seeded ones are made).
    pub fn given_inputs(&self) -> Option<&[TensorData]> {
        self.given.then_some(self.inputs.as_deref()).flatten()
    }

    fn output(&mut self, m: &Module, which: &str) -> Result<Output, String> {
        if let Some((_, o)) = self.recent.iter().find(|(k, _)| k.same_as(m)) {
            return Ok(o.clone());
        }
        let main = m
            .get("main")
            .ok_or_else(|| format!("the module {which} has no @main to evaluate"))?;
        // Seeded inputs follow `@main`'s parameter types: one check (one `Verify` in a context)
        // sees every module run under it, and another module may take other tensors.
        let params: Vec<Option<crate::ir::Type>> = main
            .as_function()
            .map(|f| f.params.iter().map(|p| p.ann.clone()).collect())
            .unwrap_or_default();
        if !self.given && (self.inputs.is_none() || params != self.made_for) {
            self.made_for = params;
            self.inputs = Some(
                super::random::inputs_for(main, self.seed)
                    .map_err(|e| format!("cannot make inputs for @main: {e}"))?,
            );
        }
        let inputs: Vec<&TensorData> = self.inputs.iter().flatten().collect();
        let out = evaluate_with(m, "main", &inputs, None)
            .map_err(|e| format!("cannot evaluate the module {which}: {e}"))?;
        if self.recent.len() == 2 {
            self.recent.remove(0);
        }
        self.recent.push((m.clone(), out.clone()));
        Ok(out)
    }

    /// `Ok(None)`: the same numbers; `Ok(Some(d))`: they differ by `d`; `Err`: one of the
    /// modules could not be evaluated.
    pub fn compare(
        &mut self,
        before: &Module,
        after: &Module,
        pass: &str,
    ) -> Result<Option<Difference>, String> {
        if before.same_as(after) {
            return Ok(None);
        }
        let a = self.output(before, &format!("before {pass}"))?;
        let b = self.output(after, &format!("after {pass}"))?;
        // NaN where the input module had NaN too is the same number.
        Ok(compare::outputs(&b, &a, self.rtol, self.atol, true))
    }
}
