//! CombineParallelConv2D, CombineParallelDense and CombineParallelBatchMatmul (TVM
//! `src/relay/transforms/combine_parallel_op.cc` and its three users): calls of one op that
//! share their first argument (the branches of an Inception block, the Q/K/V projections of a
//! transformer layer) become one call whose result is sliced back into the branches, so a
//! backend launches one kernel instead of several. Elementwise and broadcast calls that follow
//! every branch the same way are combined too, as deep as all branches of a group agree.
//!
//! The algorithm is TVM's, in three steps:
//! 1. *Find.* One walk records, for every node, the calls that use it. A supported call of the
//!    op counts only as a use of its first argument (its *root*). A *branch* starts at such a
//!    call and follows the single consumer while it is an elementwise or broadcast op call
//!    used once. The branches of one root are grouped with the op's compatibility rule (the
//!    first group whose first branch is compatible takes a branch).
//! 2. *Combine.* A group of at least `min_num_branches` branches becomes the combined call
//!    ([`Combiner::combined_op`]); then, level by level, the following calls are combined
//!    while every branch has the same op, equal attributes and compatible other arguments at
//!    that level ([`Combiner::combined_following`]); finally the last combined level is split
//!    back into the branches ([`Combiner::outputs`]).
//! 3. *Substitute.* Each branch's last combined call is replaced by its slice, in one
//!    iterative memoized rewrite that also rewrites inside the replacements (a group whose
//!    root is the output of an earlier group sees that group combined).
//!
//! The built calls are typed as InferType types them (the input must be typed: the passes
//! require InferType). A call the rules cannot reason about (an untyped argument, a dynamic
//! extent where a static one is needed) is left alone rather than failing the pass.
//!
//! Where passlab differs from TVM: TVM walks its roots in hash order of their addresses;
//! passlab walks them in the order the walk first meets them (the result is the same, the
//! groups are independent). A call of the op that its combiner does not support (a grouped
//! conv2d) never joins a group here; TVM lets one join when another call of the same root is
//! supported. A branch stops before a call whose callee is not an op (TVM fails there).

pub mod batch_matmul;
pub mod conv2d;
pub mod dense;

use crate::ir::{Attrs, Expr, ExprKind, Op, OpPattern, TensorType};
use crate::pass::{leaf_function_pass, Pass, PassError, PassOptions};
use crate::passes::infer_type::typed_node;
use crate::passes::simplify_inference::op_call;
use rustc_hash::{FxHashMap, FxHashSet};

/// TVM's default `min_num_branches` for all three passes.
const DEFAULT_MIN_BRANCHES: i64 = 3;

fn min_branches(name: &str, options: &PassOptions) -> Result<usize, PassError> {
    let n = options
        .get_int("min_num_branches")
        .unwrap_or(DEFAULT_MIN_BRANCHES);
    usize::try_from(n).map_err(|_| {
        PassError::failed(format!(
            "{name}(min_num_branches={n}): the number of branches cannot be negative"
        ))
    })
}

use super::builtin_info as info;

/// The registry's constructor of CombineParallelConv2D.
pub fn create_conv2d(options: &PassOptions) -> Result<Pass, PassError> {
    let n = min_branches("CombineParallelConv2D", options)?;
    Ok(leaf_function_pass(
        info("CombineParallelConv2D"),
        move |_, f, _, _| Ok(conv2d::combine_parallel_conv2d(f, n)),
    ))
}

/// The registry's constructor of CombineParallelDense.
pub fn create_dense(options: &PassOptions) -> Result<Pass, PassError> {
    let n = min_branches("CombineParallelDense", options)?;
    let to_batch = options.get_bool("to_batch").unwrap_or(true);
    Ok(leaf_function_pass(
        info("CombineParallelDense"),
        move |_, f, _, _| Ok(dense::combine_parallel_dense(f, n, to_batch)),
    ))
}

/// The registry's constructor of CombineParallelBatchMatmul.
pub fn create_batch_matmul(options: &PassOptions) -> Result<Pass, PassError> {
    let n = min_branches("CombineParallelBatchMatmul", options)?;
    Ok(leaf_function_pass(
        info("CombineParallelBatchMatmul"),
        move |_, f, _, _| Ok(batch_matmul::combine_parallel_batch_matmul(f, n)),
    ))
}

/// The calls of one branch, the op's call first, each the only consumer of the one before.
pub type Branch<'a> = Vec<&'a Expr>;
/// Branches that can be combined (at least the op's call of each).
pub type Group<'a> = Vec<Branch<'a>>;

/// What differs between the three passes (TVM's `ParallelOpCombiner` virtuals).
pub trait Combiner {
    /// The op whose parallel calls are combined.
    fn op(&self) -> &'static str;
    /// Whether this call of the op can be combined at all.
    fn is_supported(&self, call: &Expr) -> bool;
    /// Whether two calls of the op (with the same first argument) can be combined.
    fn can_be_combined(&self, a: &Expr, b: &Expr) -> bool;
    /// The one call replacing the op's calls of `group`.
    fn combined_op(&mut self, group: &Group) -> Option<Expr>;
    /// Whether argument `index` of `a` and of `b` (calls at the same level of two branches)
    /// can be combined.
    fn is_arg_compatible(&self, a: &Expr, b: &Expr, index: usize) -> bool;
    /// The call combining level `depth` of the branches, `data` standing for the combined
    /// level before it (argument `parent` of each branch's call).
    fn combined_following(
        &self,
        data: Expr,
        group: &Group,
        depth: usize,
        parent: usize,
    ) -> Option<Expr>;
    /// For each branch, the part of `data` (the combined level `depth`) that replaces the
    /// branch's call at that level.
    fn outputs(&self, data: &Expr, group: &Group, depth: usize) -> Option<Vec<Expr>>;
}

/// Combines the parallel calls of `combiner`'s op in one function (or any expression).
pub fn combine(e: &Expr, combiner: &mut dyn Combiner, min_num_branches: usize) -> Expr {
    if let Some(f) = e.as_function() {
        if f.skips_optimization() {
            return e.clone();
        }
    }
    let Some(op) = Op::get(combiner.op()) else {
        return e.clone();
    };
    let groups = find_groups(e, op, combiner);
    let mut subst: FxHashMap<usize, Expr> = FxHashMap::default();
    for group in groups.iter().filter(|g| g.len() >= min_num_branches) {
        combine_group(group, combiner, &mut subst);
    }
    substitute(e, &subst)
}

/// The op and call of `e`, when it calls an op.
pub(crate) fn op_and_args(e: &Expr) -> Option<(Op, &[Expr], &Attrs)> {
    let (op, c) = e.call_op_of()?;
    Some((op, &c.args, &c.attrs))
}

/// The tensor type of `e` (its checked type).
pub(crate) fn tensor(e: &Expr) -> Option<&TensorType> {
    e.ty()?.as_tensor()
}

/// Argument `i` of call `e`.
pub(crate) fn arg(e: &Expr, i: usize) -> Option<&Expr> {
    e.as_call()?.args.get(i)
}

/// The static extents of `e`'s tensor type.
pub(crate) fn static_shape(e: &Expr) -> Option<Vec<i64>> {
    tensor(e)?.static_shape()
}

/// A typed tuple of `fields`.
pub(crate) fn tuple(fields: Vec<Expr>) -> Expr {
    typed_node(ExprKind::Tuple(fields), crate::ir::Span::DUMMY)
}

/// A typed projection of `tuple`.
pub(crate) fn get_item(tuple: Expr, index: usize) -> Expr {
    typed_node(ExprKind::TupleGetItem(tuple, index), crate::ir::Span::DUMMY)
}

/// `concatenate(fields, axis)`.
pub(crate) fn concatenate(fields: Vec<Expr>, axis: i64) -> Expr {
    op_call(
        "concatenate",
        vec![tuple(fields)],
        vec![("axis", crate::ir::AttrValue::int(axis))],
    )
}

/// `strided_slice(data, begin, end, strides=[1, ...], slice_mode="size")`.
pub(crate) fn slice_size(data: Expr, begin: &[i64], end: &[i64]) -> Expr {
    use crate::ir::AttrValue;
    op_call(
        "strided_slice",
        vec![data],
        vec![
            ("begin", AttrValue::ints(begin)),
            ("end", AttrValue::ints(end)),
            ("strides", AttrValue::ints(&vec![1; begin.len()])),
            ("slice_mode", AttrValue::str("size")),
            ("axes", AttrValue::Null),
        ],
    )
}

/// The attributes of call `e`.
pub(crate) fn call_attrs(e: &Expr) -> Option<&Attrs> {
    Some(&e.as_call()?.attrs)
}

/// Argument `i` of every branch's call at level `depth`, in branch order.
pub(crate) fn branch_args(group: &Group, depth: usize, i: usize) -> Option<Vec<Expr>> {
    group.iter().map(|b| arg(b[depth], i).cloned()).collect()
}

/// The tensor types of argument `index` of `a` and of `b`, then of `a` and `b` themselves
/// (what every [`Combiner::is_arg_compatible`] compares).
pub(crate) fn arg_and_result_types<'e>(
    a: &'e Expr,
    b: &'e Expr,
    index: usize,
) -> Option<[&'e TensorType; 4]> {
    Some([
        tensor(arg(a, index)?)?,
        tensor(arg(b, index)?)?,
        tensor(a)?,
        tensor(b)?,
    ])
}

/// The call at level `depth` of the group's first branch, typed, over `data` in place of
/// argument `parent` and `combined(i, first)` for every other argument `i` (`first` being
/// the first branch's): the shape of every [`Combiner::combined_following`].
pub(crate) fn following_call(
    data: Expr,
    group: &Group,
    depth: usize,
    parent: usize,
    mut combined: impl FnMut(usize, &Expr) -> Option<Expr>,
) -> Option<Expr> {
    let (op, args, attrs) = op_and_args(group[0][depth])?;
    let mut new_args = Vec::with_capacity(args.len());
    for (i, a) in args.iter().enumerate() {
        new_args.push(if i == parent {
            data.clone()
        } else {
            combined(i, a)?
        });
    }
    Some(crate::passes::infer_type::typed_call(
        op,
        new_args,
        attrs.clone(),
    ))
}

/// One `slice_size` of `data` per branch, the branches side by side along one axis: `place`
/// gives a branch's `(begin, end)` from its offset along that axis, and its width (the next
/// branch's offset is this one's plus the width).
pub(crate) fn branch_slices(
    data: &Expr,
    group: &Group,
    mut place: impl FnMut(&Branch, i64) -> Option<(Vec<i64>, Vec<i64>, i64)>,
) -> Option<Vec<Expr>> {
    let mut offset = 0;
    let mut out = Vec::with_capacity(group.len());
    for branch in group {
        let (begin, end, width) = place(branch, offset)?;
        offset += width;
        out.push(slice_size(data.clone(), &begin, &end));
    }
    Some(out)
}

/// The calls using each node, and the roots in the order the walk meets them.
fn find_groups<'a>(root: &'a Expr, op: Op, combiner: &dyn Combiner) -> Vec<Group<'a>> {
    let mut children: FxHashMap<usize, Vec<&'a Expr>> = FxHashMap::default();
    let mut roots: Vec<&'a Expr> = Vec::new();
    let mut is_root: FxHashSet<usize> = FxHashSet::default();
    crate::ir::mutate::walk_refs(root, |e, exit| {
        if !exit {
            return true;
        }
        let Some(call) = e.as_call() else {
            return true;
        };
        let of_op = matches!(call.callee.kind(), ExprKind::Op(o) if *o == op);
        match call.args.first() {
            Some(first) if of_op && combiner.is_supported(e) => {
                if is_root.insert(first.id()) {
                    roots.push(first);
                }
                children.entry(first.id()).or_default().push(e);
            }
            _ => {
                for a in call.args.iter() {
                    children.entry(a.id()).or_default().push(e);
                }
            }
        }
        true
    });
    let mut groups: Vec<Group<'a>> = Vec::new();
    for r in roots {
        let first_of_root = groups.len();
        for &child in &children[&r.id()] {
            let of_op = matches!(child.as_call().map(|c| c.callee.kind()), Some(ExprKind::Op(o)) if *o == op);
            if !of_op || !combiner.is_supported(child) {
                continue;
            }
            let branch = branch_from(child, &children);
            match groups[first_of_root..]
                .iter_mut()
                .find(|g| combiner.can_be_combined(child, g[0][0]))
            {
                Some(g) => g.push(branch),
                None => groups.push(vec![branch]),
            }
        }
    }
    groups
}

/// The branch starting at `call`: it follows the single consumer while that is an
/// elementwise or broadcast op call.
fn branch_from<'a>(call: &'a Expr, children: &FxHashMap<usize, Vec<&'a Expr>>) -> Branch<'a> {
    let mut branch = vec![call];
    while let Some(next) = children.get(&branch[branch.len() - 1].id()) {
        let [next] = next.as_slice() else {
            break;
        };
        let fusible = next
            .call_op_of()
            .and_then(|(op, _)| op.pattern)
            .is_some_and(|p| p <= OpPattern::Broadcast);
        if !fusible {
            break;
        }
        branch.push(next);
    }
    branch
}

/// Combines one group (TVM's `CombineBranches`), recording each branch's replacement.
fn combine_group(group: &Group, combiner: &mut dyn Combiner, subst: &mut FxHashMap<usize, Expr>) {
    let Some(mut combined) = combiner.combined_op(group) else {
        return;
    };
    let depth = group.iter().map(Vec::len).min().unwrap_or(0);
    let mut level = 1;
    while level < depth {
        let call = group[0][level].as_call().expect("a branch holds calls");
        let Some(parent) = call.args.iter().position(|a| a.ptr_eq(group[0][level - 1])) else {
            break;
        };
        if !level_combines(group, level, parent, combiner) {
            break;
        }
        match combiner.combined_following(combined.clone(), group, level, parent) {
            Some(next) => combined = next,
            None => break,
        }
        level += 1;
    }
    let Some(outputs) = combiner.outputs(&combined, group, level - 1) else {
        return;
    };
    for (branch, out) in group.iter().zip(outputs) {
        subst.insert(branch[level - 1].id(), out);
    }
}

/// Whether every branch's call at `depth` has the first branch's op and attributes, takes
/// its own level before as argument `parent`, and has compatible other arguments (TVM's
/// `CheckLevel`).
fn level_combines(group: &Group, depth: usize, parent: usize, combiner: &dyn Combiner) -> bool {
    let first = group[0][depth].as_call().expect("a branch holds calls");
    group[1..].iter().all(|branch| {
        let Some(call) = branch[depth].as_call() else {
            return false;
        };
        let same_op = match (first.callee.kind(), call.callee.kind()) {
            (ExprKind::Op(a), ExprKind::Op(b)) => a == b,
            _ => false,
        };
        same_op
            && first.attrs == call.attrs
            && first.args.len() == call.args.len()
            && call.args[parent].ptr_eq(branch[depth - 1])
            && (0..first.args.len())
                .filter(|&i| i != parent)
                .all(|i| combiner.is_arg_compatible(group[0][depth], branch[depth], i))
    })
}

/// `root` with the nodes of `map` (by identity) replaced, inside the replacements too (TVM's
/// `ExprSubst`, whose mutator visits a replacement as it visits the rest). Iterative and
/// memoized: shared nodes stay shared, a node none of whose children changed is kept.
fn substitute<'a>(root: &'a Expr, map: &'a FxHashMap<usize, Expr>) -> Expr {
    if map.is_empty() {
        return root.clone();
    }
    enum Task<'b> {
        Visit(&'b Expr),
        /// The replaced node: its result is its replacement's.
        Alias(usize),
        Build(&'b Expr, usize),
    }
    let mut memo: FxHashMap<usize, Expr> = FxHashMap::default();
    let mut results: Vec<Expr> = Vec::new();
    let mut tasks = vec![Task::Visit(root)];
    while let Some(task) = tasks.pop() {
        match task {
            Task::Visit(e) => {
                if let Some(r) = memo.get(&e.id()) {
                    results.push(r.clone());
                } else if let Some(r) = map.get(&e.id()) {
                    tasks.push(Task::Alias(e.id()));
                    tasks.push(Task::Visit(r));
                } else {
                    let n = e.children().len();
                    tasks.push(Task::Build(e, n));
                    e.kind().for_each_child_rev(|k| tasks.push(Task::Visit(k)));
                }
            }
            Task::Alias(id) => {
                let r = results.last().expect("the replacement's result").clone();
                memo.insert(id, r);
            }
            Task::Build(e, n) => {
                let kids = results.split_off(results.len() - n);
                let same = e
                    .children()
                    .iter()
                    .zip(&kids)
                    .all(|(old, new)| old.ptr_eq(new));
                let out = if same {
                    e.clone()
                } else {
                    let kind = e.kind().with_children(&kids);
                    match kind {
                        ExprKind::Call(_) | ExprKind::Tuple(_) | ExprKind::TupleGetItem(..) => {
                            typed_node(kind, e.span())
                        }
                        _ => e.rebuild(kind),
                    }
                };
                if e.is_shared() {
                    memo.insert(e.id(), out.clone());
                }
                results.push(out);
            }
        }
    }
    results.pop().expect("the root's result")
}
