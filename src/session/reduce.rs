//! `reduce(seq, m, check=...)`: shrinks a failing case. The failure is what `bisect` finds
//! (the first pass breaking the check, by name). Then:
//! 1. the pass list: the pipeline's passes that run under the current context (its leaves, a
//!    registered Sequential such as FoldScaleAxis kept whole) are reduced by delta debugging
//!    (Zeller's ddmin: drop chunks, then complements of chunks, halving the chunk size until
//!    no single pass can go) to a list whose Sequential still breaks the check in a pass of
//!    the same name;
//! 2. the module: every function but `@main` whose removal keeps the failure is removed.
//!    Bindings inside a function are not reduced yet.
//!
//! Every test runs the candidate pipeline once, so the cost is a few dozen runs for a
//! pipeline of tens of passes. It returns `{"pipeline": seq, "module": m}` and keeps the
//! reproducer of the reduced case for `reproducer(...)`.

use super::bisect::{options, pipeline_and_module, Culprit};
use super::builtins::Bound;
use super::{Session, SessionError, Value};
use crate::ir::Module;
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
            "reduce: {} breaks the check with {} of {} passes and {} of {} functions: {}",
            c.info.name(),
            passes.len(),
            n_before,
            m.len(),
            module.len(),
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
