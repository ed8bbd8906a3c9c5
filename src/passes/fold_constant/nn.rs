//! Evaluation of `nn.dense`, `nn.conv2d` and `nn.bias_add`.
//!
//! `nn.dense(x (..., K), w (N, K))` and `nn.conv2d` (NCHW data, OIHW kernel, strides,
//! padding in its 1-, 2- and 4-value forms, dilation, groups) are naive loops that accumulate
//! each output element sequentially (`k` for dense; input channel, then kernel row, then
//! kernel column for conv2d) in the output dtype: operands are cast to `out_dtype` first, as
//! TVM's compute definitions do, integers wrap and float16 rounds after every step. Padded
//! positions contribute `0 * w` like TVM's padded input. Other layouts are not evaluated.

use super::elementwise::cast;
use super::eval::{attr_dtype, norm_axis, Arr, Value};
use super::reduce::round_to;
use crate::ir::{Attrs, DType};
use ndarray::{ArrayD, IxDyn};

/// Multiply-accumulate in a dtype.
#[derive(Clone, Copy)]
enum Mac {
    F32(DType),
    F64,
    Int,
}

impl Mac {
    fn of(v: &Value) -> Mac {
        match v.arr {
            Arr::F32(_) => Mac::F32(v.dtype),
            Arr::F64(_) => Mac::F64,
            Arr::Int(_) => Mac::Int,
        }
    }
}

/// Flat row-major elements as `f64` bit-exact carriers for `f32`/`f64`, or `i64`.
enum Flat {
    F(Vec<f64>),
    I(Vec<i64>),
}

fn flat(v: &Value) -> Flat {
    match &v.arr {
        Arr::F32(a) => Flat::F(a.iter().map(|&x| x as f64).collect()),
        Arr::F64(a) => Flat::F(a.iter().copied().collect()),
        Arr::Int(a) => Flat::I(a.iter().copied().collect()),
    }
}

/// `sum_k x[xi(k)] * w[wi(k)]` for `k in 0..n`, in the accumulation dtype.
fn dot(
    mac: Mac,
    x: &Flat,
    w: &Flat,
    n: usize,
    xi: impl Fn(usize) -> Option<usize>,
    wi: impl Fn(usize) -> usize,
) -> Element {
    match (mac, x, w) {
        (Mac::F32(dt), Flat::F(x), Flat::F(w)) => {
            let r = round_to(dt);
            let mut acc = 0f32;
            for k in 0..n {
                let a = xi(k).map_or(0.0, |i| x[i] as f32);
                acc = r(acc + r(a * w[wi(k)] as f32));
            }
            Element::F(acc as f64)
        }
        (_, Flat::F(x), Flat::F(w)) => {
            let mut acc = 0f64;
            for k in 0..n {
                acc += xi(k).map_or(0.0, |i| x[i]) * w[wi(k)];
            }
            Element::F(acc)
        }
        (_, Flat::I(x), Flat::I(w)) => {
            let mut acc = 0i64;
            for k in 0..n {
                acc = acc.wrapping_add(xi(k).map_or(0, |i| x[i]).wrapping_mul(w[wi(k)]));
            }
            Element::I(acc)
        }
        _ => Element::I(0),
    }
}

enum Element {
    F(f64),
    I(i64),
}

fn build(dt: DType, mac: Mac, shape: &[usize], elems: Vec<Element>) -> Option<Value> {
    let arr = match mac {
        Mac::F32(_) => Arr::F32(from(
            shape,
            elems.iter().map(|e| {
                if let Element::F(v) = e {
                    *v as f32
                } else {
                    0.0
                }
            }),
        )?),
        Mac::F64 => Arr::F64(from(
            shape,
            elems
                .iter()
                .map(|e| if let Element::F(v) = e { *v } else { 0.0 }),
        )?),
        Mac::Int => Arr::Int(from(
            shape,
            elems
                .iter()
                .map(|e| if let Element::I(v) = e { *v } else { 0 }),
        )?),
    };
    Value::new(dt, arr)
}

fn from<T>(shape: &[usize], it: impl Iterator<Item = T>) -> Option<ArrayD<T>> {
    ArrayD::from_shape_vec(IxDyn(shape), it.collect()).ok()
}

/// Casts both operands to `out_dtype` (when given) and checks they agree.
fn operands(attrs: &Attrs, x: &Value, w: &Value) -> Option<(DType, Value, Value)> {
    let dt = attr_dtype(attrs, "out_dtype").unwrap_or(x.dtype);
    let (x, w) = (cast(x, dt)?, cast(w, dt)?);
    if dt.is_bool() {
        return None;
    }
    Some((dt, x, w))
}

/// `nn.dense(x, w)`.
pub(crate) fn dense(attrs: &Attrs, x: &Value, w: &Value) -> Option<Value> {
    let (dt, x, w) = operands(attrs, x, w)?;
    let (xs, ws) = (x.shape().to_vec(), w.shape().to_vec());
    let k = *xs.last()?;
    if ws.len() != 2 || ws[1] != k {
        return None;
    }
    let units = ws[0];
    if attrs.get_int("units").is_some_and(|u| u != units as i64) {
        return None;
    }
    let rows: usize = xs[..xs.len() - 1].iter().product();
    let mac = Mac::of(&x);
    let (fx, fw) = (flat(&x), flat(&w));
    let mut out = Vec::with_capacity(rows * units);
    for r in 0..rows {
        for u in 0..units {
            out.push(dot(mac, &fx, &fw, k, |i| Some(r * k + i), |i| u * k + i));
        }
    }
    let mut shape = xs[..xs.len() - 1].to_vec();
    shape.push(units);
    build(dt, mac, &shape, out)
}

/// Padding as (top, left, bottom, right).
fn padding(attrs: &Attrs) -> Option<[usize; 4]> {
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

fn pair(attrs: &Attrs, name: &str) -> Option<[usize; 2]> {
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

/// `nn.conv2d(x, w)` in NCHW / OIHW.
pub(crate) fn conv2d(attrs: &Attrs, x: &Value, w: &Value) -> Option<Value> {
    let layout_ok = attrs.get_str("data_layout").unwrap_or("NCHW") == "NCHW"
        && attrs.get_str("kernel_layout").unwrap_or("OIHW") == "OIHW"
        && matches!(attrs.get_str("out_layout").unwrap_or(""), "" | "NCHW");
    if !layout_ok {
        return None;
    }
    let (dt, x, w) = operands(attrs, x, w)?;
    let (xs, ws) = (x.shape().to_vec(), w.shape().to_vec());
    let ([n, c, h, wd], [o, ci, kh, kw]) = (
        <[usize; 4]>::try_from(xs).ok()?,
        <[usize; 4]>::try_from(ws).ok()?,
    );
    let groups = usize::try_from(attrs.get_int("groups").unwrap_or(1))
        .ok()
        .filter(|&g| g > 0)?;
    if c % groups != 0 || o % groups != 0 || c / groups != ci {
        return None;
    }
    let [pt, pl, pb, pr] = padding(attrs)?;
    let [sh, sw] = pair(attrs, "strides")?;
    let [dh, dw] = pair(attrs, "dilation")?;
    if kh == 0 || kw == 0 {
        return None;
    }
    let (ekh, ekw) = ((kh - 1) * dh + 1, (kw - 1) * dw + 1);
    let (hp, wp) = (h + pt + pb, wd + pl + pr);
    if hp < ekh || wp < ekw {
        return None;
    }
    let (oh, ow) = ((hp - ekh) / sh + 1, (wp - ekw) / sw + 1);
    let mac = Mac::of(&x);
    let (fx, fw) = (flat(&x), flat(&w));
    let opg = o / groups;
    let kk = ci * kh * kw;
    let mut out = Vec::with_capacity(n * o * oh * ow);
    for b in 0..n {
        for oc in 0..o {
            let g = oc / opg;
            for y in 0..oh {
                for xo in 0..ow {
                    let xi = |k: usize| {
                        let (ic, r) = (k / (kh * kw), k % (kh * kw));
                        let (ky, kx) = (r / kw, r % kw);
                        let iy = (y * sh + ky * dh).checked_sub(pt).filter(|&v| v < h)?;
                        let ix = (xo * sw + kx * dw).checked_sub(pl).filter(|&v| v < wd)?;
                        Some(((b * c + g * ci + ic) * h + iy) * wd + ix)
                    };
                    out.push(dot(mac, &fx, &fw, kk, xi, |k| oc * kk + k));
                }
            }
        }
    }
    build(dt, mac, &[n, o, oh, ow], out)
}

/// `nn.bias_add(x, b, axis)`: `b` broadcast along `axis`.
pub(crate) fn bias_add(attrs: &Attrs, x: &Value, b: &Value) -> Option<Value> {
    let axis = norm_axis(attrs.get_int("axis").unwrap_or(1), x.ndim())?;
    if b.ndim() != 1 || b.shape()[0] != x.shape()[axis] {
        return None;
    }
    let mut shape = vec![1; x.ndim() - axis];
    shape[0] = b.shape()[0];
    let bb = Value::new(
        b.dtype,
        super::eval::each!(&b.arr, a => a.clone().into_shape_with_order(IxDyn(&shape)).ok()?),
    )?;
    super::elementwise::binary("add", x, &bb)
}
