//! CombineParallelConv2D (TVM `combine_parallel_conv2d.cc`): `nn.conv2d` calls with `groups=1`
//! on one input, with equal strides, padding, dilation, groups, layouts, out_dtype and kernel
//! height and width, become one conv2d over the weights concatenated along the kernel
//! layout's `O` axis (`channels` their sum); the following elementwise/broadcast calls are
//! combined when their other arguments have the branch's channels on the output's channel
//! axis and agree elsewhere (they are concatenated there). Each branch gets back
//! `strided_slice(.., slice_mode="size")` of its channels.

use super::{
    arg, arg_and_result_types, branch_args, branch_slices, call_attrs as attrs, combine,
    concatenate, following_call, tensor, Combiner, Group,
};
use crate::ir::{AttrValue, Attrs, Expr};
use crate::passes::infer_type::typed_call;

/// Combines the parallel conv2d calls of one function.
pub fn combine_parallel_conv2d(e: &Expr, min_num_branches: usize) -> Expr {
    combine(e, &mut Conv2d { channel_pos: 0 }, min_num_branches)
}

struct Conv2d {
    /// The position of `C` in the combined conv2d's output layout.
    channel_pos: usize,
}

fn layout<'a>(a: &'a Attrs, name: &str) -> &'a str {
    a.get_str(name).unwrap_or("")
}

/// The extent of a conv2d's weight along the kernel layout's `O` axis (TVM's
/// `GetConv2DSuperChannelsDim`).
fn out_channels(call: &Expr) -> Option<i64> {
    let o = layout(attrs(call)?, "kernel_layout").find('O')?;
    tensor(arg(call, 1)?)?.shape.get(o)?.as_static()
}

/// The kernel's height and width, by the kernel layout's `H` and `W`.
fn kernel_hw(call: &Expr) -> Option<(crate::ir::Dim, crate::ir::Dim)> {
    let kl = layout(attrs(call)?, "kernel_layout");
    let w = tensor(arg(call, 1)?)?;
    let h_dim = w.shape.get(kl.find('H')?)?.clone();
    let w_dim = w.shape.get(kl.find('W')?)?.clone();
    Some((h_dim, w_dim))
}

impl Combiner for Conv2d {
    fn op(&self) -> &'static str {
        "nn.conv2d"
    }

    fn is_supported(&self, call: &Expr) -> bool {
        attrs(call).and_then(|a| a.get_int("groups")) == Some(1)
    }

    fn can_be_combined(&self, a: &Expr, b: &Expr) -> bool {
        let (Some(aa), Some(ba)) = (attrs(a), attrs(b)) else {
            return false;
        };
        let same = |f: &str| aa.get(f) == ba.get(f);
        ["strides", "padding", "dilation", "groups", "data_layout"]
            .iter()
            .chain(&["kernel_layout", "out_dtype", "out_layout"])
            .all(|f| same(f))
            && matches!((kernel_hw(a), kernel_hw(b)), (Some(x), Some(y)) if x == y)
    }

    fn combined_op(&mut self, group: &Group) -> Option<Expr> {
        let root = group[0][0];
        let a = attrs(root)?;
        let kernel_layout = layout(a, "kernel_layout");
        let out_layout = match layout(a, "out_layout") {
            "" => layout(a, "data_layout"),
            l => l,
        };
        self.channel_pos = out_layout.find('C')?;
        let o = kernel_layout.find('O')?;
        let mut channels = 0;
        let mut weights = Vec::new();
        for branch in group {
            channels += out_channels(branch[0])?;
            weights.push(arg(branch[0], 1)?.clone());
        }
        let data = arg(root, 0)?.clone();
        let weight = concatenate(weights, o as i64);
        let op = root.call_op_of()?.0;
        Some(typed_call(
            op,
            vec![data, weight],
            a.with("channels", AttrValue::int(channels)),
        ))
    }

    fn is_arg_compatible(&self, a: &Expr, b: &Expr, index: usize) -> bool {
        let Some([ta, tb, oa, ob]) = arg_and_result_types(a, b, index) else {
            return false;
        };
        if ta.dtype != tb.dtype || ta.shape.len() != tb.shape.len() {
            return false;
        }
        let Some(pos) = (self.channel_pos + ta.shape.len()).checked_sub(oa.shape.len()) else {
            return false;
        };
        if pos > self.channel_pos
            || oa.shape.len() <= self.channel_pos
            || ob.shape.len() <= self.channel_pos
            || pos >= ta.shape.len()
            || ta.shape[pos] != oa.shape[self.channel_pos]
            || tb.shape[pos] != ob.shape[self.channel_pos]
        {
            return false;
        }
        (0..ta.shape.len())
            .filter(|&i| i != pos)
            .all(|i| ta.shape[i] == tb.shape[i])
    }

    fn combined_following(
        &self,
        data: Expr,
        group: &Group,
        depth: usize,
        parent: usize,
    ) -> Option<Expr> {
        let ndim = tensor(group[0][depth])?.shape.len();
        following_call(data, group, depth, parent, |i, a| {
            let axis = (self.channel_pos + tensor(a)?.shape.len()).checked_sub(ndim)?;
            Some(concatenate(branch_args(group, depth, i)?, axis as i64))
        })
    }

    fn outputs(&self, data: &Expr, group: &Group, _depth: usize) -> Option<Vec<Expr>> {
        branch_slices(data, group, |branch, offset| {
            let channels = out_channels(branch[0])?;
            let mut begin = vec![0; self.channel_pos];
            let mut end = vec![-1; self.channel_pos];
            begin.push(offset);
            end.push(channels);
            Some((begin, end, channels))
        })
    }
}
