//! Converters of reductions and of ops over several inputs: Sum, Max, Min, Mean, Softmax (by
//! opset: before 13 over the flattened trailing axes), the Reduce* family and ArgMax/ArgMin.

use super::{cast, input, opt_input, In};
use crate::ir::{AttrValue, DType, Expr};
use crate::onnx::import::{CResult, Cx};

pub(super) fn fold_binary(cx: &Cx, name: &str, inputs: &In) -> CResult<Expr> {
    let mut acc = input(inputs, 0)?;
    for i in 1..inputs.len() {
        acc = cx.binary(name, acc, input(inputs, i)?)?;
    }
    Ok(acc)
}

pub(super) fn mean(cx: &Cx, inputs: &In) -> CResult<Expr> {
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

pub(super) fn softmax(cx: &Cx, inputs: &In) -> CResult<Expr> {
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

pub(super) fn reduce(cx: &Cx, name: &str, inputs: &In, pre: Pre, post: Post) -> CResult<Expr> {
    let mut x = input(inputs, 0)?;
    if cx.rank(&x)? == 0 {
        x = cx.op("expand_dims", vec![x], &[("axis", AttrValue::int(0))])?;
    }
    let keep = cx.int("keepdims", 1)? != 0;
    let keepdims = AttrValue::Bool(keep);
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
    if name == "logsumexp" {
        return logsumexp(cx, x, &axes, keep);
    }
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

/// TVM's `relay.logsumexp`: `log(sum(exp(x - m))) + m` with `m = max(x)` over `axes`
/// (kept), squeezed after unless `keepdims`.
fn logsumexp(cx: &Cx, x: Expr, axes: &[i64], keepdims: bool) -> CResult<Expr> {
    let over = |keep: bool| {
        [
            ("axis", AttrValue::ints(axes)),
            ("keepdims", AttrValue::Bool(keep)),
        ]
    };
    let m = cx.op("max", vec![x.clone()], &over(true))?;
    let d = cx.binary("subtract", x, m.clone())?;
    let e = cx.unary("exp", d)?;
    let s = cx.op("sum", vec![e], &over(true))?;
    let l = cx.unary("log", s)?;
    let out = cx.binary("add", l, m)?;
    if keepdims {
        return Ok(out);
    }
    cx.op("squeeze", vec![out], &[("axis", AttrValue::ints(axes))])
}

pub(super) fn arg_reduce(cx: &Cx, name: &str, inputs: &In) -> CResult<Expr> {
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

#[derive(Clone, Copy)]
pub(super) enum Pre {
    None,
    Square,
    Abs,
}

#[derive(Clone, Copy)]
pub(super) enum Post {
    None,
    Sqrt,
    Log,
}
