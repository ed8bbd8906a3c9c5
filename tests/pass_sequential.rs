//! Sequential (SEMANTICS.md §3): the gate, required passes, nesting, and dependency caching,
//! checked as whole event logs (`Trace` lines interleaved with `[body]` lines of the passes).

mod common;

use common::pass_lab::*;
use expect_test::{expect, Expect};
use passlab::instrument::Trace;
use passlab::pass::{PassContext, PassErrorKind, PassInfo, Sequential};
use std::sync::Arc;

/// Runs `pipeline` on the small module under `ctx` and compares the log (and error, if any).
fn check_run(lab: &mut Lab, ctx: &PassContext, pipeline: &passlab::pass::Pass, expect: Expect) {
    let m = module();
    let result = lab.pm.with_context(ctx, |pm| pm.run(pipeline, &m));
    let mut log = lab.log();
    if let Err(e) = result {
        log.push_str(&format!("error: {e}\n"));
    }
    expect.assert_eq(&log);
}

#[test]
fn nested_sequentials_are_passes_around_their_children() {
    let mut lab = Lab::new();
    let inner = seq("inner", 0, vec![marker("B", 0, &[]), marker("C", 0, &[])]);
    let outer = seq(
        "outer",
        0,
        vec![marker("A", 0, &[]), inner, marker("D", 0, &[])],
    );
    check_run(
        &mut lab,
        &ctx_with(vec![trace("t")]),
        &outer,
        expect![[r#"
            [t] enter_pass_ctx
            [t] should_run outer
            [t] run_before_pass outer
            [t] should_run A
            [t] run_before_pass A
            [body] A
            [t] run_after_pass A
            [t] should_run inner
            [t] run_before_pass inner
            [t] should_run B
            [t] run_before_pass B
            [body] B
            [t] run_after_pass B
            [t] should_run C
            [t] run_before_pass C
            [body] C
            [t] run_after_pass C
            [t] run_after_pass inner
            [t] should_run D
            [t] run_before_pass D
            [body] D
            [t] run_after_pass D
            [t] run_after_pass outer
            [t] exit_pass_ctx
        "#]],
    );
}

#[test]
fn empty_sequential_and_duplicates() {
    let mut lab = Lab::new();
    let a = marker("A", 0, &[]);
    let pipeline = seq("s", 0, vec![a.clone(), seq("empty", 0, vec![]), a]);
    check_run(
        &mut lab,
        &ctx_with(vec![trace("t")]),
        &pipeline,
        expect![[r#"
            [t] enter_pass_ctx
            [t] should_run s
            [t] run_before_pass s
            [t] should_run A
            [t] run_before_pass A
            [body] A
            [t] run_after_pass A
            [t] should_run empty
            [t] run_before_pass empty
            [t] run_after_pass empty
            [t] should_run A
            [t] run_before_pass A
            [body] A
            [t] run_after_pass A
            [t] run_after_pass s
            [t] exit_pass_ctx
        "#]],
    );
}

/// One row of the gate table: context settings, the child's opt_level, and whether it runs.
struct GateCase {
    disabled: &'static [&'static str],
    required: &'static [&'static str],
    ctx_level: i32,
    pass_level: i32,
    runs: bool,
}

#[test]
fn gate_order_disabled_then_required_then_opt_level() {
    let cases = [
        // disabled beats required
        GateCase {
            disabled: &["P"],
            required: &["P"],
            ctx_level: 3,
            pass_level: 0,
            runs: false,
        },
        GateCase {
            disabled: &["P"],
            required: &[],
            ctx_level: 3,
            pass_level: 0,
            runs: false,
        },
        // required beats opt_level
        GateCase {
            disabled: &[],
            required: &["P"],
            ctx_level: 0,
            pass_level: 3,
            runs: true,
        },
        GateCase {
            disabled: &["Q"],
            required: &["P"],
            ctx_level: -5,
            pass_level: 9,
            runs: true,
        },
        // otherwise ctx.opt_level >= pass.opt_level
        GateCase {
            disabled: &[],
            required: &[],
            ctx_level: 2,
            pass_level: 2,
            runs: true,
        },
        GateCase {
            disabled: &[],
            required: &[],
            ctx_level: 2,
            pass_level: 3,
            runs: false,
        },
        GateCase {
            disabled: &[],
            required: &[],
            ctx_level: 3,
            pass_level: 2,
            runs: true,
        },
        GateCase {
            disabled: &[],
            required: &[],
            ctx_level: 0,
            pass_level: -1,
            runs: true,
        },
        GateCase {
            disabled: &[],
            required: &[],
            ctx_level: -1,
            pass_level: 0,
            runs: false,
        },
        GateCase {
            disabled: &[],
            required: &[],
            ctx_level: -3,
            pass_level: -3,
            runs: true,
        },
        GateCase {
            disabled: &[],
            required: &[],
            ctx_level: -3,
            pass_level: -2,
            runs: false,
        },
    ];
    for (i, c) in cases.iter().enumerate() {
        let mut lab = Lab::new();
        let ctx = ctx()
            .opt_level(c.ctx_level)
            .disabled_pass(c.disabled.iter().copied())
            .required_pass(c.required.iter().copied())
            .instruments(vec![trace("t")])
            .build()
            .unwrap();
        let pipeline = seq("s", 0, vec![marker("P", c.pass_level, &["Missing"])]);
        let m = module();
        let r = lab.pm.with_context(&ctx, |pm| pm.run(&pipeline, &m));
        let log = lab.log();
        // A child that passes the gate has its required list looked at (and "Missing" fails);
        // a gated-out child gets no instrument call and its required list is not read.
        let reached = matches!(
            r.as_ref().map_err(|e| e.kind()),
            Err(PassErrorKind::UnknownPass { .. })
        );
        assert_eq!(reached, c.runs, "case {i}: {log}\n{r:?}");
        if !c.runs {
            assert!(r.is_ok() && !log.contains(" P\n"), "case {i}: {log}");
        }
        assert_eq!(
            ctx.pass_enabled(&PassInfo::new("P", c.pass_level)),
            c.runs,
            "case {i}"
        );
    }
}

#[test]
fn nested_sequential_is_gated_by_its_own_name_and_level() {
    let mut lab = Lab::new();
    let pipeline = seq(
        "outer",
        0,
        vec![
            seq("high", 3, vec![marker("A", 0, &[])]),
            seq("off", 0, vec![marker("B", 0, &[])]),
            seq("low", 1, vec![marker("C", 9, &[]), marker("D", 1, &[])]),
        ],
    );
    let ctx = ctx()
        .opt_level(2)
        .disabled_pass(["off"])
        .instruments(vec![trace("t")])
        .build()
        .unwrap();
    check_run(
        &mut lab,
        &ctx,
        &pipeline,
        expect![[r#"
        [t] enter_pass_ctx
        [t] should_run outer
        [t] run_before_pass outer
        [t] should_run low
        [t] run_before_pass low
        [t] should_run D
        [t] run_before_pass D
        [body] D
        [t] run_after_pass D
        [t] run_after_pass low
        [t] run_after_pass outer
        [t] exit_pass_ctx
    "#]],
    );
}

#[test]
fn direct_calls_are_never_gated() {
    let mut lab = Lab::new();
    let ctx = ctx()
        .opt_level(0)
        .disabled_pass(["P", "top"])
        .instruments(vec![trace("t")])
        .build()
        .unwrap();
    // A pass applied directly, and a top-level Sequential, run whatever the context says.
    let m = module();
    let p = marker("P", 5, &[]);
    let top = seq("top", 7, vec![marker("Q", 0, &[])]);
    lab.pm
        .with_context(&ctx, |pm| {
            pm.run(&p, &m)?;
            pm.run(&top, &m)
        })
        .unwrap();
    expect![[r#"
        [t] enter_pass_ctx
        [t] should_run P
        [t] run_before_pass P
        [body] P
        [t] run_after_pass P
        [t] should_run top
        [t] run_before_pass top
        [t] should_run Q
        [t] run_before_pass Q
        [body] Q
        [t] run_after_pass Q
        [t] run_after_pass top
        [t] exit_pass_ctx
    "#]]
    .assert_eq(&lab.log());
}

#[test]
fn required_passes_run_before_the_child_every_time_through_the_instruments() {
    let mut lab = Lab::new();
    // R1 requires R2, but requirements are not transitive: R2 never runs. R1's own opt_level
    // and the context's disabled_pass do not apply to it as a required pass.
    lab.pm.register(marker("R1", 3, &["R2"]), "");
    lab.pm.register(marker("R2", 0, &[]), "");
    let pipeline = seq(
        "s",
        0,
        vec![
            marker("A", 0, &["R1"]),
            marker("B", 0, &["R1", "R1"]),
            marker("A", 0, &["R1"]),
        ],
    );
    let ctx = ctx()
        .opt_level(1)
        .disabled_pass(["R1"])
        .instruments(vec![trace("t")])
        .build()
        .unwrap();
    check_run(
        &mut lab,
        &ctx,
        &pipeline,
        expect![[r#"
        [t] enter_pass_ctx
        [t] should_run s
        [t] run_before_pass s
        [t] should_run R1
        [t] run_before_pass R1
        [body] R1
        [t] run_after_pass R1
        [t] should_run A
        [t] run_before_pass A
        [body] A
        [t] run_after_pass A
        [t] should_run R1
        [t] run_before_pass R1
        [body] R1
        [t] run_after_pass R1
        [t] should_run R1
        [t] run_before_pass R1
        [body] R1
        [t] run_after_pass R1
        [t] should_run B
        [t] run_before_pass B
        [body] B
        [t] run_after_pass B
        [t] should_run R1
        [t] run_before_pass R1
        [body] R1
        [t] run_after_pass R1
        [t] should_run A
        [t] run_before_pass A
        [body] A
        [t] run_after_pass A
        [t] run_after_pass s
        [t] exit_pass_ctx
    "#]],
    );
}

#[test]
fn required_passes_are_subject_to_should_run_unless_the_context_requires_them() {
    let mut lab = Lab::new();
    lab.register_markers(&["R1", "R2"]);
    let pipeline = seq("s", 0, vec![marker("A", 0, &["R1", "R2"])]);
    let skipper = Arc::new(Trace::new("u").skip(&["R1", "R2"]));
    let ctx = ctx()
        .required_pass(["R2"])
        .instruments(vec![trace("t"), skipper])
        .build()
        .unwrap();
    check_run(
        &mut lab,
        &ctx,
        &pipeline,
        expect![[r#"
        [t] enter_pass_ctx
        [u] enter_pass_ctx
        [t] should_run s
        [u] should_run s
        [t] run_before_pass s
        [u] run_before_pass s
        [t] should_run R1
        [u] should_run R1
        [t] run_before_pass R2
        [u] run_before_pass R2
        [body] R2
        [t] run_after_pass R2
        [u] run_after_pass R2
        [t] should_run A
        [u] should_run A
        [t] run_before_pass A
        [u] run_before_pass A
        [body] A
        [t] run_after_pass A
        [u] run_after_pass A
        [t] run_after_pass s
        [u] run_after_pass s
        [t] exit_pass_ctx
        [u] exit_pass_ctx
    "#]],
    );
}

#[test]
fn unknown_required_pass_fails_only_when_reached() {
    let mut lab = Lab::new();
    let pipeline = seq(
        "s",
        0,
        vec![
            tagger("T", 0, &[]),
            marker("X", 0, &["PrintIr"]),
            marker("Y", 0, &[]),
        ],
    );
    check_run(
        &mut lab,
        &ctx_with(vec![trace("t")]),
        &pipeline,
        expect![[r#"
            [t] enter_pass_ctx
            [t] should_run s
            [t] run_before_pass s
            [t] should_run T
            [t] run_before_pass T
            [body] T
            [t] run_after_pass T
            [t] exit_pass_ctx
            error: pass X requires PrintIr, which is not a registered pass; did you mean PrintIR?
        "#]],
    );
    // The error names both passes; construction never looked the names up.
    let m = module();
    let err = lab.pm.run(&pipeline, &m).unwrap_err();
    match err.into_kind() {
        PassErrorKind::UnknownPass {
            name,
            required_by,
            suggestion,
        } => {
            assert_eq!(name, "PrintIr");
            assert_eq!(required_by.as_deref(), Some("X"));
            assert_eq!(suggestion.as_deref(), Some("PrintIR"));
        }
        e => panic!("unexpected {e:?}"),
    }
}

#[test]
fn earlier_children_effects_are_kept_and_modules_flow_through() {
    let lab = Lab::new();
    let m = module();
    let pipeline = seq("s", 0, vec![tagger("T1", 0, &[]), tagger("T2", 0, &[])]);
    let out = lab.pm.run(&pipeline, &m).unwrap();
    assert_eq!(tags(&out), ["T1", "T2"]);
    assert!(tags(&m).is_empty(), "the input module is never modified");
    // A pipeline that changes nothing returns the very same module value.
    let same = lab
        .pm
        .run(&seq("s", 0, vec![marker("A", 0, &[])]), &m)
        .unwrap();
    assert!(same.same_as(&m));
}

#[test]
fn a_run_keeps_the_context_it_started_with() {
    let mut lab = Lab::new();
    let c1 = ctx()
        .opt_level(3)
        .instruments(vec![trace("one")])
        .build()
        .unwrap();
    let c2 = ctx()
        .opt_level(0)
        .instruments(vec![trace("two")])
        .build()
        .unwrap();
    lab.pm.enter(&c1).unwrap();
    let mut cx = lab.pm.cx();
    lab.pm.exit(&c1).unwrap();
    lab.pm.enter(&c2).unwrap();
    let pipeline = seq("s", 0, vec![marker("A", 3, &[])]);
    cx.run(&pipeline, &module()).unwrap();
    lab.pm.exit(&c2).unwrap();
    expect![[r#"
        [one] enter_pass_ctx
        [one] exit_pass_ctx
        [two] enter_pass_ctx
        [one] should_run s
        [one] run_before_pass s
        [one] should_run A
        [one] run_before_pass A
        [body] A
        [one] run_after_pass A
        [one] run_after_pass s
        [two] exit_pass_ctx
    "#]]
    .assert_eq(&lab.log());
}

/// `passlab.required`: "always" (TVM) runs a required pass every time; "cached" skips it when
/// its last run produced the very module it would receive.
#[test]
fn required_pass_caching() {
    let pipeline = seq(
        "s",
        0,
        vec![
            marker("A", 0, &["R"]),
            marker("B", 0, &["R"]),
            tagger("T", 0, &["R"]),
            marker("C", 0, &["R"]),
            marker("D", 0, &["R"]),
        ],
    );
    let mut runs = Vec::new();
    for mode in ["always", "cached"] {
        let mut lab = Lab::new();
        lab.register_markers(&["R"]);
        let ctx = ctx().config("passlab.required", mode).build().unwrap();
        let m = module();
        lab.pm
            .with_context(&ctx, |pm| pm.run(&pipeline, &m))
            .unwrap();
        runs.push(format!("{mode}:\n{}", lab.log()));
    }
    expect![[r#"
        always:
        [body] R
        [body] A
        [body] R
        [body] B
        [body] R
        [body] T
        [body] R
        [body] C
        [body] R
        [body] D
        cached:
        [body] R
        [body] A
        [body] B
        [body] T
        [body] R
        [body] C
        [body] D
    "#]]
    .assert_eq(&runs.join(""));
}

#[test]
fn sequential_defaults_follow_tvm() {
    let s = Sequential::new(vec![]);
    let p = s.into_pass();
    assert_eq!(p.name(), "sequential");
    assert_eq!(p.info().opt_level(), 0);
    assert!(p.info().required().is_empty());
}

/// Records, at every instrument point, the pass and the tags of the module it was shown.
struct Seen(std::sync::Mutex<Vec<String>>);

impl Seen {
    fn record(&self, point: &str, m: &passlab::ir::Module, info: &PassInfo) {
        let line = format!("{point} {} {:?}", info.name(), tags(m));
        self.0.lock().unwrap().push(line);
    }
}

impl passlab::instrument::Instrument for Seen {
    fn name(&self) -> &str {
        "Seen"
    }
    fn run_before_pass(
        &self,
        m: &passlab::ir::Module,
        info: &PassInfo,
        _cx: &passlab::instrument::InstrumentCx<'_>,
    ) -> Result<(), passlab::pass::InstrumentError> {
        self.record("before", m, info);
        Ok(())
    }
    fn run_after_pass(
        &self,
        m: &passlab::ir::Module,
        info: &PassInfo,
        _cx: &passlab::instrument::InstrumentCx<'_>,
    ) -> Result<(), passlab::pass::InstrumentError> {
        self.record("after", m, info);
        Ok(())
    }
}

/// Sequentials inside a Sequential: instruments see each pass's input before it and its output
/// after it, a skipped inner Sequential leaves the module as it was, the
/// immutable-module check changes nothing, and a failure deep inside leaves the caller's
/// module untouched.
#[test]
fn nested_sequentials_show_each_pass_its_input_and_output() {
    let mut lab = Lab::new();
    let m = module();
    let pipeline = || {
        seq(
            "outer",
            0,
            vec![
                tagger("T1", 0, &[]),
                seq(
                    "inner",
                    0,
                    vec![tagger("T2", 0, &[]), seq("empty", 0, vec![])],
                ),
                seq("skipped", 0, vec![tagger("T3", 0, &[])]),
                tagger("T4", 0, &[]),
            ],
        )
    };
    let expected = [
        r#"before outer []"#,
        r#"before T1 []"#,
        r#"after T1 ["T1"]"#,
        r#"before inner ["T1"]"#,
        r#"before T2 ["T1"]"#,
        r#"after T2 ["T1", "T2"]"#,
        r#"before empty ["T1", "T2"]"#,
        r#"after empty ["T1", "T2"]"#,
        r#"after inner ["T1", "T2"]"#,
        r#"before T4 ["T1", "T2"]"#,
        r#"after T4 ["T1", "T2", "T4"]"#,
        r#"after outer ["T1", "T2", "T4"]"#,
    ];
    for immutable_check in [false, true] {
        let seen = Arc::new(Seen(Default::default()));
        let c = ctx()
            .instruments(vec![
                seen.clone() as passlab::instrument::InstrumentRef,
                Arc::new(passlab::instrument::Skip::new(&["skipped"])),
            ])
            .config("testing.immutable_module", immutable_check)
            .build()
            .unwrap();
        let out = lab
            .pm
            .with_context(&c, |pm| pm.run(&pipeline(), &m))
            .unwrap();
        assert_eq!(tags(&out), ["T1", "T2", "T4"], "check={immutable_check}");
        assert_eq!(*seen.0.lock().unwrap(), expected, "check={immutable_check}");
    }
    assert!(tags(&m).is_empty());

    // A panic in a pass two Sequentials down fails the run, names the pass, and leaves the
    // caller's module as it was.
    let boom = passlab::pass::module_pass(
        PassInfo::with_kind("Boom", 0, &[] as &[&str], passlab::pass::PassKind::Module),
        |_, _| panic!("boom"),
    );
    let failing = seq(
        "outer",
        0,
        vec![
            tagger("T1", 0, &[]),
            seq("inner", 0, vec![tagger("T2", 0, &[]), boom]),
        ],
    );
    let err = lab.pm.run(&failing, &m).unwrap_err();
    assert!(
        matches!(err.kind(), PassErrorKind::Panic { pass, .. } if &**pass == "Boom"),
        "{err:?}"
    );
    assert!(tags(&m).is_empty());
}
