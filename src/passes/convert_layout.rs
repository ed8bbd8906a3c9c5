//! ConvertLayout (TVM's `relay.transform.ConvertLayout(desired_layouts)`, `convert_layout.cc`):
//! a function pass (level 3, requires InferType and CanonicalizeOps) that rewrites the ops named
//! in `desired_layouts` to the requested data/kernel layouts, e.g.
//! `{"nn.conv2d": ["NCHW", "default"]}`, with the layout rewriter of `layout_rewrite.rs`:
//! `layout_transform` is inserted where an input has another layout, layout-agnostic ops
//! (element-wise, broadcast) follow their inputs, pooling/concatenate/bias_add adapt their
//! layout or axis attribute, and each function's result is transformed back to its original
//! layout. For the canonical example see `convert_layout_doc.{before,after}.relay` in the
//! corpus: two NHWC/HWIO convs become NCHW/OIHW with the data converted once at the input, the
//! weights converted in place and the result converted back.
//!
//! The ops with a conversion (TVM's `FTVMConvertOpLayout`): `nn.conv2d` (data layout as given;
//! kernel `"default"` is OIHW for NCHW, HWIO for NHWC (HWOI when depthwise), HWOI for HWNC) and
//! `nn.conv3d` (OIDHW for NCDHW, DHWIO for NDHWC). Other names in `desired_layouts` are ignored,
//! as TVM warns and ignores ops without a conversion.
//!
//! Deliberately not done: blocked layouts for the data (`NCHW16c`, which TVM turns into
//! `contrib_conv2d_NCHWc`) and `LayoutConfig` skip scopes.

use super::layout_rewrite::{parse_layout, LayoutHook, Rewriter};
use crate::ir::mutate::mutate;
use crate::ir::{AttrValue, Attrs, Contains, Expr, Op, Type};
use crate::pass::{function_pass, Pass, PassError, PassInfo, PassKind, PassOptions};

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

impl LayoutHook for DesiredLayouts {
    fn new_attrs(&self, op: Op, call: &Expr, attrs: &Attrs) -> Attrs {
        let Some(want) = self.get(op.name()) else {
            return attrs.clone();
        };
        let (Some(data), kernel) = (want.first(), want.get(1).map(String::as_str)) else {
            return attrs.clone();
        };
        let kernel = kernel.unwrap_or("default");
        let blocked = data
            .chars()
            .any(|c| c.is_ascii_lowercase() || c.is_ascii_digit());
        if data == "default" || blocked || parse_layout(data).is_none() {
            return attrs.clone();
        }
        let default_kernel = match (op.name(), data.as_str()) {
            ("nn.conv2d", "NCHW") => "OIHW",
            ("nn.conv2d", "NHWC") => {
                let c = call.as_call().expect("an op call");
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
            ("nn.conv2d", "HWNC") => "HWOI",
            ("nn.conv3d", "NCDHW") => "OIDHW",
            ("nn.conv3d", "NDHWC") => "DHWIO",
            ("nn.conv2d" | "nn.conv3d", _) if kernel != "default" => kernel,
            _ => return attrs.clone(),
        };
        let kernel = if kernel == "default" {
            default_kernel
        } else {
            kernel
        };
        attrs
            .with("data_layout", AttrValue::str(data))
            .with("kernel_layout", AttrValue::str(kernel))
    }
}

/// Converts the layouts of one typed function.
pub fn convert_layout(f: &Expr, desired: &DesiredLayouts) -> Expr {
    mutate(&mut Rewriter::new(desired), f)
}

/// The ConvertLayout pass.
pub fn pass(desired: DesiredLayouts) -> Pass {
    let info = PassInfo::with_kind(
        "ConvertLayout",
        3,
        &["InferType", "CanonicalizeOps"],
        PassKind::Function,
    );
    function_pass(info, move |g, f, m, _cx| {
        let typed = super::typed::typed_function("ConvertLayout", g, f, m)?;
        // Without an op that takes its layouts from its attributes there is no layout to
        // convert, and every node knows whether one lies below it: nothing to walk. (The
        // desired layouts only change such ops.)
        if !typed.contains().any(Contains::LAYOUT_OP) {
            return Ok(f.clone());
        }
        let out = convert_layout(&typed, &desired);
        Ok(if out.ptr_eq(&typed) { f.clone() } else { out })
    })
}

/// The registry's constructor: `ConvertLayout(desired_layouts={"nn.conv2d": ["NCHW",
/// "default"]})`. Without `desired_layouts` (TVM requires it) nothing is converted.
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
    Ok(pass(DesiredLayouts(desired)))
}
