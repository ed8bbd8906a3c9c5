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
