//! The CombineParallel passes keep the numbers: every input of the golden cases in
//! `tests/relay/combine_parallel/` (TVM's tests, whose expected programs `relay_language`
//! checks) is run through its case's pass under `PassContext(opt_level=4)`, and every
//! function computes the same outputs before and after on seeded random inputs. This checks
//! what the golden files cannot: that the slices, concatenation axes, stacks and repeats
//! put every branch's values back where they were.

use passlab::eval::numerics::{DEFAULT_ATOL, DEFAULT_RTOL};
use passlab::ir::Module;
use passlab::pass::{PassContext, PassManager};
use passlab::session::{Session, Value};
use passlab::text::parse_module;
use std::path::Path;

fn run(pipeline: &str, m: &Module) -> Module {
    let mut session = Session::new();
    session.execute(&format!("__p = {pipeline}"));
    let Some(Value::Pass(pass)) = session.var("__p") else {
        panic!("cannot build {pipeline}");
    };
    let mut pm = PassManager::new(passlab::passes::registry());
    let ctx = PassContext::builder().opt_level(4).build().unwrap();
    pm.with_context(&ctx, |pm| pm.run(pass, m))
        .unwrap_or_else(|e| panic!("{pipeline}: {e}"))
}

#[test]
fn combined_branches_compute_what_the_branches_computed() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/relay/combine_parallel");
    let mut compared = 0;
    let mut changed = 0;
    for entry in std::fs::read_dir(&dir).unwrap().flatten() {
        let path = entry.path();
        let name = path.display().to_string();
        let text = std::fs::read_to_string(&path).unwrap();
        let input = text.split("// expected:").next().unwrap();
        let pipeline = input
            .lines()
            .find_map(|l| l.trim().strip_prefix("// pass:"))
            .unwrap_or_else(|| panic!("{name}: no pass line"))
            .trim()
            .to_string();
        let m = parse_module(input, &name).unwrap_or_else(|e| panic!("{name}: {}", e.message));
        let m = passlab::passes::infer_type::infer_module(&m).unwrap();
        let out = run(&pipeline, &m);
        for (g, f) in m.functions() {
            let inputs = passlab::eval::random::inputs_for(f, 7).unwrap();
            let args: Vec<_> = inputs.iter().collect();
            let before = passlab::eval::evaluate(&m, g.name(), &args)
                .unwrap_or_else(|e| panic!("{name} @{}: {e}", g.name()));
            let after = passlab::eval::evaluate(&out, g.name(), &args)
                .unwrap_or_else(|e| panic!("{name} @{} after {pipeline}: {e}", g.name()));
            if let Some(d) =
                passlab::eval::compare::outputs(&after, &before, DEFAULT_RTOL, DEFAULT_ATOL, true)
            {
                panic!("{name} @{}: {pipeline} changed the numbers: {d}", g.name());
            }
            changed += usize::from(!out.get(g.name()).unwrap().ptr_eq(f));
            compared += 1;
        }
    }
    assert!(compared >= 30, "only {compared} functions compared");
    assert!(changed >= 25, "only {changed} functions were combined");
}
