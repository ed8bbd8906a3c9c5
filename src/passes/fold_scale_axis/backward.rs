//! BackwardFoldScaleAxis: `multiply(relu(conv(x, w)), s)` => `relu(conv(x, multiply(w, s')))`.
//!
//! 1. **Prep** (post-order, producers before consumers): a call used exactly once learns which
//!    axes of its result could take a scale: conv2d/conv3d their output channel axis (`C`, plus
//!    `c` when blocked) for a full or depthwise conv with a simple or fully blocked kernel
//!    layout, dense axis 1; relu/leaky_relu pass their input's axes on (positive scale
//!    required); add/subtract pass the axes of the operand the other broadcasts onto, or of
//!    both when both can take them and the shapes agree; bias_add passes a single axis that is
//!    its own.
//! 2. **Plan** (consumers before producers): a `multiply` whose operand has axes the other
//!    operand matches (positive when required) pushes its (squeezed) scale down that operand's
//!    chain: through relu, into both sides of an add or into one side while the other is
//!    multiplied by the scale, into a bias, and finally into the weights of conv/dense along
//!    their output axis. The multiply is planned only when every step of its chain can be done.
//! 3. **Rewrite** (post-order, the mutator): planned nodes are rebuilt in their scaled form and
//!    the multiply is replaced by its operand.
//!
//! The scale expression is the multiply's other operand itself (not rewritten), as in TVM.

use super::{
    all_positive_constant, expand_to_axis, match_broadcast, multiply, reshape_or_expand, tensor,
    ConvLayouts, Message,
};
use crate::ir::mutate::{mutate, rebuild_call, walk_refs, Mutator, Unchanged};
use crate::ir::{Attrs, Call, Expr, ExprKind};

/// Backward scale folding of one typed function (see the module documentation).
pub fn backward_fold_scale_axis(f: &Expr) -> Expr {
    let plan = backward_plan(f);
    if plan.is_empty() {
        return f.clone();
    }
    mutate(&mut Backward { plan }, f)
}

/// What the rewrite does to each call of `f` (only calls with a step are in it).
fn backward_plan(f: &Expr) -> crate::ir::NodeMap<Step> {
    // Borrowed, not cloned: no reference count written on every node, and `is_shared` still
    // tells which nodes have more than one consumer.
    let mut order: Vec<&Expr> = crate::ir::scratch::take_vec();
    walk_refs(f, |e, exit| {
        if exit {
            order.push(e);
        }
        true
    });
    let messages = prepare(&order);
    let plan = if messages.is_empty() {
        Default::default()
    } else {
        plan(&order, &messages)
    };
    crate::ir::scratch::give_vec(order);
    plan
}

fn op_name(c: &Call) -> Option<&'static str> {
    match c.callee.kind() {
        ExprKind::Op(op) => Some(op.name()),
        _ => None,
    }
}

/// The axes each single-use call can take a scale on.
fn prepare(order: &[&Expr]) -> crate::ir::NodeMap<Message> {
    // Uses are counted for shared nodes only: a node with one handle has one consumer (the
    // root, with none, is a function and never a candidate).
    let mut uses: crate::ir::NodeMap<usize> = Default::default();
    for e in order {
        e.kind().for_each_child(|k| {
            if k.is_shared() {
                *uses.entry(k.id()).or_default() += 1;
            }
        });
    }
    let mut messages: crate::ir::NodeMap<Message> = Default::default();
    for e in order {
        let Some(c) = e.as_call() else { continue };
        if e.is_shared() && uses.get(&e.id()).copied().unwrap_or(0) != 1 {
            continue;
        }
        let arg = |i: usize| c.args.get(i).and_then(|a| messages.get(&a.id())).cloned();
        let out = match op_name(c) {
            Some("nn.relu" | "nn.leaky_relu") => arg(0).map(|m| Message::new(m.axes, true)),
            Some("add" | "subtract") => {
                let (Some(l), Some(r)) = (tensor(&c.args[0]), tensor(&c.args[1])) else {
                    continue;
                };
                match (arg(0), arg(1)) {
                    (Some(m), _) if match_broadcast(l, r, &m.axes, None) => Some(m),
                    (_, Some(m)) if match_broadcast(r, l, &m.axes, None) => Some(m),
                    (Some(a), Some(b)) if a.axes == b.axes && l.shape == r.shape => Some(a),
                    _ => None,
                }
            }
            Some("nn.conv2d" | "nn.conv3d") => ConvLayouts::of(e)
                .and_then(|ls| ls.channel_axes(e, &ls.out).map(|a| Message::new(a, false))),
            Some("nn.bias_add") => {
                let rank = tensor(&c.args[0]).map_or(0, |t| t.shape.len() as i64);
                let axis = c.attrs.get_int("axis").unwrap_or(1);
                let axis = if axis < 0 { axis + rank } else { axis };
                arg(0).filter(|m| m.axes == [axis])
            }
            Some("nn.dense") => Some(Message::new(vec![1], false)),
            _ => None,
        };
        if let Some(m) = out {
            messages.insert(e.id(), m);
        }
    }
    messages
}

/// How a planned node is rebuilt.
#[derive(Clone)]
enum Step {
    /// The multiply disappears: use operand `0` or `1`.
    Fold(usize),
    /// relu, or an add whose operands both take the scale: rebuilt from the scaled operands.
    Pass,
    /// add/subtract/bias_add: operand `idx` is multiplied by `scale`.
    ScaleOperand(usize, Expr),
    /// conv/dense: the weight is multiplied by `scale`.
    ScaleWeight(Expr),
}

/// Decides, consumers first, which multiplies fold and how every node on their chains changes.
fn plan(order: &[&Expr], messages: &crate::ir::NodeMap<Message>) -> crate::ir::NodeMap<Step> {
    let mut plan: crate::ir::NodeMap<Step> = Default::default();
    for e in order.iter().rev() {
        let Some(c) = e.as_call() else { continue };
        if op_name(c) != Some("multiply") || c.args.len() != 2 {
            continue;
        }
        let (Some(tl), Some(tr)) = (tensor(&c.args[0]), tensor(&c.args[1])) else {
            continue;
        };
        // As in TVM, the left operand is tried first and the right one only without a message.
        let (data, other, td, to) =
            match (messages.get(&c.args[0].id()), messages.get(&c.args[1].id())) {
                (Some(_), _) => (0, 1, tl, tr),
                (None, Some(_)) => (1, 0, tr, tl),
                _ => continue,
            };
        let m = &messages[&c.args[data].id()];
        let mut scale = c.args[other].clone();
        if !match_broadcast(td, to, &m.axes, Some(&mut scale))
            || (m.require_positive && !all_positive_constant(&scale))
        {
            continue;
        }
        if let Some(steps) = chain(&c.args[data], m, &scale, messages) {
            plan.insert(e.id(), Step::Fold(data));
            plan.extend(steps);
        }
    }
    plan
}

/// The steps that push `scale` (on `m`'s axes) into `root`'s chain, or `None` when some step
/// cannot be done.
fn chain(
    root: &Expr,
    m: &Message,
    scale: &Expr,
    messages: &crate::ir::NodeMap<Message>,
) -> Option<Vec<(usize, Step)>> {
    let mut steps = Vec::new();
    let mut stack = vec![root.clone()];
    while let Some(e) = stack.pop() {
        let c = e.as_call()?;
        let step = match op_name(c)? {
            "nn.relu" | "nn.leaky_relu" => {
                stack.push(c.args[0].clone());
                Step::Pass
            }
            "add" | "subtract" => {
                let on_axes = |i: usize| {
                    messages
                        .get(&c.args[i].id())
                        .is_some_and(|x| x.axes == m.axes)
                };
                let known = |i: usize| messages.contains_key(&c.args[i].id());
                match (known(0), known(1)) {
                    (true, true) if on_axes(0) && on_axes(1) => {
                        stack.extend(c.args.iter().cloned());
                        Step::Pass
                    }
                    (true, false) | (false, true) => {
                        let (scaled, other) = if known(0) { (0, 1) } else { (1, 0) };
                        if !on_axes(scaled) {
                            return None;
                        }
                        let shape = &tensor(&c.args[scaled])?.shape;
                        stack.push(c.args[scaled].clone());
                        Step::ScaleOperand(other, reshape_or_expand(scale.clone(), shape, &m.axes)?)
                    }
                    _ => return None,
                }
            }
            "nn.bias_add" => {
                stack.push(c.args[0].clone());
                Step::ScaleOperand(1, scale.clone())
            }
            "nn.conv2d" | "nn.conv3d" => {
                let layouts = ConvLayouts::of(&e)?;
                let wt = tensor(&c.args[1])?;
                Step::ScaleWeight(layouts.weight_scale(wt, scale.clone(), 'O')?)
            }
            "nn.dense" => Step::ScaleWeight(expand_to_axis(scale.clone(), 2, 0)),
            _ => return None,
        };
        steps.push((e.id(), step));
    }
    Some(steps)
}

struct Backward {
    plan: crate::ir::NodeMap<Step>,
}

impl Mutator for Backward {
    // A call with no step planned, and every other node (default hooks), whose children did
    // not change is itself.
    fn unchanged(&mut self, e: &Expr) -> Unchanged {
        Unchanged::keep_if(match e.kind() {
            ExprKind::Call(_) => matches!(self.plan.get(&e.id()), None | Some(Step::Pass)),
            _ => true,
        })
    }

    fn call(&mut self, e: &Expr, callee: Expr, mut args: Vec<Expr>, _attrs: &Attrs) -> Expr {
        match self.plan.get(&e.id()).cloned() {
            None | Some(Step::Pass) => rebuild_call(e, callee, args),
            Some(Step::Fold(i)) => args.swap_remove(i),
            Some(Step::ScaleOperand(i, s)) => {
                args[i] = multiply(args[i].clone(), s);
                rebuild_call(e, callee, args)
            }
            Some(Step::ScaleWeight(s)) => {
                args[1] = multiply(args[1].clone(), s);
                rebuild_call(e, callee, args)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    /// Calls with no step planned, and every other node, whose children did not change are
    /// themselves on the fast path: the same output as through the hooks.
    #[test]
    fn the_unchanged_path_gives_the_hooks_output() {
        let programs = crate::ir::mutate::sample_programs("fold_scale_backward");
        crate::ir::mutate::assert_unchanged_path_agrees(
            |f| super::Backward {
                plan: super::backward_plan(f),
            },
            &programs,
        );
    }
}
