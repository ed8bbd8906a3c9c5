//! Whether a complete `match` covers every value (TVM's `UnmatchedCases`): the usefulness
//! check over the clause patterns as a matrix (Maranget's algorithm), which finds a value
//! no clause matches and shows it as a pattern (`Nil`, `Cons(_, Nil)`, `(_, Nil)`).
//!
//! Patterns nest as deep as the parser allows (`limits::MAX_PATTERN_DEPTH`); each level of
//! the search grows the stack on demand.

use super::generate::Gen;
use crate::ir::{Match, Pattern, TypeDef};
use rustc_hash::FxHashMap;
use std::fmt;

/// A pattern of the search, owned and without variables.
#[derive(Clone)]
enum P {
    Wild,
    Ctor(std::sync::Arc<str>, std::sync::Arc<str>, Vec<P>),
    Tuple(Vec<P>),
}

impl fmt::Display for P {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let list = |f: &mut fmt::Formatter<'_>, ps: &[P]| {
            for (i, p) in ps.iter().enumerate() {
                if i > 0 {
                    f.write_str(", ")?;
                }
                write!(f, "{p}")?;
            }
            Ok(())
        };
        match self {
            P::Wild => f.write_str("_"),
            P::Ctor(name, _, ps) if ps.is_empty() => f.write_str(name),
            P::Ctor(name, _, ps) => {
                write!(f, "{name}(")?;
                list(f, ps)?;
                f.write_str(")")
            }
            P::Tuple(ps) => {
                f.write_str("(")?;
                list(f, ps)?;
                f.write_str(")")
            }
        }
    }
}

fn simplify(p: &Pattern) -> P {
    crate::ir::deep(|| match p {
        Pattern::Wildcard | Pattern::Var(_) => P::Wild,
        Pattern::Ctor(c, ps) => P::Ctor(
            c.name.clone(),
            c.adt.clone(),
            ps.iter().map(simplify).collect(),
        ),
        Pattern::Tuple(ps) => P::Tuple(ps.iter().map(simplify).collect()),
    })
}

/// A value the complete match `m` does not handle, shown as a pattern; `None` when every
/// value is handled.
pub(super) fn unmatched(gen: &Gen<'_>, m: &Match) -> Option<String> {
    let rows: Vec<Vec<P>> = m
        .clauses
        .iter()
        .map(|c| vec![simplify(&c.pattern)])
        .collect();
    let w = witness(&gen.adts, &rows, 1)?;
    Some(w.first().map_or_else(|| "_".to_string(), |p| p.to_string()))
}

/// What the head of a row is, for specialising.
enum Head<'p> {
    Ctor(&'p str, usize),
    Tuple(usize),
}

fn specialize(rows: &[Vec<P>], head: &Head<'_>) -> Vec<Vec<P>> {
    let mut out = Vec::new();
    for row in rows {
        let (first, rest) = row.split_first().expect("a column left");
        let fields: Vec<P> = match (first, head) {
            (P::Wild, Head::Ctor(_, a)) | (P::Wild, Head::Tuple(a)) => vec![P::Wild; *a],
            (P::Ctor(n, _, ps), Head::Ctor(c, _)) if &**n == *c => ps.clone(),
            (P::Tuple(ps), Head::Tuple(a)) if ps.len() == *a => ps.clone(),
            _ => continue,
        };
        out.push(fields.into_iter().chain(rest.iter().cloned()).collect());
    }
    out
}

/// A row of `n` patterns no row of `rows` matches, if there is one.
fn witness(adts: &FxHashMap<&str, &TypeDef>, rows: &[Vec<P>], n: usize) -> Option<Vec<P>> {
    stacker::maybe_grow(64 * 1024, 1024 * 1024, || witness_here(adts, rows, n))
}

fn witness_here(adts: &FxHashMap<&str, &TypeDef>, rows: &[Vec<P>], n: usize) -> Option<Vec<P>> {
    if n == 0 {
        return rows.is_empty().then(Vec::new);
    }
    let adt = rows.iter().find_map(|r| match &r[0] {
        P::Ctor(_, adt, _) => Some(adt.clone()),
        _ => None,
    });
    let tuple = rows.iter().find_map(|r| match &r[0] {
        P::Tuple(ps) => Some(ps.len()),
        _ => None,
    });
    if let Some(a) = tuple {
        let w = witness(adts, &specialize(rows, &Head::Tuple(a)), n - 1 + a)?;
        let (fields, rest) = w.split_at(a);
        let mut out = vec![P::Tuple(fields.to_vec())];
        out.extend_from_slice(rest);
        return Some(out);
    }
    if let Some(def) = adt.as_ref().and_then(|a| adts.get(&**a)) {
        let used = |c: &str| {
            rows.iter()
                .any(|r| matches!(&r[0], P::Ctor(name, _, _) if &**name == c))
        };
        let complete = def.ctors.iter().all(|(c, _)| used(c));
        if complete {
            for (c, fields) in &def.ctors {
                let a = fields.len();
                if let Some(w) = witness(adts, &specialize(rows, &Head::Ctor(c, a)), n - 1 + a) {
                    let (fs, rest) = w.split_at(a);
                    let mut out = vec![P::Ctor(c.clone(), def.name.clone(), fs.to_vec())];
                    out.extend_from_slice(rest);
                    return Some(out);
                }
            }
            return None;
        }
        let w = witness(adts, &default_rows(rows), n - 1)?;
        let (c, fields) = def.ctors.iter().find(|(c, _)| !used(c))?;
        let mut out = vec![P::Ctor(
            c.clone(),
            def.name.clone(),
            vec![P::Wild; fields.len()],
        )];
        out.extend(w);
        return Some(out);
    }
    let w = witness(adts, &default_rows(rows), n - 1)?;
    let mut out = vec![P::Wild];
    out.extend(w);
    Some(out)
}

/// The rows whose first pattern is a wildcard, without it.
fn default_rows(rows: &[Vec<P>]) -> Vec<Vec<P>> {
    rows.iter()
        .filter(|r| matches!(r[0], P::Wild))
        .map(|r| r[1..].to_vec())
        .collect()
}
