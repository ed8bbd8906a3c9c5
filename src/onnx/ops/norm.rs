//! Converters of the normalizations built from reductions: `MeanVarianceNormalization`
//! (TVM's: `(x - mean) / sqrt(mean(x^2) - mean^2)`) and `RMSNormalization` (opset 23, which
//! TVM v0.18 does not convert: `x / sqrt(mean(x^2) + epsilon) * scale` over the axes from
//! `axis` on, computed in `stash_type` and cast back) and `LpNormalization` (not in TVM
//! v0.18 either: `x / sum(|x|)` for `p=1`, `x / sqrt(sum(x * x))` for `p=2`, along `axis`).

use super::super::import::{CResult, ConvertError, Cx};
use super::{cast, input, In};
use crate::ir::{AttrValue, DType, Expr};

pub(super) fn convert(cx: &mut Cx, op: &str, inputs: &In) -> CResult<Vec<Expr>> {
    match op {
        "MeanVarianceNormalization" => Ok(vec![mvn(cx, inputs)?]),
        "RMSNormalization" => Ok(vec![rms(cx, inputs)?]),
        "LpNormalization" => Ok(vec![lp(cx, inputs)?]),
        _ => Err(ConvertError::Unsupported),
    }
}

fn mean_keep(cx: &Cx, x: Expr, axes: &[i64]) -> CResult<Expr> {
    cx.op(
        "mean",
        vec![x],
        &[
            ("axis", AttrValue::ints(axes)),
            ("keepdims", AttrValue::Bool(true)),
        ],
    )
}

fn mvn(cx: &Cx, inputs: &In) -> CResult<Expr> {
    let x = input(inputs, 0)?;
    let axes = cx.ints("axes")?.unwrap_or_else(|| vec![0, 2, 3]);
    let two = cx.scalar(2.0, DType::FLOAT32);
    let mean = mean_keep(cx, x.clone(), &axes)?;
    let mean_sq = cx.binary("power", mean.clone(), two.clone())?;
    let sq = cx.binary("power", x.clone(), two)?;
    let sq_mean = mean_keep(cx, sq, &axes)?;
    let num = cx.binary("subtract", x, mean)?;
    let var = cx.binary("subtract", sq_mean, mean_sq)?;
    let den = cx.unary("sqrt", var)?;
    cx.binary("divide", num, den)
}

fn rms(cx: &Cx, inputs: &In) -> CResult<Expr> {
    let x = input(inputs, 0)?;
    let scale = input(inputs, 1)?;
    let dt = cx.dtype(&x)?;
    let rank = cx.rank(&x)? as i64;
    let axis = cx.int("axis", -1)?;
    let first = if axis < 0 { axis + rank } else { axis };
    if !(0..rank).contains(&first) {
        return Err(ConvertError::Invalid(format!(
            "axis {axis} is out of range for rank {rank}"
        )));
    }
    let axes: Vec<i64> = (first..rank).collect();
    let stash = match cx.int("stash_type", 1)? {
        1 => DType::FLOAT32,
        11 => DType::FLOAT64,
        t => {
            return Err(ConvertError::Invalid(format!(
                "stash_type {t} is not supported (1, float, or 11, double)"
            )))
        }
    };
    let eps = cx.float("epsilon", 1e-5)?;
    let xs = if dt == stash { x } else { cast(cx, x, stash)? };
    let sq = cx.binary("multiply", xs.clone(), xs.clone())?;
    let ms = mean_keep(cx, sq, &axes)?;
    let d = cx.unary("sqrt", cx.binary("add", ms, cx.scalar(eps, stash))?)?;
    let n = cx.binary("divide", xs, d)?;
    let n = if dt == stash { n } else { cast(cx, n, dt)? };
    cx.binary("multiply", n, scale)
}

fn lp(cx: &Cx, inputs: &In) -> CResult<Expr> {
    let x = input(inputs, 0)?;
    let axis = cx.int("axis", -1)?;
    let p = cx.int("p", 2)?;
    let sum = |e: Expr| {
        cx.op(
            "sum",
            vec![e],
            &[
                ("axis", AttrValue::ints(&[axis])),
                ("keepdims", AttrValue::Bool(true)),
            ],
        )
    };
    let norm = match p {
        1 => sum(cx.unary("abs", x.clone())?)?,
        2 => cx.unary("sqrt", sum(cx.binary("multiply", x.clone(), x.clone())?)?)?,
        _ => {
            return Err(ConvertError::Invalid(format!(
                "value {p} of attribute `p` is invalid (1 or 2)"
            )))
        }
    };
    cx.binary("divide", x, norm)
}
