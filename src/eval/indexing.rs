//! Evaluation of the ops that pick elements by index: `strided_slice`, `take`, `gather`,
//! `tile`, `repeat`, `reverse`; and `trilu`, which keeps the elements of a triangle.
//!
//! Each computes, per axis, the list of source indices it reads (or, for `take` and
//! `gather`, reads them from the index tensor) and copies the elements in one pass over the
//! output with an odometer over the axes: no allocation per element. Indices out of range
//! (`take` in `fast` / `nan` mode, `gather`) give `None`; negative ones count from the end.

use super::shape_ops::bounded;
use super::value::{each, norm_axis, Arr, Value};
use crate::ir::Attrs;
use ndarray::{ArrayD, IxDyn};

/// The sub-array made of the given source indices on each axis.
pub(crate) fn gather_axes<T: Copy>(a: &ArrayD<T>, idx: &[Vec<usize>]) -> Option<ArrayD<T>> {
    let shape: Vec<usize> = idx.iter().map(Vec::len).collect();
    let total = bounded(&shape)?;
    let src = a.as_standard_layout();
    let s = src.as_slice()?;
    let nd = idx.len();
    let mut out = Vec::with_capacity(total);
    if nd == 0 {
        out.push(*s.first()?);
    } else if total > 0 {
        let dims = a.shape();
        let mut strides = vec![1usize; nd];
        for k in (0..nd - 1).rev() {
            strides[k] = strides[k + 1] * dims[k + 1];
        }
        let mut pos = vec![0usize; nd];
        'rows: loop {
            let base: usize = (0..nd - 1).map(|k| idx[k][pos[k]] * strides[k]).sum();
            let last = strides[nd - 1];
            out.extend(idx[nd - 1].iter().map(|&j| s[base + j * last]));
            let mut k = nd - 1;
            loop {
                if k == 0 {
                    break 'rows;
                }
                k -= 1;
                pos[k] += 1;
                if pos[k] < idx[k].len() {
                    break;
                }
                pos[k] = 0;
            }
        }
    }
    ArrayD::from_shape_vec(IxDyn(&shape), out).ok()
}

fn pick(x: &Value, idx: &[Vec<usize>]) -> Option<Value> {
    Value::new(x.dtype, each!(&x.arr, a => gather_axes(a, idx)?))
}

fn every(shape: &[usize]) -> Vec<Vec<usize>> {
    shape.iter().map(|&d| (0..d).collect()).collect()
}

/// `strided_slice(x, begin, end, strides, axes, slice_mode)`.
pub(crate) fn strided_slice(attrs: &Attrs, x: &Value) -> Option<Value> {
    let idx = slice_indices(attrs, x.shape())?;
    pick(x, &idx)
}

/// `tile(x, reps)`: the rank is the larger of the two, both padded with leading 1s.
pub(crate) fn tile(attrs: &Attrs, x: &Value) -> Option<Value> {
    let reps = attrs.get_ints("reps")?;
    let n = reps.len().max(x.ndim());
    let mut shape = vec![1usize; n - x.ndim()];
    shape.extend_from_slice(x.shape());
    let mut r = vec![1i64; n - reps.len()];
    r.extend_from_slice(&reps);
    let x = Value::new(
        x.dtype,
        each!(&x.arr, a => a.to_shape(IxDyn(&shape)).ok()?.to_owned()),
    )?;
    let idx = shape
        .iter()
        .zip(&r)
        .map(|(&d, &k)| {
            let k = usize::try_from(k).ok()?;
            bounded(&[d, k])?;
            Some((0..d * k).map(|i| i % d.max(1)).collect())
        })
        .collect::<Option<Vec<Vec<usize>>>>()?;
    pick(&x, &idx)
}

/// `repeat(x, repeats, axis)`: each element repeated along the axis.
pub(crate) fn repeat(attrs: &Attrs, x: &Value) -> Option<Value> {
    let r = usize::try_from(attrs.get_int("repeats")?).ok()?;
    let axis = norm_axis(attrs.get_int("axis")?, x.ndim())?;
    let mut idx = every(x.shape());
    let d = x.shape()[axis];
    bounded(&[d, r])?;
    idx[axis] = (0..d * r).map(|i| i / r).collect();
    pick(x, &idx)
}

/// `argwhere(x)`: the coordinates of the nonzero elements in row-major order, one row each
/// (shape `[count, ndim]`, int32).
pub(crate) fn argwhere(x: &Value) -> Option<Value> {
    let shape = x.shape().to_vec();
    let nonzero: Vec<bool> = match &x.arr {
        Arr::F32(a) => a.iter().map(|&v| v != 0.0).collect(),
        Arr::F64(a) => a.iter().map(|&v| v != 0.0).collect(),
        Arr::Int(a) => a.iter().map(|&v| v != 0).collect(),
    };
    let mut coords = Vec::new();
    let mut count = 0;
    for (flat, _) in nonzero.iter().enumerate().filter(|(_, &nz)| nz) {
        let mut rest = flat;
        let start = coords.len();
        for &d in shape.iter().rev() {
            coords.push((rest % d.max(1)) as i64);
            rest /= d.max(1);
        }
        coords[start..].reverse();
        count += 1;
    }
    Value::new(
        crate::ir::DType::INT32,
        Arr::Int(super::value::from_vec(
            &[count, shape.len()],
            coords.into_iter(),
        )?),
    )
}

/// `unique(x, sorted, return_counts)` of a 1-D tensor (TVM's): the unique values (ascending,
/// or in the order they first occur), the index of each one's first occurrence, each
/// element's position among them, their number (`[1]`), and, with `return_counts`, how often
/// each occurs; the first four and the counts padded with zeros to the data's length.
pub(crate) fn unique(attrs: &Attrs, x: &Value) -> Option<Vec<Value>> {
    if x.ndim() != 1 {
        return None;
    }
    let n = x.shape()[0];
    // Positions sorted by value (a stable sort in the storage type), grouped by equality.
    let mut order: Vec<usize> = (0..n).collect();
    let same: Box<dyn Fn(usize, usize) -> bool> = match &x.arr {
        Arr::F32(a) => {
            let a = a.as_slice()?.to_vec();
            order.sort_by(|&i, &j| a[i].total_cmp(&a[j]));
            Box::new(move |i, j| a[i] == a[j])
        }
        Arr::F64(a) => {
            let a = a.as_slice()?.to_vec();
            order.sort_by(|&i, &j| a[i].total_cmp(&a[j]));
            Box::new(move |i, j| a[i] == a[j])
        }
        Arr::Int(a) => {
            let a = a.as_slice()?.to_vec();
            order.sort_by_key(|&i| a[i]);
            Box::new(move |i, j| a[i] == a[j])
        }
    };
    // Each group: its first occurrence (the stable sort puts it first) and its members.
    let mut groups: Vec<(usize, Vec<usize>)> = Vec::new();
    for &i in &order {
        match groups.last_mut() {
            Some((first, members)) if same(*first, i) => members.push(i),
            _ => groups.push((i, vec![i])),
        }
    }
    if !attrs.get_bool("sorted").unwrap_or(true) {
        groups.sort_by_key(|g| g.0);
    }
    let k = groups.len();
    let pad = |mut v: Vec<i64>| {
        v.resize(n, 0);
        v
    };
    let mut inverse = vec![0i64; n];
    for (u, (_, members)) in groups.iter().enumerate() {
        for &m in members {
            inverse[m] = u as i64;
        }
    }
    let firsts: Vec<usize> = groups.iter().map(|g| g.0).collect();
    let mut picked: Vec<usize> = firsts.clone();
    picked.resize(n, firsts.first().copied().unwrap_or(0));
    let values = pick(x, &[picked])?;
    let i32v = |shape: &[usize], v: Vec<i64>| {
        Value::new(
            crate::ir::DType::INT32,
            Arr::Int(super::value::from_vec(shape, v.into_iter())?),
        )
    };
    let mut out = vec![
        values,
        i32v(&[n], pad(firsts.iter().map(|&f| f as i64).collect()))?,
        i32v(&[n], inverse)?,
        i32v(&[1], vec![k as i64])?,
    ];
    if attrs.get_bool("return_counts").unwrap_or(false) {
        out.push(i32v(
            &[n],
            pad(groups.iter().map(|g| g.1.len() as i64).collect()),
        )?);
    }
    Some(out)
}

/// `reverse(x, axis)`.
pub(crate) fn reverse(attrs: &Attrs, x: &Value) -> Option<Value> {
    let axis = norm_axis(attrs.get_int("axis")?, x.ndim())?;
    let mut idx = every(x.shape());
    idx[axis].reverse();
    pick(x, &idx)
}

/// `take(data, indices, axis, mode)` (`batch_dims = 0` only; no axis: the flattened data).
pub(crate) fn take(attrs: &Attrs, x: &Value, indices: &Value) -> Option<Value> {
    if attrs.get_int("batch_dims").unwrap_or(0) != 0 || !indices.dtype.is_int() {
        return None;
    }
    let Arr::Int(ind) = &indices.arr else {
        return None;
    };
    let (dshape, axis) = match attrs.get("axis").and_then(|v| v.as_int()) {
        Some(a) => (x.shape().to_vec(), norm_axis(a, x.ndim())?),
        None => (vec![x.shape().iter().product()], 0),
    };
    let extent = dshape[axis] as i64;
    let mode = attrs.get_str("mode").unwrap_or("clip");
    let fix = |i: i64| -> Option<usize> {
        let j = match mode {
            "wrap" if extent > 0 => i.rem_euclid(extent),
            "clip" if extent > 0 => i.clamp(0, extent - 1),
            "fast" | "nan" => {
                let j = if i < 0 { i + extent } else { i };
                (0..extent).contains(&j).then_some(j)?
            }
            _ => return None,
        };
        Some(j as usize)
    };
    let flat: Vec<usize> = ind.iter().map(|&i| fix(i)).collect::<Option<_>>()?;
    let outer: usize = dshape[..axis].iter().product();
    let inner: usize = dshape[axis + 1..].iter().product();
    let mut out_shape = dshape[..axis].to_vec();
    out_shape.extend_from_slice(ind.shape());
    out_shape.extend_from_slice(&dshape[axis + 1..]);
    bounded(&out_shape)?;
    let extent = dshape[axis];
    Value::new(
        x.dtype,
        each!(&x.arr, a => take_rows(a, &flat, outer, extent, inner, &out_shape)?),
    )
}

fn take_rows<T: Copy>(
    a: &ArrayD<T>,
    flat: &[usize],
    outer: usize,
    extent: usize,
    inner: usize,
    shape: &[usize],
) -> Option<ArrayD<T>> {
    let src = a.as_standard_layout();
    let s = src.as_slice()?;
    let mut out = Vec::with_capacity(outer * flat.len() * inner);
    for o in 0..outer {
        for &j in flat {
            let at = (o * extent + j) * inner;
            out.extend_from_slice(&s[at..at + inner]);
        }
    }
    ArrayD::from_shape_vec(IxDyn(shape), out).ok()
}

/// `gather(data, axis, indices)`: `out[i] = data[i with axis replaced by indices[i]]`.
pub(crate) fn gather(attrs: &Attrs, x: &Value, indices: &Value) -> Option<Value> {
    let axis = norm_axis(attrs.get_int("axis").unwrap_or(0), x.ndim())?;
    let Arr::Int(ind) = &indices.arr else {
        return None;
    };
    let (ds, is) = (x.shape(), ind.shape());
    if is.len() != ds.len() || (0..ds.len()).any(|k| k != axis && is[k] > ds[k]) {
        return None;
    }
    let mut strides = vec![1usize; ds.len()];
    for k in (0..ds.len().saturating_sub(1)).rev() {
        strides[k] = strides[k + 1] * ds[k + 1];
    }
    let extent = ds[axis] as i64;
    let ind = ind.as_standard_layout();
    let mut offsets = Vec::with_capacity(ind.len());
    let mut pos = vec![0usize; is.len()];
    for &i in ind.iter() {
        let j = if i < 0 { i + extent } else { i };
        if !(0..extent).contains(&j) {
            return None;
        }
        let at: usize = (0..is.len())
            .map(|k| if k == axis { j as usize } else { pos[k] } * strides[k])
            .sum();
        offsets.push(at);
        for k in (0..is.len()).rev() {
            pos[k] += 1;
            if pos[k] < is[k] {
                break;
            }
            pos[k] = 0;
        }
    }
    let shape = is.to_vec();
    Value::new(x.dtype, each!(&x.arr, a => by_offset(a, &offsets, &shape)?))
}

fn by_offset<T: Copy>(a: &ArrayD<T>, offsets: &[usize], shape: &[usize]) -> Option<ArrayD<T>> {
    let src = a.as_standard_layout();
    let s = src.as_slice()?;
    ArrayD::from_shape_vec(IxDyn(shape), offsets.iter().map(|&o| s[o]).collect()).ok()
}

fn canonical(index: i64, extent: i64, stride: i64) -> i64 {
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

/// For each axis, the input indices `strided_slice` selects.
fn slice_indices(attrs: &Attrs, shape: &[usize]) -> Option<Vec<Vec<usize>>> {
    let n = shape.len();
    let begin = attrs.get_ints("begin")?;
    let end = attrs.get_ints("end")?;
    let strides = attrs.get_ints("strides").unwrap_or_else(|| vec![1]);
    let size_mode = attrs.get_str("slice_mode") == Some("size");
    let given = attrs.get("axes").and_then(|v| v.as_int_list());
    let axes_given = given.is_some();
    let axes: Vec<usize> = match given {
        Some(list) => list
            .iter()
            .map(|&a| norm_axis(a, n))
            .collect::<Option<_>>()?,
        None => (0..n.min(begin.len().max(end.len()).max(strides.len()))).collect(),
    };
    let mut idx: Vec<Vec<usize>> = shape.iter().map(|&d| (0..d).collect()).collect();
    for (k, &ax) in axes.iter().enumerate() {
        let stride = match strides.get(k) {
            _ if size_mode => 1,
            Some(&s) => s,
            None if axes_given && strides.len() == 1 => strides[0],
            None => 1,
        };
        if stride == 0 {
            return None;
        }
        let d = shape[ax] as i64;
        let b = begin
            .get(k)
            .copied()
            .unwrap_or(if stride > 0 { 0 } else { i64::MAX });
        let e = match end.get(k).copied() {
            Some(s) if size_mode => {
                if s < 0 {
                    i64::MAX
                } else {
                    b.saturating_add(s)
                }
            }
            Some(e) => e,
            None => {
                if stride < 0 {
                    0
                } else {
                    i64::MAX
                }
            }
        };
        let (b, e) = (canonical(b, d, stride), canonical(e, d, stride));
        if (stride > 0 && b > e) || (stride < 0 && e > b) {
            return None;
        }
        let mut v = Vec::new();
        let mut i = b;
        while (stride > 0 && i < e) || (stride < 0 && i > e) {
            v.push(i as usize);
            i += stride;
        }
        idx[ax] = v;
    }
    Some(idx)
}

/// `one_hot(indices, on, off, depth, axis, dtype)`: `on` where an index equals the position
/// along the new axis, `off` elsewhere (out-of-range indices give a row of `off`).
pub(crate) fn one_hot(attrs: &Attrs, indices: &Value, on: &Value, off: &Value) -> Option<Value> {
    let Arr::Int(ind) = &indices.arr else {
        return None;
    };
    let depth = usize::try_from(attrs.get_int("depth")?).ok()?;
    let nd = ind.ndim();
    let axis = attrs.get_int("axis").unwrap_or(-1);
    let axis = if axis < 0 { axis + nd as i64 + 1 } else { axis };
    let axis = usize::try_from(axis).ok().filter(|&a| a <= nd)?;
    let dt = super::value::attr_dtype(attrs, "dtype").unwrap_or(on.dtype);
    let cast = super::elementwise::cast;
    let (on, off) = (cast(on, dt)?, cast(off, dt)?);
    if on.ndim() != 0 || off.ndim() != 0 {
        return None;
    }
    let mut shape = ind.shape().to_vec();
    shape.insert(axis, depth);
    bounded(&shape)?;
    let at = |idx: &IxDyn| -> bool {
        let mut src = Vec::with_capacity(nd);
        for (d, &i) in ndarray::Dimension::slice(idx).iter().enumerate() {
            if d != axis {
                src.push(i);
            }
        }
        ind[IxDyn(&src)] == idx[axis] as i64
    };
    let arr = match (&on.arr, &off.arr) {
        (Arr::F32(a), Arr::F32(b)) => {
            let (a, b) = (*a.first()?, *b.first()?);
            Arr::F32(ArrayD::from_shape_fn(IxDyn(&shape), |i| {
                if at(&i) {
                    a
                } else {
                    b
                }
            }))
        }
        (Arr::F64(a), Arr::F64(b)) => {
            let (a, b) = (*a.first()?, *b.first()?);
            Arr::F64(ArrayD::from_shape_fn(IxDyn(&shape), |i| {
                if at(&i) {
                    a
                } else {
                    b
                }
            }))
        }
        (Arr::Int(a), Arr::Int(b)) => {
            let (a, b) = (*a.first()?, *b.first()?);
            Arr::Int(ArrayD::from_shape_fn(IxDyn(&shape), |i| {
                if at(&i) {
                    a
                } else {
                    b
                }
            }))
        }
        _ => return None,
    };
    Value::new(dt, arr)
}

/// `invert_permutation(x)`: `out[x[i]] = i` for a 1-d permutation of `0..n` (anything else is
/// rejected).
pub(crate) fn invert_permutation(x: &Value) -> Option<Value> {
    let Arr::Int(a) = &x.arr else {
        return None;
    };
    if a.ndim() != 1 {
        return None;
    }
    let n = a.len();
    let mut out = vec![-1i64; n];
    for (i, &p) in a.iter().enumerate() {
        let slot = out.get_mut(usize::try_from(p).ok()?)?;
        if *slot >= 0 {
            return None;
        }
        *slot = i as i64;
    }
    Value::new(
        x.dtype,
        Arr::Int(ArrayD::from_shape_vec(IxDyn(&[n]), out).ok()?),
    )
}

/// `trilu(x, k, upper=True)`: each matrix of the last two axes with the elements outside the
/// triangle zeroed: kept where `col - row >= k` (upper) or `col - row <= k` (lower). `k` is
/// a 0-d integer tensor; `x` must have at least two axes.
pub(crate) fn trilu(attrs: &Attrs, x: &Value, k: &Value) -> Option<Value> {
    let Arr::Int(kk) = &k.arr else {
        return None;
    };
    if kk.ndim() != 0 {
        return None;
    }
    let k = *kk.iter().next()?;
    let upper = attrs.get_bool("upper").unwrap_or(true);
    let shape = x.shape().to_vec();
    let nd = shape.len();
    if nd < 2 {
        return None;
    }
    let (rows, cols) = (shape[nd - 2], shape[nd - 1]);
    let keep = |i: usize| {
        let (r, c) = ((i / cols.max(1)) % rows.max(1), i % cols.max(1));
        let d = c as i64 - r as i64;
        if upper {
            d >= k
        } else {
            d <= k
        }
    };
    let arr = each!(&x.arr, a => {
        let mut out = a.as_standard_layout().into_owned();
        out.iter_mut().enumerate().for_each(|(i, v)| {
            if !keep(i) {
                *v = Default::default();
            }
        });
        out
    });
    Some(Value {
        dtype: x.dtype,
        arr,
    })
}
