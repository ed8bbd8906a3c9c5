//! Passes over IR modules. Each pass is a plain function from module to module (or an
//! analysis); the pass manager wraps them as registered module/function passes.
//!
//! Every pass is written with the memoizing, stack-safe traversal of [`crate::ir::mutate`]:
//! it preserves sharing, returns unchanged subtrees as they are, and handles million-deep
//! programs on a small stack.

pub mod canonicalize_ops;
pub mod dead_code;
pub mod eliminate_common_subexpr;
pub mod fold_constant;
pub mod infer_type;
pub mod simplify_inference;
pub mod to_a_normal_form;
pub mod to_graph_normal_form;
