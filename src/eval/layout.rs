//! Layouts in the evaluator: `layout_transform` between any two layouts of the same primal
//! axes, split or not (`NCHW` <-> `NHWC`, `NCHW` <-> `NCHW16c`, `OIHW` <-> `OIHW4i8o`), and the
//! convolutions in layouts other than the canonical ones (`NHWC` / `HWIO`,
//! `nn.contrib_conv2d_NCHWc`), computed as the canonical convolution between two transforms.
//!
//! A layout is a string of axes: an upper-case letter is a primal axis, a lower-case letter
//! preceded by its factor (`16c`) is a block of that primal axis; an axis split twice
//! (`OHWI16i64o2i`) has its earlier block outside its later one. A transform whose split
//! does not divide an axis is rejected (`None`), as TVM's type relation rejects it.

use super::nn;
use super::shape_ops::bounded;
use super::value::{each, Value};
use crate::ir::attrs::AttrValue;
use crate::ir::Attrs;
use ndarray::{ArrayD, IxDyn};

/// One axis of a layout: its letter (upper case) and, for a block, its factor.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Axis {
    primal: u8,
    factor: Option<usize>,
}

/// The axes of a layout string, `None` when it is malformed (a primal axis twice, a block
/// without a factor or of an axis the layout does not have). A primal axis may be split more
/// than once (`OHWI16i64o2i`), the earlier block the outer one, as in TVM's `Layout`.
fn parse(layout: &str) -> Option<Vec<Axis>> {
    let mut axes = Vec::new();
    let mut factor: Option<usize> = None;
    for b in layout.bytes() {
        match b {
            b'0'..=b'9' => {
                let f = factor
                    .unwrap_or(0)
                    .checked_mul(10)?
                    .checked_add((b - b'0') as usize)?;
                factor = Some(f);
            }
            b'A'..=b'Z' if factor.is_none() => axes.push(Axis {
                primal: b,
                factor: None,
            }),
            b'a'..=b'z' => axes.push(Axis {
                primal: b.to_ascii_uppercase(),
                factor: Some(factor.take().filter(|&f| f > 0)?),
            }),
            _ => return None,
        }
    }
    let primals: Vec<u8> = axes
        .iter()
        .filter(|a| a.factor.is_none())
        .map(|a| a.primal)
        .collect();
    let mut sorted = primals.clone();
    sorted.sort_unstable();
    sorted.dedup();
    let blocks_ok = axes
        .iter()
        .filter(|a| a.factor.is_some())
        .all(|a| primals.contains(&a.primal));
    (factor.is_none() && sorted.len() == primals.len() && blocks_ok).then_some(axes)
}

/// How each axis of a layout maps to the logical index `l` of its primal axis: the axis's
/// index is `(l / inner) % modulus` (`modulus` 0: no modulus, for a primal axis), where `inner`
/// is the product of the factors of the blocks of the same primal axis after it (all of them
/// for a primal axis), TVM's `GetStoreRule`. `None` when a product overflows.
fn strides_within(axes: &[Axis]) -> Option<Vec<(usize, usize)>> {
    axes.iter()
        .enumerate()
        .map(|(k, ax)| {
            let later = |j: usize| j > k || ax.factor.is_none();
            let inner = axes
                .iter()
                .enumerate()
                .filter(|(j, b)| later(*j) && b.primal == ax.primal && b.factor.is_some())
                .try_fold(1usize, |acc, (_, b)| acc.checked_mul(b.factor?))?;
            Some((inner, ax.factor.unwrap_or(0)))
        })
        .collect()
}

/// `layout_transform(x, src_layout, dst_layout)`.
pub(crate) fn layout_transform(attrs: &Attrs, x: &Value) -> Option<Value> {
    transform(
        x,
        attrs.get_str("src_layout")?,
        attrs.get_str("dst_layout")?,
    )
}

/// `x`, laid out as `src`, laid out as `dst`.
pub(crate) fn transform(x: &Value, src: &str, dst: &str) -> Option<Value> {
    if src == dst {
        return Some(x.clone());
    }
    let (s, d) = (parse(src)?, parse(dst)?);
    let shape = x.shape();
    if s.len() != shape.len() {
        return None;
    }
    let mut primals: Vec<u8> = s
        .iter()
        .filter(|a| a.factor.is_none())
        .map(|a| a.primal)
        .collect();
    let mut dprimals: Vec<u8> = d
        .iter()
        .filter(|a| a.factor.is_none())
        .map(|a| a.primal)
        .collect();
    primals.sort_unstable();
    dprimals.sort_unstable();
    if primals != dprimals {
        return None;
    }
    let (ss, ds) = (strides_within(&s)?, strides_within(&d)?);
    // The logical extent of each primal axis (A-Z), checked against the source's blocks.
    let mut extent = [0usize; 26];
    for ((ax, &dim), &(inner, _)) in s.iter().zip(shape).zip(&ss) {
        match ax.factor {
            Some(f) if f != dim => return None,
            Some(_) => {}
            None => extent[(ax.primal - b'A') as usize] = dim.checked_mul(inner)?,
        }
    }
    let out_shape: Vec<usize> = d
        .iter()
        .zip(&ds)
        .map(|(ax, &(inner, _))| {
            let e = extent[(ax.primal - b'A') as usize];
            match ax.factor {
                // Every block of an axis divides its extent when the primal's total does.
                Some(f) => e.is_multiple_of(inner.checked_mul(f)?).then_some(f),
                None => e.is_multiple_of(inner).then_some(e / inner),
            }
        })
        .collect::<Option<_>>()?;
    bounded(&out_shape)?;
    // Row-major strides of the source.
    let mut strides = vec![1usize; shape.len()];
    for k in (0..shape.len().saturating_sub(1)).rev() {
        strides[k] = strides[k + 1] * shape[k + 1];
    }
    let total: usize = out_shape.iter().product();
    let mut offsets = Vec::with_capacity(total);
    let mut idx = vec![0usize; out_shape.len()];
    let mut logical = [0usize; 26];
    for _ in 0..total {
        logical.fill(0);
        for ((ax, &i), &(inner, _)) in d.iter().zip(&idx).zip(&ds) {
            logical[(ax.primal - b'A') as usize] += i * inner;
        }
        let mut off = 0;
        for (k, (ax, &(inner, modulus))) in s.iter().zip(&ss).enumerate() {
            let l = logical[(ax.primal - b'A') as usize] / inner;
            off += strides[k] * if modulus > 0 { l % modulus } else { l };
        }
        offsets.push(off);
        for k in (0..idx.len()).rev() {
            idx[k] += 1;
            if idx[k] < out_shape[k] {
                break;
            }
            idx[k] = 0;
        }
    }
    let arr = each!(&x.arr, a => {
        let a = a.as_standard_layout();
        let flat = a.as_slice()?;
        ArrayD::from_shape_vec(IxDyn(&out_shape), offsets.iter().map(|&o| flat[o]).collect()).ok()?
    });
    Value::new(x.dtype, arr)
}

/// A convolution (`nn.conv1d/2d/3d`, `nn.contrib_conv2d_NCHWc`) whose layouts are not the
/// canonical `NC..` / `OI..` ones: the operands transformed to them, the canonical kernel, and
/// the result transformed to the output layout.
pub(crate) fn conv(op: &str, attrs: &Attrs, x: &Value, w: &Value) -> Option<Value> {
    // The spatial rank: the data layout's primal axes but N and C (a blocked NCHW4c is 2-d).
    let primal = |l: &str| l.chars().filter(char::is_ascii_uppercase).count();
    let nd = if op == "nn.contrib_conv2d_NCHWc" {
        2
    } else {
        match attrs.get_str("data_layout") {
            Some(l) => primal(l).checked_sub(2)?,
            None => x.ndim().checked_sub(2)?,
        }
    };
    let (data, kernel) =
        *[("NCW", "OIW"), ("NCHW", "OIHW"), ("NCDHW", "OIDHW")].get(nd.checked_sub(1)?)?;
    let dl = attrs.get_str("data_layout").unwrap_or(data);
    let kl = attrs.get_str("kernel_layout").unwrap_or(kernel);
    // TVM's conv2d_NCHWc compute reads a 6-d kernel as (O/o, I/i, H, W, i, o) whatever its
    // `kernel_layout` says.
    let packed;
    let kl = if op == "nn.contrib_conv2d_NCHWc" && w.ndim() == 6 && primal(kl) == kl.len() {
        let s = w.shape();
        packed = format!("OIHW{}i{}o", s[4], s[5]);
        packed.as_str()
    } else {
        kl
    };
    let ol = match attrs.get_str("out_layout").unwrap_or("") {
        "" => dl,
        l => l,
    };
    if (dl, kl, ol) == (data, kernel, data) && op != "nn.contrib_conv2d_NCHWc" {
        return nn::conv(attrs, x, w);
    }
    let x = transform(x, dl, data)?;
    let w = transform(w, kl, kernel)?;
    let canonical = attrs
        .with("data_layout", AttrValue::Str(data.into()))
        .with("kernel_layout", AttrValue::Str(kernel.into()))
        .with("out_layout", AttrValue::Str("".into()));
    let y = nn::conv(&canonical, &x, &w)?;
    transform(&y, data, ol)
}

/// `nn.contrib_dense_pack`: the packed weight (its `weight_layout`, e.g. `NC16n`) unpacked to
/// `NC`, then dense.
pub(crate) fn dense_pack(attrs: &Attrs, x: &Value, w: &Value) -> Option<Value> {
    let w = transform(w, attrs.get_str("weight_layout")?, "NC")?;
    nn::dense(attrs, x, &w)
}
