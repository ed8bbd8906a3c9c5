//! Per-thread reuse of the work buffers of traversals: the explicit stacks of
//! [`walk_refs`](super::mutate::walk_refs) and [`mutate_with`](super::mutate::mutate_with),
//! their seen-sets, and a [`MutateState`](super::mutate::MutateState)'s memo and keep-alive
//! list.
//!
//! A traversal of a 100k-node program grows its stack and seen-set by doubling, from empty, on
//! every run: each doubling copies the buffer and touches fresh memory (page faults, zeroing),
//! a cost that only shows on programs larger than the caches, where it is a visible share of
//! a light pass's time (LambdaLift, DeadCodeElimination, CanonicalizeOps). Users run the same
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
//! elements (a million-deep program's buffers are freed when its traversal ends).

use super::{Expr, NodeMap, NodeSet};
use std::cell::RefCell;

/// Largest buffer kept, in elements (8 MiB of 16-byte entries).
pub const KEEP: usize = 1 << 19;
/// Buffers of one kind kept per thread (a traversal inside a hook of another takes a second).
pub const POOLED: usize = 2;

thread_local! {
    static WORDS4: RefCell<Vec<Vec<u32>>> = const { RefCell::new(Vec::new()) };
    static WORDS8: RefCell<Vec<Vec<usize>>> = const { RefCell::new(Vec::new()) };
    static WORDS16: RefCell<Vec<Vec<[usize; 2]>>> = const { RefCell::new(Vec::new()) };
    static WORDS24: RefCell<Vec<Vec<[usize; 3]>>> = const { RefCell::new(Vec::new()) };
    static SETS: RefCell<Vec<NodeSet>> = const { RefCell::new(Vec::new()) };
    static MEMOS: RefCell<Vec<NodeMap<Option<Expr>>>> = const { RefCell::new(Vec::new()) };
}

/// Whether a hash table is worth keeping: clearing costs its capacity, not its length, so a
/// large table that a small traversal barely used is freed instead (many small walks after
/// one large one would otherwise each pay for the large table).
fn worth_keeping(len: usize, capacity: usize) -> bool {
    capacity <= KEEP && (len == 0 || capacity <= 64 * len.max(16))
}

/// Frees every buffer this thread keeps (a pass worker's, when its parallel map is done: its
/// pool outlives the run, and what a run left must not stay with it).
pub fn release() {
    fn clear<B>(pool: &'static std::thread::LocalKey<RefCell<Vec<B>>>) {
        let _ = pool.try_with(|p| std::mem::take(&mut *p.borrow_mut()));
    }
    clear(&WORDS4);
    clear(&WORDS8);
    clear(&WORDS16);
    clear(&WORDS24);
    clear(&SETS);
    clear(&MEMOS);
}

/// The allocation of `v`, emptied, as a buffer of `U`. The allocation is reused when `T` and
/// `U` have the same size and alignment (the only way this module calls it); otherwise the
/// result is a new empty vector.
pub fn recycle<T, U>(mut v: Vec<T>) -> Vec<U> {
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

/// An empty vector with the capacity a previous traversal on this thread left in a vector of
/// elements of the same size (4, 8, 16 or 24 bytes; any other size starts empty).
pub fn take_vec<T>() -> Vec<T> {
    use std::mem::{align_of, size_of};
    match (size_of::<T>(), align_of::<T>()) {
        (4, 4) => recycle(take_from(&WORDS4)),
        (8, 8) => recycle(take_from(&WORDS8)),
        (16, 8) => recycle(take_from(&WORDS16)),
        (24, 8) => recycle(take_from(&WORDS24)),
        _ => Vec::new(),
    }
}

/// Gives a vector back for [`take_vec`] (its elements are dropped first).
pub fn give_vec<T>(v: Vec<T>) {
    use std::mem::{align_of, size_of};
    if v.capacity() > KEEP {
        return;
    }
    match (size_of::<T>(), align_of::<T>()) {
        (4, 4) => give_to(&WORDS4, recycle(v)),
        (8, 8) => give_to(&WORDS8, recycle(v)),
        (16, 8) => give_to(&WORDS16, recycle(v)),
        (24, 8) => give_to(&WORDS24, recycle(v)),
        _ => {}
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
pub fn take_memo() -> NodeMap<Option<Expr>> {
    take_from(&MEMOS)
}

/// Gives a memo table back (its entries are dropped here; see [`worth_keeping`]).
pub fn give_memo(mut m: NodeMap<Option<Expr>>) {
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
        let mut a: Vec<(&Expr, bool)> = take_vec();
        a.reserve(5000);
        let cap = a.capacity();
        give_vec(a);
        let b: Vec<(usize, usize)> = take_vec();
        assert!(b.capacity() >= cap, "{} < {cap}", b.capacity());
        assert!(b.is_empty());
        give_vec(b);
        // Too large to keep: freed, and the next buffer starts empty.
        let mut big: Vec<Expr> = take_vec();
        big.reserve(KEEP + 1);
        give_vec(big);
        let c: Vec<Expr> = take_vec();
        assert!(c.capacity() <= KEEP);
        // At most POOLED per kind.
        for _ in 0..POOLED + 2 {
            give_set(NodeSet::with_capacity_and_hasher(64, Default::default()));
        }
        let kept = SETS.with(|p| p.borrow().len());
        assert_eq!(kept, POOLED);
    }
}
