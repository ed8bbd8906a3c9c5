//! The `cpu` key's hooks: TVM's `topi/x86/conv2d_alter_op.py::_alter_conv2d_layout` and
//! `dense_alter_op.py::_alter_dense_layout`, with the x86 strategy's choice of template and
//! the fallback tilings (`conv2d_avx_common._fallback_schedule`, the depthwise and int8
//! ones, `dense._default_dense_pack_config`).

use super::{call, is_depthwise, is_nchwc, is_oihwio, largest_divisor, make, Alter};
use crate::ir::{AttrValue, Expr};

/// x86's `get_simd_32bit_lanes`: 16 with AVX-512, 8 with AVX2, else 4.
pub(super) fn simd_lanes(a: &Alter) -> i64 {
    let f = a.target.features();
    if f.has("avx512bw") && f.has("avx512f") {
        16
    } else if f.has("avx2") {
        8
    } else {
        4
    }
}

/// x86's `is_int8_hw_support`: uint8 data, int8 kernel, SSE4.2.
fn int8_hw_support(a: &Alter) -> bool {
    a.dtype(0) == "uint8" && a.dtype(1) == "int8" && a.target.features().has("sse4.2")
}

/// The AutoTVM templates of the x86 conv2d strategy that the alter function rewrites.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum ConvTemplate {
    /// `conv2d_NCHWc.x86`.
    Nchwc,
    /// `conv2d_NCHWc_int8.x86`.
    NchwcInt8,
    /// `depthwise_conv2d_NCHWc.x86`.
    Depthwise,
}

/// The template `conv2d_strategy_cpu` gives this call (`None`: not a template the alter
/// function rewrites, or a layout the strategy refuses).
fn conv_template(a: &Alter) -> Option<ConvTemplate> {
    let groups = a.attrs.get_int("groups").unwrap_or(1);
    let dl = a.str_attr("data_layout", "NCHW");
    let kl = a.str_attr("kernel_layout", "OIHW");
    let int8 = int8_hw_support(a);
    if groups == 1 {
        if dl == "NCHW" && kl == "OIHW" {
            if int8 {
                return Some(ConvTemplate::NchwcInt8);
            }
            if a.target.libs().iter().any(|l| l == "dnnl") {
                return None;
            }
            return Some(ConvTemplate::Nchwc);
        }
        if is_nchwc(&dl) && is_oihwio(&kl) {
            return Some(if int8 {
                ConvTemplate::NchwcInt8
            } else {
                ConvTemplate::Nchwc
            });
        }
        return None;
    }
    if is_depthwise(a, groups)? {
        if dl == "NCHW" && kl == "OIHW" {
            let k = a.shape(1)?;
            let dilation = a.ints("dilation").unwrap_or(vec![1, 1]);
            let one = dilation.iter().all(|d| *d == 1);
            return (k[1] == 1 && one).then_some(ConvTemplate::Depthwise);
        }
        return (is_nchwc(&dl) && is_oihwio(&kl)).then_some(ConvTemplate::Depthwise);
    }
    // Grouped: `group_conv2d_nchw.x86` has no alter branch; blocked data is conv2d_NCHWc.
    (is_nchwc(&dl) && is_oihwio(&kl)).then_some(if int8 {
        ConvTemplate::NchwcInt8
    } else {
        ConvTemplate::Nchwc
    })
}

/// `_alter_conv2d_layout` for the `cpu` key.
pub(super) fn conv2d(a: &Alter) -> Option<Expr> {
    let template = conv_template(a)?;
    rewrite_conv(a, template, simd_lanes(a), 16)
}

/// The rewrite of a conv2d for an x86 template (also ARM's, which reuses them):
/// `lanes` is the float tiling's vector width, `int32_lanes` the int8 tiling's.
pub(super) fn rewrite_conv(
    a: &Alter,
    template: ConvTemplate,
    lanes: i64,
    int32_lanes: i64,
) -> Option<Expr> {
    let dl = a.str_attr("data_layout", "NCHW");
    let kl = a.str_attr("kernel_layout", "OIHW");
    let plain = dl == "NCHW" && kl == "OIHW";
    let args = a.args.to_vec();
    let op = match template {
        ConvTemplate::Depthwise => "nn.contrib_depthwise_conv2d_NCHWc",
        _ => "nn.contrib_conv2d_NCHWc",
    };
    if !plain {
        // Already blocked: the same attributes on the NCHWc op.
        return call(op, args, a.attrs_for(op, &[])?);
    }
    let d = a.shape(0)?;
    let k = a.shape(1)?;
    let (in_filter, out_filter) = (d[1], k[0]);
    let (ic_bn, oc_bn, kernel_layout) = match template {
        ConvTemplate::Nchwc | ConvTemplate::Depthwise => {
            // `_fallback_schedule`: the widest vector dividing the output channels, then
            // the widest no wider dividing the input channels.
            let oc_bn = largest_divisor(out_filter, lanes);
            let ic_bn = largest_divisor(in_filter, oc_bn);
            let kl = match template {
                ConvTemplate::Depthwise => {
                    if k[1] != 1 {
                        return None;
                    }
                    format!("OIHW1i{oc_bn}o")
                }
                _ => format!("OIHW{ic_bn}i{oc_bn}o"),
            };
            (ic_bn, oc_bn, kl)
        }
        ConvTemplate::NchwcInt8 => {
            let (ic_bn, oc_bn) = int8_tiles(in_filter, out_filter, int32_lanes)?;
            (ic_bn, oc_bn, format!("OIHW{}i{oc_bn}o4i", ic_bn / 4))
        }
    };
    let attrs = a.attrs_for(
        op,
        &[
            ("channels", AttrValue::int(out_filter)),
            ("data_layout", AttrValue::str(&format!("NCHW{ic_bn}c"))),
            ("kernel_layout", AttrValue::str(&kernel_layout)),
            ("out_layout", AttrValue::str(&format!("NCHW{oc_bn}c"))),
        ],
    )?;
    call(op, args, attrs)
}

/// `fallback_schedule_cpu_common_int8` (4 int8 elements a lane): `None` where TVM asserts.
pub(super) fn int8_tiles(in_filter: i64, out_filter: i64, int32_lanes: i64) -> Option<(i64, i64)> {
    if out_filter % int32_lanes != 0 || in_filter % 4 != 0 {
        return None;
    }
    let oc_bn = int32_lanes.max(4);
    let ic_bn = (1..=oc_bn)
        .rev()
        .step_by(4)
        .find(|bn| in_filter % bn == 0)
        .unwrap_or(1);
    Some((ic_bn.max(4), oc_bn))
}

/// The dense template a strategy picks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum DenseTemplate {
    /// `dense_pack.x86`.
    Pack,
    /// Something the x86 alter function leaves alone (`dense_nopack`, the BLAS libraries,
    /// `dense_dynamic`, the auto-scheduler's `dense.generic`).
    Other,
}

/// `dense_strategy_cpu`'s pick.
pub(super) fn dense_template(a: &Alter) -> DenseTemplate {
    let dynamic = a.shape(0).is_none() || a.shape(1).is_none();
    if a.types[0].shape.first().and_then(|d| d.as_static()) == Some(1) && dynamic {
        return DenseTemplate::Other;
    }
    if a.auto_layout {
        return DenseTemplate::Other;
    }
    let (x, w, o) = (a.dtype(0), a.dtype(1), a.out_dtype());
    let same = x == w && w == o;
    let u8s8s32 = x == "uint8" && w == "int8" && o == "int32";
    let libs = a.target.libs();
    let has = |l: &str| libs.iter().any(|x| x == l);
    let blas = (has("cblas") && same && (x == "float32" || x == "float64"))
        || (has("mkl") && ((same && (x == "float32" || x == "float64")) || u8s8s32))
        || (has("dnnl") && same && x == "float32");
    if blas {
        DenseTemplate::Other
    } else {
        DenseTemplate::Pack
    }
}

/// `check_int8_applicable`: AVX-512 (or AMX) and int8 operands in whole 16x4 tiles.
fn int8_dense_applicable(a: &Alter) -> bool {
    let f = a.target.features();
    let simd = (f.has("avx512bw") && f.has("avx512f")) || f.has("amx-int8");
    let w = a.shape(1);
    simd && a.dtype(0).contains("int8")
        && a.dtype(1).contains("int8")
        && w.is_some_and(|w| w.len() >= 2 && w[w.len() - 2] % 16 == 0 && w[w.len() - 1] % 4 == 0)
}

/// `_alter_dense_layout` (the `cpu` key's, and ARM's fallback) for the template `template`.
pub(super) fn dense(a: &Alter, template: DenseTemplate) -> Option<Expr> {
    let out_dtype = AttrValue::str(&a.out_dtype());
    let pack = |layout: String| {
        make(
            "nn.contrib_dense_pack",
            a.args.to_vec(),
            &[
                ("units", AttrValue::Null),
                ("out_dtype", out_dtype.clone()),
                ("weight_layout", AttrValue::str(&layout)),
            ],
        )
    };
    if int8_dense_applicable(a) && a.dtype(0) == "uint8" {
        return pack("NC16n4c".into());
    }
    if template != DenseTemplate::Pack {
        return None;
    }
    if a.types[0].shape.len() != 2 || a.types[1].shape.len() != 2 {
        return None;
    }
    // `_default_dense_pack_config`: a dynamic N counts as 16.
    let n = a.types[1].shape[0].as_static().unwrap_or(16);
    let bn = largest_divisor(n, simd_lanes(a) * 2);
    pack(format!("NC{bn}n"))
}
