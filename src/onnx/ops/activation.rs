//! Converters of activations and math built from several Relay ops (TVM's `Pow`, `Round`,
//! `IsInf`, `Elu`, `Selu`, `Celu`, `HardSigmoid`, `HardSwish`, `Clip`, `Shrink`, `Gelu`), with
//! TVM's constants: a float32 scalar where TVM writes `_expr.const(x)`, the input's dtype where
//! it names one.

use super::{cast, f32c, input, opt_input, In};
use crate::ir::{AttrValue, DType, Expr};
use crate::onnx::import::{CResult, Cx};

pub(super) fn pow(cx: &Cx, inputs: &In) -> CResult<Expr> {
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

pub(super) fn round(cx: &Cx, inputs: &In) -> CResult<Expr> {
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

pub(super) fn is_inf(cx: &Cx, inputs: &In) -> CResult<Expr> {
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

pub(super) fn elu(cx: &Cx, inputs: &In) -> CResult<Expr> {
    let x = input(inputs, 0)?;
    let alpha = cx.float("alpha", 1.0)?;
    let e = cx.unary("exp", x.clone())?;
    let d = cx.binary("subtract", f32c(cx, 1.0), e)?;
    let r = cx.unary("nn.relu", d)?;
    let l = cx.binary("multiply", f32c(cx, -alpha), r)?;
    cx.binary("add", l, cx.unary("nn.relu", x)?)
}

pub(super) fn selu(cx: &Cx, inputs: &In) -> CResult<Expr> {
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

pub(super) fn celu(cx: &Cx, inputs: &In) -> CResult<Expr> {
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

pub(super) fn hard_linear(cx: &Cx, x: Expr, alpha: f64, beta: f64) -> CResult<Expr> {
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

pub(super) fn clip_node(cx: &Cx, inputs: &In) -> CResult<Expr> {
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

pub(super) fn shrink(cx: &Cx, inputs: &In) -> CResult<Expr> {
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

pub(super) fn gelu(cx: &Cx, inputs: &In) -> CResult<Expr> {
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
