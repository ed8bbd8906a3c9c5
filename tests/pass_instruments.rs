//! The built-in instruments (SEMANTICS.md §6, LANGUAGE.md): timing (nesting, TVM's render,
//! the table, records after exit), DumpIR (names, counter, refresh, atomic writes), the
//! printing instruments and PrintIR, PrintChanged, Skip, Bisect, Verify and Stats.

mod common;

use common::pass_lab::*;
use expect_test::expect;
use passlab::instrument::{
    Bisect, DumpIR, InstrumentRef, ManualClock, PassPrintingInstrument, PassTimingInstrument,
    PrintAfterAll, PrintBeforeAll, PrintChanged, RecordStatus, Skip, Stats, Verify,
};
use passlab::ir::{Expr, Function, Var};
use passlab::pass::{function_pass, module_pass, Pass, PassError, PassInfo, PassOptions};
use std::path::PathBuf;
use std::sync::Arc;

/// A pass that advances the manual clock by `us` microseconds.
fn takes(name: &str, clock: &ManualClock, us: u64) -> Pass {
    let clock = clock.clone();
    module_pass(PassInfo::new(name, 0), move |m, _| {
        clock.advance_us(us);
        Ok(m.clone())
    })
}

#[test]
fn timing_records_nest_and_render_like_tvm() {
    let mut lab = Lab::new();
    let clock = ManualClock::new();
    let timing = Arc::new(PassTimingInstrument::with_clock(Arc::new(clock.clone())));
    let ctx = ctx()
        .instruments(vec![
            timing.clone() as InstrumentRef,
            Arc::new(Skip::new(&["Skipped"])),
        ])
        .build()
        .unwrap();
    let inner = seq(
        "inner",
        0,
        vec![takes("B", &clock, 200), takes("C", &clock, 300)],
    );
    let outer = seq(
        "outer",
        0,
        vec![
            takes("A", &clock, 100),
            inner,
            takes("Skipped", &clock, 1000),
            takes("D", &clock, 50),
        ],
    );
    let m = module();
    lab.pm
        .with_context(&ctx, |pm| {
            pm.run(&outer, &m)?;
            pm.run(&takes("Last", &clock, 350), &m)
        })
        .unwrap();
    // passlab: the records outlive the context.
    expect![[r#"
        outer: 650us [0us] (65.00%; 65.00%)
        	A: 100us [100us] (10.00%; 15.38%)
        	inner: 500us [0us] (50.00%; 76.92%)
        		B: 200us [200us] (20.00%; 40.00%)
        		C: 300us [300us] (30.00%; 60.00%)
        	D: 50us [50us] (5.00%; 7.69%)
        Last: 350us [350us] (35.00%; 35.00%)
    "#]]
    .assert_eq(&timing.render());
    expect![[r#"
        ┌──────────┬────────┬────────┬───────┬──────────┐
        │ pass     ┆  total ┆   self ┆ % all ┆ % parent │
        ╞══════════╪════════╪════════╪═══════╪══════════╡
        │ outer    ┆ 650 us ┆   0 us ┆  65.0 ┆     65.0 │
        │ ├─ A     ┆ 100 us ┆ 100 us ┆  10.0 ┆     15.4 │
        │ ├─ inner ┆ 500 us ┆   0 us ┆  50.0 ┆     76.9 │
        │ │  ├─ B  ┆ 200 us ┆ 200 us ┆  20.0 ┆     40.0 │
        │ │  └─ C  ┆ 300 us ┆ 300 us ┆  30.0 ┆     60.0 │
        │ └─ D     ┆  50 us ┆  50 us ┆   5.0 ┆      7.7 │
        │ Last     ┆ 350 us ┆ 350 us ┆  35.0 ┆     35.0 │
        └──────────┴────────┴────────┴───────┴──────────┘"#]]
    .assert_eq(&timing.render_table());
    // Entering again starts afresh.
    lab.pm.with_context(&ctx, |_| Ok(())).unwrap();
    assert!(timing.records().is_empty());
    assert_eq!(timing.render(), "");
}

#[test]
fn timing_keeps_records_of_failed_passes_and_reads_through_dyn_instrument() {
    let mut lab = Lab::new();
    let clock = ManualClock::new();
    let timing: passlab::instrument::InstrumentRef =
        Arc::new(PassTimingInstrument::with_clock(Arc::new(clock.clone())));
    let ctx = ctx_with(vec![timing.clone()]);
    let c = clock.clone();
    let broken = module_pass(PassInfo::new("Broken", 0), move |_, _| {
        c.advance_us(7);
        Err(PassError::failed("no"))
    });
    let m = module();
    let pipeline = seq("s", 0, vec![takes("A", &clock, 10), broken]);
    let _ = lab.pm.with_context(&ctx, |pm| pm.run(&pipeline, &m));
    lab.pm
        .with_context(&ctx, |pm| {
            assert!(pm.run(&pipeline, &m).is_err());
            pm.run(&takes("B", &clock, 5), &m)
        })
        .unwrap();
    let t = timing.downcast_ref::<PassTimingInstrument>().unwrap();
    // The failed pass and the Sequential it failed keep their records, with what ran inside.
    expect![[r#"
        s (failed): 17us [0us] (77.27%; 77.27%)
        	A: 10us [10us] (45.45%; 58.82%)
        	Broken (failed): 7us [7us] (31.82%; 41.18%)
        B: 5us [5us] (22.73%; 22.73%)
    "#]]
    .assert_eq(&t.render());
}

#[test]
fn timing_keeps_records_of_an_interrupted_run() {
    let mut lab = Lab::new();
    let clock = ManualClock::new();
    let timing = Arc::new(PassTimingInstrument::with_clock(Arc::new(clock.clone())));
    let ctx = ctx_with(vec![timing.clone() as InstrumentRef]);
    let flag = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let f = flag.clone();
    let c = clock.clone();
    let stop = module_pass(PassInfo::new("Stop", 0), move |m, _| {
        c.advance_us(3);
        f.store(true, std::sync::atomic::Ordering::Relaxed);
        Ok(m.clone())
    });
    lab.pm.set_interrupt(Some(flag.clone()));
    let pipeline = seq(
        "s",
        0,
        vec![takes("A", &clock, 10), stop, takes("Never", &clock, 1)],
    );
    let m = module();
    let err = lab
        .pm
        .with_context(&ctx, |pm| pm.run(&pipeline, &m))
        .unwrap_err();
    assert!(err.to_string().contains("interrupted"), "{err}");
    let names: Vec<String> = timing.records()[0]
        .children
        .iter()
        .map(|r| r.name.to_string())
        .collect();
    assert_eq!(names, ["A", "Stop"]);
    assert_eq!(timing.records()[0].status, RecordStatus::Failed);
    assert_eq!(timing.records()[0].total.as_micros(), 13);
}

/// An observer that holds the run after `at` while the manual clock advances by `us`, as a
/// user paused at a breakpoint would; while it holds the run it reads the timing instrument.
struct Holder {
    at: &'static str,
    clock: ManualClock,
    us: u64,
    timing: Arc<PassTimingInstrument>,
    seen: std::sync::Mutex<Vec<String>>,
}

impl passlab::pass::observer::PassObserver for Holder {
    fn after_pass(
        &self,
        ev: &passlab::pass::observer::PassEvent<'_>,
    ) -> passlab::pass::observer::Flow {
        if ev.info.name() == self.at {
            self.clock.advance_us(self.us);
            *self.seen.lock().unwrap() = self
                .timing
                .records_paused(ev.stack)
                .iter()
                .map(|r| passlab::instrument::timing::render_records(std::slice::from_ref(r)))
                .collect();
        }
        passlab::pass::observer::Flow::Continue
    }
}

#[test]
fn time_a_debugger_holds_the_run_is_no_pass_time_and_running_passes_show_while_paused() {
    let mut lab = Lab::new();
    let clock = ManualClock::new();
    let timing = Arc::new(PassTimingInstrument::with_clock(Arc::new(clock.clone())));
    let holder = Arc::new(Holder {
        at: "B",
        clock: clock.clone(),
        us: 5_000_000,
        timing: timing.clone(),
        seen: Default::default(),
    });
    lab.pm.set_observer(Some(holder.clone()));
    let ctx = ctx_with(vec![timing.clone() as InstrumentRef]);
    let inner = seq(
        "inner",
        0,
        vec![takes("B", &clock, 200), takes("C", &clock, 300)],
    );
    let outer = seq("outer", 0, vec![takes("A", &clock, 100), inner]);
    let m = module();
    lab.pm.with_context(&ctx, |pm| pm.run(&outer, &m)).unwrap();
    // The 5 s held after B count nowhere.
    expect![[r#"
        outer: 600us [0us] (100.00%; 100.00%)
        	A: 100us [100us] (16.67%; 16.67%)
        	inner: 500us [0us] (83.33%; 83.33%)
        		B: 200us [200us] (33.33%; 40.00%)
        		C: 300us [300us] (50.00%; 60.00%)
    "#]]
    .assert_eq(&timing.render());
    // Paused after B: the two Sequentials are running, with what finished inside them.
    expect![[r#"
        [
            "outer (running): 300us [0us] (100.00%; 100.00%)\n\tA: 100us [100us] (33.33%; 33.33%)\n\tinner (running): 200us [0us] (66.67%; 66.67%)\n\t\tB: 200us [200us] (66.67%; 100.00%)\n",
        ]
    "#]]
    .assert_debug_eq(&holder.seen.lock().unwrap());
}

#[test]
fn timing_nests_past_its_start_slots_and_lifts_children_of_untimed_passes() {
    // Forty Sequentials one inside the other, the leaf 7us deep: the innermost starts are
    // kept beyond the lock-free slots (32 depths).
    let mut lab = Lab::new();
    let clock = ManualClock::new();
    let timing = Arc::new(PassTimingInstrument::with_clock(Arc::new(clock.clone())));
    let ctx = ctx()
        .instruments(vec![timing.clone() as InstrumentRef])
        .build()
        .unwrap();
    let mut p = takes("leaf", &clock, 7);
    for i in (0..40).rev() {
        p = seq(&format!("s{i}"), 0, vec![p]);
    }
    let m = module();
    lab.pm.with_context(&ctx, |pm| pm.run(&p, &m)).unwrap();
    let rendered = timing.render();
    let lines: Vec<&str> = rendered.lines().collect();
    assert_eq!(lines.len(), 41, "{rendered}");
    for (i, line) in lines.iter().enumerate() {
        let name = if i == 40 {
            "leaf".to_string()
        } else {
            format!("s{i}")
        };
        assert_eq!(
            *line,
            format!(
                "{}{name}: 7us [{}us] (100.00%; 100.00%)",
                "\t".repeat(i),
                if i == 40 { 7 } else { 0 }
            )
        );
    }

    // A pass that clears the instrument mid-run: the passes running then (`outer`, `Clear`)
    // end untimed, and what ends after under them is lifted to the top: visible while
    // `outer` still runs (the probe reads it) and after it ends.
    let seen = Arc::new(std::sync::Mutex::new(String::new()));
    let clear = {
        let timing = timing.clone();
        module_pass(PassInfo::new("Clear", 0), move |m, _| {
            timing.clear();
            Ok(m.clone())
        })
    };
    let probe = {
        let (timing, seen) = (timing.clone(), seen.clone());
        module_pass(PassInfo::new("Probe", 0), move |m, _| {
            *seen.lock().unwrap() = timing.render();
            Ok(m.clone())
        })
    };
    let outer = seq(
        "outer",
        0,
        vec![
            takes("A", &clock, 10),
            clear,
            seq("inner", 0, vec![takes("B", &clock, 20)]),
            probe,
        ],
    );
    lab.pm.with_context(&ctx, |pm| pm.run(&outer, &m)).unwrap();
    expect![[r#"
        inner: 20us [0us] (100.00%; 100.00%)
        	B: 20us [20us] (100.00%; 100.00%)
    "#]]
    .assert_eq(&seen.lock().unwrap());
    expect![[r#"
        inner: 20us [0us] (100.00%; 100.00%)
        	B: 20us [20us] (100.00%; 100.00%)
        Probe: 0us [0us] (0.00%; 0.00%)
    "#]]
    .assert_eq(&timing.render());
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("passlab-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn listing(dir: &std::path::Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn dump_ir_names_numbers_and_writes_parseable_files() {
    let mut lab = Lab::new();
    let dir = temp_dir("dump");
    let dump = Arc::new(DumpIR::new(&dir));
    let ctx = ctx()
        .instruments(vec![
            dump.clone() as InstrumentRef,
            Arc::new(Skip::new(&["Skipped"])),
        ])
        .build()
        .unwrap();
    let pipeline = seq(
        "s",
        0,
        vec![
            tagger("T", 0, &[]),
            marker("Skipped", 0, &[]),
            marker(r#"a<b>:c"d/e\f|g?h*"#, 0, &[]),
        ],
    );
    let m = module();
    lab.pm
        .with_context(&ctx, |pm| pm.run(&pipeline, &m))
        .unwrap();
    assert!(!dir.exists() || listing(&dir).len() == 3);
    // The counter survives across contexts.
    let other = ctx_with(vec![dump.clone()]);
    lab.pm
        .with_context(&other, |pm| pm.run(&marker("U", 0, &[]), &m))
        .unwrap();
    expect![[r#"
        000_T.relay
        001_a_b__c_d_e_f_g_h_.relay
        002_s.relay
        003_U.relay
    "#]]
    .assert_eq(&(listing(&dir).join("\n") + "\n"));
    let text = std::fs::read_to_string(dir.join("000_T.relay")).unwrap();
    let back = passlab::text::parse_module(&text, "dump").unwrap();
    assert!(passlab::ir::module_equal(&back, &m, false));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn dump_ir_refresh_removes_only_a_directory_of_dumps() {
    let mut lab = Lab::new();
    let m = module();
    let p = marker("P", 0, &[]);
    // Only dumps: removed before the first new dump.
    let dir = temp_dir("refresh");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("000_Old.relay"), "old").unwrap();
    std::fs::write(dir.join("017_Older.relay"), "old").unwrap();
    let ctx = ctx_with(vec![Arc::new(DumpIR::with_refresh(&dir, true))]);
    lab.pm.with_context(&ctx, |pm| pm.run(&p, &m)).unwrap();
    assert_eq!(listing(&dir), ["000_P.relay"]);
    // Anything else: a warning, and everything is kept.
    std::fs::write(dir.join("notes.txt"), "mine").unwrap();
    let ctx = ctx_with(vec![Arc::new(DumpIR::with_refresh(&dir, true))]);
    lab.pm.with_context(&ctx, |pm| pm.run(&p, &m)).unwrap();
    assert_eq!(listing(&dir), ["000_P.relay", "notes.txt"]);
    let log = lab.log();
    assert!(
        log.contains("\nwarning: DumpIR keeps ")
            && log.contains(": it holds notes.txt, which is not a dump file\n"),
        "{log}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A function pass replacing every function body by its first parameter.
fn drop_body() -> Pass {
    function_pass(PassInfo::new("DropBody", 1), |_, f, _, _| {
        let f = f.as_function().unwrap();
        Ok(Expr::function(Function {
            body: Expr::var(&f.params[0]),
            ..f.clone()
        }))
    })
}

/// A function pass rebuilding every function as an equal one (new nodes, same structure).
fn rebuild() -> Pass {
    function_pass(PassInfo::new("Rebuild", 0), |_, f, _, _| {
        Ok(Expr::function(f.as_function().unwrap().clone()))
    })
}

#[test]
fn print_changed_prints_a_diff_only_when_the_ir_changed() {
    let mut lab = Lab::new();
    let ctx = ctx_with(vec![Arc::new(PrintChanged::new())]);
    let pipeline = seq(
        "s",
        0,
        vec![marker("Same", 0, &[]), rebuild(), drop_body(), drop_body()],
    );
    lab.pm
        .with_context(&ctx, |pm| pm.run(&pipeline, &module()))
        .unwrap();
    expect![[r#"
        [body] Same
        DropBody changed @main
        --- before DropBody
        +++ after DropBody
        @@ -1,4 +1,4 @@
         #[version = "0.0.5"]
         def @main(%x: Tensor[(2, 2), float32]) {
        -  add(%x, %x)
        +  %x
         }
    "#]]
    .assert_eq(&lab.log());
}

#[test]
fn printing_instruments_and_the_print_ir_pass() {
    let mut lab = Lab::new();
    let print_ir = lab
        .pm
        .create("PrintIR", &PassOptions::new().with("header", "after drop"))
        .unwrap();
    assert_eq!(print_ir.info().opt_level(), 0);
    let pipeline = seq("s", 0, vec![drop_body(), print_ir]);
    let m = module();
    for inst in [
        vec![Arc::new(PrintBeforeAll) as passlab::instrument::InstrumentRef],
        vec![Arc::new(PrintAfterAll)],
        vec![Arc::new(PassPrintingInstrument::new(&["DropBody"], &["s"]))],
    ] {
        let name = inst[0].name().to_string();
        lab.note(&format!("=== {name}"));
        let out = lab
            .pm
            .with_context(&ctx_with(inst), |pm| pm.run(&pipeline, &m))
            .unwrap();
        assert!(!out.same_as(&m));
    }
    expect![[r#"
        === PrintBeforeAll
        Before Running Pass: The meta data of the pass - pass name: s, opt_level: 0, required passes: []
        #[version = "0.0.5"]
        def @main(%x: Tensor[(2, 2), float32]) {
          add(%x, %x)
        }
        Before Running Pass: The meta data of the pass - pass name: DropBody, opt_level: 1, required passes: []
        #[version = "0.0.5"]
        def @main(%x: Tensor[(2, 2), float32]) {
          add(%x, %x)
        }
        Before Running Pass: The meta data of the pass - pass name: PrintIR, opt_level: 0, required passes: []
        #[version = "0.0.5"]
        def @main(%x: Tensor[(2, 2), float32]) {
          %x
        }
        PrintIR(after drop):
        #[version = "0.0.5"]
        def @main(%x: Tensor[(2, 2), float32]) {
          %x
        }
        === PrintAfterAll
        After Running Pass: The meta data of the pass - pass name: DropBody, opt_level: 1, required passes: []
        #[version = "0.0.5"]
        def @main(%x: Tensor[(2, 2), float32]) {
          %x
        }
        PrintIR(after drop):
        #[version = "0.0.5"]
        def @main(%x: Tensor[(2, 2), float32]) {
          %x
        }
        After Running Pass: The meta data of the pass - pass name: PrintIR, opt_level: 0, required passes: []
        #[version = "0.0.5"]
        def @main(%x: Tensor[(2, 2), float32]) {
          %x
        }
        After Running Pass: The meta data of the pass - pass name: s, opt_level: 0, required passes: []
        #[version = "0.0.5"]
        def @main(%x: Tensor[(2, 2), float32]) {
          %x
        }
        === PassPrintingInstrument
        Print IR before: DropBody
        #[version = "0.0.5"]
        def @main(%x: Tensor[(2, 2), float32]) {
          add(%x, %x)
        }

        PrintIR(after drop):
        #[version = "0.0.5"]
        def @main(%x: Tensor[(2, 2), float32]) {
          %x
        }
        Print IR after: s
        #[version = "0.0.5"]
        def @main(%x: Tensor[(2, 2), float32]) {
          %x
        }

    "#]]
    .assert_eq(&lab.log());
}

#[test]
fn skip_and_bisect_decide_should_run() {
    let mut lab = Lab::new();
    let pipeline = seq(
        "s",
        0,
        vec![
            marker("A", 0, &[]),
            seq("inner", 0, vec![marker("B", 0, &[]), marker("C", 0, &[])]),
            marker("D", 0, &[]),
        ],
    );
    let m = module();
    lab.note("=== Skip([B, D])");
    let ctx = ctx_with(vec![Arc::new(Skip::new(&["B", "D"]))]);
    lab.pm
        .with_context(&ctx, |pm| pm.run(&pipeline, &m))
        .unwrap();
    lab.note("=== Bisect(2)");
    let bisect = Arc::new(Bisect::new(2));
    let ctx = ctx_with(vec![bisect.clone()]);
    lab.pm
        .with_context(&ctx, |pm| pm.run(&pipeline, &m))
        .unwrap();
    assert_eq!(bisect.ran(), 2);
    expect![[r#"
        === Skip([B, D])
        [body] A
        [body] C
        === Bisect(2)
        BISECT: running pass (1) A
        [body] A
        BISECT: running pass (2) B
        [body] B
        BISECT: NOT running pass (3) C
        BISECT: NOT running pass (4) D
    "#]]
    .assert_eq(&lab.log());
}

#[test]
fn verify_names_the_pass_that_broke_the_ir() {
    let mut lab = Lab::new();
    let breaker = function_pass(PassInfo::new("Break", 0), |_, f, _, _| {
        let f = f.as_function().unwrap();
        let stray = Var::new("stray", None);
        Ok(Expr::function(Function {
            body: Expr::var(&stray),
            ..f.clone()
        }))
    });
    let pipeline = seq("s", 0, vec![drop_body(), breaker, marker("After", 0, &[])]);
    let ctx = ctx_with(vec![Arc::new(Verify::new()), trace("t")]);
    let err = lab
        .pm
        .with_context(&ctx, |pm| pm.run(&pipeline, &module()))
        .unwrap_err();
    assert_eq!(err.pass(), Some("Break"));
    expect![[r#"
        [t] enter_pass_ctx
        [t] should_run s
        [t] run_before_pass s
        [t] should_run DropBody
        [t] run_before_pass DropBody
        [t] run_after_pass DropBody
        [t] should_run Break
        [t] run_before_pass Break
        [t] exit_pass_ctx
        error: pass Break broke the IR: ill-formed IR: in @main: variable %stray is used but not bound here (instrument Verify, run_after_pass of pass Break)
    "#]]
    .assert_eq(&format!("{}error: {err}\n", lab.log()));
}

#[test]
fn stats_count_nodes_before_and_after() {
    let mut lab = Lab::new();
    let stats = Arc::new(Stats::new());
    let ctx = ctx_with(vec![stats.clone()]);
    let pipeline = seq("s", 0, vec![marker("Same", 0, &[]), drop_body()]);
    lab.pm
        .with_context(&ctx, |pm| pm.run(&pipeline, &module()))
        .unwrap();
    let records: Vec<String> = stats
        .records()
        .iter()
        .map(|r| {
            format!(
                "{} {} depth={} {} -> {} changed={}",
                r.kind, r.pass, r.depth, r.nodes_before, r.nodes_after, r.changed
            )
        })
        .collect();
    expect![[r#"
        [body] Same
        Stats: Same 4 -> 4 nodes, unchanged
        Stats: DropBody 4 -> 2 nodes, changed
        module Same depth=1 4 -> 4 changed=false
        function DropBody depth=1 4 -> 2 changed=true
        sequential s depth=0 4 -> 2 changed=true
    "#]]
    .assert_eq(&format!("{}{}\n", lab.log(), records.join("\n")));
}
