//! Module passes: a closure from module to module. A module pass sees the whole module and may
//! add or remove functions (TVM's `module_pass`).

use super::{Pass, PassCx, PassError, PassImpl, PassInfo, PassKind};
use crate::ir::Module;

type ModuleFn = dyn Fn(&Module, &mut PassCx) -> Result<Module, PassError> + Send + Sync;

/// A module pass built from a closure.
pub struct ModulePass {
    info: PassInfo,
    body: Box<ModuleFn>,
}

impl ModulePass {
    pub fn new(
        info: PassInfo,
        body: impl Fn(&Module, &mut PassCx) -> Result<Module, PassError> + Send + Sync + 'static,
    ) -> ModulePass {
        ModulePass {
            info: info.of_kind(PassKind::Module),
            body: Box::new(body),
        }
    }
}

impl PassImpl for ModulePass {
    fn info(&self) -> &PassInfo {
        &self.info
    }

    fn transform(&self, m: &Module, cx: &mut PassCx) -> Result<Module, PassError> {
        (self.body)(m, cx)
    }
}

/// A module pass from a closure: `module_pass(PassInfo::new("AddAbs", 2), |m, cx| ...)`.
pub fn module_pass(
    info: PassInfo,
    body: impl Fn(&Module, &mut PassCx) -> Result<Module, PassError> + Send + Sync + 'static,
) -> Pass {
    Pass::new(ModulePass::new(info, body))
}
