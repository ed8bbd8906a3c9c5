//! Neural-network rules (`src/relay/op/nn/{nn,pad}.cc` in TVM): dense/matmul/batch_matmul,
//! the normalizations, dropout, softmax, bias_add/prelu, batch_flatten and pad
//! (convolutions are in `conv.rs`).
//!
//! Several of these *assign input types*, as TVM's relations do: `dense` with `units`
//! assigns the weight, batch_norm/layer_norm/bias_add/prelu assign their vector parameters
//! `(C,)` from the data shape. That is what lets unannotated parameters and opaque constants
//! be typed from their use.

use super::{dim_map, dim_op, dims_conflict, tensor, Rel, RuleResult};
use crate::ir::attrs::AttrValue;
use crate::ir::{DType, Dim};

/// `MatmulRel`: `data (..., K)` times the weight; dense is matmul with `transpose_b`.
fn matmul_rel(r: &mut Rel<'_>, transpose_a: bool, transpose_b: bool) -> RuleResult {
    let Some(a) = r.tensor(0)? else {
        return Ok(false);
    };
    let b = r.tensor(1)?;
    let rank = a.shape.len();
    if rank == 0 || (transpose_a && rank < 2) {
        return r.fail(format!(
            "the data must have rank >= {}, found {a}",
            1 + transpose_a as usize
        ));
    }
    let mut oshape = a.shape.clone();
    let mut reduce = a.shape[rank - 1].clone();
    if transpose_a {
        reduce = a.shape[rank - 2].clone();
        oshape[rank - 2] = a.shape[rank - 1].clone();
    }
    if let Some(units) = r.dim("units")? {
        let wshape = if transpose_b {
            vec![units.clone(), reduce]
        } else {
            vec![reduce, units.clone()]
        };
        let wdtype = b.map(|b| b.dtype).unwrap_or(a.dtype);
        r.assign(1, tensor(wshape, wdtype));
        oshape[rank - 1] = units;
    } else {
        let Some(b) = b else { return Ok(false) };
        if b.shape.len() != 2 {
            return r.mismatch(format!("the weight must be 2-d, found {b}"));
        }
        // TVM's MatmulRel takes the result's last extent from the weight and does not
        // compare the reduced extents (`reduce` against the weight's K): neither does this
        // rule. The evaluator's kernel refuses operands whose extents differ.
        let units = if transpose_b {
            &b.shape[0]
        } else {
            &b.shape[1]
        };
        oshape[rank - 1] = units.clone();
    }
    let dt = r.dtype("out_dtype")?.unwrap_or(a.dtype);
    r.done_tensor(oshape, dt)
}

pub(super) fn dense(r: &mut Rel<'_>) -> RuleResult {
    matmul_rel(r, false, true)
}

pub(super) fn matmul(r: &mut Rel<'_>) -> RuleResult {
    let (ta, tb) = (
        r.bool_or("transpose_a", false),
        r.bool_or("transpose_b", false),
    );
    matmul_rel(r, ta, tb)
}

pub(super) fn batch_matmul(r: &mut Rel<'_>) -> RuleResult {
    let (Some(x), Some(y)) = (r.tensor(0)?, r.tensor(1)?) else {
        return Ok(false);
    };
    if x.shape.len() != 3 || y.shape.len() != 3 {
        return r.mismatch(format!("both operands must be 3-d, found {x} and {y}"));
    }
    let (ta, tb) = (
        r.bool_or("transpose_a", false),
        r.bool_or("transpose_b", false),
    );
    let (xb, xi, xk) = (
        &x.shape[0],
        &x.shape[if ta { 2 } else { 1 }],
        &x.shape[if ta { 1 } else { 2 }],
    );
    let (yb, yk, yj) = (
        &y.shape[0],
        &y.shape[if tb { 2 } else { 1 }],
        &y.shape[if tb { 1 } else { 2 }],
    );
    let one = |d: &Dim| d.as_static() == Some(1);
    if dims_conflict(xb, yb) && !one(xb) && !one(yb) {
        return r.mismatch(format!("batch dimensions don't match: {x} vs {y}"));
    }
    if dims_conflict(xk, yk) {
        return r.mismatch(format!("reduction dimensions don't match: {x} vs {y}"));
    }
    let b = match (xb, yb) {
        (Dim::Any, _) | (_, Dim::Any) => Dim::Any,
        _ => dim_op(xb, yb, i64::max),
    };
    let dt = r.dtype("out_dtype")?.unwrap_or(x.dtype);
    r.done_tensor(vec![b, xi.clone(), yj.clone()], dt)
}

/// `(C,)` with the data's dtype, `C` the extent of `axis`.
fn vector_of(
    r: &Rel<'_>,
    shape: &[Dim],
    axis: i64,
    dtype: DType,
) -> Result<crate::ir::Type, String> {
    let ax = r.axis(axis, shape.len())?;
    Ok(tensor(vec![shape[ax].clone()], dtype))
}

pub(super) fn batch_norm(r: &mut Rel<'_>) -> RuleResult {
    let Some(data) = r.tensor(0)? else {
        return Ok(false);
    };
    let v = vector_of(r, &data.shape, r.int_or("axis", 1)?, data.dtype)?;
    for i in 1..5 {
        r.assign(i, v.clone());
    }
    let out = crate::ir::Type::tuple(vec![tensor(data.shape.clone(), data.dtype), v.clone(), v]);
    r.done(out)
}

/// `nn.layer_norm`, `nn.instance_norm`, `nn.group_norm`: gamma and beta are `(C,)`.
pub(super) fn norm(r: &mut Rel<'_>) -> RuleResult {
    let Some(data) = r.tensor(0)? else {
        return Ok(false);
    };
    let default_axis = if r.op == "nn.layer_norm" { -1 } else { 1 };
    let v = vector_of(r, &data.shape, r.int_or("axis", default_axis)?, data.dtype)?;
    r.assign(1, v.clone());
    r.assign(2, v);
    r.done_like(0, data.shape.clone(), data.dtype)
}

pub(super) fn dropout(r: &mut Rel<'_>) -> RuleResult {
    let Some(data) = r.tensor(0)? else {
        return Ok(false);
    };
    let t = tensor(data.shape.clone(), data.dtype);
    r.done(crate::ir::Type::tuple(vec![t.clone(), t]))
}

/// `memory.alloc_storage(size, shape, alignment)` (TVM's `AllocStorageRel`): the size and the
/// alignment are int64 scalars; the result is core.rly's `Storage` (`extern type Storage`),
/// named as TVM's rule names it from the module.
pub(super) fn alloc_storage(r: &mut Rel<'_>) -> RuleResult {
    for (i, what) in [(0, "size"), (2, "alignment")] {
        let Some(t) = r.tensor(i)? else {
            return Ok(false);
        };
        if t.dtype != crate::ir::DType::INT64 || !t.shape.is_empty() {
            return r.mismatch(format!("the {what} must be an int64 scalar, not {t}"));
        }
    }
    r.done(crate::ir::Type::named("Storage".into(), Vec::new()))
}

/// `memory.kill(x)` (TVM's `KillRel`): the empty tuple, whatever it frees.
pub(super) fn kill(r: &mut Rel<'_>) -> RuleResult {
    r.done(crate::ir::Type::tuple(Vec::new()))
}

pub(super) fn softmax(r: &mut Rel<'_>) -> RuleResult {
    let Some(data) = r.tensor(0)? else {
        return Ok(false);
    };
    r.axis(r.int_or("axis", -1)?, data.shape.len())?;
    r.done_like(0, data.shape.clone(), data.dtype)
}

/// `nn.bias_add` and `nn.prelu`: the second argument is `(C,)` for the channel `axis`.
pub(super) fn bias_add(r: &mut Rel<'_>) -> RuleResult {
    let Some(data) = r.tensor(0)? else {
        return Ok(false);
    };
    let v = vector_of(r, &data.shape, r.int_or("axis", 1)?, data.dtype)?;
    r.assign(1, v);
    r.done_like(0, data.shape.clone(), data.dtype)
}

pub(super) fn batch_flatten(r: &mut Rel<'_>) -> RuleResult {
    let Some(data) = r.tensor(0)? else {
        return Ok(false);
    };
    if data.shape.is_empty() {
        return r.fail("needs a tensor of rank >= 1");
    }
    let mut target = Dim::Static(1);
    for d in &data.shape[1..] {
        if matches!(d, Dim::Any) {
            target = Dim::Any;
            break;
        }
        target = dim_op(&target, d, i64::saturating_mul);
    }
    r.done_tensor(vec![data.shape[0].clone(), target], data.dtype)
}

/// `nn.pad` / `nn.mirror_pad`: `pad_width=[[before, after], ...]`, one pair per axis.
pub(super) fn pad(r: &mut Rel<'_>) -> RuleResult {
    let Some(data) = r.tensor(0)? else {
        return Ok(false);
    };
    let pairs: Option<Vec<Vec<i64>>> = r
        .attr("pad_width")
        .and_then(AttrValue::as_array)
        .map(|a| {
            a.iter()
                .map(AttrValue::as_int_list)
                .collect::<Option<Vec<_>>>()
        })
        .unwrap_or(None);
    let Some(pairs) = pairs.filter(|p| p.iter().all(|x| x.len() == 2)) else {
        return r.fail("needs `pad_width` as a list of [before, after] pairs");
    };
    if pairs.len() != data.shape.len() {
        return r.fail(format!(
            "pad_width has {} pairs but the data {data} has rank {}",
            pairs.len(),
            data.shape.len()
        ));
    }
    let mut out = Vec::with_capacity(pairs.len());
    for (d, p) in data.shape.iter().zip(&pairs) {
        if p[0] < 0 || p[1] < 0 {
            return r.fail(format!("pad widths must be non-negative, found {:?}", p));
        }
        out.push(dim_map(d, |x| x + p[0] + p[1]));
    }
    r.done_tensor(out, data.dtype)
}

/// `DensePackRel` (`nn.contrib_dense_pack`): 2-d data `(M, K)` and a packed 3-d or 4-d weight
/// `(N / n, K, n[, ...])` give `(M, N)`.
pub(super) fn dense_pack(r: &mut Rel<'_>) -> RuleResult {
    let (Some(a), Some(b)) = (r.tensor(0)?, r.tensor(1)?) else {
        return Ok(false);
    };
    if a.shape.len() != 2 {
        return r.fail(format!("only 2-d data is supported, found {a}"));
    }
    if b.shape.len() != 3 && b.shape.len() != 4 {
        return r.fail(format!("the weight must be 3-d or 4-d, found {b}"));
    }
    let mut oshape = a.shape.clone();
    oshape[1] = dim_op(&b.shape[0], &b.shape[2], |x, y| x.saturating_mul(y));
    let dt = r.dtype("out_dtype")?.unwrap_or(a.dtype);
    r.done_tensor(oshape, dt)
}
