//! The passes, one file each, and [`BUILTIN_PASSES`]: the one table of pass names. Every
//! registered pass is a row here (name, kind, opt_level, required, summary, options,
//! constructor); the registry, `required` lookup, listings, help and "did you mean" all read
//! this table. To add a pass: write `passes/<name>.rs` with a `create(&PassOptions)` function
//! and add its row.

pub mod alter_op_layout;
pub mod annotate_spans;
pub mod build_pipeline;
pub mod canonicalize_cast;
pub mod canonicalize_ops;
pub mod combine_parallel;
pub mod convert_layout;
pub mod dead_code;
pub mod dynamic_to_static;
pub mod eliminate_common_subexpr;
pub mod fast_math;
pub mod fold_constant;
pub mod fold_scale_axis;
pub mod fuse_ops;
pub mod infer_type;
pub mod inline_globals;
pub mod jump_tree;
pub mod lambda_lift;
pub mod layout_rewrite;
pub mod print_ir;
pub mod remove_unused_functions;
pub mod rewrite_rule;
pub mod simplify_expr;
pub mod simplify_inference;
pub mod standard;
pub mod subst;
pub mod to_a_normal_form;
pub mod to_graph_normal_form;
pub mod typed;

use crate::pass::config::ConfigType;
use crate::pass::registry::{OptionSpec, PassEntry};
use crate::pass::{PassInfo, PassKind, Registry};

/// A registry holding the built-in passes (what `PassManager::new` is usually given).
pub fn registry() -> Registry {
    Registry::from_entries(BUILTIN_PASSES)
}

/// The [`PassInfo`] of the built-in pass `name` as its row of [`BUILTIN_PASSES`] states it
/// (kind, opt_level, required): the constructors build their passes with it, so the table is
/// the one place these are written. A name without a row (a programming error, which a test
/// rules out for every row's constructor) gets a plain level-0 module pass's info.
pub fn builtin_info(name: &str) -> PassInfo {
    match BUILTIN_PASSES.iter().find(|e| e.name == name) {
        Some(e) => PassInfo::with_kind(e.name, e.opt_level, e.required, e.kind),
        None => PassInfo::new(name, 0),
    }
}

/// The `min_num_branches` option of the CombineParallel passes.
const MIN_NUM_BRANCHES: OptionSpec = OptionSpec {
    name: "min_num_branches",
    ty: ConfigType::Int,
    doc: "the fewest parallel branches a group needs to be combined (default 3)",
};

/// The built-in passes.
pub static BUILTIN_PASSES: &[PassEntry] = &[
    PassEntry {
        name: "InferType",
        kind: PassKind::Module,
        opt_level: 0,
        required: &[],
        summary: "infer the type of every expression (fills parameter and return annotations)",
        options: &[],
        constructor: infer_type::create,
    },
    PassEntry {
        name: "AnnotateSpans",
        kind: PassKind::Module,
        opt_level: 0,
        required: &[],
        summary: "print the module and parse it back, so every node has a span into the text",
        options: &[],
        constructor: standard::annotate_spans,
    },
    PassEntry {
        name: "PrintIR",
        kind: PassKind::Module,
        opt_level: 0,
        required: &[],
        summary: "print the module to the output (with a header) and return it unchanged",
        options: &[OptionSpec {
            name: "header",
            ty: ConfigType::Str,
            doc: "text printed after `PrintIR(`",
        }],
        constructor: print_ir::create,
    },
    PassEntry {
        name: "FoldConstant",
        kind: PassKind::Function,
        opt_level: 2,
        required: &[],
        summary: "evaluate calls whose arguments are all constants",
        options: &[OptionSpec {
            name: "fold_qnn",
            ty: ConfigType::Bool,
            doc: "also fold QNN ops, computed as TVM's QNN canonicalization lowers them",
        }],
        constructor: standard::fold_constant,
    },
    PassEntry {
        name: "DynamicToStatic",
        kind: PassKind::Function,
        opt_level: 2,
        required: &[],
        summary: "turn dyn.* calls whose shape arguments are constants into static ops",
        options: &[],
        constructor: standard::dynamic_to_static,
    },
    PassEntry {
        name: "DeadCodeElimination",
        kind: PassKind::Module,
        opt_level: 1,
        required: &["InferType"],
        summary: "remove unused pure let bindings (and inline single-use ones with inline_once)",
        options: &[
            OptionSpec {
                name: "inline_once",
                ty: ConfigType::Bool,
                doc: "inline bindings used exactly once",
            },
            OptionSpec {
                name: "ignore_impurity",
                ty: ConfigType::Bool,
                doc: "treat every binding as pure",
            },
        ],
        constructor: standard::dead_code_elimination,
    },
    PassEntry {
        name: "EliminateCommonSubexpr",
        kind: PassKind::Function,
        opt_level: 3,
        required: &["InferType"],
        summary: "merge identical calls (same op, attributes and arguments)",
        options: &[OptionSpec {
            name: "skip_ops",
            ty: ConfigType::StrList,
            doc: "ops whose calls are left alone (TVM's fskip), e.g. [\"add\"]",
        }],
        constructor: standard::eliminate_common_subexpr,
    },
    PassEntry {
        name: "ToANormalForm",
        kind: PassKind::Module,
        opt_level: 1,
        required: &[],
        summary: "let-bind every non-atomic subexpression",
        options: &[],
        constructor: standard::to_a_normal_form,
    },
    PassEntry {
        name: "ToGraphNormalForm",
        kind: PassKind::Function,
        opt_level: 1,
        required: &[],
        summary: "turn let bindings back into dataflow",
        options: &[],
        constructor: standard::to_graph_normal_form,
    },
    PassEntry {
        name: "SimplifyInference",
        kind: PassKind::Function,
        opt_level: 0,
        required: &["InferType"],
        summary: "decompose batch_norm, layer_norm and friends; drop dropout",
        options: &[],
        constructor: standard::simplify_inference,
    },
    PassEntry {
        name: "SimplifyExpr",
        kind: PassKind::Function,
        opt_level: 0,
        required: &["InferType"],
        summary: "algebraic simplifications: reshape/transpose/cast chains, identities, *_like ops",
        options: &[],
        constructor: standard::simplify_expr,
    },
    PassEntry {
        name: "SimplifyExprPostAlterOp",
        kind: PassKind::Function,
        opt_level: 0,
        required: &["InferType"],
        summary: "SimplifyExpr's identity, reshape, cast and clip rewrites (after AlterOpLayout)",
        options: &[],
        constructor: standard::simplify_expr_post_alter_op,
    },
    PassEntry {
        name: "FastMath",
        kind: PassKind::Function,
        opt_level: 4,
        required: &["InferType"],
        summary: "replace exp, erf, tanh and softmax with their fast approximations",
        options: &[],
        constructor: standard::fast_math,
    },
    PassEntry {
        name: "CombineParallelConv2D",
        kind: PassKind::Function,
        opt_level: 4,
        required: &["InferType"],
        summary: "combine conv2d calls on one input (and what follows them alike) into one conv2d",
        options: &[MIN_NUM_BRANCHES],
        constructor: combine_parallel::create_conv2d,
    },
    PassEntry {
        name: "CombineParallelDense",
        kind: PassKind::Function,
        opt_level: 4,
        required: &["InferType"],
        summary: "combine dense calls on one input into one batch_matmul (or one dense)",
        options: &[
            MIN_NUM_BRANCHES,
            OptionSpec {
                name: "to_batch",
                ty: ConfigType::Bool,
                doc: "combine into a batch_matmul over stacked operands (true, the default) or \
                      into one dense over concatenated weights (false)",
            },
        ],
        constructor: combine_parallel::create_dense,
    },
    PassEntry {
        name: "CombineParallelBatchMatmul",
        kind: PassKind::Function,
        opt_level: 4,
        required: &["InferType"],
        summary: "combine batch_matmul calls on one left operand into one batch_matmul",
        options: &[MIN_NUM_BRANCHES],
        constructor: combine_parallel::create_batch_matmul,
    },
    PassEntry {
        name: "CanonicalizeCast",
        kind: PassKind::Function,
        opt_level: 3,
        required: &["InferType"],
        summary: "copy an upcast used by several elementwise calls, one copy per use, for fusion",
        options: &[],
        constructor: standard::canonicalize_cast,
    },
    PassEntry {
        name: "CanonicalizeOps",
        kind: PassKind::Function,
        opt_level: 3,
        required: &["InferType"],
        summary: "rewrite nn.bias_add into add with expand_dims",
        options: &[],
        constructor: standard::canonicalize_ops,
    },
    PassEntry {
        name: "FuseOps",
        kind: PassKind::Function,
        opt_level: 0,
        required: &["InferType"],
        summary: "fuse ops into Primitive functions by op pattern and post-dominance",
        options: &[OptionSpec {
            name: "fuse_opt_level",
            ty: ConfigType::Int,
            doc: "fusion level (-1: the context's opt_level; 0: one op per function)",
        }],
        constructor: fuse_ops::create,
    },
    PassEntry {
        name: "BackwardFoldScaleAxis",
        kind: PassKind::Function,
        opt_level: 3,
        required: &["InferType"],
        summary: "fold a per-channel multiply after a conv/dense into its weights",
        options: &[],
        constructor: fold_scale_axis::create_backward,
    },
    PassEntry {
        name: "ForwardFoldScaleAxis",
        kind: PassKind::Function,
        opt_level: 3,
        required: &["InferType"],
        summary: "fold a per-channel multiply before a conv/dense into its weights",
        options: &[],
        constructor: fold_scale_axis::create_forward,
    },
    PassEntry {
        name: "FoldScaleAxis",
        kind: PassKind::Sequential,
        opt_level: 0,
        required: &[],
        summary: "Sequential of BackwardFoldScaleAxis, ForwardFoldScaleAxis and FoldConstant",
        options: &[],
        constructor: fold_scale_axis::create,
    },
    PassEntry {
        name: "ConvertLayout",
        kind: PassKind::Function,
        opt_level: 3,
        required: &["InferType", "CanonicalizeOps"],
        summary: "convert ops to desired data/kernel layouts, inserting layout_transform",
        options: &[OptionSpec {
            name: "desired_layouts",
            ty: ConfigType::StrListMap,
            doc: "op name -> [data_layout, kernel_layout], e.g. {\"nn.conv2d\": [\"NCHW\", \"default\"]}",
        }, OptionSpec {
            name: "skip_layers",
            ty: ConfigType::IntList,
            doc: "the nn.conv2d / nn.deformable_conv2d calls to leave unconverted, numbered from 0 in each function (TVM's LayoutConfig)",
        }],
        constructor: convert_layout::create,
    },
    PassEntry {
        name: "AlterOpLayout",
        kind: PassKind::Function,
        opt_level: 3,
        required: &["InferType"],
        summary: "apply each op's alter-layout hook (none without a target: unchanged)",
        options: &[OptionSpec {
            name: "alter_attrs",
            ty: ConfigType::MapMap,
            doc: "op name -> the attributes its calls take, e.g. {\"nn.conv2d\": {\"data_layout\": \"NCHW16c\"}} (an alter-layout hook)",
        }, OptionSpec {
            name: "alter_rewrite",
            ty: ConfigType::StrListMap,
            doc: "op name -> rewrite rules replacing its calls, e.g. {\"nn.conv2d\": [\"nn.conv2d(?d, ?w) => nn.conv2d(?d, multiply(?w, 2f))\"]} (an alter-layout hook that builds other ops)",
        }],
        constructor: alter_op_layout::create,
    },
    PassEntry {
        name: "LambdaLift",
        kind: PassKind::Module,
        opt_level: 1,
        required: &[],
        summary: "lift nested functions to global functions (closures capture free variables)",
        options: &[],
        constructor: lambda_lift::create,
    },
    PassEntry {
        name: "InlineGlobals",
        kind: PassKind::Module,
        opt_level: 1,
        required: &[],
        summary: "inline global functions marked Inline=1 into their callers (TVM's Inline())",
        options: &[],
        constructor: inline_globals::create,
    },
    PassEntry {
        name: "RemoveUnusedFunctions",
        kind: PassKind::Module,
        opt_level: 1,
        required: &[],
        summary: "remove global functions not reachable from the entry functions",
        options: &[OptionSpec {
            name: "entry_functions",
            ty: ConfigType::StrList,
            doc: "the functions to keep with everything they reach (default [\"main\"])",
        }],
        constructor: remove_unused_functions::create,
    },
];
