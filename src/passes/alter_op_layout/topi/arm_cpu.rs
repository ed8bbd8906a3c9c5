//! The `arm_cpu` key's hooks: TVM's `topi/arm_cpu/conv2d_alter_op.py::_alter_conv2d_layout`
//! and `dense_alter_op.py::_alter_dense`, with the ARM strategy's choice of template
//! (`conv2d_strategy_arm_cpu`, `schedule_dense_arm_cpu`) and the gemm tilings of
//! `arm_utils.get_tiling_B_transformed`.

use super::x86::{self, ConvTemplate, DenseTemplate};
use super::{call, is_depthwise, make, Alter};
use crate::ir::{AttrValue, Expr};

/// The conv2d templates of the ARM strategy that the alter function rewrites.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Template {
    /// `conv2d_NCHWc_int8.arm_cpu` (from `conv2d_nchw_int8.arm_cpu`).
    NchwcInt8,
    /// `conv2d_NHWC_quantized_interleaved.arm_cpu`.
    Interleaved,
    /// `conv2d_NHWC_quantized_native.arm_cpu`.
    Native,
    /// `conv2d_NHWC_hybrid.arm_cpu`.
    Hybrid,
    /// `conv2d_NHWC_hybrid_SME.arm_cpu`.
    HybridSme,
    /// `conv2d_nhwc_spatial_pack.arm_cpu`.
    NhwcSpatialPack,
    /// A template with no rewrite here (SVE hybrid, NCHW spatial pack, winograd, depthwise).
    Kept,
}

/// ARM's `is_int8_hw_support`: equal int8 types and Advanced SIMD or dot product.
fn int8_hw_support(a: &Alter) -> bool {
    let f = a.target.features();
    a.dtype(0) == a.dtype(1) && a.dtype(0).contains("int8") && (f.has_asimd || f.has_dotprod)
}

/// `conv2d_strategy_arm_cpu`'s pick: the highest plevel, the first on a tie.
fn conv_template(a: &Alter) -> Option<Template> {
    let f = a.target.features();
    let groups = a.attrs.get_int("groups").unwrap_or(1);
    let dl = a.str_attr("data_layout", "NCHW");
    let kl = a.str_attr("kernel_layout", "OIHW");
    let (d, k) = (a.shape(0)?, a.shape(1)?);
    let (dt, kt) = (a.dtype(0), a.dtype(1));
    if groups != 1 || is_depthwise(a, groups) == Some(true) {
        return Some(Template::Kept);
    }
    let mut candidates: Vec<(Template, i32)> = Vec::new();
    match (dl.as_str(), kl.as_str()) {
        ("NCHW", "OIHW") => {
            if int8_hw_support(a) && k.len() == 4 && k[1] >= 64 {
                candidates.push((Template::NchwcInt8, 15));
            } else {
                candidates.push((Template::Kept, 10));
            }
        }
        ("NHWC", "HWIO") => {
            let int8 = dt == "int8" || dt == "uint8";
            if f.is_aarch64 && int8 {
                match (f.has_matmul_i8, f.has_dotprod) {
                    (true, true) => {
                        candidates.push((Template::Interleaved, 10));
                        candidates.push((Template::Native, 10));
                    }
                    (false, true) => candidates.push((Template::Native, 10)),
                    _ => candidates.push((Template::Interleaved, 10)),
                }
            }
            if f.is_aarch64 && (dt == "float32" || dt == "float16") {
                let sme = f.has_sme
                    && kt == dt
                    && a.out_dtype() == "float32"
                    && d.len() == 4
                    && k.len() == 4
                    && d[0] == 1
                    && d[3] * k[0] * k[1] > 1;
                if sme {
                    candidates.push((Template::HybridSme, 12));
                }
                if f.has_sve {
                    candidates.push((Template::Kept, 5));
                }
                candidates.push((Template::Hybrid, 10));
            }
            if !f.is_aarch64 || !int8 {
                candidates.push((Template::NhwcSpatialPack, 5));
            }
        }
        _ => return None,
    }
    let best = candidates.iter().map(|(_, p)| *p).max()?;
    candidates
        .into_iter()
        .find(|(_, p)| *p == best)
        .map(|(t, _)| t)
}

/// `_alter_conv2d_layout` for the `arm_cpu` key.
pub(super) fn conv2d(a: &Alter) -> Option<Expr> {
    let template = conv_template(a)?;
    let dl = a.str_attr("data_layout", "NCHW");
    let (dt, kt) = (a.dtype(0), a.dtype(1));
    let gemm = |w: Expr| {
        let attrs = a.attrs_for("nn.contrib_conv2d_gemm_without_weight_transform", &[])?;
        call(
            "nn.contrib_conv2d_gemm_without_weight_transform",
            vec![a.args[0].clone(), w],
            attrs,
        )
    };
    match template {
        Template::Hybrid => return gemm(transform_weights(a, false)?),
        Template::HybridSme if dt == "float16" && kt == "float16" && a.out_dtype() == "float32" => {
            // The kernel to (N, K): HWIO -> OHWI, flattened.
            let k = a.shape(1)?;
            let (n, kk) = (k[3], k[0] * k[1] * k[2]);
            let t = make(
                "transpose",
                vec![a.args[1].clone()],
                &[("axes", ints(&[3, 0, 1, 2]))],
            )?;
            let r = make("reshape", vec![t], &[("newshape", ints(&[n, kk]))])?;
            return gemm(r);
        }
        _ => {}
    }
    // Only microTVM alters NHWC convolutions of real numbers.
    if dl == "NHWC" && dt != "int8" && dt != "uint8" {
        return None;
    }
    match template {
        Template::NhwcSpatialPack => {
            if !((dt == "int8" && kt == "int8") || (dt == "uint8" && kt == "uint8")) {
                return None;
            }
            let cast = |e: &Expr| {
                make(
                    "cast",
                    vec![e.clone()],
                    &[("dtype", AttrValue::str("int16"))],
                )
            };
            let attrs = a.attrs_for("nn.conv2d", &[])?;
            call(
                "nn.conv2d",
                vec![cast(&a.args[0])?, cast(&a.args[1])?],
                attrs,
            )
        }
        Template::NchwcInt8 => x86::rewrite_conv(a, ConvTemplate::NchwcInt8, 4, 4),
        Template::Interleaved => gemm(transform_weights(a, true)?),
        Template::Native => gemm(transform_weights(a, false)?),
        _ => None,
    }
}

fn ints(v: &[i64]) -> AttrValue {
    AttrValue::Array(v.iter().map(|x| AttrValue::int(*x)).collect())
}

/// `transform_weights`: the kernel packed by `contrib_conv2d_gemm_weight_transform` in
/// `get_tiling_B_transformed`'s tiles (its type rule pads them).
fn transform_weights(a: &Alter, interleave_a: bool) -> Option<Expr> {
    let f = a.target.features();
    let dt = a.dtype(0);
    let (tile_n, tile_k) = if dt == "int8" || dt == "uint8" {
        if f.has_matmul_i8 {
            (12, 8)
        } else if f.has_dotprod {
            (if interleave_a { 12 } else { 16 }, 4)
        } else {
            (4, 16)
        }
    } else if dt == "float16" && f.has_fp16_simd {
        (32, 4)
    } else {
        (16, 4)
    };
    make(
        "nn.contrib_conv2d_gemm_weight_transform",
        vec![a.args[1].clone()],
        &[
            ("tile_N", AttrValue::int(tile_n)),
            ("tile_K", AttrValue::int(tile_k)),
        ],
    )
}

/// The dense templates of `schedule_dense_arm_cpu`.
enum Dense {
    Sme,
    Gemm,
    X86(DenseTemplate),
}

fn dense_template(a: &Alter) -> Dense {
    let f = a.target.features();
    let dynamic = a.shape(0).is_none() || a.shape(1).is_none();
    if a.types[0].shape.first().and_then(|d| d.as_static()) == Some(1) && dynamic {
        return Dense::X86(DenseTemplate::Other);
    }
    let (x, w, o) = (a.dtype(0), a.dtype(1), a.out_dtype());
    let float = |t: &str| t == "float32" || t == "float16";
    let k = a.types[0].shape.get(1).and_then(|d| d.as_static());
    if f.has_sme && float(&x) && w == x && o == "float32" && k.is_some_and(|k| k > 1) {
        return Dense::Sme;
    }
    if a.auto_layout {
        // `dense.generic` (plevel 11) comes before dense_gemm (11).
        return Dense::X86(DenseTemplate::Other);
    }
    if f.is_aarch64 && float(&x) && float(&w) && float(&o) {
        return Dense::Gemm;
    }
    Dense::X86(DenseTemplate::Pack)
}

/// `_alter_dense` for the `arm_cpu` key: SME and gemm answer with `nn.matmul`, the rest falls
/// back to x86's function.
pub(super) fn dense(a: &Alter) -> Option<Expr> {
    let matmul = |w: Expr, transpose_b: bool| {
        make(
            "nn.matmul",
            vec![a.args[0].clone(), w],
            &[
                (
                    "units",
                    a.attrs.get("units").cloned().unwrap_or(AttrValue::Null),
                ),
                (
                    "out_dtype",
                    a.attrs
                        .get("out_dtype")
                        .cloned()
                        .unwrap_or(AttrValue::str("")),
                ),
                ("transpose_a", AttrValue::Bool(false)),
                ("transpose_b", AttrValue::Bool(transpose_b)),
            ],
        )
    };
    let transpose = || {
        make(
            "transpose",
            vec![a.args[1].clone()],
            &[("axes", AttrValue::Null)],
        )
    };
    match dense_template(a) {
        // A float32 weight is transposed ahead of time; float16 at run time.
        Dense::Sme if a.dtype(1) == "float32" => matmul(transpose()?, false),
        Dense::Sme => matmul(a.args[1].clone(), true),
        Dense::Gemm => matmul(transpose()?, false),
        Dense::X86(t) => x86::dense(a, t),
    }
}
