//! The tests of TVM v0.18's test_ir_text_printer.py that build their programs through TVM's
//! Python API, as library calls; the rest are the transcript
//! `tests/sessions/ir_text_printer.passlab`. As TVM's `astext`, each program is printed and
//! the text must parse back to an equal module.

use passlab::ir::{
    module_equal, Constant, DType, Dim, Expr, Function, Module, TensorType, Type, Var,
};
use passlab::text::{parse_module, print_module};

/// Prints `m`, checks that the text parses back equal (up to variable names), and returns it.
fn astext(m: &Module) -> String {
    let text = print_module(m);
    let back = parse_module(&text, "printed").expect("the printed text parses");
    assert!(module_equal(&back, m, true), "round trip differs:\n{text}");
    text
}

fn main_of(params: Vec<Var>, body: Expr) -> Module {
    let mut m = Module::new();
    m.add("main", Expr::function(Function::new(params, body, None)))
        .unwrap();
    m
}

/// test_large_graph: 90,001 chained adds of a shared constant print and parse back.
#[test]
fn large_graph() {
    let x = Var::new(
        "x",
        Some(Type::of_tensor(&TensorType::new(
            vec![Dim::Static(3), Dim::Static(2)],
            DType::FLOAT32,
        ))),
    );
    let y = Var::new("y", None);
    let one = Expr::constant(Constant::scalar_f32(10e10));
    let add = |a: Expr| Expr::call_op("add", vec![a, one.clone()]);
    let mut z = add(Expr::var(&x));
    for _ in 0..90_000 {
        z = add(z);
    }
    let text = astext(&main_of(vec![x, y], z));
    assert!(text.contains("%89999 = add(%89998, 1e+11f);"));
}

/// test_variable_name: a variable whose name is a number prints with a `v` before it, so it
/// is not read back as a graph binding.
#[test]
fn variable_name() {
    let v1 = Var::new("1", None);
    let text = astext(&main_of(vec![v1.clone()], Expr::var(&v1)));
    assert!(text.contains("def @main(%v1) {"), "{text}");
}
