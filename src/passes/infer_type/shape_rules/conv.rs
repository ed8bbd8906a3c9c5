//! Convolution rules (`src/relay/op/nn/convolution.{h,cc}` in TVM): `Conv2DRel` and its 1-d
//! and 3-d siblings, and the transposed convolutions, over any layout bijective to the
//! canonical one (`NCHW`/`OIHW`, `NHWC`/`HWIO`, `NCHW16c`, ...).
//!
//! When `channels` and `kernel_size` are both given, the weight type is *assigned* (TVM's
//! rule: `(channels, C_in / groups, kh, kw)`, or `(C_in, channels / C_in, kh, kw)` for a
//! depthwise convolution with a known weight), converted to `kernel_layout`; that is how an
//! unannotated weight or an opaque constant gets its type. Otherwise the weight must be known
//! and is checked against the attributes and the input channels.

use super::{dim_map, dim_op, dims_conflict, floordiv, shape_str, tensor, Layout, Rel, RuleResult};
use crate::ir::Dim;

fn spatial_axes(op: &str) -> &'static str {
    // The digit before the first `d` that follows one (`nn.conv1d`, `nn.conv3d_transpose`).
    let b = op.as_bytes();
    match b.windows(2).find(|w| w[0].is_ascii_digit() && w[1] == b'd') {
        Some([b'1', _]) => "W",
        Some([b'3', _]) => "DHW",
        _ => "HW",
    }
}

/// The canonical layout `prefix` + spatial axes (`NCHW`, `OIDHW`, `IOW`), from the cache.
fn canonical(prefix: &str, sp: &str) -> Result<Layout, String> {
    let name = match (prefix, sp) {
        ("NC", "W") => "NCW",
        ("NC", "HW") => "NCHW",
        ("NC", "DHW") => "NCDHW",
        ("OI", "W") => "OIW",
        ("OI", "HW") => "OIHW",
        ("OI", "DHW") => "OIDHW",
        ("IO", "W") => "IOW",
        ("IO", "HW") => "IOHW",
        ("IO", "DHW") => "IODHW",
        _ => return Layout::parse(&format!("{prefix}{sp}")),
    };
    Layout::parse(name)
}

/// An attribute holding one value per spatial axis (a single value applies to all).
fn per_axis(r: &Rel<'_>, name: &str, n: usize, default: i64) -> Result<Vec<i64>, String> {
    match r.opt_ints(name)? {
        None => Ok(vec![default; n]),
        Some(v) if v.len() == n => Ok(v),
        Some(v) if v.len() == 1 => Ok(vec![v[0]; n]),
        Some(v) => r.fail(format!(
            "attribute `{name}` needs {n} values, found {}",
            v.len()
        )),
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
        r.fail(format!(
            "attribute `padding` has {} values; expected 1, {n} or {}",
            p.len(),
            2 * n
        ))
    }
}

fn convert(r: &Rel<'_>, from: &Layout, shape: &[Dim], to: &Layout) -> Result<Vec<Dim>, String> {
    from.convert(shape, to).or_else(|e| r.fail(e))
}

/// `nn.conv1d/2d/3d` (`Conv2DRel` and its 1-d/3-d siblings).
pub(super) fn conv(r: &mut Rel<'_>) -> RuleResult {
    let sp = spatial_axes(r.op);
    let n = sp.len();
    let Some(data) = r.tensor(0)? else {
        return Ok(false);
    };
    let weight = r.tensor(1)?;
    let canon_data = canonical("NC", sp)?;
    let canon_kernel = canonical("OI", sp)?;
    let data_layout = r.layout("data_layout", "")?;
    let kernel_layout = r.layout("kernel_layout", "")?;
    let (data_layout, kernel_layout) = (
        if data_layout.len() == 0 {
            canon_data.clone()
        } else {
            data_layout
        },
        if kernel_layout.len() == 0 {
            canon_kernel.clone()
        } else {
            kernel_layout
        },
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
    let channels = r.dim("channels")?;
    let out_dtype = r.dtype("out_dtype")?.unwrap_or(data.dtype);
    let wc = match weight {
        Some(w) => Some(convert(r, &kernel_layout, &w.shape, &canon_kernel)?),
        None => None,
    };
    let depthwise = groups > 1
        && d[1].as_static() == Some(groups)
        && wc
            .as_ref()
            .is_some_and(|w| w[0].as_static() == Some(groups));
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
            let (Some(w), Some(wc)) = (weight, wc) else {
                return Ok(false);
            };
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
        out.push(if matches!(d[2 + i], Dim::Any) {
            Dim::Any
        } else {
            o
        });
    }
    let out = convert(r, &canon_data, &out, &out_layout)?;
    r.done_tensor(out, out_dtype)
}

/// `nn.conv{1,2,3}d_transpose` (`Conv2DTransposeRel`); kernels are `IO..` by default.
pub(super) fn conv_transpose(r: &mut Rel<'_>) -> RuleResult {
    let sp = spatial_axes(r.op);
    let n = sp.len();
    let Some(data) = r.tensor(0)? else {
        return Ok(false);
    };
    let weight = r.tensor(1)?;
    let canon_data = canonical("NC", sp)?;
    let canon_kernel = canonical("IO", sp)?;
    let data_layout = r.layout("data_layout", "")?;
    let data_layout = if data_layout.len() == 0 {
        canon_data.clone()
    } else {
        data_layout
    };
    let kernel_layout = r.layout("kernel_layout", "")?;
    let kernel_layout = if kernel_layout.len() == 0 {
        canon_kernel.clone()
    } else {
        kernel_layout
    };
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
    let (channels, ksize) = match (r.dims("kernel_size")?, r.dim("channels")?) {
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
                return r.mismatch(format!(
                    "the data {data} and the weight {w} disagree on input channels"
                ));
            }
            (dim_map(&wc[1], |o| o * groups), wc[2..].to_vec())
        }
    };
    let mut out = vec![d[0].clone(), channels];
    for i in 0..n {
        let dk = dim_map(&ksize[i], |k| 1 + (k - 1) * dilation[i]);
        let o = dim_op(&d[2 + i], &dk, |x, k| {
            strides[i] * (x - 1) + k - pad[i] + out_pad[i]
        });
        out.push(o);
    }
    let out = convert(r, &canon_data, &out, &out_layout)?;
    r.done_tensor(out, out_dtype)
}
