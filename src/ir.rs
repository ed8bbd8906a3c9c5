//! The Relay-style IR: types, expressions, modules, the op registry, structural equality and
//! hashing, and the well-formedness check. `ir` knows nothing about passes, the text format's
//! parser, the command language or any front end.

pub mod adt;
pub mod attrs;
pub mod dtype;
pub mod expr;
pub mod module;
pub mod mutate;
pub mod node_hash;
pub mod op;
mod op_table;
pub mod scratch;
pub mod sharing;
pub mod structural;
pub mod tensor;
pub mod type_args;
pub mod types;
pub mod var_map;
pub mod visit;
pub mod well_formed;

pub use adt::{Clause, Constructor, Match, Pattern};
pub use attrs::{AttrValue, Attrs};
pub use dtype::DType;
pub use expr::{Call, Contains, Expr, ExprKind, Function, GlobalVar, If, Let, Span, Var};
pub use module::{Module, ModuleError, SourceFile, TypeDef};
pub use node_hash::{NodeMap, NodeSet};
pub use op::{Op, OpPattern};
pub use structural::{expr_equal, expr_hash, module_equal, module_hash};
pub use tensor::{Constant, TensorData};
pub use types::{Dim, FuncType, NamedType, TensorType, Type, TypeKind, TypeVar};
pub use var_map::{PendingLets, VarMap};

/// Runs `f` with at least 64 KiB of stack left, moving to a new 1 MiB segment when less is
/// left: what every recursion over user-built structure (types, attribute values, the
/// recursive parts of the parsers and printers) goes through, so that depth costs heap, not
/// a stack overflow.
#[inline]
pub fn deep<R>(f: impl FnOnce() -> R) -> R {
    stacker::maybe_grow(64 * 1024, 1024 * 1024, f)
}
