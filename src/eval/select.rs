//! Evaluation of more ops that TVM's FoldConstant folds (its interpreter runs every op with a
//! compute): `slice_like`, `gather_nd`, and the running scans `cumsum` / `cumprod`.
//!
//! As everywhere in the evaluator, an argument or attribute the op rejects (an index out of
//! range) gives `None`: the call is not folded.

use super::indexing::gather_axes;
use super::shape_ops::bounded;
use super::value::{attr_dtype, each, from_vec, norm_axis, Arr, Value};
use crate::ir::Attrs;
use ndarray::{ArrayD, IxDyn};

/// `slice_like(x, like, axes)`: the leading part of `x` on `axes` (every axis both have when
/// null), as long as `like` is there.
pub(crate) fn slice_like(attrs: &Attrs, x: &Value, like: &Value) -> Option<Value> {
    let (xs, ls) = (x.shape(), like.shape());
    let axes: Vec<usize> = match attrs.get_ints("axes") {
        Some(a) => a
            .iter()
            .map(|&i| norm_axis(i, xs.len()).filter(|&k| k < ls.len()))
            .collect::<Option<_>>()?,
        None => (0..xs.len().min(ls.len())).collect(),
    };
    let mut idx: Vec<Vec<usize>> = xs.iter().map(|&d| (0..d).collect()).collect();
    for k in axes {
        if ls[k] > xs[k] {
            return None;
        }
        idx[k].truncate(ls[k]);
    }
    Value::new(x.dtype, each!(&x.arr, a => gather_axes(a, &idx)?))
}

/// `gather_nd(x, indices, batch_dims)`: `indices (M, Y...)` gives the coordinates of the first
/// `M` axes after the batch axes; the result is `(Y...) + x.shape[batch + M..]`.
pub(crate) fn gather_nd(attrs: &Attrs, x: &Value, indices: &Value) -> Option<Value> {
    let batch = usize::try_from(attrs.get_int("batch_dims").unwrap_or(0)).ok()?;
    let Arr::Int(ind) = &indices.arr else {
        return None;
    };
    let (xs, is) = (x.shape(), indices.shape());
    let m = *is.first()?;
    if batch + m > xs.len() || is.len() < batch + 1 || (0..batch).any(|i| xs[i] != is[i + 1]) {
        return None;
    }
    let ys = &is[1..];
    let rest: usize = xs[batch + m..].iter().product();
    let count: usize = ys.iter().product();
    let mut shape = ys.to_vec();
    shape.extend_from_slice(&xs[batch + m..]);
    bounded(&shape)?;
    // Row-major strides of `x`.
    let mut strides = vec![1usize; xs.len()];
    for k in (0..xs.len().saturating_sub(1)).rev() {
        strides[k] = strides[k + 1] * xs[k + 1];
    }
    let ind = ind.as_standard_layout();
    let ind = ind.as_slice()?;
    // The batch coordinates of output position `p` come from `p`'s own leading axes.
    let batch_inner: usize = ys[batch.min(ys.len())..].iter().product();
    let mut starts = Vec::with_capacity(count);
    for p in 0..count {
        let mut off = 0usize;
        let mut rem = p / batch_inner.max(1);
        for b in (0..batch).rev() {
            off += (rem % xs[b]) * strides[b];
            rem /= xs[b].max(1);
        }
        for (j, &stride) in strides[batch..batch + m].iter().enumerate() {
            let i = ind[j * count + p];
            let d = xs[batch + j] as i64;
            let i = if i < 0 { i + d } else { i };
            if !(0..d).contains(&i) {
                return None;
            }
            off += i as usize * stride;
        }
        starts.push(off);
    }
    let arr = each!(&x.arr, a => {
        let src = a.as_standard_layout();
        let s = src.as_slice()?;
        let vals = starts.iter().flat_map(|&o| s[o..o + rest].iter().copied());
        from_vec(&shape, vals)?
    });
    Value::new(x.dtype, arr)
}

/// `cumsum` / `cumprod(x, axis, dtype, exclusive)`: the running sum or product along `axis`
/// (the flattened input when `axis` is null).
pub(crate) fn scan(product: bool, attrs: &Attrs, x: &Value) -> Option<Value> {
    let dtype = attr_dtype(attrs, "dtype").unwrap_or(x.dtype);
    if matches!(x.arr, Arr::F32(_)) && dtype != crate::ir::DType::FLOAT32 {
        // float16 / bfloat16 round after every step in TVM; not evaluated.
        return None;
    }
    let x = if dtype == x.dtype {
        x.clone()
    } else {
        super::elementwise::cast(x, dtype)?
    };
    let exclusive = attrs.get_bool("exclusive").unwrap_or(false);
    let (x, axis) = match attrs.get_int("axis") {
        Some(a) => {
            let axis = norm_axis(a, x.ndim())?;
            (x, axis)
        }
        None => {
            let n: usize = x.shape().iter().product();
            let flat = Value::new(
                x.dtype,
                each!(&x.arr, a => a.to_shape(IxDyn(&[n])).ok()?.to_owned()),
            )?;
            (flat, 0)
        }
    };
    fn run<T: Copy>(
        a: &ArrayD<T>,
        axis: usize,
        exclusive: bool,
        init: T,
        f: impl Fn(T, T) -> T,
    ) -> ArrayD<T> {
        let mut out = a.as_standard_layout().to_owned();
        for mut lane in out.lanes_mut(ndarray::Axis(axis)) {
            let mut acc = init;
            for v in lane.iter_mut() {
                let cur = *v;
                let next = f(acc, cur);
                *v = if exclusive { acc } else { next };
                acc = next;
            }
        }
        out
    }
    let arr = match &x.arr {
        Arr::F32(a) if product => Arr::F32(run(a, axis, exclusive, 1.0, |p, q| p * q)),
        Arr::F32(a) => Arr::F32(run(a, axis, exclusive, 0.0, |p, q| p + q)),
        Arr::F64(a) if product => Arr::F64(run(a, axis, exclusive, 1.0, |p, q| p * q)),
        Arr::F64(a) => Arr::F64(run(a, axis, exclusive, 0.0, |p, q| p + q)),
        Arr::Int(a) if product => Arr::Int(run(a, axis, exclusive, 1, i64::wrapping_mul)),
        Arr::Int(a) => Arr::Int(run(a, axis, exclusive, 0, i64::wrapping_add)),
    };
    Value::new(x.dtype, arr)
}

/// `sparse_to_dense(indices, values, default_value, output_shape)`: a tensor of
/// `output_shape` filled with `default_value`, with `values` (one per index, or one scalar for
/// all) at `indices` (a 0-d or 1-D index into a 1-D output, or one row of coordinates per
/// value). An index outside the output gives `None`.
pub(crate) fn sparse_to_dense(
    attrs: &Attrs,
    indices: &Value,
    values: &Value,
    default: &Value,
) -> Option<Value> {
    let shape: Vec<usize> = attrs
        .get_ints("output_shape")?
        .iter()
        .map(|&d| usize::try_from(d).ok())
        .collect::<Option<_>>()?;
    bounded(&shape)?;
    let Arr::Int(ind) = &indices.arr else {
        return None;
    };
    if default.ndim() != 0 || values.ndim() > 1 || default.dtype != values.dtype {
        return None;
    }
    // One row of coordinates per value.
    let rows: Vec<Vec<i64>> = match ind.ndim() {
        0 | 1 => ind.iter().map(|&i| vec![i]).collect(),
        2 => ind
            .outer_iter()
            .map(|r| r.iter().copied().collect())
            .collect(),
        _ => return None,
    };
    if values.ndim() == 1 && values.shape()[0] != rows.len() {
        return None;
    }
    let flat = |row: &[i64]| -> Option<usize> {
        if row.len() != shape.len() {
            return None;
        }
        row.iter().zip(&shape).try_fold(0usize, |acc, (&i, &d)| {
            let i = usize::try_from(i).ok().filter(|&i| i < d)?;
            Some(acc * d + i)
        })
    };
    let places: Vec<usize> = rows.iter().map(|r| flat(r)).collect::<Option<_>>()?;
    let arr = match (&values.arr, &default.arr) {
        (Arr::F32(a), Arr::F32(d)) => Arr::F32(scatter(a, *d.first()?, &shape, &places)?),
        (Arr::F64(a), Arr::F64(d)) => Arr::F64(scatter(a, *d.first()?, &shape, &places)?),
        (Arr::Int(a), Arr::Int(d)) => Arr::Int(scatter(a, *d.first()?, &shape, &places)?),
        _ => return None,
    };
    Value::new(values.dtype, arr)
}

/// `fill` in `shape`, with `a`'s values (or its one scalar) at the flat `places`.
fn scatter<T: Copy>(
    a: &ArrayD<T>,
    fill: T,
    shape: &[usize],
    places: &[usize],
) -> Option<ArrayD<T>> {
    let mut out = vec![fill; shape.iter().product()];
    for (k, &p) in places.iter().enumerate() {
        out[p] = if a.ndim() == 0 { *a.first()? } else { a[[k]] };
    }
    ArrayD::from_shape_vec(IxDyn(shape), out).ok()
}
