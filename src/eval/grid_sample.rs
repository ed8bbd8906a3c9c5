//! Evaluation of `image.grid_sample` in NCHW (TVM's `topi.image.grid_sample`, 2-d): each
//! output position reads `(x, y) = grid[n, :, h, w]` in [-1, 1], unnormalized by
//! `align_corners`, and samples the data there by `nearest` (round half to even),
//! `bilinear` or `bicubic` (Keys' kernel with `A = -0.75`, 4x4 taps), with `zeros`, `border`
//! or `reflection` padding. As in TVM, bicubic clamps or reflects each tap, the other methods
//! the source coordinate. Computed in `f64`, rounded once to the dtype. The 3-d form
//! (NCDHW) is typed but not evaluated.

use super::value::{Arr, Value};
use crate::ir::Attrs;
use ndarray::{ArrayD, IxDyn};

struct Sampler<'a> {
    data: &'a [f64],
    h: usize,
    w: usize,
    align: bool,
    padding: &'a str,
}

impl Sampler<'_> {
    /// The pixel at (y, x) of the plane, 0 outside it.
    fn pixel(&self, y: i64, x: i64) -> f64 {
        if y >= 0 && x >= 0 && (y as usize) < self.h && (x as usize) < self.w {
            self.data[y as usize * self.w + x as usize]
        } else {
            0.0
        }
    }

    fn unnormalize(&self, v: f64, size: usize) -> f64 {
        let s = size as f64;
        if self.align {
            (v + 1.0) * (s - 1.0) / 2.0
        } else {
            -0.5 + (v + 1.0) * s / 2.0
        }
    }

    /// TVM's `_reflect_coordinates`.
    fn reflect(&self, x: f64, size: usize) -> f64 {
        let (size, corner) = if self.align {
            (size as f64 - 1.0, 0.0)
        } else {
            (size as f64, -0.5)
        };
        if x >= corner && x <= size + corner {
            return x;
        }
        let idx = (corner - x).abs();
        let times = ((idx as i32) as f64 / size).trunc();
        let extra = idx - times * size;
        if (times as i64) % 2 == 0 {
            extra + corner
        } else {
            size - extra + corner
        }
    }

    fn clip(x: f64, size: usize) -> f64 {
        x.max(0.0).min(size as f64 - 1.0)
    }

    /// A source coordinate after the padding mode (nearest and bilinear).
    fn source(&self, v: f64, size: usize) -> f64 {
        let c = self.unnormalize(v, size);
        match self.padding {
            "reflection" => Self::clip(self.reflect(c, size), size),
            "border" => Self::clip(c, size),
            _ => c,
        }
    }

    /// A bicubic tap index after the padding mode.
    fn tap(&self, i: i64, size: usize) -> i64 {
        match self.padding {
            "border" => Self::clip(i as f64, size) as i64,
            "reflection" => Self::clip(self.reflect(i as f64, size), size) as i64,
            _ => i,
        }
    }

    fn sample(&self, method: &str, gx: f64, gy: f64) -> f64 {
        match method {
            "nearest" => {
                let (y, x) = (self.source(gy, self.h), self.source(gx, self.w));
                self.pixel(y.round_ties_even() as i64, x.round_ties_even() as i64)
            }
            "bilinear" => {
                let (y, x) = (self.source(gy, self.h), self.source(gx, self.w));
                let (y0, x0) = (y.floor(), x.floor());
                let (dy, dx) = (y - y0, x - x0);
                let (y0, x0) = (y0 as i64, x0 as i64);
                self.pixel(y0, x0) * (1.0 - dy) * (1.0 - dx)
                    + self.pixel(y0, x0 + 1) * (1.0 - dy) * dx
                    + self.pixel(y0 + 1, x0) * dy * (1.0 - dx)
                    + self.pixel(y0 + 1, x0 + 1) * dy * dx
            }
            _ => {
                let (y, x) = (self.unnormalize(gy, self.h), self.unnormalize(gx, self.w));
                let (yf, xf) = (y.floor(), x.floor());
                let (wy, wx) = (cubic(y - yf), cubic(x - xf));
                let (yf, xf) = (yf as i64, xf as i64);
                let mut acc = 0.0;
                for (i, wyi) in wy.iter().enumerate() {
                    let yy = self.tap(yf - 1 + i as i64, self.h);
                    let mut row = 0.0;
                    for (j, wxj) in wx.iter().enumerate() {
                        row += self.pixel(yy, self.tap(xf - 1 + j as i64, self.w)) * wxj;
                    }
                    acc += row * wyi;
                }
                acc
            }
        }
    }
}

/// The four bicubic weights at fraction `t` (TVM's `cubic_weight_2`, `cubic_weight_1`).
fn cubic(t: f64) -> [f64; 4] {
    const A: f64 = -0.75;
    let near = |f: f64| ((A + 2.0) * f - (A + 3.0)) * f * f + 1.0;
    let far = |f: f64| ((A * f - 5.0 * A) * f + 8.0 * A) * f - 4.0 * A;
    [far(t + 1.0), near(t), near(1.0 - t), far(2.0 - t)]
}

/// `image.grid_sample(data, grid)`, 2-d, NCHW.
pub(crate) fn grid_sample(attrs: &Attrs, data: &Value, grid: &Value) -> Option<Value> {
    if attrs.get_str("layout").unwrap_or("NCHW") != "NCHW" {
        return None;
    }
    let method = attrs.get_str("method").unwrap_or("bilinear");
    let padding = attrs.get_str("padding_mode").unwrap_or("zeros");
    if !matches!(method, "nearest" | "bilinear" | "bicubic")
        || !matches!(padding, "zeros" | "border" | "reflection")
    {
        return None;
    }
    let &[n, c, h, w] = data.shape() else {
        return None;
    };
    let &[gn, 2, oh, ow] = grid.shape() else {
        return None;
    };
    if gn != n || h == 0 || w == 0 {
        return None;
    }
    super::shape_ops::bounded(&[n, c, oh, ow])?;
    let f64s = |v: &Value| -> Option<Vec<f64>> {
        Some(match &v.arr {
            Arr::F32(a) => a.iter().map(|&x| x as f64).collect(),
            Arr::F64(a) => a.iter().copied().collect(),
            Arr::Int(_) => return None,
        })
    };
    let (d, g) = (f64s(data)?, f64s(grid)?);
    let align = attrs.get_bool("align_corners").unwrap_or(true);
    let mut out = Vec::with_capacity(n * c * oh * ow);
    for b in 0..n {
        let gb = &g[b * 2 * oh * ow..(b + 1) * 2 * oh * ow];
        for ch in 0..c {
            let plane = (b * c + ch) * h * w;
            let s = Sampler {
                data: &d[plane..plane + h * w],
                h,
                w,
                align,
                padding,
            };
            for i in 0..oh * ow {
                out.push(s.sample(method, gb[i], gb[oh * ow + i]));
            }
        }
    }
    let shape = IxDyn(&[n, c, oh, ow]);
    let arr = match &data.arr {
        Arr::F32(_) => Arr::F32(
            ArrayD::from_shape_vec(shape, out.into_iter().map(|v| v as f32).collect()).ok()?,
        ),
        _ => Arr::F64(ArrayD::from_shape_vec(shape, out).ok()?),
    };
    Value::new(data.dtype, arr)
}
