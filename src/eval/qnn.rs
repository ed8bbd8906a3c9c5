//! Kernels of the QNN ops, computing what TVM v0.18's QNN canonicalization lowers each op to
//! (`src/relay/qnn/op/*.cc`, the `*Canonicalize` / `*Lower` functions, and `qnn/utils.cc`):
//!
//! * `qnn.quantize`: `clip(round(x / scale) + zp)` in float32 (round half to even, as TVM's
//!   `round`), cast to `out_dtype`; `qnn.dequantize`: `float32(int32(q) - zp) * scale`;
//! * `qnn.requantize` with `compute_dtype` int64 (the default): the input minus its zero
//!   point in int32, times `input_scale / output_scale` as a fixed-point multiplier
//!   (`GetFixedPointMultiplierShift`: a 31-bit significand and a shift), rounded `UPWARD`
//!   (add `2^(shift - 1)` before the right shift, TVM's `q_multiply_shift`, the default) or
//!   `TONEAREST` (subtract one from that for negative products), plus the output zero point,
//!   clipped to `out_dtype` unless it is int32. The float32/float64 compute dtypes round in a
//!   way that depends on the target's SSE4.1 support in TVM, so they are not evaluated.
//! * `qnn.add` / `qnn.subtract`: each operand requantized to the output's scale and zero point
//!   in int32 (or only cast when they already match), added or subtracted, the output zero
//!   point corrected, clipped to the input dtype; `qnn.mul`: the zero-point-free operands
//!   multiplied in int32, requantized from `lhs_scale * rhs_scale` (float32) to the output;
//! * `qnn.dense`, `qnn.batch_matmul`, `qnn.conv2d`: the float op on the operands minus their
//!   zero points, in int32 (TVM's four-term expansion is the same sum);
//! * `qnn.concatenate`: each input requantized to the output parameters when they differ;
//! * the unary ops (`qnn.sigmoid`, `qnn.tanh`, ...): dequantize, the float op, quantize to the
//!   input dtype.
//!
//! Scales and zero points must be constants, as TVM's canonicalization requires: a scalar, or
//! a vector along the op's channel axis where TVM allows one.

use super::elementwise::{self, cast};
use super::ops::Arg;
use super::value::{attr_dtype, from_vec, norm_axis, wrap_int, Arr, Value};
use crate::ir::dtype::DTypeCode;
use crate::ir::{Attrs, DType};

/// The ops this file evaluates.
pub(crate) const QNN_KERNELS: &[&str] = &[
    "qnn.quantize",
    "qnn.dequantize",
    "qnn.requantize",
    "qnn.add",
    "qnn.subtract",
    "qnn.mul",
    "qnn.dense",
    "qnn.batch_matmul",
    "qnn.conv2d",
    "qnn.concatenate",
    "qnn.abs",
    "qnn.erf",
    "qnn.exp",
    "qnn.hardswish",
    "qnn.log",
    "qnn.rsqrt",
    "qnn.sigmoid",
    "qnn.sqrt",
    "qnn.tanh",
];

/// `relay.op.annotation.simulated_quantize(data, dom_scale, clip_min, clip_max)` (TVM's
/// `simulated_quantize_compute` of the quantize pass): the data for kind 0 (`IDENTITY`),
/// otherwise `round(max(min(data / dom_scale, clip_max), clip_min)) * dom_scale`.
pub(crate) fn annotation_simulated_quantize(
    attrs: &Attrs,
    x: &Value,
    scale: &Value,
    lo: &Value,
    hi: &Value,
) -> Option<Value> {
    if attrs.get_int("kind").unwrap_or(0) == 0 {
        return Some(x.clone());
    }
    let scaled = elementwise::binary("divide", x, scale)?;
    let clipped =
        elementwise::binary("maximum", &elementwise::binary("minimum", &scaled, hi)?, lo)?;
    let rounded = elementwise::unary("round", &Attrs::default(), &clipped)?;
    elementwise::binary("multiply", &rounded, scale)
}

/// Evaluates a QNN op; `None` when it is not one of [`QNN_KERNELS`] or its arguments are not
/// what its canonicalization accepts.
pub(crate) fn apply(op: &str, attrs: &Attrs, args: &[Arg<'_>]) -> Option<Value> {
    let t = |i: usize| args.get(i).and_then(Arg::tensor);
    match op {
        "qnn.quantize" if args.len() == 3 => quantize(attrs, t(0)?, t(1)?, t(2)?),
        "qnn.dequantize" if args.len() == 3 => dequantize(attrs, t(0)?, t(1)?, t(2)?),
        "qnn.requantize" if args.len() == 5 => {
            let rq = Requant::new(attrs, t(1)?, t(2)?, t(3)?, t(4)?)?;
            let out = attr_dtype(attrs, "out_dtype")?;
            let axis = attrs.get_int("axis").unwrap_or(-1);
            rq.apply(t(0)?, axis, out)
        }
        "qnn.add" | "qnn.subtract" | "qnn.mul" if args.len() == 8 => {
            let p: Option<Vec<&Value>> = (0..8).map(t).collect();
            binary(op, attrs, &p?)
        }
        "qnn.dense" | "qnn.batch_matmul" | "qnn.conv2d" if args.len() == 6 => {
            let p: Option<Vec<&Value>> = (0..6).map(t).collect();
            product(op, attrs, &p?)
        }
        "qnn.concatenate" if args.len() == 5 => concatenate(attrs, args),
        _ if args.len() == 5 && QNN_KERNELS.contains(&op) => {
            let p: Option<Vec<&Value>> = (0..5).map(t).collect();
            unary(&op[4..], &p?)
        }
        _ => None,
    }
}

fn ints(v: &Value) -> Option<Vec<i64>> {
    match &v.arr {
        Arr::Int(a) if v.dtype.is_int() => Some(a.iter().copied().collect()),
        _ => None,
    }
}

fn floats(v: &Value) -> Option<Vec<f32>> {
    match &v.arr {
        Arr::F32(a) if v.dtype == DType::FLOAT32 => Some(a.iter().copied().collect()),
        _ => None,
    }
}

fn i32_wrap(x: i64) -> i64 {
    wrap_int(DType::INT32, x)
}

/// The range of an integer dtype of at most 32 bits (`GetQmin` / `GetQmax`).
fn qrange(dt: DType) -> Option<(i64, i64)> {
    match (dt.code, dt.bits) {
        (DTypeCode::Int, b @ 1..=32) => Some((-(1i64 << (b - 1)), (1i64 << (b - 1)) - 1)),
        (DTypeCode::UInt, b @ 1..=32) => Some((0, (1i64 << b) - 1)),
        _ => None,
    }
}

/// For each flat index of `shape`, its position along `axis` (the channel a per-channel scale
/// or zero point applies to); a scalar has one channel.
fn channels(shape: &[usize], axis: Option<usize>) -> impl Fn(usize) -> usize + '_ {
    let (inner, extent) = match axis {
        Some(a) if a < shape.len() => (shape[a + 1..].iter().product::<usize>(), shape[a]),
        _ => (1, 1),
    };
    move |i| (i / inner.max(1)) % extent.max(1)
}

/// A per-channel parameter: one value, or one per channel of the axis.
fn param<T: Copy>(vals: &[T], channel: usize) -> T {
    if vals.len() == 1 {
        vals[0]
    } else {
        vals[channel]
    }
}

/// The parameter fits the data: one value, or as many as the axis has channels.
fn fits<T>(vals: &[T], shape: &[usize], axis: Option<usize>) -> bool {
    vals.len() == 1 || axis.is_some_and(|a| a < shape.len() && shape[a] == vals.len())
}

fn int_value(dt: DType, shape: &[usize], vals: impl Iterator<Item = i64>) -> Option<Value> {
    Value::new(dt, Arr::Int(from_vec(shape, vals)?))
}

/// `qnn.quantize(x, scale, zero_point)` (`QuantizeLower`).
fn quantize(attrs: &Attrs, x: &Value, scale: &Value, zp: &Value) -> Option<Value> {
    let out = attr_dtype(attrs, "out_dtype")?;
    let (lo, hi) = qrange(out)?;
    let (xs, ss, zs) = (floats(x)?, floats(scale)?, ints(zp)?);
    let shape = x.shape();
    let axis = norm_axis(attrs.get_int("axis").unwrap_or(-1), shape.len());
    if !fits(&ss, shape, axis) || !fits(&zs, shape, axis) {
        return None;
    }
    let ch = channels(shape, axis);
    let vals = xs.iter().enumerate().map(|(i, &v)| {
        let c = ch(i);
        let q = (v / param(&ss, c)).round_ties_even() + param(&zs, c) as f32;
        let q = q.clamp(lo as f32, hi as f32);
        if q.is_nan() {
            0
        } else {
            q as i64
        }
    });
    int_value(out, shape, vals)
}

/// `qnn.dequantize(q, scale, zero_point)` (`DequantizeLower`).
fn dequantize(attrs: &Attrs, q: &Value, scale: &Value, zp: &Value) -> Option<Value> {
    let out = attr_dtype(attrs, "out_dtype")?;
    if out != DType::FLOAT32 && out != DType::FLOAT16 {
        return None;
    }
    let (qs, ss, zs) = (ints(q)?, floats(scale)?, ints(zp)?);
    let shape = q.shape();
    let axis = norm_axis(attrs.get_int("axis").unwrap_or(-1), shape.len());
    if !fits(&ss, shape, axis) || !fits(&zs, shape, axis) {
        return None;
    }
    let ch = channels(shape, axis);
    let vals = qs.iter().enumerate().map(|(i, &v)| {
        let c = ch(i);
        let y = i32_wrap(i32_wrap(v) - param(&zs, c)) as f32 * param(&ss, c);
        if out == DType::FLOAT16 {
            y.clamp(-65504.0, 65504.0)
        } else {
            y
        }
    });
    Value::new(out, Arr::F32(from_vec(shape, vals)?))
}

/// TVM's `GetFixedPointMultiplierShift`: `m * 2^(shift - 31)` approximates `multiplier`.
fn fixed_point(multiplier: f64) -> (i64, i32) {
    if multiplier == 0.0 || !multiplier.is_finite() {
        return (0, 0);
    }
    let (mut significand, mut exponent) = frexp(multiplier);
    significand = (significand * (1u64 << 31) as f64).round();
    let mut s = significand as i64;
    if s == 1i64 << 31 {
        s /= 2;
        exponent += 1;
    }
    (s, exponent)
}

/// `frexp`: `x = m * 2^e` with `0.5 <= |m| < 1`.
fn frexp(x: f64) -> (f64, i32) {
    let bits = x.to_bits();
    let exp = ((bits >> 52) & 0x7ff) as i32;
    if exp == 0 {
        // Subnormal: scale into the normal range first.
        let (m, e) = frexp(x * 2f64.powi(64));
        return (m, e - 64);
    }
    let m = f64::from_bits((bits & !(0x7ffu64 << 52)) | (1022u64 << 52));
    (m, exp - 1022)
}

/// `x * m * 2^(shift - 31)` in int64 with TVM's rounding: `UPWARD` adds half before the
/// arithmetic right shift (`q_multiply_shift`), `TONEAREST` adds one less for a negative
/// product (`FixedPointMultiplyToNearest`). `None` when the shifts leave int64.
fn fixed_point_multiply(x: i64, m: i64, shift: i32, upward: bool) -> Option<i64> {
    let (left, right) = if shift > 0 { (shift, 0) } else { (0, -shift) };
    let total = right.checked_add(31)?;
    if !(1..63).contains(&total) || left >= 32 {
        return None;
    }
    let prod = (x << left).wrapping_mul(m);
    let round = 1i64 << (total - 1);
    let round = if upward || prod >= 0 {
        round
    } else {
        round - 1
    };
    Some(i32_wrap(prod.wrapping_add(round) >> total))
}

/// `fixed_point_multiply(x, multiplier, shift)` on int32 `x`: topi's `q_multiply_shift`,
/// `x * multiplier * 2^(shift - 31)` rounded upward at the half.
pub(crate) fn fixed_point_multiply_op(attrs: &Attrs, x: &Value) -> Option<Value> {
    let (m, shift) = (attrs.get_int("multiplier")?, attrs.get_int("shift")?);
    let shift = i32::try_from(shift).ok()?;
    if x.dtype != DType::INT32 || i32::try_from(m).is_err() {
        return None;
    }
    let xs = ints(x)?;
    let out: Vec<i64> = xs
        .iter()
        .map(|&v| fixed_point_multiply(v, m, shift, true))
        .collect::<Option<_>>()?;
    int_value(DType::INT32, x.shape(), out.into_iter())
}

/// The parameters of one requantization (`RequantizeLowerInt`).
struct Requant {
    in_scale: Vec<f32>,
    in_scale_scalar: bool,
    in_zp: Vec<i64>,
    out_scale: f32,
    out_zp: i64,
    upward: bool,
}

impl Requant {
    fn new(
        attrs: &Attrs,
        in_scale: &Value,
        in_zp: &Value,
        out_scale: &Value,
        out_zp: &Value,
    ) -> Option<Requant> {
        let upward = match attrs.get_str("rounding").unwrap_or("None") {
            "None" | "UPWARD" => true,
            "TONEAREST" => false,
            _ => return None,
        };
        if !matches!(
            attrs.get_str("compute_dtype").unwrap_or("None"),
            "None" | "int64"
        ) {
            return None;
        }
        Requant::with(
            in_scale,
            in_zp,
            scalar_f32(out_scale)?,
            scalar_i64(out_zp)?,
            upward,
        )
    }

    fn with(
        in_scale: &Value,
        in_zp: &Value,
        out_scale: f32,
        out_zp: i64,
        upward: bool,
    ) -> Option<Requant> {
        if out_scale == 0.0 {
            return None;
        }
        Some(Requant {
            in_scale: floats(in_scale)?,
            in_scale_scalar: in_scale.ndim() == 0,
            in_zp: ints(in_zp)?,
            out_scale,
            out_zp,
            upward,
        })
    }

    /// Requantizes `x` (channels along `axis`) to `out`.
    fn apply(&self, x: &Value, axis: i64, out: DType) -> Option<Value> {
        let xs = ints(x)?;
        let shape = x.shape();
        let vals = self.values(&xs, shape, axis, out)?;
        int_value(out, shape, vals.into_iter())
    }

    fn values(&self, xs: &[i64], shape: &[usize], axis: i64, out: DType) -> Option<Vec<i64>> {
        let range = if out == DType::INT32 {
            None
        } else {
            Some(qrange(out)?)
        };
        let axis = if shape.is_empty() {
            None
        } else {
            Some(norm_axis(axis, shape.len())?)
        };
        if !fits(&self.in_scale, shape, axis) || !fits(&self.in_zp, shape, axis) {
            return None;
        }
        // One multiplier per channel; none when a scalar input scale equals the output's.
        let multipliers: Vec<Option<(i64, i32)>> = self
            .in_scale
            .iter()
            .map(|&s| {
                let same = self.in_scale_scalar && s == self.out_scale;
                (!same).then(|| fixed_point(s as f64 / self.out_scale as f64))
            })
            .collect();
        let ch = channels(shape, axis);
        xs.iter()
            .enumerate()
            .map(|(i, &v)| {
                let c = ch(i);
                let t = i32_wrap(i32_wrap(v) - param(&self.in_zp, c));
                let scaled = match param(&multipliers, c) {
                    Some((m, shift)) => fixed_point_multiply(t, m, shift, self.upward)?,
                    None => t,
                };
                let y = i32_wrap(scaled + self.out_zp);
                Some(match range {
                    Some((lo, hi)) => y.clamp(lo, hi),
                    None => y,
                })
            })
            .collect()
    }
}

fn scalar_f32(v: &Value) -> Option<f32> {
    let f = floats(v)?;
    (f.len() == 1).then(|| f[0])
}

fn scalar_i64(v: &Value) -> Option<i64> {
    let f = ints(v)?;
    (f.len() == 1).then(|| f[0])
}

/// The same constant scalar (`IsEqualScalar`): both one element of equal value.
fn same_scalar(a: &Value, b: &Value) -> bool {
    match (&a.arr, &b.arr) {
        (Arr::F32(x), Arr::F32(y)) => x.len() == 1 && y.len() == 1 && x.iter().eq(y.iter()),
        (Arr::Int(x), Arr::Int(y)) => x.len() == 1 && y.len() == 1 && x.iter().eq(y.iter()),
        _ => false,
    }
}

/// `RequantizeOrUpcast`: `x` in int32 at the target scale and zero point.
fn requantize_or_upcast(
    x: &Value,
    scale: &Value,
    zp: &Value,
    out_scale: &Value,
    out_zp: &Value,
    axis: i64,
) -> Option<Value> {
    if same_scalar(scale, out_scale) && same_scalar(zp, out_zp) {
        return cast(x, DType::INT32);
    }
    Requant::with(scale, zp, scalar_f32(out_scale)?, scalar_i64(out_zp)?, true)?.apply(
        x,
        axis,
        DType::INT32,
    )
}

/// `ConvertDtype`: clip an int32 value to `dt`'s range and cast.
fn convert_dtype(v: &Value, dt: DType) -> Option<Value> {
    let (lo, hi) = qrange(dt)?;
    let xs = ints(v)?;
    int_value(dt, v.shape(), xs.into_iter().map(|x| x.clamp(lo, hi)))
}

/// `qnn.add` / `qnn.subtract` / `qnn.mul` (args: lhs, rhs, lhs_scale, lhs_zero_point,
/// rhs_scale, rhs_zero_point, output_scale, output_zero_point).
fn binary(op: &str, attrs: &Attrs, a: &[&Value]) -> Option<Value> {
    let (lhs_axis, rhs_axis) = (
        attrs.get_int("lhs_axis").unwrap_or(-1),
        attrs.get_int("rhs_axis").unwrap_or(-1),
    );
    let dt = a[0].dtype;
    let zero = Value::new(DType::INT32, Arr::Int(from_vec(&[], std::iter::once(0))?))?;
    if op == "qnn.mul" {
        if a[2].ndim() != 0 || a[4].ndim() != 0 {
            // Per-channel multiplication; not evaluated.
            return None;
        }
        let shifted = |x: &Value, zp: &Value| {
            let x = cast(x, DType::INT32)?;
            elementwise::binary("subtract", &x, zp)
        };
        let prod = elementwise::binary("multiply", &shifted(a[0], a[3])?, &shifted(a[1], a[5])?)?;
        let scale = scalar_f32(a[2])? * scalar_f32(a[4])?;
        let scale = Value::new(
            DType::FLOAT32,
            Arr::F32(from_vec(&[], std::iter::once(scale))?),
        )?;
        let rq = Requant::with(&scale, &zero, scalar_f32(a[6])?, scalar_i64(a[7])?, true)?;
        return rq.apply(&prod, -1, dt);
    }
    let l = requantize_or_upcast(a[0], a[2], a[3], a[6], a[7], lhs_axis)?;
    let r = requantize_or_upcast(a[1], a[4], a[5], a[6], a[7], rhs_axis)?;
    let (combine, correct) = if op == "qnn.add" {
        ("add", "subtract")
    } else {
        ("subtract", "add")
    };
    let mut out = elementwise::binary(combine, &l, &r)?;
    if !same_scalar(a[7], &zero) {
        out = elementwise::binary(correct, &out, a[7])?;
    }
    convert_dtype(&out, dt)
}

/// `x - zp` in int32, the zero point along `axis` of `x` when it is a vector.
fn minus_zero_point(x: &Value, zp: &Value, axis: usize) -> Option<Value> {
    let x = cast(x, DType::INT32)?;
    if zp.ndim() == 0 || zp.shape().iter().product::<usize>() == 1 {
        let z = scalar_i64(zp)?;
        let xs = ints(&x)?;
        return int_value(DType::INT32, x.shape(), xs.into_iter().map(|v| v - z));
    }
    if zp.ndim() != 1 || axis >= x.ndim() || zp.shape()[0] != x.shape()[axis] {
        return None;
    }
    let z = super::nn::along_axis(zp, x.ndim(), axis)?;
    elementwise::binary("subtract", &x, &z)
}

/// `qnn.dense` / `qnn.batch_matmul` / `qnn.conv2d` (args: data, weight, input_zero_point,
/// kernel_zero_point, input_scale, kernel_scale): the float op on the shifted operands.
fn product(op: &str, attrs: &Attrs, a: &[&Value]) -> Option<Value> {
    if attr_dtype(attrs, "out_dtype").is_some_and(|d| d != DType::INT32) {
        return None;
    }
    let data = minus_zero_point(a[0], a[2], 0)?;
    let (name, kernel_axis) = match op {
        "qnn.dense" => ("nn.dense", 0),
        "qnn.batch_matmul" => ("nn.batch_matmul", 0),
        _ => ("nn.conv2d", 0),
    };
    if op == "qnn.batch_matmul" && a[3].ndim() != 0 {
        return None;
    }
    let weight = minus_zero_point(a[1], a[3], kernel_axis)?;
    match name {
        "nn.dense" => super::nn::dense(attrs, &data, &weight),
        "nn.batch_matmul" => super::nn::batch_matmul(attrs, &data, &weight),
        _ => super::nn::conv(attrs, &data, &weight),
    }
}

/// `qnn.concatenate(data, input_scales, input_zero_points, output_scale, output_zero_point)`.
fn concatenate(attrs: &Attrs, args: &[Arg<'_>]) -> Option<Value> {
    let data = args[0].tensors()?;
    let scales = args[1].tensors()?;
    let zps = args[2].tensors()?;
    let (out_scale, out_zp) = (args[3].tensor()?, args[4].tensor()?);
    if scales.len() != data.len() || zps.len() != data.len() {
        return None;
    }
    let mut parts = Vec::with_capacity(data.len());
    for ((x, s), z) in data.iter().zip(&scales).zip(&zps) {
        if same_scalar(s, out_scale) && same_scalar(z, out_zp) {
            parts.push((*x).clone());
        } else {
            let rq = Requant::with(s, z, scalar_f32(out_scale)?, scalar_i64(out_zp)?, true)?;
            parts.push(rq.apply(x, -1, x.dtype)?);
        }
    }
    let refs: Vec<&Value> = parts.iter().collect();
    super::shape_ops::join("concatenate", attrs, &refs)
}

/// The unary ops: dequantize, the float op, quantize to the input dtype (args: x, scale,
/// zero_point, output_scale, output_zero_point).
fn unary(float_op: &str, a: &[&Value]) -> Option<Value> {
    let dt = a[0].dtype;
    if dt != DType::INT8 && dt != DType::UINT8 {
        return None;
    }
    let f32_attrs = Attrs::new(
        Some("relay.attrs.DequantizeAttrs"),
        vec![(
            "out_dtype".into(),
            crate::ir::attrs::AttrValue::str("float32"),
        )],
    );
    let x = dequantize(&f32_attrs, a[0], a[1], a[2])?;
    let y = if float_op == "hardswish" {
        hardswish(&x)?
    } else {
        elementwise::unary(float_op, &Attrs::NONE, &x)?
    };
    let q_attrs = Attrs::new(
        Some("relay.attrs.QuantizeAttrs"),
        vec![(
            "out_dtype".into(),
            crate::ir::attrs::AttrValue::str(&dt.to_string()),
        )],
    );
    quantize(&q_attrs, &y, a[3], a[4])
}

/// `x * relu6(x + 3) / 6`, as TVM's `Hardswish` pattern builds it.
fn hardswish(x: &Value) -> Option<Value> {
    let xs = floats(x)?;
    let vals = xs
        .into_iter()
        .map(|v| v * ((v + 3.0).clamp(0.0, 6.0)) / 6.0);
    Value::new(DType::FLOAT32, Arr::F32(from_vec(x.shape(), vals)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixed_point_matches_tvm() {
        // 0.5 = 0.5 * 2^0: significand 2^30, shift 0.
        assert_eq!(fixed_point(0.5), (1 << 30, 0));
        // 2.0 = 0.5 * 2^2.
        assert_eq!(fixed_point(2.0), (1 << 30, 2));
        assert_eq!(fixed_point(0.0), (0, 0));
        // Rounding: 5 * 0.5 = 2.5 rounds up; -5 * 0.5 = -2.5 rounds to -2 upward, -3 to nearest.
        let (m, s) = fixed_point(0.5);
        assert_eq!(fixed_point_multiply(5, m, s, true), Some(3));
        assert_eq!(fixed_point_multiply(-5, m, s, true), Some(-2));
        assert_eq!(fixed_point_multiply(-5, m, s, false), Some(-3));
        assert_eq!(fixed_point_multiply(5, m, s, false), Some(3));
    }
}
