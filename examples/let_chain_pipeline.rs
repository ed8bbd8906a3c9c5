//! Issue 9's end-to-end goal: a 1,000,000-deep let chain through parse, InferType,
//! FoldConstant, DeadCodeElimination and print, timed stage by stage (release build).
//! Run: `cargo run --release --example let_chain_pipeline -- 1000000` (default 100,000).

use passlab::passes::{dead_code, fold_constant, infer_type};
use passlab::testgen;
use passlab::text::{parse_module, print_module};
use std::time::Instant;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(100_000);
    let text = testgen::let_chain(n);
    let total = Instant::now();
    let mut t = Instant::now();
    let mut lap = |stage: &str| {
        println!("{stage:<20} {:>8.0} ms", t.elapsed().as_secs_f64() * 1e3);
        t = Instant::now();
    };
    let m = parse_module(&text, "let_chain").expect("parses");
    lap("parse");
    let m = infer_type::infer_module(&m).expect("types");
    lap("InferType");
    let m = fold_constant::fold_constant(&m);
    lap("FoldConstant");
    let m = dead_code::dead_code_elimination(&m, false, false);
    lap("DeadCodeElimination");
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
