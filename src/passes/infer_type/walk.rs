//! The traversal shared by constraint generation and resolution: an iterative post-order
//! over an expression DAG with a value stack, so no phase recurses over expressions.
//!
//! Children are visited left to right (callee before arguments; a `let`'s value, then a
//! `Bind` step, then its body). Each node's result is pushed on a value stack and its parent
//! pops its children's results. Only nodes that are actually shared (more than one handle,
//! `Expr::strong_count() > 1`) go through the memo table; every other node is reached once,
//! so the common tree-shaped program costs no hashing at all.
//!
//! Invariant the two phases rely on: the sequence of `leaf`/`exit` calls depends only on the
//! DAG, so resolution can replay generation's per-node results in order (the "tape").
//! Whether a node is shared is decided when it is entered, before any phase clones it.

use crate::ir::{scratch, Expr, ExprKind};

pub(super) trait Walker<'a> {
    type Out: Clone;
    type Err;
    fn memo_get(&mut self, id: usize) -> Option<Self::Out>;
    fn memo_put(&mut self, id: usize, v: Self::Out);
    /// Variables, globals, constants, constructors and ops (ops only outside callee
    /// position).
    fn leaf(&mut self, e: &'a Expr) -> Result<Self::Out, Self::Err>;
    /// After a `let`'s value, before its body.
    fn bind(&mut self, e: &'a Expr, value: &Self::Out) -> Result<(), Self::Err>;
    /// A node whose children are done; `kids` are their results in visiting order (a call
    /// of an op has only its arguments).
    fn exit(&mut self, e: &'a Expr, kids: &[Self::Out]) -> Result<Self::Out, Self::Err>;
}

enum Step<'a> {
    Enter(&'a Expr),
    Bind(&'a Expr),
    Exit(&'a Expr, usize, bool),
}

pub(super) fn walk<'a, W: Walker<'a>>(w: &mut W, root: &'a Expr) -> Result<W::Out, W::Err> {
    // Buffers reused from this thread's last traversals (see `ir::scratch`).
    let mut stack: Vec<Step<'a>> = scratch::take_vec();
    stack.push(Step::Enter(root));
    let mut vals: Vec<W::Out> = scratch::take_vec();
    while let Some(step) = stack.pop() {
        match step {
            Step::Enter(e) => {
                e.prefetch_next();
                let shared = e.strong_count() > 1;
                if shared {
                    if let Some(v) = w.memo_get(e.id()) {
                        vals.push(v);
                        continue;
                    }
                }
                match e.kind() {
                    ExprKind::Var(_)
                    | ExprKind::GlobalVar(_)
                    | ExprKind::Constant(_)
                    | ExprKind::Op(_)
                    | ExprKind::Constructor(_) => {
                        let v = w.leaf(e)?;
                        if shared {
                            w.memo_put(e.id(), v.clone());
                        }
                        vals.push(v);
                    }
                    ExprKind::Tuple(fs) => {
                        stack.push(Step::Exit(e, fs.len(), shared));
                        stack.extend(fs.iter().rev().map(Step::Enter));
                    }
                    ExprKind::TupleGetItem(t, _) => {
                        stack.push(Step::Exit(e, 1, shared));
                        stack.push(Step::Enter(t));
                    }
                    ExprKind::Call(c) => {
                        let op_callee = matches!(c.callee.kind(), ExprKind::Op(_));
                        stack.push(Step::Exit(e, c.args.len() + !op_callee as usize, shared));
                        stack.extend(c.args.iter().rev().map(Step::Enter));
                        if !op_callee {
                            stack.push(Step::Enter(&c.callee));
                        }
                    }
                    ExprKind::Let(l) => {
                        stack.push(Step::Exit(e, 2, shared));
                        stack.push(Step::Enter(&l.body));
                        stack.push(Step::Bind(e));
                        stack.push(Step::Enter(&l.value));
                    }
                    ExprKind::If(i) => {
                        stack.push(Step::Exit(e, 3, shared));
                        stack.push(Step::Enter(&i.else_branch));
                        stack.push(Step::Enter(&i.then_branch));
                        stack.push(Step::Enter(&i.cond));
                    }
                    ExprKind::Function(f) => {
                        stack.push(Step::Exit(e, 1, shared));
                        stack.push(Step::Enter(&f.body));
                    }
                    ExprKind::Match(_)
                    | ExprKind::RefNew(_)
                    | ExprKind::RefRead(_)
                    | ExprKind::RefWrite(..) => {
                        let at = stack.len();
                        let mut n = 0;
                        e.kind().for_each_child_rev(|k| {
                            stack.push(Step::Enter(k));
                            n += 1;
                        });
                        stack.insert(at, Step::Exit(e, n, shared));
                    }
                }
            }
            Step::Bind(e) => {
                let v = vals.last().expect("a let's value precedes its Bind step");
                w.bind(e, v)?;
            }
            Step::Exit(e, n, shared) => {
                let start = vals.len() - n;
                let v = w.exit(e, &vals[start..])?;
                vals.truncate(start);
                if shared {
                    w.memo_put(e.id(), v.clone());
                }
                vals.push(v);
            }
        }
    }
    let out = vals.pop().expect("the root's result");
    scratch::give_vec(stack);
    scratch::give_vec(vals);
    Ok(out)
}
