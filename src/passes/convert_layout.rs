//! ConvertLayout (TVM's `relay.transform.ConvertLayout(desired_layouts)`, `convert_layout.cc`):
//! a function pass (level 3, requires InferType and CanonicalizeOps) that rewrites the ops named
//! in `desired_layouts` to the requested data/kernel layouts, e.g.
//! `{"nn.conv2d": ["NCHW", "default"]}`, with the layout rewriter of `layout_rewrite.rs`:
//! `layout_transform` is inserted where an input has another layout, ops with a layout rule
//! (`layout_rewrite/rules.rs`: element-wise and broadcast ops, pools, norms, reductions,
//! transpose, squeeze, split, strided_slice, pad, resize, ...) follow their inputs' new layouts
//! with their axis attributes moved, and each function's result is transformed back to its
//! original layout. For the canonical example see `convert_layout_doc.{before,after}.relay` in
//! the corpus: two NHWC/HWIO convs become NCHW/OIHW with the data converted once at the input,
//! the weights converted in place and the result converted back.
//!
//! The ops with a conversion (TVM's `FTVMConvertOpLayout`): `nn.conv2d` (data layout as given;
//! kernel `"default"` is OIHW for NCHW, HWIO for NHWC (HWOI when depthwise), HWOI for HWNC; a
//! blocked `NCHW<n>c` data layout, with its kernel layout named, turns the call into
//! `nn.contrib_conv2d_NCHWc` unless the data is a parameter whose channels `n` does not
//! divide), `nn.conv3d` (OIDHW for NCDHW, DHWIO for NDHWC), `nn.conv2d_transpose` (IOHW,
//! HWIO), `nn.conv3d_transpose` (IODHW, DHWOI), `nn.deformable_conv2d` (OIHW, HWIO), the 2-d
//! max/avg/global pools and `image.resize1d/2d` (one layout); the QNN ones of TVM's
//! `qnn/op/layout_conversions.py`: `qnn.conv2d` (as `nn.conv2d`, never blocked into NCHWc),
//! `qnn.conv2d_transpose` (IOHW, HWIO), `qnn.avg_pool2d` (NCHW or NHWC); and
//! `vision.roi_align` / `vision.roi_pool` (NCHW or NHWC, the rois untouched). Other names in
//! `desired_layouts` are ignored, as TVM warns and ignores ops without a conversion; so is a
//! desired layout that is not a layout name (TVM asserts).
//!
//! `skip_layers` is TVM's `LayoutConfig(skip_layers=[...])` scope: the calls of `nn.conv2d` and
//! `nn.deformable_conv2d` that have a desired layout are numbered from 0 in the order the
//! rewriter meets them (inputs first), and the ones listed keep their layouts. The count starts
//! again for each function (TVM's lives in the Python scope object, across functions and runs).

use super::layout_rewrite::{parse_layout, LayoutHook, Rewriter};
use crate::ir::mutate::mutate;
use crate::ir::{AttrValue, Attrs, Contains, Expr, ExprKind, Op, Type};
use crate::pass::{leaf_function_pass, Pass, PassError, PassOptions};

/// `desired_layouts`: op name -> requested layouts (data first, then kernel or "default").
#[derive(Clone, Debug, Default)]
pub struct DesiredLayouts(pub Vec<(String, Vec<String>)>);

impl DesiredLayouts {
    fn get(&self, op: &str) -> Option<&[String]> {
        self.0
            .iter()
            .find(|(k, _)| k == op)
            .map(|(_, v)| v.as_slice())
    }
}

fn channels(ty: Option<&Type>, layout: &str, axis: char) -> Option<i64> {
    let t = ty?.as_tensor()?;
    let i = parse_layout(layout)?.index_of(axis)?;
    t.shape.get(i)?.as_static()
}

/// The factor of a blocked NCHW data layout (`NCHW16c` -> 16), TVM's `NCHW(\d*)c`.
fn nchw_block(data: &str) -> Option<u32> {
    let digits = data.strip_prefix("NCHW")?.strip_suffix('c')?;
    digits.parse().ok().filter(|&t| t > 0)
}

/// A layout the user named: parsed, and not `default`.
fn named(l: &str) -> Option<&str> {
    (l != "default" && parse_layout(l).is_some()).then_some(l)
}

impl DesiredLayouts {
    /// TVM's `convert_conv2d`: the desired data layout, the desired kernel layout or the
    /// default one for the data layout (HWOI for a depthwise NHWC convolution); a blocked
    /// NCHW layout asks for `contrib_conv2d_NCHWc` (see [`LayoutHook::new_op`]), unless the
    /// data is a parameter whose channels the block does not divide.
    fn conv2d(call: &Expr, attrs: &Attrs, data: &str, kernel: &str) -> Option<Attrs> {
        let c = call.as_call()?;
        if let Some(tile) = nchw_block(data) {
            named(kernel)?;
            let ic = channels(
                c.args[0].ty(),
                attrs.get_str("data_layout").unwrap_or("NCHW"),
                'C',
            );
            let param = matches!(c.args[0].kind(), ExprKind::Var(_));
            if param && ic.is_some_and(|ic| ic % i64::from(tile) != 0) {
                return None;
            }
            return Some(with_layouts(attrs, data, kernel));
        }
        if kernel != "default" {
            return Some(with_layouts(attrs, data, named(kernel)?));
        }
        let kernel = match data {
            "NCHW" => "OIHW",
            "NHWC" => {
                let old_data = attrs.get_str("data_layout").unwrap_or("NCHW");
                let old_kernel = attrs.get_str("kernel_layout").unwrap_or("OIHW");
                let groups = attrs.get_int("groups").unwrap_or(1);
                let ic = channels(c.args[0].ty(), old_data, 'C');
                let oc = channels(c.args.get(1).and_then(Expr::ty), old_kernel, 'O');
                if ic == Some(groups) && oc == Some(groups) {
                    "HWOI"
                } else {
                    "HWIO"
                }
            }
            "HWNC" => "HWOI",
            _ => return None,
        };
        Some(with_layouts(attrs, data, kernel))
    }
}

fn with_layouts(attrs: &Attrs, data: &str, kernel: &str) -> Attrs {
    attrs
        .with("data_layout", AttrValue::str(data))
        .with("kernel_layout", AttrValue::str(kernel))
}

/// The kernel layout "default" stands for, per op and data layout (TVM's `convert_*`).
fn default_kernel(op: &str, data: &str) -> Option<&'static str> {
    Some(match (op, data) {
        ("nn.conv3d", "NCDHW") => "OIDHW",
        ("nn.conv3d", "NDHWC") => "DHWIO",
        ("nn.conv2d_transpose", "NCHW") => "IOHW",
        ("nn.conv2d_transpose", "NHWC") => "HWIO",
        ("nn.conv3d_transpose", "NCDHW") => "IODHW",
        ("nn.conv3d_transpose", "NDHWC") => "DHWOI",
        ("nn.deformable_conv2d", "NCHW") => "OIHW",
        ("nn.deformable_conv2d", "NHWC") => "HWIO",
        _ => return None,
    })
}

/// The desired layouts with TVM's `LayoutConfig` skip list, for one function: counts the
/// convolutions the conversion is asked for and leaves the listed ones as they are.
struct Converter<'a> {
    desired: &'a DesiredLayouts,
    skip_layers: &'a [i64],
    /// How many `nn.conv2d` / `nn.deformable_conv2d` calls the conversion was asked for so far.
    seen: std::cell::Cell<i64>,
    /// Whether the last call asked for was skipped (so its op is kept as well).
    skipped: std::cell::Cell<bool>,
}

impl LayoutHook for Converter<'_> {
    fn new_attrs(&self, op: Op, call: &Expr, attrs: &Attrs) -> Attrs {
        let counted = matches!(op.name(), "nn.conv2d" | "nn.deformable_conv2d")
            && self.desired.get(op.name()).is_some();
        self.skipped.set(false);
        if counted {
            let n = self.seen.get();
            self.seen.set(n.saturating_add(1));
            if self.skip_layers.contains(&n) {
                self.skipped.set(true);
                return attrs.clone();
            }
        }
        self.desired.new_attrs(op, call, attrs)
    }

    fn new_op(&self, op: Op, new_attrs: &Attrs) -> Op {
        if self.skipped.get() {
            return op;
        }
        self.desired.new_op(op, new_attrs)
    }
}

impl LayoutHook for DesiredLayouts {
    fn new_attrs(&self, op: Op, call: &Expr, attrs: &Attrs) -> Attrs {
        let Some(want) = self.get(op.name()) else {
            return attrs.clone();
        };
        let Some(data) = want.first().map(String::as_str).and_then(named) else {
            return attrs.clone();
        };
        let kernel = want.get(1).map(String::as_str).unwrap_or("default");
        let converted = match op.name() {
            "nn.conv2d" | "qnn.conv2d" => Self::conv2d(call, attrs, data, kernel),
            "qnn.conv2d_transpose" => {
                let kernel = match kernel {
                    "default" => default_kernel("nn.conv2d_transpose", data),
                    k => named(k),
                };
                kernel.map(|k| with_layouts(attrs, data, k))
            }
            "vision.roi_align" | "vision.roi_pool" if matches!(data, "NCHW" | "NHWC") => {
                Some(attrs.with("layout", AttrValue::str(data)))
            }
            "qnn.avg_pool2d" if matches!(data, "NCHW" | "NHWC") => Some(
                attrs
                    .with("layout", AttrValue::str(data))
                    .with("out_layout", AttrValue::str(data)),
            ),
            "nn.conv3d"
            | "nn.conv2d_transpose"
            | "nn.conv3d_transpose"
            | "nn.deformable_conv2d" => {
                let kernel = match kernel {
                    "default" => default_kernel(op.name(), data),
                    k => named(k),
                };
                kernel.map(|k| with_layouts(attrs, data, k))
            }
            "nn.max_pool2d" | "nn.avg_pool2d" | "nn.global_max_pool2d" | "nn.global_avg_pool2d" => {
                Some(
                    attrs
                        .with("layout", AttrValue::str(data))
                        .with("out_layout", AttrValue::str(data)),
                )
            }
            "image.resize1d" | "image.resize2d" => Some(attrs.with("layout", AttrValue::str(data))),
            _ => None,
        };
        converted.unwrap_or_else(|| attrs.clone())
    }

    fn new_op(&self, op: Op, new_attrs: &Attrs) -> Op {
        let blocked = new_attrs
            .get_str("data_layout")
            .and_then(nchw_block)
            .is_some();
        if op.name() == "nn.conv2d" && blocked && self.get(op.name()).is_some() {
            return Op::get("nn.contrib_conv2d_NCHWc").unwrap_or(op);
        }
        op
    }
}

/// Converts the layouts of one typed function, leaving the convolutions numbered in
/// `skip_layers` as they are (see the module's documentation).
pub fn convert_layout(f: &Expr, desired: &DesiredLayouts, skip_layers: &[i64]) -> Expr {
    let converter = Converter {
        desired,
        skip_layers,
        seen: std::cell::Cell::new(0),
        skipped: std::cell::Cell::new(false),
    };
    mutate(&mut Rewriter::new(&converter), f)
}

/// The ConvertLayout pass.
pub fn pass(desired: DesiredLayouts, skip_layers: Vec<i64>) -> Pass {
    let info = super::builtin_info("ConvertLayout");
    leaf_function_pass(info, move |g, f, m, _cx| {
        let typed = super::typed::typed_function("ConvertLayout", g, f, m)?;
        // Without an op that takes its layouts from its attributes there is no layout to
        // convert, and every node knows whether one lies below it: nothing to walk. (The
        // desired layouts only change such ops.)
        if !typed.contains().any(Contains::LAYOUT_OP) {
            return Ok(f.clone());
        }
        let out = convert_layout(&typed, &desired, &skip_layers);
        Ok(if out.ptr_eq(&typed) { f.clone() } else { out })
    })
}

/// The registry's constructor: `ConvertLayout(desired_layouts={"nn.conv2d": ["NCHW",
/// "default"]}, skip_layers=[0])`. Without `desired_layouts` (TVM requires it) nothing is
/// converted.
pub fn create(options: &PassOptions) -> Result<Pass, PassError> {
    let map = options
        .get("desired_layouts")
        .and_then(|v| v.as_map())
        .unwrap_or(&[]);
    let desired = map
        .iter()
        .map(|(k, v)| {
            let layouts = v
                .as_list()
                .unwrap_or(&[])
                .iter()
                .filter_map(|x| x.as_str().map(str::to_string))
                .collect();
            (k.to_string(), layouts)
        })
        .collect();
    let skip_layers = options
        .get("skip_layers")
        .and_then(|v| v.as_list())
        .unwrap_or(&[])
        .iter()
        .filter_map(|x| x.as_int())
        .collect();
    Ok(pass(DesiredLayouts(desired), skip_layers))
}
