//! A user-written function pass, registered by name and run in a pipeline under a context
//! with instruments. The pass is the seed's example: collapse every `if` to its true branch.
//! Run: `cargo run --example custom_pass`.
//!
//! The rewrite is written by hand over `ExprKind` here (rebuilding only the nodes on the path
//! to a change, memoized by node identity); the traversal API makes this a few lines.

use passlab::instrument::{PassTimingInstrument, PrintChanged};
use passlab::ir::{Call, Expr, ExprKind, Function, If, Let};
use passlab::pass::{
    function_pass, PassContext, PassError, PassInfo, PassManager, Sequential, StdoutSink,
};
use passlab::text::parse_module;
use std::collections::HashMap;
use std::sync::Arc;

const PROGRAM: &str = r#"#[version = "0.0.5"]
def @main(%c: bool, %x: Tensor[(2, 2), float32]) {
  %0 = if (%c) {
    add(%x, %x)
  } else {
    multiply(%x, %x)
  };
  nn.relu(%0)
}
"#;

/// `if (c) { a } else { b }` becomes `a`, everywhere in `e`.
fn collapse_ifs(e: &Expr, memo: &mut HashMap<usize, Expr>) -> Expr {
    if let Some(done) = memo.get(&e.id()) {
        return done.clone();
    }
    let mut go = |c: &Expr| collapse_ifs(c, memo);
    let out = match e.kind() {
        ExprKind::If(If { then_branch, .. }) => go(then_branch),
        ExprKind::Call(c) => {
            let callee = go(&c.callee);
            let args: Vec<Expr> = c.args.iter().map(&mut go).collect();
            let same =
                callee.ptr_eq(&c.callee) && args.iter().zip(&c.args).all(|(a, b)| a.ptr_eq(b));
            if same {
                e.clone()
            } else {
                e.rebuild(ExprKind::Call(Call {
                    callee,
                    args: args.into(),
                    attrs: c.attrs.clone(),
                }))
            }
        }
        ExprKind::Tuple(fields) => {
            let new: Vec<Expr> = fields.iter().map(&mut go).collect();
            if new.iter().zip(fields).all(|(a, b)| a.ptr_eq(b)) {
                e.clone()
            } else {
                e.rebuild(ExprKind::Tuple(new))
            }
        }
        ExprKind::TupleGetItem(t, i) => {
            let t2 = go(t);
            if t2.ptr_eq(t) {
                e.clone()
            } else {
                e.rebuild(ExprKind::TupleGetItem(t2, *i))
            }
        }
        ExprKind::Let(l) => {
            let (value, body) = (go(&l.value), go(&l.body));
            if value.ptr_eq(&l.value) && body.ptr_eq(&l.body) {
                e.clone()
            } else {
                e.rebuild(ExprKind::Let(Let {
                    var: l.var.clone(),
                    value,
                    body,
                }))
            }
        }
        ExprKind::Function(f) => {
            let body = go(&f.body);
            if body.ptr_eq(&f.body) {
                e.clone()
            } else {
                e.rebuild(ExprKind::Function(Box::new(Function {
                    body,
                    ..(**f).clone()
                })))
            }
        }
        _ => e.clone(),
    };
    memo.insert(e.id(), out.clone());
    out
}

fn main() -> Result<(), PassError> {
    // The pass: a function pass from a closure (it gets the function's name, the function, the
    // whole module and the run's context).
    let collapse = function_pass(PassInfo::new("CollapseIfs", 1), |_name, func, _m, _cx| {
        Ok(collapse_ifs(func, &mut HashMap::new()))
    });

    // A session's pass manager; output (PrintIR, instruments) goes to standard output here.
    let mut pm = PassManager::new(passlab::passes::registry()).with_sink(Arc::new(StdoutSink));
    // Registered, the pass can be built by name and named in other passes' `required` lists.
    pm.register(collapse.clone(), "collapse every if to its true branch");
    let print_ir = pm.create("PrintIR", &Default::default())?;

    let pipeline = Sequential::new(vec![collapse, print_ir]).into_pass();
    let timing = Arc::new(PassTimingInstrument::new());
    let ctx = PassContext::builder()
        .opt_level(2)
        .instrument(Arc::new(PrintChanged::new()))
        .instrument(timing.clone())
        .build()?;

    let m = parse_module(PROGRAM, "example.relay").expect("the example parses");
    let out = pm.with_context(&ctx, |pm| pm.run(&pipeline, &m))?;
    assert!(!out.same_as(&m), "the pass changed the module");
    assert!(
        passlab::text::print_module(&m).contains("if (%c)"),
        "the input is untouched"
    );

    // Timing records outlive the context.
    println!("\nTiming (TVM's render):\n{}", timing.render());
    Ok(())
}
