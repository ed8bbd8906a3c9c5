//! Passes over IR modules. Each pass is a plain function from module to module (or an
//! analysis); the pass manager wraps them as registered module/function passes.

pub mod infer_type;
pub mod fold_constant;
