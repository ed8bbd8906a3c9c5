//! Neural-network rules (`src/relay/op/nn/{convolution,nn,pad}.cc` in TVM): convolutions
//! (1-3 d, and transposed), dense/matmul/batch_matmul, the normalizations, dropout, softmax,
//! bias_add/prelu, batch_flatten and pad.
//!
//! Several of these *assign input types*, as TVM's relations do: a convolution whose
//! `channels` and `kernel_size` are given assigns the weight type, `dense` with `units`
//! assigns the weight, batch_norm/layer_norm/bias_add/prelu assign their vector parameters
//! `(C,)` from the data shape. That is what lets unannotated parameters and opaque constants
//! be typed from their use. Checks of a *known* weight against the attributes report errors
//! rather than assigning.

use super::{dim_map, dim_op, dims_conflict, floordiv, shape_str, tensor, Layout, Rel, RuleResult};
use crate::ir::attrs::AttrValue;
use crate::ir::{DType, Dim};

fn spatial_axes(op: &str) -> &'static str {
    if op.contains("1d") {
        "W"
    } else if op.contains("3d") {
        "DHW"
    } else {
        "HW"
    }
}

/// An attribute holding one value per spatial axis (a single value applies to all).
fn per_axis(r: &Rel<'_>, name: &str, n: usize, default: i64) -> Result<Vec<i64>, String> {
    match r.opt_ints(name)? {
        None => Ok(vec![default; n]),
        Some(v) if v.len() == n => Ok(v),
        Some(v) if v.len() == 1 => Ok(vec![v[0]; n]),
        Some(v) => r.fail(format!("attribute `{name}` needs {n} values, found {}", v.len())),
    }
}

/// Total padding per spatial axis: `[p]`, `[p_0..p_n]` (both sides) or `[before.., after..]`.
fn total_padding(r: &Rel<'_>, n: usize) -> Result<Vec<i64>, String> {
    let p = r.opt_ints("padding")?.unwrap_or_else(|| vec![0]);
    if p.len() == 1 {
        Ok(vec![2 * p[0]; n])
    } else if p.len() == n {
        Ok(p.iter().map(|x| 2 * x).collect())
    } else if p.len() == 2 * n {
        Ok((0..n).map(|i| p[i] + p[i + n]).collect())
    } else {
        r.fail(format!("attribute `padding` has {} values; expected 1, {n} or {}", p.len(), 2 * n))
    }
}

fn attr_dim(r: &Rel<'_>, name: &str) -> Result<Option<Dim>, String> {
    Ok(r.dims(name)?.and_then(|v| v.into_iter().next()))
}

fn convert(r: &Rel<'_>, from: &Layout, shape: &[Dim], to: &Layout) -> Result<Vec<Dim>, String> {
    from.convert(shape, to).or_else(|e| r.fail(e))
}

/// `nn.conv1d/2d/3d` (`Conv2DRel` and its 1-d/3-d siblings).
pub(super) fn conv(r: &mut Rel<'_>) -> RuleResult {
    let sp = spatial_axes(r.op);
    let n = sp.len();
    let Some(data) = r.tensor(0)? else { return Ok(false) };
    let weight = r.tensor(1)?;
    let canon_data = Layout::parse(&format!("NC{sp}"))?;
    let canon_kernel = Layout::parse(&format!("OI{sp}"))?;
    let data_layout = r.layout("data_layout", "")?;
    let kernel_layout = r.layout("kernel_layout", "")?;
    let (data_layout, kernel_layout) = (
        if data_layout.len() == 0 { canon_data.clone() } else { data_layout },
        if kernel_layout.len() == 0 { canon_kernel.clone() } else { kernel_layout },
    );
    let out_layout = match r.str_or("out_layout", "") {
        "" => data_layout.clone(),
        s => Layout::parse(s).or_else(|e| r.fail(e))?,
    };
    let d = convert(r, &data_layout, &data.shape, &canon_data)?;
    let groups = r.int_or("groups", 1)?;
    let strides = per_axis(r, "strides", n, 1)?;
    let dilation = per_axis(r, "dilation", n, 1)?;
    let pad = total_padding(r, n)?;
    let kernel_size = r.dims("kernel_size")?;
    let channels = attr_dim(r, "channels")?;
    let out_dtype = r.dtype("out_dtype")?.unwrap_or(data.dtype);
    let wc = match weight {
        Some(w) => Some(convert(r, &kernel_layout, &w.shape, &canon_kernel)?),
        None => None,
    };
    let depthwise = groups > 1
        && d[1].as_static() == Some(groups)
        && wc.as_ref().is_some_and(|w| w[0].as_static() == Some(groups));
    let (out_channels, ksize) = match (kernel_size, channels) {
        (Some(ks), Some(ch)) => {
            if ks.len() != n {
                return r.fail(format!("kernel_size needs {n} values, found {}", ks.len()));
            }
            let mut w = if depthwise {
                vec![d[1].clone(), dim_op(&ch, &d[1], floordiv)]
            } else {
                vec![ch.clone(), dim_map(&d[1], |c| floordiv(c, groups))]
            };
            w.extend(ks.iter().cloned());
            let wshape = convert(r, &canon_kernel, &w, &kernel_layout)?;
            let wdtype = weight.map(|w| w.dtype).unwrap_or(data.dtype);
            r.assign(1, tensor(wshape, wdtype));
            (ch, ks)
        }
        (ks, ch) => {
            let (Some(w), Some(wc)) = (weight, wc) else { return Ok(false) };
            if let Some(ks) = &ks {
                if ks.len() != n || ks.iter().zip(&wc[2..]).any(|(a, b)| dims_conflict(a, b)) {
                    return r.mismatch(format!(
                        "the weight {w} is inconsistent with kernel_size={}",
                        shape_str(ks)
                    ));
                }
            }
            if let Some(ch) = &ch {
                if dims_conflict(ch, &wc[0]) {
                    return r.mismatch(format!(
                        "the weight {w} does not match channels={ch} (its output channels are {})",
                        wc[0]
                    ));
                }
            }
            let c_in = dim_map(&d[1], |c| floordiv(c, groups));
            if !depthwise && dims_conflict(&c_in, &wc[1]) {
                return r.mismatch(format!(
                    "the input channels ({}) divided by groups ({groups}) must match the weight's input channels {} (data {data}, weight {w})",
                    d[1], wc[1]
                ));
            }
            (wc[0].clone(), wc[2..].to_vec())
        }
    };
    let mut out = vec![d[0].clone(), out_channels];
    for i in 0..n {
        let dk = dim_map(&ksize[i], |k| 1 + (k - 1) * dilation[i]);
        let x = dim_map(&d[2 + i], |x| x + pad[i]);
        let o = dim_op(&x, &dk, |x, k| floordiv(x - k, strides[i]) + 1);
        out.push(if matches!(d[2 + i], Dim::Any) { Dim::Any } else { o });
    }
    let out = convert(r, &canon_data, &out, &out_layout)?;
    r.done_tensor(out, out_dtype)
}

/// `nn.conv{1,2,3}d_transpose` (`Conv2DTransposeRel`); kernels are `IO..` by default.
pub(super) fn conv_transpose(r: &mut Rel<'_>) -> RuleResult {
    let sp = spatial_axes(r.op);
    let n = sp.len();
    let Some(data) = r.tensor(0)? else { return Ok(false) };
    let weight = r.tensor(1)?;
    let canon_data = Layout::parse(&format!("NC{sp}"))?;
    let canon_kernel = Layout::parse(&format!("IO{sp}"))?;
    let data_layout = r.layout("data_layout", "")?;
    let data_layout = if data_layout.len() == 0 { canon_data.clone() } else { data_layout };
    let kernel_layout = r.layout("kernel_layout", "")?;
    let kernel_layout = if kernel_layout.len() == 0 { canon_kernel.clone() } else { kernel_layout };
    let out_layout = match r.str_or("out_layout", "") {
        "" => data_layout.clone(),
        s => Layout::parse(s).or_else(|e| r.fail(e))?,
    };
    let d = convert(r, &data_layout, &data.shape, &canon_data)?;
    let groups = r.int_or("groups", 1)?;
    let strides = per_axis(r, "strides", n, 1)?;
    let dilation = per_axis(r, "dilation", n, 1)?;
    let out_pad = per_axis(r, "output_padding", n, 0)?;
    let pad = total_padding(r, n)?;
    let out_dtype = r.dtype("out_dtype")?.unwrap_or(data.dtype);
    let (channels, ksize) = match (r.dims("kernel_size")?, attr_dim(r, "channels")?) {
        (Some(ks), Some(ch)) if ks.len() == n => {
            let mut w = vec![d[1].clone(), dim_map(&ch, |c| floordiv(c, groups))];
            w.extend(ks.iter().cloned());
            let wshape = convert(r, &canon_kernel, &w, &kernel_layout)?;
            let wdtype = weight.map(|w| w.dtype).unwrap_or(data.dtype);
            r.assign(1, tensor(wshape, wdtype));
            (ch, ks)
        }
        _ => {
            let Some(w) = weight else { return Ok(false) };
            let wc = convert(r, &kernel_layout, &w.shape, &canon_kernel)?;
            if dims_conflict(&d[1], &wc[0]) {
                return r.mismatch(format!("the data {data} and the weight {w} disagree on input channels"));
            }
            (dim_map(&wc[1], |o| o * groups), wc[2..].to_vec())
        }
    };
    let mut out = vec![d[0].clone(), channels];
    for i in 0..n {
        let dk = dim_map(&ksize[i], |k| 1 + (k - 1) * dilation[i]);
        let o = dim_op(&d[2 + i], &dk, |x, k| strides[i] * (x - 1) + k - pad[i] + out_pad[i]);
        out.push(o);
    }
    let out = convert(r, &canon_data, &out, &out_layout)?;
    r.done_tensor(out, out_dtype)
}

/// `MatmulRel`: `data (..., K)` times the weight; dense is matmul with `transpose_b`.
fn matmul_rel(r: &mut Rel<'_>, transpose_a: bool, transpose_b: bool) -> RuleResult {
    let Some(a) = r.tensor(0)? else { return Ok(false) };
    let b = r.tensor(1)?;
    let rank = a.shape.len();
    if rank == 0 || (transpose_a && rank < 2) {
        return r.fail(format!("the data must have rank >= {}, found {a}", 1 + transpose_a as usize));
    }
    let mut oshape = a.shape.clone();
    let mut reduce = a.shape[rank - 1].clone();
    if transpose_a {
        reduce = a.shape[rank - 2].clone();
        oshape[rank - 2] = a.shape[rank - 1].clone();
    }
    if let Some(units) = attr_dim(r, "units")? {
        let wshape = if transpose_b { vec![units.clone(), reduce] } else { vec![reduce, units.clone()] };
        let wdtype = b.map(|b| b.dtype).unwrap_or(a.dtype);
        r.assign(1, tensor(wshape, wdtype));
        oshape[rank - 1] = units;
    } else {
        let Some(b) = b else { return Ok(false) };
        if b.shape.len() != 2 {
            return r.mismatch(format!("the weight must be 2-d, found {b}"));
        }
        let (k, units) = if transpose_b { (&b.shape[1], &b.shape[0]) } else { (&b.shape[0], &b.shape[1]) };
        if dims_conflict(&reduce, k) {
            return r.mismatch(format!("input dimension doesn't match: data {a}, weight {b}"));
        }
        oshape[rank - 1] = units.clone();
    }
    let dt = r.dtype("out_dtype")?.unwrap_or(a.dtype);
    r.done_tensor(oshape, dt)
}

pub(super) fn dense(r: &mut Rel<'_>) -> RuleResult {
    matmul_rel(r, false, true)
}

pub(super) fn matmul(r: &mut Rel<'_>) -> RuleResult {
    let (ta, tb) = (r.bool_or("transpose_a", false), r.bool_or("transpose_b", false));
    matmul_rel(r, ta, tb)
}

pub(super) fn batch_matmul(r: &mut Rel<'_>) -> RuleResult {
    let (Some(x), Some(y)) = (r.tensor(0)?, r.tensor(1)?) else {
        return Ok(false);
    };
    if x.shape.len() != 3 || y.shape.len() != 3 {
        return r.mismatch(format!("both operands must be 3-d, found {x} and {y}"));
    }
    let (ta, tb) = (r.bool_or("transpose_a", false), r.bool_or("transpose_b", false));
    let (xb, xi, xk) = (&x.shape[0], &x.shape[if ta { 2 } else { 1 }], &x.shape[if ta { 1 } else { 2 }]);
    let (yb, yk, yj) = (&y.shape[0], &y.shape[if tb { 2 } else { 1 }], &y.shape[if tb { 1 } else { 2 }]);
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
fn vector_of(r: &Rel<'_>, shape: &[Dim], axis: i64, dtype: DType) -> Result<crate::ir::Type, String> {
    let ax = r.axis(axis, shape.len())?;
    Ok(tensor(vec![shape[ax].clone()], dtype))
}

pub(super) fn batch_norm(r: &mut Rel<'_>) -> RuleResult {
    let Some(data) = r.tensor(0)? else { return Ok(false) };
    let v = vector_of(r, &data.shape, r.int_or("axis", 1)?, data.dtype)?;
    for i in 1..5 {
        r.assign(i, v.clone());
    }
    let out = crate::ir::Type::tuple(vec![tensor(data.shape.clone(), data.dtype), v.clone(), v]);
    r.done(out)
}

/// `nn.layer_norm`, `nn.instance_norm`, `nn.group_norm`: gamma and beta are `(C,)`.
pub(super) fn norm(r: &mut Rel<'_>) -> RuleResult {
    let Some(data) = r.tensor(0)? else { return Ok(false) };
    let default_axis = if r.op == "nn.layer_norm" { -1 } else { 1 };
    let v = vector_of(r, &data.shape, r.int_or("axis", default_axis)?, data.dtype)?;
    r.assign(1, v.clone());
    r.assign(2, v);
    r.done_tensor(data.shape.clone(), data.dtype)
}

pub(super) fn dropout(r: &mut Rel<'_>) -> RuleResult {
    let Some(data) = r.tensor(0)? else { return Ok(false) };
    let t = tensor(data.shape.clone(), data.dtype);
    r.done(crate::ir::Type::tuple(vec![t.clone(), t]))
}

pub(super) fn softmax(r: &mut Rel<'_>) -> RuleResult {
    let Some(data) = r.tensor(0)? else { return Ok(false) };
    r.axis(r.int_or("axis", -1)?, data.shape.len())?;
    r.done_tensor(data.shape.clone(), data.dtype)
}

/// `nn.bias_add` and `nn.prelu`: the second argument is `(C,)` for the channel `axis`.
pub(super) fn bias_add(r: &mut Rel<'_>) -> RuleResult {
    let Some(data) = r.tensor(0)? else { return Ok(false) };
    let v = vector_of(r, &data.shape, r.int_or("axis", 1)?, data.dtype)?;
    r.assign(1, v);
    r.done_tensor(data.shape.clone(), data.dtype)
}

pub(super) fn batch_flatten(r: &mut Rel<'_>) -> RuleResult {
    let Some(data) = r.tensor(0)? else { return Ok(false) };
    if data.shape.is_empty() {
        return r.fail("needs a tensor of rank >= 1");
    }
    let mut target = Dim::Static(1);
    for d in &data.shape[1..] {
        if matches!(d, Dim::Any) {
            target = Dim::Any;
            break;
        }
        target = dim_op(&target, d, |a, b| a * b);
    }
    r.done_tensor(vec![data.shape[0].clone(), target], data.dtype)
}

/// `nn.pad` / `nn.mirror_pad`: `pad_width=[[before, after], ...]`, one pair per axis.
pub(super) fn pad(r: &mut Rel<'_>) -> RuleResult {
    let Some(data) = r.tensor(0)? else { return Ok(false) };
    let pairs: Option<Vec<Vec<i64>>> = r
        .attr("pad_width")
        .and_then(AttrValue::as_array)
        .map(|a| a.iter().map(AttrValue::as_int_list).collect::<Option<Vec<_>>>())
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
