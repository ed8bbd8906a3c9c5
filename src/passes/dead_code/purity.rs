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
use crate::ir::{Expr, ExprKind, Function, Module};
use rustc_hash::{FxHashMap, FxHashSet};

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
pub(super) fn analyse(m: &Module) -> FxHashMap<u64, bool> {
    let mut a = Analysis {
        module: m,
        memo: FxHashMap::default(),
        params: FxHashMap::default(),
        let_values: FxHashMap::default(),
        globals: FxHashMap::default(),
        depth: 0,
        cut: FxHashSet::default(),
    };
    for (g, e) in m.functions() {
        if let Some(f) = e.as_function() {
            if !nonzero(f, "Primitive") && !nonzero(f, "Extern") {
                a.global(g.name());
            }
        }
    }
    a.let_values
        .iter()
        .filter_map(|(v, value)| a.memo.get(&value.id()).map(|p| (*v, p.pure_eval)))
        .collect()
}

fn nonzero(f: &Function, attr: &str) -> bool {
    f.attr(attr).is_some_and(|v| v.as_int().unwrap_or(1) != 0)
}

struct Analysis<'m> {
    module: &'m Module,
    memo: FxHashMap<usize, Purity>,
    /// Function parameters: pure to evaluate; call-pure only when first-order.
    params: FxHashMap<u64, Purity>,
    let_values: FxHashMap<u64, Expr>,
    /// Globals analysed or being analysed (assumed pure meanwhile).
    globals: FxHashMap<String, Purity>,
    depth: usize,
    /// Calls reached at the maximum depth: assumed impure, children not visited.
    cut: FxHashSet<usize>,
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
        let func = func.clone();
        stacker::maybe_grow(64 * 1024, 1024 * 1024, || walk(self, &func));
        let p = self.memo[&func.id()];
        self.globals.insert(name.to_string(), p);
        p
    }

    fn get(&self, e: &Expr) -> Purity {
        self.memo.get(&e.id()).copied().unwrap_or(PURE)
    }

    fn compute(&mut self, e: &Expr) -> Purity {
        match e.kind() {
            ExprKind::Constant(_) => PURE,
            ExprKind::Op(op) => Purity {
                pure_eval: true,
                pure_call: !op.stateful,
            },
            ExprKind::GlobalVar(g) => self.global(g.name()),
            ExprKind::Var(v) => {
                let pure_call = match self.let_values.get(&v.id()) {
                    // A use inside its own value (a recursive function) is assumed call-pure.
                    Some(value) => self.get(value).pure_call,
                    None => self
                        .params
                        .get(&v.id())
                        .map_or(first_order(v.ann()), |p| p.pure_call),
                };
                Purity {
                    pure_eval: true,
                    pure_call,
                }
            }
            ExprKind::Function(f) => {
                let body = self.get(&f.body);
                Purity {
                    pure_eval: true,
                    pure_call: body.pure_eval && body.pure_call,
                }
            }
            ExprKind::Let(l) => {
                let (value, body) = (self.get(&l.value), self.get(&l.body));
                Purity {
                    pure_eval: value.pure_eval && body.pure_eval,
                    pure_call: body.pure_call,
                }
            }
            ExprKind::Call(c) => {
                self.depth -= 1;
                let callee = self.get(&c.callee);
                let args = c.args.iter().all(|a| self.get(a).pure_eval);
                Purity {
                    pure_eval: args && callee.pure_eval && callee.pure_call,
                    pure_call: first_order(e.ty()) || callee.pure_call,
                }
            }
            ExprKind::If(i) => {
                let (c, t, f) = (
                    self.get(&i.cond),
                    self.get(&i.then_branch),
                    self.get(&i.else_branch),
                );
                Purity {
                    pure_eval: c.pure_eval && t.pure_eval && f.pure_eval,
                    pure_call: t.pure_call && f.pure_call,
                }
            }
            ExprKind::Tuple(fs) => Purity {
                pure_eval: fs.iter().all(|f| self.get(f).pure_eval),
                pure_call: true,
            },
            ExprKind::TupleGetItem(t, _) => Purity {
                pure_eval: self.get(t).pure_eval,
                pure_call: first_order(e.ty()),
            },
        }
    }
}

impl Visitor for Analysis<'_> {
    fn pre(&mut self, e: &Expr) -> bool {
        if self.memo.contains_key(&e.id()) {
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
            ExprKind::Let(l) => {
                self.let_values.insert(l.var.id(), l.value.clone());
            }
            _ => {}
        }
        true
    }

    fn visit(&mut self, e: &Expr) {
        if self.memo.contains_key(&e.id()) {
            return;
        }
        let p = if self.cut.remove(&e.id()) {
            Purity {
                pure_eval: false,
                pure_call: first_order(e.ty()),
            }
        } else {
            self.compute(e)
        };
        self.memo.insert(e.id(), p);
    }
}
