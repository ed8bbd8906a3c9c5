//! Combining, splitting and indexing rules (`src/relay/op/tensor/transform.cc` in TVM):
//! concatenate, stack, split, take, strided_slice, tile, repeat, broadcast_to(_like),
//! collapse_sum_like, collapse_sum_to and one_hot. Rank-changing reshapes live in `reshape.rs`.
//!
//! Extents that are `?` stay `?`; checks that TVM does with `ICHECK`/`AssertEQ` on static
//! extents are errors here. Only the static (attribute) forms are here; the `dyn.*` variants
//! that take shapes as tensors are in `dynamic.rs`.

use super::elemwise::broadcast_shapes;
use super::{dim_map, dim_op, dims_conflict, shape_str, Rel, RuleResult};
use crate::ir::attrs::AttrValue;
use crate::ir::{Dim, Type};

pub(super) fn concatenate(r: &mut Rel<'_>) -> RuleResult {
    let Some(fields) = r.tensor_tuple(0)? else {
        return Ok(false);
    };
    let Some(first) = fields.first() else {
        return r.fail("needs at least one tensor to concatenate");
    };
    let n = first.shape.len();
    let axis = r.axis(r.int_or("axis", 0)?, n)?;
    let mut out = first.shape.clone();
    for f in &fields[1..] {
        if f.shape.len() != n || f.dtype != first.dtype {
            return r.mismatch(format!(
                "all tensors must have the same rank and dtype: {first} vs {f}"
            ));
        }
        for (i, d) in f.shape.iter().enumerate() {
            if i == axis {
                out[i] = if matches!(d, Dim::Any) {
                    Dim::Any
                } else {
                    dim_op(&out[i], d, i64::saturating_add)
                };
            } else if dims_conflict(&out[i], d) {
                return r.mismatch(format!(
                    "all tensors must have the same shape on non-concatenating axes: {first} vs {f}"
                ));
            } else if matches!(out[i], Dim::Any) {
                out[i] = d.clone();
            }
        }
    }
    if matches!(first.shape[axis], Dim::Any) {
        out[axis] = Dim::Any;
    }
    r.done_tensor(out, first.dtype)
}

/// `einsum(data, equation)` (TVM's `EinsumRel`): the output's axes as the equation names
/// them, each the extent of its label in the operands (see `crate::eval::einsum`).
pub(super) fn einsum(r: &mut Rel<'_>) -> RuleResult {
    let Some(fields) = r.tensor_tuple(0)? else {
        return Ok(false);
    };
    let Some(first) = fields.first() else {
        return r.fail("needs at least one operand");
    };
    if fields.iter().any(|f| f.dtype != first.dtype) {
        return r.mismatch("all operands must have the same dtype".to_string());
    }
    let Some(equation) = r.attr("equation").and_then(AttrValue::as_str) else {
        return r.fail("needs the string attribute `equation`");
    };
    let ranks: Vec<usize> = fields.iter().map(|f| f.shape.len()).collect();
    let shapes: Vec<&[Dim]> = fields.iter().map(|f| &f.shape[..]).collect();
    let out = crate::eval::einsum::parse(equation, &ranks).and_then(|spec| {
        spec.output_dims(
            &shapes,
            |d| d.as_static() == Some(1),
            |a, b| !dims_conflict(a, b),
            Dim::Static(1),
        )
    });
    match out {
        Ok(shape) => r.done_tensor(shape, first.dtype),
        Err(e) => r.fail(e),
    }
}

pub(super) fn stack(r: &mut Rel<'_>) -> RuleResult {
    let Some(fields) = r.tensor_tuple(0)? else {
        return Ok(false);
    };
    let Some(first) = fields.first() else {
        return r.fail("needs at least one tensor to stack");
    };
    let n = first.shape.len();
    let axis = r.axis(r.int_or("axis", 0)?, n + 1)?;
    for f in &fields[1..] {
        if f.shape.len() != n
            || f.dtype != first.dtype
            || f.shape
                .iter()
                .zip(&first.shape)
                .any(|(a, b)| dims_conflict(a, b))
        {
            return r.mismatch(format!(
                "all tensors must have the same type: {first} vs {f}"
            ));
        }
    }
    let mut out = first.shape.clone();
    out.insert(axis, Dim::Static(fields.len() as i64));
    r.done_tensor(out, first.dtype)
}

pub(super) fn split(r: &mut Rel<'_>) -> RuleResult {
    let Some(data) = r.tensor(0)? else {
        return Ok(false);
    };
    if data.shape.is_empty() {
        return r.fail("cannot split a scalar");
    }
    let axis = r.axis(r.int_or("axis", 0)?, data.shape.len())?;
    let dim = &data.shape[axis];
    let piece = |d: Dim| {
        let mut s = data.shape.clone();
        s[axis] = d;
        super::tensor(s, data.dtype)
    };
    let fields: Vec<Type> = match r.attr("indices_or_sections") {
        Some(AttrValue::Int(sections, _)) => {
            let k = *sections;
            if k <= 0 {
                return r.fail(format!("cannot split into {k} sections"));
            }
            if dim.as_static().is_some_and(|d| d % k != 0) {
                return r.fail(format!(
                    "{k} sections do not divide the extent {dim} of axis {axis}"
                ));
            }
            (0..k).map(|_| piece(dim_map(dim, |d| d / k))).collect()
        }
        Some(v @ AttrValue::Array(_)) => {
            let Some(idx) = v.as_int_list() else {
                return r.fail("indices_or_sections must be an integer or a list of integers");
            };
            let mut begin = 0;
            let mut fields = Vec::with_capacity(idx.len() + 1);
            for &i in &idx {
                if i <= begin {
                    return r.fail("indices_or_sections must be a sorted ascending list");
                }
                fields.push(piece(Dim::Static(i - begin)));
                begin = i;
            }
            if dim.as_static().is_some_and(|d| begin >= d) {
                return r.fail(format!(
                    "split index {begin} is out of range for extent {dim}"
                ));
            }
            fields.push(piece(dim_map(dim, |d| d - begin)));
            fields
        }
        _ => return r.fail("needs the attribute `indices_or_sections`"),
    };
    r.done(Type::tuple(fields))
}

pub(super) fn take(r: &mut Rel<'_>) -> RuleResult {
    let (Some(data), Some(idx)) = (r.tensor(0)?, r.tensor(1)?) else {
        return Ok(false);
    };
    if !idx.dtype.is_int() {
        return r.mismatch(format!("the indices must be integers, found {idx}"));
    }
    let Some(axis) = r.opt_int("axis")? else {
        return r.done_tensor(idx.shape.clone(), data.dtype);
    };
    let (nd, ni) = (data.shape.len() as i64, idx.shape.len() as i64);
    let axis = if axis < 0 { axis + nd } else { axis };
    let bd = r.int_or("batch_dims", 0)?;
    let bd = if bd < 0 { bd + ni } else { bd };
    if axis < 0 || axis >= nd.max(1) || bd < 0 || bd > ni || bd > axis {
        return r.fail(format!(
            "axis {axis} / batch_dims {bd} are out of range for data {data} and indices {idx}"
        ));
    }
    let (axis, bd) = (axis as usize, bd as usize);
    let mut out = data.shape[..axis].to_vec();
    out.extend_from_slice(&idx.shape[bd..]);
    out.extend_from_slice(data.shape.get(axis + 1..).unwrap_or(&[]));
    r.done_tensor(out, data.dtype)
}

/// TVM's `CanonicalizeIndex`: negative indices count from the end, then clamp.
fn canonicalize(index: i64, extent: i64, stride: i64) -> i64 {
    let (lo, hi) = if stride < 0 {
        (-1, extent - 1)
    } else {
        (0, extent)
    };
    let index = if index < 0 {
        index.saturating_add(extent)
    } else {
        index
    };
    index.clamp(lo, hi)
}

pub(super) fn strided_slice(r: &mut Rel<'_>) -> RuleResult {
    let Some(data) = r.tensor(0)? else {
        return Ok(false);
    };
    let n = data.shape.len();
    let mut begin = r.ints("begin")?;
    let mut end = r.ints("end")?;
    let mut strides = r.opt_ints("strides")?.unwrap_or_else(|| vec![1]);
    let size_mode = r.str_or("slice_mode", "end") == "size";
    let axes: Vec<usize> = match r.opt_ints("axes")? {
        Some(axes) => {
            if strides.len() == 1 && axes.len() > 1 {
                strides = vec![strides[0]; axes.len()];
            }
            if begin.len() != axes.len() || end.len() != axes.len() || strides.len() != axes.len() {
                return r.fail("axes, begin, end and strides must have the same length");
            }
            axes.iter()
                .map(|&a| r.axis(a, n))
                .collect::<Result<_, _>>()?
        }
        None => {
            if begin.len() > n || end.len() > n || strides.len() > n {
                return r.fail(format!(
                    "begin/end/strides are longer than the rank of {data}"
                ));
            }
            strides.resize(n, 1);
            let (nb, ne) = (begin.len(), end.len());
            begin.extend(
                strides[nb..]
                    .iter()
                    .map(|&s| if s > 0 { 0 } else { i64::MAX }),
            );
            end.extend(
                strides[ne..]
                    .iter()
                    .map(|&s| if s < 0 { 0 } else { i64::MAX }),
            );
            (0..n).collect()
        }
    };
    let mut out = data.shape.clone();
    for (i, &ax) in axes.iter().enumerate() {
        let stride = if size_mode { 1 } else { strides[i] };
        if stride == 0 {
            return r.fail("strides cannot be 0");
        }
        let e = if size_mode {
            if end[i] < 0 {
                i64::MAX
            } else {
                begin[i].saturating_add(end[i])
            }
        } else {
            end[i]
        };
        let Some(d) = data.shape[ax].as_static() else {
            out[ax] = Dim::Any;
            continue;
        };
        let (b, e) = (
            canonicalize(begin[i], d, stride),
            canonicalize(e, d, stride),
        );
        if (stride < 0 && e > b) || (stride > 0 && b > e) {
            return r.fail(format!(
                "begin={} and end={} are invalid for axis {ax} of {data}",
                begin[i], end[i]
            ));
        }
        let size = ((e - b).abs() + stride.abs() - 1) / stride.abs();
        out[ax] = dim_map(&data.shape[ax], |_| size);
    }
    r.done_tensor(out, data.dtype)
}

pub(super) fn tile(r: &mut Rel<'_>) -> RuleResult {
    let Some(data) = r.tensor(0)? else {
        return Ok(false);
    };
    let reps = r.ints("reps")?;
    if let Some(bad) = reps.iter().find(|&&x| x <= 0) {
        return r.fail(format!("reps must be positive, found {bad}"));
    }
    let n = data.shape.len().max(reps.len());
    let mut dshape = vec![Dim::Static(1); n - data.shape.len()];
    dshape.extend(data.shape.iter().cloned());
    let mut rshape = vec![1; n - reps.len()];
    rshape.extend(reps);
    let out = dshape
        .iter()
        .zip(rshape)
        .map(|(d, k)| dim_map(d, |x| x.saturating_mul(k)))
        .collect();
    r.done_tensor(out, data.dtype)
}

pub(super) fn repeat(r: &mut Rel<'_>) -> RuleResult {
    let Some(data) = r.tensor(0)? else {
        return Ok(false);
    };
    let k = r.int("repeats")?;
    if k < 1 {
        return r.fail(format!("repeats must be >= 1, found {k}"));
    }
    let axis = r.axis(r.int("axis")?, data.shape.len())?;
    let mut out = data.shape.clone();
    out[axis] = dim_map(&out[axis], |x| x.saturating_mul(k));
    r.done_tensor(out, data.dtype)
}

pub(super) fn broadcast_to(r: &mut Rel<'_>) -> RuleResult {
    let Some(data) = r.tensor(0)? else {
        return Ok(false);
    };
    let Some(shape) = r.dims("shape")? else {
        return r.fail("needs the attribute `shape`");
    };
    match broadcast_shapes(&data.shape, &shape) {
        Some(b) if !b.iter().zip(&shape).any(|(x, y)| dims_conflict(x, y)) => {
            r.done_tensor(shape, data.dtype)
        }
        _ => r.mismatch(format!("{data} cannot broadcast to {}", shape_str(&shape))),
    }
}

pub(super) fn broadcast_to_like(r: &mut Rel<'_>) -> RuleResult {
    let (Some(data), Some(like)) = (r.tensor(0)?, r.tensor(1)?) else {
        return Ok(false);
    };
    if broadcast_shapes(&data.shape, &like.shape).is_none() {
        return r.mismatch(format!("{data} cannot broadcast to {like}"));
    }
    r.done_tensor(like.shape.clone(), data.dtype)
}

pub(super) fn collapse_sum_like(r: &mut Rel<'_>) -> RuleResult {
    let (Some(data), Some(like)) = (r.tensor(0)?, r.tensor(1)?) else {
        return Ok(false);
    };
    if broadcast_shapes(&like.shape, &data.shape).is_none() {
        return r.mismatch(format!("{data} cannot be summed to {like}"));
    }
    r.done_tensor(like.shape.clone(), like.dtype)
}

/// `collapse_sum_to(data, shape)`: the `shape` attribute (set when the call was built from a
/// constant shape), else `?` extents as many as the shape tensor is long; the data's dtype. The
/// data must broadcast from the result.
pub(super) fn collapse_sum_to(r: &mut Rel<'_>) -> RuleResult {
    let (Some(data), Some(shape_t)) = (r.tensor(0)?, r.tensor(1)?) else {
        return Ok(false);
    };
    let [len] = shape_t.shape.as_slice() else {
        return r.fail(format!("the shape must be a 1-D tensor, found {shape_t}"));
    };
    let out = match r.dims("shape")? {
        Some(s) => s,
        None => match len.as_static() {
            Some(n) if (0..=crate::limits::MAX_TENSOR_NDIM as i64).contains(&n) => {
                vec![Dim::Any; n as usize]
            }
            Some(n) => return r.fail(format!("a shape of {n} entries is too long")),
            None => return r.fail(format!("the shape {shape_t} must have a static length")),
        },
    };
    if broadcast_shapes(&out, &data.shape).is_none() {
        return r.mismatch(format!("{data} cannot be summed to {}", shape_str(&out)));
    }
    r.done_tensor(out, data.dtype)
}

/// `one_hot(indices, on_value, off_value)`: `depth` inserted at `axis` (-1 = last).
pub(super) fn one_hot(r: &mut Rel<'_>) -> RuleResult {
    let (Some(idx), Some(on)) = (r.tensor(0)?, r.tensor(1)?) else {
        return Ok(false);
    };
    let depth = r.int_or("depth", 1)?;
    let n = idx.shape.len() as i64;
    let axis = r.int_or("axis", -1)?;
    let at = if axis < 0 { n + 1 + axis } else { axis };
    if at < 0 || at > n {
        return r.fail(format!("axis {axis} is out of range for indices {idx}"));
    }
    let mut out = idx.shape.clone();
    out.insert(at as usize, Dim::Static(depth));
    let dt = r.dtype("dtype")?.unwrap_or(on.dtype);
    r.done_tensor(out, dt)
}

/// `nn.depth_to_space` / `nn.space_to_depth` (NCHW): channels divided or multiplied by
/// `block_size`², height and width the other way.
pub(super) fn depth_space(r: &mut Rel<'_>) -> RuleResult {
    let Some(data) = r.tensor(0)? else {
        return Ok(false);
    };
    if r.str_or("layout", "NCHW") != "NCHW" || data.shape.len() != 4 {
        return r.fail(format!("needs an NCHW tensor, got {data}"));
    }
    let b = r.int("block_size")?;
    if b < 1 {
        return r.fail(format!("block_size {b} must be at least 1"));
    }
    let to_space = r.op == "nn.depth_to_space";
    let shrink = if to_space { 1 } else { 2 };
    let by = if to_space { b * b } else { b };
    let s = &data.shape;
    if let Some(v) = s[shrink].as_static().filter(|v| v % by != 0) {
        return r.fail(format!(
            "extent {v} of axis {shrink} is not divisible by {by}"
        ));
    }
    if !to_space {
        if let Some(v) = s[3].as_static().filter(|v| v % b != 0) {
            return r.fail(format!("extent {v} of axis 3 is not divisible by {b}"));
        }
    }
    let mut out = s.clone();
    if to_space {
        out[1] = dim_map(&s[1], |c| c / (b * b));
        out[2] = dim_map(&s[2], |h| h * b);
        out[3] = dim_map(&s[3], |w| w * b);
    } else {
        out[1] = dim_map(&s[1], |c| c * b * b);
        out[2] = dim_map(&s[2], |h| h / b);
        out[3] = dim_map(&s[3], |w| w / b);
    }
    r.done_tensor(out, data.dtype)
}

/// `topk`: the values and/or the indices (`ret_type` both, values, indices), the `axis`
/// extent `k` (all of it when `k` is below 1), indices of `dtype` (int32 by default).
pub(super) fn topk(r: &mut Rel<'_>) -> RuleResult {
    let Some(data) = r.tensor(0)? else {
        return Ok(false);
    };
    let rank = data.shape.len();
    let axis = r.axis(r.int_or("axis", -1)?, rank)?;
    let k = match r.attr("k") {
        None => 1,
        Some(v) if v.is_null() => 1,
        Some(v) => match v.as_int() {
            Some(k) => k,
            None => return r.fail("`k` must be an integer"),
        },
    };
    let mut shape = data.shape.clone();
    if k >= 1 {
        if let Some(n) = shape[axis].as_static().filter(|&n| k > n) {
            return r.fail(format!(
                "k {k} is larger than the extent {n} of axis {axis}"
            ));
        }
        shape[axis] = Dim::Static(k);
    }
    topk_result(r, shape, data.dtype)
}

/// What topk (and dyn.topk) returns for values of `shape` and `dtype`: the values, the indices
/// (attribute `dtype`, int32 by default) or both, as the attribute `ret_type` says.
pub(super) fn topk_result(r: &mut Rel<'_>, shape: Vec<Dim>, dtype: crate::ir::DType) -> RuleResult {
    let idx_dtype = r.dtype("dtype")?.unwrap_or(crate::ir::DType::INT32);
    let values = Type::tensor(shape.clone(), dtype);
    let indices = Type::tensor(shape, idx_dtype);
    match r.str_or("ret_type", "both") {
        "both" => r.done(Type::tuple(vec![values, indices])),
        "values" => r.done(values),
        "indices" => r.done(indices),
        other => r.fail(format!(
            "ret_type `{other}` is not one of both, values, indices"
        )),
    }
}

/// `gather(data, indices, axis)`: the indices' shape, the data's dtype.
pub(super) fn gather(r: &mut Rel<'_>) -> RuleResult {
    let (Some(data), Some(idx)) = (r.tensor(0)?, r.tensor(1)?) else {
        return Ok(false);
    };
    if data.shape.len() != idx.shape.len() {
        return r.fail(format!(
            "indices {idx} must have the rank of the data {data}"
        ));
    }
    let Some(axis) = r.opt_int("axis")? else {
        return r.fail("needs `axis`");
    };
    r.axis(axis, data.shape.len())?;
    if !idx.dtype.is_int() {
        return r.fail(format!("indices {idx} must be integers"));
    }
    r.done_tensor(idx.shape.clone(), data.dtype)
}
