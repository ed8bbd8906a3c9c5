//! The pass registry: construction by name with keyword options, "did you mean" for unknown
//! names and options, user passes found by name and by `required` lists.

mod common;

use common::pass_lab::*;
use expect_test::expect;
use passlab::pass::ConfigValue;
use passlab::pass::{PassKind, PassOptions};

fn describe(r: Result<passlab::pass::Pass, passlab::pass::PassError>) -> String {
    match r {
        Ok(p) => format!(
            "ok: {} ({}, opt_level {})",
            p.name(),
            p.kind(),
            p.info().opt_level()
        ),
        Err(e) => format!("error: {e}"),
    }
}

#[test]
fn passes_are_built_by_name_with_checked_options() {
    let reg = passlab::passes::registry();
    let cases = [
        ("PrintIR", PassOptions::new()),
        ("PrintIR", PassOptions::new().with("header", "x")),
        ("PrintIr", PassOptions::new()),
        ("FoldConstantt", PassOptions::new()),
        ("PrintIR", PassOptions::new().with("heder", "x")),
        ("PrintIR", PassOptions::new().with("header", 3)),
        (
            "PrintIR",
            PassOptions::new().with("header", "a").with("header", "b"),
        ),
    ];
    let out: Vec<String> = cases
        .into_iter()
        .map(|(name, opts)| format!("{name}: {}", describe(reg.create(name, &opts))))
        .collect();
    expect![[r#"
        PrintIR: ok: PrintIR (module, opt_level 0)
        PrintIR: ok: PrintIR (module, opt_level 0)
        PrintIr: error: unknown pass PrintIr; did you mean PrintIR?
        FoldConstantt: error: unknown pass FoldConstantt; did you mean FoldConstant?
        PrintIR: error: PrintIR: unknown option heder (did you mean header?); known options: header
        PrintIR: error: PrintIR: option header expects str, got int
        PrintIR: error: PrintIR: option header given twice
    "#]]
    .assert_eq(&(out.join("\n") + "\n"));
}

#[test]
fn the_table_lists_every_builtin_pass() {
    let reg = passlab::passes::registry();
    let rows: Vec<String> = reg
        .entries()
        .iter()
        .map(|e| {
            let opts: Vec<String> = e
                .options
                .iter()
                .map(|o| format!("{}: {}", o.name, o.ty))
                .collect();
            format!(
                "{} {} opt_level={} required={:?} options=[{}] - {}",
                e.name,
                e.kind,
                e.opt_level,
                e.required,
                opts.join(", "),
                e.summary
            )
        })
        .collect();
    expect![[r#"
        AlterOpLayout function opt_level=3 required=["InferType"] options=[alter_attrs: dict of str to dict, alter_rewrite: dict of str to list of str] - apply each op's alter-layout hook (none without a target: unchanged)
        AnnotateSpans module opt_level=0 required=[] options=[] - print the module and parse it back, so every node has a span into the text
        BackwardFoldScaleAxis function opt_level=3 required=["InferType"] options=[] - fold a per-channel multiply after a conv/dense into its weights
        CanonicalizeCast function opt_level=3 required=["InferType"] options=[] - copy an upcast used by several elementwise calls, one copy per use, for fusion
        CanonicalizeOps function opt_level=3 required=["InferType"] options=[] - rewrite nn.bias_add into add with expand_dims
        CombineParallelBatchMatmul function opt_level=4 required=["InferType"] options=[min_num_branches: int] - combine batch_matmul calls on one left operand into one batch_matmul
        CombineParallelConv2D function opt_level=4 required=["InferType"] options=[min_num_branches: int] - combine conv2d calls on one input (and what follows them alike) into one conv2d
        CombineParallelDense function opt_level=4 required=["InferType"] options=[min_num_branches: int, to_batch: bool] - combine dense calls on one input into one batch_matmul (or one dense)
        ConvertLayout function opt_level=3 required=["InferType", "CanonicalizeOps"] options=[desired_layouts: dict of str to list of str, skip_layers: list of int] - convert ops to desired data/kernel layouts, inserting layout_transform
        DeadCodeElimination module opt_level=1 required=["InferType"] options=[inline_once: bool, ignore_impurity: bool] - remove unused pure let bindings (and inline single-use ones with inline_once)
        DynamicToStatic function opt_level=2 required=[] options=[] - turn dyn.* calls whose shape arguments are constants into static ops
        EliminateCommonSubexpr function opt_level=3 required=["InferType"] options=[skip_ops: list of str] - merge identical calls (same op, attributes and arguments)
        FastMath function opt_level=4 required=["InferType"] options=[] - replace exp, erf, tanh and softmax with their fast approximations
        FoldConstant function opt_level=2 required=[] options=[fold_qnn: bool] - evaluate calls whose arguments are all constants
        FoldScaleAxis sequential opt_level=0 required=[] options=[] - Sequential of BackwardFoldScaleAxis, ForwardFoldScaleAxis and FoldConstant
        ForwardFoldScaleAxis function opt_level=3 required=["InferType"] options=[] - fold a per-channel multiply before a conv/dense into its weights
        FuseOps function opt_level=0 required=["InferType"] options=[fuse_opt_level: int] - fuse ops into Primitive functions by op pattern and post-dominance
        InferType module opt_level=0 required=[] options=[] - infer the type of every expression (fills parameter and return annotations)
        InlineGlobals module opt_level=1 required=[] options=[] - inline global functions marked Inline=1 into their callers (TVM's Inline())
        LambdaLift module opt_level=1 required=[] options=[] - lift nested functions to global functions (closures capture free variables)
        PrintIR module opt_level=0 required=[] options=[header: str] - print the module to the output (with a header) and return it unchanged
        RemoveUnusedFunctions module opt_level=1 required=[] options=[entry_functions: list of str] - remove global functions not reachable from the entry functions
        SimplifyExpr function opt_level=0 required=["InferType"] options=[] - algebraic simplifications: reshape/transpose/cast chains, identities, *_like ops
        SimplifyExprPostAlterOp function opt_level=0 required=["InferType"] options=[] - SimplifyExpr's identity, reshape, cast and clip rewrites (after AlterOpLayout)
        SimplifyInference function opt_level=0 required=["InferType"] options=[] - decompose batch_norm, layer_norm and friends; drop dropout
        ToANormalForm module opt_level=1 required=[] options=[] - let-bind every non-atomic subexpression
        ToGraphNormalForm function opt_level=1 required=[] options=[] - turn let bindings back into dataflow
    "#]]
    .assert_eq(&(rows.join("\n") + "\n"));
    // The table's metadata agrees with the passes it builds.
    for e in reg.entries() {
        // ConvertLayout, like TVM's, cannot be built without its desired layouts.
        let opts = if &*e.name == "ConvertLayout" {
            PassOptions::new().with(
                "desired_layouts",
                ConfigValue::Map(vec![(
                    "nn.conv2d".into(),
                    ConfigValue::List(vec![ConfigValue::Str("NCHW".into())]),
                )]),
            )
        } else {
            PassOptions::new()
        };
        let p = reg.create(&e.name, &opts).unwrap();
        assert_eq!(p.name(), &*e.name);
        assert_eq!(p.info().opt_level(), e.opt_level);
        assert_eq!(p.kind(), e.kind);
        assert_eq!(p.info().required(), &e.required[..]);
    }
}

#[test]
fn user_passes_are_registered_per_session() {
    let mut lab = Lab::new();
    let replaced = lab.pm.register(marker("Mine", 1, &[]), "my pass");
    assert!(!replaced);
    assert!(lab.pm.register(marker("Mine", 2, &[]), "my pass, again"));
    let e = lab.pm.registry().get("Mine").unwrap();
    assert!(e.user);
    assert_eq!((e.kind, e.opt_level), (PassKind::Module, 2));
    // Found by name and by required lists, in this session only.
    let p = lab.pm.create("Mine", &PassOptions::new()).unwrap();
    lab.pm.run(&p, &module()).unwrap();
    lab.pm
        .run(&seq("s", 0, vec![marker("A", 0, &["Mine"])]), &module())
        .unwrap();
    assert_eq!(lab.log(), "[body] Mine\n[body] Mine\n[body] A\n");
    let other = Lab::new();
    assert!(other.pm.create("Mine", &PassOptions::new()).is_err());
    // Options are refused for passes registered by value.
    let err = lab
        .pm
        .create("Mine", &PassOptions::new().with("x", 1))
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "Mine: unknown option x; Mine takes no options"
    );
}
