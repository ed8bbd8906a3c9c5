//! SimplifyExpr's rewrites of `transpose` and `layout_transform` (TVM's `SimplifyTranspose`
//! and `SimplifyNoOpTranspose`): two in a row become one transpose (or one layout_transform
//! when one of them changes the rank), and one that keeps every axis in place is removed.
//! Where TVM stops on a failed check (layouts that do not fit), the call is left unchanged.

use super::rules::{op_name, tensor};
use super::Simplifier;
use crate::ir::{AttrValue, Call, Expr};
use crate::passes::simplify_inference::op_call;

/// The axes of a layout string: each a letter with an optional factor (`NCHW4c`: N, C, H, W,
/// 4c), as the letters alone.
fn layout_axes(s: &str) -> Option<Vec<char>> {
    let mut out = Vec::new();
    let mut digits = false;
    for c in s.chars() {
        if c.is_ascii_digit() {
            digits = true;
        } else if c.is_ascii_alphabetic() {
            if digits != c.is_ascii_lowercase() {
                return None;
            }
            out.push(c);
            digits = false;
        } else {
            return None;
        }
    }
    (!digits).then_some(out)
}

fn layouts(c: &Call) -> Option<(&str, &str)> {
    Some((
        c.attrs.get_str("src_layout")?,
        c.attrs.get_str("dst_layout")?,
    ))
}

/// TVM's `GetTransposeAxisOrder`: where each output axis comes from.
fn axis_order(e: &Expr, ndim: usize) -> Option<Vec<usize>> {
    let c = e.as_call()?;
    match op_name(e)? {
        "transpose" => match c.attrs.get("axes").and_then(AttrValue::as_int_list) {
            Some(axes) if !axes.is_empty() => {
                if axes.len() != ndim {
                    return None;
                }
                axes.iter()
                    .map(|&a| {
                        let a = if a < 0 { a + ndim as i64 } else { a };
                        (0..ndim as i64).contains(&a).then_some(a as usize)
                    })
                    .collect()
            }
            _ => Some((0..ndim).rev().collect()),
        },
        "layout_transform" => {
            let (src, dst) = layouts(c)?;
            let (src, dst) = (layout_axes(src)?, layout_axes(dst)?);
            if dst.len() != ndim {
                return None;
            }
            dst.iter()
                .map(|a| src.iter().position(|b| b == a))
                .collect()
        }
        _ => None,
    }
}

fn is_transform(e: &Expr) -> bool {
    matches!(op_name(e), Some("transpose" | "layout_transform"))
}

fn layout_transform(data: Expr, src: &str, dst: &str) -> Expr {
    op_call(
        "layout_transform",
        vec![data],
        vec![
            ("src_layout", AttrValue::str(src)),
            ("dst_layout", AttrValue::str(dst)),
        ],
    )
}

/// TVM's `PermuteLayout`: the layout's letters in `order` (one letter per axis).
fn permute(layout: &str, order: &[usize]) -> Option<String> {
    let chars: Vec<char> = layout.chars().collect();
    if chars.len() != order.len() {
        return None;
    }
    order.iter().map(|&i| chars.get(i).copied()).collect()
}

/// TVM's `FoldRankChangingLayoutTrans`: `Some(Some(call))` when one of the two changes the
/// rank and they fold into one layout_transform, `Some(None)` when one changes the rank but
/// the layouts do not fit, `None` when neither does.
fn fold_rank_changing(data: &Expr, outer: &Expr) -> Option<Option<Expr>> {
    let inner = &outer.as_call()?.args[0];
    let changes = |e: &Expr| {
        let c = e.as_call()?;
        let (s, d) = layouts(c).filter(|_| op_name(e) == Some("layout_transform"))?;
        (s.len() != d.len()).then(|| (s.to_string(), d.to_string()))
    };
    let mut desc: Option<(String, String, &Expr)> = changes(outer).map(|(s, d)| (s, d, inner));
    if let Some((s, d)) = changes(inner) {
        match &mut desc {
            None => desc = Some((s, d, outer)),
            Some(desc) => {
                if desc.0 != d {
                    return Some(None);
                }
                desc.0 = s;
            }
        }
    }
    let (src, dst, other) = desc?;
    let (Some(sa), Some(da)) = (layout_axes(&src), layout_axes(&dst)) else {
        return Some(None);
    };
    let folded = if sa.len() < da.len() {
        let Some(axes) = axis_order(other, sa.len()) else {
            return Some(None);
        };
        let mut inverse = vec![0; axes.len()];
        for (i, &a) in axes.iter().enumerate() {
            inverse[a] = i;
        }
        permute(&src, &inverse).map(|l| layout_transform(data.clone(), &l, &dst))
    } else if sa.len() > da.len() {
        let Some(axes) = axis_order(other, da.len()) else {
            return Some(None);
        };
        permute(&dst, &axes).map(|l| layout_transform(data.clone(), &src, &l))
    } else if op_name(other) == Some("layout_transform") {
        Some(layout_transform(data.clone(), &src, &dst))
    } else {
        None
    };
    Some(folded)
}

/// Two transposes or layout transforms in a row => one.
pub(super) fn simplify_transpose(_: &mut Simplifier, e: &Expr, call: &Call) -> Option<Expr> {
    if !is_transform(e) || !is_transform(&call.args[0]) {
        return None;
    }
    let x = &call.args[0].as_call()?.args[0];
    match fold_rank_changing(x, e) {
        Some(Some(lt)) => {
            let c = lt.as_call()?;
            return Some(match layouts(c) {
                Some((s, d)) if s == d => x.clone(),
                _ => lt,
            });
        }
        Some(None) => {
            // TVM goes on with the plain composition when the layouts do not fold.
        }
        None => {}
    }
    let ndim = tensor(e)?.shape.len();
    let outer = axis_order(e, ndim)?;
    let inner = axis_order(&call.args[0], ndim)?;
    let axes: Vec<i64> = outer.iter().map(|&o| inner[o] as i64).collect();
    Some(op_call(
        "transpose",
        vec![x.clone()],
        vec![("axes", AttrValue::ints(&axes))],
    ))
}

/// A transpose (or a layout_transform between equal layouts) that keeps every axis => its
/// operand.
pub(super) fn simplify_no_op_transpose(_: &mut Simplifier, e: &Expr, call: &Call) -> Option<Expr> {
    if !is_transform(e) {
        return None;
    }
    if let Some((s, d)) = layouts(call).filter(|_| op_name(e) == Some("layout_transform")) {
        if s != d {
            return None;
        }
    }
    let ndim = tensor(e)?.shape.len();
    let axes = axis_order(e, ndim)?;
    axes.iter()
        .enumerate()
        .all(|(i, &a)| i == a)
        .then(|| call.args[0].clone())
}
