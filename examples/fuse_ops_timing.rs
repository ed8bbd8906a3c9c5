//! How long FuseOps takes on generated ResNet-like models (`testgen::conv_model`): parse,
//! type, then time `FuseOps(fuse_opt_level=2)` alone (best of a few runs) and report the
//! groups it made. Run in release: `cargo run --release --example fuse_ops_timing [layers...]`.

use passlab::ir::visit::post_order;
use passlab::ir::ExprKind;
use passlab::passes::fuse_ops::{fuse_module, FuseConfig};
use passlab::passes::infer_type::infer_module;
use passlab::testgen::conv_model;
use passlab::text::parse_module;
use std::time::Instant;

fn main() {
    let sizes: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let sizes = if sizes.is_empty() {
        vec![1000, 10000]
    } else {
        sizes
    };
    for layers in sizes {
        let text = conv_model(layers);
        let m = parse_module(&text, "conv_model").expect("parses");
        let typed = infer_module(&m).expect("types");
        let mut nodes = 0;
        post_order(typed.get("main").unwrap(), |_| nodes += 1);
        let mut best = f64::MAX;
        let mut out = typed.clone();
        for _ in 0..3 {
            let t = Instant::now();
            out = fuse_module(&typed, FuseConfig::new(2));
            best = best.min(t.elapsed().as_secs_f64());
        }
        let mut groups = 0;
        post_order(out.get("main").unwrap(), |e| {
            if let ExprKind::Function(f) = e.kind() {
                groups += f.attr("Primitive").is_some() as usize;
            }
        });
        println!(
            "conv_model({layers}): {nodes} nodes, FuseOps(2) best of 3: {:.1} ms ({:.0} ns/node), {groups} fused functions",
            best * 1e3,
            best * 1e9 / nodes as f64
        );
    }
}
