//! Scripts and transcripts. A transcript is a `.passlab` script whose `#> ` lines hold the
//! expected output of the statement before them (`{{regex}}` matches variable text such as a
//! time). `run` executes a script; `replay` re-runs a transcript and reports the first
//! mismatch as a diff; `bless` rewrites the expected lines from a fresh run.

use super::Session;
use crate::lang::{Completeness, Scanner};
use regex::Regex;
use std::sync::Arc;

/// One statement of a script with what surrounds it.
#[derive(Clone, Debug, PartialEq)]
pub struct Item {
    /// Blank and comment lines before the statement.
    pub leading: Vec<String>,
    /// The statement's lines.
    pub source: Vec<String>,
    /// The `#>` lines after it (without the `#> ` prefix).
    pub expected: Vec<String>,
    /// 1-based line of the statement's first line.
    pub line: usize,
    /// The statement's bytes in the script (from its first line's start to its last line's
    /// end, without the line break).
    pub range: std::ops::Range<usize>,
}

/// Splits a script into statements (multi-line ones kept whole) and expectations.
pub fn split(text: &str) -> (Vec<Item>, Vec<String>) {
    let mut items: Vec<Item> = Vec::new();
    let mut leading = Vec::new();
    let mut pending: Vec<String> = Vec::new();
    let mut scan = Scanner::new();
    let mut start = 0;
    let mut start_byte = 0;
    let mut at = 0;
    for (i, raw) in text.split_inclusive('\n').enumerate() {
        let line_start = at;
        at += raw.len();
        let line = raw.strip_suffix('\n').unwrap_or(raw);
        let line = line.strip_suffix('\r').unwrap_or(line);
        let line_end = line_start + line.len();
        if pending.is_empty() {
            if let Some(rest) = line.strip_prefix("#>") {
                let rest = rest.strip_prefix(' ').unwrap_or(rest);
                match items.last_mut() {
                    Some(it) if leading.is_empty() => it.expected.push(rest.to_string()),
                    _ => leading.push(line.to_string()),
                }
                continue;
            }
            let t = line.trim_start();
            if t.is_empty() || t.starts_with('#') {
                leading.push(line.to_string());
                continue;
            }
            start = i + 1;
            start_byte = line_start;
        }
        if !pending.is_empty() {
            scan.feed("\n");
        }
        scan.feed(line);
        pending.push(line.to_string());
        if !matches!(scan.state(), Completeness::Incomplete { .. }) {
            scan = Scanner::new();
            items.push(Item {
                leading: std::mem::take(&mut leading),
                source: std::mem::take(&mut pending),
                expected: Vec::new(),
                line: start,
                range: start_byte..line_end,
            });
        }
    }
    if !pending.is_empty() {
        items.push(Item {
            leading: std::mem::take(&mut leading),
            source: pending,
            expected: Vec::new(),
            line: start,
            range: start_byte..text.len(),
        });
    }
    (items, leading)
}

/// Runs one item of `text` (shared, not copied), with line numbers matching the file.
fn run_item(s: &mut Session, text: &Arc<str>, item: &Item) -> crate::session::Outputs {
    s.execute_in(text.clone(), item.range.clone())
}

/// The result of running a script.
pub struct RunReport {
    /// Everything printed, in order (plain or coloured as the session renders).
    pub text: String,
    pub errors: usize,
}

/// Runs a script; stops at the first error unless `keep_going`. `emit` receives each
/// statement's output as it is produced. At the end the script's session ends: a paused run
/// is aborted and the contexts left entered are exited, and a failure there (an
/// instrument's `exit_pass_ctx`) counts as an error too.
pub fn run(s: &mut Session, text: &str, keep_going: bool, mut emit: impl FnMut(&str)) -> RunReport {
    let (items, _) = split(text);
    let shared: Arc<str> = Arc::from(text);
    let mut all = String::new();
    let mut errors = 0;
    for item in &items {
        let out = run_item(s, &shared, item);
        let t = out.text(s.color);
        emit(&t);
        all.push_str(&t);
        if out.is_error() {
            errors += 1;
            if !keep_going {
                break;
            }
        }
    }
    let out = s.exit_all_contexts();
    let t = out.text(s.color);
    emit(&t);
    all.push_str(&t);
    errors += usize::from(out.is_error());
    RunReport { text: all, errors }
}

/// Where a replay first differed.
#[derive(Debug, Clone, PartialEq)]
pub struct Mismatch {
    pub line: usize,
    pub statement: String,
    pub diff: String,
}

fn line_matches(expected: &str, actual: &str) -> bool {
    if !expected.contains("{{") {
        return expected == actual;
    }
    let mut pattern = String::from("^");
    let mut rest = expected;
    while let Some(i) = rest.find("{{") {
        pattern.push_str(&regex::escape(&rest[..i]));
        let after = &rest[i + 2..];
        match after.find("}}") {
            Some(j) => {
                pattern.push_str(&format!("(?:{})", &after[..j]));
                rest = &after[j + 2..];
            }
            None => {
                pattern.push_str(&regex::escape(&rest[i..]));
                rest = "";
            }
        }
    }
    pattern.push_str(&regex::escape(rest));
    pattern.push('$');
    Regex::new(&pattern)
        .map(|r| r.is_match(actual))
        .unwrap_or(false)
}

fn lines_of(out: &str) -> Vec<String> {
    if out.is_empty() {
        return Vec::new();
    }
    out.trim_end_matches('\n')
        .split('\n')
        .map(|l| l.trim_end().to_string())
        .collect()
}

/// Re-runs a transcript; `Ok(())` when every statement printed what its `#>` lines say.
pub fn replay(s: &mut Session, text: &str) -> Result<(), Mismatch> {
    let (items, _) = split(text);
    let shared: Arc<str> = Arc::from(text);
    for item in &items {
        let out = run_item(s, &shared, item);
        let actual = lines_of(&out.plain());
        let expected: Vec<String> = item
            .expected
            .iter()
            .map(|l| l.trim_end().to_string())
            .collect();
        let ok = actual.len() == expected.len()
            && expected
                .iter()
                .zip(&actual)
                .all(|(e, a)| line_matches(e, a));
        if !ok {
            let diff = crate::text::diff::unified_diff(
                &(expected.join("\n") + "\n"),
                &(actual.join("\n") + "\n"),
                "expected",
                "actual",
                crate::text::diff::Lines::Exact,
            );
            return Err(Mismatch {
                line: item.line,
                statement: item.source.join("\n"),
                diff,
            });
        }
    }
    Ok(())
}

/// Re-runs a transcript and returns it with fresh `#>` lines (an expected line that still
/// matches, `{{regex}}` included, is kept as written).
pub fn bless(s: &mut Session, text: &str) -> String {
    let (items, trailing) = split(text);
    let shared: Arc<str> = Arc::from(text);
    let mut out = String::new();
    for item in &items {
        for l in &item.leading {
            out.push_str(l);
            out.push('\n');
        }
        for l in &item.source {
            out.push_str(l);
            out.push('\n');
        }
        let actual = lines_of(&run_item(s, &shared, item).plain());
        for (k, a) in actual.iter().enumerate() {
            let keep = item
                .expected
                .get(k)
                .filter(|e| line_matches(e.trim_end(), a));
            let line = keep.cloned().unwrap_or_else(|| a.clone());
            if line.is_empty() {
                out.push_str("#>\n");
            } else {
                out.push_str("#> ");
                out.push_str(&line);
                out.push('\n');
            }
        }
    }
    for l in trailing {
        out.push_str(&l);
        out.push('\n');
    }
    out
}

/// Blesses until the text stops changing: error locations name script lines, and blessing
/// adds or removes `#>` lines, which moves the statements below. Each round uses a fresh
/// session from `make`.
pub fn bless_until_stable(mut make: impl FnMut() -> Session, text: &str) -> String {
    let mut cur = text.to_string();
    for _ in 0..5 {
        let next = bless(&mut make(), &cur);
        if next == cur {
            break;
        }
        cur = next;
    }
    cur
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_statements_and_expectations() {
        let text = "# a comment\nx = 1\nx\n#> 1\nwith PassContext() {\n  y = 2\n}\n#>\n";
        let (items, _) = split(text);
        assert_eq!(items.len(), 3);
        assert_eq!(items[1].expected, vec!["1"]);
        assert_eq!(items[2].source.len(), 3);
        assert_eq!(items[2].line, 5);
        assert_eq!(items[2].expected, vec![""]);
    }

    #[test]
    fn regex_lines() {
        assert!(line_matches("took {{[0-9]+}} us", "took 42 us"));
        assert!(!line_matches("took {{[0-9]+}} us", "took x us"));
        assert!(line_matches("a.b", "a.b"));
    }

    /// A context whose exit fails when the script ends is an error at the statement that
    /// entered it, and the script fails.
    #[test]
    fn a_failing_exit_at_the_end_is_a_located_error() {
        let mut s = Session::new();
        s.set_source_name("end.passlab");
        let text = "x = 1\nenter PassContext(instruments=[Trace(name=\"t\", fail_at=\"exit_pass_ctx\")])\n";
        let report = run(&mut s, text, false, |_| {});
        assert_eq!(report.errors, 1, "{}", report.text);
        for line in [
            "[t] exit_pass_ctx",
            "error: t exit_pass_ctx failed (instrument t, exit_pass_ctx)",
            " --> end.passlab:2:7",
            "^^^ entered here, and exited when the session ended",
        ] {
            assert!(report.text.contains(line), "{line}\n{}", report.text);
        }
        assert!(s.pass_manager().stack().is_empty());
    }

    /// `timing` with no timing instrument points at the statement.
    #[test]
    fn timing_without_an_instrument_is_located() {
        let out = Session::new().execute("x = 1\ntiming");
        assert!(out.plain().contains(" --> <input>:2:1"), "{}", out.plain());
    }
}
