//! Pooling and resampling rules (`src/relay/op/nn/pooling.cc`, `upsampling.cc`,
//! `image/resize.cc`): max/avg pooling in 1-3 d, global and adaptive pooling, upsampling and
//! resize2d. Spatial axes are located through the `layout` attribute, so `NHWC` or
//! `NCHW16c` data work; a layout that splits a spatial axis (`NCHW4h`) is rejected as in TVM.
//! The result stays in the input layout (TVM ignores `out_layout` when typing).

use super::{dim_map, floordiv, Layout, Rel, RuleResult};
use crate::ir::Dim;

fn spatial(op: &str) -> (&'static str, &'static str) {
    if op.contains("1d") {
        ("W", "NCW")
    } else if op.contains("3d") {
        ("DHW", "NCDHW")
    } else {
        ("HW", "NCHW")
    }
}

/// Indices of the spatial axes in the data layout.
pub(super) fn spatial_indices(
    r: &Rel<'_>,
    sp: &str,
    default: &'static str,
    rank: usize,
) -> Result<Vec<usize>, String> {
    let layout: Layout = r.layout("layout", default)?;
    if layout.len() != rank {
        return r.fail(format!(
            "the data has rank {rank} but the layout is {layout}"
        ));
    }
    sp.chars()
        .map(|c| match (layout.index_of(c), layout.factor_of(c)) {
            (Some(i), None) => Ok(i),
            _ => r.fail(format!(
                "layout {layout} must have {sp} axes that are not split"
            )),
        })
        .collect()
}

fn per_axis(r: &Rel<'_>, name: &str, n: usize, default: Option<i64>) -> Result<Vec<i64>, String> {
    match (r.opt_ints(name)?, default) {
        (None, Some(d)) => Ok(vec![d; n]),
        (None, None) => r.fail(format!("needs the attribute `{name}`")),
        (Some(v), _) if v.len() == n => Ok(v),
        (Some(v), _) if v.len() == 1 => Ok(vec![v[0]; n]),
        (Some(v), _) => r.fail(format!(
            "attribute `{name}` needs {n} values, found {}",
            v.len()
        )),
    }
}

/// `nn.{max,avg}_pool{1,2,3}d` (`Pool2DRel` and siblings).
pub(super) fn pool(r: &mut Rel<'_>) -> RuleResult {
    let Some(data) = r.tensor(0)? else {
        return Ok(false);
    };
    let (sp, default) = spatial(r.op);
    let n = sp.len();
    let idx = spatial_indices(r, sp, default, data.shape.len())?;
    let pool = per_axis(r, "pool_size", n, None)?;
    let strides = per_axis(r, "strides", n, Some(1))?;
    let dilation = per_axis(r, "dilation", n, Some(1))?;
    let p = r.opt_ints("padding")?.unwrap_or_else(|| vec![0]);
    let pad: Vec<i64> = if p.len() == 1 {
        vec![2 * p[0]; n]
    } else if p.len() == n {
        p.iter().map(|x| 2 * x).collect()
    } else if p.len() == 2 * n {
        (0..n).map(|i| p[i] + p[i + n]).collect()
    } else {
        return r.fail(format!(
            "attribute `padding` has {} values; expected 1, {n} or {}",
            p.len(),
            2 * n
        ));
    };
    let ceil = r.bool_or("ceil_mode", false);
    let mut out = data.shape.clone();
    for i in 0..n {
        let k = (pool[i] - 1) * dilation[i] + 1;
        let extra = if ceil { strides[i] - 1 } else { 0 };
        out[idx[i]] = dim_map(&data.shape[idx[i]], |x| {
            floordiv(x + pad[i] - k + extra, strides[i]) + 1
        });
    }
    r.done_tensor(out, data.dtype)
}

/// `nn.global_{max,avg}_pool2d`: H and W become 1.
pub(super) fn global_pool2d(r: &mut Rel<'_>) -> RuleResult {
    let Some(data) = r.tensor(0)? else {
        return Ok(false);
    };
    let idx = spatial_indices(r, "HW", "NCHW", data.shape.len())?;
    let mut out = data.shape.clone();
    for i in idx {
        out[i] = Dim::Static(1);
    }
    r.done_tensor(out, data.dtype)
}

/// `nn.adaptive_{max,avg}_pool{1,2,3}d`: spatial extents from `output_size` (one value for
/// all axes, or one per axis; empty keeps the input extents, as TVM does).
pub(super) fn adaptive_pool(r: &mut Rel<'_>) -> RuleResult {
    let Some(data) = r.tensor(0)? else {
        return Ok(false);
    };
    let (sp, default) = spatial(r.op);
    let idx = spatial_indices(r, sp, default, data.shape.len())?;
    let size = r.dims("output_size")?.unwrap_or_default();
    let mut out = data.shape.clone();
    match size.len() {
        0 => {}
        1 => idx.iter().for_each(|&i| out[i] = size[0].clone()),
        k if k == idx.len() => idx.iter().zip(&size).for_each(|(&i, d)| out[i] = d.clone()),
        k => {
            return r.fail(format!(
                "output_size has {k} values for {} spatial axes",
                idx.len()
            ))
        }
    }
    r.done_tensor(out, data.dtype)
}

/// `nn.upsampling`: H and W scaled by `scale_h`/`scale_w`, rounded.
pub(super) fn upsampling(r: &mut Rel<'_>) -> RuleResult {
    let Some(data) = r.tensor(0)? else {
        return Ok(false);
    };
    let idx = spatial_indices(r, "HW", "NCHW", data.shape.len())?;
    let scales = [r.float("scale_h")?, r.float("scale_w")?];
    let mut out = data.shape.clone();
    for (i, s) in idx.iter().zip(scales) {
        out[*i] = dim_map(&data.shape[*i], |x| (x as f64 * s).round() as i64);
    }
    r.done_tensor(out, data.dtype)
}

/// `image.resize1d/2d/3d` (`Resize1DRel`, `Resize2DRel`, `Resize3DRel`): the spatial axes of
/// `layout` (default `NCW`, `NCHW`, `NCDHW`) from `size`.
pub(super) fn resize2d(r: &mut Rel<'_>) -> RuleResult {
    let Some(data) = r.tensor(0)? else {
        return Ok(false);
    };
    let (sp, default) = match r.op {
        "image.resize1d" => ("W", "NCW"),
        "image.resize3d" => ("DHW", "NCDHW"),
        _ => ("HW", "NCHW"),
    };
    let idx = spatial_indices(r, sp, default, data.shape.len())?;
    let Some(size) = r.dims("size")?.filter(|s| s.len() == sp.len()) else {
        return r.fail(format!("needs `size` with {} values", sp.len()));
    };
    let mut out = data.shape.clone();
    for (i, d) in idx.iter().zip(size) {
        out[*i] = d;
    }
    let dt = r.dtype("out_dtype")?.unwrap_or(data.dtype);
    r.done_tensor(out, dt)
}

/// `GridSampleRel`: the data's batch and channels, the grid's spatial extents (`(N, 2, H, W)`
/// for 4-d data in NCHW, `(N, 3, D, H, W)` for 5-d data in NCDHW).
pub(super) fn grid_sample(r: &mut Rel<'_>) -> RuleResult {
    let (Some(data), Some(grid)) = (r.tensor(0)?, r.tensor(1)?) else {
        return Ok(false);
    };
    let rank = data.shape.len();
    let want = match rank {
        4 => "NCHW",
        5 => "NCDHW",
        _ => return r.fail(format!("needs 4-d or 5-d data, got {data}")),
    };
    if r.str_or("layout", want) != want {
        return r.fail(format!("layout must be {want} for {data}"));
    }
    if grid.shape.len() != rank {
        return r.fail(format!("the grid {grid} must have the data's rank {rank}"));
    }
    let mut out = data.shape[..2].to_vec();
    out.extend(grid.shape[2..].iter().cloned());
    r.done_tensor(out, data.dtype)
}
