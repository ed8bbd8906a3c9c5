//! Evaluation of the data-movement ops: `reshape` (with its special values), `transpose`,
//! `expand_dims`, `squeeze`, `nn.batch_flatten`, `broadcast_to`, `strided_slice`, `split`,
//! `concatenate`, `stack`, `nn.pad` (constant mode), `full`, `full_like` (indexing ops are in
//! `indexing.rs`).
//!
//! Elements are moved, never computed, so every dtype the evaluator stores is exact. Shapes
//! and attributes are validated as TVM's type relations do; anything invalid or unsupported
//! (`take` with `batch_dims`, `mode="fast"` out of range, non-constant pad modes) gives `None`.
//! Shapes taken from attributes (`full`, `broadcast_to`, `nn.pad`, `expand_dims`) are bounded
//! by [`MAX_ELEMENTS`]: a constant that large is not worth folding, and a wrong attribute must
//! not exhaust memory.

use super::elementwise::{broadcast_shape, cast};
use super::value::{attr_dtype, each, norm_axis, Arr, Value};
use crate::ir::Attrs;
use ndarray::{ArrayD, Axis, IxDyn, Slice};

/// The largest tensor folding builds from an attribute-given shape (64 Mi elements).
pub(crate) const MAX_ELEMENTS: usize = 1 << 26;

/// The element count of `shape`, if it is at most [`MAX_ELEMENTS`].
pub(crate) fn bounded(shape: &[usize]) -> Option<usize> {
    shape
        .iter()
        .try_fold(1usize, |n, &d| n.checked_mul(d))
        .filter(|&n| n <= MAX_ELEMENTS)
}

fn reshaped<T: Clone>(a: &ArrayD<T>, shape: &[usize]) -> Option<ArrayD<T>> {
    ArrayD::from_shape_vec(IxDyn(shape), a.iter().cloned().collect()).ok()
}

fn with_arr(x: &Value, arr: Arr) -> Option<Value> {
    Value::new(x.dtype, arr)
}

/// Whether `op` is one of [`unary_layout`]'s ops.
pub(crate) fn is_layout(op: &str) -> bool {
    matches!(
        op,
        "reshape"
            | "contrib_reverse_reshape"
            | "nn.batch_flatten"
            | "expand_dims"
            | "squeeze"
            | "transpose"
            | "broadcast_to"
    )
}

/// `reshape_like(x, y)` / `broadcast_to_like(x, y)`: `x` given `y`'s shape.
pub(crate) fn like(op: &str, x: &Value, y: &Value) -> Option<Value> {
    let out = y.shape().to_vec();
    if op == "reshape_like" {
        if out.iter().product::<usize>() != x.shape().iter().product::<usize>() {
            return None;
        }
        return with_arr(x, each!(&x.arr, a => reshaped(a, &out)?));
    }
    if broadcast_shape(x.shape(), &out)? != out {
        return None;
    }
    with_arr(x, each!(&x.arr, a => a.broadcast(IxDyn(&out))?.to_owned()))
}

/// `zeros(shape, dtype)` / `ones(shape, dtype)`.
pub(crate) fn zeros_ones(one: bool, attrs: &Attrs) -> Option<Value> {
    let dt = attr_dtype(attrs, "dtype").unwrap_or(crate::ir::DType::FLOAT32);
    let fill = Value::new(
        crate::ir::DType::INT64,
        Arr::Int(ndarray::arr0(i64::from(one)).into_dyn()),
    )?;
    full(attrs, &cast(&fill, dt)?)
}

/// Ops of one tensor argument that only move data.
pub(crate) fn unary_layout(op: &str, attrs: &Attrs, x: &Value) -> Option<Value> {
    let shape = x.shape().to_vec();
    match op {
        "reshape" => {
            let out = reshape_shape(
                &shape,
                &attrs.get_ints("newshape")?,
                attrs.get_bool("allowzero").unwrap_or(false),
            )?;
            with_arr(x, each!(&x.arr, a => reshaped(a, &out)?))
        }
        // `reshape` with the input shape and `newshape` read from the right, so 0 and -2 copy
        // the trailing dimensions.
        "contrib_reverse_reshape" => {
            let rev: Vec<usize> = shape.iter().rev().copied().collect();
            let mut newshape = attrs.get_ints("newshape")?;
            newshape.reverse();
            let mut out = reshape_shape(
                &rev,
                &newshape,
                attrs.get_bool("allowzero").unwrap_or(false),
            )?;
            out.reverse();
            with_arr(x, each!(&x.arr, a => reshaped(a, &out)?))
        }
        "nn.batch_flatten" => {
            let first = *shape.first()?;
            let rest: usize = shape[1..].iter().product();
            with_arr(x, each!(&x.arr, a => reshaped(a, &[first, rest])?))
        }
        "expand_dims" => {
            let n = shape.len() as i64;
            let axis = attrs.get_int("axis")?;
            let k = attrs.get_int("num_newaxis").unwrap_or(1);
            if !(-n - 1..=n).contains(&axis) || !(0..=32).contains(&k) {
                return None;
            }
            let at = if axis < 0 { axis + n + 1 } else { axis } as usize;
            let mut out = shape[..at].to_vec();
            out.extend(std::iter::repeat_n(1, k as usize));
            out.extend_from_slice(&shape[at..]);
            with_arr(x, each!(&x.arr, a => reshaped(a, &out)?))
        }
        "squeeze" => {
            let axes: Vec<usize> = match attrs.get("axis").filter(|v| !v.is_null()) {
                None => (0..shape.len()).filter(|&i| shape[i] == 1).collect(),
                Some(v) => {
                    let list = v.as_int_list()?;
                    let axes = list
                        .iter()
                        .map(|&a| norm_axis(a, shape.len()))
                        .collect::<Option<Vec<_>>>()?;
                    if axes.iter().any(|&a| shape[a] != 1) {
                        return None;
                    }
                    axes
                }
            };
            let out: Vec<usize> = (0..shape.len())
                .filter(|i| !axes.contains(i))
                .map(|i| shape[i])
                .collect();
            with_arr(x, each!(&x.arr, a => reshaped(a, &out)?))
        }
        "transpose" => {
            let n = shape.len();
            let perm: Vec<usize> = match attrs.get("axes").and_then(|v| v.as_int_list()) {
                Some(list) if !list.is_empty() => list
                    .iter()
                    .map(|&a| norm_axis(a, n))
                    .collect::<Option<_>>()?,
                _ => (0..n).rev().collect(),
            };
            let mut seen = vec![false; n];
            if perm.len() != n || perm.iter().any(|&p| std::mem::replace(&mut seen[p], true)) {
                return None;
            }
            with_arr(
                x,
                each!(&x.arr, a => a.view().permuted_axes(IxDyn(&perm)).to_owned()),
            )
        }
        "broadcast_to" => {
            let out: Vec<usize> = attrs
                .get_ints("shape")?
                .iter()
                .map(|&d| usize::try_from(d).ok())
                .collect::<Option<_>>()?;
            if broadcast_shape(&shape, &out)? != out || bounded(&out).is_none() {
                return None;
            }
            with_arr(x, each!(&x.arr, a => a.broadcast(IxDyn(&out))?.to_owned()))
        }
        _ => None,
    }
}

/// The output shape of `reshape` (TVM's special values 0, -1, -2, -3, -4).
fn reshape_shape(ish: &[usize], newshape: &[i64], allowzero: bool) -> Option<Vec<usize>> {
    let mut out: Vec<i64> = Vec::new();
    let (mut src, mut i, mut infer) = (0usize, 0usize, None);
    while i < newshape.len() {
        match newshape[i] {
            v if v > 0 || (v == 0 && allowzero) => {
                out.push(v);
                src += 1;
            }
            0 => {
                out.push(*ish.get(src)? as i64);
                src += 1;
            }
            -1 => {
                if infer.replace(out.len()).is_some() {
                    return None;
                }
                out.push(1);
                src += 1;
            }
            -2 => {
                out.extend(ish.get(src..)?.iter().map(|&d| d as i64));
                src = ish.len();
            }
            -3 => {
                out.push((ish.get(src)? * ish.get(src + 1)?) as i64);
                src += 2;
            }
            -4 => {
                let d0 = *ish.get(src)? as i64;
                let (d1, d2) = (*newshape.get(i + 1)?, *newshape.get(i + 2)?);
                let (a, b) = match (d1, d2) {
                    (-1, -1) => return None,
                    (-1, b) if b > 0 => (d0 / b, b),
                    (a, -1) if a > 0 => (a, d0 / a),
                    (a, b) => (a, b),
                };
                out.extend([a, b]);
                src += 1;
                i += 2;
            }
            _ => return None,
        }
        i += 1;
    }
    let total: usize = ish.iter().product();
    if let Some(at) = infer {
        let rest = out
            .iter()
            .enumerate()
            .filter(|(k, _)| *k != at)
            .try_fold(1i64, |n, (_, d)| n.checked_mul(*d))?;
        if rest <= 0 || total as i64 % rest != 0 {
            return None;
        }
        out[at] = total as i64 / rest;
    }
    let out: Vec<usize> = out
        .iter()
        .map(|&d| usize::try_from(d).ok())
        .collect::<Option<_>>()?;
    (bounded(&out)? == total).then_some(out)
}

/// `split(x, indices_or_sections, axis)`.
pub(crate) fn split(attrs: &Attrs, x: &Value) -> Option<Vec<Value>> {
    let axis = norm_axis(attrs.get_int("axis").unwrap_or(0), x.ndim())?;
    let d = x.shape()[axis];
    let ios = attrs.get("indices_or_sections")?;
    let bounds: Vec<usize> = match ios.as_array() {
        Some(list) => {
            let mut b = vec![0];
            for v in list {
                let i = usize::try_from(v.as_int()?).ok()?;
                if i < *b.last()? || i > d {
                    return None;
                }
                b.push(i);
            }
            b.push(d);
            b
        }
        None => {
            let n = usize::try_from(ios.as_int()?)
                .ok()
                .filter(|&n| n > 0 && d.is_multiple_of(n))?;
            (0..=n).map(|k| k * (d / n)).collect()
        }
    };
    bounds
        .windows(2)
        .map(|w| {
            let s = Slice::from(w[0] as isize..w[1] as isize);
            with_arr(
                x,
                each!(&x.arr, a => a.slice_axis(Axis(axis), s).to_owned()),
            )
        })
        .collect()
}

/// `concatenate(tuple, axis)` and `stack(tuple, axis)`.
pub(crate) fn join(op: &str, attrs: &Attrs, xs: &[&Value]) -> Option<Value> {
    let first = *xs.first()?;
    if xs
        .iter()
        .any(|v| v.dtype != first.dtype || v.ndim() != first.ndim())
    {
        return None;
    }
    let axis = attrs.get_int("axis").unwrap_or(0);
    let rank = if op == "stack" {
        first.ndim() + 1
    } else {
        first.ndim()
    };
    let axis = Axis(norm_axis(axis, rank)?);
    macro_rules! join_as {
        ($variant:ident) => {{
            let views: Option<Vec<_>> = xs
                .iter()
                .map(|v| match &v.arr {
                    Arr::$variant(a) => Some(a.view()),
                    _ => None,
                })
                .collect();
            let views = views?;
            let out = if op == "stack" {
                ndarray::stack(axis, &views).ok()?
            } else {
                ndarray::concatenate(axis, &views).ok()?
            };
            Arr::$variant(out)
        }};
    }
    let arr = match &first.arr {
        Arr::F32(_) => join_as!(F32),
        Arr::F64(_) => join_as!(F64),
        Arr::Int(_) => join_as!(Int),
    };
    Value::new(first.dtype, arr)
}

/// `full(fill_value, shape, dtype)`: the scalar cast to the dtype, broadcast to the shape.
pub(crate) fn full(attrs: &Attrs, fill: &Value) -> Option<Value> {
    let shape: Vec<usize> = attrs
        .get_ints("shape")?
        .iter()
        .map(|&d| usize::try_from(d).ok())
        .collect::<Option<_>>()?;
    let dt = attr_dtype(attrs, "dtype").unwrap_or(fill.dtype);
    fill_to(fill, dt, &shape)
}

/// `full_like(data, fill_value)`.
pub(crate) fn full_like(data: &Value, fill: &Value) -> Option<Value> {
    fill_to(fill, data.dtype, data.shape())
}

fn fill_to(fill: &Value, dt: crate::ir::DType, shape: &[usize]) -> Option<Value> {
    if fill.ndim() != 0 || bounded(shape).is_none() {
        return None;
    }
    let v = cast(fill, dt)?;
    Value::new(
        dt,
        each!(&v.arr, a => ArrayD::from_elem(IxDyn(shape), *a.first()?)),
    )
}

/// `nn.pad(data, pad_value, pad_width)` in constant mode.
pub(crate) fn pad(attrs: &Attrs, x: &Value, value: &Value) -> Option<Value> {
    let mode = attrs.get_str("pad_mode").unwrap_or("constant");
    if !matches!(mode, "constant" | "edge" | "reflect") || value.ndim() != 0 {
        return None;
    }
    let widths = attrs.get("pad_width")?.as_array()?;
    let shape = x.shape();
    if widths.len() != shape.len() {
        return None;
    }
    let mut before = Vec::new();
    let mut out = Vec::new();
    for (w, &d) in widths.iter().zip(shape) {
        let p = w.as_int_list()?;
        let (b, a) = (
            usize::try_from(*p.first()?).ok()?,
            usize::try_from(*p.get(1)?).ok()?,
        );
        before.push(b);
        out.push(d.checked_add(b)?.checked_add(a)?);
    }
    bounded(&out)?;
    if mode != "constant" {
        // Reflection needs two elements on a padded axis (and no more padding than it has).
        let reflect = mode == "reflect";
        for (ax, &d) in shape.iter().enumerate() {
            let extra = out[ax] - d;
            if extra > 0
                && (d == 0 || reflect && (d < 2 || before[ax] >= d || extra - before[ax] >= d))
            {
                return None;
            }
        }
        let edge = if reflect { Edge::Reflect } else { Edge::Repeat };
        let arr = super::value::each!(&x.arr, a => pad_from_edges(a, edge, &before, &out));
        return Value::new(x.dtype, arr);
    }
    let v = cast(value, x.dtype)?;
    let arr = match (&x.arr, &v.arr) {
        (Arr::F32(a), Arr::F32(p)) => Arr::F32(pad_with(a, *p.first()?, &before, &out)),
        (Arr::F64(a), Arr::F64(p)) => Arr::F64(pad_with(a, *p.first()?, &before, &out)),
        (Arr::Int(a), Arr::Int(p)) => Arr::Int(pad_with(a, *p.first()?, &before, &out)),
        _ => return None,
    };
    Value::new(x.dtype, arr)
}

/// `nn.mirror_pad(x, mode, pad_width)`: `"REFLECT"` mirrors about the edge element (which is
/// not repeated, so an axis pads by less than its length), `"SYMMETRIC"` mirrors including it
/// (by at most its length).
pub(crate) fn mirror_pad(attrs: &Attrs, x: &Value) -> Option<Value> {
    let edge = match attrs.get_str("mode").unwrap_or("SYMMETRIC") {
        "REFLECT" => Edge::Reflect,
        "SYMMETRIC" => Edge::Symmetric,
        _ => return None,
    };
    let widths = attrs.get("pad_width")?.as_array()?;
    let shape = x.shape();
    if widths.len() != shape.len() {
        return None;
    }
    let (mut before, mut out) = (Vec::new(), Vec::new());
    for (w, &d) in widths.iter().zip(shape) {
        let p = w.as_int_list()?;
        let (b, a) = (
            usize::try_from(*p.first()?).ok()?,
            usize::try_from(*p.get(1)?).ok()?,
        );
        let limit = if edge == Edge::Reflect {
            d.checked_sub(1)?
        } else {
            d
        };
        if b > limit || a > limit {
            return None;
        }
        before.push(b);
        out.push(d + b + a);
    }
    bounded(&out)?;
    let arr = super::value::each!(&x.arr, a => pad_from_edges(a, edge, &before, &out));
    Value::new(x.dtype, arr)
}

/// How a padded element is taken from the edge of the input.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Edge {
    /// The nearest element repeats (`pad_mode="edge"`).
    Repeat,
    /// Mirrored about the edge element, which is not repeated (`"reflect"`).
    Reflect,
    /// Mirrored including the edge element (`mirror_pad`'s `"SYMMETRIC"`).
    Symmetric,
}

/// Pads `a` by taking each padded element from inside it as `edge` says.
fn pad_from_edges<T: Copy>(
    a: &ArrayD<T>,
    edge: Edge,
    before: &[usize],
    out: &[usize],
) -> ArrayD<T> {
    let shape = a.shape().to_vec();
    ArrayD::from_shape_fn(IxDyn(out), |idx| {
        let src: Vec<usize> = (0..shape.len())
            .map(|ax| {
                let (d, j) = (shape[ax] as i64, idx[ax] as i64 - before[ax] as i64);
                let k = match edge {
                    Edge::Reflect if j < 0 => -j,
                    Edge::Reflect if j >= d => 2 * (d - 1) - j,
                    Edge::Symmetric if j < 0 => -j - 1,
                    Edge::Symmetric if j >= d => 2 * d - 1 - j,
                    _ => j.clamp(0, d - 1),
                };
                k as usize
            })
            .collect();
        a[IxDyn(&src)]
    })
}

fn pad_with<T: Copy>(a: &ArrayD<T>, fill: T, before: &[usize], out: &[usize]) -> ArrayD<T> {
    let mut o = ArrayD::from_elem(IxDyn(out), fill);
    o.slice_each_axis_mut(|ax| {
        let b = before[ax.axis.index()];
        Slice::from(b..b + a.shape()[ax.axis.index()])
    })
    .assign(a);
    o
}
