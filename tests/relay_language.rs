//! The golden cases: every `.relay` file under `tests/relay/` is one case in the IR's own
//! syntax (Cranelift filetests style), by topic: the language (type parameters, ADTs and
//! `match`, references, type errors) at the top, one folder per pass below (`fold_constant/`,
//! `fuse_ops/`, `convert_layout/`, ...). Many are ports of TVM v0.18's Python tests (named in
//! each file), whose expected programs and types are the oracle.
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
//! // run: direct                           <- optional: how the pipeline is applied (below)
//! // target: llvm -mcpu=core-avx2          <- optional: the pipeline runs inside
//!                                             `with Target("...")` (the target's hooks)
//! // compare: as written                   <- optional: the expected module is compared only
//!                                             as written, not also after InferType
//! // check: idempotent                     <- optional: running the pipeline again on the
//!                                             output changes nothing
//! // error: match expression does not ...  <- optional: parsing, InferType or the pipeline
//!                                             fails with a message containing this
//! #[version = "0.0.5"]
//! def @main(...) { ... }                   <- the input module
//! // expected:
//! def @main(...) { ... }                   <- the expected output
//! ```
//!
//! Without a pipeline the case checks types: the expected section is InferType's output
//! printed exactly, type comments included.
//!
//! With one, the pipeline is applied in one of three ways:
//! - by default as `Sequential([...])` under `PassContext(opt_level=N)`: the passes are built
//!   by name through the registry and their `required` passes (InferType) run first, exactly
//!   as in a TVM script;
//! - `// run: direct`: each pass applied directly in turn under that context (no gate, no
//!   required passes), like `ConvertLayout(..)(mod)`;
//! - `// run: function`: each pass called as its library function (`fold_constant(&m)`), no
//!   pass manager, no context; options are written as in Python (`inline_once=True`).
//!
//! The output is compared with the expected module structurally, up to variable names
//! (`module_equal(a, b, true)`; checked types are ignored), as it is written or after InferType
//! (TVM's tests compare with `run_opt_pass(expected, InferType())`, so an expected program may
//! leave out the annotations InferType adds) unless `// compare: as written`. Every output must
//! be well-formed and print (without types) to text that parses back to an equal module; it
//! must type-check (unless the case runs `function` on an input that does not), InferType must
//! be idempotent on it, and its typed printing must parse back equal too.
//!
//! `PASSLAB_BLESS=1 cargo test --test relay_language` rewrites the expected sections;
//! `PASSLAB_CASE=name` runs only the cases whose path contains `name`.

mod common;

use passlab::ir::{module_equal, well_formed, Module};
use passlab::pass::{ConfigValue, PassContext, PassManager};
use passlab::passes::{
    canonicalize_ops, dead_code, eliminate_common_subexpr, fold_constant, infer_type,
    simplify_inference, to_a_normal_form, to_graph_normal_form,
};
use passlab::session::{Session, Value};
use passlab::text::{parse_module, print_module, print_module_with, PrintOptions};
use std::path::{Path, PathBuf};

use infer_type::infer_module;

const EXPECTED: &str = "// expected:";

/// How a case's pipeline is applied.
#[derive(Clone, Copy, PartialEq)]
enum Run {
    /// One `Sequential` through the pass manager (required passes first).
    Sequential,
    /// Each pass applied directly through the pass manager.
    Direct,
    /// Each pass called as its library function.
    Function,
}

struct Case {
    prelude: bool,
    pipeline: Option<String>,
    opt_level: i32,
    config: Vec<(String, ConfigValue)>,
    target: Option<String>,
    run: Run,
    as_written: bool,
    idempotent: bool,
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
        target: None,
        run: Run::Sequential,
        as_written: false,
        idempotent: false,
        error: None,
        input: input.to_string(),
        expected: expected.to_string(),
    };
    for line in input.lines() {
        let line = line.trim();
        case.prelude |= line == "// prelude";
        case.as_written |= line == "// compare: as written";
        case.idempotent |= line == "// check: idempotent";
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
        if let Some(t) = line.strip_prefix("// target:") {
            case.target = Some(t.trim().to_string());
        }
        if let Some(r) = line.strip_prefix("// run:") {
            case.run = match r.trim() {
                "direct" => Run::Direct,
                "function" => Run::Function,
                other => return Err(format!("unknown `// run: {other}`")),
            };
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

/// Splits `A, B(x=1, y=2), C` at top-level commas.
fn split_pipeline(p: &str) -> Vec<String> {
    let (mut out, mut cur, mut depth) = (Vec::new(), String::new(), 0);
    for c in p.chars() {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
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

/// Whether the pass spec `A(x=True, ...)` sets the flag `name`.
fn flag(spec: &str, name: &str) -> bool {
    spec.split(['(', ')', ',']).any(|kv| {
        let kv: String = kv.chars().filter(|c| !c.is_whitespace()).collect();
        kv == format!("{name}=True") || kv == format!("{name}=true") || kv == format!("{name}=1")
    })
}

/// One pass called as its library function (`// run: function`).
fn run_function(spec: &str, m: &Module) -> Result<Module, String> {
    let name = spec.split('(').next().unwrap_or("").trim();
    Ok(match name {
        "InferType" => infer_module(m).map_err(|e| e.render_for(m, false))?,
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
        other => return Err(format!("`// run: function` has no function for `{other}`")),
    })
}

/// Applies `pipeline` (command-language pass expressions, comma-separated) to `m` as `run` says.
fn run_pipeline(
    pipeline: &str,
    opt_level: i32,
    config: &[(String, ConfigValue)],
    target: Option<&str>,
    run: Run,
    m: &Module,
) -> Result<Module, String> {
    if run == Run::Function {
        return split_pipeline(pipeline)
            .iter()
            .try_fold(m.clone(), |m, p| run_function(p, &m));
    }
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
    if let Some(t) = target {
        pm.enter_target(&passlab::target::Target::parse(t).map_err(|e| e.to_string())?);
    }
    let passes = match run {
        Run::Direct => pass.children().to_vec(),
        _ => vec![pass.clone()],
    };
    pm.with_context(&ctx, |pm| {
        passes.iter().try_fold(m.clone(), |m, p| pm.run(p, &m))
    })
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
        Some(p) => run_pipeline(
            p,
            case.opt_level,
            &case.config,
            case.target.as_deref(),
            case.run,
            &input,
        ),
        None => infer_module(&input).map_err(|e| e.render(&name, &source, false)),
    };
    let out = match (result, &case.error) {
        (Err(e), Some(want)) if e.contains(want.as_str()) => return Ok(None),
        (Err(e), Some(want)) => return Err(format!("expected an error with `{want}`, got:\n{e}")),
        (Ok(_), Some(want)) => return Err(format!("expected an error with `{want}`, got none")),
        (Err(e), None) => return Err(e),
        (Ok(out), None) => out,
    };
    well_formed::check_module(&out)
        .map_err(|e| format!("output not well-formed: {e}\n{}", untyped(&out)))?;
    let plain = untyped(&out);
    let back = parse_module(&plain, "printed").map_err(|e| e.render("printed", &plain, false))?;
    if !module_equal(&out, &back, true) {
        return Err(format!(
            "printed output does not parse back equal:\n{plain}"
        ));
    }
    // A library function may be given an input that does not type-check (ToANormalForm on
    // an untyped program); its output then need not either.
    let must_type = case.run != Run::Function || infer_module(&input).is_ok();
    let shown = if must_type {
        let typed =
            infer_module(&out).map_err(|e| format!("output does not type-check: {e}\n{plain}"))?;
        let again =
            infer_module(&typed).map_err(|e| format!("typed output does not type-check: {e}"))?;
        if print_module(&again) != print_module(&typed) {
            return Err("InferType is not idempotent on the output".into());
        }
        let shown = print_module(&typed);
        let back =
            parse_module(&shown, "printed").map_err(|e| e.render("printed", &shown, false))?;
        if !module_equal(&typed, &back, true) {
            return Err(format!("typed output does not parse back equal:\n{shown}"));
        }
        shown
    } else {
        print_module(&out)
    };
    if case.idempotent {
        let pipeline = case.pipeline.as_deref().unwrap_or("InferType()");
        let again = run_pipeline(
            pipeline,
            case.opt_level,
            &case.config,
            case.target.as_deref(),
            case.run,
            &out,
        )?;
        if !module_equal(&out, &again, true) {
            return Err(format!(
                "not idempotent; a second run gives\n{}",
                untyped(&again)
            ));
        }
    }
    let (got, same) = match &case.pipeline {
        None => {
            let got = shown.replacen("#[version = \"0.0.5\"]\n", "", 1);
            let same = got.trim() == case.expected.trim();
            (got, same)
        }
        Some(_) => {
            let expected = parse_module(&case.expected, "expected")
                .map_err(|e| e.render("expected", &case.expected, false));
            // As written, or typed, as TVM's tests compare with
            // `run_opt_pass(expected(), InferType())` (the result types filled in).
            let same = expected.as_ref().is_ok_and(|exp| {
                module_equal(&out, exp, true)
                    || (!case.as_written
                        && infer_module(exp).is_ok_and(|typed| module_equal(&out, &typed, true)))
            });
            if let (Err(e), false) = (expected, bless) {
                return Err(format!("the expected section does not parse:\n{e}"));
            }
            (plain, same)
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
    out.sort();
    out
}

fn all_cases() -> Vec<PathBuf> {
    relay_files(&PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/relay"))
}

#[test]
fn relay_language_cases() {
    let files = all_cases();
    assert!(
        files.len() >= 249,
        "expected at least 249 cases, found {}",
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

/// Every standard pass has at least five golden cases of its own (counted by the last pass
/// of each case's pipeline).
#[test]
fn every_pass_has_five_cases() {
    let mut counts = std::collections::BTreeMap::<String, usize>::new();
    for path in all_cases() {
        let text = std::fs::read_to_string(&path).unwrap();
        let case = parse_case(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let Some(pipeline) = case.pipeline else {
            continue;
        };
        let last = split_pipeline(&pipeline).pop().unwrap_or_default();
        let name = last.split('(').next().unwrap_or("").trim().to_string();
        *counts.entry(name).or_default() += 1;
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
            let _ = run_pipeline(p, 3, &[], None, Run::Sequential, &t);
        }
    }
    assert!(parsed > 30 && typed > 10, "{parsed} parsed, {typed} typed");
}
