//! Shape-transform rules (`src/relay/op/tensor/transform.cc` in TVM): reshape (with the
//! special values 0, -1, -2, -3, -4), reshape_like, transpose, concatenate, stack, split,
//! squeeze, expand_dims, take, strided_slice, tile, repeat, broadcast_to(_like),
//! collapse_sum_like, layout_transform and one_hot.
//!
//! Extents that are `?` stay `?`; checks that TVM does with `ICHECK`/`AssertEQ` on static
//! extents are errors here. Only the static (attribute) forms are typed; the `dyn.*` variants
//! that take shapes as tensors have no rule.

use super::elemwise::{broadcast_shapes, num_elements};
use super::{dim_map, dim_op, dims_conflict, floordiv, shape_str, Layout, Rel, RuleResult};
use crate::ir::attrs::AttrValue;
use crate::ir::{Dim, Type};

/// `reshape(data, newshape=[...], allowzero=False)` (TVM's `InferNewShape`).
pub(super) fn reshape(r: &mut Rel<'_>) -> RuleResult {
    let Some(data) = r.tensor(0)? else { return Ok(false) };
    let Some(newshape) = r.dims("newshape")? else {
        return r.fail("needs the attribute `newshape`");
    };
    let allowzero = r.bool_or("allowzero", false);
    let ish = &data.shape;
    let val = |d: &Dim| d.as_static().unwrap_or(1);
    let mut used_in = vec![false; ish.len()];
    let mut used_out: Vec<bool> = Vec::new();
    let mut out: Vec<Dim> = Vec::new();
    let mut src = 0usize;
    let mut infer: Option<usize> = None;
    let mut i = 0;
    let bad = |r: &Rel<'_>, msg: String| r.fail(format!("{msg} (data {data}, newshape={})", shape_str(&newshape)));
    while i < newshape.len() {
        let v = val(&newshape[i]);
        let mut push = |out: &mut Vec<Dim>, d: Dim, used: bool| {
            out.push(d);
            used_out.push(used);
        };
        match v {
            v if v > 0 || (v == 0 && allowzero) => {
                push(&mut out, newshape[i].clone(), false);
                src += 1;
            }
            0 => {
                let Some(d) = ish.get(src) else { return bad(r, "0 copies a dimension the input does not have".into()) };
                used_in[src] = true;
                push(&mut out, d.clone(), true);
                src += 1;
            }
            -1 => {
                if infer.is_some() {
                    return bad(r, "only one dimension can be -1".into());
                }
                infer = Some(out.len());
                push(&mut out, Dim::Static(1), false);
                src += 1;
            }
            -2 => {
                while src < ish.len() {
                    used_in[src] = true;
                    push(&mut out, ish[src].clone(), true);
                    src += 1;
                }
            }
            -3 => {
                if src + 1 >= ish.len() {
                    return bad(r, "-3 needs two more input dimensions".into());
                }
                used_in[src] = true;
                used_in[src + 1] = true;
                let d = dim_op(&ish[src], &ish[src + 1], |a, b| a * b);
                push(&mut out, d, true);
                src += 2;
            }
            -4 => {
                if i + 2 >= newshape.len() || src >= ish.len() {
                    return bad(r, "-4 needs two values after it and an input dimension to split".into());
                }
                let d0 = ish[src].clone();
                used_in[src] = true;
                src += 1;
                let (d1, d2) = (&newshape[i + 1], &newshape[i + 2]);
                i += 2;
                let (a, b) = match (val(d1), val(d2)) {
                    (-1, -1) => return bad(r, "split dimensions cannot both be -1".into()),
                    (-1, _) => (dim_op(&d0, d2, floordiv), d2.clone()),
                    (_, -1) => (d1.clone(), dim_op(&d0, d1, floordiv)),
                    _ => (d1.clone(), d2.clone()),
                };
                push(&mut out, a, true);
                push(&mut out, b, true);
            }
            v => return bad(r, format!("unsupported special value {v}")),
        }
        i += 1;
    }
    if let Some(at) = infer {
        let mut d = Dim::Static(1);
        for (k, x) in ish.iter().enumerate() {
            if !used_in[k] {
                d = if matches!(x, Dim::Any) { Dim::Any } else { dim_op(&d, x, |a, b| a * b) };
            }
        }
        for (k, x) in out.iter().enumerate() {
            if !used_out[k] && k != at {
                d = if matches!(x, Dim::Any) { Dim::Any } else { dim_op(&d, x, floordiv) };
            }
        }
        out[at] = d;
    }
    if let (Some(a), Some(b)) = (num_elements(ish), num_elements(&out)) {
        if a != b {
            return r.fail(format!(
                "input shape {} and reshaped shape {} are not compatible",
                shape_str(ish),
                shape_str(&out)
            ));
        }
    }
    r.done_tensor(out, data.dtype)
}

/// `reshape_like(data, like)`: `data[:lhs_begin] ++ like[rhs_begin:rhs_end] ++ data[lhs_end:]`.
pub(super) fn reshape_like(r: &mut Rel<'_>) -> RuleResult {
    let (Some(data), Some(like)) = (r.tensor(0)?, r.tensor(1)?) else {
        return Ok(false);
    };
    let range = |r: &Rel<'_>, b: &str, e: &str, n: usize| -> Result<(usize, usize), String> {
        let norm = |x: i64| if x < 0 { x + n as i64 } else { x }.clamp(0, n as i64) as usize;
        Ok((norm(r.int_or(b, 0)?), norm(r.opt_int(e)?.unwrap_or(n as i64))))
    };
    let (lb, le) = range(r, "lhs_begin", "lhs_end", data.shape.len())?;
    let (rb, re) = range(r, "rhs_begin", "rhs_end", like.shape.len())?;
    let mut out = data.shape[..lb].to_vec();
    out.extend_from_slice(&like.shape[rb..re.max(rb)]);
    out.extend_from_slice(&data.shape[le.max(lb)..]);
    if let (Some(a), Some(b)) = (num_elements(&data.shape), num_elements(&out)) {
        if a != b {
            return r.fail(format!("{data} cannot be reshaped to {}", shape_str(&out)));
        }
    }
    r.done_tensor(out, data.dtype)
}

pub(super) fn transpose(r: &mut Rel<'_>) -> RuleResult {
    let Some(data) = r.tensor(0)? else { return Ok(false) };
    let n = data.shape.len();
    let axes = r.opt_ints("axes")?.unwrap_or_default();
    let perm: Vec<usize> = if axes.is_empty() {
        (0..n).rev().collect()
    } else {
        if axes.len() != n {
            return r.fail(format!("axes has {} elements but the data {data} has rank {n}", axes.len()));
        }
        let mut used = vec![false; n];
        let mut perm = Vec::with_capacity(n);
        for a in axes {
            let ax = r.axis(a, n)?;
            if std::mem::replace(&mut used[ax], true) {
                return r.fail(format!("duplicate axis {a} in axes"));
            }
            perm.push(ax);
        }
        perm
    };
    let out = perm.iter().map(|&a| data.shape[a].clone()).collect();
    r.done_tensor(out, data.dtype)
}

pub(super) fn concatenate(r: &mut Rel<'_>) -> RuleResult {
    let Some(fields) = r.tensor_tuple(0)? else { return Ok(false) };
    let Some(first) = fields.first() else {
        return r.fail("needs at least one tensor to concatenate");
    };
    let n = first.shape.len();
    let axis = r.axis(r.int_or("axis", 0)?, n)?;
    let mut out = first.shape.clone();
    for f in &fields[1..] {
        if f.shape.len() != n || f.dtype != first.dtype {
            return r.mismatch(format!("all tensors must have the same rank and dtype: {first} vs {f}"));
        }
        for (i, d) in f.shape.iter().enumerate() {
            if i == axis {
                out[i] = if matches!(d, Dim::Any) { Dim::Any } else { dim_op(&out[i], d, |a, b| a + b) };
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

pub(super) fn stack(r: &mut Rel<'_>) -> RuleResult {
    let Some(fields) = r.tensor_tuple(0)? else { return Ok(false) };
    let Some(first) = fields.first() else {
        return r.fail("needs at least one tensor to stack");
    };
    let n = first.shape.len();
    let axis = r.axis(r.int_or("axis", 0)?, n + 1)?;
    for f in &fields[1..] {
        if f.shape.len() != n || f.dtype != first.dtype || f.shape.iter().zip(&first.shape).any(|(a, b)| dims_conflict(a, b)) {
            return r.mismatch(format!("all tensors must have the same type: {first} vs {f}"));
        }
    }
    let mut out = first.shape.clone();
    out.insert(axis, Dim::Static(fields.len() as i64));
    r.done_tensor(out, first.dtype)
}

pub(super) fn split(r: &mut Rel<'_>) -> RuleResult {
    let Some(data) = r.tensor(0)? else { return Ok(false) };
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
                return r.fail(format!("{k} sections do not divide the extent {dim} of axis {axis}"));
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
                return r.fail(format!("split index {begin} is out of range for extent {dim}"));
            }
            fields.push(piece(dim_map(dim, |d| d - begin)));
            fields
        }
        _ => return r.fail("needs the attribute `indices_or_sections`"),
    };
    r.done(Type::tuple(fields))
}

pub(super) fn squeeze(r: &mut Rel<'_>) -> RuleResult {
    let Some(data) = r.tensor(0)? else { return Ok(false) };
    let out: Vec<Dim> = match r.opt_ints("axis")? {
        None => {
            if data.shape.iter().any(|d| d.as_static().is_none()) {
                return r.fail(format!("axis needs to be given for the dynamic input {data}"));
            }
            data.shape.iter().filter(|d| d.as_static() != Some(1)).cloned().collect()
        }
        Some(axes) => {
            let mut drop = vec![false; data.shape.len()];
            for a in axes {
                let ax = r.axis(a, data.shape.len())?;
                if data.shape[ax].as_static().is_some_and(|d| d != 1) {
                    return r.fail(format!("cannot squeeze axis {a} of {data}: its extent is not 1"));
                }
                drop[ax] = true;
            }
            data.shape.iter().zip(drop).filter(|(_, d)| !d).map(|(x, _)| x.clone()).collect()
        }
    };
    r.done_tensor(out, data.dtype)
}

pub(super) fn expand_dims(r: &mut Rel<'_>) -> RuleResult {
    let Some(data) = r.tensor(0)? else { return Ok(false) };
    let n = data.shape.len() as i64;
    let axis = r.int("axis")?;
    let k = r.int_or("num_newaxis", 1)?;
    if k < 0 {
        return r.fail(format!("num_newaxis must be >= 0, found {k}"));
    }
    if axis < -n - 1 || axis > n {
        return r.fail(format!("axis {axis} is out of range [{}, {n}] for {data}", -n - 1));
    }
    let pivot = if axis < 0 { n + axis + 1 } else { axis } as usize;
    let mut out = data.shape[..pivot].to_vec();
    out.extend((0..k).map(|_| Dim::Static(1)));
    out.extend_from_slice(&data.shape[pivot..]);
    r.done_tensor(out, data.dtype)
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
        return r.fail(format!("axis {axis} / batch_dims {bd} are out of range for data {data} and indices {idx}"));
    }
    let (axis, bd) = (axis as usize, bd as usize);
    let mut out = data.shape[..axis].to_vec();
    out.extend_from_slice(&idx.shape[bd..]);
    out.extend_from_slice(data.shape.get(axis + 1..).unwrap_or(&[]));
    r.done_tensor(out, data.dtype)
}

/// TVM's `CanonicalizeIndex`: negative indices count from the end, then clamp.
fn canonicalize(index: i64, extent: i64, stride: i64) -> i64 {
    let (lo, hi) = if stride < 0 { (-1, extent - 1) } else { (0, extent) };
    let index = if index < 0 { index.saturating_add(extent) } else { index };
    index.clamp(lo, hi)
}

pub(super) fn strided_slice(r: &mut Rel<'_>) -> RuleResult {
    let Some(data) = r.tensor(0)? else { return Ok(false) };
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
            axes.iter().map(|&a| r.axis(a, n)).collect::<Result<_, _>>()?
        }
        None => {
            if begin.len() > n || end.len() > n || strides.len() > n {
                return r.fail(format!("begin/end/strides are longer than the rank of {data}"));
            }
            strides.resize(n, 1);
            for i in begin.len()..n {
                begin.push(if strides[i] > 0 { 0 } else { i64::MAX });
            }
            for i in end.len()..n {
                end.push(if strides[i] < 0 { 0 } else { i64::MAX });
            }
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
            if end[i] < 0 { i64::MAX } else { begin[i].saturating_add(end[i]) }
        } else {
            end[i]
        };
        let Some(d) = data.shape[ax].as_static() else {
            out[ax] = Dim::Any;
            continue;
        };
        let (b, e) = (canonicalize(begin[i], d, stride), canonicalize(e, d, stride));
        if (stride < 0 && e > b) || (stride > 0 && b > e) {
            return r.fail(format!("begin={} and end={} are invalid for axis {ax} of {data}", begin[i], end[i]));
        }
        let size = ((e - b).abs() + stride.abs() - 1) / stride.abs();
        out[ax] = dim_map(&data.shape[ax], |_| size);
    }
    r.done_tensor(out, data.dtype)
}

pub(super) fn tile(r: &mut Rel<'_>) -> RuleResult {
    let Some(data) = r.tensor(0)? else { return Ok(false) };
    let reps = r.ints("reps")?;
    if let Some(bad) = reps.iter().find(|&&x| x <= 0) {
        return r.fail(format!("reps must be positive, found {bad}"));
    }
    let n = data.shape.len().max(reps.len());
    let mut dshape = vec![Dim::Static(1); n - data.shape.len()];
    dshape.extend(data.shape.iter().cloned());
    let mut rshape = vec![1; n - reps.len()];
    rshape.extend(reps);
    let out = dshape.iter().zip(rshape).map(|(d, k)| dim_map(d, |x| x * k)).collect();
    r.done_tensor(out, data.dtype)
}

pub(super) fn repeat(r: &mut Rel<'_>) -> RuleResult {
    let Some(data) = r.tensor(0)? else { return Ok(false) };
    let k = r.int("repeats")?;
    if k < 1 {
        return r.fail(format!("repeats must be >= 1, found {k}"));
    }
    let axis = r.axis(r.int("axis")?, data.shape.len())?;
    let mut out = data.shape.clone();
    out[axis] = dim_map(&out[axis], |x| x * k);
    r.done_tensor(out, data.dtype)
}

pub(super) fn broadcast_to(r: &mut Rel<'_>) -> RuleResult {
    let Some(data) = r.tensor(0)? else { return Ok(false) };
    let Some(shape) = r.dims("shape")? else {
        return r.fail("needs the attribute `shape`");
    };
    match broadcast_shapes(&data.shape, &shape) {
        Some(b) if !b.iter().zip(&shape).any(|(x, y)| dims_conflict(x, y)) => r.done_tensor(shape, data.dtype),
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

pub(super) fn layout_transform(r: &mut Rel<'_>) -> RuleResult {
    let Some(data) = r.tensor(0)? else { return Ok(false) };
    let src: Layout = r.layout("src_layout", "")?;
    let dst: Layout = r.layout("dst_layout", "")?;
    match src.convert(&data.shape, &dst) {
        Ok(out) => r.done_tensor(out, data.dtype),
        Err(e) => r.fail(e),
    }
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
