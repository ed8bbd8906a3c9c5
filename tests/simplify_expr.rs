//! SimplifyExpr's table-driven TVM tests, generated as TVM generates them: every combination of
//! shape, dtype, fill value, broadcast op and `full`-like op of
//! `test_pass_simplify_expr.py::test_simplify_full_elementwise`, and the identities of
//! `test_eliminate_identity`. Each case is a Relay program run through
//! `Sequential([SimplifyExpr()])` (InferType first, as `required`), compared with the expected
//! program up to variable names. The hand-written cases are golden files in
//! `tests/relay/simplify_expr/`.

use passlab::ir::{module_equal, Module};
use passlab::pass::{PassContext, PassManager, PassOptions, Sequential};
use passlab::passes::infer_type::infer_module;
use passlab::text::{parse_module, print_module};

fn run(pass: &str, m: &Module) -> Module {
    let mut pm = PassManager::new(passlab::passes::registry());
    let p = pm
        .create(pass, &PassOptions::default())
        .expect("registered");
    let seq = Sequential::new(vec![p]).into_pass();
    let ctx = PassContext::builder().opt_level(3).build().unwrap();
    pm.with_context(&ctx, |pm| pm.run(&seq, m))
        .unwrap_or_else(|e| panic!("{pass} failed: {e}"))
}

fn program(dtype: &str, shape: &[i64], body: &str) -> Module {
    let dims: Vec<String> = shape.iter().map(i64::to_string).collect();
    let text = format!(
        "#[version = \"0.0.5\"]\ndef @main(%x: Tensor[({}{}), {dtype}]) {{\n  {body}\n}}\n",
        dims.join(", "),
        if shape.len() == 1 { "," } else { "" }
    );
    parse_module(&text, "case").unwrap_or_else(|e| panic!("{text}: {}", e.message))
}

/// Checks that SimplifyExpr turns `before` into `after` (both bodies of `@main(%x)`).
fn check(dtype: &str, shape: &[i64], before: &str, after: &str) {
    let got = run("SimplifyExpr", &program(dtype, shape, before));
    let want = infer_module(&program(dtype, shape, after)).expect("expected program types");
    assert!(
        module_equal(&got, &want, true),
        "{before}\n  got:\n{}\n  expected:\n{}",
        print_module(&got),
        print_module(&want)
    );
}

/// `relay.const(value, dtype)` in the text format.
fn constant(value: i64, dtype: &str) -> String {
    match dtype {
        "float32" => format!("{value}f"),
        "bool" => (if value != 0 { "True" } else { "False" }).to_string(),
        _ => value.to_string(),
    }
}

fn list(shape: &[i64]) -> String {
    let dims: Vec<String> = shape.iter().map(i64::to_string).collect();
    format!("[{}]", dims.join(", "))
}

/// `test_simplify_full_elementwise`: a broadcast op with a `full`/`ones`/`zeros` operand of the
/// result's shape takes the fill value (and the identities then remove it); an operand that
/// broadcasts `x` to a larger shape stays.
#[test]
fn full_elementwise() {
    let mut cases = 0;
    for shape in [vec![10], vec![10, 10], vec![10, 10, 10]] {
        for dtype in ["float32", "int32", "bool"] {
            for value in [0i64, 1, 2] {
                let c = constant(value, dtype);
                let s = list(&shape);
                let mut fulls = Vec::new();
                if value == 0 {
                    fulls.push(format!("zeros(shape={s}, dtype=\"{dtype}\")"));
                    fulls.push("zeros_like(%x)".to_string());
                }
                if value == 1 {
                    fulls.push(format!("ones(shape={s}, dtype=\"{dtype}\")"));
                    fulls.push("ones_like(%x)".to_string());
                } else {
                    fulls.push(format!("full({c}, shape={s}, dtype=\"{dtype}\")"));
                    fulls.push(format!("full_like(%x, {c})"));
                }
                let unit = |op: &str| match op {
                    "add" | "subtract" => value == 0,
                    _ => value == 1 || (value > 1 && dtype == "bool"),
                };
                for op in ["add", "multiply", "subtract", "divide"] {
                    for full in &fulls {
                        let left_is_identity = unit(op) && matches!(op, "add" | "multiply");
                        let after = if left_is_identity {
                            "%x".to_string()
                        } else {
                            format!("{op}({c}, %x)")
                        };
                        check(dtype, &shape, &format!("{op}({full}, %x)"), &after);
                        let after = if unit(op) {
                            "%x".to_string()
                        } else {
                            format!("{op}(%x, {c})")
                        };
                        check(dtype, &shape, &format!("{op}(%x, {full})"), &after);
                        cases += 2;
                    }
                }
                // `x` broadcast to full's larger shape: nothing changes.
                let big: Vec<i64> = shape.iter().chain(&shape).copied().collect();
                let b = list(&big);
                let mut fulls = Vec::new();
                if value == 0 {
                    fulls.push(format!("zeros(shape={b}, dtype=\"{dtype}\")"));
                }
                if value == 1 {
                    fulls.push(format!("ones(shape={b}, dtype=\"{dtype}\")"));
                } else {
                    fulls.push(format!("full({c}, shape={b}, dtype=\"{dtype}\")"));
                }
                for op in ["add", "multiply", "subtract", "divide"] {
                    for full in &fulls {
                        let left = format!("{op}({full}, %x)");
                        let right = format!("{op}(%x, {full})");
                        check(dtype, &shape, &left, &left);
                        check(dtype, &shape, &right, &right);
                        cases += 2;
                    }
                }
            }
        }
    }
    assert_eq!(cases, 864);
}

/// `test_eliminate_identity`: `x + 0`, `0 + x`, `x * 1`, `1 * x`, `x - 0`, `x / 1` with the
/// unit written as `zeros`/`ones` (of x's shape or a broadcastable smaller one), `*_like(x)` or
/// a scalar constant become `x`; a unit of a larger shape stays; `0 - x` and `1 / x` keep their
/// operator with the unit as a constant.
#[test]
fn eliminate_identity() {
    let shape = [2, 3, 4];
    let dtype = "float32";
    let s = list(&shape);
    let small = list(&shape[1..]);
    let big = list(&[2, 2, 3, 4]);
    for (full, like, op, c) in [
        ("zeros", "zeros_like", "add", "0f"),
        ("ones", "ones_like", "multiply", "1f"),
    ] {
        for unit in [
            format!("{like}(%x)"),
            format!("{full}(shape={s}, dtype=\"{dtype}\")"),
            c.to_string(),
            format!("{full}(shape={small}, dtype=\"{dtype}\")"),
        ] {
            check(dtype, &shape, &format!("{op}({unit}, %x)"), "%x");
            check(dtype, &shape, &format!("{op}(%x, {unit})"), "%x");
        }
        let larger = format!("{full}(shape={big}, dtype=\"{dtype}\")");
        for before in [format!("{op}(%x, {larger})"), format!("{op}({larger}, %x)")] {
            check(dtype, &shape, &before, &before);
        }
    }
    for (full, like, op, c) in [
        ("zeros", "zeros_like", "subtract", "0f"),
        ("ones", "ones_like", "divide", "1f"),
    ] {
        for unit in [
            format!("{like}(%x)"),
            c.to_string(),
            format!("{full}(shape={s}, dtype=\"{dtype}\")"),
            format!("{full}(shape={small}, dtype=\"{dtype}\")"),
        ] {
            check(dtype, &shape, &format!("{op}(%x, {unit})"), "%x");
        }
        let larger = format!("{op}(%x, {full}(shape={big}, dtype=\"{dtype}\"))");
        check(dtype, &shape, &larger, &larger);
        let kept = format!("{op}({c}, %x)");
        check(
            dtype,
            &shape,
            &format!("{op}({full}(shape={s}, dtype=\"{dtype}\"), %x)"),
            &kept,
        );
        check(dtype, &shape, &format!("{op}({like}(%x), %x)"), &kept);
    }
}

/// `test_binomials`: every arrangement TVM's `gen_expressions` builds of
/// `a*x*x + b*x*y + c*y*y`, for its four (a, b, c) and three dtypes, simplifies to one of the
/// forms `gen_expected_expressions` accepts (the factored product, or the sum unchanged when
/// the roots are not real).
#[test]
fn binomials() {
    fn c(v: f64, dtype: &str) -> String {
        match dtype {
            "float32" => format!("{v:?}f"),
            "float64" => format!("{v:?}f64"),
            _ => format!("{}", v as i64),
        }
    }
    fn mul(a: &str, b: &str) -> String {
        format!("multiply({a}, {b})")
    }
    fn add(a: &str, b: &str) -> String {
        format!("add({a}, {b})")
    }
    // Python's `a * x * x` is `(a * x) * x`.
    fn mul3(a: &str, b: &str, c: &str) -> String {
        mul(&mul(a, b), c)
    }
    fn gen_expressions(x: &str, y: &str, a: f64, b: f64, cc: f64, dtype: &str) -> Vec<String> {
        let (a_, b_, c_) = (c(a, dtype), c(b, dtype), c(cc, dtype));
        let first = if a == 1.0 {
            vec![mul(x, x)]
        } else {
            vec![mul3(&a_, x, x), mul3(x, &a_, x), mul3(x, x, &a_)]
        };
        let second = if b == 1.0 {
            vec![mul(x, y), mul(y, x)]
        } else {
            vec![
                mul3(&b_, x, y),
                mul3(x, &b_, y),
                mul3(x, y, &b_),
                mul3(&b_, y, x),
                mul3(y, &b_, x),
                mul3(y, x, &b_),
            ]
        };
        let third = if cc == 1.0 {
            vec![mul(y, y)]
        } else {
            vec![mul3(&c_, y, y), mul3(y, &c_, y), mul3(y, y, &c_)]
        };
        let mut out = Vec::new();
        for f in &first {
            for s in &second {
                for t in &third {
                    for [p, q, r] in [
                        [f, s, t],
                        [f, t, s],
                        [s, f, t],
                        [s, t, f],
                        [t, f, s],
                        [t, s, f],
                    ] {
                        out.push(add(&add(p, q), r));
                    }
                }
            }
        }
        out
    }
    fn gen_expected(x: &str, y: &str, a: f64, b: f64, cc: f64, dtype: &str) -> Vec<String> {
        let (mut x, mut y, mut a, mut cc) = (x, y, a, cc);
        if cc == 1.0 && a > 1.0 {
            std::mem::swap(&mut a, &mut cc);
            std::mem::swap(&mut x, &mut y);
        }
        let det = b * b - 4.0 * a * cc;
        if det < 0.0 {
            return gen_expressions(x, y, a, b, cc, dtype);
        }
        let p = (b + det.sqrt()) / (2.0 * a);
        let q = (b - det.sqrt()) / (2.0 * a);
        let forms = |v: f64| {
            if v == 1.0 {
                vec![add(x, y), add(y, x)]
            } else {
                let k = c(v, dtype);
                vec![
                    add(x, &mul(&k, y)),
                    add(&mul(&k, y), x),
                    add(x, &mul(y, &k)),
                    add(&mul(y, &k), x),
                ]
            }
        };
        let mut out = Vec::new();
        for f in forms(p) {
            for s in forms(q) {
                out.push(mul(&f, &s));
                if p != q {
                    out.push(mul(&s, &f));
                }
            }
        }
        out
    }
    let module = |dtype: &str, body: &str| {
        let text = format!(
            "#[version = \"0.0.5\"]\ndef @main(%x: Tensor[(5), {dtype}], %y: Tensor[(5), {dtype}]) {{\n  {body}\n}}\n"
        );
        parse_module(&text, "case").unwrap_or_else(|e| panic!("{text}: {}", e.message))
    };
    let mut checked = 0;
    for dtype in ["int32", "float32", "float64"] {
        for (a, b, cc) in [
            (1.0, 2.0, 1.0),
            (6.0, 5.0, 1.0),
            (1.0, 1.0, 1.0),
            (1.0, 4.0, 4.0),
        ] {
            let expected: Vec<Module> = gen_expected("%x", "%y", a, b, cc, dtype)
                .iter()
                .map(|e| {
                    // TVM compares with the expected program after EliminateCommonSubexpr.
                    let m = infer_module(&module(dtype, e)).expect("expected program types");
                    run("EliminateCommonSubexpr", &m)
                })
                .collect();
            for origin in gen_expressions("%x", "%y", a, b, cc, dtype) {
                let got = run("SimplifyExpr", &module(dtype, &origin));
                assert!(
                    expected.iter().any(|want| module_equal(&got, want, true)),
                    "{dtype} ({a}, {b}, {cc}): {origin}\n  got:\n{}",
                    print_module(&got)
                );
                checked += 1;
            }
        }
    }
    assert_eq!(checked, 3 * (36 + 108 + 12 + 108));
}
