//! The command language survives any input. Statements of every transcript and tutorial
//! (`tests/sessions/*.passlab`, `examples/*.passlab`) are mutated (tokens deleted,
//! duplicated, swapped or spliced from other statements, random text inserted, numbers
//! made huge, names made long, keywords dropped in, truncation) and fed to
//! `Session::execute` between the seed's own statements, so they meet real state: modules,
//! passes, entered contexts, paused runs. For every input:
//! - nothing panics (`execute` reports a caught panic as `internal error`, so none may
//!   appear), nor do completion, inspection and `is_complete` on the same text,
//! - every error names a line and column inside the input it points into,
//! - a single statement that fails leaves the session's variables exactly as they were.
//!
//! Inputs no mutation reaches are fixed cases: 100k-deep brackets, calls, indexing and
//! blocks, huge and malformed numbers, long names. Inputs that once broke a rule are kept
//! in `tests/fuzz/*.passlab` and checked statement by statement. The session runs on an
//! 8 MiB stack, the smallest a front end gives it (the REPL's main thread).
//!
//! The mutations are drawn from a fixed seed, so CI runs the same cases each time:
//! `PASSLAB_FUZZ_CASES=N` runs N of them (default 1000), and `PASSLAB_FUZZ_SEED=S` draws
//! others.

mod common;

use passlab::lang::parse_program;
use passlab::session::{replay, Outputs, PartKind, Session, Value};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestCaseError, TestRng, TestRunner};
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// One seed file: its statements, in order.
struct Seed {
    name: String,
    items: Vec<String>,
}

fn scripts(dir: &str) -> Vec<(String, String)> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(Path::new(ROOT).join(dir))
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "passlab"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|f| {
            let name = f.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read_to_string(&f).unwrap())
        })
        .collect()
}

fn items(text: &str) -> Vec<String> {
    let (items, _) = replay::split(text);
    items.into_iter().map(|i| i.source.join("\n")).collect()
}

fn seeds() -> &'static [Seed] {
    static SEEDS: OnceLock<Vec<Seed>> = OnceLock::new();
    SEEDS.get_or_init(|| {
        let mut all: Vec<Seed> = ["tests/sessions", "examples"]
            .iter()
            .flat_map(|d| scripts(d))
            .map(|(name, text)| Seed {
                items: items(&text),
                name,
            })
            .collect();
        all.retain(|s| !s.items.is_empty());
        assert!(all.len() >= 10, "seed transcripts missing");
        all
    })
}

/// A directory for the files the seeds write (`save`, `DumpIR`), nested so that the seeds'
/// `../../target/...` paths stay inside it.
fn work_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let root = std::env::temp_dir().join(format!("passlab-fuzz-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let dir = root.join("a/b/c/d");
        std::fs::create_dir_all(&dir).unwrap();
        dir
    })
}

fn session() -> Session {
    let mut s = Session::new();
    s.set_base_dir(work_dir());
    s
}

// ----- the rules ------------------------------------------------------------------------

/// The session's variables, to compare before and after a failing statement.
fn snapshot(s: &Session) -> Vec<(String, Value)> {
    s.var_names()
        .into_iter()
        .map(|n| {
            let v = s.var(&n).cloned().unwrap();
            (n, v)
        })
        .collect()
}

/// The same value: equal data (a target too), or the very same module, pass, context,
/// instrument, tensor.
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::None, Value::None) => true,
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::Int(x), Value::Int(y)) => x == y,
        (Value::Float(x), Value::Float(y)) => x.to_bits() == y.to_bits(),
        (Value::Str(x), Value::Str(y)) => x == y,
        (Value::List(x), Value::List(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same(p, q))
        }
        (Value::Map(x), Value::Map(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y)
                    .all(|((k, v), (l, w))| same(k, l) && same(v, w))
        }
        (Value::Module(x), Value::Module(y)) => x.same_as(y),
        (Value::Function { func: f, .. }, Value::Function { func: g, .. }) => f.ptr_eq(g),
        (Value::Pass(p), Value::Pass(q)) => p.same_as(q),
        (Value::Context(c), Value::Context(d)) => c.same_as(d),
        (Value::Instrument(i), Value::Instrument(j)) => {
            std::ptr::addr_eq(Arc::as_ptr(i), Arc::as_ptr(j))
        }
        (Value::Tensor(t), Value::Tensor(u)) => Arc::ptr_eq(t, u),
        (Value::Target(t), Value::Target(u)) => t == u,
        _ => false,
    }
}

fn same_vars(a: &[(String, Value)], b: &[(String, Value)]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|((n, v), (m, w))| n == m && same(v, w))
}

/// No part reports a caught panic.
fn no_panic(out: &Outputs, src: &str) -> Result<(), TestCaseError> {
    for p in &out.parts {
        prop_assert!(
            !(p.kind == PartKind::Error && p.plain.contains("error: internal error")),
            "a statement panicked:\n{}\n--- input ---\n{}",
            p.plain,
            src
        );
    }
    Ok(())
}

/// Every error part names a place; one in `src` (source name `name`) is inside it.
fn located(out: &Outputs, name: &str, src: &str) -> Result<(), TestCaseError> {
    let lines: Vec<&str> = src.split('\n').collect();
    for p in out.parts.iter().filter(|p| p.kind == PartKind::Error) {
        let place = p
            .plain
            .lines()
            .find_map(|l| l.trim_start().strip_prefix("--> "));
        let Some(place) = place else {
            return Err(TestCaseError::fail(format!(
                "an error without a location:\n{}\n--- input ---\n{src}",
                p.plain
            )));
        };
        let mut it = place.rsplitn(3, ':');
        let (col, line, file) = (it.next(), it.next(), it.next());
        let (Some(Ok(col)), Some(Ok(line)), Some(file)) = (
            col.map(str::parse::<usize>),
            line.map(str::parse::<usize>),
            file,
        ) else {
            return Err(TestCaseError::fail(format!(
                "a malformed location `{place}`"
            )));
        };
        if file != name {
            // A paused statement resumed here fails in the input it came from.
            continue;
        }
        let inside = line >= 1
            && line <= lines.len()
            && col >= 1
            && col <= lines[line - 1].chars().count() + 1;
        prop_assert!(
            inside,
            "{place} is outside the input:\n{}\n--- input ---\n{src}",
            p.plain
        );
    }
    Ok(())
}

/// What the checked inputs did: ran, failed to parse, failed while running.
#[derive(Default)]
struct Tally {
    ok: usize,
    parse_errors: usize,
    run_errors: usize,
}

thread_local! {
    static TALLY: std::cell::RefCell<Tally> = std::cell::RefCell::default();
    static INPUTS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Runs `src` in `s` and checks every rule.
fn check(s: &mut Session, src: &str) -> Result<(), TestCaseError> {
    // Each input its own name: a paused statement resumed by a later input fails in the input
    // it came from, and its location must be told apart from one in this input.
    let name = INPUTS.with(|n| {
        n.set(n.get() + 1);
        format!("<mutant {}>", n.get())
    });
    s.set_source_name(&name);
    let paused = s.paused().is_some();
    let before = snapshot(s);
    // The front ends' other questions about the same text: complete, inspect, is_complete.
    for cursor in [0, src.len() / 3, src.len() / 2, src.len(), src.len() + 1] {
        let _ = s.complete(src, cursor);
        let _ = s.inspect(src, cursor);
    }
    let _ = passlab::lang::is_complete(src);
    let parsed = parse_program(src, passlab::session::COMMANDS);
    let single = parsed.as_ref().map_or(true, |stmts| stmts.len() <= 1);
    let out = s.execute(src);
    TALLY.with_borrow_mut(|t| match (&parsed, out.is_error()) {
        (Err(_), _) => t.parse_errors += 1,
        (Ok(_), true) => t.run_errors += 1,
        (Ok(_), false) => t.ok += 1,
    });
    no_panic(&out, src)?;
    located(&out, &name, src)?;
    if out.is_error() && single && !paused {
        prop_assert!(
            same_vars(&before, &snapshot(s)),
            "a failing statement changed the variables:\n{}\n--- input ---\n{src}",
            out.plain()
        );
    }
    Ok(())
}

/// Ends a session as the front ends do; nothing panics there either.
fn finish(mut s: Session) -> Result<(), TestCaseError> {
    let out = s.exit_all_contexts();
    no_panic(&out, "(the end of the session)")
}

// ----- mutations ------------------------------------------------------------------------

/// Token boundaries: runs of name characters, numbers, strings, single punctuation.
fn tokens(text: &str) -> Vec<(usize, usize)> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let start = i;
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if c.is_ascii_alphanumeric() || c == b'_' || c == b'.' {
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] == b'.') {
                i += 1;
            }
        } else if c == b'"' {
            i += 1;
            while i < b.len() && b[i] != b'"' && b[i] != b'\n' {
                i += 1;
            }
            i = (i + 1).min(b.len());
        } else {
            i += 1;
            while i < b.len() && !text.is_char_boundary(i) {
                i += 1;
            }
        }
        out.push((start, i));
    }
    out
}

const HUGE: &[&str] = &[
    "18446744073709551616",
    "99999999999999999999999999999",
    "-9223372036854775809",
    "9223372036854775807",
    "-9223372036854775808",
    "1e999",
    "-1e400",
    "1e-400",
    "0.000000000000000000000000001",
    "18446744073709551616s",
    "1.2.3",
    "00000000000000000000000000001",
    "4294967296",
    "-1",
];

const WORDS: &[&str] = &[
    "exit",
    "enter",
    "with",
    "show",
    "timing",
    "step",
    "continue",
    "abort",
    "where",
    "history",
    "break",
    "delete",
    "vars",
    "passes",
    "configs",
    "help",
    "diff",
    "ir",
    "None",
    "True",
    "current()",
    "history[-1]",
    "history[99999999999]",
    "break slower",
    "break verify",
    "delete all",
    "quit",
    "exit()",
    "PassContext()",
    "Sequential([])",
    "meta[relay.Constant][99999999999999999999]",
    "\"\"\"",
    "#",
    ";",
    "\n",
    "{",
    "}",
];

#[derive(Clone, Debug)]
enum Mutation {
    Delete(usize),
    Duplicate(usize),
    Swap(usize, usize),
    Truncate(usize),
    Insert(usize, String),
    Number(usize, usize),
    Name(usize, usize),
    Word(usize, usize),
    /// A token of another statement of the seed (statement, token), inserted at a token.
    Splice(usize, usize, usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let text = prop::collection::vec(
        prop_oneof![
            3 => prop::sample::select(
                "[]{}()\"#\n;,=@%.-+e0123456789_ \t\\'π\u{0}\u{feff}\r`$:"
                    .chars()
                    .collect::<Vec<_>>()
            ),
            1 => any::<char>(),
        ],
        1..8,
    )
    .prop_map(|cs| cs.into_iter().collect::<String>());
    prop_oneof![
        any::<usize>().prop_map(Mutation::Delete),
        any::<usize>().prop_map(Mutation::Duplicate),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Mutation::Swap(a, b)),
        any::<usize>().prop_map(Mutation::Truncate),
        (any::<usize>(), text).prop_map(|(a, t)| Mutation::Insert(a, t)),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Mutation::Number(a, b)),
        (any::<usize>(), 1usize..2000).prop_map(|(a, n)| Mutation::Name(a, n)),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Mutation::Word(a, b)),
        (any::<usize>(), any::<usize>(), any::<usize>())
            .prop_map(|(a, b, c)| Mutation::Splice(a, b, c)),
    ]
}

/// `item` with mutation `m` applied (`seed` supplies spliced tokens).
fn apply(item: &str, m: &Mutation, seed: &Seed) -> String {
    let toks = tokens(item);
    if toks.is_empty() {
        return item.to_string();
    }
    let pick = |k: usize| toks[k % toks.len()];
    let replace =
        |(s, e): (usize, usize), with: &str| format!("{}{with}{}", &item[..s], &item[e..]);
    match m {
        Mutation::Delete(k) => replace(pick(*k), ""),
        Mutation::Duplicate(k) => {
            let (s, e) = pick(*k);
            format!("{}{}", &item[..e], &item[s..])
        }
        Mutation::Swap(a, b) => {
            let (mut x, mut y) = (pick(*a), pick(*b));
            if x.0 > y.0 {
                std::mem::swap(&mut x, &mut y);
            }
            if x == y {
                return item.to_string();
            }
            format!(
                "{}{}{}{}{}",
                &item[..x.0],
                &item[y.0..y.1],
                &item[x.1..y.0],
                &item[x.0..x.1],
                &item[y.1..]
            )
        }
        Mutation::Truncate(k) => item[..pick(*k).0].to_string(),
        Mutation::Insert(k, text) => {
            let (s, _) = pick(*k);
            format!("{}{text}{}", &item[..s], &item[s..])
        }
        Mutation::Number(k, j) => replace(pick(*k), HUGE[j % HUGE.len()]),
        Mutation::Name(k, n) => {
            let name: String = "abcdefghijklmnopqrstuvwxyz_0123456789"
                .chars()
                .cycle()
                .skip(k % 7)
                .take(*n)
                .collect();
            replace(pick(*k), &format!("n{name}"))
        }
        Mutation::Word(k, j) => replace(pick(*k), WORDS[j % WORDS.len()]),
        Mutation::Splice(k, i, t) => {
            let other = &seed.items[i % seed.items.len()];
            let otoks = tokens(other);
            if otoks.is_empty() {
                return item.to_string();
            }
            let (s, e) = otoks[t % otoks.len()];
            let (at, _) = pick(*k);
            format!("{}{} {}", &item[..at], &other[s..e], &item[at..])
        }
    }
}

/// Inputs that would write outside the work directory (an absolute path) are not run.
fn harmless(src: &str) -> bool {
    !src.contains("\"/") && !src.contains("\"\\") && !src.contains("\"~")
}

/// Replays `seed` with the mutated statements fed in before the statements they mutate.
fn run_case(seed: &Seed, muts: &[(usize, Mutation)]) -> Result<usize, TestCaseError> {
    let mut s = session();
    let mut checked = 0;
    for (i, item) in seed.items.iter().enumerate() {
        for (_, m) in muts.iter().filter(|(k, _)| k % seed.items.len() == i) {
            let mutant = apply(item, m, seed);
            if harmless(&mutant) {
                check(&mut s, &mutant)?;
                checked += 1;
            }
        }
        s.set_source_name(&seed.name);
        let out = s.execute(item);
        no_panic(&out, item)?;
    }
    finish(s)?;
    Ok(checked)
}

fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Runs `f` on an 8 MiB stack, the smallest a front end gives the session.
fn on_front_end_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    common::on_stack(8 << 20, f)
}

#[test]
fn mutated_statements_never_break_the_rules() {
    on_front_end_stack(|| {
        let cases = env_number("PASSLAB_FUZZ_CASES", 1000) as u32;
        let seed = env_number("PASSLAB_FUZZ_SEED", 0x0070_6173_736c_6162);
        let mut key = [0u8; 32];
        key[..8].copy_from_slice(&seed.to_le_bytes());
        let config = Config {
            cases,
            failure_persistence: None,
            max_shrink_iters: 200,
            ..Config::default()
        };
        let rng = TestRng::from_seed(RngAlgorithm::ChaCha, &key);
        let mut runner = TestRunner::new_with_rng(config, rng);
        let strategy = (
            any::<usize>(),
            prop::collection::vec((any::<usize>(), mutation()), 1..12),
        );
        let checked = std::cell::Cell::new(0usize);
        let result = runner.run(&strategy, |(file, muts)| {
            let seeds = seeds();
            let seed = &seeds[file % seeds.len()];
            checked.set(checked.get() + run_case(seed, &muts)?);
            Ok(())
        });
        if let Err(e) = result {
            panic!("{e}");
        }
        let t = TALLY.take();
        eprintln!(
            "{cases} cases, {} mutated inputs checked: {} ran, {} failed to parse, {} failed running",
            checked.get(),
            t.ok,
            t.parse_errors,
            t.run_errors
        );
    });
}

/// Inputs past what mutations reach: deep nesting, huge numbers, long names.
#[test]
fn extreme_inputs_never_break_the_rules() {
    on_front_end_stack(|| {
        let n = 100_000;
        let long = "n".repeat(2_000);
        let inputs = vec![
            "[".repeat(n),
            "(".repeat(n),
            "{".repeat(n),
            format!("x = {}{}", "[".repeat(n), "]".repeat(n)),
            format!("x = {}1{}", "(".repeat(n), ")".repeat(n)),
            format!("x = {}{}", "f(".repeat(n), ")".repeat(n)),
            format!("x = m{}", "[\"main\"]".repeat(n)),
            format!("x = PassContext{}", "()".repeat(n)),
            format!("{}{}", "with PassContext() {\n".repeat(n), "}\n".repeat(n)),
            format!("x = {{{}}}", "\"k\": {".repeat(n)),
            format!("x = {}", "-".repeat(n)),
            format!("x = {}", "9".repeat(n)),
            format!("x = 0.{}1", "0".repeat(n)),
            format!("x = 1{}", "0".repeat(400)),
            format!("x = 1.{}e999", "5".repeat(n)),
            format!("break slower {}s", "9".repeat(n)),
            format!("break slower 0.{}1us", "0".repeat(n)),
            format!("delete {}", "9".repeat(n)),
            format!("x = \"{}\"", "\\".repeat(2 * n)),
            format!("x = \"\"\"{}\"\"\"", "\"".repeat(n)),
            format!("{long} = 1\n{long}"),
            format!("x = {long}"),
            format!("x = {long}()"),
            format!("x = Sequential([], {long}=1)"),
            format!("help {long}"),
            format!("break {long}"),
            format!("diff m m @{long}"),
            format!("x = m[\"{long}\"]"),
            format!("x = const([{}], dtype=\"int8\")", vec!["127"; n].join(",")),
            format!(
                "x = parse(\"\"\"def @main() {{ {}0{} }}\"\"\")",
                "(".repeat(300),
                ")".repeat(300)
            ),
            "x = [1]\n".to_string() + &"x = [x]\n".repeat(300),
            ";".repeat(n),
            "\n".repeat(n),
            "#".repeat(n),
        ];
        let mut s = session();
        let setup = s.execute(
            "m = parse(\"\"\"def @main(%x: float32) { add(%x, 1f) }\"\"\")\nkeep = [1, 2]",
        );
        assert!(!setup.is_error(), "{}", setup.plain());
        for src in &inputs {
            if let Err(e) = check(&mut s, src) {
                panic!("{e}");
            }
            assert!(matches!(s.var("keep"), Some(Value::List(l)) if l.len() == 2));
        }
        finish(s).unwrap();
    });
}

/// Inputs that once broke a rule, kept as scripts: each statement is checked in order in
/// one session per file.
#[test]
fn kept_regressions_never_break_the_rules() {
    on_front_end_stack(|| {
        let files = scripts("tests/fuzz");
        assert!(!files.is_empty(), "tests/fuzz/*.passlab missing");
        for (name, text) in files {
            let mut s = session();
            for item in items(&text) {
                if let Err(e) = check(&mut s, &item) {
                    panic!("{name}: {e}");
                }
            }
            finish(s).unwrap();
        }
    });
}
