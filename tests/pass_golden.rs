//! Golden tests for the standard passes: every file in `tests/passes/` is a case in the IR's
//! own syntax (Cranelift filetests style):
//!
//! ```text
//! // pass: InferType, FoldConstant          <- the pipeline, run left to right
//! // check: idempotent                     <- optional: running the pipeline again changes nothing
//! #[version = "0.0.5"]
//! def @main(...) { ... }                   <- the input module
//! // expected:
//! def @main(...) { ... }                   <- the expected output (compared structurally,
//!                                             free variables mapped, types ignored)
//! ```
//!
//! Pass options are written as in Python: `DeadCodeElimination(inline_once=True)`. Every
//! output must also be well-formed and, when the input type-checks, type-check again.
//! `PASSLAB_BLESS=1 cargo test --test pass_golden` rewrites the expected sections from the
//! actual output.

use passlab::ir::{module_equal, well_formed, Module};
use passlab::passes::{
    canonicalize_ops, dead_code, eliminate_common_subexpr, fold_constant, infer_type,
    simplify_inference, to_a_normal_form, to_graph_normal_form,
};
use passlab::text::{parse_module, print_module_with, PrintOptions};
use std::path::{Path, PathBuf};

const EXPECTED: &str = "// expected:";

struct Case {
    pipeline: Vec<String>,
    idempotent: bool,
    input: String,
    expected: String,
}

fn parse_case(text: &str) -> Result<Case, String> {
    let (input, expected) = text.split_once(EXPECTED).ok_or("no `// expected:` line")?;
    let mut pipeline = None;
    let mut idempotent = false;
    for line in input.lines() {
        if let Some(p) = line.trim().strip_prefix("// pass:") {
            pipeline = Some(split_pipeline(p));
        }
        if line.trim() == "// check: idempotent" {
            idempotent = true;
        }
    }
    Ok(Case {
        pipeline: pipeline.ok_or("no `// pass:` line")?,
        idempotent,
        input: input.to_string(),
        expected: expected.to_string(),
    })
}

/// Splits `A, B(x=1, y=2), C` at top-level commas.
fn split_pipeline(p: &str) -> Vec<String> {
    let (mut out, mut cur, mut depth) = (Vec::new(), String::new(), 0);
    for c in p.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(std::mem::take(&mut cur).trim().to_string());
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    out.push(cur.trim().to_string());
    out
}

fn flag(spec: &str, name: &str) -> bool {
    spec.split(['(', ')', ',']).any(|kv| {
        let kv: String = kv.chars().filter(|c| !c.is_whitespace()).collect();
        kv == format!("{name}=True") || kv == format!("{name}=true") || kv == format!("{name}=1")
    })
}

fn run_pass(spec: &str, m: &Module) -> Result<Module, String> {
    let name = spec.split('(').next().unwrap_or("").trim();
    Ok(match name {
        "InferType" => infer_type::infer_module(m).map_err(|e| e.render_for(m, false))?,
        "FoldConstant" => fold_constant::fold_constant(m),
        "DeadCodeElimination" => dead_code::dead_code_elimination(
            m,
            flag(spec, "inline_once"),
            flag(spec, "ignore_impurity"),
        ),
        "EliminateCommonSubexpr" => eliminate_common_subexpr::eliminate_common_subexpr(m),
        "ToANormalForm" => to_a_normal_form::to_a_normal_form(m),
        "ToGraphNormalForm" => to_graph_normal_form::to_graph_normal_form(m),
        "SimplifyInference" => simplify_inference::simplify_inference(m),
        "CanonicalizeOps" => canonicalize_ops::canonicalize_ops(m),
        other => return Err(format!("unknown pass `{other}` in the pipeline")),
    })
}

fn run_pipeline(pipeline: &[String], m: &Module) -> Result<Module, String> {
    pipeline.iter().try_fold(m.clone(), |m, p| run_pass(p, &m))
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
    let input =
        parse_module(&case.input, "input").map_err(|e| e.render("input", &case.input, false))?;
    let out = run_pipeline(&case.pipeline, &input)?;
    well_formed::check_module(&out)
        .map_err(|e| format!("output is not well-formed: {e}\n{}", printed(&out)))?;
    if infer_type::infer_module(&input).is_ok() {
        infer_type::infer_module(&out)
            .map_err(|e| format!("output does not type-check: {e}\n{}", printed(&out)))?;
    }
    let back = parse_module(&printed(&out), "printed")
        .map_err(|e| format!("printed output does not parse: {e}"))?;
    if !module_equal(&out, &back, true) {
        return Err("printed output does not parse back to an equal module".into());
    }
    if case.idempotent {
        let again = run_pipeline(&case.pipeline, &out)?;
        if !module_equal(&out, &again, true) {
            return Err(format!(
                "not idempotent; second run gives\n{}",
                printed(&again)
            ));
        }
    }
    let expected = parse_module(&case.expected, "expected")
        .map_err(|e| e.render("expected", &case.expected, false));
    let same = expected
        .as_ref()
        .is_ok_and(|exp| module_equal(&out, exp, true));
    if same {
        return Ok(None);
    }
    if bless {
        let head = &text[..text.find(EXPECTED).unwrap_or(text.len())];
        return Ok(Some(format!("{head}{EXPECTED}\n{}", printed(&out))));
    }
    Err(match expected {
        Err(e) => format!("the expected section does not parse:\n{e}"),
        Ok(_) => format!(
            "output differs from the expected section; actual:\n{}",
            printed(&out)
        ),
    })
}

fn case_files() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/passes");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("tests/passes exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "relay"))
        .collect();
    files.sort();
    files
}

#[test]
fn golden_pass_cases() {
    let bless = std::env::var_os("PASSLAB_BLESS").is_some_and(|v| v == "1");
    let files = case_files();
    assert!(
        files.len() >= 35,
        "expected at least 5 cases per pass, found {}",
        files.len()
    );
    let mut failures = Vec::new();
    for path in &files {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        match check(path, bless) {
            Ok(None) => {}
            Ok(Some(blessed)) => {
                std::fs::write(path, blessed).expect("write blessed case");
                eprintln!("blessed {name}");
            }
            Err(e) => failures.push(format!("--- {name}: {e}")),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
}

#[test]
fn every_pass_has_five_cases() {
    let mut counts = std::collections::BTreeMap::<String, usize>::new();
    for path in case_files() {
        let text = std::fs::read_to_string(&path).unwrap();
        let case = parse_case(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let last = case
            .pipeline
            .last()
            .unwrap()
            .split('(')
            .next()
            .unwrap()
            .trim()
            .to_string();
        *counts.entry(last).or_default() += 1;
    }
    for pass in [
        "FoldConstant",
        "DeadCodeElimination",
        "EliminateCommonSubexpr",
        "ToANormalForm",
        "ToGraphNormalForm",
        "SimplifyInference",
        "CanonicalizeOps",
    ] {
        let n = counts.get(pass).copied().unwrap_or(0);
        assert!(
            n >= 5,
            "{pass} has {n} golden cases, want at least 5 ({counts:?})"
        );
    }
}
