//! Evaluation of the normalizations and the ops around them: `nn.batch_norm` (its three
//! outputs), `nn.layer_norm`, `nn.instance_norm`, `nn.lrn`, `nn.prelu` and `nn.dropout`
//! (the identity, as at inference, with a mask of ones).
//!
//! Each is written as TVM's `topi` computes it, step by step in the dtype through the
//! elementwise kernels: `(x - mean) / sqrt(var + epsilon) * gamma + beta` with the statistics
//! of `batch_norm` given and those of `layer_norm` / `instance_norm` computed (`var` the mean
//! of the squared deviations); `lrn` divides by `(bias + alpha * sum / size) ^ beta` over a
//! window of `size` channels centred on each. Floats only.

use super::elementwise::{binary, unary};
use super::nn::along_axis;
use super::pool::reshaped;
use super::reduce::{mean_keep, sum_keep};
use super::value::{norm_axis, Arr, Value};
use crate::ir::Attrs;
use num_traits::Float;

fn scalar_like(x: &Value, v: f64) -> Option<Value> {
    let arr = match &x.arr {
        Arr::F32(_) => Arr::F32(ndarray::arr0(v as f32).into_dyn()),
        Arr::F64(_) => Arr::F64(ndarray::arr0(v).into_dyn()),
        Arr::Int(_) => return None,
    };
    Value::new(x.dtype, arr)
}

fn sqrt(x: &Value) -> Option<Value> {
    unary("sqrt", &Attrs::default(), x)
}

/// `(x - mean) / sqrt(var + eps)`, then `* gamma`, `+ beta` when asked.
#[allow(clippy::too_many_arguments)]
fn normalize(
    x: &Value,
    mean: &Value,
    var: &Value,
    eps: f64,
    gamma: Option<&Value>,
    beta: Option<&Value>,
) -> Option<Value> {
    let std = sqrt(&binary("add", var, &scalar_like(var, eps)?)?)?;
    let mut out = binary("divide", &binary("subtract", x, mean)?, &std)?;
    if let Some(g) = gamma {
        out = binary("multiply", &out, g)?;
    }
    if let Some(b) = beta {
        out = binary("add", &out, b)?;
    }
    Some(out)
}

fn flags(attrs: &Attrs) -> (f64, bool, bool) {
    (
        attrs.get_float("epsilon").unwrap_or(1e-5),
        attrs.get_bool("center").unwrap_or(true),
        attrs.get_bool("scale").unwrap_or(true),
    )
}

/// `nn.batch_norm(x, gamma, beta, moving_mean, moving_var)` -> (out, mean, var).
pub(crate) fn batch_norm(attrs: &Attrs, args: [&Value; 5]) -> Option<Vec<Value>> {
    let [x, gamma, beta, mean, var] = args;
    let axis = norm_axis(attrs.get_int("axis").unwrap_or(1), x.ndim())?;
    let c = x.shape()[axis];
    if [gamma, beta, mean, var]
        .iter()
        .any(|v| v.shape() != [c] || v.dtype != x.dtype)
    {
        return None;
    }
    let (eps, center, scale) = flags(attrs);
    let along = |v: &Value| along_axis(v, x.ndim(), axis);
    let (g, b) = (along(gamma)?, along(beta)?);
    let out = normalize(
        x,
        &along(mean)?,
        &along(var)?,
        eps,
        scale.then_some(&g),
        center.then_some(&b),
    )?;
    Some(vec![out, mean.clone(), var.clone()])
}

/// Mean and variance over `axes`, kept as dimensions of 1.
fn moments(x: &Value, axes: &[usize]) -> Option<(Value, Value)> {
    let mean = mean_keep(x, axes)?;
    let dev = binary("subtract", x, &mean)?;
    let var = mean_keep(&binary("multiply", &dev, &dev)?, axes)?;
    Some((mean, var))
}

/// `nn.layer_norm(x, gamma, beta, axis=-1)`.
pub(crate) fn layer_norm(attrs: &Attrs, x: &Value, gamma: &Value, beta: &Value) -> Option<Value> {
    let axis = norm_axis(attrs.get_int("axis").unwrap_or(-1), x.ndim())?;
    let c = x.shape()[axis];
    if gamma.shape() != [c] || beta.shape() != [c] {
        return None;
    }
    affine_norm(attrs, x, gamma, beta, axis, &[axis])
}

/// `nn.instance_norm(x, gamma, beta, axis=1)`: statistics over every axis but 0 and `axis`.
pub(crate) fn instance_norm(
    attrs: &Attrs,
    x: &Value,
    gamma: &Value,
    beta: &Value,
) -> Option<Value> {
    let axis = norm_axis(attrs.get_int("axis").unwrap_or(1), x.ndim())?;
    let c = x.shape()[axis];
    if gamma.shape() != [c] || beta.shape() != [c] || axis == 0 {
        return None;
    }
    let axes: Vec<usize> = (1..x.ndim()).filter(|&a| a != axis).collect();
    affine_norm(attrs, x, gamma, beta, axis, &axes)
}

/// `x` normalized by its mean and variance over `axes`, then scaled by `gamma` and shifted by
/// `beta` (each of the length of `axis`) as the attributes `epsilon`, `scale` and `center` say.
fn affine_norm(
    attrs: &Attrs,
    x: &Value,
    gamma: &Value,
    beta: &Value,
    axis: usize,
    axes: &[usize],
) -> Option<Value> {
    let (eps, center, scale) = flags(attrs);
    let (mean, var) = moments(x, axes)?;
    let (g, b) = (
        along_axis(gamma, x.ndim(), axis)?,
        along_axis(beta, x.ndim(), axis)?,
    );
    normalize(
        x,
        &mean,
        &var,
        eps,
        scale.then_some(&g),
        center.then_some(&b),
    )
}

/// `nn.group_norm(x, gamma, beta, num_groups, axis=1)`: the channels of `axis` split into
/// `num_groups` groups, each normalized by its statistics over its channels and every later
/// axis (TVM's topi reshapes to `[.., G, C / G, ..]` the same way), then scaled and shifted
/// per channel.
pub(crate) fn group_norm(attrs: &Attrs, x: &Value, gamma: &Value, beta: &Value) -> Option<Value> {
    let shape = x.shape().to_vec();
    let axis = norm_axis(attrs.get_int("axis").unwrap_or(1), shape.len())?;
    let c = shape[axis];
    let groups = usize::try_from(attrs.get_int("num_groups")?).ok()?;
    if groups == 0 || !c.is_multiple_of(groups) || gamma.shape() != [c] || beta.shape() != [c] {
        return None;
    }
    let mut grouped = shape[..axis].to_vec();
    grouped.extend([groups, c / groups]);
    grouped.extend_from_slice(&shape[axis + 1..]);
    let xg = reshaped(x, &grouped)?;
    let axes: Vec<usize> = (axis + 1..grouped.len()).collect();
    let (mean, var) = moments(&xg, &axes)?;
    let (eps, center, scale) = flags(attrs);
    let out = reshaped(&normalize(&xg, &mean, &var, eps, None, None)?, &shape)?;
    let (g, b) = (
        along_axis(gamma, shape.len(), axis)?,
        along_axis(beta, shape.len(), axis)?,
    );
    let out = if scale {
        binary("multiply", &out, &g)?
    } else {
        out
    };
    if center {
        binary("add", &out, &b)
    } else {
        Some(out)
    }
}

/// `nn.l2_normalize(x, eps, axis)`: `x / sqrt(max(sum(x * x, axis), eps))`, the sum kept as
/// dimensions of 1 (every axis when `axis` is empty).
pub(crate) fn l2_normalize(attrs: &Attrs, x: &Value) -> Option<Value> {
    let nd = x.ndim();
    let mut axes: Vec<usize> = match attrs.get_ints("axis") {
        Some(a) if !a.is_empty() => a.iter().map(|&i| norm_axis(i, nd)).collect::<Option<_>>()?,
        _ => (0..nd).collect(),
    };
    axes.sort_unstable();
    axes.dedup();
    let eps = attrs.get_float("eps").unwrap_or(0.0);
    let sq = sum_keep(&binary("multiply", x, x)?, &axes)?;
    let norm = sqrt(&binary("maximum", &sq, &scalar_like(&sq, eps)?)?)?;
    binary("divide", x, &norm)
}

/// `nn.lrn(x, size, axis, bias, alpha, beta)`.
pub(crate) fn lrn(attrs: &Attrs, x: &Value) -> Option<Value> {
    let axis = norm_axis(attrs.get_int("axis").unwrap_or(1), x.ndim())?;
    let size = usize::try_from(attrs.get_int("size").unwrap_or(5))
        .ok()
        .filter(|&s| s > 0)?;
    let bias = attrs.get_float("bias").unwrap_or(2.0);
    let alpha = attrs.get_float("alpha").unwrap_or(1e-4);
    let beta = attrs.get_float("beta").unwrap_or(0.75);
    let arr = match &x.arr {
        Arr::F32(a) => Arr::F32(lrn_along(a, axis, size, [bias, alpha, beta])?),
        Arr::F64(a) => Arr::F64(lrn_along(a, axis, size, [bias, alpha, beta])?),
        Arr::Int(_) => return None,
    };
    Value::new(x.dtype, arr)
}

fn lrn_along<F: Float>(
    a: &ndarray::ArrayD<F>,
    axis: usize,
    size: usize,
    [bias, alpha, beta]: [f64; 3],
) -> Option<ndarray::ArrayD<F>> {
    let (bias, alpha, beta, n) = (
        F::from(bias)?,
        F::from(alpha)?,
        F::from(beta)?,
        F::from(size)?,
    );
    let mut out = a.clone();
    let half = size / 2;
    let mut sq: Vec<F> = Vec::new();
    for (src, mut dst) in a
        .lanes(ndarray::Axis(axis))
        .into_iter()
        .zip(out.lanes_mut(ndarray::Axis(axis)))
    {
        sq.clear();
        sq.extend(src.iter().map(|&v| v * v));
        let len = sq.len();
        for (c, d) in dst.iter_mut().enumerate() {
            let (lo, hi) = (c.saturating_sub(half), (c + half + 1).min(len));
            let sum = sq[lo..hi].iter().fold(F::zero(), |s, &v| s + v);
            *d = src[c] / (bias + alpha * sum / n).powf(beta);
        }
    }
    Some(out)
}

/// `nn.prelu(x, alpha, axis=1)`: `x` where positive, `alpha * x` elsewhere.
pub(crate) fn prelu(attrs: &Attrs, x: &Value, alpha: &Value) -> Option<Value> {
    let axis = norm_axis(attrs.get_int("axis").unwrap_or(1), x.ndim())?;
    if alpha.shape() != [x.shape()[axis]] {
        return None;
    }
    let scaled = binary("multiply", x, &along_axis(alpha, x.ndim(), axis)?)?;
    let zero = scalar_like(x, 0.0)?;
    super::elementwise::where_(&binary("greater", x, &zero)?, x, &scaled)
}

/// `nn.dropout(x)` at inference: `(x, ones)`.
pub(crate) fn dropout(x: &Value) -> Option<Vec<Value>> {
    let ones = unary("ones_like", &Attrs::default(), x)?;
    Some(vec![x.clone(), ones])
}
