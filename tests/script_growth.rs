//! A script's cost is linear in its statements: running N statements allocates about N times
//! what one does. (Each statement once cost a copy of the script up to it, and a copy of every
//! variable: 50,000 statements took minutes.) Counted in bytes allocated, which is the same on
//! any host, not in time.

use passlab::session::{replay, Session};
use stats_alloc::{StatsAlloc, INSTRUMENTED_SYSTEM};
use std::alloc::System;

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

/// Bytes allocated while running a script of `n` statements: each binds a new variable, and
/// every tenth applies a pass inside a `with` block (a statement of several lines).
fn bytes_for(n: usize) -> usize {
    let mut text = String::from("m = parse(\"\"\"def @main(%x: float32) { add(%x, 1f) }\"\"\")\n");
    for i in 0..n {
        if i % 10 == 0 {
            text.push_str(&format!(
                "with PassContext() {{\n  y{i} = FoldConstant()(m)\n}}\n"
            ));
        } else {
            text.push_str(&format!("x{i} = [{i}, \"{i}\"]\n"));
        }
    }
    let mut s = Session::new();
    let before = GLOBAL.stats().bytes_allocated;
    let report = replay::run(&mut s, &text, false, |_| {});
    let after = GLOBAL.stats().bytes_allocated;
    assert_eq!(report.errors, 0, "{}", report.text);
    drop(s);
    after - before
}

#[test]
fn a_script_costs_what_its_statements_cost() {
    let small = bytes_for(1_000);
    let large = bytes_for(10_000);
    let ratio = large as f64 / small as f64;
    eprintln!("1,000 statements: {small} bytes; 10,000: {large} bytes ({ratio:.2}x)");
    assert!(
        ratio < 12.0,
        "10x the statements allocated {ratio:.1}x the bytes ({small} -> {large})"
    );
}
