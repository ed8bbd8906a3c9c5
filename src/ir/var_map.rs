//! [`VarMap`]: a table keyed by variable id that is a plain vector for the common case.
//!
//! Variable ids come from one process-wide counter (see `expr.rs`), so the variables of one
//! parse, or the ones a pass creates in one go, have consecutive ids. A pass that keeps a fact
//! per variable over a million-binding function would otherwise make a hash lookup (a cache
//! miss in a table of a million entries) per variable per use; here the ids in a window
//! `[base, base + dense.len())` index a vector directly, in the order the program binds them,
//! and the few ids outside the window (variables made by an earlier parse or a later pass)
//! go to a hash map. The window only grows while it stays proportionate to the number of
//! entries (upwards, and downwards for ids made in descending order, as a pass that rebuilds
//! a let chain from the inside out makes them), so a sparse set of ids never allocates a
//! huge vector; while the window holds only
//! a few slots, an id far from it moves the window there (the old entries go to the hash map:
//! one parameter parsed long before a million let variables does not keep them out).
//!
//! An id stays where it was first inserted: one that went to the hash map before the window
//! grew over it is still found there.

use super::expr::{Expr, Var};
use rustc_hash::FxHashMap;

/// A map from variable id to `T`.
#[derive(Clone, Debug)]
pub struct VarMap<T> {
    base: u64,
    dense: Vec<Option<T>>,
    sparse: FxHashMap<u64, T>,
    len: usize,
}

impl<T> Default for VarMap<T> {
    fn default() -> Self {
        VarMap {
            base: 0,
            dense: Vec::new(),
            sparse: FxHashMap::default(),
            len: 0,
        }
    }
}

/// Slack the window may have beyond twice the number of entries.
const SLACK: u64 = 1024;
/// A window of at most this many slots moves to a far id instead of sending it to the map.
const REBASE: usize = 64;

impl<T> VarMap<T> {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    fn slot(&self, id: u64) -> Option<usize> {
        let i = id.wrapping_sub(self.base);
        (i < self.dense.len() as u64).then_some(i as usize)
    }

    pub fn get(&self, id: u64) -> Option<&T> {
        match self.slot(id).and_then(|i| self.dense[i].as_ref()) {
            Some(v) => Some(v),
            None if self.sparse.is_empty() => None,
            None => self.sparse.get(&id),
        }
    }

    pub fn get_mut(&mut self, id: u64) -> Option<&mut T> {
        match self.slot(id) {
            Some(i) if self.dense[i].is_some() => self.dense[i].as_mut(),
            _ if self.sparse.is_empty() => None,
            _ => self.sparse.get_mut(&id),
        }
    }

    pub fn contains(&self, id: u64) -> bool {
        self.get(id).is_some()
    }

    /// The entry of a variable.
    pub fn get_var(&self, v: &Var) -> Option<&T> {
        self.get(v.id())
    }

    /// Where `id`'s value lives in the vector, growing the window when that keeps it
    /// proportionate; `None` sends the id to the hash map.
    fn dense_index(&mut self, id: u64) -> Option<usize> {
        if !self.sparse.is_empty() && self.sparse.contains_key(&id) {
            return None;
        }
        if let Some(i) = self.slot(id) {
            return Some(i);
        }
        let i = id.wrapping_sub(self.base);
        // Above the window: grow it if the gap is proportionate (amortised doubling).
        if !self.dense.is_empty() && id > self.base && i <= 2 * self.len as u64 + SLACK {
            let cap = (2 * self.len as u64 + SLACK + 1) as usize;
            let want = (self.dense.len() * 2).max(i as usize + 1).min(cap);
            self.dense.resize_with(want, || None);
            return Some(i as usize);
        }
        // Below the window: grow it downwards on the same terms (a pass that rebuilds a let
        // chain from the inside out makes its variables in descending order).
        if !self.dense.is_empty() && id < self.base {
            let top = self.base + self.dense.len() as u64;
            let span = top - id;
            let cap = 2 * self.len as u64 + SLACK + 1;
            if span <= cap {
                let want = (self.dense.len() as u64 * 2).max(span).min(cap).min(top);
                let grow = (want - self.dense.len() as u64) as usize;
                let mut dense = Vec::with_capacity(want as usize);
                dense.resize_with(grow, || None);
                dense.append(&mut self.dense);
                self.dense = dense;
                self.base = top - want;
                return Some((id - self.base) as usize);
            }
        }
        if self.dense.len() <= REBASE {
            // Move the few entries of the window to the hash map and start over at `id`.
            let base = self.base;
            for (k, slot) in self.dense.drain(..).enumerate() {
                if let Some(v) = slot {
                    self.sparse.insert(base + k as u64, v);
                }
            }
            self.base = id;
            self.dense.push(None);
            return Some(0);
        }
        None
    }

    /// Inserts, returning the previous value.
    pub fn insert(&mut self, id: u64, value: T) -> Option<T> {
        let old = match self.dense_index(id) {
            Some(i) => self.dense[i].replace(value),
            None => self.sparse.insert(id, value),
        };
        if old.is_none() {
            self.len += 1;
        }
        old
    }

    /// The value of `id`, inserted with `make` when absent.
    pub fn get_or_insert_with(&mut self, id: u64, make: impl FnOnce() -> T) -> &mut T {
        match self.dense_index(id) {
            Some(i) => {
                let slot = &mut self.dense[i];
                if slot.is_none() {
                    self.len += 1;
                }
                slot.get_or_insert_with(make)
            }
            None => {
                let len = &mut self.len;
                self.sparse.entry(id).or_insert_with(|| {
                    *len += 1;
                    make()
                })
            }
        }
    }

    pub fn remove(&mut self, id: u64) -> Option<T> {
        let old = match self.slot(id).and_then(|i| self.dense[i].take()) {
            Some(v) => Some(v),
            None if self.sparse.is_empty() => None,
            None => self.sparse.remove(&id),
        };
        if old.is_some() {
            self.len -= 1;
        }
        old
    }

    /// Every entry, in no particular order (dense ones in id order first).
    pub fn iter(&self) -> impl Iterator<Item = (u64, &T)> + '_ {
        let base = self.base;
        let dense = self.dense.iter().enumerate();
        dense
            .filter_map(move |(k, v)| v.as_ref().map(|v| (base + k as u64, v)))
            .chain(self.sparse.iter().map(|(&k, v)| (k, v)))
    }

    /// Removes and returns every entry (dense ones in id order first).
    pub fn drain(&mut self) -> impl Iterator<Item = (u64, T)> + '_ {
        let base = self.base;
        self.len = 0;
        let dense = self.dense.drain(..).enumerate();
        dense
            .filter_map(move |(k, v)| v.map(|v| (base + k as u64, v)))
            .chain(self.sparse.drain())
    }

    pub fn clear(&mut self) {
        self.dense.clear();
        self.sparse.clear();
        self.len = 0;
    }
}

/// The lets whose value a post-order traversal is inside, innermost last, as (variable id,
/// value node id): a pass that wants a let variable's result (a constant, a purity) pushes the
/// let when it enters it and catches the value's result as the value node finishes, before
/// the let's body is visited. Nested lets whose values are the same node finish together.
#[derive(Default)]
pub struct PendingLets(Vec<(u64, usize)>);

impl PendingLets {
    /// `var`'s value is about to be traversed.
    pub fn push(&mut self, var: &Var, value: &Expr) {
        self.0.push((var.id(), value.id()));
    }

    /// `e` has just finished: calls `f` with the id of every pending variable whose value
    /// it is, and forgets them.
    pub fn finish(&mut self, e: &Expr, mut f: impl FnMut(u64)) {
        while let Some(&(var, value)) = self.0.last() {
            if value != e.id() {
                break;
            }
            self.0.pop();
            f(var);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dense_sparse_and_mixed_ids_behave_like_a_map() {
        let mut m = VarMap::new();
        let mut reference = std::collections::HashMap::new();
        // Consecutive ids, ids below the base, far-away ids, overwrites and removals.
        let mut ids: Vec<u64> = (1000..3000).collect();
        ids.extend([5, 999, 1 << 50, (1 << 50) + 1, 2999, 1000, 3001, 10_000_000]);
        for (k, &id) in ids.iter().enumerate() {
            assert_eq!(m.insert(id, k), reference.insert(id, k), "insert {id}");
        }
        for id in [1000, 1500, 5, 1 << 50] {
            assert_eq!(m.remove(id), reference.remove(&id));
        }
        assert_eq!(m.remove(424242), None);
        *m.get_or_insert_with(7, || 70) += 1;
        *reference.entry(7).or_insert(70) += 1;
        *m.get_or_insert_with(2000, || 0) += 1;
        *reference.entry(2000).or_insert(0) += 1;
        assert_eq!(m.len(), reference.len());
        for id in ids.iter().copied().chain([7, 424242, 1499, 3002]) {
            assert_eq!(m.get(id), reference.get(&id), "get {id}");
            assert_eq!(m.contains(id), reference.contains_key(&id));
        }
        // The window did not grow to the far ids.
        assert!(m.dense.len() < 5000, "window {}", m.dense.len());
        // An id sent to the map before the window grew over it is still found, and updated
        // in place.
        let mut m = VarMap::new();
        for id in 0..100u64 {
            m.insert(id, id);
        }
        m.insert(400, 400);
        for id in 100..400u64 {
            m.insert(id, id);
        }
        m.insert(400, 401);
        assert_eq!(m.get(400), Some(&401));
        assert_eq!(m.len(), 401);
        assert_eq!(m.remove(400), Some(401));
        assert_eq!(m.get(400), None);
        // One early id far below a long run does not keep the run out of the window.
        let mut m = VarMap::new();
        m.insert(3, 3);
        for id in 1_000_000..1_010_000u64 {
            m.insert(id, id);
        }
        assert!(m.sparse.len() <= 1, "{} ids in the map", m.sparse.len());
        assert_eq!(m.get(3), Some(&3));
        let mut drained: Vec<(u64, u64)> = m.drain().collect();
        drained.sort();
        assert_eq!(drained.len(), 10_001);
        assert_eq!(drained[0], (3, 3));
        assert!(m.is_empty() && m.get(1_000_001).is_none());
        m.insert(1, 1);
        m.clear();
        assert!(m.is_empty() && m.get(1).is_none());
        // Descending ids (a let chain rebuilt from the inside out) stay in the window too.
        let mut m = VarMap::new();
        m.insert(1 << 40, 0);
        for id in (2_000_000..2_100_000u64).rev() {
            m.insert(id, id);
        }
        assert!(m.sparse.len() <= 1, "{} ids in the map", m.sparse.len());
        assert!(
            m.dense.len() <= 2 * m.len() + SLACK as usize,
            "window {}",
            m.dense.len()
        );
        for id in (2_000_000..2_100_000u64).step_by(997) {
            assert_eq!(m.get(id), Some(&id));
        }
        assert_eq!(m.get(1 << 40), Some(&0));
        assert_eq!(m.get(1_999_999), None);
        assert_eq!(m.len(), 100_001);
        m.clear();
        assert!(m.is_empty() && m.get(1).is_none());
    }
}
