//! The resource limits on input: what a file, a statement or a metadata section may ask for
//! before it is refused with an error. Each is checked where the input is read, so that no
//! input aborts the process, overflows the stack or exhausts memory. Depth that the IR
//! carries legitimately (expressions and types nested a million deep) is not limited: it is
//! handled by iterative walks and stacks grown on demand (`ir::deep`).

/// Attribute values nested in one another (`[[1, 2], [3, 4]]` is 2 deep). TVM's attributes
/// nest at most three deep.
pub const MAX_ATTR_DEPTH: usize = 64;

/// Dimensions of one tensor in a `#[metadata]` section (DLPack allows any `u32`).
pub const MAX_TENSOR_NDIM: usize = 64;

/// Elements of one tensor: constants in a metadata section, `const(...)` and the tensors the
/// evaluator makes (2^32, 16 GiB of float32).
pub const MAX_TENSOR_ELEMENTS: u64 = 1 << 32;

/// Attribute values one metadata attrs object may expand to: the JSON shares objects by
/// index, so a few hundred bytes can describe a tree of 2^64 values.
pub const MAX_METADATA_VALUES: usize = 1 << 20;

/// How deep `match` patterns may nest (`Cons(Cons(Cons(...)))`): walks over one pattern
/// recurse, so the parser refuses deeper ones.
pub const MAX_PATTERN_DEPTH: usize = 256;
/// Bytes of one text file read whole (a Relay program, a script, a connection file): spans
/// are 32-bit offsets, and a larger file is refused before it is read.
pub const MAX_TEXT_BYTES: u64 = 2 << 30;

/// Bytes of one ONNX file (a model or a tensor): protobuf's own bound on a message, 2 GiB.
pub const MAX_ONNX_BYTES: u64 = 2 << 30;

/// Distinct layout names (`NCHW`, `NCHW16c`, ...) the layout rewriter interns in a process:
/// they are never freed (a layout is compared by address), so a long session cannot make the
/// table grow past this many (a few MiB). A model names a handful.
pub const MAX_LAYOUTS: usize = 1 << 16;

/// Ops registered at run time (`register_op`) in a process: each lives until the process ends,
/// so a script cannot make the registry grow without bound.
pub const MAX_REGISTERED_OPS: usize = 4096;

/// Threads one function pass may use (`passlab.num_threads`): each is an OS thread with its
/// own stack, so a mistyped count must not start millions.
pub const MAX_THREADS: usize = 256;
