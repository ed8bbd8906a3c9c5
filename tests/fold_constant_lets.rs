//! FoldConstant's let handling: a let variable takes its value's constant whether the value is
//! a node of its own, a node shared by several lets (it then comes out of the mutation's memo
//! without a hook running), or sits after a `Primitive` function binding (which is not
//! rewritten at all), and nested lets inside a value.

use passlab::ir::{Expr, Function, Module, Var};
use passlab::passes::fold_constant::{fold_constant, fold_expr};
use passlab::text::{parse_module, print_expr, PrintOptions};

fn show(e: &Expr) -> String {
    let opts = PrintOptions {
        types: false,
        header: false,
        metadata: false,
    };
    print_expr(e, opts)
}

fn scalar(v: f32) -> Expr {
    Expr::constant(passlab::ir::Constant::from_data(
        passlab::ir::TensorData::from_f64(passlab::ir::DType::FLOAT32, vec![], &[v as f64]),
    ))
}

#[test]
fn a_value_shared_by_two_lets_folds_for_both() {
    let value = Expr::call_op("add", vec![scalar(1.0), scalar(2.0)]);
    let (a, b) = (Var::new("a", None), Var::new("b", None));
    let body = Expr::call_op("multiply", vec![Expr::var(&a), Expr::var(&b)]);
    let e = Expr::let_(a, value.clone(), Expr::let_(b, value, body));
    assert_eq!(show(&fold_expr(&e)), "9f");
}

#[test]
fn lets_after_a_primitive_function_and_nested_in_values_fold() {
    let text = r#"#[version = "0.0.5"]
def @main(%y: float32) {
  let %f = fn (%x: float32, Primitive=1) { add(%x, 1f) };
  let %c = (let %d = add(1f, 1f); multiply(%d, 3f));
  let %t = (%c, %y);
  %f(add(%c, %t.0))
}"#;
    let m: Module = parse_module(text, "lets").unwrap();
    let out = fold_constant(&m);
    let main = out.get("main").unwrap().clone();
    let printed = show(&main);
    // %c is 6f everywhere; a projection of a let-bound tuple is not a constant (as in TVM).
    assert!(printed.contains("let %t = (6f, %y);"), "{printed}");
    assert!(printed.contains("add(6f, %0)"), "{printed}");
    assert!(
        printed.contains("add(%x, 1f)"),
        "the primitive body stays: {printed}"
    );
    let f: &Function = main.as_function().unwrap();
    assert_eq!(f.params.len(), 1);
}
