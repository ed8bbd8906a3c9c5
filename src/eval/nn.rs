//! Evaluation of the products: `nn.dense`, `nn.matmul`, `nn.batch_matmul`, `nn.conv1d`,
//! `nn.conv2d` and `nn.conv3d` (NCW / NCHW / NCDHW data, OI.. kernels, strides, padding in
//! its 1-value, per-axis and before/after forms, dilation, groups, as an im2col product per
//! image and group), the transposed convolutions (I O .. kernels, `output_padding`, as a
//! scatter of every input element), and `nn.bias_add`.
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

/// A spatial attribute of an N-d op (`strides`, `dilation`, `pool_size`) as `nd` values,
/// each at least 1 (one value stands for all).
pub(crate) fn spatial(attrs: &Attrs, name: &str, nd: usize) -> Option<Vec<usize>> {
    let v: Vec<usize> = attrs
        .get_ints(name)
        .unwrap_or_else(|| vec![1])
        .iter()
        .map(|&v| usize::try_from(v).ok().filter(|&v| v > 0))
        .collect::<Option<_>>()?;
    match v.len() {
        1 => Some(vec![v[0]; nd]),
        l if l == nd => Some(v),
        _ => None,
    }
}

/// An N-d op's `padding` as (before, after) per spatial axis: one value for all, one per
/// axis (both sides), or all befores then all afters.
pub(crate) fn spatial_padding(attrs: &Attrs, nd: usize) -> Option<Vec<(usize, usize)>> {
    let p: Vec<usize> = attrs
        .get_ints("padding")
        .unwrap_or_else(|| vec![0])
        .iter()
        .map(|&v| usize::try_from(v).ok())
        .collect::<Option<_>>()?;
    match p.len() {
        1 => Some(vec![(p[0], p[0]); nd]),
        l if l == nd => Some(p.iter().map(|&v| (v, v)).collect()),
        l if l == 2 * nd => Some((0..nd).map(|i| (p[i], p[nd + i])).collect()),
        _ => None,
    }
}

/// The geometry of one convolution, 1-d and 2-d ones as 3-d with extent-1 leading axes:
/// per axis (depth, height, width) the input extent, kernel extent, padding before, stride,
/// dilation and output extent.
#[derive(Clone)]
struct Conv {
    c: usize,
    ci: usize,
    size: [usize; 3],
    k: [usize; 3],
    pad: [usize; 3],
    stride: [usize; 3],
    dil: [usize; 3],
    out: [usize; 3],
}

impl Conv {
    /// The im2col matrix of image `b`, group `g`: row `(ic, kz, ky, kx)`, column `(z, y, x)`.
    fn columns<T: Copy + Default>(&self, x: &[T], b: usize, g: usize) -> Vec<T> {
        let [d, h, w] = self.size;
        let [kd, kh, kw] = self.k;
        let [od, oh, ow] = self.out;
        let p = od * oh * ow;
        let tap = |o: usize, k: usize, a: usize| {
            (o * self.stride[a] + k * self.dil[a])
                .checked_sub(self.pad[a])
                .filter(|&v| v < self.size[a])
        };
        let mut col = vec![T::default(); self.ci * kd * kh * kw * p];
        for ic in 0..self.ci {
            let vol = &x[(b * self.c + g * self.ci + ic) * d * h * w..][..d * h * w];
            for kz in 0..kd {
                for ky in 0..kh {
                    for kx in 0..kw {
                        let row = ((ic * kd + kz) * kh + ky) * kw + kx;
                        let dst = &mut col[row * p..(row + 1) * p];
                        for z in 0..od {
                            let Some(iz) = tap(z, kz, 0) else { continue };
                            for y in 0..oh {
                                let Some(iy) = tap(y, ky, 1) else { continue };
                                let src = &vol[(iz * h + iy) * w..][..w];
                                let out = &mut dst[(z * oh + y) * ow..][..ow];
                                for (xo, o) in out.iter_mut().enumerate() {
                                    if let Some(ix) = tap(xo, kx, 2) {
                                        *o = src[ix];
                                    }
                                }
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
        self.k == [1; 3] && self.stride == [1; 3] && self.pad == [0; 3]
    }
}

/// `nn.conv1d` (NCW / OIW), `nn.conv2d` (NCHW / OIHW) and `nn.conv3d` (NCDHW / OIDHW), by
/// the rank of `x`.
pub(crate) fn conv(attrs: &Attrs, x: &Value, w: &Value) -> Option<Value> {
    let nd = x.ndim().checked_sub(2).filter(|n| (1..=3).contains(n))?;
    let (data, kernel) = [("NCW", "OIW"), ("NCHW", "OIHW"), ("NCDHW", "OIDHW")][nd - 1];
    let out_layout = attrs.get_str("out_layout").unwrap_or("");
    if attrs.get_str("data_layout").unwrap_or(data) != data
        || attrs.get_str("kernel_layout").unwrap_or(kernel) != kernel
        || !(out_layout.is_empty() || out_layout == data)
        || w.ndim() != nd + 2
    {
        return None;
    }
    let (dt, x, w) = operands(attrs, x, w)?;
    let (xs, ws) = (x.shape().to_vec(), w.shape().to_vec());
    let (n, c, o, ci) = (xs[0], xs[1], ws[0], ws[1]);
    let groups = usize::try_from(attrs.get_int("groups").unwrap_or(1))
        .ok()
        .filter(|&g| g > 0)?;
    if c % groups != 0 || o % groups != 0 || c / groups != ci || ws[2..].contains(&0) {
        return None;
    }
    let pads = spatial_padding(attrs, nd)?;
    let strides = spatial(attrs, "strides", nd)?;
    let dils = spatial(attrs, "dilation", nd)?;
    let lead = 3 - nd;
    let mut geo = Conv {
        c,
        ci,
        size: [1; 3],
        k: [1; 3],
        pad: [0; 3],
        stride: [1; 3],
        dil: [1; 3],
        out: [1; 3],
    };
    for i in 0..nd {
        let a = lead + i;
        let ek = (ws[2 + i] - 1) * dils[i] + 1;
        let padded = xs[2 + i] + pads[i].0 + pads[i].1;
        if padded < ek {
            return None;
        }
        geo.size[a] = xs[2 + i];
        geo.k[a] = ws[2 + i];
        geo.pad[a] = pads[i].0;
        geo.stride[a] = strides[i];
        geo.dil[a] = dils[i];
        geo.out[a] = (padded - ek) / strides[i] + 1;
    }
    let p: usize = geo.out.iter().product();
    let kk: usize = ci * geo.k.iter().product::<usize>();
    bounded(&[n, o, p])?;
    bounded(&[kk, p])?;
    let opg = o / groups;
    let mut shape = vec![n, o];
    shape.extend(&geo.out[lead..]);
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

/// `nn.conv1d_transpose` (NCW / IOW), `nn.conv2d_transpose` (NCHW / IOHW) and
/// `nn.conv3d_transpose` (NCDHW / IODHW): every input element scattered through the kernel
/// (`out[(i * stride + k * dilation) - pad_before] += x[i] * w[k]`), the output
/// `(in - 1) * stride - pads + (k - 1) * dilation + 1 + output_padding` long per axis; terms
/// accumulate by input channel, then input position, then kernel position.
pub(crate) fn conv_transpose(attrs: &Attrs, x: &Value, w: &Value) -> Option<Value> {
    let nd = x.ndim().checked_sub(2).filter(|n| (1..=3).contains(n))?;
    let (data, kernel) = [("NCW", "IOW"), ("NCHW", "IOHW"), ("NCDHW", "IODHW")][nd - 1];
    let out_layout = attrs.get_str("out_layout").unwrap_or("");
    if attrs.get_str("data_layout").unwrap_or(data) != data
        || attrs.get_str("kernel_layout").unwrap_or(kernel) != kernel
        || !(out_layout.is_empty() || out_layout == data)
        || w.ndim() != nd + 2
    {
        return None;
    }
    let (dt, x, w) = operands(attrs, x, w)?;
    let (xs, ws) = (x.shape().to_vec(), w.shape().to_vec());
    let (n, c, opg) = (xs[0], xs[1], ws[1]);
    let groups = usize::try_from(attrs.get_int("groups").unwrap_or(1))
        .ok()
        .filter(|&g| g > 0)?;
    if ws[0] != c || c % groups != 0 {
        return None;
    }
    let (cpg, o) = (c / groups, opg * groups);
    let pads = spatial_padding(attrs, nd)?;
    let strides = spatial(attrs, "strides", nd)?;
    let dils = spatial(attrs, "dilation", nd)?;
    let out_pad: Vec<usize> = match attrs.get_ints("output_padding") {
        None => vec![0; nd],
        Some(v) if v.len() == nd => v
            .iter()
            .map(|&p| usize::try_from(p).ok())
            .collect::<Option<_>>()?,
        Some(v) if v.len() == 1 => vec![usize::try_from(v[0]).ok()?; nd],
        Some(_) => return None,
    };
    let mut outs = Vec::with_capacity(nd);
    for i in 0..nd {
        let full = (xs[2 + i].checked_sub(1)?) * strides[i]
            + (ws[2 + i].checked_sub(1)?) * dils[i]
            + 1
            + out_pad[i];
        outs.push(full.checked_sub(pads[i].0 + pads[i].1).filter(|&v| v > 0)?);
    }
    let mut shape = vec![n, o];
    shape.extend(&outs);
    bounded(&shape)?;
    let (isz, osz, ksz): (usize, usize, usize) = (
        xs[2..].iter().product(),
        outs.iter().product(),
        ws[2..].iter().product(),
    );
    bounded(&[isz, ksz])?;
    // For each input position and kernel position, the output position (or none).
    let unravel = |mut i: usize, dims: &[usize]| {
        let mut idx = vec![0; dims.len()];
        for a in (0..dims.len()).rev() {
            idx[a] = i % dims[a];
            i /= dims[a];
        }
        idx
    };
    let mut targets = vec![usize::MAX; isz * ksz];
    for ip in 0..isz {
        let ii = unravel(ip, &xs[2..]);
        for kp in 0..ksz {
            let ki = unravel(kp, &ws[2..]);
            let mut flat = 0usize;
            let mut inside = true;
            for a in 0..nd {
                let pos = (ii[a] * strides[a] + ki[a] * dils[a]).checked_sub(pads[a].0);
                match pos.filter(|&q| q < outs[a]) {
                    Some(q) => flat = flat * outs[a] + q,
                    None => inside = false,
                }
            }
            if inside {
                targets[ip * ksz + kp] = flat;
            }
        }
    }
    let arr = by_mac!(dt, x, w, |mac, a, b| {
        let mut out = vec![Default::default(); n * o * osz];
        for img in 0..n {
            for g in 0..groups {
                for oc in 0..opg {
                    let dst = &mut out[(img * o + g * opg + oc) * osz..][..osz];
                    for ic in 0..cpg {
                        let ch = g * cpg + ic;
                        let src = &a[(img * c + ch) * isz..][..isz];
                        let ker = &b[(ch * opg + oc) * ksz..][..ksz];
                        for (ip, &v) in src.iter().enumerate() {
                            for (kp, &k) in ker.iter().enumerate() {
                                let t = targets[ip * ksz + kp];
                                if t != usize::MAX {
                                    dst[t] = gemm::Mac::mac(mac, dst[t], v, k);
                                }
                            }
                        }
                    }
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
