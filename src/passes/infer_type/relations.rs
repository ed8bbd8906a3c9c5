//! Relations: the op type rules and tuple projections the solver keeps until it can decide
//! them (TVM's `TypeSolver` relation queue).
//!
//! A relation is tried as soon as it is added; if its rule answers "not yet" it is stored and
//! registered on every hole inside its arguments, and it is queued again when one of them is
//! bound (`Solver::link_hole`/`unify_with_type` wake the watchers). A rule's assignments are
//! unified into its arguments, which is how input types (weights, vectors) get inferred.
//! Messages here name the op and the types; the generator adds nothing to them.

use super::shape_rules::{Rel, Rule};
use super::solver::{Origin, SolveError, Solver, Term, TV};
use crate::ir::TypeKind;
use crate::ir::{Attrs, Type};

#[derive(Clone)]
pub(super) enum RelKind {
    Op {
        name: &'static str,
        rule: Rule,
        attrs: Attrs,
    },
    /// `tuple.index`: args are `[tuple, result]`.
    Proj(usize),
}

pub(super) struct Relation {
    pub kind: RelKind,
    pub args: Vec<TV>,
    pub origin: Origin,
    pub solved: bool,
    pub(super) queued: bool,
}

impl Solver {
    /// Adds a relation and runs it at once; if it cannot decide yet it waits for its holes.
    pub fn add_relation(
        &mut self,
        kind: RelKind,
        args: Vec<TV>,
        origin: Origin,
    ) -> Result<(), SolveError> {
        if self.try_run(&kind, &args, origin)? {
            return Ok(());
        }
        let id = self.rels.len() as u32;
        self.rels.push(Relation {
            kind,
            args,
            origin,
            solved: false,
            queued: false,
        });
        self.register(id);
        Ok(())
    }

    fn register(&mut self, id: u32) {
        let mut hs = Vec::new();
        let args = std::mem::take(&mut self.rels[id as usize].args);
        for a in &args {
            self.holes(*a, &mut hs);
        }
        self.rels[id as usize].args = args;
        hs.sort_unstable();
        hs.dedup();
        for h in hs {
            self.watchers.entry(h).or_default().push(id);
        }
    }

    /// Runs woken relations until none is left.
    pub fn solve(&mut self) -> Result<(), SolveError> {
        while let Some(id) = self.queue.pop() {
            let rel = &mut self.rels[id as usize];
            rel.queued = false;
            if rel.solved {
                continue;
            }
            let (kind, args, origin) =
                (rel.kind.clone(), std::mem::take(&mut rel.args), rel.origin);
            let done = self.try_run(&kind, &args, origin);
            self.rels[id as usize].args = args;
            if done? {
                self.rels[id as usize].solved = true;
            } else {
                self.register(id);
            }
        }
        Ok(())
    }

    pub fn has_pending_work(&self) -> bool {
        !self.queue.is_empty()
    }

    /// Runs one relation: `Ok(true)` when it is decided.
    fn try_run(&mut self, kind: &RelKind, args: &[TV], origin: Origin) -> Result<bool, SolveError> {
        let err = |message: String| SolveError { message, origin };
        match kind {
            RelKind::Proj(index) => {
                let r = self.find(args[0]);
                match self.term(r) {
                    Term::Hole => Ok(false),
                    Term::Tuple(vs) if *index < vs.len() => {
                        let v = vs[*index];
                        self.unify(v, args[1]).map_err(|m| {
                            err(format!(
                                "type mismatch in projection .{index}: {} vs {}",
                                m.left, m.right
                            ))
                        })?;
                        Ok(true)
                    }
                    Term::Known(t) if t.as_tuple().is_some_and(|ts| *index < ts.len()) => {
                        let ts = t.as_tuple().expect("a tuple");
                        let t = ts[*index].clone();
                        self.unify_with_type(args[1], &t).map_err(|m| {
                            err(format!(
                                "type mismatch in projection .{index}: {} vs {}",
                                m.right, m.left
                            ))
                        })?;
                        Ok(true)
                    }
                    _ => {
                        let t = self.partial(r);
                        Err(err(projection_error(*index, &t)))
                    }
                }
            }
            RelKind::Op { name, rule, attrs } => match rule {
                Rule::Identity => {
                    // TVM's IdentityRel assigns every other type to the first: unify both ways.
                    let out = *args.last().expect("relations have an output");
                    self.unify(args[0], out).map_err(|m| {
                        err(format!(
                            "type mismatch in `{name}`: {} vs {}",
                            m.left, m.right
                        ))
                    })?;
                    Ok(true)
                }
                Rule::Fn(f) => {
                    let mut types = std::mem::take(&mut self.scratch_types);
                    types.clear();
                    for a in args {
                        types.push(self.resolve(*a));
                    }
                    let answer = super::recent::rule_answer(name, attrs, &types, || {
                        let mut rel = Rel::new(name, attrs, &types);
                        let decided = f(&mut rel)?;
                        Ok((decided, std::mem::take(&mut rel.assigned)))
                    });
                    self.scratch_types = types;
                    let assigned = match answer.map_err(err)? {
                        Some(assigned) => assigned,
                        None => return Ok(false),
                    };
                    let n_in = args.len() - 1;
                    for (i, t) in assigned {
                        self.unify_with_type(args[i], &t).map_err(|m| {
                            err(if i == n_in {
                                format!(
                                    "type mismatch in `{name}`: the result has type {} but {} is expected here",
                                    m.right, m.left
                                )
                            } else {
                                format!(
                                    "type mismatch in `{name}`: argument {} has type {} but the call requires {}",
                                    i + 1,
                                    m.left,
                                    m.right
                                )
                            })
                        })?;
                    }
                    Ok(true)
                }
            },
        }
    }

    /// A relation still waiting that mentions `x` (for explaining what stayed unknown).
    pub fn pending_use_of(&mut self, x: TV) -> Option<(String, usize)> {
        let root = self.find(x);
        for id in 0..self.rels.len() {
            if self.rels[id].solved {
                continue;
            }
            let args = self.rels[id].args.clone();
            for (i, a) in args.iter().enumerate() {
                if self.find(*a) == root {
                    let what = match &self.rels[id].kind {
                        RelKind::Op { name, .. } => format!("`{name}`"),
                        RelKind::Proj(k) => format!("projection .{k}"),
                    };
                    return Some((what, i));
                }
            }
        }
        None
    }
}

pub(super) fn projection_error(index: usize, t: &Type) -> String {
    match t.kind() {
        TypeKind::Tuple(fs) => format!(
            "tuple index {index} is out of range: the tuple has type {t} with {} field{}",
            fs.len(),
            if fs.len() == 1 { "" } else { "s" }
        ),
        _ => {
            format!("cannot project field {index} out of a value of type {t}, which is not a tuple")
        }
    }
}
