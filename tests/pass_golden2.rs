//! Golden tests for FuseOps, FoldScaleAxis, ConvertLayout, AlterOpLayout, LambdaLift,
//! InlineGlobals and RemoveUnusedFunctions: every file in `tests/passes2/` is one case in the
//! IR's own syntax (Cranelift filetests style):
//!
//! ```text
//! // pass: FuseOps(fuse_opt_level=2)      <- the pipeline, in the command language
//! // opt_level: 3                          <- optional: the context's opt_level (default 3)
//! // run: direct                           <- optional: apply each pass directly (no gate, no
//!                                             required passes), like `ConvertLayout(..)(mod)`
//! // Any other comment lines say what the case is about.
//! #[version = "0.0.5"]
//! def @main(...) { ... }                   <- the input module
//! // expected:
//! def @main(...) { ... }                   <- the expected output
//! ```
//!
//! The pipeline runs as `Sequential([...])` under `PassContext(opt_level=N)`, so the passes
//! are built by name through the registry and their `required` passes (InferType) run first,
//! exactly as in a TVM script. The output is compared with the expected module structurally,
//! up to variable names (`module_equal(a, b, true)`; checked types are ignored). Every output
//! must also be well-formed, type-check again, and print to text that parses back to an equal
//! module. `PASSLAB_BLESS=1 cargo test --test pass_golden2` rewrites the expected sections.

use passlab::ir::{module_equal, well_formed, Module};
use passlab::pass::{PassContext, PassManager};
use passlab::passes::infer_type::infer_module;
use passlab::session::{Session, Value};
use passlab::text::{parse_module, print_module_with, PrintOptions};
use std::path::{Path, PathBuf};

const EXPECTED: &str = "// expected:";

struct Case {
    pipeline: String,
    opt_level: i32,
    direct: bool,
    input: String,
    expected: String,
}

fn parse_case(text: &str) -> Result<Case, String> {
    let (input, expected) = text.split_once(EXPECTED).ok_or("no `// expected:` line")?;
    let mut pipeline = None;
    let mut opt_level = 3;
    let mut direct = false;
    for line in input.lines() {
        let line = line.trim();
        if let Some(p) = line.strip_prefix("// pass:") {
            pipeline = Some(p.trim().to_string());
        }
        if let Some(l) = line.strip_prefix("// opt_level:") {
            opt_level = l.trim().parse().map_err(|_| "bad `// opt_level:` line")?;
        }
        direct |= line == "// run: direct";
    }
    Ok(Case {
        pipeline: pipeline.ok_or("no `// pass:` line")?,
        opt_level,
        direct,
        input: input.to_string(),
        expected: expected.to_string(),
    })
}

/// Runs `pipeline` (command-language pass expressions, comma-separated) on `m`: as one
/// Sequential, or (`direct`) each pass applied directly in turn.
fn run_pipeline(
    pipeline: &str,
    opt_level: i32,
    direct: bool,
    m: &Module,
) -> Result<Module, String> {
    let mut session = Session::new();
    let out = session.execute(&format!("__pipeline = Sequential([{pipeline}])"));
    let Some(Value::Pass(pass)) = session.var("__pipeline") else {
        return Err(format!("cannot build the pipeline: {}", out.plain()));
    };
    let mut pm = PassManager::new(passlab::passes::registry());
    let ctx = PassContext::builder()
        .opt_level(opt_level)
        .build()
        .map_err(|e| e.to_string())?;
    let passes = if direct {
        pass.children().to_vec()
    } else {
        vec![pass.clone()]
    };
    pm.with_context(&ctx, |pm| {
        passes.iter().try_fold(m.clone(), |m, p| pm.run(p, &m))
    })
    .map_err(|e| e.to_string())
}

fn printed(m: &Module) -> String {
    print_module_with(
        m,
        PrintOptions {
            types: false,
            header: false,
            metadata: true,
        },
    )
}

/// Runs one case; `Ok(Some(text))` is the blessed file content when it differs.
fn check(path: &Path, bless: bool) -> Result<Option<String>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let case = parse_case(&text)?;
    let name = path.display().to_string();
    let input =
        parse_module(&case.input, &name).map_err(|e| e.render(&name, &case.input, false))?;
    let out = run_pipeline(&case.pipeline, case.opt_level, case.direct, &input)?;
    well_formed::check_module(&out).map_err(|e| format!("output not well-formed: {e}"))?;
    infer_module(&out).map_err(|e| format!("output does not type-check: {e}"))?;
    let got = printed(&out);
    let back = parse_module(&got, "printed").map_err(|e| e.render("printed", &got, false))?;
    if !module_equal(&out, &back, true) {
        return Err(format!("printed output does not parse back equal:\n{got}"));
    }
    let expected = parse_module(&case.expected, "expected")
        .map_err(|e| e.render("expected", &case.expected, false))?;
    if module_equal(&out, &expected, true) {
        return Ok(None);
    }
    if bless {
        return Ok(Some(format!("{}{EXPECTED}\n{got}", case.input)));
    }
    Err(format!(
        "output differs from the expected module\n--- got:\n{got}--- expected:{}",
        case.expected
    ))
}

#[test]
fn golden_cases() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/passes2");
    let bless = std::env::var_os("PASSLAB_BLESS").is_some();
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("tests/passes2 exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "relay"))
        .collect();
    files.sort();
    assert!(
        files.len() >= 8,
        "expected at least 8 cases, found {}",
        files.len()
    );
    let mut failures = Vec::new();
    for path in &files {
        match check(path, bless) {
            Ok(None) => {}
            Ok(Some(blessed)) => std::fs::write(path, blessed).expect("write blessed case"),
            Err(e) => failures.push(format!("{}: {e}", path.display())),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n\n{}",
        failures.len(),
        files.len(),
        failures.join("\n\n")
    );
}
