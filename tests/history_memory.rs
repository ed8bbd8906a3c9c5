//! What a run's history costs in heap bytes, counted by a global allocator that tallies every
//! allocation and deallocation (so the numbers do not depend on the OS or on timing): a
//! session holding the input, the output and the history of a 20-pass pipeline stays within
//! 3x the largest single module of that history. Passes that rewrite calls type the new nodes
//! on build, so the InferType after a whole-graph rewrite keeps the graph instead of copying it
//! once more. One test only: the allocator counts the whole process, so nothing else may
//! allocate concurrently.
//! `examples/history_memory.rs` reports the same measure on a 100k-node model.

mod common;

use passlab::session::{Session, Value};
use stats_alloc::{StatsAlloc, INSTRUMENTED_SYSTEM};
use std::alloc::System;

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

fn live() -> isize {
    let s = GLOBAL.stats();
    s.bytes_allocated as isize - s.bytes_deallocated as isize
}

fn ok(s: &mut Session, src: &str) {
    let out = s.execute(src);
    assert!(!out.is_error(), "{src}:\n{}", out.plain());
}

/// A session that parsed conv_model(layers) as `m` and ran `pipeline` over it into `out`.
fn run(layers: usize, def: &str) -> Session {
    let text = passlab::testgen::conv_model(layers);
    let input = passlab::text::parse_module(&text, "conv").expect("conv_model parses");
    drop(text);
    let mut s = Session::new();
    s.set_var("m", Value::Module(input));
    ok(&mut s, def);
    ok(
        &mut s,
        "with PassContext(opt_level=3) { out = pipeline(m) }",
    );
    s
}

#[test]
fn a_history_costs_at_most_three_modules_in_heap_bytes() {
    const LAYERS: usize = 400;
    for (name, def) in passlab::testgen::HISTORY_PIPELINES {
        // Warm up lazily built tables, so they are not counted as the model's.
        drop(run(2, def));

        let base = live();
        let mut s = run(LAYERS, def);
        let kept = common::history_snapshots(&mut s);
        let n = kept.len();
        // A step that returned its input is the same module as the one before it.
        let distinct: Vec<usize> = (0..n)
            .filter(|&k| k == 0 || !kept[k].same_as(&kept[k - 1]))
            .collect();
        drop(kept);
        let with_history = live() - base;
        drop(s);
        assert!(
            live() - base < with_history / 100,
            "{name}: dropping the session frees what it held"
        );

        // Each distinct snapshot alone: the same (deterministic) run again, everything else
        // dropped.
        let mut largest = 0;
        for &k in &distinct {
            let base = live();
            let mut s = run(LAYERS, def);
            let one = common::history_snapshots(&mut s).swap_remove(k);
            drop(s);
            largest = largest.max(live() - base);
            drop(one);
        }
        assert!(
            with_history <= 3 * largest,
            "{name}: the session with {n} snapshots holds {with_history} bytes, the largest \
             module alone {largest}"
        );
    }
}
