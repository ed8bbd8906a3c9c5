//! The library's layers are true: a module may name (`crate::x`) only itself and the modules
//! below it in `LAYERS`. The test reads every library source file, drops comments and the
//! code compiled only for tests (`#[cfg(test)]` modules may build fixtures from any layer),
//! and fails on every reference that runs back up, naming the file and line.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Bottom to top. A module on a row may use the modules on earlier rows and itself; modules
/// on one row are independent of each other. ARCHITECTURE.md ("Layers") states the same order.
const LAYERS: &[&[&str]] = &[
    &["limits", "suggest", "target"],
    &["diagnostic"],
    &["files"],
    &["ir"],
    &["text"],
    &["eval"],
    &["pass"],
    &["passes"],
    &["instrument"],
    &["onnx"],
    &["lang"],
    &["present"],
    &["session"],
    &["notebook"],
    // Test-program generators (behind the `testgen` feature), for tests and benchmarks only.
    &["testgen"],
];

fn rank(module: &str) -> Option<usize> {
    LAYERS.iter().position(|row| row.contains(&module))
}

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// The library's top-level modules, as `src/lib.rs` declares them.
fn declared_modules() -> Vec<String> {
    let lib = std::fs::read_to_string(src().join("lib.rs")).unwrap();
    lib.lines()
        .filter_map(|l| l.trim().strip_prefix("pub mod "))
        .map(|l| l.trim_end_matches(';').trim().to_string())
        .collect()
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// Files that are themselves test-only modules (`#[cfg(test)] mod tests;` next to them).
fn test_only_files(files: &[PathBuf]) -> BTreeSet<PathBuf> {
    let mut out = BTreeSet::new();
    for f in files {
        let text = std::fs::read_to_string(f).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        for w in lines.windows(2) {
            if w[0].trim() != "#[cfg(test)]" {
                continue;
            }
            let Some(name) = w[1]
                .trim()
                .strip_prefix("mod ")
                .and_then(|r| r.strip_suffix(';'))
            else {
                continue;
            };
            // `src/a/b.rs` declares its children in `src/a/b/`; `src/a.rs`, `mod.rs` and
            // `lib.rs` in their own folder.
            let stem = f.file_stem().unwrap().to_str().unwrap();
            let dir = if stem == "mod" || stem == "lib" {
                f.parent().unwrap().to_path_buf()
            } else {
                f.with_extension("")
            };
            out.insert(dir.join(format!("{name}.rs")));
            out.insert(dir.join(name).join("mod.rs"));
        }
    }
    out
}

/// The file's code as (line number, line) pairs, with comments, string and char literals blanked
/// out and every item marked `#[cfg(test)]` (a `mod tests { ... }`, a helper function, a `use`)
/// removed. Braces are matched on the blanked text, so Relay text in a test's raw string cannot
/// end a block early.
fn product_lines(text: &str) -> Vec<(usize, String)> {
    let code = blank_comments_and_literals(text);
    let b = code.as_bytes();
    let mut keep = vec![true; b.len()];
    let mut i = 0;
    while let Some(at) = code[i..].find("#[cfg(test)]") {
        let start = i + at;
        // The item runs to its first `;` outside brackets, or to the `}` closing its first `{`.
        let mut depth = 0i32;
        let mut j = start + "#[cfg(test)]".len();
        while j < b.len() {
            match b[j] {
                b'{' | b'(' | b'[' => depth += 1,
                b')' | b']' => depth -= 1,
                b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                b';' if depth == 0 => break,
                _ => {}
            }
            j += 1;
        }
        let end = (j + 1).min(b.len());
        keep[start..end].iter_mut().for_each(|k| *k = false);
        i = end;
    }
    let kept: String = code
        .bytes()
        .zip(&keep)
        .map(|(c, &k)| if k || c == b'\n' { c as char } else { ' ' })
        .collect();
    kept.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| (i + 1, l.to_string()))
        .collect()
}

/// `text` with comments and string, raw-string and char literals replaced by spaces, byte for
/// byte (newlines kept, so line numbers stay right). The result is ASCII.
fn blank_comments_and_literals(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let blank = |out: &mut Vec<u8>, from: &[u8]| {
        out.extend(from.iter().map(|&c| if c == b'\n' { b'\n' } else { b' ' }))
    };
    let ident_before = |i: usize| i > 0 && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_');
    let mut i = 0;
    while i < b.len() {
        let rest = &b[i..];
        let end = if rest.starts_with(b"//") {
            i + rest.iter().position(|&c| c == b'\n').unwrap_or(rest.len())
        } else if rest.starts_with(b"/*") {
            let mut depth = 0;
            let mut j = i;
            while j < b.len() {
                if b[j..].starts_with(b"/*") {
                    depth += 1;
                    j += 2;
                } else if b[j..].starts_with(b"*/") {
                    depth -= 1;
                    j += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    j += 1;
                }
            }
            j
        } else if rest[0] == b'r' && !ident_before(i) && {
            let hashes = rest[1..].iter().take_while(|&&h| h == b'#').count();
            rest.get(1 + hashes) == Some(&b'"')
        } {
            let hashes = rest[1..].iter().take_while(|&&h| h == b'#').count();
            let mut close = vec![b'"'];
            close.extend(std::iter::repeat_n(b'#', hashes));
            let mut j = i + 2 + hashes;
            while j < b.len() && !b[j..].starts_with(&close) {
                j += 1;
            }
            (j + close.len()).min(b.len())
        } else if rest[0] == b'"' {
            let mut j = i + 1;
            while j < b.len() && b[j] != b'"' {
                j += if b[j] == b'\\' { 2 } else { 1 };
            }
            (j + 1).min(b.len())
        } else if rest[0] == b'\'' && (rest.get(2) == Some(&b'\'') || rest.get(1) == Some(&b'\\')) {
            // A char literal ('{', '\n', '\''); a lifetime (`'a`) has no quote two bytes on.
            let mut j = i + 2;
            while j < b.len() && b[j] != b'\'' {
                j += 1;
            }
            (j + 1).min(b.len())
        } else {
            out.push(if rest[0].is_ascii() { rest[0] } else { b' ' });
            i += 1;
            continue;
        };
        blank(&mut out, &b[i..end]);
        i = end;
    }
    String::from_utf8(out).expect("ASCII")
}

/// The top-level modules a piece of code names through `crate::`, including every branch of a
/// grouped `use crate::{a::X, b::{Y, Z}}`.
fn referenced_modules(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find("crate::") {
        let before = &rest[..at];
        rest = &rest[at + "crate::".len()..];
        if before.ends_with('$') || before.ends_with(|c: char| c.is_alphanumeric() || c == '_') {
            continue; // `$crate::` in macros, or a longer identifier
        }
        if let Some(group) = rest.strip_prefix('{') {
            let mut depth = 0usize;
            let mut item_start = true;
            for (i, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => item_start = true,
                    c if item_start && (c.is_alphanumeric() || c == '_') => {
                        let ident: String = group[i..]
                            .chars()
                            .take_while(|c| c.is_alphanumeric() || *c == '_')
                            .collect();
                        out.push(ident);
                        item_start = false;
                    }
                    _ => {}
                }
            }
        } else {
            let ident: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if !ident.is_empty() {
                out.push(ident);
            }
        }
    }
    out
}

#[test]
fn every_library_module_has_a_layer() {
    let missing: Vec<String> = declared_modules()
        .into_iter()
        .filter(|m| rank(m).is_none())
        .collect();
    assert!(
        missing.is_empty(),
        "modules without a layer in LAYERS: {missing:?}"
    );
}

#[test]
fn no_reference_runs_back_up_a_layer() {
    let root = src();
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    files.sort();
    let test_only = test_only_files(&files);
    let modules = declared_modules();
    let mut violations = Vec::new();
    let mut checked = 0;
    for f in &files {
        let rel = f.strip_prefix(&root).unwrap();
        let first = rel
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_str()
            .unwrap();
        let module = first.trim_end_matches(".rs");
        if !modules.iter().any(|m| m == module) || test_only.contains(f) {
            continue; // lib.rs, main.rs and the binary's own modules (src/cli), test-only files
        }
        let own = rank(module).unwrap();
        let text = std::fs::read_to_string(f).unwrap();
        for (line, code) in product_lines(&text) {
            for used in referenced_modules(&code) {
                checked += 1;
                match rank(&used) {
                    Some(r) if r < own || used == module => {}
                    Some(_) => violations.push(format!(
                        "src/{}:{line}: `{module}` uses `{used}`, which is not below it",
                        rel.display()
                    )),
                    None => violations.push(format!(
                        "src/{}:{line}: `{module}` uses `crate::{used}`, which has no layer",
                        rel.display()
                    )),
                }
            }
        }
    }
    assert!(
        checked > 500,
        "the scan found only {checked} references: is it reading src/?"
    );
    assert!(
        violations.is_empty(),
        "{} references run back up the layers:\n{}",
        violations.len(),
        violations.join("\n")
    );
}

#[test]
fn the_scanner_reads_grouped_uses_and_skips_test_modules() {
    assert_eq!(
        referenced_modules("use crate::{ir::{Expr, Module}, text::print, pass};"),
        ["ir", "text", "pass"]
    );
    assert_eq!(
        referenced_modules("let x = $crate::eval::f(crate::ir::g());"),
        ["ir"]
    );
    let text = "use crate::ir::X;\n#[cfg(test)]\nmod tests {\n    const T: &str = r#\"\n}\"#;\n\
                use crate::session::S;\n}\n#[cfg(test)]\nuse crate::pass::P;\n\
                fn f() { crate::text::p(\"crate::eval\", '}') } // crate::session\n";
    let lines = product_lines(text);
    let used: Vec<String> = lines
        .iter()
        .flat_map(|(_, c)| referenced_modules(c))
        .collect();
    assert_eq!(used, ["ir", "text"]);
}
