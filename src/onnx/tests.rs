//! Unit tests of the ONNX reader on protobuf built in Rust.
