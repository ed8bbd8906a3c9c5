//! Evaluation of pooling in NCHW: `nn.max_pool2d`, `nn.avg_pool2d` (pool_size, strides,
//! dilation, padding in its 1-, 2- and 4-value forms, `ceil_mode`, `count_include_pad`),
//! `nn.global_max_pool2d`, `nn.global_avg_pool2d`, `nn.adaptive_max_pool2d` and
//! `nn.adaptive_avg_pool2d` (`output_size`).
//!
//! As TVM's `topi.nn.pool2d`: padded positions never win a max; an average divides the sum
//! of the window (taken row by row, in the dtype) by the positions inside the input, or with
//! `count_include_pad` inside the padded input (the extra rows `ceil_mode` adds are not
//! counted). An adaptive window `i` covers `floor(i * in / out)` to `ceil((i + 1) * in /
//! out)`. Integer averages are not evaluated. `nn.{max,avg}_pool1d` (NCW) and `_pool3d`
//! (NCDHW) pool one spatial axis after the other with the same windows.

use super::nn::{padding, pair, spatial, spatial_padding};
use super::reduce::round_to;
use super::shape_ops::bounded;
use super::value::{Arr, Value};
use crate::ir::Attrs;
use ndarray::{ArrayD, IxDyn};
use num_traits::Float;

/// One axis of a pooling: for each output position, the input range it reads.
struct Windows {
    /// (first, last + 1, count for the average), per output position.
    ranges: Vec<(usize, usize, usize)>,
    dilation: usize,
}

fn windows(
    size: usize,
    k: usize,
    stride: usize,
    dil: usize,
    (before, after): (usize, usize),
    ceil: bool,
    include_pad: bool,
) -> Option<Windows> {
    let ek = (k - 1) * dil + 1;
    let padded = size + before + after;
    if padded < ek {
        return None;
    }
    let span = padded - ek + if ceil { stride - 1 } else { 0 };
    let mut out = span / stride + 1;
    // A last window that would start in the padding after the input is dropped (TVM, like
    // PyTorch, keeps every window starting inside the input or the leading padding).
    if ceil && (out - 1) * stride >= size + before {
        out -= 1;
    }
    let mut ranges = Vec::with_capacity(out);
    for o in 0..out {
        let start = (o * stride) as i64 - before as i64;
        let taps = (0..k).map(|t| start + (t * dil) as i64);
        let inside = taps.clone().filter(|&i| i >= 0 && (i as usize) < size);
        let first = inside.clone().next().unwrap_or(0) as usize;
        let last = inside.clone().next_back().map_or(first, |l| l as usize + 1);
        let count = if include_pad {
            taps.filter(|&i| i < (size + after) as i64).count()
        } else {
            inside.count()
        };
        ranges.push((first, last, count));
    }
    Some(Windows {
        ranges,
        dilation: dil,
    })
}

/// Whether `op` is one of this module's ops.
pub(crate) fn is_pool(op: &str) -> bool {
    matches!(
        op,
        "nn.max_pool2d"
            | "nn.avg_pool2d"
            | "nn.global_max_pool2d"
            | "nn.global_avg_pool2d"
            | "nn.adaptive_max_pool2d"
            | "nn.adaptive_avg_pool2d"
            | "nn.adaptive_max_pool1d"
            | "nn.adaptive_avg_pool1d"
            | "nn.adaptive_max_pool3d"
            | "nn.adaptive_avg_pool3d"
            | "nn.max_pool1d"
            | "nn.avg_pool1d"
            | "nn.max_pool3d"
            | "nn.avg_pool3d"
    )
}

/// A value with the same elements in another shape.
pub(crate) fn reshaped(v: &Value, shape: &[usize]) -> Option<Value> {
    Value::new(
        v.dtype,
        super::value::each!(&v.arr, a => a
            .as_standard_layout()
            .into_owned()
            .into_shape_with_order(IxDyn(shape))
            .ok()?),
    )
}

/// `nn.max_pool1d` / `nn.avg_pool1d` (NCW) and `nn.max_pool3d` / `nn.avg_pool3d` (NCDHW):
/// one spatial axis at a time (a window is a box, so its max is the max of per-axis maxima
/// and its average the per-axis averages in turn, each divided by that axis's count).
pub(crate) fn pool_nd(max: bool, attrs: &Attrs, x: &Value) -> Option<Value> {
    let nd = x.ndim().checked_sub(2).filter(|&n| n == 1 || n == 3)?;
    let layout = if nd == 1 { "NCW" } else { "NCDHW" };
    if attrs.get_str("layout").unwrap_or(layout) != layout
        || !matches!(
            attrs.get_str("out_layout").unwrap_or(""),
            "" | "NCW" | "NCDHW"
        )
    {
        return None;
    }
    let ks = spatial(attrs, "pool_size", nd)?;
    let ss = spatial(attrs, "strides", nd)?;
    let ds = spatial(attrs, "dilation", nd)?;
    let pads = spatial_padding(attrs, nd)?;
    let ceil = attrs.get_bool("ceil_mode").unwrap_or(false);
    let inc = attrs.get_bool("count_include_pad").unwrap_or(false);
    let mut cur = x.clone();
    for i in 0..nd {
        let shape = cur.shape().to_vec();
        let pre: usize = shape[..2 + i].iter().product();
        let len = shape[2 + i];
        let post: usize = shape[3 + i..].iter().product();
        let rows = windows(len, ks[i], ss[i], ds[i], pads[i], ceil, inc)?;
        let cols = Windows {
            ranges: (0..post).map(|j| (j, j + 1, 1)).collect(),
            dilation: 1,
        };
        let out_len = rows.ranges.len();
        let pooled = run(
            max,
            &reshaped(&cur, &[pre, 1, len, post])?,
            pre,
            (len, post),
            &rows,
            &cols,
        )?;
        let mut next = shape;
        next[2 + i] = out_len;
        cur = reshaped(&pooled, &next)?;
    }
    Some(cur)
}

fn nchw_ok(attrs: &Attrs) -> bool {
    attrs.get_str("layout").unwrap_or("NCHW") == "NCHW"
        && matches!(attrs.get_str("out_layout").unwrap_or(""), "" | "NCHW")
}

/// `nn.max_pool2d` / `nn.avg_pool2d`.
pub(crate) fn pool2d(max: bool, attrs: &Attrs, x: &Value) -> Option<Value> {
    if !nchw_ok(attrs) {
        return None;
    }
    let &[n, c, h, w] = x.shape() else {
        return None;
    };
    let [kh, kw] = pair(attrs, "pool_size")?;
    let [sh, sw] = pair(attrs, "strides")?;
    let [dh, dw] = pair(attrs, "dilation")?;
    let [pt, pl, pb, pr] = padding(attrs)?;
    let ceil = attrs.get_bool("ceil_mode").unwrap_or(false);
    let inc = attrs.get_bool("count_include_pad").unwrap_or(false);
    let rows = windows(h, kh, sh, dh, (pt, pb), ceil, inc)?;
    let cols = windows(w, kw, sw, dw, (pl, pr), ceil, inc)?;
    run(max, x, n * c, (h, w), &rows, &cols)
}

/// `nn.global_max_pool2d` / `nn.global_avg_pool2d`.
pub(crate) fn global_pool2d(max: bool, attrs: &Attrs, x: &Value) -> Option<Value> {
    if !nchw_ok(attrs) {
        return None;
    }
    let &[n, c, h, w] = x.shape() else {
        return None;
    };
    let whole = |size: usize| Windows {
        ranges: vec![(0, size, size)],
        dilation: 1,
    };
    run(max, x, n * c, (h, w), &whole(h), &whole(w))
}

/// `nn.adaptive_max_pool2d` / `nn.adaptive_avg_pool2d`.
pub(crate) fn adaptive_pool2d(max: bool, attrs: &Attrs, x: &Value) -> Option<Value> {
    if !nchw_ok(attrs) {
        return None;
    }
    let &[n, c, h, w] = x.shape() else {
        return None;
    };
    let [oh, ow] = output_size(attrs, [h, w])?;
    adaptive_hw(max, x, n * c, (h, w), (oh, ow))
}

/// `nn.adaptive_{max,avg}_pool1d` (NCW) and `nn.adaptive_{max,avg}_pool3d` (NCDHW), through
/// the 2-d one: 1-d as a plane of height 1; 3-d over (H, W) first, then over D with the
/// pooled (H, W) positions kept apart. A window is a box, so its max is the max of the
/// per-axis maxima and its average the average of the per-axis averages (equal up to
/// rounding to TVM's one sum per window).
pub(crate) fn adaptive_pool_nd(max: bool, attrs: &Attrs, x: &Value) -> Option<Value> {
    match *x.shape() {
        [n, c, w] => {
            if attrs.get_str("layout").unwrap_or("NCW") != "NCW"
                || !matches!(attrs.get_str("out_layout").unwrap_or(""), "" | "NCW")
            {
                return None;
            }
            let [ow] = output_size(attrs, [w])?;
            let out = adaptive_hw(max, &reshaped(x, &[n, c, 1, w])?, n * c, (1, w), (1, ow))?;
            reshaped(&out, &[n, c, ow])
        }
        [n, c, d, h, w] => {
            if attrs.get_str("layout").unwrap_or("NCDHW") != "NCDHW"
                || !matches!(attrs.get_str("out_layout").unwrap_or(""), "" | "NCDHW")
            {
                return None;
            }
            let [od, oh, ow] = output_size(attrs, [d, h, w])?;
            let cd = c.checked_mul(d)?;
            let hw = adaptive_hw(max, &reshaped(x, &[n, cd, h, w])?, n * cd, (h, w), (oh, ow))?;
            let inner = oh * ow;
            let out = adaptive_hw(
                max,
                &reshaped(&hw, &[n, c, d, inner])?,
                n * c,
                (d, inner),
                (od, inner),
            )?;
            reshaped(&out, &[n, c, od, oh, ow])
        }
        _ => None,
    }
}

/// The `output_size` attribute: the input's size when empty, one size for every axis, or one
/// per axis.
fn output_size<const N: usize>(attrs: &Attrs, input: [usize; N]) -> Option<[usize; N]> {
    let size = attrs.get_ints("output_size").unwrap_or_default();
    let mut out = input;
    match size.len() {
        0 => {}
        1 => out = [usize::try_from(size[0]).ok()?; N],
        n if n == N => {
            for (o, &s) in out.iter_mut().zip(&size) {
                *o = usize::try_from(s).ok()?;
            }
        }
        _ => return None,
    }
    Some(out)
}

/// Adaptive pooling of a 4-d value's `planes` planes of `(h, w)` to `(oh, ow)`.
fn adaptive_hw(
    max: bool,
    x: &Value,
    planes: usize,
    (h, w): (usize, usize),
    (oh, ow): (usize, usize),
) -> Option<Value> {
    if oh == 0 || ow == 0 {
        return None;
    }
    bounded(&[planes, oh, ow])?;
    let adaptive = |size: usize, out: usize| Windows {
        ranges: (0..out)
            .map(|i| {
                let (s, e) = (i * size / out, ((i + 1) * size).div_ceil(out));
                (s, e, e - s)
            })
            .collect(),
        dilation: 1,
    };
    run(max, x, planes, (h, w), &adaptive(h, oh), &adaptive(w, ow))
}

fn run(
    max: bool,
    x: &Value,
    planes: usize,
    (h, w): (usize, usize),
    rows: &Windows,
    cols: &Windows,
) -> Option<Value> {
    let (oh, ow) = (rows.ranges.len(), cols.ranges.len());
    let mut shape = x.shape()[..2].to_vec();
    shape.extend([oh, ow]);
    let arr = match &x.arr {
        Arr::F32(a) => Arr::F32(pool_float(
            max,
            a,
            planes,
            (h, w),
            rows,
            cols,
            &shape,
            &round_to(x.dtype),
        )?),
        Arr::F64(a) => Arr::F64(pool_float(
            max,
            a,
            planes,
            (h, w),
            rows,
            cols,
            &shape,
            &|v| v,
        )?),
        Arr::Int(a) if max => {
            let src = a.as_standard_layout();
            let src = src.as_slice()?;
            let mut out = Vec::with_capacity(planes * oh * ow);
            for p in 0..planes {
                let plane = &src[p * h * w..(p + 1) * h * w];
                for &(y0, y1, _) in &rows.ranges {
                    for &(x0, x1, _) in &cols.ranges {
                        let mut best = i64::MIN;
                        for y in (y0..y1).step_by(rows.dilation) {
                            for xx in (x0..x1).step_by(cols.dilation) {
                                best = best.max(plane[y * w + xx]);
                            }
                        }
                        out.push(best);
                    }
                }
            }
            Arr::Int(ArrayD::from_shape_vec(IxDyn(&shape), out).ok()?)
        }
        Arr::Int(_) => return None,
    };
    Value::new(x.dtype, arr)
}

#[allow(clippy::too_many_arguments)]
fn pool_float<F: Float>(
    max: bool,
    a: &ArrayD<F>,
    planes: usize,
    (h, w): (usize, usize),
    rows: &Windows,
    cols: &Windows,
    shape: &[usize],
    r: &dyn Fn(F) -> F,
) -> Option<ArrayD<F>> {
    let src = a.as_standard_layout();
    let src = src.as_slice()?;
    let mut out = Vec::with_capacity(planes * rows.ranges.len() * cols.ranges.len());
    for p in 0..planes {
        let plane = &src[p * h * w..(p + 1) * h * w];
        for &(y0, y1, ny) in &rows.ranges {
            for &(x0, x1, nx) in &cols.ranges {
                let mut acc = if max { F::neg_infinity() } else { F::zero() };
                for y in (y0..y1).step_by(rows.dilation) {
                    let line = &plane[y * w..(y + 1) * w];
                    for xx in (x0..x1).step_by(cols.dilation) {
                        let v = line[xx];
                        acc = if max {
                            if v > acc || v.is_nan() {
                                v
                            } else {
                                acc
                            }
                        } else {
                            r(acc + v)
                        };
                    }
                }
                if !max {
                    acc = r(acc / F::from(ny * nx)?);
                }
                out.push(acc);
            }
        }
    }
    ArrayD::from_shape_vec(IxDyn(shape), out).ok()
}
