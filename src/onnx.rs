//! ONNX import: an ONNX model file becomes a Relay module with one function, `@main`,
//! following TVM v0.18's ONNX frontend (`relay.frontend.from_onnx`) op by op.
//!
//! Layers: `proto.rs` declares the ONNX protobuf messages (prost), `tensor.rs` turns a
//! `TensorProto` into a [`TensorData`], `import.rs` walks the graph and `ops.rs` (with
//! `ops/nn.rs`) converts each node. Entry points: [`import_file`], [`import_bytes`],
//! [`read_tensor_file`] and [`decode_tensor`].
//!
//! Hostile input: the file size is checked before it is read ([`MAX_ONNX_BYTES`], the
//! protobuf format's own 2 GiB bound); protobuf decoding bounds nesting and checks each
//! length against the bytes left; tensor shapes are checked against
//! [`crate::limits::MAX_TENSOR_ELEMENTS`] and against the data they come with before
//! anything is allocated. Every failure is an [`OnnxError`] naming what is wrong and, for a
//! node, the node, its op type and the opset.

mod import;
mod ops;
pub mod proto;
pub mod tensor;

pub use import::{MAX_OPSET, MIN_OPSET};

use crate::ir::{Module, Span, TensorData};
use std::path::Path;

pub use crate::limits::MAX_ONNX_BYTES;

/// How a model is imported.
#[derive(Clone, Debug)]
pub struct ImportOptions {
    /// Initializers become constants (TVM's `freeze_params=True`, the default here); with
    /// `false` they become parameters of `@main` after the graph inputs.
    pub freeze_params: bool,
}

impl Default for ImportOptions {
    fn default() -> Self {
        ImportOptions {
            freeze_params: true,
        }
    }
}

/// Why a model or tensor could not be imported.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OnnxError {
    pub message: String,
    /// The ONNX node the error is about: its name's span in the module's source text (the
    /// list of node names), when there is one.
    pub span: Option<Span>,
}

impl OnnxError {
    pub fn new(message: impl Into<String>) -> OnnxError {
        OnnxError {
            message: message.into(),
            span: None,
        }
    }

    pub(crate) fn at(mut self, span: Span) -> OnnxError {
        self.span = Some(span);
        self
    }
}

impl std::fmt::Display for OnnxError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for OnnxError {}

/// True for a path passlab reads as ONNX (by its extension, `.onnx`).
pub fn is_onnx_path(path: &str) -> bool {
    Path::new(path)
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("onnx"))
}

/// Reads and imports an ONNX model file. Errors start with the file's name as given.
pub fn import_file(path: &Path, opts: &ImportOptions) -> Result<Module, OnnxError> {
    let name = path.display().to_string();
    let bytes = crate::files::read_bytes(path, MAX_ONNX_BYTES)
        .map_err(|e| OnnxError::new(format!("cannot read {name}: {e}")))?;
    import_bytes(&bytes, &name, opts).map_err(|e| OnnxError {
        message: format!("{name}: {}", e.message),
        span: e.span,
    })
}

/// Imports a model from its bytes; `source_name` names the module's source (the file).
pub fn import_bytes(
    bytes: &[u8],
    source_name: &str,
    opts: &ImportOptions,
) -> Result<Module, OnnxError> {
    if bytes.is_empty() {
        return Err(OnnxError::new("not an ONNX model: the file is empty"));
    }
    let model = proto::decode_model(bytes)
        .map_err(|e| OnnxError::new(format!("not an ONNX model: {}", decode_message(&e))))?;
    import::import_model(&model, source_name, opts)
}

/// Reads an ONNX `TensorProto` file (the `input_0.pb` of the ONNX test data) as a tensor.
pub fn read_tensor_file(path: &Path) -> Result<TensorData, OnnxError> {
    let name = path.display().to_string();
    let bytes = crate::files::read_bytes(path, MAX_ONNX_BYTES)
        .map_err(|e| OnnxError::new(format!("cannot read {name}: {e}")))?;
    decode_tensor(&bytes).map_err(|e| OnnxError::new(format!("{name}: {}", e.message)))
}

/// Decodes one ONNX `TensorProto` into a tensor.
pub fn decode_tensor(bytes: &[u8]) -> Result<TensorData, OnnxError> {
    let t = proto::decode_tensor(bytes)
        .map_err(|e| OnnxError::new(format!("not an ONNX tensor: {}", decode_message(&e))))?;
    tensor::to_data(&t).map_err(|e| {
        let name = t.name.as_deref().unwrap_or("");
        if name.is_empty() {
            OnnxError::new(format!("tensor: {e}"))
        } else {
            OnnxError::new(format!("tensor `{name}`: {e}"))
        }
    })
}

/// A protobuf decode error in words (prost's mentions the message and field it was in).
fn decode_message(e: &prost::DecodeError) -> String {
    let s = e.to_string();
    s.strip_prefix("failed to decode Protobuf message: ")
        .unwrap_or(&s)
        .to_string()
}

#[cfg(test)]
mod tests;
