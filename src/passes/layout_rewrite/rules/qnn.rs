//! Layout rules of the QNN ops (TVM's `QnnConvInferCorrectLayout`,
//! `QnnConvTransposeInferCorrectLayout`, `QnnAvgPoolInferCorrectLayout`,
//! `QnnBinaryBroadcastLayout`, `QnnConcatenateLayout`, `RequantizeInferCorrectLayout`,
//! `QnnDenseInferCorrectLayout`): the data tensors follow the rule of the float op, and every
//! scale and zero point is `C` (`N` for qnn.dense, as TVM writes it: they are scalars or
//! per-channel vectors that no layout change touches).

use super::{norm_axis, Args, Inferred, Layout, Ls};
use crate::ir::AttrValue;
use smallvec::smallvec;

fn channel() -> Option<Layout> {
    Layout::parse("C")
}

/// `out` with its inputs cut to the first `data` and `extra` `C` layouts after them.
fn with_channels(mut out: Inferred, data: usize, extra: usize) -> Inferred {
    out.inputs.truncate(data);
    out.inputs.extend(std::iter::repeat_n(channel(), extra));
    out
}

/// The arguments of the float op: the first `n` inputs only.
fn data_args<'a>(a: &Args<'a>, n: usize, new_in: Option<&'a [super::L]>) -> Args<'a> {
    Args {
        attrs: a.attrs,
        new_in: new_in.map(|l| &l[..n.min(l.len())]),
        old_in: &a.old_in[..n.min(a.old_in.len())],
        types: &a.types[..n.min(a.types.len())],
    }
}

/// `qnn.conv2d` and `qnn.conv2d_transpose`: the convolution's rule for data and weight; the
/// zero points and scales (inputs 3-6) are `C`.
pub(super) fn conv(a: &Args<'_>) -> Option<Inferred> {
    let out = super::nn::conv(&data_args(a, 2, a.new_in))?;
    Some(with_channels(out, 2, a.old_in.len().checked_sub(2)?))
}

/// `qnn.avg_pool2d`: the pool's rule for the data; the scales and zero points are `C`.
pub(super) fn avg_pool2d(a: &Args<'_>) -> Option<Inferred> {
    let out = super::nn::pool(&data_args(a, 1, a.new_in))?;
    Some(with_channels(out, 1, a.old_in.len().checked_sub(1)?))
}

/// `qnn.add`, `qnn.mul`, `qnn.subtract`: the broadcast rule for the two operands; the six
/// scales and zero points are `C`.
pub(super) fn binary(a: &Args<'_>) -> Option<Inferred> {
    let new_in = a.new_in.map(|l| &l[..2.min(l.len())]);
    let old_in = &a.old_in[..2.min(a.old_in.len())];
    let types = &a.types[..2.min(a.types.len())];
    let out = super::broadcast(a.attrs, new_in, old_in, types)?;
    Some(with_channels(out, 2, a.old_in.len().checked_sub(2)?))
}

/// `qnn.concatenate(data, scales, zero_points, scale, zero_point)`: the inputs arrive
/// flattened (n tensors, n scales, n zero points, 2 scalars); concatenate's rule for the n
/// tensors, `C` for the rest.
pub(super) fn concatenate(a: &Args<'_>) -> Option<Inferred> {
    let total = a.old_in.len();
    if total < 5 || !(total - 2).is_multiple_of(3) {
        return None;
    }
    let n = (total - 2) / 3;
    let out = super::concatenate(&data_args(a, n, a.new_in))?;
    Some(with_channels(out, n, total - n))
}

/// `qnn.requantize`: follows its input; `axis` (the channel of per-channel scales) moves with
/// its axis. A blocked input layout keeps its sub-axes only when the input scale and zero
/// point are scalars (otherwise the input goes back to the primal layout).
pub(super) fn requantize(a: &Args<'_>) -> Option<Inferred> {
    let c = channel();
    let Some(new_in) = a.new_in else {
        let old = a.old0()?;
        return Some(Inferred::one(
            smallvec![Some(old), c, c, c, c],
            Some(old),
            a.attrs.clone(),
        ));
    };
    let new = new_in.first().copied().flatten()?;
    let old = a.old0()?;
    let rank = a.rank(0)?;
    let axis = norm_axis(a.attrs.get_int("axis").unwrap_or(-1), rank)?;
    let old_dim = old.axis_name(axis)?;
    let scalar = |i: usize| a.types.get(i).and_then(super::shape_len) == Some(0);
    let keep_sub = scalar(1) && scalar(2);
    let (mut text, mut index, mut new_axis) = (String::new(), 0i64, None);
    for i in 0..new.ndim() {
        let name = new.axis_name(i)?;
        if name == old_dim {
            new_axis = Some(index);
        }
        if name.is_ascii_uppercase() {
            text.push(name);
            index += 1;
        } else if keep_sub {
            text.push_str(&new.axis_text(i)?);
            index += 1;
        }
    }
    let layout = Layout::parse(&text)?;
    let inputs: Ls = smallvec![Some(layout), c, c, c, c];
    Some(Inferred::one(
        inputs,
        Some(layout),
        a.attrs.with("axis", AttrValue::int(new_axis?)),
    ))
}

/// `qnn.dense` (TVM's `QnnDenseInferCorrectLayout`): dense's rule for data and weight; the
/// zero points and scales (inputs 3-6) are `N`, as TVM writes it.
pub(super) fn dense(a: &Args<'_>) -> Option<Inferred> {
    let mut out = super::nn::dense(&data_args(a, 2, a.new_in))?;
    out.inputs.truncate(2);
    let extra = a.old_in.len().checked_sub(2)?;
    out.inputs
        .extend(std::iter::repeat_n(Layout::parse("N"), extra));
    Some(out)
}
