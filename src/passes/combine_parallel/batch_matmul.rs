//! CombineParallelBatchMatmul (TVM `combine_parallel_batch_matmul.cc`): `nn.batch_matmul`
//! calls in TVM's `NT` form (`transpose_a=false, transpose_b=true`) on one left operand, with
//! 3-d right operands of equal batch and dtype and equal `out_dtype`, become one batch_matmul
//! over the right operands concatenated along axis 1. Following elementwise/broadcast calls
//! are combined by concatenating their other arguments along the last axis. Each branch gets
//! back `strided_slice(.., [0, 0, start], [-1, -1, features], slice_mode="size")`.
//!
//! Where passlab differs from TVM: TVM counts every other argument of a following call as
//! compatible; passlab combines one only when its last extent is the branch's features and
//! the rest agree across branches, so the concatenated argument broadcasts as each branch's
//! did (TVM builds an ill-typed concatenation otherwise, e.g. for a scalar bias).

use super::{
    arg, arg_and_result_types, branch_args, branch_slices, call_attrs as attrs, combine,
    concatenate, following_call, tensor, Combiner, Group,
};
use crate::ir::{Attrs, Expr};
use crate::passes::infer_type::typed_call;

/// Combines the parallel batch_matmul calls of one function.
pub fn combine_parallel_batch_matmul(e: &Expr, min_num_branches: usize) -> Expr {
    combine(e, &mut BatchMatmul, min_num_branches)
}

struct BatchMatmul;

fn nt_form(a: &Attrs) -> bool {
    a.get_bool("transpose_a") == Some(false) && a.get_bool("transpose_b") == Some(true)
}

/// The extent of the right operand's axis 1 (the features of the result's last axis).
fn features(call: &Expr) -> Option<i64> {
    tensor(arg(call, 1)?)?.shape.get(1)?.as_static()
}

impl Combiner for BatchMatmul {
    fn op(&self) -> &'static str {
        "nn.batch_matmul"
    }

    fn is_supported(&self, _: &Expr) -> bool {
        true
    }

    fn can_be_combined(&self, a: &Expr, b: &Expr) -> bool {
        let (Some(aa), Some(ba)) = (attrs(a), attrs(b)) else {
            return false;
        };
        let (Some(ra), Some(rb), Some(ta), Some(tb)) = (
            arg(a, 1).and_then(tensor),
            arg(b, 1).and_then(tensor),
            tensor(a),
            tensor(b),
        ) else {
            return false;
        };
        nt_form(aa)
            && nt_form(ba)
            && ra.dtype == rb.dtype
            && ta.dtype == tb.dtype
            && ra.shape.len() == 3
            && rb.shape.len() == 3
            && ra.shape[0] == rb.shape[0]
            && aa.get("out_dtype") == ba.get("out_dtype")
    }

    fn combined_op(&mut self, group: &Group) -> Option<Expr> {
        let root = group[0][0];
        let weights = branch_args(group, 0, 1)?;
        let data = arg(root, 0)?.clone();
        let op = root.call_op_of()?.0;
        Some(typed_call(
            op,
            vec![data, concatenate(weights, 1)],
            attrs(root)?.clone(),
        ))
    }

    fn is_arg_compatible(&self, a: &Expr, b: &Expr, index: usize) -> bool {
        let Some([ta, tb, oa, ob]) = arg_and_result_types(a, b, index) else {
            return false;
        };
        let n = ta.shape.len();
        n >= 1
            && ta.dtype == tb.dtype
            && n == tb.shape.len()
            && oa.shape.last() == Some(&ta.shape[n - 1])
            && ob.shape.last() == Some(&tb.shape[n - 1])
            && ta.shape[..n - 1] == tb.shape[..n - 1]
    }

    fn combined_following(
        &self,
        data: Expr,
        group: &Group,
        depth: usize,
        parent: usize,
    ) -> Option<Expr> {
        following_call(data, group, depth, parent, |i, _| {
            Some(concatenate(branch_args(group, depth, i)?, -1))
        })
    }

    fn outputs(&self, data: &Expr, group: &Group, _depth: usize) -> Option<Vec<Expr>> {
        branch_slices(data, group, |branch, offset| {
            let f = features(branch[0])?;
            Some((vec![0, 0, offset], vec![-1, -1, f], f))
        })
    }
}
