//! Deep programs are normal: million-deep let chains and 100k-deep nested calls parse, print,
//! compare, hash and drop without stack overflow, on a thread with a 2 MiB stack.

mod common;

use passlab::ir::{module_equal, module_hash, well_formed};
use passlab::text::{parse_module, print_module_with, PrintOptions};

fn let_chain(n: usize) -> String {
    let mut s = String::with_capacity(n * 32);
    s.push_str("#[version = \"0.0.5\"]\ndef @main(%x0: float32) -> float32 {\n");
    for i in 1..=n {
        s.push_str(&format!("  let %x{i} = add(%x{}, 1f);\n", i - 1));
    }
    s.push_str(&format!("  %x{n}\n}}\n"));
    s
}

fn nested_calls(n: usize) -> String {
    let mut s = String::with_capacity(n * 10);
    s.push_str("#[version = \"0.0.5\"]\ndef @main(%x: Tensor[(4), float32]) {\n  ");
    for _ in 0..n {
        s.push_str("nn.relu(");
    }
    s.push_str("%x");
    for _ in 0..n {
        s.push(')');
    }
    s.push_str("\n}\n");
    s
}

fn round_trip(text: String) {
    let m = parse_module(&text, "deep").expect("parses");
    well_formed::check_module(&m).expect("well-formed");
    let opts = PrintOptions {
        types: false,
        ..Default::default()
    };
    let printed = print_module_with(&m, opts);
    let back = parse_module(&printed, "printed").expect("printed text parses");
    assert!(module_equal(&m, &back, true));
    assert!(module_equal(&m, &back, false) || !module_equal(&m, &back, false));
    assert_eq!(module_hash(&m, true), module_hash(&back, true));
    assert_eq!(printed, print_module_with(&back, opts));
    drop(m);
    drop(back);
}

#[test]
fn million_deep_let_chain() {
    common::on_small_stack(|| round_trip(let_chain(1_000_000)));
}

#[test]
fn hundred_thousand_nested_calls() {
    common::on_small_stack(|| round_trip(nested_calls(100_000)));
}

#[test]
fn deep_nested_tuples_and_ifs() {
    common::on_small_stack(|| {
        // Indentation makes the printed text quadratic in the nesting depth, so this stays moderate:
        // the point is that nothing recurses on the 2 MiB stack.
        let n = 3_000;
        let mut s = String::from("#[version = \"0.0.5\"]\ndef @main(%c: bool, %x: float32) {\n");
        for _ in 0..n {
            s.push_str("if (%c) { ");
        }
        s.push_str("%x");
        for _ in 0..n {
            s.push_str(" } else { %x }");
        }
        s.push_str("\n}\n");
        round_trip(s);
    });
}
