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
