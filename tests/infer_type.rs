//! Type inference against real TVM output and small programs.

use passlab::passes::infer_type::{check_types, infer_module};
use passlab::text::{parse_module, print_module_with, PrintOptions};
use std::path::PathBuf;

fn corpus(name: &str) -> String {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/relay").join(name);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("cannot read {}: {e}", p.display()))
}

/// The file without its leading `// CORPUS` comment block.
fn body(text: &str) -> String {
    let mut lines = text.lines().skip_while(|l| l.starts_with("//")).collect::<Vec<_>>().join("\n");
    lines.push('\n');
    lines
}

fn typed_print(name: &str) -> (String, String) {
    let text = corpus(name);
    let m = parse_module(&text, name).unwrap_or_else(|e| panic!("{}", e.render(name, &text, false)));
    let typed = infer_module(&m).unwrap_or_else(|e| panic!("{}", e.render(name, &text, false)));
    let expected = body(&text);
    let opts = PrintOptions {
        header: expected.starts_with("#[version"),
        ..PrintOptions::default()
    };
    (print_module_with(&typed, opts), expected)
}

fn assert_same_lines(name: &str, got: &str, expected: &str) {
    let (g, e): (Vec<&str>, Vec<&str>) = (got.lines().collect(), expected.lines().collect());
    for (i, (a, b)) in g.iter().zip(&e).enumerate() {
        assert_eq!(a, b, "{name}: line {} differs", i + 1);
    }
    assert_eq!(g.len(), e.len(), "{name}: line counts differ");
}

#[test]
fn resnet18_dump_matches_tvm_exactly() {
    let (got, expected) = typed_print("resnet18_typed_dump.relay");
    assert_same_lines("resnet18_typed_dump.relay", &got, &expected);
}

#[test]
fn fuse_opt0_dump_matches_tvm_exactly() {
    let (got, expected) = typed_print("pass_infra_example.fuse_opt0.relay");
    assert_same_lines("pass_infra_example.fuse_opt0.relay", &got, &expected);
}

/// Splits a printed line into its text without `/* ty=... */` comments and the list of types
/// in those comments, in order.
fn split_types(line: &str) -> (String, Vec<String>) {
    let mut text = String::new();
    let mut types = Vec::new();
    let mut rest = line;
    while let Some(at) = rest.find(" /* ty=") {
        text.push_str(&rest[..at]);
        let after = &rest[at + " /* ty=".len()..];
        let end = after.find(" */").expect("closed type comment");
        types.push(after[..end].to_string());
        rest = &after[end + 3..];
    }
    text.push_str(rest);
    (text, types)
}

/// TVM 0.8 dumps annotate only calls and constants: our output must have the same program
/// text, and every type the file states must be the type we infer at that place (our output
/// has more annotations: projections and parameters).
fn check_v08_dump(name: &str) {
    let (got, expected) = typed_print(name);
    let (g, e): (Vec<&str>, Vec<&str>) = (got.lines().collect(), expected.lines().collect());
    assert_eq!(g.len(), e.len(), "{name}: line counts differ");
    let mut checked = 0;
    for (i, (a, b)) in g.iter().zip(&e).enumerate() {
        let ((ta, tya), (tb, tyb)) = (split_types(a), split_types(b));
        assert_eq!(ta, tb, "{name}: line {} differs", i + 1);
        let mut ours = tya.iter();
        for t in &tyb {
            assert!(
                ours.any(|o| o == t),
                "{name}: line {}: the file says {t}, we infer {tya:?}\n{a}",
                i + 1
            );
            checked += 1;
        }
    }
    assert!(checked > 80, "{name}: only {checked} types compared");
}

/// Like [`check_v08_dump`] for a file whose `%N` numbering passlab's printer does not
/// reproduce (a printer matter, not a typing one): lines are compared as a multiset with the
/// temporaries renamed, each with the type of its last annotation.
fn check_v08_dump_renumbered(name: &str) {
    let (got, expected) = typed_print(name);
    let key = |line: &str| -> Option<(String, String)> {
        let (text, types) = split_types(line);
        let mut norm = String::new();
        let mut chars = text.chars().peekable();
        while let Some(c) = chars.next() {
            norm.push(c);
            if c == '%' && chars.peek().is_some_and(|d| d.is_ascii_digit()) {
                norm.push('_');
                while chars.peek().is_some_and(|d| d.is_ascii_digit()) {
                    chars.next();
                }
            }
        }
        types.last().map(|t| (norm, t.clone()))
    };
    let mut ours: Vec<(String, String)> = got.lines().filter_map(key).collect();
    ours.sort();
    let mut checked = 0;
    for line in expected.lines() {
        if let Some(k) = key(line) {
            let at = ours.binary_search(&k).unwrap_or_else(|_| panic!("{name}: no line like {k:?} in our output"));
            ours.remove(at);
            checked += 1;
        }
    }
    assert!(checked > 300, "{name}: only {checked} types compared");
}

#[test]
fn glenside_mobilenet_types_match_tvm() {
    check_v08_dump("glenside_mobilenet.relay");
}

#[test]
fn glenside_resnet_simplified_types_match_tvm() {
    check_v08_dump("glenside_resnet_simplified.relay");
}

/// passlab's printer numbers `%N` here in a different order than TVM (it assigns a number
/// when the first consumer of a node is visited, TVM when the node itself is finished; the two
/// differ when a shared node feeds a later argument), so this dump is compared renumbered.
#[test]
fn glenside_mobilenet_simplified_types_match_tvm() {
    check_v08_dump_renumbered("glenside_mobilenet_simplified.relay");
}

/// Every other corpus file type-checks (parser_ref.relay and std_prelude.relay are refused by
/// the parser; the collage files and the pass-infra input need their external constants).
#[test]
fn corpus_files_type_check() {
    for name in [
        "collage_batch_norm_extract.relay",
        "collage_mobilenet.relay",
        "convert_layout_doc.after.relay",
        "convert_layout_doc.before.relay",
        "dce_add_with_let.after.relay",
        "dce_add_with_let.before.relay",
        "dce_dead_recursion.after.relay",
        "dce_dead_recursion.before.relay",
        "dce_inline_into_function.after.relay",
        "dce_inline_into_function.before.relay",
        "dce_one_live_let.after.relay",
        "dce_one_live_let.before.relay",
        "glenside_lstm.relay",
        "glenside_mobilenet.relay",
        "glenside_mobilenet_simplified.relay",
        "glenside_resnet_simplified.relay",
        "glenside_transformer.relay",
        "graph_executor_plan_2d_memory.relay",
        "parser_call_attrs.relay",
        "parser_if_in_binding.relay",
        "pass_infra_example.ecse.relay",
        "pass_infra_example.fold_constant.relay",
        "pass_infra_example.fuse_opt0.relay",
        "pass_infra_example.seq_opt3.relay",
        "resnet18_typed_dump.relay",
    ] {
        let text = corpus(name);
        let m = parse_module(&text, name).unwrap();
        let typed = infer_module(&m).unwrap_or_else(|e| panic!("{}", e.render(name, &text, false)));
        // Everything is typed: every function has a return type and annotated parameters.
        for (_, f) in typed.functions() {
            let f = f.as_function().unwrap();
            assert!(f.ret_type.as_ref().is_some_and(|t| t.is_complete()), "{name}");
            assert!(f.params.iter().all(|p| p.ann().is_some()), "{name}");
        }
    }
}

fn infer_src(src: &str) -> Result<passlab::ir::Module, String> {
    let m = parse_module(src, "test.relay").unwrap_or_else(|e| panic!("{}", e.render("test.relay", src, false)));
    infer_module(&m).map_err(|e| e.to_string())
}

/// Small ill-typed programs and the exact message each must produce.
#[test]
fn type_errors_name_the_expression_and_the_types() {
    let cases: &[(&str, &str)] = &[
        (
            "def @main(%a: Tensor[(1, 64), float32], %b: Tensor[(1, 32), float32]) { add(%a, %b) }",
            "in @main: type mismatch in `add`: Tensor[(1, 64), float32] vs Tensor[(1, 32), float32] cannot broadcast",
        ),
        (
            "def @main(%a: Tensor[(3), float32], %b: Tensor[(3), int32]) { multiply(%a, %b) }",
            "in @main: type mismatch in `multiply`: data types float32 and int32 do not match (Tensor[(3), float32] vs Tensor[(3), int32])",
        ),
        (
            "def @main(%a: float32, %b: float32) { (%a, %b).2 }",
            "in @main: in the projection of the tuple: tuple index 2 is out of range: the tuple has type (float32, float32) with 2 fields",
        ),
        (
            "def @main(%a: float32) { %a.0 }",
            "in @main: in the projection of `%a`: cannot project field 0 out of a value of type float32, which is not a tuple",
        ),
        (
            "def @main(%c: Tensor[(1), float32]) { if (%c) { 1 } else { 2 } }",
            "in @main: the condition of `if` must be a bool scalar, found Tensor[(1), float32]",
        ),
        (
            "def @main(%c: bool) { if (%c) { 1 } else { 2f } }",
            "in @main: the branches of `if` have different types: int32 vs float32",
        ),
        (
            "def @main(%x: Tensor[(2), float32]) { %x(1) }",
            "in @main: `%x` is called but has type Tensor[(2), float32], which is not a function type",
        ),
        (
            "def @f(%a: int32, %b: int32) { add(%a, %b) }\ndef @main() { @f(1) }",
            "in @main: `@f` expects 2 arguments, got 1",
        ),
        (
            "def @f(%a: int32) { %a }\ndef @main() { @f(1f) }",
            "in @main: type mismatch in argument 1 of the call of `@f`: expected int32, found float32",
        ),
        (
            "def @main(%a: float32) { add(%a, %a, %a) }",
            "in @main: `add` expects 2 arguments, got 3",
        ),
        (
            "def @main(%x: Tensor[(1, 3, 8, 8), float32]) { vision.get_valid_counts(%x, 0f) }",
            "in @main: no type rule for op `vision.get_valid_counts`",
        ),
        (
            "def @main(%x) { add(%x, 1f) }",
            "in @main: cannot infer the type of `%x`; add a type annotation",
        ),
        (
            "def @main(%x: Tensor[(2, 3), float32]) -> Tensor[(3, 2), float32] { nn.relu(%x) }",
            "in @main: type mismatch in the function's result: its body has type Tensor[(2, 3), float32] but the return type is annotated Tensor[(3, 2), float32]",
        ),
        (
            "def @main(%x: float32) { let %y: int32 = %x; %y }",
            "in @main: type mismatch in the binding of `%y`: it is annotated int32 but its value has type float32",
        ),
        (
            "def @main(%x: Tensor[(1, 3, 8, 8), float32], %w: Tensor[(4, 2, 3, 3), float32]) { nn.conv2d(%x, %w, channels=4, kernel_size=[3, 3]) }",
            "in @main: type mismatch in `nn.conv2d`: argument 2 has type Tensor[(4, 2, 3, 3), float32] but the call requires Tensor[(4, 3, 3, 3), float32]",
        ),
        (
            "def @main(%x: Tensor[(1, 3, 8, 8), float32], %w: Tensor[(4, 2, 3, 3), float32]) { nn.conv2d(%x, %w) }",
            "in @main: type mismatch in `nn.conv2d`: the input channels (3) divided by groups (1) must match the weight's input channels 2 (data Tensor[(1, 3, 8, 8), float32], weight Tensor[(4, 2, 3, 3), float32])",
        ),
        (
            "def @main(%x: Tensor[(2, 3), float32]) { reshape(%x, newshape=[4, 2]) }",
            "in @main: `reshape`: input shape [2, 3] and reshaped shape [4, 2] are not compatible",
        ),
        (
            "def @main(%x: Tensor[(2, 3), float32]) { transpose(%x, axes=[0, 2]) }",
            "in @main: `transpose`: axis 2 is out of range for a tensor of rank 2",
        ),
        (
            "def @main(%x: Tensor[(2, 3), float32], %y: Tensor[(2, 4), float32]) { concatenate((%x, %y), axis=0) }",
            "in @main: type mismatch in `concatenate`: all tensors must have the same shape on non-concatenating axes: Tensor[(2, 3), float32] vs Tensor[(2, 4), float32]",
        ),
        (
            "def @main(%x: Tensor[(2, 3), float32]) { let %f = fn (%y: Tensor[(3), float32]) { %y }; %f(%x) }",
            "in @main: type mismatch in argument 1 of the call of `%f`: expected Tensor[(3), float32], found Tensor[(2, 3), float32]",
        ),
    ];
    let mut wrong = Vec::new();
    for (src, expected) in cases {
        match infer_src(src) {
            Ok(_) => wrong.push(format!("no error for {src}")),
            Err(e) if e != *expected => wrong.push(format!("for {src}\n  got      {e}\n  expected {expected}")),
            Err(_) => {}
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    // The parser refuses unknown globals in text, so build that one directly.
    use passlab::ir::{Expr, Function, Module};
    let body = Expr::call(Expr::global("missing"), vec![], Default::default());
    let mut m = Module::new();
    m.add("main", Expr::function(Function { params: vec![], body, ret_type: None, attrs: vec![] })).unwrap();
    assert_eq!(infer_module(&m).unwrap_err().to_string(), "in @main: unknown global `@missing`");
}

/// The opaque constants of the collage files are typed where their use determines them; when
/// it does not, the error names the constant.
#[test]
fn opaque_constants_are_typed_from_their_use_or_named() {
    let text = corpus("collage_mnist.relay");
    let m = parse_module(&text, "collage_mnist.relay").unwrap();
    let e = infer_module(&m).unwrap_err();
    assert!(e.message.starts_with("cannot infer the type of `meta[relay.Constant][1]`"), "{e}");
    assert!(e.render("collage_mnist.relay", &text, false).contains("%2 = add(%1, meta[relay.Constant][1]);"));
    // conv2d assigns its weight from channels/kernel_size.
    let src = "def @main(%x: Tensor[(1, 1, 28, 28), float32]) { nn.conv2d(%x, meta[relay.Constant][0], channels=8, kernel_size=[5, 5]) }";
    let printed = passlab::text::print_module(&infer_src(src).unwrap());
    assert!(printed.contains("meta[relay.Constant][0] /* ty=Tensor[(8, 1, 5, 5), float32] */"), "{printed}");
}

/// Unannotated parameters are typed by unification with what the program passes them.
#[test]
fn unannotated_parameters_are_inferred_from_calls() {
    let src = "def @main(%a: Tensor[(2, 3), float32]) {
  %0 = fn (%x) { add(%x, 1f) };
  %0(%a)
}";
    let printed = passlab::text::print_module(&infer_src(src).unwrap());
    assert!(printed.contains("fn (%x: Tensor[(2, 3), float32] /* ty=Tensor[(2, 3), float32] */) -> Tensor[(2, 3), float32]"), "{printed}");
    // Globals too, and recursion through annotations.
    let src = "def @f(%n: int32) -> int32 { if (equal(%n, 0)) { 1 } else { multiply(%n, @f(subtract(%n, 1))) } }
def @g(%x) { @f(%x) }
def @main() { @g(5) }";
    let m = infer_src(src).unwrap();
    let g = m.get_function("g").unwrap();
    assert_eq!(g.params[0].ann().unwrap().to_string(), "int32");
    assert_eq!(g.ret_type.as_ref().unwrap().to_string(), "int32");
}

/// Re-typing a typed module changes nothing: the very same nodes come back.
#[test]
fn inference_is_idempotent() {
    let text = corpus("resnet18_typed_dump.relay");
    let once = infer_module(&parse_module(&text, "r").unwrap()).unwrap();
    let twice = infer_module(&once).unwrap();
    assert!(once.same_as(&twice));
}

#[test]
#[ignore]
fn scratch_all_corpus() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/relay");
    let mut names: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).filter(|n| n.ends_with(".relay")).collect();
    names.sort();
    for n in names {
        let text = corpus(&n);
        let m = match parse_module(&text, &n) { Ok(m) => m, Err(e) => { println!("{n}: PARSE {}", e); continue } };
        match check_types(&m) { Ok(()) => println!("{n}: ok"), Err(e) => println!("{n}: {e}") }
    }
}
