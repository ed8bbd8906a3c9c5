//! The tensor builtins: `tensor` (a `.npy` file or nested lists), `save_tensor`, `evaluate`
//! (the reference evaluator, `crate::eval`) and `allclose`. A tuple result is a list of
//! tensors (nested lists for nested tuples), and `allclose` takes the same shapes.

use super::builtins::{at, b_const, resolve, Bound};
use super::{Session, SessionError, Value};
use crate::eval::compare;
use crate::eval::Output;
use crate::ir::TensorData;
use std::sync::Arc;

pub(super) fn b_tensor(s: &mut Session, a: Bound) -> Result<Value, SessionError> {
    let Some(Value::Str(path)) = a.get("data") else {
        return b_const(s, a);
    };
    if a.get("dtype").is_some() {
        return Err(at(
            "tensor: a file's dtype is its own (cast it with a module if needed)",
            a.span_of("dtype"),
        ));
    }
    if path.ends_with(".pb") {
        // An ONNX TensorProto (the `input_0.pb` files of ONNX test data).
        let full = resolve(s, path);
        return crate::onnx::read_tensor_file(&full)
            .map(|t| Value::Tensor(Arc::new(t)))
            .map_err(|e| at(format!("{path}: {e}"), a.span_of("data")));
    }
    if !path.ends_with(".npy") {
        return Err(at(
            format!(
                "tensor reads NumPy .npy files and ONNX TensorProto .pb files; {path:?} ends in \
                 neither"
            ),
            a.span_of("data"),
        ));
    }
    let full = resolve(s, path);
    // Never read more than the largest tensor a .npy may hold: 2^32 elements of 8 bytes.
    let most = crate::limits::MAX_TENSOR_ELEMENTS * 8 + crate::eval::npy::MAX_HEADER as u64 + 16;
    if std::fs::metadata(&full).is_ok_and(|m| m.len() > most) {
        return Err(at(
            format!("{path} is larger than any tensor passlab reads ({most} bytes)"),
            a.span_of("data"),
        ));
    }
    let bytes = crate::files::read_bytes(&full, most)
        .map_err(|e| at(format!("cannot read {path}: {e}"), a.span_of("data")))?;
    crate::eval::npy::read(&bytes)
        .map(|t| Value::Tensor(Arc::new(t)))
        .map_err(|e| {
            at(
                format!("{path} is not a tensor file NumPy wrote: {e}"),
                a.span_of("data"),
            )
        })
}

pub(super) fn b_save_tensor(s: &mut Session, a: Bound) -> Result<Value, SessionError> {
    let t = match a.require("tensor")? {
        Value::Tensor(t) => t.clone(),
        v => return Err(a.type_err("tensor", "a tensor", v)),
    };
    let path = a
        .str("path")?
        .ok_or_else(|| at("save_tensor needs a path", a.span))?;
    let bytes = crate::eval::npy::write(&t)
        .map_err(|e| at(format!("save_tensor: {e}"), a.span_of("tensor")))?;
    let full = resolve(s, &path);
    crate::files::write_atomic(&full, &bytes)
        .map_err(|e| at(format!("cannot write {path}: {e}"), a.span_of("path")))?;
    Ok(Value::None)
}

/// A result as a language value: a tensor, or a list (of lists) of tensors.
fn to_value(o: Output, depth: usize) -> Result<Value, String> {
    if depth > crate::lang::parser::MAX_NESTING {
        return Err(format!(
            "the result nests tuples more than {} deep (the language's limit)",
            crate::lang::parser::MAX_NESTING
        ));
    }
    Ok(match o {
        Output::Tensor(t) => Value::Tensor(Arc::new(t)),
        Output::Tuple(items) => Value::List(
            items
                .into_iter()
                .map(|i| to_value(i, depth + 1))
                .collect::<Result<_, _>>()?,
        ),
        Output::Adt(a) => Value::Str(a.text()),
    })
}

/// A language value as a result to compare: a tensor, or a list (of lists) of tensors.
fn to_output(v: &Value, depth: usize) -> Option<Output> {
    if depth > crate::lang::parser::MAX_NESTING {
        return None;
    }
    match v {
        Value::Tensor(t) => Some(Output::Tensor((**t).clone())),
        Value::List(items) => Some(Output::Tuple(
            items
                .iter()
                .map(|i| to_output(i, depth + 1))
                .collect::<Option<_>>()?,
        )),
        _ => None,
    }
}

pub(super) fn b_evaluate(s: &mut Session, a: Bound) -> Result<Value, SessionError> {
    let (m, default_func) = match a.require("module")? {
        Value::Module(m) => (m.clone(), "main".to_string()),
        Value::Function { name, module, .. } => (module.clone(), name.clone()),
        v => return Err(a.type_err("module", "a module", v)),
    };
    let func = a.str("func")?.unwrap_or(default_func);
    let inputs: Vec<Arc<TensorData>> = match a.get("inputs") {
        None => Vec::new(),
        Some(Value::Tensor(t)) => vec![t.clone()],
        Some(Value::List(items)) => items
            .iter()
            .map(|v| match v {
                Value::Tensor(t) => Ok(t.clone()),
                other => Err(a.type_err("inputs", "a list of tensors", other)),
            })
            .collect::<Result<_, _>>()?,
        Some(v) => return Err(a.type_err("inputs", "a list of tensors", v)),
    };
    let refs: Vec<&TensorData> = inputs.iter().map(|t| &**t).collect();
    let flag = s.interrupt_flag();
    let out = crate::eval::evaluate_with(&m, &func, &refs, Some(&flag)).map_err(|e| {
        let span = if e.message.contains("argument") {
            a.span_of("inputs")
        } else {
            a.span
        };
        at(format!("evaluate: {}", e.message), span)
    })?;
    to_value(out, 0).map_err(|e| at(format!("evaluate: {e}"), a.span))
}

pub(super) fn b_allclose(s: &mut Session, a: Bound) -> Result<Value, SessionError> {
    let side = |p: &str| -> Result<Output, SessionError> {
        let v = a.require(p)?;
        to_output(v, 0).ok_or_else(|| a.type_err(p, "a tensor or a list of tensors", v))
    };
    let (x, y) = (side("a")?, side("b")?);
    let rtol = a.tolerance("rtol")?.unwrap_or(1e-5);
    let atol = a.tolerance("atol")?.unwrap_or(1e-8);
    let equal_nan = a.bool("equal_nan")?.unwrap_or(false);
    match compare::outputs(&x, &y, rtol, atol, equal_nan) {
        None => Ok(Value::Bool(true)),
        Some(d) => {
            crate::pass::sink::emit(
                &s.sink,
                crate::pass::ChunkKind::Log,
                "allclose",
                &format!("not close: {d}"),
            );
            Ok(Value::Bool(false))
        }
    }
}
