//! What keeping a run's history costs: a 20-pass pipeline over `conv_model` (100k expression
//! nodes by default), measured two ways.
//!
//! - Heap bytes, counted by a global allocator that tallies every allocation and
//!   deallocation (`stats_alloc`): the live bytes of the parsed input alone, of the output
//!   alone (everything else dropped), and of a session that holds the input, the output and
//!   the run's history (the input and the module after every pass). The ratio compares the
//!   session with the larger of the two single modules.
//! - Unique expression nodes reachable from all the snapshots the history keeps, against the
//!   largest snapshot (the measure `tests/debug.rs` guards, since it does not depend on the
//!   allocator).
//!
//! Passes rebuild only what they change and a pass with nothing to change returns its input,
//! so unchanged functions and subexpressions are shared between snapshots; passes that build
//! calls type them on build, so the InferType after a rewrite keeps the rewritten graph. Exits
//! with status 1 when the bytes ratio exceeds 3 (the goal) or the nodes ratio 3.25 (the bound
//! `tests/debug.rs` guards).
//!
//! With `--steps`, also what each step adds: the history table, then per step the nodes no
//! earlier snapshot has and the bytes freed when that snapshot is dropped last-first (the
//! bytes only it holds), which shows the passes that copy the graph.
//!
//! `cargo run --release --example history_memory [--steps] [LAYERS] [PIPELINE_INDEX]`

use passlab::ir::visit::post_order_with;
use passlab::ir::Module;
use passlab::session::{Session, Value};
use passlab::testgen::HISTORY_PIPELINES;
use rustc_hash::FxHashSet;
use stats_alloc::{StatsAlloc, INSTRUMENTED_SYSTEM};
use std::alloc::System;
use std::time::Instant;

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

/// conv_model(9091) has 100,009 expression nodes (11 per layer).
const LAYERS: usize = 9091;

/// Live heap bytes of the whole process.
fn live() -> isize {
    let s = GLOBAL.stats();
    s.bytes_allocated as isize - s.bytes_deallocated as isize
}

fn mib(bytes: isize) -> f64 {
    bytes as f64 / (1024.0 * 1024.0)
}

/// Unique expression nodes reachable from the modules (shared nodes count once).
fn nodes(modules: &[Module]) -> usize {
    let mut seen = FxHashSet::default();
    let mut n = 0;
    for m in modules {
        for (_, f) in m.functions() {
            post_order_with(f, &mut seen, &mut |_| n += 1);
        }
    }
    n
}

fn module(s: &Session, name: &str) -> Module {
    match s.var(name) {
        Some(Value::Module(m)) => m.clone(),
        _ => panic!("{name} is not a module"),
    }
}

fn run(s: &mut Session, src: &str) {
    let out = s.execute(src);
    assert!(!out.is_error(), "{}", out.plain());
}

/// Runs `pipeline` over `input` in a session, as a user would (`out = pipeline(m)`).
fn session_with_run(input: Module, def: &str) -> Session {
    let mut s = Session::new();
    s.set_var("m", Value::Module(input));
    run(&mut s, def);
    run(
        &mut s,
        "with PassContext(opt_level=3) {\n  out = pipeline(m)\n}",
    );
    s
}

/// The modules the session's history keeps: history[0] (the input) to history[n].
fn snapshots(s: &mut Session) -> Vec<Module> {
    let mut kept = Vec::new();
    while !s
        .execute(&format!("h = history[{}]", kept.len()))
        .is_error()
    {
        kept.push(module(s, "h"));
    }
    run(s, "h = None");
    kept
}

struct Measured {
    passes: usize,
    changed: usize,
    /// The parsed input alone.
    input_bytes: isize,
    /// The session holding `m`, `out`, `pipeline` and the run's history.
    history_bytes: isize,
    nodes_all: usize,
    nodes_largest: usize,
    /// The snapshot with the most nodes (history[k]).
    largest: usize,
}

/// Parses conv_model(layers), runs the pipeline in a session and measures it.
fn measure(layers: usize, def: &str) -> Measured {
    let base = live();
    let input = {
        let text = passlab::testgen::conv_model(layers);
        passlab::text::parse_module(&text, "conv_model").expect("conv_model parses")
    };
    let input_bytes = live() - base;
    let mut s = session_with_run(input, def);
    let kept = snapshots(&mut s);
    let sizes: Vec<usize> = kept
        .iter()
        .map(|m| nodes(std::slice::from_ref(m)))
        .collect();
    let largest = (0..sizes.len()).max_by_key(|&k| sizes[k]).unwrap_or(0);
    let m = Measured {
        passes: kept.len() - 1,
        changed: (1..kept.len())
            .filter(|&k| !kept[k].same_as(&kept[k - 1]))
            .count(),
        input_bytes,
        history_bytes: 0,
        nodes_all: nodes(&kept),
        nodes_largest: sizes[largest],
        largest,
    };
    drop(kept);
    Measured {
        history_bytes: live() - base,
        ..m
    }
}

/// The bytes of history[k] alone: the same run again, then everything but that module
/// dropped (its nodes are then held by nothing else).
fn snapshot_bytes(layers: usize, def: &str, k: usize) -> isize {
    let base = live();
    let input = passlab::text::parse_module(&passlab::testgen::conv_model(layers), "conv_model")
        .expect("conv_model parses");
    let mut s = session_with_run(input, def);
    let one = snapshots(&mut s).swap_remove(k);
    drop(s);
    let bytes = live() - base;
    drop(one);
    bytes
}

/// Prints the run's history table and, per step, the nodes and bytes it adds.
fn steps(layers: usize, def: &str) {
    let input = passlab::text::parse_module(&passlab::testgen::conv_model(layers), "conv_model")
        .expect("conv_model parses");
    let mut s = session_with_run(input, def);
    println!("{}", s.execute("history").plain().trim_end());
    let mut kept = snapshots(&mut s);
    drop(s);
    let mut seen = FxHashSet::default();
    let added: Vec<usize> = kept
        .iter()
        .map(|m| {
            let mut n = 0;
            for (_, f) in m.functions() {
                post_order_with(f, &mut seen, &mut |_| n += 1);
            }
            n
        })
        .collect();
    let mut freed = vec![0; kept.len()];
    for k in (0..kept.len()).rev() {
        let before = live();
        kept.pop();
        freed[k] = before - live();
    }
    for (k, (n, b)) in added.iter().zip(&freed).enumerate() {
        if *n > 0 || *b >= 1024 {
            println!("  history[{k}] adds {n} nodes, {:.2} MiB", mib(*b));
        }
    }
}

fn main() {
    let show_steps = std::env::args().any(|a| a == "--steps");
    let mut args = std::env::args().skip(1).filter(|a| a != "--steps");
    let layers: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(LAYERS);
    let only: Option<usize> = args.next().and_then(|a| a.parse().ok());
    let mut over = false;
    for (i, (name, def)) in HISTORY_PIPELINES.iter().enumerate() {
        if only.is_some_and(|o| o != i) {
            continue;
        }
        // Warm up: lazily built tables (op registry, pass registry) are not the model's cost.
        let _ = measure(2, def);
        let t = Instant::now();
        let m = measure(layers, def);
        let elapsed = t.elapsed();
        let output_bytes = snapshot_bytes(layers, def, m.passes);
        let largest_bytes = if m.largest == m.passes {
            output_bytes
        } else {
            snapshot_bytes(layers, def, m.largest)
        };
        let one = m.input_bytes.max(output_bytes).max(largest_bytes);
        let bytes_ratio = m.history_bytes as f64 / one as f64;
        let nodes_ratio = m.nodes_all as f64 / m.nodes_largest as f64;
        println!(
            "{name}, conv_model({layers}): {} passes ran, {} returned a new module ({elapsed:.1?})\n\
             \x20 heap: input {:.1} MiB, output {:.1} MiB, largest module (history[{}]) {:.1} MiB; \
             a session holding input, output and history {:.1} MiB = {bytes_ratio:.2}x one module\n\
             \x20 nodes: {} unique in {} snapshots, the largest has {} = {nodes_ratio:.2}x",
            m.passes,
            m.changed,
            mib(m.input_bytes),
            mib(output_bytes),
            m.largest,
            mib(largest_bytes),
            mib(m.history_bytes),
            m.nodes_all,
            m.passes + 1,
            m.nodes_largest,
        );
        // The goal is 3x in bytes (benches/README.md has the figures); nodes are guarded at
        // 3.25x as in tests/debug.rs.
        over |= bytes_ratio > 3.0 || nodes_ratio > 3.25;
        if show_steps {
            steps(layers, def);
        }
    }
    if over {
        eprintln!(
            "error: keeping the history costs more than 3x one module (bytes) or 3.25x (nodes)"
        );
        std::process::exit(1);
    }
}
