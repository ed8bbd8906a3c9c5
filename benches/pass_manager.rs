//! Pass-manager overhead: a Sequential of 10,000 no-op passes, with no instrument and with
//! `PassTimingInstrument`. TVM 0.27 needs about 800 ns per pass without instruments and about
//! 1,800 ns with timing; passlab's budget is 40 ns and 180 ns. Criterion reports the time of
//! one Sequential run; `ns/pass` is that divided by 10,000 (printed at the end as well).

use criterion::{black_box, criterion_group, BenchmarkId, Criterion, Throughput};
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

fn pipeline() -> Pass {
    let noop = module_pass(PassInfo::new("NoOp", 0), |m, _| Ok(m.clone()));
    Sequential::new(vec![noop; N]).into_pass()
}

fn setup(timing: bool) -> (PassManager, PassContext) {
    let mut b = PassContext::builder();
    if timing {
        b = b.instrument(Arc::new(PassTimingInstrument::new()));
    }
    let ctx = b.build().unwrap();
    let mut pm = PassManager::new();
    pm.enter(&ctx).unwrap();
    (pm, ctx)
}

fn module() -> Module {
    passlab::text::parse_module(MAIN, "bench").unwrap()
}

fn bench(c: &mut Criterion) {
    let seq = pipeline();
    let m = module();
    let mut group = c.benchmark_group("pass_manager");
    group.throughput(Throughput::Elements(N as u64));
    for timing in [false, true] {
        let (pm, _ctx) = setup(timing);
        let label = if timing { "timing" } else { "no_instruments" };
        group.bench_function(BenchmarkId::new("sequential_10k_noop", label), |b| {
            b.iter(|| pm.run(black_box(&seq), black_box(&m)).unwrap())
        });
    }
    group.finish();
}

/// A plain measurement printed as ns per pass, for the summary line.
fn ns_per_pass(timing: bool) -> f64 {
    let seq = pipeline();
    let m = module();
    let (pm, ctx) = setup(timing);
    let runs = 50;
    let mut best = f64::MAX;
    for _ in 0..runs {
        // Timing records grow with every run; start each from an empty table.
        if timing {
            pm.override_instruments_of(&ctx, vec![Arc::new(PassTimingInstrument::new())])
                .unwrap();
        }
        let t = Instant::now();
        black_box(pm.run(&seq, &m).unwrap());
        best = best.min(t.elapsed().as_nanos() as f64 / (N + 1) as f64);
    }
    best
}

criterion_group!(benches, bench);

fn main() {
    benches();
    Criterion::default().configure_from_args().final_summary();
    println!(
        "pass_manager: {:.1} ns/pass without instruments, {:.1} ns/pass with PassTimingInstrument (best of 50 runs of {N} passes)",
        ns_per_pass(false),
        ns_per_pass(true)
    );
}
