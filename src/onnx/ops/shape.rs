//! Converters for shapes and layout: Shape, Reshape, Flatten, Split, Slice, Squeeze,
//! Unsqueeze, Gather, Expand, Pad, Constant and ConstantOfShape (TVM's classes of the same
//! names). Shapes, axes and pads given as inputs must be constants at import (as TVM makes
//! them with `fold_constant`); a value known only at run time would need Relay's dynamic ops.

use super::{f32c, input, opt_input, In};
use crate::ir::{AttrValue, DType, Expr, TensorData};
use crate::onnx::import::{CResult, ConvertError, Cx};

/// `Shape`: the static shape as an int64 constant (TVM's `shape_of` helper does the same for
/// a static shape), or `shape_of` when an extent is unknown.
pub(super) fn shape(cx: &Cx, inputs: &In) -> CResult<Expr> {
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

pub(super) fn reshape(cx: &Cx, inputs: &In) -> CResult<Expr> {
    let x = input(inputs, 0)?;
    let shape = if cx.opset < 5 {
        cx.ints("shape")?
            .ok_or_else(|| ConvertError::Invalid("attribute `shape` is required".into()))?
    } else {
        let shape = input(inputs, 1)?;
        match cx.const_ints(&shape) {
            Some(s) => s,
            // A run-time shape: `dyn.reshape(x, shape)` (TVM's `_op.reshape` with an
            // expression).
            None => {
                let allowzero = AttrValue::Bool(cx.int("allowzero", 0)? != 0);
                return cx.op("dyn.reshape", vec![x, shape], &[("allowzero", allowzero)]);
            }
        }
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

pub(super) fn flatten(cx: &Cx, inputs: &In) -> CResult<Expr> {
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

pub(super) fn split(cx: &Cx, inputs: &In) -> CResult<Vec<Expr>> {
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
        _ => {
            let n = cx.num_outputs as i64;
            // Opset 18's `num_outputs` over an extent it does not divide: chunks of
            // ceil(extent / n), the last one smaller (TVM v0.18 splits evenly only).
            let extent = cx
                .dims(&x)?
                .get(norm_axis(axis, cx.rank(&x)?))
                .and_then(|d| d.as_static());
            match extent {
                Some(e) if cx.opset >= 18 && n > 1 && e % n != 0 => {
                    let chunk = (e + n - 1) / n;
                    let idx: Vec<i64> = (1..n).map(|i| (i * chunk).min(e)).collect();
                    AttrValue::ints(&idx)
                }
                _ => AttrValue::int(n),
            }
        }
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

/// `axis` counted from the front (an out-of-range axis maps past the end).
fn norm_axis(axis: i64, rank: usize) -> usize {
    if axis < 0 {
        usize::try_from(axis + rank as i64).unwrap_or(usize::MAX)
    } else {
        axis as usize
    }
}

pub(super) fn slice(cx: &Cx, inputs: &In) -> CResult<Expr> {
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

pub(super) fn squeeze(cx: &Cx, inputs: &In) -> CResult<Expr> {
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

pub(super) fn unsqueeze(cx: &Cx, inputs: &In) -> CResult<Expr> {
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

pub(super) fn gather(cx: &Cx, inputs: &In) -> CResult<Expr> {
    let data = input(inputs, 0)?;
    let indices = input(inputs, 1)?;
    let axis = cx.int("axis", 0)?;
    let rank = cx.rank(&data)? as i64;
    let ax = if axis < 0 { axis + rank } else { axis };
    let indices = normalize_indices(cx, &data, indices, ax)?;
    cx.op(
        "take",
        vec![data, indices],
        &[("axis", AttrValue::int(axis))],
    )
}

pub(super) fn expand(cx: &Cx, inputs: &In) -> CResult<Expr> {
    let x = input(inputs, 0)?;
    let shape_in = input(inputs, 1)?;
    let Some(shape) = cx.const_ints(&shape_in) else {
        return expand_dyn(cx, x, shape_in);
    };
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

/// Expand to a run-time shape (TVM v0.18): `dyn.broadcast_to(x, maximum(shape_of(x),
/// shape))`, the shorter of the two padded with leading ones.
fn expand_dyn(cx: &Cx, x: Expr, shape: Expr) -> CResult<Expr> {
    let dt = cx.dtype(&shape)?;
    let ins = cx.shape(&x)?;
    let n = match cx.shape(&shape)?.as_slice() {
        [n] => *n,
        _ => {
            return Err(ConvertError::Invalid(
                "Expand's shape must be a 1-D tensor".into(),
            ))
        }
    };
    let r = ins.len() as i64;
    let mut in_shape = ins;
    let mut shape = shape;
    if r < n {
        in_shape.splice(0..0, std::iter::repeat_n(1, (n - r) as usize));
    } else if n < r {
        let ones = cx.ints_const(&vec![1; (r - n) as usize], dt);
        let t = cx.tuple(vec![ones, shape]);
        shape = cx.op("concatenate", vec![t], &[("axis", AttrValue::int(0))])?;
    }
    let new_shape = cx.binary("maximum", cx.ints_const(&in_shape, dt), shape)?;
    cx.op("dyn.broadcast_to", vec![x, new_shape], &[])
}

pub(super) fn pad(cx: &Cx, inputs: &In) -> CResult<Expr> {
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
                // A run-time value: its first element, `take(value, 0)` (TVM v0.18).
                _ => cx.op("take", vec![v, cx.scalar(0.0, DType::INT32)], &[])?,
            },
            None => f32c(cx, 0.0),
        };
        match opt_input(inputs, 3) {
            // Opset 18's `axes` (after TVM v0.18): the pads of the listed axes, the others 0.
            Some(a) if cx.opset >= 18 => {
                let axes = cx.need_ints(&a, "Pad's axes")?;
                let rank = cx.rank(&x)?;
                if pads.len() != 2 * axes.len() {
                    return Err(ConvertError::Invalid(format!(
                        "Pad has {} pads for {} axes",
                        pads.len(),
                        axes.len()
                    )));
                }
                let mut full = vec![0; 2 * rank];
                for (i, &a) in axes.iter().enumerate() {
                    let k = norm_axis(a, rank);
                    if k >= rank {
                        return Err(ConvertError::Invalid(format!(
                            "Pad's axis {a} is out of range for rank {rank}"
                        )));
                    }
                    full[k] = pads[i];
                    full[k + rank] = pads[i + axes.len()];
                }
                (full, value)
            }
            _ => (pads, value),
        }
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

pub(super) fn constant_of_shape(cx: &Cx, inputs: &In) -> CResult<Expr> {
    let shape = cx.need_ints(&input(inputs, 0)?, "ConstantOfShape's shape")?;
    crate::onnx::tensor::checked_dims(&shape).map_err(ConvertError::Invalid)?;
    let (value, dtype) = match cx.tensor_attr("value")? {
        Some(t) => {
            let d = crate::onnx::tensor::to_data(t).map_err(ConvertError::Invalid)?;
            if d.num_elements() == 0 {
                return Err(ConvertError::Invalid("`value` holds no element".into()));
            }
            let w = d.dtype.size_bytes();
            let scalar = TensorData {
                dtype: d.dtype,
                shape: vec![],
                bytes: d.bytes[..w].to_vec().into(),
            };
            (cx.constant(scalar), d.dtype)
        }
        None => (cx.scalar(0.0, DType::INT32), DType::FLOAT32),
    };
    // `full` of a constant folds at once (as TVM folds the node's output): the element's
    // bytes repeated, without going through the evaluator (the `light/` models make every
    // weight this way, 25 million elements for ResNet-50).
    // FoldConstant's bound applies: a larger `full` stays a call, as FoldConstant leaves it.
    let n = shape.iter().product::<i64>() as usize;
    if let Some(v) = cx
        .value(&value)
        .filter(|_| n <= crate::passes::fold_constant::MAX_ELEMENTS)
    {
        let one = if v.dtype == dtype {
            v.bytes.to_vec()
        } else if dtype.is_float() {
            TensorData::from_f64(dtype, vec![], &[v.get_f64(0)])
                .bytes
                .into_vec()
        } else {
            TensorData::from_i64(dtype, vec![], &[v.get_i64(0)])
                .bytes
                .into_vec()
        };
        return Ok(cx.fill(dtype, shape, one));
    }
    cx.op(
        "full",
        vec![value],
        &[
            ("shape", AttrValue::ints(&shape)),
            ("dtype", AttrValue::str(&dtype.to_string())),
        ],
    )
}

pub(super) fn constant(cx: &Cx) -> CResult<Expr> {
    if let Some(t) = cx.tensor_attr("value")? {
        if t.data_type == Some(crate::onnx::proto::data_type::STRING) {
            // TVM: string constants become a zero int64 (they are not used by TVM's ops).
            return Ok(cx.ints_const(&[0], DType::INT64));
        }
        let d = crate::onnx::tensor::to_data(t).map_err(ConvertError::Invalid)?;
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

/// Negative indices counted from the end of axis `ax` of `data` (TVM's
/// `normalize_gather_indices`): folded when the indices are constants.
pub(super) fn normalize_indices(cx: &Cx, data: &Expr, indices: Expr, ax: i64) -> CResult<Expr> {
    let dt = cx.dtype(&indices)?;
    // Negative indices count from the end of the axis (TVM's `normalize_gather_indices`).
    let extent = cx
        .dims(data)?
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
    Ok(indices)
}
