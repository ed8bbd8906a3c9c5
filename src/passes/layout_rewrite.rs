//! The layout rewriter shared by ConvertLayout and AlterOpLayout (TVM's `LayoutRewriter`,
//! `transform_layout.h`): a post-order rewrite that tracks, for every rewritten tensor, the
//! layout it had in the original program (*old*) and the layout it has now (*new*), and
//! inserts `layout_transform` where a consumer wants another layout.
//!
//! For each op call with a layout rule (`rules.rs`), as TVM's `LayoutRewriter` does:
//! 1. the rule on the producers' original layouts (`old_prd`) gives the layouts the call sees
//!    its inputs in (`old_cur`) and its outputs' original layouts (`old_out`);
//! 2. unknown producer layouts, new or old, default to `old_cur`;
//! 3. the pass's hook gives the call's new attributes and op (ConvertLayout: the desired
//!    layouts; AlterOpLayout: the op's alter hook);
//! 4. the rule on the producers' new layouts and the new attributes gives the layouts the new
//!    call wants (`new_cur`, `new_out`) and its final attributes;
//! 5. every input is transformed from its producer's new layout to `new_cur` (in two steps,
//!    back to `old_prd` and then from `old_cur`, when the call sees its input in another
//!    layout than its producer made it; a smaller-rank input is first expanded with
//!    `expand_dims`, a scalar is left alone), and the result is recorded as (old_out, new_out).
//!
//! A call without a rule (or whose rule cannot decide) gets its inputs transformed back to their
//! original layouts; so does every other consumer (tuples not feeding a call, projections,
//! `let`, `if`, function bodies), so each function still returns values in its original
//! layouts. Transforms are memoized per (expression, source, destination), like TVM's
//! `TransformMemorizer`, so a tensor converted for several consumers is converted once.
//!
//! Invariants: iterative (the mutator), sharing kept, a call whose layouts and attributes do
//! not change is kept as the same node, so a function with nothing to convert is returned as it
//! is. New nodes carry no checked type until InferType runs again.
//!
//! Calls with a tuple result (`nn.batch_norm`, `split`, `topk`) get one (old, new) pair per
//! field; a projection of such a call takes its field's pair, and any other use gets a tuple of
//! its fields transformed back. A projection of a tuple expression is the field itself, as in
//! TVM's forward rewriter. Hooks may change the attributes and the op (ConvertLayout:
//! `nn.conv2d` to `nn.contrib_conv2d_NCHWc`), not the number of arguments.
//!
//! Deliberately not done: nested tuple arguments (TVM does not support them either).

pub mod layout;
pub mod rules;

use crate::ir::mutate::{
    rebuild_call, rebuild_function, rebuild_get_item, rebuild_if, rebuild_let, rebuild_tuple,
    Mutator,
};
use crate::ir::{
    AttrValue, Attrs, Call, Expr, ExprKind, Function, Op, TensorType, Type, TypeKind, Var,
};
use layout::Layout;
use rules::L;
use rustc_hash::FxHashMap;
use smallvec::SmallVec;

/// How a pass changes a call for new layouts (TVM's `CallWithNewLayouts`).
pub trait LayoutHook {
    /// The attributes of `call` (an op call) in the new layouts; `attrs` when unchanged.
    fn new_attrs(&self, op: Op, call: &Expr, attrs: &Attrs) -> Attrs;

    /// The op of the call with `new_attrs` (`op` unless the hook replaces it, as
    /// ConvertLayout replaces `nn.conv2d` by `nn.contrib_conv2d_NCHWc` for blocked data).
    fn new_op(&self, op: Op, _new_attrs: &Attrs) -> Op {
        op
    }

    /// Whether the hook may replace calls of `op` ([`LayoutHook::replace`]).
    fn replaces(&self, _op: Op) -> bool {
        false
    }

    /// A call to put in place of `call` (an op call with its rewritten arguments, not yet
    /// transformed, and its attributes in the original layouts), as TVM's alter callbacks
    /// that build other ops do; `None` to keep the call. `orig` is the call in the input
    /// program, whose arguments and result carry their checked types (TVM's `tinfos` and
    /// `out_type`). The replacement's op and attributes go to the layout rule, and its
    /// arguments are transformed by position as the original call's would be.
    fn replace(&self, _op: Op, _call: &Expr, _orig: &Expr) -> Option<Expr> {
        None
    }
}

/// The rewriter: a mutator over one function.
pub struct Rewriter<'h> {
    hook: &'h dyn LayoutHook,
    /// (old, new) layouts of rewritten call results, by node identity.
    alt: crate::ir::NodeMap<(L, L)>,
    /// Realized tuples whose fields had other layouts: the fields before realization.
    tuples: crate::ir::NodeMap<Vec<(Expr, L, L)>>,
    /// (old, new) layouts of each field of rewritten calls with a tuple result
    /// (`nn.batch_norm`, `split`), when some field changed.
    tuple_outs: crate::ir::NodeMap<Vec<(L, L)>>,
    /// Calls with a tuple result, back in their original layouts (a tuple of projections).
    realized_tuples: crate::ir::NodeMap<Expr>,
    memo: FxHashMap<(usize, Layout, Layout), Expr>,
}

impl<'h> Rewriter<'h> {
    pub fn new(hook: &'h dyn LayoutHook) -> Rewriter<'h> {
        Rewriter {
            hook,
            alt: Default::default(),
            tuples: Default::default(),
            tuple_outs: Default::default(),
            realized_tuples: Default::default(),
            memo: FxHashMap::default(),
        }
    }

    fn layouts(&self, e: &Expr) -> (L, L) {
        self.alt.get(&e.id()).cloned().unwrap_or((None, None))
    }

    /// `raw` converted from `src` to `dst`; `None` when no transform exists.
    fn transform(&mut self, raw: &Expr, src: &L, dst: &L, ty: Option<&TensorType>) -> Option<Expr> {
        if src == dst {
            return Some(raw.clone());
        }
        let (s, d) = (src.as_ref()?, dst.as_ref()?);
        let key = (raw.id(), *s, *d);
        if let Some(x) = self.memo.get(&key) {
            return Some(x.clone());
        }
        let mut input = raw.clone();
        let mut s = *s;
        if s.ndim_primal() < d.ndim_primal() {
            let scalar = ty.is_some_and(|t| t.shape.iter().all(|x| x.as_static() == Some(1)));
            if scalar {
                return Some(raw.clone());
            }
            let n = d.ndim_primal() - s.ndim_primal();
            s = s.expand_primal(d);
            input = call_op(
                "expand_dims",
                vec![input],
                vec![
                    ("axis", AttrValue::int(0)),
                    ("num_newaxis", AttrValue::int(n as i64)),
                ],
            );
        }
        let out = if s == *d {
            input
        } else if s.convertible(d) {
            call_op(
                "layout_transform",
                vec![input],
                vec![
                    ("src_layout", AttrValue::str(&s.to_string())),
                    ("dst_layout", AttrValue::str(&d.to_string())),
                ],
            )
        } else {
            return None;
        };
        self.memo.insert(key, out.clone());
        Some(out)
    }

    /// `e` back in its original layout.
    fn realize(&mut self, e: Expr, orig: &Expr) -> Expr {
        if let Some(outs) = self.tuple_outs.get(&e.id()).cloned() {
            return self.realize_tuple_out(e, orig, &outs);
        }
        let (old, new) = self.layouts(&e);
        let ty = orig.ty().and_then(Type::as_tensor);
        self.transform(&e, &new, &old, ty).unwrap_or(e)
    }

    /// A call with a tuple result in its original layouts: a tuple of its fields, each
    /// transformed back (TVM realizes the tuple of fields its rewriter made).
    fn realize_tuple_out(&mut self, e: Expr, orig: &Expr, outs: &[(L, L)]) -> Expr {
        if let Some(x) = self.realized_tuples.get(&e.id()) {
            return x.clone();
        }
        let field_types: Vec<Option<TensorType>> = match orig.ty().map(Type::kind) {
            Some(TypeKind::Tuple(fs)) => fs.iter().map(|f| f.as_tensor().cloned()).collect(),
            _ => vec![None; outs.len()],
        };
        let fields: Vec<Expr> = outs
            .iter()
            .enumerate()
            .map(|(i, (old, new))| {
                let item = get_item(&e, i);
                let ty = field_types.get(i).and_then(Option::as_ref);
                self.transform(&item, new, old, ty).unwrap_or(item)
            })
            .collect();
        let out = Expr::tuple(fields);
        self.realized_tuples.insert(e.id(), out.clone());
        out
    }

    fn realize_all(&mut self, new: Vec<Expr>, orig: &[&Expr]) -> Vec<Expr> {
        new.into_iter()
            .zip(orig)
            .map(|(n, o)| self.realize(n, o))
            .collect()
    }

    /// The layout-rewritten call, or `None` to fall back to the original layouts
    /// (TVM's `LayoutRewriter`).
    fn rewrite(
        &mut self,
        e: &Expr,
        op: Op,
        c: &Call,
        callee: &Expr,
        args: &[Expr],
    ) -> Option<Expr> {
        let tuple_out = match e.ty()?.kind() {
            TypeKind::Tensor(_) => false,
            TypeKind::Tuple(_) => true,
            _ => return None,
        };
        if !rules::has_rule(op) {
            return None;
        }
        // Inputs, with tuple arguments flattened: (value, old, new) and the original type.
        // A call has a handful: these lists live on the stack.
        let mut inputs: SmallVec<[(Expr, L, L); 4]> = SmallVec::new();
        let mut types: SmallVec<[Type; 4]> = SmallVec::new();
        let mut arity: SmallVec<[Option<usize>; 4]> = SmallVec::new();
        for (orig, new) in c.args.iter().zip(args) {
            let items = match (orig.kind(), self.tuple_outs.get(&new.id())) {
                (ExprKind::Tuple(_), _) => Some(match self.tuples.get(&new.id()) {
                    Some(items) => items.clone(),
                    None => match new.kind() {
                        ExprKind::Tuple(fs) => fs.iter().map(|f| (f.clone(), None, None)).collect(),
                        _ => return None,
                    },
                }),
                // A call with a tuple result passed whole (`concatenate(split(..))`): its
                // fields, as TVM's rewriter sees the tuple it made.
                (_, Some(outs)) => Some(
                    outs.iter()
                        .enumerate()
                        .map(|(i, (o, n))| (get_item(new, i), *o, *n))
                        .collect::<Vec<_>>(),
                ),
                _ => None,
            };
            match items {
                Some(items) => {
                    let TypeKind::Tuple(fields) = orig.ty()?.kind() else {
                        return None;
                    };
                    if fields.len() != items.len() {
                        return None;
                    }
                    arity.push(Some(items.len()));
                    inputs.extend(items);
                    types.extend(fields.iter().cloned());
                }
                None => {
                    let (old, cur) = self.layouts(new);
                    arity.push(None);
                    inputs.push((new.clone(), old, cur));
                    types.push(orig.ty()?.clone());
                }
            }
        }
        // 1. The original layouts: what the op sees of its producers' original layouts
        //    (`old_cur`) and its outputs' (`old_out`).
        let old_prd: rules::Ls = inputs.iter().map(|(_, o, _)| *o).collect();
        let old = rules::infer(op, &c.attrs, None, &old_prd, &types)?;
        if old.inputs.len() != inputs.len() || old.outputs.is_empty() {
            return None;
        }
        let fill = |ls: &mut rules::Ls| {
            for (l, cur) in ls.iter_mut().zip(&old.inputs) {
                *l = (*l).or(*cur);
            }
        };
        let mut new_prd: rules::Ls = inputs.iter().map(|(_, _, n)| *n).collect();
        fill(&mut new_prd);
        let mut old_prd_inferred = old_prd.clone();
        fill(&mut old_prd_inferred);
        // 2. The call in the new layouts (the pass's hook), and what it wants of its inputs.
        //    A hook that replaces the call gives its op, attributes and arguments.
        let mut values: SmallVec<[Expr; 4]> = inputs.iter().map(|(v, _, _)| v.clone()).collect();
        let replaced = self
            .replacement(e, op, callee, &old.attrs, &arity, &values)
            .ok()?;
        let (new_op, new_attrs) = match replaced {
            Some(r) => {
                values = r.args.iter().cloned().collect();
                match r.callee.kind() {
                    ExprKind::Op(o) => (*o, r.attrs.clone()),
                    _ => return None,
                }
            }
            None => {
                let new_attrs = self.hook.new_attrs(op, e, &old.attrs);
                (self.hook.new_op(op, &new_attrs), new_attrs)
            }
        };
        if !rules::has_rule(new_op) {
            return None;
        }
        let new = rules::infer(
            new_op,
            &new_attrs,
            Some(&new_prd),
            &old_prd_inferred,
            &types,
        )?;
        if new.inputs.len() != inputs.len() || new.outputs.len() != old.outputs.len() {
            return None;
        }
        // 3. Each input from its producer's new layout to the one the call wants.
        let mut flat: SmallVec<[Expr; 4]> = SmallVec::with_capacity(inputs.len());
        for (i, ((_, prd, _), value)) in inputs.iter().zip(&values).enumerate() {
            let ty = types[i].as_tensor();
            let (old_cur, new_cur) = (&old.inputs[i], &new.inputs[i]);
            let v = if old_cur == prd {
                self.transform(value, &new_prd[i], new_cur, ty)?
            } else {
                let v = match prd {
                    Some(_) => self.transform(value, &new_prd[i], prd, ty)?,
                    None => value.clone(),
                };
                self.transform(&v, old_cur, new_cur, ty)?
            };
            flat.push(v);
        }
        let mut flat = flat.into_iter();
        let new_args: Vec<Expr> = arity
            .iter()
            .zip(args)
            .map(|(a, orig)| match a {
                None => flat.next().expect("one value per input"),
                Some(n) => {
                    let fields: Vec<Expr> = flat.by_ref().take(*n).collect();
                    match orig.kind() {
                        ExprKind::Tuple(_) => rebuild_tuple(orig, fields),
                        _ => Expr::tuple(fields),
                    }
                }
            })
            .collect();
        let out = if new.attrs == c.attrs && new_op == op {
            rebuild_call(e, callee.clone(), new_args)
        } else {
            let callee = if new_op == op {
                callee.clone()
            } else {
                Expr::op(new_op)
            };
            let call = Call {
                callee,
                args: new_args.into(),
                attrs: new.attrs,
            };
            Expr::with_info(ExprKind::Call(call), None, e.span())
        };
        if tuple_out {
            let outs: Vec<(L, L)> = old.outputs.iter().copied().zip(new.outputs).collect();
            if outs.iter().any(|(o, n)| o != n) {
                self.tuple_outs.insert(out.id(), outs);
            }
        } else if old.outputs[0].is_some() || new.outputs[0].is_some() {
            // (None, None) is what `layouts` answers for a node not in the table: not
            // stored, so a program without layouts keeps the table empty.
            self.alt.insert(out.id(), (old.outputs[0], new.outputs[0]));
        }
        Some(out)
    }
}

impl Rewriter<'_> {
    /// The hook's replacement of a call of `op` with arguments `values` and attributes
    /// `attrs`: `Ok(None)` when the hook keeps the call, `Err(())` when it replaces it by
    /// something the rewriter cannot lay out by position (a call with a tuple argument, or a
    /// replacement with another number of arguments): the caller then falls back to the
    /// original layouts, where the hook is asked again.
    fn replacement(
        &self,
        orig: &Expr,
        op: Op,
        callee: &Expr,
        attrs: &Attrs,
        arity: &[Option<usize>],
        values: &[Expr],
    ) -> Result<Option<Call>, ()> {
        if !self.hook.replaces(op) {
            return Ok(None);
        }
        if arity.iter().any(Option::is_some) {
            return Err(());
        }
        let probe = Expr::call(callee.clone(), values.to_vec(), attrs.clone());
        let Some(r) = self.hook.replace(op, &probe, orig) else {
            return Ok(None);
        };
        match r.as_call() {
            Some(c) if c.args.len() == values.len() => Ok(Some(c.clone())),
            _ => Err(()),
        }
    }
}

fn get_item(tuple: &Expr, index: usize) -> Expr {
    Expr::get_item(tuple.clone(), index)
}

fn call_op(name: &str, args: Vec<Expr>, fields: Vec<(&str, AttrValue)>) -> Expr {
    crate::passes::fold_scale_axis::op_call(name, args, fields)
}

impl Rewriter<'_> {
    /// Whether no rewritten argument is a call with layouts (`alt`): then `realize` leaves
    /// every argument as it is.
    fn none_realized(&self, args: &[Expr]) -> bool {
        (self.alt.is_empty() || !args.iter().any(|a| self.alt.contains_key(&a.id())))
            && (self.tuple_outs.is_empty()
                || !args.iter().any(|a| self.tuple_outs.contains_key(&a.id())))
    }

    /// Whether no argument of a call carries a layout: none is in `alt` and none is a tuple
    /// (whose fields might).
    fn no_layouts(&self, c: &Call, args: &[Expr]) -> bool {
        self.none_realized(args)
            && !c
                .args
                .iter()
                .any(|a| matches!(a.kind(), ExprKind::Tuple(_)))
    }
}

impl Mutator for Rewriter<'_> {
    fn call(&mut self, e: &Expr, callee: Expr, args: Vec<Expr>, _attrs: &Attrs) -> Expr {
        let ExprKind::Call(c) = e.kind() else {
            return e.clone();
        };
        // Most calls of a model meet no layout: an elementwise or broadcast op (or an op with
        // no rule) whose arguments carry none comes out as the general path would build it
        // (no transforms, no layouts recorded), without its vectors and rule runs.
        if let ExprKind::Op(op) = c.callee.kind() {
            let fast = !self.hook.replaces(*op)
                && match rules::follows_inputs(*op) {
                    Some(rules::FollowsInputs::Broadcast) => self.no_layouts(c, &args),
                    Some(rules::FollowsInputs::Elemwise) => {
                        self.no_layouts(c, &args)
                            && self.hook.new_attrs(*op, e, &c.attrs) == c.attrs
                    }
                    None => false,
                };
            if fast {
                return rebuild_call(e, callee, args);
            }
            if let Some(out) = self.rewrite(e, *op, c, &callee, &args) {
                return out;
            }
        }
        let out = if self.none_realized(&args) {
            // Nothing to realize.
            rebuild_call(e, callee, args)
        } else {
            let orig: Vec<&Expr> = c.args.iter().collect();
            let args = self.realize_all(args, &orig);
            rebuild_call(e, callee, args)
        };
        // A call without a layout rule (or whose rule cannot decide) is still offered to the
        // hook, with its arguments in their original layouts.
        match c.callee.kind() {
            ExprKind::Op(op) if self.hook.replaces(*op) => {
                self.hook.replace(*op, &out, e).unwrap_or(out)
            }
            _ => out,
        }
    }

    fn tuple(&mut self, e: &Expr, fields: Vec<Expr>) -> Expr {
        let ExprKind::Tuple(orig) = e.kind() else {
            return e.clone();
        };
        let items: Vec<(Expr, L, L)> = fields
            .iter()
            .map(|f| {
                let (o, n) = self.layouts(f);
                (f.clone(), o, n)
            })
            .collect();
        let changed = items.iter().any(|(_, o, n)| o != n);
        let orig: Vec<&Expr> = orig.iter().collect();
        let realized = self.realize_all(fields, &orig);
        let out = rebuild_tuple(e, realized);
        if changed {
            self.tuples.insert(out.id(), items);
        }
        out
    }

    fn get_item(&mut self, e: &Expr, tuple: Expr, index: usize) -> Expr {
        // A projection of a tuple is its field, in the layout it had before the tuple was
        // realized (TVM's forward rewriter answers `(a, b).0` with `a`).
        if let Some(items) = self.tuples.get(&tuple.id()) {
            if let Some((field, _, _)) = items.get(index) {
                return field.clone();
            }
        }
        if let ExprKind::Tuple(fields) = tuple.kind() {
            if let Some(field) = fields.get(index) {
                return field.clone();
            }
        }
        // A field of a rewritten call with a tuple result keeps that field's layouts.
        let field = self
            .tuple_outs
            .get(&tuple.id())
            .and_then(|outs| outs.get(index).copied());
        let out = rebuild_get_item(e, tuple, index);
        if let Some(layouts) = field {
            self.alt.insert(out.id(), layouts);
        }
        out
    }

    fn let_(&mut self, e: &Expr, var: &Var, value: Expr, body: Expr) -> Expr {
        let ExprKind::Let(l) = e.kind() else {
            return e.clone();
        };
        let value = self.realize(value, &l.value);
        let body = self.realize(body, &l.body);
        rebuild_let(e, var.clone(), value, body)
    }

    fn if_(&mut self, e: &Expr, cond: Expr, then_branch: Expr, else_branch: Expr) -> Expr {
        let ExprKind::If(i) = e.kind() else {
            return e.clone();
        };
        let cond = self.realize(cond, &i.cond);
        let t = self.realize(then_branch, &i.then_branch);
        let f = self.realize(else_branch, &i.else_branch);
        rebuild_if(e, cond, t, f)
    }

    fn function(&mut self, e: &Expr, f: &Function, body: Expr) -> Expr {
        let body = self.realize(body, &f.body);
        rebuild_function(e, f, body)
    }
}

/// Parses a layout name (for the passes' attribute handling).
pub fn parse_layout(s: &str) -> Option<Layout> {
    Layout::parse(s)
}
