//! The ONNX package's own test models, read from the installed package (never copied here):
//! the nine `light/` architectures import and go through the standard pipeline at opt_level
//! 3, and every operator test model imports and type-checks with the types of its test data,
//! except the ones listed in `CANNOT` with the reason.

mod onnx_support;

use onnx_support::{data_dir, light_models, operator_models};
use passlab::ir::{visit, DType, ExprKind, Module, Type};
use passlab::onnx::{decode_tensor, import_file, ImportOptions};
use passlab::pass::{sequential, PassContext, PassManager};
use passlab::passes::infer_type::infer_module;
use std::path::Path;

/// Operator models passlab cannot import, each with the reason, and a piece of the error.
const CANNOT: &[(&str, &str, &str)] = &[
    // Split sizes that are a graph input (run-time values; Split has no `dyn.*` form).
    (
        "simple/test_sequence_model8",
        "run-time split sizes",
        "split must be a constant",
    ),
    // The training operator set (TVM has no converter either).
    (
        "simple/test_gradient_of_add",
        "training op",
        "`ai.onnx.preview.training`",
    ),
    (
        "simple/test_gradient_of_add_and_mul",
        "training op",
        "`ai.onnx.preview.training`",
    ),
    // String tensors (StringNormalizer): Relay has no string dtype.
    (
        "simple/test_strnorm_model_monday_casesensintive_lower",
        "strings",
        "STRING tensors",
    ),
    (
        "simple/test_strnorm_model_monday_casesensintive_nochangecase",
        "strings",
        "STRING",
    ),
    (
        "simple/test_strnorm_model_monday_casesensintive_upper",
        "strings",
        "STRING tensors",
    ),
    (
        "simple/test_strnorm_model_monday_empty_output",
        "strings",
        "STRING tensors",
    ),
    (
        "simple/test_strnorm_model_monday_insensintive_upper_twodim",
        "strings",
        "STRING",
    ),
    (
        "simple/test_strnorm_model_nostopwords_nochangecase",
        "strings",
        "STRING tensors",
    ),
];

/// The tensor types of `@main`'s result (one, or the fields of a tuple).
fn result_types(m: &Module) -> Vec<Type> {
    let f = m.get_function("main").expect("@main");
    let ty = f.body.ty().expect("a typed body").clone();
    match ty.as_tuple() {
        Some(fs) => fs.to_vec(),
        None => vec![ty],
    }
}

/// Checks `ty` against a test tensor: the dtype, and every static extent.
fn check_against(name: &str, ty: &Type, pb: &Path) {
    let want = decode_tensor(&std::fs::read(pb).expect("read a .pb")).expect("a tensor");
    let t = ty
        .as_tensor()
        .unwrap_or_else(|| panic!("{name}: {ty} is not a tensor"));
    assert_eq!(t.dtype, want.dtype, "{name}: dtype of {}", pb.display());
    assert_eq!(
        t.shape.len(),
        want.shape.len(),
        "{name}: rank, {ty} vs {:?}",
        want.shape
    );
    for (d, w) in t.shape.iter().zip(&want.shape) {
        if let Some(d) = d.as_static() {
            assert_eq!(d, *w, "{name}: {ty} vs {:?}", want.shape);
        }
    }
}

/// Whether graph output `i` of the model is a sequence (its test data is then a
/// SequenceProto, not a tensor).
fn output_is_sequence(model: &Path, i: usize) -> bool {
    let bytes = std::fs::read(model).expect("read the model");
    let m = passlab::onnx::proto::decode_model(&bytes).expect("a model");
    let g = m.graph.expect("a graph");
    g.output[i]
        .r#type
        .as_ref()
        .is_some_and(|t| t.sequence_type.is_some())
}

#[test]
fn every_operator_model_imports_and_type_checks_or_is_listed() {
    let models = operator_models();
    assert!(models.len() >= 130, "{} operator models", models.len());
    let mut ok = 0;
    let mut unexpected = Vec::new();
    for (name, path) in &models {
        let listed = CANNOT.iter().find(|(n, ..)| n == name);
        let imported = import_file(path, &ImportOptions::default());
        match (imported, listed) {
            (Ok(m), None) => {
                let typed = infer_module(&m)
                    .unwrap_or_else(|e| panic!("{name}: InferType fails: {}", e.message));
                let dir = path.parent().expect("a test directory");
                let set = dir.join("test_data_set_0");
                for (i, ty) in result_types(&typed).iter().enumerate() {
                    let pb = set.join(format!("output_{i}.pb"));
                    if pb.is_file() && !output_is_sequence(path, i) {
                        check_against(name, ty, &pb);
                    }
                }
                let f = typed.get_function("main").expect("@main");
                for (i, p) in f.params.iter().enumerate() {
                    let pb = set.join(format!("input_{i}.pb"));
                    if pb.is_file() {
                        check_against(name, p.ann().expect("typed"), &pb);
                    }
                }
                ok += 1;
            }
            (Err(e), Some((_, _, piece))) => {
                assert!(
                    e.message.contains(piece),
                    "{name}: the error should say `{piece}`: {}",
                    e.message
                );
            }
            (Ok(_), Some(_)) => unexpected.push(format!("{name}: imports now; unlist it")),
            (Err(e), None) => unexpected.push(format!("{name}: {}", e.message)),
        }
    }
    assert!(unexpected.is_empty(), "{}", unexpected.join("\n"));
    assert_eq!(ok + CANNOT.len(), models.len());
    // At least 90% of the operator models.
    assert!(ok * 10 >= models.len() * 9, "{ok} of {}", models.len());
}

#[test]
fn the_light_models_run_through_the_standard_pipeline_at_opt_level_3() {
    let models = light_models();
    assert_eq!(models.len(), 9, "{models:?}");
    let mut pm = PassManager::new(passlab::passes::registry());
    let names = [
        "InferType",
        "SimplifyInference",
        "FoldConstant",
        "FoldScaleAxis",
        "EliminateCommonSubexpr",
        "FuseOps",
    ];
    let pipeline = sequential(names.iter().map(|n| pm.pass(n).expect("a pass")).collect());
    let ctx = PassContext::builder()
        .opt_level(3)
        .build()
        .expect("a context");
    for path in &models {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let m =
            import_file(path, &ImportOptions::default()).unwrap_or_else(|e| panic!("{name}: {e}"));
        let typed = infer_module(&m).unwrap_or_else(|e| panic!("{name}: {}", e.message));
        // The result has the type of the expected output the package ships beside the model.
        let pb = path.with_file_name(name.replace(".onnx", "_output_0.pb"));
        check_against(&name, &result_types(&typed)[0], &pb);
        let out = pm
            .with_context(&ctx, |pm| pm.run(&pipeline, &m))
            .unwrap_or_else(|e| panic!("{name}: the pipeline fails: {e}"));
        // SimplifyInference removed every batch_norm and dropout; FuseOps made primitive
        // functions.
        let (mut primitives, mut left) = (0, Vec::new());
        for (_, f) in out.functions() {
            visit::each_node(f, |n| match n.kind() {
                ExprKind::Function(f) if f.attr("Primitive").is_some() => primitives += 1,
                ExprKind::Op(op) if matches!(op.name(), "nn.batch_norm" | "nn.dropout") => {
                    left.push(op.name())
                }
                _ => {}
            });
        }
        assert!(left.is_empty(), "{name}: {left:?} left");
        assert!(primitives > 0, "{name}: nothing fused");
        let typed_out = infer_module(&out).unwrap_or_else(|e| panic!("{name}: {}", e.message));
        check_against(&name, &result_types(&typed_out)[0], &pb);
    }
}

#[test]
fn initializers_become_parameters_without_freezing() {
    let path = data_dir().join("light/light_squeezenet.onnx");
    let frozen = import_file(&path, &ImportOptions::default()).expect("imports");
    let free = import_file(
        &path,
        &ImportOptions {
            freeze_params: false,
        },
    )
    .expect("imports");
    let params = |m: &Module| m.get_function("main").expect("@main").params.len();
    assert_eq!(params(&frozen), 1);
    // The data, then every initializer (the weights' shapes, read by ConstantOfShape).
    let bytes = std::fs::read(&path).expect("read");
    let g = passlab::onnx::proto::decode_model(&bytes)
        .expect("a model")
        .graph
        .expect("a graph");
    let mut names: Vec<&str> = g.input.iter().filter_map(|i| i.name.as_deref()).collect();
    for t in &g.initializer {
        let n = t.name.as_deref().unwrap_or("");
        if !names.contains(&n) {
            names.push(n);
        }
    }
    assert_eq!(params(&free), names.len());
    let typed = infer_module(&free).expect("type-checks");
    let f = typed.get_function("main").expect("@main");
    assert_eq!(
        f.params[0]
            .ann()
            .and_then(|t| t.as_tensor())
            .map(|t| t.dtype),
        Some(DType::FLOAT32)
    );
}

#[test]
fn test_data_tensors_decode_as_passlab_tensors() {
    let set = data_dir().join("pytorch-converted/test_AvgPool2d/test_data_set_0");
    let t = passlab::onnx::read_tensor_file(&set.join("input_0.pb")).expect("a tensor");
    assert_eq!(t.dtype, DType::FLOAT32);
    assert_eq!(t.shape.len(), 4);
    assert_eq!(t.bytes.len(), t.num_elements() * 4);
    let garbage = passlab::onnx::read_tensor_file(&data_dir().join("light/light_vgg19.onnx"));
    assert!(garbage.is_err(), "a model is not a tensor");
}
