//! Per-op layout rules (TVM's `FInferCorrectLayout`): given the layouts of a call's inputs
//! (the original ones, or the ones after rewriting), the layouts the op wants for its inputs,
//! the layout of its output, and its attributes adapted to those layouts.
//!
//! * element-wise ops of one input (relu, exp, clip, cast, ...): follow the input;
//! * binary broadcast ops (add, multiply, comparisons, ...): follow the operand of higher rank;
//!   the other one gets the matching sub-layout (and, when rewritten, is expanded and
//!   transformed to the full layout);
//! * conv1d/2d/3d: their own `data_layout`/`kernel_layout`, output `out_layout` or data layout;
//! * pooling (max/avg, global, adaptive): the `layout` attribute follows the input;
//! * concatenate: the `axis` attribute follows the concatenated axis when all inputs agree;
//! * bias_add: the `axis` attribute follows the channel axis (passlab's rule: TVM rewrites
//!   bias_add with CanonicalizeOps before ConvertLayout instead).
//!
//! Ops without a rule are not rewritten: their inputs go back to the original layouts.

use super::layout::Layout;
use crate::ir::op::LayoutRole;
use crate::ir::{AttrValue, Attrs, Op, OpPattern, Type};

/// A layout that may be unknown (`None`, TVM's `Layout::Undef()`).
pub type L = Option<Layout>;

/// Layouts, one per input (a call has a handful: no heap block for them).
pub type Ls = smallvec::SmallVec<[L; 4]>;

/// What a rule decides (every rule here has one output).
pub struct Inferred {
    pub inputs: Ls,
    pub output: L,
    pub attrs: Attrs,
}

enum Rule {
    Elemwise,
    Broadcast,
    Conv,
    Pool,
    Concatenate,
    BiasAdd,
}

fn rule_of(op: Op) -> Option<Rule> {
    Some(match op.layout_role() {
        Some(LayoutRole::Conv) => Rule::Conv,
        Some(LayoutRole::Pool) => Rule::Pool,
        Some(LayoutRole::Concatenate) => Rule::Concatenate,
        Some(LayoutRole::BiasAdd) => Rule::BiasAdd,
        None if matches!(op.type_rel, "BroadcastRel" | "BroadcastCompRel")
            && op.num_inputs == 2 =>
        {
            Rule::Broadcast
        }
        None if op.pattern == Some(OpPattern::ElemWise) && op.num_inputs == 1 => Rule::Elemwise,
        None => return None,
    })
}

/// Whether `op` has a layout rule.
pub fn has_rule(op: Op) -> bool {
    rule_of(op).is_some()
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

/// Applies `op`'s rule. `new_in` is `None` on the original program. `types` are the original
/// input types (tuple fields flattened). `None` when the rule cannot decide.
pub fn infer(
    op: Op,
    attrs: &Attrs,
    new_in: Option<&[L]>,
    old_in: &[L],
    types: &[Type],
) -> Option<Inferred> {
    let same = |l: L, n: usize| Inferred {
        inputs: smallvec::smallvec![l; n],
        output: l,
        attrs: attrs.clone(),
    };
    match rule_of(op)? {
        Rule::Elemwise => {
            let ret = match new_in {
                Some(n) => *n.first()?,
                None => old_in.iter().flatten().next().cloned(),
            };
            Some(same(ret, old_in.len()))
        }
        Rule::Broadcast => broadcast(attrs, new_in, old_in, types),
        Rule::Conv => {
            let data = layout_attr(attrs, "data_layout")?;
            let out = match attrs.get_str("out_layout") {
                Some("") | None => data,
                Some(o) => Layout::parse(o)?,
            };
            Some(Inferred {
                inputs: smallvec::smallvec![Some(data), layout_attr(attrs, "kernel_layout")],
                output: Some(out),
                attrs: attrs.clone(),
            })
        }
        Rule::Pool => {
            let mut attrs = attrs.clone();
            let out_layout = attrs.get_str("out_layout").unwrap_or("");
            if out_layout.is_empty() {
                if let Some(Some(n)) = new_in.and_then(|n| n.first()) {
                    attrs = attrs.with("layout", AttrValue::str(&n.to_string()));
                }
            }
            let l = layout_attr(&attrs, "layout")?;
            Some(Inferred {
                inputs: smallvec::smallvec![Some(l)],
                output: Some(l),
                attrs,
            })
        }
        Rule::Concatenate => concatenate(attrs, new_in, old_in, types),
        Rule::BiasAdd => {
            let rank = shape_len(types.first()?)? as i64;
            let axis = attrs.get_int("axis").unwrap_or(1);
            let axis = if axis < 0 { axis + rank } else { axis } as usize;
            let (data, attrs) = match (new_in, old_in.first()) {
                (Some(n), Some(Some(old))) => {
                    let data = (*n.first()?)?;
                    let name = old.axis_name(axis)?;
                    let new_axis = data.index_of(name)?;
                    (data, attrs.with("axis", AttrValue::int(new_axis as i64)))
                }
                (None, Some(Some(old))) => (*old, attrs.clone()),
                _ => return None,
            };
            let bias = data.sub_layout(data.index_of(old_in[0].as_ref()?.axis_name(axis)?)?, 1);
            Some(Inferred {
                inputs: smallvec::smallvec![Some(data), Some(bias)],
                output: Some(data),
                attrs,
            })
        }
    }
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
    let mut ls: Ls = new_in.unwrap_or(old_in).into();
    if ls.len() != 2 || shapes.len() != 2 {
        return None;
    }
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
        (Some(a), Some(b)) if a.ndim() == 0 || b.ndim() == 0 => {
            let scalar = if a.ndim() == 0 { 0 } else { 1 };
            ls[1 - scalar]
        }
        (Some(a), Some(b)) => {
            let large = if a.ndim_primal() >= b.ndim_primal() {
                0
            } else {
                1
            };
            let small = 1 - large;
            let ret = ls[large];
            ls[small] = match (&old_in[0], &old_in[1], &ret) {
                // The same original layout (NHWC and NHW1): the large layout, with a sub-axis
                // factor of 1 where the small operand has extent 1.
                (Some(x), Some(y), Some(r)) if x == y => {
                    let shape: smallvec::SmallVec<[Option<i64>; 8]> = types[small]
                        .as_tensor()?
                        .shape
                        .iter()
                        .map(|d| d.as_static())
                        .collect();
                    Some(r.adjust_subordinate(x, &shape))
                }
                // Otherwise (NHWC and C) the large layout: the small operand is expanded first.
                _ => ret,
            };
            ret
        }
    };
    Some(Inferred {
        inputs: ls,
        output: out,
        attrs: attrs.clone(),
    })
}

/// TVM's `ConcatenateLayout`.
fn concatenate(
    attrs: &Attrs,
    new_in: Option<&[L]>,
    old_in: &[L],
    types: &[Type],
) -> Option<Inferred> {
    let rank = shape_len(types.first()?)? as i64;
    let axis = attrs.get_int("axis").unwrap_or(0);
    let axis = if axis < 0 { axis + rank } else { axis } as usize;
    if let (Some(n), Some(Some(old0))) = (new_in, old_in.first()) {
        let first = *n.first()?;
        if n.iter().all(|l| *l == first) {
            let first = first?;
            let new_axis = first.index_of(old0.axis_name(axis)?)?;
            return Some(Inferred {
                inputs: smallvec::smallvec![Some(first); old_in.len()],
                output: Some(first),
                attrs: attrs.with("axis", AttrValue::int(new_axis as i64)),
            });
        }
    }
    let ret = *old_in.iter().flatten().next()?;
    if ret.ndim() <= axis || !ret.is_primal_at(axis) {
        return None;
    }
    Some(Inferred {
        inputs: smallvec::smallvec![Some(ret); old_in.len()],
        output: Some(ret),
        attrs: attrs.clone(),
    })
}

#[cfg(test)]
mod tests {
    use super::{follows_inputs, has_rule};
    use crate::ir::{op, Contains};

    /// The IR's summary bit for layout ops (which lets the layout passes skip functions
    /// without one) names exactly the ops whose rule takes layouts from attributes.
    #[test]
    fn the_layout_bit_names_the_ops_whose_rules_take_layouts_from_attributes() {
        let mut sources = 0;
        for o in op::all() {
            let source = has_rule(o) && follows_inputs(o).is_none();
            sources += usize::from(source);
            assert_eq!(
                Contains::of_op(o).any(Contains::LAYOUT_OP),
                source,
                "{}",
                o.name()
            );
        }
        assert_eq!(sources, 19);
    }
}
