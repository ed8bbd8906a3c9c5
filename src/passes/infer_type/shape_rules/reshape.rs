//! Reshaping rules (`src/relay/op/tensor/transform.cc` in TVM): reshape with its special
//! values 0 (copy), -1 (infer), -2 (copy the rest), -3 (merge two), -4 (split one into two),
//! reshape_like, transpose, squeeze, expand_dims and layout_transform.
//!
//! `reshape` follows TVM's `InferNewShape` step by step, including its quirks (a literal
//! extent consumes an input dimension; `-1` is computed from the input dimensions not copied
//! by 0/-2/-3/-4, divided by the other output extents). A fully static reshape must keep
//! the element count; with `?` extents the inferred dimension becomes `?`.

use super::elemwise::num_elements;
use super::{dim_op, floordiv, shape_str, Layout, Rel, RuleResult};
use crate::ir::{AttrValue, Dim, Type};

/// `reshape(data, newshape=[...], allowzero=False)` (TVM's `InferNewShape`).
pub(super) fn reshape(r: &mut Rel<'_>) -> RuleResult {
    let Some(data) = r.tensor(0)? else {
        return Ok(false);
    };
    let Some(newshape) = r.dims("newshape")? else {
        return r.fail("needs the attribute `newshape`");
    };
    let allowzero = r.bool_or("allowzero", false);
    let ish = &data.shape;
    let val = |d: &Dim| d.as_static().unwrap_or(1);
    let mut used_in = vec![false; ish.len()];
    let mut used_out: Vec<bool> = Vec::new();
    let mut out: Vec<Dim> = Vec::new();
    let mut src = 0usize;
    let mut infer: Option<usize> = None;
    let mut i = 0;
    let bad = |r: &Rel<'_>, msg: String| {
        r.fail(format!(
            "{msg} (data {data}, newshape={})",
            shape_str(&newshape)
        ))
    };
    while i < newshape.len() {
        let v = val(&newshape[i]);
        let mut push = |out: &mut Vec<Dim>, d: Dim, used: bool| {
            out.push(d);
            used_out.push(used);
        };
        match v {
            v if v > 0 || (v == 0 && allowzero) => {
                push(&mut out, newshape[i].clone(), false);
                src += 1;
            }
            0 => {
                let Some(d) = ish.get(src) else {
                    return bad(r, "0 copies a dimension the input does not have".into());
                };
                used_in[src] = true;
                push(&mut out, d.clone(), true);
                src += 1;
            }
            -1 => {
                if infer.is_some() {
                    return bad(r, "only one dimension can be -1".into());
                }
                infer = Some(out.len());
                push(&mut out, Dim::Static(1), false);
                src += 1;
            }
            -2 => {
                while src < ish.len() {
                    used_in[src] = true;
                    push(&mut out, ish[src].clone(), true);
                    src += 1;
                }
            }
            -3 => {
                if src + 1 >= ish.len() {
                    return bad(r, "-3 needs two more input dimensions".into());
                }
                used_in[src] = true;
                used_in[src + 1] = true;
                let d = dim_op(&ish[src], &ish[src + 1], i64::saturating_mul);
                push(&mut out, d, true);
                src += 2;
            }
            -4 => {
                if i + 2 >= newshape.len() || src >= ish.len() {
                    return bad(
                        r,
                        "-4 needs two values after it and an input dimension to split".into(),
                    );
                }
                let d0 = ish[src].clone();
                used_in[src] = true;
                src += 1;
                let (d1, d2) = (&newshape[i + 1], &newshape[i + 2]);
                i += 2;
                let (a, b) = match (val(d1), val(d2)) {
                    (-1, -1) => return bad(r, "split dimensions cannot both be -1".into()),
                    (-1, _) => (dim_op(&d0, d2, floordiv), d2.clone()),
                    (_, -1) => (d1.clone(), dim_op(&d0, d1, floordiv)),
                    _ => (d1.clone(), d2.clone()),
                };
                push(&mut out, a, true);
                push(&mut out, b, true);
            }
            v => return bad(r, format!("unsupported special value {v}")),
        }
        i += 1;
    }
    if let Some(at) = infer {
        let mut d = Dim::Static(1);
        for (k, x) in ish.iter().enumerate() {
            if !used_in[k] {
                d = if matches!(x, Dim::Any) {
                    Dim::Any
                } else {
                    dim_op(&d, x, i64::saturating_mul)
                };
            }
        }
        for (k, x) in out.iter().enumerate() {
            if !used_out[k] && k != at {
                d = if matches!(x, Dim::Any) {
                    Dim::Any
                } else {
                    dim_op(&d, x, floordiv)
                };
            }
        }
        out[at] = d;
    }
    if let (Some(a), Some(b)) = (num_elements(ish), num_elements(&out)) {
        if a != b {
            return r.fail(format!(
                "input shape {} and reshaped shape {} are not compatible",
                shape_str(ish),
                shape_str(&out)
            ));
        }
    }
    r.done_tensor(out, data.dtype)
}

/// `contrib_reverse_reshape(data, newshape=[...])`: `reshape` with the input shape and
/// `newshape` read from the right (TVM's `InferNewShape(.., reverse=true)`), so 0 and -2 copy
/// trailing dimensions.
pub(super) fn reverse_reshape(r: &mut Rel<'_>) -> RuleResult {
    let Some(data) = r.tensor(0)? else {
        return Ok(false);
    };
    let Some(AttrValue::Array(newshape)) = r.attr("newshape") else {
        return r.fail("needs the attribute `newshape` (a list)");
    };
    let reversed: Vec<AttrValue> = newshape.iter().rev().cloned().collect();
    let attrs = r.attrs.with("newshape", AttrValue::Array(reversed.into()));
    let rev_data = Type::tensor(data.shape.iter().rev().cloned().collect(), data.dtype);
    let types = [Some(rev_data), None];
    let mut sub = Rel::new(r.op, &attrs, &types);
    if !reshape(&mut sub)? {
        return Ok(false);
    }
    let Some(out) = sub
        .assigned
        .iter()
        .find(|(i, _)| *i == 1)
        .and_then(|(_, t)| t.as_tensor())
    else {
        return Ok(false);
    };
    let shape: Vec<Dim> = out.shape.iter().rev().cloned().collect();
    r.done_tensor(shape, data.dtype)
}

/// `reshape_like(data, like)`: `data[:lhs_begin] ++ like[rhs_begin:rhs_end] ++ data[lhs_end:]`.
pub(super) fn reshape_like(r: &mut Rel<'_>) -> RuleResult {
    let (Some(data), Some(like)) = (r.tensor(0)?, r.tensor(1)?) else {
        return Ok(false);
    };
    let range = |r: &Rel<'_>, b: &str, e: &str, n: usize| -> Result<(usize, usize), String> {
        let norm = |x: i64| if x < 0 { x + n as i64 } else { x }.clamp(0, n as i64) as usize;
        Ok((
            norm(r.int_or(b, 0)?),
            norm(r.opt_int(e)?.unwrap_or(n as i64)),
        ))
    };
    let (lb, le) = range(r, "lhs_begin", "lhs_end", data.shape.len())?;
    let (rb, re) = range(r, "rhs_begin", "rhs_end", like.shape.len())?;
    let mut out = data.shape[..lb].to_vec();
    out.extend_from_slice(&like.shape[rb..re.max(rb)]);
    out.extend_from_slice(&data.shape[le.max(lb)..]);
    if let (Some(a), Some(b)) = (num_elements(&data.shape), num_elements(&out)) {
        if a != b {
            return r.fail(format!("{data} cannot be reshaped to {}", shape_str(&out)));
        }
    }
    r.done_tensor(out, data.dtype)
}

pub(super) fn transpose(r: &mut Rel<'_>) -> RuleResult {
    let Some(data) = r.tensor(0)? else {
        return Ok(false);
    };
    let n = data.shape.len();
    let axes = r.opt_ints("axes")?.unwrap_or_default();
    let perm: Vec<usize> = if axes.is_empty() {
        (0..n).rev().collect()
    } else {
        if axes.len() != n {
            return r.fail(format!(
                "axes has {} elements but the data {data} has rank {n}",
                axes.len()
            ));
        }
        let mut used = vec![false; n];
        let mut perm = Vec::with_capacity(n);
        for a in axes {
            let ax = r.axis(a, n)?;
            if std::mem::replace(&mut used[ax], true) {
                return r.fail(format!("duplicate axis {a} in axes"));
            }
            perm.push(ax);
        }
        perm
    };
    let out = perm.iter().map(|&a| data.shape[a].clone()).collect();
    r.done_tensor(out, data.dtype)
}

pub(super) fn squeeze(r: &mut Rel<'_>) -> RuleResult {
    let Some(data) = r.tensor(0)? else {
        return Ok(false);
    };
    let out: Vec<Dim> = match r.opt_ints("axis")? {
        None => {
            if data.shape.iter().any(|d| d.as_static().is_none()) {
                return r.fail(format!(
                    "axis needs to be given for the dynamic input {data}"
                ));
            }
            data.shape
                .iter()
                .filter(|d| d.as_static() != Some(1))
                .cloned()
                .collect()
        }
        Some(axes) => {
            let mut drop = vec![false; data.shape.len()];
            for a in axes {
                let ax = r.axis(a, data.shape.len())?;
                if data.shape[ax].as_static().is_some_and(|d| d != 1) {
                    return r.fail(format!(
                        "cannot squeeze axis {a} of {data}: its extent is not 1"
                    ));
                }
                drop[ax] = true;
            }
            data.shape
                .iter()
                .zip(drop)
                .filter(|(_, d)| !d)
                .map(|(x, _)| x.clone())
                .collect()
        }
    };
    r.done_tensor(out, data.dtype)
}

pub(super) fn expand_dims(r: &mut Rel<'_>) -> RuleResult {
    let Some(data) = r.tensor(0)? else {
        return Ok(false);
    };
    let n = data.shape.len() as i64;
    let axis = r.int("axis")?;
    let k = r.int_or("num_newaxis", 1)?;
    if k < 0 {
        return r.fail(format!("num_newaxis must be >= 0, found {k}"));
    }
    if axis < -n - 1 || axis > n {
        return r.fail(format!(
            "axis {axis} is out of range [{}, {n}] for {data}",
            -n - 1
        ));
    }
    let pivot = if axis < 0 { n + axis + 1 } else { axis } as usize;
    let mut out = data.shape[..pivot].to_vec();
    out.extend((0..k).map(|_| Dim::Static(1)));
    out.extend_from_slice(&data.shape[pivot..]);
    r.done_tensor(out, data.dtype)
}

pub(super) fn layout_transform(r: &mut Rel<'_>) -> RuleResult {
    let Some(data) = r.tensor(0)? else {
        return Ok(false);
    };
    let src: Layout = r.layout("src_layout", "")?;
    let dst: Layout = r.layout("dst_layout", "")?;
    match src.convert(&data.shape, &dst) {
        Ok(out) => r.done_tensor(out, data.dtype),
        Err(e) => r.fail(e),
    }
}
