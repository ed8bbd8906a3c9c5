//! What keeping a run's history costs: a 20-pass pipeline over `conv_model(17000)` (about
//! 100k expression nodes), counting the unique nodes held by all the modules the history
//! keeps (the input and the module after every pass) against the nodes of one module.
//! Passes rebuild only what they change, so unchanged parts are shared between snapshots.
//!
//! Also printed: the process's resident memory (VmRSS) taken by parsing the model and by
//! the run with its history (run one pipeline per process for a clean number).
//!
//! `cargo run --release --example history_memory [LAYERS] [PIPELINE_INDEX]`

use passlab::ir::visit::post_order_with;
use passlab::ir::Module;
use passlab::session::{Session, Value};
use rustc_hash::FxHashSet;
use std::time::Instant;

/// (name, statements defining `pipeline`): user passes and InferType, then TVM-style
/// standard passes.
const PIPELINES: &[(&str, &str)] = &[
    (
        "user passes + InferType",
        r#"
add_helper = module_pass(name="AddHelper", add="""def @helper(%a: float32) { abs(%a) }""")
no_match = function_pass(name="NoMatch", rewrite=["nn.relu(nn.relu(?x)) => nn.relu(?x)"])
leaky = function_pass(name="LeakyRelu", rewrite=["nn.relu(?x) => nn.leaky_relu(?x)"])
pipeline = Sequential([InferType(), add_helper, no_match, InferType(), no_match, no_match,
  leaky, InferType(), no_match, no_match, InferType(), no_match, no_match, no_match,
  InferType(), no_match, no_match, no_match, no_match, InferType()])
"#,
    ),
    (
        "standard passes",
        r#"
pipeline = Sequential([InferType(), SimplifyInference(), InferType(), FoldConstant(),
  EliminateCommonSubexpr(), DeadCodeElimination(), CanonicalizeOps(), InferType(),
  FoldConstant(), EliminateCommonSubexpr(), DeadCodeElimination(), InferType(),
  SimplifyInference(), FoldConstant(), EliminateCommonSubexpr(), DeadCodeElimination(),
  CanonicalizeOps(), InferType(), FoldConstant(), DeadCodeElimination()])
"#,
    ),
];

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

/// Resident memory in MiB (Linux; 0 elsewhere).
fn rss_mib() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .map(|kb| kb / 1024.0)
        .unwrap_or(0.0)
}

fn main() {
    let mut args = std::env::args().skip(1);
    let layers: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(17000);
    let only: Option<usize> = args.next().and_then(|a| a.parse().ok());
    let text = passlab::testgen::conv_model(layers);
    let before_parse = rss_mib();
    let input = passlab::text::parse_module(&text, "conv_model").expect("conv_model parses");
    let parsed = rss_mib() - before_parse;
    drop(text);
    println!(
        "conv_model({layers}): {} nodes, {parsed:.0} MiB resident after parsing",
        nodes(std::slice::from_ref(&input))
    );
    for (i, (name, def)) in PIPELINES.iter().enumerate() {
        if only.is_some_and(|o| o != i) {
            continue;
        }
        let before_run = rss_mib();
        let mut s = Session::new();
        s.set_var("m", Value::Module(input.clone()));
        run(&mut s, def);
        let t = Instant::now();
        run(&mut s, "out = pipeline(m)");
        let elapsed = t.elapsed();
        let mut kept = vec![module(&s, "m")];
        for k in 1..=20 {
            run(&mut s, &format!("h = history[{k}]"));
            kept.push(module(&s, "h"));
        }
        let one = kept
            .iter()
            .map(|m| nodes(std::slice::from_ref(m)))
            .max()
            .unwrap_or(0);
        let all = nodes(&kept);
        let run_mib = rss_mib() - before_run;
        let changed = (1..kept.len())
            .filter(|&k| !kept[k].same_as(&kept[k - 1]))
            .count();
        println!(
            "{name}: 20 passes ({changed} returned a new module) in {:.2?}; the history keeps \
             {all} unique nodes for 21 modules, the largest module has {one}: {:.2}x \
             ({:.2}x the input); the run and its history took {run_mib:.0} MiB resident",
            elapsed,
            all as f64 / one as f64,
            all as f64 / nodes(&kept[..1]) as f64
        );
    }
}
