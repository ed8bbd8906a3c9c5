//! Converters of the training losses (TVM's `NegativeLogLikelihoodLoss` and
//! `SoftmaxCrossEntropyLoss`), built from `gather`, `gather_nd`, `where` and reductions as
//! TVM builds them: the loss of each element is `-input[n, target[n, ...], ...]` times the
//! target class's weight; an `ignore_index` target contributes zero to the loss and to the
//! weight total that `mean` divides by.

use super::super::import::{CResult, ConvertError, Cx};
use super::shape::normalize_indices;
use super::{cast, input, opt_input, In};
use crate::ir::{AttrValue, DType, Expr};

pub(super) fn convert(cx: &mut Cx, op: &str, inputs: &In) -> CResult<Vec<Expr>> {
    let reduction = cx.string("reduction", "mean")?;
    if !matches!(reduction.as_str(), "mean" | "sum" | "none") {
        return Err(ConvertError::Invalid(format!(
            "value `{reduction}` of attribute `reduction` is invalid (mean, sum or none)"
        )));
    }
    let ignore = if cx.has("ignore_index") {
        Some(cx.int("ignore_index", 0)?)
    } else {
        None
    };
    let (x, target, weight) = (input(inputs, 0)?, input(inputs, 1)?, opt_input(inputs, 2));
    match op {
        "NegativeLogLikelihoodLoss" => {
            let (loss, total) = nll(cx, x, target, weight, ignore)?;
            Ok(vec![reduce(cx, &reduction, loss, total)?])
        }
        "SoftmaxCrossEntropyLoss" => {
            let s = cx.op("nn.softmax", vec![x], &[("axis", AttrValue::int(1))])?;
            let log_prob = cx.unary("log", s)?;
            let (loss, total) = nll(cx, log_prob.clone(), target, weight, ignore)?;
            let loss = reduce(cx, &reduction, loss, total)?;
            Ok(if cx.num_outputs == 2 {
                vec![loss, log_prob]
            } else {
                vec![loss]
            })
        }
        _ => Err(ConvertError::Unsupported),
    }
}

fn reduce(cx: &Cx, reduction: &str, loss: Expr, total: Expr) -> CResult<Expr> {
    match reduction {
        "none" => Ok(loss),
        "sum" => cx.op("sum", vec![loss], &[]),
        _ => {
            let s = cx.op("sum", vec![loss], &[])?;
            cx.binary("divide", s, total)
        }
    }
}

/// TVM's `NegativeLogLikelihoodLoss.run_calculation`: the per-element loss and the sum of
/// the weights used.
fn nll(
    cx: &Cx,
    x: Expr,
    target: Expr,
    weight: Option<Expr>,
    ignore: Option<i64>,
) -> CResult<(Expr, Expr)> {
    let dt = cx.dtype(&x)?;
    let t = normalize_indices(cx, &x, target.clone(), 1)?;
    let weight = match weight {
        Some(w) => w,
        None => {
            let channels = *cx.shape(&x)?.get(1).ok_or_else(|| {
                ConvertError::Invalid("the input needs a class axis (rank 2 or more)".into())
            })?;
            cx.op(
                "ones",
                vec![],
                &[
                    ("shape", AttrValue::ints(&[channels])),
                    ("dtype", AttrValue::str(&dt.to_string())),
                ],
            )?
        }
    };
    let axis1 = [("axis", AttrValue::int(1))];
    let idx = cx.op("expand_dims", vec![t.clone()], &axis1)?;
    let g = cx.op("gather", vec![x, idx], &axis1)?;
    let g = cx.unary("negative", g)?;
    let mut loss = cx.op("squeeze", vec![g], &[("axis", AttrValue::ints(&[1]))])?;
    let e = cx.op("expand_dims", vec![t], &[("axis", AttrValue::int(0))])?;
    let flat = cx.op("nn.batch_flatten", vec![e], &[])?;
    let w = cx.op("gather_nd", vec![weight, flat], &[])?;
    let mut w = cx.op("reshape_like", vec![w, loss.clone()], &[])?;
    loss = cx.binary("multiply", loss, w.clone())?;
    if let Some(ii) = ignore {
        let tdt = cx.dtype(&target)?;
        let eq = cx.binary("equal", target, cx.scalar(ii as f64, tdt))?;
        let eq = cast(cx, eq, DType::INT8)?;
        let mask = cx.binary("subtract", cx.scalar(1.0, DType::INT8), eq)?;
        let zero = cx.scalar(0.0, cx.dtype(&loss)?);
        loss = cx.op("where", vec![mask.clone(), loss, zero], &[])?;
        let m = cx.op("cast_like", vec![mask, w.clone()], &[])?;
        w = cx.binary("multiply", w, m)?;
    }
    let total = cx.op("sum", vec![w], &[])?;
    Ok((loss, total))
}
