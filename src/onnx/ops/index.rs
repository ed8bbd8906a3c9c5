//! Converters that select, count or encode positions (TVM's `TopK`, `Range`, `OneHot`,
//! `GatherElements`, `Trilu`): `topk`, a folded `arange`, `one_hot`, `gather`, `trilu`.

use super::super::import::{CResult, ConvertError, Cx};
use super::shape::normalize_indices;
use super::{input, opt_input};
use crate::ir::{AttrValue, DType, Expr, TensorData};

pub(super) fn convert(cx: &mut Cx, op: &str, inputs: &[Option<Expr>]) -> CResult<Vec<Expr>> {
    let one = |e: CResult<Expr>| e.map(|e| vec![e]);
    match op {
        "TopK" => top_k(cx, inputs),
        "Unique" => unique(cx, inputs),
        // NonZero: `transpose(cast(argwhere(x), int64))` (TVM v0.18), its count known at
        // run time.
        "NonZero" => {
            let w = cx.op("argwhere", vec![input(inputs, 0)?], &[])?;
            let w = super::cast(cx, w, DType::INT64)?;
            one(cx.op("transpose", vec![w], &[("axes", AttrValue::ints(&[1, 0]))]))
        }
        // Compress: `take(x, reshape(argwhere(condition), [-1]), axis)`, the data flattened
        // without an axis (TVM v0.18).
        "Compress" => {
            let mut x = input(inputs, 0)?;
            let w = cx.op("argwhere", vec![input(inputs, 1)?], &[])?;
            let flat = |e: Expr| cx.op("reshape", vec![e], &[("newshape", AttrValue::ints(&[-1]))]);
            let idx = flat(w)?;
            let axis = if cx.has("axis") {
                cx.int("axis", 0)?
            } else {
                x = flat(x)?;
                0
            };
            one(cx.op("take", vec![x, idx], &[("axis", AttrValue::int(axis))]))
        }
        "Range" => one(range(cx, inputs)),
        "OneHot" => one(one_hot(cx, inputs)),
        // Trilu: `trilu(x, k, upper)`, `k` the 0-d input or `0i32` without it (TVM v0.18).
        "Trilu" => {
            let x = input(inputs, 0)?;
            let k = opt_input(inputs, 1).unwrap_or_else(|| cx.scalar(0.0, DType::INT32));
            let upper = AttrValue::Bool(cx.int("upper", 1)? != 0);
            let key = AttrValue::str("relay.attrs.TriluAttrs");
            one(cx.op(
                "trilu",
                vec![x, k],
                &[("upper", upper), ("attrs_type_key", key)],
            ))
        }
        // GatherND: `gather_nd(data, transpose(indices, [-1, 0, 1, ...]), batch_dims,
        // index_rank)` (TVM v0.18).
        "GatherND" => {
            let data = input(inputs, 0)?;
            let indices = input(inputs, 1)?;
            let shape = cx.shape(&indices)?;
            let Some(&index_rank) = shape.last() else {
                return Err(ConvertError::Invalid(
                    "GatherND's indices are a scalar".into(),
                ));
            };
            let n = shape.len() as i64;
            let perm: Vec<i64> = std::iter::once(-1).chain(0..n - 1).collect();
            let t = cx.op(
                "transpose",
                vec![indices],
                &[("axes", AttrValue::ints(&perm))],
            )?;
            let attrs = [
                ("batch_dims", AttrValue::int(cx.int("batch_dims", 0)?)),
                ("index_rank", AttrValue::int(index_rank)),
            ];
            one(cx.op("gather_nd", vec![data, t], &attrs))
        }
        "Hardmax" => one(hardmax(cx, inputs)),
        // Scatter (opsets 9-10) and ScatterElements: `scatter_elements(data, indices, updates,
        // axis, reduction)`; ScatterND: `scatter_nd(data, transpose(indices, [-1, 0, ...]),
        // updates, mode)` (TVM v0.18; both name their attrs type, which TVM registers
        // without one).
        "Scatter" | "ScatterElements" => {
            let data = input(inputs, 0)?;
            let reduction = cx.string("reduction", "update")?;
            let attrs = [
                ("axis", AttrValue::int(cx.int("axis", 0)?)),
                ("reduction", AttrValue::str(&reduction)),
                (
                    "attrs_type_key",
                    AttrValue::str("relay.attrs.ScatterElementsAttrs"),
                ),
            ];
            let args = vec![data, input(inputs, 1)?, input(inputs, 2)?];
            one(cx.op("scatter_elements", args, &attrs))
        }
        "ScatterND" => {
            let data = input(inputs, 0)?;
            let indices = input(inputs, 1)?;
            let n = cx.rank(&indices)? as i64;
            if n == 0 {
                return Err(ConvertError::Invalid(
                    "ScatterND's indices are a scalar".into(),
                ));
            }
            let perm: Vec<i64> = std::iter::once(n - 1).chain(0..n - 1).collect();
            let t = cx.op(
                "transpose",
                vec![indices],
                &[("axes", AttrValue::ints(&perm))],
            )?;
            let attrs = [
                ("mode", AttrValue::str(&cx.string("reduction", "update")?)),
                (
                    "attrs_type_key",
                    AttrValue::str("relay.attrs.ScatterNDAttrs"),
                ),
            ];
            one(cx.op("scatter_nd", vec![data, t, input(inputs, 2)?], &attrs))
        }
        "EyeLike" => one(eye_like(cx, inputs)),
        "GatherElements" => {
            let data = input(inputs, 0)?;
            let rank = cx.rank(&data)? as i64;
            let axis = cx.int("axis", 0)?;
            let ax = if axis < 0 { axis + rank } else { axis };
            let indices = normalize_indices(cx, &data, input(inputs, 1)?, ax)?;
            one(cx.op(
                "gather",
                vec![data, indices],
                &[("axis", AttrValue::int(axis))],
            ))
        }
        _ => Err(ConvertError::Unsupported),
    }
}

/// TopK: `topk(x, k, axis, ret_type="both", dtype="int64")`, the values and the indices.
/// With `largest=0`, `is_ascend=True` (TVM sorts and slices instead: the same numbers).
fn top_k(cx: &Cx, inputs: &[Option<Expr>]) -> CResult<Vec<Expr>> {
    let x = input(inputs, 0)?;
    let k = if cx.opset < 10 {
        cx.int("k", 0)?
    } else {
        let k = cx.need_ints(&input(inputs, 1)?, "TopK's k")?;
        *k.first()
            .ok_or_else(|| ConvertError::Invalid("TopK's k is empty".into()))?
    };
    if k < 0 {
        return Err(ConvertError::Invalid(format!("TopK's k {k} is negative")));
    }
    let attrs = [
        ("k", AttrValue::int(k)),
        ("axis", AttrValue::int(cx.int("axis", -1)?)),
        ("ret_type", AttrValue::str("both")),
        ("is_ascend", AttrValue::Bool(cx.int("largest", 1)? == 0)),
        ("dtype", AttrValue::str("int64")),
    ];
    let t = cx.op("topk", vec![x], &attrs)?;
    Ok(vec![cx.get(&t, 0), cx.get(&t, 1)])
}

/// Range: `start + i * delta` for `i` below `ceil((limit - start) / delta)`, computed while
/// importing (TVM's `arange` on constants, folded); the three inputs must be constants.
fn range(cx: &Cx, inputs: &[Option<Expr>]) -> CResult<Expr> {
    let scalar = |i: usize, what: &str| -> CResult<f64> {
        let e = input(inputs, i)?;
        let v = cx.value(&e).ok_or_else(|| {
            ConvertError::Invalid(format!(
                "Range's {what} must be a constant at import (a value computed at run time is \
                 not supported)"
            ))
        })?;
        if v.num_elements() != 1 {
            return Err(ConvertError::Invalid(format!(
                "Range's {what} must be a scalar"
            )));
        }
        Ok(v.get_f64(0))
    };
    let dt = cx.dtype(&input(inputs, 0)?)?;
    let (start, limit, delta) = (
        scalar(0, "start")?,
        scalar(1, "limit")?,
        scalar(2, "delta")?,
    );
    if delta == 0.0 || !delta.is_finite() || !start.is_finite() || !limit.is_finite() {
        return Err(ConvertError::Invalid(format!(
            "Range({start}, {limit}, {delta}) has no finite length"
        )));
    }
    let n = ((limit - start) / delta).ceil().max(0.0);
    if n > crate::limits::MAX_TENSOR_ELEMENTS as f64 {
        return Err(ConvertError::Invalid(format!(
            "Range({start}, {limit}, {delta}) has {n} elements, more than the limit of {}",
            crate::limits::MAX_TENSOR_ELEMENTS
        )));
    }
    let n = n as usize;
    let data = if dt.is_float() {
        let v: Vec<f64> = (0..n).map(|i| start + i as f64 * delta).collect();
        TensorData::from_f64(dt, vec![n as i64], &v)
    } else {
        let (s, d) = (start as i64, delta as i64);
        let v: Vec<i64> = (0..n as i64).map(|i| s + i * d).collect();
        TensorData::from_i64(dt, vec![n as i64], &v)
    };
    Ok(cx.constant(data))
}

/// OneHot: `one_hot(indices, on, off, depth, axis, dtype)` with `[off, on] = values`, negative
/// indices counted from `depth`; `depth` must be a constant.
fn one_hot(cx: &Cx, inputs: &[Option<Expr>]) -> CResult<Expr> {
    let indices = input(inputs, 0)?;
    let depth = cx.need_ints(&input(inputs, 1)?, "OneHot's depth")?;
    let depth = *depth
        .first()
        .ok_or_else(|| ConvertError::Invalid("OneHot's depth is empty".into()))?;
    if depth < 1 {
        return Err(ConvertError::Invalid(format!(
            "OneHot's depth {depth} is not positive"
        )));
    }
    let values = input(inputs, 2)?;
    let dtype = cx.dtype(&values)?;
    let pick = |i: f64| {
        cx.op(
            "take",
            vec![values.clone(), cx.scalar(i, DType::INT32)],
            &[],
        )
    };
    let (off, on) = (pick(0.0)?, pick(1.0)?);
    let idt = cx.dtype(&indices)?;
    let neg = cx.binary("less", indices.clone(), cx.scalar(0.0, idt))?;
    let shifted = cx.binary("add", indices.clone(), cx.scalar(depth as f64, idt))?;
    let indices = cx.op("where", vec![neg, shifted, indices], &[])?;
    let ndim = cx.rank(&indices)? as i64;
    let axis = cx.int("axis", -1)?;
    let axis = if axis < 0 { axis + ndim + 1 } else { axis };
    cx.op(
        "one_hot",
        vec![indices, on, off],
        &[
            ("depth", AttrValue::int(depth)),
            ("axis", AttrValue::int(axis)),
            ("dtype", AttrValue::str(&dtype.to_string())),
        ],
    )
}

/// Hardmax (TVM v0.18): from opset 13, `one_hot(argmax(x, axis), 1, 0, depth, axis)`; before,
/// the same over `x` flattened to two axes at `axis`, reshaped back.
fn hardmax(cx: &Cx, inputs: &[Option<Expr>]) -> CResult<Expr> {
    let x = input(inputs, 0)?;
    let dt = cx.dtype(&x)?;
    let shape = cx.shape(&x)?;
    let ndim = shape.len() as i64;
    if ndim == 0 {
        return Err(ConvertError::Invalid("Hardmax of a scalar".into()));
    }
    let default = if cx.opset >= 13 { -1 } else { 1 };
    let axis = cx.int("axis", default)?.rem_euclid(ndim);
    let one_hot = |cx: &Cx, x: Expr, axis: i64, depth: i64| -> CResult<Expr> {
        let am = cx.op("argmax", vec![x], &[("axis", AttrValue::ints(&[axis]))])?;
        cx.op(
            "one_hot",
            vec![am, cx.scalar(1.0, dt), cx.scalar(0.0, dt)],
            &[
                ("depth", AttrValue::int(depth)),
                ("axis", AttrValue::int(axis)),
                ("dtype", AttrValue::str(&dt.to_string())),
            ],
        )
    };
    if cx.opset >= 13 {
        return one_hot(cx, x, axis, shape[axis as usize]);
    }
    let pre: i64 = shape[..axis as usize].iter().product();
    let post: i64 = shape[axis as usize..].iter().product();
    let r = cx.op(
        "reshape",
        vec![x],
        &[("newshape", AttrValue::ints(&[pre, post]))],
    )?;
    let h = one_hot(cx, r, 1, post)?;
    cx.op("reshape", vec![h], &[("newshape", AttrValue::ints(&shape))])
}

/// EyeLike: ones on the `k`-th diagonal of a matrix of the input's (static) shape. TVM
/// builds `scatter_nd` over `zeros`, which folds to this constant.
fn eye_like(cx: &Cx, inputs: &[Option<Expr>]) -> CResult<Expr> {
    let x = input(inputs, 0)?;
    let shape = cx.shape(&x)?;
    let &[rows, cols] = shape.as_slice() else {
        return Err(ConvertError::Invalid(format!(
            "EyeLike needs a rank-2 input, got rank {}",
            shape.len()
        )));
    };
    let dtype = if cx.has("dtype") {
        let code = cx.int("dtype", 0)? as i32;
        crate::onnx::tensor::dtype_of(code).ok_or_else(|| {
            ConvertError::Invalid(format!(
                "EyeLike to {} is not supported",
                crate::onnx::tensor::elem_type_name(code)
            ))
        })?
    } else {
        cx.dtype(&x)?
    };
    let n = rows
        .checked_mul(cols)
        .filter(|&n| (0..=crate::limits::MAX_TENSOR_ELEMENTS as i64).contains(&n))
        .ok_or_else(|| ConvertError::Invalid(format!("EyeLike of {rows}x{cols} is too large")))?
        as usize;
    let k = cx.int("k", 0)?;
    let mut v = vec![0i64; n];
    for r in 0..rows {
        let c = r + k;
        if (0..cols).contains(&c) {
            v[(r * cols + c) as usize] = 1;
        }
    }
    let data = if dtype.is_float() {
        let f: Vec<f64> = v.iter().map(|&i| i as f64).collect();
        TensorData::from_f64(dtype, shape, &f)
    } else {
        TensorData::from_i64(dtype, shape, &v)
    };
    Ok(cx.constant(data))
}

/// Unique (TVM v0.18): `unique(x, sorted, return_counts=True)` of the flattened data (or of a
/// 1-D tensor along axis 0), the values, first indices and counts cut to the number of unique
/// values with `dyn.strided_slice`, the indices cast to int64.
fn unique(cx: &Cx, inputs: &[Option<Expr>]) -> CResult<Vec<Expr>> {
    let mut x = input(inputs, 0)?;
    if cx.has("axis") {
        let axis = cx.int("axis", 0)?;
        if cx.rank(&x)? != 1 || !(axis == 0 || axis == -1) {
            return Err(ConvertError::Invalid(
                "Unique along an axis of a tensor of rank above 1 is not supported (TVM's \
                 unique is 1-D)"
                    .into(),
            ));
        }
    } else {
        x = cx.op("reshape", vec![x], &[("newshape", AttrValue::ints(&[-1]))])?;
    }
    let sorted = AttrValue::Bool(cx.int("sorted", 1)? == 1);
    let u = cx.op(
        "unique",
        vec![x],
        &[
            ("sorted", sorted),
            ("return_counts", AttrValue::Bool(true)),
            ("attrs_type_key", AttrValue::str("relay.attrs.UniqueAttrs")),
        ],
    )?;
    let num = cx.get(&u, 3);
    let trim = |e: Expr| {
        cx.op(
            "dyn.strided_slice",
            vec![
                e,
                cx.ints_const(&[0], DType::INT64),
                num.clone(),
                cx.ints_const(&[1], DType::INT64),
            ],
            &[],
        )
    };
    let i64 = |e: Expr| super::cast(cx, e, DType::INT64);
    let values = trim(cx.get(&u, 0))?;
    let first = i64(trim(cx.get(&u, 1))?)?;
    let inverse = i64(cx.get(&u, 2))?;
    let counts = i64(trim(cx.get(&u, 4))?)?;
    Ok(vec![values, first, inverse, counts][..cx.num_outputs.clamp(1, 4)].to_vec())
}
