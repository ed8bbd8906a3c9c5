//! The reference evaluator and FoldConstant on ResNet-50 with its 25.5M weights as constants
//! (`testgen::resnet50`), and the evaluator on the generated conv model.
//!
//! - `fold_weights`: FoldConstant on the module as FoldScaleAxis leaves it for FoldConstant
//!   (InferType, SimplifyInference, BackwardFoldScaleAxis, ForwardFoldScaleAxis): every
//!   convolution's weights multiplied by its batch norm's scale, every bias computed, i.e.
//!   the whole weight set folded once. The goal is 100x faster than TVM's FoldConstant on
//!   the same model (`shared/peers/tvm/compare_onnx.sh`; benches/README has the figures).
//! - `evaluate_resnet50`: `@main` of the typed module on one seeded 1x3x224x224 image
//!   (about 4.1 GFLOP), and of the folded module (the same numbers, within float32 rounding:
//!   checked here).
//! - `evaluate_conv_1k`: `testgen::conv_model(1000)` (6,000 ops on 1x16x32x32 tensors).
//!
//! `cargo bench --bench evaluate` prints the median and range of a few runs of each (the runs
//! are long, so no criterion sampling); `-- NAME` runs the ones whose name contains NAME.

use passlab::eval::{compare, evaluate, random, Output};
use passlab::ir::Module;
use passlab::pass::{NullSink, PassManager};
use passlab::text::metadata::MetaTable;
use passlab::text::{parse_module, parse_module_with_meta};
use std::sync::Arc;
use std::time::{Duration, Instant};

#[global_allocator]
static GLOBAL: passlab_alloc::MiMalloc = passlab_alloc::MiMalloc;

fn time<R>(label: &str, runs: usize, mut f: impl FnMut() -> R) -> R {
    let mut times: Vec<Duration> = Vec::new();
    let mut last = None;
    for _ in 0..runs {
        let t = Instant::now();
        let r = f();
        times.push(t.elapsed());
        last = Some(r);
    }
    times.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!(
        "{label:<28} median {:>9.2} ms   min {:>9.2}   max {:>9.2}   ({runs} runs)",
        ms(times[runs / 2]),
        ms(times[0]),
        ms(times[runs - 1])
    );
    last.expect("at least one run")
}

fn run_passes(pm: &PassManager, m: &Module, names: &[&str]) -> Module {
    let mut m = m.clone();
    for n in names {
        let p = pm.pass(n).expect("a registered pass");
        m = pm.run(&p, &m).expect("the pass runs");
    }
    m
}

fn main() {
    passlab_alloc::configure();
    let filter: Option<String> = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    let wanted = |name: &str| filter.as_deref().is_none_or(|f| name.contains(f));
    let pm = PassManager::new(passlab::passes::registry()).with_sink(Arc::new(NullSink));

    if wanted("fold_weights") || wanted("evaluate_resnet50") {
        let (text, consts) = passlab::testgen::resnet50();
        let table = MetaTable {
            constants: consts.into_iter().map(|t| Some(Arc::new(t))).collect(),
            ..Default::default()
        };
        let m = parse_module_with_meta(&text, "resnet50", Some(&table)).expect("parses");
        let typed = run_passes(&pm, &m, &["InferType"]);
        let prepared = run_passes(
            &pm,
            &typed,
            &[
                "SimplifyInference",
                "InferType",
                "BackwardFoldScaleAxis",
                "InferType",
                "ForwardFoldScaleAxis",
                "InferType",
            ],
        );
        let fold = pm.pass("FoldConstant").expect("registered");
        let folded = if wanted("fold_weights") {
            time("fold_weights (ResNet-50)", 5, || {
                pm.run(&fold, &prepared).expect("folds")
            })
        } else {
            pm.run(&fold, &prepared).expect("folds")
        };
        if wanted("evaluate_resnet50") {
            let main = typed.get("main").expect("@main");
            let inputs = random::inputs_for(main, 0).expect("inputs");
            let refs: Vec<_> = inputs.iter().collect();
            let a = time("evaluate_resnet50", 3, || {
                evaluate(&typed, "main", &refs).expect("evaluates")
            });
            let b = time("evaluate_resnet50 (folded)", 3, || {
                evaluate(&folded, "main", &refs).expect("evaluates")
            });
            match compare::outputs(&b, &a, 1e-4, 1e-5, false) {
                None => {
                    println!("  the folded module computes the same logits (rtol 1e-4, atol 1e-5)")
                }
                Some(d) => println!("  the folded module differs: {d}"),
            }
            if let Output::Tensor(t) = &a {
                println!("  logits {:?}, first {:?}", t.shape, &t.to_f64_vec()[..3]);
            }
        }
    }
    if wanted("evaluate_conv_1k") {
        let m = parse_module(&passlab::testgen::conv_model(1000), "conv").expect("parses");
        let inputs = random::inputs_for(m.get("main").expect("@main"), 0).expect("inputs");
        let refs: Vec<_> = inputs.iter().collect();
        time("evaluate_conv_1k", 5, || {
            evaluate(&m, "main", &refs).expect("evaluates")
        });
    }
}
