//! `reduce(seq, m, check=...)`: shrinks a failing case. The failure is what `bisect` finds
//! (the first pass breaking the check, by name). Then:
//! 1. the pass list: the pipeline's passes that run under the current context (its leaves, a
//!    registered Sequential such as FoldScaleAxis kept whole) are reduced by delta debugging
//!    (Zeller's ddmin: drop chunks, then complements of chunks, halving the chunk size until
//!    no single pass can go) to a list whose Sequential still breaks the check in a pass of
//!    the same name;
//! 2. the module: every function but `@main` whose removal keeps the failure is removed;
//! 3. the bindings inside each function, one at a time, each kept out when the failure stays
//!    (see [`bindings`]): a `let` whose variable is not used is dropped, and a call whose
//!    type is one of its arguments' types (a dataflow node) is replaced by that argument. Both
//!    keep the program well typed. At most [`MAX_BINDING_TESTS`] candidates are tried.
//!
//! Every test runs the candidate pipeline once, so the cost is a few dozen runs for a
//! pipeline of tens of passes, plus one per binding tried. It returns `{"pipeline": seq, "module": m}` and keeps the
//! reproducer of the reduced case for `reproducer(...)`.

use super::bisect::{options, pipeline_and_module, Culprit};
use super::builtins::Bound;
use super::{Session, SessionError, Value};
use crate::ir::mutate::{mutate, walk_refs, Mutator};
use crate::ir::{Expr, ExprKind, Module};
use crate::pass::sink::{emit, ChunkKind};
use crate::pass::{Pass, PassInfo, PassKind, Sequential};

pub(super) fn b_reduce(s: &mut Session, a: Bound) -> Result<Value, SessionError> {
    let (pass, module) = pipeline_and_module(&a)?;
    let opts = options(&a)?;
    let span = a.span;
    let Some(culprit) = s.bisect(&pass, &module, &opts, span)?.0 else {
        return Err(SessionError::at(
            "reduce: the pipeline does not break the check, so there is nothing to reduce",
            span,
        ));
    };
    let name = culprit.info.name().to_string();
    let leaves = run_leaves(&pass, s);
    let n_before = leaves.len();
    let test = |s: &mut Session, list: &[Pass], m: &Module| -> Result<bool, SessionError> {
        let seq = sequence(list);
        Ok(s.bisect(&seq, m, &opts, span)?
            .0
            .is_some_and(|c| c.info.name() == name))
    };
    // 1. The pass list.
    let passes = ddmin(leaves, |list| test(s, list, &module))?;
    // 2. The module's functions.
    let mut m = module.clone();
    let names: Vec<String> = m
        .functions()
        .map(|(g, _)| g.name().to_string())
        .filter(|n| n != "main")
        .collect();
    for f in names {
        let mut candidate = m.clone();
        if candidate.remove(&f).is_ok() && test(s, &passes, &candidate)? {
            m = candidate;
        }
    }
    // 3. The bindings inside each function: typed first (a call's cut needs the types),
    // when the typed module still fails.
    if let Ok(typed) = crate::passes::infer_type::infer_module(&m) {
        if test(s, &passes, &typed)? {
            m = typed;
        }
    }
    let n_bindings = bindings(&m).len();
    let mut tries = 0;
    let names: Vec<String> = m.functions().map(|(g, _)| g.name().to_string()).collect();
    for f in names {
        let mut k = 0;
        while tries < MAX_BINDING_TESTS {
            let Some(func) = m.get(&f).cloned() else {
                break;
            };
            let Some(smaller) = without_candidate(&func, k) else {
                break;
            };
            tries += 1;
            let mut candidate = m.clone();
            if candidate.replace(&f, smaller).is_ok() && test(s, &passes, &candidate)? {
                m = candidate;
            } else {
                k += 1;
            }
        }
    }
    let seq = sequence(&passes);
    let (found, _) = s.bisect(&seq, &m, &opts, span)?;
    let c: Culprit = found.ok_or_else(|| {
        SessionError::at("internal error: the reduced case stopped failing", span)
    })?;
    s.keep_reproducer(&seq, &c, &opts, span)?;
    emit(
        &s.sink,
        ChunkKind::Log,
        "reduce",
        &format!(
            "reduce: {} breaks the check with {} of {} passes, {} of {} functions and {} of {} reducible bindings: {}",
            c.info.name(),
            passes.len(),
            n_before,
            m.len(),
            module.len(),
            bindings(&m).len(),
            n_bindings,
            crate::pass::pipeline_text(&seq).unwrap_or_else(|_| "(no text)".into())
        ),
    );
    Ok(Value::Map(vec![
        (Value::Str("pipeline".into()), Value::Pass(seq)),
        (Value::Str("module".into()), Value::Module(m)),
    ]))
}

/// The passes of `root` that run under the current context, in order: leaves, and
/// Sequentials the registry built (kept whole). Passes the gate keeps out are left out.
fn run_leaves(root: &Pass, s: &Session) -> Vec<Pass> {
    let ctx = s.pm.current();
    let mut out = Vec::new();
    let mut stack = vec![root.clone()];
    while let Some(p) = stack.pop() {
        let whole = p.kind() != PassKind::Sequential
            || matches!(p.origin(), Some(crate::pass::Origin::Registered { .. }));
        if whole {
            out.push(p);
        } else {
            stack.extend(
                p.children()
                    .iter()
                    .rev()
                    .filter(|c| ctx.pass_enabled(c.info()))
                    .cloned(),
            );
        }
    }
    out
}

fn sequence(list: &[Pass]) -> Pass {
    let info = PassInfo::with_kind("sequential", 0, &[] as &[&str], PassKind::Sequential);
    Sequential::with_info(info, list.to_vec()).into_pass()
}

/// Zeller's ddmin: a 1-minimal sublist of `items` for which `fails` holds (it holds for
/// `items`).
fn ddmin<T: Clone>(
    mut items: Vec<T>,
    mut fails: impl FnMut(&[T]) -> Result<bool, SessionError>,
) -> Result<Vec<T>, SessionError> {
    let mut n = 2;
    while items.len() >= 2 {
        let chunk = items.len().div_ceil(n);
        let parts: Vec<Vec<T>> = items.chunks(chunk).map(<[T]>::to_vec).collect();
        let mut reduced = false;
        for part in &parts {
            if fails(part)? {
                items = part.clone();
                n = 2;
                reduced = true;
                break;
            }
        }
        if !reduced && parts.len() > 2 {
            for k in 0..parts.len() {
                let complement: Vec<T> = parts
                    .iter()
                    .enumerate()
                    .filter(|(j, _)| *j != k)
                    .flat_map(|(_, p)| p.iter().cloned())
                    .collect();
                if fails(&complement)? {
                    items = complement;
                    n = (n - 1).max(2);
                    reduced = true;
                    break;
                }
            }
        }
        if !reduced {
            if n >= items.len() {
                break;
            }
            n = (2 * n).min(items.len());
        }
    }
    Ok(items)
}

/// Binding candidates tried at most (each is one run of the pipeline).
pub const MAX_BINDING_TESTS: usize = 2000;

/// What can go from a function without breaking its types.
#[derive(Clone)]
enum Cut {
    /// A `let` whose variable is not used: replaced by its body.
    UnusedLet(Expr),
    /// A call with the type of its argument at this position: replaced by that argument.
    Bypass(Expr, usize),
}

impl Cut {
    fn node(&self) -> &Expr {
        match self {
            Cut::UnusedLet(e) | Cut::Bypass(e, _) => e,
        }
    }
}

/// The cuts of every function of `m`, in order (for counting).
fn bindings(m: &Module) -> Vec<Cut> {
    m.functions().flat_map(|(_, f)| cuts(f)).collect()
}

/// The cuts of one function, in post-order.
fn cuts(func: &Expr) -> Vec<Cut> {
    let mut used = rustc_hash::FxHashSet::default();
    walk_refs(func, |e, exit| {
        if exit {
            if let ExprKind::Var(v) = e.kind() {
                used.insert(v.id());
            }
        }
        true
    });
    let mut out = Vec::new();
    walk_refs(func, |e, exit| {
        if !exit {
            return true;
        }
        match e.kind() {
            ExprKind::Let(l) if !used.contains(&l.var.id()) => out.push(Cut::UnusedLet(e.clone())),
            ExprKind::Call(c) if matches!(c.callee.kind(), ExprKind::Op(_)) => {
                let same = e
                    .ty()
                    .and_then(|t| c.args.iter().position(|a| a.ty() == Some(t)));
                if let Some(i) = same {
                    out.push(Cut::Bypass(e.clone(), i));
                }
            }
            _ => {}
        }
        true
    });
    out
}

/// `func` with its `k`-th cut made, or `None` when it has no more.
fn without_candidate(func: &Expr, k: usize) -> Option<Expr> {
    let cut = cuts(func).into_iter().nth(k)?;
    let replacement = match (&cut, cut.node().kind()) {
        (Cut::UnusedLet(_), ExprKind::Let(l)) => l.body.clone(),
        (Cut::Bypass(_, i), ExprKind::Call(c)) => c.args[*i].clone(),
        _ => return None,
    };
    struct Replace {
        target: usize,
        with: Expr,
    }
    impl Mutator for Replace {
        fn pre(&mut self, e: &Expr) -> Option<Expr> {
            (e.id() == self.target).then(|| self.with.clone())
        }
    }
    let target = cut.node().id();
    Some(mutate(
        &mut Replace {
            target,
            with: replacement,
        },
        func,
    ))
}
