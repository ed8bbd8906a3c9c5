//! Function passes over many functions at once, as MLIR's pass manager does: with
//! `passlab.num_threads` above 1 (0, the default, means one thread per core), a function
//! pass maps its functions on a rayon thread pool, and the module, the output, the
//! diagnostics and the error are those of the sequential run.
//!
//! How the sequential run is reproduced:
//! - each worker runs the body on a fork of the run's [`PassCx`] (same context, registry,
//!   interrupt flag and stack of running passes) whose output goes to a buffer; after the
//!   map, each function's output and diagnostics are handed on in module order;
//! - the first failing function in module order decides the result: its error, or its panic
//!   resumed on the calling thread (the funnel then reports it naming the pass, as it does
//!   for a sequential panic). Functions after a known failure are not started; every one
//!   before it is run, so the first failure is the sequential run's first failure;
//! - instruments are called by the funnel around the whole pass, on the calling thread, so
//!   they see the same modules in the same order whatever the thread count;
//! - under an observer (the debugger) a function pass stays sequential unless it is a leaf
//!   (`FunctionPass::leaf`: its body runs no pass of its own), so pauses keep their order.
//!
//! Thread-local caches of the IR (shared attributes and types, scratch buffers, type-rule
//! answers) are per worker then; they decide which equal node is shared, never a result.
//!
//! Not parallel: a body that itself runs passes through its `PassCx` sends those passes'
//! instrument calls from the workers, in whatever order the functions run.

use super::diagnostics::PassDiagnostic;
use super::error::PassErrorKind;
use super::sink::{Chunk, ChunkKind, OutputSink};
use super::{PassCx, PassError};
use crate::ir::{Expr, GlobalVar, Module};
use crate::limits::MAX_THREADS;
use rayon::prelude::*;
use std::any::Any;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

/// The config key.
pub const NUM_THREADS: &str = "passlab.num_threads";

/// The number of threads a function pass of this run uses: `passlab.num_threads`, with 0 (the
/// default) meaning one per core. A negative or too large value is an error.
pub fn num_threads(cx: &PassCx) -> Result<usize, PassError> {
    let n = match cx.context().config().get(NUM_THREADS) {
        None => 0,
        Some(v) => v.as_int().unwrap_or(0),
    };
    match usize::try_from(n) {
        Ok(0) => Ok(cores()),
        Ok(n) if n <= MAX_THREADS => Ok(n),
        _ => Err(PassErrorKind::Config(format!(
            "{NUM_THREADS} = {n}: expected 0 (one thread per core) to {MAX_THREADS}"
        ))
        .into()),
    }
}

/// The machine's cores (as the process may use them), read once.
pub fn cores() -> usize {
    static CORES: OnceLock<usize> = OnceLock::new();
    *CORES.get_or_init(|| {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
            .min(MAX_THREADS)
    })
}

/// What one function's body gave.
enum Outcome {
    Done(Expr),
    Failed(PassError),
    Panicked(Box<dyn Any + Send>),
    /// Not started: a function before it had already failed.
    NotRun,
}

/// One function's result with what its body reported.
struct Slot {
    outcome: Outcome,
    diagnostics: Vec<PassDiagnostic>,
    output: Vec<Owned>,
}

/// A chunk of output, kept until it can be handed on in module order.
struct Owned {
    kind: ChunkKind,
    source: Box<str>,
    text: Box<str>,
}

/// A worker's sink: keeps the chunks of the function it is running.
#[derive(Default)]
struct Recorder {
    chunks: Mutex<Vec<Owned>>,
}

impl OutputSink for Recorder {
    fn write(&self, chunk: Chunk<'_>) {
        super::sink::lock(&self.chunks).push(Owned {
            kind: chunk.kind,
            source: chunk.source.into(),
            text: chunk.text.into(),
        });
    }
}

impl Recorder {
    fn take(&self) -> Vec<Owned> {
        std::mem::take(&mut *super::sink::lock(&self.chunks))
    }
}

/// Maps `body` over the functions of `m` on `threads` threads, keeping the sequential run's
/// order of output, diagnostics and failure (see the module note). `body` returns the new
/// function expression; the caller checks it and builds the module.
pub fn map_functions(
    m: &Module,
    cx: &mut PassCx,
    threads: usize,
    body: &(dyn Fn(&GlobalVar, &Expr, &mut PassCx) -> Result<Expr, PassError> + Sync),
) -> Result<Vec<Expr>, PassError> {
    let funcs: Vec<(&GlobalVar, &Expr)> = m.functions().collect();
    if funcs.len() < 2 {
        // One function gains nothing from a pool: it runs on the calling thread, as it would
        // sequentially (and warms that thread's caches, not a worker's).
        return funcs.iter().map(|(g, e)| body(g, e, cx)).collect();
    }
    let first_failure = AtomicUsize::new(usize::MAX);
    let parent: &PassCx = cx;
    let size = run_size(funcs.len(), threads);
    let run = || {
        funcs
            .par_chunks(size)
            .enumerate()
            .map_init(
                || {
                    let recorder = Arc::new(Recorder::default());
                    let fork = parent.fork(recorder.clone());
                    (recorder, fork, super::run_state::enter_keeping_buffers())
                },
                |(recorder, fork, _state), (k, run)| {
                    crate::ir::sharing::begin();
                    let mut slots = Vec::with_capacity(run.len());
                    for (j, (g, e)) in run.iter().enumerate() {
                        let i = k * size + j;
                        if i > first_failure.load(Ordering::Relaxed) {
                            slots.push(Slot {
                                outcome: Outcome::NotRun,
                                diagnostics: Vec::new(),
                                output: Vec::new(),
                            });
                            continue;
                        }
                        let start = fork.diagnostics_len();
                        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                            body(g, e, fork)
                        }));
                        let outcome = match result {
                            Ok(Ok(new)) => Outcome::Done(new),
                            Ok(Err(err)) => Outcome::Failed(err),
                            Err(payload) => Outcome::Panicked(payload),
                        };
                        if !matches!(outcome, Outcome::Done(_)) {
                            first_failure.fetch_min(i, Ordering::Relaxed);
                        }
                        slots.push(Slot {
                            outcome,
                            diagnostics: fork.take_diagnostics(start),
                            output: recorder.take(),
                        });
                    }
                    slots
                },
            )
            .collect::<Vec<Vec<Slot>>>()
    };
    let slots = match pool(threads) {
        Some(pool) => after_map(&pool, pool.install(run)),
        None => run(),
    };
    let mut out = Vec::with_capacity(funcs.len());
    for slot in slots.into_iter().flatten() {
        for chunk in &slot.output {
            cx.sink().write(Chunk {
                kind: chunk.kind,
                source: &chunk.source,
                text: &chunk.text,
            });
        }
        for d in slot.diagnostics {
            cx.report(d);
        }
        match slot.outcome {
            Outcome::Done(e) => out.push(e),
            Outcome::Failed(err) => return Err(err),
            Outcome::Panicked(payload) => std::panic::resume_unwind(payload),
            Outcome::NotRun => unreachable!("a function after the first failure is not kept"),
        }
    }
    Ok(out)
}

/// Maps a pure `f` (no output, no diagnostics) over `items` on `threads` threads, results in
/// order: for the parts of module passes that are per function (InferType on a module of
/// fully annotated functions, DeadCodeElimination). A panic reaches the caller (one of them,
/// when several functions panic).
pub fn map_pure<T: Sync, R: Send>(
    threads: usize,
    items: &[T],
    f: impl Fn(usize, &T) -> R + Sync,
) -> Vec<R> {
    if items.len() < 2 {
        return items.iter().enumerate().map(|(i, x)| f(i, x)).collect();
    }
    let size = run_size(items.len(), threads);
    let run = || {
        items
            .par_chunks(size)
            .enumerate()
            .map_init(
                super::run_state::enter_keeping_buffers,
                |_state, (k, run)| {
                    crate::ir::sharing::begin();
                    let at = k * size;
                    run.iter()
                        .enumerate()
                        .map(|(j, x)| f(at + j, x))
                        .collect::<Vec<R>>()
                },
            )
            .collect::<Vec<Vec<R>>>()
    };
    let runs = match pool(threads) {
        Some(pool) => after_map(&pool, pool.install(run)),
        None => run(),
    };
    runs.into_iter().flatten().collect()
}

/// Runs per thread: enough for the threads to even out uneven functions.
const RUNS_PER_THREAD: usize = 8;

/// How many consecutive items a worker takes at once: a run, in which equal nodes are shared
/// (each run starts a sharing epoch, see `ir::sharing`).
fn run_size(items: usize, threads: usize) -> usize {
    items.div_ceil(threads * RUNS_PER_THREAD).max(1)
}

/// `result`, once the pool's workers have freed the traversal buffers the map left them: the
/// pool outlives the run, and a session's memory must go when the session does.
fn after_map<R>(pool: &rayon::ThreadPool, result: R) -> R {
    pool.broadcast(|_| crate::ir::scratch::release());
    result
}

/// Stack of each worker thread: the main thread's usual 8 MiB (address space, used on
/// demand), since passes grow their stack only beyond what a main thread has.
const WORKER_STACK: usize = 8 << 20;

/// The pool for `threads` threads (the last one built is kept), or `None` when threads
/// cannot be started: the map then runs on rayon's global pool, which gives the same result.
fn pool(threads: usize) -> Option<Arc<rayon::ThreadPool>> {
    static LAST: Mutex<Option<Arc<rayon::ThreadPool>>> = Mutex::new(None);
    let mut last = super::sink::lock(&LAST);
    if let Some(p) = last.as_ref().filter(|p| p.current_num_threads() == threads) {
        return Some(p.clone());
    }
    let built = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .stack_size(WORKER_STACK)
        .thread_name(|i| format!("passlab-pass-{i}"))
        .build()
        .ok()
        .map(Arc::new);
    if let Some(p) = &built {
        *last = Some(p.clone());
    }
    built
}
