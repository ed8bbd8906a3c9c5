//! Quantized ops (`src/relay/qnn/op/*.cc` in TVM v0.18): quantize, dequantize, requantize,
//! the binary ops (add, mul, subtract), conv2d, conv2d_transpose, dense, batch_matmul,
//! concatenate, avg_pool2d, leaky_relu, softmax, the unary elementwise ops and the simulated
//! (de)quantize ops.
//!
//! Each rule makes TVM's checks on the scales and zero points (float32 scales, int32 zero
//! points, scalars where TVM asks for `IsScalarType`, or a vector along the channel axis that
//! `AssignType` assigns the extent of), on the input and output dtypes, and on the axis, then
//! types the tensors by the float op's rule (`Conv2DRel`, `MatmulRel`, `BroadcastRel`, ...),
//! called on the tensor arguments alone, as TVM's relations do. The checks TVM makes with
//! `ICHECK` (an abort there) are type errors here.

use super::{dim_op, elemwise, nn, pool, transform, Layout, Rel, RuleFn, RuleResult};
use crate::ir::dtype::DTypeCode;
use crate::ir::{DType, Dim, TensorType, Type};

const F32: DType = DType::FLOAT32;
const I32: DType = DType::INT32;
const U16: DType = DType::new(DTypeCode::UInt, 16);

/// The scale and zero-point arguments `from..to` are known (TVM's "not yet" loop).
fn known(r: &Rel<'_>, from: usize, to: usize) -> bool {
    r.types[from..to].iter().all(Option::is_some)
}

/// `IsScalarType(types[i], dtype)`: a rank-0 tensor of `dtype`.
fn scalar(r: &Rel<'_>, i: usize, dtype: DType, what: &str) -> Result<(), String> {
    let Some(t) = r.tensor(i)? else {
        return Ok(());
    };
    if !t.shape.is_empty() || t.dtype != dtype {
        return r.fail(format!("{what} must be a scalar of {dtype}, found {t}"));
    }
    Ok(())
}

/// TVM's `AssignType`: a scale or zero point of `dtype` that is either a scalar or a vector
/// whose length is `extent` (assigned, so a wrong length is a type mismatch).
fn per_channel(r: &mut Rel<'_>, i: usize, dtype: DType, extent: Dim, what: &str) -> RuleResult {
    let Some(t) = r.tensor(i)? else {
        return Ok(false);
    };
    if t.dtype != dtype {
        return r.fail(format!("{what} must be of {dtype}, found {t}"));
    }
    if !t.shape.is_empty() {
        if t.shape.len() != 1 || super::dims_conflict(&t.shape[0], &extent) {
            return r.mismatch(format!(
                "{what} must be a scalar or a vector of {extent} values, found {t}"
            ));
        }
        r.assign(i, Type::tensor(vec![extent], dtype));
    }
    Ok(true)
}

/// A scalar, or a tensor of one element (what dequantize and conv2d_transpose accept).
fn one_element(t: &TensorType) -> bool {
    t.shape.is_empty() || elemwise::num_elements(&t.shape) == Some(1)
}

/// The channel axis TVM reads from an `axis` attribute: negative counts from the end, and a
/// scalar input has axis 0.
fn channel_axis(axis: i64, rank: usize) -> i64 {
    if axis < 0 {
        if rank > 0 {
            rank as i64 + axis
        } else {
            0
        }
    } else {
        axis
    }
}

fn check_axis(r: &Rel<'_>, name: &str, given: i64, axis: i64, rank: usize) -> Result<(), String> {
    if axis < 0 || axis >= rank.max(1) as i64 {
        return r.fail(format!("{name} {given} is out of range"));
    }
    Ok(())
}

/// The extent of `axis` in `shape`, 1 for a scalar.
fn axis_extent(shape: &[Dim], axis: i64) -> Dim {
    if shape.is_empty() {
        Dim::Static(1)
    } else {
        shape[axis as usize].clone()
    }
}

fn dtype_in(r: &Rel<'_>, dt: DType, allowed: &[DType], what: &str) -> Result<(), String> {
    if allowed.contains(&dt) {
        return Ok(());
    }
    let names: Vec<String> = allowed.iter().map(|d| d.to_string()).collect();
    r.fail(format!(
        "{what} type should be one of [{}] but was {dt}",
        names.join(", ")
    ))
}

fn out_dtype(r: &Rel<'_>) -> Result<DType, String> {
    match r.dtype("out_dtype")? {
        Some(d) => Ok(d),
        None => r.fail("needs the attribute `out_dtype`"),
    }
}

/// Runs the float op's `rule` on the arguments `args` of this call (the last one its result)
/// and reports what it assigns at their positions here.
fn delegate(r: &mut Rel<'_>, args: &[usize], rule: RuleFn) -> RuleResult {
    let types: Vec<Option<Type>> = args.iter().map(|&i| r.types[i].clone()).collect();
    let mut sub = Rel::new(r.op, r.attrs, &types);
    let decided = rule(&mut sub)?;
    for (i, t) in sub.assigned {
        r.assign(args[i], t);
    }
    Ok(decided)
}

const QUANTIZED: [DType; 5] = [DType::INT8, DType::UINT8, DType::INT16, U16, DType::INT32];

/// `qnn.quantize(data, scale, zero_point)` (`QuantizeRel`).
pub(super) fn quantize(r: &mut Rel<'_>) -> RuleResult {
    let Some(data) = r.tensor(0)? else {
        return Ok(false);
    };
    if data.dtype != F32 {
        return r.fail(format!(
            "Input type should be one of float32 but was {}",
            data.dtype
        ));
    }
    let (Some(scale), Some(zp)) = (r.tensor(1)?, r.tensor(2)?) else {
        return Ok(false);
    };
    let given = r.int_or("axis", -1)?;
    let rank = data.shape.len();
    let axis = channel_axis(given, rank);
    if !(scale.shape.is_empty() && zp.shape.is_empty()) {
        check_axis(r, "axis", given, axis, rank)?;
    }
    let extent = if rank > 0 && (0..rank as i64).contains(&axis) {
        data.shape[axis as usize].clone()
    } else {
        Dim::Static(1)
    };
    per_channel(r, 1, F32, extent.clone(), "the scale")?;
    per_channel(r, 2, I32, extent, "the zero point")?;
    let dt = out_dtype(r)?;
    dtype_in(r, dt, &QUANTIZED, "Output")?;
    r.done_tensor(data.shape.clone(), dt)
}

/// `qnn.dequantize(data, scale, zero_point)` (`DequantizeRel`).
pub(super) fn dequantize(r: &mut Rel<'_>) -> RuleResult {
    let Some(data) = r.tensor(0)? else {
        return Ok(false);
    };
    dtype_in(r, data.dtype, &QUANTIZED, "Input")?;
    let (Some(scale), Some(zp)) = (r.tensor(1)?, r.tensor(2)?) else {
        return Ok(false);
    };
    let given = r.int_or("axis", -1)?;
    let rank = data.shape.len();
    let axis = channel_axis(given, rank);
    let extent = if one_element(scale) && one_element(zp) {
        Dim::Static(1)
    } else {
        check_axis(r, "axis", given, axis, rank)?;
        axis_extent(&data.shape, axis)
    };
    per_channel(r, 1, F32, extent.clone(), "the scale")?;
    per_channel(r, 2, I32, extent, "the zero point")?;
    let dt = out_dtype(r)?;
    dtype_in(r, dt, &[DType::FLOAT16, F32], "Output")?;
    r.done_tensor(data.shape.clone(), dt)
}

/// `qnn.requantize(data, input_scale, input_zero_point, output_scale, output_zero_point)`
/// (`RequantizeRel`).
pub(super) fn requantize(r: &mut Rel<'_>) -> RuleResult {
    let Some(data) = r.tensor(0)? else {
        return Ok(false);
    };
    if !known(r, 1, 5) {
        return Ok(false);
    }
    let ins = [DType::INT8, DType::UINT8, DType::INT16, I32, DType::INT64];
    dtype_in(r, data.dtype, &ins, "Input")?;
    let given = r.int_or("axis", -1)?;
    let rank = data.shape.len();
    let axis = channel_axis(given, rank);
    check_axis(r, "axis", given, axis, rank)?;
    let extent = axis_extent(&data.shape, axis);
    per_channel(r, 1, F32, extent.clone(), "the input scale")?;
    per_channel(r, 2, I32, extent, "the input zero point")?;
    scalar(r, 3, F32, "the output scale")?;
    scalar(r, 4, I32, "the output zero point")?;
    let dt = out_dtype(r)?;
    dtype_in(
        r,
        dt,
        &[DType::INT8, DType::UINT8, DType::INT16, I32],
        "Output",
    )?;
    r.done_tensor(data.shape.clone(), dt)
}

/// `qnn.simulated_quantize` / `qnn.simulated_dequantize(data, out_dtype, scale, zero_point)`:
/// the data's type, once the dtype argument is a tensor.
pub(super) fn simulated(r: &mut Rel<'_>) -> RuleResult {
    let (Some(data), Some(_)) = (r.tensor(0)?, r.tensor(1)?) else {
        return Ok(false);
    };
    let t = r.types[0]
        .clone()
        .unwrap_or_else(|| Type::tensor(data.shape.clone(), data.dtype));
    r.done(t)
}

/// `relay.op.annotation.simulated_quantize(data, dom_scale, clip_min, clip_max)` (TVM's
/// `SimulatedQuantizeRel` of the quantize pass): the three bounds are float32 scalars
/// (assigned, so an untyped variable gets that type), the result has the data's type.
pub(super) fn annotation_simulated_quantize(r: &mut Rel<'_>) -> RuleResult {
    let Some(data) = r.tensor(0)? else {
        return Ok(false);
    };
    if data.shape.is_empty() {
        return r.fail("the input shape cannot be empty");
    }
    for i in 1..4 {
        r.assign(i, Type::tensor(Vec::new(), F32));
    }
    let t = r.types[0]
        .clone()
        .unwrap_or_else(|| Type::tensor(data.shape.clone(), data.dtype));
    r.done(t)
}

/// `qnn.add` / `qnn.mul` / `qnn.subtract` (`QnnBroadcastRel`): the inputs' scales and zero
/// points per their channel axis (`lhs_axis`, `rhs_axis`), the output's scalar.
pub(super) fn binary(r: &mut Rel<'_>) -> RuleResult {
    let (Some(lhs), Some(rhs)) = (r.tensor(0)?, r.tensor(1)?) else {
        return Ok(false);
    };
    if !known(r, 2, 8) {
        return Ok(false);
    }
    for (side, t, name, s) in [("lhs", lhs, "lhs_axis", 2), ("rhs", rhs, "rhs_axis", 4)] {
        let given = r.int_or(name, -1)?;
        let rank = t.shape.len();
        let axis = if rank <= 1 {
            0
        } else {
            channel_axis(given, rank)
        };
        let (Some(scale), Some(zp)) = (r.tensor(s)?, r.tensor(s + 1)?) else {
            return Ok(false);
        };
        if !(scale.shape.is_empty() && zp.shape.is_empty()) {
            check_axis(r, name, given, axis, rank)?;
        }
        let extent = if rank > 0 && (0..rank as i64).contains(&axis) {
            t.shape[axis as usize].clone()
        } else {
            Dim::Static(1)
        };
        per_channel(r, s, F32, extent.clone(), &format!("the {side} scale"))?;
        per_channel(r, s + 1, I32, extent, &format!("the {side} zero point"))?;
    }
    scalar(r, 6, F32, "the output scale")?;
    scalar(r, 7, I32, "the output zero point")?;
    delegate(r, &[0, 1, 8], elemwise::broadcast)
}

/// `QnnElementwiseUnaryFuncRel`, `QnnLeakyReluRel` and `QnnSoftmaxRel`: an int8 (or uint8)
/// input, four scalars, the input's type.
pub(super) fn unary(r: &mut Rel<'_>) -> RuleResult {
    let Some(x) = r.tensor(0)? else {
        return Ok(false);
    };
    let allowed: &[DType] = if r.op == "qnn.softmax" {
        &[DType::INT8]
    } else {
        &[DType::INT8, DType::UINT8]
    };
    dtype_in(r, x.dtype, allowed, "Input")?;
    if !known(r, 1, 5) {
        return Ok(false);
    }
    scalar(r, 1, F32, "the input scale")?;
    scalar(r, 2, I32, "the input zero point")?;
    scalar(r, 3, F32, "the output scale")?;
    scalar(r, 4, I32, "the output zero point")?;
    let t = r.types[0].clone().expect("known above");
    r.done(t)
}

/// `qnn.conv2d(data, weight, input_zero_point, kernel_zero_point, input_scale, kernel_scale)`
/// (`QnnConv2DRel`).
pub(super) fn conv2d(r: &mut Rel<'_>) -> RuleResult {
    let (Some(data), Some(weight)) = (r.tensor(0)?, r.tensor(1)?) else {
        return Ok(false);
    };
    let q = [DType::INT8, DType::UINT8, DType::INT16];
    dtype_in(r, data.dtype, &q, "Input")?;
    dtype_in(r, weight.dtype, &q, "Weight")?;
    let out = out_dtype(r)?;
    dtype_in(r, out, &[DType::INT16, I32, DType::INT64], "Output")?;
    if !known(r, 2, 6) {
        return Ok(false);
    }
    scalar(r, 2, I32, "the input zero point")?;
    scalar(r, 4, F32, "the input scale")?;
    let kernel_layout = r.layout("kernel_layout", "OIHW")?;
    let data_layout = r.layout("data_layout", "NCHW")?;
    let (Some(o), Some(i)) = (kernel_layout.index_of('O'), kernel_layout.index_of('I')) else {
        return r.fail("Kernel layout attribute is not defined");
    };
    let groups = r.int_or("groups", 1)?;
    let extent = if groups == 1 {
        weight.shape.get(o).cloned()
    } else {
        let Some(c) = data_layout.index_of('C') else {
            return r.fail("Data layout attribute is not defined");
        };
        let channels = r.dim("channels")?;
        let depthwise = channels.as_ref().is_some_and(|ch| {
            data.shape.get(c).and_then(Dim::as_static) == Some(groups)
                && weight.shape.get(i).and_then(Dim::as_static) == ch.as_static()
                && ch.as_static().is_some()
        });
        if depthwise {
            match (weight.shape.get(i), weight.shape.get(o)) {
                (Some(a), Some(b)) => Some(dim_op(a, b, i64::saturating_mul)),
                _ => None,
            }
        } else {
            Some(channels.unwrap_or(Dim::Any))
        }
    };
    let Some(extent) = extent else {
        return r.mismatch(format!(
            "the weight {weight} does not match the kernel layout {kernel_layout}"
        ));
    };
    per_channel(r, 5, F32, extent, "the kernel scale")?;
    delegate(r, &[0, 1, 6], super::conv::conv)
}

/// `qnn.conv2d_transpose` (`QnnConv2DTransposeRel`).
pub(super) fn conv2d_transpose(r: &mut Rel<'_>) -> RuleResult {
    let (Some(data), Some(weight)) = (r.tensor(0)?, r.tensor(1)?) else {
        return Ok(false);
    };
    let q = [DType::INT8, DType::UINT8, DType::INT16, U16];
    dtype_in(r, data.dtype, &q, "Input")?;
    dtype_in(r, weight.dtype, &q[..2], "Weight")?;
    let out = out_dtype(r)?;
    dtype_in(r, out, &[DType::INT16, I32, DType::INT64], "Output")?;
    if !known(r, 2, 6) {
        return Ok(false);
    }
    let (Some(izp), Some(wzp), Some(iscale)) = (r.tensor(2)?, r.tensor(3)?, r.tensor(4)?) else {
        return Ok(false);
    };
    if wzp.dtype != I32 {
        return r.fail(format!(
            "the kernel zero point must be of int32, found {wzp}"
        ));
    }
    if !(one_element(izp) && one_element(iscale)) {
        return r.fail("Zero point or scale should be scalar or a vector with one element.");
    }
    per_channel(r, 2, I32, Dim::Static(1), "the input zero point")?;
    per_channel(r, 4, F32, Dim::Static(1), "the input scale")?;
    let kernel_layout = r.layout("kernel_layout", "IOHW")?;
    let (Some(o), Some(i)) = (kernel_layout.index_of('O'), kernel_layout.index_of('I')) else {
        return r.fail("Kernel layout attribute is not defined");
    };
    let extent = if r.int_or("groups", 1)? == 1 {
        weight.shape.get(o).cloned()
    } else {
        match (weight.shape.get(i), weight.shape.get(o)) {
            (Some(a), Some(b)) => Some(dim_op(a, b, i64::saturating_mul)),
            _ => None,
        }
    };
    let Some(extent) = extent else {
        return r.mismatch(format!(
            "the weight {weight} does not match the kernel layout {kernel_layout}"
        ));
    };
    per_channel(r, 5, F32, extent, "the kernel scale")?;
    delegate(r, &[0, 1, 6], super::conv::conv_transpose)
}

/// `qnn.dense(data, weight, input_zero_point, kernel_zero_point, input_scale, kernel_scale)`
/// (`QnnDenseRel`).
pub(super) fn dense(r: &mut Rel<'_>) -> RuleResult {
    let (Some(data), Some(weight)) = (r.tensor(0)?, r.tensor(1)?) else {
        return Ok(false);
    };
    let q = [DType::INT8, DType::UINT8, DType::INT16, U16];
    dtype_in(r, data.dtype, &q, "Input")?;
    dtype_in(r, weight.dtype, &q[..2], "Weight")?;
    let out = out_dtype(r)?;
    dtype_in(r, out, &[I32, DType::INT64], "Output")?;
    if !known(r, 2, 6) {
        return Ok(false);
    }
    scalar(r, 2, I32, "the input zero point")?;
    scalar(r, 4, F32, "the input scale")?;
    let units = r.dim("units")?.unwrap_or(Dim::Any);
    per_channel(r, 5, F32, units, "the kernel scale")?;
    delegate(r, &[0, 1, 6], nn::dense)
}

/// `qnn.batch_matmul(x, y, x_zero_point, y_zero_point, x_scale, y_scale)`
/// (`QnnBatchMatmulRel`).
pub(super) fn batch_matmul(r: &mut Rel<'_>) -> RuleResult {
    let (Some(x), Some(y)) = (r.tensor(0)?, r.tensor(1)?) else {
        return Ok(false);
    };
    let q = [DType::INT8, DType::UINT8];
    dtype_in(r, x.dtype, &q, "Input")?;
    dtype_in(r, y.dtype, &q, "Weight")?;
    let out = out_dtype(r)?;
    dtype_in(r, out, &[I32], "Output")?;
    if !known(r, 2, 6) {
        return Ok(false);
    }
    scalar(r, 2, I32, "the x zero point")?;
    scalar(r, 3, I32, "the y zero point")?;
    scalar(r, 4, F32, "the x scale")?;
    scalar(r, 5, F32, "the y scale")?;
    delegate(r, &[0, 1, 6], nn::batch_matmul)
}

/// `qnn.concatenate(data, input_scales, input_zero_points, output_scale, output_zero_point)`
/// (`QnnConcatenateRel`).
pub(super) fn concatenate(r: &mut Rel<'_>) -> RuleResult {
    if !known(r, 0, 5) {
        return Ok(false);
    }
    for (i, dtype, what) in [(1, F32, "scales"), (2, I32, "zero_points")] {
        let t = r.types[i].as_ref().expect("known above");
        let crate::ir::TypeKind::Tuple(fields) = t.kind() else {
            return r.fail(format!(
                "qnn concatenate requires a tuple of {what} as argument {}, found {t}",
                i + 1
            ));
        };
        for f in fields.iter() {
            match f.as_tensor() {
                Some(tt) if tt.shape.is_empty() && tt.dtype == dtype => {}
                _ => {
                    return r.fail(format!(
                        "the input {what} must be scalars of {dtype}, found {f}"
                    ))
                }
            }
        }
    }
    scalar(r, 3, F32, "the output scale")?;
    scalar(r, 4, I32, "the output zero point")?;
    delegate(r, &[0, 5], transform::concatenate)
}

/// `qnn.avg_pool2d(data, input_scale, input_zero_point, output_scale, output_zero_point)`
/// (`QnnAvgPool2DRel`).
pub(super) fn avg_pool2d(r: &mut Rel<'_>) -> RuleResult {
    let Some(data) = r.tensor(0)? else {
        return Ok(false);
    };
    dtype_in(r, data.dtype, &[DType::INT8, DType::UINT8], "Input")?;
    if !known(r, 1, 5) {
        return Ok(false);
    }
    scalar(r, 1, F32, "the input scale")?;
    scalar(r, 2, I32, "the input zero point")?;
    scalar(r, 3, F32, "the output scale")?;
    scalar(r, 4, I32, "the output zero point")?;
    if data.shape.len() < 2 {
        return r.fail("Pool2D only support input >= 2-D: input must have height and width");
    }
    let _: Layout = r.layout("layout", "NCHW")?;
    delegate(r, &[0, 5], pool::pool)
}
