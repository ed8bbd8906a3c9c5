//! RemoveUnusedFunctions (TVM's `relay.transform.RemoveUnusedFunctions`,
//! `backend/vm/removed_unused_funcs.cc`): a module pass (opt_level 1) that keeps the entry
//! functions (option `entry_functions`, default `["main"]`) and every global they reach, and
//! removes every other function. A global is reached when it is called or referenced anywhere
//! in a reached function's body, transitively.
//!
//! Invariants: type definitions, module attributes and the order of the kept functions are
//! unchanged; when nothing is removed the very same module value is returned. An entry name
//! the module does not define is an error (TVM's `Lookup` fails the same way).
//!
//! Deliberately not done: `call_lowered` shape functions (passlab has no lowered calls).

use crate::ir::mutate::{walk, Visitor};
use crate::ir::{Expr, ExprKind, Module};
use crate::pass::{module_pass, Pass, PassError, PassOptions};
use rustc_hash::FxHashSet;

/// The globals referenced in `e`, in order of first reference.
pub fn referenced_globals(e: &Expr) -> Vec<String> {
    struct Collect(Vec<String>, FxHashSet<String>);
    impl Visitor for Collect {
        fn visit(&mut self, e: &Expr) {
            if let ExprKind::GlobalVar(g) = e.kind() {
                if self.1.insert(g.name().to_string()) {
                    self.0.push(g.name().to_string());
                }
            }
        }
    }
    let mut c = Collect(Vec::new(), FxHashSet::default());
    walk(&mut c, e);
    c.0
}

/// Keeps the functions reachable from `entries`; an unknown entry is an error.
pub fn remove_unused_functions(m: &Module, entries: &[String]) -> Result<Module, String> {
    let mut live: FxHashSet<String> = FxHashSet::default();
    let mut work: Vec<String> = Vec::new();
    for e in entries {
        if !m.contains(e) {
            return Err(format!("the entry function @{e} is not in the module"));
        }
        if live.insert(e.clone()) {
            work.push(e.clone());
        }
    }
    while let Some(name) = work.pop() {
        if live.len() == m.len() {
            // Every function is already reached: no body needs reading (a one-function
            // module is never walked).
            break;
        }
        let Some(f) = m.get(&name) else { continue };
        for g in referenced_globals(f) {
            if m.contains(&g) && live.insert(g.clone()) {
                work.push(g);
            }
        }
    }
    if live.len() == m.len() {
        return Ok(m.clone());
    }
    let mut out = m.clone();
    out.retain_functions(|g| live.contains(g.name()));
    Ok(out)
}

/// The pass with its entry functions.
pub fn pass(entries: Vec<String>) -> Pass {
    module_pass(
        super::builtin_info("RemoveUnusedFunctions"),
        move |m, _cx| remove_unused_functions(m, &entries).map_err(PassError::failed),
    )
}

/// The registry's constructor: `RemoveUnusedFunctions(entry_functions=["main"])`.
pub fn create(options: &PassOptions) -> Result<Pass, PassError> {
    let entries = options
        .get_strs("entry_functions")
        .unwrap_or_else(|| vec!["main".to_string()]);
    Ok(pass(entries))
}
