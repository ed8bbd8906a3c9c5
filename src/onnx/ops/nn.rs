//! Converters for convolutions, pooling, normalization, dropout and matrix products (TVM's
//! `Conv`, `ConvTranspose`, `Pool`, `BatchNorm`, `Gemm`, `MatMul` and friends).

use super::{f32c, input, opt_input, In};
use crate::ir::{AttrValue, DType, Expr};
use crate::onnx::import::{CResult, ConvertError, Cx};

pub(super) fn convert(cx: &mut Cx, op: &str, inputs: &In) -> CResult<Vec<Expr>> {
    let one = |e: CResult<Expr>| e.map(|e| vec![e]);
    match op {
        "Conv" => one(conv(cx, inputs)),
        "ConvTranspose" => one(conv_transpose(cx, inputs)),
        "MaxPool" => one(pool(cx, "max_pool", inputs)),
        "AveragePool" => one(pool(cx, "avg_pool", inputs)),
        "LpPool" => one(lp_pool(cx, inputs)),
        "GlobalAveragePool" => one(global_pool(cx, "avg", inputs)),
        "GlobalMaxPool" => one(global_pool(cx, "max", inputs)),
        "BatchNormalization" => batch_norm(cx, inputs),
        "InstanceNormalization" => one(cx.op(
            "nn.instance_norm",
            vec![input(inputs, 0)?, input(inputs, 1)?, input(inputs, 2)?],
            &[("epsilon", AttrValue::Float(cx.float("epsilon", 1e-5)?))],
        )),
        "LayerNormalization" if cx.opset >= 17 => layer_norm(cx, inputs),
        "LRN" => {
            let size = cx.int("size", 0)?;
            if size <= 0 {
                return Err(ConvertError::Invalid("attribute `size` is required".into()));
            }
            one(cx.op(
                "nn.lrn",
                vec![input(inputs, 0)?],
                &[
                    ("size", AttrValue::int(size)),
                    ("axis", AttrValue::int(1)),
                    ("alpha", AttrValue::Float(cx.float("alpha", 0.0001)?)),
                    ("beta", AttrValue::Float(cx.float("beta", 0.75)?)),
                    ("bias", AttrValue::Float(cx.float("bias", 1.0)?)),
                ],
            ))
        }
        "Dropout" => {
            let mut attrs = Vec::new();
            if cx.has("ratio") {
                attrs.push(("rate", AttrValue::Float(cx.float("ratio", 0.5)?)));
            }
            let x = input(inputs, 0)?;
            let d = cx.op("nn.dropout", vec![x.clone()], &attrs)?;
            let out = cx.get(&d, 0);
            if cx.num_outputs < 2 {
                return Ok(vec![out]);
            }
            // The mask (TVM drops it): all true, as `nn.dropout` is the identity at
            // inference.
            let ones = cx.op("ones_like", vec![x], &[])?;
            Ok(vec![out, super::cast(cx, ones, DType::BOOL)?])
        }
        "Gemm" => one(gemm(cx, inputs)),
        "MatMul" => one(matmul(cx, inputs)),
        "PRelu" => one(prelu(cx, inputs)),
        _ => Err(ConvertError::Unsupported),
    }
}

/// TVM's `autopad` for `SAME_UPPER`/`SAME_LOWER`, folded: an explicit `nn.pad` of the data
/// (the padding each spatial axis needs so that the output has `ceil(in / stride)` extent).
pub(super) fn autopad(
    cx: &Cx,
    data: Expr,
    kernel: &[i64],
    strides: &[i64],
    dilations: &[i64],
    mode: &str,
    pad_value: Expr,
) -> CResult<Expr> {
    let shape = cx.shape(&data)?;
    let mut width = vec![AttrValue::ints(&[0, 0]), AttrValue::ints(&[0, 0])];
    for (i, &k) in kernel.iter().enumerate() {
        let input = shape[2 + i];
        let s = strides[i].max(1);
        let dk = (k - 1) * dilations[i] + 1;
        let left = if input % s == 0 { s } else { input % s };
        let pad = (dk - left).max(0);
        let (before, after) = (pad / 2, pad - pad / 2);
        width.push(if mode.contains("LOWER") {
            AttrValue::ints(&[after, before])
        } else {
            AttrValue::ints(&[before, after])
        });
    }
    cx.op(
        "nn.pad",
        vec![data, pad_value],
        &[("pad_width", AttrValue::Array(width.into()))],
    )
}

fn conv_name(prefix: &str, n: usize, suffix: &str) -> CResult<String> {
    match n {
        1..=3 => Ok(format!("nn.{prefix}{n}d{suffix}")),
        _ => Err(ConvertError::Invalid(format!(
            "only 1D, 2D and 3D kernels are supported, not {n}D"
        ))),
    }
}

fn conv(cx: &Cx, inputs: &In) -> CResult<Expr> {
    let mut data = input(inputs, 0)?;
    let kernel = input(inputs, 1)?;
    let ndim = cx.rank(&data)?;
    let wshape = cx.shape(&kernel)?;
    let kshape = match cx.ints("kernel_shape")? {
        Some(k) => k,
        None => wshape.get(2..).unwrap_or(&[]).to_vec(),
    };
    let n = kshape.len();
    let strides = cx.ints("strides")?;
    let dilations = cx.ints("dilations")?;
    let mut pads = cx.ints("pads")?;
    match cx.string("auto_pad", "NOTSET")?.as_str() {
        m @ ("SAME_UPPER" | "SAME_LOWER") => {
            let s = strides.clone().unwrap_or_else(|| vec![1; ndim - 2]);
            let d = dilations.clone().unwrap_or_else(|| vec![1; ndim - 2]);
            data = autopad(cx, data, &kshape, &s, &d, m, f32c(cx, 0.0))?;
        }
        "VALID" => pads = Some(vec![0; ndim - 2]),
        "NOTSET" => {}
        m => {
            return Err(ConvertError::Invalid(format!(
                "value `{m}` of attribute `auto_pad` is invalid"
            )))
        }
    }
    let mut attrs = vec![("kernel_size", AttrValue::ints(&kshape))];
    if let Some(s) = strides {
        attrs.push(("strides", AttrValue::ints(&s)));
    }
    if let Some(p) = pads {
        attrs.push(("padding", AttrValue::ints(&p)));
    }
    if let Some(d) = dilations {
        attrs.push(("dilation", AttrValue::ints(&d)));
    }
    attrs.push(("groups", AttrValue::int(cx.int("group", 1)?)));
    attrs.push(("channels", AttrValue::int(wshape[0])));
    let out = cx.op(&conv_name("conv", n, "")?, vec![data, kernel], &attrs)?;
    match opt_input(inputs, 2) {
        Some(b) => cx.op("nn.bias_add", vec![out, b], &[]),
        None => Ok(out),
    }
}

fn conv_transpose(cx: &Cx, inputs: &In) -> CResult<Expr> {
    let data = input(inputs, 0)?;
    let kernel = input(inputs, 1)?;
    let wshape = cx.shape(&kernel)?;
    let groups = cx.int("group", 1)?;
    let kshape = match cx.ints("kernel_shape")? {
        Some(k) => k,
        None => wshape.get(2..).unwrap_or(&[]).to_vec(),
    };
    let n = kshape.len();
    let ishape = cx.shape(&data)?;
    let ndim = ishape.len();
    let dilations = cx.ints("dilations")?;
    let strides = cx.ints("strides")?;
    let out_pad = cx.ints("output_padding")?;
    let mut pads = cx.ints("pads")?;
    let auto_pad = cx.string("auto_pad", "NOTSET")?;
    let output_shape = cx.ints("output_shape")?;
    if output_shape.is_some() || auto_pad.starts_with("SAME") {
        let d = dilations.clone().unwrap_or_else(|| vec![1; n]);
        let op = out_pad.clone().unwrap_or_else(|| vec![0; n]);
        let s = strides.clone().unwrap_or_else(|| vec![1; ndim - 2]);
        let total: Vec<i64> = (0..n)
            .map(|i| match &output_shape {
                Some(os) => {
                    s[i] * (ishape[ndim - n + i] - 1) + op[i] + ((kshape[i] - 1) * d[i] + 1) - os[i]
                }
                None => op[i] + ((kshape[i] - 1) * d[i] + 1) - s[i],
            })
            .collect();
        let left: Vec<i64> = total.iter().map(|p| p / 2).collect();
        let right: Vec<i64> = total.iter().zip(&left).map(|(t, l)| t - l).collect();
        // TVM (onnxruntime newer than 1.12.1): SAME_UPPER puts the extra padding at the end.
        let p = if output_shape.is_some() && auto_pad == "NOTSET" || auto_pad.contains("LOWER") {
            [right, left].concat()
        } else {
            [left, right].concat()
        };
        pads = Some(p);
    } else if auto_pad == "VALID" {
        pads = Some(vec![0; ndim - 2]);
    }
    let mut attrs = vec![
        ("channels", AttrValue::int(wshape[1] * groups)),
        ("kernel_size", AttrValue::ints(&kshape)),
        ("groups", AttrValue::int(groups)),
    ];
    if let Some(s) = strides {
        attrs.push(("strides", AttrValue::ints(&s)));
    }
    if let Some(p) = pads {
        attrs.push(("padding", AttrValue::ints(&p)));
    }
    if let Some(d) = dilations {
        attrs.push(("dilation", AttrValue::ints(&d)));
    }
    if let Some(o) = out_pad {
        attrs.push(("output_padding", AttrValue::ints(&o)));
    }
    let out = cx.op(
        &conv_name("conv", n, "_transpose")?,
        vec![data, kernel],
        &attrs,
    )?;
    match opt_input(inputs, 2) {
        Some(b) => cx.op("nn.bias_add", vec![out, b], &[]),
        None => Ok(out),
    }
}

fn layout_name(dims: usize, storage_order: i64) -> CResult<&'static str> {
    Ok(match (dims, storage_order) {
        (1, 0) => "NCW",
        (1, _) => "NWC",
        (2, 0) => "NCHW",
        (2, _) => "NHWC",
        (3, 0) => "NCDHW",
        (3, _) => "NDHWC",
        _ => {
            return Err(ConvertError::Invalid(
                "only 1D, 2D and 3D layouts are supported".into(),
            ))
        }
    })
}

fn pool(cx: &Cx, name: &str, inputs: &In) -> CResult<Expr> {
    pool_of(cx, name, input(inputs, 0)?, false)
}

/// TVM's LpPool: `avg_pool(x^p, count_include_pad=True)`, times the window's size, to the
/// power `1/p` (of its absolute value).
fn lp_pool(cx: &Cx, inputs: &In) -> CResult<Expr> {
    let x = input(inputs, 0)?;
    let dt = cx.dtype(&x)?;
    let p = cx.int("p", 2)? as f64;
    let kernel = cx
        .ints("kernel_shape")?
        .ok_or_else(|| ConvertError::Invalid("attribute `kernel_shape` is required".into()))?;
    let data = cx.binary("power", x, cx.scalar(p, dt))?;
    let avg = pool_of(cx, "avg_pool", data, true)?;
    let n: i64 = kernel.iter().product();
    let sum = cx.binary("multiply", cx.unary("abs", avg)?, cx.scalar(n as f64, dt))?;
    cx.binary("power", sum, cx.scalar(1.0 / p, dt))
}

/// A pooling of `data` with the node's attributes; `include_pad` forces
/// `count_include_pad`.
fn pool_of(cx: &Cx, name: &str, mut data: Expr, include_pad: bool) -> CResult<Expr> {
    let ndim = cx.rank(&data)?;
    let kernel = cx
        .ints("kernel_shape")?
        .ok_or_else(|| ConvertError::Invalid("attribute `kernel_shape` is required".into()))?;
    let strides = cx.ints("strides")?;
    let mut pads = cx.ints("pads")?;
    match cx.string("auto_pad", "NOTSET")?.as_str() {
        m @ ("SAME_UPPER" | "SAME_LOWER") => {
            let shape = cx.shape(&data)?;
            let s = strides.clone().unwrap_or_else(|| vec![1; ndim]);
            if name == "avg_pool" {
                let (mut before, mut after) = (Vec::new(), Vec::new());
                for (i, &k) in kernel.iter().enumerate() {
                    let input = shape[2 + i];
                    let st = s[i].max(1);
                    let pad = if input % st == 0 {
                        (k - st).max(0)
                    } else {
                        (k - input % st).max(0)
                    };
                    let (b, a) = (pad / 2, pad - pad / 2);
                    let (b, a) = if m.contains("LOWER") { (a, b) } else { (b, a) };
                    before.push(b);
                    after.push(a);
                }
                pads = Some([before, after].concat());
            } else {
                let dt = cx.dtype(&data)?;
                let min = if dt.is_float() {
                    f64::from(f32::MIN)
                } else {
                    -(2f64.powi(i32::from(dt.bits) - 1))
                };
                let ones = vec![1; ndim];
                data = autopad(cx, data, &kernel, &s, &ones, m, cx.scalar(min, dt))?;
            }
        }
        "VALID" => pads = Some(vec![0; ndim - 2]),
        "NOTSET" => {}
        m => {
            return Err(ConvertError::Invalid(format!(
                "value `{m}` of attribute `auto_pad` is invalid"
            )))
        }
    }
    let mut squeeze = false;
    let layout = if cx.has("storage_order") {
        layout_name(ndim - 2, cx.int("storage_order", 0)?)?
    } else {
        let mut dims = ndim;
        if ndim - kernel.len() == 1 {
            data = cx.op("expand_dims", vec![data], &[("axis", AttrValue::int(0))])?;
            squeeze = true;
            dims += 1;
        }
        layout_name(dims - 2, 0)?
    };
    let mut attrs = vec![("pool_size", AttrValue::ints(&kernel))];
    if let Some(s) = strides {
        attrs.push(("strides", AttrValue::ints(&s)));
    }
    if let Some(p) = pads {
        attrs.push(("padding", AttrValue::ints(&p)));
    }
    if let Some(d) = cx.ints("dilations")? {
        attrs.push(("dilation", AttrValue::ints(&d)));
    }
    if cx.has("ceil_mode") {
        attrs.push(("ceil_mode", AttrValue::Bool(cx.int("ceil_mode", 0)? != 0)));
    }
    if include_pad {
        attrs.push(("count_include_pad", AttrValue::Bool(true)));
    } else if name == "avg_pool" && cx.has("count_include_pad") {
        attrs.push((
            "count_include_pad",
            AttrValue::Bool(cx.int("count_include_pad", 0)? != 0),
        ));
    }
    attrs.push(("layout", AttrValue::str(layout)));
    let out = cx.op(&conv_name(name, kernel.len(), "")?, vec![data], &attrs)?;
    if squeeze {
        return cx.op("squeeze", vec![out], &[("axis", AttrValue::ints(&[0]))]);
    }
    Ok(out)
}

fn global_pool(cx: &Cx, kind: &str, inputs: &In) -> CResult<Expr> {
    let x = input(inputs, 0)?;
    match cx.rank(&x)? {
        4 => cx.unary(&format!("nn.global_{kind}_pool2d"), x),
        r => Err(ConvertError::Invalid(format!(
            "global pooling of a rank-{r} tensor is not supported (rank 4 is)"
        ))),
    }
}

fn batch_norm(cx: &Cx, inputs: &In) -> CResult<Vec<Expr>> {
    let args = (0..5)
        .map(|i| input(inputs, i))
        .collect::<CResult<Vec<_>>>()?;
    let mut attrs = Vec::new();
    if cx.has("epsilon") {
        attrs.push(("epsilon", AttrValue::Float(cx.float("epsilon", 1e-5)?)));
    }
    let bn = cx.op("nn.batch_norm", args, &attrs)?;
    // Test mode: the data, then the moving mean and variance twice (TVM's placeholders for
    // the saved mean and variance).
    Ok(vec![
        cx.get(&bn, 0),
        cx.get(&bn, 1),
        cx.get(&bn, 2),
        cx.get(&bn, 1),
        cx.get(&bn, 2),
    ])
}

fn layer_norm(cx: &Cx, inputs: &In) -> CResult<Vec<Expr>> {
    let x = input(inputs, 0)?;
    let gamma = input(inputs, 1)?;
    let beta = opt_input(inputs, 2);
    let rank = cx.rank(&x)? as i64;
    let axis = cx.int("axis", -1)?;
    let axes: Vec<i64> = if axis >= 0 {
        (axis..rank).collect()
    } else {
        (rank + axis..rank).collect()
    };
    let dt = cx.dtype(&x)?;
    let eps = cx.float("epsilon", 1e-5)?;
    let ax = AttrValue::ints(&axes);
    let mean = cx.op(
        "mean",
        vec![x.clone()],
        &[("axis", ax.clone()), ("keepdims", AttrValue::Bool(true))],
    )?;
    let var = cx.op(
        "variance",
        vec![x.clone(), mean.clone()],
        &[("axis", ax), ("keepdims", AttrValue::Bool(true))],
    )?;
    let denom = cx.unary("sqrt", cx.binary("add", var, cx.scalar(eps, dt))?)?;
    let inv = cx.binary("divide", cx.scalar(1.0, dt), denom)?;
    let norm = cx.binary(
        "multiply",
        cx.binary("subtract", x, mean.clone())?,
        inv.clone(),
    )?;
    let mut ln = cx.binary("multiply", norm, gamma)?;
    if let Some(b) = beta {
        ln = cx.binary("add", ln, b)?;
    }
    Ok(vec![ln, mean, inv])
}

fn gemm(cx: &Cx, inputs: &In) -> CResult<Expr> {
    let mut a = input(inputs, 0)?;
    let mut b = input(inputs, 1)?;
    let dt = cx.dtype(&a)?;
    let alpha = cx.float("alpha", 1.0)?;
    let beta = cx.float("beta", 1.0)?;
    let trans_a = cx.int("transA", 0)? != 0;
    let trans_b = cx.int("transB", 0)? != 0;
    let ws = cx.shape(&b)?;
    let channels = if trans_b { ws[0] } else { ws[1] };
    let a_rank = cx.rank(&a)?;
    if trans_a {
        a = cx.op("transpose", vec![a], &[("axes", AttrValue::ints(&[1, 0]))])?;
    }
    if !trans_b {
        b = cx.op("transpose", vec![b], &[("axes", AttrValue::ints(&[1, 0]))])?;
    }
    if a_rank != 2 {
        a = cx.unary("nn.batch_flatten", a)?;
    }
    if alpha != 1.0 {
        a = cx.binary("multiply", a, cx.scalar(alpha, dt))?;
    }
    let mut out = cx.op(
        "nn.dense",
        vec![a, b],
        &[("units", AttrValue::int(channels))],
    )?;
    if let Some(c) = opt_input(inputs, 2) {
        let c = if beta != 1.0 {
            cx.binary("multiply", cx.scalar(beta, dt), c)?
        } else {
            c
        };
        out = cx.binary("add", out, c)?;
    }
    Ok(out)
}

fn matmul(cx: &Cx, inputs: &In) -> CResult<Expr> {
    let a = input(inputs, 0)?;
    let b = input(inputs, 1)?;
    let out_dtype = AttrValue::str(&cx.dtype(&a)?.to_string());
    let (ar, br) = (cx.rank(&a)?, cx.rank(&b)?);
    if ar <= 2 && br <= 2 {
        if ar == 1 || br == 1 {
            let mut axis = Vec::new();
            let lhs = if ar == 1 {
                axis.push(0);
                cx.op("expand_dims", vec![a], &[("axis", AttrValue::int(0))])?
            } else {
                a
            };
            let rhs = if br == 1 {
                axis.push(-1);
                cx.op("expand_dims", vec![b], &[("axis", AttrValue::int(1))])?
            } else {
                b
            };
            let m = cx.op("nn.matmul", vec![lhs, rhs], &[])?;
            return cx.op("squeeze", vec![m], &[("axis", AttrValue::ints(&axis))]);
        }
        let bt = cx.op("transpose", vec![b], &[("axes", AttrValue::ints(&[1, 0]))])?;
        return cx.op(
            "nn.dense",
            vec![a, bt],
            &[("units", AttrValue::Null), ("out_dtype", out_dtype)],
        );
    }
    let ashape = cx.shape(&a)?;
    let bshape = cx.shape(&b)?;
    // The output's batch dimensions: both shapes padded to one rank, the larger extents.
    let rank = ar.max(br);
    let pad = |s: &[i64]| {
        let mut v = vec![1; rank - s.len()];
        v.extend_from_slice(s);
        v
    };
    let (pa, pb) = (pad(&ashape), pad(&bshape));
    let batch: Vec<i64> = (0..rank - 2).map(|i| pa[i].max(pb[i])).collect();
    let output = if br == 2 {
        let a2 = if ar == 2 {
            a
        } else {
            cx.op(
                "reshape",
                vec![a],
                &[("newshape", AttrValue::ints(&[-1, ashape[ar - 1]]))],
            )?
        };
        let bt = cx.op("transpose", vec![b], &[])?;
        cx.op(
            "nn.dense",
            vec![a2, bt],
            &[("units", AttrValue::Null), ("out_dtype", out_dtype)],
        )?
    } else if ar == 1 || br == 1 {
        // A vector times a batch of matrices (or the reverse), as NumPy's matmul: the vector
        // made a matrix (a row on the left, a column on the right), the product taken, the
        // added axis squeezed out.
        let (a, b, axis) = if ar == 1 {
            let a = cx.op("expand_dims", vec![a], &[("axis", AttrValue::int(0))])?;
            (a, b, -2)
        } else {
            let b = cx.op("expand_dims", vec![b], &[("axis", AttrValue::int(1))])?;
            (a, b, -1)
        };
        let m = matmul(cx, &[Some(a), Some(b)])?;
        return cx.op("squeeze", vec![m], &[("axis", AttrValue::ints(&[axis]))]);
    } else {
        let a_b = [batch.clone(), ashape[ar - 2..].to_vec()].concat();
        let b_b = [batch.clone(), bshape[br - 2..].to_vec()].concat();
        let a = if a_b != ashape {
            cx.op("broadcast_to", vec![a], &[("shape", AttrValue::ints(&a_b))])?
        } else {
            a
        };
        let b = if b_b != bshape {
            cx.op("broadcast_to", vec![b], &[("shape", AttrValue::ints(&b_b))])?
        } else {
            b
        };
        let to3 = |x: Expr, s: &[i64]| -> CResult<Expr> {
            if s.len() == 3 {
                return Ok(x);
            }
            cx.op(
                "reshape",
                vec![x],
                &[(
                    "newshape",
                    AttrValue::ints(&[-1, s[s.len() - 2], s[s.len() - 1]]),
                )],
            )
        };
        let a3 = to3(a, &a_b)?;
        let b3 = to3(b, &b_b)?;
        let bt = cx.op(
            "transpose",
            vec![b3],
            &[("axes", AttrValue::ints(&[0, 2, 1]))],
        )?;
        cx.op(
            "nn.batch_matmul",
            vec![a3, bt],
            &[
                ("out_dtype", out_dtype),
                ("transpose_a", AttrValue::Bool(false)),
                ("transpose_b", AttrValue::Bool(true)),
            ],
        )?
    };
    let final_shape = [batch, vec![ashape[ar - 2]], vec![bshape[br - 1]]].concat();
    cx.op(
        "reshape",
        vec![output],
        &[("newshape", AttrValue::ints(&final_shape))],
    )
}

fn prelu(cx: &Cx, inputs: &In) -> CResult<Expr> {
    let x = input(inputs, 0)?;
    let slope = input(inputs, 1)?;
    let shape = cx.shape(&x)?;
    // Before opset 7 the slope is per channel (axis 1), not broadcast from the right.
    let sshape = cx.shape(&slope)?;
    if cx.opset < 7 && sshape.len() == 1 && shape.len() > 1 && sshape[0] == shape[1] {
        return cx.op("nn.prelu", vec![x, slope], &[("axis", AttrValue::int(1))]);
    }
    let alpha = cx.op("broadcast_to_like", vec![slope, x.clone()], &[])?;
    let alpha = cx.op(
        "reshape",
        vec![alpha],
        &[("newshape", AttrValue::ints(&[-1]))],
    )?;
    let flat = cx.op("reshape", vec![x], &[("newshape", AttrValue::ints(&[-1]))])?;
    let out = cx.op(
        "nn.prelu",
        vec![flat, alpha],
        &[("axis", AttrValue::int(0))],
    )?;
    cx.op(
        "reshape",
        vec![out],
        &[("newshape", AttrValue::ints(&shape))],
    )
}
