//! The funnel (SEMANTICS.md §2) and the pass kinds: should_run without short-circuit, skipped
//! passes returning their input, `required_pass` bypassing should_run, nested pass calls,
//! interrupts, the observer hooks, diagnostics, and the function-pass skip rules (§7).

mod common;

use common::pass_lab::*;
use expect_test::expect;
use passlab::instrument::Trace;
use passlab::ir::{Expr, Module};
use passlab::pass::{
    function_pass, module_pass, Flow, PassDiagnostic, PassErrorKind, PassEvent, PassInfo,
    PassObserver,
};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

#[test]
fn should_run_is_asked_of_every_instrument_and_a_skipped_pass_returns_its_input() {
    let mut lab = Lab::new();
    let ctx = ctx_with(vec![
        Arc::new(Trace::new("skipper").skip(&["T"])),
        trace("t"),
    ]);
    let m = module();
    let out = lab
        .pm
        .with_context(&ctx, |pm| pm.run(&tagger("T", 0, &[]), &m))
        .unwrap();
    assert!(
        out.same_as(&m),
        "a skipped pass returns its input module itself"
    );
    expect![[r#"
        [skipper] enter_pass_ctx
        [t] enter_pass_ctx
        [skipper] should_run T
        [t] should_run T
        [skipper] exit_pass_ctx
        [t] exit_pass_ctx
    "#]]
    .assert_eq(&lab.log());
}

#[test]
fn a_pass_in_required_pass_skips_every_should_run() {
    let mut lab = Lab::new();
    let ctx = ctx()
        .required_pass(["T"])
        .instruments(vec![
            Arc::new(Trace::new("skipper").skip(&["T", "s"])),
            trace("t"),
        ])
        .build()
        .unwrap();
    let m = module();
    let out = lab
        .pm
        .with_context(&ctx, |pm| {
            pm.run(&seq("s", 0, vec![tagger("T", 9, &[])]), &m)
        })
        .unwrap();
    assert!(out.same_as(&m), "the Sequential itself was skipped");
    let out = lab
        .pm
        .with_context(&ctx, |pm| pm.run(&tagger("T", 9, &[]), &m))
        .unwrap();
    assert_eq!(tags(&out), ["T"]);
    expect![[r#"
        [skipper] enter_pass_ctx
        [t] enter_pass_ctx
        [skipper] should_run s
        [t] should_run s
        [skipper] exit_pass_ctx
        [t] exit_pass_ctx
        [skipper] enter_pass_ctx
        [t] enter_pass_ctx
        [skipper] run_before_pass T
        [t] run_before_pass T
        [body] T
        [skipper] run_after_pass T
        [t] run_after_pass T
        [skipper] exit_pass_ctx
        [t] exit_pass_ctx
    "#]]
    .assert_eq(&lab.log());
}

#[test]
fn outcomes_tell_whether_the_module_changed() {
    let lab = Lab::new();
    let m = module();
    let same = lab.pm.apply(&marker("Same", 0, &[]), &m).unwrap();
    assert!(!same.changed && same.module.same_as(&m));
    let changed = lab.pm.apply(&tagger("T", 0, &[]), &m).unwrap();
    assert!(changed.changed && tags(&changed.module) == ["T"] && tags(&m).is_empty());
}

#[test]
fn a_run_owns_what_it_uses_and_can_move_to_another_thread() {
    fn assert_send<T: Send>() {}
    assert_send::<passlab::pass::PassCx>();
    assert_send::<passlab::pass::PassManager>();
    let mut lab = Lab::new();
    let ctx = ctx_with(vec![trace("t")]);
    lab.pm.enter(&ctx).unwrap();
    let mut cx = lab.pm.cx();
    let p = marker("P", 0, &[]);
    let m = module();
    let out = std::thread::spawn(move || cx.run(&p, &m))
        .join()
        .unwrap()
        .unwrap();
    assert!(tags(&out).is_empty());
    lab.pm.exit(&ctx).unwrap();
    expect![[r#"
        [t] enter_pass_ctx
        [t] should_run P
        [t] run_before_pass P
        [body] P
        [t] run_after_pass P
        [t] exit_pass_ctx
    "#]]
    .assert_eq(&lab.log());
}

#[test]
fn a_pass_running_another_pass_goes_through_the_funnel() {
    let mut lab = Lab::new();
    let inner = marker("Inner", 5, &[]);
    let outer = module_pass(PassInfo::new("Outer", 0), move |m, cx| cx.run(&inner, m));
    lab.pm
        .with_context(&ctx_with(vec![trace("t")]), |pm| pm.run(&outer, &module()))
        .unwrap();
    expect![[r#"
        [t] enter_pass_ctx
        [t] should_run Outer
        [t] run_before_pass Outer
        [t] should_run Inner
        [t] run_before_pass Inner
        [body] Inner
        [t] run_after_pass Inner
        [t] run_after_pass Outer
        [t] exit_pass_ctx
    "#]]
    .assert_eq(&lab.log());
}

#[test]
fn an_interrupt_stops_the_run_at_the_next_pass_boundary() {
    let mut lab = Lab::new();
    let flag = Arc::new(AtomicBool::new(false));
    lab.pm.set_interrupt(Some(flag.clone()));
    let setter = flag.clone();
    let ctrl_c = module_pass(PassInfo::new("CtrlC", 0), move |m, _| {
        setter.store(true, Ordering::SeqCst);
        Ok(m.clone())
    });
    let pipeline = seq(
        "s",
        0,
        vec![marker("A", 0, &[]), ctrl_c, marker("B", 0, &[])],
    );
    let m = module();
    let err = lab
        .pm
        .with_context(&ctx_with(vec![trace("t")]), |pm| pm.run(&pipeline, &m))
        .unwrap_err();
    assert!(matches!(err.kind(), PassErrorKind::Interrupted { pass } if &**pass == "B"));
    lab.note(&format!("error: {err}"));
    // The flag is the caller's to reset; until then nothing runs.
    let err = lab.pm.run(&pipeline, &m).unwrap_err();
    assert!(matches!(err.kind(), PassErrorKind::Interrupted { pass } if &**pass == "s"));
    flag.store(false, Ordering::SeqCst);
    lab.pm.run(&marker("C", 0, &[]), &m).unwrap();
    expect![[r#"
        [t] enter_pass_ctx
        [t] should_run s
        [t] run_before_pass s
        [t] should_run A
        [t] run_before_pass A
        [body] A
        [t] run_after_pass A
        [t] should_run CtrlC
        [t] run_before_pass CtrlC
        [t] run_after_pass CtrlC
        [t] exit_pass_ctx
        error: interrupted before pass B
        [body] C
    "#]]
    .assert_eq(&lab.log());
}

/// Records observer events and aborts before a named pass.
struct Recorder {
    events: Mutex<Vec<String>>,
    abort_before: &'static str,
}

impl PassObserver for Recorder {
    fn before_pass(&self, e: &PassEvent<'_>) -> Flow {
        let stack: Vec<&str> = e.stack.iter().map(|i| i.name()).collect();
        self.events.lock().unwrap().push(format!(
            "before {} depth={} stack=[{}]",
            e.info.name(),
            e.depth,
            stack.join(" > ")
        ));
        if e.info.name() == self.abort_before {
            Flow::Abort
        } else {
            Flow::Continue
        }
    }

    fn after_pass(&self, e: &PassEvent<'_>) -> Flow {
        assert!(e.elapsed.is_some());
        self.events.lock().unwrap().push(format!(
            "after {} changed={}",
            e.info.name(),
            e.changed().unwrap()
        ));
        Flow::Continue
    }
}

#[test]
fn the_observer_sees_every_pass_and_can_abort() {
    let mut lab = Lab::new();
    let rec = Arc::new(Recorder {
        events: Mutex::new(Vec::new()),
        abort_before: "Stop",
    });
    lab.pm.set_observer(Some(rec.clone()));
    lab.register_markers(&["R"]);
    let pipeline = seq(
        "s",
        0,
        vec![
            seq("inner", 0, vec![tagger("T", 0, &["R"])]),
            marker("Same", 0, &[]),
            marker("Stop", 0, &[]),
            marker("Never", 0, &[]),
        ],
    );
    let err = lab.pm.run(&pipeline, &module()).unwrap_err();
    assert!(matches!(err.kind(), PassErrorKind::Aborted { pass } if &**pass == "Stop"));
    expect![[r#"
        before s depth=0 stack=[]
        before inner depth=1 stack=[s]
        before R depth=2 stack=[s > inner]
        after R changed=false
        before T depth=2 stack=[s > inner]
        after T changed=true
        after inner changed=true
        before Same depth=1 stack=[s]
        after Same changed=false
        before Stop depth=1 stack=[s]
    "#]]
    .assert_eq(&(rec.events.lock().unwrap().join("\n") + "\n"));
}

#[test]
fn diagnostics_fail_the_pass_with_its_name_and_point_at_the_source() {
    let lab = Lab::new();
    let m = module();
    let warn = function_pass(PassInfo::new("Warn", 0), |g, f, _, cx| {
        let body = &f.as_function().unwrap().body;
        cx.report(
            PassDiagnostic::warning("this add is suspicious")
                .at(body)
                .in_function(g.name()),
        );
        Ok(f.clone())
    });
    let out = lab.pm.run(&warn, &m).unwrap();
    assert!(out.same_as(&m));
    let fail = function_pass(PassInfo::new("Check", 0), |g, f, _, cx| {
        let body = &f.as_function().unwrap().body;
        cx.report(
            PassDiagnostic::error("cannot handle add")
                .at(body)
                .in_function(g.name()),
        );
        Ok(f.clone())
    });
    let err = lab.pm.run(&fail, &m).unwrap_err();
    let PassErrorKind::Diagnostics { pass, diagnostics } = err.kind() else {
        panic!("{err:?}")
    };
    assert_eq!(&**pass, "Check");
    expect![[r#"
        warning: in @main: this add is suspicious
         --> main.relay:3:3
          |
        3 |   add(%x, %x)
          |   ^^^^^^^^^^^
        error: Check: in @main: cannot handle add
        error: in @main: cannot handle add
         --> main.relay:3:3
          |
        3 |   add(%x, %x)
          |   ^^^^^^^^^^^
    "#]]
    .assert_eq(&format!(
        "{}error: {err}\n{}\n",
        lab.log(),
        diagnostics[0].render(&m, false)
    ));
}

const FUNCS: &str = r#"#[version = "0.0.5"]
def @main(%x: Tensor[(2, 2), float32]) {
  %x
}
def @skip(%x: Tensor[(2, 2), float32], SkipOptimization=1) {
  %x
}
def @ext(%x: Tensor[(2, 2), float32], Extern=1) {
  %x
}
def @byoc(%x: Tensor[(2, 2), float32], Compiler="ccompiler") {
  %x
}
def @zero(%x: Tensor[(2, 2), float32], SkipOptimization=0) {
  %x
}
"#;

#[test]
fn function_passes_skip_functions_not_for_optimization() {
    let lab = Lab::new();
    let m = passlab::text::parse_module(FUNCS, "funcs.relay").unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    let visit = function_pass(PassInfo::new("Visit", 0), move |g, f, _, _| {
        log.lock().unwrap().push(g.name().to_string());
        Ok(f.clone())
    });
    let out = lab.pm.run(&visit, &m).unwrap();
    assert_eq!(*seen.lock().unwrap(), ["main", "zero"]);
    assert!(
        out.same_as(&m),
        "no function changed: the same module value"
    );

    // Rebuilding a function changes the module, keeps the order and the skipped functions.
    let rebuild = function_pass(PassInfo::new("Rebuild", 0), |_, f, _, _| {
        Ok(Expr::function(f.as_function().unwrap().clone()))
    });
    let out = lab.pm.run(&rebuild, &m).unwrap();
    assert!(!out.same_as(&m));
    assert_eq!(out.names(), m.names());
    assert!(out.get("skip").unwrap().ptr_eq(m.get("skip").unwrap()));
    assert!(!out.get("main").unwrap().ptr_eq(m.get("main").unwrap()));

    // A function pass must return a function.
    let bad = function_pass(PassInfo::new("Bad", 0), |_, f, _, _| {
        Ok(f.as_function().unwrap().body.clone())
    });
    let err = lab.pm.run(&bad, &m).unwrap_err();
    assert_eq!(
        err.to_string(),
        "Bad: returned a variable for @main; a function pass must return a function"
    );
    assert_eq!(lab.pm.run(&visit, &Module::new()).unwrap().len(), 0);
}
