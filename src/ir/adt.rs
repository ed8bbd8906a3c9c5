//! Algebraic data types in expressions: constructors (`Cons`, `Nil`), `match` with its
//! clauses and patterns. A constructor names its type definition (`Module::type_defs`) and
//! its position there; a constructor is identified by its name (names are unique in a module,
//! across all its types, as TVM's parser requires).
//!
//! Patterns nest only as deep as they are written (the parser bounds their nesting, see
//! `limits::MAX_PATTERN_DEPTH`), so walks over one pattern may recurse.

use super::expr::{Expr, Var};
use std::sync::Arc;

/// An ADT constructor, `Cons` of `type List[A] { Cons(A, List[A]), Nil }`.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct Constructor {
    pub name: Arc<str>,
    /// The name of the type definition it belongs to.
    pub adt: Arc<str>,
    /// Its position among the definition's constructors (TVM's `tag`).
    pub tag: u32,
}

/// `match (data) { clauses }`, or `match? (...)` when `complete` is false (TVM's `Match`:
/// a complete match must cover every value; an incomplete one may fail at run time).
#[derive(Clone, Debug)]
pub struct Match {
    pub data: Expr,
    pub clauses: Vec<Clause>,
    pub complete: bool,
}

/// `pattern => rhs`.
#[derive(Clone, Debug)]
pub struct Clause {
    pub pattern: Pattern,
    pub rhs: Expr,
}

/// What a clause matches.
#[derive(Clone, Debug)]
pub enum Pattern {
    /// `_`
    Wildcard,
    /// `%x` (optionally annotated `%x: T`): binds the value.
    Var(Var),
    /// `Cons(p, q)`: a value made by the constructor, whose fields match the sub-patterns.
    Ctor(Arc<Constructor>, Vec<Pattern>),
    /// `(p, q)`: a tuple whose fields match the sub-patterns.
    Tuple(Vec<Pattern>),
}

impl Pattern {
    /// Calls `f` on every variable the pattern binds, left to right.
    pub fn for_each_var<'a>(&'a self, f: &mut impl FnMut(&'a Var)) {
        match self {
            Pattern::Wildcard => {}
            Pattern::Var(v) => f(v),
            Pattern::Ctor(_, ps) | Pattern::Tuple(ps) => {
                for p in ps {
                    p.for_each_var(f);
                }
            }
        }
    }

    /// The same pattern with each variable replaced by `f(var)`.
    pub fn map_vars(&self, f: &mut impl FnMut(&Var) -> Var) -> Pattern {
        match self {
            Pattern::Wildcard => Pattern::Wildcard,
            Pattern::Var(v) => Pattern::Var(f(v)),
            Pattern::Ctor(c, ps) => {
                Pattern::Ctor(c.clone(), ps.iter().map(|p| p.map_vars(f)).collect())
            }
            Pattern::Tuple(ps) => Pattern::Tuple(ps.iter().map(|p| p.map_vars(f)).collect()),
        }
    }

    /// True when the pattern matches every value of its type (no constructor inside).
    pub fn is_irrefutable(&self) -> bool {
        match self {
            Pattern::Wildcard | Pattern::Var(_) => true,
            Pattern::Ctor(..) => false,
            Pattern::Tuple(ps) => ps.iter().all(Pattern::is_irrefutable),
        }
    }
}

impl Match {
    /// Calls `f` on every variable the clauses' patterns bind.
    pub fn for_each_bound_var<'a>(&'a self, mut f: impl FnMut(&'a Var)) {
        for c in &self.clauses {
            c.pattern.for_each_var(&mut f);
        }
    }
}
