//! SimplifyInference (TVM `src/relay/transforms/simplify_inference.cc`, RELAY_PASSES.md B.7):
//! rewrites the normalization ops for inference into elementwise arithmetic, and drops
//! dropout.
//!
//! One post-order mutation per optimizable function of a **typed** module (run InferType
//! first: the rewrites need the rank of the data argument):
//! * `nn.batch_norm(x, gamma, beta, mean, var).0` => `x * scale + shift` with
//!   `scale = 1 / sqrt(var + eps)` (`* gamma` if `scale`), `shift = -mean * scale`
//!   (`+ beta` if `center`), both `expand_dims(.., axis=1, num_newaxis=ndim-axis-1)` when
//!   that is positive; the other projections of a batch_norm are left alone;
//! * `nn.dropout(x).0` => `x`;
//! * `nn.layer_norm` => `(x - mean) / sqrt(variance + eps)` over `axis` (keepdims), then
//!   `* gamma`, `+ beta` expanded to the axis; `nn.instance_norm` likewise over every axis
//!   but the batch and channel axes; `nn.group_norm` reshapes to `(N, G, C/G, ...)`,
//!   normalizes over the axes after the group axis and reshapes back; `nn.l2_normalize` =>
//!   `x / sqrt(maximum(sum(x * x, axis, keepdims), eps))` with a float32 `eps`.
//!
//! Constants are scalars of the data dtype built as TVM's `MakeConstantScalar(dtype, float)`.
//! A call whose data type is unknown (untyped module, or not a tensor) is left unchanged;
//! `group_norm` also needs a static shape. Everything else is unchanged and shared.
//! The new nodes carry the types InferType would give them (`infer_type::typed_call`), so
//! the rewritten nodes' ancestors keep their types and the InferType that follows rebuilds
//! nothing (one copy of the graph in a run's history, not two).

use super::infer_type::{typed_call, typed_constant};
use crate::ir::mutate::{mutate, rebuild_call, rebuild_get_item, Mutator, Unchanged};
use crate::ir::{
    AttrValue, Attrs, Constant, Contains, DType, Expr, ExprKind, Module, Op, TensorData, TensorType,
};
use std::sync::Arc;

/// Simplifies the inference-time ops of every optimizable function of a typed module.
pub fn simplify_inference(m: &Module) -> Module {
    let out: Result<Module, std::convert::Infallible> = m.map_functions(|_, f| {
        Ok(match f.as_function() {
            Some(func) if func.skips_optimization() => f.clone(),
            _ => mutate(&mut Simplifier, f),
        })
    });
    match out {
        Ok(m) => m,
        Err(never) => match never {},
    }
}

/// A call of `name` with the given attributes (defaults filled in from the schema), typed
/// when its arguments are (`infer_type::typed_call`), so the InferType after this pass keeps
/// the rewritten graph as it is.
pub(crate) fn op_call(name: &str, args: Vec<Expr>, attrs: Vec<(&str, AttrValue)>) -> Expr {
    let op = Op::get(name).unwrap_or_else(|| panic!("op {name} is registered"));
    let given = attrs
        .into_iter()
        .map(|(k, v)| (Arc::<str>::from(k), v))
        .collect();
    let attrs = op
        .make_attrs(given)
        .unwrap_or_else(|e| panic!("attributes of {name}: {e}"));
    typed_call(op, args, attrs)
}

/// TVM's `MakeConstantScalar(dtype, value)`: the value as a C `float`, converted to `dtype`
/// (typed, as InferType would type it).
pub(crate) fn scalar(dtype: DType, value: f64) -> Expr {
    let v = value as f32 as f64;
    let data = if dtype.is_float() {
        TensorData::from_f64(dtype, vec![], &[v])
    } else {
        TensorData::from_i64(dtype, vec![], &[v as i64])
    };
    typed_constant(Constant::from_data(data))
}

/// TVM's `ExpandBiasToMatchAxis(bias, ndim, {axis})`.
pub(crate) fn expand_to_axis(bias: Expr, ndim: usize, axis: usize) -> Expr {
    let pad = ndim as i64 - axis as i64 - 1;
    if pad > 0 {
        op_call(
            "expand_dims",
            vec![bias],
            vec![
                ("axis", AttrValue::int(1)),
                ("num_newaxis", AttrValue::int(pad)),
            ],
        )
    } else {
        bias
    }
}

fn bin(name: &str, a: Expr, b: Expr) -> Expr {
    op_call(name, vec![a, b], vec![])
}

fn un(name: &str, a: Expr) -> Expr {
    op_call(name, vec![a], vec![])
}

fn axis_of(attrs: &Attrs, default: i64, ndim: usize) -> Option<usize> {
    let a = attrs.get_int("axis").unwrap_or(default);
    let a = if a < 0 { a + ndim as i64 } else { a };
    (0..ndim as i64).contains(&a).then_some(a as usize)
}

fn flag(attrs: &Attrs, name: &str) -> bool {
    attrs.get_bool(name).unwrap_or(true)
}

fn data_type(orig_call: &Expr) -> Option<&TensorType> {
    orig_call.as_call()?.args.first()?.ty()?.as_tensor()
}

fn batch_norm(attrs: &Attrs, args: &[Expr], t: &TensorType) -> Option<Expr> {
    let [data, gamma, beta, mean, var] = args else {
        return None;
    };
    let ndim = t.shape.len();
    let eps = scalar(t.dtype, attrs.get_float("epsilon").unwrap_or(1e-5));
    let mut scale = bin(
        "divide",
        scalar(t.dtype, 1.0),
        un("sqrt", bin("add", var.clone(), eps)),
    );
    if flag(attrs, "scale") {
        scale = bin("multiply", scale, gamma.clone());
    }
    let mut shift = bin("multiply", un("negative", mean.clone()), scale.clone());
    if flag(attrs, "center") {
        shift = bin("add", shift, beta.clone());
    }
    let axis = axis_of(attrs, 1, ndim)?;
    let scale = expand_to_axis(scale, ndim, axis);
    let shift = expand_to_axis(shift, ndim, axis);
    Some(bin("add", bin("multiply", data.clone(), scale), shift))
}

/// `(x - mean) / sqrt(variance + eps)` over `axes`, then gamma and beta along `axis`.
fn normalize(x: Expr, axes: Vec<i64>, eps: Expr) -> Expr {
    let reduce = |name: &str, args: Vec<Expr>| {
        op_call(
            name,
            args,
            vec![
                ("axis", AttrValue::ints(&axes)),
                ("keepdims", AttrValue::Bool(true)),
            ],
        )
    };
    let mean = reduce("mean", vec![x.clone()]);
    let var = reduce("variance", vec![x.clone(), mean.clone()]);
    bin(
        "divide",
        bin("subtract", x, mean),
        un("sqrt", bin("add", var, eps)),
    )
}

fn scale_shift(
    mut out: Expr,
    attrs: &Attrs,
    gamma: &Expr,
    beta: &Expr,
    ndim: usize,
    axis: usize,
) -> Expr {
    if flag(attrs, "scale") {
        out = bin("multiply", out, expand_to_axis(gamma.clone(), ndim, axis));
    }
    if flag(attrs, "center") {
        out = bin("add", out, expand_to_axis(beta.clone(), ndim, axis));
    }
    out
}

fn norm(op: &str, attrs: &Attrs, args: &[Expr], t: &TensorType) -> Option<Expr> {
    let ndim = t.shape.len();
    let eps = || scalar(t.dtype, attrs.get_float("epsilon").unwrap_or(1e-5));
    match (op, args) {
        ("nn.layer_norm", [data, gamma, beta]) => {
            let axis = axis_of(attrs, -1, ndim)?;
            let out = normalize(
                data.clone(),
                vec![attrs.get_int("axis").unwrap_or(-1)],
                eps(),
            );
            Some(scale_shift(out, attrs, gamma, beta, ndim, axis))
        }
        ("nn.instance_norm", [data, gamma, beta]) => {
            let axis = axis_of(attrs, 1, ndim)?;
            let axes = (1..ndim).filter(|&i| i != axis).map(|i| i as i64).collect();
            let out = normalize(data.clone(), axes, eps());
            Some(scale_shift(out, attrs, gamma, beta, ndim, axis))
        }
        ("nn.group_norm", [data, gamma, beta]) => {
            let axis = axis_of(attrs, 1, ndim)?;
            let shape = t.static_shape()?;
            let groups = attrs.get_int("num_groups").filter(|&g| g > 0)?;
            let mut grouped = Vec::new();
            let mut axes = Vec::new();
            for (i, &d) in shape.iter().enumerate() {
                if i == axis {
                    grouped.extend([groups, shape[axis] / groups]);
                } else {
                    grouped.push(d);
                }
                if i >= axis {
                    axes.push(i as i64 + 1);
                }
            }
            let reshape = |x: Expr, s: &[i64]| {
                op_call("reshape", vec![x], vec![("newshape", AttrValue::ints(s))])
            };
            let out = normalize(reshape(data.clone(), &grouped), axes, eps());
            Some(scale_shift(
                reshape(out, &shape),
                attrs,
                gamma,
                beta,
                ndim,
                axis,
            ))
        }
        ("nn.l2_normalize", [data]) => {
            let eps = scalar(DType::FLOAT32, attrs.get_float("eps")?);
            let axis = attrs.get("axis")?.clone();
            let sqr = bin("multiply", data.clone(), data.clone());
            let sum = op_call(
                "sum",
                vec![sqr],
                vec![("axis", axis), ("keepdims", AttrValue::Bool(true))],
            );
            Some(bin(
                "divide",
                data.clone(),
                un("sqrt", bin("maximum", sum, eps)),
            ))
        }
        _ => None,
    }
}

struct Simplifier;

/// The calls the pass rewrites (the rest of a program is kept as it is).
fn is_norm(op: Op) -> bool {
    matches!(
        op.name(),
        "nn.layer_norm" | "nn.instance_norm" | "nn.group_norm" | "nn.l2_normalize"
    )
}

/// The calls whose first field the pass rewrites.
fn is_dropout_or_batch_norm(op: Op) -> bool {
    matches!(op.name(), "nn.dropout" | "nn.batch_norm")
}

impl Mutator for Simplifier {
    // A subtree without a call of an op this pass rewrites comes out as it is: not walked.
    fn pre(&mut self, e: &Expr) -> Option<Expr> {
        (!e.contains().any(Contains::INFERENCE_OP)).then(|| e.clone())
    }

    fn get_item(&mut self, e: &Expr, tuple: Expr, index: usize) -> Expr {
        let orig_tuple = match e.kind() {
            ExprKind::TupleGetItem(t, _) => t,
            _ => return rebuild_get_item(e, tuple, index),
        };
        if index == 0 {
            if let Some((op, call)) = tuple.call_op_of() {
                match op.name() {
                    "nn.dropout" if call.args.len() == 1 => return call.args[0].clone(),
                    "nn.batch_norm" => {
                        let out = data_type(orig_tuple)
                            .and_then(|t| batch_norm(&call.attrs, &call.args, t));
                        if let Some(out) = out {
                            return out;
                        }
                    }
                    _ => {}
                }
            }
        }
        rebuild_get_item(e, tuple, index)
    }

    fn call(&mut self, e: &Expr, callee: Expr, args: Vec<Expr>, attrs: &Attrs) -> Expr {
        if let ExprKind::Op(op) = callee.kind() {
            if is_norm(*op) {
                if let Some(out) = data_type(e).and_then(|t| norm(op.name(), attrs, &args, t)) {
                    return out;
                }
            }
        }
        rebuild_call(e, callee, args)
    }

    fn unchanged(&mut self, e: &Expr) -> Unchanged {
        // Only normalization calls and the first field of a dropout or batch_norm change.
        Unchanged::keep_if(match e.kind() {
            ExprKind::Call(_) => !e.call_op_of().is_some_and(|(op, _)| is_norm(op)),
            ExprKind::TupleGetItem(t, 0) => !t
                .call_op_of()
                .is_some_and(|(op, _)| is_dropout_or_batch_norm(op)),
            _ => true,
        })
    }
}
