//! Evaluation of `image.resize2d` in NCHW, methods `nearest_neighbor` and `linear`, with the
//! coordinate transformations of TVM's `topi.image.resize` (`half_pixel`, `align_corners`,
//! `asymmetric`, `pytorch_half_pixel`, `tf_half_pixel_for_nn`) and, for nearest, the
//! rounding methods (`round`, `floor`, `ceil`, `round_prefer_floor`, `round_prefer_ceil`;
//! empty: `round` with `align_corners`, else `floor`). Source coordinates are clamped to the
//! image, as TVM reads its edge pixels. Interpolation is computed in `f64` and rounded once
//! to the dtype. `cubic` uses Keys' kernel with `cubic_alpha` on the four nearest taps
//! (`cubic_exclude` drops taps outside the image and renormalizes), and
//! `tf_crop_and_resize` samples the `roi` box, with `extrapolation_value` outside the image.
//! Other layouts are not evaluated.

use super::value::{Arr, Value};
use crate::ir::{AttrValue, Attrs};
use ndarray::{ArrayD, IxDyn};

/// Maps output coordinate `o` to the input, for an axis of `inp` -> `out` elements; `roi`
/// is the axis's (start, end) crop for `tf_crop_and_resize`.
fn source(mode: &str, o: usize, inp: usize, out: usize, roi: (f64, f64)) -> Option<f64> {
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
        "tf_crop_and_resize" if out > 1 => {
            roi.0 * (inp_f - 1.0) + o * (roi.1 - roi.0) * (inp_f - 1.0) / (out_f - 1.0)
        }
        "tf_crop_and_resize" => 0.5 * (roi.0 + roi.1) * (inp_f - 1.0),
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

/// The four weights of cubic interpolation at fraction `t` (Keys' kernel with `a`), for the
/// taps at floor - 1, floor, floor + 1 and floor + 2.
fn cubic_weights(t: f64, a: f64) -> [f64; 4] {
    let far = |d: f64| ((a * d - 5.0 * a) * d + 8.0 * a) * d - 4.0 * a;
    let near = |d: f64| ((a + 2.0) * d - (a + 3.0)) * d * d + 1.0;
    [far(t + 1.0), near(t), near(1.0 - t), far(2.0 - t)]
}

/// How one axis samples: per output position, the (input index, weight) taps, or `None`
/// where `tf_crop_and_resize` reads outside the image (the extrapolation value).
type Taps = Vec<Option<Vec<(usize, f64)>>>;

struct Method<'a> {
    method: &'a str,
    mode: &'a str,
    rounding: &'a str,
    alpha: f64,
    exclude: bool,
}

impl Method<'_> {
    fn taps(&self, out: usize, inp: usize, roi: (f64, f64)) -> Option<Taps> {
        (0..out)
            .map(|o| {
                let s = source(self.mode, o, inp, out, roi)?;
                if self.mode == "tf_crop_and_resize" && (s < 0.0 || s > inp as f64 - 1.0) {
                    return Some(None);
                }
                Some(Some(match self.method {
                    "nearest_neighbor" => vec![(clamp(nearest(self.rounding, s)?, inp), 1.0)],
                    "linear" => {
                        let f = s.floor();
                        vec![(clamp(f, inp), 1.0 - (s - f)), (clamp(f + 1.0, inp), s - f)]
                    }
                    "cubic" => {
                        let f = s.floor();
                        let mut w = cubic_weights(s - f, self.alpha);
                        let at = |i: usize| f - 1.0 + i as f64;
                        if self.exclude {
                            for (i, wi) in w.iter_mut().enumerate() {
                                if at(i) < 0.0 || at(i) >= inp as f64 {
                                    *wi = 0.0;
                                }
                            }
                            let sum: f64 = w.iter().sum();
                            w.iter_mut().for_each(|wi| *wi /= sum);
                        }
                        (0..4).map(|i| (clamp(at(i), inp), w[i])).collect()
                    }
                    _ => return None,
                }))
            })
            .collect()
    }
}

/// `image.resize2d(x, size=[oh, ow])`.
pub(crate) fn resize2d(attrs: &Attrs, x: &Value) -> Option<Value> {
    if attrs.get_str("layout").unwrap_or("NCHW") != "NCHW" {
        return None;
    }
    let roi: Vec<f64> = match attrs.get("roi").filter(|v| !v.is_null()) {
        None => vec![0.0; 4],
        Some(v) => v
            .as_array()?
            .iter()
            .map(|f| f.as_float().or_else(|| f.as_int().map(|i| i as f64)))
            .collect::<Option<_>>()?,
    };
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
    let mode = attrs
        .get_str("coordinate_transformation_mode")
        .unwrap_or("half_pixel");
    let roi = match roi.as_slice() {
        [a, b, c, d] => [(*a, *c), (*b, *d)],
        _ => return None,
    };
    if mode != "tf_crop_and_resize" && roi.iter().any(|&(a, b)| a != 0.0 || b != 0.0) {
        return None;
    }
    let m = Method {
        method: attrs.get_str("method").unwrap_or("linear"),
        mode,
        rounding: match attrs.get_str("rounding_method").unwrap_or("") {
            "" if mode == "align_corners" => "round",
            "" => "floor",
            r => r,
        },
        alpha: attrs.get_float("cubic_alpha").unwrap_or(-0.5),
        exclude: attrs.get_int("cubic_exclude").unwrap_or(0) != 0,
    };
    let extrapolation = attrs.get_float("extrapolation_value").unwrap_or(0.0);
    let (ry, rx) = (m.taps(oh, h, roi[0])?, m.taps(ow, w, roi[1])?);
    let sample = |plane: &[f64]| -> Vec<f64> {
        let mut out = Vec::with_capacity(oh * ow);
        for ty in &ry {
            for tx in &rx {
                let (Some(ty), Some(tx)) = (ty, tx) else {
                    out.push(extrapolation);
                    continue;
                };
                let mut acc = 0.0;
                for &(y, wy) in ty {
                    let mut row = 0.0;
                    for &(xx, wx) in tx {
                        row += plane[y * w + xx] * wx;
                    }
                    acc += row * wy;
                }
                out.push(acc);
            }
        }
        out
    };
    let method = m.method;
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

/// `nn.upsampling(x, scale_h, scale_w)`: TVM's `topi.nn.upsampling`, a resize to
/// `round(extent * scale)` with `asymmetric` coordinates (`align_corners` when set) and
/// `nearest_neighbor` or `bilinear` (linear) sampling.
pub(crate) fn upsampling(attrs: &Attrs, x: &Value) -> Option<Value> {
    if attrs.get_str("layout").unwrap_or("NCHW") != "NCHW" || x.ndim() != 4 {
        return None;
    }
    let (h, w) = (x.shape()[2] as f64, x.shape()[3] as f64);
    let size = [
        (h * attrs.get_float("scale_h")?).round() as i64,
        (w * attrs.get_float("scale_w")?).round() as i64,
    ];
    let method = match attrs.get_str("method").unwrap_or("nearest_neighbor") {
        "nearest_neighbor" => "nearest_neighbor",
        "bilinear" => "linear",
        _ => return None,
    };
    let mode = if attrs.get_bool("align_corners").unwrap_or(false) {
        "align_corners"
    } else {
        "asymmetric"
    };
    let r = Attrs::new(
        None,
        vec![
            ("size".into(), AttrValue::ints(&size)),
            ("method".into(), AttrValue::str(method)),
            (
                "coordinate_transformation_mode".into(),
                AttrValue::str(mode),
            ),
            ("rounding_method".into(), AttrValue::str("")),
        ],
    );
    resize2d(&r, x)
}

/// `nn.depth_to_space` (modes `DCR` and `CRD`) and `nn.space_to_depth`, NCHW: a reshape to
/// six axes, a transpose, and a reshape back.
pub(crate) fn depth_space(op: &str, attrs: &Attrs, x: &Value) -> Option<Value> {
    if attrs.get_str("layout").unwrap_or("NCHW") != "NCHW" {
        return None;
    }
    let &[n, c, h, w] = x.shape() else {
        return None;
    };
    let b = usize::try_from(attrs.get_int("block_size")?)
        .ok()
        .filter(|&b| b > 0)?;
    let (six, perm, out): ([usize; 6], [usize; 6], [usize; 4]) = if op == "nn.depth_to_space" {
        if c % (b * b) != 0 {
            return None;
        }
        let oc = c / (b * b);
        if attrs.get_str("mode").unwrap_or("DCR") == "CRD" {
            (
                [n, oc, b, b, h, w],
                [0, 1, 4, 2, 5, 3],
                [n, oc, h * b, w * b],
            )
        } else {
            (
                [n, b, b, oc, h, w],
                [0, 3, 4, 1, 5, 2],
                [n, oc, h * b, w * b],
            )
        }
    } else {
        if h % b != 0 || w % b != 0 {
            return None;
        }
        (
            [n, c, h / b, b, w / b, b],
            [0, 3, 5, 1, 2, 4],
            [n, c * b * b, h / b, w / b],
        )
    };
    Value::new(
        x.dtype,
        super::value::each!(&x.arr, a => a
            .as_standard_layout()
            .into_owned()
            .into_shape_with_order(IxDyn(&six))
            .ok()?
            .permuted_axes(IxDyn(&perm))
            .as_standard_layout()
            .into_owned()
            .into_shape_with_order(IxDyn(&out))
            .ok()?),
    )
}

/// `nn.upsampling3d(x, scale_d, scale_h, scale_w)` in NCDHW: TVM's `topi.nn.upsampling3d`, a
/// resize to `round(extent * scale)` on each of D, H and W with the call's
/// `coordinate_transformation_mode` and `nearest_neighbor` or `trilinear` sampling (each axis
/// sampled as [`resize2d`] samples one).
pub(crate) fn upsampling3d(attrs: &Attrs, x: &Value) -> Option<Value> {
    if attrs.get_str("layout").unwrap_or("NCDHW") != "NCDHW" {
        return None;
    }
    let &[n, c, d, h, w] = x.shape() else {
        return None;
    };
    if d == 0 || h == 0 || w == 0 {
        return None;
    }
    let scaled = |extent: usize, name: &str| -> Option<usize> {
        usize::try_from((extent as f64 * attrs.get_float(name)?).round() as i64).ok()
    };
    let (od, oh, ow) = (
        scaled(d, "scale_d")?,
        scaled(h, "scale_h")?,
        scaled(w, "scale_w")?,
    );
    super::shape_ops::bounded(&[n, c, od, oh, ow])?;
    let mode = attrs
        .get_str("coordinate_transformation_mode")
        .unwrap_or("half_pixel");
    let method = match attrs.get_str("method").unwrap_or("nearest_neighbor") {
        "nearest_neighbor" => "nearest_neighbor",
        "trilinear" => "linear",
        _ => return None,
    };
    let m = Method {
        method,
        mode,
        rounding: if mode == "align_corners" {
            "round"
        } else {
            "floor"
        },
        alpha: -0.5,
        exclude: false,
    };
    let none = (0.0, 0.0);
    let (td, th, tw) = (
        m.taps(od, d, none)?,
        m.taps(oh, h, none)?,
        m.taps(ow, w, none)?,
    );
    let sample = |cube: &[f64]| -> Option<Vec<f64>> {
        let mut out = Vec::with_capacity(od * oh * ow);
        for tz in &td {
            for ty in &th {
                for tx in &tw {
                    let (tz, ty, tx) = (tz.as_ref()?, ty.as_ref()?, tx.as_ref()?);
                    let mut acc = 0.0;
                    for &(z, wz) in tz {
                        for &(y, wy) in ty {
                            for &(xx, wx) in tx {
                                acc += cube[(z * h + y) * w + xx] * wz * wy * wx;
                            }
                        }
                    }
                    out.push(acc);
                }
            }
        }
        Some(out)
    };
    let cubes = |all: Vec<f64>| -> Option<Vec<f64>> {
        let mut out = Vec::new();
        for cube in all.chunks(d * h * w) {
            out.extend(sample(cube)?);
        }
        Some(out)
    };
    let shape = [n, c, od, oh, ow];
    let arr = match &x.arr {
        Arr::F32(a) => Arr::F32(
            ArrayD::from_shape_vec(
                IxDyn(&shape),
                cubes(a.iter().map(|&v| v as f64).collect())?
                    .into_iter()
                    .map(|v| v as f32)
                    .collect(),
            )
            .ok()?,
        ),
        Arr::F64(a) => Arr::F64(
            ArrayD::from_shape_vec(IxDyn(&shape), cubes(a.iter().copied().collect())?).ok()?,
        ),
        Arr::Int(a) if method == "nearest_neighbor" => Arr::Int(
            ArrayD::from_shape_vec(
                IxDyn(&shape),
                cubes(a.iter().map(|&v| v as f64).collect())?
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
