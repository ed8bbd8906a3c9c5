//! Reduction rules (`src/relay/op/tensor/reduce.cc`): `ReduceRel` for sum/mean/max/min/prod/
//! all/any, `GenericReduceRel<ArgReduceAttrs>` for argmax/argmin (dtype = the dtype of the
//! input's first extent, so int32 unless the shape uses int64), `VarianceRel`, and the scans
//! (`cumsum`/`cumprod`).
//!
//! Reduce axes follow TVM's `GetReduceAxes`: null or empty `axis` reduces everything (even
//! with `exclude`), negative axes count from the end, `exclude` takes the complement.

use super::{dim_op, Rel, RuleResult};
use crate::ir::{DType, Dim};

/// The sorted axes reduced by the call.
fn reduce_axes(r: &Rel<'_>, rank: usize) -> Result<Vec<usize>, String> {
    let axis = r.opt_ints("axis")?.unwrap_or_default();
    if axis.is_empty() {
        return Ok((0..rank).collect());
    }
    let mut axes = Vec::with_capacity(axis.len());
    for a in axis {
        let n = if a < 0 { a + rank as i64 } else { a };
        if n < 0 || n >= rank as i64 {
            return r.fail(format!("axis {a} is out of bounds for a tensor of rank {rank}"));
        }
        axes.push(n as usize);
    }
    axes.sort_unstable();
    axes.dedup();
    if r.bool_or("exclude", false) {
        return Ok((0..rank).filter(|i| axes.binary_search(i).is_err()).collect());
    }
    Ok(axes)
}

fn reduced_shape(r: &Rel<'_>, shape: &[Dim]) -> Result<Vec<Dim>, String> {
    let axes = reduce_axes(r, shape.len())?;
    let keep = r.bool_or("keepdims", false);
    let mut out = Vec::with_capacity(shape.len());
    for (i, d) in shape.iter().enumerate() {
        if axes.binary_search(&i).is_ok() {
            if keep {
                out.push(Dim::Static(1));
            }
        } else {
            out.push(d.clone());
        }
    }
    Ok(out)
}

pub(super) fn reduce(r: &mut Rel<'_>) -> RuleResult {
    let Some(data) = r.tensor(0)? else { return Ok(false) };
    let shape = reduced_shape(r, &data.shape)?;
    r.done_tensor(shape, data.dtype)
}

pub(super) fn arg_reduce(r: &mut Rel<'_>) -> RuleResult {
    let Some(data) = r.tensor(0)? else { return Ok(false) };
    let shape = reduced_shape(r, &data.shape)?;
    let dt = match data.shape.first() {
        Some(Dim::Static64(_)) => DType::INT64,
        _ => DType::INT32,
    };
    r.done_tensor(shape, dt)
}

/// `variance(data, mean)`: reduces like `mean`; waits for both inputs.
pub(super) fn variance(r: &mut Rel<'_>) -> RuleResult {
    let (Some(data), Some(_)) = (r.tensor(0)?, r.tensor(1)?) else {
        return Ok(false);
    };
    let shape = reduced_shape(r, &data.shape)?;
    r.done_tensor(shape, data.dtype)
}

/// `cumsum`/`cumprod`: same shape along an axis, flattened when `axis` is null.
pub(super) fn scan(r: &mut Rel<'_>) -> RuleResult {
    let Some(data) = r.tensor(0)? else { return Ok(false) };
    let dt = r.dtype("dtype")?.unwrap_or(data.dtype);
    if r.opt_int("axis")?.is_some() {
        return r.done_tensor(data.shape.clone(), dt);
    }
    let mut prod = data.shape.first().cloned().unwrap_or(Dim::Static(1));
    for d in data.shape.iter().skip(1) {
        prod = dim_op(&prod, d, |a, b| a * b);
    }
    r.done_tensor(vec![prod], dt)
}
