//! Evaluation of the scatters (TVM's `topi.scatter_elements` and `topi.scatter_nd`): a copy
//! of `data` with `updates` written, or combined by the reduction (`update`, `add`, `mul`,
//! `min`, `max`), at the positions the indices name, in the indices' row-major order (so a
//! repeated index keeps the last update, or combines them all).
//!
//! Negative indices count from the end of their axis. An index out of range, and
//! `scatter_elements`' `mean` reduction, are not evaluated.

use super::value::{norm_axis, Arr, Value};
use crate::ir::Attrs;
use ndarray::ArrayD;

#[derive(Clone, Copy)]
enum Mode {
    Update,
    Add,
    Mul,
    Min,
    Max,
}

fn mode(name: &str) -> Option<Mode> {
    Some(match name {
        "update" => Mode::Update,
        "add" => Mode::Add,
        "mul" => Mode::Mul,
        "min" => Mode::Min,
        "max" => Mode::Max,
        _ => return None,
    })
}

/// The flat positions written and the flat positions of `updates` read, in order.
type Writes = Vec<(usize, usize)>;

/// Applies `writes` to a copy of `data`, combining by `mode`.
fn apply(data: &Value, updates: &Value, writes: &Writes, mode: Mode) -> Option<Value> {
    fn run<T: Copy + PartialOrd>(
        d: &ArrayD<T>,
        u: &ArrayD<T>,
        writes: &Writes,
        mode: Mode,
        add: fn(T, T) -> T,
        mul: fn(T, T) -> T,
    ) -> Option<ArrayD<T>> {
        let mut out = d.as_standard_layout().into_owned();
        let u = u.as_standard_layout();
        let (o, u) = (out.as_slice_mut()?, u.as_slice()?);
        for &(at, from) in writes {
            let (a, b) = (o[at], u[from]);
            o[at] = match mode {
                Mode::Update => b,
                Mode::Add => add(a, b),
                Mode::Mul => mul(a, b),
                Mode::Min if b < a => b,
                Mode::Max if b > a => b,
                Mode::Min | Mode::Max => a,
            };
        }
        Some(out)
    }
    let arr = match (&data.arr, &updates.arr) {
        (Arr::F32(d), Arr::F32(u)) => {
            Arr::F32(run(d, u, writes, mode, |a, b| a + b, |a, b| a * b)?)
        }
        (Arr::F64(d), Arr::F64(u)) => {
            Arr::F64(run(d, u, writes, mode, |a, b| a + b, |a, b| a * b)?)
        }
        (Arr::Int(d), Arr::Int(u)) => Arr::Int(run(
            d,
            u,
            writes,
            mode,
            i64::wrapping_add,
            i64::wrapping_mul,
        )?),
        _ => return None,
    };
    Value::new(data.dtype, arr)
}

fn index(v: i64, extent: usize) -> Option<usize> {
    let i = if v < 0 { v + extent as i64 } else { v };
    usize::try_from(i).ok().filter(|&i| i < extent)
}

fn strides(shape: &[usize]) -> Vec<usize> {
    let mut s = vec![1; shape.len()];
    for i in (0..shape.len().saturating_sub(1)).rev() {
        s[i] = s[i + 1] * shape[i + 1];
    }
    s
}

/// The integer elements of `v` in row-major order.
fn ints(v: &Value) -> Option<Vec<i64>> {
    match &v.arr {
        Arr::Int(a) => Some(a.iter().copied().collect()),
        _ => None,
    }
}

/// `scatter_elements(data, indices, updates, axis, reduction)`: for every position `p` of
/// `indices`, `data[p with axis replaced by indices[p]] (op)= updates[p]`.
pub(crate) fn scatter_elements(
    attrs: &Attrs,
    data: &Value,
    indices: &Value,
    updates: &Value,
) -> Option<Value> {
    let mode = mode(attrs.get_str("reduction").unwrap_or("update"))?;
    let ds = data.shape();
    let axis = norm_axis(attrs.get_int("axis").unwrap_or(0), ds.len())?;
    let is = indices.shape();
    if is != updates.shape() || is.len() != ds.len() {
        return None;
    }
    let (dst, ist) = (strides(ds), strides(is));
    let idx = ints(indices)?;
    let mut writes = Vec::with_capacity(idx.len());
    for (flat, &v) in idx.iter().enumerate() {
        let mut at = 0;
        for k in 0..is.len() {
            let c = (flat / ist[k]) % is[k];
            let c = if k == axis { index(v, ds[k])? } else { c };
            if c >= ds[k] {
                return None;
            }
            at += c * dst[k];
        }
        writes.push((at, flat));
    }
    apply(data, updates, &writes, mode)
}

/// `scatter_nd(data, indices, updates, mode)`: indices `(M, Y...)`, updates `(Y..., X_M...)`;
/// each `y` writes the slice `updates[y]` at `data[indices[:, y]]`.
pub(crate) fn scatter_nd(
    attrs: &Attrs,
    data: &Value,
    indices: &Value,
    updates: &Value,
) -> Option<Value> {
    let mode = mode(attrs.get_str("mode").unwrap_or("update"))?;
    let ds = data.shape();
    let is = indices.shape();
    let &m = is.first()?;
    if m > ds.len() {
        return None;
    }
    let ys: usize = is[1..].iter().product();
    let slice: usize = ds[m..].iter().product();
    if updates.shape().iter().product::<usize>() != ys * slice {
        return None;
    }
    let dst = strides(ds);
    let idx = ints(indices)?;
    let mut writes = Vec::with_capacity(ys * slice);
    for y in 0..ys {
        let mut base = 0;
        for k in 0..m {
            base += index(idx[k * ys + y], ds[k])? * dst[k];
        }
        writes.extend((0..slice).map(|j| (base + j, y * slice + j)));
    }
    apply(data, updates, &writes, mode)
}
