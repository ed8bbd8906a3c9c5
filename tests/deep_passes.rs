//! Every pass is stack-safe on a million-deep let chain, on a thread with a 2 MiB stack; one
//! module per group of passes.

mod common;

mod standard_passes {
    //! Every pass is stack-safe: a 1,000,000-deep let chain (`let %x1 = add(%x0, 1f); ...`) goes
    //! through each pass on a thread with a 2 MiB stack, and the output is well-formed. The chain
    //! is parsed (and typed, for the passes that need types) once per test.

    use super::common;
    use passlab::ir::{visit, well_formed, Module};
    use passlab::passes::{
        canonicalize_ops, dead_code, eliminate_common_subexpr, fold_constant, infer_type,
        simplify_inference, to_a_normal_form, to_graph_normal_form,
    };
    use passlab::testgen;
    use passlab::text::parse_module;

    const DEPTH: usize = 1_000_000;

    fn chain(typed: bool) -> Module {
        let m = parse_module(&testgen::let_chain(DEPTH), "chain").expect("the chain parses");
        if typed {
            infer_type::infer_module(&m).expect("the chain type-checks")
        } else {
            m
        }
    }

    fn nodes(m: &Module) -> usize {
        visit::count_nodes(m.get("main").unwrap())
    }

    /// A pass under test.
    type PassFn = fn(&Module) -> Module;

    /// Runs every pass over one parse of the chain on a small stack (parsing a million lets is
    /// the expensive part); returns the node count of each output.
    fn deep(typed: bool, passes: Vec<(&'static str, PassFn)>) -> Vec<(&'static str, usize)> {
        common::on_small_stack(move || {
            let m = chain(typed);
            passes
                .into_iter()
                .map(|(name, pass)| {
                    let out = pass(&m);
                    well_formed::check_module(&out).unwrap_or_else(|e| panic!("{name}: {e}"));
                    (name, nodes(&out))
                })
                .collect()
        })
    }

    #[test]
    fn untyped_passes_on_a_million_deep_let_chain() {
        let counts = deep(
            false,
            vec![
                ("FoldConstant", fold_constant::fold_constant),
                ("DeadCodeElimination", |m| {
                    dead_code::dead_code_elimination(m, false, false)
                }),
                ("DeadCodeElimination(inline_once)", |m| {
                    dead_code::dead_code_elimination(m, true, false)
                }),
                (
                    "EliminateCommonSubexpr",
                    eliminate_common_subexpr::eliminate_common_subexpr,
                ),
                ("ToANormalForm", to_a_normal_form::to_a_normal_form),
                (
                    "ToGraphNormalForm",
                    to_graph_normal_form::to_graph_normal_form,
                ),
            ],
        );
        for (name, n) in counts {
            match name {
                // With inline_once every single-use binding is inlined; GNF removes every let.
                "DeadCodeElimination(inline_once)" | "ToGraphNormalForm" => {
                    assert!(n < 4 * DEPTH, "{name}: {n}")
                }
                _ => assert!(n >= 4 * DEPTH, "{name}: {n}"),
            }
        }
    }

    #[test]
    fn typed_passes_on_a_million_deep_let_chain() {
        let counts = deep(
            true,
            vec![
                ("SimplifyInference", simplify_inference::simplify_inference),
                ("CanonicalizeOps", canonicalize_ops::canonicalize_ops),
                ("FoldConstant", fold_constant::fold_constant),
            ],
        );
        for (name, n) in counts {
            assert!(n >= 4 * DEPTH, "{name}: {n}");
        }
    }

    /// EliminateCommonSubexpr finds candidates by hashing, not by scanning earlier calls of the
    /// same op: 102,000 calls (a third of them duplicates) are handled at once.
    #[test]
    fn eliminate_common_subexpr_on_100k_calls() {
        use std::fmt::Write;
        let n = 34_000;
        let mut s = String::from("#[version = \"0.0.5\"]\ndef @main(%x: float32) {\n");
        let mut prev = "%x".to_string();
        for i in 0..n {
            let (a, b, c) = (3 * i, 3 * i + 1, 3 * i + 2);
            let _ = writeln!(
                s,
                "  %{a} = add({prev}, 1f);\n  %{b} = add({prev}, 1f);\n  %{c} = multiply(%{a}, %{b});"
            );
            prev = format!("%{c}");
        }
        let _ = writeln!(s, "  {prev}\n}}");
        let m = parse_module(&s, "wide").unwrap();
        let out = eliminate_common_subexpr::eliminate_common_subexpr(&m);
        well_formed::check_module(&out).unwrap();
        let calls = |m: &Module| {
            let mut k = 0;
            visit::post_order(m.get("main").unwrap(), |e| {
                k += e.as_call().is_some() as usize
            });
            k
        };
        assert_eq!(calls(&m), 3 * n);
        assert_eq!(calls(&out), 2 * n);
    }
}

mod fusion_layout_and_build {
    //! Every pass of this branch, and those relay.build's pipeline adds, on a million-deep let
    //! chain (`testgen::let_chain`), on a thread with a 2 MiB stack: nothing may recurse per node.
    //! Each output must be well-formed and type-check again.

    use super::common;
    use passlab::ir::{well_formed, Module};
    use passlab::pass::{PassContext, PassManager, PassOptions};
    use passlab::passes::infer_type::infer_module;
    use passlab::testgen::let_chain;
    use passlab::text::parse_module;
    use std::sync::OnceLock;

    const DEPTH: usize = 1_000_000;

    /// The chain, parsed and typed once for all tests.
    fn chain() -> Module {
        static CHAIN: OnceLock<Module> = OnceLock::new();
        CHAIN
            .get_or_init(|| {
                common::on_small_stack(|| {
                    let m = parse_module(&let_chain(DEPTH), "chain").expect("parses");
                    infer_module(&m).expect("types")
                })
            })
            .clone()
    }

    /// Runs the registered pass `name` (with `options`, at opt_level 3) on the typed chain, on a
    /// small stack, and checks the output.
    fn deep(name: &'static str, options: PassOptions) {
        let m = chain();
        common::on_small_stack(move || {
            let mut pm = PassManager::new(passlab::passes::registry());
            let pass = pm.create(name, &options).expect("registered");
            let ctx = PassContext::builder().opt_level(3).build().unwrap();
            let out = pm
                .with_context(&ctx, |pm| pm.run(&pass, &m))
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            well_formed::check_module(&out).unwrap_or_else(|e| panic!("{name}: {e}"));
            // An unchanged module is the typed chain itself; anything else must type-check again.
            if !out.same_as(&m) {
                infer_module(&out).unwrap_or_else(|e| panic!("{name}: {e}"));
            }
        });
    }

    #[test]
    fn fuse_ops_on_a_million_lets() {
        deep("FuseOps", PassOptions::new().with("fuse_opt_level", 2));
    }

    #[test]
    fn lambda_lift_on_a_million_lets() {
        deep("LambdaLift", PassOptions::new());
    }

    #[test]
    fn inline_globals_on_a_million_lets() {
        deep("InlineGlobals", PassOptions::new());
    }

    #[test]
    fn remove_unused_functions_on_a_million_lets() {
        deep("RemoveUnusedFunctions", PassOptions::new());
    }

    #[test]
    fn backward_fold_scale_axis_on_a_million_lets() {
        deep("BackwardFoldScaleAxis", PassOptions::new());
    }

    #[test]
    fn forward_fold_scale_axis_on_a_million_lets() {
        deep("ForwardFoldScaleAxis", PassOptions::new());
    }

    #[test]
    fn convert_layout_on_a_million_lets() {
        let desired = passlab::pass::ConfigValue::Map(vec![(
            "nn.conv2d".into(),
            vec!["NCHW", "default"].into(),
        )]);
        deep(
            "ConvertLayout",
            PassOptions::new().with("desired_layouts", desired),
        );
    }

    #[test]
    fn alter_op_layout_on_a_million_lets() {
        deep("AlterOpLayout", PassOptions::new());
    }

    /// InlineGlobals on `testgen::inline_chains_model` with 20,000 globals a chain (100,000 ops),
    /// on a small stack: the chain whose globals each wrap the next in an `add`, and the chain
    /// `@main` calls from each of its 20,000 lines, are inlined; the chain ending in a global that
    /// is not marked stays whole. The output is counted op by op and type-checks.
    #[test]
    fn inline_globals_on_long_chains() {
        const COUNT: usize = 20_000;
        common::on_small_stack(|| {
            let text = passlab::testgen::inline_chains_model(COUNT);
            let m = infer_module(&parse_module(&text, "chains").expect("parses")).expect("types");
            let pm = PassManager::new(passlab::passes::registry());
            let pass = pm.create("InlineGlobals", &PassOptions::new()).unwrap();
            let out = pm.run(&pass, &m).unwrap();
            well_formed::check_module(&out).unwrap();
            let names: Vec<&str> = out.names();
            assert_eq!(names.len(), COUNT + 1);
            assert!(names.iter().all(|n| *n == "main" || n.starts_with('b')));
            let (mut adds, mut relus, mut calls) = (0, 0, 0);
            passlab::ir::visit::each_node(out.get("main").unwrap(), |e| match e.call_op_of() {
                Some((op, _)) if op.name() == "add" => adds += 1,
                Some((op, _)) if op.name() == "nn.relu" => relus += 1,
                Some(_) => {}
                None => calls += usize::from(e.as_call().is_some()),
            });
            // @a's adds, @a0's relu and one per call of @c; the one call of @b.
            assert_eq!((adds, relus, calls), (COUNT - 1, COUNT + 1, 1));
            infer_module(&out).unwrap();
        });
    }

    /// 100,000 globals each calling the one before (`@f0` adds 1), `@main` calling the last: one
    /// add is left.
    #[test]
    fn inline_globals_on_a_hundred_thousand_calls() {
        const COUNT: usize = 100_000;
        common::on_small_stack(|| {
            let mut text =
                "#[version = \"0.0.5\"]\ndef @f0(%x: int32, Inline=1) { add(%x, 1) }\n".to_string();
            for i in 1..COUNT {
                text += &format!("def @f{i}(%x: int32, Inline=1) {{ @f{}(%x) }}\n", i - 1);
            }
            text += &format!("def @main(%y: int32) {{ @f{}(%y) }}\n", COUNT - 1);
            let m = parse_module(&text, "calls").expect("parses");
            let pm = PassManager::new(passlab::passes::registry());
            let pass = pm.create("InlineGlobals", &PassOptions::new()).unwrap();
            let out = pm.run(&pass, &m).unwrap();
            assert_eq!(out.names(), vec!["main"]);
            let printed = passlab::text::print_module(&out);
            assert!(
                printed.contains("def @main(%y: int32) {\n  add(%y, 1)\n}"),
                "{printed}"
            );
        });
    }

    #[test]
    fn simplify_expr_on_a_million_lets() {
        deep("SimplifyExpr", PassOptions::new());
    }

    #[test]
    fn simplify_expr_post_alter_op_on_a_million_lets() {
        deep("SimplifyExprPostAlterOp", PassOptions::new());
    }

    #[test]
    fn canonicalize_cast_on_a_million_lets() {
        deep("CanonicalizeCast", PassOptions::new());
    }

    #[test]
    fn fast_math_on_a_million_lets() {
        deep("FastMath", PassOptions::new());
    }

    #[test]
    fn combine_parallel_conv2d_on_a_million_lets() {
        deep("CombineParallelConv2D", PassOptions::new());
    }

    #[test]
    fn combine_parallel_dense_on_a_million_lets() {
        deep("CombineParallelDense", PassOptions::new());
    }

    #[test]
    fn combine_parallel_batch_matmul_on_a_million_lets() {
        deep("CombineParallelBatchMatmul", PassOptions::new());
    }

    #[test]
    fn annotate_spans_on_a_million_lets() {
        deep("AnnotateSpans", PassOptions::new());
    }

    #[test]
    fn dynamic_to_static_on_a_million_lets() {
        deep("DynamicToStatic", PassOptions::new());
    }

    /// DynamicToStatic on a graph-form chain of 200,000 `dyn.reshape`s, each to the shape of
    /// the one before it, which is static only once that one is rewritten: one walk turns the
    /// whole chain static, on a small stack.
    #[test]
    fn dynamic_to_static_on_a_chain_of_dynamic_reshapes() {
        use std::fmt::Write;
        common::on_small_stack(|| {
            let n = 200_000;
            let mut text = String::with_capacity(n * 64);
            text.push_str(
                "#[version = \"0.0.5\"]\ndef @main(%x: Tensor[(2, 3), float32]) {\n  \
                 %0 = shape_of(%x, dtype=\"int32\");\n  %1 = dyn.reshape(%x, %0, newshape=[]);\n",
            );
            for i in 1..n {
                let (s, r) = (2 * i, 2 * i + 1);
                let _ = writeln!(text, "  %{s} = shape_of(%{}, dtype=\"int32\");", r - 2);
                let _ = writeln!(text, "  %{r} = dyn.reshape(%{}, %{s}, newshape=[]);", r - 2);
            }
            let _ = writeln!(text, "  %{}\n}}", 2 * n - 1);
            let m = parse_module(&text, "reshapes").expect("parses");
            let mut pm = PassManager::new(passlab::passes::registry());
            let pass = pm.create("DynamicToStatic", &PassOptions::new()).unwrap();
            let ctx = PassContext::builder().opt_level(3).build().unwrap();
            let out = pm.with_context(&ctx, |pm| pm.run(&pass, &m)).unwrap();
            well_formed::check_module(&out).unwrap();
            let printed = passlab::text::print_module(&out);
            assert!(!printed.contains("dyn."), "a dyn.reshape is left");
            assert_eq!(printed.matches("reshape(").count(), n);
            let typed = infer_module(&out).expect("types");
            let body = typed
                .get("main")
                .unwrap()
                .as_function()
                .unwrap()
                .body
                .clone();
            assert_eq!(body.ty().unwrap().to_string(), "Tensor[(2, 3), float32]");
        });
    }

    /// SimplifyExpr on a million nested calls in graph form (no lets), each a rewrite of the one
    /// inside it: `x + 1 + 1 + ...` folds, innermost first, into `x + 1000000`.
    #[test]
    fn simplify_expr_on_a_million_nested_rewrites() {
        use std::fmt::Write;
        common::on_small_stack(|| {
            let n = DEPTH;
            let mut text = String::with_capacity(n * 24);
            text.push_str(
                "#[version = \"0.0.5\"]\ndef @main(%x: float32) -> float32 {\n  %0 = add(%x, 1f);\n",
            );
            for i in 1..n {
                let _ = writeln!(text, "  %{i} = add(%{}, 1f);", i - 1);
            }
            let _ = writeln!(text, "  %{}\n}}", n - 1);
            let m = infer_module(&parse_module(&text, "adds").expect("parses")).expect("types");
            let mut pm = PassManager::new(passlab::passes::registry());
            let pass = pm.create("SimplifyExpr", &PassOptions::new()).unwrap();
            let ctx = PassContext::builder().opt_level(3).build().unwrap();
            let out = pm.with_context(&ctx, |pm| pm.run(&pass, &m)).unwrap();
            let want = parse_module(
                "#[version = \"0.0.5\"]\ndef @main(%x: float32) -> float32 { add(%x, 1000000f) }",
                "want",
            )
            .unwrap();
            assert!(passlab::ir::module_equal(&out, &want, true));
        });
    }
}
