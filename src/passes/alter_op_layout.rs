//! AlterOpLayout (TVM's `relay.transform.AlterOpLayout`, `alter_op_layout.cc`): a function pass
//! (level 3, requires InferType) that asks every op call's alter-layout hook for a replacement
//! call (TVM's `FTVMAlterOpLayout`, e.g. x86 `nn.conv2d` -> `contrib_conv2d_NCHWc` with
//! `NCHW16c` data) and then runs the layout rewriter of `layout_rewrite.rs` to insert the
//! `layout_transform`s the new layouts need.
//!
//! The hooks are target-specific (TVM registers them in Python per target, and the generic ones
//! return no replacement). passlab has no targets, so it registers no hook: every call keeps its
//! attributes, the rewriter finds the same layouts before and after, inserts nothing, and the
//! pass returns each function unchanged (the same node), exactly like TVM without a target.
//! Hooks are a [`LayoutHook`]: [`alter_op_layout_with`] runs the rewriter with any hook, which
//! is how the machinery is tested.

use super::layout_rewrite::{LayoutHook, Rewriter};
use crate::ir::mutate::mutate;
use crate::ir::{Attrs, Contains, Expr, Op};
use crate::pass::{function_pass, Pass, PassError, PassOptions};

/// The hooks passlab knows: none (no targets), so attributes never change.
pub struct NoTargetHooks;

impl LayoutHook for NoTargetHooks {
    fn new_attrs(&self, _op: Op, _call: &Expr, attrs: &Attrs) -> Attrs {
        attrs.clone()
    }
}

/// Runs the layout rewriter on one typed function with `hook` as the alter-layout hooks.
pub fn alter_op_layout_with(f: &Expr, hook: &dyn LayoutHook) -> Expr {
    mutate(&mut Rewriter::new(hook), f)
}

/// The AlterOpLayout pass.
pub fn pass() -> Pass {
    let info = super::builtin_info("AlterOpLayout");
    function_pass(info, |g, f, m, _cx| {
        let typed = super::typed::typed_function("AlterOpLayout", g, f, m)?;
        // As in ConvertLayout: without an op that takes its layouts from its attributes,
        // nothing to walk.
        if !typed.contains().any(Contains::LAYOUT_OP) {
            return Ok(f.clone());
        }
        let out = alter_op_layout_with(&typed, &NoTargetHooks);
        Ok(if out.ptr_eq(&typed) { f.clone() } else { out })
    })
}

/// The registry's constructor: `AlterOpLayout()`.
pub fn create(_options: &PassOptions) -> Result<Pass, PassError> {
    Ok(pass())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::AttrValue;
    use crate::passes::infer_type::infer_module;
    use crate::text::{parse_module, print_module_with, PrintOptions};

    /// A hook like a target's: every conv2d to NHWC data and HWIO kernels.
    struct ToNhwc;
    impl LayoutHook for ToNhwc {
        fn new_attrs(&self, op: Op, _call: &Expr, attrs: &Attrs) -> Attrs {
            if op.name() != "nn.conv2d" {
                return attrs.clone();
            }
            attrs
                .with("data_layout", AttrValue::str("NHWC"))
                .with("kernel_layout", AttrValue::str("HWIO"))
        }
    }

    #[test]
    fn a_hook_drives_the_rewriter_and_no_hook_changes_nothing() {
        let m = parse_module(
            "def @main(%x: Tensor[(1, 4, 8, 8), float32], %w: Tensor[(8, 4, 3, 3), float32]) {
               %0 = nn.conv2d(%x, %w, padding=[1, 1, 1, 1], channels=8, kernel_size=[3, 3]);
               nn.relu(%0)
             }",
            "t",
        )
        .unwrap();
        let m = infer_module(&m).unwrap();
        let f = m.get("main").unwrap();
        assert!(alter_op_layout_with(f, &NoTargetHooks).ptr_eq(f));
        let mut out = m.clone();
        out.replace("main", alter_op_layout_with(f, &ToNhwc))
            .unwrap();
        let out = infer_module(&out).unwrap();
        let text = print_module_with(
            &out,
            PrintOptions {
                types: false,
                header: false,
                metadata: false,
            },
        );
        expect_test::expect![[r#"
            def @main(%x: Tensor[(1, 4, 8, 8), float32], %w: Tensor[(8, 4, 3, 3), float32]) -> Tensor[(1, 8, 8, 8), float32] {
              %0 = layout_transform(%x, src_layout="NCHW", dst_layout="NHWC");
              %1 = layout_transform(%w, src_layout="OIHW", dst_layout="HWIO");
              %2 = nn.conv2d(%0, %1, padding=[1, 1, 1, 1], channels=8, kernel_size=[3, 3], data_layout="NHWC", kernel_layout="HWIO");
              %3 = nn.relu(%2);
              layout_transform(%3, src_layout="NHWC", dst_layout="NCHW")
            }
        "#]]
        .assert_eq(&text);
    }
}
