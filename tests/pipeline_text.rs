//! Pipelines as text: `text(p)` is the canonical expression that rebuilds a pass and
//! `pipeline(t)` builds it back. The round trip `text(pipeline(text(p))) == text(p)` is checked
//! for every registered pass, without options and with each of its options, and the rebuilt
//! pass must compute what the original computes.

use passlab::ir::module_equal;
use passlab::pass::config::ConfigType;
use passlab::pass::text::write_value;
use passlab::pass::{pipeline_text, ConfigValue, PassContext, PassManager};
use passlab::session::Session;

/// A value of `ty` for the option `name`, one that every pass with such an option accepts.
fn sample(name: &str, ty: ConfigType) -> ConfigValue {
    match ty {
        // Rewrite rules, not layouts: AlterOpLayout's callbacks as rules.
        ConfigType::StrListMap if name == "alter_rewrite" => ConfigValue::Map(vec![(
            "nn.conv2d".into(),
            ConfigValue::List(vec![ConfigValue::Str(
                "nn.conv2d(?d, ?w) => nn.conv2d(?d, multiply(?w, 2f))".into(),
            )]),
        )]),
        ConfigType::Bool => ConfigValue::Bool(true),
        ConfigType::Int => ConfigValue::Int(1),
        ConfigType::IntRange(lo, _) => ConfigValue::Int(lo),
        ConfigType::Float => ConfigValue::Float(0.5),
        ConfigType::Str => ConfigValue::Str("a \"quoted\"\\ line\n\tend".into()),
        ConfigType::Choice(choices) => ConfigValue::Str(choices[0].into()),
        ConfigType::StrList => ConfigValue::List(vec![ConfigValue::Str("add".into())]),
        ConfigType::IntList => ConfigValue::List(vec![ConfigValue::Int(0), ConfigValue::Int(2)]),
        ConfigType::StrListMap => ConfigValue::Map(vec![(
            "nn.conv2d".into(),
            ConfigValue::List(vec![
                ConfigValue::Str("NHWC".into()),
                ConfigValue::Str("default".into()),
            ]),
        )]),
        ConfigType::MapMap => ConfigValue::Map(vec![(
            "nn.conv2d".into(),
            ConfigValue::Map(vec![
                ("data_layout".into(), ConfigValue::Str("NHWC".into())),
                ("kernel_layout".into(), ConfigValue::Str("HWIO".into())),
            ]),
        )]),
    }
}

const MODULE: &str = r#"
def @main(%x: Tensor[(1, 3, 4, 4), float32], %w: Tensor[(8, 3, 3, 3), float32]) {
  %0 = add(1f, 2f);
  %1 = nn.conv2d(%x, %w, padding=[1, 1, 1, 1]);
  %2 = multiply(%1, %0);
  %3 = add(%2, %2);
  add(%3, %3)
}
"#;

/// Runs `text` as a pipeline and checks the round trip; returns the canonical text.
fn round_trip(s: &mut Session, text: &str) -> String {
    let p = s
        .pipeline(text)
        .unwrap_or_else(|e| panic!("{text}: {}", e.message));
    let t1 = pipeline_text(&p).unwrap();
    let p2 = s.pipeline(&t1).unwrap();
    let t2 = pipeline_text(&p2).unwrap();
    assert_eq!(t1, t2, "the round trip changed the text of {text}");
    assert_eq!(p.name(), p2.name());
    assert_eq!(p.kind(), p2.kind());
    assert_eq!(p.info().opt_level(), p2.info().opt_level());
    assert_eq!(p.info().required(), p2.info().required());
    // Both passes compute the same module (or fail alike).
    let m = passlab::text::parse_module(MODULE, "m").unwrap();
    let mut pm = PassManager::new(passlab::passes::registry());
    let ctx = PassContext::builder().opt_level(3).build().unwrap();
    let run = |pm: &mut PassManager, p| pm.with_context(&ctx, |pm| pm.run(p, &m));
    match (run(&mut pm, &p), run(&mut pm, &p2)) {
        (Ok(a), Ok(b)) => assert!(module_equal(&a, &b, false), "{text}: outputs differ"),
        (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string()),
        (a, b) => panic!("{text}: {:?} vs {:?}", a.is_ok(), b.is_ok()),
    }
    t1
}

#[test]
fn every_registered_pass_and_option_round_trips() {
    let mut s = Session::new();
    let mut count = 0;
    for entry in passlab::passes::registry().entries() {
        let bare = format!("{}()", entry.name);
        assert_eq!(round_trip(&mut s, &bare), bare);
        // The bare name is a pipeline too.
        assert_eq!(round_trip(&mut s, &entry.name), bare);
        for opt in entry.options {
            let mut text = format!("{}({}=", entry.name, opt.name);
            write_value(&sample(opt.name, opt.ty), &mut text);
            text.push(')');
            assert_eq!(round_trip(&mut s, &text), text, "canonical text");
            count += 1;
        }
    }
    assert!(count >= 8, "only {count} options walked");
}

#[test]
fn sequentials_and_user_passes_round_trip() {
    let mut s = Session::new();
    for text in [
        "Sequential([InferType(), FoldConstant()], opt_level=3)",
        "Sequential([])",
        "Sequential([Sequential([FoldConstant()], name=\"inner\", required=[\"InferType\"])], opt_level=2, name=\"outer\")",
        "function_pass(name=\"Bad\", rewrite=[\"add(?a, ?b) => subtract(?a, ?b)\"])",
        "function_pass(name=\"F\", opt_level=2, required=[\"InferType\"], fail=\"no \\\"way\\\"\")",
        "module_pass(name=\"M\", opt_level=1, fail=\"boom\")",
        "Sequential([InferType(), function_pass(name=\"Bad\", rewrite=[\"add(?a, ?b) => subtract(?a, ?b)\"]), FoldScaleAxis()], opt_level=3, name=\"pipe\")",
    ] {
        assert_eq!(round_trip(&mut s, text), text);
    }
    // Relay text carried by an argument is printed canonically once, then stays.
    let t = round_trip(
        &mut s,
        "function_pass(name=\"R\", replace_with=\"def @f(%x: float32) { %x }\")",
    );
    assert!(t.contains("def @replacement(%x: float32)"), "{t}");
    let t = round_trip(&mut s, "module_pass(name=\"A\", add=\"def @g() { 1f }\")");
    assert!(t.contains("def @g()"), "{t}");
}

#[test]
fn build_pipeline_has_a_text() {
    let out = passlab::session::run_plain("text(build_pipeline(opt_level=3))");
    assert!(
        out.starts_with("\"Sequential([RemoveUnusedFunctions(entry_functions=[\\\"main\\\"]), SimplifyInference(), "),
        "{out}"
    );
    let mut s = Session::new();
    let p = s.pipeline("build_pipeline(opt_level=3)");
    assert!(p.is_err(), "build_pipeline is not a pass constructor");
}

#[test]
fn bad_pipelines_are_located_errors() {
    let mut s = Session::new();
    let cases = [
        "Sequential([x])",
        "FoldConstant()(m)",
        "Sequential([InferType(), FoldConstan()])",
        "FoldConstant(fold_qnn=1.5)",
        "Sequential([InferType()]",
        "1",
        "",
        "InferType(); FoldConstant()",
    ];
    let mut out = String::new();
    for c in cases {
        let e = s.pipeline(c).unwrap_err();
        let origin = passlab::session::Origin::new("<pipeline>", c);
        out.push_str(&e.render(&origin, false));
        out.push('\n');
    }
    expect_test::expect![[r#"
        error: `x` is not a pass constructor call
         --> <pipeline>:1:13
          |
        1 | Sequential([x])
          |             ^ a pipeline holds no variables
        error: a pipeline calls only pass constructors (a registered pass, Sequential, function_pass, module_pass)
         --> <pipeline>:1:1
          |
        1 | FoldConstant()(m)
          | ^^^^^^^^^^^^^^
        error: a pipeline calls only pass constructors (a registered pass, Sequential, function_pass, module_pass)
         --> <pipeline>:1:26
          |
        1 | Sequential([InferType(), FoldConstan()])
          |                          ^^^^^^^^^^^ did you mean FoldConstant?
        error: FoldConstant: option fold_qnn expects bool, got float
         --> <pipeline>:1:1
          |
        1 | FoldConstant(fold_qnn=1.5)
          | ^^^^^^^^^^^^^^^^^^^^^^^^^^
        error: expected `)`, found end of input
         --> <pipeline>:1:25
          |
        1 | Sequential([InferType()]
          |                         ^ expected `)`
        error: a pipeline must be a pass, this is a int
         --> <pipeline>:1:1
          |
        1 | 1
          | ^
        error: the pipeline text is empty
        error: a pipeline is one pass expression, not several statements
         --> <pipeline>:1:14
          |
        1 | InferType(); FoldConstant()
          |              ^^^^^^^^^^^^^^
    "#]].assert_eq(&out);
}
