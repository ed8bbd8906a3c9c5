//! The purity analysis of DeadCodeElimination (TVM's `PurityVisitor`): for every let-bound
//! variable of the module's analysable functions, whether evaluating its value is pure.
//!
//! A post-order [`Visitor`] computes `Purity { pure_eval, pure_call }` per node from its
//! children. The call depth of TVM's recursive visitor is tracked with `pre`/`visit` (a call
//! increments it on the way down and decrements it on the way up), so the 25-deep cut-off
//! falls exactly where TVM's does. Globals are analysed on demand, growing the stack with
//! `stacker` for chains of global calls.

use super::first_order;
use crate::ir::mutate::{walk, Visitor};
use crate::ir::{Expr, ExprKind, Function, Module, PendingLets, VarMap};
use rustc_hash::FxHashMap;

/// TVM's `kMaxCallDepth`.
const MAX_CALL_DEPTH: usize = 25;

#[derive(Clone, Copy, Debug)]
struct Purity {
    pure_eval: bool,
    pure_call: bool,
}

const PURE: Purity = Purity {
    pure_eval: true,
    pure_call: true,
};

/// Let-bound variable id -> whether its value is pure to evaluate.
pub(super) fn analyse(m: &Module) -> VarMap<bool> {
    let mut a = Analysis {
        module: m,
        memo: Default::default(),
        results: Vec::new(),
        scratch: Vec::new(),
        params: VarMap::new(),
        lets: VarMap::new(),
        pending: PendingLets::default(),
        globals: FxHashMap::default(),
        depth: 0,
        cut: Default::default(),
    };
    for (g, e) in m.functions() {
        if let Some(f) = e.as_function() {
            if !nonzero(f, "Primitive") && !nonzero(f, "Extern") {
                a.global(g.name());
            }
        }
    }
    let mut out = VarMap::new();
    for (id, p) in a.lets.drain() {
        if let Some(p) = p {
            out.insert(id, p.pure_eval);
        }
    }
    out
}

fn nonzero(f: &Function, attr: &str) -> bool {
    f.attr(attr).is_some_and(|v| v.as_int().unwrap_or(1) != 0)
}

/// The analysis walks each global post-order; a node's purity goes to the memo when the node
/// is shared (it may be reached again) and onto the `results` stack otherwise, where its
/// parent takes it (children push their results in order, so they are the top entries).
struct Analysis<'m> {
    module: &'m Module,
    memo: crate::ir::NodeMap<Purity>,
    results: Vec<Purity>,
    /// Children's results of the node being computed (reused).
    scratch: Vec<Purity>,
    /// Function parameters: pure to evaluate; call-pure only when first-order.
    params: VarMap<Purity>,
    /// Let-bound variables: the purity of their value, `None` while it is being analysed (a
    /// use inside its own value, as in a recursive function, is assumed pure).
    lets: VarMap<Option<Purity>>,
    /// Lets whose value is being analysed.
    pending: PendingLets,
    /// Globals analysed or being analysed (assumed pure meanwhile).
    globals: FxHashMap<String, Purity>,
    depth: usize,
    /// Calls reached at the maximum depth: assumed impure, children not visited.
    cut: crate::ir::NodeSet,
}

impl Analysis<'_> {
    fn global(&mut self, name: &str) -> Purity {
        if let Some(p) = self.globals.get(name) {
            return *p;
        }
        let Some(func) = self.module.get(name) else {
            return Purity {
                pure_eval: true,
                pure_call: false,
            };
        };
        if func.as_function().is_some_and(|f| nonzero(f, "Extern")) {
            return Purity {
                pure_eval: true,
                pure_call: false,
            };
        }
        self.globals.insert(name.to_string(), PURE);
        // A clone: the root is then shared, so its result lands in the memo.
        let func = func.clone();
        let results = std::mem::take(&mut self.results);
        stacker::maybe_grow(64 * 1024, 1024 * 1024, || walk(self, &func));
        self.results = results;
        let p = self.memo[&func.id()];
        self.globals.insert(name.to_string(), p);
        p
    }

    /// Pops the results of `e`'s children (in child order) into `kids`.
    fn children(&mut self, e: &Expr, kids: &mut Vec<Purity>) {
        let mut unshared = 0;
        e.kind()
            .for_each_child(|c| unshared += usize::from(!c.is_shared()));
        let base = self.results.len() - unshared;
        let mut next = base;
        e.kind().for_each_child(|c| {
            if c.is_shared() {
                kids.push(self.memo.get(&c.id()).copied().unwrap_or(PURE));
            } else {
                kids.push(self.results[next]);
                next += 1;
            }
        });
        self.results.truncate(base);
    }

    fn compute(&mut self, e: &Expr, kids: &[Purity]) -> Purity {
        match e.kind() {
            ExprKind::Constant(_) => PURE,
            ExprKind::Op(op) => Purity {
                pure_eval: true,
                pure_call: !op.stateful,
            },
            ExprKind::GlobalVar(g) => self.global(g.name()),
            ExprKind::Var(v) => {
                let pure_call = match self.lets.get(v.id()) {
                    Some(value) => value.unwrap_or(PURE).pure_call,
                    None => self
                        .params
                        .get(v.id())
                        .map_or(first_order(v.ann()), |p| p.pure_call),
                };
                Purity {
                    pure_eval: true,
                    pure_call,
                }
            }
            ExprKind::Function(_) => {
                let body = kids[0];
                Purity {
                    pure_eval: true,
                    pure_call: body.pure_eval && body.pure_call,
                }
            }
            ExprKind::Let(_) => {
                let (value, body) = (kids[0], kids[1]);
                Purity {
                    pure_eval: value.pure_eval && body.pure_eval,
                    pure_call: body.pure_call,
                }
            }
            ExprKind::Call(_) => {
                self.depth -= 1;
                let callee = kids[0];
                let args = kids[1..].iter().all(|a| a.pure_eval);
                Purity {
                    pure_eval: args && callee.pure_eval && callee.pure_call,
                    pure_call: first_order(e.ty()) || callee.pure_call,
                }
            }
            ExprKind::If(_) => {
                let (c, t, f) = (kids[0], kids[1], kids[2]);
                Purity {
                    pure_eval: c.pure_eval && t.pure_eval && f.pure_eval,
                    pure_call: t.pure_call && f.pure_call,
                }
            }
            ExprKind::Tuple(_) => Purity {
                pure_eval: kids.iter().all(|f| f.pure_eval),
                pure_call: true,
            },
            ExprKind::TupleGetItem(..) => Purity {
                pure_eval: kids[0].pure_eval,
                pure_call: first_order(e.ty()),
            },
            ExprKind::Constructor(_) => PURE,
            // Creating a reference is unobservable but through reads and writes of it.
            ExprKind::RefNew(_) => PURE,
            ExprKind::RefWrite(..) => Purity {
                pure_eval: false,
                pure_call: true,
            },
            // Call purity is not tracked through references [RULE D].
            ExprKind::RefRead(_) => Purity {
                pure_eval: false,
                pure_call: first_order(e.ty()),
            },
            ExprKind::Match(_) => Purity {
                pure_eval: kids.iter().all(|k| k.pure_eval),
                pure_call: kids[1..].iter().all(|k| k.pure_call),
            },
        }
    }

    /// Records `p` as the purity of `e`, and of the let variable `e` is the value of.
    fn finish(&mut self, e: &Expr, p: Purity) {
        if e.is_shared() {
            self.memo.insert(e.id(), p);
        } else {
            self.results.push(p);
        }
        let lets = &mut self.lets;
        self.pending.finish(e, |var| {
            lets.insert(var, Some(p));
        });
    }
}

impl Visitor for Analysis<'_> {
    fn pre(&mut self, e: &Expr) -> bool {
        if e.is_shared() && self.memo.contains_key(&e.id()) {
            return false;
        }
        match e.kind() {
            ExprKind::Call(_) if self.depth >= MAX_CALL_DEPTH => {
                self.cut.insert(e.id());
                return false;
            }
            ExprKind::Call(_) => self.depth += 1,
            ExprKind::Function(f) => {
                for p in &f.params {
                    let purity = Purity {
                        pure_eval: true,
                        pure_call: first_order(p.ann()),
                    };
                    self.params.insert(p.id(), purity);
                }
            }
            ExprKind::Match(m) => {
                // Call purity is not tracked through ADTs [RULE E].
                m.for_each_bound_var(|v| {
                    let purity = Purity {
                        pure_eval: true,
                        pure_call: first_order(v.ann()),
                    };
                    self.params.insert(v.id(), purity);
                });
            }
            ExprKind::Let(l) => {
                // A value already analysed (shared, reached before) is not visited again.
                match self.memo.get(&l.value.id()).filter(|_| l.value.is_shared()) {
                    Some(p) => {
                        self.lets.insert(l.var.id(), Some(*p));
                    }
                    None => {
                        self.lets.insert(l.var.id(), None);
                        self.pending.push(&l.var, &l.value);
                    }
                }
            }
            _ => {}
        }
        true
    }

    fn visit(&mut self, e: &Expr) {
        if e.is_shared() && self.memo.contains_key(&e.id()) {
            // Reached again through another global's walk: its result is in the memo.
            return;
        }
        let p = if self.cut.remove(&e.id()) {
            Purity {
                pure_eval: false,
                pure_call: first_order(e.ty()),
            }
        } else {
            let mut kids = std::mem::take(&mut self.scratch);
            kids.clear();
            self.children(e, &mut kids);
            let p = self.compute(e, &kids);
            self.scratch = kids;
            p
        };
        self.finish(e, p);
    }
}
