//! Evaluation of reductions (`sum mean max min prod all any argmax argmin`, with `axis`,
//! `keepdims`, `exclude`) and of `nn.softmax` / `nn.log_softmax`.
//!
//! Accumulation is sequential in row-major order of the reduced axes, in the dtype (float16
//! rounds after every step, integers wrap), as TVM's default CPU schedule computes it. `mean`
//! divides the sum by the element count in the dtype (truncating for integers).

use super::value::{attr_dtype, norm_axis, wrap_int, Arr, Value};
use crate::ir::dtype::DTypeCode;
use crate::ir::{Attrs, DType};
use ndarray::{ArrayD, IxDyn};

/// `x` rounded to the dtype stored in `f32` (float16 and bfloat16 round, float32 is exact).
pub(crate) fn round_to(dt: DType) -> impl Fn(f32) -> f32 {
    move |x| match (dt.code, dt.bits) {
        (DTypeCode::Float, 16) => half::f16::from_f32(x).to_f32(),
        (DTypeCode::BFloat, 16) => half::bf16::from_f32(x).to_f32(),
        _ => x,
    }
}

/// The reduced axes (sorted) of a reduction over `ndim` dims.
fn reduce_axes(attrs: &Attrs, ndim: usize) -> Option<Vec<usize>> {
    let given = attrs
        .get("axis")
        .filter(|v| !v.is_null())
        .map(|v| v.as_int_list());
    let mut axes: Vec<usize> = match given {
        None => (0..ndim).collect(),
        Some(list) => {
            let list = list?;
            if list.is_empty() {
                (0..ndim).collect()
            } else {
                list.iter()
                    .map(|&a| norm_axis(a, ndim))
                    .collect::<Option<_>>()?
            }
        }
    };
    axes.sort_unstable();
    axes.dedup();
    if attrs.get_bool("exclude").unwrap_or(false) {
        axes = (0..ndim).filter(|a| !axes.contains(a)).collect();
    }
    Some(axes)
}

/// The elements grouped as `outer` rows of `inner` reduced elements, and the output shape.
fn rows<T: Copy>(a: &ArrayD<T>, axes: &[usize], keepdims: bool) -> (Vec<T>, usize, Vec<usize>) {
    let shape = a.shape();
    let kept: Vec<usize> = (0..shape.len()).filter(|i| !axes.contains(i)).collect();
    let mut perm = kept.clone();
    perm.extend_from_slice(axes);
    let inner: usize = axes.iter().map(|&i| shape[i]).product();
    let data: Vec<T> = a
        .view()
        .permuted_axes(IxDyn(&perm))
        .iter()
        .copied()
        .collect();
    let out = if keepdims {
        (0..shape.len())
            .map(|i| if axes.contains(&i) { 1 } else { shape[i] })
            .collect()
    } else {
        kept.iter().map(|&i| shape[i]).collect()
    };
    (data, inner, out)
}

fn per_row<T: Copy, U>(
    data: &[T],
    inner: usize,
    out: &[usize],
    f: impl Fn(&[T]) -> Option<U>,
) -> Option<ArrayD<U>> {
    let outer: usize = out.iter().product();
    let v: Vec<U> = if inner == 0 {
        (0..outer).map(|_| f(&[])).collect::<Option<_>>()?
    } else {
        data.chunks(inner).map(f).collect::<Option<_>>()?
    };
    ArrayD::from_shape_vec(IxDyn(out), v).ok()
}

fn arg_best<T: Copy + PartialOrd>(row: &[T], max: bool, last: bool) -> Option<i64> {
    let mut best = 0;
    for (i, &x) in row.iter().enumerate().skip(1) {
        let b = row[best];
        let better = if max { x > b } else { x < b };
        if better || (last && x == b) {
            best = i;
        }
    }
    (!row.is_empty()).then_some(best as i64)
}

/// `variance(x, mean)`: the mean of `(x - mean)^2` over the axes (`axis`, `keepdims`,
/// `exclude` as a reduction), divided by `N - 1` instead of `N` when `unbiased`.
pub(crate) fn variance(attrs: &Attrs, x: &Value, mean: &Value) -> Option<Value> {
    use super::elementwise::binary;
    if matches!(x.arr, Arr::Int(_)) {
        return None;
    }
    let d = binary("subtract", x, mean)?;
    let sq = binary("multiply", &d, &d)?;
    if !attrs.get_bool("unbiased").unwrap_or(false) {
        return evaluate("mean", attrs, &sq);
    }
    let axes = reduce_axes(attrs, x.ndim())?;
    let n: usize = axes.iter().map(|&a| x.shape()[a]).product();
    let sum = evaluate("sum", attrs, &sq)?;
    let div = match &sum.arr {
        Arr::F32(_) => Arr::F32(ArrayD::from_elem(IxDyn(&[]), n.saturating_sub(1) as f32)),
        Arr::F64(_) => Arr::F64(ArrayD::from_elem(IxDyn(&[]), n.saturating_sub(1) as f64)),
        Arr::Int(_) => return None,
    };
    binary("divide", &sum, &Value::new(sum.dtype, div)?)
}

/// Whether `op` is one of this module's ops.
pub(crate) fn is_reduction(op: &str) -> bool {
    matches!(
        op,
        "sum"
            | "mean"
            | "max"
            | "min"
            | "prod"
            | "all"
            | "any"
            | "argmax"
            | "argmin"
            | "nn.softmax"
            | "nn.fast_softmax"
            | "nn.log_softmax"
    )
}

/// Evaluates a reduction or softmax; `None` for other ops or invalid input.
pub(crate) fn evaluate(op: &str, attrs: &Attrs, x: &Value) -> Option<Value> {
    // fast_softmax computes softmax exactly here, as fast_exp computes exp.
    if op == "nn.softmax" || op == "nn.fast_softmax" || op == "nn.log_softmax" {
        return softmax(op == "nn.log_softmax", attrs, x);
    }
    if !matches!(
        op,
        "sum" | "mean" | "max" | "min" | "prod" | "all" | "any" | "argmax" | "argmin"
    ) {
        return None;
    }
    let dt = x.dtype;
    let axes = reduce_axes(attrs, x.ndim())?;
    let keep = attrs.get_bool("keepdims").unwrap_or(false);
    if op == "argmax" || op == "argmin" {
        let last = attrs.get_bool("select_last_index").unwrap_or(false);
        let max = op == "argmax";
        let out = match &x.arr {
            Arr::F32(a) => {
                let (d, n, s) = rows(a, &axes, keep);
                per_row(&d, n, &s, |r| arg_best(r, max, last))?
            }
            Arr::F64(a) => {
                let (d, n, s) = rows(a, &axes, keep);
                per_row(&d, n, &s, |r| arg_best(r, max, last))?
            }
            Arr::Int(a) => {
                let (d, n, s) = rows(a, &axes, keep);
                per_row(&d, n, &s, |r| arg_best(r, max, last))?
            }
        };
        return Value::new(DType::INT32, Arr::Int(out));
    }
    let arr = match &x.arr {
        Arr::F32(a) => {
            let r = round_to(dt);
            let (d, n, s) = rows(a, &axes, keep);
            Arr::F32(per_row(&d, n, &s, |row| float_reduce(op, row, &r))?)
        }
        Arr::F64(a) => {
            let (d, n, s) = rows(a, &axes, keep);
            Arr::F64(per_row(&d, n, &s, |row| float_reduce(op, row, &|v| v))?)
        }
        Arr::Int(a) => {
            let (d, n, s) = rows(a, &axes, keep);
            Arr::Int(per_row(&d, n, &s, |row| int_reduce(op, dt, row))?)
        }
    };
    Value::new(dt, arr)
}

fn float_reduce<F: num_traits::Float>(op: &str, row: &[F], round: &dyn Fn(F) -> F) -> Option<F> {
    let fold = |init: F, f: &dyn Fn(F, F) -> F| row.iter().fold(init, |acc, &x| round(f(acc, x)));
    Some(match op {
        "sum" => fold(F::zero(), &|a, b| a + b),
        "mean" => round(fold(F::zero(), &|a, b| a + b) / F::from(row.len())?),
        "prod" => fold(F::one(), &|a, b| a * b),
        "max" => fold(F::neg_infinity(), &|a, b| if b > a { b } else { a }),
        "min" => fold(F::infinity(), &|a, b| if b < a { b } else { a }),
        _ => return None,
    })
}

fn int_reduce(op: &str, dt: DType, row: &[i64]) -> Option<i64> {
    let bool_ok = matches!(op, "all" | "any" | "max" | "min");
    if dt.is_bool() && !bool_ok {
        return None;
    }
    let (lo, hi) = match dt.code {
        DTypeCode::UInt => (0, (1i64 << dt.bits) - 1),
        DTypeCode::Bool => (0, 1),
        _ if dt.bits == 64 => (i64::MIN, i64::MAX),
        _ => (-(1i64 << (dt.bits - 1)), (1i64 << (dt.bits - 1)) - 1),
    };
    Some(match op {
        "sum" => row.iter().fold(0i64, |a, &b| a.wrapping_add(b)),
        "mean" => {
            let n = i64::try_from(row.len()).ok().filter(|&n| n > 0)?;
            wrap_int(dt, row.iter().fold(0i64, |a, &b| a.wrapping_add(b))) / n
        }
        "prod" => row.iter().fold(1i64, |a, &b| a.wrapping_mul(b)),
        "max" => row.iter().copied().fold(lo, i64::max),
        "min" => row.iter().copied().fold(hi, i64::min),
        "all" => row.iter().all(|&b| b != 0) as i64,
        "any" => row.iter().any(|&b| b != 0) as i64,
        _ => return None,
    })
}

fn softmax(log: bool, attrs: &Attrs, x: &Value) -> Option<Value> {
    let axis = norm_axis(attrs.get_int("axis").unwrap_or(-1), x.ndim())?;
    let arr = match &x.arr {
        Arr::F32(a) => Arr::F32(softmax_along(a, axis, log, &round_to(x.dtype))?),
        Arr::F64(a) => Arr::F64(softmax_along(a, axis, log, &|v| v)?),
        Arr::Int(_) => return None,
    };
    Value::new(x.dtype, arr)
}

fn softmax_along<F: num_traits::Float>(
    a: &ArrayD<F>,
    axis: usize,
    log: bool,
    r: &dyn Fn(F) -> F,
) -> Option<ArrayD<F>> {
    let mut out = a.clone();
    for mut lane in out.lanes_mut(ndarray::Axis(axis)) {
        let m = lane
            .iter()
            .fold(F::neg_infinity(), |acc, &v| if v > acc { v } else { acc });
        let s = lane
            .iter()
            .fold(F::zero(), |acc, &v| r(acc + r(r(v - m).exp())));
        let ls = r(s.ln());
        lane.mapv_inplace(|v| {
            if log {
                r(r(v - m) - ls)
            } else {
                r(r(r(v - m).exp()) / s)
            }
        });
    }
    Some(out)
}

/// `collapse_sum_like(x, like)`: `x` summed down to the shape of `like`, over the axes by
/// which broadcasting would have grown `like` into `x` (its extra leading axes, and the axes
/// where `like` has 1 and `x` does not).
pub(crate) fn collapse_sum_like(x: &Value, like: &Value) -> Option<Value> {
    collapse_sum_to(x, like.shape())
}

/// `collapse_sum_to(x, shape)`: `x` summed down to `shape` (the leading axes `shape` lacks,
/// and its extents of 1 where `x` has more), as broadcasting's inverse.
pub(crate) fn collapse_sum_to(x: &Value, ls: &[usize]) -> Option<Value> {
    let xs = x.shape();
    let lead = xs.len().checked_sub(ls.len())?;
    let mut axes: Vec<usize> = (0..lead).collect();
    for (i, &l) in ls.iter().enumerate() {
        match (l, xs[lead + i]) {
            (l, d) if l == d => {}
            (1, _) => axes.push(lead + i),
            _ => return None,
        }
    }
    let dt = x.dtype;
    let arr = match &x.arr {
        Arr::F32(a) => {
            let r = round_to(dt);
            let (d, n, _) = rows(a, &axes, false);
            Arr::F32(per_row(&d, n, ls, |row| float_reduce("sum", row, &r))?)
        }
        Arr::F64(a) => {
            let (d, n, _) = rows(a, &axes, false);
            Arr::F64(per_row(&d, n, ls, |row| float_reduce("sum", row, &|v| v))?)
        }
        Arr::Int(a) => {
            let (d, n, _) = rows(a, &axes, false);
            Arr::Int(per_row(&d, n, ls, |row| int_reduce("sum", dt, row))?)
        }
    };
    Value::new(dt, arr)
}

/// The mean over `axes` (kept as dimensions of 1), summed in row-major order in the dtype
/// as `mean` does: the statistic of the normalizations.
pub(crate) fn mean_keep(x: &Value, axes: &[usize]) -> Option<Value> {
    float_keep("mean", x, axes)
}

/// The sum over `axes` (kept as dimensions of 1), in row-major order in the dtype.
pub(crate) fn sum_keep(x: &Value, axes: &[usize]) -> Option<Value> {
    float_keep("sum", x, axes)
}

fn float_keep(op: &str, x: &Value, axes: &[usize]) -> Option<Value> {
    let arr = match &x.arr {
        Arr::F32(a) => {
            let r = round_to(x.dtype);
            let (d, n, s) = rows(a, axes, true);
            Arr::F32(per_row(&d, n, &s, |row| float_reduce(op, row, &r))?)
        }
        Arr::F64(a) => {
            let (d, n, s) = rows(a, axes, true);
            Arr::F64(per_row(&d, n, &s, |row| float_reduce(op, row, &|v| v))?)
        }
        Arr::Int(_) => return None,
    };
    Value::new(x.dtype, arr)
}

/// `topk(x, k, axis, ret_type, is_ascend, dtype)`: along `axis`, the `k` largest (or, with
/// `is_ascend`, smallest) elements in order and their indices, an earlier index first among
/// equal elements; `k` below 1 takes the whole axis.
pub(crate) fn topk(attrs: &Attrs, x: &Value) -> Option<Vec<Value>> {
    let (values, indices) = sorted(
        x,
        attrs.get_int("axis").unwrap_or(-1),
        attrs.get_int("k").unwrap_or(1),
        attrs.get_bool("is_ascend").unwrap_or(false),
        attr_dtype(attrs, "dtype").unwrap_or(DType::INT32),
    )?;
    Some(match attrs.get_str("ret_type").unwrap_or("both") {
        "both" => vec![values, indices],
        "values" => vec![values],
        "indices" => vec![indices],
        _ => return None,
    })
}

/// `argsort(x, axis=-1, is_ascend=true, dtype="int32")`: the indices that sort each row along
/// `axis`, an earlier index first among equal elements (TVM's stable sort).
pub(crate) fn argsort(attrs: &Attrs, x: &Value) -> Option<Value> {
    let dt = attr_dtype(attrs, "dtype").unwrap_or(DType::INT32);
    let axis = attrs.get_int("axis").unwrap_or(-1);
    let ascend = attrs.get_bool("is_ascend").unwrap_or(true);
    sorted(x, axis, 0, ascend, dt).map(|(_, i)| i)
}

/// `sort(x, axis=-1, is_ascend=true)`: each row along `axis` sorted.
pub(crate) fn sort(attrs: &Attrs, x: &Value) -> Option<Value> {
    let axis = attrs.get_int("axis").unwrap_or(-1);
    let ascend = attrs.get_bool("is_ascend").unwrap_or(true);
    sorted(x, axis, 0, ascend, DType::INT32).map(|(v, _)| v)
}

/// For each row (the last axis of `v`, `n` long) the indices of its first `k` elements in
/// sorted order, stably (an earlier index first among equal or unordered elements).
fn row_orders<T: PartialOrd + Copy>(
    v: ndarray::ArrayViewD<'_, T>,
    n: usize,
    k: usize,
    ascend: bool,
) -> Vec<usize> {
    let vals: Vec<T> = v.iter().copied().collect();
    let mut order_all: Vec<usize> = Vec::with_capacity(vals.len() / n.max(1) * k);
    if n > 0 {
        for row in vals.chunks(n) {
            let mut order: Vec<usize> = (0..n).collect();
            order.sort_by(|&i, &j| {
                let c = row[i]
                    .partial_cmp(&row[j])
                    .unwrap_or(std::cmp::Ordering::Equal);
                if ascend {
                    c
                } else {
                    c.reverse()
                }
            });
            order_all.extend(&order[..k]);
        }
    }
    order_all
}

/// The first `k` elements of each row along `axis` in sorted order (the whole row when `k`
/// is below 1) and their indices as `idx_dt`.
fn sorted(x: &Value, axis: i64, k: i64, ascend: bool, idx_dt: DType) -> Option<(Value, Value)> {
    let nd = x.ndim();
    let axis = norm_axis(axis, nd)?;
    let n = x.shape()[axis];
    let k = match k {
        k if k < 1 => n,
        k => usize::try_from(k).ok().filter(|&k| k <= n)?,
    };
    if !idx_dt.is_int() && !idx_dt.is_float() {
        return None;
    }
    // Rows along the axis: move it last.
    let mut perm: Vec<usize> = (0..nd).filter(|&a| a != axis).collect();
    perm.push(axis);
    let mut out_shape: Vec<usize> = perm.iter().map(|&a| x.shape()[a]).collect();
    *out_shape.last_mut()? = k;
    let mut back = vec![0; nd];
    for (i, &a) in perm.iter().enumerate() {
        back[a] = i;
    }
    // Compared in the storage type itself: int64 keys beyond 2^53 stay distinct.
    let p = IxDyn(&perm);
    let order_all = match &x.arr {
        Arr::F32(a) => row_orders(a.view().permuted_axes(p), n, k, ascend),
        Arr::F64(a) => row_orders(a.view().permuted_axes(p), n, k, ascend),
        Arr::Int(a) => row_orders(a.view().permuted_axes(p), n, k, ascend),
    };
    let rows = x
        .shape()
        .iter()
        .product::<usize>()
        .checked_div(n)
        .unwrap_or(0);
    let values = super::value::each!(&x.arr, a => {
        let v = a.view().permuted_axes(IxDyn(&perm));
        let flat: Vec<_> = v.iter().copied().collect();
        let mut out = Vec::with_capacity(rows * k);
        for r in 0..rows {
            out.extend(order_all[r * k..(r + 1) * k].iter().map(|&i| flat[r * n + i]));
        }
        ArrayD::from_shape_vec(IxDyn(&out_shape), out)
            .ok()?
            .permuted_axes(IxDyn(&back))
            .as_standard_layout()
            .into_owned()
    });
    let idx: Vec<i64> = order_all.iter().map(|&i| i as i64).collect();
    let indices = ArrayD::from_shape_vec(IxDyn(&out_shape), idx)
        .ok()?
        .permuted_axes(IxDyn(&back))
        .as_standard_layout()
        .into_owned();
    let values = Value::new(x.dtype, values)?;
    // TVM allows float indices (`topk(..., dtype="float32")`): exact for any realistic extent.
    let indices = if idx_dt.is_int() {
        Value::new(idx_dt, Arr::Int(indices))?
    } else {
        super::elementwise::cast(&Value::new(DType::INT64, Arr::Int(indices))?, idx_dt)?
    };
    Some((values, indices))
}
