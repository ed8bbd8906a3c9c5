//! Op-level numerics ported from TVM v0.18's `tests/python/relay/test_op_level{1,2,3,4,5,10}.py`:
//! `tests/eval_ops/cases.json` holds each case's Relay call, its small seeded inputs and the
//! output NumPy computes for it (written by `tests/eval_ops/make_cases.py`, which needs
//! NumPy; this test does not). Each case is evaluated with its inputs as parameters and must
//! be `allclose` to NumPy's output within the case's tolerances; and the same call with its
//! inputs as constants must fold, under FoldConstant, to exactly the evaluated numbers.

use passlab::eval::{compare, evaluate, Output};
use passlab::ir::{DType, ExprKind, TensorData};
use passlab::passes::fold_constant::fold_constant;
use passlab::text::metadata::MetaTable;
use passlab::text::{parse_module, parse_module_with_meta};
use serde_json::Value as Json;
use std::sync::Arc;

fn tensor(j: &Json) -> TensorData {
    let dtype = DType::parse(j["dtype"].as_str().unwrap()).unwrap();
    let shape: Vec<i64> = j["shape"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_i64().unwrap())
        .collect();
    let data = j["data"].as_array().unwrap();
    if dtype.is_float() {
        let v: Vec<f64> = data.iter().map(|d| d.as_f64().unwrap()).collect();
        TensorData::from_f64(dtype, shape, &v)
    } else {
        let v: Vec<i64> = data.iter().map(|d| d.as_i64().unwrap()).collect();
        TensorData::from_i64(dtype, shape, &v)
    }
}

fn type_of(t: &TensorData) -> String {
    let dims: Vec<String> = t.shape.iter().map(i64::to_string).collect();
    let comma = if dims.len() == 1 { "," } else { "" };
    format!("Tensor[({}{comma}), {}]", dims.join(", "), t.dtype)
}

/// Runs one case; the reason when it fails.
fn check(case: &Json) -> Result<(), String> {
    let body = case["body"].as_str().unwrap();
    let inputs: Vec<TensorData> = case["inputs"]
        .as_array()
        .unwrap()
        .iter()
        .map(tensor)
        .collect();
    let expected = if case["tuple"].as_bool().unwrap() {
        Output::Tuple(
            case["expected"]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| Output::Tensor(tensor(t)))
                .collect(),
        )
    } else {
        Output::Tensor(tensor(&case["expected"]))
    };
    let (rtol, atol) = (
        case["rtol"].as_f64().unwrap(),
        case["atol"].as_f64().unwrap(),
    );
    let params: Vec<String> = inputs
        .iter()
        .enumerate()
        .map(|(i, t)| format!("%a{i}: {}", type_of(t)))
        .collect();
    let text = format!(
        "#[version = \"0.0.5\"]\ndef @main({}) {{ {body} }}",
        params.join(", ")
    );
    let m = parse_module(&text, "case").map_err(|e| format!("does not parse: {e}"))?;
    let refs: Vec<&TensorData> = inputs.iter().collect();
    let got = evaluate(&m, "main", &refs).map_err(|e| format!("evaluate: {e}"))?;
    if let Some(d) = compare::outputs(&got, &expected, rtol, atol, false) {
        return Err(format!("differs from NumPy: {d}"));
    }
    // The same call on constants, folded: exactly the evaluated numbers (stateful ops such as
    // `nn.dropout` are not folded, as in TVM).
    if !case["fold"].as_bool().unwrap() {
        return Ok(());
    }
    let mut folded_body = body.to_string();
    for i in (0..inputs.len()).rev() {
        folded_body = folded_body.replace(&format!("%a{i}"), &format!("meta[relay.Constant][{i}]"));
    }
    let table = MetaTable {
        constants: inputs.iter().map(|t| Some(Arc::new(t.clone()))).collect(),
        ..Default::default()
    };
    let text = format!("#[version = \"0.0.5\"]\ndef @main() {{ {folded_body} }}");
    let m = parse_module_with_meta(&text, "fold", Some(&table)).map_err(|e| format!("{e}"))?;
    let out = fold_constant(&m);
    let body = &out.get_function("main").unwrap().body;
    let folded = match body.kind() {
        ExprKind::Constant(c) => Output::Tensor(c.data.as_deref().unwrap().clone()),
        ExprKind::Tuple(fields) => Output::Tuple(
            fields
                .iter()
                .map(|f| match f.kind() {
                    ExprKind::Constant(c) => Some(Output::Tensor(c.data.as_deref()?.clone())),
                    _ => None,
                })
                .collect::<Option<_>>()
                .ok_or("FoldConstant left a tuple field unfolded")?,
        ),
        _ => return Err("FoldConstant did not fold the call".into()),
    };
    if folded != got {
        return Err("FoldConstant's numbers differ from evaluate's".into());
    }
    Ok(())
}

#[test]
fn tvm_op_level_cases_match_numpy() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/eval_ops/cases.json");
    let all: Json = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let cases = all["cases"].as_array().unwrap();
    assert!(cases.len() >= 100, "{} cases", cases.len());
    let failures: Vec<String> = cases
        .iter()
        .filter_map(|c| {
            check(c)
                .err()
                .map(|e| format!("{}: {e}", c["name"].as_str().unwrap()))
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} cases fail:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}
