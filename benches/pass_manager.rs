//! Pass-manager overhead: a Sequential of 10,000 no-op passes, with no instrument and with
//! `PassTimingInstrument`. Two kinds of no-op: a module pass returning its input, and an empty
//! Sequential (what TVM's peer benchmark uses). TVM 0.27 needs 490–690 ns per pass without
//! instruments and 700–1,800 ns with timing on this VM; passlab's budget (20x and 10x lower
//! than TVM at its quietest) is 24 ns and 70 ns.
//!
//! Criterion reports the time of one run of the whole Sequential (10,000 passes, plus the
//! Sequential itself); the summary printed at the end gives ns per pass (best and median of
//! 50 runs). Run only the summary with `cargo bench --bench pass_manager -- summary-only`.

use criterion::{black_box, criterion_group, BatchSize, BenchmarkId, Criterion, Throughput};
use passlab::instrument::PassTimingInstrument;
use passlab::ir::Module;
use passlab::pass::{module_pass, Pass, PassContext, PassInfo, PassManager, Sequential};
use std::sync::Arc;
use std::time::Instant;

const N: usize = 10_000;

const MAIN: &str = r#"#[version = "0.0.5"]
def @main(%x: Tensor[(2, 2), float32]) {
  add(%x, %x)
}
"#;

fn pipeline(kind: &str) -> Pass {
    let child = match kind {
        "noop_pass" => module_pass(PassInfo::new("NoOp", 0), |m, _| Ok(m.clone())),
        _ => Sequential::with_info(PassInfo::new("Empty", 0), vec![]).into_pass(),
    };
    Sequential::new(vec![child; N]).into_pass()
}

/// A manager inside a context with or without a timing instrument.
fn setup(timing: bool) -> (PassManager, Option<Arc<PassTimingInstrument>>) {
    let mut pm = PassManager::new(passlab::passes::registry());
    let t = timing.then(|| Arc::new(PassTimingInstrument::new()));
    let mut b = PassContext::builder();
    if let Some(t) = &t {
        b = b.instrument(t.clone());
    }
    pm.enter(&b.build().unwrap()).unwrap();
    (pm, t)
}

fn module() -> Module {
    passlab::text::parse_module(MAIN, "bench").unwrap()
}

const CASES: [(&str, bool); 4] = [
    ("noop_pass", false),
    ("noop_pass", true),
    ("empty_sequential", false),
    ("empty_sequential", true),
];

fn bench(c: &mut Criterion) {
    let m = module();
    let mut group = c.benchmark_group("pass_manager");
    group.throughput(Throughput::Elements(N as u64));
    for (kind, timing) in CASES {
        let seq = pipeline(kind);
        let (pm, t) = setup(timing);
        let label = if timing { "timing" } else { "no_instruments" };
        group.bench_function(BenchmarkId::new(kind, label), |b| {
            // Timing records grow with every run: start each run from an empty table.
            b.iter_batched(
                || {
                    if let Some(t) = &t {
                        t.clear();
                    }
                },
                |_| pm.run(black_box(&seq), black_box(&m)).unwrap(),
                BatchSize::PerIteration,
            )
        });
    }
    group.finish();
}

/// The best and the median of 50 runs, in ns per pass invocation (the 10,000 children and
/// the Sequential).
fn ns_per_pass(kind: &str, timing: bool) -> (f64, f64) {
    let seq = pipeline(kind);
    let m = module();
    let (pm, t) = setup(timing);
    let mut samples = Vec::new();
    for _ in 0..50 {
        if let Some(t) = &t {
            t.clear();
        }
        let start = Instant::now();
        black_box(pm.run(&seq, &m).unwrap());
        samples.push(start.elapsed().as_nanos() as f64 / (N + 1) as f64);
    }
    samples.sort_by(f64::total_cmp);
    (samples[0], samples[samples.len() / 2])
}

criterion_group!(benches, bench);

fn main() {
    benches();
    Criterion::default().configure_from_args().final_summary();
    for (kind, timing) in CASES {
        let label = if timing {
            "with PassTimingInstrument"
        } else {
            "without instruments"
        };
        let (best, median) = ns_per_pass(kind, timing);
        println!("pass_manager {kind}: {best:.1} ns/pass {label} (best of 50; median {median:.1})");
    }
}
