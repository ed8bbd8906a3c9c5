//! The last answers of the shape rules, by (op, attribute node, argument types) compared by
//! identity, in a table the pass run owns (`pass::run_state`: made by the run's first ask,
//! dropped when the run returns; outside a run nothing is remembered). Type inference and
//! type-on-build ask through [`rule_answer`], so
//! they share the answers, and with them the result types themselves.
//!
//! Why: a model repeats its layers, so type inference and the passes that type the calls they
//! build (SimplifyInference's eleven calls per batch_norm) run the same rule over the same
//! shared types (tensor types are shared, see `ir::types`) again and again; running the rule
//! was most of their time. A rule's answer is a function of exactly the key, and an entry
//! holds the key's attribute node and types, so no address in it can be reused for another
//! value while it is there. Two-way set-associative and bounded: a miss only runs the rule. (Two
//! ways, not one: in a direct-mapped table two hot keys whose addresses share a slot evict each
//! other on every call, and whether they do depends on where the heap put their nodes, so the
//! work of a pass moved by 10% with the length of a file's path.)

use crate::ir::{Attrs, Type};
use crate::pass::run_state::RunTable;
use std::hash::Hasher;

/// Calls of up to this many types (arguments and result) are remembered.
pub const ARGS: usize = 5;

struct Entry<V> {
    op: usize,
    attrs: Attrs,
    types: [Option<Type>; ARGS],
    n: usize,
    value: V,
}

/// A two-way set-associative table of rule answers: a key's set is two adjacent slots, the
/// newer entry first.
pub struct Recent<V> {
    slots: Vec<Option<Entry<V>>>,
    /// The sharing epoch of the entries (see `ir::sharing`): a new one empties the table.
    epoch: u64,
}

fn attrs_addr(a: &Attrs) -> usize {
    a.0.as_ref()
        .map_or(0, |n| std::sync::Arc::as_ptr(n) as usize)
}

fn same(a: &Option<Type>, b: &Option<Type>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => a.ptr_eq(b),
        (None, None) => true,
        _ => false,
    }
}

impl<V> Recent<V> {
    /// A table of `slots` entries (rounded up to an even number: sets of two).
    pub fn new(slots: usize) -> Recent<V> {
        Recent {
            slots: (0..slots.max(2).next_multiple_of(2))
                .map(|_| None)
                .collect(),
            epoch: crate::ir::sharing::current(),
        }
    }

    /// Empties the table when its entries are from an earlier sharing epoch.
    fn current(&mut self) {
        let now = crate::ir::sharing::current();
        if self.epoch != now {
            self.slots.iter_mut().for_each(|s| *s = None);
            self.epoch = now;
        }
    }

    /// The set of a key (its first slot; `op` is any address that tells the rule apart), or
    /// `None` when it has too many types.
    pub fn slot(&self, op: usize, attrs: &Attrs, types: &[Option<Type>]) -> Option<usize> {
        if types.len() > ARGS {
            return None;
        }
        let mut h = rustc_hash::FxHasher::default();
        h.write_usize(op);
        h.write_usize(attrs_addr(attrs));
        for t in types {
            h.write_usize(t.as_ref().map_or(0, Type::addr));
        }
        // FxHash mixes into the high bits.
        Some((h.finish() >> 40) as usize % (self.slots.len() / 2) * 2)
    }

    /// The answer remembered for exactly this key, if any.
    pub fn get(&self, slot: usize, op: usize, attrs: &Attrs, types: &[Option<Type>]) -> Option<&V> {
        self.slots[slot..slot + 2].iter().flatten().find_map(|e| {
            let hit = e.op == op
                && e.n == types.len()
                && attrs_addr(&e.attrs) == attrs_addr(attrs)
                && e.types.iter().zip(types).all(|(a, b)| same(a, b));
            hit.then_some(&e.value)
        })
    }

    /// Remembers `value` for the key as its set's newer entry; the older one goes.
    pub fn put(&mut self, slot: usize, op: usize, attrs: &Attrs, types: &[Option<Type>], value: V) {
        self.current();
        let mut held: [Option<Type>; ARGS] = Default::default();
        for (h, t) in held.iter_mut().zip(types) {
            *h = t.clone();
        }
        self.slots.swap(slot, slot + 1);
        self.slots[slot] = Some(Entry {
            op,
            attrs: attrs.clone(),
            types: held,
            n: types.len(),
            value,
        });
    }
}

/// How many answers a table remembers.
pub const SLOTS: usize = 512;

/// The types a rule assigns (by position: arguments, then the result).
pub type Assigned = Vec<(usize, Type)>;

/// The rule answers of the run.
static RUN_RULES: RunTable<Recent<Option<Assigned>>> = RunTable::new(|| Recent::new(SLOTS));

/// The value remembered in the run's `table` for the key, or `compute`'s: on a miss `compute`
/// gives the value and whether to remember it. Outside a run every call computes.
#[inline]
pub fn remembered<V: Clone + 'static, E>(
    table: &'static RunTable<Recent<V>>,
    op: usize,
    attrs: &Attrs,
    types: &[Option<Type>],
    compute: impl FnOnce() -> Result<(V, bool), E>,
) -> Result<V, E> {
    let known = table
        .with(|r| {
            r.current();
            let slot = r.slot(op, attrs, types)?;
            Some((slot, r.get(slot, op, attrs, types).cloned()))
        })
        .flatten();
    if let Some((_, Some(v))) = known {
        return Ok(v);
    }
    let (v, keep) = compute()?;
    if let (true, Some((slot, None))) = (keep, known) {
        table.with(|r| r.put(slot, op, attrs, types, v.clone()));
    }
    Ok(v)
}

/// The answer of the rule of the op named `name` (a string of the op table, which tells the
/// rule apart) over `types`: `Ok(Some(assigned))` when it decides, `Ok(None)` when it cannot
/// yet, `Err` when the types are wrong. Decided answers are remembered (an undecided rule may
/// decide later, on more types); `run` runs the rule (its decision and what it assigned) on a
/// miss.
pub fn rule_answer<E>(
    name: &'static str,
    attrs: &Attrs,
    types: &[Option<Type>],
    run: impl FnOnce() -> Result<(bool, Assigned), E>,
) -> Result<Option<Assigned>, E> {
    remembered(&RUN_RULES, name.as_ptr() as usize, attrs, types, || {
        let (decided, assigned) = run()?;
        Ok(if decided {
            (Some(assigned), true)
        } else {
            (None, false)
        })
    })
}
