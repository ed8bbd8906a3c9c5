//! Evaluation of the products: `nn.dense`, `nn.matmul`, `nn.batch_matmul`, `nn.conv2d`
//! (NCHW / OIHW, strides, padding in its 1-, 2- and 4-value forms, dilation, groups, as an
//! im2col product per image and group), and `nn.bias_add`.
//!
//! Operands are cast to `out_dtype` first, as TVM's compute definitions do; every output
//! element accumulates its terms in ascending order (input channel, then kernel row, then
//! kernel column for conv2d) in that dtype, through [`gemm::matmul`]: integers wrap, float16
//! rounds after every step, and padded positions contribute `0 * w` like TVM's padded
//! input. Other layouts are not evaluated.

use super::elementwise::cast;
use super::gemm::{self, F32Mac, F64Mac, IntMac, RoundedMac};
use super::shape_ops::bounded;
use super::value::{attr_dtype, norm_axis, Arr, Value};
use crate::ir::dtype::DTypeCode;
use crate::ir::{Attrs, DType};
use ndarray::{ArrayD, IxDyn};

fn round_f16(x: f32) -> f32 {
    half::f16::from_f32(x).to_f32()
}

fn round_bf16(x: f32) -> f32 {
    half::bf16::from_f32(x).to_f32()
}

/// The elements of `v` in row-major order (no copy when it is already laid out so).
fn flat<T: Copy>(a: &ArrayD<T>) -> std::borrow::Cow<'_, [T]> {
    match a.as_slice() {
        Some(s) => std::borrow::Cow::Borrowed(s),
        None => std::borrow::Cow::Owned(a.iter().copied().collect()),
    }
}

/// Runs `$body` with `$mac` the accumulation of `$dt` and `$a`, `$b` the operands' flat
/// elements; `$body` gives `Option<(shape, Vec<T>)>`, wrapped back into the storage.
macro_rules! by_mac {
    ($dt:expr, $x:expr, $w:expr, |$mac:ident, $a:ident, $b:ident| $body:expr) => {
        match (&$x.arr, &$w.arr) {
            (Arr::F32(xa), Arr::F32(wa)) => {
                let ($a, $b) = (flat(xa), flat(wa));
                let r = match ($dt.code, $dt.bits) {
                    (DTypeCode::Float, 16) => {
                        let $mac = RoundedMac(round_f16);
                        $body
                    }
                    (DTypeCode::BFloat, 16) => {
                        let $mac = RoundedMac(round_bf16);
                        $body
                    }
                    _ => {
                        let $mac = F32Mac;
                        $body
                    }
                };
                r.map(|(s, v): (Vec<usize>, Vec<f32>)| {
                    ArrayD::from_shape_vec(IxDyn(&s), v).ok().map(Arr::F32)
                })
                .flatten()
            }
            (Arr::F64(xa), Arr::F64(wa)) => {
                let ($a, $b) = (flat(xa), flat(wa));
                let $mac = F64Mac;
                let r: Option<(Vec<usize>, Vec<f64>)> = $body;
                r.and_then(|(s, v)| ArrayD::from_shape_vec(IxDyn(&s), v).ok().map(Arr::F64))
            }
            (Arr::Int(xa), Arr::Int(wa)) => {
                let ($a, $b) = (flat(xa), flat(wa));
                let $mac = IntMac;
                let r: Option<(Vec<usize>, Vec<i64>)> = $body;
                r.and_then(|(s, v)| ArrayD::from_shape_vec(IxDyn(&s), v).ok().map(Arr::Int))
            }
            _ => None,
        }
    };
}

/// Casts both operands to `out_dtype` (when given) and checks they agree.
fn operands(attrs: &Attrs, x: &Value, w: &Value) -> Option<(DType, Value, Value)> {
    let dt = attr_dtype(attrs, "out_dtype").unwrap_or(x.dtype);
    if dt.is_bool() {
        return None;
    }
    let cast_to = |v: &Value| {
        if v.dtype == dt {
            Some(v.clone())
        } else {
            cast(v, dt)
        }
    };
    Some((dt, cast_to(x)?, cast_to(w)?))
}

/// `x (rows x k) * w^T` for `w (units x k)`: one product with `w` transposed once.
fn rows_times_transposed<M: gemm::Mac>(
    mac: M,
    x: &[M::T],
    w: &[M::T],
    rows: usize,
    k: usize,
    units: usize,
) -> Option<Vec<M::T>> {
    bounded(&[rows, units])?;
    let wt = gemm::transpose(w, units, k);
    let mut out = vec![M::T::default(); rows * units];
    gemm::matmul(mac, x, &wt, &mut out, rows, k, units);
    Some(out)
}

/// `nn.dense(x (..., K), w (N, K))`.
pub(crate) fn dense(attrs: &Attrs, x: &Value, w: &Value) -> Option<Value> {
    dense_with(attrs, x, w, true)
}

fn dense_with(attrs: &Attrs, x: &Value, w: &Value, check_units: bool) -> Option<Value> {
    let (dt, x, w) = operands(attrs, x, w)?;
    let (xs, ws) = (x.shape().to_vec(), w.shape().to_vec());
    let k = *xs.last()?;
    if ws.len() != 2 || ws[1] != k {
        return None;
    }
    let units = ws[0];
    if check_units && attrs.get_int("units").is_some_and(|u| u != units as i64) {
        return None;
    }
    let rows: usize = xs[..xs.len() - 1].iter().product();
    let mut shape = xs[..xs.len() - 1].to_vec();
    shape.push(units);
    let arr = by_mac!(dt, x, w, |mac, a, b| rows_times_transposed(
        mac, &a, &b, rows, k, units
    )
    .map(|v| (shape.clone(), v)))?;
    Value::new(dt, arr)
}

/// `nn.matmul(a, b, transpose_a, transpose_b)`: `a (..., K)` (or `(K, M)` transposed),
/// `b (K, N)` (or `(N, K)` transposed).
pub(crate) fn matmul(attrs: &Attrs, x: &Value, w: &Value) -> Option<Value> {
    let (ta, tb) = (
        attrs.get_bool("transpose_a").unwrap_or(false),
        attrs.get_bool("transpose_b").unwrap_or(false),
    );
    let x = if ta {
        if x.ndim() != 2 {
            return None;
        }
        transpose2(x)?
    } else {
        x.clone()
    };
    let w = if tb { w.clone() } else { transpose2(w)? };
    dense_with(attrs, &x, &w, false)
}

fn transpose2(v: &Value) -> Option<Value> {
    if v.ndim() != 2 {
        return None;
    }
    Value::new(
        v.dtype,
        super::value::each!(&v.arr, a => a.t().as_standard_layout().into_owned()),
    )
}

/// `nn.batch_matmul(x (B, M, K), y (B, N, K))` with `transpose_b=True` (what
/// `relay.nn.batch_matmul` writes) and the other three combinations, a batch of 1 on either
/// side broadcast.
pub(crate) fn batch_matmul(attrs: &Attrs, x: &Value, y: &Value) -> Option<Value> {
    let (dt, x, y) = operands(attrs, x, y)?;
    let ta = attrs.get_bool("transpose_a").unwrap_or(false);
    let tb = attrs.get_bool("transpose_b").unwrap_or(false);
    let (&[bx, x1, x2], &[by, y1, y2]) = (x.shape(), y.shape()) else {
        return None;
    };
    let (m, k) = if ta { (x2, x1) } else { (x1, x2) };
    let (k2, n) = if tb { (y2, y1) } else { (y1, y2) };
    if k != k2 || (bx != by && bx != 1 && by != 1) {
        return None;
    }
    let batch = bx.max(by);
    bounded(&[batch, m, n])?;
    let shape = vec![batch, m, n];
    let arr = by_mac!(dt, x, y, |mac, a, b| {
        let mut out = vec![Default::default(); batch * m * n];
        for i in 0..batch {
            let xa = &a[(i % bx) * m * k..][..m * k];
            let yb = &b[(i % by) * k * n..][..k * n];
            let xa = if ta {
                std::borrow::Cow::Owned(gemm::transpose(xa, k, m))
            } else {
                std::borrow::Cow::Borrowed(xa)
            };
            let yb = if tb {
                std::borrow::Cow::Owned(gemm::transpose(yb, n, k))
            } else {
                std::borrow::Cow::Borrowed(yb)
            };
            gemm::matmul(mac, &xa, &yb, &mut out[i * m * n..][..m * n], m, k, n);
        }
        Some((shape.clone(), out))
    })?;
    Value::new(dt, arr)
}

/// Padding as (top, left, bottom, right).
pub(crate) fn padding(attrs: &Attrs) -> Option<[usize; 4]> {
    let p: Vec<usize> = attrs
        .get_ints("padding")
        .unwrap_or_else(|| vec![0, 0])
        .iter()
        .map(|&v| usize::try_from(v).ok())
        .collect::<Option<_>>()?;
    Some(match p.as_slice() {
        [a] => [*a; 4],
        [h, w] => [*h, *w, *h, *w],
        [t, l, b, r] => [*t, *l, *b, *r],
        _ => return None,
    })
}

/// A two-value attribute (`strides`, `dilation`, `pool_size`), each at least 1.
pub(crate) fn pair(attrs: &Attrs, name: &str) -> Option<[usize; 2]> {
    let v: Vec<usize> = attrs
        .get_ints(name)
        .unwrap_or_else(|| vec![1, 1])
        .iter()
        .map(|&v| usize::try_from(v).ok().filter(|&v| v > 0))
        .collect::<Option<_>>()?;
    match v.as_slice() {
        [a] => Some([*a, *a]),
        [a, b] => Some([*a, *b]),
        _ => None,
    }
}

/// The geometry of one conv2d.
#[derive(Clone, Copy)]
struct Conv {
    c: usize,
    h: usize,
    w: usize,
    ci: usize,
    kh: usize,
    kw: usize,
    pt: usize,
    pl: usize,
    sh: usize,
    sw: usize,
    dh: usize,
    dw: usize,
    oh: usize,
    ow: usize,
}

impl Conv {
    /// The im2col matrix of image `b`, group `g`: row `(ic, ky, kx)`, column `(y, x)`.
    fn columns<T: Copy + Default>(&self, x: &[T], b: usize, g: usize) -> Vec<T> {
        let p = self.oh * self.ow;
        let mut col = vec![T::default(); self.ci * self.kh * self.kw * p];
        for ic in 0..self.ci {
            let plane = &x[(b * self.c + g * self.ci + ic) * self.h * self.w..][..self.h * self.w];
            for ky in 0..self.kh {
                for kx in 0..self.kw {
                    let row = (ic * self.kh + ky) * self.kw + kx;
                    let dst = &mut col[row * p..(row + 1) * p];
                    for y in 0..self.oh {
                        let Some(iy) = (y * self.sh + ky * self.dh)
                            .checked_sub(self.pt)
                            .filter(|&v| v < self.h)
                        else {
                            continue;
                        };
                        let src = &plane[iy * self.w..(iy + 1) * self.w];
                        let out = &mut dst[y * self.ow..(y + 1) * self.ow];
                        for (xo, o) in out.iter_mut().enumerate() {
                            if let Some(ix) = (xo * self.sw + kx * self.dw)
                                .checked_sub(self.pl)
                                .filter(|&v| v < self.w)
                            {
                                *o = src[ix];
                            }
                        }
                    }
                }
            }
        }
        col
    }

    /// A 1x1 kernel, stride 1, no padding: the image's planes are the columns already.
    fn is_pointwise(&self) -> bool {
        self.kh == 1 && self.kw == 1 && self.sh == 1 && self.sw == 1 && self.pt == 0 && self.pl == 0
    }
}

/// `nn.conv2d(x, w)` in NCHW / OIHW.
pub(crate) fn conv2d(attrs: &Attrs, x: &Value, w: &Value) -> Option<Value> {
    let layout_ok = attrs.get_str("data_layout").unwrap_or("NCHW") == "NCHW"
        && attrs.get_str("kernel_layout").unwrap_or("OIHW") == "OIHW"
        && matches!(attrs.get_str("out_layout").unwrap_or(""), "" | "NCHW");
    if !layout_ok {
        return None;
    }
    let (dt, x, w) = operands(attrs, x, w)?;
    let ([n, c, h, wd], [o, ci, kh, kw]) = (
        <[usize; 4]>::try_from(x.shape()).ok()?,
        <[usize; 4]>::try_from(w.shape()).ok()?,
    );
    let groups = usize::try_from(attrs.get_int("groups").unwrap_or(1))
        .ok()
        .filter(|&g| g > 0)?;
    if c % groups != 0 || o % groups != 0 || c / groups != ci || kh == 0 || kw == 0 {
        return None;
    }
    let [pt, pl, pb, pr] = padding(attrs)?;
    let [sh, sw] = pair(attrs, "strides")?;
    let [dh, dw] = pair(attrs, "dilation")?;
    let (ekh, ekw) = ((kh - 1) * dh + 1, (kw - 1) * dw + 1);
    let (hp, wp) = (h + pt + pb, wd + pl + pr);
    if hp < ekh || wp < ekw {
        return None;
    }
    let (oh, ow) = ((hp - ekh) / sh + 1, (wp - ekw) / sw + 1);
    let geo = Conv {
        c,
        h,
        w: wd,
        ci,
        kh,
        kw,
        pt,
        pl,
        sh,
        sw,
        dh,
        dw,
        oh,
        ow,
    };
    bounded(&[n, o, oh, ow])?;
    bounded(&[ci * kh * kw, oh, ow])?;
    let (opg, kk, p) = (o / groups, ci * kh * kw, oh * ow);
    let shape = vec![n, o, oh, ow];
    let arr = by_mac!(dt, x, w, |mac, a, b| {
        let mut out = vec![Default::default(); n * o * p];
        for img in 0..n {
            for g in 0..groups {
                let kernel = &b[g * opg * kk..(g + 1) * opg * kk];
                let dst = &mut out[(img * o + g * opg) * p..][..opg * p];
                if geo.is_pointwise() {
                    let src = &a[(img * c + g * ci) * p..][..ci * p];
                    gemm::matmul(mac, kernel, src, dst, opg, kk, p);
                } else {
                    let col = geo.columns(&a, img, g);
                    gemm::matmul(mac, kernel, &col, dst, opg, kk, p);
                }
            }
        }
        Some((shape.clone(), out))
    })?;
    Value::new(dt, arr)
}

/// `nn.bias_add(x, b, axis)`: `b` broadcast along `axis`.
pub(crate) fn bias_add(attrs: &Attrs, x: &Value, b: &Value) -> Option<Value> {
    let axis = norm_axis(attrs.get_int("axis").unwrap_or(1), x.ndim())?;
    if b.ndim() != 1 || b.shape()[0] != x.shape()[axis] {
        return None;
    }
    let bb = along_axis(b, x.ndim(), axis)?;
    super::elementwise::binary("add", x, &bb)
}

/// A 1-d value reshaped to broadcast along `axis` of a rank-`ndim` tensor.
pub(crate) fn along_axis(b: &Value, ndim: usize, axis: usize) -> Option<Value> {
    let mut shape = vec![1; ndim - axis];
    shape[0] = b.shape()[0];
    Value::new(
        b.dtype,
        super::value::each!(&b.arr, a => a.clone().into_shape_with_order(IxDyn(&shape)).ok()?),
    )
}
