//! Layouts in the evaluator: `layout_transform` between any two layouts of the same primal
//! axes, split or not (`NCHW` <-> `NHWC`, `NCHW` <-> `NCHW16c`, `OIHW` <-> `OIHW4i8o`), and the
//! convolutions in layouts other than the canonical ones (`NHWC` / `HWIO`,
//! `nn.contrib_conv2d_NCHWc`), computed as the canonical convolution between two transforms.
//!
//! A layout is a string of axes: an upper-case letter is a primal axis, a lower-case letter
//! preceded by its factor (`16c`) is a block of that primal axis. A transform whose split
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
/// without a factor or of an axis the layout does not have).
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
        .all(|a| primals.contains(&a.primal) && axes.iter().filter(|b| *b == a).count() == 1);
    (factor.is_none() && sorted.len() == primals.len() && blocks_ok).then_some(axes)
}

/// The block factor of `primal` in `axes` (1 when it is not split).
fn factor(axes: &[Axis], primal: u8) -> usize {
    axes.iter()
        .find(|a| a.primal == primal && a.factor.is_some())
        .and_then(|a| a.factor)
        .unwrap_or(1)
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
    // The logical extent of each primal axis (A-Z), checked against the source's blocks.
    let mut extent = [0usize; 26];
    for (ax, &dim) in s.iter().zip(shape) {
        match ax.factor {
            Some(f) if f != dim => return None,
            Some(_) => {}
            None => extent[(ax.primal - b'A') as usize] = dim.checked_mul(factor(&s, ax.primal))?,
        }
    }
    let out_shape: Vec<usize> = d
        .iter()
        .map(|ax| {
            let e = extent[(ax.primal - b'A') as usize];
            match ax.factor {
                Some(f) => e.is_multiple_of(f).then_some(f),
                None => {
                    let f = factor(&d, ax.primal);
                    e.is_multiple_of(f).then_some(e / f)
                }
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
        for (ax, &i) in d.iter().zip(&idx) {
            let slot = &mut logical[(ax.primal - b'A') as usize];
            match ax.factor {
                Some(_) => *slot += i,
                None => *slot += i * factor(&d, ax.primal),
            }
        }
        let mut off = 0;
        for (k, ax) in s.iter().enumerate() {
            let l = logical[(ax.primal - b'A') as usize];
            let f = factor(&s, ax.primal);
            off += strides[k] * if ax.factor.is_some() { l % f } else { l / f };
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
