//! Every standard pass on generated models of about 10k and 100k ops and on the largest
//! programs of the shared corpus, and the cost of the Stats and PrintChanged instruments on a
//! pipeline.
//!
//! Models: `peer` is the TVM peer's model (`shared/peers/tvm/model.py`, eight calls a layer:
//! 1,250 layers = 10k ops, 12,500 = 100k), `conv` the ResNet-like `testgen::conv_model` (six
//! calls a layer: 1,667 / 16,667 layers), which has the batch norms, convolutions and biases
//! that SimplifyInference, FoldScaleAxis, CanonicalizeOps, FuseOps and ConvertLayout work on,
//! and `rnn` the unrolled LSTM of `testgen::rnn_model` (nineteen ops a step: 527 / 5,264
//! steps), whose states are used by the next step and by the final result. Corpus programs:
//! the four largest that type-check (`corpus_<name>`, read from `../shared/corpus/relay`;
//! skipped with a note when that directory is missing). Each module is typed once first
//! (InferType itself is measured on the untyped module), as in `passlab bench`.
//!
//! `cargo bench --bench passes` runs everything (a few minutes); filter with a substring,
//! e.g. `cargo bench --bench passes -- FuseOps` or `-- 100k`. The growth figure the goal
//! asks for is the ratio of the 100k and 10k medians of each pass.

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use passlab::instrument::{PrintChanged, Stats};
use passlab::ir::Module;
use passlab::pass::{NullSink, PassContext, PassManager, PassOptions, Sequential};
use passlab::passes::BUILTIN_PASSES;
use passlab::testgen;
use passlab::text::parse_module;
use std::sync::Arc;
use std::time::Duration;

#[global_allocator]
static GLOBAL: passlab_alloc::MiMalloc = passlab_alloc::MiMalloc;

/// (label, ops, untyped module).
fn models() -> Vec<(String, usize, Module)> {
    let mut v = Vec::new();
    for (ops, layers) in [(10_000, 1_250), (100_000, 12_500)] {
        let text = testgen::peer_model(layers, 64);
        v.push((format!("peer_{}k", ops / 1000), ops, parse(&text)));
    }
    for (ops, layers) in [(10_000, 1_667), (100_000, 16_667)] {
        let text = testgen::conv_model(layers);
        v.push((format!("conv_{}k", ops / 1000), ops, parse(&text)));
    }
    for (ops, steps) in [(10_000, 527), (100_000, 5_264)] {
        let text = testgen::rnn_model(steps);
        v.push((format!("rnn_{}k", ops / 1000), ops, parse(&text)));
    }
    v.extend(corpus_programs());
    v
}

/// The largest programs of the shared corpus (by text size) that type-check: a transformer,
/// a MobileNet, an LSTM and a ResNet, as published (glenside's models).
const CORPUS: [&str; 4] = [
    "glenside_transformer",
    "glenside_mobilenet_simplified",
    "glenside_lstm",
    "glenside_resnet_simplified",
];

/// (label, calls, untyped module) for each [`CORPUS`] program found.
fn corpus_programs() -> Vec<(String, usize, Module)> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/relay");
    let mut v = Vec::new();
    for name in CORPUS {
        let path = dir.join(format!("{name}.relay"));
        match std::fs::read_to_string(&path) {
            Ok(text) => {
                let m = parse(&text);
                let calls = m
                    .functions()
                    .map(|(_, f)| {
                        let mut n = 0;
                        passlab::ir::visit::post_order(f, |e| {
                            n += usize::from(e.as_call().is_some())
                        });
                        n
                    })
                    .sum();
                v.push((format!("corpus_{name}"), calls, m));
            }
            Err(e) => eprintln!("skipping {}: {e}", path.display()),
        }
    }
    v
}

fn parse(text: &str) -> Module {
    parse_module(text, "bench").expect("generated models parse")
}

fn bench_passes(c: &mut Criterion) {
    let pm = PassManager::new(passlab::passes::registry());
    let infer = pm.create("InferType", &PassOptions::new()).unwrap();
    for (label, ops, untyped) in models() {
        let typed = pm
            .run(&infer, &untyped)
            .expect("the benchmark's models type-check");
        let mut g = c.benchmark_group(format!("passes/{label}"));
        g.throughput(Throughput::Elements(ops as u64));
        g.sample_size(10);
        g.warm_up_time(Duration::from_millis(500));
        g.measurement_time(Duration::from_secs(if ops > 10_000 { 4 } else { 2 }));
        for entry in BUILTIN_PASSES {
            if entry.name == "PrintIR" {
                continue;
            }
            let pass = pm.create(entry.name, &PassOptions::new()).unwrap();
            let input = if entry.name == "InferType" {
                &untyped
            } else {
                &typed
            };
            // A pass that rejects a corpus program (none of the four today) is reported and
            // skipped rather than timed failing.
            if let Err(e) = pm.run(&pass, input) {
                eprintln!("skipping {} on {label}: {e}", entry.name);
                continue;
            }
            // The output is dropped outside the timed region.
            g.bench_function(entry.name, |b| {
                b.iter_batched(
                    || (),
                    |()| pm.run(&pass, input).expect("the pass succeeds"),
                    BatchSize::PerIteration,
                )
            });
        }
        g.finish();
    }
}

/// A three-pass pipeline on the 10k-op conv model, bare and under Stats / PrintChanged (whose
/// diffs go to a sink that drops them, so only the instruments' own work is measured).
fn bench_instruments(c: &mut Criterion) {
    let text = testgen::conv_model(1_667);
    let m = parse(&text);
    let mut pm = PassManager::new(passlab::passes::registry()).with_sink(Arc::new(NullSink));
    let infer = pm.create("InferType", &PassOptions::new()).unwrap();
    let typed = pm.run(&infer, &m).unwrap();
    let seq = Sequential::new(
        [
            "FoldConstant",
            "EliminateCommonSubexpr",
            "SimplifyInference",
        ]
        .iter()
        .map(|n| pm.create(n, &PassOptions::new()).unwrap())
        .collect(),
    )
    .into_pass();
    let mut g = c.benchmark_group("instruments/conv_10k");
    g.sample_size(10);
    g.warm_up_time(Duration::from_millis(500));
    for (name, ctx) in [
        ("none", PassContext::builder().build().unwrap()),
        (
            "Stats",
            PassContext::builder()
                .instrument(Arc::new(Stats::new()))
                .build()
                .unwrap(),
        ),
        (
            "PrintChanged",
            PassContext::builder()
                .instrument(Arc::new(PrintChanged::new()))
                .build()
                .unwrap(),
        ),
    ] {
        g.bench_function(name, |b| {
            b.iter_batched(
                || (),
                |()| {
                    pm.with_context(&ctx, |pm| pm.run(&seq, &typed))
                        .expect("the pipeline succeeds")
                },
                BatchSize::PerIteration,
            )
        });
    }
    g.finish();
}

criterion_group!(benches, bench_passes, bench_instruments);
criterion_main!(benches);
