//! The `dyn.*` ops (`src/relay/op/dyn/**` in TVM): the same ops as their static forms, with a
//! shape, axis list, scale or count given as a tensor argument instead of an attribute. Their
//! results have the extents those tensors decide as `?`; the rank comes from the static length
//! of the shape tensor, as in TVM. A shape tensor of unknown length leaves the call untyped
//! (InferType then reports that it cannot infer it; TVM rejects it outright). Also the static `sparse_to_dense` and `nn.upsampling3d`, whose dynamic forms are here.

use super::pool::spatial_indices;
use super::{Rel, RuleResult};
use crate::ir::{DType, Dim};

/// The static length of the 1-D tensor argument `i` (a shape, axis list or reps): `Ok(None)`
/// while its type is unknown.
fn length_of(r: &Rel<'_>, i: usize, what: &str) -> Result<Option<usize>, String> {
    let Some(t) = r.tensor(i)? else {
        return Ok(None);
    };
    match t.shape.as_slice() {
        [d] => match d.as_static() {
            Some(n) if (0..=crate::limits::MAX_TENSOR_NDIM as i64).contains(&n) => {
                Ok(Some(n as usize))
            }
            Some(n) => r.fail(format!(
                "the {what} has {n} entries, more than a tensor's rank"
            )),
            // A result of unknown rank: not typed (TVM rejects it; DynamicToStatic folds such a
            // shape to a constant before the call is typed).
            None => Ok(None),
        },
        _ => r.fail(format!("the {what} must be a 1-D tensor, found {t}")),
    }
}

fn any(rank: usize) -> Vec<Dim> {
    vec![Dim::Any; rank]
}

/// `dyn.reshape(data, newshape)` and `dyn.broadcast_to(data, shape)`: the rank is the shape
/// tensor's length, every extent `?`.
pub(super) fn reshape_like_shape(r: &mut Rel<'_>) -> RuleResult {
    let (Some(data), Some(n)) = (r.tensor(0)?, length_of(r, 1, "shape")?) else {
        return Ok(false);
    };
    r.done_tensor(any(n), data.dtype)
}

/// `dyn.zeros(shape)` / `dyn.ones(shape)`.
pub(super) fn init_op(r: &mut Rel<'_>) -> RuleResult {
    let Some(n) = length_of(r, 0, "shape")? else {
        return Ok(false);
    };
    let dt = r.dtype("dtype")?.unwrap_or(DType::FLOAT32);
    r.done_tensor(any(n), dt)
}

/// `dyn.full(fill_value, shape)`.
pub(super) fn full(r: &mut Rel<'_>) -> RuleResult {
    let (Some(v), Some(n)) = (r.tensor(0)?, length_of(r, 1, "shape")?) else {
        return Ok(false);
    };
    if !v.shape.is_empty() {
        return r.fail(format!("the fill value must be a scalar, found {v}"));
    }
    let dt = r.dtype("dtype")?.unwrap_or(v.dtype);
    r.done_tensor(any(n), dt)
}

/// `dyn.tile(data, reps)`: rank `max(rank(data), len(reps))`.
pub(super) fn tile(r: &mut Rel<'_>) -> RuleResult {
    let (Some(data), Some(n)) = (r.tensor(0)?, length_of(r, 1, "reps")?) else {
        return Ok(false);
    };
    r.done_tensor(any(n.max(data.shape.len())), data.dtype)
}

/// `dyn.squeeze(data, axis)`: the rank drops by the axis list's length.
pub(super) fn squeeze(r: &mut Rel<'_>) -> RuleResult {
    let (Some(data), Some(n)) = (r.tensor(0)?, length_of(r, 1, "axis list")?) else {
        return Ok(false);
    };
    let Some(rank) = data.shape.len().checked_sub(n) else {
        return r.fail(format!("cannot squeeze {n} axes out of {data}"));
    };
    r.done_tensor(any(rank), data.dtype)
}

/// `dyn.expand_dims(data, axis)`: `num_newaxis` more axes.
pub(super) fn expand_dims(r: &mut Rel<'_>) -> RuleResult {
    let (Some(data), Some(axis)) = (r.tensor(0)?, r.tensor(1)?) else {
        return Ok(false);
    };
    if !axis.shape.is_empty() {
        return r.fail(format!("the axis must be a scalar, found {axis}"));
    }
    let k = r.int_or("num_newaxis", 1)?;
    if !(0..=crate::limits::MAX_TENSOR_NDIM as i64).contains(&k) {
        return r.fail(format!("num_newaxis {k} is out of range"));
    }
    r.done_tensor(any(data.shape.len() + k as usize), data.dtype)
}

/// `dyn.strided_slice(data, begin, end, strides)`: the data's rank, every extent `?`.
pub(super) fn strided_slice(r: &mut Rel<'_>) -> RuleResult {
    let Some(data) = r.tensor(0)? else {
        return Ok(false);
    };
    for (i, what) in [(1, "begin"), (2, "end"), (3, "strides")] {
        if let Some(t) = r.tensor(i)? {
            if t.shape.len() != 1 {
                return r.fail(format!("`{what}` must be a 1-D tensor, found {t}"));
            }
        }
    }
    r.done_tensor(any(data.shape.len()), data.dtype)
}

/// `dyn.topk(data, k)`: the extent along `axis` is `?`.
pub(super) fn topk(r: &mut Rel<'_>) -> RuleResult {
    let (Some(data), Some(k)) = (r.tensor(0)?, r.tensor(1)?) else {
        return Ok(false);
    };
    if !k.shape.is_empty() {
        return r.fail(format!("`k` must be a scalar, found {k}"));
    }
    let axis = r.axis(r.int_or("axis", -1)?, data.shape.len())?;
    let mut shape = data.shape.clone();
    shape[axis] = Dim::Any;
    super::transform::topk_result(r, shape, data.dtype)
}

/// `dyn.one_hot(indices, on_value, off_value, depth)`: a `?` axis inserted at `axis`.
pub(super) fn one_hot(r: &mut Rel<'_>) -> RuleResult {
    let (Some(idx), Some(on)) = (r.tensor(0)?, r.tensor(1)?) else {
        return Ok(false);
    };
    let n = idx.shape.len() as i64;
    let axis = r.int_or("axis", -1)?;
    let at = if axis < 0 { n + 1 + axis } else { axis };
    if at < 0 || at > n {
        return r.fail(format!("axis {axis} is out of range for indices {idx}"));
    }
    let mut out = idx.shape.clone();
    out.insert(at as usize, Dim::Any);
    let dt = r.dtype("dtype")?.unwrap_or(on.dtype);
    r.done_tensor(out, dt)
}

/// `dyn.image.resize2d(data, size, roi)`: H and W are `?`.
pub(super) fn resize2d(r: &mut Rel<'_>) -> RuleResult {
    let Some(data) = r.tensor(0)? else {
        return Ok(false);
    };
    let idx = spatial_indices(r, "HW", "NCHW", data.shape.len())?;
    let mut out = data.shape.clone();
    for i in idx {
        out[i] = Dim::Any;
    }
    let dt = r.dtype("out_dtype")?.unwrap_or(data.dtype);
    r.done_tensor(out, dt)
}

/// `dyn.nn.upsampling(data, scale_h, scale_w)` and `dyn.nn.upsampling3d(data, scale_d,
/// scale_h, scale_w)`: the scaled axes are `?`.
pub(super) fn upsampling(r: &mut Rel<'_>) -> RuleResult {
    let Some(data) = r.tensor(0)? else {
        return Ok(false);
    };
    let (sp, default) = if r.op == "dyn.nn.upsampling3d" {
        ("DHW", "NCDHW")
    } else {
        ("HW", "NCHW")
    };
    let idx = spatial_indices(r, sp, default, data.shape.len())?;
    let mut out = data.shape.clone();
    for i in idx {
        out[i] = Dim::Any;
    }
    r.done_tensor(out, data.dtype)
}

/// `nn.upsampling3d(data)`: D, H and W scaled by `scale_d`, `scale_h`, `scale_w` (rounded).
pub(super) fn upsampling3d(r: &mut Rel<'_>) -> RuleResult {
    let Some(data) = r.tensor(0)? else {
        return Ok(false);
    };
    let idx = spatial_indices(r, "DHW", "NCDHW", data.shape.len())?;
    let scales = [
        r.float("scale_d")?,
        r.float("scale_h")?,
        r.float("scale_w")?,
    ];
    let mut out = data.shape.clone();
    for (i, s) in idx.iter().zip(scales) {
        out[*i] = super::dim_map(&data.shape[*i], |x| (x as f64 * s).round() as i64);
    }
    r.done_tensor(out, data.dtype)
}

/// `dyn.nn.pad(data, pad_width, pad_value)`: the data's rank, every extent `?`.
pub(super) fn pad(r: &mut Rel<'_>) -> RuleResult {
    let (Some(data), Some(width)) = (r.tensor(0)?, r.tensor(1)?) else {
        return Ok(false);
    };
    if width.shape.len() != 2 {
        return r.fail(format!("`pad_width` must be a 2-D tensor, found {width}"));
    }
    if let Some(v) = r.tensor(2)? {
        if !v.shape.is_empty() {
            return r.fail(format!("the pad value must be a scalar, found {v}"));
        }
    }
    r.done_tensor(any(data.shape.len()), data.dtype)
}

/// `sparse_to_dense(indices, values, default_value)` with `output_shape`, or
/// `dyn.sparse_to_dense(indices, values, default_value, output_shape)`: the values' dtype.
pub(super) fn sparse_to_dense(r: &mut Rel<'_>) -> RuleResult {
    let (Some(indices), Some(values)) = (r.tensor(0)?, r.tensor(1)?) else {
        return Ok(false);
    };
    if indices.shape.len() > 2 || values.shape.len() > 1 {
        return r.fail(format!(
            "the indices must have rank at most 2 and the values rank at most 1, found \
             {indices} and {values}"
        ));
    }
    if !indices.dtype.is_int() {
        return r.fail(format!("the indices must be integers, found {indices}"));
    }
    if let Some(d) = r.tensor(2)? {
        if !d.shape.is_empty() || d.dtype != values.dtype {
            return r.fail(format!(
                "the default value must be a scalar of the values' dtype, found {d}"
            ));
        }
    }
    let shape = if r.op == "dyn.sparse_to_dense" {
        let Some(n) = length_of(r, 3, "output shape")? else {
            return Ok(false);
        };
        any(n)
    } else {
        match r.dims("output_shape")? {
            Some(s) => s,
            None => return r.fail("needs the attribute `output_shape`"),
        }
    };
    r.done_tensor(shape, values.dtype)
}
