//! Elementwise and broadcasting rules: `BroadcastRel`/`BroadcastCompRel` (numpy broadcasting,
//! TVM's `ConcreteBroadcast`), `where`, `IdentityCompRel`, casts, the init ops
//! (`zeros`/`ones`/`full`/`full_like`) and the small shape-only ops (`shape_of`, `argsort`).
//!
//! Broadcasting never assigns an operand: with either side unknown the rule waits, as TVM's
//! does, so `add(%x, 1f)` types `%x` only when something else determines it.

use super::{Rel, RuleResult};
use crate::ir::{DType, Dim, TensorType, Type};

/// Numpy broadcasting of two shapes, or `None` when they are incompatible.
pub(in crate::passes::infer_type) fn broadcast_shapes(a: &[Dim], b: &[Dim]) -> Option<Vec<Dim>> {
    let (n1, n2) = (a.len(), b.len());
    let n = n1.max(n2);
    let mut out = Vec::with_capacity(n);
    for i in 1..=n1.min(n2) {
        let (s1, s2) = (&a[n1 - i], &b[n2 - i]);
        let d = if s1 == s2 || (s1.as_static().is_some() && s1.as_static() == s2.as_static()) {
            s1.clone()
        } else if s1.as_static() == Some(1) {
            s2.clone()
        } else if s2.as_static() == Some(1) {
            s1.clone()
        } else if matches!(s1, Dim::Any) {
            s2.clone()
        } else if matches!(s2, Dim::Any) {
            s1.clone()
        } else if matches!(s1, Dim::Meta(..)) || matches!(s2, Dim::Meta(..)) {
            // Symbolic extents: TVM would need them equal at run time; keep them unknown.
            Dim::Any
        } else {
            return None;
        };
        out.push(d);
    }
    let longer = if n1 > n2 { a } else { b };
    for i in n1.min(n2) + 1..=n {
        out.push(longer[n - i].clone());
    }
    out.reverse();
    Some(out)
}

fn broadcast_with(r: &mut Rel<'_>, out_dtype: Option<DType>) -> RuleResult {
    let (Some(a), Some(b)) = (r.tensor(0)?, r.tensor(1)?) else {
        return Ok(false);
    };
    if a.dtype != b.dtype {
        return r.mismatch(format!(
            "data types {} and {} do not match ({a} vs {b})",
            a.dtype, b.dtype
        ));
    }
    let dtype = out_dtype.unwrap_or(a.dtype);
    match broadcast_shapes(&a.shape, &b.shape) {
        Some(shape) if shape.len() == b.shape.len() && shape != a.shape => {
            r.done_like(1, shape, dtype)
        }
        Some(shape) => r.done_like(0, shape, dtype),
        None => r.mismatch(format!("{a} vs {b} cannot broadcast")),
    }
}

pub(super) fn broadcast(r: &mut Rel<'_>) -> RuleResult {
    broadcast_with(r, None)
}

pub(super) fn broadcast_comp(r: &mut Rel<'_>) -> RuleResult {
    broadcast_with(r, Some(DType::BOOL))
}

pub(super) fn identity_comp(r: &mut Rel<'_>) -> RuleResult {
    let Some(a) = r.tensor(0)? else {
        return Ok(false);
    };
    r.done_tensor(a.shape.clone(), DType::BOOL)
}

/// `where(cond, x, y)`: broadcast `x` with `y`, then `cond` with that; dtype of `x`.
pub(super) fn where_(r: &mut Rel<'_>) -> RuleResult {
    let (Some(c), Some(x), Some(y)) = (r.tensor(0)?, r.tensor(1)?, r.tensor(2)?) else {
        return Ok(false);
    };
    if x.dtype != y.dtype {
        return r.mismatch(format!(
            "x and y must have the same dtype: {} vs {}",
            x.dtype, y.dtype
        ));
    }
    let Some(xy) = broadcast_shapes(&x.shape, &y.shape) else {
        return r.mismatch(format!("{x} vs {y} cannot broadcast"));
    };
    match broadcast_shapes(&c.shape, &xy) {
        Some(shape) => r.done_tensor(shape, x.dtype),
        None => {
            let xy = TensorType::new(xy, x.dtype);
            r.mismatch(format!("condition {c} vs {xy} cannot broadcast"))
        }
    }
}

pub(super) fn cast(r: &mut Rel<'_>) -> RuleResult {
    let Some(a) = r.tensor(0)? else {
        return Ok(false);
    };
    let Some(dt) = r.dtype("dtype")? else {
        return r.fail("needs the attribute `dtype`");
    };
    r.done_tensor(a.shape.clone(), dt)
}

pub(super) fn cast_like(r: &mut Rel<'_>) -> RuleResult {
    let (Some(a), Some(like)) = (r.tensor(0)?, r.tensor(1)?) else {
        return Ok(false);
    };
    r.done_tensor(a.shape.clone(), like.dtype)
}

/// `zeros`/`ones`: `(shape, dtype)` from the attributes.
pub(super) fn init_op(r: &mut Rel<'_>) -> RuleResult {
    let Some(shape) = r.dims("shape")? else {
        return r.fail("needs the attribute `shape`");
    };
    let dt = r.dtype("dtype")?.unwrap_or(DType::FLOAT32);
    r.done_tensor(shape, dt)
}

/// `full(fill_value)`: a 0-d fill value; dtype from the attribute or the fill value.
pub(super) fn full(r: &mut Rel<'_>) -> RuleResult {
    let Some(v) = r.tensor(0)? else {
        return Ok(false);
    };
    if !v.shape.is_empty() {
        return r.fail(format!("the fill value must be a scalar, found {v}"));
    }
    let Some(shape) = r.dims("shape")? else {
        return r.fail("needs the attribute `shape`");
    };
    let dt = r.dtype("dtype")?.unwrap_or(v.dtype);
    r.done_tensor(shape, dt)
}

pub(super) fn full_like(r: &mut Rel<'_>) -> RuleResult {
    let (Some(a), Some(v)) = (r.tensor(0)?, r.tensor(1)?) else {
        return Ok(false);
    };
    if !v.shape.is_empty() {
        return r.fail(format!("the fill value must be a scalar, found {v}"));
    }
    r.done_tensor(a.shape.clone(), a.dtype)
}

pub(super) fn shape_of(r: &mut Rel<'_>) -> RuleResult {
    let Some(a) = r.tensor(0)? else {
        return Ok(false);
    };
    let dt = r.dtype("dtype")?.unwrap_or(DType::INT32);
    r.done_tensor(vec![Dim::Static(a.shape.len() as i64)], dt)
}

pub(super) fn ndarray_size(r: &mut Rel<'_>) -> RuleResult {
    if r.tensor(0)?.is_none() {
        return Ok(false);
    }
    let dt = r.dtype("dtype")?.unwrap_or(DType::INT32);
    r.done_tensor(Vec::new(), dt)
}

/// `argwhere(x)` (`ArgWhereRel`): `[Any, rank]` of int32, the count known only at run time.
pub(super) fn argwhere(r: &mut Rel<'_>) -> RuleResult {
    let Some(a) = r.tensor(0)? else {
        return Ok(false);
    };
    let rank = a.shape.len() as i64;
    r.done_tensor(vec![Dim::Any, Dim::Static(rank)], DType::INT32)
}

/// `unique(x)` (`UniqueRel`) of a 1-D tensor: the values, the first indices, the inverse
/// indices (each the data's extent), the count `[1]` (int32), and with `return_counts` the
/// counts.
pub(super) fn unique(r: &mut Rel<'_>) -> RuleResult {
    let Some(a) = r.tensor(0)? else {
        return Ok(false);
    };
    if a.shape.len() != 1 {
        return r.fail(format!("unique takes a 1-D tensor, found {a}"));
    }
    let n = a.shape.clone();
    let int = |shape: Vec<Dim>| Type::tensor(shape, DType::INT32);
    let mut fields = vec![
        Type::tensor(n.clone(), a.dtype),
        int(n.clone()),
        int(n.clone()),
        int(vec![Dim::Static(1)]),
    ];
    if r.bool_or("return_counts", false) {
        fields.push(int(n));
    }
    r.done(Type::tuple(fields))
}

/// Ops whose result has exactly the input type once it is a tensor (`reverse`, `sort`).
pub(super) fn same_type(r: &mut Rel<'_>) -> RuleResult {
    let Some(a) = r.tensor(0)? else {
        return Ok(false);
    };
    r.done_like(0, a.shape.clone(), a.dtype)
}

pub(super) fn argsort(r: &mut Rel<'_>) -> RuleResult {
    let Some(a) = r.tensor(0)? else {
        return Ok(false);
    };
    let dt = r.dtype("dtype")?.unwrap_or(DType::INT32);
    r.done_tensor(a.shape.clone(), dt)
}

/// `trilu(data, k)` (TVM's `TriluRel`): `k` is a 0-d tensor, the result has the data's type.
pub(super) fn trilu(r: &mut Rel<'_>) -> RuleResult {
    let (Some(a), Some(k)) = (r.tensor(0)?, r.tensor(1)?) else {
        return Ok(false);
    };
    if !k.shape.is_empty() {
        return Err(format!(
            "trilu: k must be a 0-d tensor, got {}",
            k.shape.len()
        ));
    }
    r.done_like(0, a.shape.clone(), a.dtype)
}

/// Product of extents for size checks (`None` unless all static and it fits in 64 bits).
pub(super) fn num_elements(shape: &[Dim]) -> Option<i64> {
    shape
        .iter()
        .try_fold(1i64, |acc, d| acc.checked_mul(d.as_static()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &[i64]) -> Vec<Dim> {
        v.iter().map(|x| Dim::Static(*x)).collect()
    }

    #[test]
    fn broadcasting_follows_numpy() {
        assert_eq!(
            broadcast_shapes(&s(&[1, 64, 56, 56]), &s(&[64, 1, 1])),
            Some(s(&[1, 64, 56, 56]))
        );
        assert_eq!(broadcast_shapes(&s(&[]), &s(&[3])), Some(s(&[3])));
        assert_eq!(broadcast_shapes(&s(&[2, 1]), &s(&[1, 3])), Some(s(&[2, 3])));
        assert_eq!(broadcast_shapes(&s(&[1, 64]), &s(&[1, 32])), None);
        let any = vec![Dim::Any, Dim::Static(3)];
        assert_eq!(broadcast_shapes(&any, &s(&[5, 3])), Some(s(&[5, 3])));
    }
}
