//! `Skip(["EliminateCommonSubexpr"])`: `should_run` is false for the listed pass names, so
//! those passes return their input unchanged (unless the context requires them).

use super::{Instrument, InstrumentCx};
use crate::ir::Module;
use crate::pass::error::InstrumentError;
use crate::pass::PassInfo;

/// Skips the listed passes.
#[derive(Clone, Debug, Default)]
pub struct Skip {
    names: Vec<String>,
}

impl Skip {
    pub fn new<S: AsRef<str>>(names: &[S]) -> Skip {
        Skip {
            names: names.iter().map(|s| s.as_ref().to_string()).collect(),
        }
    }

    pub fn names(&self) -> &[String] {
        &self.names
    }
}

impl Instrument for Skip {
    fn name(&self) -> &str {
        "Skip"
    }

    fn should_run(
        &self,
        _m: &Module,
        info: &PassInfo,
        _cx: &InstrumentCx<'_>,
    ) -> Result<bool, InstrumentError> {
        Ok(!self.names.iter().any(|n| n == info.name()))
    }

    fn describe(&self) -> String {
        format!("Skip({:?})", self.names)
    }
}
