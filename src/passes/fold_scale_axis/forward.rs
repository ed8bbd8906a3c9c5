//! ForwardFoldScaleAxis: `conv(relu(multiply(x, s)), w)` => `conv(relu(x), multiply(w, s'))`.
//!
//! 1. **Prep** (backward over the graph, consumers before producers): each node learns which
//!    of its axes its consumers could absorb a scale on. conv2d/conv3d ask for the input
//!    channel axis of their data (`C`, plus `c` when blocked), dense for axis 1; relu and
//!    leaky_relu pass the demand on and require a positive scale; add/subtract pass it to the
//!    operand the other one broadcasts onto. Every other use (any other op, tuples, `if`,
//!    `let`, function bodies) says "no"; several consumers intersect their demands.
//! 2. **Rewrite** (post-order, the mutator): a `multiply` whose demand matches one operand's
//!    broadcast becomes a *scaled* value (value, axes, squeezed scale). relu/leaky_relu keep it
//!    scaled; add/subtract divide the other operand by the scale and stay scaled; conv/dense
//!    multiply their weight by the scale along the kernel's input axis (`I`; `O` for
//!    depthwise) and are no longer scaled. A scaled value is always also a plain expression
//!    (`multiply(value, scale on its axes)`), recorded in a side table: a consumer that cannot
//!    take the scale simply uses that expression.

use super::{
    all_positive_constant, expand_to_axis, intersect, match_broadcast, multiply, op_call,
    reshape_or_expand, tensor, ConvLayouts, Message,
};
use crate::ir::mutate::{mutate, rebuild_call, walk_refs, Mutator, Unchanged};
use crate::ir::{Attrs, Call, Expr, ExprKind};

/// Forward scale folding of one typed function (see the module documentation).
pub fn forward_fold_scale_axis(f: &Expr) -> Expr {
    let messages = prepare(f);
    if !messages
        .values()
        .any(|m| m.as_ref().is_some_and(|m| !m.axes.is_empty()))
    {
        return f.clone();
    }
    mutate(
        &mut Forward {
            messages,
            scaled: Default::default(),
        },
        f,
    )
}

type Messages = crate::ir::NodeMap<Option<Message>>;

/// Records one consumer's demand on `e`. A node with one handle has one consumer, so its
/// entry is written once, and only for a demand: a missing entry reads as "no demand". A shared
/// node keeps an entry from its first consumer on, "no" included, so that a later demand is
/// intersected with it rather than taken alone.
fn update(messages: &mut Messages, e: &Expr, m: Option<Message>) {
    if !e.is_shared() {
        if m.is_some() {
            messages.insert(e.id(), m);
        }
        return;
    }
    let slot = messages.entry(e.id()).or_insert_with(|| m.clone());
    *slot = intersect(slot, &m);
}

/// The demand on every node, from its consumers.
fn prepare(f: &Expr) -> Messages {
    // Borrowed, not cloned: no reference count written on every node, and `is_shared` still
    // tells which nodes have more than one consumer.
    let mut order: Vec<&Expr> = crate::ir::scratch::take_vec();
    walk_refs(f, |e, exit| {
        if exit {
            order.push(e);
        }
        true
    });
    let mut messages = Messages::default();
    for e in order.iter().rev() {
        match e.kind() {
            ExprKind::Call(c) => {
                let out = messages.get(&e.id()).cloned().flatten();
                let ins = prep_call(e, c, out);
                for (a, m) in c.args.iter().zip(ins) {
                    update(&mut messages, a, m);
                }
            }
            ExprKind::Tuple(fields) => fields.iter().for_each(|x| update(&mut messages, x, None)),
            ExprKind::If(i) => {
                for x in [&i.cond, &i.then_branch, &i.else_branch] {
                    update(&mut messages, x, None);
                }
            }
            ExprKind::Let(l) => {
                update(&mut messages, &l.value, None);
                update(&mut messages, &l.body, None);
            }
            ExprKind::Function(fun) => update(&mut messages, &fun.body, None),
            _ => {}
        }
    }
    crate::ir::scratch::give_vec(order);
    messages
}

/// The demand a call puts on each of its arguments, given the demand on its result.
fn prep_call(e: &Expr, c: &Call, out: Option<Message>) -> Vec<Option<Message>> {
    let none = vec![None; c.args.len()];
    let ExprKind::Op(op) = c.callee.kind() else {
        return none;
    };
    match op.name() {
        "nn.relu" | "nn.leaky_relu" => vec![out.map(|m| Message::new(m.axes, true))],
        "add" | "subtract" => {
            let (Some(out), Some(l), Some(r)) = (out, tensor(&c.args[0]), tensor(&c.args[1]))
            else {
                return none;
            };
            if match_broadcast(l, r, &out.axes, None) {
                vec![Some(out), None]
            } else if match_broadcast(r, l, &out.axes, None) {
                vec![None, Some(out)]
            } else {
                none
            }
        }
        "nn.conv2d" | "nn.conv3d" => {
            let Some(layouts) = ConvLayouts::of(e) else {
                return none;
            };
            let axes = layouts.channel_axes(e, &layouts.data);
            vec![axes.map(|a| Message::new(a, false)), None]
        }
        "nn.dense" => vec![Some(Message::new(vec![1], false)), None],
        _ => none,
    }
}

/// A value whose true result is `value` scaled by `scale` along `axes`.
#[derive(Clone)]
struct Scaled {
    value: Expr,
    axes: Vec<i64>,
    scale: Expr,
}

struct Forward {
    messages: Messages,
    /// Results of the rewrite that stand for a scaled value, by node identity.
    scaled: crate::ir::NodeMap<Scaled>,
}

impl Forward {
    /// The plain expression of a scaled value, recorded so consumers can see the scale.
    fn realize(&mut self, orig: &Expr, s: Scaled) -> Option<Expr> {
        let shape = &tensor(orig)?.shape;
        let full = match s.axes.as_slice() {
            [a] => expand_to_axis(s.scale.clone(), shape.len(), *a),
            axes => super::reshape_to_axes(s.scale.clone(), shape, axes)?,
        };
        let out = multiply(s.value.clone(), full);
        self.scaled.insert(out.id(), s);
        Some(out)
    }

    fn get(&self, e: &Expr) -> Option<Scaled> {
        self.scaled.get(&e.id()).cloned()
    }

    fn rewrite(&mut self, e: &Expr, c: &Call, callee: &Expr, args: &[Expr]) -> Option<Expr> {
        let ExprKind::Op(op) = c.callee.kind() else {
            return None;
        };
        let rebuilt = |args: Vec<Expr>| Expr::call(callee.clone(), args, c.attrs.clone());
        match op.name() {
            "nn.relu" | "nn.leaky_relu" => {
                let s = self.get(&args[0])?;
                let value = rebuilt(vec![s.value.clone()]);
                self.realize(e, Scaled { value, ..s })
            }
            "add" | "subtract" => {
                let (sl, sr) = (self.get(&args[0]), self.get(&args[1]));
                let (s, idx) = match (sl, sr) {
                    (Some(s), None) => (s, 0),
                    (None, Some(s)) => (s, 1),
                    _ => return None,
                };
                let shape = &tensor(&c.args[idx])?.shape;
                let scale = reshape_or_expand(s.scale.clone(), shape, &s.axes)?;
                let other = op_call("divide", vec![args[1 - idx].clone(), scale], vec![]);
                let mut new_args = vec![s.value.clone(), other];
                if idx == 1 {
                    new_args.swap(0, 1);
                }
                let value = rebuilt(new_args);
                self.realize(e, Scaled { value, ..s })
            }
            "multiply" => {
                let m = self.messages.get(&e.id()).cloned().flatten()?;
                if m.axes.is_empty() || self.get(&args[0]).is_some() || self.get(&args[1]).is_some()
                {
                    return None;
                }
                let (tl, tr) = (tensor(&c.args[0])?, tensor(&c.args[1])?);
                for (data, scale, td, ts) in [(0, 1, tl, tr), (1, 0, tr, tl)] {
                    let mut sv = args[scale].clone();
                    if match_broadcast(td, ts, &m.axes, Some(&mut sv))
                        && (!m.require_positive || all_positive_constant(&sv))
                    {
                        let s = Scaled {
                            value: args[data].clone(),
                            axes: m.axes.clone(),
                            scale: sv,
                        };
                        return self.realize(e, s);
                    }
                }
                None
            }
            "nn.conv2d" | "nn.conv3d" => {
                let s = self.get(&args[0])?;
                if self.get(&args[1]).is_some() {
                    return None;
                }
                let layouts = ConvLayouts::of(e)?;
                layouts.data.index_of('C')?;
                let big = if layouts.depthwise(e) { 'O' } else { 'I' };
                let wt = tensor(&c.args[1])?;
                let weight = multiply(args[1].clone(), layouts.weight_scale(wt, s.scale, big)?);
                Some(rebuilt(vec![s.value, weight]))
            }
            "nn.dense" => {
                let s = self.get(&args[0])?;
                if self.get(&args[1]).is_some() {
                    return None;
                }
                let weight = multiply(args[1].clone(), s.scale);
                Some(rebuilt(vec![s.value, weight]))
            }
            _ => None,
        }
    }
}

impl Mutator for Forward {
    // A call whose arguments did not change is rewritten (or not) from its own arguments; the
    // other hooks are the defaults, which return an unchanged node itself.
    fn unchanged(&mut self, e: &Expr) -> Unchanged {
        match e.kind() {
            ExprKind::Call(c) => match self.rewrite(e, c, &c.callee, &c.args) {
                Some(out) => Unchanged::Replace(out),
                None => Unchanged::Keep,
            },
            _ => Unchanged::Keep,
        }
    }

    fn call(&mut self, e: &Expr, callee: Expr, args: Vec<Expr>, _attrs: &Attrs) -> Expr {
        let ExprKind::Call(c) = e.kind() else {
            return e.clone();
        };
        match self.rewrite(e, c, &callee, &args) {
            Some(out) => out,
            None => rebuild_call(e, callee, args),
        }
    }
}

#[cfg(test)]
mod tests {
    /// Calls whose arguments did not change are rewritten from their own arguments on the
    /// fast path: the same output as through the hooks.
    #[test]
    fn the_unchanged_path_gives_the_hooks_output() {
        let programs = crate::ir::mutate::sample_programs("fold_scale_forward");
        crate::ir::mutate::assert_unchanged_path_agrees(
            |f| super::Forward {
                messages: super::prepare(f),
                scaled: Default::default(),
            },
            &programs,
        );
    }
}
