//! The Rust API as `notebooks/rust-api.ipynb` uses it, without evcxr: a rewrite written with
//! the `Mutator`, wrapped as a function pass, run in a Sequential with standard passes under a
//! context with instruments, registered so that `required` lists (in Rust and in the command
//! language) can name it. Also what evcxr needs of the library: an op from another copy of the
//! op table (each evcxr cell links its own copy) is the same op.

use passlab::instrument::{PassTimingInstrument, Stats, Trace};
use passlab::ir::mutate::{mutate, rebuild_call, Mutator};
use passlab::ir::op::OpDef;
use passlab::ir::{visit, Attrs, Expr, Function, Module, Op};
use passlab::notebook::diff;
use passlab::pass::{
    function_pass, module_pass, sequential, BufferSink, ChunkKind, Pass, PassContext, PassInfo,
    PassManager,
};
use passlab::session::Session;
use passlab::text::{parse_module, print_module};
use std::sync::Arc;

const MODEL: &str = r#"
def @main(%x: Tensor[(1, 16), float32], %w: Tensor[(16, 16), float32], %b: Tensor[(16), float32]) {
  %0 = nn.dense(%x, %w, units=None);
  %1 = multiply(%0, subtract(2f, 1f));
  %2 = add(%1, %b);
  %3 = add(%2, 0f);
  %4 = nn.relu(%3);
  %5 = nn.relu(%3);
  add(%4, %5)
}
"#;

/// The notebook's rewrite: `x * 1`, `1 * x`, `x + 0`, `0 + x` become `x`.
struct AlgebraicIdentities;

impl Mutator for AlgebraicIdentities {
    fn call(&mut self, e: &Expr, callee: Expr, args: Vec<Expr>, _attrs: &Attrs) -> Expr {
        let neutral = match e.call_op_of().map(|(op, _)| op.name()) {
            Some("multiply") => 1.0,
            Some("add") => 0.0,
            _ => return rebuild_call(e, callee, args),
        };
        match args.as_slice() {
            [x, c] if c.scalar_value() == Some(neutral) => x.clone(),
            [c, x] if c.scalar_value() == Some(neutral) => x.clone(),
            _ => rebuild_call(e, callee, args),
        }
    }
}

fn simplify_arith() -> Pass {
    function_pass(PassInfo::new("SimplifyArith", 1), |_, func, _, _| {
        Ok(mutate(&mut AlgebraicIdentities, func))
    })
}

fn multiplies(m: &Module) -> usize {
    let mut n = 0;
    for (_, f) in m.functions() {
        visit::post_order(f, |e| {
            if e.call_op_of()
                .is_some_and(|(op, _)| op.name() == "multiply")
            {
                n += 1;
            }
        });
    }
    n
}

#[test]
fn a_rust_pass_in_a_pipeline_with_standard_passes() {
    let m = parse_module(MODEL, "model.relay").unwrap();
    let sink = BufferSink::new();
    let mut pm = PassManager::new(passlab::passes::registry()).with_sink(Arc::new(sink.clone()));
    let simplify = simplify_arith();

    // Alone, the pass cannot see the `1` behind `subtract(2f, 1f)`.
    let once = pm.run(&simplify, &m).unwrap();
    assert_eq!(multiplies(&once), 1);
    assert!(!print_module(&once).contains("0f"));

    let pipeline = sequential(vec![
        pm.pass("FoldConstant").unwrap(),
        simplify.clone(),
        pm.pass("EliminateCommonSubexpr").unwrap(),
    ]);
    let timing = Arc::new(PassTimingInstrument::new());
    let stats = Arc::new(Stats::new());
    let ctx = PassContext::builder()
        .opt_level(3)
        .instrument(timing.clone())
        .instrument(stats.clone())
        .build()
        .unwrap();
    let typed = pm.run(&pm.pass("InferType").unwrap(), &m).unwrap();
    let out = pm
        .with_context(&ctx, |pm| pm.run(&pipeline, &typed))
        .unwrap();
    assert_eq!(
        passlab::text::print_module_with(
            &out,
            passlab::text::PrintOptions {
                types: false,
                ..Default::default()
            }
        ),
        "#[version = \"0.0.5\"]\n\
         def @main(%x: Tensor[(1, 16), float32], %w: Tensor[(16, 16), float32], %b: Tensor[(16), float32]) -> Tensor[(1, 16), float32] {\n  \
           %0 = nn.dense(%x, %w, units=None);\n  \
           %1 = add(%0, %b);\n  \
           %2 = nn.relu(%1);\n  \
           add(%2, %2)\n\
         }\n"
    );
    let names: Vec<String> = timing.records()[0]
        .children
        .iter()
        .map(|r| r.name.to_string())
        .collect();
    assert_eq!(
        names,
        [
            "FoldConstant",
            "SimplifyArith",
            "InferType",
            "EliminateCommonSubexpr"
        ]
    );
    let simplified = stats
        .records()
        .into_iter()
        .find(|r| &*r.pass == "SimplifyArith")
        .unwrap();
    assert!(simplified.changed && simplified.nodes_after < simplified.nodes_before);
    let d = diff(&typed, &out).labels("typed", "out").to_string();
    assert!(d.contains("-  %2 = multiply(%0, %1)"), "{d}");

    // The pass changes nothing on its own output: the very same module value comes back.
    assert!(pm.run(&simplify, &out).unwrap().same_as(&out));
}

#[test]
fn a_registered_rust_pass_is_found_by_required_lists() {
    let m = parse_module(MODEL, "model.relay").unwrap();
    let sink = BufferSink::new();
    let mut pm = PassManager::new(passlab::passes::registry()).with_sink(Arc::new(sink.clone()));
    assert!(pm.pass("SimplifyArith").is_err(), "not registered yet");
    pm.register(simplify_arith(), "x*1 -> x, x+0 -> x");
    let count = module_pass(
        PassInfo::new("CountMultiplies", 0).required_passes(&["SimplifyArith"]),
        |m, cx| {
            cx.emit(ChunkKind::Log, &format!("{} multiply left", multiplies(m)));
            Ok(m.clone())
        },
    );
    let traced = PassContext::builder()
        .instrument(Arc::new(Trace::new("t")))
        .build()
        .unwrap();
    pm.with_context(&traced, |pm| {
        pm.run(&sequential(vec![pm.pass("FoldConstant")?, count]), &m)
    })
    .unwrap();
    let log = sink.contents();
    let at = |s: &str| log.find(s).unwrap_or_else(|| panic!("{s:?} not in\n{log}"));
    assert!(at("[t] run_after_pass FoldConstant") < at("[t] run_before_pass SimplifyArith"));
    assert!(at("[t] run_after_pass SimplifyArith") < at("[t] run_before_pass CountMultiplies"));
    assert!(log.contains("0 multiply left"), "{log}");
}

#[test]
fn a_rust_pass_registered_in_a_session_is_a_constructor_of_the_language() {
    let mut session = Session::new();
    session.register(simplify_arith(), "x*1 -> x").unwrap();
    let err = session
        .register(
            module_pass(PassInfo::new("InferType", 0), |m, _| Ok(m.clone())),
            "",
        )
        .unwrap_err();
    assert_eq!(
        err.message,
        "`InferType` is a built-in pass and cannot be replaced"
    );
    let out = session.execute(
        "m = parse(\"def @main(%x: float32) { add(multiply(%x, 1f), 0f) }\")\n\
         tidy = module_pass(name=\"Tidy\", required=[\"SimplifyArith\"])\n\
         print(Sequential([tidy])(m))\n\
         print(SimplifyArith()(m))",
    );
    assert!(!out.is_error(), "{}", out.plain());
    let simplified = "def @main(%x: float32) {\n  %x\n}";
    assert_eq!(
        out.plain().matches(simplified).count(),
        2,
        "{}",
        out.plain()
    );
}

#[test]
fn an_op_from_another_copy_of_the_op_table_is_the_same_op() {
    // What a module parsed in one evcxr cell holds: ops pointing into that cell's copy.
    let add = Op::get("add").unwrap();
    let copy: &'static OpDef = Box::leak(Box::new(OpDef { ..*add.0 }));
    let other = Op(copy);
    assert!(!std::ptr::eq(add.0, other.0));
    assert_eq!(add, other);
    assert_ne!(Op::get("multiply").unwrap(), other);

    let m = parse_module("def @main(%x: float32) { add(%x, %x) }", "m").unwrap();
    let f = m.get_function("main").unwrap();
    let call = f.body.as_call().unwrap();
    let body = Expr::call(Expr::op(other), call.args.clone(), Attrs::NONE);
    let mut m2 = Module::new();
    m2.add("main", Expr::function(Function { body, ..f.clone() }))
        .unwrap();
    let pm = PassManager::new(passlab::passes::registry());
    let typed = pm.run(&pm.pass("InferType").unwrap(), &m2).unwrap();
    assert!(
        print_module(&typed).contains("add(%x, %x) /* ty=float32 */"),
        "{}",
        print_module(&typed)
    );
}

/// A session that streams (`set_live`) hands each part to the front end as it is produced:
/// instrument output while the pass runs; displays and `print`
/// in statement order; and returns only the tail: the input's result (or its error).
#[test]
fn a_live_session_streams_parts_in_order_and_returns_the_result() {
    use passlab::session::{Part, PartKind};
    use std::sync::Mutex;
    let seen: Arc<Mutex<Vec<(PartKind, String, std::thread::ThreadId)>>> = Arc::default();
    let mut s = Session::new();
    let log = seen.clone();
    s.set_live(Some(Arc::new(move |p: &Part| {
        log.lock()
            .unwrap()
            .push((p.kind, p.plain.clone(), std::thread::current().id()))
    })));
    let out = s.execute(
        "m = parse(\"def @main(%x: float32) { add(%x, 1f) }\")\nshow m\nprint(\"between\")\n\
         with PassContext(instruments=[Trace(name=\"t\")]) {\n  m2 = InferType()(m)\n}\nequal(m, m)",
    );
    let seen = seen.lock().unwrap();
    let me = std::thread::current().id();
    assert_eq!(seen[0].0, PartKind::Display);
    assert!(seen[0].1.contains("def @main"), "{:?}", seen[0]);
    assert_eq!(seen[1].1, "between\n");
    let trace: Vec<_> = seen
        .iter()
        .filter(|(_, t, _)| t.starts_with("[t] "))
        .collect();
    assert_eq!(trace.first().unwrap().1, "[t] enter_pass_ctx\n");
    assert_eq!(trace.last().unwrap().1, "[t] exit_pass_ctx\n");
    // The pass's own lines are streamed as it runs: with no breakpoint set, the run is on the
    // session's own thread (a run that can pause gets a thread of its own: `tests/run_state.rs`).
    let during: Vec<_> = trace
        .iter()
        .filter(|(_, t, _)| t.contains("InferType"))
        .collect();
    assert!(
        !during.is_empty() && during.iter().all(|(_, _, id)| *id == me),
        "{during:?}"
    );
    // The result is not streamed: it is the whole of what `execute` returns.
    assert_eq!(out.parts.len(), 1, "{out:?}");
    assert_eq!(out.result(), Some(0));
    assert_eq!(out.parts[0].plain, "true\n");
    assert!(!seen.iter().any(|(_, t, _)| t == "true\n"));
    drop(seen);

    // An error is kept for the front end, after what streamed before it.
    let out = s.execute("print(\"a\")\nnope");
    assert!(out.is_error() && out.parts.len() == 1, "{out:?}");
    assert!(out.parts[0].plain.contains("unknown name `nope`"));
    // Without a live front end, everything is returned, as before.
    s.set_live(None);
    let out = s.execute("print(\"a\")\n1");
    assert_eq!(out.plain(), "a\n1\n");
}
