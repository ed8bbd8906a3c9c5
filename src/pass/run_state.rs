//! State a pass run owns: the memo tables passes fill while a run goes (InferType's rule
//! answers, the types of the calls passes build) live in a [`RunState`] that the outermost
//! [`PassCx::run`](super::PassCx::run) on a thread creates and drops when it returns. What a
//! run learnt is then freed with the run, not kept by the thread that happened to run it.
//! The end of the outermost run also frees the traversal buffers its passes shared
//! (`ir::scratch::release`), so a session keeps nothing of a run but its results and history.
//!
//! A table is declared once as a `static` [`RunTable`] (its constructor and a slot number
//! given on first use) and reached with [`RunTable::with`] from anywhere below the run, with
//! no handle threaded through the passes and the IR builders that ask it. The state is reached
//! through the thread the run is on: a run is entered ([`enter`]) on one thread and every
//! table access is a borrow of that thread's current state, so no lock is taken.
//!
//! Besides the funnel, the library's own entry points that run pass code outside a pass enter
//! a run: `infer_module` and its siblings, the ONNX importer (which types the calls it
//! builds), and each worker of a parallel map ([`enter_keeping_buffers`]). Anywhere
//! else (a library user building typed nodes by hand) [`RunTable::with`] finds no state and
//! returns `None`, and callers compute without a memo: the same answers, found again.

use std::any::Any;
use std::cell::RefCell;
use std::marker::PhantomData;
use std::rc::Rc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The tables of one run, by slot; a table is made the first time the run asks for it.
#[derive(Default)]
pub struct RunState {
    tables: RefCell<Vec<Option<Box<dyn Any>>>>,
}

thread_local! {
    /// The state of the run in progress on this thread, if any.
    static CURRENT: RefCell<Option<Rc<RunState>>> = const { RefCell::new(None) };
}

/// The next free table slot (0 means "not yet given one").
static NEXT_SLOT: AtomicUsize = AtomicUsize::new(1);

/// A kind of table a run keeps, declared as a `static`.
pub struct RunTable<T: 'static> {
    slot: AtomicUsize,
    make: fn() -> T,
}

impl<T: 'static> RunTable<T> {
    /// A table each run makes with `make` when it first asks for it.
    pub const fn new(make: fn() -> T) -> RunTable<T> {
        RunTable {
            slot: AtomicUsize::new(0),
            make,
        }
    }

    fn slot(&self) -> usize {
        let slot = self.slot.load(Ordering::Relaxed);
        if slot != 0 {
            return slot;
        }
        let fresh = NEXT_SLOT.fetch_add(1, Ordering::Relaxed);
        match self
            .slot
            .compare_exchange(0, fresh, Ordering::Relaxed, Ordering::Relaxed)
        {
            Ok(_) => fresh,
            Err(taken) => taken,
        }
    }

    /// `f` on the current run's table (made on first use), or `None` when no run is in
    /// progress on this thread, or when the run's tables are already borrowed (`f` asking for
    /// a table again: the inner ask then gets `None` rather than a second borrow).
    #[inline]
    pub fn with<R>(&'static self, f: impl FnOnce(&mut T) -> R) -> Option<R> {
        CURRENT
            .try_with(|current| {
                let current = current.borrow();
                let state = current.as_ref()?;
                let mut tables = state.tables.try_borrow_mut().ok()?;
                let slot = self.slot();
                if tables.len() <= slot {
                    tables.resize_with(slot + 1, || None);
                }
                let table = tables[slot].get_or_insert_with(|| Box::new((self.make)()));
                table.downcast_mut::<T>().map(f)
            })
            .ok()
            .flatten()
    }
}

/// While alive, a run is in progress on this thread: the outermost scope made a new
/// [`RunState`], which its drop frees; an inner scope (a run inside a run) changes nothing.
#[must_use = "the run's state lives as long as the scope"]
pub struct RunScope {
    outermost: bool,
    /// Whether the outermost scope's end also frees this thread's traversal buffers.
    release_buffers: bool,
    /// Entered on this thread, left on it.
    _not_send: PhantomData<Rc<()>>,
}

/// Enters a run on this thread (see [`RunScope`]); the end of the outermost one also frees the
/// traversal buffers the run's passes shared.
pub fn enter() -> RunScope {
    let mut scope = enter_keeping_buffers();
    scope.release_buffers = true;
    scope
}

/// Enters a run as [`enter`] does, but the thread's traversal buffers stay when it ends: for a
/// worker of a parallel map, one group of items at a time (the map frees the buffers once it
/// ends, `pass::parallel`), and for the library's entry points that run pass code outside a
/// pass (`infer_module`, the ONNX importer), which may be called again and again.
pub fn enter_keeping_buffers() -> RunScope {
    let outermost = CURRENT
        .try_with(|current| {
            let mut current = current.borrow_mut();
            if current.is_some() {
                return false;
            }
            *current = Some(Rc::new(RunState::default()));
            true
        })
        .unwrap_or(false);
    RunScope {
        outermost,
        release_buffers: false,
        _not_send: PhantomData,
    }
}

impl Drop for RunScope {
    fn drop(&mut self) {
        if self.outermost {
            // Taken out first and dropped here, so that nothing a table holds is dropped
            // while the thread's slot is borrowed.
            let state = CURRENT
                .try_with(|current| current.borrow_mut().take())
                .ok()
                .flatten();
            drop(state);
            if self.release_buffers {
                // The traversal buffers the run's passes shared go with the run too.
                crate::ir::scratch::release();
            }
        }
    }
}

/// How many tables the run in progress on this thread has made (0 with no run): for tests
/// and diagnostics, e.g. that a run's tables are gone once it returned.
pub fn tables_in_use() -> usize {
    CURRENT
        .try_with(|current| {
            current.borrow().as_ref().map_or(0, |state| {
                state.tables.borrow().iter().filter(|t| t.is_some()).count()
            })
        })
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    static COUNTS: RunTable<Vec<u32>> = RunTable::new(Vec::new);

    #[test]
    fn a_table_lives_as_long_as_the_outermost_run() {
        assert_eq!(COUNTS.with(|v| v.push(1)), None, "no run, no table");
        {
            let _run = enter();
            COUNTS.with(|v| v.push(1)).expect("a run");
            {
                let _inner = enter();
                assert_eq!(COUNTS.with(|v| v.len()), Some(1), "the inner run shares it");
            }
            assert_eq!(COUNTS.with(|v| v.len()), Some(1), "still the outer run's");
            assert_eq!(tables_in_use(), 1);
            // A nested ask gets no second borrow.
            assert_eq!(COUNTS.with(|_| COUNTS.with(|v| v.len())), Some(None));
        }
        assert_eq!(tables_in_use(), 0);
        let _next = enter();
        assert_eq!(COUNTS.with(|v| v.len()), Some(0), "a new run starts empty");
    }
}
