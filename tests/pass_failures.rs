//! The failure table of SEMANTICS.md §5, one test per row, each comparing the whole event
//! log: which callbacks ran, what the error says, and what the context holds afterwards.
//! Also: panics inside passes and instruments become errors naming the pass, and every
//! module value survives.

mod common;

use common::pass_lab::*;
use expect_test::{expect, Expect};
use passlab::instrument::{Instrument, InstrumentCx, InstrumentRef};
use passlab::ir::Module;
use passlab::pass::{module_pass, InstrumentError, PassError, PassErrorKind, PassInfo};
use std::sync::Arc;

/// The pipeline of every row: `outer[inner[P, Q], R]`.
fn pipeline(body_fails: bool) -> passlab::pass::Pass {
    let p = if body_fails {
        module_pass(PassInfo::new("P", 0), |_, _| {
            Err(PassError::failed("pass failed"))
        })
    } else {
        marker("P", 0, &[])
    };
    let inner = seq("inner", 0, vec![p, marker("Q", 0, &[])]);
    seq("outer", 0, vec![inner, marker("R", 0, &[])])
}

/// Runs the pipeline inside a context holding `instruments` and describes what happened:
/// the log, the error, the stack depth and the instruments left on the context.
fn check(instruments: Vec<InstrumentRef>, body_fails: bool, expect: Expect) {
    let mut lab = Lab::new();
    let ctx = ctx_with(instruments);
    let m = module();
    let result = lab
        .pm
        .with_context(&ctx, |pm| pm.run(&pipeline(body_fails), &m));
    let mut out = lab.log();
    match result {
        Ok(_) => out.push_str("ok\n"),
        Err(e) => out.push_str(&format!("error: {e}\n")),
    }
    let left: Vec<String> = ctx
        .instruments()
        .iter()
        .map(|i| i.name().to_string())
        .collect();
    out.push_str(&format!(
        "stack depth {}; instruments left: [{}]\n",
        lab.pm.stack().len(),
        left.join(", ")
    ));
    expect.assert_eq(&out);
    // Whatever failed, the input module is intact.
    assert!(passlab::ir::module_equal(&m, &module(), false));
}

#[test]
fn enter_failure_exits_the_entered_ones_in_reverse_and_clears_the_list() {
    check(
        vec![
            trace("a"),
            trace("b"),
            trace_failing("c", "enter_pass_ctx"),
            trace("d"),
        ],
        false,
        expect![[r#"
            [a] enter_pass_ctx
            [b] enter_pass_ctx
            [c] enter_pass_ctx
            [b] exit_pass_ctx
            [a] exit_pass_ctx
            error: c enter_pass_ctx failed (instrument c, enter_pass_ctx)
            stack depth 0; instruments left: []
        "#]],
    );
}

#[test]
fn enter_failure_clears_the_list_for_good() {
    let mut lab = Lab::new();
    let ctx = ctx_with(vec![trace("a"), trace_failing("b", "enter_pass_ctx")]);
    assert!(lab.pm.enter(&ctx).is_err());
    assert!(lab.pm.stack().is_empty(), "not pushed");
    lab.note("-- again");
    lab.pm
        .with_context(&ctx, |pm| pm.run(&marker("P", 0, &[]), &module()))
        .unwrap();
    expect![[r#"
        [a] enter_pass_ctx
        [b] enter_pass_ctx
        [a] exit_pass_ctx
        -- again
        [body] P
    "#]]
    .assert_eq(&lab.log());
}

#[test]
fn exit_failure_stops_exiting_and_clears_the_list() {
    check(
        vec![trace("a"), trace_failing("b", "exit_pass_ctx"), trace("c")],
        false,
        expect![[r#"
            [a] enter_pass_ctx
            [b] enter_pass_ctx
            [c] enter_pass_ctx
            [a] should_run outer
            [b] should_run outer
            [c] should_run outer
            [a] run_before_pass outer
            [b] run_before_pass outer
            [c] run_before_pass outer
            [a] should_run inner
            [b] should_run inner
            [c] should_run inner
            [a] run_before_pass inner
            [b] run_before_pass inner
            [c] run_before_pass inner
            [a] should_run P
            [b] should_run P
            [c] should_run P
            [a] run_before_pass P
            [b] run_before_pass P
            [c] run_before_pass P
            [body] P
            [a] run_after_pass P
            [b] run_after_pass P
            [c] run_after_pass P
            [a] should_run Q
            [b] should_run Q
            [c] should_run Q
            [a] run_before_pass Q
            [b] run_before_pass Q
            [c] run_before_pass Q
            [body] Q
            [a] run_after_pass Q
            [b] run_after_pass Q
            [c] run_after_pass Q
            [a] run_after_pass inner
            [b] run_after_pass inner
            [c] run_after_pass inner
            [a] should_run R
            [b] should_run R
            [c] should_run R
            [a] run_before_pass R
            [b] run_before_pass R
            [c] run_before_pass R
            [body] R
            [a] run_after_pass R
            [b] run_after_pass R
            [c] run_after_pass R
            [a] run_after_pass outer
            [b] run_after_pass outer
            [c] run_after_pass outer
            [a] exit_pass_ctx
            [b] exit_pass_ctx
            error: b exit_pass_ctx failed (instrument b, exit_pass_ctx)
            stack depth 0; instruments left: []
        "#]],
    );
}

#[test]
fn should_run_failure_propagates_at_once() {
    check(
        vec![trace("a"), trace_failing("b", "should_run P"), trace("c")],
        false,
        expect![[r#"
            [a] enter_pass_ctx
            [b] enter_pass_ctx
            [c] enter_pass_ctx
            [a] should_run outer
            [b] should_run outer
            [c] should_run outer
            [a] run_before_pass outer
            [b] run_before_pass outer
            [c] run_before_pass outer
            [a] should_run inner
            [b] should_run inner
            [c] should_run inner
            [a] run_before_pass inner
            [b] run_before_pass inner
            [c] run_before_pass inner
            [a] should_run P
            [b] should_run P
            [a] exit_pass_ctx
            [b] exit_pass_ctx
            [c] exit_pass_ctx
            error: b should_run failed (instrument b, should_run of pass P)
            stack depth 0; instruments left: [a, b, c]
        "#]],
    );
}

#[test]
fn run_before_pass_failure_propagates_at_once() {
    check(
        vec![
            trace("a"),
            trace_failing("b", "run_before_pass P"),
            trace("c"),
        ],
        false,
        expect![[r#"
            [a] enter_pass_ctx
            [b] enter_pass_ctx
            [c] enter_pass_ctx
            [a] should_run outer
            [b] should_run outer
            [c] should_run outer
            [a] run_before_pass outer
            [b] run_before_pass outer
            [c] run_before_pass outer
            [a] should_run inner
            [b] should_run inner
            [c] should_run inner
            [a] run_before_pass inner
            [b] run_before_pass inner
            [c] run_before_pass inner
            [a] should_run P
            [b] should_run P
            [c] should_run P
            [a] run_before_pass P
            [b] run_before_pass P
            [a] exit_pass_ctx
            [b] exit_pass_ctx
            [c] exit_pass_ctx
            error: b run_before_pass failed (instrument b, run_before_pass of pass P)
            stack depth 0; instruments left: [a, b, c]
        "#]],
    );
}

#[test]
fn run_after_pass_failure_propagates_at_once() {
    check(
        vec![
            trace("a"),
            trace_failing("b", "run_after_pass P"),
            trace("c"),
        ],
        false,
        expect![[r#"
            [a] enter_pass_ctx
            [b] enter_pass_ctx
            [c] enter_pass_ctx
            [a] should_run outer
            [b] should_run outer
            [c] should_run outer
            [a] run_before_pass outer
            [b] run_before_pass outer
            [c] run_before_pass outer
            [a] should_run inner
            [b] should_run inner
            [c] should_run inner
            [a] run_before_pass inner
            [b] run_before_pass inner
            [c] run_before_pass inner
            [a] should_run P
            [b] should_run P
            [c] should_run P
            [a] run_before_pass P
            [b] run_before_pass P
            [c] run_before_pass P
            [body] P
            [a] run_after_pass P
            [b] run_after_pass P
            [a] exit_pass_ctx
            [b] exit_pass_ctx
            [c] exit_pass_ctx
            error: b run_after_pass failed (instrument b, run_after_pass of pass P)
            stack depth 0; instruments left: [a, b, c]
        "#]],
    );
}

#[test]
fn pass_body_failure_propagates_at_once() {
    check(
        vec![trace("a"), trace("b")],
        true,
        expect![[r#"
        [a] enter_pass_ctx
        [b] enter_pass_ctx
        [a] should_run outer
        [b] should_run outer
        [a] run_before_pass outer
        [b] run_before_pass outer
        [a] should_run inner
        [b] should_run inner
        [a] run_before_pass inner
        [b] run_before_pass inner
        [a] should_run P
        [b] should_run P
        [a] run_before_pass P
        [b] run_before_pass P
        [a] exit_pass_ctx
        [b] exit_pass_ctx
        error: P: pass failed
        stack depth 0; instruments left: [a, b]
    "#]],
    );
}

/// An instrument that panics in one callback.
struct Panicky(&'static str);

impl Instrument for Panicky {
    fn name(&self) -> &str {
        "Panicky"
    }
    fn run_before_pass(
        &self,
        _m: &Module,
        info: &PassInfo,
        _cx: &InstrumentCx<'_>,
    ) -> Result<(), InstrumentError> {
        if info.name() == self.0 {
            panic!("instrument bug");
        }
        Ok(())
    }
}

#[test]
fn panics_in_passes_and_instruments_become_errors_naming_the_pass() {
    let mut lab = Lab::new();
    let m = module();
    let boom = module_pass(
        PassInfo::new("Boom", 0),
        |_, _| -> Result<Module, PassError> { panic!("index out of bounds") },
    );
    let pipeline = seq("s", 0, vec![tagger("T", 0, &[]), boom]);
    let err = lab.pm.run(&pipeline, &m).unwrap_err();
    assert!(matches!(err.kind(), PassErrorKind::Panic { pass, .. } if &**pass == "Boom"));
    assert_eq!(
        err.to_string(),
        "Boom: the pass panicked: index out of bounds"
    );

    let ctx = ctx_with(vec![trace("t"), Arc::new(Panicky("Q"))]);
    let pipeline = seq("s", 0, vec![marker("P", 0, &[]), marker("Q", 0, &[])]);
    let err = lab
        .pm
        .with_context(&ctx, |pm| pm.run(&pipeline, &m))
        .unwrap_err();
    expect![[r#"
        [body] T
        [t] enter_pass_ctx
        [t] should_run s
        [t] run_before_pass s
        [t] should_run P
        [t] run_before_pass P
        [body] P
        [t] run_after_pass P
        [t] should_run Q
        [t] run_before_pass Q
        [t] exit_pass_ctx
        error: the instrument panicked: instrument bug (instrument Panicky, run_before_pass of pass Q)
    "#]]
    .assert_eq(&format!("{}error: {err}\n", lab.log()));
    // The session goes on: the same manager runs passes on the same module afterwards.
    assert!(lab.pm.stack().is_empty());
    let out = lab.pm.run(&tagger("T", 0, &[]), &m).unwrap();
    assert_eq!(tags(&out), ["T"]);
    assert!(tags(&m).is_empty());
}

/// An instrument that panics when entered.
struct PanicOnEnter;

impl Instrument for PanicOnEnter {
    fn name(&self) -> &str {
        "PanicOnEnter"
    }
    fn enter_pass_ctx(&self, _cx: &InstrumentCx<'_>) -> Result<(), InstrumentError> {
        panic!("cannot enter")
    }
}

#[test]
fn a_panic_in_enter_pass_ctx_is_an_enter_failure() {
    let mut lab = Lab::new();
    let ctx = ctx_with(vec![trace("a"), Arc::new(PanicOnEnter), trace("c")]);
    let err = lab.pm.enter(&ctx).unwrap_err();
    lab.note(&format!("error: {err}"));
    assert!(lab.pm.stack().is_empty() && ctx.instruments().is_empty());
    expect![[r#"
        [a] enter_pass_ctx
        [a] exit_pass_ctx
        error: the instrument panicked: cannot enter (instrument PanicOnEnter, enter_pass_ctx)
    "#]]
    .assert_eq(&lab.log());
}

#[test]
fn override_failures_follow_the_exit_and_enter_rules() {
    let lab = Lab::new();
    // Old instruments fail to exit: the list is cleared and the new ones are not installed.
    let c = ctx_with(vec![trace_failing("old", "exit_pass_ctx"), trace("old2")]);
    let err = lab
        .pm
        .override_instruments_of(&c, vec![trace("new")])
        .unwrap_err();
    lab.note(&format!("error: {err}"));
    assert!(c.instruments().is_empty());
    // New instruments fail to enter: the entered ones exit in reverse, the list is cleared.
    let err = lab
        .pm
        .override_instruments_of(
            &c,
            vec![
                trace("n1"),
                trace("n2"),
                trace_failing("n3", "enter_pass_ctx"),
            ],
        )
        .unwrap_err();
    lab.note(&format!("error: {err}"));
    assert!(c.instruments().is_empty());
    expect![[r#"
        [old] exit_pass_ctx
        error: old exit_pass_ctx failed (instrument old, exit_pass_ctx)
        [n1] enter_pass_ctx
        [n2] enter_pass_ctx
        [n3] enter_pass_ctx
        [n2] exit_pass_ctx
        [n1] exit_pass_ctx
        error: n3 enter_pass_ctx failed (instrument n3, enter_pass_ctx)
    "#]]
    .assert_eq(&lab.log());
}
