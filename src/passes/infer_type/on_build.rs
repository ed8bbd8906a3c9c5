//! Types on build: the checked type a new node gets from its children's types, computed when
//! a pass builds it, so that the InferType after the pass has nothing to rebuild.
//!
//! Why: nodes are immutable, so InferType can only give an untyped node a type by building a
//! new one, and then every ancestor of it too (a parent whose child changed is a new node).
//! A pass that rewrites one call per layer of a deep model (SimplifyInference's batch_norm,
//! CanonicalizeOps' bias_add, a session's rewrite rules) would leave untyped calls all
//! along the graph, and the InferType after it would rebuild the whole graph: one more full
//! copy in a run's history. With the new calls typed, the pass's rebuilt ancestors keep their types
//! (`ir::mutate` inherits a type when the children's types are unchanged) and InferType
//! returns every node as it is.
//!
//! Invariant: a type set here is exactly the type InferType computes for the node (so
//! InferType keeps the node). It is computed with the same shape rules
//! (`shape_rules::rule_for`) over the same argument types, and only when that is certain:
//! every child has a complete type, and the rule neither fails nor would refine an
//! argument's type (a rule may assign input types, e.g. conv2d's weight; InferType would then
//! change the argument, which type-on-build cannot). Otherwise the node is left untyped, and
//! InferType types it.

use super::recent::Recent;
use super::shape_rules::{rule_for, Rel, Rule};
use super::solver::merge;
use crate::ir::TypeKind;
use crate::ir::{Attrs, Call, Constant, DType, Expr, ExprKind, Op, Span, Type};
use rustc_hash::FxHashMap;
use std::cell::RefCell;

/// The type InferType gives a constant (`None` for an opaque constant of unknown type). Scalar
/// types are allocated once per dtype and thread (passes build many scalar constants).
pub fn constant_type(c: &Constant) -> Option<Type> {
    type Scalars = FxHashMap<DType, Type>;
    thread_local! {
        static SCALARS: RefCell<crate::ir::sharing::Epoched<Scalars>> =
            RefCell::new(crate::ir::sharing::Epoched::new(Scalars::default()));
    }
    let t = c.ty.as_ref()?;
    if !t.shape.is_empty() {
        return Some(Type::of_tensor(t));
    }
    Some(SCALARS.with(|s| {
        s.borrow_mut()
            .get(Scalars::clear)
            .entry(t.dtype)
            .or_insert_with(|| Type::scalar(t.dtype))
            .clone()
    }))
}

/// The type InferType sees for `e` as the child of a node: a constant's own type, else the
/// checked type `e` carries, when complete. Ops, globals and function literals have none here
/// (their types depend on the module or on their uses).
fn child_type(e: &Expr) -> Option<Type> {
    match e.kind() {
        ExprKind::Constant(c) => constant_type(c),
        ExprKind::Op(_) | ExprKind::GlobalVar(_) | ExprKind::Function(_) => None,
        _ => e.ty().filter(|t| t.is_complete()).cloned(),
    }
}

/// The type of `op(args)` with `attrs`, as InferType computes it from the arguments' types;
/// `None` when an argument's type is not known here or InferType would do more than assign
/// the result (see the module note), or the call is ill-typed.
pub fn call_type(op: Op, attrs: &Attrs, args: &[Expr]) -> Option<Type> {
    if op.num_inputs >= 0 && op.num_inputs as usize != args.len() {
        return None;
    }
    let rule = rule_for(op)?;
    // On the stack for the usual few arguments: a hit in the table below then allocates
    // nothing.
    let mut types: smallvec::SmallVec<[Option<Type>; 4]> = smallvec::SmallVec::new();
    for a in args {
        types.push(Some(child_type(a)?));
    }
    let f = match rule {
        Rule::Identity => return types.first().cloned().flatten(),
        Rule::Fn(f) => f,
    };
    // The final answers too, in front of the rule answers: a hit then costs one type handle.
    let key = op.name().as_ptr() as usize;
    let out: Result<_, std::convert::Infallible> =
        super::recent::remembered(&RUN_CALLS, key, attrs, &types, || {
            Ok((solve(op, attrs, f, types.to_vec()), true))
        });
    match out {
        Ok(out) => out,
        Err(never) => match never {},
    }
}

/// Why `op(args)` with `attrs` is ill-typed: the op's rule's message when every argument's
/// type is known and the rule rejects them (or the argument count is wrong); `None` when the
/// call is well-typed or cannot be judged from the arguments alone. For front ends that build
/// calls and report a bad one where it was made (the ONNX importer).
pub fn call_type_error(op: Op, attrs: &Attrs, args: &[Expr]) -> Option<String> {
    if op.num_inputs >= 0 && op.num_inputs as usize != args.len() {
        return Some(format!(
            "`{}` takes {} argument(s), given {}",
            op.name(),
            op.num_inputs,
            args.len()
        ));
    }
    let Rule::Fn(f) = rule_for(op)? else {
        return None;
    };
    let mut types = args
        .iter()
        .map(|a| child_type(a).map(Some))
        .collect::<Option<Vec<_>>>()?;
    types.push(None);
    let mut rel = Rel::new(op.name(), attrs, &types);
    f(&mut rel).err()
}

/// The last results of [`call_type`] in the run (see [`super::recent`]).
static RUN_CALLS: crate::pass::run_state::RunTable<Recent<Option<Type>>> =
    crate::pass::run_state::RunTable::new(|| Recent::new(256));

/// [`call_type`]'s rule run over the argument types.
fn solve(
    op: Op,
    attrs: &Attrs,
    f: super::shape_rules::RuleFn,
    mut types: Vec<Option<Type>>,
) -> Option<Type> {
    let n = types.len();
    types.push(None);
    // Shared with type inference (see `super::recent`): the same rule over the same types.
    let answer = super::recent::rule_answer(op.name(), attrs, &types, || {
        let mut rel = Rel::new(op.name(), attrs, &types);
        let decided = f(&mut rel)?;
        Ok::<_, String>((decided, std::mem::take(&mut rel.assigned)))
    });
    let Ok(Some(assigned)) = answer else {
        return None;
    };
    let mut out: Option<Type> = None;
    for (i, t) in assigned {
        // What unifying the assignment would do: nothing to a known input (or to a result
        // already assigned), or the node is left to InferType.
        let known = if i == n {
            out.as_ref()
        } else {
            types[i].as_ref()
        };
        match known {
            None if i == n => out = Some(t),
            Some(k) if matches!(merge(k, &t), Ok(None)) => {}
            _ => return None,
        }
    }
    out.filter(Type::is_complete)
}

/// The type InferType gives a node of `kind` from its children's types: calls of ops (by the
/// op's rule), tuples, tuple projections and constants; `None` for anything else or when a
/// child's type is not known.
pub fn node_type(kind: &ExprKind) -> Option<Type> {
    match kind {
        ExprKind::Call(c) => match c.callee.kind() {
            ExprKind::Op(op) => call_type(*op, &c.attrs, &c.args),
            _ => None,
        },
        ExprKind::Tuple(fields) => fields
            .iter()
            .map(child_type)
            .collect::<Option<Vec<_>>>()
            .map(Type::tuple),
        ExprKind::TupleGetItem(t, i) => match child_type(t)?.kind() {
            TypeKind::Tuple(fs) => fs.get(*i).cloned(),
            _ => None,
        },
        ExprKind::Constant(c) => constant_type(c),
        _ => None,
    }
}

/// A new node of `kind` with the type [`node_type`] gives it (untyped if none).
pub fn typed_node(kind: ExprKind, span: Span) -> Expr {
    let ty = node_type(&kind);
    Expr::with_info(kind, ty, span)
}

/// A new call of `op`, typed when its arguments' types determine the result.
pub fn typed_call(op: Op, args: Vec<Expr>, attrs: Attrs) -> Expr {
    let ty = call_type(op, &attrs, &args);
    Expr::with_info(
        ExprKind::Call(Call {
            callee: Expr::op(op),
            args: args.into(),
            attrs,
        }),
        ty,
        Span::DUMMY,
    )
}

/// A new constant node carrying its type.
pub fn typed_constant(c: Constant) -> Expr {
    let ty = constant_type(&c);
    Expr::with_info(ExprKind::Constant(std::sync::Arc::new(c)), ty, Span::DUMMY)
}

/// `e` itself when it has a type or [`node_type`] knows none, else a copy of it with that
/// type (for nodes built by code that does not type them).
pub fn with_node_type(e: Expr) -> Expr {
    if e.ty().is_some() {
        return e;
    }
    match node_type(e.kind()) {
        Some(t) => e.with_ty(Some(t)),
        None => e,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{AttrValue, DType, Dim, Var};

    /// Remembered results answer only for the same op, attributes and argument types: over
    /// more distinct calls than there are slots (so slots are shared and overwritten), twice,
    /// every answer is the shape rule's own.
    #[test]
    fn remembered_call_types_are_the_rules_answers() {
        let expand = Op::get("expand_dims").expect("registered");
        let add = Op::get("add").expect("registered");
        let mut cases: Vec<(Op, Attrs, Vec<Expr>, Vec<i64>)> = Vec::new();
        for extent in 1..=8 {
            for rank in 1..=6usize {
                let shape = vec![extent; rank];
                let ty = Type::tensor(
                    shape.iter().map(|&d| Dim::Static(d)).collect(),
                    DType::FLOAT32,
                );
                let v = Var::new("x", Some(ty.clone()));
                let x = Expr::with_info(ExprKind::Var(v), Some(ty), Span::DUMMY);
                for axis in 0..=rank {
                    for num in 1..=3 {
                        let attrs = expand
                            .make_attrs(vec![
                                ("axis".into(), AttrValue::int(axis as i64)),
                                ("num_newaxis".into(), AttrValue::int(num as i64)),
                            ])
                            .expect("valid attributes");
                        let mut want = shape[..axis].to_vec();
                        want.extend(std::iter::repeat_n(1, num));
                        want.extend(&shape[axis..]);
                        cases.push((expand, attrs, vec![x.clone()], want));
                    }
                }
                cases.push((add, Attrs::NONE, vec![x.clone(), x.clone()], shape.clone()));
            }
        }
        assert!(
            cases.len() > super::super::recent::SLOTS,
            "{} cases",
            cases.len()
        );
        for _ in 0..2 {
            for (op, attrs, args, want) in &cases {
                let got = call_type(*op, attrs, args).expect("typed");
                let dims: Vec<i64> = got
                    .as_tensor()
                    .expect("a tensor")
                    .shape
                    .iter()
                    .map(|d| d.as_static().expect("static"))
                    .collect();
                assert_eq!(&dims, want, "{} {:?}", op.name(), attrs);
            }
        }
    }
}
