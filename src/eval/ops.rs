//! The one dispatch from an op name to its kernel, used by FoldConstant and by the reference
//! evaluator alike, so both compute the same numbers.
//!
//! [`apply`] answers `None` when the op has no kernel, a dtype is not supported, or the
//! arguments or attributes are ones the op rejects; [`has_kernel`] tells the first case from
//! the others, so the evaluator can say which it was.

use super::value::{attr_dtype, Value};
use super::{
    dynamic, einsum, elementwise, grid_sample, indexing, layout, nn, norm, pool, qnn, reduce,
    resize, scatter, select, shape_ops,
};
use crate::ir::Attrs;

/// An argument of an op call: a tensor, or a tuple of arguments (`concatenate((a, b))`).
#[derive(Clone, Debug)]
pub enum Arg<'a> {
    Tensor(&'a Value),
    Tuple(Vec<Arg<'a>>),
}

/// The result of an op call.
#[derive(Debug)]
pub enum OpOut {
    Tensor(Value),
    Tuple(Vec<Value>),
}

impl<'a> Arg<'a> {
    pub fn tensor(&self) -> Option<&'a Value> {
        match self {
            Arg::Tensor(v) => Some(v),
            Arg::Tuple(_) => None,
        }
    }

    /// The fields of a tuple of tensors.
    pub fn tensors(&self) -> Option<Vec<&'a Value>> {
        match self {
            Arg::Tuple(fs) => fs.iter().map(Arg::tensor).collect(),
            Arg::Tensor(_) => None,
        }
    }
}

/// Ops with a kernel besides the elementwise ones (`elementwise::binary_name`, `is_unary`).
const KERNELS: &[&str] = &[
    "argwhere",
    "unique",
    "split",
    "concatenate",
    "stack",
    "where",
    "full",
    "full_like",
    "zeros",
    "ones",
    "nn.pad",
    "take",
    "gather",
    "tile",
    "repeat",
    "reverse",
    "strided_slice",
    "reshape",
    "contrib_reverse_reshape",
    "reshape_like",
    "nn.batch_flatten",
    "expand_dims",
    "squeeze",
    "transpose",
    "broadcast_to",
    "broadcast_to_like",
    "cast_like",
    "nn.dense",
    "nn.matmul",
    "nn.batch_matmul",
    "nn.conv1d",
    "nn.conv2d",
    "nn.conv3d",
    "nn.contrib_conv2d_NCHWc",
    "nn.contrib_depthwise_conv2d_NCHWc",
    "relay.op.annotation.simulated_quantize",
    "nn.contrib_dense_pack",
    "nn.conv1d_transpose",
    "nn.conv2d_transpose",
    "nn.conv3d_transpose",
    "nn.bias_add",
    "nn.max_pool2d",
    "nn.avg_pool2d",
    "nn.max_pool1d",
    "nn.avg_pool1d",
    "nn.max_pool3d",
    "nn.avg_pool3d",
    "nn.global_max_pool2d",
    "nn.global_avg_pool2d",
    "nn.adaptive_max_pool2d",
    "nn.adaptive_avg_pool2d",
    "nn.batch_norm",
    "nn.layer_norm",
    "nn.instance_norm",
    "nn.lrn",
    "nn.prelu",
    "nn.dropout",
    "image.resize2d",
    "image.grid_sample",
    "nn.upsampling",
    "nn.depth_to_space",
    "nn.space_to_depth",
    "sum",
    "mean",
    "max",
    "min",
    "prod",
    "all",
    "any",
    "argmax",
    "argmin",
    "variance",
    "topk",
    "one_hot",
    "nn.softmax",
    "nn.fast_softmax",
    "nn.log_softmax",
    "slice_like",
    "gather_nd",
    "scatter_elements",
    "scatter_nd",
    "layout_transform",
    "cumsum",
    "cumprod",
    "argsort",
    "sort",
    "trilu",
    "einsum",
    "invert_permutation",
    "collapse_sum_like",
    "collapse_sum_to",
    "sparse_to_dense",
    "nn.upsampling3d",
    "nn.group_norm",
    "nn.l2_normalize",
    "nn.mirror_pad",
    "nn.adaptive_max_pool1d",
    "nn.adaptive_avg_pool1d",
    "nn.adaptive_max_pool3d",
    "nn.adaptive_avg_pool3d",
    "reinterpret",
    "fixed_point_multiply",
];

/// Ops whose value is their argument's: annotations for later passes and `debug` (its
/// compute is the identity in TVM too).
const IDENTITY: &[&str] = &[
    "annotation.bitpack_start",
    "annotation.bitpack_end",
    "annotation.cast_hint",
    "annotation.checkpoint",
    "annotation.compiler_begin",
    "annotation.compiler_end",
    "annotation.stop_fusion",
    "debug",
];

/// Whether `op` has a kernel at all (it may still refuse particular arguments).
pub fn has_kernel(op: &str) -> bool {
    elementwise::binary_name(op).is_some()
        || elementwise::is_unary(op)
        || KERNELS.contains(&op)
        || IDENTITY.contains(&op)
        || qnn::QNN_KERNELS.contains(&op)
        || dynamic::is_dyn(op)
}

/// Every op with a kernel, sorted (for documentation and tests).
pub fn kernels() -> Vec<&'static str> {
    let mut v: Vec<&'static str> = KERNELS.to_vec();
    v.extend(IDENTITY);
    v.extend(qnn::QNN_KERNELS);
    v.extend(
        crate::ir::op::all()
            .map(|o| o.name())
            .filter(|n| dynamic::is_dyn(n)),
    );
    v.extend(elementwise::names());
    v.sort_unstable();
    v.dedup();
    v
}

/// [`apply`] for a broadcast binary op whose operands the caller gives up: computed in the
/// storage of an operand that has the result's shape and dtype when there is one (the same
/// numbers, without a new array), else as [`apply`] computes it. `None` for an op that is
/// not a broadcast binary one, and where [`apply`] answers `None`.
pub fn apply_binary_owned(op: &str, mut x: Value, mut y: Value) -> Option<Value> {
    let name = elementwise::binary_name(op)?;
    if elementwise::binary_into(name, &mut x, &y) {
        return Some(x);
    }
    if elementwise::is_commutative(name) && elementwise::binary_into(name, &mut y, &x) {
        return Some(y);
    }
    elementwise::binary(name, &x, &y)
}

/// [`apply`] for a broadcast binary op on two float32 constants whose elements are held as
/// `f32`s ([`Bytes::as_f32`](crate::ir::tensor::Bytes::as_f32)): computed straight from
/// their data into the result's (no copy of either operand, which FoldConstant's weights
/// would otherwise take). `None` when that does not apply (another dtype, elements held as
/// plain bytes, an op that is not float arithmetic): the caller then goes through [`apply`].
pub fn apply_binary_data(
    op: &str,
    x: &crate::ir::TensorData,
    y: &crate::ir::TensorData,
) -> Option<crate::ir::TensorData> {
    if x.dtype != crate::ir::DType::FLOAT32 || y.dtype != x.dtype {
        return None;
    }
    let dims = |t: &crate::ir::TensorData| -> Option<Vec<usize>> {
        t.shape.iter().map(|&d| usize::try_from(d).ok()).collect()
    };
    let (xs, ys) = (dims(x)?, dims(y)?);
    let out = elementwise::broadcast_shape(&xs, &ys)?;
    super::shape_ops::bounded(&out)?;
    let v = elementwise::binary_f32(
        elementwise::binary_name(op)?,
        x.bytes.as_f32()?,
        &xs,
        y.bytes.as_f32()?,
        &ys,
        &out,
    )?;
    Some(crate::ir::TensorData {
        dtype: x.dtype,
        shape: out.iter().map(|&d| d as i64).collect(),
        bytes: v.into(),
    })
}

/// Evaluates `op(args)` with `attrs`. `None`: not evaluated (no kernel, an unsupported dtype,
/// or arguments the op rejects).
pub fn apply(op: &str, attrs: &Attrs, args: &[Arg<'_>]) -> Option<OpOut> {
    let t = |i: usize| args.get(i).and_then(Arg::tensor);
    let one = |v: Option<Value>| v.map(OpOut::Tensor);
    let many = |v: Option<Vec<Value>>| v.map(OpOut::Tuple);
    if op.starts_with("qnn.") {
        return one(qnn::apply(op, attrs, args));
    }
    if dynamic::is_dyn(op) {
        return dynamic::apply_dyn(op, attrs, args);
    }
    if args.len() == 2 {
        if let Some(name) = elementwise::binary_name(op) {
            return one(elementwise::binary(name, t(0)?, t(1)?));
        }
    }
    if args.len() == 1 && elementwise::is_unary(op) {
        return one(elementwise::unary(op, attrs, t(0)?));
    }
    let arity = match op {
        "zeros" | "ones" => 0,
        "concatenate"
        | "einsum"
        | "stack"
        | "split"
        | "full"
        | "nn.lrn"
        | "nn.dropout"
        | "tile"
        | "repeat"
        | "reverse"
        | "strided_slice"
        | "image.resize2d"
        | "nn.upsampling"
        | "nn.upsampling3d"
        | "nn.depth_to_space"
        | "nn.space_to_depth"
        | "topk"
        | "layout_transform"
        | "cumsum"
        | "cumprod"
        | "argsort"
        | "sort"
        | "invert_permutation"
        | "nn.l2_normalize"
        | "nn.mirror_pad"
        | "reinterpret"
        | "fixed_point_multiply"
        | "argwhere"
        | "unique" => 1,
        _ if IDENTITY.contains(&op) => 1,
        "where" | "nn.layer_norm" | "nn.instance_norm" | "nn.group_norm" | "one_hot"
        | "sparse_to_dense" | "scatter_elements" | "scatter_nd" => 3,
        "nn.batch_norm" => 5,
        "relay.op.annotation.simulated_quantize" => 4,
        _ if reduce::is_reduction(op) || shape_ops::is_layout(op) || pool::is_pool(op) => 1,
        _ => 2,
    };
    if args.len() != arity {
        return None;
    }
    match op {
        "split" => many(shape_ops::split(attrs, t(0)?)),
        "concatenate" | "stack" => one(shape_ops::join(op, attrs, &args.first()?.tensors()?)),
        "where" => one(elementwise::where_(t(0)?, t(1)?, t(2)?)),
        "full" => one(shape_ops::full(attrs, t(0)?)),
        "full_like" => one(shape_ops::full_like(t(0)?, t(1)?)),
        "zeros" | "ones" => one(shape_ops::zeros_ones(op == "ones", attrs)),
        "nn.pad" => one(shape_ops::pad(attrs, t(0)?, t(1)?)),
        "take" => one(indexing::take(attrs, t(0)?, t(1)?)),
        "argwhere" => one(indexing::argwhere(t(0)?)),
        "unique" => many(indexing::unique(attrs, t(0)?)),
        "gather" => one(indexing::gather(attrs, t(0)?, t(1)?)),
        "tile" => one(indexing::tile(attrs, t(0)?)),
        "repeat" => one(indexing::repeat(attrs, t(0)?)),
        "reverse" => one(indexing::reverse(attrs, t(0)?)),
        "strided_slice" => one(indexing::strided_slice(attrs, t(0)?)),
        "reshape_like" | "broadcast_to_like" => one(shape_ops::like(op, t(0)?, t(1)?)),
        "cast_like" => one(elementwise::cast(t(0)?, t(1)?.dtype)),
        "slice_like" => one(select::slice_like(attrs, t(0)?, t(1)?)),
        "gather_nd" => one(select::gather_nd(attrs, t(0)?, t(1)?)),
        "scatter_elements" => one(scatter::scatter_elements(attrs, t(0)?, t(1)?, t(2)?)),
        "scatter_nd" => one(scatter::scatter_nd(attrs, t(0)?, t(1)?, t(2)?)),
        "layout_transform" => one(layout::layout_transform(attrs, t(0)?)),
        "cumsum" | "cumprod" => one(select::scan(op == "cumprod", attrs, t(0)?)),
        _ if IDENTITY.contains(&op) => one(Some(t(0)?.clone())),
        "argsort" => one(reduce::argsort(attrs, t(0)?)),
        "sort" => one(reduce::sort(attrs, t(0)?)),
        "invert_permutation" => one(indexing::invert_permutation(t(0)?)),
        "trilu" => one(indexing::trilu(attrs, t(0)?, t(1)?)),
        "einsum" => one(einsum::einsum(
            attrs.get_str("equation")?,
            &args.first()?.tensors()?,
        )),
        "collapse_sum_like" => one(reduce::collapse_sum_like(t(0)?, t(1)?)),
        // The shape is the attribute when the call was built with a constant, else the tensor.
        "collapse_sum_to" => {
            let shape: Vec<i64> = match attrs.get_ints("shape") {
                Some(s) => s,
                None => t(1)?.to_data().to_i64_vec(),
            };
            let shape: Vec<usize> = shape
                .iter()
                .map(|&d| usize::try_from(d).ok())
                .collect::<Option<_>>()?;
            one(reduce::collapse_sum_to(t(0)?, &shape))
        }
        "nn.group_norm" => one(norm::group_norm(attrs, t(0)?, t(1)?, t(2)?)),
        "nn.l2_normalize" => one(norm::l2_normalize(attrs, t(0)?)),
        "nn.mirror_pad" => one(shape_ops::mirror_pad(attrs, t(0)?)),
        "reinterpret" => one(elementwise::reinterpret(t(0)?, attr_dtype(attrs, "dtype")?)),
        "fixed_point_multiply" => one(qnn::fixed_point_multiply_op(attrs, t(0)?)),
        "nn.dense" => one(nn::dense(attrs, t(0)?, t(1)?)),
        "nn.contrib_dense_pack" => one(layout::dense_pack(attrs, t(0)?, t(1)?)),
        "relay.op.annotation.simulated_quantize" => one(qnn::annotation_simulated_quantize(
            attrs,
            t(0)?,
            t(1)?,
            t(2)?,
            t(3)?,
        )),
        "nn.matmul" => one(nn::matmul(attrs, t(0)?, t(1)?)),
        "nn.batch_matmul" => one(nn::batch_matmul(attrs, t(0)?, t(1)?)),
        "nn.conv1d"
        | "nn.conv2d"
        | "nn.conv3d"
        | "nn.contrib_conv2d_NCHWc"
        | "nn.contrib_depthwise_conv2d_NCHWc" => one(layout::conv(op, attrs, t(0)?, t(1)?)),
        "nn.conv1d_transpose" | "nn.conv2d_transpose" | "nn.conv3d_transpose" => {
            one(nn::conv_transpose(attrs, t(0)?, t(1)?))
        }
        "nn.bias_add" => one(nn::bias_add(attrs, t(0)?, t(1)?)),
        "nn.max_pool2d" | "nn.avg_pool2d" => one(pool::pool2d(op == "nn.max_pool2d", attrs, t(0)?)),
        "nn.max_pool1d" | "nn.avg_pool1d" | "nn.max_pool3d" | "nn.avg_pool3d" => {
            one(pool::pool_nd(op.starts_with("nn.max"), attrs, t(0)?))
        }
        "topk" => {
            let mut outs = reduce::topk(attrs, t(0)?)?;
            match attrs.get_str("ret_type").unwrap_or("both") {
                "both" => Some(OpOut::Tuple(outs)),
                _ => outs.pop().map(OpOut::Tensor),
            }
        }
        "one_hot" => one(indexing::one_hot(attrs, t(0)?, t(1)?, t(2)?)),
        "variance" => one(reduce::variance(attrs, t(0)?, t(1)?)),
        "nn.global_max_pool2d" | "nn.global_avg_pool2d" => one(pool::global_pool2d(
            op == "nn.global_max_pool2d",
            attrs,
            t(0)?,
        )),
        "nn.adaptive_max_pool1d"
        | "nn.adaptive_avg_pool1d"
        | "nn.adaptive_max_pool3d"
        | "nn.adaptive_avg_pool3d" => one(pool::adaptive_pool_nd(
            op.starts_with("nn.adaptive_max"),
            attrs,
            t(0)?,
        )),
        "nn.adaptive_max_pool2d" | "nn.adaptive_avg_pool2d" => one(pool::adaptive_pool2d(
            op == "nn.adaptive_max_pool2d",
            attrs,
            t(0)?,
        )),
        "nn.batch_norm" => many(norm::batch_norm(attrs, [t(0)?, t(1)?, t(2)?, t(3)?, t(4)?])),
        "nn.layer_norm" => one(norm::layer_norm(attrs, t(0)?, t(1)?, t(2)?)),
        "nn.instance_norm" => one(norm::instance_norm(attrs, t(0)?, t(1)?, t(2)?)),
        "nn.lrn" => one(norm::lrn(attrs, t(0)?)),
        "nn.prelu" => one(norm::prelu(attrs, t(0)?, t(1)?)),
        "nn.dropout" => many(norm::dropout(t(0)?)),
        "image.resize2d" => one(resize::resize2d(attrs, t(0)?)),
        "image.grid_sample" => one(grid_sample::grid_sample(attrs, t(0)?, t(1)?)),
        "nn.upsampling" => one(resize::upsampling(attrs, t(0)?)),
        "nn.upsampling3d" => one(resize::upsampling3d(attrs, t(0)?)),
        "sparse_to_dense" => one(select::sparse_to_dense(attrs, t(0)?, t(1)?, t(2)?)),
        "nn.depth_to_space" | "nn.space_to_depth" => one(resize::depth_space(op, attrs, t(0)?)),
        _ if reduce::is_reduction(op) => one(reduce::evaluate(op, attrs, t(0)?)),
        _ if shape_ops::is_layout(op) => one(shape_ops::unary_layout(op, attrs, t(0)?)),
        _ => None,
    }
}
