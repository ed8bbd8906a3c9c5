//! The Relay language's own nesting is stack-safe and linear: `match`es nested in one another's
//! clauses, references of references and polymorphic calls nested deep parse, print, compare,
//! hash, type-check and go through every registered pass on a thread with a 2 MiB stack.

mod common;

use passlab::ir::{module_equal, module_hash, well_formed, Module};
use passlab::pass::{PassContext, PassManager};
use passlab::passes::infer_type::infer_module;
use passlab::text::{parse_module, print_module, print_module_with, PrintOptions};

const LIST: &str = "#[version = \"0.0.5\"]\ntype List[A] {\n  Cons(A, List[A]),\n  Nil,\n}\n\n";

/// `match`es nested `n` deep: each clause for `Cons` matches the rest of the list again.
fn nested_matches(n: usize) -> String {
    let mut s = String::from(LIST);
    s.push_str("def @main(%l0: List[float32]) -> float32 {\n");
    for i in 0..n {
        s.push_str(&format!("match (%l{i}) {{ Cons(%x{i}, %l{}) => ", i + 1));
    }
    s.push_str("0f");
    for i in (0..n).rev() {
        // The `Nil` clause of level i returns the element matched one level up.
        let v = if i == 0 {
            "1f".to_string()
        } else {
            format!("%x{}", i - 1)
        };
        s.push_str(&format!(", Nil => {v} }}"));
    }
    s.push_str("\n}\n");
    s
}

/// `ref(ref(...ref(%x)))`, `n` deep, read back once: its type nests `n` deep.
fn nested_refs(n: usize) -> String {
    let mut s = String::from("#[version = \"0.0.5\"]\ndef @main(%x: float32) {\n  ref_read(");
    for _ in 0..n {
        s.push_str("ref(");
    }
    s.push_str("%x");
    for _ in 0..n {
        s.push(')');
    }
    s.push_str(")\n}\n");
    s
}

/// A polymorphic identity applied to itself `n` times: `@id(@id(...@id(%x)))`.
fn nested_polymorphic_calls(n: usize) -> String {
    let mut s = String::from(
        "#[version = \"0.0.5\"]\ndef @id[A](%x: A) -> A {\n  %x\n}\n\ndef @main(%x: float32) {\n  ",
    );
    for _ in 0..n {
        s.push_str("@id(");
    }
    s.push_str("%x");
    for _ in 0..n {
        s.push(')');
    }
    s.push_str("\n}\n");
    s
}

const PASSES: &[&str] = &[
    "FoldConstant",
    "DeadCodeElimination",
    "EliminateCommonSubexpr",
    "ToANormalForm",
    "ToGraphNormalForm",
    "SimplifyInference",
    "CanonicalizeOps",
    "FuseOps",
    "FoldScaleAxis",
    "ConvertLayout",
    "AlterOpLayout",
    "LambdaLift",
    "InlineGlobals",
    "RemoveUnusedFunctions",
];

fn everything(text: String) {
    let m = parse_module(&text, "deep").expect("parses");
    well_formed::check_module(&m).expect("well-formed");
    let opts = PrintOptions {
        types: false,
        ..Default::default()
    };
    let printed = print_module_with(&m, opts);
    let back = parse_module(&printed, "printed").expect("printed text parses");
    assert!(module_equal(&m, &back, true));
    assert_eq!(module_hash(&m, true), module_hash(&back, true));
    let typed = infer_module(&m).expect("type-checks");
    let shown = print_module(&typed);
    let typed_back = parse_module(&shown, "typed").expect("typed text parses");
    assert!(module_equal(&typed, &typed_back, true));
    let mut pm = PassManager::new(passlab::passes::registry());
    let ctx = PassContext::builder()
        .opt_level(3)
        .build()
        .expect("a context");
    for name in PASSES {
        let pass = pm.pass(name).expect("a registered pass");
        let out: Module = pm
            .with_context(&ctx, |pm| pm.run(&pass, &typed))
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        well_formed::check_module(&out).unwrap_or_else(|e| panic!("{name}: {e}"));
        infer_module(&out).unwrap_or_else(|e| panic!("{name}: output does not type-check: {e}"));
    }
}

#[test]
fn nested_matches_are_stack_safe() {
    // Indentation makes the printed text quadratic in the nesting depth: moderate, as for ifs.
    common::on_small_stack(|| everything(nested_matches(2_000)));
}

#[test]
fn nested_references_are_stack_safe() {
    // Each node's printed type comment is as long as its depth: moderate, as for ifs.
    common::on_small_stack(|| everything(nested_refs(3_000)));
}

#[test]
fn nested_polymorphic_calls_are_stack_safe() {
    common::on_small_stack(|| everything(nested_polymorphic_calls(100_000)));
}
