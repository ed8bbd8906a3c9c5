//! Layout rules of the tensor ops (TVM's `ReduceInferCorrectLayout`,
//! `TransposeInferCorrectLayout`, `SqueezeInferCorrectLayout`, `SplitInferCorrectLayout`,
//! `StridedSliceInferCorrectLayout`): each follows its input's layout and moves the axes its
//! attributes name to where they went.

use super::{ints_like, norm_axis, Args, Inferred, Layout, Ls};
use crate::ir::AttrValue;
use smallvec::smallvec;

/// The reduced axes (TVM's `GetReduceAxes`): all when `axis` is null, sorted, complemented
/// with `exclude`.
fn reduce_axes(axis: Option<Vec<i64>>, rank: usize, exclude: bool) -> Option<Vec<usize>> {
    let Some(axis) = axis else {
        return Some((0..rank).collect());
    };
    let mut given = axis
        .iter()
        .map(|&x| norm_axis(x, rank))
        .collect::<Option<Vec<usize>>>()?;
    given.sort_unstable();
    given.dedup();
    Some(if exclude {
        (0..rank).filter(|i| !given.contains(i)).collect()
    } else {
        given
    })
}

/// Reductions (sum, mean, max, min, prod, all, variance, argmax, argmin): the reduced axes
/// follow the input layout; a sub-axis of a reduced axis is reduced too (`NCHW8c` reducing
/// `C` reduces axes 1 and 4).
pub(super) fn reduce(a: &Args<'_>) -> Option<Inferred> {
    let rank = a.rank(0)?;
    let exclude = a.attrs.get_bool("exclude").unwrap_or(false);
    let keepdims = a.attrs.get_bool("keepdims").unwrap_or(false);
    let axis = a.attrs.get("axis").filter(|v| !v.is_null());
    let r_axes = reduce_axes(axis.and_then(AttrValue::as_int_list), rank, exclude)?;
    let infer = |layout: Layout| -> Option<(Layout, Layout, Vec<i64>)> {
        let old = a.old0()?;
        let reduced: Vec<char> = r_axes
            .iter()
            .map(|&i| old.axis_name(i))
            .collect::<Option<_>>()?;
        let is_r = |c: char| reduced.contains(&c) != exclude;
        let (mut inl, mut outl, mut new_axes) = (String::new(), String::new(), Vec::new());
        for i in 0..layout.ndim() {
            let name = layout.axis_name(i)?;
            let text = layout.axis_text(i)?;
            inl.push_str(&text);
            if name.is_ascii_uppercase() {
                if is_r(name) {
                    new_axes.push(i as i64);
                }
                if !reduced.contains(&name) || keepdims {
                    outl.push_str(&text);
                }
            } else if is_r(name.to_ascii_uppercase()) {
                new_axes.push(i as i64);
                if exclude {
                    outl.push_str(&text);
                } else if keepdims {
                    outl.push('1');
                    outl.push(name);
                }
            } else {
                outl.push_str(&text);
            }
        }
        // TVM's `Layout("")` is undefined: reducing to a scalar fails the rule, and the
        // call keeps its original layout and axes.
        if outl.is_empty() {
            return None;
        }
        Some((Layout::parse(&inl)?, Layout::parse(&outl)?, new_axes))
    };
    let mut attrs = a.attrs.clone();
    let (inl, outl) = match (a.new0(), a.old0()) {
        (Some(new), Some(_)) if !r_axes.is_empty() => {
            let (i, o, axes) = infer(new)?;
            attrs = attrs.with("axis", ints_like(axis, &axes));
            (i, o)
        }
        (_, Some(old)) => {
            let (i, o, _) = infer(old)?;
            (i, o)
        }
        _ => return None,
    };
    let inputs: Ls = smallvec![Some(inl); a.old_in.len().min(2)];
    Some(Inferred::one(inputs, Some(outl), attrs))
}

/// `transpose`: the permutation moves with the input layout when every axis can be found in
/// it; the result's layout is the permuted input layout.
pub(super) fn transpose(a: &Args<'_>) -> Option<Inferred> {
    let old = a.old0()?;
    let n = old.ndim();
    let old_axes: Vec<usize> = match a.attrs.get_ints("axes").filter(|v| !v.is_empty()) {
        None => (0..n).rev().collect(),
        Some(v) => v.iter().map(|&x| norm_axis(x, n)).collect::<Option<_>>()?,
    };
    let mut chosen = None;
    if let Some(new) = a.new0() {
        let moved: Option<Vec<usize>> = old_axes
            .iter()
            .map(|&x| new.index_of(old.axis_name(x)?))
            .collect();
        if let Some(moved) = moved.filter(|m| m.len() == new.ndim()) {
            chosen = Some((new, moved));
        }
    }
    let (inl, axes) = chosen.unwrap_or((old, old_axes));
    let out: String = axes
        .iter()
        .map(|&i| inl.axis_text(i))
        .collect::<Option<_>>()?;
    let outl = Layout::parse(&out)?;
    let as_i64: Vec<i64> = axes.iter().map(|&x| x as i64).collect();
    let attrs = a
        .attrs
        .with("axes", ints_like(a.attrs.get("axes"), &as_i64));
    Some(Inferred::one(smallvec![Some(inl)], Some(outl), attrs))
}

/// `squeeze`: follows the input; the squeezed axes move with it.
pub(super) fn squeeze(a: &Args<'_>) -> Option<Inferred> {
    let input = match a.new_in {
        Some(_) => a.new0()?,
        None => a.old0()?,
    };
    let rank = a.rank(0)?;
    let given = a.attrs.get("axis").filter(|v| !v.is_null());
    let mut axes: Vec<usize> = match given.and_then(AttrValue::as_int_list) {
        Some(v) => v
            .iter()
            .map(|&x| norm_axis(x, rank))
            .collect::<Option<_>>()?,
        None => {
            let shape = a.shape(0)?;
            (0..rank).filter(|&i| shape[i] == Some(1)).collect()
        }
    };
    let mut attrs = a.attrs.clone();
    if let (Some(new), Some(old)) = (a.new_in.and(a.new0()), a.old0()) {
        axes = axes
            .iter()
            .map(|&x| new.index_of(old.axis_name(x)?))
            .collect::<Option<_>>()?;
        let as_i64: Vec<i64> = axes.iter().map(|&x| x as i64).collect();
        attrs = attrs.with("axis", ints_like(given, &as_i64));
    }
    let kept = (0..input.ndim()).filter(|i| !axes.contains(i));
    let out = input.select(kept)?;
    Some(Inferred::one(smallvec![Some(input)], Some(out), attrs))
}

/// `split`: follows the input; the axis moves with it, split indices are divided by the
/// sub-axis factor (when they all divide; else the original layout is kept).
pub(super) fn split(a: &Args<'_>) -> Option<Inferred> {
    let rank = a.rank(0)?;
    let axis = norm_axis(a.attrs.get_int("axis").unwrap_or(0), rank)?;
    let ios = a.attrs.get("indices_or_sections")?;
    let size = match ios {
        AttrValue::Int(n, _) => usize::try_from(*n).ok()?,
        other => other.as_array()?.len() + 1,
    };
    let old = a.old0()?;
    let mut attrs = a.attrs.clone();
    let ret = match a.new0() {
        Some(new) => {
            let dim = old.axis_name(axis)?;
            let mut divisible = true;
            attrs = attrs.with("axis", AttrValue::int(new.index_of(dim)? as i64));
            if let (Some(f), AttrValue::Array(items)) = (new.factor_of(dim), ios) {
                let f = i64::from(f);
                let mut divided = Vec::with_capacity(items.len());
                for v in items.iter() {
                    let v = v.as_int()?;
                    divisible &= v % f == 0;
                    divided.push(v / f);
                }
                if divisible {
                    attrs = attrs.with("indices_or_sections", ints_like(Some(ios), &divided));
                }
            }
            if divisible {
                new
            } else {
                old
            }
        }
        None => old,
    };
    Some(Inferred {
        inputs: smallvec![Some(ret)],
        outputs: smallvec![Some(ret); size],
        attrs,
    })
}

/// `strided_slice`: a slice of a permuted layout (NHWC -> NCHW) reorders `begin`, `end` and
/// `strides` (or `axes`); a slice of a blocked layout (NCHW -> NCHW4c) divides the bounds of
/// the split axis by its factor when they divide and the stride is 1. Otherwise the slice
/// keeps its original layout.
pub(super) fn strided_slice(a: &Args<'_>) -> Option<Inferred> {
    let layout = a.old0()?;
    let keep = || {
        Some(Inferred::one(
            smallvec![Some(layout)],
            Some(layout),
            a.attrs.clone(),
        ))
    };
    let Some(new) = a.new_in.and(a.new0()) else {
        return keep();
    };
    let ints = |n: &str| a.attrs.get_ints(n);
    let (begin, end) = (ints("begin")?, ints("end")?);
    let size_mode = a.attrs.get_str("slice_mode") == Some("size");
    let strides: Vec<i64> = match ints("strides") {
        Some(s) if size_mode => vec![1; s.len()],
        Some(s) => s,
        None => vec![],
    };
    let axes = a.attrs.get("axes").filter(|v| !v.is_null());
    let axes = axes.map(|v| v.as_int_list()).map(|v| v.unwrap_or_default());
    let shape = a.shape(0)?;
    let (old_name, new_name) = (layout.to_string(), new.to_string());
    let mut attrs = a.attrs.clone();
    let like = |n: &str| a.attrs.get(n);
    let (mut nb, mut ne, mut ns) = (Vec::new(), Vec::new(), Vec::new());
    if !old_name.starts_with(&new_name) && !new_name.starts_with(&old_name) {
        if old_name.len() != new_name.len() {
            return None;
        }
        match &axes {
            Some(axes) => {
                let mut new_axes = Vec::with_capacity(axes.len());
                for &x in axes {
                    let i = norm_axis(x, layout.ndim())?;
                    new_axes.push(new.index_of(layout.axis_name(i)?)? as i64);
                }
                attrs = attrs.with("axes", ints_like(like("axes"), &new_axes));
                return Some(Inferred::one(smallvec![Some(new)], Some(new), attrs));
            }
            None => {
                for i in 0..new.ndim() {
                    let j = layout.index_of(new.axis_name(i)?)?;
                    ns.push(strides.get(j).copied().unwrap_or(1));
                    nb.push(begin.get(j).copied().unwrap_or(0));
                    ne.push(match end.get(j) {
                        Some(&e) => e,
                        None => shape.get(j).copied().flatten()?,
                    });
                }
                attrs = attrs.with("strides", ints_like(like("strides"), &ns));
            }
        }
    } else if old_name.len() < new_name.len() {
        let bounds = |i: usize, k: usize, nb: &mut Vec<i64>, ne: &mut Vec<i64>| -> Option<()> {
            let name = layout.axis_name(k)?;
            if !name.is_ascii_uppercase() {
                return None;
            }
            let Some(f) = new.factor_of(name).map(i64::from) else {
                nb.push(begin.get(i).copied().unwrap_or(0));
                ne.push(
                    end.get(i)
                        .copied()
                        .unwrap_or(shape.get(k).copied().flatten()?),
                );
                return Some(());
            };
            if strides.get(i).is_some_and(|&s| s != 1) {
                return None;
            }
            let bg = begin.get(i).copied().unwrap_or(0);
            let ed = match end.get(i) {
                None => shape.get(k).copied().flatten()?,
                Some(&e) if size_mode && e < 0 => shape.get(k).copied().flatten()?,
                Some(&e) if size_mode => bg + e,
                Some(&e) => e,
            };
            if bg % f != 0 || ed % f != 0 {
                return None;
            }
            nb.push(bg / f);
            ne.push(ed / f);
            Some(())
        };
        match &axes {
            Some(axes) => {
                let mut new_axes = Vec::with_capacity(axes.len());
                for (i, &x) in axes.iter().enumerate() {
                    let k = norm_axis(x, layout.ndim())?;
                    new_axes.push(new.index_of(layout.axis_name(k)?)? as i64);
                    bounds(i, k, &mut nb, &mut ne)?;
                }
                attrs = attrs.with("axes", ints_like(like("axes"), &new_axes));
            }
            None => {
                for i in 0..begin.len() {
                    bounds(i, i, &mut nb, &mut ne)?;
                }
            }
        }
    } else {
        return keep();
    }
    attrs = attrs
        .with("begin", ints_like(like("begin"), &nb))
        .with("end", ints_like(like("end"), &ne));
    Some(Inferred::one(smallvec![Some(new)], Some(new), attrs))
}

/// `topk`: follows the input, its axis moved with it; both results (values and indices) have
/// the input's layout.
pub(super) fn topk(a: &Args<'_>) -> Option<Inferred> {
    let axis = norm_axis(a.attrs.get_int("axis").unwrap_or(-1), a.rank(0)?)?;
    let old = a.old0()?;
    let (ret, attrs) = match a.new0() {
        Some(new) => {
            let index = new.index_of(old.axis_name(axis)?)?;
            (new, a.attrs.with("axis", AttrValue::int(index as i64)))
        }
        None => (old, a.attrs.clone()),
    };
    Some(Inferred {
        inputs: smallvec![Some(ret)],
        outputs: smallvec![Some(ret), Some(ret)],
        attrs,
    })
}

/// `slice_like` (TVM's `SliceLikeInferCorrectLayout`): when both inputs have the same new
/// layout, the `axes` follow it; otherwise both inputs keep their original layouts (and an
/// input without one makes the rule fail, so the call is not rewritten).
pub(super) fn slice_like(a: &Args<'_>) -> Option<Inferred> {
    if let Some(new_in) = a.new_in {
        let (new0, new1) = (new_in.first().copied()?, new_in.get(1).copied()?);
        let (old0, old1) = (a.old0(), a.old_in.get(1).copied()?);
        if new0.is_some() && new0 == new1 && old0.is_some() && old0 == old1 {
            let (new, old) = (new0?, old0?);
            let rank = a.rank(0)?;
            let moved = a
                .attrs
                .get_ints("axes")
                .unwrap_or_default()
                .iter()
                .map(|&x| Some(new.index_of(old.axis_name(norm_axis(x, rank)?)?)? as i64))
                .collect::<Option<Vec<i64>>>();
            if let Some(moved) = moved.filter(|m| !m.is_empty()) {
                let axes = ints_like(a.attrs.get("axes"), &moved);
                return Some(Inferred::one(
                    smallvec![Some(new), Some(new)],
                    Some(new),
                    a.attrs.with("axes", axes),
                ));
            }
        }
    }
    let (old0, old1) = (a.old0(), a.old_in.get(1).copied()?);
    Some(Inferred::one(smallvec![old0, old1], old1, a.attrs.clone()))
}
