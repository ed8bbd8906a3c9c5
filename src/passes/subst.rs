//! Substitution of variables (TVM's `Bind`), used by InlineGlobals (parameters := arguments)
//! and LambdaLift (captured variables := closure parameters).
//!
//! With `fresh` binders, every variable bound inside the expression (let variables, function
//! parameters) is replaced by a new variable of the same name and annotation, so a body copied
//! into several places stays well-formed (every variable bound once). TVM's `Bind` keeps the
//! binders, which makes two inlined copies of one function share their let variables; passlab's
//! well-formedness check refuses that, so copies are always freshened.
//!
//! Stack-safe and memoized: built on the mutator, shared nodes stay shared within one copy.

use crate::ir::mutate::{mutate, rebuild_function, rebuild_let, rebuild_other, Mutator, Unchanged};
use crate::ir::{Clause, Expr, ExprKind, Function, Match, NodeSet, Var};
use rustc_hash::FxHashMap;

/// `e` with the variables of `map` replaced (by variable identity) and, when `fresh`, every
/// binder inside `e` renamed to a new variable.
pub fn substitute(e: &Expr, map: &[(Var, Expr)], fresh: bool) -> Expr {
    let mut s = Subst {
        map: map.iter().map(|(v, x)| (v.id(), x.clone())).collect(),
        renamed: FxHashMap::default(),
        fresh,
        closed: None,
    };
    mutate(&mut s, e)
}

/// [`substitute`] for an expression whose nodes without any variable or binder below them
/// are listed in `closed` (a substitution keeps those as they are): they are returned without
/// a visit, so a copy costs the nodes it rebuilds, not the whole expression.
pub fn substitute_closed(e: &Expr, map: &[(Var, Expr)], fresh: bool, closed: &NodeSet) -> Expr {
    let mut s = Subst {
        map: map.iter().map(|(v, x)| (v.id(), x.clone())).collect(),
        renamed: FxHashMap::default(),
        fresh,
        closed: Some(closed),
    };
    mutate(&mut s, e)
}

struct Subst<'a> {
    map: FxHashMap<u64, Expr>,
    renamed: FxHashMap<u64, Var>,
    fresh: bool,
    /// Nodes known to contain no variable and no binder.
    closed: Option<&'a NodeSet>,
}

impl Subst<'_> {
    fn rename(&mut self, v: &Var) {
        if self.fresh {
            let nv = v.with_ann(v.ann().cloned());
            self.renamed.insert(v.id(), nv);
        }
    }

    fn renamed(&self, v: &Var) -> Var {
        self.renamed
            .get(&v.id())
            .cloned()
            .unwrap_or_else(|| v.clone())
    }
}

impl Mutator for Subst<'_> {
    fn pre(&mut self, e: &Expr) -> Option<Expr> {
        if self.closed.is_some_and(|c| c.contains(&e.id())) {
            return Some(e.clone());
        }
        match e.kind() {
            ExprKind::Let(l) => self.rename(&l.var),
            ExprKind::Function(f) => f.params.iter().for_each(|p| self.rename(p)),
            ExprKind::Match(m) => m.for_each_bound_var(|v| self.rename(v)),
            _ => {}
        }
        None
    }

    fn match_(&mut self, e: &Expr, m: &Match, data: Expr, rhs: Vec<Expr>) -> Expr {
        let mut renamed_any = false;
        m.for_each_bound_var(|v| renamed_any |= self.renamed.contains_key(&v.id()));
        if !renamed_any {
            let mut kids = rhs;
            kids.insert(0, data);
            return rebuild_other(e, kids);
        }
        let clauses = m
            .clauses
            .iter()
            .zip(rhs)
            .map(|(c, rhs)| Clause {
                pattern: c.pattern.map_vars(&mut |v| self.renamed(v)),
                rhs,
            })
            .collect();
        let kind = ExprKind::Match(Box::new(Match {
            data,
            clauses,
            complete: m.complete,
        }));
        Expr::with_info(kind, e.ty().cloned(), e.span())
    }

    fn var(&mut self, e: &Expr, v: &Var) -> Expr {
        if let Some(x) = self.map.get(&v.id()) {
            return x.clone();
        }
        match self.renamed.get(&v.id()) {
            Some(nv) => Expr::with_info(ExprKind::Var(nv.clone()), e.ty().cloned(), e.span()),
            None => e.clone(),
        }
    }

    fn let_(&mut self, e: &Expr, var: &Var, value: Expr, body: Expr) -> Expr {
        let var = self.renamed(var);
        rebuild_let(e, var, value, body)
    }

    fn function(&mut self, e: &Expr, f: &Function, body: Expr) -> Expr {
        let params: Vec<Var> = f.params.iter().map(|p| self.renamed(p)).collect();
        if params.iter().zip(&f.params).all(|(a, b)| a == b) {
            return rebuild_function(e, f, body);
        }
        let func = Function {
            type_params: f.type_params.clone(),
            params,
            body,
            ret_type: f.ret_type.clone(),
            attrs: f.attrs.clone(),
        };
        Expr::with_info(
            ExprKind::Function(Box::new(func)),
            e.ty().cloned(),
            e.span(),
        )
    }

    fn unchanged(&mut self, e: &Expr) -> Unchanged {
        // Only substituted or renamed variables, and the binders of renamed ones, change.
        Unchanged::keep_if(match e.kind() {
            ExprKind::Var(v) => {
                !self.map.contains_key(&v.id()) && !self.renamed.contains_key(&v.id())
            }
            ExprKind::Let(l) => !self.renamed.contains_key(&l.var.id()),
            ExprKind::Function(f) => f.params.iter().all(|p| !self.renamed.contains_key(&p.id())),
            ExprKind::Match(m) => {
                let mut none = true;
                m.for_each_bound_var(|v| none &= !self.renamed.contains_key(&v.id()));
                none
            }
            _ => true,
        })
    }
}
