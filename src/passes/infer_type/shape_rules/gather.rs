//! `gather_nd` and `slice_like` (`src/relay/op/tensor/transform.cc` in TVM v0.18), and the
//! region-of-interest ops `vision.roi_align` / `vision.roi_pool` (`src/relay/op/vision/
//! rcnn_op.cc`), whose attributes a call names with `attrs_type_key=`.

use super::{dims_conflict, Rel, RuleResult};
use crate::ir::Dim;

/// `GatherNDRel`: `indices (M, Y_0, ..., Y_k)` picks `M` leading coordinates of `data`
/// (after `batch_dims` batch axes); the result is `(Y_0, ..., Y_k) + data.shape[M + batch..]`.
pub(super) fn gather_nd(r: &mut Rel<'_>) -> RuleResult {
    let (Some(data), Some(indices)) = (r.tensor(0)?, r.tensor(1)?) else {
        return Ok(false);
    };
    let Some(m) = indices.shape.first().and_then(Dim::as_static) else {
        return r.fail(format!(
            "needs a static shape for the first axis of indices, got {indices}"
        ));
    };
    let batch = r.int_or("batch_dims", 0)?;
    let ndim = data.shape.len() as i64;
    if m < 0 || m > ndim || batch < 0 || m + batch > ndim {
        return r.fail(format!(
            "indices {indices} do not fit data {data} with batch_dims={batch}"
        ));
    }
    let batch = batch as usize;
    if indices.shape.len() < batch + 1 {
        return r.fail(format!(
            "indices {indices} have fewer than batch_dims={batch} batch axes"
        ));
    }
    for i in 0..batch {
        if dims_conflict(&data.shape[i], &indices.shape[i + 1]) {
            return r.mismatch(format!(
                "batch axis {i} differs between data {data} and indices {indices}"
            ));
        }
    }
    let mut out: Vec<Dim> = indices.shape[1..].to_vec();
    out.extend(data.shape[m as usize + batch..].iter().cloned());
    r.done_tensor(out, data.dtype)
}

/// `SliceLikeRel`: the data cut to the extents of `shape_like` on `axes` (every axis both have,
/// when `axes` is null).
pub(super) fn slice_like(r: &mut Rel<'_>) -> RuleResult {
    let (Some(data), Some(like)) = (r.tensor(0)?, r.tensor(1)?) else {
        return Ok(false);
    };
    let rank = data.shape.len();
    let axes: Vec<usize> = match r.opt_ints("axes")? {
        None => (0..rank.min(like.shape.len())).collect(),
        Some(a) if a.is_empty() => return r.fail("Axes cannot be empty."),
        Some(a) => {
            let mut out = Vec::with_capacity(a.len());
            for x in a {
                let axis = if x < 0 { x + rank as i64 } else { x };
                if axis < 0 || axis as usize >= like.shape.len() || axis as usize >= rank {
                    return r.fail(format!(
                        "Axis {x} exceeds dimension {} of target_shape",
                        like.shape.len()
                    ));
                }
                out.push(axis as usize);
            }
            out
        }
    };
    let mut out = data.shape.clone();
    for i in axes {
        let (t, d) = (&like.shape[i], &data.shape[i]);
        if let (Some(t), Some(d)) = (t.as_static(), d.as_static()) {
            if t > d {
                return r.fail(format!(
                    "End index of axis {i} exceeds input shape: {t} vs {d}"
                ));
            }
        }
        out[i] = t.clone();
    }
    r.done_tensor(out, data.dtype)
}

/// `ROIAlignRel` / `ROIPoolRel`: `(num_rois, C, ph, pw)` in NCHW, `(num_rois, ph, pw, C)` in
/// NHWC, from 4-d data and 2-d rois.
pub(super) fn roi(r: &mut Rel<'_>) -> RuleResult {
    let (Some(data), Some(rois)) = (r.tensor(0)?, r.tensor(1)?) else {
        return Ok(false);
    };
    if data.shape.len() != 4 {
        return r.fail(format!("Input data should be 4-D, found {data}"));
    }
    if rois.shape.len() != 2 {
        return r.fail(format!("Input rois should be 2-D, found {rois}"));
    }
    let Some(pooled) = r.dims("pooled_size")? else {
        return r.fail("needs the attribute `pooled_size`");
    };
    let (ph, pw) = match pooled.as_slice() {
        [h, w, ..] => (h.clone(), w.clone()),
        [s] => (s.clone(), s.clone()),
        [] => return r.fail("attribute `pooled_size` is empty"),
    };
    let n = rois.shape[0].clone();
    let out = match r.str_or("layout", "NCHW") {
        "NCHW" => vec![n, data.shape[1].clone(), ph, pw],
        "NHWC" => vec![n, ph, pw, data.shape[3].clone()],
        other => return r.fail(format!("does not support the {other} layout")),
    };
    r.done_tensor(out, data.dtype)
}

/// `ScatterElementsRel`: the data's type; the indices must be integers.
pub(super) fn scatter_elements(r: &mut Rel<'_>) -> RuleResult {
    let (Some(data), Some(indices), Some(_)) = (r.tensor(0)?, r.tensor(1)?, r.tensor(2)?) else {
        return Ok(false);
    };
    if !indices.dtype.is_int() {
        return r.fail(format!(
            "indices must be a tensor of integers, got {indices}"
        ));
    }
    r.done_like(0, data.shape.clone(), data.dtype)
}

/// `ScatterNDRel`: indices `(M, Y_0, ..., Y_{K-1})` and updates `(Y_0, ..., Y_{K-1}, X_M,
/// ..., X_{N-1})` into data `(X_0, ..., X_{N-1})`; the result has the data's type.
pub(super) fn scatter_nd(r: &mut Rel<'_>) -> RuleResult {
    let (Some(data), Some(indices), Some(updates)) = (r.tensor(0)?, r.tensor(1)?, r.tensor(2)?)
    else {
        return Ok(false);
    };
    if !indices.dtype.is_int() {
        return r.fail(format!(
            "indices must be a tensor of integers, got {indices}"
        ));
    }
    let Some(m) = indices.shape.first().and_then(Dim::as_static) else {
        return r.fail(format!(
            "needs a static shape for the first axis of indices, got {indices}"
        ));
    };
    let (k, n) = (indices.shape.len() - 1, data.shape.len());
    if m < 0 || m as usize > n || updates.shape.len() != k + n - m as usize {
        return r.fail(format!(
            "indices {indices} and updates {updates} do not fit data {data}"
        ));
    }
    let m = m as usize;
    let ys = (0..k).all(|i| !dims_conflict(&indices.shape[i + 1], &updates.shape[i]));
    let xs = (m..n).all(|i| !dims_conflict(&updates.shape[i - m + k], &data.shape[i]));
    if !ys || !xs {
        return r.mismatch(format!(
            "indices {indices} and updates {updates} do not fit data {data}"
        ));
    }
    r.done_like(0, data.shape.clone(), data.dtype)
}
