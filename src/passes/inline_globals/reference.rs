//! The callee-first InlineGlobals that the pass replaced, kept for the tests to compare
//! against: each inlinable global is fully inlined once, callees first, and every call copies
//! its callee's inlined copy (TVM's order). Right, and the meaning the pass keeps, but its work
//! is the size of every inlined global, which a chain of globals makes quadratic in the size
//! of the output.

use crate::ir::mutate::{mutate, rebuild_call, walk, Mutator, Visitor};
use crate::ir::{Attrs, Call, Expr, ExprKind, Function, Module};
use crate::passes::remove_unused_functions::referenced_globals;
use crate::passes::subst::substitute;
use rustc_hash::{FxHashMap, FxHashSet};

fn marked_inline(f: &Function) -> bool {
    f.attr("Inline")
        .is_some_and(|v| v.as_int().unwrap_or(0) != 0)
}

fn external(f: &Function) -> bool {
    let compiler = f
        .attr("Compiler")
        .is_some_and(|v| v.as_str() != Some("default"));
    compiler
        || f.attr("Extern")
            .is_some_and(|v| v.as_int().unwrap_or(0) != 0)
}

/// The inlinable globals, callees before callers.
fn inline_order(m: &Module, callees: &FxHashMap<String, Vec<String>>) -> Vec<String> {
    let mut cand: FxHashSet<&str> = m
        .functions()
        .filter(|(_, e)| e.as_function().is_some_and(marked_inline))
        .map(|(g, _)| g.name())
        .collect();
    // Drop candidates that reference a non-candidate, until nothing changes.
    loop {
        let before = cand.len();
        let keep: FxHashSet<&str> = cand
            .iter()
            .copied()
            .filter(|c| callees[*c].iter().all(|d| cand.contains(d.as_str())))
            .collect();
        cand = keep;
        if cand.len() == before {
            break;
        }
    }
    // Kahn's algorithm on the candidates: a global is ready once all its callees are done;
    // globals on a cycle (including self-recursion) never become ready.
    let mut pending: FxHashMap<&str, usize> =
        cand.iter().map(|c| (*c, callees[*c].len())).collect();
    let mut callers: FxHashMap<&str, Vec<&str>> = FxHashMap::default();
    for c in &cand {
        for d in &callees[*c] {
            callers.entry(d.as_str()).or_default().push(c);
        }
    }
    let mut ready: Vec<&str> = m
        .names()
        .into_iter()
        .filter(|n| pending.get(n) == Some(&0))
        .collect();
    ready.reverse();
    let mut order = Vec::new();
    while let Some(c) = ready.pop() {
        order.push(c.to_string());
        for caller in callers.get(c).into_iter().flatten() {
            let n = pending.get_mut(caller).expect("a candidate");
            *n -= 1;
            if *n == 0 {
                ready.push(caller);
            }
        }
    }
    order
}

/// Inlines every inlinable global; see the module documentation.
pub(super) fn inline_globals(m: &Module) -> Module {
    // Nothing marked `Inline`: nothing is inlinable, and no body needs reading.
    if !m
        .functions()
        .any(|(_, e)| e.as_function().is_some_and(marked_inline))
    {
        return m.clone();
    }
    let callees: FxHashMap<String, Vec<String>> = m
        .functions()
        .map(|(g, e)| {
            let refs = referenced_globals(e);
            (
                g.name().to_string(),
                refs.into_iter().filter(|r| m.contains(r)).collect(),
            )
        })
        .collect();
    let order = inline_order(m, &callees);
    if order.is_empty() {
        return m.clone();
    }
    let referenced: FxHashSet<&str> = callees
        .iter()
        .flat_map(|(caller, cs)| cs.iter().filter(move |c| *c != caller))
        .map(String::as_str)
        .collect();
    let mut done: FxHashMap<String, Expr> = FxHashMap::default();
    for g in &order {
        let f = m.get(g).expect("a global of the module");
        let new = inline_into(f, &done);
        done.insert(g.clone(), new);
    }
    let mut out = m.clone();
    for name in m.names() {
        let new = match done.get(name) {
            Some(f) => f.clone(),
            None => inline_into(m.get(name).expect("listed"), &done),
        };
        if !new.ptr_eq(m.get(name).expect("listed")) {
            out.replace(name, new).expect("a function");
        }
    }
    for g in &order {
        if referenced.contains(g.as_str()) {
            out.remove(g).expect("still in the module");
        }
    }
    out
}

/// `f` with every reference to a global of `inlinable` (already inlined themselves) replaced.
fn inline_into(f: &Expr, inlinable: &FxHashMap<String, Expr>) -> Expr {
    if !referenced_globals(f)
        .iter()
        .any(|g| inlinable.contains_key(g))
    {
        return f.clone();
    }
    // Global nodes used other than as a callee become function literals.
    let mut bare = BareRefs::default();
    walk(&mut bare, f);
    let mut inliner = Inliner {
        inlinable,
        bare: bare.bare,
    };
    mutate(&mut inliner, f)
}

/// Which global nodes appear somewhere other than as a callee.
#[derive(Default)]
struct BareRefs {
    bare: crate::ir::NodeSet,
}

impl Visitor for BareRefs {
    fn visit(&mut self, e: &Expr) {
        match e.kind() {
            ExprKind::Call(c) => {
                for a in &c.args {
                    self.note(a);
                }
            }
            ExprKind::Function(fun) => self.note(&fun.body),
            _ => e.kind().for_each_child(|k| self.note(k)),
        }
    }
}

impl BareRefs {
    fn note(&mut self, e: &Expr) {
        if matches!(e.kind(), ExprKind::GlobalVar(_)) {
            self.bare.insert(e.id());
        }
    }
}

struct Inliner<'a> {
    inlinable: &'a FxHashMap<String, Expr>,
    bare: crate::ir::NodeSet,
}

impl Mutator for Inliner<'_> {
    fn leaf(&mut self, e: &Expr) -> Expr {
        match e.kind() {
            ExprKind::GlobalVar(g) if self.bare.contains(&e.id()) => {
                match self.inlinable.get(g.name()) {
                    Some(f) => substitute(f, &[], true),
                    None => e.clone(),
                }
            }
            _ => e.clone(),
        }
    }

    fn call(&mut self, e: &Expr, callee: Expr, args: Vec<Expr>, attrs: &Attrs) -> Expr {
        let ExprKind::Call(c) = e.kind() else {
            return e.clone();
        };
        let ExprKind::GlobalVar(g) = c.callee.kind() else {
            return rebuild_call(e, callee, args);
        };
        let Some(fexpr) = self.inlinable.get(g.name()) else {
            return rebuild_call(e, callee, args);
        };
        let f = fexpr.as_function().expect("globals are functions");
        if external(f) || f.params.len() != args.len() {
            let kind = ExprKind::Call(Call {
                callee: substitute(fexpr, &[], true),
                args: args.into(),
                attrs: attrs.clone(),
            });
            return Expr::with_info(kind, e.ty().cloned(), e.span());
        }
        let binding: Vec<_> = f.params.iter().cloned().zip(args).collect();
        substitute(&f.body, &binding, true)
    }
}
