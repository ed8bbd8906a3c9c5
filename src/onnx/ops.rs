//! The op converters, one ONNX op type each, following TVM v0.18's
//! `python/tvm/relay/frontend/onnx.py` (the same Relay ops, attributes and argument order;
//! where TVM folds shape computations to constants, the constants). Elementwise, reduction,
//! shape and sequence ops are here; convolutions, pooling, normalization and matrix products
//! in `ops/nn.rs`.
//!
//! A converter gets the node's inputs (`None` for an omitted optional input) and returns the
//! node's outputs in order. TVM picks, for opset `v`, the newest `_impl_vN` with `N <= v`;
//! the converters branch on `cx.opset` at the same versions.

mod nn;

use super::import::{CResult, ConvertError, Cx};
use crate::ir::{AttrValue, DType, Expr, ExprKind, TensorData};

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
            one(cast(cx, input(inputs, 0)?, dt))
        }
        "CastLike" => one(cx.op("cast_like", vec![input(inputs, 0)?, input(inputs, 1)?], &[])),
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
            let reps = cx.need_ints(&input(inputs, 1)?, "Tile's repeats")?;
            one(cx.op("tile", vec![x], &[("reps", AttrValue::ints(&reps))]))
        }
        "Expand" => one(expand(cx, inputs)),
        "Pad" => one(pad(cx, inputs)),
        "ConstantOfShape" => one(constant_of_shape(cx, inputs)),
        "Constant" => one(constant(cx)),
        "CumSum" => {
            let x = input(inputs, 0)?;
            let mut attrs = vec![("exclusive", AttrValue::Bool(cx.int("exclusive", 0)? != 0))];
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
                let c = cx.op("cumsum", vec![r], &attrs)?;
                return one(cx.op("reverse", vec![c], &ax));
            }
            one(cx.op("cumsum", vec![x], &attrs))
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
        // Convolutions, pooling, normalization, matrix products.
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

fn pow(cx: &Cx, inputs: &In) -> CResult<Expr> {
    let (mut x, mut y) = (input(inputs, 0)?, input(inputs, 1)?);
    let out = cx.dtype(&x)?;
    let mut xt = out;
    if !xt.is_float() {
        xt = DType::FLOAT32;
        x = cast(cx, x, xt)?;
    }
    if cx.dtype(&y)? != xt {
        y = cast(cx, y, xt)?;
    }
    let r = cx.binary("power", x, y)?;
    if xt != out {
        return cast(cx, r, out);
    }
    Ok(r)
}

fn round(cx: &Cx, inputs: &In) -> CResult<Expr> {
    // Banker's rounding, as TVM builds it.
    let x = input(inputs, 0)?;
    let dt = cx.dtype(&x)?;
    let (half, one, two) = (cx.scalar(0.5, dt), cx.scalar(1.0, dt), cx.scalar(2.0, dt));
    let rounded = cx.unary("ceil", cx.binary("subtract", x.clone(), half.clone())?)?;
    let up = cx.unary("ceil", cx.binary("add", x.clone(), half.clone())?)?;
    let down = cx.unary("floor", cx.binary("add", x, half)?)?;
    let mask = cx.binary("subtract", one, cx.binary("subtract", up, down)?)?;
    let odd = cx.unary("abs", cx.binary("floor_mod", rounded.clone(), two)?)?;
    cx.binary("add", rounded, cx.binary("multiply", mask, odd)?)
}

fn is_inf(cx: &Cx, inputs: &In) -> CResult<Expr> {
    let x = input(inputs, 0)?;
    let dt = cx.dtype(&x)?;
    let mut r = cx.unary("isinf", x.clone())?;
    if cx.int("detect_negative", 1)? == 0 {
        let pos = cx.binary("greater", x.clone(), cx.scalar(0.0, dt))?;
        r = cx.binary("multiply", r, pos)?;
    }
    if cx.int("detect_positive", 1)? == 0 {
        let neg = cx.binary("less", x, cx.scalar(0.0, dt))?;
        r = cx.binary("multiply", r, neg)?;
    }
    Ok(r)
}

fn elu(cx: &Cx, inputs: &In) -> CResult<Expr> {
    let x = input(inputs, 0)?;
    let alpha = cx.float("alpha", 1.0)?;
    let e = cx.unary("exp", x.clone())?;
    let d = cx.binary("subtract", f32c(cx, 1.0), e)?;
    let r = cx.unary("nn.relu", d)?;
    let l = cx.binary("multiply", f32c(cx, -alpha), r)?;
    cx.binary("add", l, cx.unary("nn.relu", x)?)
}

fn selu(cx: &Cx, inputs: &In) -> CResult<Expr> {
    let x = input(inputs, 0)?;
    let alpha = cx.float("alpha", 1.673_263_192_176_818_8)?;
    let gamma = cx.float("gamma", 1.050_701_022_148_132_3)?;
    let e = cx.unary("exp", x.clone())?;
    let d = cx.binary("subtract", f32c(cx, 1.0), e)?;
    let r = cx.unary("nn.relu", d)?;
    let l = cx.binary("multiply", f32c(cx, -alpha), r)?;
    let s = cx.binary("add", l, cx.unary("nn.relu", x)?)?;
    cx.binary("multiply", f32c(cx, gamma), s)
}

fn celu(cx: &Cx, inputs: &In) -> CResult<Expr> {
    let x = input(inputs, 0)?;
    let dt = cx.dtype(&x)?;
    let alpha = cx.scalar(cx.float("alpha", 1.0)?, dt);
    let zero = cx.scalar(0.0, dt);
    let one = cx.scalar(1.0, dt);
    let pos = cx.binary("maximum", zero.clone(), x.clone())?;
    let e = cx.unary("exp", cx.binary("divide", x, alpha.clone())?)?;
    let neg = cx.binary("multiply", alpha, cx.binary("subtract", e, one)?)?;
    let neg = cx.binary("minimum", zero, neg)?;
    cx.binary("add", pos, neg)
}

fn hard_linear(cx: &Cx, x: Expr, alpha: f64, beta: f64) -> CResult<Expr> {
    let alpha = cx.float("alpha", alpha)?;
    let beta = cx.float("beta", beta)?;
    let m = cx.binary("multiply", x, f32c(cx, alpha))?;
    cx.binary("add", m, f32c(cx, beta))
}

pub(super) fn clip(cx: &Cx, x: Expr, lo: f64, hi: f64) -> CResult<Expr> {
    cx.op(
        "clip",
        vec![x],
        &[
            ("a_min", AttrValue::Float(lo)),
            ("a_max", AttrValue::Float(hi)),
        ],
    )
}

fn clip_node(cx: &Cx, inputs: &In) -> CResult<Expr> {
    let x = input(inputs, 0)?;
    if cx.opset < 11 {
        let lo = cx.float("min", f64::NEG_INFINITY)?;
        let hi = cx.float("max", f64::INFINITY)?;
        return clip(cx, x, lo, hi);
    }
    let scalar = |e: &Option<Expr>| e.as_ref().and_then(|e| cx.value(e)).map(|d| d.get_f64(0));
    let lo_in = opt_input(inputs, 1);
    let hi_in = opt_input(inputs, 2);
    let (lo, hi) = (scalar(&lo_in), scalar(&hi_in));
    match (&lo_in, &hi_in) {
        (Some(_), Some(_)) if lo.is_some() && hi.is_some() => {
            clip(cx, x, lo.unwrap_or_default(), hi.unwrap_or_default())
        }
        _ => {
            let mut r = x;
            if let Some(l) = lo_in {
                r = cx.binary("maximum", r, l)?;
            }
            if let Some(h) = hi_in {
                r = cx.binary("minimum", r, h)?;
            }
            Ok(r)
        }
    }
}

fn shrink(cx: &Cx, inputs: &In) -> CResult<Expr> {
    let x = input(inputs, 0)?;
    let dt = cx.dtype(&x)?;
    let lambd = cx.scalar(cx.float("lambd", 0.5)?, dt);
    let bias = cx.scalar(cx.float("bias", 0.0)?, dt);
    let zeros = cx.unary("zeros_like", x.clone())?;
    let neg_l = cx.unary("negative", lambd.clone())?;
    let lo = cx.binary("less", x.clone(), neg_l)?;
    let lo = cx.op(
        "where",
        vec![
            lo,
            cx.binary("add", x.clone(), bias.clone())?,
            zeros.clone(),
        ],
        &[],
    )?;
    let hi = cx.binary("greater", x.clone(), lambd)?;
    let hi = cx.op(
        "where",
        vec![hi, cx.binary("subtract", x, bias)?, zeros],
        &[],
    )?;
    cx.binary("add", lo, hi)
}

fn gelu(cx: &Cx, inputs: &In) -> CResult<Expr> {
    let x = input(inputs, 0)?;
    let dt = cx.dtype(&x)?;
    let half = cx.scalar(0.5, dt);
    let one = cx.scalar(1.0, dt);
    let sqrt2 = cx.scalar(std::f64::consts::SQRT_2, dt);
    let t1 = cx.binary("multiply", half, x.clone())?;
    let erf = cx.unary("erf", cx.binary("divide", x, sqrt2)?)?;
    let t2 = cx.binary("add", one, erf)?;
    cx.binary("multiply", t1, t2)
}

fn fold_binary(cx: &Cx, name: &str, inputs: &In) -> CResult<Expr> {
    let mut acc = input(inputs, 0)?;
    for i in 1..inputs.len() {
        acc = cx.binary(name, acc, input(inputs, i)?)?;
    }
    Ok(acc)
}

fn mean(cx: &Cx, inputs: &In) -> CResult<Expr> {
    if inputs.len() == 1 {
        return input(inputs, 0);
    }
    let mut xs = Vec::with_capacity(inputs.len());
    for i in 0..inputs.len() {
        xs.push(cx.op(
            "expand_dims",
            vec![input(inputs, i)?],
            &[("axis", AttrValue::int(0))],
        )?);
    }
    let c = cx.op(
        "concatenate",
        vec![cx.tuple(xs)],
        &[("axis", AttrValue::int(0))],
    )?;
    cx.op(
        "mean",
        vec![c],
        &[
            ("axis", AttrValue::ints(&[0])),
            ("keepdims", AttrValue::Bool(false)),
        ],
    )
}

fn softmax(cx: &Cx, inputs: &In) -> CResult<Expr> {
    let x = input(inputs, 0)?;
    let ndim = cx.rank(&x)? as i64;
    if cx.opset >= 13 {
        let mut axis = cx.int("axis", -1)?;
        if axis < 0 {
            axis += ndim;
        }
        return cx.op("nn.softmax", vec![x], &[("axis", AttrValue::int(axis))]);
    }
    let mut axis = cx.int("axis", 1)?;
    if axis < 0 {
        axis += ndim;
    }
    if axis == ndim - 1 {
        return cx.op("nn.softmax", vec![x], &[("axis", AttrValue::int(axis))]);
    }
    let shape = cx.shape(&x)?;
    let new_shape = if axis == 0 {
        vec![-1]
    } else {
        vec![shape[..axis as usize].iter().product(), -1]
    };
    let r = cx.op(
        "reshape",
        vec![x],
        &[("newshape", AttrValue::ints(&new_shape))],
    )?;
    let s = cx.op("nn.softmax", vec![r], &[("axis", AttrValue::int(-1))])?;
    cx.op("reshape", vec![s], &[("newshape", AttrValue::ints(&shape))])
}

#[derive(Clone, Copy)]
enum Pre {
    None,
    Square,
    Abs,
}

#[derive(Clone, Copy)]
enum Post {
    None,
    Sqrt,
    Log,
}

fn reduce(cx: &Cx, name: &str, inputs: &In, pre: Pre, post: Post) -> CResult<Expr> {
    let mut x = input(inputs, 0)?;
    if cx.rank(&x)? == 0 {
        x = cx.op("expand_dims", vec![x], &[("axis", AttrValue::int(0))])?;
    }
    let keepdims = AttrValue::Bool(cx.int("keepdims", 1)? != 0);
    let rank = cx.rank(&x)? as i64;
    let axes = match opt_input(inputs, 1) {
        Some(a) => {
            let axes = cx.need_ints(&a, "the reduction axes")?;
            if axes.is_empty() && cx.int("noop_with_empty_axes", 0)? != 0 {
                return Ok(x);
            }
            if axes.is_empty() {
                (0..rank).collect()
            } else {
                axes
            }
        }
        None => match cx.ints("axes")? {
            Some(a) => a,
            None => {
                if cx.int("noop_with_empty_axes", 0)? != 0 && cx.opset >= 18 {
                    return Ok(x);
                }
                (0..rank).collect()
            }
        },
    };
    x = match pre {
        Pre::None => x,
        Pre::Square => cx.binary("multiply", x.clone(), x)?,
        Pre::Abs => cx.unary("abs", x)?,
    };
    let r = cx.op(
        name,
        vec![x],
        &[("axis", AttrValue::ints(&axes)), ("keepdims", keepdims)],
    )?;
    match post {
        Post::None => Ok(r),
        Post::Sqrt => cx.unary("sqrt", r),
        Post::Log => cx.unary("log", r),
    }
}

fn arg_reduce(cx: &Cx, name: &str, inputs: &In) -> CResult<Expr> {
    let x = input(inputs, 0)?;
    let r = cx.op(
        name,
        vec![x],
        &[
            ("axis", AttrValue::ints(&[cx.int("axis", 0)?])),
            ("keepdims", AttrValue::Bool(cx.int("keepdims", 1)? != 0)),
            (
                "select_last_index",
                AttrValue::Bool(cx.int("select_last_index", 0)? != 0),
            ),
        ],
    )?;
    cast(cx, r, DType::INT64)
}

/// `Shape`: the static shape as an int64 constant (TVM's `shape_of` helper does the same for
/// a static shape), or `shape_of` when an extent is unknown.
fn shape(cx: &Cx, inputs: &In) -> CResult<Expr> {
    let x = input(inputs, 0)?;
    let rank = cx.rank(&x)? as i64;
    let norm = |v: i64| (if v < 0 { v + rank } else { v }).clamp(0, rank) as usize;
    let start = norm(cx.int("start", 0)?);
    let end = if cx.has("end") {
        norm(cx.int("end", rank)?)
    } else {
        rank as usize
    };
    match cx.shape(&x) {
        Ok(s) => {
            let s = if start <= end { &s[start..end] } else { &[] };
            Ok(cx.ints_const(s, DType::INT64))
        }
        Err(_) => {
            let s = cx.op("shape_of", vec![x], &[("dtype", AttrValue::str("int64"))])?;
            if start == 0 && end == rank as usize {
                return Ok(s);
            }
            cx.op(
                "strided_slice",
                vec![s],
                &[
                    ("begin", AttrValue::ints(&[start as i64])),
                    ("end", AttrValue::ints(&[end as i64])),
                    ("strides", AttrValue::ints(&[1])),
                    ("axes", AttrValue::Null),
                ],
            )
        }
    }
}

fn reshape(cx: &Cx, inputs: &In) -> CResult<Expr> {
    let x = input(inputs, 0)?;
    let shape = if cx.opset < 5 {
        cx.ints("shape")?
            .ok_or_else(|| ConvertError::Invalid("attribute `shape` is required".into()))?
    } else {
        cx.need_ints(&input(inputs, 1)?, "Reshape's shape")?
    };
    let allowzero = cx.int("allowzero", 0)? != 0;
    cx.op(
        "reshape",
        vec![x],
        &[
            ("newshape", AttrValue::ints(&shape)),
            ("allowzero", AttrValue::Bool(allowzero)),
        ],
    )
}

fn flatten(cx: &Cx, inputs: &In) -> CResult<Expr> {
    let x = input(inputs, 0)?;
    let ndim = cx.rank(&x)? as i64;
    let mut axis = cx.int("axis", 1)?;
    if axis < 0 {
        axis += ndim;
    }
    if axis == 1 {
        return cx.unary("nn.batch_flatten", x);
    }
    let s = cx.shape(&x)?;
    let axis = axis.clamp(0, ndim) as usize;
    let pre: i64 = s[..axis].iter().product();
    let post: i64 = s[axis..].iter().product();
    cx.op(
        "reshape",
        vec![x],
        &[("newshape", AttrValue::ints(&[pre, post]))],
    )
}

fn split(cx: &Cx, inputs: &In) -> CResult<Vec<Expr>> {
    let x = input(inputs, 0)?;
    let axis = cx.int("axis", 0)?;
    let sizes = if cx.opset >= 13 {
        match opt_input(inputs, 1) {
            Some(s) if cx.rank(&s)? > 0 => Some(cx.need_ints(&s, "Split's sizes")?),
            _ => None,
        }
    } else {
        cx.ints("split")?
    };
    let sections = match sizes {
        Some(s) if s.len() > 1 => {
            let mut idx = Vec::with_capacity(s.len() - 1);
            let mut at = 0;
            for v in &s[..s.len() - 1] {
                at += v;
                idx.push(at);
            }
            AttrValue::ints(&idx)
        }
        _ => AttrValue::int(cx.num_outputs as i64),
    };
    let t = cx.op(
        "split",
        vec![x],
        &[
            ("indices_or_sections", sections),
            ("axis", AttrValue::int(axis)),
        ],
    )?;
    Ok((0..cx.num_outputs).map(|i| cx.get(&t, i)).collect())
}

fn slice(cx: &Cx, inputs: &In) -> CResult<Expr> {
    let x = input(inputs, 0)?;
    if cx.opset < 10 {
        let starts = cx.ints("starts")?.unwrap_or_default();
        let ends = cx.ints("ends")?.unwrap_or_default();
        let (begin, end) = match cx.ints("axes")? {
            Some(axes) => {
                let n = axes.iter().copied().max().unwrap_or(-1) + 1;
                let n = usize::try_from(n).map_err(|_| {
                    ConvertError::Invalid("Slice with negative axes at opset < 10".into())
                })?;
                let mut b = vec![0; n];
                let mut e = vec![i64::from(i32::MAX); n];
                for (i, &a) in axes.iter().enumerate() {
                    b[a as usize] = *starts.get(i).unwrap_or(&0);
                    e[a as usize] = *ends.get(i).unwrap_or(&i64::from(i32::MAX));
                }
                (b, e)
            }
            None => (starts, ends),
        };
        return cx.op(
            "strided_slice",
            vec![x],
            &[
                ("begin", AttrValue::ints(&begin)),
                ("end", AttrValue::ints(&end)),
                ("strides", AttrValue::ints(&[1])),
                ("axes", AttrValue::Null),
            ],
        );
    }
    let starts = cx.need_ints(&input(inputs, 1)?, "Slice's starts")?;
    let ends = cx.need_ints(&input(inputs, 2)?, "Slice's ends")?;
    let steps = match opt_input(inputs, 4) {
        Some(s) => Some(cx.need_ints(&s, "Slice's steps")?),
        None => None,
    };
    let rank = cx.rank(&x)? as i64;
    match opt_input(inputs, 3) {
        Some(a) => {
            let axes: Vec<i64> = cx
                .need_ints(&a, "Slice's axes")?
                .into_iter()
                .map(|a| if a < 0 { a + rank } else { a })
                .collect();
            let steps = steps.unwrap_or_else(|| vec![1; starts.len()]);
            cx.op(
                "strided_slice",
                vec![x],
                &[
                    ("begin", AttrValue::ints(&starts)),
                    ("end", AttrValue::ints(&ends)),
                    ("strides", AttrValue::ints(&steps)),
                    ("axes", AttrValue::ints(&axes)),
                ],
            )
        }
        None => {
            let steps = steps.unwrap_or_else(|| vec![1; rank as usize]);
            cx.op(
                "strided_slice",
                vec![x],
                &[
                    ("begin", AttrValue::ints(&starts)),
                    ("end", AttrValue::ints(&ends)),
                    ("strides", AttrValue::ints(&steps)),
                    ("axes", AttrValue::Null),
                ],
            )
        }
    }
}

fn squeeze(cx: &Cx, inputs: &In) -> CResult<Expr> {
    let x = input(inputs, 0)?;
    let axes = if cx.opset < 13 {
        cx.ints("axes")?
    } else {
        match opt_input(inputs, 1) {
            Some(a) => Some(cx.need_ints(&a, "Squeeze's axes")?),
            None => {
                let dims = cx.dims(&x)?;
                if dims.is_empty() {
                    return Ok(x);
                }
                Some(
                    dims.iter()
                        .enumerate()
                        .filter(|(_, d)| d.as_static() == Some(1))
                        .map(|(i, _)| i as i64)
                        .collect(),
                )
            }
        }
    };
    match axes {
        Some(a) => cx.op("squeeze", vec![x], &[("axis", AttrValue::ints(&a))]),
        None => cx.op("squeeze", vec![x], &[]),
    }
}

fn unsqueeze(cx: &Cx, inputs: &In) -> CResult<Expr> {
    let mut x = input(inputs, 0)?;
    let mut axes = if cx.opset < 13 {
        cx.ints("axes")?
            .ok_or_else(|| ConvertError::Invalid("attribute `axes` is required".into()))?
    } else {
        cx.need_ints(&input(inputs, 1)?, "Unsqueeze's axes")?
    };
    let out_rank = (cx.rank(&x)? + axes.len()) as i64;
    for a in &mut axes {
        if *a < 0 {
            *a += out_rank;
        }
    }
    axes.sort_unstable();
    for a in axes {
        x = cx.op(
            "expand_dims",
            vec![x],
            &[
                ("axis", AttrValue::int(a)),
                ("num_newaxis", AttrValue::int(1)),
            ],
        )?;
    }
    Ok(x)
}

fn gather(cx: &Cx, inputs: &In) -> CResult<Expr> {
    let data = input(inputs, 0)?;
    let indices = input(inputs, 1)?;
    let axis = cx.int("axis", 0)?;
    let rank = cx.rank(&data)? as i64;
    let ax = if axis < 0 { axis + rank } else { axis };
    let dt = cx.dtype(&indices)?;
    // Negative indices count from the end of the axis (TVM's `normalize_gather_indices`).
    let extent = cx
        .dims(&data)?
        .get(ax.max(0) as usize)
        .and_then(|d| d.as_static());
    let indices = match (cx.value(&indices), extent) {
        (Some(v), Some(n)) => {
            let vals: Vec<i64> = v
                .to_i64_vec()
                .into_iter()
                .map(|i| if i < 0 { i + n } else { i })
                .collect();
            cx.constant(TensorData::from_i64(dt, v.shape.clone(), &vals))
        }
        (_, Some(n)) => {
            let neg = cx.binary("less", indices.clone(), cx.scalar(0.0, dt))?;
            let shifted = cx.binary("add", indices.clone(), cx.scalar(n as f64, dt))?;
            cx.op("where", vec![neg, shifted, indices], &[])?
        }
        _ => indices,
    };
    cx.op(
        "take",
        vec![data, indices],
        &[("axis", AttrValue::int(axis))],
    )
}

fn expand(cx: &Cx, inputs: &In) -> CResult<Expr> {
    let x = input(inputs, 0)?;
    let shape = cx.need_ints(&input(inputs, 1)?, "Expand's shape")?;
    let mut ins = cx.shape(&x)?;
    let mut sh = shape;
    while ins.len() < sh.len() {
        ins.insert(0, 1);
    }
    while sh.len() < ins.len() {
        sh.insert(0, 1);
    }
    let out: Vec<i64> = ins.iter().zip(&sh).map(|(a, b)| *a.max(b)).collect();
    cx.op("broadcast_to", vec![x], &[("shape", AttrValue::ints(&out))])
}

fn pad(cx: &Cx, inputs: &In) -> CResult<Expr> {
    let x = input(inputs, 0)?;
    let mode = cx.string("mode", "constant")?;
    if !matches!(mode.as_str(), "constant" | "edge" | "reflect") {
        return Err(ConvertError::Invalid(format!(
            "value `{mode}` of attribute `mode` is invalid for Pad"
        )));
    }
    let (pads, value) = if cx.opset < 11 {
        let name = if cx.opset < 2 { "paddings" } else { "pads" };
        let pads = cx
            .ints(name)?
            .ok_or_else(|| ConvertError::Invalid(format!("attribute `{name}` is required")))?;
        (pads, f32c(cx, cx.float("value", 0.0)?))
    } else {
        let pads = cx.need_ints(&input(inputs, 1)?, "Pad's pads")?;
        let value = match opt_input(inputs, 2) {
            Some(v) => match cx.value(&v) {
                Some(d) if d.num_elements() > 0 => {
                    cx.constant(TensorData::from_f64(d.dtype, vec![], &[d.get_f64(0)]))
                }
                _ => {
                    return Err(ConvertError::Invalid(
                        "Pad's value must be a constant".into(),
                    ))
                }
            },
            None => f32c(cx, 0.0),
        };
        (pads, value)
    };
    let dims = pads.len() / 2;
    let width: Vec<AttrValue> = (0..dims)
        .map(|i| AttrValue::ints(&[pads[i], pads[i + dims]]))
        .collect();
    cx.op(
        "nn.pad",
        vec![x, value],
        &[
            ("pad_width", AttrValue::Array(width.into())),
            ("pad_mode", AttrValue::str(&mode)),
        ],
    )
}

fn constant_of_shape(cx: &Cx, inputs: &In) -> CResult<Expr> {
    let shape = cx.need_ints(&input(inputs, 0)?, "ConstantOfShape's shape")?;
    super::tensor::checked_dims(&shape).map_err(ConvertError::Invalid)?;
    let (value, dtype) = match cx.tensor_attr("value")? {
        Some(t) => {
            let d = super::tensor::to_data(t).map_err(ConvertError::Invalid)?;
            if d.num_elements() == 0 {
                return Err(ConvertError::Invalid("`value` holds no element".into()));
            }
            let w = d.dtype.size_bytes();
            let scalar = TensorData {
                dtype: d.dtype,
                shape: vec![],
                bytes: d.bytes[..w].to_vec(),
            };
            (cx.constant(scalar), d.dtype)
        }
        None => (cx.scalar(0.0, DType::INT32), DType::FLOAT32),
    };
    cx.op(
        "full",
        vec![value],
        &[
            ("shape", AttrValue::ints(&shape)),
            ("dtype", AttrValue::str(&dtype.to_string())),
        ],
    )
}

fn constant(cx: &Cx) -> CResult<Expr> {
    if let Some(t) = cx.tensor_attr("value")? {
        if t.data_type == Some(super::proto::data_type::STRING) {
            // TVM: string constants become a zero int64 (they are not used by TVM's ops).
            return Ok(cx.ints_const(&[0], DType::INT64));
        }
        let d = super::tensor::to_data(t).map_err(ConvertError::Invalid)?;
        return Ok(cx.constant(d));
    }
    if cx.has("value_float") {
        return Ok(f32c(cx, cx.float("value_float", 0.0)?));
    }
    if cx.has("value_int") {
        return Ok(cx.scalar(cx.int("value_int", 0)? as f64, DType::INT64));
    }
    if let Some(v) = cx.floats("value_floats")? {
        let v: Vec<f64> = v.iter().map(|&x| f64::from(x)).collect();
        return Ok(cx.constant(TensorData::from_f64(
            DType::FLOAT32,
            vec![v.len() as i64],
            &v,
        )));
    }
    if let Some(v) = cx.ints("value_ints")? {
        return Ok(cx.ints_const(&v, DType::INT64));
    }
    Err(ConvertError::Invalid(
        "no supported value attribute in Constant".into(),
    ))
}

/// A sequence's fields, when it is a tuple literal (every sequence the importer makes is).
fn fields(e: &Expr) -> CResult<Vec<Expr>> {
    match e.kind() {
        ExprKind::Tuple(fs) => Ok(fs.clone()),
        _ => Err(ConvertError::Invalid(
            "the sequence is not built in the graph (sequence inputs are not supported)".into(),
        )),
    }
}

fn sequence(cx: &Cx, op: &str, inputs: &In) -> CResult<Expr> {
    let seq = fields(&input(inputs, 0)?)?;
    let n = seq.len() as i64;
    let position = |i: usize| -> CResult<Option<i64>> {
        match opt_input(inputs, i) {
            Some(p) => Ok(Some(cx.need_ints(&p, "the sequence position")?[0])),
            None => Ok(None),
        }
    };
    match op {
        "SequenceLength" => Ok(cx.scalar(n as f64, DType::INT64)),
        "SequenceAt" => {
            let p = position(1)?.ok_or_else(missing)?;
            let p = if p < 0 { p + n } else { p };
            seq.get(p as usize)
                .cloned()
                .ok_or_else(|| ConvertError::Invalid(format!("position {p} is out of bounds")))
        }
        "SequenceInsert" => {
            let mut seq = seq;
            let p = position(2)?.unwrap_or(-1);
            let p = if p < 0 { n + p + 1 } else { p };
            if !(0..=n).contains(&p) {
                return Err(ConvertError::Invalid(format!(
                    "position {p} is out of bounds"
                )));
            }
            seq.insert(p as usize, input(inputs, 1)?);
            Ok(cx.tuple(seq))
        }
        _ => {
            let mut seq = seq;
            let p = position(1)?.unwrap_or(-1);
            let p = if p < 0 { n + p } else { p };
            if !(0..n).contains(&p) {
                return Err(ConvertError::Invalid(format!(
                    "position {p} is out of bounds"
                )));
            }
            seq.remove(p as usize);
            Ok(cx.tuple(seq))
        }
    }
}

fn split_to_sequence(cx: &Cx, inputs: &In) -> CResult<Expr> {
    let x = input(inputs, 0)?;
    let axis = cx.int("axis", 0)?;
    let keepdims = cx.int("keepdims", 1)? != 0;
    let sections = match opt_input(inputs, 1) {
        None => {
            let s = cx.shape(&x)?;
            let rank = s.len() as i64;
            let a = if axis < 0 { axis + rank } else { axis };
            AttrValue::int(
                *s.get(a as usize)
                    .ok_or_else(|| ConvertError::Invalid(format!("axis {axis} is out of range")))?,
            )
        }
        Some(split) => {
            let v = cx.need_ints(&split, "SplitToSequence's split")?;
            if cx.rank(&split)? == 1 && v.len() > 1 {
                let mut idx = Vec::new();
                let mut at = 0;
                for s in &v[..v.len() - 1] {
                    at += s;
                    idx.push(at);
                }
                AttrValue::ints(&idx)
            } else {
                AttrValue::int(v[0])
            }
        }
    };
    let n = match &sections {
        AttrValue::Int(n, _) => *n as usize,
        AttrValue::Array(a) => a.len() + 1,
        _ => 0,
    };
    let t = cx.op(
        "split",
        vec![x],
        &[
            ("indices_or_sections", sections),
            ("axis", AttrValue::int(axis)),
        ],
    )?;
    let mut outs = Vec::with_capacity(n);
    for i in 0..n {
        let f = cx.get(&t, i);
        outs.push(if keepdims {
            f
        } else {
            cx.op("squeeze", vec![f], &[("axis", AttrValue::ints(&[axis]))])?
        });
    }
    Ok(cx.tuple(outs))
}
