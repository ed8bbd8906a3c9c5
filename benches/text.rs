//! Parse and print throughput (MB/s of Relay text) on the largest corpus program and on
//! generated models of about 10k and 100k nodes.

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

criterion_group!(benches, bench);
criterion_main!(benches);
