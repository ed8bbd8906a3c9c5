//! Sequences (TVM's `SequenceConstruct` and friends): a sequence is a tuple literal, so the
//! sequence ops rearrange its fields at import.

use super::{input, missing, opt_input, In};
use crate::ir::{AttrValue, DType, Expr, ExprKind};
use crate::onnx::import::{CResult, ConvertError, Cx};

/// A sequence's fields, when it is a tuple literal (every sequence the importer makes is).
pub(super) fn fields(e: &Expr) -> CResult<Vec<Expr>> {
    match e.kind() {
        ExprKind::Tuple(fs) => Ok(fs.clone()),
        _ => Err(ConvertError::Invalid(
            "the sequence is not built in the graph (sequence inputs are not supported)".into(),
        )),
    }
}

pub(super) fn sequence(cx: &Cx, op: &str, inputs: &In) -> CResult<Expr> {
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
            // A negative position counts from the back as Python's `list.insert` does (-1:
            // before the last tensor, as ONNX's reference); no position appends.
            let p = position(2)?.unwrap_or(n);
            let p = if p < 0 { n + p } else { p };
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

pub(super) fn split_to_sequence(cx: &Cx, inputs: &In) -> CResult<Expr> {
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
