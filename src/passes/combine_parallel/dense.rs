//! CombineParallelDense (TVM `combine_parallel_dense.cc`), in its two forms.
//!
//! - `to_batch=true` (TVM's default, `ParallelDenseToBatchCombiner` on
//!   `combine_parallel_op_batch.cc`): `nn.dense` calls on one input with equal weight shapes
//!   and `out_dtype` become `nn.batch_matmul(stack(inputs), stack(weights))`; following
//!   elementwise/broadcast calls whose other arguments have equal shapes and dtypes are
//!   combined over `stack`ed arguments (a 1-d argument first gets a leading axis); each
//!   branch gets back `squeeze(split(..)[i], axis=[0])`.
//! - `to_batch=false` (`ParallelDenseToDenseCombiner`): dense calls with equal input features
//!   and `out_dtype` become one dense over the weights concatenated along axis 0 (`units` the
//!   sum); following calls concatenate their other arguments along the last axis, repeating
//!   an argument whose last extent is 1 (or that is a scalar) to the branch's width first;
//!   each branch gets back a `strided_slice(.., slice_mode="size")` along the axis of the
//!   output whose extent is the branch's dense width (the last such axis).

use super::{
    arg, arg_and_result_types, branch_args, branch_slices, call_attrs as attrs, combine,
    concatenate, following_call, get_item, static_shape, tensor, tuple, Combiner, Group,
};
use crate::ir::{AttrValue, Expr};
use crate::passes::simplify_inference::op_call;

/// Combines the parallel dense calls of one function.
pub fn combine_parallel_dense(e: &Expr, min_num_branches: usize, to_batch: bool) -> Expr {
    if to_batch {
        combine(e, &mut DenseToBatch, min_num_branches)
    } else {
        combine(e, &mut DenseToDense, min_num_branches)
    }
}

fn weight_shape(e: &Expr) -> Option<&[crate::ir::Dim]> {
    Some(&tensor(arg(e, 1)?)?.shape)
}

fn same_out_dtype(a: &Expr, b: &Expr) -> bool {
    matches!((attrs(a), attrs(b)), (Some(x), Some(y)) if x.get("out_dtype") == y.get("out_dtype"))
}

fn stack(fields: Vec<Expr>) -> Expr {
    op_call(
        "stack",
        vec![tuple(fields)],
        vec![("axis", AttrValue::int(0))],
    )
}

struct DenseToBatch;

impl Combiner for DenseToBatch {
    fn op(&self) -> &'static str {
        "nn.dense"
    }

    fn is_supported(&self, _: &Expr) -> bool {
        true
    }

    fn can_be_combined(&self, a: &Expr, b: &Expr) -> bool {
        let (Some(wa), Some(wb)) = (weight_shape(a), weight_shape(b)) else {
            return false;
        };
        same_out_dtype(a, b) && wa.len() == 2 && wb.len() == 2 && wa == wb
    }

    fn combined_op(&mut self, group: &Group) -> Option<Expr> {
        let root = group[0][0];
        let mut stacked = Vec::with_capacity(2);
        for i in 0..2 {
            stacked.push(stack(branch_args(group, 0, i)?));
        }
        let out_dtype = attrs(root)?
            .get("out_dtype")
            .cloned()
            .unwrap_or(AttrValue::Null);
        Some(op_call(
            "nn.batch_matmul",
            stacked,
            vec![
                ("out_dtype", out_dtype),
                ("transpose_a", AttrValue::Bool(false)),
                ("transpose_b", AttrValue::Bool(true)),
            ],
        ))
    }

    fn is_arg_compatible(&self, a: &Expr, b: &Expr, index: usize) -> bool {
        match (
            arg(a, index).and_then(tensor),
            arg(b, index).and_then(tensor),
        ) {
            (Some(ta), Some(tb)) => ta == tb,
            _ => false,
        }
    }

    fn combined_following(
        &self,
        data: Expr,
        group: &Group,
        depth: usize,
        parent: usize,
    ) -> Option<Expr> {
        following_call(data, group, depth, parent, |i, _| {
            let mut fields = Vec::with_capacity(group.len());
            for branch in group {
                let a = arg(branch[depth], i)?.clone();
                let a = if tensor(&a)?.shape.len() == 1 {
                    op_call(
                        "expand_dims",
                        vec![a],
                        vec![
                            ("axis", AttrValue::int(0)),
                            ("num_newaxis", AttrValue::int(1)),
                        ],
                    )
                } else {
                    a
                };
                fields.push(a);
            }
            Some(stack(fields))
        })
    }

    fn outputs(&self, data: &Expr, group: &Group, _depth: usize) -> Option<Vec<Expr>> {
        let split = op_call(
            "split",
            vec![data.clone()],
            vec![
                ("indices_or_sections", AttrValue::int(group.len() as i64)),
                ("axis", AttrValue::int(0)),
            ],
        );
        let out = (0..group.len())
            .map(|i| {
                op_call(
                    "squeeze",
                    vec![get_item(split.clone(), i)],
                    vec![("axis", AttrValue::ints(&[0]))],
                )
            })
            .collect();
        Some(out)
    }
}

struct DenseToDense;

/// The last extent of `e`'s type, when static.
fn last_dim(e: &Expr) -> Option<i64> {
    tensor(e)?.shape.last()?.as_static()
}

impl Combiner for DenseToDense {
    fn op(&self) -> &'static str {
        "nn.dense"
    }

    fn is_supported(&self, _: &Expr) -> bool {
        true
    }

    fn can_be_combined(&self, a: &Expr, b: &Expr) -> bool {
        let (Some(wa), Some(wb)) = (weight_shape(a), weight_shape(b)) else {
            return false;
        };
        same_out_dtype(a, b) && wa.len() == 2 && wb.len() == 2 && wa[1] == wb[1]
    }

    fn combined_op(&mut self, group: &Group) -> Option<Expr> {
        let root = group[0][0];
        let mut units = 0;
        let mut weights = Vec::with_capacity(group.len());
        for branch in group {
            let w = arg(branch[0], 1)?;
            units += tensor(w)?.shape.first()?.as_static()?;
            weights.push(w.clone());
        }
        let out_dtype = attrs(root)?
            .get("out_dtype")
            .cloned()
            .unwrap_or(AttrValue::Null);
        Some(op_call(
            "nn.dense",
            vec![arg(root, 0)?.clone(), concatenate(weights, 0)],
            vec![("units", AttrValue::int(units)), ("out_dtype", out_dtype)],
        ))
    }

    fn is_arg_compatible(&self, a: &Expr, b: &Expr, index: usize) -> bool {
        let Some([ta, tb, oa, ob]) = arg_and_result_types(a, b, index) else {
            return false;
        };
        if ta.dtype != tb.dtype || ta.shape.len() != tb.shape.len() {
            return false;
        }
        if oa.shape.len() < ta.shape.len() || ob.shape.len() < tb.shape.len() {
            return false;
        }
        let n = ta.shape.len().saturating_sub(1);
        ta.shape[..n] == tb.shape[..n]
    }

    fn combined_following(
        &self,
        data: Expr,
        group: &Group,
        depth: usize,
        parent: usize,
    ) -> Option<Expr> {
        following_call(data, group, depth, parent, |i, a0| {
            let arg_ndim = tensor(a0)?.shape.len();
            let axis = arg_ndim.saturating_sub(1) as i64;
            let mut fields = Vec::with_capacity(group.len());
            for branch in group {
                let out_dim = last_dim(arg(branch[depth], parent)?)?;
                let mut a = arg(branch[depth], i)?.clone();
                let repeat = if arg_ndim == 0 {
                    a = op_call(
                        "expand_dims",
                        vec![a],
                        vec![
                            ("axis", AttrValue::int(-1)),
                            ("num_newaxis", AttrValue::int(1)),
                        ],
                    );
                    true
                } else {
                    out_dim > 1 && last_dim(&a)? == 1
                };
                if repeat {
                    a = op_call(
                        "repeat",
                        vec![a],
                        vec![
                            ("repeats", AttrValue::int(out_dim)),
                            ("axis", AttrValue::int(axis)),
                        ],
                    );
                }
                fields.push(a);
            }
            Some(concatenate(fields, axis))
        })
    }

    fn outputs(&self, data: &Expr, group: &Group, depth: usize) -> Option<Vec<Expr>> {
        branch_slices(data, group, |branch, offset| {
            let shape = static_shape(branch[depth])?;
            let width = *static_shape(branch[0])?.get(1)?;
            let axis = shape.iter().rposition(|&d| d == width)?;
            let mut begin = vec![0; shape.len()];
            let mut end = vec![-1; shape.len()];
            begin[axis] = offset;
            end[axis] = width;
            Some((begin, end, width))
        })
    }
}
