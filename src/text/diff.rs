//! Unified line diffs: of printed modules (PrintChanged, `diff a b`) and of transcript output.
//!
//! **Renumbering.** The printer numbers a function's bindings `%0`, `%1`, ... as it meets
//! them, so a pass that adds or removes one binding renumbers every binding after it, and a
//! plain line diff reports the rest of the function as changed. With [`Lines::Renumbered`],
//! lines are matched by a key in which every numbered name `%N` is written relative to the
//! number the line defines, or to the last one defined before it (`%9 = add(%8, %5)` is keyed
//! `%^0 = add(%^1, %^4)`): a stretch of lines that only shifted keeps its keys and matches,
//! while a line whose operands now come from elsewhere (a reference across added or removed
//! bindings, swapped operands) still differs. Matched lines are shown as context in the new
//! text's numbering. When the keys match everywhere but the texts differ (a change that only
//! moved numbers), the exact diff is shown instead, so a change is never hidden.

use similar::{Algorithm, DiffTag, TextDiff};
use std::fmt::Write as _;
use std::time::{Duration, Instant};

/// How lines are matched.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lines {
    /// Equal text.
    Exact,
    /// Equal up to the numbering of `%N` names (printed Relay; see the module documentation).
    Renumbered,
}

/// Lines of context around each change.
const CONTEXT: usize = 3;

/// A unified diff of `old` and `new` under the given file labels, empty when they are equal.
pub fn unified_diff(old: &str, new: &str, old_label: &str, new_label: &str, how: Lines) -> String {
    if old == new {
        return String::new();
    }
    if how == Lines::Renumbered {
        let (a, b) = (split_lines(old), split_lines(new));
        let (ka, kb) = (Keys::of(&a), Keys::of(&b));
        let (ka, kb) = (ka.view(), kb.view());
        let mut changes = Vec::new();
        resync(&ka, &kb, |c| changes.push(c));
        let deadline = Instant::now() + REFINE_BUDGET;
        let changes = refine(&ka, &kb, changes, deadline);
        if !changes.is_empty() {
            return render(&a, &b, &changes, old_label, new_label);
        }
    }
    TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(CONTEXT)
        .header(old_label, new_label)
        .to_string()
}

/// The lines of `text`, each with its newline (the last may lack one).
fn split_lines(text: &str) -> Vec<&str> {
    text.split_inclusive('\n').collect()
}

/// A change: old lines `a.0..a.1` replaced by new lines `b.0..b.1`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Change {
    a: (usize, usize),
    b: (usize, usize),
}

/// The changed ranges between two lists of lines, in order (patience diff: anchored on lines
/// that occur once on each side, Myers between them).
fn changed_ranges(a: &[&str], b: &[&str], deadline: Instant) -> Vec<Change> {
    let mut out: Vec<Change> = Vec::new();
    for op in similar::capture_diff_slices_deadline(Algorithm::Patience, a, b, Some(deadline)) {
        let (tag, ra, rb) = op.as_tag_tuple();
        if tag == DiffTag::Equal {
            continue;
        }
        match out.last_mut() {
            // A deletion right before an insertion is one change.
            Some(last) if last.a.1 == ra.start && last.b.1 == rb.start => {
                last.a.1 = ra.end;
                last.b.1 = rb.end;
            }
            _ => out.push(Change {
                a: (ra.start, ra.end),
                b: (rb.start, rb.end),
            }),
        }
    }
    out
}

/// Lines in a row that [`resync`] must find equal to match the texts up again.
const RUN: usize = 3;

/// Lines a side of a change may have for [`refine`] to look inside it.
const REFINE_MAX: usize = 4_096;

/// How long [`refine`]'s diffs may search for the best match in all (Myers between patience
/// anchors is O(N·D)); past it they settle for a quick one (`similar`'s deadline), so no
/// input makes a diff slow. Far above the milliseconds the models take.
const REFINE_BUDGET: Duration = Duration::from_secs(1);

/// The changes of `changes` split where a patience diff finds equal lines inside them (single
/// lines and pairs between changes, which [`resync`] does not match on).
fn refine(a: &[&str], b: &[&str], changes: Vec<Change>, deadline: Instant) -> Vec<Change> {
    let mut out = Vec::with_capacity(changes.len());
    for c in changes {
        let (na, nb) = (c.a.1 - c.a.0, c.b.1 - c.b.0);
        let (sa, sb) = (&a[c.a.0..c.a.1], &b[c.b.0..c.b.1]);
        // A small change whose sides share no line has nothing to find (most changes of a
        // pass that rewrites every block: a pairwise check costs less than a diff).
        let disjoint = || na * nb <= 256 && !sa.iter().any(|x| sb.contains(x));
        if na == 0 || nb == 0 || na > REFINE_MAX || nb > REFINE_MAX || disjoint() {
            out.push(c);
            continue;
        }
        for d in changed_ranges(sa, sb, deadline) {
            out.push(Change {
                a: (d.a.0 + c.a.0, d.a.1 + c.a.0),
                b: (d.b.0 + c.b.0, d.b.1 + c.b.0),
            });
        }
    }
    out
}

/// Greedy matching of `a` and `b`, for [`Lines::Renumbered`]: equal lines match as they
/// come; at a difference, the next match is the run of [`RUN`] equal lines that skips the
/// fewest lines of both (`a[i + da..]` against the first such run in `b` at or after `j`, for
/// growing `da` until `da` alone costs more than the best found). The scan of a difference is
/// bounded by the lines it skips, so the whole is O(n log n).
///
/// Why not a general diff algorithm here: under renumbering keys, a model of repeated blocks
/// keys every block alike, so no line is unique (patience finds no anchor) and histogram diff
/// (git's, as imara-diff implements it) falls back past 64 occurrences to Myers with a cost
/// cut-off, which on a pass that rewrites every block of a 100k-op model gives up at the top
/// level (the whole function as one change) after seconds. The scan here matches each
/// block's unchanged lines again in one linear pass; [`refine`] then looks inside each (small) change.
fn resync(a: &[&str], b: &[&str], mut emit: impl FnMut(Change)) {
    use rustc_hash::FxHashMap;
    // Where each run of `b` starts, in order.
    let mut starts: FxHashMap<&[&str], Vec<usize>> = FxHashMap::default();
    for j in 0..b.len().saturating_sub(RUN - 1) {
        starts.entry(run(b, j)).or_default().push(j);
    }
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        if a[i] == b[j] {
            i += 1;
            j += 1;
            continue;
        }
        let mut best: Option<(usize, usize)> = None;
        let mut da = 0;
        while i + da + RUN <= a.len() && best.is_none_or(|(x, y)| da < x + y) {
            if let Some(js) = starts.get(run(a, i + da)) {
                let k = js.partition_point(|&p| p < j);
                if let Some(&p) = js.get(k) {
                    if best.is_none_or(|(x, y)| da + (p - j) < x + y) {
                        best = Some((da, p - j));
                    }
                }
            }
            da += 1;
        }
        let (da, db) = best.unwrap_or((a.len() - i, b.len() - j));
        emit(Change {
            a: (i, i + da),
            b: (j, j + db),
        });
        i += da;
        j += db;
    }
    if i < a.len() || j < b.len() {
        emit(Change {
            a: (i, a.len()),
            b: (j, b.len()),
        });
    }
}

/// The run of [`RUN`] lines (fewer at the end) from `at`.
fn run<'s, 'l>(s: &'s [&'l str], at: usize) -> &'s [&'l str] {
    &s[at..(at + RUN).min(s.len())]
}

/// Every line's matching key for [`Lines::Renumbered`], one after another in one buffer (a
/// key per line, most of them rewritten: one allocation instead of one a line).
struct Keys {
    buf: String,
    ends: Vec<usize>,
}

impl Keys {
    fn of(lines: &[&str]) -> Keys {
        let mut k = Keys {
            buf: String::with_capacity(lines.iter().map(|l| l.len() + 4).sum()),
            ends: Vec::with_capacity(lines.len()),
        };
        let mut last_def: Option<u64> = None;
        for l in lines {
            renumbered_key(l, &mut last_def, &mut k.buf);
            k.ends.push(k.buf.len());
        }
        k
    }

    fn view(&self) -> Vec<&str> {
        let mut start = 0;
        self.ends
            .iter()
            .map(|&end| {
                let k = &self.buf[start..end];
                start = end;
                k
            })
            .collect()
    }
}

/// Appends `line`'s key to `key` (see [`Keys`]); `last_def` is the number the latest defining
/// line defined.
fn renumbered_key(line: &str, last_def: &mut Option<u64>, key: &mut String) {
    let bytes = line.as_bytes();
    let numbered = |at: usize| -> Option<(u64, usize)> {
        // `%` then digits, not inside a longer name (`%x_1`, `%p0`).
        if bytes[at] != b'%' || (at > 0 && is_name_byte(bytes[at - 1])) {
            return None;
        }
        let digits = bytes[at + 1..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
        let end = at + 1 + digits;
        if digits == 0
            || digits > 18
            || bytes
                .get(end)
                .is_some_and(|b| is_name_byte(*b) && *b != b'.')
        {
            return None;
        }
        let n = line[at + 1..end].parse().ok()?;
        Some((n, end))
    };
    // A defining line: `%N = ...` after the indentation.
    let indent = bytes.iter().take_while(|b| **b == b' ').count();
    if indent < bytes.len() {
        if let Some((n, end)) = numbered(indent) {
            if line[end..].starts_with(" = ") {
                *last_def = Some(n);
            }
        }
    }
    let Some(base) = *last_def else {
        key.push_str(line);
        return;
    };
    let mut copied = 0;
    let mut at = 0;
    while let Some(p) = line[at..].find('%') {
        let p = at + p;
        match numbered(p) {
            Some((n, end)) => {
                key.push_str(&line[copied..p]);
                key.push_str("%^");
                push_signed(key, base as i64 - n as i64);
                copied = end;
                at = end;
            }
            None => at = p + 1,
        }
    }
    key.push_str(&line[copied..]);
}

/// `n` in decimal, without the formatting machinery (a key is built for every line).
fn push_signed(out: &mut String, n: i64) {
    if n < 0 {
        out.push('-');
    }
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    let mut m = n.unsigned_abs();
    loop {
        at -= 1;
        digits[at] = b'0' + (m % 10) as u8;
        m /= 10;
        if m == 0 {
            break;
        }
    }
    out.push_str(std::str::from_utf8(&digits[at..]).expect("ASCII digits"));
}

fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'.'
}

/// The unified text: `---`/`+++` labels, then hunks of the changes with [`CONTEXT`] lines
/// around each (changes closer than twice that share a hunk). Context lines are the new text's.
fn render(a: &[&str], b: &[&str], changes: &[Change], old_label: &str, new_label: &str) -> String {
    let mut out = String::new();
    if changes.is_empty() {
        return out;
    }
    let _ = writeln!(out, "--- {old_label}");
    let _ = writeln!(out, "+++ {new_label}");
    let mut i = 0;
    while i < changes.len() {
        // The changes of this hunk: while the gap to the next is within two contexts.
        let mut j = i + 1;
        while j < changes.len() && changes[j].a.0 - changes[j - 1].a.1 <= 2 * CONTEXT {
            j += 1;
        }
        let first = changes[i];
        let last = changes[j - 1];
        let lead = CONTEXT.min(first.a.0).min(first.b.0);
        let trail = CONTEXT.min(a.len() - last.a.1).min(b.len() - last.b.1);
        let (a0, a1) = (first.a.0 - lead, last.a.1 + trail);
        let (b0, b1) = (first.b.0 - lead, last.b.1 + trail);
        let _ = writeln!(out, "@@ -{} +{} @@", range(a0, a1), range(b0, b1));
        // Context before each change is the new text's (it matched the old by key).
        let mut bj = b0;
        for c in &changes[i..j] {
            for line in &b[bj..c.b.0] {
                push_line(&mut out, ' ', line);
            }
            for line in &a[c.a.0..c.a.1] {
                push_line(&mut out, '-', line);
            }
            for line in &b[c.b.0..c.b.1] {
                push_line(&mut out, '+', line);
            }
            bj = c.b.1;
        }
        for line in &b[bj..b1] {
            push_line(&mut out, ' ', line);
        }
        i = j;
    }
    out
}

/// A hunk side's `start,count` (1-based; the line before for an empty side, as GNU diff).
fn range(from: usize, to: usize) -> String {
    match to - from {
        0 => format!("{from},0"),
        1 => format!("{}", from + 1),
        n => format!("{},{n}", from + 1),
    }
}

fn push_line(out: &mut String, tag: char, line: &str) {
    out.push(tag);
    out.push_str(line);
    if !line.ends_with('\n') {
        out.push_str("\n\\ No newline at end of file\n");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(text: &str) -> Vec<String> {
        let lines = split_lines(text);
        let k = Keys::of(&lines);
        k.view().iter().map(|k| k.to_string()).collect()
    }

    #[test]
    fn numbers_are_keyed_relative_to_the_last_definition() {
        let k = keys("def @main(%x, %p0) {\n  %9 = add(%8, %5);\n  %4.0\n  %x_1 = f(%9, %p0)\n}\n");
        assert_eq!(k[0], "def @main(%x, %p0) {\n");
        assert_eq!(k[1], "  %^0 = add(%^1, %^4);\n");
        assert_eq!(k[2], "  %^5.0\n", "a projection's number is a number");
        assert_eq!(
            k[3], "  %x_1 = f(%^0, %p0)\n",
            "named variables are left alone"
        );
    }

    #[test]
    fn a_shifted_stretch_matches_and_shows_in_the_new_numbering() {
        let old = "def @main(%x) {\n  %0 = add(%x, %x);\n  %1 = nn.relu(%0);\n  %2 = multiply(%1, %1);\n  %3 = negative(%2);\n  %4 = exp(%3);\n  %5 = sqrt(%4);\n  %6 = tanh(%5);\n  %7 = abs(%6);\n  %8 = nn.relu(%7);\n  %8\n}\n";
        let new = old
            .replace(
                "  %1 = nn.relu(%0);\n",
                "  %1 = nn.relu(%0);\n  %2 = round(%1);\n",
            )
            .replace("%8", "%9")
            .replace("%7", "%8")
            .replace("%6", "%7")
            .replace("%5", "%6")
            .replace("%4", "%5")
            .replace("%3", "%4")
            .replace("  %2 = multiply(%1, %1)", "  %3 = multiply(%2, %2)")
            .replace("negative(%2)", "negative(%3)");
        let d = unified_diff(old, &new, "before", "after", Lines::Renumbered);
        // `multiply` took the binding one back before and does now: it matches, and reads
        // right in the new numbering, after the inserted line.
        assert_eq!(
            d,
            "--- before\n+++ after\n@@ -1,6 +1,7 @@\n def @main(%x) {\n   %0 = add(%x, %x);\n   %1 = nn.relu(%0);\n\
             +  %2 = round(%1);\n   %3 = multiply(%2, %2);\n   %4 = negative(%3);\n   %5 = exp(%4);\n"
        );
        let plain = unified_diff(old, &new, "before", "after", Lines::Exact);
        assert!(plain.matches("\n-").count() >= 8, "{plain}");
    }

    /// SimplifyInference on 300 repeated blocks (more than the histogram algorithm's 64
    /// occurrences): every block's unchanged lines match (the histogram algorithm alone
    /// reported the whole function as one change), and the diff reads per block.
    #[test]
    fn repeated_blocks_rewritten_everywhere_keep_their_unchanged_lines() {
        use crate::passes::{infer_type::infer_module, simplify_inference::simplify_inference};
        let layers = 300;
        let m = crate::text::parse_module(&crate::testgen::conv_model(layers), "conv").unwrap();
        let typed = infer_module(&m).unwrap();
        let (old, new) = (
            crate::text::print_module(&typed),
            crate::text::print_module(&simplify_inference(&typed)),
        );
        let d = unified_diff(&old, &new, "a", "b", Lines::Renumbered);
        let count = |p: &str| d.lines().filter(|l| l.starts_with(p)).count();
        // Per block: conv2d, bias_add and relu unchanged; add, batch_norm and its projection
        // replaced by the twelve lines of the expansion.
        assert!(
            count(" ") >= 3 * (layers - 1),
            "{} context lines",
            count(" ")
        );
        assert!(count("-") <= 3 * layers + 3, "{} removed", count("-"));
        assert!(d.contains("\n   %2 = nn.relu(%1)"), "{}", &d[..2000]);
        assert!(d.contains("\n-  %3 = add(%2, %data)"));
        assert!(d.contains("\n+  %3 = add(%var, 1e-05f"));
        let plain = unified_diff(&old, &new, "a", "b", Lines::Exact);
        assert!(plain.lines().filter(|l| l.starts_with(' ')).count() < layers);
    }

    #[test]
    fn a_single_equal_line_inside_a_change_is_found() {
        // Fewer than three equal lines in a row: the scan passes over `x`, the refinement
        // finds it.
        let old = "a\nb\nc\nx\nd\ne\nf\n";
        let new = "A\nB\nC\nx\nD\nE\nF\n";
        let d = unified_diff(old, new, "o", "n", Lines::Renumbered);
        assert!(d.contains("+C\n x\n-d\n"), "{d}");
    }

    #[test]
    fn swapped_operands_still_differ() {
        let old = "  %0 = f(%x);\n  %1 = g(%x);\n  %2 = add(%0, %1);\n";
        let new = "  %0 = f(%x);\n  %1 = g(%x);\n  %2 = add(%1, %0);\n";
        let d = unified_diff(old, new, "a", "b", Lines::Renumbered);
        assert!(
            d.contains("-  %2 = add(%0, %1);\n+  %2 = add(%1, %0);\n"),
            "{d}"
        );
    }

    #[test]
    fn a_change_of_numbers_only_falls_back_to_the_exact_diff() {
        // Keys equal (each reference one back), texts not: shown exactly, never hidden.
        let old = "  %0 = f(%x);\n  %1 = g(%0);\n";
        let new = "  %5 = f(%x);\n  %6 = g(%5);\n";
        let d = unified_diff(old, new, "a", "b", Lines::Renumbered);
        assert_eq!(
            d,
            "--- a\n+++ b\n@@ -1,2 +1,2 @@\n-  %0 = f(%x);\n-  %1 = g(%0);\n+  %5 = f(%x);\n+  %6 = g(%5);\n"
        );
    }

    #[test]
    fn hunks_follow_gnu_diff() {
        let old: String = (1..=20).map(|i| format!("l{i}\n")).collect();
        let new = old
            .replace("l2\n", "L2\n")
            .replace("l18\n", "")
            .replace("l20\n", "l20");
        let expected = "--- a\n+++ b\n@@ -1,5 +1,5 @@\n l1\n-l2\n+L2\n l3\n l4\n l5\n\
             @@ -15,6 +15,5 @@\n l15\n l16\n l17\n-l18\n l19\n-l20\n+l20\n\\ No newline at end of file\n";
        // The renumbering path renders its own hunks, as the exact path (`similar`) does.
        for how in [Lines::Renumbered, Lines::Exact] {
            assert_eq!(unified_diff(&old, &new, "a", "b", how), expected, "{how:?}");
            assert_eq!(unified_diff("x\n", "x\n", "a", "b", how), "");
        }
        assert_eq!(
            unified_diff("", "y\n", "a", "b", Lines::Renumbered),
            "--- a\n+++ b\n@@ -0,0 +1 @@\n+y\n"
        );
    }
}
