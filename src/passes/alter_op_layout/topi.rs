//! The built-in, target-keyed alter-layout hooks: TVM v0.18's TOPI functions registered for
//! `nn.conv2d` and `nn.dense` (`topi.nn.conv2d_alter_layout` / `dense_alter_layout`, generic
//! functions dispatched on the current target's keys), ported for the `cpu` key (x86,
//! `topi/x86/conv2d_alter_op.py`, `dense_alter_op.py`) and the `arm_cpu` key
//! (`topi/arm_cpu/conv2d_alter_op.py`, `dense_alter_op.py`).
//!
//! Each hook first picks the implementation TVM's op strategy would (`relay/op/strategy/x86.py`
//! and `arm_cpu.py`: the highest `plevel` among the valid ones, the first on a tie, which is
//! what `select_implementation` returns when AutoTVM has only fallback configurations), then
//! rewrites the call as the alter function does for that implementation's template, with the
//! fallback configuration's tiling (`_fallback_schedule`, `_default_dense_pack_config`,
//! `get_tiling_B_transformed`). The first key of the target with a hook for the op decides,
//! as TVM's generic functions do; a target without such a key alters nothing.
//!
//! Deliberately not ported (the call is kept): templates whose fallback tiling comes from
//! TopHub's downloaded logs (ARM's NCHW `conv2d_nchw_spatial_pack`, winograd), the
//! Cortex-M (`has_dsp`) and microTVM paths, the auto-scheduler's winograd pre-transform, and
//! tuned configurations (there is no AutoTVM log). Where TVM stops with an assertion (a
//! channel count the int8 tiling cannot divide), the call is kept.

mod arm_cpu;
mod x86;

use crate::ir::{AttrValue, Attrs, Expr, Op, TensorType, Type};
use crate::passes::layout_rewrite::LayoutHook;
use crate::target::Target;
use std::sync::Arc;

/// The hooks of a target.
pub struct TargetHooks {
    target: Target,
    /// `relay.backend.use_auto_scheduler` or `use_meta_schedule` is on: TVM's strategies then
    /// add their untunable generic implementations and pick by priority alone.
    auto_layout: bool,
}

impl TargetHooks {
    pub fn new(target: Target, auto_layout: bool) -> TargetHooks {
        TargetHooks {
            target,
            auto_layout,
        }
    }

    /// Whether the target has a hook for some op (an `arm_cpu` or `cpu` key).
    pub fn any(&self) -> bool {
        self.target.has_key("arm_cpu") || self.target.has_key("cpu")
    }
}

impl LayoutHook for TargetHooks {
    fn new_attrs(&self, _op: Op, _call: &Expr, attrs: &Attrs) -> Attrs {
        attrs.clone()
    }

    fn replaces(&self, op: Op) -> bool {
        matches!(op.name(), "nn.conv2d" | "nn.dense") && self.any()
    }

    fn replace(&self, op: Op, call: &Expr, orig: &Expr) -> Option<Expr> {
        let a = Alter::new(call, orig, &self.target, self.auto_layout)?;
        let key = self
            .target
            .keys()
            .iter()
            .find(|k| matches!(k.as_str(), "arm_cpu" | "cpu"))?;
        match (key.as_str(), op.name()) {
            ("arm_cpu", "nn.conv2d") => arm_cpu::conv2d(&a),
            ("arm_cpu", "nn.dense") => arm_cpu::dense(&a),
            (_, "nn.conv2d") => x86::conv2d(&a),
            (_, "nn.dense") => x86::dense(&a, x86::dense_template(&a)),
            _ => None,
        }
    }
}

/// What an alter function is given: the call's attributes and new arguments (`inputs`),
/// the original arguments' types (`tinfos`) and the result type, under a target.
pub(crate) struct Alter<'a> {
    pub attrs: &'a Attrs,
    pub args: &'a [Expr],
    pub types: Vec<&'a TensorType>,
    pub out: &'a TensorType,
    pub target: &'a Target,
    pub auto_layout: bool,
}

impl<'a> Alter<'a> {
    fn new(call: &'a Expr, orig: &'a Expr, target: &'a Target, auto: bool) -> Option<Alter<'a>> {
        let c = call.as_call()?;
        let o = orig.as_call()?;
        let types = o
            .args
            .iter()
            .map(|e| e.ty().and_then(Type::as_tensor))
            .collect::<Option<Vec<_>>>()?;
        if types.len() != 2 || c.args.len() != 2 {
            return None;
        }
        Some(Alter {
            attrs: &c.attrs,
            args: &c.args,
            types,
            out: orig.ty().and_then(Type::as_tensor)?,
            target,
            auto_layout: auto,
        })
    }

    /// The static shape of argument `i` (`None` when some extent is dynamic).
    pub fn shape(&self, i: usize) -> Option<Vec<i64>> {
        self.types[i].shape.iter().map(|d| d.as_static()).collect()
    }

    pub fn dtype(&self, i: usize) -> String {
        self.types[i].dtype.to_string()
    }

    pub fn out_dtype(&self) -> String {
        self.out.dtype.to_string()
    }

    pub fn str_attr(&self, name: &str, default: &str) -> String {
        self.attrs.get_str(name).unwrap_or(default).to_string()
    }

    pub fn ints(&self, name: &str) -> Option<Vec<i64>> {
        self.attrs.get_ints(name)
    }

    /// The call's attributes with `changes`, as attributes of `op` (TVM's
    /// `relay.nn.contrib_conv2d_nchwc(*inputs, **new_attrs)`).
    pub fn attrs_for(&self, op: &str, changes: &[(&str, AttrValue)]) -> Option<Attrs> {
        let mut fields: Vec<(Arc<str>, AttrValue)> = self.attrs.fields().to_vec();
        for (k, v) in changes {
            match fields.iter_mut().find(|(n, _)| &**n == *k) {
                Some(slot) => slot.1 = v.clone(),
                None => fields.push((Arc::from(*k), v.clone())),
            }
        }
        Op::get(op)?.make_attrs(fields).ok()
    }
}

/// A call of `op` with `args` and attributes.
pub(crate) fn call(op: &str, args: Vec<Expr>, attrs: Attrs) -> Option<Expr> {
    Some(Expr::call(Expr::op(Op::get(op)?), args, attrs))
}

/// A call of `op` with the given fields (the rest default).
pub(crate) fn make(op: &str, args: Vec<Expr>, fields: &[(&str, AttrValue)]) -> Option<Expr> {
    let o = Op::get(op)?;
    let attrs = o
        .make_attrs(
            fields
                .iter()
                .map(|(k, v)| (Arc::from(*k), v.clone()))
                .collect(),
        )
        .ok()?;
    Some(Expr::call(Expr::op(o), args, attrs))
}

/// TVM's `is_depthwise_conv2d`: input channels, output channels and groups all equal.
pub(crate) fn is_depthwise(a: &Alter, groups: i64) -> Option<bool> {
    let d = a.shape(0)?;
    let k = a.shape(1)?;
    let dl = a.str_attr("data_layout", "NCHW");
    let kl = a.str_attr("kernel_layout", "OIHW");
    let ic = match (dl.as_str(), d.len()) {
        ("NCHW", 4) => d[1],
        ("NHWC", 4) => d[3],
        (_, 5) if is_nchwc(&dl) => d[1] * d[4],
        _ => return None,
    };
    let oc = match (kl.as_str(), k.len()) {
        ("OIHW" | "OHWI", 4) => k[0],
        ("HWIO", 4) => k[3],
        ("HWOI", 4) => k[2],
        ("IOHW", 4) => k[1],
        (_, 6) if is_oihwio(&kl) => k[0] * k[5],
        _ => return None,
    };
    Some(ic == oc && oc == groups)
}

/// `NCHW<n>c` (x86's `_NCHWc_matcher`).
pub(crate) fn is_nchwc(l: &str) -> bool {
    l.strip_prefix("NCHW")
        .and_then(|r| r.strip_suffix('c'))
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// `OIHW<n>i<m>o` (x86's `_OIHWio_matcher`).
pub(crate) fn is_oihwio(l: &str) -> bool {
    let Some(r) = l.strip_prefix("OIHW").and_then(|r| r.strip_suffix('o')) else {
        return false;
    };
    let Some((i, o)) = r.split_once('i') else {
        return false;
    };
    [i, o]
        .iter()
        .all(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// The largest `bn` in `from..=1` that divides `n` (the fallback tilings' search).
pub(crate) fn largest_divisor(n: i64, from: i64) -> i64 {
    (1..=from.max(1)).rev().find(|bn| n % bn == 0).unwrap_or(1)
}
