//! FoldConstant (TVM `src/relay/transforms/fold_constant.cc`, RELAY_PASSES.md B.2): evaluates
//! calls whose arguments are all constants and replaces them with the result.
//!
//! Per optimizable function (not `Primitive`, not [`Function::skips_optimization`]), one
//! memoizing post-order mutation ([`crate::ir::mutate`]):
//! * a call is folded, in TVM's order of checks, unless it has no arguments (`zeros`, `ones`
//!   stay), its callee is not an op, the op is stateful, or the op is non-computational;
//!   `shape_of`/`vm.shape_of`/`ndarray_size` fold from the argument's checked type when its
//!   shape is static (the argument need not be constant); `device_copy` never folds; every
//!   argument must be a constant with data or a tuple of such (looking through `on_device`);
//!   the result is computed by the op's kernel in [`crate::eval::ops`] (real tensor
//!   arithmetic, exact in the dtype; the reference evaluator runs the same kernels, so a
//!   folded constant is what `evaluate` computes) and becomes a `Constant`, or a `Tuple` of
//!   constants for `split`;
//! * `let %x = <constant>; body` drops the binding and uses the constant for `%x` (a constant
//!   under `on_device` counts, and is inlined with its annotation, as TVM's `IsSimpleConstant`);
//! * `(a, b, ...).i` of a literal tuple becomes the field; `if` with a constant condition
//!   becomes the chosen branch; nested `Primitive` functions are left untouched.
//!
//! Invariants: nothing is folded that the evaluator cannot compute exactly (an op without an
//! evaluator, an opaque `meta[relay.Constant]` without data, an unsupported dtype all simply
//! stay); sharing is preserved and unchanged subtrees are returned as is; folded constants
//! carry their tensor type and the span of the call they replace; the walk is linear and
//! stack-safe.
//!
//! QNN ops are non-computational, so they stay, unless `fold_qnn` is set (TVM's
//! `FoldConstant(fold_qnn=True)`): then a QNN op whose arguments are all constants is computed
//! by its kernel in `eval/qnn.rs`, which follows TVM's QNN canonicalization.
//!
//! Deliberately not done: folding zero-argument calls, turning
//! tuples of constants into constants, and `shape_of` of a 0-d tensor (TVM folds it into an
//! uninitialized tensor). Types of rebuilt nodes are dropped where a child changed type;
//! run InferType afterwards for a fully typed module, as TVM's function pass does.

use crate::eval::elementwise::binary_name;
use crate::eval::ops::{apply, apply_binary_data, apply_binary_owned, Arg, OpOut};
use crate::eval::Value;

/// The largest tensor folding builds from an attribute-given shape (`full`, `zeros`, ...).
pub(crate) use crate::eval::shape_ops::MAX_ELEMENTS;

use crate::ir::mutate::{
    mutate, rebuild_call, rebuild_function, rebuild_get_item, rebuild_if, rebuild_let,
    rebuild_tuple, Mutator, Unchanged,
};
use crate::ir::{
    Attrs, Constant, DType, Expr, ExprKind, Function, Module, Op, PendingLets, Span, TensorData,
    Type, Var, VarMap,
};
use std::sync::Arc;

/// Folds constants in every optimizable function of `m`.
pub fn fold_constant(m: &Module) -> Module {
    let out: Result<Module, std::convert::Infallible> =
        m.map_functions(|_, f| Ok(fold_function(f)));
    match out {
        Ok(m) => m,
        Err(never) => match never {},
    }
}

/// Folds constants in one expression (a function or any other expression).
pub fn fold_expr(e: &Expr) -> Expr {
    fold_expr_with(e, false)
}

/// [`fold_expr`], folding QNN ops too when `fold_qnn` is set.
pub fn fold_expr_with(e: &Expr, fold_qnn: bool) -> Expr {
    match e.as_function() {
        Some(f) if f.skips_optimization() => e.clone(),
        _ => mutate(
            &mut Folder {
                fold_qnn,
                ..Folder::default()
            },
            e,
        ),
    }
}

/// [`fold_expr`] that also rewrites `dyn.*` calls to their static forms as their deciding
/// arguments become constants (the walk of [`super::dynamic_to_static`]). `e` should be typed:
/// `shape_of` folds from checked types.
pub(crate) fn fold_expr_dyn_to_static(e: &Expr) -> Expr {
    match e.as_function() {
        Some(f) if f.skips_optimization() => e.clone(),
        _ => mutate(
            &mut Folder {
                rewrite_dyn: true,
                ..Folder::default()
            },
            e,
        ),
    }
}

fn fold_function(e: &Expr) -> Expr {
    fold_expr(e)
}

pub(crate) fn is_primitive(f: &Function) -> bool {
    f.attr("Primitive")
        .is_some_and(|v| v.as_int().unwrap_or(0) != 0)
}

/// A let variable's value is folded before the let's body is visited (post-order: value,
/// body, let), so uses of the variable in the body can take the constant. The value's result
/// is caught as it is produced: `pending` holds the lets whose value is being rewritten,
/// innermost last, and the hook that finishes the value node pops its entry. A shared value
/// may come out of the mutation's memo without any hook running, so those go through a table
/// by node instead.
#[derive(Default)]
struct Folder {
    /// Let variables whose value folded to a constant.
    consts: VarMap<Expr>,
    /// (variable, value node) of the lets whose unshared value is being rewritten.
    pending: PendingLets,
    /// Let variables with a shared value -> that value node.
    shared_lets: VarMap<usize>,
    /// Shared nodes rewritten to a constant -> the constant.
    shared_consts: crate::ir::NodeMap<Expr>,
    /// Fold QNN ops as well (`fold_qnn=True`).
    fold_qnn: bool,
    /// DynamicToStatic: also turn `dyn.*` calls whose deciding arguments are constants into
    /// their static forms, and type every rebuilt node on build so that `shape_of` of it folds.
    rewrite_dyn: bool,
}

impl Folder {
    /// Records the result of rewriting `e`, when it is a constant a let variable may take.
    fn note(&mut self, e: &Expr, out: Expr) -> Expr {
        let constant = is_simple_constant(&out);
        let consts = &mut self.consts;
        self.pending.finish(e, |var| {
            if constant {
                consts.insert(var, out.clone());
            }
        });
        // Shared: more handles than its parent's edge (and `out`, when it is `e` itself).
        if constant && e.strong_count() > 1 + usize::from(out.ptr_eq(e)) {
            self.shared_consts.insert(e.id(), out.clone());
        }
        out
    }

    /// A call folded, or (with `rewrite_dyn`) turned static and then folded if it can be, or
    /// `None` when it stays as it is.
    fn fold_or_rewrite(
        &self,
        e: &Expr,
        callee: &Expr,
        args: &[Expr],
        attrs: &Attrs,
    ) -> Option<Expr> {
        if let Some(folded) = fold_call(e, callee, args, attrs, self.fold_qnn) {
            return Some(folded);
        }
        if !self.rewrite_dyn {
            return None;
        }
        let stat = super::dynamic_to_static::rewrite_call(callee, args, attrs, e.span())?;
        Some(match stat.as_call() {
            Some(c) => {
                fold_call(&stat, &c.callee, &c.args, &c.attrs, self.fold_qnn).unwrap_or(stat)
            }
            None => stat,
        })
    }

    /// A rebuilt node, typed on build when the walk rewrites `dyn.*` calls.
    fn typed(&self, e: Expr) -> Expr {
        if self.rewrite_dyn {
            crate::passes::infer_type::with_node_type(e)
        } else {
            e
        }
    }

    /// [`Folder::note`] for a call, tuple or function literal that is its own result: not a
    /// constant (except an `on_device` of one, which a let variable takes), so usually only a
    /// let waiting for it as its value is finished.
    fn note_itself(&mut self, e: &Expr) {
        debug_assert!(!matches!(e.kind(), ExprKind::Constant(_)));
        if is_simple_constant(e) {
            self.note(e, e.clone());
        } else {
            self.pending.finish(e, |_| {});
        }
    }
}

impl Mutator for Folder {
    fn pre(&mut self, e: &Expr) -> Option<Expr> {
        match e.kind() {
            ExprKind::Function(f) if is_primitive(f) => Some(self.note(e, e.clone())),
            ExprKind::Let(l) => {
                if l.value.is_shared() {
                    self.shared_lets.insert(l.var.id(), l.value.id());
                } else {
                    self.pending.push(&l.var, &l.value);
                }
                None
            }
            _ => None,
        }
    }

    fn var(&mut self, e: &Expr, v: &Var) -> Expr {
        let bound = match self.consts.get(v.id()) {
            Some(c) => Some(c),
            None => self
                .shared_lets
                .get(v.id())
                .and_then(|value| self.shared_consts.get(value)),
        };
        let out = bound.cloned().unwrap_or_else(|| e.clone());
        self.note(e, out)
    }

    fn constant(&mut self, e: &Expr, _c: &Constant) -> Expr {
        self.note(e, e.clone())
    }

    // Every hook goes through `note`, so a let's pending value is always caught.
    fn leaf(&mut self, e: &Expr) -> Expr {
        self.note(e, e.clone())
    }

    fn tuple(&mut self, e: &Expr, fields: Vec<Expr>) -> Expr {
        let out = self.typed(rebuild_tuple(e, fields));
        self.note(e, out)
    }

    fn function(&mut self, e: &Expr, f: &Function, body: Expr) -> Expr {
        // DynamicToStatic drops the return type of a changed function (TVM rebuilds every
        // function with none): the body's type may now be static where the annotation has `?`.
        let out = if self.rewrite_dyn && !f.body.ptr_eq(&body) {
            Expr::with_info(
                ExprKind::Function(Box::new(Function {
                    ret_type: None,
                    body,
                    ..f.clone()
                })),
                None,
                e.span(),
            )
        } else {
            rebuild_function(e, f, body)
        };
        self.note(e, out)
    }

    // A call whose arguments did not change is folded (or not) from its own arguments; a
    // tuple or function literal whose parts did not change is itself. The other kinds run
    // their hooks (a variable may take a constant, a projection or an `if` may resolve).
    fn unchanged(&mut self, e: &Expr) -> Unchanged {
        match e.kind() {
            ExprKind::Call(c) => match self.fold_or_rewrite(e, &c.callee, &c.args, &c.attrs) {
                Some(folded) => Unchanged::Replace(self.note(e, folded)),
                None => {
                    self.note_itself(e);
                    Unchanged::Keep
                }
            },
            ExprKind::Tuple(_) | ExprKind::Function(_) => {
                self.note_itself(e);
                Unchanged::Keep
            }
            _ => Unchanged::Hook,
        }
    }

    fn call(&mut self, e: &Expr, callee: Expr, args: Vec<Expr>, attrs: &Attrs) -> Expr {
        let out = match self.fold_or_rewrite(e, &callee, &args, attrs) {
            Some(folded) => folded,
            None => self.typed(rebuild_call(e, callee, args)),
        };
        self.note(e, out)
    }

    fn get_item(&mut self, e: &Expr, tuple: Expr, index: usize) -> Expr {
        let (inner, device) = strip_on_device(&tuple);
        let out = match inner.kind() {
            ExprKind::Tuple(fields) if index < fields.len() => match device {
                Some(attrs) => on_device(fields[index].clone(), attrs),
                None => fields[index].clone(),
            },
            _ => self.typed(rebuild_get_item(e, tuple, index)),
        };
        self.note(e, out)
    }

    fn let_(&mut self, e: &Expr, var: &Var, value: Expr, body: Expr) -> Expr {
        let out = if is_simple_constant(&value) {
            body
        } else {
            rebuild_let(e, var.clone(), value, body)
        };
        self.note(e, out)
    }

    fn if_(&mut self, e: &Expr, cond: Expr, then_branch: Expr, else_branch: Expr) -> Expr {
        let known = strip_on_device(&cond)
            .0
            .as_constant()
            .and_then(|c| c.data.as_ref())
            .and_then(|d| d.bytes.first().copied());
        let out = match known {
            Some(b) if b != 0 => then_branch,
            Some(_) => else_branch,
            None => rebuild_if(e, cond, then_branch, else_branch),
        };
        self.note(e, out)
    }
}

/// A constant, or an `on_device` of one (TVM's `IsSimpleConstant`): a let bound to it is
/// inlined at every use, annotation included.
fn is_simple_constant(e: &Expr) -> bool {
    matches!(strip_on_device(e).0.kind(), ExprKind::Constant(_))
}

/// `on_device(x)` -> (`x`, the call's attributes); anything else -> (itself, `None`).
fn strip_on_device(e: &Expr) -> (&Expr, Option<&Attrs>) {
    match e.call_op_of() {
        Some((op, call)) if op.name() == "on_device" && call.args.len() == 1 => {
            (&call.args[0], Some(&call.attrs))
        }
        _ => (e, None),
    }
}

fn on_device(e: Expr, attrs: &Attrs) -> Expr {
    let op = Op::get("on_device").expect("on_device is registered");
    Expr::call(Expr::op(op), vec![e], attrs.clone())
}

/// The call folded to a constant (or a tuple of constants), if it can be.
fn fold_call(
    orig: &Expr,
    callee: &Expr,
    args: &[Expr],
    attrs: &Attrs,
    fold_qnn: bool,
) -> Option<Expr> {
    if args.is_empty() {
        return None;
    }
    let ExprKind::Op(op) = callee.kind() else {
        return None;
    };
    if op.stateful {
        return None;
    }
    let span = orig.span();
    let name = op.name();
    if matches!(name, "shape_of" | "vm.shape_of" | "ndarray_size") {
        return fold_shape(name, orig, args.first(), attrs, span);
    }
    let qnn = fold_qnn && name.starts_with("qnn.");
    if (op.non_computational && !qnn) || name == "device_copy" {
        return None;
    }
    // float32 weights held as `f32`s: computed from the constants' data, no copy of either.
    if let ([x, y], Some(_)) = (args, binary_name(name)) {
        if let (Some(x), Some(y)) = (constant_data(x), constant_data(y)) {
            if let Some(t) = apply_binary_data(name, x, y) {
                return Some(constant_expr(t, span));
            }
        }
    }
    let mut values: Vec<Owned> = args.iter().map(complex_constant).collect::<Option<_>>()?;
    // A binary elementwise op computes into one of its operands' copies (no third array).
    if let ([Owned::Tensor(_), Owned::Tensor(_)], true) = (&values[..], binary_name(name).is_some())
    {
        let (Some(Owned::Tensor(y)), Some(Owned::Tensor(x))) = (values.pop(), values.pop()) else {
            return None;
        };
        return Some(constant_expr(
            apply_binary_owned(name, x, y)?.into_data(),
            span,
        ));
    }
    let values: Vec<Arg<'_>> = values.iter().map(Owned::arg).collect();
    match apply(name, attrs, &values)? {
        OpOut::Tensor(t) => Some(constant_expr(t.into_data(), span)),
        OpOut::Tuple(ts) => Some(Expr::with_info(
            ExprKind::Tuple(
                ts.into_iter()
                    .map(|t| constant_expr(t.into_data(), span))
                    .collect(),
            ),
            None,
            span,
        )),
    }
}

/// An argument read from constants, owned while the kernel borrows it.
enum Owned {
    Tensor(Value),
    Tuple(Vec<Owned>),
}

impl Owned {
    fn arg(&self) -> Arg<'_> {
        match self {
            Owned::Tensor(v) => Arg::Tensor(v),
            Owned::Tuple(fs) => Arg::Tuple(fs.iter().map(Owned::arg).collect()),
        }
    }
}

/// The data of a constant (through `on_device`).
fn constant_data(e: &Expr) -> Option<&TensorData> {
    match strip_on_device(e).0.kind() {
        ExprKind::Constant(c) => c.data.as_deref(),
        _ => None,
    }
}

/// A constant with data, or a tuple of such (through `on_device`), as a kernel argument.
fn complex_constant(e: &Expr) -> Option<Owned> {
    let (e, _) = strip_on_device(e);
    match e.kind() {
        ExprKind::Constant(c) => Some(Owned::Tensor(Value::from_data(c.data.as_ref()?)?)),
        ExprKind::Tuple(fields) => Some(Owned::Tuple(
            fields.iter().map(complex_constant).collect::<Option<_>>()?,
        )),
        _ => None,
    }
}

fn constant_expr(t: TensorData, span: Span) -> Expr {
    let c = Constant::from_data(t);
    let ty = c.ty.clone().map(Type::from);
    Expr::with_info(ExprKind::Constant(Arc::new(c)), ty, span)
}

/// `shape_of` / `ndarray_size` of an argument whose checked type has a static shape: the
/// rewritten argument's type, or the original argument's when the rewrite left it untyped.
fn fold_shape(
    name: &str,
    orig: &Expr,
    arg: Option<&Expr>,
    attrs: &Attrs,
    span: Span,
) -> Option<Expr> {
    let ty = match arg.and_then(Expr::ty) {
        Some(t) => t,
        None => orig.as_call()?.args.first()?.ty()?,
    };
    let shape = ty.as_tensor()?.static_shape()?;
    let dtype = crate::eval::value::attr_dtype(attrs, "dtype").unwrap_or(DType::INT32);
    let value = if name == "ndarray_size" {
        TensorData::from_i64(DType::INT32, vec![], &[shape.iter().product()])
    } else {
        if shape.is_empty() {
            return None;
        }
        TensorData::from_i64(DType::INT32, vec![shape.len() as i64], &shape)
    };
    let attrs = Attrs::default().with("dtype", crate::ir::AttrValue::Str(dtype.to_string().into()));
    match apply("cast", &attrs, &[Arg::Tensor(&Value::from_data(&value)?)])? {
        OpOut::Tensor(cast) => Some(constant_expr(cast.to_data(), span)),
        OpOut::Tuple(_) => None,
    }
}

#[cfg(test)]
mod tests {
    /// Calls, tuples and function literals whose children did not change are folded (or
    /// kept) from the node itself: the same output as through the hooks, lets included.
    #[test]
    fn the_unchanged_path_gives_the_hooks_output() {
        let mut programs = crate::ir::mutate::sample_programs("fold_constant");
        // A let whose value (an unchanged call) is finished on the fast path, inside an outer
        // let's value that folds to a constant: the outer variable must still take it.
        programs.push((
            "let_in_if".into(),
            "#[version = \"0.0.5\"]\ndef @main(%x: float32) {\n  \
             let %z = if (True) { 3f } else { let %a = negative(%x); %a };\n  add(%z, %x)\n}\n"
                .into(),
        ));
        crate::ir::mutate::assert_unchanged_path_agrees(|_| super::Folder::default(), &programs);
    }
}
