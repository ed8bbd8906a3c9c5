//! AnnotateSpans: after it, every node of a module built by passes has a span into the
//! module's printed text (its source, `GeneratedSource`), the module is the same program, and
//! a type error points at a line and column of that text. TVM's only test
//! (`test_pass_annotate_spans_defuse.py::test_annotate_spans_compatibility`) runs AnnotateSpans
//! on the output of `relay.optimize` before DefuseOps; here on `build_pipeline`'s output
//! (passlab has no DefuseOps), then InferType.

use passlab::ir::{module_equal, visit, Expr, ExprKind, Module};
use passlab::pass::{PassContext, PassManager, Sequential};
use passlab::passes::build_pipeline::build_pipeline;
use passlab::passes::infer_type::infer_module;
use passlab::text::parse_module;

fn run(pm: &mut PassManager, passes: &[&str], m: &Module) -> Module {
    let seq = Sequential::new(passes.iter().map(|p| pm.pass(p).unwrap()).collect()).into_pass();
    let ctx = PassContext::builder().opt_level(3).build().unwrap();
    pm.with_context(&ctx, |pm| pm.run(&seq, m)).unwrap()
}

fn spans(e: &Expr) -> (usize, usize) {
    let (mut with, mut without) = (0, 0);
    visit::post_order(e, |n| {
        // An op reference is one shared node per op, with no place of its own (as in TVM).
        if !matches!(n.kind(), ExprKind::Op(_)) {
            if n.span().is_dummy() {
                without += 1
            } else {
                with += 1
            }
        }
    });
    (with, without)
}

const NET: &str = r#"#[version = "0.0.5"]
def @main(%data: Tensor[(1, 3, 64, 64), float32], %weight, %bn_gamma, %bn_beta, %bn_mean, %bn_var) {
  %0 = nn.conv2d(%data, %weight, padding=[1, 1, 1, 1], channels=3, kernel_size=[3, 3]);
  %1 = nn.batch_norm(%0, %bn_gamma, %bn_beta, %bn_mean, %bn_var);
  %1.0
}
"#;

#[test]
fn every_node_gets_a_span_into_the_printed_text() {
    let mut pm = PassManager::new(passlab::passes::registry());
    let m = parse_module(NET, "net").unwrap();
    let built = {
        let p = build_pipeline(&pm, 3).unwrap();
        let ctx = PassContext::builder().opt_level(3).build().unwrap();
        pm.with_context(&ctx, |pm| pm.run(&p, &m)).unwrap()
    };
    let (_, missing) = spans(built.get("main").unwrap());
    assert!(missing > 0, "the passes' new nodes have no span");
    let annotated = run(&mut pm, &["AnnotateSpans"], &built);
    let source = annotated
        .source
        .as_ref()
        .expect("the printed text is the source");
    assert_eq!(source.name, "GeneratedSource");
    for (_, f) in annotated.functions() {
        let (with, without) = spans(f);
        assert_eq!(without, 0, "{with} nodes with a span, {without} without");
    }
    // The same program, and it types again.
    let typed = infer_module(&annotated).unwrap();
    assert!(module_equal(&typed, &infer_module(&built).unwrap(), true));
}

#[test]
fn a_type_error_points_into_the_generated_source() {
    let mut pm = PassManager::new(passlab::passes::registry());
    // The error is reported against the module's source, which is now the printed text.
    let m = parse_module(
        "#[version = \"0.0.5\"]\ndef @main(%x: Tensor[(2, 3), float32], %y: Tensor[(4, 5), float32]) {\n  %0 = add(%x, 0f);\n  add(%0, %y)\n}\n",
        "bad",
    )
    .unwrap();
    let annotated = run(&mut pm, &["AnnotateSpans"], &m);
    let err = infer_module(&annotated).unwrap_err();
    let rendered = err.render_for(&annotated, false);
    assert!(rendered.contains("GeneratedSource:"), "{rendered}");
    assert!(rendered.contains("add(%0, %y)"), "{rendered}");
}
