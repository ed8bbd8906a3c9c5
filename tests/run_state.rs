//! The state a pass run owns (`pass::run_state`): the memo tables the passes fill exist while
//! the run goes and are gone when it returns, through the library and through a session; and
//! a session runs a pass application on its own thread unless a breakpoint could pause it.

use passlab::ir::Module;
use passlab::pass::run_state::tables_in_use;
use passlab::pass::{module_pass, PassInfo, PassManager};
use passlab::session::{Session, Value};
use std::sync::{Arc, Mutex};
use std::thread::ThreadId;

const BATCH_NORM: &str = r#"#[version = "0.0.5"]
def @main(%x: Tensor[(1, 4, 8, 8), float32], %g: Tensor[(4), float32], %b: Tensor[(4), float32], %m: Tensor[(4), float32], %v: Tensor[(4), float32]) {
  %0 = nn.batch_norm(%x, %g, %b, %m, %v, epsilon=2e-05f);
  %1 = %0.0;
  nn.relu(%1)
}
"#;

fn module() -> Module {
    passlab::text::parse_module(BATCH_NORM, "batch_norm.relay").unwrap()
}

/// What a probe pass saw while it ran: the tables of the run after InferType and
/// SimplifyInference ran inside it, and the thread it ran on.
#[derive(Default)]
struct Seen {
    tables: Vec<usize>,
    threads: Vec<ThreadId>,
}

/// A pass that runs InferType and SimplifyInference through the funnel, then notes what it
/// saw in `seen`.
fn probe(pm: &PassManager, seen: Arc<Mutex<Seen>>) -> passlab::pass::Pass {
    let infer = pm.create("InferType", &Default::default()).unwrap();
    let simplify = pm.create("SimplifyInference", &Default::default()).unwrap();
    module_pass(PassInfo::new("Probe", 0), move |m, cx| {
        let typed = cx.run(&infer, m)?;
        let out = cx.run(&simplify, &typed)?;
        let mut seen = seen.lock().unwrap();
        seen.tables.push(tables_in_use());
        seen.threads.push(std::thread::current().id());
        Ok(out)
    })
}

#[test]
fn a_runs_tables_are_dropped_when_the_run_returns() {
    let pm = PassManager::new(passlab::passes::registry());
    let seen = Arc::new(Mutex::new(Seen::default()));
    let pass = probe(&pm, seen.clone());
    assert_eq!(tables_in_use(), 0, "no run yet");
    for _ in 0..2 {
        let out = pm.run(&pass, &module()).unwrap();
        assert!(passlab::text::print_module(&out).contains("sqrt("));
        assert_eq!(tables_in_use(), 0, "the run's tables went with it");
    }
    // InferType's rule answers and the types of the calls SimplifyInference built, in each
    // run (the second run made its own: nothing was left from the first).
    assert_eq!(seen.lock().unwrap().tables, [2, 2]);
}

#[test]
fn a_session_runs_a_pass_on_its_own_thread_unless_it_can_pause() {
    let pm = PassManager::new(passlab::passes::registry());
    let seen = Arc::new(Mutex::new(Seen::default()));
    let mut s = Session::new();
    s.set_html(false);
    s.set_var("m", Value::Module(module()));
    s.set_var("probe", Value::Pass(probe(&pm, seen.clone())));
    let out = s.execute("out = probe(m)");
    assert!(!out.is_error(), "{}", out.plain());
    assert_eq!(tables_in_use(), 0, "the run's tables went with it");
    // A breakpoint can pause the run: it then goes on a thread of its own.
    for stmt in [
        "break after SimplifyInference",
        "out = probe(m)",
        "continue",
    ] {
        let out = s.execute(stmt);
        assert!(!out.is_error(), "{stmt}: {}", out.plain());
    }
    let history = s.execute("history");
    assert!(
        history.plain().contains("SimplifyInference"),
        "{}",
        history.plain()
    );
    let seen = seen.lock().unwrap();
    let here = std::thread::current().id();
    assert_eq!(seen.threads.len(), 2);
    assert_eq!(seen.threads[0], here, "no breakpoint: the session's thread");
    assert_ne!(seen.threads[1], here, "a breakpoint: the run's own thread");
    assert_eq!(seen.tables, [2, 2]);
}

/// Each worker of a parallel function pass runs its functions inside a run of its own: the
/// type rule answers a function's body asks for land in that run's table (not in a table the
/// worker thread keeps), and nothing of it is left on the calling thread afterwards.
#[test]
fn a_parallel_workers_functions_run_inside_a_run() {
    let text = (0..8)
        .map(|i| format!("def @f{i}(%x: Tensor[(1, 8), float32]) {{ add(%x, %x) }}\n"))
        .collect::<String>();
    let m =
        passlab::text::parse_module(&format!("#[version = \"0.0.5\"]\n{text}"), "f.relay").unwrap();
    let seen = Arc::new(Mutex::new(Seen::default()));
    let s = seen.clone();
    let pass = passlab::pass::leaf_function_pass(PassInfo::new("Probe", 0), move |_, f, _, _| {
        let typed = passlab::passes::infer_type::infer_expr(f, None).expect("typed");
        let mut seen = s.lock().unwrap();
        seen.tables.push(tables_in_use());
        seen.threads.push(std::thread::current().id());
        Ok(typed)
    });
    let ctx = passlab::pass::PassContext::builder()
        .config("passlab.num_threads", 2i64)
        .build()
        .unwrap();
    let mut pm = PassManager::new(passlab::passes::registry());
    pm.with_context(&ctx, |pm| pm.run(&pass, &m)).unwrap();
    assert_eq!(tables_in_use(), 0);
    let seen = seen.lock().unwrap();
    let here = std::thread::current().id();
    assert_eq!(seen.tables.len(), 8);
    assert!(seen.threads.iter().all(|t| *t != here), "on the workers");
    // The rule answers of `add` stay in the worker's run for the function's body.
    assert!(seen.tables.iter().all(|&n| n >= 1), "{:?}", seen.tables);
}
