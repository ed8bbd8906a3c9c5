//! FoldScaleAxis (TVM's `fold_scale_axis.cc`): folds a per-channel `multiply` into the weight
//! of a neighbouring `nn.conv2d`, `nn.conv3d` or `nn.dense`, so FoldConstant can fold
//! `multiply(weight, scale)` when the weight is constant.
//!
//! Three registered passes:
//! * `BackwardFoldScaleAxis` (`backward.rs`, function pass, level 3, requires InferType): a scale
//!   *after* a conv/dense, `multiply(relu(conv(x, w)), s)`, is pushed down into the weight's
//!   output-channel axis (through relu/leaky_relu, add/subtract, bias_add), removing the
//!   multiply. Only along nodes used exactly once.
//! * `ForwardFoldScaleAxis` (`forward.rs`, same kind): a scale *before* a conv/dense,
//!   `conv(relu(multiply(x, s)), w)`, moves into the weight's input-channel axis, removing the
//!   multiply; add/subtract on the way divide their other operand by the scale.
//! * `FoldScaleAxis`: `Sequential([BackwardFoldScaleAxis, ForwardFoldScaleAxis, FoldConstant])`
//!   named "FoldScaleAxis" (level 0; its children keep their levels 3, 3, 2). FoldConstant is
//!   looked up in the run's registry when the pass runs (it lives in another part of passlab),
//!   so this fails with "unknown pass" until FoldConstant is registered.
//!
//! This file holds what both directions share: the axis messages, the broadcast matching of a
//! scale against data (`MatchBroadcastToLeftAxes`), the helpers that reshape a scale to an
//! axis, and the conv layout checks. A scale must be positive (checked on constants, through
//! expand_dims/reshape/transpose/squeeze/repeat) when a relu lies on the way.
//!
//! Deliberately different from TVM: a scale that turns out not to be consumable is put back as
//! an equivalent multiply instead of failing with "outstanding scale"; a backward fold is only
//! started when the whole chain down to the weights can take it; an empty axis intersection
//! means "no fold" (TVM aborts); `bias_add`'s axis may be negative.

mod backward;
mod forward;

use crate::ir::{AttrValue, Call, Dim, Expr, ExprKind, Module, TensorType, Type};
use crate::pass::{Pass, PassCx, PassError, PassImpl, PassInfo, PassOptions};
use crate::passes::infer_type::shape_rules::layout::Layout;

pub use backward::backward_fold_scale_axis;
pub use forward::forward_fold_scale_axis;

/// What may be scaled: sorted axes, and whether the scale must be positive (a relu on the way).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Message {
    pub axes: Vec<i64>,
    pub require_positive: bool,
}

impl Message {
    pub fn new(axes: Vec<i64>, require_positive: bool) -> Message {
        Message {
            axes,
            require_positive,
        }
    }
}

/// The intersection of two messages (`None` is "cannot scale" and absorbs everything).
pub(crate) fn intersect(a: &Option<Message>, b: &Option<Message>) -> Option<Message> {
    let (a, b) = (a.as_ref()?, b.as_ref()?);
    let axes = a
        .axes
        .iter()
        .copied()
        .filter(|x| b.axes.contains(x))
        .collect();
    Some(Message::new(axes, a.require_positive || b.require_positive))
}

pub(crate) fn tensor(e: &Expr) -> Option<&TensorType> {
    e.ty().and_then(Type::as_tensor)
}

/// A call of a registered op with the given attribute fields (the rest default).
pub(crate) fn op_call(name: &str, args: Vec<Expr>, fields: Vec<(&str, AttrValue)>) -> Expr {
    let op = crate::ir::Op::get(name).unwrap_or_else(|| panic!("unknown op {name}"));
    let attrs = op
        .make_attrs(fields.into_iter().map(|(k, v)| (k.into(), v)).collect())
        .unwrap_or_else(|e| panic!("attributes of {name}: {e}"));
    Expr::call(Expr::op(op), args, attrs)
}

pub(crate) fn multiply(a: Expr, b: Expr) -> Expr {
    op_call("multiply", vec![a, b], vec![])
}

/// TVM's `MatchBroadcastToLeftAxes`: does `rhs` broadcast onto `lhs` along exactly `axes`
/// (equal extents there, 1 elsewhere)? With `value`, `value` becomes a squeezed version of rhs
/// holding only the matched axes (a scalar is expanded and repeated to those axes).
pub(crate) fn match_broadcast(
    lhs: &TensorType,
    rhs: &TensorType,
    axes: &[i64],
    value: Option<&mut Expr>,
) -> bool {
    if lhs.shape.len() < rhs.shape.len() {
        return false;
    }
    let base = lhs.shape.len() - rhs.shape.len();
    if rhs.shape.is_empty() && !axes.is_empty() {
        if let Some(v) = value {
            let mut out = op_call(
                "expand_dims",
                vec![v.clone()],
                vec![
                    ("axis", AttrValue::int(0)),
                    ("num_newaxis", AttrValue::int(axes.len() as i64)),
                ],
            );
            for (i, a) in axes.iter().enumerate() {
                let Some(n) = lhs.shape.get(*a as usize).and_then(Dim::as_static) else {
                    return false;
                };
                out = op_call(
                    "repeat",
                    vec![out],
                    vec![
                        ("repeats", AttrValue::int(n)),
                        ("axis", AttrValue::int(i as i64)),
                    ],
                );
            }
            *v = out;
        }
        return true;
    }
    let mut squeeze = Vec::new();
    let mut j = 0;
    for i in 0..lhs.shape.len() {
        if j < axes.len() && i as i64 == axes[j] {
            if i < base || lhs.shape[i] != rhs.shape[i - base] {
                return false;
            }
            j += 1;
        } else if i >= base {
            if rhs.shape[i - base].as_static() != Some(1) {
                return false;
            }
            squeeze.push((i - base) as i64);
        }
    }
    if let Some(v) = value {
        if !squeeze.is_empty() {
            *v = op_call(
                "squeeze",
                vec![v.clone()],
                vec![("axis", AttrValue::ints(&squeeze))],
            );
        }
    }
    true
}

/// TVM's `ExpandBiasToMatchAxis` for one axis: `bias` (1-d) padded with trailing unit axes so it
/// broadcasts along `axis` of a rank-`ndim` tensor.
pub(crate) fn expand_to_axis(bias: Expr, ndim: usize, axis: i64) -> Expr {
    let pad = ndim as i64 - axis - 1;
    if pad <= 0 {
        return bias;
    }
    op_call(
        "expand_dims",
        vec![bias],
        vec![
            ("axis", AttrValue::int(1)),
            ("num_newaxis", AttrValue::int(pad)),
        ],
    )
}

/// TVM's `ReshapeToMatchAxis`: `scale` reshaped to `shape`'s extents on `axes` and 1 elsewhere;
/// `None` when one of those extents is not static.
pub(crate) fn reshape_to_axes(scale: Expr, shape: &[Dim], axes: &[i64]) -> Option<Expr> {
    let mut newshape = Vec::with_capacity(shape.len());
    for (i, d) in shape.iter().enumerate() {
        newshape.push(if axes.contains(&(i as i64)) {
            d.as_static()?
        } else {
            1
        });
    }
    Some(op_call(
        "reshape",
        vec![scale],
        vec![("newshape", AttrValue::ints(&newshape))],
    ))
}

/// One axis: expand; several (blocked layouts): reshape.
pub(crate) fn reshape_or_expand(scale: Expr, shape: &[Dim], axes: &[i64]) -> Option<Expr> {
    match axes {
        [a] => Some(expand_to_axis(scale, shape.len(), *a)),
        _ => reshape_to_axes(scale, shape, axes),
    }
}

/// TVM's `IsAllPositiveConstant`: a constant with data whose elements are all >= 0, possibly
/// under expand_dims/reshape/transpose/squeeze/repeat.
pub(crate) fn all_positive_constant(e: &Expr) -> bool {
    let mut e = e.clone();
    loop {
        match e.kind() {
            ExprKind::Constant(c) => {
                return c.data.as_ref().is_some_and(|d| {
                    d.dtype.lanes == 1 && d.to_f64_vec().iter().all(|x| *x >= 0.0)
                })
            }
            ExprKind::Call(Call { callee, args, .. }) => {
                let peel = matches!(callee.kind(), ExprKind::Op(op)
                    if ["expand_dims", "reshape", "transpose", "squeeze", "repeat"].contains(&op.name()));
                match (peel, args.first()) {
                    (true, Some(a)) => e = a.clone(),
                    _ => return false,
                }
            }
            _ => return false,
        }
    }
}

/// The layouts of a conv call: data, kernel and output (`out_layout`, or the data layout).
pub(crate) struct ConvLayouts {
    pub data: Layout,
    pub kernel: Layout,
    pub out: Layout,
    pub groups: i64,
}

impl ConvLayouts {
    /// For `nn.conv2d` / `nn.conv3d` calls with parseable layouts.
    pub fn of(e: &Expr) -> Option<ConvLayouts> {
        let (op, c) = e.call_op_of()?;
        if op.name() != "nn.conv2d" && op.name() != "nn.conv3d" {
            return None;
        }
        let a = &c.attrs;
        let data = a.get_str("data_layout")?;
        let out = match a.get_str("out_layout") {
            Some("") | None => data,
            Some(o) => o,
        };
        Some(ConvLayouts {
            data: Layout::parse(data).ok()?,
            kernel: Layout::parse(a.get_str("kernel_layout")?).ok()?,
            out: Layout::parse(out).ok()?,
            groups: a.get_int("groups").unwrap_or(1),
        })
    }

    /// TVM's `IsDepthwiseConv`: the weight, seen as OIHW (OIDHW), has `groups` outputs and 1
    /// input channel.
    pub fn depthwise(&self, call: &Expr) -> bool {
        let Some(w) = call.as_call().and_then(|c| c.args.get(1)).and_then(tensor) else {
            return false;
        };
        let canonical = if self.kernel.len() == 5 {
            "OIDHW"
        } else {
            "OIHW"
        };
        let Ok(oihw) = Layout::parse(canonical) else {
            return false;
        };
        match self.kernel.convert(&w.shape, &oihw) {
            Ok(s) => s[0].as_static() == Some(self.groups) && s[1].as_static() == Some(1),
            Err(_) => false,
        }
    }

    /// The axes to scale on `layout` when the kernel layout is simple or fully blocked and the
    /// conv is full (groups = 1) or depthwise.
    pub fn channel_axes(&self, call: &Expr, layout: &Layout) -> Option<Vec<i64>> {
        let big = layout.index_of('C')? as i64;
        let small = layout.index_of('c');
        if self.groups != 1 && !self.depthwise(call) {
            return None;
        }
        let (ko, ki) = (self.kernel.index_of('o'), self.kernel.index_of('i'));
        let simple = ko.is_none() && ki.is_none() && small.is_none();
        let blocked = ko.is_some() && ki.is_some() && small.is_some();
        if !(simple || blocked) {
            return None;
        }
        let mut axes = vec![big];
        axes.extend(small.map(|s| s as i64));
        Some(axes)
    }

    /// The scale reshaped to multiply the weight along kernel axes `big` (+ its sub-axis):
    /// expanded for a simple layout, reshaped for a blocked one (`None` when the weight shape
    /// is not static).
    pub fn weight_scale(&self, weight_ty: &TensorType, scale: Expr, big: char) -> Option<Expr> {
        let b = self.kernel.index_of(big)? as i64;
        match self.kernel.index_of(big.to_ascii_lowercase()) {
            None => Some(expand_to_axis(scale, self.kernel.len(), b)),
            Some(s) => reshape_to_axes(scale, &weight_ty.shape, &[b, s as i64]),
        }
    }
}

/// The pass `name`: a function pass at level 3 that requires InferType.
fn scale_pass(name: &'static str, rewrite: fn(&Expr) -> Expr) -> Pass {
    let info = super::builtin_info(name);
    crate::pass::leaf_function_pass(info, move |g, f, m, _cx| {
        let typed = super::typed::typed_function(name, g, f, m)?;
        let out = rewrite(&typed);
        Ok(if out.ptr_eq(&typed) { f.clone() } else { out })
    })
}

/// `BackwardFoldScaleAxis()`.
pub fn create_backward(_options: &PassOptions) -> Result<Pass, PassError> {
    Ok(scale_pass(
        "BackwardFoldScaleAxis",
        backward_fold_scale_axis,
    ))
}

/// `ForwardFoldScaleAxis()`.
pub fn create_forward(_options: &PassOptions) -> Result<Pass, PassError> {
    Ok(scale_pass("ForwardFoldScaleAxis", forward_fold_scale_axis))
}

/// `FoldScaleAxis()`: the Sequential of Backward, Forward and (looked up when it runs)
/// FoldConstant.
pub fn create(options: &PassOptions) -> Result<Pass, PassError> {
    Ok(Pass::new(FoldScaleAxis {
        info: super::builtin_info("FoldScaleAxis"),
        passes: vec![create_backward(options)?, create_forward(options)?],
    }))
}

/// A Sequential whose last child, FoldConstant, is created from the run's registry.
struct FoldScaleAxis {
    info: PassInfo,
    passes: Vec<Pass>,
}

impl PassImpl for FoldScaleAxis {
    fn info(&self) -> &PassInfo {
        &self.info
    }

    fn transform(&self, m: &Module, cx: &mut PassCx) -> Result<Module, PassError> {
        let fold_constant = cx.registry().create_required("FoldConstant", &self.info)?;
        let mut cur = m.clone();
        for child in self.passes.iter().chain(std::iter::once(&fold_constant)) {
            let info = child.info();
            if !cx.context().pass_enabled(info) {
                continue;
            }
            for name in info.required() {
                cur = cx.run_required(name, info, &cur)?;
            }
            cur = cx.run(child, &cur)?;
        }
        Ok(cur)
    }

    fn children(&self) -> &[Pass] {
        &self.passes
    }
}
