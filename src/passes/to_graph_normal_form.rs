//! ToGraphNormalForm (TVM `src/relay/transforms/to_graph_normal_form.cc`, RELAY_PASSES.md
//! B.6): removes every `let`, substituting the (rewritten) value node for each use of the
//! variable, so several uses become DAG sharing of one node.
//!
//! One post-order mutation per optimizable function: a let's value is rewritten before its
//! body, its result is remembered, and every use of the variable in the body becomes that very
//! node. A value that refers to its own variable (a recursive local function, found by a first
//! scope-aware walk) cannot be substituted into itself: it is kept as `let %f = value; %f` and
//! that expression replaces the uses in the body, as TVM does (a second, small mutation of the
//! body, since a variable node may be shared between the value and the body).
//! The value of a variable that is never used is not rewritten at all (the let just goes; the
//! first walk notes which variables occur).
//!
//! Invariants: linear time (plus one walk of the body per recursive let) and stack-safe (a
//! million-deep let chain becomes a million-deep DAG of calls without recursion); the exact
//! inverse of ToANormalForm on pure dataflow.
//! Deliberately not done: any purity check — side-effecting lets become shared dataflow
//! nodes, exactly as in TVM.

use crate::ir::mutate::{
    mutate, mutate_with, rebuild_call, rebuild_function, rebuild_get_item, rebuild_if,
    rebuild_tuple, MutateState, Mutator, Unchanged,
};
use crate::ir::{Attrs, Constant, Contains, Expr, ExprKind, Function, Module, Var, VarMap};
use rustc_hash::FxHashSet;

/// Converts every optimizable function of `m` to graph normal form.
pub fn to_graph_normal_form(m: &Module) -> Module {
    let out: Result<Module, std::convert::Infallible> =
        m.map_functions(|_, f| Ok(to_graph_expr(f)));
    match out {
        Ok(m) => m,
        Err(never) => match never {},
    }
}

/// Removes the lets of one expression (functions that skip optimization are unchanged).
pub fn to_graph_expr(e: &Expr) -> Expr {
    if e.as_function().is_some_and(|f| f.skips_optimization()) {
        return e.clone();
    }
    // Without a let anywhere there is no bound variable to replace by its value (every node
    // knows whether a let lies below it): nothing to walk.
    if !e.contains().any(Contains::LET) {
        return e.clone();
    }
    strip_unused_spine(e).unwrap_or_else(|| convert(e))
}

/// The conversion proper: the scan, then the mutation.
fn convert(e: &Expr) -> Expr {
    let mut g = Gnf::default();
    g.scan(e);
    mutate_with(&mut g, e, &mut MutateState::default())
}

/// A function whose body is a chain of lets none of whose variables is referenced anywhere,
/// ending in an expression without a let: removing the lets substitutes nothing and drops
/// every value, so the result is the function around that last expression, which is not
/// walked. A variable's reference count says whether it is referenced (its binder holds one
/// handle and every use another; like LLVM's `use_empty`, an O(1) question): a count of one
/// means no use exists anywhere. `None` when any let of the chain is referenced (or might
/// be: a handle held elsewhere, in an older module say, counts too) or a let lies below it.
fn strip_unused_spine(e: &Expr) -> Option<Expr> {
    let f = e.as_function()?;
    let mut body = &f.body;
    while let ExprKind::Let(l) = body.kind() {
        if l.var.strong_count() != 1 {
            return None;
        }
        body = &l.body;
    }
    if body.contains().any(Contains::LET) {
        return None;
    }
    Some(rebuild_function(e, f, body.clone()))
}

#[derive(Default)]
struct Gnf {
    /// Let-bound variable -> the identity of its original value, and whether the variable is
    /// used anywhere (an unused one's value is not rewritten: the let just goes).
    values: VarMap<(usize, bool)>,
    wanted: crate::ir::NodeSet,
    /// Original let value -> its rewritten form.
    rewritten: crate::ir::NodeMap<Expr>,
    /// Variables used inside their own value.
    recursive: FxHashSet<u64>,
}

impl Gnf {
    /// One walk over the unique nodes of `root`: records every let (its variable's value, and
    /// that value as wanted) and the let-bound variables that occur inside their own value.
    /// Borrowed nodes on the stack, so only shared nodes need the seen-set.
    fn scan(&mut self, root: &Expr) {
        enum Step<'a> {
            Visit(&'a Expr),
            Leave(u64),
        }
        let mut active = FxHashSet::default();
        let mut seen = crate::ir::scratch::take_set();
        let mut stack: Vec<Step<'_>> = crate::ir::scratch::take_vec();
        stack.push(Step::Visit(root));
        while let Some(step) = stack.pop() {
            let e = match step {
                Step::Leave(v) => {
                    active.remove(&v);
                    continue;
                }
                Step::Visit(e) => e,
            };
            e.prefetch_next();
            if e.is_shared() && !seen.insert(e.id()) {
                continue;
            }
            match e.kind() {
                ExprKind::Var(v) => {
                    // A use comes after its let (in the let's body, or its own value).
                    if let Some((_, used)) = self.values.get_mut(v.id()) {
                        *used = true;
                    }
                    if !active.is_empty() && active.contains(&v.id()) {
                        self.recursive.insert(v.id());
                    }
                }
                ExprKind::Let(l) => {
                    self.values.insert(l.var.id(), (l.value.id(), false));
                    self.wanted.insert(l.value.id());
                    stack.push(Step::Visit(&l.body));
                    stack.push(Step::Leave(l.var.id()));
                    stack.push(Step::Visit(&l.value));
                    active.insert(l.var.id());
                }
                kind => {
                    kind.for_each_child_rev(|c| stack.push(Step::Visit(c)));
                }
            }
        }
        crate::ir::scratch::give_vec(stack);
        crate::ir::scratch::give_set(seen);
    }
}

/// Replaces one variable by an expression.
struct Substitute {
    var: u64,
    by: Expr,
}

impl Mutator for Substitute {
    fn var(&mut self, e: &Expr, v: &Var) -> Expr {
        if v.id() == self.var {
            self.by.clone()
        } else {
            e.clone()
        }
    }
    fn unchanged(&mut self, e: &Expr) -> Unchanged {
        Unchanged::keep_if(!matches!(e.kind(), ExprKind::Var(v) if v.id() == self.var))
    }
}

impl Gnf {
    fn note(&mut self, e: &Expr, out: Expr) -> Expr {
        if self.wanted.contains(&e.id()) {
            self.rewritten.insert(e.id(), out.clone());
        }
        out
    }
}

impl Mutator for Gnf {
    fn var(&mut self, e: &Expr, v: &Var) -> Expr {
        let out = match self.values.get(v.id()) {
            Some((value, _)) if !self.recursive.contains(&v.id()) => self
                .rewritten
                .get(value)
                .cloned()
                .unwrap_or_else(|| e.clone()),
            _ => e.clone(),
        };
        self.note(e, out)
    }
    fn constant(&mut self, e: &Expr, _c: &Constant) -> Expr {
        self.note(e, e.clone())
    }
    fn leaf(&mut self, e: &Expr) -> Expr {
        self.note(e, e.clone())
    }
    fn call(&mut self, e: &Expr, callee: Expr, args: Vec<Expr>, _attrs: &Attrs) -> Expr {
        let out = rebuild_call(e, callee, args);
        self.note(e, out)
    }
    fn tuple(&mut self, e: &Expr, fields: Vec<Expr>) -> Expr {
        let out = rebuild_tuple(e, fields);
        self.note(e, out)
    }
    fn get_item(&mut self, e: &Expr, tuple: Expr, index: usize) -> Expr {
        let out = rebuild_get_item(e, tuple, index);
        self.note(e, out)
    }
    fn unchanged(&mut self, e: &Expr) -> Unchanged {
        // Lets go, let-bound variables become their values, and rewritten values are noted;
        // every other hook returns an unchanged node as is.
        if self.wanted.contains(&e.id()) {
            return Unchanged::Hook;
        }
        Unchanged::keep_if(match e.kind() {
            ExprKind::Var(v) => self.values.get(v.id()).is_none(),
            ExprKind::Let(_) => false,
            _ => true,
        })
    }
    fn let_value_wanted(&mut self, _e: &Expr, var: &Var) -> bool {
        self.values.get(var.id()).is_none_or(|(_, used)| *used)
    }
    fn let_(&mut self, e: &Expr, var: &Var, value: Expr, body: Expr) -> Expr {
        let out = if self.recursive.contains(&var.id()) {
            let wrapped = Expr::let_(var.clone(), value, Expr::var(var));
            let mut subst = Substitute {
                var: var.id(),
                by: wrapped,
            };
            mutate(&mut subst, &body)
        } else {
            body
        };
        self.note(e, out)
    }
    fn if_(&mut self, e: &Expr, cond: Expr, then_branch: Expr, else_branch: Expr) -> Expr {
        let out = rebuild_if(e, cond, then_branch, else_branch);
        self.note(e, out)
    }
    fn function(&mut self, e: &Expr, f: &Function, body: Expr) -> Expr {
        let out = rebuild_function(e, f, body);
        self.note(e, out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::{parse_module, print_module};

    fn main_of(src: &str) -> Expr {
        let m = parse_module(src, "t").unwrap();
        m.get("main").unwrap().clone()
    }

    /// A chain of lets nobody uses is stripped without walking what is below it, and gives
    /// what the general conversion gives; a used variable anywhere, or a let below the chain,
    /// leaves the work to the general conversion.
    #[test]
    fn unused_let_chains_are_stripped_like_the_general_conversion_does() {
        let dead = main_of(
            r#"def @main(%x: Tensor[(4), float32]) {
                 %0 = add(%x, %x);
                 let %d0 = subtract(%x, %0);
                 %1 = multiply(%0, %0);
                 let %d1 = subtract(%1, %x);
                 nn.relu(%1)
               }"#,
        );
        let fast = strip_unused_spine(&dead).expect("every let of the chain is unused");
        let slow = convert(&dead);
        let print = |e: &Expr| {
            let mut m = crate::ir::Module::new();
            m.add("main", e.clone()).unwrap();
            print_module(&m)
        };
        assert_eq!(print(&fast), print(&slow));
        assert!(!print(&fast).contains("let "), "{}", print(&fast));
        assert_eq!(print(&to_graph_expr(&dead)), print(&slow));

        let used = main_of(
            r#"def @main(%x: Tensor[(4), float32]) {
                 let %a = add(%x, %x);
                 let %d = subtract(%x, %x);
                 multiply(%a, %a)
               }"#,
        );
        assert!(strip_unused_spine(&used).is_none());
        assert_eq!(print(&to_graph_expr(&used)), print(&convert(&used)));
        assert!(print(&to_graph_expr(&used)).contains("multiply(%0, %0)"));

        let nested = main_of(
            r#"def @main(%x: Tensor[(4), float32]) {
                 let %d = subtract(%x, %x);
                 %0 = (let %y = add(%x, %x); %y);
                 multiply(%0, %0)
               }"#,
        );
        assert!(strip_unused_spine(&nested).is_none());
        assert_eq!(print(&to_graph_expr(&nested)), print(&convert(&nested)));
    }
}
