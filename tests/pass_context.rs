//! Contexts (SEMANTICS.md §4-5): the per-session default context and stack, enter/exit order,
//! contexts that do not merge, shared instruments, the typed config registry, and
//! `override_instruments` on entered, never-entered and default contexts.

mod common;

use common::pass_lab::*;
use expect_test::expect;
use passlab::pass::config::{config_keys, ConfigKey, ConfigType, ConfigValue};
use passlab::pass::{register_config_key, PassContext, PassError, PassErrorKind};
use std::panic::{catch_unwind, AssertUnwindSafe};

#[test]
fn enter_and_exit_call_instruments_in_list_order() {
    let mut lab = Lab::new();
    let ctx = ctx_with(vec![trace("a"), trace("b")]);
    assert!(lab.pm.current().same_as(lab.pm.default_context()));
    lab.pm.enter(&ctx).unwrap();
    assert!(lab.pm.current().same_as(&ctx));
    lab.pm.run(&marker("P", 0, &[]), &module()).unwrap();
    lab.pm.exit(&ctx).unwrap();
    assert!(lab.pm.current().same_as(lab.pm.default_context()));
    expect![[r#"
        [a] enter_pass_ctx
        [b] enter_pass_ctx
        [a] should_run P
        [b] should_run P
        [a] run_before_pass P
        [b] run_before_pass P
        [body] P
        [a] run_after_pass P
        [b] run_after_pass P
        [a] exit_pass_ctx
        [b] exit_pass_ctx
    "#]]
    .assert_eq(&lab.log());
}

#[test]
fn the_default_context_is_tvms() {
    let lab = Lab::new();
    let d = lab.pm.current();
    assert_eq!(d.opt_level(), 2);
    assert!(d.required_pass().is_empty() && d.disabled_pass().is_empty());
    assert!(d.instruments().is_empty() && d.config().is_empty());
    // Sessions are independent: each has its own default context.
    let other = Lab::new();
    assert!(!other.pm.default_context().same_as(lab.pm.default_context()));
}

#[test]
fn nested_contexts_do_not_merge() {
    let mut lab = Lab::new();
    let outer = ctx()
        .opt_level(3)
        .disabled_pass(["X"])
        .instruments(vec![trace("o")])
        .build()
        .unwrap();
    let inner = ctx()
        .opt_level(1)
        .instruments(vec![trace("i")])
        .build()
        .unwrap();
    let pipeline = seq("s", 0, vec![marker("X", 0, &[]), marker("Two", 2, &[])]);
    let m = module();
    lab.pm
        .with_context(&outer, |pm| {
            pm.with_context(&inner, |pm| pm.run(&pipeline, &m))?;
            pm.run(&pipeline, &m)
        })
        .unwrap();
    expect![[r#"
        [o] enter_pass_ctx
        [i] enter_pass_ctx
        [i] should_run s
        [i] run_before_pass s
        [i] should_run X
        [i] run_before_pass X
        [body] X
        [i] run_after_pass X
        [i] run_after_pass s
        [i] exit_pass_ctx
        [o] should_run s
        [o] run_before_pass s
        [o] should_run Two
        [o] run_before_pass Two
        [body] Two
        [o] run_after_pass Two
        [o] run_after_pass s
        [o] exit_pass_ctx
    "#]]
    .assert_eq(&lab.log());
}

#[test]
fn a_context_or_instrument_can_be_entered_again() {
    let mut lab = Lab::new();
    let t = trace("t");
    let c1 = ctx_with(vec![t.clone()]);
    let c2 = ctx_with(vec![t]);
    let m = module();
    let p = marker("P", 0, &[]);
    lab.pm
        .with_context(&c1, |pm| {
            pm.with_context(&c1, |pm| pm.run(&p, &m))?;
            pm.with_context(&c2, |pm| pm.run(&p, &m))
        })
        .unwrap();
    // Later again.
    lab.pm.with_context(&c1, |_| Ok(())).unwrap();
    expect![[r#"
        [t] enter_pass_ctx
        [t] enter_pass_ctx
        [t] should_run P
        [t] run_before_pass P
        [body] P
        [t] run_after_pass P
        [t] exit_pass_ctx
        [t] enter_pass_ctx
        [t] should_run P
        [t] run_before_pass P
        [body] P
        [t] run_after_pass P
        [t] exit_pass_ctx
        [t] exit_pass_ctx
        [t] enter_pass_ctx
        [t] exit_pass_ctx
    "#]]
    .assert_eq(&lab.log());
}

#[test]
fn exit_must_name_the_innermost_context() {
    let mut lab = Lab::new();
    let c1 = ctx_with(vec![trace("one")]);
    let c2 = ctx_with(vec![trace("two")]);
    assert!(matches!(
        lab.pm.exit(&c1).map_err(|e| e.into_kind()),
        Err(PassErrorKind::Context(_))
    ));
    assert!(
        lab.pm.exit_innermost().is_err(),
        "the default context cannot be exited"
    );
    lab.pm.enter(&c1).unwrap();
    lab.pm.enter(&c2).unwrap();
    let err = lab.pm.exit(&c1).unwrap_err();
    assert_eq!(
        err.to_string(),
        "cannot exit a PassContext that is not the innermost entered one"
    );
    assert_eq!(lab.pm.stack().len(), 2, "stack unchanged");
    assert!(lab.pm.exit_innermost().unwrap().same_as(&c2));
    lab.pm.exit(&c1).unwrap();
    expect![[r#"
        [one] enter_pass_ctx
        [two] enter_pass_ctx
        [two] exit_pass_ctx
        [one] exit_pass_ctx
    "#]]
    .assert_eq(&lab.log());
}

#[test]
fn a_failing_block_still_exits() {
    let mut lab = Lab::new();
    let c = ctx_with(vec![trace("t")]);
    let broken = passlab::pass::module_pass(passlab::pass::PassInfo::new("Broken", 0), |_, _| {
        Err(PassError::failed("pass failed"))
    });
    let m = module();
    let err = lab
        .pm
        .with_context(&c, |pm| pm.run(&broken, &m))
        .unwrap_err();
    assert_eq!(err.to_string(), "Broken: pass failed");
    assert!(lab.pm.stack().is_empty());

    // The scope guard exits when dropped, also while unwinding from a panic in Rust code.
    let r = catch_unwind(AssertUnwindSafe(|| {
        let _scope = lab.pm.scope(&c).unwrap();
        panic!("caller bug");
    }));
    assert!(r.is_err());
    assert!(lab.pm.stack().is_empty());
    let scope = lab.pm.scope(&c).unwrap();
    assert_eq!(scope.stack().len(), 1);
    scope.exit().unwrap();
    expect![[r#"
        [t] enter_pass_ctx
        [t] should_run Broken
        [t] run_before_pass Broken
        [t] exit_pass_ctx
        [t] enter_pass_ctx
        [t] exit_pass_ctx
        [t] enter_pass_ctx
        [t] exit_pass_ctx
    "#]]
    .assert_eq(&lab.log());
}

#[test]
fn block_and_exit_failing_report_both_exit_first() {
    let mut lab = Lab::new();
    let c = ctx_with(vec![trace_failing("t", "exit_pass_ctx")]);
    let broken = passlab::pass::module_pass(passlab::pass::PassInfo::new("Broken", 0), |_, _| {
        Err(PassError::failed("pass failed"))
    });
    let m = module();
    let err = lab
        .pm
        .with_context(&c, |pm| pm.run(&broken, &m))
        .unwrap_err();
    expect![[r#"
        [t] enter_pass_ctx
        [t] should_run Broken
        [t] run_before_pass Broken
        [t] exit_pass_ctx

        error: t exit_pass_ctx failed (instrument t, exit_pass_ctx)
        while handling: Broken: pass failed
    "#]]
    .assert_eq(&format!("{}\nerror: {err}\n", lab.log()));
    assert!(lab.pm.stack().is_empty());
}

/// One config case: entries and the expected result (coerced values or the error).
fn check_config(entries: Vec<(&str, ConfigValue)>) -> String {
    let mut b = PassContext::builder();
    for (k, v) in entries {
        b = b.config(k, v);
    }
    match b.build() {
        Ok(ctx) => ctx
            .config()
            .iter()
            .map(|(k, v)| format!("{k} = {v} ({})", v.type_name()))
            .collect::<Vec<_>>()
            .join(", "),
        Err(e) => format!("error: {e}"),
    }
}

#[test]
fn config_is_validated_and_coerced_at_construction() {
    register_config_key(ConfigKey {
        name: "test.max_depth",
        ty: ConfigType::Int,
        default: || ConfigValue::Int(4),
        doc: "a test key",
    })
    .unwrap();
    let cases: Vec<Vec<(&str, ConfigValue)>> = vec![
        vec![("testing.immutable_module", true.into())],
        vec![("testing.immutable_module", 0.into())],
        vec![("testing.immutable_module", 7.into())],
        vec![("test.max_depth", true.into())],
        vec![("test.max_depth", false.into())],
        vec![("passlab.required", "cached".into())],
        vec![("passlab.required", "sometimes".into())],
        vec![("testing.immutable_module", "yes".into())],
        vec![("testing.immutable_module", ConfigValue::None)],
        vec![("test.max_depth", 2.5.into())],
        vec![("testing.immutable_modul", true.into())],
        vec![("nothing.like.it", true.into())],
    ];
    let out: Vec<String> = cases.into_iter().map(check_config).collect();
    expect![[r#"
        testing.immutable_module = true (bool)
        testing.immutable_module = false (bool)
        testing.immutable_module = true (bool)
        test.max_depth = 1 (int)
        test.max_depth = 0 (int)
        passlab.required = "cached" (str)
        error: config "passlab.required" must be one of "always", "cached", got "sometimes"
        error: config "testing.immutable_module" expects bool, got str
        error: config "testing.immutable_module" expects bool, got None
        error: config "test.max_depth" expects int, got float
        error: unknown config key "testing.immutable_modul" (did you mean "testing.immutable_module"?); known keys: passlab.num_threads, passlab.required, relay.FuseOps.link_params, relay.FuseOps.max_depth, relay.ToMixedPrecision.keep_orig_output_dtype, relay.backend.tir_converter, relay.backend.use_auto_scheduler, relay.backend.use_meta_schedule, relay.backend.use_meta_schedule_dispatch, relay.collage.byoc_fusion_style, relay.collage.byoc_max_depth, relay.collage.tvm_max_depth, relay.ext.vitis_ai.options.build_dir, relay.ext.vitis_ai.options.export_runtime_module, relay.ext.vitis_ai.options.load_runtime_module, relay.ext.vitis_ai.options.target, relay.ext.vitis_ai.options.work_dir, relay.fallback_device_type, relay.remove_standalone_reshapes.enable, test.max_depth, testing.immutable_module
        error: unknown config key "nothing.like.it"; known keys: passlab.num_threads, passlab.required, relay.FuseOps.link_params, relay.FuseOps.max_depth, relay.ToMixedPrecision.keep_orig_output_dtype, relay.backend.tir_converter, relay.backend.use_auto_scheduler, relay.backend.use_meta_schedule, relay.backend.use_meta_schedule_dispatch, relay.collage.byoc_fusion_style, relay.collage.byoc_max_depth, relay.collage.tvm_max_depth, relay.ext.vitis_ai.options.build_dir, relay.ext.vitis_ai.options.export_runtime_module, relay.ext.vitis_ai.options.load_runtime_module, relay.ext.vitis_ai.options.target, relay.ext.vitis_ai.options.work_dir, relay.fallback_device_type, relay.remove_standalone_reshapes.enable, test.max_depth, testing.immutable_module
    "#]]
    .assert_eq(&(out.join("\n") + "\n"));
    let names: Vec<&str> = config_keys().iter().map(|k| k.name).collect();
    let mut sorted = names.clone();
    sorted.sort();
    assert_eq!(names, sorted);
    assert_eq!(
        PassContext::default()
            .config()
            .get_or_default("passlab.required"),
        Some("always".into())
    );
}

#[test]
fn immutable_module_check_accepts_honest_passes() {
    let mut lab = Lab::new();
    let c = ctx()
        .config("testing.immutable_module", true)
        .build()
        .unwrap();
    assert!(c.checks_immutable_module());
    let m = module();
    let out = lab
        .pm
        .with_context(&c, |pm| pm.run(&seq("s", 0, vec![tagger("T", 0, &[])]), &m))
        .unwrap();
    assert_eq!(tags(&out), ["T"]);
}

#[test]
fn override_instruments_on_an_entered_context() {
    let mut lab = Lab::new();
    let c = ctx_with(vec![trace("old")]);
    let m = module();
    let p = marker("P", 0, &[]);
    lab.pm
        .with_context(&c, |pm| {
            pm.run(&p, &m)?;
            pm.override_instruments(vec![trace("new1"), trace("new2")])?;
            pm.run(&p, &m)
        })
        .unwrap();
    expect![[r#"
        [old] enter_pass_ctx
        [old] should_run P
        [old] run_before_pass P
        [body] P
        [old] run_after_pass P
        [old] exit_pass_ctx
        [new1] enter_pass_ctx
        [new2] enter_pass_ctx
        [new1] should_run P
        [new2] should_run P
        [new1] run_before_pass P
        [new2] run_before_pass P
        [body] P
        [new1] run_after_pass P
        [new2] run_after_pass P
        [new1] exit_pass_ctx
        [new2] exit_pass_ctx
    "#]]
    .assert_eq(&lab.log());
}

#[test]
fn override_instruments_on_a_never_entered_context() {
    let mut lab = Lab::new();
    let c = ctx_with(vec![trace("old")]);
    lab.pm
        .override_instruments_of(&c, vec![trace("new")])
        .unwrap();
    lab.note("-- enter");
    lab.pm
        .with_context(&c, |pm| pm.run(&marker("P", 0, &[]), &module()))
        .unwrap();
    expect![[r#"
        [old] exit_pass_ctx
        [new] enter_pass_ctx
        -- enter
        [new] enter_pass_ctx
        [new] should_run P
        [new] run_before_pass P
        [body] P
        [new] run_after_pass P
        [new] exit_pass_ctx
    "#]]
    .assert_eq(&lab.log());
}

#[test]
fn override_instruments_on_the_default_context() {
    let lab = Lab::new();
    let p = marker("P", 0, &[]);
    let m = module();
    lab.pm.run(&p, &m).unwrap();
    lab.pm.override_instruments(vec![trace("d")]).unwrap();
    lab.pm.run(&p, &m).unwrap();
    lab.pm.override_instruments(vec![]).unwrap();
    lab.pm.run(&p, &m).unwrap();
    assert!(lab.pm.default_context().instruments().is_empty());
    expect![[r#"
        [body] P
        [d] enter_pass_ctx
        [d] should_run P
        [d] run_before_pass P
        [body] P
        [d] run_after_pass P
        [d] exit_pass_ctx
        [body] P
    "#]]
    .assert_eq(&lab.log());
}
