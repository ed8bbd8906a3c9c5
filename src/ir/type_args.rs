//! The type arguments of each call of a typed function: what TVM's InferType records in
//! `Call.type_args`. passlab does not store them on the call; they follow from the checked
//! types InferType leaves on every node:
//! - a call of an op: the types of its arguments (TVM gives an op one type parameter per
//!   input);
//! - a call of a constructor: the arguments of the ADT type it makes (`Cons(1, Nil)`:
//!   `[int32]`);
//! - a call of a polymorphic function (a global or a literal with type parameters): the
//!   type each parameter is instantiated to, found by matching the function's signature
//!   against the argument and result types of the call;
//! - any other call (a monomorphic function or closure): none.

use super::{Expr, ExprKind, Module, Type, TypeKind, TypeVar};

/// One call: how its callee is written (`add`, `@map`, `Cons`, `%f`, `fn`) and its type
/// arguments.
pub struct CallTypeArgs {
    pub callee: String,
    pub type_args: Vec<Type>,
}

/// The calls of `func` (a typed function of `module`) in evaluation order (arguments before
/// the call), each with its type arguments; an error when a call has no checked type (the
/// function has not been through InferType).
pub fn call_type_args(module: &Module, func: &Expr) -> Result<Vec<CallTypeArgs>, String> {
    let mut out = Vec::new();
    let mut missing = false;
    super::visit::post_order(func, |e| {
        let ExprKind::Call(c) = e.kind() else { return };
        let arg_types: Option<Vec<Type>> = c.args.iter().map(|a| a.ty().cloned()).collect();
        let (Some(arg_types), Some(ret)) = (arg_types, e.ty()) else {
            missing = true;
            return;
        };
        let (callee, type_args) = match c.callee.kind() {
            ExprKind::Op(op) => (op.name().to_string(), arg_types),
            ExprKind::Constructor(ctor) => {
                let args = match ret.kind() {
                    TypeKind::Named(n) => n.args.clone(),
                    _ => Vec::new(),
                };
                (ctor.name.to_string(), args)
            }
            ExprKind::GlobalVar(g) => {
                let scheme = module
                    .get(g.name())
                    .and_then(Expr::as_function)
                    .and_then(|f| f.func_type());
                (
                    format!("@{}", g.name()),
                    instantiate(scheme.as_ref(), &arg_types, ret),
                )
            }
            ExprKind::Function(f) => (
                "fn".to_string(),
                instantiate(f.func_type().as_ref(), &arg_types, ret),
            ),
            ExprKind::Var(v) => (format!("%{}", v.name()), Vec::new()),
            _ => ("(expression)".to_string(), Vec::new()),
        };
        out.push(CallTypeArgs { callee, type_args });
    });
    if missing {
        return Err("a call has no checked type: run InferType first".to_string());
    }
    Ok(out)
}

/// The types the type parameters of `scheme` take at a call with these argument and result
/// types; empty for a monomorphic scheme.
fn instantiate(scheme: Option<&Type>, args: &[Type], ret: &Type) -> Vec<Type> {
    let Some(ft) = scheme.and_then(Type::as_func) else {
        return Vec::new();
    };
    if ft.type_params.is_empty() {
        return Vec::new();
    }
    let mut bound: Vec<(TypeVar, Type)> = Vec::new();
    for (p, a) in ft.params.iter().zip(args) {
        bind(p, a, &mut bound);
    }
    bind(&ft.ret, ret, &mut bound);
    ft.type_params
        .iter()
        .map(|tp| {
            bound
                .iter()
                .find(|(v, _)| v.0 == tp.0)
                .map_or_else(Type::incomplete, |(_, t)| t.clone())
        })
        .collect()
}

/// Matches the signature type `pat` against the actual type `act`, recording what each type
/// variable stands for (the first match wins).
fn bind(pat: &Type, act: &Type, bound: &mut Vec<(TypeVar, Type)>) {
    super::deep(|| match (pat.kind(), act.kind()) {
        (TypeKind::Var(v), _) if !bound.iter().any(|(b, _)| b.0 == v.0) => {
            bound.push((v.clone(), act.clone()));
        }
        (TypeKind::Tuple(ps), TypeKind::Tuple(xs)) => {
            for (p, x) in ps.iter().zip(xs) {
                bind(p, x, bound);
            }
        }
        (TypeKind::Func(pf), TypeKind::Func(xf)) => {
            for (p, x) in pf.params.iter().zip(&xf.params) {
                bind(p, x, bound);
            }
            bind(&pf.ret, &xf.ret, bound);
        }
        (TypeKind::Named(pn), TypeKind::Named(xn)) => {
            for (p, x) in pn.args.iter().zip(&xn.args) {
                bind(p, x, bound);
            }
        }
        (TypeKind::Ref(p), TypeKind::Ref(x)) => bind(p, x, bound),
        _ => {}
    })
}
