//! Breakpoints: where a run pauses. `break NAME` and `break after NAME` match a pass by name
//! (Sequentials included); the conditional ones (`break changed @f`, `break verify`,
//! `break numerics`, `break slower 10ms`) are checked after every pass that is not a Sequential (a Sequential's
//! change and time are its children's). Numbers are never reused, as in gdb. The list is shared
//! with the run's worker thread, so breakpoints set while paused apply to the rest of the run.

use crate::instrument::verify::verify_module;
use crate::ir::{expr_equal, Module};
use crate::lang::ast::BreakSpec;
use crate::pass::PassInfo;
use crate::present::render::Tab;
use std::time::Duration;

/// When a breakpoint pauses a run.
#[derive(Clone, Debug, PartialEq)]
pub enum When {
    Before(String),
    After(String),
    Changed(String),
    Verify,
    Numerics,
    Slower(Duration),
}

impl When {
    pub fn from_spec(spec: &BreakSpec) -> When {
        match spec {
            BreakSpec::Before(n) => When::Before(n.clone()),
            BreakSpec::After(n) => When::After(n.clone()),
            BreakSpec::Changed(f) => When::Changed(f.trim_start_matches('@').to_string()),
            BreakSpec::Verify => When::Verify,
            BreakSpec::Numerics => When::Numerics,
            BreakSpec::Slower(d) => When::Slower(*d),
        }
    }

    /// "before FoldConstant", "after a pass that changes @main", ...
    pub fn describe(&self) -> String {
        match self {
            When::Before(n) => format!("before {n}"),
            When::After(n) => format!("after {n}"),
            When::Changed(f) => format!("after a pass that changes @{f}"),
            When::Verify => "after the first pass whose output fails the checks".into(),
            When::Numerics => "after the first pass that changes the numbers of @main".into(),
            When::Slower(d) => format!("after a pass slower than {}", limit(*d)),
        }
    }

    /// The pass name a `break NAME` / `break after NAME` refers to.
    pub fn pass_name(&self) -> Option<&str> {
        match self {
            When::Before(n) | When::After(n) => Some(n),
            _ => None,
        }
    }
}

/// A limit as the user wrote it: `500 us`, `10 ms`, `1.5 s`.
fn limit(d: Duration) -> String {
    let us = d.as_secs_f64() * 1e6;
    let trim = |x: f64| {
        let s = format!("{x:.3}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    };
    if us < 1e3 {
        format!("{} us", trim(us))
    } else if us < 1e6 {
        format!("{} ms", trim(us / 1e3))
    } else {
        format!("{} s", trim(us / 1e6))
    }
}

/// One breakpoint.
#[derive(Clone, Debug)]
pub struct Breakpoint {
    pub id: usize,
    pub when: When,
    pub hits: usize,
}

/// A session's breakpoints.
#[derive(Clone, Debug, Default)]
pub struct Breakpoints {
    last_id: usize,
    list: Vec<Breakpoint>,
}

/// What the run's worker knows after a pass.
pub struct AfterPass<'a> {
    pub info: &'a PassInfo,
    pub input: &'a Module,
    pub output: &'a Module,
    pub elapsed: Duration,
}

impl Breakpoints {
    pub fn add(&mut self, when: When) -> &Breakpoint {
        self.last_id += 1;
        self.list.push(Breakpoint {
            id: self.last_id,
            when,
            hits: 0,
        });
        self.list.last().expect("just pushed")
    }

    pub fn delete(&mut self, id: usize) -> Result<Breakpoint, String> {
        match self.list.iter().position(|b| b.id == id) {
            Some(i) => Ok(self.list.remove(i)),
            None if self.list.is_empty() => Err(format!("no breakpoint {id}: none is set")),
            None => Err(format!(
                "no breakpoint {id} (set: {})",
                self.list
                    .iter()
                    .map(|b| b.id.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        }
    }

    /// Deletes every breakpoint; returns how many there were.
    pub fn clear(&mut self) -> usize {
        std::mem::take(&mut self.list).len()
    }

    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    pub fn list(&self) -> &[Breakpoint] {
        &self.list
    }

    /// True when some breakpoint needs the checks run after each pass.
    pub fn wants_verify(&self) -> bool {
        self.list.iter().any(|b| b.when == When::Verify)
    }

    /// True when some breakpoint needs @main evaluated around each pass.
    pub fn wants_numerics(&self) -> bool {
        self.list.iter().any(|b| b.when == When::Numerics)
    }

    /// The breakpoints as a table: #, when, hits.
    pub(crate) fn table(&self) -> Tab {
        Tab {
            header: ["#", "when", "hits"].map(String::from).to_vec(),
            rows: self
                .list
                .iter()
                .map(|b| vec![b.id.to_string(), b.when.describe(), b.hits.to_string()])
                .collect(),
        }
    }

    /// The breakpoints that pause before `info` runs (their hit counts go up).
    pub fn hit_before(&mut self, info: &PassInfo) -> Vec<usize> {
        let mut hit = Vec::new();
        for b in &mut self.list {
            if matches!(&b.when, When::Before(n) if n == info.name()) {
                b.hits += 1;
                hit.push(b.id);
            }
        }
        hit
    }

    /// The breakpoints that pause after a pass, with a reason line for the conditional ones.
    /// `failed` is the verify check's verdict on the output, computed by the caller only when
    /// [`wants_verify`](Self::wants_verify) (and only until it first fails in a run);
    /// `numerics` the same for the numeric check ([`wants_numerics`](Self::wants_numerics)).
    pub fn hit_after(
        &mut self,
        ev: &AfterPass<'_>,
        failed: Option<&str>,
        numerics: Option<&str>,
    ) -> Vec<(usize, Option<String>)> {
        let name = ev.info.name();
        let leaf = !ev.info.is_sequential();
        let mut hit = Vec::new();
        for b in &mut self.list {
            let reason = match &b.when {
                When::After(n) if n == name => Some(None),
                When::Changed(f) if leaf && function_changed(ev.input, ev.output, f) => {
                    Some(Some(format!("{name} changed @{f}")))
                }
                When::Verify if leaf => {
                    failed.map(|e| Some(format!("the module fails the checks after {name}: {e}")))
                }
                When::Numerics if leaf => numerics.map(|e| Some(e.to_string())),
                When::Slower(d) if leaf && ev.elapsed > *d => Some(Some(format!(
                    "{name} took {} (more than {})",
                    crate::instrument::timing::human_duration(ev.elapsed),
                    limit(*d)
                ))),
                _ => None,
            };
            if let Some(r) = reason {
                b.hits += 1;
                hit.push((b.id, r));
            }
        }
        hit
    }
}

/// The checks `break verify` runs (those of the `Verify` instrument).
pub fn check(m: &Module) -> Result<(), String> {
    verify_module(m)
}

/// Did `@f` change between the two modules (added and removed count as changed)?
fn function_changed(before: &Module, after: &Module, f: &str) -> bool {
    match (before.get(f), after.get(f)) {
        (None, None) => false,
        (Some(a), Some(b)) => !(a.ptr_eq(b) || expr_equal(a, b, false)),
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_not_reused_and_descriptions_read_well() {
        let mut b = Breakpoints::default();
        assert_eq!(b.add(When::Before("A".into())).id, 1);
        assert_eq!(b.add(When::Slower(Duration::from_millis(10))).id, 2);
        b.delete(1).unwrap();
        assert_eq!(b.add(When::Verify).id, 3);
        assert_eq!(b.delete(7).unwrap_err(), "no breakpoint 7 (set: 2, 3)");
        assert_eq!(
            b.list()[0].when.describe(),
            "after a pass slower than 10 ms"
        );
        assert_eq!(limit(Duration::from_micros(1500)), "1.5 ms");
        assert_eq!(limit(Duration::from_micros(250)), "250 us");
        assert_eq!(limit(Duration::from_secs(2)), "2 s");
        assert_eq!(b.clear(), 2);
        assert_eq!(b.delete(3).unwrap_err(), "no breakpoint 3: none is set");
    }
}
