//! Evaluation of `image.resize2d` in NCHW, methods `nearest_neighbor` and `linear`, with the
//! coordinate transformations of TVM's `topi.image.resize` (`half_pixel`, `align_corners`,
//! `asymmetric`, `pytorch_half_pixel`, `tf_half_pixel_for_nn`) and, for nearest, the
//! rounding methods (`round`, `floor`, `ceil`, `round_prefer_floor`, `round_prefer_ceil`;
//! empty: `round` with `align_corners`, else `floor`). Source coordinates are clamped to the
//! image, as TVM reads its edge pixels. Interpolation is computed in `f64` and rounded once
//! to the dtype. `cubic`, `roi` crops and other layouts are not evaluated.

use super::value::{Arr, Value};
use crate::ir::Attrs;
use ndarray::{ArrayD, IxDyn};

/// Maps output coordinate `o` to the input, for an axis of `inp` -> `out` elements.
fn source(mode: &str, o: usize, inp: usize, out: usize) -> Option<f64> {
    let (o, inp_f, out_f) = (o as f64, inp as f64, out as f64);
    let scale = inp_f / out_f;
    Some(match mode {
        "half_pixel" => (o + 0.5) * scale - 0.5,
        "pytorch_half_pixel" if out > 1 => (o + 0.5) * scale - 0.5,
        "pytorch_half_pixel" => 0.0,
        "align_corners" if out > 1 => o * (inp_f - 1.0) / (out_f - 1.0),
        "align_corners" => 0.0,
        "asymmetric" => o * scale,
        "tf_half_pixel_for_nn" => (o + 0.5) * scale,
        _ => return None,
    })
}

fn nearest(method: &str, v: f64) -> Option<f64> {
    Some(match method {
        "round" => v.round(),
        "floor" => v.floor(),
        "ceil" => v.ceil(),
        "round_prefer_floor" => (v - 0.5).ceil(),
        "round_prefer_ceil" => (v + 0.5).floor(),
        _ => return None,
    })
}

fn clamp(i: f64, size: usize) -> usize {
    i.max(0.0).min(size as f64 - 1.0) as usize
}

/// `image.resize2d(x, size=[oh, ow])`.
pub(crate) fn resize2d(attrs: &Attrs, x: &Value) -> Option<Value> {
    if attrs.get_str("layout").unwrap_or("NCHW") != "NCHW" {
        return None;
    }
    let roi = attrs
        .get("roi")
        .and_then(|v| v.as_array().map(|a| a.to_vec()));
    if roi.is_some_and(|r| r.iter().any(|v| v.as_float().is_some_and(|f| f != 0.0))) {
        return None;
    }
    let &[n, c, h, w] = x.shape() else {
        return None;
    };
    let size = attrs.get_ints("size")?;
    let [oh, ow] = <[i64; 2]>::try_from(size).ok()?;
    let (oh, ow) = (usize::try_from(oh).ok()?, usize::try_from(ow).ok()?);
    super::shape_ops::bounded(&[n, c, oh, ow])?;
    if h == 0 || w == 0 {
        return None;
    }
    let method = attrs.get_str("method").unwrap_or("linear");
    let mode = attrs
        .get_str("coordinate_transformation_mode")
        .unwrap_or("half_pixel");
    let rounding = match attrs.get_str("rounding_method").unwrap_or("") {
        "" if mode == "align_corners" => "round",
        "" => "floor",
        r => r,
    };
    // Per output row / column: (first source index, second, weight of the second).
    let taps = |out: usize, inp: usize| -> Option<Vec<(usize, usize, f64)>> {
        (0..out)
            .map(|o| {
                let s = source(mode, o, inp, out)?;
                match method {
                    "nearest_neighbor" => {
                        let i = clamp(nearest(rounding, s)?, inp);
                        Some((i, i, 0.0))
                    }
                    "linear" => {
                        let f = s.floor();
                        Some((clamp(f, inp), clamp(f + 1.0, inp), s - f))
                    }
                    _ => None,
                }
            })
            .collect()
    };
    let (ry, rx) = (taps(oh, h)?, taps(ow, w)?);
    let sample = |plane: &[f64]| -> Vec<f64> {
        let mut out = Vec::with_capacity(oh * ow);
        for &(y0, y1, ty) in &ry {
            for &(x0, x1, tx) in &rx {
                let p = |y: usize, x: usize| plane[y * w + x];
                let top = p(y0, x0) * (1.0 - tx) + p(y0, x1) * tx;
                let bottom = p(y1, x0) * (1.0 - tx) + p(y1, x1) * tx;
                out.push(top * (1.0 - ty) + bottom * ty);
            }
        }
        out
    };
    let shape = [n, c, oh, ow];
    let planes = |all: Vec<f64>| -> Vec<f64> { all.chunks(h * w).flat_map(sample).collect() };
    let arr = match &x.arr {
        Arr::F32(a) => Arr::F32(
            ArrayD::from_shape_vec(
                IxDyn(&shape),
                planes(a.iter().map(|&v| v as f64).collect())
                    .into_iter()
                    .map(|v| v as f32)
                    .collect(),
            )
            .ok()?,
        ),
        Arr::F64(a) => Arr::F64(
            ArrayD::from_shape_vec(IxDyn(&shape), planes(a.iter().copied().collect())).ok()?,
        ),
        Arr::Int(a) if method == "nearest_neighbor" => Arr::Int(
            ArrayD::from_shape_vec(
                IxDyn(&shape),
                planes(a.iter().map(|&v| v as f64).collect())
                    .into_iter()
                    .map(|v| v as i64)
                    .collect(),
            )
            .ok()?,
        ),
        Arr::Int(_) => return None,
    };
    Value::new(x.dtype, arr)
}
