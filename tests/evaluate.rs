//! The reference evaluator from Rust, as a user of the library meets it: programs with every
//! kind of expression (vars, constants, op calls, globals, function literals, closures,
//! recursion, let, if, tuples, projections), errors that name what went wrong, million-deep
//! programs on a 2 MiB stack, and the same numbers as FoldConstant for every op both run.

mod common;

use passlab::eval::{evaluate, Output};
use passlab::ir::{DType, ExprKind, Module, TensorData};
use passlab::passes::fold_constant::fold_constant;
use passlab::text::metadata::MetaTable;
use passlab::text::{parse_module, parse_module_with_meta};
use std::sync::Arc;

fn module(body: &str) -> Module {
    parse_module(&format!("#[version = \"0.0.5\"]\n{body}"), "eval")
        .unwrap_or_else(|e| panic!("{e}"))
}

fn f32s(shape: &[i64], v: &[f64]) -> TensorData {
    TensorData::from_f64(DType::FLOAT32, shape.to_vec(), v)
}

fn run(m: &Module, args: &[TensorData]) -> Output {
    let refs: Vec<&TensorData> = args.iter().collect();
    evaluate(m, "main", &refs).unwrap_or_else(|e| panic!("{e}"))
}

fn tensor(o: Output) -> TensorData {
    match o {
        Output::Tensor(t) => t,
        _ => panic!("not a tensor"),
    }
}

fn values(o: Output) -> Vec<f64> {
    tensor(o).to_f64_vec()
}

#[test]
fn every_kind_of_expression() {
    // Graph-form dataflow with a shared node, a tuple and a projection.
    let m = module(
        "def @main(%x: Tensor[(3), float32], %y: Tensor[(3), float32]) {\n  \
         %0 = add(%x, %y);\n  %1 = (%0, multiply(%0, %0));\n  subtract(%1.1, %1.0)\n}",
    );
    let x = f32s(&[3], &[1.0, 2.0, 3.0]);
    let y = f32s(&[3], &[1.0, 0.0, -1.0]);
    assert_eq!(
        values(run(&m, &[x.clone(), y.clone()])),
        vec![2.0, 2.0, 2.0]
    );

    // A global, a let, an if on a computed condition, a closure capturing a let variable.
    let m = module(
        "def @double(%a: Tensor[(3), float32]) { add(%a, %a) }\n\
         def @main(%x: Tensor[(3), float32]) {\n  \
         let %k = 10f;\n  \
         let %f = fn (%z: Tensor[(3), float32]) { multiply(%z, %k) };\n  \
         if (greater(sum(%x), 0f)) { %f(@double(%x)) } else { negative(%x) }\n}",
    );
    assert_eq!(
        values(run(&m, std::slice::from_ref(&x))),
        vec![20.0, 40.0, 60.0]
    );
    let neg = f32s(&[3], &[-1.0, -2.0, -3.0]);
    assert_eq!(values(run(&m, &[neg])), vec![1.0, 2.0, 3.0]);

    // Recursion through a global: 5! = 120, in int32.
    let m = module(
        "def @fact(%n: int32) -> int32 {\n  \
         if (less_equal(%n, 1)) { 1 } else { multiply(%n, @fact(subtract(%n, 1))) }\n}\n\
         def @main(%n: int32) -> int32 { @fact(%n) }",
    );
    let five = TensorData::from_i64(DType::INT32, vec![], &[5]);
    assert_eq!(tensor(run(&m, &[five])).to_i64_vec(), vec![120]);

    // A recursive closure bound by let (it sees itself), and a tuple result.
    let m = module(
        "def @main(%n: int32) {\n  \
         let %sum = fn (%i: int32) -> int32 { if (equal(%i, 0)) { 0 } else { add(%i, %sum(subtract(%i, 1))) } };\n  \
         (%sum(%n), %n)\n}",
    );
    let ten = TensorData::from_i64(DType::INT32, vec![], &[10]);
    match run(&m, &[ten]) {
        Output::Tuple(items) => {
            let got: Vec<i64> = items
                .into_iter()
                .map(|o| tensor(o).to_i64_vec()[0])
                .collect();
            assert_eq!(got, vec![55, 10]);
        }
        _ => panic!("not a tuple"),
    }

    // Ops that return tuples (split, batch_norm) and `shape_of` read at run time.
    let m = module(
        "def @main(%x: Tensor[(4), float32]) {\n  \
         %0 = split(%x, indices_or_sections=2);\n  \
         (add(%0.0, %0.1), shape_of(%x, dtype=\"int64\"))\n}",
    );
    match run(&m, &[f32s(&[4], &[1.0, 2.0, 3.0, 4.0])]) {
        Output::Tuple(items) => {
            assert_eq!(items[0].tensors()[0].to_f64_vec(), vec![4.0, 6.0]);
            let shape = items[1].tensors()[0];
            assert_eq!((shape.dtype, shape.to_i64_vec()), (DType::INT64, vec![4]));
        }
        _ => panic!("not a tuple"),
    }
}

#[test]
fn errors_name_what_went_wrong() {
    let m = module("def @main(%x: Tensor[(2, 2), float32]) { nn.relu(%x) }");
    let refs = |ts: &[TensorData]| -> String {
        let r: Vec<&TensorData> = ts.iter().collect();
        evaluate(&m, "main", &r).unwrap_err().message
    };
    assert_eq!(refs(&[]), "@main takes 1 argument(s), got 0");
    assert_eq!(
        refs(&[f32s(&[3], &[1.0, 2.0, 3.0])]),
        "argument 1 (%x) of @main must be Tensor[(2, 2), float32], got float32 [3]"
    );
    let i = TensorData::from_i64(DType::INT32, vec![2, 2], &[1, 2, 3, 4]);
    assert!(refs(&[i])
        .starts_with("argument 1 (%x) of @main must be Tensor[(2, 2), float32], got int32"));
    assert_eq!(
        evaluate(&m, "nope", &[]).unwrap_err().message,
        "the module has no function @nope"
    );

    let m = module(
        "def @main(%x: Tensor[(1, 1, 2, 2), float32], %r: Tensor[(1, 5), float32]) {\n  \
         vision.roi_pool(%x, %r, pooled_size=[1, 1], spatial_scale=1f, layout=\"NCHW\", \
         attrs_type_key=\"relay.attrs.ROIPoolAttrs\")\n}",
    );
    let x = f32s(&[1, 1, 2, 2], &[1.0; 4]);
    let r = f32s(&[1, 5], &[0.0; 5]);
    let e = evaluate(&m, "main", &[&x, &r]).unwrap_err();
    assert!(
        e.message
            .starts_with("the op vision.roi_pool has no evaluator"),
        "{e}"
    );
    assert!(e.span.is_some());

    // An op with a kernel that refuses its arguments says which they were.
    let m = module("def @main(%x: Tensor[(2, 3), float32]) { reshape(%x, newshape=[4, 2]) }");
    let x = f32s(&[2, 3], &[0.0; 6]);
    let e = evaluate(&m, "main", &[&x]).unwrap_err();
    assert!(
        e.message
            .starts_with("reshape could not be evaluated on (float32 [2, 3])"),
        "{e}"
    );

    // Unbounded recursion is an error, not a hang or a stack overflow.
    let m =
        module("def @f(%x: int32) -> int32 { @f(%x) }\ndef @main(%x: int32) -> int32 { @f(%x) }");
    let one = TensorData::from_i64(DType::INT32, vec![], &[1]);
    let e = common::on_small_stack(move || evaluate(&m, "main", &[&one]).unwrap_err());
    assert!(e.message.contains("calls nest deeper than"), "{e}");
}

#[test]
fn million_deep_programs_on_a_small_stack() {
    common::on_small_stack(|| {
        let m = parse_module(&passlab::testgen::let_chain(1_000_000), "chain").unwrap();
        let x = TensorData::from_f64(DType::FLOAT32, vec![], &[0.5]);
        assert_eq!(values(run(&m, &[x])), vec![1_000_000.5]);

        let n = 100_000;
        let text = format!(
            "#[version = \"0.0.5\"]\ndef @main(%x: Tensor[(2), float32]) {{ {}%x{} }}",
            "negative(".repeat(n),
            ")".repeat(n)
        );
        let m = parse_module(&text, "calls").unwrap();
        assert_eq!(
            values(run(&m, &[f32s(&[2], &[1.0, -2.0])])),
            vec![1.0, -2.0]
        );

        let m = parse_module(&passlab::testgen::closures_model(20_000), "closures").unwrap();
        let x = f32s(&[1, 8], &[-1.0, 1.0, 2.0, -3.0, 0.0, 4.0, 5.0, -6.0]);
        let out = values(run(&m, &[x]));
        assert_eq!(out, vec![-1.0, 2.0, 4.0, -3.0, 0.0, 8.0, 10.0, -6.0]);

        let m = parse_module(&passlab::testgen::nested_tuple_model(100_000), "tuples").unwrap();
        let x = f32s(&[1, 8], &[1.0; 8]);
        run(&m, &[x]);
    });
}

/// Algebraic data types: a list of half a million cells built by recursion, measured by a
/// recursive match, returned whole (its text) and dropped, all on a 2 MiB stack.
#[test]
fn long_lists_on_a_small_stack() {
    common::on_small_stack(|| {
        let m = module(
            "type List[A] { Cons(A, List[A]), Nil }\n\
             def @build(%n: int32, %acc: List[int32]) -> List[int32] {\n  \
               if (%n == 0) { %acc } else { @build(%n - 1, Cons(%n, %acc)) }\n}\n\
             def @len[A](%xs: List[A]) -> int32 {\n  \
               match (%xs) { Cons(_, %rest) => 1 + @len(%rest), Nil => 0 }\n}\n\
             def @main(%n: int32) { (@len(@build(%n, Nil)), @build(%n, Nil)) }",
        );
        let n = 500_000;
        let arg = TensorData::from_i64(DType::INT32, vec![], &[n]);
        let Output::Tuple(items) = run(&m, &[arg]) else {
            panic!("a tuple")
        };
        assert_eq!(items[0].tensors()[0].to_i64_vec(), vec![n]);
        let Output::Adt(list) = &items[1] else {
            panic!("a data value")
        };
        assert_eq!(list.tensors.len(), n as usize);
        assert_eq!(list.tensors[n as usize - 1].to_i64_vec(), vec![n]);
        let text = list.text();
        assert!(text.starts_with("Cons(1, Cons(2, "), "{}", &text[..40]);
        assert!(text.ends_with(&format!("Cons({n}, Nil){}", ")".repeat(n as usize - 1))));
    });
}

/// Deterministic data in [-2, 2).
fn data(n: usize, seed: u64) -> Vec<f64> {
    let mut s = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
    (0..n)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((s >> 40) as f64 / (1u64 << 24) as f64) * 4.0 - 2.0
        })
        .collect()
}

/// Each call is folded by FoldConstant (its arguments constants) and evaluated with the same
/// tensors as parameters: the numbers are the same, bit for bit.
#[test]
fn evaluate_and_fold_constant_agree_bit_for_bit() {
    let x4 = f32s(&[2, 3, 6, 6], &data(216, 1));
    let w4 = f32s(&[4, 3, 3, 3], &data(108, 2));
    let v3 = f32s(&[3], &data(3, 3));
    let pos3 = f32s(
        &[3],
        &data(3, 4).iter().map(|v| v.abs() + 0.1).collect::<Vec<_>>(),
    );
    let m2 = f32s(&[4, 5], &data(20, 5));
    let w2 = f32s(&[6, 5], &data(30, 6));
    let b3 = f32s(&[2, 4, 5], &data(40, 7));
    let idx = TensorData::from_i64(DType::INT32, vec![3], &[2, 0, 1]);
    let (g6, b6) = (f32s(&[6], &data(6, 8)), f32s(&[6], &data(6, 9)));
    let cases: Vec<(&str, Vec<&TensorData>)> = vec![
        (
            "nn.conv2d(%a0, %a1, padding=[1, 1], strides=[2, 1])",
            vec![&x4, &w4],
        ),
        ("nn.dense(%a0, %a1, units=None)", vec![&m2, &w2]),
        ("nn.batch_matmul(%a0, %a0, transpose_b=True)", vec![&b3]),
        ("nn.softmax(%a0, axis=1)", vec![&m2]),
        ("nn.log_softmax(%a0)", vec![&m2]),
        (
            "nn.max_pool2d(%a0, pool_size=[3, 3], strides=[2, 2], padding=[1, 1])",
            vec![&x4],
        ),
        (
            "nn.avg_pool2d(%a0, pool_size=[2, 2], ceil_mode=True)",
            vec![&x4],
        ),
        ("nn.global_avg_pool2d(%a0)", vec![&x4]),
        (
            "nn.batch_norm(%a0, %a1, %a2, %a3, %a4).0",
            vec![&x4, &v3, &v3, &v3, &pos3],
        ),
        ("nn.layer_norm(%a0, %a1, %a2)", vec![&x4, &g6, &b6]),
        ("nn.lrn(%a0, size=3)", vec![&x4]),
        ("image.resize2d(%a0, size=[9, 4])", vec![&x4]),
        ("mean(%a0, axis=[1, 2], keepdims=True)", vec![&x4]),
        ("transpose(%a0, axes=[0, 2, 3, 1])", vec![&x4]),
        (
            "strided_slice(%a0, begin=[0, 1], end=[2, 3], strides=[1, 1], axes=None)",
            vec![&x4],
        ),
        ("take(%a0, %a1, axis=1)", vec![&x4, &idx]),
        ("clip(%a0, a_min=-0.5f, a_max=0.5f)", vec![&m2]),
        ("sigmoid(tanh(%a0))", vec![&m2]),
        (
            "nn.pad(%a0, 0f, pad_width=[[0, 0], [1, 2], [0, 1], [3, 0]])",
            vec![&x4],
        ),
        ("concatenate((%a0, %a0), axis=2)", vec![&x4]),
    ];
    for (body, inputs) in cases {
        let params: Vec<String> = inputs
            .iter()
            .enumerate()
            .map(|(i, t)| {
                let dims: Vec<String> = t.shape.iter().map(i64::to_string).collect();
                format!("%a{i}: Tensor[({}), {}]", dims.join(", "), t.dtype)
            })
            .collect();
        let text = format!(
            "#[version = \"0.0.5\"]\ndef @main({}) {{ {body} }}",
            params.join(", ")
        );
        let m = parse_module(&text, "op").unwrap_or_else(|e| panic!("{body}: {e}"));
        let evaluated =
            tensor(evaluate(&m, "main", &inputs).unwrap_or_else(|e| panic!("{body}: {e}")));
        // The same call with the inputs as constants, folded.
        let mut folded_body = body.to_string();
        for i in (0..inputs.len()).rev() {
            folded_body =
                folded_body.replace(&format!("%a{i}"), &format!("meta[relay.Constant][{i}]"));
        }
        let table = MetaTable {
            constants: inputs
                .iter()
                .map(|t| Some(Arc::new((*t).clone())))
                .collect(),
            ..Default::default()
        };
        let text = format!("#[version = \"0.0.5\"]\ndef @main() {{ {folded_body} }}");
        let m = parse_module_with_meta(&text, "fold", Some(&table)).unwrap();
        let out = fold_constant(&m);
        let f = out.get_function("main").unwrap();
        let ExprKind::Constant(c) = f.body.kind() else {
            panic!("{body} did not fold");
        };
        let folded = c.data.as_deref().unwrap();
        assert_eq!(folded.shape, evaluated.shape, "{body}");
        assert_eq!(folded.bytes, evaluated.bytes, "{body}");
    }
}

/// int64 keys that differ only beyond 2^53 (equal once rounded to f64) sort by their exact
/// values in `sort`, `argsort` and `topk`, evaluated and folded alike.
#[test]
fn int64_sorting_is_exact_beyond_2_pow_53() {
    let big = 1i64 << 60;
    let keys = [big + 3, big + 1, big + 2, -big - 1, -big];
    let x = TensorData::from_i64(DType::INT64, vec![5], &keys);
    let cases: [(&str, &str, Vec<i64>); 4] = [
        (
            "sort(%x)",
            "int64",
            vec![-big - 1, -big, big + 1, big + 2, big + 3],
        ),
        ("argsort(%x)", "int32", vec![3, 4, 1, 2, 0]),
        (
            "argsort(%x, is_ascend=False, dtype=\"int64\")",
            "int64",
            vec![0, 2, 1, 4, 3],
        ),
        (
            "topk(%x, k=2, ret_type=\"values\")",
            "int64",
            vec![big + 3, big + 2],
        ),
    ];
    for (call, dtype, want) in cases {
        let m = module(&format!("def @main(%x: Tensor[(5), int64]) {{ {call} }}"));
        let got = tensor(run(&m, std::slice::from_ref(&x)));
        assert_eq!(got.dtype, DType::parse(dtype).unwrap(), "{call}");
        assert_eq!(got.to_i64_vec(), want, "{call}");
        // Folded with the keys as a constant: the same elements.
        let table = MetaTable {
            constants: vec![Some(Arc::new(x.clone()))],
            ..Default::default()
        };
        let text = format!(
            "#[version = \"0.0.5\"]\ndef @main() {{ {} }}",
            call.replace("%x", "meta[relay.Constant][0]")
        );
        let m = parse_module_with_meta(&text, "fold", Some(&table)).unwrap();
        let out = fold_constant(&m);
        let ExprKind::Constant(c) = out.get_function("main").unwrap().body.kind() else {
            panic!("{call} did not fold");
        };
        assert_eq!(
            c.data.as_deref().unwrap().to_i64_vec(),
            want,
            "{call} folded"
        );
    }
}
