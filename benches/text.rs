//! Parse and print throughput (MB/s of Relay text) on the largest corpus program and on
//! generated models of about 10k and 100k nodes; and the line diff PrintChanged and `diff`
//! show, of a conv model before and after SimplifyInference (which rewrites every block and
//! renumbers every line after the first), exact and up to renumbering, at 10k and 100k ops.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use passlab::text::{parse_module, print_module};
use std::hint::black_box;

fn inputs() -> Vec<(String, String)> {
    let corpus = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/relay");
    let mut v = vec![
        (
            "conv_model_10k".to_string(),
            passlab::testgen::conv_model(400),
        ),
        (
            "conv_model_100k".to_string(),
            passlab::testgen::conv_model(4000),
        ),
    ];
    if let Ok(t) = std::fs::read_to_string(corpus.join("glenside_transformer.relay")) {
        v.insert(0, ("glenside_transformer".to_string(), t));
    }
    v
}

fn bench(c: &mut Criterion) {
    for (name, text) in inputs() {
        let mut g = c.benchmark_group(format!("text/{name}"));
        g.throughput(Throughput::Bytes(text.len() as u64));
        g.sample_size(20);
        g.bench_function("parse", |b| {
            b.iter(|| parse_module(black_box(&text), "bench").unwrap())
        });
        let m = parse_module(&text, "bench").unwrap();
        let printed = print_module(&m);
        g.throughput(Throughput::Bytes(printed.len() as u64));
        g.bench_function("print", |b| b.iter(|| print_module(black_box(&m))));
        g.finish();
    }
}

fn bench_diff(c: &mut Criterion) {
    use passlab::passes::{infer_type::infer_module, simplify_inference::simplify_inference};
    use passlab::text::diff::{unified_diff, Lines};
    for (name, layers) in [("conv_10k", 1_667), ("conv_100k", 16_667)] {
        let m = parse_module(&passlab::testgen::conv_model(layers), "bench").unwrap();
        let typed = infer_module(&m).unwrap();
        let (old, new) = (
            print_module(&typed),
            print_module(&simplify_inference(&typed)),
        );
        let mut g = c.benchmark_group(format!("diff/{name}"));
        g.sample_size(10);
        for how in [Lines::Exact, Lines::Renumbered] {
            g.bench_function(format!("{how:?}"), |b| {
                b.iter(|| unified_diff(black_box(&old), black_box(&new), "a", "b", how))
            });
        }
        g.finish();
    }
}

criterion_group!(benches, bench, bench_diff);
criterion_main!(benches);
