//! Converters for resizing and rearranging images (TVM's `Resize`, `Upsample`,
//! `DepthToSpace`, `SpaceToDepth`): `image.resize2d`, `nn.upsampling`,
//! `nn.depth_to_space` and `nn.space_to_depth`, NCHW only.
//!
//! Resize's output size comes from `sizes`, or from `scales` as `floor(extent * scale)`, and
//! the op samples by that size (as TVM's `resize2d` does): where ONNX maps coordinates by
//! the scale itself and the size rounds, the two differ slightly.

use super::super::import::{CResult, ConvertError, Cx};
use super::{input, opt_input};
use crate::ir::{AttrValue, Expr};

pub(super) fn convert(cx: &mut Cx, op: &str, inputs: &[Option<Expr>]) -> CResult<Vec<Expr>> {
    let one = |e: CResult<Expr>| e.map(|e| vec![e]);
    match op {
        "Resize" => one(resize(cx, inputs)),
        "GridSample" => one(grid_sample(cx, inputs)),
        "Upsample" => one(upsample(cx, inputs)),
        "DepthToSpace" => {
            let mode = cx.string("mode", "DCR")?;
            if !matches!(mode.as_str(), "DCR" | "CRD") {
                return Err(ConvertError::Invalid(format!(
                    "value `{mode}` of attribute `mode` is invalid (DCR or CRD)"
                )));
            }
            let attrs = [
                ("block_size", AttrValue::int(block_size(cx)?)),
                ("layout", AttrValue::str("NCHW")),
                ("mode", AttrValue::str(&mode)),
            ];
            one(cx.op("nn.depth_to_space", vec![input(inputs, 0)?], &attrs))
        }
        "SpaceToDepth" => {
            let mode = cx.string("mode", "DCR")?;
            if mode != "DCR" {
                return Err(ConvertError::Invalid(format!(
                    "SpaceToDepth's mode `{mode}` is not supported (DCR, TVM's only one, is)"
                )));
            }
            let attrs = [
                ("block_size", AttrValue::int(block_size(cx)?)),
                ("layout", AttrValue::str("NCHW")),
            ];
            one(cx.op("nn.space_to_depth", vec![input(inputs, 0)?], &attrs))
        }
        _ => Err(ConvertError::Unsupported),
    }
}

fn block_size(cx: &Cx) -> CResult<i64> {
    let b = cx.int("blocksize", 0)?;
    if b < 1 {
        return Err(ConvertError::Invalid(
            "attribute `blocksize` must be at least 1".into(),
        ));
    }
    Ok(b)
}

fn rank4(cx: &Cx, x: &Expr, op: &str) -> CResult<Vec<i64>> {
    let shape = cx.shape(x)?;
    if shape.len() != 4 {
        return Err(ConvertError::Invalid(format!(
            "{op} of a rank-{} tensor is not supported (rank 4, NCHW, is)",
            shape.len()
        )));
    }
    Ok(shape)
}

/// A constant float input (scales, roi), or an error naming it.
fn floats(cx: &Cx, e: &Expr, what: &str) -> CResult<Vec<f64>> {
    cx.value(e).map(|t| t.to_f64_vec()).ok_or_else(|| {
        ConvertError::Invalid(format!(
            "{what} must be a constant at import (a value computed at run time is not supported)"
        ))
    })
}

fn resize(cx: &Cx, inputs: &[Option<Expr>]) -> CResult<Expr> {
    let x = input(inputs, 0)?;
    let shape = rank4(cx, &x, "Resize")?;
    let method = match cx.string("mode", "nearest")?.as_str() {
        "nearest" => "nearest_neighbor",
        "linear" => "linear",
        "cubic" => "cubic",
        m => {
            return Err(ConvertError::Invalid(format!(
                "value `{m}` of attribute `mode` is invalid"
            )))
        }
    };
    if cx.int("antialias", 0)? != 0 {
        return Err(ConvertError::Invalid(
            "Resize with `antialias` is not supported (TVM's resize has no antialiasing)".into(),
        ));
    }
    // The axes the scales or sizes are for (opset 18), all four by default.
    let axes: Vec<usize> = match cx.ints("axes")? {
        None => (0..4).collect(),
        Some(a) => a
            .iter()
            .map(|&v| {
                let v = if v < 0 { v + 4 } else { v };
                usize::try_from(v)
                    .ok()
                    .filter(|&v| v < 4)
                    .ok_or_else(|| ConvertError::Invalid(format!("axis {v} is out of range")))
            })
            .collect::<CResult<_>>()?,
    };
    let full = |given: &[f64], unit: f64| -> CResult<Vec<f64>> {
        if given.len() != axes.len() {
            return Err(ConvertError::Invalid(format!(
                "{} scales or sizes for {} axes",
                given.len(),
                axes.len()
            )));
        }
        let mut v = vec![unit; 4];
        for (&a, &g) in axes.iter().zip(given) {
            v[a] = g;
        }
        Ok(v)
    };
    let nonempty = |e: Option<Expr>| -> CResult<Option<Expr>> {
        Ok(match e {
            Some(e) if cx.shape(&e)?.iter().product::<i64>() > 0 => Some(e),
            _ => None,
        })
    };
    let (roi, scales, sizes) = if cx.opset < 11 {
        (None, opt_input(inputs, 1), None)
    } else {
        (
            nonempty(opt_input(inputs, 1))?,
            nonempty(opt_input(inputs, 2))?,
            nonempty(opt_input(inputs, 3))?,
        )
    };
    let out: Vec<i64> = match (sizes, scales) {
        (Some(s), _) => {
            if cx.string("keep_aspect_ratio_policy", "stretch")? != "stretch" {
                return Err(ConvertError::Invalid(
                    "Resize's `keep_aspect_ratio_policy` other than `stretch` is not supported"
                        .into(),
                ));
            }
            let given: Vec<f64> = cx
                .need_ints(&s, "Resize's sizes")?
                .iter()
                .map(|&v| v as f64)
                .collect();
            let all = full(&given, 0.0)?;
            (0..4)
                .map(|i| {
                    if axes.contains(&i) {
                        all[i] as i64
                    } else {
                        shape[i]
                    }
                })
                .collect()
        }
        (None, Some(s)) => {
            let all = full(&floats(cx, &s, "Resize's scales")?, 1.0)?;
            (0..4)
                .map(|i| (shape[i] as f64 * all[i]).floor() as i64)
                .collect()
        }
        (None, None) => return Err(ConvertError::Invalid("Resize needs scales or sizes".into())),
    };
    if out[0] != shape[0] || out[1] != shape[1] || out[2] < 1 || out[3] < 1 {
        return Err(ConvertError::Invalid(format!(
            "Resize to {out:?} from {shape:?}: only the two spatial axes can change"
        )));
    }
    let (mode, rounding) = if cx.opset < 11 {
        ("asymmetric".to_string(), String::new())
    } else {
        (
            cx.string("coordinate_transformation_mode", "half_pixel")?,
            cx.string("nearest_mode", "round_prefer_floor")?,
        )
    };
    let mut attrs = vec![
        ("size", AttrValue::ints(&out[2..])),
        ("layout", AttrValue::str("NCHW")),
        ("method", AttrValue::str(method)),
        ("coordinate_transformation_mode", AttrValue::str(&mode)),
        ("rounding_method", AttrValue::str(&rounding)),
    ];
    if cx.opset >= 11 {
        attrs.push((
            "cubic_alpha",
            AttrValue::Float(cx.float("cubic_coeff_a", -0.75)?),
        ));
        attrs.push((
            "cubic_exclude",
            AttrValue::int(cx.int("exclude_outside", 0)?),
        ));
        attrs.push((
            "extrapolation_value",
            AttrValue::Float(cx.float("extrapolation_value", 0.0)?),
        ));
    }
    if let Some(r) = roi {
        // The spatial starts, then the spatial ends (TVM slices them out of the full roi).
        let r = floats(cx, &r, "Resize's roi")?;
        let r =
            full(&r[..r.len() / 2], 0.0).and_then(|s| Ok((s, full(&r[r.len() / 2..], 1.0)?)))?;
        let v = [r.0[2], r.0[3], r.1[2], r.1[3]];
        attrs.push((
            "roi",
            AttrValue::Array(v.iter().map(|&f| AttrValue::Float(f)).collect()),
        ));
    }
    cx.op("image.resize2d", vec![x], &attrs)
}

fn upsample(cx: &Cx, inputs: &[Option<Expr>]) -> CResult<Expr> {
    let x = input(inputs, 0)?;
    rank4(cx, &x, "Upsample")?;
    let scales: Vec<f64> = match cx.floats("scales")? {
        Some(s) => s.iter().map(|&v| v as f64).collect(),
        None => floats(cx, &input(inputs, 1)?, "Upsample's scales")?,
    };
    if scales.len() != 4 || scales[0] != 1.0 || scales[1] != 1.0 {
        return Err(ConvertError::Invalid(format!(
            "Upsample's scales {scales:?}: only the two spatial axes can scale"
        )));
    }
    let method = match cx.string("mode", "nearest")?.as_str() {
        "nearest" => "nearest_neighbor",
        "linear" | "bilinear" => "bilinear",
        m => {
            return Err(ConvertError::Invalid(format!(
                "value `{m}` of attribute `mode` is invalid"
            )))
        }
    };
    let attrs = [
        ("scale_h", AttrValue::Float(scales[2])),
        ("scale_w", AttrValue::Float(scales[3])),
        ("layout", AttrValue::str("NCHW")),
        ("method", AttrValue::str(method)),
        ("align_corners", AttrValue::Bool(false)),
    ];
    cx.op("nn.upsampling", vec![x], &attrs)
}

/// GridSample (TVM v0.18): `image.grid_sample(x, transpose(grid, [0, 3, 1, 2]), method,
/// padding_mode, align_corners)`. Opset 20 renamed the modes `linear` and `cubic`; they map
/// to TVM's `bilinear` and `bicubic`.
fn grid_sample(cx: &Cx, inputs: &[Option<Expr>]) -> CResult<Expr> {
    let x = input(inputs, 0)?;
    if cx.rank(&x)? != 4 {
        return Err(ConvertError::Invalid(format!(
            "GridSample of a rank-{} tensor is not supported (rank 4, NCHW, is)",
            cx.rank(&x)?
        )));
    }
    let grid = cx.op(
        "transpose",
        vec![input(inputs, 1)?],
        &[("axes", AttrValue::ints(&[0, 3, 1, 2]))],
    )?;
    let method = match cx.string("mode", "bilinear")?.as_str() {
        "bilinear" | "linear" => "bilinear",
        "bicubic" | "cubic" => "bicubic",
        "nearest" => "nearest",
        m => {
            return Err(ConvertError::Invalid(format!(
                "value `{m}` of attribute `mode` is invalid"
            )))
        }
    };
    let padding = cx.string("padding_mode", "zeros")?;
    let attrs = [
        ("method", AttrValue::str(method)),
        ("layout", AttrValue::str("NCHW")),
        ("padding_mode", AttrValue::str(&padding)),
        (
            "align_corners",
            AttrValue::Bool(cx.int("align_corners", 0)? != 0),
        ),
    ];
    cx.op("image.grid_sample", vec![x, grid], &attrs)
}
