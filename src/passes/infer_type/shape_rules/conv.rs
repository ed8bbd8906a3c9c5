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

/// The output extent of one spatial axis: `(x + pad - dilated kernel) / stride + 1`.
fn out_extent(x: &Dim, pad: i64, k: &Dim, dilation: i64, stride: i64) -> Dim {
    let dk = dim_map(k, |k| 1 + (k - 1) * dilation);
    let x = dim_map(x, |x| x + pad);
    dim_op(&x, &dk, |x, k| floordiv(x - k, stride) + 1)
}

/// The data, kernel and output layouts of a 2-d convolution (`out_layout` "" is the data's).
fn layouts_2d(r: &Rel<'_>) -> Result<(Layout, Layout, Layout), String> {
    let data = r.layout("data_layout", "NCHW")?;
    let kernel = r.layout("kernel_layout", "OIHW")?;
    let out = match r.str_or("out_layout", "") {
        "" => data.clone(),
        s => Layout::parse(s).or_else(|e| r.fail(e))?,
    };
    Ok((data, kernel, out))
}

/// `nn.contrib_conv2d_NCHWc` (TVM's `Conv2DWinogradRel<Conv2DAttrs>`): blocked data, the
/// output from `channels` and `kernel_size`, which must be given; the weight, whose blocked
/// layout depends on the target, is not checked.
pub(super) fn conv2d_nchwc(r: &mut Rel<'_>) -> RuleResult {
    let Some(data) = r.tensor(0)? else {
        return Ok(false);
    };
    let (data_layout, _, out_layout) = layouts_2d(r)?;
    let nchw = canonical("NC", "HW")?;
    let d = convert(r, &data_layout, &data.shape, &nchw)?;
    let (Some(ks), Some(channels)) = (r.dims("kernel_size")?, r.dim("channels")?) else {
        return r.fail("needs `channels` and `kernel_size` (set or inferred by a previous pass)");
    };
    if ks.len() != 2 {
        return r.fail(format!("kernel_size needs 2 values, found {}", ks.len()));
    }
    let strides = per_axis(r, "strides", 2, 1)?;
    let dilation = per_axis(r, "dilation", 2, 1)?;
    let pad = total_padding(r, 2)?;
    let mut out = vec![d[0].clone(), channels];
    for i in 0..2 {
        out.push(match d[2 + i] {
            Dim::Any => Dim::Any,
            _ => out_extent(&d[2 + i], pad[i], &ks[i], dilation[i], strides[i]),
        });
    }
    let out_dtype = r.dtype("out_dtype")?.unwrap_or(data.dtype);
    let out = convert(r, &nchw, &out, &out_layout)?;
    r.done_tensor(out, out_dtype)
}

/// `nn.deformable_conv2d` (TVM's `DeformableConv2DRel`): data, offset and weight; the weight
/// is assigned from `channels` and `kernel_size` when both are given, else read; the offset
/// is assigned `(N, 2 * kh * kw * deformable_groups, out_h, out_w)` in the data layout.
pub(super) fn deformable_conv2d(r: &mut Rel<'_>) -> RuleResult {
    let Some(data) = r.tensor(0)? else {
        return Ok(false);
    };
    let weight = r.tensor(2)?;
    let (data_layout, kernel_layout, out_layout) = layouts_2d(r)?;
    let (nchw, oihw) = (canonical("NC", "HW")?, canonical("OI", "HW")?);
    let d = convert(r, &data_layout, &data.shape, &nchw)?;
    let groups = r.int_or("groups", 1)?;
    let deformable_groups = r.int_or("deformable_groups", 1)?;
    let strides = per_axis(r, "strides", 2, 1)?;
    let dilation = per_axis(r, "dilation", 2, 1)?;
    let pad = total_padding(r, 2)?;
    let (channels, ks) = match (r.dims("kernel_size")?, r.dim("channels")?) {
        (Some(ks), Some(ch)) => {
            if ks.len() != 2 {
                return r.fail(format!("kernel_size needs 2 values, found {}", ks.len()));
            }
            let w = vec![
                ch.clone(),
                dim_map(&d[1], |c| floordiv(c, groups)),
                ks[0].clone(),
                ks[1].clone(),
            ];
            let wshape = convert(r, &oihw, &w, &kernel_layout)?;
            r.assign(2, tensor(wshape, data.dtype));
            (ch, ks)
        }
        (ks, ch) => {
            let Some(w) = weight else { return Ok(false) };
            let wc = convert(r, &kernel_layout, &w.shape, &oihw)?;
            if let Some(ks) = &ks {
                if ks.len() != 2 || ks.iter().zip(&wc[2..]).any(|(a, b)| dims_conflict(a, b)) {
                    return r.mismatch(format!(
                        "the weight {w} is inconsistent with kernel_size={}",
                        shape_str(ks)
                    ));
                }
            }
            if ch.as_ref().is_some_and(|ch| dims_conflict(ch, &wc[0])) {
                return r.mismatch(format!(
                    "the weight {w} is inconsistent with channels={}",
                    ch.as_ref().map(ToString::to_string).unwrap_or_default()
                ));
            }
            let c_in = dim_map(&d[1], |c| floordiv(c, groups));
            if dims_conflict(&c_in, &wc[1]) {
                return r.mismatch(format!(
                    "the input channels ({}) divided by groups ({groups}) must match the weight's input channels {} (data {data}, weight {w})",
                    d[1], wc[1]
                ));
            }
            (wc[0].clone(), wc[2..].to_vec())
        }
    };
    let oh = out_extent(&d[2], pad[0], &ks[0], dilation[0], strides[0]);
    let ow = out_extent(&d[3], pad[1], &ks[1], dilation[1], strides[1]);
    let taps = dim_op(&ks[0], &ks[1], |a, b| {
        2i64.saturating_mul(a)
            .saturating_mul(b)
            .saturating_mul(deformable_groups)
    });
    let offset = vec![d[0].clone(), taps, oh.clone(), ow.clone()];
    let offset = convert(r, &nchw, &offset, &data_layout)?;
    r.assign(1, tensor(offset, data.dtype));
    let out_dtype = r.dtype("out_dtype")?.unwrap_or(data.dtype);
    let out = convert(r, &nchw, &[d[0].clone(), channels, oh, ow], &out_layout)?;
    r.done_tensor(out, out_dtype)
}

/// `nn.contrib_conv2d_gemm_weight_transform` (`Conv2DGemmWeightTransformRel`): an HWIO kernel
/// flattened to `K = H * W * I` by `N = O`, padded (K to a multiple of `4 * tile_K`, N to one
/// of `tile_N`) and tiled: `(N / tile_N, K / tile_K, tile_N, tile_K)` for 8-bit integer
/// weights, `(N / tile_N, K / tile_K, tile_K, tile_N)` otherwise.
pub(super) fn conv2d_gemm_weight_transform(r: &mut Rel<'_>) -> RuleResult {
    let Some(w) = r.tensor(0)? else {
        return Ok(false);
    };
    if w.shape.len() != 4 {
        return r.fail(format!("only an HWIO kernel is supported, found {w}"));
    }
    let (n, k) = (r.int("tile_N")?, r.int("tile_K")?);
    if n <= 0 || k <= 0 || k > i64::MAX / 4 {
        return r.fail(format!("tile_N ({n}) and tile_K ({k}) must be positive"));
    }
    let big_k = dim_op(
        &dim_op(&w.shape[0], &w.shape[1], i64::saturating_mul),
        &w.shape[2],
        i64::saturating_mul,
    );
    let pad_to = |d: &Dim, m: i64| dim_map(d, |x| x.saturating_add((m - x % m) % m));
    let (k_padded, n_padded) = (pad_to(&big_k, 4 * k), pad_to(&w.shape[3], n));
    let (rows, cols) = (
        dim_map(&n_padded, |x| floordiv(x, n)),
        dim_map(&k_padded, |x| floordiv(x, k)),
    );
    let int8 = w.dtype.bits == 8
        && matches!(
            w.dtype.code,
            crate::ir::dtype::DTypeCode::Int | crate::ir::dtype::DTypeCode::UInt
        );
    let tiles = if int8 {
        [Dim::Static(n), Dim::Static(k)]
    } else {
        [Dim::Static(k), Dim::Static(n)]
    };
    let out = vec![rows, cols, tiles[0].clone(), tiles[1].clone()];
    r.done_tensor(out, w.dtype)
}

/// `nn.contrib_conv2d_gemm_without_weight_transform` (`Conv2DGemmRel`): the convolution's
/// output from the data, `channels`, `kernel_size`, strides, padding and dilation, in the
/// data's (or `out_layout`'s) layout; the transformed weight is not checked, as in TVM.
pub(super) fn conv2d_gemm(r: &mut Rel<'_>) -> RuleResult {
    let Some(data) = r.tensor(0)? else {
        return Ok(false);
    };
    let nhwc = Layout::parse("NHWC").or_else(|e| r.fail(e))?;
    let data_layout = r.layout("data_layout", "NCHW")?;
    let out_layout = match r.str_or("out_layout", "") {
        "" => data_layout.clone(),
        s => Layout::parse(s).or_else(|e| r.fail(e))?,
    };
    let d = convert(r, &data_layout, &data.shape, &nhwc)?;
    let (Some(ks), Some(channels)) = (r.dims("kernel_size")?, r.dim("channels")?) else {
        return r.fail("the kernel size and channels must be set");
    };
    if ks.len() != 2 {
        return r.fail(format!("kernel_size needs 2 values, found {}", ks.len()));
    }
    let strides = per_axis(r, "strides", 2, 1)?;
    let dilation = per_axis(r, "dilation", 2, 1)?;
    let pad = total_padding(r, 2)?;
    let mut out = vec![d[0].clone()];
    for i in 0..2 {
        let dk = dim_map(&ks[i], |k| 1 + (k - 1) * dilation[i]);
        let x = dim_map(&d[1 + i], |x| x + pad[i]);
        let o = dim_op(&x, &dk, |x, k| floordiv(x - k, strides[i]) + 1);
        out.push(if matches!(d[1 + i], Dim::Any) {
            Dim::Any
        } else {
            o
        });
    }
    out.push(channels);
    let out = convert(r, &nhwc, &out, &out_layout)?;
    let out_dtype = r.dtype("out_dtype")?.unwrap_or(data.dtype);
    r.done_tensor(out, out_dtype)
}
