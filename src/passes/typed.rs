//! Checked types for the passes that read them (FuseOps, FoldScaleAxis, ConvertLayout,
//! LambdaLift). Relay's function passes retype the module after every pass; passlab's do not
//! (SEMANTICS.md §7), so a pass that needs `Expr::ty()` lists `InferType` in `required` and,
//! when it is called directly on a function that is not (or no longer) fully typed, types that
//! function itself with [`typed_function`].
//!
//! Invariant: a function that already carries a type on every node is returned as it is (the
//! very same node), so sharing with the input is kept. Otherwise the function is typed as a
//! standalone expression against the module's global signatures.

use crate::ir::visit::each_node;
use crate::ir::{Expr, ExprKind, GlobalVar, Module};
use crate::pass::PassError;
use crate::passes::infer_type::infer_expr;

/// True when every node of `e` that has a type in Relay carries its checked type.
pub fn fully_typed(e: &Expr) -> bool {
    let mut ok = true;
    each_node(e, |n| {
        if n.ty().is_none() && !matches!(n.kind(), ExprKind::Op(_) | ExprKind::GlobalVar(_)) {
            ok = false;
        }
    });
    ok
}

/// `f` itself when it is fully typed, else `f` typed by inference. A type error fails the
/// pass `pass` with the error's message. A function of InferType's output is known to be
/// typed ([`Module::known_typed_as`]: one lookup of its own slot) and is not walked.
pub fn typed_function(pass: &str, g: &GlobalVar, f: &Expr, m: &Module) -> Result<Expr, PassError> {
    if m.known_typed_as(g.name(), f) || fully_typed(f) {
        return Ok(f.clone());
    }
    infer_expr(f, Some(m)).map_err(|e| {
        PassError::failed(format!(
            "{pass} needs types and @{} does not type-check: {}",
            g.name(),
            e.message
        ))
    })
}
