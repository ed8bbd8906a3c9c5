//! The end-to-end goal (under 5 s): a 1,000,000-deep let chain through parse, InferType,
//! FoldConstant, DeadCodeElimination and print, timed stage by stage (release build).
//! Run: `cargo run --release --example let_chain_pipeline -- 1000000` (default 100,000).
//! Each stage replaces the previous stage's module, so its time includes dropping the old one
//! (where the new module shares nothing with it). A second argument stops after that stage
//! (`parse`, `InferType`, ...), for profiling one stage at a time.

use passlab::passes::{dead_code, fold_constant, infer_type};
use passlab::testgen;
use passlab::text::{parse_module, print_module};
use std::time::Instant;

#[global_allocator]
static GLOBAL: passlab_alloc::MiMalloc = passlab_alloc::MiMalloc;

/// The process's resident and peak resident memory (Linux; empty elsewhere): on a VM whose
/// fresh pages are slow to fault in, new memory is a large part of a stage's time.
fn memory() -> String {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.trim().strip_suffix(" kB"))
            .and_then(|v| v.trim().parse::<u64>().ok())
            .map(|kb| format!("{:>6} MB", kb / 1024))
    };
    match (field("VmRSS:"), field("VmHWM:")) {
        (Some(rss), Some(peak)) => format!("rss {rss}  peak {peak}"),
        _ => String::new(),
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let n: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(100_000);
    let until = args.next();
    let text = testgen::let_chain(n);
    let total = Instant::now();
    let mut t = Instant::now();
    let mut lap = |stage: &str| -> bool {
        let ms = t.elapsed().as_secs_f64() * 1e3;
        println!("{stage:<20} {ms:>8.0} ms  {}", memory());
        t = Instant::now();
        until.as_deref() == Some(stage)
    };
    let mut m = parse_module(&text, "let_chain").expect("parses");
    if lap("parse") {
        return;
    }
    m = infer_type::infer_module(&m).expect("types");
    if lap("InferType") {
        return;
    }
    m = fold_constant::fold_constant(&m);
    if lap("FoldConstant") {
        return;
    }
    m = dead_code::dead_code_elimination(&m, false, false);
    if lap("DeadCodeElimination") {
        return;
    }
    let out = print_module(&m);
    lap("print");
    drop(m);
    lap("drop");
    println!(
        "{:<20} {:>8.0} ms  ({n} lets, {} bytes printed)",
        "total",
        total.elapsed().as_secs_f64() * 1e3,
        out.len()
    );
}
