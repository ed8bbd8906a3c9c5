//! Function passes: a closure applied to every function of the module, in module order,
//! except functions marked as not for optimization (`SkipOptimization` or `Extern` non-zero,
//! or a `Compiler` attribute), which are kept as they are. A function pass cannot add or
//! remove functions. Unlike Relay, it does not run InferType afterwards: a pass that needs
//! types lists `InferType` in `required`. With `passlab.num_threads` above 1 the functions
//! are mapped in parallel, with the sequential run's result (`parallel.rs`).

use super::{parallel, Pass, PassCx, PassError, PassImpl, PassInfo, PassKind};
use crate::ir::{Expr, ExprKind, GlobalVar, Module};

type FunctionFn =
    dyn Fn(&GlobalVar, &Expr, &Module, &mut PassCx) -> Result<Expr, PassError> + Send + Sync;

/// A function pass built from a closure. The closure receives the function's name, the
/// function expression and the whole (input) module, and returns the new function expression
/// (the same `Expr` when nothing changed, so the module value is kept).
pub struct FunctionPass {
    info: PassInfo,
    body: Box<FunctionFn>,
    /// The body runs no pass of its own through its `PassCx` (see [`FunctionPass::leaf`]).
    leaf: bool,
}

impl FunctionPass {
    pub fn new(
        info: PassInfo,
        body: impl Fn(&GlobalVar, &Expr, &Module, &mut PassCx) -> Result<Expr, PassError>
            + Send
            + Sync
            + 'static,
    ) -> FunctionPass {
        FunctionPass {
            info: info.of_kind(PassKind::Function),
            body: Box::new(body),
            leaf: false,
        }
    }

    /// Declares that the body runs no pass of its own through its `PassCx` (true of every
    /// standard pass and of the language's `function_pass`). Such a pass maps its functions
    /// in parallel under a debugger too: the debugger sees only its own before/after events,
    /// on the calling thread, while a pass run from a worker's body would escape it.
    pub fn leaf(mut self) -> FunctionPass {
        self.leaf = true;
        self
    }
}

impl PassImpl for FunctionPass {
    fn info(&self) -> &PassInfo {
        &self.info
    }

    fn transform(&self, m: &Module, cx: &mut PassCx) -> Result<Module, PassError> {
        let one = |g: &GlobalVar, e: &Expr, cx: &mut PassCx| -> Result<Expr, PassError> {
            if e.as_function().is_some_and(|f| f.skips_optimization()) {
                return Ok(e.clone());
            }
            let new = (self.body)(g, e, m, cx)?;
            if !matches!(new.kind(), ExprKind::Function(_)) {
                return Err(PassError::failed(format!(
                    "returned a {} for @{}; a function pass must return a function",
                    new.kind().name(),
                    g.name()
                )));
            }
            Ok(new)
        };
        let threads = match m.len() > 1 && (self.leaf || !cx.is_observed()) {
            true => parallel::num_threads(cx)?,
            false => 1,
        };
        let mut changed = false;
        let out = if threads > 1 {
            let mut new = parallel::map_functions(m, cx, threads, &one)?.into_iter();
            m.map_functions(|_, e| {
                let f = new.next().expect("one result per function");
                changed |= !f.ptr_eq(e);
                Ok::<_, PassError>(f)
            })?
        } else {
            m.map_functions(|g, e| {
                let f = one(g, e, cx)?;
                changed |= !f.ptr_eq(e);
                Ok::<_, PassError>(f)
            })?
        };
        Ok(if changed { out } else { m.clone() })
    }
}

/// A function pass from a closure: `function_pass(PassInfo::new("ToF1", 1), |g, f, m, cx| ...)`.
pub fn function_pass(
    info: PassInfo,
    body: impl Fn(&GlobalVar, &Expr, &Module, &mut PassCx) -> Result<Expr, PassError>
        + Send
        + Sync
        + 'static,
) -> Pass {
    Pass::new(FunctionPass::new(info, body))
}

/// A function pass whose body runs no pass of its own (see [`FunctionPass::leaf`]).
pub fn leaf_function_pass(
    info: PassInfo,
    body: impl Fn(&GlobalVar, &Expr, &Module, &mut PassCx) -> Result<Expr, PassError>
        + Send
        + Sync
        + 'static,
) -> Pass {
    Pass::new(FunctionPass::new(info, body).leaf())
}
