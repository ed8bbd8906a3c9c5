//! Every op TVM v0.18's FoldConstant would fold has a kernel: walks the op table and fails on
//! an op that passlab can type-check, that FoldConstant does not skip (stateful,
//! non-computational, `device_copy`, `shape_of`, `vm.shape_of`, `ndarray_size`; TVM's
//! `fold_constant.cc`), and that has no kernel in `eval::ops`, unless it is listed below with
//! the reason it has none.

use passlab::eval::ops::has_kernel;
use passlab::passes::infer_type::has_type_rule;

/// Ops with a type rule and no kernel, each with why.
const NO_KERNEL: &[(&str, &str)] = &[
    (
        "nn.deformable_conv2d",
        "not written yet: bilinear sampling at learned offsets; left unfolded",
    ),
    (
        "vision.roi_align",
        "not written yet: bilinear sampling per region; left unfolded",
    ),
    (
        "vision.roi_pool",
        "not written yet: max over quantized regions; left unfolded",
    ),
    (
        "image.resize1d",
        "not written yet: image.resize2d's kernel covers 2-d NCHW only",
    ),
    (
        "image.resize3d",
        "not written yet: image.resize2d's kernel covers 2-d NCHW only",
    ),
    (
        "nn.contrib_conv2d_gemm_weight_transform",
        "not written yet: ARM's interleaved gemm packing of a kernel (target code)",
    ),
    (
        "nn.contrib_conv2d_gemm_without_weight_transform",
        "not written yet: a convolution over ARM's interleaved gemm packing (target code)",
    ),
    (
        "qnn.avg_pool2d",
        "not written yet; TVM folds it only with fold_qnn (it is QNN-canonicalized)",
    ),
    (
        "qnn.simulated_quantize",
        "not written yet: its out_dtype is a run-time code tensor (SQNN_DTYPE_TO_CODE)",
    ),
    (
        "qnn.simulated_dequantize",
        "not written yet: its in_dtype is a run-time code tensor (SQNN_DTYPE_TO_CODE)",
    ),
];

fn skipped_by_fold_constant(op: &passlab::ir::Op) -> bool {
    op.stateful
        || op.non_computational
        || matches!(
            op.name(),
            "device_copy" | "shape_of" | "vm.shape_of" | "ndarray_size"
        )
}

#[test]
fn every_foldable_op_with_a_type_rule_has_a_kernel() {
    let mut missing = Vec::new();
    for op in passlab::ir::op::all() {
        let name = op.name();
        if !has_type_rule(op) || skipped_by_fold_constant(&op) || has_kernel(name) {
            continue;
        }
        if NO_KERNEL.iter().any(|(n, _)| *n == name) {
            continue;
        }
        missing.push(name);
    }
    assert!(
        missing.is_empty(),
        "{} ops TVM's FoldConstant folds have no kernel:\n{}",
        missing.len(),
        missing.join("\n")
    );
}

/// The list above stays true: each listed op is registered, has a type rule, is folded by
/// TVM, and still has no kernel (a kernel added later must take it off the list).
#[test]
fn the_ops_listed_without_a_kernel_really_lack_one() {
    for (name, why) in NO_KERNEL {
        let op = passlab::ir::Op::get(name).unwrap_or_else(|| panic!("{name} is not an op"));
        assert!(has_type_rule(op), "{name} has no type rule");
        assert!(
            !skipped_by_fold_constant(&op),
            "{name} is not folded anyway"
        );
        assert!(!has_kernel(name), "{name} has a kernel now ({why})");
    }
}
