//! Shared by the ONNX tests: the ONNX package's test models (a venv made by
//! `tests/onnx/setup.sh`), and small models built here with passlab's own protobuf types.

#![allow(dead_code)]

pub mod numerics;

use passlab::onnx::proto::*;
use prost::Message;
use std::path::PathBuf;
use std::sync::OnceLock;

/// `onnx/backend/test/data` of the pinned ONNX package (made on first use; a failure to make
/// it fails the test, never skips it).
pub fn data_dir() -> PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
        let out = std::process::Command::new("bash")
            .arg(root.join("tests/onnx/setup.sh"))
            .output()
            .expect("run tests/onnx/setup.sh");
        assert!(
            out.status.success(),
            "tests/onnx/setup.sh failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = String::from_utf8(out.stdout).expect("a path");
        let dir = PathBuf::from(text.lines().last().expect("the data directory").trim());
        assert!(dir.is_dir(), "no ONNX test data at {}", dir.display());
        dir
    })
    .clone()
}

/// The ONNX package's node test cases (one model per operator case), written under
/// `target/onnx-node-data` by `tests/onnx/node_data.py` from the generators the package
/// ships (made once; a failure fails the test).
pub fn node_data_dir() -> PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        data_dir();
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
        let venv = std::env::var_os("PASSLAB_ONNX_VENV")
            .map(PathBuf::from)
            .unwrap_or_else(|| root.join("target/onnx-venv"));
        let out = root.join("target/onnx-node-data");
        if !out.join(".done").is_file() {
            let status = std::process::Command::new(venv.join("bin/python"))
                .arg(root.join("tests/onnx/node_data.py"))
                .arg(&out)
                .status()
                .expect("run tests/onnx/node_data.py");
            assert!(status.success(), "tests/onnx/node_data.py failed");
        }
        out
    })
    .clone()
}

/// The node test cases: (name, model path), sorted.
pub fn node_models() -> Vec<(String, PathBuf)> {
    let mut out: Vec<(String, PathBuf)> = std::fs::read_dir(node_data_dir())
        .expect("the node cases")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|d| d.join("model.onnx").is_file())
        .map(|d| {
            (
                d.file_name().unwrap().to_string_lossy().into_owned(),
                d.join("model.onnx"),
            )
        })
        .collect();
    out.sort();
    out
}

/// The operator test models: (group/name, model path), sorted.
pub fn operator_models() -> Vec<(String, PathBuf)> {
    let mut out = Vec::new();
    for group in ["pytorch-converted", "pytorch-operator", "simple"] {
        for e in std::fs::read_dir(data_dir().join(group)).expect("a test group") {
            let dir = e.expect("an entry").path();
            let model = dir.join("model.onnx");
            if model.is_file() {
                let name = dir.file_name().unwrap().to_string_lossy().into_owned();
                out.push((format!("{group}/{name}"), model));
            }
        }
    }
    out.sort();
    out
}

/// The nine `light/` models, sorted.
pub fn light_models() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(data_dir().join("light"))
        .expect("light models")
        .map(|e| e.expect("an entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "onnx"))
        .collect();
    v.sort();
    v
}

// ---- small models built here

pub const FLOAT: i32 = 1;
pub const INT64: i32 = 7;

pub fn value_info(name: &str, elem: i32, dims: &[i64]) -> ValueInfoProto {
    ValueInfoProto {
        name: Some(name.into()),
        r#type: Some(TypeProto {
            tensor_type: Some(TensorTypeProto {
                elem_type: Some(elem),
                shape: Some(TensorShapeProto {
                    dim: dims
                        .iter()
                        .map(|&d| Dimension {
                            dim_value: Some(d),
                            dim_param: None,
                        })
                        .collect(),
                }),
            }),
            ..Default::default()
        }),
    }
}

pub fn node(op: &str, inputs: &[&str], outputs: &[&str], attrs: Vec<AttributeProto>) -> NodeProto {
    NodeProto {
        input: inputs.iter().map(|s| s.to_string()).collect(),
        output: outputs.iter().map(|s| s.to_string()).collect(),
        name: None,
        op_type: Some(op.into()),
        domain: None,
        attribute: attrs,
    }
}

pub fn attr_i(name: &str, v: i64) -> AttributeProto {
    AttributeProto {
        name: Some(name.into()),
        r#type: Some(attr_type::INT),
        i: Some(v),
        ..Default::default()
    }
}

pub fn attr_f(name: &str, v: f32) -> AttributeProto {
    AttributeProto {
        name: Some(name.into()),
        r#type: Some(attr_type::FLOAT),
        f: Some(v),
        ..Default::default()
    }
}

pub fn attr_ints(name: &str, v: &[i64]) -> AttributeProto {
    AttributeProto {
        name: Some(name.into()),
        r#type: Some(attr_type::INTS),
        ints: v.to_vec(),
        ..Default::default()
    }
}

pub fn attr_s(name: &str, v: &str) -> AttributeProto {
    AttributeProto {
        name: Some(name.into()),
        r#type: Some(attr_type::STRING),
        s: Some(v.as_bytes().to_vec()),
        ..Default::default()
    }
}

pub fn tensor_f32(name: &str, dims: &[i64], data: &[f32]) -> TensorProto {
    TensorProto {
        dims: dims.to_vec(),
        data_type: Some(FLOAT),
        float_data: data.to_vec(),
        name: Some(name.into()),
        ..Default::default()
    }
}

pub fn tensor_i64(name: &str, dims: &[i64], data: &[i64]) -> TensorProto {
    TensorProto {
        dims: dims.to_vec(),
        data_type: Some(INT64),
        int64_data: data.to_vec(),
        name: Some(name.into()),
        ..Default::default()
    }
}

/// A model of one graph at `opset`, encoded.
pub fn model(
    opset: i64,
    nodes: Vec<NodeProto>,
    inputs: Vec<ValueInfoProto>,
    outputs: &[&str],
    inits: Vec<TensorProto>,
) -> Vec<u8> {
    ModelProto {
        ir_version: Some(8),
        opset_import: vec![OperatorSetIdProto {
            domain: Some(String::new()),
            version: Some(opset),
        }],
        producer_name: Some("passlab tests".into()),
        graph: Some(GraphProto {
            node: nodes,
            name: Some("g".into()),
            initializer: inits,
            input: inputs,
            output: outputs
                .iter()
                .map(|o| ValueInfoProto {
                    name: Some(o.to_string()),
                    r#type: None,
                })
                .collect(),
        }),
    }
    .encode_to_vec()
}
