//! Golden tests of the full Relay language (type parameters, ADTs and `match`, references)
//! and of the passes ported with their TVM tests: every file in `tests/relay/` and its
//! subdirectories (one per pass: `simplify_expr/`, `fast_math/`, ...) is one case in the IR's
//! own syntax, most of them ports of TVM v0.18's Python tests (named in each file), whose
//! expected programs and types are the oracle.
//!
//! ```text
//! // prelude                               <- optional: the input is TVM's prelude
//!                                             (../shared/corpus/relay/std_prelude.relay)
//!                                             followed by this file's definitions
//! // pass: RemoveUnusedFunctions()         <- optional: a pipeline in the command language
//! // opt_level: 4                          <- optional: the context's opt_level (default 3),
//!                                             e.g. for the passes TVM registers at level 4
//! // config: relay.FuseOps.max_depth=10    <- optional, repeatable: a PassContext config
//!                                             entry (an integer, True/False or a string)
//! // error: match expression does not ...  <- optional: parsing, InferType or the pipeline
//!                                             fails with a message containing this
//! #[version = "0.0.5"]
//! def @main(...) { ... }                   <- the input module
//! // expected:
//! def @main(...) { ... }                   <- the expected output
//! ```
//!
//! Without a pipeline the case checks types: the expected section is InferType's output
//! printed exactly, type comments included. With one, the output is compared with the
//! expected module structurally, up to variable names, as in `tests/pass_golden2.rs`, as it is
//! written or after InferType (TVM's tests compare with `run_opt_pass(expected, InferType())`,
//! so an expected program may leave out the annotations InferType adds). Every
//! output must be well-formed, type-check again to itself, and print to text that parses back
//! to an equal module. `PASSLAB_BLESS=1 cargo test --test relay_language` rewrites the
//! expected sections.
//!
//! `tests/relay/convert_layout/` holds TVM v0.18's `test_pass_convert_op_layout.py` in the same
//! form, one case per file (subcases as `_1`, `_2`, ...): the pipeline is
//! `ConvertLayout(desired_layouts=...)`, and the output must equal the expected module as
//! written or typed (TVM compares with `run_opt_pass(expected(), InferType())`).
//! `PASSLAB_CASE=name` runs only the cases whose path contains `name`.

mod common;

use passlab::ir::{module_equal, well_formed, Module};
use passlab::pass::{ConfigValue, PassContext, PassManager};
use passlab::passes::infer_type::infer_module;
use passlab::session::{Session, Value};
use passlab::text::{parse_module, print_module, print_module_with, PrintOptions};
use std::path::{Path, PathBuf};

const EXPECTED: &str = "// expected:";

struct Case {
    prelude: bool,
    pipeline: Option<String>,
    opt_level: i32,
    config: Vec<(String, ConfigValue)>,
    error: Option<String>,
    input: String,
    expected: String,
}

fn parse_case(text: &str) -> Result<Case, String> {
    let (input, expected) = match text.split_once(EXPECTED) {
        Some((i, e)) => (i, e),
        None => (text, ""),
    };
    let mut case = Case {
        prelude: false,
        pipeline: None,
        opt_level: 3,
        config: Vec::new(),
        error: None,
        input: input.to_string(),
        expected: expected.to_string(),
    };
    for line in input.lines() {
        let line = line.trim();
        case.prelude |= line == "// prelude";
        if let Some(p) = line.strip_prefix("// pass:") {
            case.pipeline = Some(p.trim().to_string());
        }
        if let Some(l) = line.strip_prefix("// opt_level:") {
            case.opt_level = l.trim().parse().map_err(|e| format!("// opt_level: {e}"))?;
        }
        if let Some(c) = line.strip_prefix("// config:") {
            let (key, value) = c
                .split_once('=')
                .ok_or_else(|| format!("`// config:{c}` is not key=value"))?;
            let value = match value.trim() {
                "True" => ConfigValue::Bool(true),
                "False" => ConfigValue::Bool(false),
                v => v.parse::<i64>().map_or_else(|_| v.into(), ConfigValue::Int),
            };
            case.config.push((key.trim().to_string(), value));
        }
        if let Some(e) = line.strip_prefix("// error:") {
            case.error = Some(e.trim().to_string());
        }
    }
    if case.error.is_none() && !text.contains(EXPECTED) {
        return Err("no `// expected:` or `// error:` line".into());
    }
    Ok(case)
}

/// TVM's prelude, without its version header (the case brings one).
fn prelude() -> String {
    let path = common::corpus_dir().join("std_prelude.relay");
    let text = std::fs::read_to_string(&path).expect("the corpus prelude");
    text.replace("#[version = \"0.0.5\"]", "")
}

fn run_pipeline(
    pipeline: &str,
    opt_level: i32,
    config: &[(String, ConfigValue)],
    m: &Module,
) -> Result<Module, String> {
    let mut session = Session::new();
    let out = session.execute(&format!("__pipeline = Sequential([{pipeline}])"));
    let Some(Value::Pass(pass)) = session.var("__pipeline") else {
        return Err(format!("cannot build the pipeline: {}", out.plain()));
    };
    let mut pm = PassManager::new(passlab::passes::registry());
    let mut builder = PassContext::builder().opt_level(opt_level);
    for (key, value) in config {
        builder = builder.config(key, value.clone());
    }
    let ctx = builder.build().map_err(|e| e.to_string())?;
    pm.with_context(&ctx, |pm| pm.run(pass, m))
        .map_err(|e| e.to_string())
}

fn untyped(m: &Module) -> String {
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
    let source = if case.prelude {
        // The version header first, then the prelude, then the case's own definitions.
        let own = case.input.replacen("#[version = \"0.0.5\"]", "", 1);
        format!("#[version = \"0.0.5\"]\n{}\n{own}", prelude())
    } else {
        case.input.clone()
    };
    let input = match (parse_module(&source, &name), &case.error) {
        (Ok(m), _) => m,
        (Err(e), Some(want)) if e.message.contains(want.as_str()) => return Ok(None),
        (Err(e), _) => return Err(e.render(&name, &source, false)),
    };
    well_formed::check_module(&input).map_err(|e| format!("input not well-formed: {e}"))?;
    let result = match &case.pipeline {
        Some(p) => run_pipeline(p, case.opt_level, &case.config, &input),
        None => infer_module(&input).map_err(|e| e.render(&name, &source, false)),
    };
    let out = match (result, &case.error) {
        (Err(e), Some(want)) if e.contains(want.as_str()) => return Ok(None),
        (Err(e), Some(want)) => return Err(format!("expected an error with `{want}`, got:\n{e}")),
        (Ok(_), Some(want)) => return Err(format!("expected an error with `{want}`, got none")),
        (Err(e), None) => return Err(e),
        (Ok(out), None) => out,
    };
    well_formed::check_module(&out).map_err(|e| format!("output not well-formed: {e}"))?;
    let typed = infer_module(&out).map_err(|e| format!("output does not type-check: {e}"))?;
    let again =
        infer_module(&typed).map_err(|e| format!("typed output does not type-check: {e}"))?;
    if print_module(&again) != print_module(&typed) {
        return Err("InferType is not idempotent on the output".into());
    }
    let shown = print_module(&typed);
    let back = parse_module(&shown, "printed").map_err(|e| e.render("printed", &shown, false))?;
    if !module_equal(&typed, &back, true) {
        return Err(format!(
            "printed output does not parse back equal:\n{shown}"
        ));
    }
    let (got, same) = match &case.pipeline {
        None => {
            let got = shown.replacen("#[version = \"0.0.5\"]\n", "", 1);
            let same = got.trim() == case.expected.trim();
            (got, same)
        }
        Some(_) => {
            let expected = parse_module(&case.expected, "expected")
                .map_err(|e| e.render("expected", &case.expected, false))?;
            // As written, or typed, as TVM's tests compare with
            // `run_opt_pass(expected(), InferType())` (the result types filled in).
            let same = module_equal(&out, &expected, true)
                || infer_module(&expected).is_ok_and(|typed| module_equal(&out, &typed, true));
            (untyped(&out), same)
        }
    };
    if same {
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

/// The `.relay` files of `dir` and of its subdirectories (one per pass: `simplify_expr/`, ...).
fn relay_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir)
        .expect("tests/relay exists")
        .flatten()
    {
        let path = entry.path();
        if path.is_dir() {
            out.extend(relay_files(&path));
        } else if path.extension().is_some_and(|x| x == "relay") {
            out.push(path);
        }
    }
    out
}

#[test]
fn relay_language_cases() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/relay");
    let mut files = relay_files(&dir);
    files.sort();
    assert!(
        files.len() >= 20,
        "expected at least 20 cases, found {}",
        files.len()
    );
    run_cases(&files);
}

/// TVM v0.18's `test_pass_convert_op_layout.py` is one case per file of
/// `tests/relay/convert_layout/`, run with the others above.
#[test]
fn convert_layout_cases_are_there() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/relay/convert_layout");
    let files = relay_files(&dir);
    assert!(
        files.len() >= 50,
        "expected at least 50 cases, found {}",
        files.len()
    );
}

/// Runs the cases (only those whose path contains `PASSLAB_CASE` when it is set).
fn run_cases(files: &[PathBuf]) {
    let bless = std::env::var_os("PASSLAB_BLESS").is_some();
    let only = std::env::var("PASSLAB_CASE").ok();
    let mut failures = Vec::new();
    let chosen = files.iter().filter(|p| {
        only.as_deref()
            .is_none_or(|o| p.to_string_lossy().contains(o))
    });
    for path in chosen {
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

/// Mutations of the prelude (a word deleted, or replaced by another word of the prelude) that
/// still parse are type-checked and, when they type-check, run through every registered pass:
/// never a panic, only results or errors.
#[test]
fn mutated_prelude_programs_never_panic() {
    let text = format!("#[version = \"0.0.5\"]\n{}", prelude());
    let words: Vec<(usize, usize)> = {
        let b = text.as_bytes();
        let mut out = Vec::new();
        let mut i = 0;
        while i < b.len() {
            let start = i;
            while i < b.len() && !b[i].is_ascii_whitespace() {
                i += 1;
            }
            if i > start {
                out.push((start, i));
            }
            i += 1;
        }
        out
    };
    let passes = [
        "DeadCodeElimination(inline_once=True)",
        "EliminateCommonSubexpr()",
        "ToANormalForm()",
        "ToGraphNormalForm()",
        "FuseOps()",
        "LambdaLift()",
        "InlineGlobals()",
        "RemoveUnusedFunctions()",
        "FoldConstant()",
    ];
    let mut rng = common::Rng(0x2545_F491_4F6C_DD1D);
    let (mut parsed, mut typed) = (0, 0);
    for _ in 0..300 {
        let (s, e) = words[rng.below(words.len())];
        let mutated = if rng.below(2) == 0 {
            format!("{}{}", &text[..s], &text[e..])
        } else {
            let (s2, e2) = words[rng.below(words.len())];
            format!("{}{}{}", &text[..s], &text[s2..e2], &text[e..])
        };
        let Ok(m) = parse_module(&mutated, "mutated") else {
            continue;
        };
        parsed += 1;
        let Ok(t) = infer_module(&m) else {
            continue;
        };
        typed += 1;
        for p in passes {
            let _ = run_pipeline(p, 3, &[], &t);
        }
    }
    assert!(parsed > 30 && typed > 10, "{parsed} parsed, {typed} typed");
}
