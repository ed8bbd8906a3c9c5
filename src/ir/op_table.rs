//! The static op registry table: every operator registered in Apache TVM v0.18 Relay, with its
//! arity, fusion pattern (`TOpPattern`), stateful flag (`TOpIsStateful`), `TNonComputational`
//! flag, type relation and attrs type, plus the attribute schemas passlab knows.
//!
//! Where the facts come from (TVM v0.18 registrations, as summarised in the reference docs):
//! * the op list and the per-op columns: `relay_ops_v0.18.tsv`, machine-extracted from the
//!   `RELAY_REGISTER_OP` chains (and the unary/binary/compare/reduce helper macros) plus the Python
//!   `register_pattern`/`register_stateful` calls. An unset `TOpPattern` is `None` here (FuseOps
//!   treats it as opaque); an unset stateful flag is `false`; `num_inputs` is `-1` when the op does
//!   not register one (`torch_op`). `type_rel` is the name of the C++ relation function.
//! * the attribute schemas: `RELAY_PASSES.md` C.1-C.4 for the common ops, and the
//!   `TVM_ATTR_FIELD` declarations of `include/tvm/relay/attrs/{nn,transform,reduce,image}.h`
//!   for the others. Field order is printing order; a field with `default: None` has no default,
//!   so it is always printed and is required when parsing (null prints as `None`).
//!
//! Ops whose attrs type has no schema here (qnn/vision/random/algorithm/annotation and a few
//! contrib ops) keep their `attrs_type_key` and accept any attributes in the order written.
//!
//! Deliberate departures from the raw registrations:
//! * `topk`/`dyn.topk`: the C++ struct is `TopKAttrs`, but its type key is `relay.attrs.TopkAttrs`.
//! * `nn.avg_pool2d_grad` is registered with `MaxPool2DAttrs` but built with `AvgPool2DAttrs`, and
//!   `nn.contrib_dense_pack` is registered with `DenseAttrs` but built with (and reads)
//!   `DensePackAttrs`; their schemas follow what the op is actually built with.
//! * `dyn.expand_dims` registers no attrs type but is built with `DynExpandDimsAttrs`
//!   (`num_newaxis`); its schema here is that one, so it parses without `attrs_type_key=`.
//!   `dyn.topk` takes `TopkAttrs`'s schema, as `topk` does. `collapse_sum_to` registers no
//!   attrs type either; `MakeCollapseSumTo` builds `InitOpAttrs` (the shape, when constant).
//! * `SqueezeAttrs.axis` defaults to null and `ReshapeAttrs.allowzero` is a bool defaulting to
//!   false, as declared in `transform.h` (RELAY_PASSES.md C.3 lists the first as required).

use super::op::{AttrDefault, AttrField, AttrKind, AttrSchema, OpDef, OpPattern};

// ---- Schemas of the common ops (RELAY_PASSES.md C.3). ----

pub static CONV2D_ATTRS: AttrSchema = AttrSchema {
    type_key: "relay.attrs.Conv2DAttrs",
    fields: &[
        AttrField {
            name: "strides",
            kind: AttrKind::Array,
            default: Some(AttrDefault::Ints(&[1, 1])),
        },
        AttrField {
            name: "padding",
            kind: AttrKind::Array,
            default: Some(AttrDefault::Ints(&[0, 0])),
        },
        AttrField {
            name: "dilation",
            kind: AttrKind::Array,
            default: Some(AttrDefault::Ints(&[1, 1])),
        },
        AttrField {
            name: "groups",
            kind: AttrKind::Int,
            default: Some(AttrDefault::Int(1)),
        },
        AttrField {
            name: "channels",
            kind: AttrKind::Any,
            default: Some(AttrDefault::Null),
        },
        AttrField {
            name: "kernel_size",
            kind: AttrKind::Array,
            default: Some(AttrDefault::Null),
        },
        AttrField {
            name: "data_layout",
            kind: AttrKind::Str,
            default: Some(AttrDefault::Str("NCHW")),
        },
        AttrField {
            name: "kernel_layout",
            kind: AttrKind::Str,
            default: Some(AttrDefault::Str("OIHW")),
        },
        AttrField {
            name: "out_layout",
            kind: AttrKind::Str,
            default: Some(AttrDefault::Str("")),
        },
        AttrField {
            name: "out_dtype",
            kind: AttrKind::DType,
            default: Some(AttrDefault::Null),
        },
    ],
};

pub static DENSE_ATTRS: AttrSchema = AttrSchema {
    type_key: "relay.attrs.DenseAttrs",
    fields: &[
        AttrField {
            name: "units",
            kind: AttrKind::Int,
            default: None,
        },
        AttrField {
            name: "out_dtype",
            kind: AttrKind::DType,
            default: Some(AttrDefault::Null),
        },
    ],
};

pub static MATMUL_ATTRS: AttrSchema = AttrSchema {
    type_key: "relay.attrs.MatmulAttrs",
    fields: &[
        AttrField {
            name: "units",
            kind: AttrKind::Int,
            default: None,
        },
        AttrField {
            name: "out_dtype",
            kind: AttrKind::DType,
            default: Some(AttrDefault::Null),
        },
        AttrField {
            name: "transpose_a",
            kind: AttrKind::Bool,
            default: Some(AttrDefault::Bool(false)),
        },
        AttrField {
            name: "transpose_b",
            kind: AttrKind::Bool,
            default: Some(AttrDefault::Bool(false)),
        },
    ],
};

pub static BATCH_MATMUL_ATTRS: AttrSchema = AttrSchema {
    type_key: "relay.attrs.BatchMatmulAttrs",
    fields: &[
        AttrField {
            name: "out_dtype",
            kind: AttrKind::DType,
            default: Some(AttrDefault::Null),
        },
        AttrField {
            name: "transpose_a",
            kind: AttrKind::Bool,
            default: Some(AttrDefault::Bool(false)),
        },
        AttrField {
            name: "transpose_b",
            kind: AttrKind::Bool,
            default: Some(AttrDefault::Bool(false)),
        },
    ],
};

pub static BATCH_NORM_ATTRS: AttrSchema = AttrSchema {
    type_key: "relay.attrs.BatchNormAttrs",
    fields: &[
        AttrField {
            name: "axis",
            kind: AttrKind::Int,
            default: Some(AttrDefault::Int(1)),
        },
        AttrField {
            name: "epsilon",
            kind: AttrKind::Double,
            default: Some(AttrDefault::Double(1e-5)),
        },
        AttrField {
            name: "center",
            kind: AttrKind::Bool,
            default: Some(AttrDefault::Bool(true)),
        },
        AttrField {
            name: "scale",
            kind: AttrKind::Bool,
            default: Some(AttrDefault::Bool(true)),
        },
    ],
};

pub static LAYER_NORM_ATTRS: AttrSchema = AttrSchema {
    type_key: "relay.attrs.LayerNormAttrs",
    fields: &[
        AttrField {
            name: "axis",
            kind: AttrKind::Int,
            default: Some(AttrDefault::Int(-1)),
        },
        AttrField {
            name: "epsilon",
            kind: AttrKind::Double,
            default: Some(AttrDefault::Double(1e-5)),
        },
        AttrField {
            name: "center",
            kind: AttrKind::Bool,
            default: Some(AttrDefault::Bool(true)),
        },
        AttrField {
            name: "scale",
            kind: AttrKind::Bool,
            default: Some(AttrDefault::Bool(true)),
        },
    ],
};

pub static DROPOUT_ATTRS: AttrSchema = AttrSchema {
    type_key: "relay.attrs.DropoutAttrs",
    fields: &[AttrField {
        name: "rate",
        kind: AttrKind::Double,
        default: Some(AttrDefault::Double(0.5)),
    }],
};

pub static SOFTMAX_ATTRS: AttrSchema = AttrSchema {
    type_key: "relay.attrs.SoftmaxAttrs",
    fields: &[AttrField {
        name: "axis",
        kind: AttrKind::Int,
        default: Some(AttrDefault::Int(-1)),
    }],
};

pub static BIAS_ADD_ATTRS: AttrSchema = AttrSchema {
    type_key: "relay.attrs.BiasAddAttrs",
    fields: &[AttrField {
        name: "axis",
        kind: AttrKind::Int,
        default: Some(AttrDefault::Int(1)),
    }],
};

pub static LEAKY_RELU_ATTRS: AttrSchema = AttrSchema {
    type_key: "relay.attrs.LeakyReluAttrs",
    fields: &[AttrField {
        name: "alpha",
        kind: AttrKind::Double,
        default: Some(AttrDefault::Double(0.25)),
    }],
};

pub static PRELU_ATTRS: AttrSchema = AttrSchema {
    type_key: "relay.attrs.PReluAttrs",
    fields: &[AttrField {
        name: "axis",
        kind: AttrKind::Int,
        default: Some(AttrDefault::Int(1)),
    }],
};

pub static MAX_POOL2D_ATTRS: AttrSchema = AttrSchema {
    type_key: "relay.attrs.MaxPool2DAttrs",
    fields: &[
        AttrField {
            name: "pool_size",
            kind: AttrKind::Array,
            default: None,
        },
        AttrField {
            name: "strides",
            kind: AttrKind::Array,
            default: Some(AttrDefault::Ints(&[1, 1])),
        },
        AttrField {
            name: "dilation",
            kind: AttrKind::Array,
            default: Some(AttrDefault::Ints(&[1, 1])),
        },
        AttrField {
            name: "padding",
            kind: AttrKind::Array,
            default: Some(AttrDefault::Ints(&[0, 0])),
        },
        AttrField {
            name: "layout",
            kind: AttrKind::Str,
            default: Some(AttrDefault::Str("NCHW")),
        },
        AttrField {
            name: "out_layout",
            kind: AttrKind::Str,
            default: Some(AttrDefault::Str("")),
        },
        AttrField {
            name: "ceil_mode",
            kind: AttrKind::Bool,
            default: Some(AttrDefault::Bool(false)),
        },
    ],
};

pub static AVG_POOL2D_ATTRS: AttrSchema = AttrSchema {
    type_key: "relay.attrs.AvgPool2DAttrs",
    fields: &[
        AttrField {
            name: "pool_size",
            kind: AttrKind::Array,
            default: None,
        },
        AttrField {
            name: "strides",
            kind: AttrKind::Array,
            default: Some(AttrDefault::Ints(&[1, 1])),
        },
        AttrField {
            name: "dilation",
            kind: AttrKind::Array,
            default: Some(AttrDefault::Ints(&[1, 1])),
        },
        AttrField {
            name: "padding",
            kind: AttrKind::Array,
            default: Some(AttrDefault::Ints(&[0, 0])),
        },
        AttrField {
            name: "layout",
            kind: AttrKind::Str,
            default: Some(AttrDefault::Str("NCHW")),
        },
        AttrField {
            name: "out_layout",
            kind: AttrKind::Str,
            default: Some(AttrDefault::Str("")),
        },
        AttrField {
            name: "ceil_mode",
            kind: AttrKind::Bool,
            default: Some(AttrDefault::Bool(false)),
        },
        AttrField {
            name: "count_include_pad",
            kind: AttrKind::Bool,
            default: Some(AttrDefault::Bool(false)),
        },
    ],
};

pub static GLOBAL_POOL2D_ATTRS: AttrSchema = AttrSchema {
    type_key: "relay.attrs.GlobalPool2DAttrs",
    fields: &[
        AttrField {
            name: "layout",
            kind: AttrKind::Str,
            default: Some(AttrDefault::Str("NCHW")),
        },
        AttrField {
            name: "out_layout",
            kind: AttrKind::Str,
            default: Some(AttrDefault::Str("")),
        },
    ],
};

pub static ADAPTIVE_POOL2D_ATTRS: AttrSchema = AttrSchema {
    type_key: "relay.attrs.AdaptivePool2DAttrs",
    fields: &[
        AttrField {
            name: "output_size",
            kind: AttrKind::Array,
            default: Some(AttrDefault::Ints(&[])),
        },
        AttrField {
            name: "layout",
            kind: AttrKind::Str,
            default: Some(AttrDefault::Str("NCHW")),
        },
        AttrField {
            name: "out_layout",
            kind: AttrKind::Str,
            default: Some(AttrDefault::Str("")),
        },
    ],
};

pub static PAD_ATTRS: AttrSchema = AttrSchema {
    type_key: "relay.attrs.PadAttrs",
    fields: &[
        AttrField {
            name: "pad_width",
            kind: AttrKind::Array,
            default: None,
        },
        AttrField {
            name: "pad_mode",
            kind: AttrKind::Str,
            default: Some(AttrDefault::Str("constant")),
        },
    ],
};

pub static UPSAMPLING_ATTRS: AttrSchema = AttrSchema {
    type_key: "relay.attrs.UpSamplingAttrs",
    fields: &[
        AttrField {
            name: "scale_h",
            kind: AttrKind::Double,
            default: None,
        },
        AttrField {
            name: "scale_w",
            kind: AttrKind::Double,
            default: None,
        },
        AttrField {
            name: "layout",
            kind: AttrKind::Str,
            default: Some(AttrDefault::Str("NCHW")),
        },
        AttrField {
            name: "method",
            kind: AttrKind::Str,
            default: Some(AttrDefault::Str("nearest_neighbor")),
        },
        AttrField {
            name: "align_corners",
            kind: AttrKind::Bool,
            default: Some(AttrDefault::Bool(false)),
        },
    ],
};

pub static RESHAPE_ATTRS: AttrSchema = AttrSchema {
    type_key: "relay.attrs.ReshapeAttrs",
    fields: &[
        AttrField {
            name: "newshape",
            kind: AttrKind::Array,
            default: None,
        },
        AttrField {
            name: "allowzero",
            kind: AttrKind::Bool,
            default: Some(AttrDefault::Bool(false)),
        },
    ],
};

pub static TRANSPOSE_ATTRS: AttrSchema = AttrSchema {
    type_key: "relay.attrs.TransposeAttrs",
    fields: &[AttrField {
        name: "axes",
        kind: AttrKind::Array,
        default: None,
    }],
};

pub static CONCATENATE_ATTRS: AttrSchema = AttrSchema {
    type_key: "relay.attrs.ConcatenateAttrs",
    fields: &[AttrField {
        name: "axis",
        kind: AttrKind::Int,
        default: Some(AttrDefault::Int(0)),
    }],
};

pub static STACK_ATTRS: AttrSchema = AttrSchema {
    type_key: "relay.attrs.StackAttrs",
    fields: &[AttrField {
        name: "axis",
        kind: AttrKind::Int,
        default: Some(AttrDefault::Int(0)),
    }],
};

pub static SQUEEZE_ATTRS: AttrSchema = AttrSchema {
    type_key: "relay.attrs.SqueezeAttrs",
    fields: &[AttrField {
        name: "axis",
        kind: AttrKind::Array,
        default: Some(AttrDefault::Null),
    }],
};

pub static EXPAND_DIMS_ATTRS: AttrSchema = AttrSchema {
    type_key: "relay.attrs.ExpandDimsAttrs",
    fields: &[
        AttrField {
            name: "axis",
            kind: AttrKind::Int,
            default: None,
        },
        AttrField {
            name: "num_newaxis",
            kind: AttrKind::Int,
            default: Some(AttrDefault::Int(1)),
        },
    ],
};

pub static LAYOUT_TRANSFORM_ATTRS: AttrSchema = AttrSchema {
    type_key: "relay.attrs.LayoutTransformAttrs",
    fields: &[
        AttrField {
            name: "src_layout",
            kind: AttrKind::Str,
            default: None,
        },
        AttrField {
            name: "dst_layout",
            kind: AttrKind::Str,
            default: None,
        },
    ],
};

pub static SPLIT_ATTRS: AttrSchema = AttrSchema {
    type_key: "relay.attrs.SplitAttrs",
    fields: &[
        AttrField {
            name: "indices_or_sections",
            kind: AttrKind::Any,
            default: None,
        },
        AttrField {
            name: "axis",
            kind: AttrKind::Int,
            default: Some(AttrDefault::Int(0)),
        },
    ],
};

pub static TAKE_ATTRS: AttrSchema = AttrSchema {
    type_key: "relay.attrs.TakeAttrs",
    fields: &[
        AttrField {
            name: "batch_dims",
            kind: AttrKind::Int,
            default: Some(AttrDefault::Int(0)),
        },
        AttrField {
            name: "axis",
            kind: AttrKind::Int,
            default: Some(AttrDefault::Null),
        },
        AttrField {
            name: "mode",
            kind: AttrKind::Str,
            default: Some(AttrDefault::Str("clip")),
        },
    ],
};

pub static STRIDED_SLICE_ATTRS: AttrSchema = AttrSchema {
    type_key: "relay.attrs.StridedSliceAttrs",
    fields: &[
        AttrField {
            name: "begin",
            kind: AttrKind::Array,
            default: None,
        },
        AttrField {
            name: "end",
            kind: AttrKind::Array,
            default: None,
        },
        AttrField {
            name: "strides",
            kind: AttrKind::Array,
            default: None,
        },
        AttrField {
            name: "slice_mode",
            kind: AttrKind::Str,
            default: Some(AttrDefault::Str("end")),
        },
        AttrField {
            name: "axes",
            kind: AttrKind::Array,
            default: None,
        },
    ],
};

pub static CAST_ATTRS: AttrSchema = AttrSchema {
    type_key: "relay.attrs.CastAttrs",
    fields: &[AttrField {
        name: "dtype",
        kind: AttrKind::DType,
        default: None,
    }],
};

pub static INIT_OP_ATTRS: AttrSchema = AttrSchema {
    type_key: "relay.attrs.InitOpAttrs",
    fields: &[
        AttrField {
            name: "shape",
            kind: AttrKind::Array,
            default: None,
        },
        AttrField {
            name: "dtype",
            kind: AttrKind::DType,
            default: Some(AttrDefault::Null),
        },
    ],
};

pub static CLIP_ATTRS: AttrSchema = AttrSchema {
    type_key: "relay.attrs.ClipAttrs",
    fields: &[
        AttrField {
            name: "a_min",
            kind: AttrKind::Double,
            default: None,
        },
        AttrField {
            name: "a_max",
            kind: AttrKind::Double,
            default: None,
        },
    ],
};

pub static REDUCE_ATTRS: AttrSchema = AttrSchema {
    type_key: "relay.attrs.ReduceAttrs",
    fields: &[
        AttrField {
            name: "axis",
            kind: AttrKind::Array,
            default: Some(AttrDefault::Null),
        },
        AttrField {
            name: "keepdims",
            kind: AttrKind::Bool,
            default: Some(AttrDefault::Bool(false)),
        },
        AttrField {
            name: "exclude",
            kind: AttrKind::Bool,
            default: Some(AttrDefault::Bool(false)),
        },
    ],
};

pub static ARG_REDUCE_ATTRS: AttrSchema = AttrSchema {
    type_key: "relay.attrs.ArgReduceAttrs",
    fields: &[
        AttrField {
            name: "axis",
            kind: AttrKind::Array,
            default: Some(AttrDefault::Null),
        },
        AttrField {
            name: "keepdims",
            kind: AttrKind::Bool,
            default: Some(AttrDefault::Bool(false)),
        },
        AttrField {
            name: "select_last_index",
            kind: AttrKind::Bool,
            default: Some(AttrDefault::Bool(false)),
        },
        AttrField {
            name: "exclude",
            kind: AttrKind::Bool,
            default: Some(AttrDefault::Bool(false)),
        },
    ],
};

pub static TOPK_ATTRS: AttrSchema = AttrSchema {
    type_key: "relay.attrs.TopkAttrs",
    fields: &[
        AttrField {
            name: "k",
            kind: AttrKind::Any,
            default: Some(AttrDefault::Null),
        },
        AttrField {
            name: "axis",
            kind: AttrKind::Int,
            default: Some(AttrDefault::Int(-1)),
        },
        AttrField {
            name: "ret_type",
            kind: AttrKind::Str,
            default: Some(AttrDefault::Str("both")),
        },
        AttrField {
            name: "is_ascend",
            kind: AttrKind::Bool,
            default: Some(AttrDefault::Bool(false)),
        },
        AttrField {
            name: "dtype",
            kind: AttrKind::DType,
            default: Some(AttrDefault::Null),
        },
    ],
};

pub static TILE_ATTRS: AttrSchema = AttrSchema {
    type_key: "relay.attrs.TileAttrs",
    fields: &[AttrField {
        name: "reps",
        kind: AttrKind::Array,
        default: None,
    }],
};

pub static REPEAT_ATTRS: AttrSchema = AttrSchema {
    type_key: "relay.attrs.RepeatAttrs",
    fields: &[
        AttrField {
            name: "repeats",
            kind: AttrKind::Int,
            default: None,
        },
        AttrField {
            name: "axis",
            kind: AttrKind::Int,
            default: Some(AttrDefault::Null),
        },
    ],
};

pub static ONE_HOT_ATTRS: AttrSchema = AttrSchema {
    type_key: "relay.attrs.OneHotAttrs",
    fields: &[
        AttrField {
            name: "depth",
            kind: AttrKind::Int,
            default: Some(AttrDefault::Int(1)),
        },
        AttrField {
            name: "axis",
            kind: AttrKind::Int,
            default: Some(AttrDefault::Int(-1)),
        },
        AttrField {
            name: "dtype",
            kind: AttrKind::DType,
            default: Some(AttrDefault::Null),
        },
    ],
};

pub static SHAPE_OF_ATTRS: AttrSchema = AttrSchema {
    type_key: "relay.attrs.ShapeOfAttrs",
    fields: &[AttrField {
        name: "dtype",
        kind: AttrKind::DType,
        default: Some(AttrDefault::Null),
    }],
};

pub static RESIZE2D_ATTRS: AttrSchema = AttrSchema {
    type_key: "relay.attrs.Resize2DAttrs",
    fields: &[
        AttrField {
            name: "size",
            kind: AttrKind::Array,
            default: Some(AttrDefault::Null),
        },
        AttrField {
            name: "roi",
            kind: AttrKind::Array,
            default: Some(AttrDefault::Null),
        },
        AttrField {
            name: "layout",
            kind: AttrKind::Str,
            default: Some(AttrDefault::Str("NCHW")),
        },
        AttrField {
            name: "method",
            kind: AttrKind::Str,
            default: Some(AttrDefault::Str("linear")),
        },
        AttrField {
            name: "coordinate_transformation_mode",
            kind: AttrKind::Str,
            default: Some(AttrDefault::Str("half_pixel")),
        },
        AttrField {
            name: "rounding_method",
            kind: AttrKind::Str,
            default: Some(AttrDefault::Str("round")),
        },
        AttrField {
            name: "cubic_alpha",
            kind: AttrKind::Double,
            default: Some(AttrDefault::Double(-0.5)),
        },
        AttrField {
            name: "cubic_exclude",
            kind: AttrKind::Int,
            default: Some(AttrDefault::Int(0)),
        },
        AttrField {
            name: "extrapolation_value",
            kind: AttrKind::Double,
            default: Some(AttrDefault::Double(0.0)),
        },
        AttrField {
            name: "out_dtype",
            kind: AttrKind::DType,
            default: Some(AttrDefault::Null),
        },
    ],
};

// ---- Further nn attrs (`include/tvm/relay/attrs/nn.h`). ----

pub static CONV1D_ATTRS: AttrSchema = AttrSchema {
    type_key: "relay.attrs.Conv1DAttrs",
    fields: &[
        AttrField {
            name: "strides",
            kind: AttrKind::Array,
            default: Some(AttrDefault::Ints(&[1])),
        },
        AttrField {
            name: "padding",
            kind: AttrKind::Array,
            default: Some(AttrDefault::Ints(&[0, 0])),
        },
        AttrField {
            name: "dilation",
            kind: AttrKind::Array,
            default: Some(AttrDefault::Ints(&[1])),
        },
        AttrField {
            name: "groups",
            kind: AttrKind::Int,
            default: Some(AttrDefault::Int(1)),
        },
        AttrField {
            name: "channels",
            kind: AttrKind::Any,
            default: Some(AttrDefault::Null),
        },
        AttrField {
            name: "kernel_size",
            kind: AttrKind::Array,
            default: Some(AttrDefault::Null),
        },
        AttrField {
            name: "data_layout",
            kind: AttrKind::Str,
            default: Some(AttrDefault::Str("NCW")),
        },
        AttrField {
            name: "kernel_layout",
            kind: AttrKind::Str,
            default: Some(AttrDefault::Str("OIW")),
        },
        AttrField {
            name: "out_layout",
            kind: AttrKind::Str,
            default: Some(AttrDefault::Str("")),
        },
        AttrField {
            name: "out_dtype",
            kind: AttrKind::DType,
            default: Some(AttrDefault::Null),
        },
    ],
};

pub static CONV3D_ATTRS: AttrSchema = AttrSchema {
    type_key: "relay.attrs.Conv3DAttrs",
    fields: &[
        AttrField {
            name: "strides",
            kind: AttrKind::Array,
            default: Some(AttrDefault::Ints(&[1, 1, 1])),
        },
        AttrField {
            name: "padding",
            kind: AttrKind::Array,
            default: Some(AttrDefault::Ints(&[0, 0, 0])),
        },
        AttrField {
            name: "dilation",
            kind: AttrKind::Array,
            default: Some(AttrDefault::Ints(&[1, 1, 1])),
        },
        AttrField {
            name: "groups",
            kind: AttrKind::Int,
            default: Some(AttrDefault::Int(1)),
        },
        AttrField {
            name: "channels",
            kind: AttrKind::Any,
            default: Some(AttrDefault::Null),
        },
        AttrField {
            name: "kernel_size",
            kind: AttrKind::Array,
            default: Some(AttrDefault::Null),
        },
        AttrField {
            name: "data_layout",
            kind: AttrKind::Str,
            default: Some(AttrDefault::Str("NCDHW")),
        },
        AttrField {
            name: "kernel_layout",
            kind: AttrKind::Str,
            default: Some(AttrDefault::Str("OIDHW")),
        },
        AttrField {
            name: "out_layout",
            kind: AttrKind::Str,
            default: Some(AttrDefault::Str("")),
        },
        AttrField {
            name: "out_dtype",
            kind: AttrKind::DType,
            default: Some(AttrDefault::Null),
        },
    ],
};

pub static CONV2D_WINOGRAD_ATTRS: AttrSchema = AttrSchema {
    type_key: "relay.attrs.Conv2DWinogradAttrs",
    fields: &[
        AttrField {
            name: "tile_size",
            kind: AttrKind::Int,
            default: None,
        },
        AttrField {
            name: "strides",
            kind: AttrKind::Array,
            default: Some(AttrDefault::Ints(&[1, 1])),
        },
        AttrField {
            name: "padding",
            kind: AttrKind::Array,
            default: Some(AttrDefault::Ints(&[0, 0])),
        },
        AttrField {
            name: "dilation",
            kind: AttrKind::Array,
            default: Some(AttrDefault::Ints(&[1, 1])),
        },
        AttrField {
            name: "groups",
            kind: AttrKind::Int,
            default: Some(AttrDefault::Int(1)),
        },
        AttrField {
            name: "channels",
            kind: AttrKind::Any,
            default: Some(AttrDefault::Null),
        },
        AttrField {
            name: "kernel_size",
            kind: AttrKind::Array,
            default: Some(AttrDefault::Null),
        },
        AttrField {
            name: "data_layout",
            kind: AttrKind::Str,
            default: Some(AttrDefault::Str("NCHW")),
        },
        AttrField {
            name: "kernel_layout",
            kind: AttrKind::Str,
            default: Some(AttrDefault::Str("OIHW")),
        },
        AttrField {
            name: "out_layout",
            kind: AttrKind::Str,
            default: Some(AttrDefault::Str("")),
        },
        AttrField {
            name: "out_dtype",
            kind: AttrKind::DType,
            default: Some(AttrDefault::Null),
        },
    ],
};

pub static CONV3D_WINOGRAD_ATTRS: AttrSchema = AttrSchema {
    type_key: "relay.attrs.Conv3DWinogradAttrs",
    fields: &[
        AttrField {
            name: "tile_size",
            kind: AttrKind::Int,
            default: None,
        },
        AttrField {
            name: "strides",
            kind: AttrKind::Array,
            default: Some(AttrDefault::Ints(&[1, 1, 1])),
        },
        AttrField {
            name: "padding",
            kind: AttrKind::Array,
            default: Some(AttrDefault::Ints(&[0, 0, 0])),
        },
        AttrField {
            name: "dilation",
            kind: AttrKind::Array,
            default: Some(AttrDefault::Ints(&[1, 1, 1])),
        },
        AttrField {
            name: "groups",
            kind: AttrKind::Int,
            default: Some(AttrDefault::Int(1)),
        },
        AttrField {
            name: "channels",
            kind: AttrKind::Any,
            default: Some(AttrDefault::Null),
        },
        AttrField {
            name: "kernel_size",
            kind: AttrKind::Array,
            default: Some(AttrDefault::Null),
        },
        AttrField {
            name: "data_layout",
            kind: AttrKind::Str,
            default: Some(AttrDefault::Str("NCDHW")),
        },
        AttrField {
            name: "kernel_layout",
            kind: AttrKind::Str,
            default: Some(AttrDefault::Str("OIDHW")),
        },
        AttrField {
            name: "out_layout",
            kind: AttrKind::Str,
            default: Some(AttrDefault::Str("")),
        },
        AttrField {
            name: "out_dtype",
            kind: AttrKind::DType,
            default: Some(AttrDefault::Null),
        },
    ],
};

pub static CONV_WINOGRAD_WEIGHT_TRANSFORM_ATTRS: AttrSchema = AttrSchema {
    type_key: "relay.attrs.ConvWinogradWeightTransformAttrs",
    fields: &[AttrField {
        name: "tile_size",
        kind: AttrKind::Int,
        default: None,
    }],
};

pub static CONV_GEMM_WEIGHT_TRANSFORM_ATTRS: AttrSchema = AttrSchema {
    type_key: "relay.attrs.ConvGemmWeightTransformAttrs",
    fields: &[
        AttrField {
            name: "tile_N",
            kind: AttrKind::Int,
            default: None,
        },
        AttrField {
            name: "tile_K",
            kind: AttrKind::Int,
            default: None,
        },
    ],
};

pub static CONV2D_WINOGRAD_NNPACK_WEIGHT_TRANSFORM_ATTRS: AttrSchema = AttrSchema {
    type_key: "relay.attrs.Conv2DWinogradNNPACKWeightTransformAttrs",
    fields: &[
        AttrField {
            name: "convolution_algorithm",
            kind: AttrKind::Int,
            default: None,
        },
        AttrField {
            name: "out_dtype",
            kind: AttrKind::DType,
            default: Some(AttrDefault::Null),
        },
    ],
};

pub static CONV1D_TRANSPOSE_ATTRS: AttrSchema = AttrSchema {
    type_key: "relay.attrs.Conv1DTransposeAttrs",
    fields: &[
        AttrField {
            name: "channels",
            kind: AttrKind::Any,
            default: Some(AttrDefault::Null),
        },
        AttrField {
            name: "kernel_size",
            kind: AttrKind::Array,
            default: Some(AttrDefault::Null),
        },
        AttrField {
            name: "strides",
            kind: AttrKind::Array,
            default: Some(AttrDefault::Ints(&[1])),
        },
        AttrField {
            name: "output_padding",
            kind: AttrKind::Array,
            default: Some(AttrDefault::Ints(&[0])),
        },
        AttrField {
            name: "padding",
            kind: AttrKind::Array,
            default: Some(AttrDefault::Ints(&[0])),
        },
        AttrField {
            name: "dilation",
            kind: AttrKind::Array,
            default: Some(AttrDefault::Ints(&[1])),
        },
        AttrField {
            name: "groups",
            kind: AttrKind::Int,
            default: Some(AttrDefault::Int(1)),
        },
        AttrField {
            name: "data_layout",
            kind: AttrKind::Str,
            default: Some(AttrDefault::Str("NCW")),
        },
        AttrField {
            name: "kernel_layout",
            kind: AttrKind::Str,
            default: Some(AttrDefault::Str("IOW")),
        },
        AttrField {
            name: "out_layout",
            kind: AttrKind::Str,
            default: Some(AttrDefault::Str("")),
        },
        AttrField {
            name: "out_dtype",
            kind: AttrKind::DType,
            default: Some(AttrDefault::Null),
        },
    ],
};

pub static CONV2D_TRANSPOSE_ATTRS: AttrSchema = AttrSchema {
    type_key: "relay.attrs.Conv2DTransposeAttrs",
    fields: &[
        AttrField {
            name: "channels",
            kind: AttrKind::Any,
            default: Some(AttrDefault::Null),
        },
        AttrField {
            name: "kernel_size",
            kind: AttrKind::Array,
            default: Some(AttrDefault::Null),
        },
        AttrField {
            name: "strides",
            kind: AttrKind::Array,
            default: Some(AttrDefault::Ints(&[1, 1])),
        },
        AttrField {
            name: "output_padding",
            kind: AttrKind::Array,
            default: Some(AttrDefault::Ints(&[0, 0])),
        },
        AttrField {
            name: "padding",
            kind: AttrKind::Array,
            default: Some(AttrDefault::Ints(&[0, 0])),
        },
        AttrField {
            name: "dilation",
            kind: AttrKind::Array,
            default: Some(AttrDefault::Ints(&[1, 1])),
        },
        AttrField {
            name: "groups",
            kind: AttrKind::Int,
            default: Some(AttrDefault::Int(1)),
        },
        AttrField {
            name: "data_layout",
            kind: AttrKind::Str,
            default: Some(AttrDefault::Str("NCHW")),
        },
        AttrField {
            name: "kernel_layout",
            kind: AttrKind::Str,
            default: Some(AttrDefault::Str("IOHW")),
        },
        AttrField {
            name: "out_layout",
            kind: AttrKind::Str,
            default: Some(AttrDefault::Str("")),
        },
        AttrField {
            name: "out_dtype",
            kind: AttrKind::DType,
            default: Some(AttrDefault::Null),
        },
    ],
};

pub static CONV3D_TRANSPOSE_ATTRS: AttrSchema = AttrSchema {
    type_key: "relay.attrs.Conv3DTransposeAttrs",
    fields: &[
        AttrField {
            name: "channels",
            kind: AttrKind::Any,
            default: Some(AttrDefault::Null),
        },
        AttrField {
            name: "kernel_size",
            kind: AttrKind::Array,
            default: Some(AttrDefault::Null),
        },
        AttrField {
            name: "strides",
            kind: AttrKind::Array,
            default: Some(AttrDefault::Ints(&[1, 1, 1])),
        },
        AttrField {
            name: "output_padding",
            kind: AttrKind::Array,
            default: Some(AttrDefault::Ints(&[0, 0, 0])),
        },
        AttrField {
            name: "padding",
            kind: AttrKind::Array,
            default: Some(AttrDefault::Ints(&[0, 0, 0])),
        },
        AttrField {
            name: "dilation",
            kind: AttrKind::Array,
            default: Some(AttrDefault::Ints(&[1, 1, 1])),
        },
        AttrField {
            name: "groups",
            kind: AttrKind::Int,
            default: Some(AttrDefault::Int(1)),
        },
        AttrField {
            name: "data_layout",
            kind: AttrKind::Str,
            default: Some(AttrDefault::Str("NCDHW")),
        },
        AttrField {
            name: "kernel_layout",
            kind: AttrKind::Str,
            default: Some(AttrDefault::Str("IODHW")),
        },
        AttrField {
            name: "out_layout",
            kind: AttrKind::Str,
            default: Some(AttrDefault::Str("")),
        },
        AttrField {
            name: "out_dtype",
            kind: AttrKind::DType,
            default: Some(AttrDefault::Null),
        },
    ],
};

pub static DEFORMABLE_CONV2D_ATTRS: AttrSchema = AttrSchema {
    type_key: "relay.attrs.DeformableConv2DAttrs",
    fields: &[
        AttrField {
            name: "strides",
            kind: AttrKind::Array,
            default: Some(AttrDefault::Ints(&[1, 1])),
        },
        AttrField {
            name: "padding",
            kind: AttrKind::Array,
            default: Some(AttrDefault::Ints(&[0, 0])),
        },
        AttrField {
            name: "dilation",
            kind: AttrKind::Array,
            default: Some(AttrDefault::Ints(&[1, 1])),
        },
        AttrField {
            name: "deformable_groups",
            kind: AttrKind::Int,
            default: Some(AttrDefault::Int(1)),
        },
        AttrField {
            name: "groups",
            kind: AttrKind::Int,
            default: Some(AttrDefault::Int(1)),
        },
        AttrField {
            name: "channels",
            kind: AttrKind::Any,
            default: Some(AttrDefault::Null),
        },
        AttrField {
            name: "kernel_size",
            kind: AttrKind::Array,
            default: Some(AttrDefault::Null),
        },
        AttrField {
            name: "data_layout",
            kind: AttrKind::Str,
            default: Some(AttrDefault::Str("NCHW")),
        },
        AttrField {
            name: "kernel_layout",
            kind: AttrKind::Str,
            default: Some(AttrDefault::Str("OIHW")),
        },
        AttrField {
            name: "out_layout",
            kind: AttrKind::Str,
            default: Some(AttrDefault::Str("")),
        },
        AttrField {
            name: "out_dtype",
            kind: AttrKind::DType,
            default: Some(AttrDefault::Null),
        },
    ],
};

pub static DENSE_PACK_ATTRS: AttrSchema = AttrSchema {
    type_key: "relay.attrs.DensePackAttrs",
    fields: &[
        AttrField {
            name: "units",
            kind: AttrKind::Int,
            default: None,
        },
        AttrField {
            name: "out_dtype",
            kind: AttrKind::DType,
            default: Some(AttrDefault::Null),
        },
        AttrField {
            name: "weight_layout",
            kind: AttrKind::Str,
            default: Some(AttrDefault::Str("NC")),
        },
    ],
};

pub static SPARSE_DENSE_ATTRS: AttrSchema = AttrSchema {
    type_key: "relay.attrs.SparseDenseAttrs",
    fields: &[AttrField {
        name: "sparse_lhs",
        kind: AttrKind::Bool,
        default: Some(AttrDefault::Bool(false)),
    }],
};

pub static SPARSE_TRANSPOSE_ATTRS: AttrSchema = AttrSchema {
    type_key: "relay.attrs.SparseTransposeAttrs",
    fields: &[],
};

pub static SPARSE_CONV2D_ATTRS: AttrSchema = AttrSchema {
    type_key: "relay.attrs.SparseConv2DAttrs",
    fields: &[
        AttrField {
            name: "layout",
            kind: AttrKind::Str,
            default: Some(AttrDefault::Str("NHWC")),
        },
        AttrField {
            name: "kernel_size",
            kind: AttrKind::Array,
            default: Some(AttrDefault::Ints(&[1, 1])),
        },
    ],
};

pub static MAX_POOL1D_ATTRS: AttrSchema = AttrSchema {
    type_key: "relay.attrs.MaxPool1DAttrs",
    fields: &[
        AttrField {
            name: "pool_size",
            kind: AttrKind::Array,
            default: None,
        },
        AttrField {
            name: "strides",
            kind: AttrKind::Array,
            default: Some(AttrDefault::Ints(&[1])),
        },
        AttrField {
            name: "dilation",
            kind: AttrKind::Array,
            default: Some(AttrDefault::Ints(&[1])),
        },
        AttrField {
            name: "padding",
            kind: AttrKind::Array,
            default: Some(AttrDefault::Ints(&[0])),
        },
        AttrField {
            name: "layout",
            kind: AttrKind::Str,
            default: Some(AttrDefault::Str("NCW")),
        },
        AttrField {
            name: "out_layout",
            kind: AttrKind::Str,
            default: Some(AttrDefault::Str("")),
        },
        AttrField {
            name: "ceil_mode",
            kind: AttrKind::Bool,
            default: Some(AttrDefault::Bool(false)),
        },
    ],
};

pub static AVG_POOL1D_ATTRS: AttrSchema = AttrSchema {
    type_key: "relay.attrs.AvgPool1DAttrs",
    fields: &[
        AttrField {
            name: "pool_size",
            kind: AttrKind::Array,
            default: None,
        },
        AttrField {
            name: "strides",
            kind: AttrKind::Array,
            default: Some(AttrDefault::Ints(&[1])),
        },
        AttrField {
            name: "dilation",
            kind: AttrKind::Array,
            default: Some(AttrDefault::Ints(&[1])),
        },
        AttrField {
            name: "padding",
            kind: AttrKind::Array,
            default: Some(AttrDefault::Ints(&[0])),
        },
        AttrField {
            name: "layout",
            kind: AttrKind::Str,
            default: Some(AttrDefault::Str("NCW")),
        },
        AttrField {
            name: "out_layout",
            kind: AttrKind::Str,
            default: Some(AttrDefault::Str("")),
        },
        AttrField {
            name: "ceil_mode",
            kind: AttrKind::Bool,
            default: Some(AttrDefault::Bool(false)),
        },
        AttrField {
            name: "count_include_pad",
            kind: AttrKind::Bool,
            default: Some(AttrDefault::Bool(false)),
        },
    ],
};

pub static MAX_POOL3D_ATTRS: AttrSchema = AttrSchema {
    type_key: "relay.attrs.MaxPool3DAttrs",
    fields: &[
        AttrField {
            name: "pool_size",
            kind: AttrKind::Array,
            default: None,
        },
        AttrField {
            name: "strides",
            kind: AttrKind::Array,
            default: Some(AttrDefault::Ints(&[1, 1, 1])),
        },
        AttrField {
            name: "dilation",
            kind: AttrKind::Array,
            default: Some(AttrDefault::Ints(&[1, 1, 1])),
        },
        AttrField {
            name: "padding",
            kind: AttrKind::Array,
            default: Some(AttrDefault::Ints(&[0, 0, 0])),
        },
        AttrField {
            name: "layout",
            kind: AttrKind::Str,
            default: Some(AttrDefault::Str("NCDHW")),
        },
        AttrField {
            name: "out_layout",
            kind: AttrKind::Str,
            default: Some(AttrDefault::Str("")),
        },
        AttrField {
            name: "ceil_mode",
            kind: AttrKind::Bool,
            default: Some(AttrDefault::Bool(false)),
        },
    ],
};

pub static AVG_POOL3D_ATTRS: AttrSchema = AttrSchema {
    type_key: "relay.attrs.AvgPool3DAttrs",
    fields: &[
        AttrField {
            name: "pool_size",
            kind: AttrKind::Array,
            default: None,
        },
        AttrField {
            name: "strides",
            kind: AttrKind::Array,
            default: Some(AttrDefault::Ints(&[1, 1, 1])),
        },
        AttrField {
            name: "dilation",
            kind: AttrKind::Array,
            default: Some(AttrDefault::Ints(&[1, 1, 1])),
        },
        AttrField {
            name: "padding",
            kind: AttrKind::Array,
            default: Some(AttrDefault::Ints(&[0, 0, 0])),
        },
        AttrField {
            name: "layout",
            kind: AttrKind::Str,
            default: Some(AttrDefault::Str("NCDHW")),
        },
        AttrField {
            name: "out_layout",
            kind: AttrKind::Str,
            default: Some(AttrDefault::Str("")),
        },
        AttrField {
            name: "ceil_mode",
            kind: AttrKind::Bool,
            default: Some(AttrDefault::Bool(false)),
        },
        AttrField {
            name: "count_include_pad",
            kind: AttrKind::Bool,
            default: Some(AttrDefault::Bool(false)),
        },
    ],
};

pub static ADAPTIVE_POOL1D_ATTRS: AttrSchema = AttrSchema {
    type_key: "relay.attrs.AdaptivePool1DAttrs",
    fields: &[
        AttrField {
            name: "output_size",
            kind: AttrKind::Array,
            default: Some(AttrDefault::Ints(&[])),
        },
        AttrField {
            name: "layout",
            kind: AttrKind::Str,
            default: Some(AttrDefault::Str("NCW")),
        },
        AttrField {
            name: "out_layout",
            kind: AttrKind::Str,
            default: Some(AttrDefault::Str("")),
        },
    ],
};

pub static ADAPTIVE_POOL3D_ATTRS: AttrSchema = AttrSchema {
    type_key: "relay.attrs.AdaptivePool3DAttrs",
    fields: &[
        AttrField {
            name: "output_size",
            kind: AttrKind::Array,
            default: Some(AttrDefault::Ints(&[])),
        },
        AttrField {
            name: "layout",
            kind: AttrKind::Str,
            default: Some(AttrDefault::Str("NCDHW")),
        },
        AttrField {
            name: "out_layout",
            kind: AttrKind::Str,
            default: Some(AttrDefault::Str("")),
        },
    ],
};

pub static INSTANCE_NORM_ATTRS: AttrSchema = AttrSchema {
    type_key: "relay.attrs.InstanceNormAttrs",
    fields: &[
        AttrField {
            name: "axis",
            kind: AttrKind::Int,
            default: Some(AttrDefault::Int(1)),
        },
        AttrField {
            name: "epsilon",
            kind: AttrKind::Double,
            default: Some(AttrDefault::Double(1e-5)),
        },
        AttrField {
            name: "center",
            kind: AttrKind::Bool,
            default: Some(AttrDefault::Bool(true)),
        },
        AttrField {
            name: "scale",
            kind: AttrKind::Bool,
            default: Some(AttrDefault::Bool(true)),
        },
    ],
};

pub static GROUP_NORM_ATTRS: AttrSchema = AttrSchema {
    type_key: "relay.attrs.GroupNormAttrs",
    fields: &[
        AttrField {
            name: "num_groups",
            kind: AttrKind::Int,
            default: Some(AttrDefault::Int(0)),
        },
        AttrField {
            name: "axis",
            kind: AttrKind::Int,
            default: Some(AttrDefault::Int(1)),
        },
        AttrField {
            name: "epsilon",
            kind: AttrKind::Double,
            default: Some(AttrDefault::Double(1e-5)),
        },
        AttrField {
            name: "center",
            kind: AttrKind::Bool,
            default: Some(AttrDefault::Bool(true)),
        },
        AttrField {
            name: "scale",
            kind: AttrKind::Bool,
            default: Some(AttrDefault::Bool(true)),
        },
    ],
};

pub static L2_NORMALIZE_ATTRS: AttrSchema = AttrSchema {
    type_key: "relay.attrs.L2NormalizeAttrs",
    fields: &[
        AttrField {
            name: "eps",
            kind: AttrKind::Double,
            default: None,
        },
        AttrField {
            name: "axis",
            kind: AttrKind::Array,
            default: None,
        },
    ],
};

pub static LRN_ATTRS: AttrSchema = AttrSchema {
    type_key: "relay.attrs.LRNAttrs",
    fields: &[
        AttrField {
            name: "size",
            kind: AttrKind::Int,
            default: Some(AttrDefault::Int(5)),
        },
        AttrField {
            name: "axis",
            kind: AttrKind::Int,
            default: Some(AttrDefault::Int(1)),
        },
        AttrField {
            name: "bias",
            kind: AttrKind::Double,
            default: Some(AttrDefault::Double(2.0)),
        },
        AttrField {
            name: "alpha",
            kind: AttrKind::Double,
            default: Some(AttrDefault::Double(0.0001)),
        },
        AttrField {
            name: "beta",
            kind: AttrKind::Double,
            default: Some(AttrDefault::Double(0.75)),
        },
    ],
};

pub static MIRROR_PAD_ATTRS: AttrSchema = AttrSchema {
    type_key: "relay.attrs.MirrorPadAttrs",
    fields: &[
        AttrField {
            name: "mode",
            kind: AttrKind::Str,
            default: Some(AttrDefault::Str("SYMMETRIC")),
        },
        AttrField {
            name: "pad_width",
            kind: AttrKind::Array,
            default: None,
        },
    ],
};

pub static UPSAMPLING3D_ATTRS: AttrSchema = AttrSchema {
    type_key: "relay.attrs.UpSampling3DAttrs",
    fields: &[
        AttrField {
            name: "scale_d",
            kind: AttrKind::Double,
            default: None,
        },
        AttrField {
            name: "scale_h",
            kind: AttrKind::Double,
            default: None,
        },
        AttrField {
            name: "scale_w",
            kind: AttrKind::Double,
            default: None,
        },
        AttrField {
            name: "layout",
            kind: AttrKind::Str,
            default: Some(AttrDefault::Str("NCDHW")),
        },
        AttrField {
            name: "method",
            kind: AttrKind::Str,
            default: Some(AttrDefault::Str("nearest_neighbor")),
        },
        AttrField {
            name: "coordinate_transformation_mode",
            kind: AttrKind::Str,
            default: Some(AttrDefault::Str("half_pixel")),
        },
    ],
};

pub static SUB_PIXEL_ATTRS: AttrSchema = AttrSchema {
    type_key: "relay.attrs.SubPixelAttrs",
    fields: &[
        AttrField {
            name: "block_size",
            kind: AttrKind::Int,
            default: Some(AttrDefault::Int(1)),
        },
        AttrField {
            name: "layout",
            kind: AttrKind::Str,
            default: Some(AttrDefault::Str("NCHW")),
        },
        AttrField {
            name: "mode",
            kind: AttrKind::Str,
            default: Some(AttrDefault::Str("DCR")),
        },
    ],
};

pub static CORRELATION_ATTRS: AttrSchema = AttrSchema {
    type_key: "relay.attrs.CorrelationAttrs",
    fields: &[
        AttrField {
            name: "kernel_size",
            kind: AttrKind::Int,
            default: Some(AttrDefault::Int(1)),
        },
        AttrField {
            name: "max_displacement",
            kind: AttrKind::Int,
            default: Some(AttrDefault::Int(1)),
        },
        AttrField {
            name: "stride1",
            kind: AttrKind::Int,
            default: Some(AttrDefault::Int(1)),
        },
        AttrField {
            name: "stride2",
            kind: AttrKind::Int,
            default: Some(AttrDefault::Int(1)),
        },
        AttrField {
            name: "padding",
            kind: AttrKind::Array,
            default: Some(AttrDefault::Ints(&[0, 0])),
        },
        AttrField {
            name: "is_multiply",
            kind: AttrKind::Bool,
            default: Some(AttrDefault::Bool(true)),
        },
        AttrField {
            name: "layout",
            kind: AttrKind::Str,
            default: Some(AttrDefault::Str("NCHW")),
        },
    ],
};

pub static SPACE_TO_BATCH_ND_ATTRS: AttrSchema = AttrSchema {
    type_key: "relay.attrs.SpaceToBatchNDAttrs",
    fields: &[
        AttrField {
            name: "block_shape",
            kind: AttrKind::Array,
            default: Some(AttrDefault::Ints(&[1, 1])),
        },
        AttrField {
            name: "paddings",
            kind: AttrKind::Array,
            default: None,
        },
        AttrField {
            name: "pad_value",
            kind: AttrKind::Double,
            default: Some(AttrDefault::Double(0.0)),
        },
    ],
};

pub static BATCH_TO_SPACE_ND_ATTRS: AttrSchema = AttrSchema {
    type_key: "relay.attrs.BatchToSpaceNDAttrs",
    fields: &[
        AttrField {
            name: "block_shape",
            kind: AttrKind::Array,
            default: Some(AttrDefault::Ints(&[1, 1])),
        },
        AttrField {
            name: "crops",
            kind: AttrKind::Array,
            default: None,
        },
    ],
};

pub static NLL_LOSS_ATTRS: AttrSchema = AttrSchema {
    type_key: "relay.attrs.NLLLossAttrs",
    fields: &[
        AttrField {
            name: "reduction",
            kind: AttrKind::Str,
            default: Some(AttrDefault::Str("mean")),
        },
        AttrField {
            name: "ignore_index",
            kind: AttrKind::Int,
            default: None,
        },
    ],
};

pub static FIFO_BUFFER_ATTRS: AttrSchema = AttrSchema {
    type_key: "relay.attrs.FIFOBufferAttrs",
    fields: &[AttrField {
        name: "axis",
        kind: AttrKind::Int,
        default: Some(AttrDefault::Int(0)),
    }],
};

// ---- Further transform attrs (`include/tvm/relay/attrs/transform.h`). ----

pub static RESHAPE_LIKE_ATTRS: AttrSchema = AttrSchema {
    type_key: "relay.attrs.ReshapeLikeAttrs",
    fields: &[
        AttrField {
            name: "lhs_begin",
            kind: AttrKind::Int,
            default: Some(AttrDefault::Int(0)),
        },
        AttrField {
            name: "lhs_end",
            kind: AttrKind::Int,
            default: Some(AttrDefault::Null),
        },
        AttrField {
            name: "rhs_begin",
            kind: AttrKind::Int,
            default: Some(AttrDefault::Int(0)),
        },
        AttrField {
            name: "rhs_end",
            kind: AttrKind::Int,
            default: Some(AttrDefault::Null),
        },
    ],
};

pub static GATHER_ATTRS: AttrSchema = AttrSchema {
    type_key: "relay.attrs.GatherAttrs",
    fields: &[AttrField {
        name: "axis",
        kind: AttrKind::Int,
        default: Some(AttrDefault::Null),
    }],
};

pub static GATHER_ND_ATTRS: AttrSchema = AttrSchema {
    type_key: "relay.attrs.GatherNDAttrs",
    fields: &[
        AttrField {
            name: "batch_dims",
            kind: AttrKind::Int,
            default: Some(AttrDefault::Int(0)),
        },
        AttrField {
            name: "index_rank",
            kind: AttrKind::Int,
            default: Some(AttrDefault::Null),
        },
    ],
};

pub static ARANGE_ATTRS: AttrSchema = AttrSchema {
    type_key: "relay.attrs.ArangeAttrs",
    fields: &[
        AttrField {
            name: "start",
            kind: AttrKind::Any,
            default: None,
        },
        AttrField {
            name: "stop",
            kind: AttrKind::Any,
            default: None,
        },
        AttrField {
            name: "step",
            kind: AttrKind::Any,
            default: None,
        },
        AttrField {
            name: "dtype",
            kind: AttrKind::DType,
            default: None,
        },
    ],
};

pub static MESHGRID_ATTRS: AttrSchema = AttrSchema {
    type_key: "relay.attrs.MeshgridAttrs",
    fields: &[AttrField {
        name: "indexing",
        kind: AttrKind::Str,
        default: Some(AttrDefault::Str("ij")),
    }],
};

pub static REVERSE_ATTRS: AttrSchema = AttrSchema {
    type_key: "relay.attrs.ReverseAttrs",
    fields: &[AttrField {
        name: "axis",
        kind: AttrKind::Int,
        default: Some(AttrDefault::Null),
    }],
};

pub static REVERSE_SEQUENCE_ATTRS: AttrSchema = AttrSchema {
    type_key: "relay.attrs.ReverseSequenceAttrs",
    fields: &[
        AttrField {
            name: "seq_axis",
            kind: AttrKind::Int,
            default: Some(AttrDefault::Int(1)),
        },
        AttrField {
            name: "batch_axis",
            kind: AttrKind::Int,
            default: Some(AttrDefault::Int(0)),
        },
    ],
};

pub static SLICE_LIKE_ATTRS: AttrSchema = AttrSchema {
    type_key: "relay.attrs.SliceLikeAttrs",
    fields: &[AttrField {
        name: "axes",
        kind: AttrKind::Array,
        default: None,
    }],
};

pub static FIXED_POINT_MULTIPLY_ATTRS: AttrSchema = AttrSchema {
    type_key: "relay.attrs.FixedPointMultiplyAttrs",
    fields: &[
        AttrField {
            name: "multiplier",
            kind: AttrKind::Int,
            default: None,
        },
        AttrField {
            name: "shift",
            kind: AttrKind::Int,
            default: None,
        },
    ],
};

pub static FIXED_POINT_MULTIPLY_PER_AXIS_ATTRS: AttrSchema = AttrSchema {
    type_key: "relay.attrs.FixedPointMultiplyPerAxisAttrs",
    fields: &[
        AttrField {
            name: "is_lshift_required",
            kind: AttrKind::Bool,
            default: Some(AttrDefault::Bool(false)),
        },
        AttrField {
            name: "is_rshift_required",
            kind: AttrKind::Bool,
            default: Some(AttrDefault::Bool(false)),
        },
        AttrField {
            name: "axes",
            kind: AttrKind::Array,
            default: None,
        },
    ],
};

pub static AUTO_SCHEDULER_LAYOUT_TRANSFORM_ATTRS: AttrSchema = AttrSchema {
    type_key: "relay.attrs.AutoSchedulerLayoutTransformAttrs",
    fields: &[
        AttrField {
            name: "src_layout",
            kind: AttrKind::Str,
            default: None,
        },
        AttrField {
            name: "dst_layout",
            kind: AttrKind::Str,
            default: None,
        },
    ],
};

pub static META_SCHEDULE_LAYOUT_TRANSFORM_ATTRS: AttrSchema = AttrSchema {
    type_key: "relay.attrs.MetaScheduleLayoutTransformAttrs",
    fields: &[AttrField {
        name: "index_map",
        kind: AttrKind::Any,
        default: None,
    }],
};

pub static SEQUENCE_MASK_ATTRS: AttrSchema = AttrSchema {
    type_key: "relay.attrs.SequenceMaskAttrs",
    fields: &[
        AttrField {
            name: "mask_value",
            kind: AttrKind::Double,
            default: Some(AttrDefault::Double(0.0)),
        },
        AttrField {
            name: "axis",
            kind: AttrKind::Int,
            default: Some(AttrDefault::Int(0)),
        },
    ],
};

/// `DynExpandDimsAttrs` (`include/tvm/relay/attrs/transform.h`), the attributes
/// `dyn.expand_dims` is built with.
pub static DYN_EXPAND_DIMS_ATTRS: AttrSchema = AttrSchema {
    type_key: "relay.attrs.DynExpandDimsAttrs",
    fields: &[AttrField {
        name: "num_newaxis",
        kind: AttrKind::Int,
        default: Some(AttrDefault::Int(1)),
    }],
};

pub static SPARSE_TO_DENSE_ATTRS: AttrSchema = AttrSchema {
    type_key: "relay.attrs.SparseToDenseAttrs",
    fields: &[AttrField {
        name: "output_shape",
        kind: AttrKind::Array,
        default: None,
    }],
};

pub static NDARRAY_SIZE_ATTRS: AttrSchema = AttrSchema {
    type_key: "relay.attrs.NdarraySizeAttrs",
    fields: &[AttrField {
        name: "dtype",
        kind: AttrKind::DType,
        default: Some(AttrDefault::Null),
    }],
};

pub static MATRIX_SET_DIAG_ATTRS: AttrSchema = AttrSchema {
    type_key: "relay.attrs.MatrixSetDiagAttrs",
    fields: &[
        AttrField {
            name: "k1",
            kind: AttrKind::Int,
            default: Some(AttrDefault::Int(0)),
        },
        AttrField {
            name: "k2",
            kind: AttrKind::Int,
            default: Some(AttrDefault::Int(0)),
        },
        AttrField {
            name: "super_diag_right_align",
            kind: AttrKind::Bool,
            default: Some(AttrDefault::Bool(true)),
        },
        AttrField {
            name: "sub_diag_right_align",
            kind: AttrKind::Bool,
            default: Some(AttrDefault::Bool(false)),
        },
    ],
};

pub static EINSUM_ATTRS: AttrSchema = AttrSchema {
    type_key: "relay.attrs.EinsumAttrs",
    fields: &[AttrField {
        name: "equation",
        kind: AttrKind::Str,
        default: None,
    }],
};

pub static SLIDING_WINDOW_ATTRS: AttrSchema = AttrSchema {
    type_key: "relay.attrs.SlidingWindowAttrs",
    fields: &[
        AttrField {
            name: "axis",
            kind: AttrKind::Int,
            default: None,
        },
        AttrField {
            name: "window_shape",
            kind: AttrKind::Array,
            default: None,
        },
        AttrField {
            name: "strides",
            kind: AttrKind::Array,
            default: None,
        },
    ],
};

// ---- Further reduce attrs (`include/tvm/relay/attrs/reduce.h`). ----

pub static VARIANCE_ATTRS: AttrSchema = AttrSchema {
    type_key: "relay.attrs.VarianceAttrs",
    fields: &[
        AttrField {
            name: "axis",
            kind: AttrKind::Array,
            default: Some(AttrDefault::Null),
        },
        AttrField {
            name: "keepdims",
            kind: AttrKind::Bool,
            default: Some(AttrDefault::Bool(false)),
        },
        AttrField {
            name: "exclude",
            kind: AttrKind::Bool,
            default: Some(AttrDefault::Bool(false)),
        },
        AttrField {
            name: "unbiased",
            kind: AttrKind::Bool,
            default: Some(AttrDefault::Bool(false)),
        },
    ],
};

// ---- Further image attrs (`include/tvm/relay/attrs/image.h`). ----

pub static RESIZE1D_ATTRS: AttrSchema = AttrSchema {
    type_key: "relay.attrs.Resize1DAttrs",
    fields: &[
        AttrField {
            name: "size",
            kind: AttrKind::Array,
            default: Some(AttrDefault::Null),
        },
        AttrField {
            name: "roi",
            kind: AttrKind::Array,
            default: Some(AttrDefault::Null),
        },
        AttrField {
            name: "layout",
            kind: AttrKind::Str,
            default: Some(AttrDefault::Str("NCW")),
        },
        AttrField {
            name: "method",
            kind: AttrKind::Str,
            default: Some(AttrDefault::Str("linear")),
        },
        AttrField {
            name: "coordinate_transformation_mode",
            kind: AttrKind::Str,
            default: Some(AttrDefault::Str("half_pixel")),
        },
        AttrField {
            name: "rounding_method",
            kind: AttrKind::Str,
            default: Some(AttrDefault::Str("round")),
        },
        AttrField {
            name: "cubic_alpha",
            kind: AttrKind::Double,
            default: Some(AttrDefault::Double(-0.5)),
        },
        AttrField {
            name: "cubic_exclude",
            kind: AttrKind::Int,
            default: Some(AttrDefault::Int(0)),
        },
        AttrField {
            name: "extrapolation_value",
            kind: AttrKind::Double,
            default: Some(AttrDefault::Double(0.0)),
        },
        AttrField {
            name: "out_dtype",
            kind: AttrKind::DType,
            default: Some(AttrDefault::Null),
        },
    ],
};

pub static RESIZE3D_ATTRS: AttrSchema = AttrSchema {
    type_key: "relay.attrs.Resize3DAttrs",
    fields: &[
        AttrField {
            name: "size",
            kind: AttrKind::Array,
            default: Some(AttrDefault::Null),
        },
        AttrField {
            name: "roi",
            kind: AttrKind::Array,
            default: Some(AttrDefault::Null),
        },
        AttrField {
            name: "layout",
            kind: AttrKind::Str,
            default: Some(AttrDefault::Str("NCDHW")),
        },
        AttrField {
            name: "method",
            kind: AttrKind::Str,
            default: Some(AttrDefault::Str("linear")),
        },
        AttrField {
            name: "coordinate_transformation_mode",
            kind: AttrKind::Str,
            default: Some(AttrDefault::Str("half_pixel")),
        },
        AttrField {
            name: "rounding_method",
            kind: AttrKind::Str,
            default: Some(AttrDefault::Str("round")),
        },
        AttrField {
            name: "cubic_alpha",
            kind: AttrKind::Double,
            default: Some(AttrDefault::Double(-0.5)),
        },
        AttrField {
            name: "cubic_exclude",
            kind: AttrKind::Int,
            default: Some(AttrDefault::Int(0)),
        },
        AttrField {
            name: "extrapolation_value",
            kind: AttrKind::Double,
            default: Some(AttrDefault::Double(0.0)),
        },
        AttrField {
            name: "out_dtype",
            kind: AttrKind::DType,
            default: Some(AttrDefault::Null),
        },
    ],
};

pub static CROP_AND_RESIZE_ATTRS: AttrSchema = AttrSchema {
    type_key: "relay.attrs.CropAndResizeAttrs",
    fields: &[
        AttrField {
            name: "crop_size",
            kind: AttrKind::Array,
            default: Some(AttrDefault::Null),
        },
        AttrField {
            name: "layout",
            kind: AttrKind::Str,
            default: Some(AttrDefault::Str("NCHW")),
        },
        AttrField {
            name: "method",
            kind: AttrKind::Str,
            default: Some(AttrDefault::Str("bilinear")),
        },
        AttrField {
            name: "extrapolation_value",
            kind: AttrKind::Double,
            default: Some(AttrDefault::Double(0.0)),
        },
        AttrField {
            name: "out_dtype",
            kind: AttrKind::DType,
            default: Some(AttrDefault::Null),
        },
    ],
};

pub static DILATION2D_ATTRS: AttrSchema = AttrSchema {
    type_key: "relay.attrs.Dilation2DAttrs",
    fields: &[
        AttrField {
            name: "strides",
            kind: AttrKind::Array,
            default: Some(AttrDefault::Ints(&[1, 1])),
        },
        AttrField {
            name: "padding",
            kind: AttrKind::Array,
            default: Some(AttrDefault::Ints(&[0, 0])),
        },
        AttrField {
            name: "dilations",
            kind: AttrKind::Array,
            default: Some(AttrDefault::Ints(&[1, 1])),
        },
        AttrField {
            name: "data_layout",
            kind: AttrKind::Str,
            default: Some(AttrDefault::Str("NCHW")),
        },
        AttrField {
            name: "kernel_layout",
            kind: AttrKind::Str,
            default: Some(AttrDefault::Str("IHW")),
        },
        AttrField {
            name: "out_dtype",
            kind: AttrKind::DType,
            default: Some(AttrDefault::Null),
        },
    ],
};

pub static AFFINE_GRID_ATTRS: AttrSchema = AttrSchema {
    type_key: "relay.attrs.AffineGridAttrs",
    fields: &[AttrField {
        name: "target_shape",
        kind: AttrKind::Array,
        default: None,
    }],
};

pub static GRID_SAMPLE_ATTRS: AttrSchema = AttrSchema {
    type_key: "relay.attrs.GridSampleAttrs",
    fields: &[
        AttrField {
            name: "method",
            kind: AttrKind::Str,
            default: Some(AttrDefault::Str("bilinear")),
        },
        AttrField {
            name: "layout",
            kind: AttrKind::Str,
            default: Some(AttrDefault::Str("NCHW")),
        },
        AttrField {
            name: "padding_mode",
            kind: AttrKind::Str,
            default: Some(AttrDefault::Str("zeros")),
        },
        AttrField {
            name: "align_corners",
            kind: AttrKind::Bool,
            default: Some(AttrDefault::Bool(true)),
        },
    ],
};

// ---- Schemas of the QNN attrs (`include/tvm/relay/qnn/attrs.h`). ----

pub static QNN_BROADCAST_ATTRS: AttrSchema = AttrSchema {
    type_key: "relay.attrs.BroadcastAttrs",
    fields: &[
        AttrField {
            name: "lhs_axis",
            kind: AttrKind::Int,
            default: Some(AttrDefault::Int(-1)),
        },
        AttrField {
            name: "rhs_axis",
            kind: AttrKind::Int,
            default: Some(AttrDefault::Int(-1)),
        },
    ],
};

pub static QUANTIZE_ATTRS: AttrSchema = AttrSchema {
    type_key: "relay.attrs.QuantizeAttrs",
    fields: &[
        AttrField {
            name: "out_dtype",
            kind: AttrKind::DType,
            default: None,
        },
        AttrField {
            name: "axis",
            kind: AttrKind::Int,
            default: Some(AttrDefault::Int(-1)),
        },
    ],
};

pub static DEQUANTIZE_ATTRS: AttrSchema = AttrSchema {
    type_key: "relay.attrs.DequantizeAttrs",
    fields: &[
        AttrField {
            name: "out_dtype",
            kind: AttrKind::DType,
            default: None,
        },
        AttrField {
            name: "axis",
            kind: AttrKind::Int,
            default: Some(AttrDefault::Int(-1)),
        },
    ],
};

pub static SIMULATED_QUANTIZE_ATTRS: AttrSchema = AttrSchema {
    type_key: "relay.attrs.SimulatedQuantizeAttrs",
    fields: &[AttrField {
        name: "axis",
        kind: AttrKind::Int,
        default: Some(AttrDefault::Int(-1)),
    }],
};

pub static REQUANTIZE_ATTRS: AttrSchema = AttrSchema {
    type_key: "relay.attrs.RequantizeAttrs",
    fields: &[
        AttrField {
            name: "axis",
            kind: AttrKind::Int,
            default: Some(AttrDefault::Int(-1)),
        },
        AttrField {
            name: "rounding",
            kind: AttrKind::Str,
            default: Some(AttrDefault::Str("None")),
        },
        AttrField {
            name: "compute_dtype",
            kind: AttrKind::Str,
            default: Some(AttrDefault::Str("None")),
        },
        AttrField {
            name: "out_dtype",
            kind: AttrKind::DType,
            default: Some(AttrDefault::Null),
        },
    ],
};

// ---- Schemas of device and memory annotations (`include/tvm/relay/attrs/{on_device,memory}.h`).
// A `VirtualDevice` has no text form of its own here: the field holds whatever was written,
// null (TVM's `FullyUnconstrained`) by default. ----

pub static ON_DEVICE_ATTRS: AttrSchema = AttrSchema {
    type_key: "relay.attrs.OnDeviceAttrs",
    fields: &[
        AttrField {
            name: "virtual_device",
            kind: AttrKind::Any,
            default: Some(AttrDefault::Null),
        },
        AttrField {
            name: "constrain_result",
            kind: AttrKind::Bool,
            default: Some(AttrDefault::Bool(false)),
        },
        AttrField {
            name: "constrain_body",
            kind: AttrKind::Bool,
            default: Some(AttrDefault::Bool(true)),
        },
    ],
};

pub static ALLOC_STORAGE_ATTRS: AttrSchema = AttrSchema {
    type_key: "relay.attrs.AllocStorageAttrs",
    fields: &[
        AttrField {
            name: "dtype",
            kind: AttrKind::DType,
            default: Some(AttrDefault::Str("float32")),
        },
        AttrField {
            name: "virtual_device",
            kind: AttrKind::Any,
            default: Some(AttrDefault::Null),
        },
    ],
};

// ---- Schemas of attrs types whose ops TVM registers without an attrs type (`vision.roi_align`,
// `vision.roi_pool`, `cumsum`, `cumprod`, `trilu`, `scatter_elements`, `scatter_nd`): a call names them with `attrs_type_key=`
// (see `op::schema_for_key`). ----

pub static TRILU_ATTRS: AttrSchema = AttrSchema {
    type_key: "relay.attrs.TriluAttrs",
    fields: &[AttrField {
        name: "upper",
        kind: AttrKind::Bool,
        default: Some(AttrDefault::Bool(true)),
    }],
};

pub static ROI_ALIGN_ATTRS: AttrSchema = AttrSchema {
    type_key: "relay.attrs.ROIAlignAttrs",
    fields: &[
        AttrField {
            name: "pooled_size",
            kind: AttrKind::Array,
            default: None,
        },
        AttrField {
            name: "spatial_scale",
            kind: AttrKind::Double,
            default: None,
        },
        AttrField {
            name: "sample_ratio",
            kind: AttrKind::Int,
            default: Some(AttrDefault::Int(-1)),
        },
        AttrField {
            name: "layout",
            kind: AttrKind::Str,
            default: Some(AttrDefault::Str("NCHW")),
        },
        AttrField {
            name: "mode",
            kind: AttrKind::Str,
            default: Some(AttrDefault::Str("avg")),
        },
    ],
};

pub static SCANOP_ATTRS: AttrSchema = AttrSchema {
    type_key: "relay.attrs.ScanopAttrs",
    fields: &[
        AttrField {
            name: "axis",
            kind: AttrKind::Int,
            default: Some(AttrDefault::Null),
        },
        AttrField {
            name: "dtype",
            kind: AttrKind::DType,
            default: Some(AttrDefault::Null),
        },
        AttrField {
            name: "exclusive",
            kind: AttrKind::Bool,
            default: Some(AttrDefault::Bool(false)),
        },
    ],
};

/// `UniqueAttrs` (`include/tvm/relay/attrs/transform.h`), which `unique` is not registered
/// with: a call names it with `attrs_type_key=`.
pub static UNIQUE_ATTRS: AttrSchema = AttrSchema {
    type_key: "relay.attrs.UniqueAttrs",
    fields: &[
        AttrField {
            name: "sorted",
            kind: AttrKind::Bool,
            default: Some(AttrDefault::Bool(true)),
        },
        AttrField {
            name: "return_counts",
            kind: AttrKind::Bool,
            default: Some(AttrDefault::Bool(false)),
        },
    ],
};

pub static SCATTER_ELEMENTS_ATTRS: AttrSchema = AttrSchema {
    type_key: "relay.attrs.ScatterElementsAttrs",
    fields: &[
        AttrField {
            name: "axis",
            kind: AttrKind::Int,
            default: Some(AttrDefault::Int(0)),
        },
        AttrField {
            name: "reduction",
            kind: AttrKind::Str,
            default: Some(AttrDefault::Str("update")),
        },
    ],
};

pub static SCATTER_ND_ATTRS: AttrSchema = AttrSchema {
    type_key: "relay.attrs.ScatterNDAttrs",
    fields: &[AttrField {
        name: "mode",
        kind: AttrKind::Str,
        default: Some(AttrDefault::Str("update")),
    }],
};

pub static ROI_POOL_ATTRS: AttrSchema = AttrSchema {
    type_key: "relay.attrs.ROIPoolAttrs",
    fields: &[
        AttrField {
            name: "pooled_size",
            kind: AttrKind::Array,
            default: None,
        },
        AttrField {
            name: "spatial_scale",
            kind: AttrKind::Double,
            default: None,
        },
        AttrField {
            name: "layout",
            kind: AttrKind::Str,
            default: Some(AttrDefault::Str("NCHW")),
        },
    ],
};

/// Every registered op, sorted by name.
pub static OPS: &[OpDef] = &[
    OpDef {
        name: "abs",
        num_inputs: 1,
        pattern: Some(OpPattern::ElemWise),
        stateful: false,
        non_computational: false,
        type_rel: "IdentityRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "acos",
        num_inputs: 1,
        pattern: Some(OpPattern::ElemWise),
        stateful: false,
        non_computational: false,
        type_rel: "IdentityRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "acosh",
        num_inputs: 1,
        pattern: Some(OpPattern::ElemWise),
        stateful: false,
        non_computational: false,
        type_rel: "IdentityRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "add",
        num_inputs: 2,
        pattern: Some(OpPattern::Broadcast),
        stateful: false,
        non_computational: false,
        type_rel: "BroadcastRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "adv_index",
        num_inputs: 1,
        pattern: Some(OpPattern::Injective),
        stateful: false,
        non_computational: false,
        type_rel: "AdvIndexRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "all",
        num_inputs: 1,
        pattern: Some(OpPattern::CommReduce),
        stateful: false,
        non_computational: false,
        type_rel: "ReduceRel",
        attrs_type_key: Some("relay.attrs.ReduceAttrs"),
        schema: Some(&REDUCE_ATTRS),
    },
    OpDef {
        name: "annotation.bitpack_end",
        num_inputs: 1,
        pattern: Some(OpPattern::Opaque),
        stateful: false,
        non_computational: false,
        type_rel: "IdentityRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "annotation.bitpack_start",
        num_inputs: 1,
        pattern: Some(OpPattern::Opaque),
        stateful: false,
        non_computational: false,
        type_rel: "IdentityRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "annotation.cast_hint",
        num_inputs: 1,
        pattern: Some(OpPattern::Opaque),
        stateful: false,
        non_computational: false,
        type_rel: "IdentityRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "annotation.checkpoint",
        num_inputs: 1,
        pattern: Some(OpPattern::Opaque),
        stateful: false,
        non_computational: false,
        type_rel: "IdentityRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "annotation.compiler_begin",
        num_inputs: 1,
        pattern: Some(OpPattern::Opaque),
        stateful: false,
        non_computational: false,
        type_rel: "IdentityRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "annotation.compiler_end",
        num_inputs: 1,
        pattern: Some(OpPattern::Opaque),
        stateful: false,
        non_computational: false,
        type_rel: "IdentityRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "annotation.stop_fusion",
        num_inputs: 1,
        pattern: Some(OpPattern::Opaque),
        stateful: false,
        non_computational: false,
        type_rel: "IdentityRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "annotation.with_funcid",
        num_inputs: 1,
        pattern: None,
        stateful: false,
        non_computational: false,
        type_rel: "",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "any",
        num_inputs: 1,
        pattern: Some(OpPattern::CommReduce),
        stateful: false,
        non_computational: false,
        type_rel: "ReduceRel",
        attrs_type_key: Some("relay.attrs.ReduceAttrs"),
        schema: Some(&REDUCE_ATTRS),
    },
    OpDef {
        name: "arange",
        num_inputs: 3,
        pattern: Some(OpPattern::Opaque),
        stateful: false,
        non_computational: false,
        type_rel: "ArangeRel",
        attrs_type_key: Some("relay.attrs.ArangeAttrs"),
        schema: Some(&ARANGE_ATTRS),
    },
    OpDef {
        name: "argmax",
        num_inputs: 1,
        pattern: Some(OpPattern::CommReduce),
        stateful: false,
        non_computational: false,
        type_rel: "GenericReduceRel<ArgReduceAttrs>",
        attrs_type_key: Some("relay.attrs.ArgReduceAttrs"),
        schema: Some(&ARG_REDUCE_ATTRS),
    },
    OpDef {
        name: "argmin",
        num_inputs: 1,
        pattern: Some(OpPattern::CommReduce),
        stateful: false,
        non_computational: false,
        type_rel: "GenericReduceRel<ArgReduceAttrs>",
        attrs_type_key: Some("relay.attrs.ArgReduceAttrs"),
        schema: Some(&ARG_REDUCE_ATTRS),
    },
    OpDef {
        name: "argsort",
        num_inputs: 1,
        pattern: Some(OpPattern::Opaque),
        stateful: false,
        non_computational: false,
        type_rel: "ArgsortRel",
        attrs_type_key: Some("relay.attrs.ArgsortAttrs"),
        schema: None,
    },
    OpDef {
        name: "argwhere",
        num_inputs: 1,
        pattern: Some(OpPattern::Opaque),
        stateful: false,
        non_computational: false,
        type_rel: "ArgWhereRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "asin",
        num_inputs: 1,
        pattern: Some(OpPattern::ElemWise),
        stateful: false,
        non_computational: false,
        type_rel: "IdentityRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "asinh",
        num_inputs: 1,
        pattern: Some(OpPattern::ElemWise),
        stateful: false,
        non_computational: false,
        type_rel: "IdentityRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "atan",
        num_inputs: 1,
        pattern: Some(OpPattern::ElemWise),
        stateful: false,
        non_computational: false,
        type_rel: "IdentityRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "atanh",
        num_inputs: 1,
        pattern: Some(OpPattern::ElemWise),
        stateful: false,
        non_computational: false,
        type_rel: "IdentityRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "auto_scheduler_layout_transform",
        num_inputs: 1,
        pattern: Some(OpPattern::Injective),
        stateful: false,
        non_computational: false,
        type_rel: "AutoSchedulerLayoutTransformRel",
        attrs_type_key: Some("relay.attrs.AutoSchedulerLayoutTransformAttrs"),
        schema: Some(&AUTO_SCHEDULER_LAYOUT_TRANSFORM_ATTRS),
    },
    OpDef {
        name: "bitwise_and",
        num_inputs: 2,
        pattern: Some(OpPattern::Broadcast),
        stateful: false,
        non_computational: false,
        type_rel: "BroadcastRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "bitwise_not",
        num_inputs: 1,
        pattern: Some(OpPattern::ElemWise),
        stateful: false,
        non_computational: false,
        type_rel: "IdentityRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "bitwise_or",
        num_inputs: 2,
        pattern: Some(OpPattern::Broadcast),
        stateful: false,
        non_computational: false,
        type_rel: "BroadcastRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "bitwise_xor",
        num_inputs: 2,
        pattern: Some(OpPattern::Broadcast),
        stateful: false,
        non_computational: false,
        type_rel: "BroadcastRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "broadcast_to",
        num_inputs: 1,
        pattern: Some(OpPattern::Broadcast),
        stateful: false,
        non_computational: false,
        type_rel: "BroadCastToRel",
        attrs_type_key: Some("relay.attrs.InitOpAttrs"),
        schema: Some(&INIT_OP_ATTRS),
    },
    OpDef {
        name: "broadcast_to_like",
        num_inputs: 2,
        pattern: Some(OpPattern::Broadcast),
        stateful: false,
        non_computational: false,
        type_rel: "BroadCastToLikeRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "call_lowered",
        num_inputs: 2,
        pattern: Some(OpPattern::Opaque),
        stateful: false,
        non_computational: true,
        type_rel: "CallLoweredRel",
        attrs_type_key: Some("relay.attrs.CallLoweredAttrs"),
        schema: None,
    },
    OpDef {
        name: "cast",
        num_inputs: 1,
        pattern: Some(OpPattern::ElemWise),
        stateful: false,
        non_computational: false,
        type_rel: "CastRel",
        attrs_type_key: Some("relay.attrs.CastAttrs"),
        schema: Some(&CAST_ATTRS),
    },
    OpDef {
        name: "cast_like",
        num_inputs: 2,
        pattern: Some(OpPattern::ElemWise),
        stateful: false,
        non_computational: false,
        type_rel: "CastLikeRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "ceil",
        num_inputs: 1,
        pattern: Some(OpPattern::ElemWise),
        stateful: false,
        non_computational: false,
        type_rel: "IdentityRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "clip",
        num_inputs: 1,
        pattern: Some(OpPattern::ElemWise),
        stateful: false,
        non_computational: false,
        type_rel: "IdentityRel",
        attrs_type_key: Some("relay.attrs.ClipAttrs"),
        schema: Some(&CLIP_ATTRS),
    },
    OpDef {
        name: "collapse_sum_like",
        num_inputs: 2,
        pattern: Some(OpPattern::CommReduce),
        stateful: false,
        non_computational: false,
        type_rel: "CollapseSumLikeRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "collapse_sum_to",
        num_inputs: 2,
        pattern: Some(OpPattern::CommReduce),
        stateful: false,
        non_computational: false,
        type_rel: "CollapseSumToRel",
        attrs_type_key: Some("relay.attrs.InitOpAttrs"),
        schema: Some(&INIT_OP_ATTRS),
    },
    OpDef {
        name: "concatenate",
        num_inputs: 1,
        pattern: Some(OpPattern::Injective),
        stateful: false,
        non_computational: false,
        type_rel: "ConcatenateRel<ConcatenateAttrs>",
        attrs_type_key: Some("relay.attrs.ConcatenateAttrs"),
        schema: Some(&CONCATENATE_ATTRS),
    },
    OpDef {
        name: "contrib.ethosu.binary_elementwise",
        num_inputs: 3,
        pattern: None,
        stateful: false,
        non_computational: false,
        type_rel: "EthosuBinaryElementwiseRel",
        attrs_type_key: Some("relay.attrs.EthosuBinaryElementwiseAttrs"),
        schema: None,
    },
    OpDef {
        name: "contrib.ethosu.conv2d",
        num_inputs: 4,
        pattern: None,
        stateful: false,
        non_computational: false,
        type_rel: "EthosuConv2DRel",
        attrs_type_key: Some("relay.attrs.EthosuConv2DAttrs"),
        schema: None,
    },
    OpDef {
        name: "contrib.ethosu.depthwise_conv2d",
        num_inputs: 4,
        pattern: None,
        stateful: false,
        non_computational: false,
        type_rel: "EthosuDepthwiseConv2DRel",
        attrs_type_key: Some("relay.attrs.EthosuDepthwiseConv2DAttrs"),
        schema: None,
    },
    OpDef {
        name: "contrib.ethosu.identity",
        num_inputs: 2,
        pattern: None,
        stateful: false,
        non_computational: false,
        type_rel: "EthosuIdentityRel",
        attrs_type_key: Some("relay.attrs.EthosuIdentityAttrs"),
        schema: None,
    },
    OpDef {
        name: "contrib.ethosu.pooling",
        num_inputs: 2,
        pattern: None,
        stateful: false,
        non_computational: false,
        type_rel: "EthosuPoolingRel",
        attrs_type_key: Some("relay.attrs.EthosuPoolingAttrs"),
        schema: None,
    },
    OpDef {
        name: "contrib.ethosu.unary_elementwise",
        num_inputs: 2,
        pattern: None,
        stateful: false,
        non_computational: false,
        type_rel: "EthosuUnaryElementwiseRel",
        attrs_type_key: Some("relay.attrs.EthosuUnaryElementwiseAttrs"),
        schema: None,
    },
    OpDef {
        name: "contrib_reverse_reshape",
        num_inputs: 1,
        pattern: Some(OpPattern::Injective),
        stateful: false,
        non_computational: false,
        type_rel: "ReverseReshapeRel",
        attrs_type_key: Some("relay.attrs.ReshapeAttrs"),
        schema: Some(&RESHAPE_ATTRS),
    },
    OpDef {
        name: "copy",
        num_inputs: 1,
        pattern: Some(OpPattern::ElemWise),
        stateful: false,
        non_computational: false,
        type_rel: "IdentityRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "cos",
        num_inputs: 1,
        pattern: Some(OpPattern::ElemWise),
        stateful: false,
        non_computational: false,
        type_rel: "IdentityRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "cosh",
        num_inputs: 1,
        pattern: Some(OpPattern::ElemWise),
        stateful: false,
        non_computational: false,
        type_rel: "IdentityRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "cumprod",
        num_inputs: 1,
        pattern: Some(OpPattern::Opaque),
        stateful: false,
        non_computational: false,
        type_rel: "ScanopRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "cumsum",
        num_inputs: 1,
        pattern: Some(OpPattern::Opaque),
        stateful: false,
        non_computational: false,
        type_rel: "ScanopRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "debug",
        num_inputs: 1,
        pattern: Some(OpPattern::Opaque),
        stateful: false,
        non_computational: false,
        type_rel: "IdentityRel",
        attrs_type_key: Some("relay.attrs.DebugAttrs"),
        schema: None,
    },
    OpDef {
        name: "device_copy",
        num_inputs: 1,
        pattern: Some(OpPattern::Opaque),
        stateful: false,
        non_computational: false,
        type_rel: "IdentityRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "dft",
        num_inputs: 2,
        pattern: Some(OpPattern::Opaque),
        stateful: false,
        non_computational: false,
        type_rel: "DFTRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "divide",
        num_inputs: 2,
        pattern: Some(OpPattern::Broadcast),
        stateful: false,
        non_computational: false,
        type_rel: "BroadcastRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "dyn.broadcast_to",
        num_inputs: 2,
        pattern: Some(OpPattern::Broadcast),
        stateful: false,
        non_computational: false,
        type_rel: "BroadCastToRel",
        attrs_type_key: Some("relay.attrs.InitOpAttrs"),
        schema: Some(&INIT_OP_ATTRS),
    },
    OpDef {
        name: "dyn.expand_dims",
        num_inputs: 2,
        pattern: Some(OpPattern::Injective),
        stateful: false,
        non_computational: false,
        type_rel: "ExpandDimsRel",
        attrs_type_key: Some("relay.attrs.DynExpandDimsAttrs"),
        schema: Some(&DYN_EXPAND_DIMS_ATTRS),
    },
    OpDef {
        name: "dyn.full",
        num_inputs: 2,
        pattern: Some(OpPattern::ElemWise),
        stateful: false,
        non_computational: false,
        type_rel: "FullRel",
        attrs_type_key: Some("relay.attrs.InitOpAttrs"),
        schema: Some(&INIT_OP_ATTRS),
    },
    OpDef {
        name: "dyn.image.resize2d",
        num_inputs: 3,
        pattern: Some(OpPattern::Injective),
        stateful: false,
        non_computational: false,
        type_rel: "Resize2DRel",
        attrs_type_key: Some("relay.attrs.Resize2DAttrs"),
        schema: Some(&RESIZE2D_ATTRS),
    },
    OpDef {
        name: "dyn.nn.pad",
        num_inputs: 3,
        pattern: Some(OpPattern::Injective),
        stateful: false,
        non_computational: false,
        type_rel: "PadRel",
        attrs_type_key: Some("relay.attrs.PadAttrs"),
        schema: Some(&PAD_ATTRS),
    },
    OpDef {
        name: "dyn.nn.upsampling",
        num_inputs: 3,
        pattern: Some(OpPattern::Injective),
        stateful: false,
        non_computational: false,
        type_rel: "UpSamplingRel",
        attrs_type_key: Some("relay.attrs.UpSamplingAttrs"),
        schema: Some(&UPSAMPLING_ATTRS),
    },
    OpDef {
        name: "dyn.nn.upsampling3d",
        num_inputs: 4,
        pattern: Some(OpPattern::Injective),
        stateful: false,
        non_computational: false,
        type_rel: "UpSampling3DRel",
        attrs_type_key: Some("relay.attrs.UpSampling3DAttrs"),
        schema: Some(&UPSAMPLING3D_ATTRS),
    },
    OpDef {
        name: "dyn.one_hot",
        num_inputs: 4,
        pattern: Some(OpPattern::OutEWiseFusable),
        stateful: false,
        non_computational: false,
        type_rel: "OneHotRel",
        attrs_type_key: Some("relay.attrs.OneHotAttrs"),
        schema: Some(&ONE_HOT_ATTRS),
    },
    OpDef {
        name: "dyn.ones",
        num_inputs: 1,
        pattern: Some(OpPattern::ElemWise),
        stateful: false,
        non_computational: false,
        type_rel: "InitOpRel",
        attrs_type_key: Some("relay.attrs.InitOpAttrs"),
        schema: Some(&INIT_OP_ATTRS),
    },
    OpDef {
        name: "dyn.reshape",
        num_inputs: 2,
        pattern: Some(OpPattern::Injective),
        stateful: false,
        non_computational: false,
        type_rel: "ReshapeRel",
        attrs_type_key: Some("relay.attrs.ReshapeAttrs"),
        schema: Some(&RESHAPE_ATTRS),
    },
    OpDef {
        name: "dyn.sparse_to_dense",
        num_inputs: 4,
        pattern: Some(OpPattern::Opaque),
        stateful: false,
        non_computational: false,
        type_rel: "SparseToDenseRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "dyn.squeeze",
        num_inputs: 2,
        pattern: Some(OpPattern::Injective),
        stateful: false,
        non_computational: false,
        type_rel: "DynSqueezeRel",
        attrs_type_key: Some("relay.attrs.SqueezeAttrs"),
        schema: Some(&SQUEEZE_ATTRS),
    },
    OpDef {
        name: "dyn.strided_slice",
        num_inputs: 4,
        pattern: Some(OpPattern::Injective),
        stateful: false,
        non_computational: false,
        type_rel: "StridedSliceRel",
        attrs_type_key: Some("relay.attrs.StridedSliceAttrs"),
        schema: Some(&STRIDED_SLICE_ATTRS),
    },
    OpDef {
        name: "dyn.tile",
        num_inputs: 2,
        pattern: Some(OpPattern::Injective),
        stateful: false,
        non_computational: false,
        type_rel: "TileRel",
        attrs_type_key: Some("relay.attrs.TileAttrs"),
        schema: Some(&TILE_ATTRS),
    },
    OpDef {
        name: "dyn.topk",
        num_inputs: 2,
        pattern: Some(OpPattern::Opaque),
        stateful: false,
        non_computational: false,
        type_rel: "TopKRel",
        attrs_type_key: Some("relay.attrs.TopkAttrs"),
        schema: Some(&TOPK_ATTRS),
    },
    OpDef {
        name: "dyn.zeros",
        num_inputs: 1,
        pattern: Some(OpPattern::ElemWise),
        stateful: false,
        non_computational: false,
        type_rel: "InitOpRel",
        attrs_type_key: Some("relay.attrs.InitOpAttrs"),
        schema: Some(&INIT_OP_ATTRS),
    },
    OpDef {
        name: "einsum",
        num_inputs: 1,
        pattern: Some(OpPattern::Injective),
        stateful: false,
        non_computational: false,
        type_rel: "EinsumRel",
        attrs_type_key: Some("relay.attrs.EinsumAttrs"),
        schema: Some(&EINSUM_ATTRS),
    },
    OpDef {
        name: "equal",
        num_inputs: 2,
        pattern: Some(OpPattern::Broadcast),
        stateful: false,
        non_computational: false,
        type_rel: "BroadcastCompRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "erf",
        num_inputs: 1,
        pattern: Some(OpPattern::ElemWise),
        stateful: false,
        non_computational: false,
        type_rel: "IdentityRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "exp",
        num_inputs: 1,
        pattern: Some(OpPattern::ElemWise),
        stateful: false,
        non_computational: false,
        type_rel: "IdentityRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "expand_dims",
        num_inputs: 1,
        pattern: Some(OpPattern::Broadcast),
        stateful: false,
        non_computational: false,
        type_rel: "ExpandDimsRel",
        attrs_type_key: Some("relay.attrs.ExpandDimsAttrs"),
        schema: Some(&EXPAND_DIMS_ATTRS),
    },
    OpDef {
        name: "fast_erf",
        num_inputs: 1,
        pattern: Some(OpPattern::ElemWise),
        stateful: false,
        non_computational: false,
        type_rel: "IdentityRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "fast_exp",
        num_inputs: 1,
        pattern: Some(OpPattern::ElemWise),
        stateful: false,
        non_computational: false,
        type_rel: "IdentityRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "fast_tanh",
        num_inputs: 1,
        pattern: Some(OpPattern::ElemWise),
        stateful: false,
        non_computational: false,
        type_rel: "IdentityRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "fixed_point_multiply",
        num_inputs: 1,
        pattern: Some(OpPattern::ElemWise),
        stateful: false,
        non_computational: false,
        type_rel: "IdentityRel",
        attrs_type_key: Some("relay.attrs.FixedPointMultiplyAttrs"),
        schema: Some(&FIXED_POINT_MULTIPLY_ATTRS),
    },
    OpDef {
        name: "fixed_point_multiply_per_axis",
        num_inputs: 4,
        pattern: Some(OpPattern::Broadcast),
        stateful: false,
        non_computational: false,
        type_rel: "FixedPointMultiplyPerAxisRel",
        attrs_type_key: Some("relay.attrs.FixedPointMultiplyPerAxisAttrs"),
        schema: Some(&FIXED_POINT_MULTIPLY_PER_AXIS_ATTRS),
    },
    OpDef {
        name: "floor",
        num_inputs: 1,
        pattern: Some(OpPattern::ElemWise),
        stateful: false,
        non_computational: false,
        type_rel: "IdentityRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "floor_divide",
        num_inputs: 2,
        pattern: Some(OpPattern::Broadcast),
        stateful: false,
        non_computational: false,
        type_rel: "BroadcastRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "floor_mod",
        num_inputs: 2,
        pattern: Some(OpPattern::Broadcast),
        stateful: false,
        non_computational: false,
        type_rel: "BroadcastRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "full",
        num_inputs: 1,
        pattern: Some(OpPattern::ElemWise),
        stateful: false,
        non_computational: false,
        type_rel: "FullRel",
        attrs_type_key: Some("relay.attrs.InitOpAttrs"),
        schema: Some(&INIT_OP_ATTRS),
    },
    OpDef {
        name: "full_like",
        num_inputs: 2,
        pattern: Some(OpPattern::ElemWise),
        stateful: false,
        non_computational: false,
        type_rel: "FullLikeRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "gather",
        num_inputs: 2,
        pattern: Some(OpPattern::Injective),
        stateful: false,
        non_computational: false,
        type_rel: "GatherRel",
        attrs_type_key: Some("relay.attrs.GatherAttrs"),
        schema: Some(&GATHER_ATTRS),
    },
    OpDef {
        name: "gather_nd",
        num_inputs: 2,
        pattern: Some(OpPattern::Injective),
        stateful: false,
        non_computational: false,
        type_rel: "GatherNDRel",
        attrs_type_key: Some("relay.attrs.GatherNDAttrs"),
        schema: Some(&GATHER_ND_ATTRS),
    },
    OpDef {
        name: "greater",
        num_inputs: 2,
        pattern: Some(OpPattern::Broadcast),
        stateful: false,
        non_computational: false,
        type_rel: "BroadcastCompRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "greater_equal",
        num_inputs: 2,
        pattern: Some(OpPattern::Broadcast),
        stateful: false,
        non_computational: false,
        type_rel: "BroadcastCompRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "image.affine_grid",
        num_inputs: 1,
        pattern: Some(OpPattern::Injective),
        stateful: false,
        non_computational: false,
        type_rel: "AffineGridRel",
        attrs_type_key: Some("relay.attrs.AffineGridAttrs"),
        schema: Some(&AFFINE_GRID_ATTRS),
    },
    OpDef {
        name: "image.crop_and_resize",
        num_inputs: 3,
        pattern: Some(OpPattern::Injective),
        stateful: false,
        non_computational: false,
        type_rel: "CropAndResizeRel",
        attrs_type_key: Some("relay.attrs.CropAndResizeAttrs"),
        schema: Some(&CROP_AND_RESIZE_ATTRS),
    },
    OpDef {
        name: "image.dilation2d",
        num_inputs: 2,
        pattern: Some(OpPattern::OutEWiseFusable),
        stateful: false,
        non_computational: false,
        type_rel: "Dilation2DRel<Dilation2DAttrs>",
        attrs_type_key: Some("relay.attrs.Dilation2DAttrs"),
        schema: Some(&DILATION2D_ATTRS),
    },
    OpDef {
        name: "image.grid_sample",
        num_inputs: 2,
        pattern: Some(OpPattern::Injective),
        stateful: false,
        non_computational: false,
        type_rel: "GridSampleRel",
        attrs_type_key: Some("relay.attrs.GridSampleAttrs"),
        schema: Some(&GRID_SAMPLE_ATTRS),
    },
    OpDef {
        name: "image.resize1d",
        num_inputs: 1,
        pattern: Some(OpPattern::Injective),
        stateful: false,
        non_computational: false,
        type_rel: "Resize1DRel",
        attrs_type_key: Some("relay.attrs.Resize1DAttrs"),
        schema: Some(&RESIZE1D_ATTRS),
    },
    OpDef {
        name: "image.resize2d",
        num_inputs: 1,
        pattern: Some(OpPattern::Injective),
        stateful: false,
        non_computational: false,
        type_rel: "Resize2DRel",
        attrs_type_key: Some("relay.attrs.Resize2DAttrs"),
        schema: Some(&RESIZE2D_ATTRS),
    },
    OpDef {
        name: "image.resize3d",
        num_inputs: 1,
        pattern: Some(OpPattern::Injective),
        stateful: false,
        non_computational: false,
        type_rel: "Resize3DRel",
        attrs_type_key: Some("relay.attrs.Resize3DAttrs"),
        schema: Some(&RESIZE3D_ATTRS),
    },
    OpDef {
        name: "invert_permutation",
        num_inputs: 1,
        pattern: Some(OpPattern::Injective),
        stateful: false,
        non_computational: false,
        type_rel: "IdentityRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "isfinite",
        num_inputs: 1,
        pattern: Some(OpPattern::ElemWise),
        stateful: false,
        non_computational: false,
        type_rel: "IdentityCompRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "isinf",
        num_inputs: 1,
        pattern: Some(OpPattern::ElemWise),
        stateful: false,
        non_computational: false,
        type_rel: "IdentityCompRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "isnan",
        num_inputs: 1,
        pattern: Some(OpPattern::ElemWise),
        stateful: false,
        non_computational: false,
        type_rel: "IdentityCompRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "layout_transform",
        num_inputs: 1,
        pattern: Some(OpPattern::Injective),
        stateful: false,
        non_computational: false,
        type_rel: "LayoutTransformRel",
        attrs_type_key: Some("relay.attrs.LayoutTransformAttrs"),
        schema: Some(&LAYOUT_TRANSFORM_ATTRS),
    },
    OpDef {
        name: "left_shift",
        num_inputs: 2,
        pattern: Some(OpPattern::Broadcast),
        stateful: false,
        non_computational: false,
        type_rel: "BroadcastRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "less",
        num_inputs: 2,
        pattern: Some(OpPattern::Broadcast),
        stateful: false,
        non_computational: false,
        type_rel: "BroadcastCompRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "less_equal",
        num_inputs: 2,
        pattern: Some(OpPattern::Broadcast),
        stateful: false,
        non_computational: false,
        type_rel: "BroadcastCompRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "log",
        num_inputs: 1,
        pattern: Some(OpPattern::ElemWise),
        stateful: false,
        non_computational: false,
        type_rel: "IdentityRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "log10",
        num_inputs: 1,
        pattern: Some(OpPattern::ElemWise),
        stateful: false,
        non_computational: false,
        type_rel: "IdentityRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "log2",
        num_inputs: 1,
        pattern: Some(OpPattern::ElemWise),
        stateful: false,
        non_computational: false,
        type_rel: "IdentityRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "logical_and",
        num_inputs: 2,
        pattern: Some(OpPattern::Broadcast),
        stateful: false,
        non_computational: false,
        type_rel: "BroadcastRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "logical_not",
        num_inputs: 1,
        pattern: Some(OpPattern::ElemWise),
        stateful: false,
        non_computational: false,
        type_rel: "IdentityRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "logical_or",
        num_inputs: 2,
        pattern: Some(OpPattern::Broadcast),
        stateful: false,
        non_computational: false,
        type_rel: "BroadcastRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "logical_xor",
        num_inputs: 2,
        pattern: Some(OpPattern::Broadcast),
        stateful: false,
        non_computational: false,
        type_rel: "BroadcastRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "matrix_set_diag",
        num_inputs: 2,
        pattern: Some(OpPattern::Injective),
        stateful: false,
        non_computational: false,
        type_rel: "MatrixSetDiagRel",
        attrs_type_key: Some("relay.attrs.MatrixSetDiagAttrs"),
        schema: Some(&MATRIX_SET_DIAG_ATTRS),
    },
    OpDef {
        name: "max",
        num_inputs: 1,
        pattern: Some(OpPattern::CommReduce),
        stateful: false,
        non_computational: false,
        type_rel: "ReduceRel",
        attrs_type_key: Some("relay.attrs.ReduceAttrs"),
        schema: Some(&REDUCE_ATTRS),
    },
    OpDef {
        name: "maximum",
        num_inputs: 2,
        pattern: Some(OpPattern::Broadcast),
        stateful: false,
        non_computational: false,
        type_rel: "BroadcastRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "mean",
        num_inputs: 1,
        pattern: Some(OpPattern::CommReduce),
        stateful: false,
        non_computational: false,
        type_rel: "ReduceRel",
        attrs_type_key: Some("relay.attrs.ReduceAttrs"),
        schema: Some(&REDUCE_ATTRS),
    },
    OpDef {
        name: "memory.alloc_storage",
        num_inputs: 3,
        pattern: Some(OpPattern::Opaque),
        stateful: false,
        non_computational: true,
        type_rel: "AllocStorageRel",
        attrs_type_key: Some("relay.attrs.AllocStorageAttrs"),
        schema: Some(&ALLOC_STORAGE_ATTRS),
    },
    OpDef {
        name: "memory.alloc_tensor",
        num_inputs: 3,
        pattern: Some(OpPattern::Opaque),
        stateful: false,
        non_computational: true,
        type_rel: "AllocTensorRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "memory.kill",
        num_inputs: 1,
        pattern: Some(OpPattern::Opaque),
        stateful: true,
        non_computational: true,
        type_rel: "KillRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "meshgrid",
        num_inputs: 1,
        pattern: Some(OpPattern::Injective),
        stateful: false,
        non_computational: false,
        type_rel: "MeshgridRel",
        attrs_type_key: Some("relay.attrs.MeshgridAttrs"),
        schema: Some(&MESHGRID_ATTRS),
    },
    OpDef {
        name: "meta_schedule_layout_transform",
        num_inputs: 1,
        pattern: Some(OpPattern::Injective),
        stateful: false,
        non_computational: false,
        type_rel: "MetaScheduleLayoutTransformRel",
        attrs_type_key: Some("relay.attrs.MetaScheduleLayoutTransformAttrs"),
        schema: Some(&META_SCHEDULE_LAYOUT_TRANSFORM_ATTRS),
    },
    OpDef {
        name: "min",
        num_inputs: 1,
        pattern: Some(OpPattern::CommReduce),
        stateful: false,
        non_computational: false,
        type_rel: "ReduceRel",
        attrs_type_key: Some("relay.attrs.ReduceAttrs"),
        schema: Some(&REDUCE_ATTRS),
    },
    OpDef {
        name: "minimum",
        num_inputs: 2,
        pattern: Some(OpPattern::Broadcast),
        stateful: false,
        non_computational: false,
        type_rel: "BroadcastRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "mod",
        num_inputs: 2,
        pattern: Some(OpPattern::Broadcast),
        stateful: false,
        non_computational: false,
        type_rel: "BroadcastRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "multiply",
        num_inputs: 2,
        pattern: Some(OpPattern::Broadcast),
        stateful: false,
        non_computational: false,
        type_rel: "BroadcastRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "ndarray_size",
        num_inputs: 1,
        pattern: Some(OpPattern::Injective),
        stateful: false,
        non_computational: false,
        type_rel: "NdarraySizeRel",
        attrs_type_key: Some("relay.attrs.NdarraySizeAttrs"),
        schema: Some(&NDARRAY_SIZE_ATTRS),
    },
    OpDef {
        name: "negative",
        num_inputs: 1,
        pattern: Some(OpPattern::ElemWise),
        stateful: false,
        non_computational: false,
        type_rel: "IdentityRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "nn.adaptive_avg_pool1d",
        num_inputs: 1,
        pattern: Some(OpPattern::OutEWiseFusable),
        stateful: false,
        non_computational: false,
        type_rel: "AdaptivePool1DRel",
        attrs_type_key: Some("relay.attrs.AdaptivePool1DAttrs"),
        schema: Some(&ADAPTIVE_POOL1D_ATTRS),
    },
    OpDef {
        name: "nn.adaptive_avg_pool2d",
        num_inputs: 1,
        pattern: Some(OpPattern::OutEWiseFusable),
        stateful: false,
        non_computational: false,
        type_rel: "AdaptivePool2DRel",
        attrs_type_key: Some("relay.attrs.AdaptivePool2DAttrs"),
        schema: Some(&ADAPTIVE_POOL2D_ATTRS),
    },
    OpDef {
        name: "nn.adaptive_avg_pool3d",
        num_inputs: 1,
        pattern: Some(OpPattern::OutEWiseFusable),
        stateful: false,
        non_computational: false,
        type_rel: "AdaptivePool3DRel",
        attrs_type_key: Some("relay.attrs.AdaptivePool3DAttrs"),
        schema: Some(&ADAPTIVE_POOL3D_ATTRS),
    },
    OpDef {
        name: "nn.adaptive_max_pool1d",
        num_inputs: 1,
        pattern: Some(OpPattern::OutEWiseFusable),
        stateful: false,
        non_computational: false,
        type_rel: "AdaptivePool1DRel",
        attrs_type_key: Some("relay.attrs.AdaptivePool1DAttrs"),
        schema: Some(&ADAPTIVE_POOL1D_ATTRS),
    },
    OpDef {
        name: "nn.adaptive_max_pool2d",
        num_inputs: 1,
        pattern: Some(OpPattern::OutEWiseFusable),
        stateful: false,
        non_computational: false,
        type_rel: "AdaptivePool2DRel",
        attrs_type_key: Some("relay.attrs.AdaptivePool2DAttrs"),
        schema: Some(&ADAPTIVE_POOL2D_ATTRS),
    },
    OpDef {
        name: "nn.adaptive_max_pool3d",
        num_inputs: 1,
        pattern: Some(OpPattern::OutEWiseFusable),
        stateful: false,
        non_computational: false,
        type_rel: "AdaptivePool3DRel",
        attrs_type_key: Some("relay.attrs.AdaptivePool3DAttrs"),
        schema: Some(&ADAPTIVE_POOL3D_ATTRS),
    },
    OpDef {
        name: "nn.avg_pool1d",
        num_inputs: 1,
        pattern: Some(OpPattern::OutEWiseFusable),
        stateful: false,
        non_computational: false,
        type_rel: "Pool1DRel<AvgPool1DAttrs>",
        attrs_type_key: Some("relay.attrs.AvgPool1DAttrs"),
        schema: Some(&AVG_POOL1D_ATTRS),
    },
    OpDef {
        name: "nn.avg_pool2d",
        num_inputs: 1,
        pattern: Some(OpPattern::OutEWiseFusable),
        stateful: false,
        non_computational: false,
        type_rel: "Pool2DRel<AvgPool2DAttrs>",
        attrs_type_key: Some("relay.attrs.AvgPool2DAttrs"),
        schema: Some(&AVG_POOL2D_ATTRS),
    },
    OpDef {
        name: "nn.avg_pool2d_grad",
        num_inputs: 2,
        pattern: Some(OpPattern::OutEWiseFusable),
        stateful: false,
        non_computational: false,
        type_rel: "Pool2DGradRel",
        attrs_type_key: Some("relay.attrs.MaxPool2DAttrs"),
        schema: Some(&AVG_POOL2D_ATTRS),
    },
    OpDef {
        name: "nn.avg_pool3d",
        num_inputs: 1,
        pattern: Some(OpPattern::OutEWiseFusable),
        stateful: false,
        non_computational: false,
        type_rel: "Pool3DRel<AvgPool3DAttrs>",
        attrs_type_key: Some("relay.attrs.AvgPool3DAttrs"),
        schema: Some(&AVG_POOL3D_ATTRS),
    },
    OpDef {
        name: "nn.batch_flatten",
        num_inputs: 1,
        pattern: Some(OpPattern::Injective),
        stateful: false,
        non_computational: false,
        type_rel: "BatchFlattenRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "nn.batch_matmul",
        num_inputs: 2,
        pattern: Some(OpPattern::OutEWiseFusable),
        stateful: false,
        non_computational: false,
        type_rel: "BatchMatmulRel<BatchMatmulAttrs>",
        attrs_type_key: Some("relay.attrs.BatchMatmulAttrs"),
        schema: Some(&BATCH_MATMUL_ATTRS),
    },
    OpDef {
        name: "nn.batch_norm",
        num_inputs: 5,
        pattern: Some(OpPattern::OutEWiseFusable),
        stateful: false,
        non_computational: false,
        type_rel: "BatchNormRel",
        attrs_type_key: Some("relay.attrs.BatchNormAttrs"),
        schema: Some(&BATCH_NORM_ATTRS),
    },
    OpDef {
        name: "nn.batch_to_space_nd",
        num_inputs: 1,
        pattern: Some(OpPattern::Injective),
        stateful: false,
        non_computational: false,
        type_rel: "BatchToSpaceNDRel",
        attrs_type_key: Some("relay.attrs.BatchToSpaceNDAttrs"),
        schema: Some(&BATCH_TO_SPACE_ND_ATTRS),
    },
    OpDef {
        name: "nn.bias_add",
        num_inputs: 2,
        pattern: Some(OpPattern::Broadcast),
        stateful: false,
        non_computational: false,
        type_rel: "BiasAddRel",
        attrs_type_key: Some("relay.attrs.BiasAddAttrs"),
        schema: Some(&BIAS_ADD_ATTRS),
    },
    OpDef {
        name: "nn.bitpack",
        num_inputs: 1,
        pattern: Some(OpPattern::Injective),
        stateful: false,
        non_computational: false,
        type_rel: "BitPackRel",
        attrs_type_key: Some("relay.attrs.BitPackAttrs"),
        schema: None,
    },
    OpDef {
        name: "nn.bitserial_conv2d",
        num_inputs: 2,
        pattern: Some(OpPattern::OutEWiseFusable),
        stateful: false,
        non_computational: false,
        type_rel: "BinaryConv2DRel",
        attrs_type_key: Some("relay.attrs.BinaryConv2DAttrs"),
        schema: None,
    },
    OpDef {
        name: "nn.bitserial_dense",
        num_inputs: 2,
        pattern: Some(OpPattern::OutEWiseFusable),
        stateful: false,
        non_computational: false,
        type_rel: "BinaryDenseRel",
        attrs_type_key: Some("relay.attrs.BinaryDenseAttrs"),
        schema: None,
    },
    OpDef {
        name: "nn.contrib_conv2d_NCHWc",
        num_inputs: 2,
        pattern: Some(OpPattern::OutEWiseFusable),
        stateful: false,
        non_computational: false,
        type_rel: "Conv2DWinogradRel<Conv2DAttrs>",
        attrs_type_key: Some("relay.attrs.Conv2DAttrs"),
        schema: Some(&CONV2D_ATTRS),
    },
    OpDef {
        name: "nn.contrib_conv2d_gemm_weight_transform",
        num_inputs: 1,
        pattern: Some(OpPattern::OutEWiseFusable),
        stateful: false,
        non_computational: false,
        type_rel: "Conv2DGemmWeightTransformRel",
        attrs_type_key: Some("relay.attrs.ConvGemmWeightTransformAttrs"),
        schema: Some(&CONV_GEMM_WEIGHT_TRANSFORM_ATTRS),
    },
    OpDef {
        name: "nn.contrib_conv2d_gemm_without_weight_transform",
        num_inputs: 2,
        pattern: Some(OpPattern::OutEWiseFusable),
        stateful: false,
        non_computational: false,
        type_rel: "Conv2DGemmRel",
        attrs_type_key: Some("relay.attrs.Conv2DAttrs"),
        schema: Some(&CONV2D_ATTRS),
    },
    OpDef {
        name: "nn.contrib_conv2d_winograd_nnpack_weight_transform",
        num_inputs: 1,
        pattern: Some(OpPattern::Opaque),
        stateful: false,
        non_computational: false,
        type_rel: "Conv2DWinogradNNPACKWeightTransformRel",
        attrs_type_key: Some("relay.attrs.Conv2DWinogradNNPACKWeightTransformAttrs"),
        schema: Some(&CONV2D_WINOGRAD_NNPACK_WEIGHT_TRANSFORM_ATTRS),
    },
    OpDef {
        name: "nn.contrib_conv2d_winograd_weight_transform",
        num_inputs: 1,
        pattern: Some(OpPattern::OutEWiseFusable),
        stateful: false,
        non_computational: false,
        type_rel: "Conv2DWinogradWeightTransformRel",
        attrs_type_key: Some("relay.attrs.ConvWinogradWeightTransformAttrs"),
        schema: Some(&CONV_WINOGRAD_WEIGHT_TRANSFORM_ATTRS),
    },
    OpDef {
        name: "nn.contrib_conv2d_winograd_without_weight_transform",
        num_inputs: 2,
        pattern: Some(OpPattern::OutEWiseFusable),
        stateful: false,
        non_computational: false,
        type_rel: "Conv2DWinogradRel<Conv2DWinogradAttrs>",
        attrs_type_key: Some("relay.attrs.Conv2DWinogradAttrs"),
        schema: Some(&CONV2D_WINOGRAD_ATTRS),
    },
    OpDef {
        name: "nn.contrib_conv3d_winograd_weight_transform",
        num_inputs: 1,
        pattern: Some(OpPattern::OutEWiseFusable),
        stateful: false,
        non_computational: false,
        type_rel: "Conv3DWinogradWeightTransformRel",
        attrs_type_key: Some("relay.attrs.ConvWinogradWeightTransformAttrs"),
        schema: Some(&CONV_WINOGRAD_WEIGHT_TRANSFORM_ATTRS),
    },
    OpDef {
        name: "nn.contrib_conv3d_winograd_without_weight_transform",
        num_inputs: 2,
        pattern: Some(OpPattern::OutEWiseFusable),
        stateful: false,
        non_computational: false,
        type_rel: "Conv3DWinogradRel",
        attrs_type_key: Some("relay.attrs.Conv3DWinogradAttrs"),
        schema: Some(&CONV3D_WINOGRAD_ATTRS),
    },
    OpDef {
        name: "nn.contrib_dense_pack",
        num_inputs: 2,
        pattern: Some(OpPattern::OutEWiseFusable),
        stateful: false,
        non_computational: false,
        type_rel: "DensePackRel",
        attrs_type_key: Some("relay.attrs.DenseAttrs"),
        schema: Some(&DENSE_PACK_ATTRS),
    },
    OpDef {
        name: "nn.contrib_depthwise_conv2d_NCHWc",
        num_inputs: 2,
        pattern: Some(OpPattern::OutEWiseFusable),
        stateful: false,
        non_computational: false,
        type_rel: "Conv2DRel",
        attrs_type_key: Some("relay.attrs.Conv2DAttrs"),
        schema: Some(&CONV2D_ATTRS),
    },
    OpDef {
        name: "nn.conv1d",
        num_inputs: 2,
        pattern: Some(OpPattern::OutEWiseFusable),
        stateful: false,
        non_computational: false,
        type_rel: "Conv1DRel",
        attrs_type_key: Some("relay.attrs.Conv1DAttrs"),
        schema: Some(&CONV1D_ATTRS),
    },
    OpDef {
        name: "nn.conv1d_transpose",
        num_inputs: 2,
        pattern: Some(OpPattern::OutEWiseFusable),
        stateful: false,
        non_computational: false,
        type_rel: "Conv1DTransposeRel",
        attrs_type_key: Some("relay.attrs.Conv1DTransposeAttrs"),
        schema: Some(&CONV1D_TRANSPOSE_ATTRS),
    },
    OpDef {
        name: "nn.conv2d",
        num_inputs: 2,
        pattern: Some(OpPattern::OutEWiseFusable),
        stateful: false,
        non_computational: false,
        type_rel: "Conv2DRel",
        attrs_type_key: Some("relay.attrs.Conv2DAttrs"),
        schema: Some(&CONV2D_ATTRS),
    },
    OpDef {
        name: "nn.conv2d_backward_weight",
        num_inputs: 2,
        pattern: Some(OpPattern::OutEWiseFusable),
        stateful: false,
        non_computational: false,
        type_rel: "Conv2DBackwardWeightRel",
        attrs_type_key: Some("relay.attrs.Conv2DAttrs"),
        schema: Some(&CONV2D_ATTRS),
    },
    OpDef {
        name: "nn.conv2d_transpose",
        num_inputs: 2,
        pattern: Some(OpPattern::OutEWiseFusable),
        stateful: false,
        non_computational: false,
        type_rel: "Conv2DTransposeRel",
        attrs_type_key: Some("relay.attrs.Conv2DTransposeAttrs"),
        schema: Some(&CONV2D_TRANSPOSE_ATTRS),
    },
    OpDef {
        name: "nn.conv3d",
        num_inputs: 2,
        pattern: Some(OpPattern::OutEWiseFusable),
        stateful: false,
        non_computational: false,
        type_rel: "Conv3DRel",
        attrs_type_key: Some("relay.attrs.Conv3DAttrs"),
        schema: Some(&CONV3D_ATTRS),
    },
    OpDef {
        name: "nn.conv3d_transpose",
        num_inputs: 2,
        pattern: Some(OpPattern::OutEWiseFusable),
        stateful: false,
        non_computational: false,
        type_rel: "Conv3DTransposeRel<Conv3DTransposeAttrs>",
        attrs_type_key: Some("relay.attrs.Conv3DTransposeAttrs"),
        schema: Some(&CONV3D_TRANSPOSE_ATTRS),
    },
    OpDef {
        name: "nn.correlation",
        num_inputs: 2,
        pattern: Some(OpPattern::OutEWiseFusable),
        stateful: false,
        non_computational: false,
        type_rel: "CorrelationRel",
        attrs_type_key: Some("relay.attrs.CorrelationAttrs"),
        schema: Some(&CORRELATION_ATTRS),
    },
    OpDef {
        name: "nn.cross_entropy",
        num_inputs: 2,
        pattern: Some(OpPattern::Opaque),
        stateful: false,
        non_computational: false,
        type_rel: "CrossEntropyRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "nn.cross_entropy_with_logits",
        num_inputs: 2,
        pattern: Some(OpPattern::Opaque),
        stateful: false,
        non_computational: false,
        type_rel: "CrossEntropyRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "nn.deformable_conv2d",
        num_inputs: 3,
        pattern: Some(OpPattern::OutEWiseFusable),
        stateful: false,
        non_computational: false,
        type_rel: "DeformableConv2DRel",
        attrs_type_key: Some("relay.attrs.DeformableConv2DAttrs"),
        schema: Some(&DEFORMABLE_CONV2D_ATTRS),
    },
    OpDef {
        name: "nn.dense",
        num_inputs: 2,
        pattern: Some(OpPattern::OutEWiseFusable),
        stateful: false,
        non_computational: false,
        type_rel: "MatmulRel<DenseAttrs>",
        attrs_type_key: Some("relay.attrs.DenseAttrs"),
        schema: Some(&DENSE_ATTRS),
    },
    OpDef {
        name: "nn.depth_to_space",
        num_inputs: 1,
        pattern: Some(OpPattern::Injective),
        stateful: false,
        non_computational: false,
        type_rel: "DepthToSpaceRel",
        attrs_type_key: Some("relay.attrs.SubPixelAttrs"),
        schema: Some(&SUB_PIXEL_ATTRS),
    },
    OpDef {
        name: "nn.dilate",
        num_inputs: 1,
        pattern: Some(OpPattern::Injective),
        stateful: false,
        non_computational: false,
        type_rel: "DilateRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "nn.dropout",
        num_inputs: 1,
        pattern: Some(OpPattern::Opaque),
        stateful: true,
        non_computational: false,
        type_rel: "DropoutRel",
        attrs_type_key: Some("relay.attrs.DropoutAttrs"),
        schema: Some(&DROPOUT_ATTRS),
    },
    OpDef {
        name: "nn.fast_softmax",
        num_inputs: 1,
        pattern: Some(OpPattern::OutEWiseFusable),
        stateful: false,
        non_computational: false,
        type_rel: "SoftmaxRel",
        attrs_type_key: Some("relay.attrs.SoftmaxAttrs"),
        schema: Some(&SOFTMAX_ATTRS),
    },
    OpDef {
        name: "nn.fifo_buffer",
        num_inputs: 2,
        pattern: Some(OpPattern::Opaque),
        stateful: false,
        non_computational: false,
        type_rel: "FIFOBufferRel",
        attrs_type_key: Some("relay.attrs.FIFOBufferAttrs"),
        schema: Some(&FIFO_BUFFER_ATTRS),
    },
    OpDef {
        name: "nn.global_avg_pool2d",
        num_inputs: 1,
        pattern: Some(OpPattern::OutEWiseFusable),
        stateful: false,
        non_computational: false,
        type_rel: "GlobalPool2DRel",
        attrs_type_key: Some("relay.attrs.GlobalPool2DAttrs"),
        schema: Some(&GLOBAL_POOL2D_ATTRS),
    },
    OpDef {
        name: "nn.global_max_pool2d",
        num_inputs: 1,
        pattern: Some(OpPattern::OutEWiseFusable),
        stateful: false,
        non_computational: false,
        type_rel: "GlobalPool2DRel",
        attrs_type_key: Some("relay.attrs.GlobalPool2DAttrs"),
        schema: Some(&GLOBAL_POOL2D_ATTRS),
    },
    OpDef {
        name: "nn.group_norm",
        num_inputs: 3,
        pattern: None,
        stateful: false,
        non_computational: false,
        type_rel: "GroupNormRel",
        attrs_type_key: Some("relay.attrs.GroupNormAttrs"),
        schema: Some(&GROUP_NORM_ATTRS),
    },
    OpDef {
        name: "nn.instance_norm",
        num_inputs: 3,
        pattern: None,
        stateful: false,
        non_computational: false,
        type_rel: "InstanceNormRel",
        attrs_type_key: Some("relay.attrs.InstanceNormAttrs"),
        schema: Some(&INSTANCE_NORM_ATTRS),
    },
    OpDef {
        name: "nn.internal.sparse_dense_padded",
        num_inputs: 4,
        pattern: Some(OpPattern::OutEWiseFusable),
        stateful: false,
        non_computational: false,
        type_rel: "SparseDenseRel",
        attrs_type_key: Some("relay.attrs.SparseDenseAttrs"),
        schema: Some(&SPARSE_DENSE_ATTRS),
    },
    OpDef {
        name: "nn.l2_normalize",
        num_inputs: 1,
        pattern: None,
        stateful: false,
        non_computational: false,
        type_rel: "IdentityRel",
        attrs_type_key: Some("relay.attrs.L2NormalizeAttrs"),
        schema: Some(&L2_NORMALIZE_ATTRS),
    },
    OpDef {
        name: "nn.layer_norm",
        num_inputs: 3,
        pattern: None,
        stateful: false,
        non_computational: false,
        type_rel: "LayerNormRel",
        attrs_type_key: Some("relay.attrs.LayerNormAttrs"),
        schema: Some(&LAYER_NORM_ATTRS),
    },
    OpDef {
        name: "nn.leaky_relu",
        num_inputs: 1,
        pattern: Some(OpPattern::ElemWise),
        stateful: false,
        non_computational: false,
        type_rel: "IdentityRel",
        attrs_type_key: Some("relay.attrs.LeakyReluAttrs"),
        schema: Some(&LEAKY_RELU_ATTRS),
    },
    OpDef {
        name: "nn.log_softmax",
        num_inputs: 1,
        pattern: Some(OpPattern::OutEWiseFusable),
        stateful: false,
        non_computational: false,
        type_rel: "SoftmaxRel",
        attrs_type_key: Some("relay.attrs.SoftmaxAttrs"),
        schema: Some(&SOFTMAX_ATTRS),
    },
    OpDef {
        name: "nn.lrn",
        num_inputs: 1,
        pattern: Some(OpPattern::Opaque),
        stateful: false,
        non_computational: false,
        type_rel: "IdentityRel",
        attrs_type_key: Some("relay.attrs.LRNAttrs"),
        schema: Some(&LRN_ATTRS),
    },
    OpDef {
        name: "nn.matmul",
        num_inputs: 2,
        pattern: Some(OpPattern::OutEWiseFusable),
        stateful: false,
        non_computational: false,
        type_rel: "MatmulRel<MatmulAttrs>",
        attrs_type_key: Some("relay.attrs.MatmulAttrs"),
        schema: Some(&MATMUL_ATTRS),
    },
    OpDef {
        name: "nn.max_pool1d",
        num_inputs: 1,
        pattern: Some(OpPattern::OutEWiseFusable),
        stateful: false,
        non_computational: false,
        type_rel: "Pool1DRel<MaxPool1DAttrs>",
        attrs_type_key: Some("relay.attrs.MaxPool1DAttrs"),
        schema: Some(&MAX_POOL1D_ATTRS),
    },
    OpDef {
        name: "nn.max_pool2d",
        num_inputs: 1,
        pattern: Some(OpPattern::OutEWiseFusable),
        stateful: false,
        non_computational: false,
        type_rel: "Pool2DRel<MaxPool2DAttrs>",
        attrs_type_key: Some("relay.attrs.MaxPool2DAttrs"),
        schema: Some(&MAX_POOL2D_ATTRS),
    },
    OpDef {
        name: "nn.max_pool2d_grad",
        num_inputs: 2,
        pattern: Some(OpPattern::OutEWiseFusable),
        stateful: false,
        non_computational: false,
        type_rel: "Pool2DGradRel",
        attrs_type_key: Some("relay.attrs.MaxPool2DAttrs"),
        schema: Some(&MAX_POOL2D_ATTRS),
    },
    OpDef {
        name: "nn.max_pool3d",
        num_inputs: 1,
        pattern: Some(OpPattern::OutEWiseFusable),
        stateful: false,
        non_computational: false,
        type_rel: "Pool3DRel<MaxPool3DAttrs>",
        attrs_type_key: Some("relay.attrs.MaxPool3DAttrs"),
        schema: Some(&MAX_POOL3D_ATTRS),
    },
    OpDef {
        name: "nn.mirror_pad",
        num_inputs: 1,
        pattern: Some(OpPattern::Injective),
        stateful: false,
        non_computational: false,
        type_rel: "MirrorPadRel",
        attrs_type_key: Some("relay.attrs.MirrorPadAttrs"),
        schema: Some(&MIRROR_PAD_ATTRS),
    },
    OpDef {
        name: "nn.nll_loss",
        num_inputs: 3,
        pattern: Some(OpPattern::OutEWiseFusable),
        stateful: false,
        non_computational: false,
        type_rel: "NLLLossRel",
        attrs_type_key: Some("relay.attrs.NLLLossAttrs"),
        schema: Some(&NLL_LOSS_ATTRS),
    },
    OpDef {
        name: "nn.pad",
        num_inputs: 2,
        pattern: Some(OpPattern::Injective),
        stateful: false,
        non_computational: false,
        type_rel: "PadRel",
        attrs_type_key: Some("relay.attrs.PadAttrs"),
        schema: Some(&PAD_ATTRS),
    },
    OpDef {
        name: "nn.prelu",
        num_inputs: 2,
        pattern: Some(OpPattern::Broadcast),
        stateful: false,
        non_computational: false,
        type_rel: "PReluRel",
        attrs_type_key: Some("relay.attrs.PReluAttrs"),
        schema: Some(&PRELU_ATTRS),
    },
    OpDef {
        name: "nn.relu",
        num_inputs: 1,
        pattern: Some(OpPattern::ElemWise),
        stateful: false,
        non_computational: false,
        type_rel: "IdentityRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "nn.softmax",
        num_inputs: 1,
        pattern: Some(OpPattern::OutEWiseFusable),
        stateful: false,
        non_computational: false,
        type_rel: "SoftmaxRel",
        attrs_type_key: Some("relay.attrs.SoftmaxAttrs"),
        schema: Some(&SOFTMAX_ATTRS),
    },
    OpDef {
        name: "nn.space_to_batch_nd",
        num_inputs: 1,
        pattern: Some(OpPattern::Injective),
        stateful: false,
        non_computational: false,
        type_rel: "SpaceToBatchNDRel",
        attrs_type_key: Some("relay.attrs.SpaceToBatchNDAttrs"),
        schema: Some(&SPACE_TO_BATCH_ND_ATTRS),
    },
    OpDef {
        name: "nn.space_to_depth",
        num_inputs: 1,
        pattern: Some(OpPattern::Injective),
        stateful: false,
        non_computational: false,
        type_rel: "SpaceToDepthRel",
        attrs_type_key: Some("relay.attrs.SubPixelAttrs"),
        schema: Some(&SUB_PIXEL_ATTRS),
    },
    OpDef {
        name: "nn.sparse_add",
        num_inputs: 4,
        pattern: Some(OpPattern::Opaque),
        stateful: false,
        non_computational: false,
        type_rel: "SparseAddRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "nn.sparse_conv2d",
        num_inputs: 4,
        pattern: Some(OpPattern::OutEWiseFusable),
        stateful: false,
        non_computational: false,
        type_rel: "SparseConv2dRel",
        attrs_type_key: Some("relay.attrs.SparseConv2DAttrs"),
        schema: Some(&SPARSE_CONV2D_ATTRS),
    },
    OpDef {
        name: "nn.sparse_dense",
        num_inputs: 4,
        pattern: Some(OpPattern::OutEWiseFusable),
        stateful: false,
        non_computational: false,
        type_rel: "SparseDenseRel",
        attrs_type_key: Some("relay.attrs.SparseDenseAttrs"),
        schema: Some(&SPARSE_DENSE_ATTRS),
    },
    OpDef {
        name: "nn.sparse_transpose",
        num_inputs: 3,
        pattern: Some(OpPattern::OutEWiseFusable),
        stateful: false,
        non_computational: false,
        type_rel: "SparseTransposeRel",
        attrs_type_key: Some("relay.attrs.SparseTransposeAttrs"),
        schema: Some(&SPARSE_TRANSPOSE_ATTRS),
    },
    OpDef {
        name: "nn.upsampling",
        num_inputs: 1,
        pattern: Some(OpPattern::Injective),
        stateful: false,
        non_computational: false,
        type_rel: "UpSamplingRel",
        attrs_type_key: Some("relay.attrs.UpSamplingAttrs"),
        schema: Some(&UPSAMPLING_ATTRS),
    },
    OpDef {
        name: "nn.upsampling3d",
        num_inputs: 1,
        pattern: Some(OpPattern::Injective),
        stateful: false,
        non_computational: false,
        type_rel: "UpSampling3DRel",
        attrs_type_key: Some("relay.attrs.UpSampling3DAttrs"),
        schema: Some(&UPSAMPLING3D_ATTRS),
    },
    OpDef {
        name: "not_equal",
        num_inputs: 2,
        pattern: Some(OpPattern::Broadcast),
        stateful: false,
        non_computational: false,
        type_rel: "BroadcastCompRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "on_device",
        num_inputs: 1,
        pattern: Some(OpPattern::Opaque),
        stateful: false,
        non_computational: true,
        type_rel: "IdentityRel",
        attrs_type_key: Some("relay.attrs.OnDeviceAttrs"),
        schema: Some(&ON_DEVICE_ATTRS),
    },
    OpDef {
        name: "one_hot",
        num_inputs: 3,
        pattern: Some(OpPattern::OutEWiseFusable),
        stateful: false,
        non_computational: false,
        type_rel: "OneHotRel",
        attrs_type_key: Some("relay.attrs.OneHotAttrs"),
        schema: Some(&ONE_HOT_ATTRS),
    },
    OpDef {
        name: "ones",
        num_inputs: 0,
        pattern: Some(OpPattern::ElemWise),
        stateful: false,
        non_computational: false,
        type_rel: "InitOpRel",
        attrs_type_key: Some("relay.attrs.InitOpAttrs"),
        schema: Some(&INIT_OP_ATTRS),
    },
    OpDef {
        name: "ones_like",
        num_inputs: 1,
        pattern: Some(OpPattern::ElemWise),
        stateful: false,
        non_computational: false,
        type_rel: "IdentityRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "parser.MetaRef",
        num_inputs: 0,
        pattern: None,
        stateful: false,
        non_computational: true,
        type_rel: "MetaRefRel",
        attrs_type_key: Some("relay.attrs.MetaRefAttrs"),
        schema: None,
    },
    OpDef {
        name: "power",
        num_inputs: 2,
        pattern: Some(OpPattern::Broadcast),
        stateful: false,
        non_computational: false,
        type_rel: "BroadcastRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "prod",
        num_inputs: 1,
        pattern: Some(OpPattern::CommReduce),
        stateful: false,
        non_computational: false,
        type_rel: "ReduceRel",
        attrs_type_key: Some("relay.attrs.ReduceAttrs"),
        schema: Some(&REDUCE_ATTRS),
    },
    OpDef {
        name: "qnn.abs",
        num_inputs: 5,
        pattern: None,
        stateful: false,
        non_computational: true,
        type_rel: "QnnElementwiseUnaryFuncRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "qnn.add",
        num_inputs: 8,
        pattern: Some(OpPattern::Broadcast),
        stateful: false,
        non_computational: true,
        type_rel: "QnnBroadcastRel",
        attrs_type_key: Some("relay.attrs.BroadcastAttrs"),
        schema: Some(&QNN_BROADCAST_ATTRS),
    },
    OpDef {
        name: "qnn.avg_pool2d",
        num_inputs: 5,
        pattern: Some(OpPattern::OutEWiseFusable),
        stateful: false,
        non_computational: false,
        type_rel: "QnnAvgPool2DRel",
        attrs_type_key: Some("relay.attrs.AvgPool2DAttrs"),
        schema: Some(&AVG_POOL2D_ATTRS),
    },
    OpDef {
        name: "qnn.batch_matmul",
        num_inputs: 6,
        pattern: None,
        stateful: false,
        non_computational: true,
        type_rel: "QnnBatchMatmulRel",
        attrs_type_key: Some("relay.attrs.BatchMatmulAttrs"),
        schema: Some(&BATCH_MATMUL_ATTRS),
    },
    OpDef {
        name: "qnn.concatenate",
        num_inputs: 5,
        pattern: None,
        stateful: false,
        non_computational: true,
        type_rel: "QnnConcatenateRel",
        attrs_type_key: Some("relay.attrs.ConcatenateAttrs"),
        schema: Some(&CONCATENATE_ATTRS),
    },
    OpDef {
        name: "qnn.contrib_dense_pack",
        num_inputs: 6,
        pattern: Some(OpPattern::OutEWiseFusable),
        stateful: false,
        non_computational: true,
        type_rel: "QnnDensePackRel",
        attrs_type_key: Some("relay.attrs.DensePackAttrs"),
        schema: Some(&DENSE_PACK_ATTRS),
    },
    OpDef {
        name: "qnn.conv2d",
        num_inputs: 6,
        pattern: Some(OpPattern::OutEWiseFusable),
        stateful: false,
        non_computational: true,
        type_rel: "QnnConv2DRel",
        attrs_type_key: Some("relay.attrs.Conv2DAttrs"),
        schema: Some(&CONV2D_ATTRS),
    },
    OpDef {
        name: "qnn.conv2d_transpose",
        num_inputs: 6,
        pattern: None,
        stateful: false,
        non_computational: true,
        type_rel: "QnnConv2DTransposeRel",
        attrs_type_key: Some("relay.attrs.Conv2DTransposeAttrs"),
        schema: Some(&CONV2D_TRANSPOSE_ATTRS),
    },
    OpDef {
        name: "qnn.dense",
        num_inputs: 6,
        pattern: Some(OpPattern::OutEWiseFusable),
        stateful: false,
        non_computational: true,
        type_rel: "QnnDenseRel",
        attrs_type_key: Some("relay.attrs.DenseAttrs"),
        schema: Some(&DENSE_ATTRS),
    },
    OpDef {
        name: "qnn.dequantize",
        num_inputs: 3,
        pattern: None,
        stateful: false,
        non_computational: true,
        type_rel: "DequantizeRel",
        attrs_type_key: Some("relay.attrs.DequantizeAttrs"),
        schema: Some(&DEQUANTIZE_ATTRS),
    },
    OpDef {
        name: "qnn.erf",
        num_inputs: 5,
        pattern: None,
        stateful: false,
        non_computational: true,
        type_rel: "QnnElementwiseUnaryFuncRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "qnn.exp",
        num_inputs: 5,
        pattern: None,
        stateful: false,
        non_computational: true,
        type_rel: "QnnElementwiseUnaryFuncRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "qnn.hardswish",
        num_inputs: 5,
        pattern: None,
        stateful: false,
        non_computational: true,
        type_rel: "QnnElementwiseUnaryFuncRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "qnn.leaky_relu",
        num_inputs: 5,
        pattern: None,
        stateful: false,
        non_computational: true,
        type_rel: "QnnLeakyReluRel",
        attrs_type_key: Some("relay.attrs.LeakyReluAttrs"),
        schema: Some(&LEAKY_RELU_ATTRS),
    },
    OpDef {
        name: "qnn.log",
        num_inputs: 5,
        pattern: None,
        stateful: false,
        non_computational: true,
        type_rel: "QnnElementwiseUnaryFuncRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "qnn.mul",
        num_inputs: 8,
        pattern: Some(OpPattern::Broadcast),
        stateful: false,
        non_computational: true,
        type_rel: "QnnBroadcastRel",
        attrs_type_key: Some("relay.attrs.BroadcastAttrs"),
        schema: Some(&QNN_BROADCAST_ATTRS),
    },
    OpDef {
        name: "qnn.quantize",
        num_inputs: 3,
        pattern: None,
        stateful: false,
        non_computational: true,
        type_rel: "QuantizeRel",
        attrs_type_key: Some("relay.attrs.QuantizeAttrs"),
        schema: Some(&QUANTIZE_ATTRS),
    },
    OpDef {
        name: "qnn.requantize",
        num_inputs: 5,
        pattern: None,
        stateful: false,
        non_computational: true,
        type_rel: "RequantizeRel",
        attrs_type_key: Some("relay.attrs.RequantizeAttrs"),
        schema: Some(&REQUANTIZE_ATTRS),
    },
    OpDef {
        name: "qnn.rsqrt",
        num_inputs: 5,
        pattern: None,
        stateful: false,
        non_computational: true,
        type_rel: "QnnElementwiseUnaryFuncRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "qnn.sigmoid",
        num_inputs: 5,
        pattern: None,
        stateful: false,
        non_computational: true,
        type_rel: "QnnElementwiseUnaryFuncRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "qnn.simulated_dequantize",
        num_inputs: 4,
        pattern: None,
        stateful: false,
        non_computational: false,
        type_rel: "SimulatedDequantizeRel",
        attrs_type_key: Some("relay.attrs.DequantizeAttrs"),
        schema: Some(&DEQUANTIZE_ATTRS),
    },
    OpDef {
        name: "qnn.simulated_quantize",
        num_inputs: 4,
        pattern: None,
        stateful: false,
        non_computational: false,
        type_rel: "SimulatedQuantizeRel",
        attrs_type_key: Some("relay.attrs.SimulatedQuantizeAttrs"),
        schema: Some(&SIMULATED_QUANTIZE_ATTRS),
    },
    OpDef {
        name: "qnn.softmax",
        num_inputs: 5,
        pattern: None,
        stateful: false,
        non_computational: true,
        type_rel: "QnnSoftmaxRel",
        attrs_type_key: Some("relay.attrs.SoftmaxAttrs"),
        schema: Some(&SOFTMAX_ATTRS),
    },
    OpDef {
        name: "qnn.sqrt",
        num_inputs: 5,
        pattern: None,
        stateful: false,
        non_computational: true,
        type_rel: "QnnElementwiseUnaryFuncRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "qnn.subtract",
        num_inputs: 8,
        pattern: Some(OpPattern::Broadcast),
        stateful: false,
        non_computational: true,
        type_rel: "QnnBroadcastRel",
        attrs_type_key: Some("relay.attrs.BroadcastAttrs"),
        schema: Some(&QNN_BROADCAST_ATTRS),
    },
    OpDef {
        name: "qnn.tanh",
        num_inputs: 5,
        pattern: None,
        stateful: false,
        non_computational: true,
        type_rel: "QnnElementwiseUnaryFuncRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "random.multinomial",
        num_inputs: 2,
        pattern: Some(OpPattern::Opaque),
        stateful: false,
        non_computational: false,
        type_rel: "MultinomialRel",
        attrs_type_key: Some("relay.attrs.MultinomialAttrs"),
        schema: None,
    },
    OpDef {
        name: "random.normal",
        num_inputs: 3,
        pattern: Some(OpPattern::Opaque),
        stateful: false,
        non_computational: false,
        type_rel: "NormalRel",
        attrs_type_key: Some("relay.attrs.NormalAttrs"),
        schema: None,
    },
    OpDef {
        name: "random.threefry_generate",
        num_inputs: 1,
        pattern: Some(OpPattern::Opaque),
        stateful: false,
        non_computational: false,
        type_rel: "ThreefryGenerateRel",
        attrs_type_key: Some("relay.attrs.ThreefryGenerateAttrs"),
        schema: None,
    },
    OpDef {
        name: "random.threefry_split",
        num_inputs: 1,
        pattern: Some(OpPattern::Opaque),
        stateful: false,
        non_computational: false,
        type_rel: "ThreefrySplitRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "random.uniform",
        num_inputs: 3,
        pattern: Some(OpPattern::Opaque),
        stateful: false,
        non_computational: false,
        type_rel: "UniformRel",
        attrs_type_key: Some("relay.attrs.UniformAttrs"),
        schema: None,
    },
    OpDef {
        name: "reinterpret",
        num_inputs: 1,
        pattern: Some(OpPattern::ElemWise),
        stateful: false,
        non_computational: false,
        type_rel: "CastRel",
        attrs_type_key: Some("relay.attrs.CastAttrs"),
        schema: Some(&CAST_ATTRS),
    },
    OpDef {
        name: "relay.op.annotation.simulated_quantize",
        num_inputs: 4,
        pattern: None,
        stateful: false,
        non_computational: false,
        type_rel: "SimulatedQuantizeRel",
        attrs_type_key: Some("relay.attrs.SimulatedQuantizeAttrs"),
        schema: None,
    },
    OpDef {
        name: "repeat",
        num_inputs: 1,
        pattern: Some(OpPattern::Broadcast),
        stateful: false,
        non_computational: false,
        type_rel: "RepeatRel",
        attrs_type_key: Some("relay.attrs.RepeatAttrs"),
        schema: Some(&REPEAT_ATTRS),
    },
    OpDef {
        name: "reshape",
        num_inputs: 1,
        pattern: Some(OpPattern::Injective),
        stateful: false,
        non_computational: false,
        type_rel: "ReshapeRel",
        attrs_type_key: Some("relay.attrs.ReshapeAttrs"),
        schema: Some(&RESHAPE_ATTRS),
    },
    OpDef {
        name: "reshape_like",
        num_inputs: 2,
        pattern: Some(OpPattern::Injective),
        stateful: false,
        non_computational: false,
        type_rel: "ReshapeLikeRel",
        attrs_type_key: Some("relay.attrs.ReshapeLikeAttrs"),
        schema: Some(&RESHAPE_LIKE_ATTRS),
    },
    OpDef {
        name: "reverse",
        num_inputs: 1,
        pattern: Some(OpPattern::Injective),
        stateful: false,
        non_computational: false,
        type_rel: "ReverseRel",
        attrs_type_key: Some("relay.attrs.ReverseAttrs"),
        schema: Some(&REVERSE_ATTRS),
    },
    OpDef {
        name: "reverse_sequence",
        num_inputs: 2,
        pattern: Some(OpPattern::Injective),
        stateful: false,
        non_computational: false,
        type_rel: "ReverseSequenceRel",
        attrs_type_key: Some("relay.attrs.ReverseSequenceAttrs"),
        schema: Some(&REVERSE_SEQUENCE_ATTRS),
    },
    OpDef {
        name: "right_shift",
        num_inputs: 2,
        pattern: Some(OpPattern::Broadcast),
        stateful: false,
        non_computational: false,
        type_rel: "BroadcastRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "round",
        num_inputs: 1,
        pattern: Some(OpPattern::ElemWise),
        stateful: false,
        non_computational: false,
        type_rel: "IdentityRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "rsqrt",
        num_inputs: 1,
        pattern: Some(OpPattern::ElemWise),
        stateful: false,
        non_computational: false,
        type_rel: "IdentityRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "scatter_elements",
        num_inputs: 3,
        pattern: Some(OpPattern::Opaque),
        stateful: false,
        non_computational: false,
        type_rel: "ScatterElementsRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "scatter_nd",
        num_inputs: 3,
        pattern: Some(OpPattern::Opaque),
        stateful: false,
        non_computational: false,
        type_rel: "ScatterNDRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "searchsorted",
        num_inputs: 2,
        pattern: Some(OpPattern::Opaque),
        stateful: false,
        non_computational: false,
        type_rel: "SearchSortedRel",
        attrs_type_key: Some("relay.attrs.SearchSortedAttrs"),
        schema: None,
    },
    OpDef {
        name: "sequence_mask",
        num_inputs: 2,
        pattern: Some(OpPattern::Injective),
        stateful: false,
        non_computational: false,
        type_rel: "SequenceMaskRel",
        attrs_type_key: Some("relay.attrs.SequenceMaskAttrs"),
        schema: Some(&SEQUENCE_MASK_ATTRS),
    },
    OpDef {
        name: "shape_of",
        num_inputs: 1,
        pattern: Some(OpPattern::Opaque),
        stateful: false,
        non_computational: false,
        type_rel: "ShapeOfRel",
        attrs_type_key: Some("relay.attrs.ShapeOfAttrs"),
        schema: Some(&SHAPE_OF_ATTRS),
    },
    OpDef {
        name: "sigmoid",
        num_inputs: 1,
        pattern: Some(OpPattern::ElemWise),
        stateful: false,
        non_computational: false,
        type_rel: "IdentityRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "sign",
        num_inputs: 1,
        pattern: Some(OpPattern::ElemWise),
        stateful: false,
        non_computational: false,
        type_rel: "IdentityRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "sin",
        num_inputs: 1,
        pattern: Some(OpPattern::ElemWise),
        stateful: false,
        non_computational: false,
        type_rel: "IdentityRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "sinh",
        num_inputs: 1,
        pattern: Some(OpPattern::ElemWise),
        stateful: false,
        non_computational: false,
        type_rel: "IdentityRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "slice_like",
        num_inputs: 2,
        pattern: Some(OpPattern::Injective),
        stateful: false,
        non_computational: false,
        type_rel: "SliceLikeRel",
        attrs_type_key: Some("relay.attrs.SliceLikeAttrs"),
        schema: Some(&SLICE_LIKE_ATTRS),
    },
    OpDef {
        name: "sliding_window",
        num_inputs: 1,
        pattern: Some(OpPattern::Opaque),
        stateful: false,
        non_computational: false,
        type_rel: "SlidingWindowRel",
        attrs_type_key: Some("relay.attrs.SlidingWindowAttrs"),
        schema: Some(&SLIDING_WINDOW_ATTRS),
    },
    OpDef {
        name: "sort",
        num_inputs: 1,
        pattern: Some(OpPattern::Opaque),
        stateful: false,
        non_computational: false,
        type_rel: "SortRel",
        attrs_type_key: Some("relay.attrs.ArgsortAttrs"),
        schema: None,
    },
    OpDef {
        name: "sparse_fill_empty_rows",
        num_inputs: 4,
        pattern: Some(OpPattern::Opaque),
        stateful: false,
        non_computational: false,
        type_rel: "SparseFillEmptyRowsRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "sparse_reshape",
        num_inputs: 3,
        pattern: Some(OpPattern::Injective),
        stateful: false,
        non_computational: false,
        type_rel: "SparseReshapeRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "sparse_to_dense",
        num_inputs: 3,
        pattern: Some(OpPattern::Opaque),
        stateful: false,
        non_computational: false,
        type_rel: "SparseToDenseRel",
        attrs_type_key: Some("relay.attrs.SparseToDenseAttrs"),
        schema: Some(&SPARSE_TO_DENSE_ATTRS),
    },
    OpDef {
        name: "split",
        num_inputs: 1,
        pattern: Some(OpPattern::Injective),
        stateful: false,
        non_computational: false,
        type_rel: "SplitRel",
        attrs_type_key: Some("relay.attrs.SplitAttrs"),
        schema: Some(&SPLIT_ATTRS),
    },
    OpDef {
        name: "sqrt",
        num_inputs: 1,
        pattern: Some(OpPattern::ElemWise),
        stateful: false,
        non_computational: false,
        type_rel: "IdentityRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "squeeze",
        num_inputs: 1,
        pattern: Some(OpPattern::Injective),
        stateful: false,
        non_computational: false,
        type_rel: "SqueezeRel",
        attrs_type_key: Some("relay.attrs.SqueezeAttrs"),
        schema: Some(&SQUEEZE_ATTRS),
    },
    OpDef {
        name: "stack",
        num_inputs: 1,
        pattern: Some(OpPattern::Injective),
        stateful: false,
        non_computational: false,
        type_rel: "StackRel",
        attrs_type_key: Some("relay.attrs.StackAttrs"),
        schema: Some(&STACK_ATTRS),
    },
    OpDef {
        name: "stft",
        num_inputs: 2,
        pattern: Some(OpPattern::Opaque),
        stateful: false,
        non_computational: false,
        type_rel: "STFTRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "strided_set",
        num_inputs: 5,
        pattern: Some(OpPattern::Injective),
        stateful: false,
        non_computational: false,
        type_rel: "StridedSetRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "strided_slice",
        num_inputs: 1,
        pattern: Some(OpPattern::Injective),
        stateful: false,
        non_computational: false,
        type_rel: "StridedSliceRel",
        attrs_type_key: Some("relay.attrs.StridedSliceAttrs"),
        schema: Some(&STRIDED_SLICE_ATTRS),
    },
    OpDef {
        name: "subtract",
        num_inputs: 2,
        pattern: Some(OpPattern::Broadcast),
        stateful: false,
        non_computational: false,
        type_rel: "BroadcastRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "sum",
        num_inputs: 1,
        pattern: Some(OpPattern::CommReduce),
        stateful: false,
        non_computational: false,
        type_rel: "ReduceRel",
        attrs_type_key: Some("relay.attrs.ReduceAttrs"),
        schema: Some(&REDUCE_ATTRS),
    },
    OpDef {
        name: "take",
        num_inputs: 2,
        pattern: Some(OpPattern::Injective),
        stateful: false,
        non_computational: false,
        type_rel: "TakeRel",
        attrs_type_key: Some("relay.attrs.TakeAttrs"),
        schema: Some(&TAKE_ATTRS),
    },
    OpDef {
        name: "tan",
        num_inputs: 1,
        pattern: Some(OpPattern::ElemWise),
        stateful: false,
        non_computational: false,
        type_rel: "IdentityRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "tanh",
        num_inputs: 1,
        pattern: Some(OpPattern::ElemWise),
        stateful: false,
        non_computational: false,
        type_rel: "IdentityRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "tile",
        num_inputs: 1,
        pattern: Some(OpPattern::Broadcast),
        stateful: false,
        non_computational: false,
        type_rel: "TileRel",
        attrs_type_key: Some("relay.attrs.TileAttrs"),
        schema: Some(&TILE_ATTRS),
    },
    OpDef {
        name: "topk",
        num_inputs: 1,
        pattern: Some(OpPattern::Opaque),
        stateful: false,
        non_computational: false,
        type_rel: "TopKRel",
        attrs_type_key: Some("relay.attrs.TopkAttrs"),
        schema: Some(&TOPK_ATTRS),
    },
    OpDef {
        name: "torch_op",
        num_inputs: -1,
        pattern: None,
        stateful: false,
        non_computational: false,
        type_rel: "TorchOpRel",
        attrs_type_key: Some("relay.attrs.TorchFunctionAttrs"),
        schema: None,
    },
    OpDef {
        name: "transpose",
        num_inputs: 1,
        pattern: Some(OpPattern::Injective),
        stateful: false,
        non_computational: false,
        type_rel: "TransposeRel",
        attrs_type_key: Some("relay.attrs.TransposeAttrs"),
        schema: Some(&TRANSPOSE_ATTRS),
    },
    OpDef {
        name: "trilu",
        num_inputs: 2,
        pattern: Some(OpPattern::ElemWise),
        stateful: false,
        non_computational: false,
        type_rel: "TriluRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "trunc",
        num_inputs: 1,
        pattern: Some(OpPattern::ElemWise),
        stateful: false,
        non_computational: false,
        type_rel: "IdentityRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "trunc_divide",
        num_inputs: 2,
        pattern: Some(OpPattern::Broadcast),
        stateful: false,
        non_computational: false,
        type_rel: "BroadcastRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "trunc_mod",
        num_inputs: 2,
        pattern: Some(OpPattern::Broadcast),
        stateful: false,
        non_computational: false,
        type_rel: "BroadcastRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "unique",
        num_inputs: 1,
        pattern: Some(OpPattern::Opaque),
        stateful: false,
        non_computational: false,
        type_rel: "UniqueRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "unravel_index",
        num_inputs: 2,
        pattern: Some(OpPattern::Injective),
        stateful: false,
        non_computational: false,
        type_rel: "UnRavelIndexRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "variance",
        num_inputs: 2,
        pattern: Some(OpPattern::CommReduce),
        stateful: false,
        non_computational: false,
        type_rel: "VarianceRel",
        attrs_type_key: Some("relay.attrs.VarianceAttrs"),
        schema: Some(&VARIANCE_ATTRS),
    },
    OpDef {
        name: "vision.all_class_non_max_suppression",
        num_inputs: 5,
        pattern: Some(OpPattern::Opaque),
        stateful: false,
        non_computational: false,
        type_rel: "AllClassNMSRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "vision.get_valid_counts",
        num_inputs: 2,
        pattern: Some(OpPattern::Opaque),
        stateful: false,
        non_computational: false,
        type_rel: "GetValidCountRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "vision.multibox_prior",
        num_inputs: 1,
        pattern: Some(OpPattern::Opaque),
        stateful: false,
        non_computational: false,
        type_rel: "MultiboxPriorRel",
        attrs_type_key: Some("relay.attrs.MultiBoxPriorAttrs"),
        schema: None,
    },
    OpDef {
        name: "vision.multibox_transform_loc",
        num_inputs: 3,
        pattern: Some(OpPattern::Opaque),
        stateful: false,
        non_computational: false,
        type_rel: "MultiBoxTransformLocRel",
        attrs_type_key: Some("relay.attrs.MultiBoxTransformLocAttrs"),
        schema: None,
    },
    OpDef {
        name: "vision.non_max_suppression",
        num_inputs: 5,
        pattern: Some(OpPattern::Opaque),
        stateful: false,
        non_computational: false,
        type_rel: "NMSRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "vision.proposal",
        num_inputs: 3,
        pattern: Some(OpPattern::Opaque),
        stateful: false,
        non_computational: false,
        type_rel: "ProposalRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "vision.regular_non_max_suppression",
        num_inputs: 2,
        pattern: Some(OpPattern::Opaque),
        stateful: false,
        non_computational: false,
        type_rel: "RegularNMSRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "vision.roi_align",
        num_inputs: 2,
        pattern: Some(OpPattern::OutEWiseFusable),
        stateful: false,
        non_computational: false,
        type_rel: "ROIAlignRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "vision.roi_pool",
        num_inputs: 2,
        pattern: Some(OpPattern::OutEWiseFusable),
        stateful: false,
        non_computational: false,
        type_rel: "ROIPoolRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "vision.yolo_reorg",
        num_inputs: 1,
        pattern: Some(OpPattern::Injective),
        stateful: false,
        non_computational: false,
        type_rel: "YoloReorgRel",
        attrs_type_key: Some("relay.attrs.YoloReorgAttrs"),
        schema: None,
    },
    OpDef {
        name: "vm.invoke_tvm_op",
        num_inputs: 3,
        pattern: Some(OpPattern::Opaque),
        stateful: true,
        non_computational: true,
        type_rel: "InvokeTVMOpRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "vm.reshape_tensor",
        num_inputs: 2,
        pattern: Some(OpPattern::Opaque),
        stateful: false,
        non_computational: true,
        type_rel: "ReshapeTensorRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "vm.shape_of",
        num_inputs: 1,
        pattern: Some(OpPattern::Opaque),
        stateful: false,
        non_computational: true,
        type_rel: "ShapeOfRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "where",
        num_inputs: 3,
        pattern: Some(OpPattern::Broadcast),
        stateful: false,
        non_computational: false,
        type_rel: "WhereRel",
        attrs_type_key: None,
        schema: None,
    },
    OpDef {
        name: "zeros",
        num_inputs: 0,
        pattern: Some(OpPattern::ElemWise),
        stateful: false,
        non_computational: false,
        type_rel: "InitOpRel",
        attrs_type_key: Some("relay.attrs.InitOpAttrs"),
        schema: Some(&INIT_OP_ATTRS),
    },
    OpDef {
        name: "zeros_like",
        num_inputs: 1,
        pattern: Some(OpPattern::ElemWise),
        stateful: false,
        non_computational: false,
        type_rel: "IdentityRel",
        attrs_type_key: None,
        schema: None,
    },
];
