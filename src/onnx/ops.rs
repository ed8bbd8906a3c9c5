//! The op converters, one ONNX op type each, following TVM v0.18's
//! `python/tvm/relay/frontend/onnx.py` (the same Relay ops, attributes and argument order;
//! where TVM folds shape computations to constants, the constants). This file holds the one
//! match from op type to converter, the renamed unary and binary ops and the helpers; the
//! others are by family in `ops/`: `activation.rs`, `reduce.rs`, `shape.rs`, `sequence.rs` and
//! `nn.rs` (convolutions, pooling, normalization, matrix products).
//!
//! A converter gets the node's inputs (`None` for an omitted optional input) and returns the
//! node's outputs in order. TVM picks, for opset `v`, the newest `_impl_vN` with `N <= v`;
//! the converters branch on `cx.opset` at the same versions.

mod activation;
mod image;
mod index;
mod loss;
mod nn;
mod norm;
mod quant;
mod reduce;
mod rnn;
mod sequence;
mod shape;

use activation::{celu, clip, clip_node, elu, gelu, hard_linear, is_inf, pow, round, selu, shrink};
use reduce::{arg_reduce, fold_binary, mean, reduce, softmax, Post, Pre};
use sequence::{sequence, split_to_sequence};
use shape::{
    constant, constant_of_shape, expand, flatten, gather, pad, reshape, shape, slice, split,
    squeeze, unsqueeze,
};

use super::import::{CResult, ConvertError, Cx};
use crate::ir::{AttrValue, DType, Expr};

type In = [Option<Expr>];

/// Converts one node. `Err(Unsupported)` when there is no converter for the op.
pub(super) fn convert(cx: &mut Cx, op: &str, inputs: &In) -> CResult<Vec<Expr>> {
    if cx.graph_attr_present() && !matches!(op, "If" | "Loop" | "Scan") {
        return Err(ConvertError::Invalid(
            "graph-valued attributes are not supported".into(),
        ));
    }
    let one = |e: CResult<Expr>| e.map(|e| vec![e]);
    match op {
        // Elementwise binary ops (TVM's `Elemwise`: with opset-1 style `broadcast`/`axis`).
        "Add" => one(elemwise(cx, "add", inputs)),
        "Sub" => one(elemwise(cx, "subtract", inputs)),
        "Mul" => one(elemwise(cx, "multiply", inputs)),
        "Div" => one(elemwise(cx, "divide", inputs)),
        "Equal" => one(elemwise(cx, "equal", inputs)),
        "Greater" => one(binary(cx, "greater", inputs)),
        "Less" => one(binary(cx, "less", inputs)),
        "GreaterOrEqual" => one(binary(cx, "greater_equal", inputs)),
        "LessOrEqual" => one(binary(cx, "less_equal", inputs)),
        "And" => one(binary(cx, "logical_and", inputs)),
        "Or" => one(binary(cx, "logical_or", inputs)),
        "Xor" => one(binary(cx, "logical_xor", inputs)),
        "BitwiseAnd" => one(binary(cx, "bitwise_and", inputs)),
        "BitwiseOr" => one(binary(cx, "bitwise_or", inputs)),
        "BitwiseXor" => one(binary(cx, "bitwise_xor", inputs)),
        "BitShift" => {
            let name = match cx.string("direction", "LEFT")?.as_str() {
                "LEFT" => "left_shift",
                "RIGHT" => "right_shift",
                d => {
                    return Err(ConvertError::Invalid(format!(
                        "value `{d}` of attribute `direction` is invalid (LEFT or RIGHT)"
                    )))
                }
            };
            one(binary(cx, name, inputs))
        }
        "Pow" => one(pow(cx, inputs)),
        "Mod" => {
            let name = if cx.int("fmod", 0)? == 1 {
                "trunc_mod"
            } else {
                "floor_mod"
            };
            one(binary(cx, name, inputs))
        }
        // Unary ops TVM renames.
        "Neg" => one(unary(cx, "negative", inputs)),
        "Abs" => one(unary(cx, "abs", inputs)),
        "Floor" => one(unary(cx, "floor", inputs)),
        "Ceil" => one(unary(cx, "ceil", inputs)),
        "Sqrt" => one(unary(cx, "sqrt", inputs)),
        "Relu" => one(unary(cx, "nn.relu", inputs)),
        "Exp" => one(unary(cx, "exp", inputs)),
        "Log" => one(unary(cx, "log", inputs)),
        "Tanh" => one(unary(cx, "tanh", inputs)),
        "Sigmoid" => one(unary(cx, "sigmoid", inputs)),
        "Sin" => one(unary(cx, "sin", inputs)),
        "Cos" => one(unary(cx, "cos", inputs)),
        "Tan" => one(unary(cx, "tan", inputs)),
        "Sinh" => one(unary(cx, "sinh", inputs)),
        "Cosh" => one(unary(cx, "cosh", inputs)),
        "Asin" => one(unary(cx, "asin", inputs)),
        "Acos" => one(unary(cx, "acos", inputs)),
        "Atan" => one(unary(cx, "atan", inputs)),
        "Asinh" => one(unary(cx, "asinh", inputs)),
        "Acosh" => one(unary(cx, "acosh", inputs)),
        "Atanh" => one(unary(cx, "atanh", inputs)),
        "Erf" => one(unary(cx, "erf", inputs)),
        "Sign" => one(unary(cx, "sign", inputs)),
        "Not" => one(unary(cx, "logical_not", inputs)),
        "BitwiseNot" => one(unary(cx, "bitwise_not", inputs)),
        "IsNaN" => one(unary(cx, "isnan", inputs)),
        "Identity" => one(unary(cx, "copy", inputs)),
        "Round" => one(round(cx, inputs)),
        "IsInf" => one(is_inf(cx, inputs)),
        "Reciprocal" => {
            let x = input(inputs, 0)?;
            let dt = cx.dtype(&x)?;
            one(cx.binary("divide", cx.scalar(1.0, dt), x))
        }
        // Activations built from other ops.
        "LeakyRelu" => {
            let alpha = cx.float("alpha", 0.01)?;
            one(cx.op(
                "nn.leaky_relu",
                vec![input(inputs, 0)?],
                &[("alpha", AttrValue::Float(alpha))],
            ))
        }
        "Elu" => one(elu(cx, inputs)),
        "Selu" => one(selu(cx, inputs)),
        "Celu" => one(celu(cx, inputs)),
        "Softplus" => {
            let x = input(inputs, 0)?;
            let dt = cx.dtype(&x)?;
            let e = cx.unary("exp", x)?;
            let s = cx.binary("add", e, cx.scalar(1.0, dt))?;
            one(cx.unary("log", s))
        }
        // Mish (TVM): `x * tanh(log(1 + exp(x)))`.
        "Mish" => {
            let x = input(inputs, 0)?;
            let dt = cx.dtype(&x)?;
            let e = cx.unary("exp", x.clone())?;
            let s = cx.unary("log", cx.binary("add", cx.scalar(1.0, dt), e)?)?;
            one(cx.binary("multiply", x, cx.unary("tanh", s)?))
        }
        // Swish (opset 24, after TVM v0.18): `x * sigmoid(alpha * x)`.
        "Swish" => {
            let x = input(inputs, 0)?;
            let dt = cx.dtype(&x)?;
            let alpha = cx.float("alpha", 1.0)?;
            let ax = cx.binary("multiply", cx.scalar(alpha, dt), x.clone())?;
            one(cx.binary("multiply", x, cx.unary("sigmoid", ax)?))
        }
        "Softsign" => {
            let x = input(inputs, 0)?;
            let a = cx.unary("abs", x.clone())?;
            let d = cx.binary("add", f32c(cx, 1.0), a)?;
            one(cx.binary("divide", x, d))
        }
        "HardSigmoid" => {
            let x = input(inputs, 0)?;
            let t = hard_linear(cx, x, 0.2, 0.5)?;
            one(clip(cx, t, 0.0, 1.0))
        }
        "HardSwish" => {
            let x = input(inputs, 0)?;
            let t = hard_linear(cx, x.clone(), 1.0 / 6.0, 0.5)?;
            let c = clip(cx, t, 0.0, 1.0)?;
            one(cx.binary("multiply", x, c))
        }
        "ThresholdedRelu" => {
            let x = input(inputs, 0)?;
            let alpha = cx.float("alpha", 1.0)?;
            let full = cx.op("full_like", vec![x.clone(), f32c(cx, alpha)], &[])?;
            let mask = cx.binary("greater", x.clone(), full)?;
            let mask = cast(cx, mask, DType::FLOAT32)?;
            one(cx.binary("multiply", x, mask))
        }
        "Shrink" => one(shrink(cx, inputs)),
        "Gelu" => one(gelu(cx, inputs)),
        "Clip" => one(clip_node(cx, inputs)),
        "Where" => one(cx.op(
            "where",
            vec![input(inputs, 0)?, input(inputs, 1)?, input(inputs, 2)?],
            &[],
        )),
        // Variadic.
        "Sum" => one(fold_binary(cx, "add", inputs)),
        "Max" => one(fold_binary(cx, "maximum", inputs)),
        "Min" => one(fold_binary(cx, "minimum", inputs)),
        "Mean" => one(mean(cx, inputs)),
        // Softmax family.
        "Softmax" => one(softmax(cx, inputs)),
        "LogSoftmax" => {
            let s = softmax(cx, inputs)?;
            one(cx.unary("log", s))
        }
        // Reductions.
        "ReduceMax" => one(reduce(cx, "max", inputs, Pre::None, Post::None)),
        "ReduceMin" => one(reduce(cx, "min", inputs, Pre::None, Post::None)),
        "ReduceSum" => one(reduce(cx, "sum", inputs, Pre::None, Post::None)),
        "ReduceMean" => one(reduce(cx, "mean", inputs, Pre::None, Post::None)),
        "ReduceProd" => one(reduce(cx, "prod", inputs, Pre::None, Post::None)),
        "ReduceLogSumExp" => one(reduce(cx, "logsumexp", inputs, Pre::None, Post::None)),
        "ReduceSumSquare" => one(reduce(cx, "sum", inputs, Pre::Square, Post::None)),
        "ReduceL1" => one(reduce(cx, "sum", inputs, Pre::Abs, Post::None)),
        "ReduceL2" => one(reduce(cx, "sum", inputs, Pre::Square, Post::Sqrt)),
        "ReduceLogSum" => one(reduce(cx, "sum", inputs, Pre::None, Post::Log)),
        "ArgMax" => one(arg_reduce(cx, "argmax", inputs)),
        "ArgMin" => one(arg_reduce(cx, "argmin", inputs)),
        // Shapes and layout.
        "Shape" => one(shape(cx, inputs)),
        "Size" => one(cx.op(
            "ndarray_size",
            vec![input(inputs, 0)?],
            &[("dtype", AttrValue::str("int64"))],
        )),
        "Cast" => {
            let to = cx.int("to", 0)? as i32;
            let dt = super::tensor::dtype_of(to).ok_or_else(|| {
                ConvertError::Invalid(format!(
                    "cannot cast to {}",
                    super::tensor::elem_type_name(to)
                ))
            })?;
            let x = via_int32(cx, input(inputs, 0)?, dt)?;
            one(cast(cx, x, dt))
        }
        "CastLike" => {
            let (x, like) = (input(inputs, 0)?, input(inputs, 1)?);
            let x = via_int32(cx, x, cx.dtype(&like)?)?;
            one(cx.op("cast_like", vec![x, like], &[]))
        }
        "Reshape" => one(reshape(cx, inputs)),
        "Flatten" => one(flatten(cx, inputs)),
        "Transpose" => {
            let x = input(inputs, 0)?;
            match cx.ints("perm")? {
                Some(p) => one(cx.op("transpose", vec![x], &[("axes", AttrValue::ints(&p))])),
                None => one(cx.op("transpose", vec![x], &[])),
            }
        }
        "Concat" => {
            let xs = inputs
                .iter()
                .map(|i| i.clone().ok_or_else(missing))
                .collect::<CResult<Vec<_>>>()?;
            let axis = cx.int("axis", 0)?;
            let t = cx.tuple(xs);
            one(cx.op("concatenate", vec![t], &[("axis", AttrValue::int(axis))]))
        }
        "Split" => split(cx, inputs),
        "Slice" => one(slice(cx, inputs)),
        "Squeeze" => one(squeeze(cx, inputs)),
        "Unsqueeze" => one(unsqueeze(cx, inputs)),
        "Gather" => one(gather(cx, inputs)),
        "Tile" => {
            let x = input(inputs, 0)?;
            let reps = input(inputs, 1)?;
            match cx.const_ints(&reps) {
                Some(r) => one(cx.op("tile", vec![x], &[("reps", AttrValue::ints(&r))])),
                // Run-time repeats: `dyn.tile(x, reps)`.
                None => one(cx.op("dyn.tile", vec![x, reps], &[])),
            }
        }
        "Expand" => one(expand(cx, inputs)),
        "Pad" => one(pad(cx, inputs)),
        "ConstantOfShape" => one(constant_of_shape(cx, inputs)),
        "Constant" => one(constant(cx)),
        // CumProd (opset 26, after TVM v0.18) converts as CumSum does, to `cumprod`.
        "CumSum" | "CumProd" => {
            let name = if op == "CumSum" { "cumsum" } else { "cumprod" };
            let x = input(inputs, 0)?;
            // TVM registers `cumsum` with no attrs type; the call names ScanopAttrs.
            let mut attrs = vec![
                ("exclusive", AttrValue::Bool(cx.int("exclusive", 0)? != 0)),
                ("attrs_type_key", AttrValue::str("relay.attrs.ScanopAttrs")),
            ];
            let axis = match &inputs.get(1).cloned().flatten() {
                Some(a) => Some(cx.need_ints(a, "CumSum's axis")?[0]),
                None => None,
            };
            if let Some(a) = axis {
                attrs.push(("axis", AttrValue::int(a)));
            }
            if cx.int("reverse", 0)? != 0 {
                let ax = [("axis", AttrValue::int(axis.unwrap_or(0)))];
                let r = cx.op("reverse", vec![x], &ax)?;
                let c = cx.op(name, vec![r], &attrs)?;
                return one(cx.op("reverse", vec![c], &ax));
            }
            one(cx.op(name, vec![x], &attrs))
        }
        // Sequences are tuples (TVM's `SequenceConstruct` and friends).
        "SequenceConstruct" => {
            let xs = inputs
                .iter()
                .map(|i| i.clone().ok_or_else(missing))
                .collect::<CResult<Vec<_>>>()?;
            one(Ok(cx.tuple(xs)))
        }
        "SequenceEmpty" => one(Ok(cx.tuple(Vec::new()))),
        "SequenceInsert" | "SequenceErase" | "SequenceAt" | "SequenceLength" => {
            one(sequence(cx, op, inputs))
        }
        "ConcatFromSequence" => {
            let seq = input(inputs, 0)?;
            let axis = AttrValue::int(cx.int("axis", 0)?);
            let name = if cx.int("new_axis", 0)? == 1 {
                "stack"
            } else {
                "concatenate"
            };
            one(cx.op(name, vec![seq], &[("axis", axis)]))
        }
        "SplitToSequence" => one(split_to_sequence(cx, inputs)),
        // Einsum: `einsum((x, y, ...), equation)` (TVM v0.18).
        "Einsum" => {
            let xs = inputs
                .iter()
                .map(|i| i.clone().ok_or_else(missing))
                .collect::<CResult<Vec<_>>>()?;
            let equation = cx.string("equation", "")?;
            let t = cx.tuple(xs);
            one(cx.op(
                "einsum",
                vec![t],
                &[("equation", AttrValue::str(&equation))],
            ))
        }
        // Convolutions, pooling, normalization, matrix products.
        "RNN" | "LSTM" | "GRU" => rnn::convert(cx, op, inputs),
        "Resize" | "Upsample" | "DepthToSpace" | "SpaceToDepth" | "GridSample" => {
            image::convert(cx, op, inputs)
        }
        "MeanVarianceNormalization" | "RMSNormalization" | "LpNormalization" => {
            norm::convert(cx, op, inputs)
        }
        "NegativeLogLikelihoodLoss" | "SoftmaxCrossEntropyLoss" => loss::convert(cx, op, inputs),
        "TopK" | "Unique" | "NonZero" | "Compress" | "Range" | "OneHot" | "GatherElements"
        | "GatherND" | "Trilu" | "Hardmax" | "Scatter" | "ScatterElements" | "ScatterND"
        | "EyeLike" => index::convert(cx, op, inputs),
        "QuantizeLinear"
        | "DequantizeLinear"
        | "DynamicQuantizeLinear"
        | "QLinearMatMul"
        | "MatMulInteger"
        | "ConvInteger"
        | "QLinearConv" => quant::convert(cx, op, inputs),
        _ => nn::convert(cx, op, inputs),
    }
}

/// A missing required input.
pub(super) fn missing() -> ConvertError {
    ConvertError::Invalid("a required input is missing".into())
}

/// Input `i`, which must be present.
pub(super) fn input(inputs: &In, i: usize) -> CResult<Expr> {
    inputs
        .get(i)
        .cloned()
        .flatten()
        .ok_or_else(|| ConvertError::Invalid(format!("input {} is required and missing", i + 1)))
}

/// Input `i` when present.
pub(super) fn opt_input(inputs: &In, i: usize) -> Option<Expr> {
    inputs.get(i).cloned().flatten()
}

/// A float32 scalar (Python's `_expr.const(x)` for a float).
pub(super) fn f32c(cx: &Cx, v: f64) -> Expr {
    cx.scalar(v, DType::FLOAT32)
}

pub(super) fn cast(cx: &Cx, x: Expr, to: DType) -> CResult<Expr> {
    cx.op(
        "cast",
        vec![x],
        &[("dtype", AttrValue::str(&to.to_string()))],
    )
}

/// A float cast to a 4-bit integer type goes through int32 first: ONNX truncates and wraps
/// to 4 bits, where a float outside the target's range is undefined for `cast` (C's
/// conversion, which the evaluator refuses). TVM v0.18's frontend has no 4-bit types.
fn via_int32(cx: &Cx, x: Expr, to: DType) -> CResult<Expr> {
    if to.is_int() && to.bits == 4 && cx.dtype(&x)?.is_float() {
        return cast(cx, x, DType::INT32);
    }
    Ok(x)
}

fn unary(cx: &Cx, name: &str, inputs: &In) -> CResult<Expr> {
    cx.unary(name, input(inputs, 0)?)
}

fn binary(cx: &Cx, name: &str, inputs: &In) -> CResult<Expr> {
    cx.binary(name, input(inputs, 0)?, input(inputs, 1)?)
}

/// TVM's `Elemwise`: with the legacy `broadcast=1` (opsets before 7), the second operand is
/// aligned at `axis` of the first by adding trailing axes.
fn elemwise(cx: &Cx, name: &str, inputs: &In) -> CResult<Expr> {
    let a = input(inputs, 0)?;
    let mut b = input(inputs, 1)?;
    if cx.int("broadcast", 0)? != 0 && cx.has("axis") {
        let axis = cx.int("axis", 0)?;
        let (ra, rb) = (cx.rank(&a)? as i64, cx.rank(&b)? as i64);
        let axis = if axis < 0 { axis + ra } else { axis };
        let extra = ra - axis - rb;
        if extra > 0 {
            b = cx.op(
                "expand_dims",
                vec![b],
                &[
                    ("axis", AttrValue::int(rb)),
                    ("num_newaxis", AttrValue::int(extra)),
                ],
            )?;
        }
    }
    cx.binary(name, a, b)
}
