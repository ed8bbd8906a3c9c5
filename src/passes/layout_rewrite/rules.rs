//! Per-op layout rules (TVM's `FInferCorrectLayout`): given the layouts of a call's inputs
//! (the original ones, or the ones after rewriting), the layouts the op wants for its inputs,
//! the layouts of its outputs (one per field of a tuple result), and its attributes adapted
//! to those layouts. [`rule_of`] is the table: one entry per op, pointing at a rule function
//! of `rules/nn.rs` (convolutions, pools, resize, upsampling, norms, pad, bias_add,
//! roi_align/roi_pool, dense, matmul and contrib_dense_pack),
//! `rules/tensor.rs` (reductions, transpose, squeeze, split, strided_slice, slice_like) or
//! `rules/qnn.rs` (the QNN ops: their float op's rule, `C` for scales and zero points), or at
//! the shared rules here:
//!
//! * element-wise ops of one input (relu, exp, clip, cast, ...): follow the input;
//! * binary broadcast ops (add, multiply, comparisons, ...): follow the operand of higher rank;
//!   the other one gets the matching sub-layout, and after rewriting is changed the way the
//!   larger operand was (TVM v0.18's `TryTransformLike`), with a sub-axis factor of 1 where
//!   it has extent 1; when the two old layouts do not line up the rule fails;
//! * concatenate: the `axis` attribute follows the concatenated axis when all inputs agree;
//! * `relay.op.annotation.simulated_quantize` (TVM's `SimQuantizeLayout` of
//!   `quantize/realize.cc`): the data follows its input, the three scalars are `C`.
//!
//! As in TVM, a rule that leaves any layout unknown has failed ([`infer`] answers `None`), and
//! ops without a rule are not rewritten: their inputs go back to the original layouts.
//!
//! Adding a rule: write `fn(&Args<'_>) -> Option<Inferred>` (TVM's function of the same op,
//! argument for argument) and add one line to [`rule_of`]: `Attrs` when the op takes its
//! layouts from its attributes (it can start a layout: the op is then also listed in
//! `Op::layout_role`, which lets the passes skip functions without one), `Inputs` when it
//! follows its inputs' layouts.

mod nn;
mod qnn;
mod tensor;

use super::layout::Layout;
use crate::ir::{AttrValue, Attrs, Op, OpPattern, Type};

/// A layout that may be unknown (`None`, TVM's `Layout::Undef()`).
pub type L = Option<Layout>;

/// Layouts, one per input (a call has a handful: no heap block for them).
pub type Ls = smallvec::SmallVec<[L; 4]>;

/// What a rule decides.
pub struct Inferred {
    pub inputs: Ls,
    /// One layout per output (per field of a tuple result).
    pub outputs: Ls,
    pub attrs: Attrs,
}

impl Inferred {
    fn one(inputs: Ls, output: L, attrs: Attrs) -> Inferred {
        Inferred {
            inputs,
            outputs: smallvec::smallvec![output],
            attrs,
        }
    }
}

/// What a rule sees (TVM's `FInferCorrectLayout` arguments).
pub struct Args<'a> {
    pub attrs: &'a Attrs,
    /// The current input layouts; `None` on the original program.
    pub new_in: Option<&'a [L]>,
    /// The original input layouts.
    pub old_in: &'a [L],
    /// The original input types (tuple fields flattened).
    pub types: &'a [Type],
}

impl Args<'_> {
    /// The rank of input `i`.
    fn rank(&self, i: usize) -> Option<usize> {
        shape_len(self.types.get(i)?)
    }

    /// The static shape of input `i` (`None` per unknown extent).
    fn shape(&self, i: usize) -> Option<Vec<Option<i64>>> {
        let t = self.types.get(i)?.as_tensor()?;
        Some(t.shape.iter().map(|d| d.as_static()).collect())
    }

    fn new0(&self) -> L {
        self.new_in.and_then(|n| n.first().copied().flatten())
    }

    fn old0(&self) -> L {
        self.old_in.first().copied().flatten()
    }
}

pub type RuleFn = fn(&Args<'_>) -> Option<Inferred>;

enum Rule {
    Elemwise,
    Broadcast,
    /// Takes its layouts from its attributes (a layout source).
    Attrs(RuleFn),
    /// Follows its inputs' layouts.
    Inputs(RuleFn),
}

/// The rule table: one entry per op (TVM's `FInferCorrectLayout` registrations).
fn rule_of(op: Op) -> Option<Rule> {
    use Rule::{Attrs as A, Inputs as I};
    Some(match op.name() {
        "nn.conv1d" | "nn.conv2d" | "nn.conv3d" => A(nn::conv),
        "nn.conv2d_transpose" | "nn.conv3d_transpose" => A(nn::conv),
        "nn.contrib_conv2d_NCHWc" | "nn.contrib_depthwise_conv2d_NCHWc" => A(nn::conv),
        "nn.contrib_conv2d_gemm_without_weight_transform" => A(nn::conv),
        "nn.deformable_conv2d" => A(nn::deformable_conv),
        "nn.max_pool1d" | "nn.max_pool2d" | "nn.max_pool3d" => A(nn::pool),
        "nn.avg_pool1d" | "nn.avg_pool2d" | "nn.avg_pool3d" => A(nn::pool),
        "nn.global_max_pool2d" | "nn.global_avg_pool2d" => A(nn::pool),
        "nn.adaptive_max_pool1d" | "nn.adaptive_max_pool2d" | "nn.adaptive_max_pool3d" => {
            A(nn::pool)
        }
        "nn.adaptive_avg_pool1d" | "nn.adaptive_avg_pool2d" | "nn.adaptive_avg_pool3d" => {
            A(nn::pool)
        }
        "image.resize1d" | "image.resize2d" => A(nn::resize),
        "concatenate" => A(concatenate),
        "nn.bias_add" => A(nn::bias_add),
        "nn.batch_norm" => I(nn::batch_norm),
        "nn.layer_norm" | "nn.instance_norm" => I(nn::normalization),
        "nn.l2_normalize" => I(nn::l2_normalize),
        "nn.pad" => I(nn::pad),
        "sum" | "mean" | "max" | "min" | "prod" | "all" | "variance" => I(tensor::reduce),
        "argmax" | "argmin" => I(tensor::reduce),
        "transpose" => I(tensor::transpose),
        "squeeze" => I(tensor::squeeze),
        "split" => I(tensor::split),
        "strided_slice" => I(tensor::strided_slice),
        "topk" => I(tensor::topk),
        "slice_like" => I(tensor::slice_like),
        "nn.upsampling" | "nn.upsampling3d" => I(nn::upsampling),
        "vision.roi_align" | "vision.roi_pool" => A(nn::roi),
        "nn.dense" | "nn.matmul" => I(nn::dense),
        "nn.contrib_dense_pack" => I(nn::dense_pack),
        "qnn.conv2d" | "qnn.conv2d_transpose" => A(qnn::conv),
        "qnn.avg_pool2d" => A(qnn::avg_pool2d),
        "qnn.concatenate" => A(qnn::concatenate),
        "qnn.add" | "qnn.mul" | "qnn.subtract" => I(qnn::binary),
        "qnn.requantize" => I(qnn::requantize),
        "qnn.dense" => I(qnn::dense),
        "relay.op.annotation.simulated_quantize" => I(simulated_quantize),
        _ if matches!(op.type_rel, "BroadcastRel" | "BroadcastCompRel") && op.num_inputs == 2 => {
            Rule::Broadcast
        }
        _ if op.pattern == Some(OpPattern::ElemWise) && op.num_inputs == 1 => Rule::Elemwise,
        _ => return None,
    })
}

/// Whether `op` has a layout rule.
pub fn has_rule(op: Op) -> bool {
    rule_of(op).is_some()
}

/// Whether `op`'s rule takes layouts from its attributes (so it can start a layout).
pub fn is_source(op: Op) -> bool {
    matches!(rule_of(op), Some(Rule::Attrs(_)))
}

/// Whether `op`'s result layout follows its inputs' alone (an elementwise op of one input, or
/// a binary broadcast), so a call none of whose inputs has a layout has none either.
pub fn follows_inputs(op: Op) -> Option<FollowsInputs> {
    match rule_of(op)? {
        Rule::Elemwise => Some(FollowsInputs::Elemwise),
        Rule::Broadcast => Some(FollowsInputs::Broadcast),
        _ => None,
    }
}

/// The two rules of [`follows_inputs`]: an elementwise call still takes its attributes from
/// the pass's hook; a broadcast without input layouts is left to the fallback.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum FollowsInputs {
    Elemwise,
    Broadcast,
}

fn layout_attr(attrs: &Attrs, name: &str) -> L {
    attrs.get_str(name).and_then(Layout::parse)
}

fn shape_len(t: &Type) -> Option<usize> {
    t.as_tensor().map(|t| t.shape.len())
}

/// An axis attribute normalized to `0..rank`.
fn norm_axis(axis: i64, rank: usize) -> Option<usize> {
    let a = if axis < 0 { axis + rank as i64 } else { axis };
    (0..rank as i64).contains(&a).then_some(a as usize)
}

/// `values` as an integer array attribute, each of the width of `like`'s elements (int32 when
/// it has none), so that rewritten attributes compare equal to TVM's.
fn ints_like(like: Option<&AttrValue>, values: &[i64]) -> AttrValue {
    let width = like
        .and_then(AttrValue::as_array)
        .and_then(|a| a.first())
        .and_then(|v| match v {
            AttrValue::Int(_, w) => Some(*w),
            _ => None,
        })
        .unwrap_or(32);
    AttrValue::Array(values.iter().map(|v| AttrValue::Int(*v, width)).collect())
}

/// Applies `op`'s rule. `new_in` is `None` on the original program. `types` are the original
/// input types (tuple fields flattened). `None` when the rule cannot decide or leaves a layout
/// unknown (TVM's `InferCorrectLayouts` failing).
pub fn infer(
    op: Op,
    attrs: &Attrs,
    new_in: Option<&[L]>,
    old_in: &[L],
    types: &[Type],
) -> Option<Inferred> {
    let args = Args {
        attrs,
        new_in,
        old_in,
        types,
    };
    let out = match rule_of(op)? {
        Rule::Elemwise => {
            let ret = match new_in {
                Some(n) => *n.first()?,
                None => old_in.iter().flatten().next().cloned(),
            };
            Inferred::one(smallvec::smallvec![ret; old_in.len()], ret, attrs.clone())
        }
        Rule::Broadcast => broadcast(attrs, new_in, old_in, types)?,
        Rule::Attrs(f) | Rule::Inputs(f) => f(&args)?,
    };
    let defined = out.inputs.iter().chain(&out.outputs).all(Option::is_some);
    defined.then_some(out)
}

/// TVM's `BinaryBroadcastLayoutHelper`.
fn broadcast(
    attrs: &Attrs,
    new_in: Option<&[L]>,
    old_in: &[L],
    types: &[Type],
) -> Option<Inferred> {
    let shapes: smallvec::SmallVec<[usize; 4]> =
        types.iter().map(shape_len).collect::<Option<_>>()?;
    let mut ls: Ls = old_in.into();
    if ls.len() != 2 || shapes.len() != 2 {
        return None;
    }
    // 1. The original layouts: an unknown one is the trailing part of the other.
    let old_large = if shapes[0] >= shapes[1] { 0 } else { 1 };
    let out = match (&ls[0], &ls[1]) {
        (None, None) => return None,
        (Some(_), None) | (None, Some(_)) => {
            let d = if ls[0].is_some() { 0 } else { 1 };
            let u = 1 - d;
            if shapes[d] < shapes[u] {
                return None;
            }
            let def = ls[d]?;
            ls[u] = Some(def.sub_layout(shapes[d] - shapes[u], shapes[u]));
            ls[d]
        }
        _ => ls[old_large],
    };
    let Some(new_in) = new_in else {
        return Some(Inferred::one(ls, out, attrs.clone()));
    };
    // 2. After rewriting: the smaller operand changes the way the larger one's producer
    //    changed it, with a sub-axis factor of 1 where it has extent 1 (NHW1 next to NCHW16c
    //    becomes NCHW1c).
    let (n0, n1) = (new_in.first().copied()??, new_in.get(1).copied()??);
    let ret = new_in[old_large];
    let large = if n0.ndim_primal() >= n1.ndim_primal() {
        0
    } else {
        1
    };
    let small = 1 - large;
    let tgt = ls[small]?.try_transform_like(&ls[large]?, &new_in[large]?)?;
    let shape: smallvec::SmallVec<[Option<i64>; 8]> = types[small]
        .as_tensor()?
        .shape
        .iter()
        .map(|d| d.as_static())
        .collect();
    let adjusted = tgt.adjust_subordinate(&ls[small]?, &shape);
    ls[large] = new_in[large];
    ls[small] = Some(adjusted);
    Some(Inferred::one(ls, ret, attrs.clone()))
}

/// TVM's `SimQuantizeLayout`: the data's layout (the current one, else the original one)
/// for the data and the result, `C` for `dom_scale`, `clip_min` and `clip_max`.
fn simulated_quantize(a: &Args<'_>) -> Option<Inferred> {
    let ret = match a.new_in {
        Some(n) => *n.first()?,
        None => *a.old_in.first()?,
    };
    let c = Layout::parse("C");
    Some(Inferred::one(
        smallvec::smallvec![ret, c, c, c],
        ret,
        a.attrs.clone(),
    ))
}

/// TVM's `ConcatenateLayout`.
fn concatenate(a: &Args<'_>) -> Option<Inferred> {
    let (attrs, new_in, old_in, types) = (a.attrs, a.new_in, a.old_in, a.types);
    let rank = shape_len(types.first()?)? as i64;
    let axis = attrs.get_int("axis").unwrap_or(0);
    let axis = if axis < 0 { axis + rank } else { axis } as usize;
    if let (Some(n), Some(Some(old0))) = (new_in, old_in.first()) {
        let first = *n.first()?;
        if n.iter().all(|l| *l == first) {
            let first = first?;
            let new_axis = first.index_of(old0.axis_name(axis)?)?;
            return Some(Inferred::one(
                smallvec::smallvec![Some(first); old_in.len()],
                Some(first),
                attrs.with("axis", AttrValue::int(new_axis as i64)),
            ));
        }
    }
    let ret = *old_in.iter().flatten().next()?;
    if ret.ndim() <= axis || !ret.is_primal_at(axis) {
        return None;
    }
    Some(Inferred::one(
        smallvec::smallvec![Some(ret); old_in.len()],
        Some(ret),
        attrs.clone(),
    ))
}

#[cfg(test)]
mod tests {
    use super::is_source;
    use crate::ir::{op, Contains};

    /// The IR's summary bit for layout ops (which lets the layout passes skip functions
    /// without one) names exactly the ops whose rule takes layouts from attributes.
    #[test]
    fn the_layout_bit_names_the_ops_whose_rules_take_layouts_from_attributes() {
        let mut sources = 0;
        for o in op::all() {
            let source = is_source(o);
            sources += usize::from(source);
            assert_eq!(
                Contains::of_op(o).any(Contains::LAYOUT_OP),
                source,
                "{}",
                o.name()
            );
        }
        assert_eq!(sources, 33);
    }
}
