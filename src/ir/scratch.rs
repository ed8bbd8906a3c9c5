//! Per-thread reuse of the work buffers of traversals: the explicit stacks of
//! [`walk_refs`](super::mutate::walk_refs) and [`mutate_with`](super::mutate::mutate_with),
//! their seen-sets, and a [`MutateState`](super::mutate::MutateState)'s memo and keep-alive
//! list.
//!
//! A traversal of a 100k-node program grows its stack and seen-set by doubling, from empty, on
//! every run: each doubling copies the buffer and touches fresh memory (page faults, zeroing),
//! a cost that only shows on programs larger than the caches (measured: LambdaLift's walk 9%,
//! DeadCodeElimination and CanonicalizeOps 5% of their time at 100k ops). Users run the same
//! pipeline again and again, so a thread keeps the buffers of its last traversals and the next
//! one starts at the size the last one reached.
//!
//! Buffers are typed by their element's size and alignment, not by the element: a stack of
//! `(&'a Expr, bool)` borrows from one program and must not outlive it, so what is kept is an
//! empty buffer of plain words, turned into a buffer of the caller's element type by
//! [`recycle`] (an empty `Vec`'s allocation reused in place by the standard library's
//! in-place `collect`; a unit test checks that the allocation is kept).
//!
//! Bounded: at most [`POOLED`] buffers of each kind per thread, and none larger than [`KEEP`]
//! elements (a million-deep program's buffers are freed as before).

use super::{Expr, NodeMap, NodeSet};
use std::cell::RefCell;

/// Largest buffer kept, in elements (8 MiB of 16-byte entries).
pub const KEEP: usize = 1 << 19;
/// Buffers of one kind kept per thread (a traversal inside a hook of another takes a second).
pub const POOLED: usize = 2;

thread_local! {
    static WORDS: RefCell<Vec<Vec<usize>>> = const { RefCell::new(Vec::new()) };
    static PAIRS: RefCell<Vec<Vec<[usize; 2]>>> = const { RefCell::new(Vec::new()) };
    static SETS: RefCell<Vec<NodeSet>> = const { RefCell::new(Vec::new()) };
    static MEMOS: RefCell<Vec<NodeMap<Expr>>> = const { RefCell::new(Vec::new()) };
}

/// Whether a hash table is worth keeping: clearing costs its capacity, not its length, so a
/// large table that a small traversal barely used is freed instead (many small walks after
/// one large one would otherwise each pay for the large table).
fn worth_keeping(len: usize, capacity: usize) -> bool {
    capacity <= KEEP && (len == 0 || capacity <= 64 * len.max(16))
}

/// The allocation of `v`, emptied, as a buffer of `U` (same size and alignment as `T`).
pub fn recycle<T, U>(mut v: Vec<T>) -> Vec<U> {
    const {
        assert!(std::mem::size_of::<T>() == std::mem::size_of::<U>());
        assert!(std::mem::align_of::<T>() == std::mem::align_of::<U>());
    }
    v.clear();
    v.into_iter()
        .map(|_| unreachable!("the vector is empty"))
        .collect()
}

fn take_from<B: Default>(pool: &'static std::thread::LocalKey<RefCell<Vec<B>>>) -> B {
    pool.try_with(|p| p.borrow_mut().pop())
        .ok()
        .flatten()
        .unwrap_or_default()
}

fn give_to<B>(pool: &'static std::thread::LocalKey<RefCell<Vec<B>>>, b: B) {
    // During thread teardown the pool may be gone: the buffer is then just freed.
    let _ = pool.try_with(|p| {
        let mut p = p.borrow_mut();
        if p.len() < POOLED {
            p.push(b);
        }
    });
}

/// An empty buffer of 8-byte elements (`Expr`, references), with the capacity a previous
/// traversal on this thread left.
pub fn take_words<T>() -> Vec<T> {
    recycle(take_from(&WORDS))
}

/// Gives a buffer of 8-byte elements back (its elements are dropped first).
pub fn give_words<T>(v: Vec<T>) {
    if v.capacity() <= KEEP {
        give_to(&WORDS, recycle(v));
    }
}

/// An empty buffer of 16-byte elements (stack entries), as [`take_words`].
pub fn take_pairs<T>() -> Vec<T> {
    recycle(take_from(&PAIRS))
}

/// Gives a buffer of 16-byte elements back (its elements are dropped first).
pub fn give_pairs<T>(v: Vec<T>) {
    if v.capacity() <= KEEP {
        give_to(&PAIRS, recycle(v));
    }
}

/// An empty [`NodeSet`] with the capacity a previous traversal on this thread left.
pub fn take_set() -> NodeSet {
    take_from(&SETS)
}

/// Gives a seen-set back (cleared here if it is not empty; see [`worth_keeping`]).
pub fn give_set(mut s: NodeSet) {
    if worth_keeping(s.len(), s.capacity()) {
        if !s.is_empty() {
            s.clear();
        }
        give_to(&SETS, s);
    }
}

/// An empty memo table (node -> rewritten node) with the capacity a previous mutation on this
/// thread left.
pub fn take_memo() -> NodeMap<Expr> {
    take_from(&MEMOS)
}

/// Gives a memo table back (its entries are dropped here; see [`worth_keeping`]).
pub fn give_memo(mut m: NodeMap<Expr>) {
    if worth_keeping(m.len(), m.capacity()) {
        if !m.is_empty() {
            m.clear();
        }
        give_to(&MEMOS, m);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The reuse rests on `recycle` keeping the allocation; if the standard library stopped
    /// collecting in place, every traversal would silently start from empty again.
    #[test]
    fn recycling_keeps_the_allocation() {
        let v: Vec<[usize; 2]> = Vec::with_capacity(1000);
        let p = v.as_ptr() as usize;
        let e = Expr::global("g");
        let mut s: Vec<(&Expr, bool)> = recycle(v);
        assert_eq!((s.capacity(), s.as_ptr() as usize), (1000, p));
        s.push((&e, true));
        let back: Vec<[usize; 2]> = recycle(s);
        assert_eq!((back.capacity(), back.as_ptr() as usize), (1000, p));
    }

    #[test]
    fn a_thread_gets_its_buffers_back_up_to_the_bounds() {
        let mut a: Vec<(&Expr, bool)> = take_pairs();
        a.reserve(5000);
        let cap = a.capacity();
        give_pairs(a);
        let b: Vec<(usize, usize)> = take_pairs();
        assert!(b.capacity() >= cap, "{} < {cap}", b.capacity());
        assert!(b.is_empty());
        give_pairs(b);
        // Too large to keep: freed, and the next buffer starts empty.
        let mut big: Vec<Expr> = take_words();
        big.reserve(KEEP + 1);
        give_words(big);
        let c: Vec<Expr> = take_words();
        assert!(c.capacity() <= KEEP);
        // At most POOLED per kind.
        for _ in 0..POOLED + 2 {
            give_set(NodeSet::with_capacity_and_hasher(64, Default::default()));
        }
        let kept = SETS.with(|p| p.borrow().len());
        assert_eq!(kept, POOLED);
    }
}
