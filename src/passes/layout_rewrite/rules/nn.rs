//! Layout rules of the `nn` and `image` ops (TVM's `ConvInferCorrectLayout`,
//! `DeformableConvInferCorrectLayout`, `PoolInferCorrectLayout`, `ResizeInferCorrectLayout`,
//! `BatchNormInferCorrectLayout`, `NormalizationInferCorrectLayout`,
//! `L2NormalizeInferCorrectLayout`, `PadInferCorrectLayout`, `DenseInferCorrectLayout`,
//! `DensePackInferCorrectLayout`), and passlab's rule for
//! `nn.bias_add`.

use super::{layout_attr, norm_axis, Args, Inferred, Layout, Ls};
use crate::ir::AttrValue;
use smallvec::smallvec;

/// Every convolution (`nn.conv*d`, the transposed ones, `contrib_conv2d_NCHWc`): the layouts
/// its attributes name; the inputs' layouts do not matter.
pub(super) fn conv(a: &Args<'_>) -> Option<Inferred> {
    let data = layout_attr(a.attrs, "data_layout")?;
    let out = match a.attrs.get_str("out_layout") {
        Some("") | None => data,
        Some(o) => Layout::parse(o)?,
    };
    Some(Inferred::one(
        smallvec![Some(data), layout_attr(a.attrs, "kernel_layout")],
        Some(out),
        a.attrs.clone(),
    ))
}

/// `nn.deformable_conv2d`: the offset has the data's layout.
pub(super) fn deformable_conv(a: &Args<'_>) -> Option<Inferred> {
    let data = layout_attr(a.attrs, "data_layout")?;
    let out = match a.attrs.get_str("out_layout") {
        Some("") | None => data,
        Some(o) => Layout::parse(o)?,
    };
    Some(Inferred::one(
        smallvec![
            Some(data),
            Some(data),
            layout_attr(a.attrs, "kernel_layout")
        ],
        Some(out),
        a.attrs.clone(),
    ))
}

/// Pools: the `layout` attribute follows the input unless `out_layout` is given.
pub(super) fn pool(a: &Args<'_>) -> Option<Inferred> {
    let mut attrs = a.attrs.clone();
    let out_layout = attrs.get_str("out_layout").unwrap_or("");
    if out_layout.is_empty() {
        if let Some(n) = a.new0() {
            attrs = attrs.with("layout", AttrValue::str(&n.to_string()));
        }
    }
    let l = layout_attr(&attrs, "layout")?;
    Some(Inferred::one(smallvec![Some(l)], Some(l), attrs))
}

/// `image.resize1d/2d`: follows a new input layout of the same rank when the attribute
/// still names the original one.
pub(super) fn resize(a: &Args<'_>) -> Option<Inferred> {
    let mut attrs = a.attrs.clone();
    if let (Some(new), Some(old)) = (a.new0(), a.old0()) {
        let raw = layout_attr(a.attrs, "layout");
        if new != old && raw == Some(old) && new.ndim() == old.ndim() {
            attrs = attrs.with("layout", AttrValue::str(&new.to_string()));
        }
    }
    let l = layout_attr(&attrs, "layout")?;
    Some(Inferred::one(smallvec![Some(l)], Some(l), attrs))
}

/// `nn.bias_add`: the `axis` attribute follows the channel axis (passlab's rule: TVM rewrites
/// bias_add with CanonicalizeOps before ConvertLayout instead).
pub(super) fn bias_add(a: &Args<'_>) -> Option<Inferred> {
    let axis = norm_axis(a.attrs.get_int("axis").unwrap_or(1), a.rank(0)?)?;
    let old = a.old0()?;
    let name = old.axis_name(axis)?;
    let (data, attrs) = match a.new_in {
        Some(_) => {
            let data = a.new0()?;
            let new_axis = data.index_of(name)?;
            (data, a.attrs.with("axis", AttrValue::int(new_axis as i64)))
        }
        None => (old, a.attrs.clone()),
    };
    let bias = data.sub_layout(data.index_of(name)?, 1);
    Some(Inferred::one(
        smallvec![Some(data), Some(bias)],
        Some(data),
        attrs,
    ))
}

/// The data layout of a norm whose `axis` attribute names the channel: the new input layout,
/// with the attribute moved to where the channel went.
fn follow_axis(a: &Args<'_>) -> Option<(Layout, crate::ir::Attrs)> {
    let rank = a.rank(0)?;
    let axis = norm_axis(a.attrs.get_int("axis").unwrap_or(1), rank)?;
    let old = a.old0()?;
    match a.new_in {
        Some(_) => {
            let new = a.new0()?;
            let index = new.index_of(old.axis_name(axis)?)?;
            Some((new, a.attrs.with("axis", AttrValue::int(index as i64))))
        }
        None => Some((old, a.attrs.clone())),
    }
}

/// `nn.batch_norm`: data and result follow the input; gamma, beta, the means and variances
/// (inputs 2-5, outputs 2-3) are `C`.
pub(super) fn batch_norm(a: &Args<'_>) -> Option<Inferred> {
    let (ret, attrs) = follow_axis(a)?;
    let c = Layout::parse("C");
    Some(Inferred {
        inputs: smallvec![Some(ret), c, c, c, c],
        outputs: smallvec![Some(ret), c, c],
        attrs,
    })
}

/// `nn.layer_norm` and `nn.instance_norm`: data and result follow the input, gamma and beta
/// are `C`.
pub(super) fn normalization(a: &Args<'_>) -> Option<Inferred> {
    let (ret, attrs) = follow_axis(a)?;
    let c = Layout::parse("C");
    Some(Inferred::one(smallvec![Some(ret), c, c], Some(ret), attrs))
}

/// `nn.l2_normalize`: follows the input, its `axis` list moved with the axes.
pub(super) fn l2_normalize(a: &Args<'_>) -> Option<Inferred> {
    let rank = a.rank(0)?;
    let old = a.old0()?;
    let (ret, attrs) = match a.new_in {
        Some(_) => {
            let new = a.new0()?;
            let axes = a.attrs.get_ints("axis").unwrap_or_default();
            let moved = axes
                .iter()
                .map(|&x| {
                    let i = norm_axis(x, rank)?;
                    Some(new.index_of(old.axis_name(i)?)? as i64)
                })
                .collect::<Option<Vec<i64>>>()?;
            let value = super::ints_like(a.attrs.get("axis"), &moved);
            (new, a.attrs.with("axis", value))
        }
        None => (old, a.attrs.clone()),
    };
    Some(Inferred::one(smallvec![Some(ret)], Some(ret), attrs))
}

/// `nn.pad`: follows a new input layout, `pad_width` reordered with the axes, unless an axis
/// the new layout splits (`C` of `NCHW16c`) is padded; the pad value is a scalar.
pub(super) fn pad(a: &Args<'_>) -> Option<Inferred> {
    let scalar = Layout::parse("");
    let mut attrs = a.attrs.clone();
    let mut ret = a.old0();
    if let (Some(new), Some(old)) = (a.new0(), a.old0()) {
        let widths = a.attrs.get("pad_width")?.as_array()?;
        let width_of = |c: char| -> Option<&AttrValue> { widths.get(old.index_of(c)?) };
        let mut new_widths = Vec::with_capacity(new.ndim());
        let mut modified = true;
        for i in 0..new.ndim() {
            let name = new.axis_name(i)?;
            if name.is_ascii_uppercase() {
                new_widths.push(width_of(name)?.clone());
            } else {
                let w = width_of(name.to_ascii_uppercase())?;
                new_widths.push(w.clone());
                let zero = w
                    .as_array()
                    .is_some_and(|p| p.iter().all(|x| x.as_int() == Some(0)));
                modified &= zero;
            }
        }
        if modified {
            ret = Some(new);
            attrs = attrs.with("pad_width", AttrValue::Array(new_widths.into()));
        }
    }
    let inputs: Ls = match a.old_in.len() {
        1 => smallvec![ret],
        _ => smallvec![ret, scalar],
    };
    Some(Inferred::one(inputs, ret, attrs))
}

/// `vision.roi_align` and `vision.roi_pool` (TVM's `ROIAlignInferCorrectLayout`,
/// `ROIPoolInferCorrectLayout`): the data and the result in the `layout` attribute, the rois
/// (a `[num_roi, 5]` tensor) in a layout no conversion touches (TVM's `N5`, which its layout
/// parser reads as the one axis `N`).
pub(super) fn roi(a: &Args<'_>) -> Option<Inferred> {
    let data = layout_attr(a.attrs, "layout")?;
    Some(Inferred::one(
        smallvec![Some(data), Layout::parse("N")],
        Some(data),
        a.attrs.clone(),
    ))
}

/// `nn.upsampling` and `nn.upsampling3d` (TVM's `UpsamplingInferCorrectLayout`): the `layout`
/// attribute follows a new input layout that keeps H, W (and D) where they were and does not
/// split them.
pub(super) fn upsampling(a: &Args<'_>) -> Option<Inferred> {
    let mut attrs = a.attrs.clone();
    if let (Some(new), Some(raw)) = (a.new0(), layout_attr(a.attrs, "layout")) {
        let same = |c: char| new.index_of(c) == raw.index_of(c);
        let unsplit = |c: char| new.index_of(c.to_ascii_lowercase()).is_none();
        let depth_ok = new.index_of('D').is_none() || (same('D') && unsplit('D'));
        if same('W') && same('H') && unsplit('W') && unsplit('H') && depth_ok {
            attrs = attrs.with("layout", AttrValue::str(&new.to_string()));
        }
    }
    let l = layout_attr(&attrs, "layout")?;
    Some(Inferred::one(smallvec![Some(l)], Some(l), attrs))
}

/// `nn.dense` and `nn.matmul` (TVM's `DenseInferCorrectLayout`): data and weight `NC`, the
/// result `NC`, whatever the inputs' layouts.
pub(super) fn dense(a: &Args<'_>) -> Option<Inferred> {
    let nc = Layout::parse("NC");
    Some(Inferred::one(smallvec![nc, nc], nc, a.attrs.clone()))
}

/// `nn.contrib_dense_pack` (TVM's `DensePackInferCorrectLayout`): data `NC`, the weight in
/// its `weight_layout` attribute, the result `NC`.
pub(super) fn dense_pack(a: &Args<'_>) -> Option<Inferred> {
    let nc = Layout::parse("NC");
    let weight = layout_attr(a.attrs, "weight_layout")?;
    Some(Inferred::one(
        smallvec![nc, Some(weight)],
        nc,
        a.attrs.clone(),
    ))
}
