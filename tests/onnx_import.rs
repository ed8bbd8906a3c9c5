//! ONNX import on models built here (passlab's own protobuf types, encoded with prost): the
//! Relay each converter makes for ops and attributes the package's models do not use, the
//! errors for bad files and unsupported ops, and the importer as the command line and the
//! command language offer it.

mod onnx_support;

use expect_test::{expect, Expect};
use onnx_support::*;
use passlab::onnx::{import_bytes, ImportOptions};
use passlab::passes::infer_type::infer_module;
use passlab::text::{print_module_with, PrintOptions};
use std::process::Command;

/// Imports `bytes`, checks the module type-checks, and compares its printed form (without
/// types) with `expect`.
fn check(bytes: &[u8], expect: Expect) {
    let m = import_bytes(bytes, "test.onnx", &ImportOptions::default())
        .unwrap_or_else(|e| panic!("{e}"));
    infer_module(&m).unwrap_or_else(|e| panic!("InferType: {}", e.message));
    let text = print_module_with(
        &m,
        PrintOptions {
            types: false,
            ..Default::default()
        },
    );
    expect.assert_eq(&text);
}

fn error_of(bytes: &[u8]) -> String {
    match import_bytes(bytes, "test.onnx", &ImportOptions::default()) {
        Ok(_) => panic!("the model imports; an error was expected"),
        Err(e) => e.message,
    }
}

#[test]
fn gemm_with_transposes_alpha_and_beta() {
    let m = model(
        13,
        vec![node(
            "Gemm",
            &["a", "b", "c"],
            &["y"],
            vec![
                attr_i("transA", 1),
                attr_f("alpha", 2.0),
                attr_f("beta", 0.5),
            ],
        )],
        vec![
            value_info("a", FLOAT, &[4, 2]),
            value_info("b", FLOAT, &[4, 3]),
            value_info("c", FLOAT, &[3]),
        ],
        &["y"],
        vec![],
    );
    check(
        &m,
        expect![[r#"
            #[version = "0.0.5"]
            def @main(%a: Tensor[(4, 2), float32], %b: Tensor[(4, 3), float32], %c: Tensor[(3), float32]) {
              %0 = transpose(%a, axes=[1, 0]);
              %1 = multiply(%0, 2f);
              %2 = transpose(%b, axes=[1, 0]);
              %3 = nn.dense(%1, %2, units=3);
              %4 = multiply(0.5f, %c);
              add(%3, %4)
            }
        "#]],
    );
}

#[test]
fn matmul_of_batches_and_of_a_batch_with_a_matrix() {
    let m = model(
        13,
        vec![
            node("MatMul", &["x", "w"], &["y"], vec![]),
            node("MatMul", &["y", "z"], &["out"], vec![]),
        ],
        vec![
            value_info("x", FLOAT, &[2, 5, 4]),
            value_info("w", FLOAT, &[4, 3]),
            value_info("z", FLOAT, &[2, 3, 6]),
        ],
        &["out"],
        vec![],
    );
    check(
        &m,
        expect![[r##"
            #[version = "0.0.5"]
            def @main(%x: Tensor[(2, 5, 4), float32], %w: Tensor[(4, 3), float32], %z: Tensor[(2, 3, 6), float32]) {
              %0 = reshape(%x, newshape=[-1, 4]);
              %1 = transpose(%w, axes=None);
              %2 = nn.dense(%0, %1, units=None, out_dtype="float32");
              %3 = reshape(%2, newshape=[2, 5, 3]);
              %4 = transpose(%z, axes=[0, 2, 1]);
              %5 = nn.batch_matmul(%3, %4, out_dtype="float32", transpose_b=True);
              reshape(%5, newshape=[2, 5, 6])
            }
        "##]],
    );
}

#[test]
fn layer_normalization_softmax_and_gelu_of_a_transformer_block() {
    let m = model(
        20,
        vec![
            node(
                "LayerNormalization",
                &["x", "g", "b"],
                &["ln"],
                vec![attr_f("epsilon", 1e-5)],
            ),
            node("Softmax", &["ln"], &["s"], vec![]),
            node("Gelu", &["s"], &["y"], vec![]),
        ],
        vec![value_info("x", FLOAT, &[2, 8])],
        &["y"],
        vec![
            tensor_f32("g", &[8], &[1.0; 8]),
            tensor_f32("b", &[8], &[0.0; 8]),
        ],
    );
    check(
        &m,
        expect![[r##"
            #[version = "0.0.5"]
            def @main(%x: Tensor[(2, 8), float32]) {
              %0 = mean(%x, axis=[1], keepdims=True);
              %1 = variance(%x, %0, axis=[1], keepdims=True);
              %2 = add(%1, 1e-05f);
              %3 = sqrt(%2);
              %4 = subtract(%x, %0);
              %5 = divide(1f, %3);
              %6 = multiply(%4, %5);
              %7 = multiply(%6, meta[relay.Constant][0]);
              %8 = add(%7, meta[relay.Constant][1]);
              %9 = nn.softmax(%8, axis=1);
              %10 = divide(%9, 1.41421354f);
              %11 = erf(%10);
              %12 = multiply(0.5f, %9);
              %13 = add(1f, %11);
              multiply(%12, %13)
            }
            #[metadata]
            {
              "attrs": {
                "tvm_version": "0.18.0"
              },
              "b64ndarrays": [
                "P6G0lvBAXt0AAAAAAAAAAAEAAAAAAAAAAQAAAAIgAQAIAAAAAAAAACAAAAAAAAAAAACAPwAAgD8AAIA/AACAPwAAgD8AAIA/AACAPwAAgD8=",
                "P6G0lvBAXt0AAAAAAAAAAAEAAAAAAAAAAQAAAAIgAQAIAAAAAAAAACAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="
              ],
              "nodes": [
                {
                  "type_key": ""
                },
                {
                  "data": [
                    2
                  ],
                  "keys": [
                    "relay.Constant"
                  ],
                  "type_key": "Map"
                },
                {
                  "data": [
                    3,
                    4
                  ],
                  "type_key": "Array"
                },
                {
                  "attrs": {
                    "_checked_type_": "0",
                    "data": "0",
                    "span": "0"
                  },
                  "type_key": "relay.Constant"
                },
                {
                  "attrs": {
                    "_checked_type_": "0",
                    "data": "1",
                    "span": "0"
                  },
                  "type_key": "relay.Constant"
                }
              ],
              "root": 1
            }
        "##]],
    );
}

#[test]
fn reductions_slices_and_clip_with_their_operands_as_inputs() {
    // Opset 18: ReduceMean's axes, Slice's starts/ends/axes/steps and Clip's bounds are
    // inputs, constants here, read at import.
    let m = model(
        18,
        vec![
            node(
                "ReduceMean",
                &["x", "axes"],
                &["r"],
                vec![attr_i("keepdims", 0)],
            ),
            node(
                "Slice",
                &["r", "starts", "ends", "sax", "steps"],
                &["s"],
                vec![],
            ),
            node("Clip", &["s", "lo", "hi"], &["y"], vec![]),
        ],
        vec![value_info("x", FLOAT, &[2, 3, 10])],
        &["y"],
        vec![
            tensor_i64("axes", &[1], &[1]),
            tensor_i64("starts", &[1], &[1]),
            tensor_i64("ends", &[1], &[9]),
            tensor_i64("sax", &[1], &[-1]),
            tensor_i64("steps", &[1], &[2]),
            tensor_f32("lo", &[], &[0.0]),
            tensor_f32("hi", &[], &[6.0]),
        ],
    );
    check(
        &m,
        expect![[r#"
            #[version = "0.0.5"]
            def @main(%x: Tensor[(2, 3, 10), float32]) {
              %0 = mean(%x, axis=[1]);
              %1 = strided_slice(%0, begin=[1], end=[9], strides=[2], axes=[1]);
              clip(%1, a_min=0f, a_max=6f)
            }
        "#]],
    );
}

#[test]
fn same_upper_padding_becomes_an_explicit_pad() {
    let m = model(
        11,
        vec![
            node(
                "Conv",
                &["x", "w"],
                &["c"],
                vec![
                    attr_s("auto_pad", "SAME_UPPER"),
                    attr_ints("strides", &[2, 2]),
                ],
            ),
            node(
                "MaxPool",
                &["c"],
                &["y"],
                vec![
                    attr_ints("kernel_shape", &[2, 2]),
                    attr_s("auto_pad", "VALID"),
                ],
            ),
        ],
        vec![value_info("x", FLOAT, &[1, 1, 5, 5])],
        &["y"],
        vec![tensor_f32("w", &[2, 1, 3, 3], &[0.5; 18])],
    );
    check(
        &m,
        expect![[r##"
            #[version = "0.0.5"]
            def @main(%x: Tensor[(1, 1, 5, 5), float32]) {
              %0 = nn.pad(%x, 0f, pad_width=[[0, 0], [0, 0], [1, 1], [1, 1]]);
              %1 = nn.conv2d(%0, meta[relay.Constant][0], strides=[2, 2], channels=2, kernel_size=[3, 3]);
              nn.max_pool2d(%1, pool_size=[2, 2])
            }
            #[metadata]
            {
              "attrs": {
                "tvm_version": "0.18.0"
              },
              "b64ndarrays": [
                "P6G0lvBAXt0AAAAAAAAAAAEAAAAAAAAABAAAAAIgAQACAAAAAAAAAAEAAAAAAAAAAwAAAAAAAAADAAAAAAAAAEgAAAAAAAAAAAAAPwAAAD8AAAA/AAAAPwAAAD8AAAA/AAAAPwAAAD8AAAA/AAAAPwAAAD8AAAA/AAAAPwAAAD8AAAA/AAAAPwAAAD8AAAA/"
              ],
              "nodes": [
                {
                  "type_key": ""
                },
                {
                  "data": [
                    2
                  ],
                  "keys": [
                    "relay.Constant"
                  ],
                  "type_key": "Map"
                },
                {
                  "data": [
                    3
                  ],
                  "type_key": "Array"
                },
                {
                  "attrs": {
                    "_checked_type_": "0",
                    "data": "0",
                    "span": "0"
                  },
                  "type_key": "relay.Constant"
                }
              ],
              "root": 1
            }
        "##]],
    );
}

#[test]
fn shape_computations_fold_to_constants_at_import() {
    // Shape -> Gather -> Unsqueeze -> Concat -> Reshape, as exporters write a flatten.
    let m = model(
        13,
        vec![
            node("Shape", &["x"], &["s"], vec![]),
            node("Gather", &["s", "zero"], &["n"], vec![attr_i("axis", 0)]),
            node("Unsqueeze", &["n", "ax0"], &["n1"], vec![]),
            node(
                "Concat",
                &["n1", "minus1"],
                &["shape"],
                vec![attr_i("axis", 0)],
            ),
            node("Reshape", &["x", "shape"], &["y"], vec![]),
        ],
        vec![value_info("x", FLOAT, &[3, 4, 5])],
        &["y"],
        vec![
            tensor_i64("zero", &[], &[0]),
            tensor_i64("ax0", &[1], &[0]),
            tensor_i64("minus1", &[1], &[-1]),
        ],
    );
    check(
        &m,
        expect![[r#"
            #[version = "0.0.5"]
            def @main(%x: Tensor[(3, 4, 5), float32]) {
              reshape(%x, newshape=[3, -1])
            }
        "#]],
    );
}

#[test]
fn node_names_are_the_spans_of_what_they_make() {
    let mut n = node("Relu", &["x"], &["y"], vec![]);
    n.name = Some("encoder/layer0/relu".into());
    let m = model(
        13,
        vec![n],
        vec![value_info("x", FLOAT, &[2])],
        &["y"],
        vec![],
    );
    let module = import_bytes(&m, "test.onnx", &ImportOptions::default()).expect("imports");
    let src = module.source.as_ref().expect("a source");
    let body = &module.get_function("main").expect("@main").body;
    let span = body.span();
    assert_eq!(
        &src.text[span.lo as usize..span.hi as usize],
        "encoder/layer0/relu"
    );
    // An unnamed node is named as TVM names it: the op type and its count.
    let m = model(
        13,
        vec![node("Relu", &["x"], &["y"], vec![])],
        vec![value_info("x", FLOAT, &[2])],
        &["y"],
        vec![],
    );
    let module = import_bytes(&m, "test.onnx", &ImportOptions::default()).expect("imports");
    assert_eq!(module.source.as_ref().unwrap().text, "Relu_0\n");
}

#[test]
fn an_unsupported_op_is_an_error_naming_the_op_its_node_and_the_opset() {
    let mut n = node("DFT", &["x"], &["y"], vec![]);
    n.name = Some("spectrum".into());
    let m = model(
        12,
        vec![n],
        vec![value_info("x", FLOAT, &[4, 2])],
        &["y"],
        vec![],
    );
    expect![[r#"node `spectrum` (DFT): operator `DFT` is not supported (opset 12)"#]]
        .assert_eq(&error_of(&m));
    let mut n = node("FusedConv", &["x"], &["y"], vec![]);
    n.domain = Some("com.microsoft".into());
    let m = model(
        12,
        vec![n],
        vec![value_info("x", FLOAT, &[4])],
        &["y"],
        vec![],
    );
    expect![[r#"node `FusedConv_0` (FusedConv): operators of domain `com.microsoft` are not supported (opset 12)"#]]
        .assert_eq(&error_of(&m));
}

#[test]
fn ill_typed_and_ill_formed_graphs_are_errors_at_their_node() {
    let m = model(
        13,
        vec![node("Add", &["x", "z"], &["y"], vec![])],
        vec![value_info("x", FLOAT, &[4]), value_info("z", FLOAT, &[3])],
        &["y"],
        vec![],
    );
    let e = error_of(&m);
    assert!(e.starts_with("node `Add_0` (Add): `add`:"), "{e}");
    let m = model(
        13,
        vec![node("Relu", &["nowhere"], &["y"], vec![])],
        vec![],
        &["y"],
        vec![],
    );
    expect![[r#"node `Relu_0` (Relu): input `nowhere` is not computed by an earlier node, an initializer or a graph input"#]]
        .assert_eq(&error_of(&m));
    let m = model(
        13,
        vec![],
        vec![value_info("x", FLOAT, &[4])],
        &["y"],
        vec![],
    );
    expect![[r#"graph output `y` is not computed by any node, initializer or input"#]]
        .assert_eq(&error_of(&m));
    let m = model(
        30,
        vec![],
        vec![value_info("x", FLOAT, &[4])],
        &["x"],
        vec![],
    );
    expect![[r#"opset 30 is not supported (passlab imports opsets 1 to 28)"#]]
        .assert_eq(&error_of(&m));
}

#[test]
fn bad_files_are_errors_not_panics() {
    let real = std::fs::read(data_dir().join("light/light_squeezenet.onnx")).expect("read");
    // Truncated anywhere: an error (or, cut at a field boundary, a smaller valid model).
    for cut in [1, 7, 100, real.len() / 3, real.len() / 2, real.len() - 1] {
        if let Err(e) = import_bytes(&real[..cut], "t.onnx", &ImportOptions::default()) {
            assert!(!e.message.is_empty());
        }
    }
    let e = error_of(&real[..real.len() / 2]);
    assert!(e.starts_with("not an ONNX model:"), "{e}");
    expect![[r#"not an ONNX model: the file is empty"#]].assert_eq(&error_of(b""));
    let e = error_of(b"\xff\xff\xff\xff garbage that is not protobuf");
    assert!(e.starts_with("not an ONNX model:"), "{e}");
    // A Relay file is not a model either.
    let e = error_of(b"#[version = \"0.0.5\"]\ndef @main() { 1f }\n");
    assert!(
        e.starts_with("not an ONNX model:") || e.contains("no graph"),
        "{e}"
    );
    // Graphs nested in attributes past protobuf's recursion limit.
    let mut g = passlab::onnx::proto::GraphProto::default();
    for _ in 0..200 {
        let mut n = node("If", &[], &["y"], vec![]);
        n.attribute.push(passlab::onnx::proto::AttributeProto {
            name: Some("then_branch".into()),
            r#type: Some(passlab::onnx::proto::attr_type::GRAPH),
            g: Some(Box::new(g)),
            ..Default::default()
        });
        g = passlab::onnx::proto::GraphProto {
            node: vec![n],
            ..Default::default()
        };
    }
    let deep = prost::Message::encode_to_vec(&passlab::onnx::proto::ModelProto {
        graph: Some(g),
        ..Default::default()
    });
    let e = error_of(&deep);
    assert!(e.contains("recursion limit"), "{e}");
}

#[test]
fn hostile_tensors_are_refused_before_anything_is_allocated() {
    // Dims promising 2^60 elements with no data.
    let huge = passlab::onnx::proto::TensorProto {
        dims: vec![1 << 30, 1 << 30],
        data_type: Some(FLOAT),
        name: Some("w".into()),
        ..Default::default()
    };
    let m = model(13, vec![], vec![], &["w"], vec![huge.clone()]);
    let e = error_of(&m);
    assert!(e.contains("more than 4294967296 elements"), "{e}");
    let short = tensor_f32("w", &[2, 3], &[1.0; 5]);
    let m = model(13, vec![], vec![], &["w"], vec![short]);
    expect![[r#"initializer `w`: shape [2, 3] needs 6 elements, the tensor holds 5"#]]
        .assert_eq(&error_of(&m));
    // ConstantOfShape asked for 2^40 elements.
    let m = model(
        13,
        vec![node("ConstantOfShape", &["s"], &["y"], vec![])],
        vec![],
        &["y"],
        vec![tensor_i64("s", &[2], &[1 << 20, 1 << 20])],
    );
    let e = error_of(&m);
    assert!(e.contains("more than 4294967296 elements"), "{e}");
    let bytes = prost::Message::encode_to_vec(&huge);
    assert!(passlab::onnx::decode_tensor(&bytes).is_err());
}

fn passlab(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_passlab"))
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .expect("run passlab")
}

#[test]
fn the_command_line_imports_prints_checks_and_benches_onnx_models() {
    let model = data_dir().join("light/light_squeezenet.onnx");
    let model = model.to_str().unwrap();
    let dir = std::env::temp_dir().join(format!("passlab-onnx-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out_file = dir.join("squeezenet.relay");
    let out = passlab(&["import", model, "-o", out_file.to_str().unwrap()]);
    assert!(out.status.success(), "{out:?}");
    // The written Relay parses back to the module the importer made.
    let text = std::fs::read_to_string(&out_file).unwrap();
    let parsed = passlab::text::parse_module(&text, "squeezenet.relay").expect("parses");
    let imported =
        passlab::onnx::import_file(model.as_ref(), &ImportOptions::default()).expect("imports");
    assert!(passlab::ir::module_equal(&parsed, &imported, true));
    let out = passlab(&["check", out_file.to_str().unwrap()]);
    assert!(out.status.success(), "{out:?}");
    let out = passlab(&["check", model]);
    assert!(out.status.success(), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("well-formed"));
    let out = passlab(&["print", "--no-types", model]);
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("nn.conv2d("),
        "{out:?}"
    );
    let out = passlab(&[
        "bench",
        model,
        "--pass",
        "FoldConstant",
        "--pass",
        "EliminateCommonSubexpr",
        "--pass",
        "DeadCodeElimination",
        "--runs",
        "2",
        "--json",
    ]);
    assert!(out.status.success(), "{out:?}");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    for key in [
        "import_s",
        "FoldConstant_s",
        "EliminateCommonSubexpr_s",
        "DeadCodeElimination_s",
    ] {
        assert!(v[key].as_f64().is_some_and(|t| t > 0.0), "{key} in {v}");
    }
    // Errors name the file and exit 1.
    let bad = dir.join("bad.onnx");
    std::fs::write(&bad, b"not a model at all").unwrap();
    let out = passlab(&["import", bad.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bad.onnx: not an ONNX model"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_language_loads_onnx_models_by_extension() {
    let mut s = passlab::session::Session::new();
    s.set_html(false);
    s.set_base_dir(data_dir().join("light"));
    let out = s.execute(
        "m = load(\"light_squeezenet.onnx\")\n\
         p = load(\"light_squeezenet.onnx\", freeze_params=false)\n\
         with PassContext(opt_level=3) {\n\
             f = Sequential([InferType(), SimplifyInference(), FoldConstant(), FuseOps()])(m)\n\
         }\n\
         show f",
    );
    assert!(!out.is_error(), "{}", out.plain());
    assert!(out.plain().contains("Primitive=1"), "{}", out.plain());
    let out = s.execute("load(\"missing.onnx\")");
    assert!(out.is_error());
    assert!(
        out.plain().contains("cannot read missing.onnx"),
        "{}",
        out.plain()
    );
    let out = s.execute("load(\"../light/x.relay\", freeze_params=false)");
    assert!(
        out.plain().contains("freeze_params applies to ONNX models"),
        "{}",
        out.plain()
    );
}

/// The result types of `@main` after InferType, printed.
fn result_types(bytes: &[u8]) -> String {
    let m = import_bytes(bytes, "test.onnx", &ImportOptions::default())
        .unwrap_or_else(|e| panic!("{e}"));
    let typed = infer_module(&m).unwrap_or_else(|e| panic!("InferType: {}", e.message));
    let f = typed.get_function("main").expect("@main");
    f.body.ty().expect("typed").to_string()
}

/// A recurrent layer of `op` with `gates` gates: hidden 3, input 2, batch 1, 4 steps.
fn recurrent(
    op: &str,
    gates: i64,
    dirs: i64,
    opset: i64,
    attrs: Vec<passlab::onnx::proto::AttributeProto>,
    batch_first: bool,
) -> Vec<u8> {
    let (h, i) = (3, 2);
    let w = vec![0.1; (dirs * gates * h * i) as usize];
    let r = vec![0.2; (dirs * gates * h * h) as usize];
    let b = vec![0.3; (dirs * 2 * gates * h) as usize];
    let x_dims: &[i64] = if batch_first { &[1, 4, 2] } else { &[4, 1, 2] };
    let outputs: &[&str] = if op == "LSTM" {
        &["y", "y_h", "y_c"]
    } else {
        &["y", "y_h"]
    };
    let mut attrs = attrs;
    attrs.push(attr_i("hidden_size", h));
    if dirs == 2 {
        attrs.push(attr_s("direction", "bidirectional"));
    }
    model(
        opset,
        vec![node(op, &["x", "w", "r", "b"], outputs, attrs)],
        vec![value_info("x", FLOAT, x_dims)],
        outputs,
        vec![
            tensor_f32("w", &[dirs, gates * h, i], &w),
            tensor_f32("r", &[dirs, gates * h, h], &r),
            tensor_f32("b", &[dirs, 2 * gates * h], &b),
        ],
    )
}

#[test]
fn recurrent_layers_unroll_over_the_sequence() {
    expect![[
        r#"(Tensor[(4, 1, 1, 3), float32], Tensor[(1, 1, 3), float32], Tensor[(1, 1, 3), float32])"#
    ]]
    .assert_eq(&result_types(&recurrent("LSTM", 4, 1, 13, vec![], false)));
    expect![[r#"(Tensor[(4, 2, 1, 3), float32], Tensor[(2, 1, 3), float32])"#]]
        .assert_eq(&result_types(&recurrent("GRU", 3, 2, 13, vec![], false)));
    expect![[r#"(Tensor[(4, 2, 1, 3), float32], Tensor[(2, 1, 3), float32])"#]].assert_eq(
        &result_types(&recurrent(
            "GRU",
            3,
            2,
            13,
            vec![attr_i("linear_before_reset", 1)],
            false,
        )),
    );
    // Opset 14's batch-first layout.
    expect![[r#"(Tensor[(1, 4, 1, 3), float32], Tensor[(1, 1, 3), float32])"#]].assert_eq(
        &result_types(&recurrent("RNN", 1, 1, 14, vec![attr_i("layout", 1)], true)),
    );
    let relu = passlab::onnx::proto::AttributeProto {
        name: Some("activations".into()),
        r#type: Some(passlab::onnx::proto::attr_type::STRINGS),
        strings: vec![b"Relu".to_vec()],
        ..Default::default()
    };
    let text = print_module_with(
        &import_bytes(
            &recurrent("RNN", 1, 1, 13, vec![relu], false),
            "t.onnx",
            &ImportOptions::default(),
        )
        .unwrap(),
        PrintOptions {
            types: false,
            ..Default::default()
        },
    );
    assert_eq!(text.matches("nn.relu(").count(), 4, "{text}");
    assert_eq!(text.matches("nn.dense(").count(), 8, "{text}");
}

/// `op` (RNN, GRU or LSTM) over 3 steps, batch 2, hidden 3, input 2 (weights varied so the
/// steps differ), with `sequence_lens` as an initializer when given; evaluated on a fixed
/// input: Y and Y_h.
fn recurrent_run(op: &str, dirs: i64, lens: Option<&[i32]>) -> (Vec<f64>, Vec<f64>) {
    let (h, i) = (3i64, 2i64);
    let gates = match op {
        "RNN" => 1,
        "GRU" => 3,
        _ => 4,
    };
    let ramp = |n: i64, scale: f32| -> Vec<f32> {
        (0..n).map(|k| ((k % 7) as f32 - 3.0) * scale).collect()
    };
    let mut inputs = vec!["x", "w", "r", "b"];
    let mut inits = vec![
        tensor_f32("w", &[dirs, gates * h, i], &ramp(dirs * gates * h * i, 0.1)),
        tensor_f32(
            "r",
            &[dirs, gates * h, h],
            &ramp(dirs * gates * h * h, 0.05),
        ),
        tensor_f32(
            "b",
            &[dirs, 2 * gates * h],
            &ramp(dirs * 2 * gates * h, 0.02),
        ),
    ];
    if let Some(l) = lens {
        inputs.push("lens");
        inits.push(passlab::onnx::proto::TensorProto {
            dims: vec![2],
            data_type: Some(6),
            int32_data: l.to_vec(),
            name: Some("lens".into()),
            ..Default::default()
        });
    }
    let mut attrs = vec![attr_i("hidden_size", h)];
    if dirs == 2 {
        attrs.push(attr_s("direction", "bidirectional"));
    }
    let bytes = model(
        13,
        vec![node(op, &inputs, &["y", "y_h"], attrs)],
        vec![value_info("x", FLOAT, &[3, 2, i])],
        &["y", "y_h"],
        inits,
    );
    let m = import_bytes(&bytes, "recurrent.onnx", &ImportOptions::default()).unwrap();
    let x: Vec<f64> = (0..12).map(|k| (k as f64 - 5.0) * 0.25).collect();
    let x = passlab::ir::TensorData::from_f64(passlab::ir::DType::FLOAT32, vec![3, 2, 2], &x);
    match passlab::eval::evaluate(&m, "main", &[&x]).unwrap() {
        passlab::eval::Output::Tuple(outs) => {
            let t = |o: &passlab::eval::Output| match o {
                passlab::eval::Output::Tensor(t) => t.to_f64_vec(),
                _ => panic!("not a tensor"),
            };
            (t(&outs[0]), t(&outs[1]))
        }
        _ => panic!("two outputs expected"),
    }
}

#[test]
fn sequence_lens_stop_each_entry_at_its_length() {
    for op in ["GRU", "RNN", "LSTM"] {
        sequence_lens_case(op);
    }
}

fn sequence_lens_case(op: &str) {
    let run = |dirs: i64, lens: Option<&[i32]>| recurrent_run(op, dirs, lens);
    // Forward, Y is (steps 3, dirs 1, batch 2, hidden 3): entry 0 stops after one step.
    let (y, y_h) = run(1, None);
    let (ly, ly_h) = run(1, Some(&[1, 3]));
    let at = |v: &[f64], t: usize, b: usize| v[(t * 2 + b) * 3..(t * 2 + b) * 3 + 3].to_vec();
    assert_eq!(at(&ly, 0, 0), at(&y, 0, 0));
    assert_eq!(at(&ly, 1, 0), vec![0.0; 3]);
    assert_eq!(at(&ly, 2, 0), vec![0.0; 3]);
    assert_eq!(
        ly_h[0..3],
        y[0..3],
        "Y_h of entry 0 is its state after its one step"
    );
    for t in 0..3 {
        assert_eq!(
            at(&ly, t, 1),
            at(&y, t, 1),
            "entry 1 runs its whole sequence"
        );
    }
    assert_eq!(ly_h[3..6], y_h[3..6]);
    assert_ne!(at(&y, 1, 0), vec![0.0; 3]);
    // Full lengths change nothing, in both directions.
    assert_eq!(run(2, Some(&[3, 3])), run(2, None), "{op}");
    // Bidirectional, Y is (3, 2, 2, 3): the reverse direction of an entry of length 1 sees
    // only step 0, from the initial state, as the forward direction does.
    let (by, _) = run(2, Some(&[1, 3]));
    let at2 = |v: &[f64], t: usize, d: usize, b: usize| {
        let o = ((t * 2 + d) * 2 + b) * 3;
        v[o..o + 3].to_vec()
    };
    assert_eq!(at2(&by, 1, 1, 0), vec![0.0; 3]);
    assert_eq!(at2(&by, 2, 1, 0), vec![0.0; 3]);
    assert_ne!(at2(&by, 0, 1, 0), vec![0.0; 3]);
}

/// An 8-bit integer tensor as ONNX stores it (the values in `int32_data`).
fn tensor_u8(name: &str, dims: &[i64], data: &[i32]) -> passlab::onnx::proto::TensorProto {
    passlab::onnx::proto::TensorProto {
        dims: dims.to_vec(),
        data_type: Some(UINT8),
        int32_data: data.to_vec(),
        name: Some(name.into()),
        ..Default::default()
    }
}

const UINT8: i32 = 2;

#[test]
fn the_quantize_family_becomes_qnn_ops() {
    // A per-channel QuantizeLinear (its scale and zero point graph inputs), a QLinearMatMul whose output scale is a constant (so a
    // requantize, rounding to nearest), and a DequantizeLinear of a one-element scale.
    let m = model(
        13,
        vec![
            node("QuantizeLinear", &["x", "xs", "xz"], &["q"], vec![]),
            node(
                "QLinearMatMul",
                &["q", "as", "az", "w", "ws", "wz", "ys", "yz"],
                &["y"],
                vec![],
            ),
            node("DequantizeLinear", &["y", "ys1", "yz"], &["out"], vec![]),
        ],
        vec![
            value_info("x", FLOAT, &[2, 3]),
            value_info("xs", FLOAT, &[3]),
            value_info("xz", UINT8, &[3]),
            value_info("w", UINT8, &[3, 2]),
        ],
        &["out"],
        vec![
            tensor_f32("as", &[], &[0.5]),
            tensor_u8("az", &[], &[128]),
            tensor_f32("ws", &[1], &[0.25]),
            tensor_u8("wz", &[1], &[3]),
            tensor_f32("ys", &[], &[2.0]),
            tensor_f32("ys1", &[1], &[2.0]),
            tensor_u8("yz", &[], &[10]),
        ],
    );
    check(
        &m,
        expect![[r##"
        #[version = "0.0.5"]
        def @main(%x: Tensor[(2, 3), float32], %xs: Tensor[(3), float32], %xz: Tensor[(3), uint8], %w: Tensor[(3, 2), uint8]) {
          %0 = cast(%xz, dtype="int32");
          %1 = qnn.quantize(%x, %xs, %0, out_dtype="uint8", axis=1);
          %2 = transpose(%w, axes=None);
          %3 = qnn.dense(%1, %2, 128, 3, 0.5f, 0.25f, units=2, out_dtype="int32");
          %4 = qnn.requantize(%3, 0.125f, 0, 2f, 10, rounding="TONEAREST", out_dtype="uint8");
          qnn.dequantize(%4, 2f, 10, out_dtype="float32", axis=1)
        }
    "##]],
    );
}

#[test]
fn nonzero_and_compress_count_at_run_time_through_argwhere() {
    let m = model(
        13,
        vec![
            node("NonZero", &["c"], &["nz"], vec![]),
            node("Compress", &["x", "k"], &["y"], vec![attr_i("axis", 1)]),
        ],
        vec![
            value_info("c", FLOAT, &[2, 2]),
            value_info("x", FLOAT, &[2, 3]),
            value_info("k", 9, &[3]),
        ],
        &["nz", "y"],
        vec![],
    );
    // The counts are the data's: two nonzeros of four, the middle column of three.
    use passlab::ir::{DType, TensorData};
    let module = import_bytes(&m, "nz.onnx", &ImportOptions::default()).unwrap();
    let c = TensorData::from_f64(DType::FLOAT32, vec![2, 2], &[0.0, 1.5, -2.0, 0.0]);
    let x = TensorData::from_f64(DType::FLOAT32, vec![2, 3], &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    let k = TensorData::from_i64(DType::BOOL, vec![3], &[0, 1, 0]);
    let passlab::eval::Output::Tuple(outs) =
        passlab::eval::evaluate(&module, "main", &[&c, &x, &k]).unwrap()
    else {
        panic!("two outputs expected")
    };
    let t = |o: &passlab::eval::Output| match o {
        passlab::eval::Output::Tensor(t) => (t.shape.clone(), t.to_f64_vec()),
        _ => panic!("a tensor expected"),
    };
    assert_eq!(t(&outs[0]), (vec![2, 2], vec![0.0, 1.0, 1.0, 0.0]));
    assert_eq!(t(&outs[1]), (vec![2, 1], vec![2.0, 5.0]));
    check(
        &m,
        expect![[r##"
        #[version = "0.0.5"]
        def @main(%c: Tensor[(2, 2), float32], %x: Tensor[(2, 3), float32], %k: Tensor[(3), bool]) {
          %0 = argwhere(%c);
          %1 = cast(%0, dtype="int64");
          %2 = argwhere(%k);
          %3 = reshape(%2, newshape=[-1]);
          %4 = transpose(%1, axes=[1, 0]);
          %5 = take(%x, %3, axis=1);
          (%4, %5)
        }
    "##]],
    );
}
