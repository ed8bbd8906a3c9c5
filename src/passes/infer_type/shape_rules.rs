//! Op type relations ("shape rules"): for each registered op, a pure function from the
//! argument types known so far (plus the call's attributes) to the types it can assign —
//! normally the result, sometimes inputs too (conv2d/dense weights from attributes,
//! batch_norm/bias_add/layer_norm/prelu vectors from the data shape), as TVM's relations do.
//!
//! Contract of a rule (TVM's `TypeRelationFn`): `types` holds the inputs then the output,
//! each `None` while it still has holes; the rule returns `Ok(false)` ("not yet") when what
//! it needs is unknown, `Ok(true)` after assigning everything it determines, or `Err(message)`
//! for an ill-typed call. A rule never sees or creates solver variables, so rules are plain
//! functions that can be tested alone. `IdentityRel` is not a function here: the solver
//! unifies input and output directly, so identity ops propagate types in both directions.
//!
//! The rules live in `shape_rules/` by family; this file has the rule table, the [`Rel`]
//! context with its attribute accessors, and dimension arithmetic. Dimensions keep TVM's
//! integer widths: arithmetic on an `int64` extent gives `int64` (`Dim::Static64`); anything
//! involving `?` or a symbolic extent gives `?` (passlab has no symbolic arithmetic).

mod conv;
mod dynamic;
mod elemwise;
#[cfg(test)]
mod fuzz;
mod gather;
pub(crate) mod layout;
mod nn;
mod pool;
mod qnn;
mod reduce;
mod reshape;
mod transform;

pub(crate) use layout::Layout;

use crate::ir::attrs::AttrValue;
use crate::ir::TypeKind;
use crate::ir::{Attrs, DType, Dim, Op, TensorType, Type};
use rustc_hash::FxHashMap;
use std::fmt::Display;
use std::sync::OnceLock;

pub(super) type RuleResult = Result<bool, String>;
pub(super) type RuleFn = fn(&mut Rel<'_>) -> RuleResult;

/// How an op is typed.
#[derive(Clone, Copy)]
pub(super) enum Rule {
    /// `IdentityRel`: the result has the input's type.
    Identity,
    Fn(RuleFn),
}

/// The rule for an op, or `None` when passlab has no type rule for it. Keyed by name, not by
/// the op's address: the op may come from another copy of the library (see `Op`'s equality).
/// An op registered at run time (`register_op`) is not in the table: its relation decides.
pub(super) fn rule_for(op: Op) -> Option<Rule> {
    static TABLE: OnceLock<FxHashMap<&'static str, Rule>> = OnceLock::new();
    let table = TABLE.get_or_init(|| {
        crate::ir::op::all()
            .filter_map(|o| lookup(o).map(|r| (o.name(), r)))
            .collect()
    });
    table.get(op.name()).copied().or_else(|| lookup(op))
}

fn lookup(op: Op) -> Option<Rule> {
    use Rule::Fn;
    let by_rel = match op.type_rel {
        "IdentityRel" => Some(Rule::Identity),
        "IdentityCompRel" => Some(Fn(elemwise::identity_comp)),
        "BroadcastRel" => Some(Fn(elemwise::broadcast)),
        "BroadcastCompRel" => Some(Fn(elemwise::broadcast_comp)),
        "ReduceRel" => Some(Fn(reduce::reduce)),
        "GenericReduceRel<ArgReduceAttrs>" => Some(Fn(reduce::arg_reduce)),
        "SoftmaxRel" => Some(Fn(nn::softmax)),
        "GlobalPool2DRel" => Some(Fn(pool::global_pool2d)),
        "AdaptivePool1DRel" | "AdaptivePool2DRel" | "AdaptivePool3DRel" => {
            Some(Fn(pool::adaptive_pool))
        }
        "ShapeOfRel" => Some(Fn(elemwise::shape_of)),
        _ => None,
    };
    if by_rel.is_some() {
        return by_rel;
    }
    let f: RuleFn = match op.name() {
        "where" => elemwise::where_,
        "cast" | "reinterpret" => elemwise::cast,
        "cast_like" => elemwise::cast_like,
        "zeros" | "ones" => elemwise::init_op,
        "full" => elemwise::full,
        "full_like" => elemwise::full_like,
        "ndarray_size" => elemwise::ndarray_size,
        "argwhere" => elemwise::argwhere,
        "unique" => elemwise::unique,
        "nn.conv1d" | "nn.conv2d" | "nn.conv3d" => conv::conv,
        "nn.contrib_depthwise_conv2d_NCHWc" => conv::conv,
        "nn.contrib_conv2d_gemm_weight_transform" => conv::conv2d_gemm_weight_transform,
        "nn.contrib_conv2d_gemm_without_weight_transform" => conv::conv2d_gemm,
        "nn.conv1d_transpose" | "nn.conv2d_transpose" | "nn.conv3d_transpose" => {
            conv::conv_transpose
        }
        "nn.contrib_conv2d_NCHWc" => conv::conv2d_nchwc,
        "nn.deformable_conv2d" => conv::deformable_conv2d,
        "nn.dense" => nn::dense,
        "nn.matmul" => nn::matmul,
        "nn.contrib_dense_pack" => nn::dense_pack,
        "nn.batch_matmul" => nn::batch_matmul,
        "nn.batch_norm" => nn::batch_norm,
        "nn.layer_norm" | "nn.instance_norm" | "nn.group_norm" => nn::norm,
        "nn.dropout" => nn::dropout,
        "memory.alloc_storage" => nn::alloc_storage,
        "memory.kill" => nn::kill,
        "nn.bias_add" | "nn.prelu" => nn::bias_add,
        "nn.batch_flatten" => nn::batch_flatten,
        "nn.pad" | "nn.mirror_pad" => nn::pad,
        "nn.max_pool1d" | "nn.max_pool2d" | "nn.max_pool3d" | "nn.avg_pool1d" | "nn.avg_pool2d"
        | "nn.avg_pool3d" => pool::pool,
        "nn.upsampling" => pool::upsampling,
        "image.resize1d" | "image.resize2d" | "image.resize3d" => pool::resize2d,
        "image.grid_sample" => pool::grid_sample,
        "reshape" => reshape::reshape,
        "reshape_like" => reshape::reshape_like,
        "transpose" => reshape::transpose,
        "concatenate" => transform::concatenate,
        "stack" => transform::stack,
        "split" => transform::split,
        "squeeze" => reshape::squeeze,
        "expand_dims" => reshape::expand_dims,
        "take" => transform::take,
        "strided_slice" => transform::strided_slice,
        "tile" => transform::tile,
        "repeat" => transform::repeat,
        "broadcast_to" => transform::broadcast_to,
        "broadcast_to_like" => transform::broadcast_to_like,
        "collapse_sum_like" => transform::collapse_sum_like,
        "collapse_sum_to" => transform::collapse_sum_to,
        "contrib_reverse_reshape" => reshape::reverse_reshape,
        "layout_transform" => reshape::layout_transform,
        "reverse" | "sort" => elemwise::same_type,
        "argsort" => elemwise::argsort,
        "trilu" => elemwise::trilu,
        "einsum" => transform::einsum,
        "one_hot" => transform::one_hot,
        "nn.depth_to_space" | "nn.space_to_depth" => transform::depth_space,
        "topk" => transform::topk,
        "gather" => transform::gather,
        "variance" => reduce::variance,
        "cumsum" | "cumprod" => reduce::scan,
        "gather_nd" => gather::gather_nd,
        "scatter_elements" => gather::scatter_elements,
        "scatter_nd" => gather::scatter_nd,
        "slice_like" => gather::slice_like,
        "vision.roi_align" | "vision.roi_pool" => gather::roi,
        "qnn.quantize" => qnn::quantize,
        "qnn.dequantize" => qnn::dequantize,
        "qnn.requantize" => qnn::requantize,
        "qnn.simulated_quantize" | "qnn.simulated_dequantize" => qnn::simulated,
        "relay.op.annotation.simulated_quantize" => qnn::annotation_simulated_quantize,
        "qnn.add" | "qnn.mul" | "qnn.subtract" => qnn::binary,
        "qnn.conv2d" => qnn::conv2d,
        "qnn.conv2d_transpose" => qnn::conv2d_transpose,
        "qnn.dense" => qnn::dense,
        "qnn.batch_matmul" => qnn::batch_matmul,
        "qnn.concatenate" => qnn::concatenate,
        "qnn.avg_pool2d" => qnn::avg_pool2d,
        "dyn.reshape" | "dyn.broadcast_to" => dynamic::reshape_like_shape,
        "dyn.zeros" | "dyn.ones" => dynamic::init_op,
        "dyn.full" => dynamic::full,
        "dyn.tile" => dynamic::tile,
        "dyn.squeeze" => dynamic::squeeze,
        "dyn.expand_dims" => dynamic::expand_dims,
        "dyn.strided_slice" => dynamic::strided_slice,
        "dyn.topk" => dynamic::topk,
        "dyn.one_hot" => dynamic::one_hot,
        "dyn.image.resize2d" => dynamic::resize2d,
        "dyn.nn.upsampling" | "dyn.nn.upsampling3d" => dynamic::upsampling,
        "nn.upsampling3d" => dynamic::upsampling3d,
        "dyn.nn.pad" => dynamic::pad,
        "sparse_to_dense" | "dyn.sparse_to_dense" => dynamic::sparse_to_dense,
        "qnn.leaky_relu" | "qnn.softmax" | "qnn.abs" | "qnn.erf" | "qnn.exp" | "qnn.hardswish"
        | "qnn.log" | "qnn.rsqrt" | "qnn.sigmoid" | "qnn.sqrt" | "qnn.tanh" => qnn::unary,
        _ => return None,
    };
    Some(Rule::Fn(f))
}

/// What a rule sees: the op, the call's attributes, the argument types known so far
/// (`types[num_inputs]` is the result), and the assignments it makes.
pub(super) struct Rel<'a> {
    pub op: &'static str,
    pub attrs: &'a Attrs,
    pub types: &'a [Option<Type>],
    pub assigned: Vec<(usize, Type)>,
}

impl<'a> Rel<'a> {
    pub fn new(op: &'static str, attrs: &'a Attrs, types: &'a [Option<Type>]) -> Rel<'a> {
        Rel {
            op,
            attrs,
            types,
            assigned: Vec::new(),
        }
    }

    pub fn num_inputs(&self) -> usize {
        self.types.len() - 1
    }

    /// Assigns the result `(shape, dtype)`, sharing input `i`'s type when it is the same
    /// (elementwise results usually are: no allocation, and cheap equality later).
    pub fn done_like(&mut self, i: usize, shape: Vec<Dim>, dtype: DType) -> RuleResult {
        if let Some((t, tt)) = self.types[i]
            .as_ref()
            .and_then(|t| Some((t, t.as_tensor()?)))
        {
            if tt.dtype == dtype && tt.shape == shape {
                return self.done(t.clone());
            }
        }
        self.done_tensor(shape, dtype)
    }

    /// Input `i` as a tensor type: `Ok(None)` while unknown, an error when it is known and not
    /// a tensor.
    pub fn tensor(&self, i: usize) -> Result<Option<&'a TensorType>, String> {
        match self.types[i].as_ref().map(|t| (t, t.kind())) {
            None => Ok(None),
            Some((_, TypeKind::Tensor(t))) => Ok(Some(t)),
            Some((t, _)) => self.fail(format!("argument {} must be a tensor, found {t}", i + 1)),
        }
    }

    /// Input `i` as a tuple of tensors (for concatenate and stack).
    pub fn tensor_tuple(&self, i: usize) -> Result<Option<Vec<&'a TensorType>>, String> {
        match self.types[i].as_ref().map(|t| (t, t.kind())) {
            None => Ok(None),
            Some((_, TypeKind::Tuple(fs))) => fs
                .iter()
                .map(|f| match f.kind() {
                    TypeKind::Tensor(t) => Ok(t),
                    _ => self.fail(format!(
                        "expects a tuple of tensors, found a field of type {f}"
                    )),
                })
                .collect::<Result<Vec<_>, _>>()
                .map(Some),
            Some((t, _)) => self.fail(format!(
                "expects a tuple of tensors as its argument, found {t}"
            )),
        }
    }

    pub fn assign(&mut self, i: usize, t: Type) {
        self.assigned.push((i, t));
    }

    /// Assigns the result and reports the relation solved.
    /// The call's type is `t`: checked first, so that no rule (whatever its attributes ask
    /// for) makes a tensor type with a negative extent or more than 2^63 - 1 elements.
    pub fn done(&mut self, t: Type) -> RuleResult {
        check_extents(&t).map_err(|msg| format!("`{}`: {msg}", self.op))?;
        self.assign(self.num_inputs(), t);
        Ok(true)
    }

    pub fn done_tensor(&mut self, shape: Vec<Dim>, dtype: DType) -> RuleResult {
        self.done(tensor(shape, dtype))
    }

    /// An invalid call: "`op`: message".
    pub fn fail<T>(&self, msg: impl Display) -> Result<T, String> {
        Err(format!("`{}`: {msg}", self.op))
    }

    /// Incompatible argument types: "type mismatch in `op`: message".
    pub fn mismatch<T>(&self, msg: impl Display) -> Result<T, String> {
        Err(format!("type mismatch in `{}`: {msg}", self.op))
    }

    pub fn attr(&self, name: &str) -> Option<&'a AttrValue> {
        self.attrs.get(name).filter(|v| !v.is_null())
    }

    pub fn int(&self, name: &str) -> Result<i64, String> {
        match self.opt_int(name)? {
            Some(v) => Ok(v),
            None => self.fail(format!("needs the integer attribute `{name}`")),
        }
    }

    pub fn int_or(&self, name: &str, default: i64) -> Result<i64, String> {
        Ok(self.opt_int(name)?.unwrap_or(default))
    }

    pub fn opt_int(&self, name: &str) -> Result<Option<i64>, String> {
        match self.attr(name) {
            None => Ok(None),
            Some(v) => match v.as_int() {
                Some(i) => Ok(Some(i)),
                None => self.fail(format!("attribute `{name}` must be an integer")),
            },
        }
    }

    pub fn float(&self, name: &str) -> Result<f64, String> {
        match self.attr(name).and_then(AttrValue::as_float) {
            Some(v) => Ok(v),
            None => self.fail(format!("needs the number attribute `{name}`")),
        }
    }

    pub fn bool_or(&self, name: &str, default: bool) -> bool {
        self.attr(name)
            .and_then(AttrValue::as_bool)
            .unwrap_or(default)
    }

    pub fn str_or(&self, name: &str, default: &'a str) -> &'a str {
        self.attr(name)
            .and_then(AttrValue::as_str)
            .unwrap_or(default)
    }

    /// An integer list attribute; `None` when null or absent.
    pub fn opt_ints(&self, name: &str) -> Result<Option<Vec<i64>>, String> {
        match self.attr(name) {
            None => Ok(None),
            Some(v) => match v.as_int_list() {
                Some(l) => Ok(Some(l)),
                None => self.fail(format!("attribute `{name}` must be a list of integers")),
            },
        }
    }

    pub fn ints(&self, name: &str) -> Result<Vec<i64>, String> {
        match self.opt_ints(name)? {
            Some(v) => Ok(v),
            None => self.fail(format!("needs the attribute `{name}`")),
        }
    }

    /// An integer list attribute as dimensions (a `1i64` entry gives an int64 extent).
    pub fn dims(&self, name: &str) -> Result<Option<Vec<Dim>>, String> {
        match self.attr(name) {
            None => Ok(None),
            Some(AttrValue::Array(items)) => items
                .iter()
                .map(|v| attr_dim(v).ok_or(()))
                .collect::<Result<Vec<_>, ()>>()
                .map(Some)
                .or_else(|()| self.fail(format!("attribute `{name}` must be a list of integers"))),
            Some(v) => match attr_dim(v) {
                Some(d) => Ok(Some(vec![d])),
                None => self.fail(format!("attribute `{name}` must be a list of integers")),
            },
        }
    }

    /// A single-extent attribute (`channels=64`, `units=768`); `None` when null.
    pub fn dim(&self, name: &str) -> Result<Option<Dim>, String> {
        Ok(self.dims(name)?.and_then(|v| v.into_iter().next()))
    }

    /// A dtype attribute; null or `""` means "not given".
    pub fn dtype(&self, name: &str) -> Result<Option<DType>, String> {
        match self.attr(name) {
            None => Ok(None),
            Some(AttrValue::Str(s)) if s.is_empty() => Ok(None),
            Some(AttrValue::Str(s)) => match DType::parse(s) {
                Some(d) => Ok(Some(d)),
                None => self.fail(format!("unknown dtype \"{s}\" in attribute `{name}`")),
            },
            Some(_) => self.fail(format!("attribute `{name}` must be a dtype string")),
        }
    }

    /// A data layout attribute, parsed.
    pub fn layout(&self, name: &str, default: &'a str) -> Result<Layout, String> {
        let s = self.str_or(name, default);
        Layout::parse(s).map_err(|e| format!("`{}`: {e}", self.op))
    }

    /// Normalizes an axis against a rank (`-1` = last), checking `[-rank, rank)`.
    pub fn axis(&self, axis: i64, rank: usize) -> Result<usize, String> {
        let r = rank as i64;
        if axis < -r || axis >= r {
            return self.fail(format!(
                "axis {axis} is out of range for a tensor of rank {rank}"
            ));
        }
        Ok(if axis < 0 { axis + r } else { axis } as usize)
    }
}

fn attr_dim(v: &AttrValue) -> Option<Dim> {
    match v {
        AttrValue::Int(i, 64) => Some(Dim::Static64(*i)),
        AttrValue::Int(i, _) => Some(Dim::Static(*i)),
        AttrValue::Any => Some(Dim::Any),
        _ => None,
    }
}

pub(super) fn tensor(shape: Vec<Dim>, dtype: DType) -> Type {
    Type::tensor(shape, dtype)
}

/// `a op b` on static extents (int64 if either is), `?` otherwise.
pub(super) fn dim_op(a: &Dim, b: &Dim, f: impl Fn(i64, i64) -> i64) -> Dim {
    match (a, b) {
        (Dim::Static(x), Dim::Static(y)) => Dim::Static(f(*x, *y)),
        _ => match (a.as_static(), b.as_static()) {
            (Some(x), Some(y)) => Dim::Static64(f(x, y)),
            _ => Dim::Any,
        },
    }
}

/// `f(a)` on a static extent, keeping its width; `?` otherwise.
pub(super) fn dim_map(a: &Dim, f: impl Fn(i64) -> i64) -> Dim {
    match a {
        Dim::Static(x) => Dim::Static(f(*x)),
        Dim::Static64(x) => Dim::Static64(f(*x)),
        _ => Dim::Any,
    }
}

/// Floor division as TVM's `indexdiv` on non-negative extents.
pub(super) fn floordiv(a: i64, b: i64) -> i64 {
    if b == 0 {
        0
    } else {
        a.div_euclid(b)
    }
}

/// Two extents that are statically known to differ.
pub(super) fn dims_conflict(a: &Dim, b: &Dim) -> bool {
    matches!((a.as_static(), b.as_static()), (Some(x), Some(y)) if x != y)
}

/// TVM's display of a shape, `[1, 64, 56, 56]`.
pub(super) fn shape_str(shape: &[Dim]) -> String {
    let parts: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
    format!("[{}]", parts.join(", "))
}

/// Every tensor type in `t` (a flat tuple's fields included) has extents that are not
/// negative and a static element count that fits an `i64`.
fn check_extents(t: &Type) -> Result<(), String> {
    let check = |tt: &TensorType| {
        if let Some(d) = tt.shape.iter().filter_map(Dim::as_static).find(|d| *d < 0) {
            return Err(format!(
                "the result would have a negative dimension ({d}) in {tt}"
            ));
        }
        let count = tt
            .shape
            .iter()
            .filter_map(Dim::as_static)
            .try_fold(1i64, |n, d| n.checked_mul(d));
        match count {
            Some(_) => Ok(()),
            None => Err(format!(
                "the result {tt} would have more than 2^63 elements"
            )),
        }
    };
    match t.kind() {
        TypeKind::Tensor(tt) => check(tt),
        TypeKind::Tuple(fields) => fields.iter().try_for_each(|f| match f.kind() {
            TypeKind::Tensor(tt) => check(tt),
            _ => Ok(()),
        }),
        _ => Ok(()),
    }
}
