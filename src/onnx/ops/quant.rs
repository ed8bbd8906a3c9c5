//! The quantize family (TVM v0.18's `QuantizeLinear`, `DequantizeLinear`,
//! `DynamicQuantizeLinear`, `QLinearConv`, `QLinearMatMul`, `MatMulInteger`, `ConvInteger`):
//! `qnn.quantize`, `qnn.dequantize`, `qnn.conv2d`, `qnn.dense` / `qnn.batch_matmul` and
//! `qnn.requantize`, whose kernels compute TVM's integer canonicalization exactly.
//!
//! Where the ONNX forms go past what TVM's converters take, passlab widens them without
//! changing what TVM's forms produce: a scale or zero point of one element (shape `[1]`) is
//! made a scalar (TVM's `ensure_scalar_shape`, which its QLinearMatMul already does), a float16
//! scale is cast to float32 and the result back to the scale's type, an omitted zero point is
//! 0 of the output type (`output_dtype`, else uint8), and the blocked forms of opset 21
//! (`block_size`) expand the scale and zero point along the axis with `repeat` and compute
//! the same formula with elementwise ops.

use super::super::import::{CResult, ConvertError, Cx};
use super::{cast, input, opt_input, In};
use crate::ir::{AttrValue, DType, Expr};

pub(super) fn convert(cx: &mut Cx, op: &str, inputs: &In) -> CResult<Vec<Expr>> {
    let one = |e: CResult<Expr>| e.map(|e| vec![e]);
    match op {
        "QuantizeLinear" => one(quantize_linear(cx, inputs)),
        "DequantizeLinear" => one(dequantize_linear(cx, inputs)),
        "DynamicQuantizeLinear" => dynamic_quantize_linear(cx, inputs),
        "QLinearMatMul" => one(qlinear_matmul(cx, inputs)),
        "MatMulInteger" => one(matmul_integer(cx, inputs)),
        "ConvInteger" => one(conv_integer(cx, inputs)),
        "QLinearConv" => one(qlinear_conv(cx, inputs)),
        _ => Err(ConvertError::Unsupported),
    }
}

const QUANTIZED: [DType; 5] = [
    DType::INT8,
    DType::UINT8,
    DType::INT16,
    DType::new(crate::ir::dtype::DTypeCode::UInt, 16),
    DType::INT32,
];

fn dtype_attr(dt: DType) -> AttrValue {
    AttrValue::str(&dt.to_string())
}

/// A tensor of one element as a scalar (TVM's `ensure_scalar_shape`); others unchanged.
fn scalar_shape(cx: &Cx, e: Expr) -> CResult<Expr> {
    let dims = cx.dims(&e)?;
    if !dims.is_empty() && dims.iter().all(|d| d.as_static() == Some(1)) {
        return cx.op("reshape", vec![e], &[("newshape", AttrValue::ints(&[]))]);
    }
    Ok(e)
}

/// A scale: a scalar when it has one element, in float32.
fn scale_f32(cx: &Cx, e: Expr) -> CResult<Expr> {
    let e = scalar_shape(cx, e)?;
    if cx.dtype(&e)? == DType::FLOAT32 {
        return Ok(e);
    }
    cast(cx, e, DType::FLOAT32)
}

/// A zero point: a scalar when it has one element, in int32 (`_op.cast(zp, "int32")`).
fn zp_i32(cx: &Cx, e: Expr) -> CResult<Expr> {
    let e = scalar_shape(cx, e)?;
    if cx.dtype(&e)? == DType::INT32 {
        return Ok(e);
    }
    cast(cx, e, DType::INT32)
}

fn check_quantized(dt: DType, what: &str) -> CResult<()> {
    if QUANTIZED.contains(&dt) || is_4bit(dt) {
        return Ok(());
    }
    Err(ConvertError::Invalid(format!(
        "{what} of type {dt} is not supported (int4, uint4, int8, uint8, int16, uint16 and \
         int32 are)"
    )))
}

/// The channel axis of a per-axis (de)quantization: 0 before opset 13 (TVM's `_impl_v10`),
/// then the `axis` attribute (default 1), 0 for an input of rank under `min_rank`.
fn channel_axis(cx: &Cx, rank: usize, min_rank: usize) -> CResult<i64> {
    if cx.opset < 13 || rank < min_rank {
        return Ok(0);
    }
    let axis = cx.int("axis", 1)?;
    let r = rank as i64;
    if axis < -r || axis >= r.max(1) {
        return Err(ConvertError::Invalid(format!(
            "axis {axis} is out of range for rank {rank}"
        )));
    }
    Ok(if axis < 0 { axis + r } else { axis })
}

/// A blocked scale or zero point expanded to the data's extent along `axis`: each value
/// repeated `block` times, cut to `extent`.
fn expand_blocks(cx: &Cx, e: Expr, axis: i64, block: i64, extent: i64) -> CResult<Expr> {
    let dims = cx.shape(&e)?;
    let have = dims.get(axis as usize).copied().unwrap_or(0);
    if have.checked_mul(block).is_none_or(|n| n < extent) || (have - 1) * block >= extent {
        return Err(ConvertError::Invalid(format!(
            "a blocked scale of extent {have} with block_size {block} does not cover extent \
             {extent} of axis {axis}"
        )));
    }
    let r = cx.op(
        "repeat",
        vec![e],
        &[
            ("repeats", AttrValue::int(block)),
            ("axis", AttrValue::int(axis)),
        ],
    )?;
    if have * block == extent {
        return Ok(r);
    }
    cx.op(
        "strided_slice",
        vec![r],
        &[
            ("begin", AttrValue::ints(&[0])),
            ("end", AttrValue::ints(&[extent])),
            ("axes", AttrValue::ints(&[axis])),
        ],
    )
}

/// The blocked form's scale and zero point, checked and expanded (`None` when the node is
/// not blocked).
fn blocks(
    cx: &Cx,
    x: &Expr,
    scale: &Expr,
    zp: Option<&Expr>,
) -> CResult<Option<(Expr, Option<Expr>)>> {
    let block = if cx.opset >= 21 {
        cx.int("block_size", 0)?
    } else {
        0
    };
    if block <= 0 {
        return Ok(None);
    }
    let shape = cx.shape(x)?;
    let axis = channel_axis(cx, shape.len(), 1)?;
    let extent = shape[axis as usize];
    let sshape = cx.shape(scale)?;
    if sshape.len() != shape.len() {
        return Err(ConvertError::Invalid(
            "a blocked scale must have the data's rank".into(),
        ));
    }
    let s = expand_blocks(cx, scale.clone(), axis, block, extent)?;
    let z = match zp {
        Some(z) => Some(expand_blocks(cx, z.clone(), axis, block, extent)?),
        None => None,
    };
    Ok(Some((s, z)))
}

/// `QuantizeLinear`: `qnn.quantize(x, scale, int32(zp), axis, out_dtype)`.
fn quantize_linear(cx: &Cx, inputs: &In) -> CResult<Expr> {
    let mut x = input(inputs, 0)?;
    let scale = input(inputs, 1)?;
    let zp = opt_input(inputs, 2);
    let out = match &zp {
        Some(z) => cx.dtype(z)?,
        None => match cx.int("output_dtype", 0)? {
            0 => DType::UINT8,
            t => super::super::tensor::dtype_of(t as i32).ok_or_else(|| {
                ConvertError::Invalid(format!(
                    "output type {} is not supported",
                    super::super::tensor::elem_type_name(t as i32)
                ))
            })?,
        },
    };
    check_quantized(out, "an output")?;
    if cx.dtype(&x)? != DType::FLOAT32 {
        x = cast(cx, x, DType::FLOAT32)?;
    }
    if let Some((s, z)) = elementwise_params(cx, &x, &scale, zp.as_ref(), out)? {
        // round(x / s) + zp, clipped to the output type's range.
        let mut q = cx.unary("round", cx.binary("divide", x, s)?)?;
        if let Some(z) = z {
            q = cx.binary("add", q, cast(cx, z, DType::FLOAT32)?)?;
        }
        return saturate(cx, q, out);
    }
    qnn_convert(cx, "qnn.quantize", x, scale, zp, out)
}

/// `qnn.quantize` or `qnn.dequantize` of `x` along its channel axis, the scale in float32 and
/// the zero point in int32 (0 when the model omits it).
fn qnn_convert(
    cx: &Cx,
    op: &str,
    x: Expr,
    scale: Expr,
    zp: Option<Expr>,
    out: DType,
) -> CResult<Expr> {
    let axis = channel_axis(cx, cx.rank(&x)?, 2)?;
    let scale = scale_f32(cx, scale)?;
    let zp = match zp {
        Some(z) => zp_i32(cx, z)?,
        None => cx.scalar(0.0, DType::INT32),
    };
    cx.op(
        op,
        vec![x, scale, zp],
        &[
            ("out_dtype", dtype_attr(out)),
            ("axis", AttrValue::int(axis)),
        ],
    )
}

fn is_4bit(dt: DType) -> bool {
    dt.is_int() && dt.bits == 4
}

/// `clip(x, lo, hi)` to the range of the integer type `out`, cast to it (ONNX's saturation,
/// which a plain `cast` to a narrow type does not do: it wraps).
fn saturate(cx: &Cx, x: Expr, out: DType) -> CResult<Expr> {
    let (lo, hi) = range(out);
    let q = cx.op(
        "clip",
        vec![x],
        &[
            ("a_min", AttrValue::Float(lo)),
            ("a_max", AttrValue::Float(hi)),
        ],
    )?;
    cast(cx, q, out)
}

/// The scale (float32) and zero point of the forms `qnn.quantize` / `qnn.dequantize` do not
/// take, shaped to broadcast against `x`: the blocked forms, and 4-bit types (which TVM's
/// QNN type rules reject). `None` for the others.
fn elementwise_params(
    cx: &Cx,
    x: &Expr,
    scale: &Expr,
    zp: Option<&Expr>,
    qtype: DType,
) -> CResult<Option<(Expr, Option<Expr>)>> {
    if let Some((s, z)) = blocks(cx, x, scale, zp)? {
        return Ok(Some((scale_f32(cx, s)?, z)));
    }
    if !is_4bit(qtype) {
        return Ok(None);
    }
    let rank = cx.rank(x)?;
    let axis = channel_axis(cx, rank, 2)?;
    // A per-axis vector gets trailing axes so that it lines up with `axis` of `x`.
    let along = |e: Expr| -> CResult<Expr> {
        let e = scalar_shape(cx, e)?;
        let extra = rank as i64 - axis - 1;
        if cx.rank(&e)? == 1 && extra > 0 {
            return cx.op(
                "expand_dims",
                vec![e],
                &[
                    ("axis", AttrValue::int(1)),
                    ("num_newaxis", AttrValue::int(extra)),
                ],
            );
        }
        Ok(e)
    };
    let s = scale_f32(cx, along(scale.clone())?)?;
    let z = match zp {
        Some(z) => Some(along(z.clone())?),
        None => None,
    };
    Ok(Some((s, z)))
}

/// The range of an integer type of at most 32 bits, as floats.
fn range(dt: DType) -> (f64, f64) {
    let b = u32::from(dt.bits);
    if dt.code == crate::ir::dtype::DTypeCode::Int {
        (-(2f64.powi(b as i32 - 1)), 2f64.powi(b as i32 - 1) - 1.0)
    } else {
        (0.0, 2f64.powi(b as i32) - 1.0)
    }
}

/// `DequantizeLinear`: `qnn.dequantize(x, scale, int32(zp), axis)`, cast to the scale's type
/// when that is not float32.
fn dequantize_linear(cx: &Cx, inputs: &In) -> CResult<Expr> {
    let x = input(inputs, 0)?;
    let scale = input(inputs, 1)?;
    let zp = opt_input(inputs, 2);
    let xdt = cx.dtype(&x)?;
    check_quantized(xdt, "an input")?;
    let out = cx.dtype(&scale)?;
    let y = if let Some((s, z)) = elementwise_params(cx, &x, &scale, zp.as_ref(), xdt)? {
        // float32(int32(x) - int32(zp)) * s.
        let mut d = cast(cx, x, DType::INT32)?;
        if let Some(z) = z {
            d = cx.binary("subtract", d, cast(cx, z, DType::INT32)?)?;
        }
        cx.binary("multiply", cast(cx, d, DType::FLOAT32)?, s)?
    } else {
        qnn_convert(cx, "qnn.dequantize", x, scale, zp, DType::FLOAT32)?
    };
    if out == DType::FLOAT32 {
        return Ok(y);
    }
    cast(cx, y, out)
}

/// `DynamicQuantizeLinear` (TVM's, uint8 only): the scale from the range of `x` and 0, the
/// zero point `round(clip(0 - min(x) / scale, 0, 255))`.
fn dynamic_quantize_linear(cx: &Cx, inputs: &In) -> CResult<Vec<Expr>> {
    let x = input(inputs, 0)?;
    let dt = cx.dtype(&x)?;
    if dt != DType::FLOAT32 {
        return Err(ConvertError::Invalid(format!(
            "an input of type {dt} is not supported (float32 is)"
        )));
    }
    let zero = || cx.scalar(0.0, dt);
    let max = cx.unary("max", x.clone())?;
    let min = cx.unary("min", x.clone())?;
    let maximum = cx.binary("maximum", zero(), max)?;
    let minimum = cx.binary("minimum", zero(), min.clone())?;
    let scale = cx.binary(
        "divide",
        cx.binary("subtract", maximum, minimum)?,
        cx.scalar(255.0, dt),
    )?;
    let zp = cx.binary("subtract", zero(), cx.binary("divide", min, scale.clone())?)?;
    let zp = cx.op(
        "clip",
        vec![zp],
        &[
            ("a_min", AttrValue::Float(0.0)),
            ("a_max", AttrValue::Float(255.0)),
        ],
    )?;
    let zp = cast(cx, cx.unary("round", zp)?, DType::UINT8)?;
    let q = cx.op(
        "qnn.quantize",
        vec![x, scale.clone(), cast(cx, zp.clone(), DType::INT32)?],
        &[
            ("out_dtype", dtype_attr(DType::UINT8)),
            ("axis", AttrValue::int(0)),
        ],
    )?;
    Ok(vec![q, scale, zp])
}

fn check_8bit(cx: &Cx, e: &Expr, what: &str) -> CResult<DType> {
    let dt = cx.dtype(e)?;
    if dt != DType::INT8 && dt != DType::UINT8 {
        return Err(ConvertError::Invalid(format!(
            "{what} of type {dt} is not supported (int8 and uint8 are)"
        )));
    }
    Ok(dt)
}

/// TVM's `qmatmul`: `qnn.dense(a, transpose(b))` for matrices, else `qnn.batch_matmul` of
/// both broadcast to the batch and flattened to rank 3, reshaped back; int32 results.
fn qmatmul(cx: &Cx, a: Expr, b: Expr, zps: (Expr, Expr), scales: (Expr, Expr)) -> CResult<Expr> {
    let (ashape, bshape) = (cx.shape(&a)?, cx.shape(&b)?);
    let (ar, br) = (ashape.len(), bshape.len());
    if ar == 0 || br < 2 {
        return Err(ConvertError::Invalid(
            "a quantized matrix product of a scalar, or with a vector on the right, is not \
             supported"
                .into(),
        ));
    }
    let units = bshape[br - 1];
    let int32 = dtype_attr(DType::INT32);
    if ar <= 2 && br == 2 {
        let bt = cx.op("transpose", vec![b], &[])?;
        let a = if ar == 1 {
            cx.op("expand_dims", vec![a], &[("axis", AttrValue::int(0))])?
        } else {
            a
        };
        let d = cx.op(
            "qnn.dense",
            vec![a, bt, zps.0, zps.1, scales.0, scales.1],
            &[("units", AttrValue::int(units)), ("out_dtype", int32)],
        )?;
        if ar == 1 {
            return cx.op("squeeze", vec![d], &[("axis", AttrValue::ints(&[0]))]);
        }
        return Ok(d);
    }
    // The batch: the broadcast of both operands' leading axes.
    let n = ar.max(br);
    let pad = |s: &[i64]| -> Vec<i64> {
        let mut v = vec![1; n - s.len()];
        v.extend_from_slice(s);
        v
    };
    let (pa, pb) = (pad(&ashape), pad(&bshape));
    let mut batch = Vec::with_capacity(n - 2);
    for i in 0..n.saturating_sub(2) {
        batch.push(pa[i].max(pb[i]));
    }
    let to = |x: Expr, shape: &[i64], tail: &[i64]| -> CResult<Expr> {
        let mut want = batch.clone();
        want.extend_from_slice(tail);
        let x = if shape != want.as_slice() {
            cx.op(
                "broadcast_to",
                vec![x],
                &[("shape", AttrValue::ints(&want))],
            )?
        } else {
            x
        };
        let mut flat = vec![-1];
        flat.extend_from_slice(tail);
        cx.op("reshape", vec![x], &[("newshape", AttrValue::ints(&flat))])
    };
    let a3 = to(a, &ashape, &ashape[ar.saturating_sub(2)..])?;
    let b3 = to(b, &bshape, &bshape[br - 2..])?;
    let bt = cx.op(
        "transpose",
        vec![b3],
        &[("axes", AttrValue::ints(&[0, 2, 1]))],
    )?;
    let m = cx.op(
        "qnn.batch_matmul",
        vec![a3, bt, zps.0, zps.1, scales.0, scales.1],
        &[
            ("out_dtype", int32),
            ("transpose_a", AttrValue::Bool(false)),
            ("transpose_b", AttrValue::Bool(true)),
        ],
    )?;
    let mut shape = batch;
    if ar >= 2 {
        shape.push(ashape[ar - 2]);
    }
    shape.push(units);
    cx.op("reshape", vec![m], &[("newshape", AttrValue::ints(&shape))])
}

/// `QLinearMatMul`: `qmatmul` in int32, then `qnn.requantize` from `a_scale * b_scale` to the
/// output's scale and zero point (`TONEAREST`), or dequantize and quantize when the output
/// scale is not a constant (TVM's two forms).
fn qlinear_matmul(cx: &Cx, inputs: &In) -> CResult<Expr> {
    let a = input(inputs, 0)?;
    let b = input(inputs, 3)?;
    check_8bit(cx, &a, "an input")?;
    check_8bit(cx, &b, "an input")?;
    let y_zp = input(inputs, 7)?;
    let out = check_8bit(cx, &y_zp, "an output zero point")?;
    let a_scale = scale_f32(cx, input(inputs, 1)?)?;
    let b_scale = scale_f32(cx, input(inputs, 4)?)?;
    let y_scale = scale_f32(cx, input(inputs, 6)?)?;
    let a_zp = zp_i32(cx, input(inputs, 2)?)?;
    let b_zp = zp_i32(cx, input(inputs, 5)?)?;
    let y_zp = zp_i32(cx, y_zp)?;
    let m = qmatmul(cx, a, b, (a_zp, b_zp), (a_scale.clone(), b_scale.clone()))?;
    let m_scale = cx.binary("multiply", a_scale, b_scale)?;
    requantize_or_not(cx, m, m_scale, y_scale, y_zp, out, -1, "TONEAREST")
}

/// TVM's ending of QLinearMatMul and QLinearConv: `qnn.requantize` when the output scale is a
/// constant, else `qnn.quantize(qnn.dequantize(...))` along `axis` (0 for QLinearMatMul).
#[allow(clippy::too_many_arguments)]
fn requantize_or_not(
    cx: &Cx,
    x: Expr,
    scale: Expr,
    y_scale: Expr,
    y_zp: Expr,
    out: DType,
    axis: i64,
    rounding: &str,
) -> CResult<Expr> {
    let zero = cx.scalar(0.0, DType::INT32);
    if y_scale.as_constant().is_some() {
        let mut attrs = vec![
            ("axis", AttrValue::int(axis)),
            ("out_dtype", dtype_attr(out)),
        ];
        if !rounding.is_empty() {
            attrs.push(("rounding", AttrValue::str(rounding)));
        }
        return cx.op(
            "qnn.requantize",
            vec![x, scale, zero, y_scale, y_zp],
            &attrs,
        );
    }
    let deq_axis = if axis < 0 { 0 } else { axis };
    let d = cx.op(
        "qnn.dequantize",
        vec![x, scale, zero],
        &[
            ("out_dtype", dtype_attr(DType::FLOAT32)),
            ("axis", AttrValue::int(deq_axis)),
        ],
    )?;
    cx.op(
        "qnn.quantize",
        vec![d, y_scale, y_zp],
        &[
            ("out_dtype", dtype_attr(out)),
            ("axis", AttrValue::int(deq_axis)),
        ],
    )
}

/// `MatMulInteger`: TVM's QLinearMatMul with unit scales and an int32 result.
fn matmul_integer(cx: &Cx, inputs: &In) -> CResult<Expr> {
    let a = input(inputs, 0)?;
    let b = input(inputs, 1)?;
    let (adt, bdt) = (
        check_8bit(cx, &a, "an input")?,
        check_8bit(cx, &b, "an input")?,
    );
    let zp = |i: usize, dt: DType| -> CResult<Expr> {
        match opt_input(inputs, i) {
            Some(z) => zp_i32(cx, z),
            None => cast(cx, cx.scalar(0.0, dt), DType::INT32),
        }
    };
    let (a_zp, b_zp) = (zp(2, adt)?, zp(3, bdt)?);
    let one = || cx.scalar(1.0, DType::FLOAT32);
    qmatmul(cx, a, b, (a_zp, b_zp), (one(), one()))
}

/// The convolution both ConvInteger and QLinearConv make: `qnn.conv2d` with the node's
/// kernel, strides, pads (SAME padding an `nn.pad` by the input zero point), dilations and
/// group, int32 out.
fn qconv(
    cx: &Cx,
    mut data: Expr,
    weight: Expr,
    zps: (Expr, Expr),
    scales: (Expr, Expr),
) -> CResult<Expr> {
    let ndim = cx.rank(&data)?;
    if ndim != 4 {
        return Err(ConvertError::Invalid(format!(
            "only 2D kernels are supported, not {}D",
            ndim.saturating_sub(2)
        )));
    }
    let wshape = cx.shape(&weight)?;
    let kshape = match cx.ints("kernel_shape")? {
        Some(k) => k,
        None => wshape.get(2..).unwrap_or(&[]).to_vec(),
    };
    let strides = cx.ints("strides")?.unwrap_or_else(|| vec![1; 2]);
    let dilations = cx.ints("dilations")?.unwrap_or_else(|| vec![1; 2]);
    let mut pads = cx.ints("pads")?;
    match cx.string("auto_pad", "NOTSET")?.as_str() {
        m @ ("SAME_UPPER" | "SAME_LOWER") => {
            let pad_value = cast(cx, zps.0.clone(), cx.dtype(&data)?)?;
            data = super::nn::autopad(cx, data, &kshape, &strides, &dilations, m, pad_value)?;
        }
        "VALID" => pads = Some(vec![0; 2]),
        "NOTSET" => {}
        m => {
            return Err(ConvertError::Invalid(format!(
                "value `{m}` of attribute `auto_pad` is invalid"
            )))
        }
    }
    let mut attrs = vec![
        ("kernel_size", AttrValue::ints(&kshape)),
        ("strides", AttrValue::ints(&strides)),
        ("padding", AttrValue::ints(&pads.unwrap_or_else(|| vec![0]))),
        ("dilation", AttrValue::ints(&dilations)),
        ("groups", AttrValue::int(cx.int("group", 1)?)),
        ("out_dtype", dtype_attr(DType::INT32)),
    ];
    if let Some(&c) = wshape.first() {
        attrs.push(("channels", AttrValue::int(c)));
    }
    cx.op(
        "qnn.conv2d",
        vec![data, weight, zps.0, zps.1, scales.0, scales.1],
        &attrs,
    )
}

/// `ConvInteger`: `qnn.conv2d` with unit scales (zero points 0 when omitted).
fn conv_integer(cx: &Cx, inputs: &In) -> CResult<Expr> {
    let data = input(inputs, 0)?;
    let weight = input(inputs, 1)?;
    check_8bit(cx, &data, "an input")?;
    check_8bit(cx, &weight, "a weight")?;
    let zp = |i: usize| -> CResult<Expr> {
        match opt_input(inputs, i) {
            Some(z) => zp_i32(cx, z),
            None => Ok(cx.scalar(0.0, DType::INT32)),
        }
    };
    let one = || cx.scalar(1.0, DType::FLOAT32);
    qconv(cx, data, weight, (zp(2)?, zp(3)?), (one(), one()))
}

/// `QLinearConv`: `qnn.conv2d`, the bias added, requantized from `x_scale * w_scale` to the
/// output's scale and zero point along axis 1.
fn qlinear_conv(cx: &Cx, inputs: &In) -> CResult<Expr> {
    let data = input(inputs, 0)?;
    let weight = input(inputs, 3)?;
    check_8bit(cx, &data, "an input")?;
    check_8bit(cx, &weight, "a weight")?;
    let y_zp = input(inputs, 7)?;
    let out = check_8bit(cx, &y_zp, "an output zero point")?;
    let x_scale = scale_f32(cx, input(inputs, 1)?)?;
    let x_zp = zp_i32(cx, input(inputs, 2)?)?;
    // The weight's scale and zero point stay vectors (per output channel).
    let mut w_scale = input(inputs, 4)?;
    if cx.dtype(&w_scale)? != DType::FLOAT32 {
        w_scale = cast(cx, w_scale, DType::FLOAT32)?;
    }
    let w_zp = cast(cx, input(inputs, 5)?, DType::INT32)?;
    let y_scale = scale_f32(cx, input(inputs, 6)?)?;
    let y_zp = zp_i32(cx, y_zp)?;
    let mut y = qconv(
        cx,
        data,
        weight,
        (x_zp, w_zp),
        (x_scale.clone(), w_scale.clone()),
    )?;
    if let Some(bias) = opt_input(inputs, 8) {
        y = cx.op("nn.bias_add", vec![y, bias], &[])?;
    }
    let scale = cx.binary("multiply", x_scale, w_scale)?;
    requantize_or_not(cx, y, scale, y_scale, y_zp, out, 1, "")
}
