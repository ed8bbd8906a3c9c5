//! Renderings of a unified diff (the `diff` command's and `PrintChanged`'s text): ANSI colours
//! for a terminal, and a side-by-side HTML table for Jupyter, with the changed characters of each
//! replaced line marked. Both start from the plain unified text, so the plain rendering stays
//! the single source of truth (what transcripts compare) and the others only decorate it.
//! Lines before the `---` header (such as `FoldConstant changed @main`) are a heading.

use super::html_escape;
use similar::TextDiff;

const RESET: &str = "\x1b[0m";
const BOLD: &str = "\x1b[1m";
const RED: &str = "\x1b[31m";
const GREEN: &str = "\x1b[32m";
const CYAN: &str = "\x1b[36m";

/// The diff with ANSI colours: headings and file headers bold, removed lines red, added lines
/// green, hunk headers cyan.
pub fn ansi(diff: &str) -> String {
    let mut out = String::with_capacity(diff.len() + diff.len() / 4);
    let mut in_body = false;
    for line in diff.split_inclusive('\n') {
        let (body, nl) = match line.strip_suffix('\n') {
            Some(b) => (b, "\n"),
            None => (line, ""),
        };
        let color = if body.starts_with("--- ") || body.starts_with("+++ ") {
            in_body = true;
            BOLD
        } else if !in_body {
            BOLD
        } else if body.starts_with("@@") {
            CYAN
        } else if body.starts_with('+') {
            GREEN
        } else if body.starts_with('-') {
            RED
        } else {
            ""
        };
        if color.is_empty() || body.is_empty() {
            out.push_str(body);
        } else {
            out.push_str(color);
            out.push_str(body);
            out.push_str(RESET);
        }
        out.push_str(nl);
    }
    out
}

/// One row of the side-by-side table.
enum Row {
    Gap,
    Lines {
        old: Option<(usize, String)>,
        new: Option<(usize, String)>,
    },
}

/// A unified diff read back: heading, labels, rows.
struct Parsed {
    heading: Vec<String>,
    old_label: String,
    new_label: String,
    rows: Vec<Row>,
    /// Lines of the diff's body left out after [`MAX_ROWS`] rows.
    omitted: usize,
}

/// Rows the side-by-side table shows at most: a notebook cannot usefully display (or hold)
/// the diff of a whole large model, whose plain text stays complete beside it.
const MAX_ROWS: usize = 2_000;

fn parse(diff: &str) -> Parsed {
    let mut p = Parsed {
        heading: Vec::new(),
        old_label: String::new(),
        new_label: String::new(),
        rows: Vec::new(),
        omitted: 0,
    };
    let (mut old_no, mut new_no) = (0, 0);
    let mut dels: Vec<(usize, String)> = Vec::new();
    let mut adds: Vec<(usize, String)> = Vec::new();
    let mut in_body = false;
    let flush = |rows: &mut Vec<Row>, dels: &mut Vec<_>, adds: &mut Vec<_>| {
        align(std::mem::take(dels), std::mem::take(adds), rows);
    };
    let mut lines = diff.lines();
    for line in lines.by_ref() {
        if p.rows.len() + dels.len() + adds.len() >= MAX_ROWS {
            p.omitted = 1;
            break;
        }
        if let Some(l) = line.strip_prefix("--- ") {
            p.old_label = l.trim().to_string();
            in_body = true;
        } else if let Some(l) = line.strip_prefix("+++ ") {
            p.new_label = l.trim().to_string();
        } else if !in_body {
            p.heading.push(line.to_string());
        } else if line.starts_with("@@") {
            flush(&mut p.rows, &mut dels, &mut adds);
            if !p.rows.is_empty() {
                p.rows.push(Row::Gap);
            }
            (old_no, new_no) = hunk_starts(line);
        } else if let Some(t) = line.strip_prefix('-') {
            dels.push((old_no, t.to_string()));
            old_no += 1;
        } else if let Some(t) = line.strip_prefix('+') {
            adds.push((new_no, t.to_string()));
            new_no += 1;
        } else if line.starts_with('\\') {
            // "\ No newline at end of file"
        } else {
            flush(&mut p.rows, &mut dels, &mut adds);
            let t = line.strip_prefix(' ').unwrap_or(line).to_string();
            p.rows.push(Row::Lines {
                old: Some((old_no, t.clone())),
                new: Some((new_no, t)),
            });
            old_no += 1;
            new_no += 1;
        }
    }
    flush(&mut p.rows, &mut dels, &mut adds);
    if p.omitted > 0 {
        p.omitted += lines.count();
    }
    p
}

/// Lines this similar or more are shown side by side as one changed line.
const SIMILAR: f32 = 0.5;

/// Rows for a block of removed lines followed by added lines: each added line sits next to
/// the most similar removed line (in order, as a sequence alignment maximising similarity),
/// the others get an empty side. Big blocks are paired in order.
fn align(dels: Vec<(usize, String)>, adds: Vec<(usize, String)>, rows: &mut Vec<Row>) {
    let (n, m) = (dels.len(), adds.len());
    if n == 0 || m == 0 || n * m > 10_000 {
        let mut d = dels.into_iter();
        let mut a = adds.into_iter();
        for _ in 0..n.max(m) {
            rows.push(Row::Lines {
                old: d.next(),
                new: a.next(),
            });
        }
        return;
    }
    let sim = |i: usize, j: usize| TextDiff::from_chars(&dels[i].1, &adds[j].1).ratio();
    // best[i][j]: the best total similarity aligning dels[..i] with adds[..j].
    let mut best = vec![vec![0f32; m + 1]; n + 1];
    for i in 1..=n {
        for j in 1..=m {
            let s = sim(i - 1, j - 1);
            let pair = if s >= SIMILAR {
                best[i - 1][j - 1] + s
            } else {
                f32::MIN
            };
            best[i][j] = pair.max(best[i - 1][j]).max(best[i][j - 1]);
        }
    }
    let mut path = Vec::new();
    let (mut i, mut j) = (n, m);
    while i > 0 || j > 0 {
        if i > 0 && j > 0 && {
            let s = sim(i - 1, j - 1);
            s >= SIMILAR && (best[i][j] - (best[i - 1][j - 1] + s)).abs() < 1e-6
        } {
            path.push((Some(i - 1), Some(j - 1)));
            i -= 1;
            j -= 1;
        } else if j > 0 && (i == 0 || best[i][j] == best[i][j - 1]) {
            // Unpaired lines: removed ones first, as in the unified diff.
            path.push((None, Some(j - 1)));
            j -= 1;
        } else {
            path.push((Some(i - 1), None));
            i -= 1;
        }
    }
    for (d, a) in path.into_iter().rev() {
        rows.push(Row::Lines {
            old: d.map(|i| dels[i].clone()),
            new: a.map(|j| adds[j].clone()),
        });
    }
}

/// The first line numbers of a hunk header `@@ -a,b +c,d @@`.
fn hunk_starts(header: &str) -> (usize, usize) {
    let num = |tag: char| {
        header
            .split_whitespace()
            .find_map(|w| w.strip_prefix(tag))
            .and_then(|w| w.split(',').next())
            .and_then(|n| n.parse().ok())
            .unwrap_or(1)
    };
    (num('-'), num('+'))
}

const TABLE: &str = "border-collapse:collapse;width:100%;table-layout:fixed;font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,'DejaVu Sans Mono',monospace;font-size:12px;line-height:1.4";
/// The line-number columns: as wide as five digits; the two text columns share the rest.
const NO_COL: &str = "width:5ch";
const LINE_NO: &str = "color:#999;text-align:right;padding:0 6px 0 0;vertical-align:top;white-space:nowrap;user-select:none";
/// A side's cell; its text is in a `<pre>` ([`TEXT`]), as HTML rewriters (nbconvert's
/// BeautifulSoup pass) collapse runs of spaces outside `<pre>`.
const CELL: &str = "padding:0 8px;text-align:left;vertical-align:top";
/// A side's text wraps within its own column (at spaces; inside a token only when the token
/// alone is wider than the column), continuation lines indented under the first.
const TEXT: &str = "margin:0;padding:0 0 0 2ch;text-indent:-2ch;border:0;background:none;font:inherit;color:inherit;white-space:pre-wrap;word-break:normal;overflow-wrap:anywhere;text-align:left";
const DEL_BG: &str = "background:#ffeef0";
const ADD_BG: &str = "background:#e6ffed";
const DEL_WORD: &str = "background:#fdb8c0";
const ADD_WORD: &str = "background:#acf2bd";

/// The diff as a side-by-side HTML table (before on the left, after on the right), as wide as
/// the cell that shows it, each side half of it; in a replaced line the changed tokens are
/// marked.
pub fn html(diff: &str) -> String {
    let p = parse(diff);
    let mut s = String::from("<div class=\"passlab-diff\">");
    for h in &p.heading {
        s.push_str(&format!(
            "<div style=\"font-weight:bold;font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,'DejaVu Sans Mono',monospace;font-size:12px;white-space:pre-wrap\">{}</div>",
            html_escape(h)
        ));
    }
    s.push_str(&format!(
        "<table class=\"passlab-diff\" style=\"{TABLE}\"><colgroup>\
         <col style=\"{NO_COL}\"><col><col style=\"{NO_COL}\"><col></colgroup><thead><tr>\
         <th colspan=\"2\" style=\"text-align:left;overflow-wrap:anywhere\">{}</th>\
         <th colspan=\"2\" style=\"text-align:left;overflow-wrap:anywhere\">{}</th></tr></thead><tbody>",
        html_escape(&p.old_label),
        html_escape(&p.new_label)
    ));
    for row in &p.rows {
        match row {
            Row::Gap => s.push_str(&format!(
                "<tr><td style=\"{LINE_NO}\">⋯</td><td></td><td style=\"{LINE_NO}\">⋯</td><td></td></tr>"
            )),
            Row::Lines { old, new } => {
                let changed = match (old, new) {
                    (Some((_, a)), Some((_, b))) => a != b,
                    _ => true,
                };
                let (old_html, new_html) = match (old, new) {
                    (Some((_, a)), Some((_, b))) if changed => inline_diff(a, b),
                    _ => (
                        old.as_ref().map(|(_, t)| html_escape(t)).unwrap_or_default(),
                        new.as_ref().map(|(_, t)| html_escape(t)).unwrap_or_default(),
                    ),
                };
                s.push_str("<tr>");
                side(&mut s, old.as_ref().map(|(n, _)| *n), &old_html, changed, DEL_BG);
                side(&mut s, new.as_ref().map(|(n, _)| *n), &new_html, changed, ADD_BG);
                s.push_str("</tr>");
            }
        }
    }
    if p.omitted > 0 {
        s.push_str(&format!(
            "<tr><td style=\"{LINE_NO}\">⋯</td><td colspan=\"3\" style=\"{CELL};font-style:italic\">\
             {} more lines of the diff not shown here (the plain-text output has all of it)</td></tr>",
            p.omitted
        ));
    }
    s.push_str("</tbody></table></div>");
    s
}

fn side(s: &mut String, line: Option<usize>, text: &str, changed: bool, bg: &str) {
    let no = line.map(|n| n.to_string()).unwrap_or_default();
    let bg = if changed && line.is_some() { bg } else { "" };
    s.push_str(&format!(
        "<td style=\"{LINE_NO}\">{no}</td><td style=\"{CELL};{bg}\"><pre style=\"{TEXT}\">{text}</pre></td>"
    ));
}

/// A line cut into tokens for the inline diff: a name, number or variable (`nn.batch_norm`,
/// `%0`, `@main`, `1e`), a run of spaces, or any other single character. Concatenated they
/// give the line.
fn diff_tokens(line: &str) -> Vec<&str> {
    let word = |c: char| c.is_alphanumeric() || c == '_' || c == '.';
    let mut out = Vec::new();
    let mut rest = line;
    while let Some(c) = rest.chars().next() {
        let len = if c == '%' || c == '@' || word(c) {
            let skip = if word(c) { 0 } else { c.len_utf8() };
            skip + rest[skip..]
                .find(|d: char| !word(d))
                .unwrap_or(rest.len() - skip)
        } else if c == ' ' {
            rest.find(|d: char| d != ' ').unwrap_or(rest.len())
        } else {
            c.len_utf8()
        };
        out.push(&rest[..len]);
        rest = &rest[len..];
    }
    out
}

/// Both sides of a replaced line, with the removed (left) and added (right) tokens marked
/// (whole tokens, so `%0` -> `%x` marks `%0` and `%x`, never part of a name).
fn inline_diff(old: &str, new: &str) -> (String, String) {
    let a = diff_tokens(old);
    let b = diff_tokens(new);
    let ops = similar::capture_diff_slices(similar::Algorithm::Myers, &a, &b);
    let (mut l, mut r) = (String::new(), String::new());
    let mark = |out: &mut String, toks: &[&str], style: &str| {
        if toks.is_empty() {
            return;
        }
        let t = html_escape(&toks.concat());
        out.push_str(&format!("<span style=\"{style}\">{t}</span>"));
    };
    for op in ops {
        let (tag, ra, rb) = op.as_tag_tuple();
        match tag {
            similar::DiffTag::Equal => {
                let t = html_escape(&a[ra].concat());
                l.push_str(&t);
                r.push_str(&t);
            }
            similar::DiffTag::Delete => mark(&mut l, &a[ra], DEL_WORD),
            similar::DiffTag::Insert => mark(&mut r, &b[rb], ADD_WORD),
            similar::DiffTag::Replace => {
                mark(&mut l, &a[ra], DEL_WORD);
                mark(&mut r, &b[rb], ADD_WORD);
            }
        }
    }
    (l, r)
}

#[cfg(test)]
mod tests {
    use super::*;

    const DIFF: &str = "Simplify changed @main\n--- before Simplify\n+++ after Simplify\n@@ -1,4 +1,3 @@\n def @main(%x: float32) {\n-  %0 = add(%x, 0f);\n-  multiply(%0, 1f)\n+  %x\n }\n";

    #[test]
    fn ansi_colours_each_kind_of_line() {
        let a = ansi(DIFF);
        assert!(a.starts_with("\x1b[1mSimplify changed @main\x1b[0m\n"));
        assert!(a.contains("\x1b[1m--- before Simplify\x1b[0m\n"));
        assert!(a.contains("\x1b[36m@@ -1,4 +1,3 @@\x1b[0m\n"));
        assert!(a.contains("\x1b[31m-  %0 = add(%x, 0f);\x1b[0m\n"));
        assert!(a.contains("\x1b[32m+  %x\x1b[0m\n"));
        assert!(a.contains("\n def @main(%x: float32) {\n"));
        // Stripping the escapes gives the plain diff back.
        let stripped = regex::Regex::new("\x1b\\[[0-9;]*m")
            .unwrap()
            .replace_all(&a, "");
        assert_eq!(stripped, DIFF);
    }

    #[test]
    fn html_is_side_by_side_with_line_numbers() {
        let h = html(DIFF);
        assert!(h.contains(">Simplify changed @main</div>"), "{h}");
        assert!(h.contains(">before Simplify</th>") && h.contains(">after Simplify</th>"));
        // The context line sits on both sides with its numbers.
        let no = format!("<td style=\"{LINE_NO}\">");
        let no = no.as_str();
        let cell = format!("<td style=\"{CELL};\"><pre style=\"{TEXT}\">");
        let cell = cell.as_str();
        assert!(
            h.contains(&format!(
                "{no}1</td>{cell}def @main(%x: float32) {{</pre></td>{no}1</td>"
            )),
            "{h}"
        );
        // No added line resembles a removed one: removed lines first, each on its own row.
        let rows: Vec<&str> = h.split("<tr>").skip(2).collect();
        assert_eq!(rows.len(), 5, "{h}");
        assert!(rows[1].contains(
            "%0 = add(%x, 0f);</pre></td>{no}</td>"
                .replace("{no}", no)
                .as_str()
        ));
        assert!(rows[3].starts_with(&format!("{no}</td>")) && rows[3].contains("  %x</pre></td>"));
    }

    #[test]
    fn a_huge_diff_is_cut_in_html_and_says_so() {
        let mut d = String::from("--- a\n+++ b\n@@ -1,5000 +1,5000 @@\n");
        for i in 0..5000 {
            d.push_str(&format!("-old {i}\n+new {i}\n"));
        }
        let h = html(&d);
        assert!(h.contains(" 999</pre></td>"), "the first rows are there");
        assert!(!h.contains(" 4999</pre></td>"), "the last are not");
        assert!(
            h.contains("more lines of the diff not shown here"),
            "{}",
            &h[h.len() - 400..]
        );
        assert!(h.ends_with("</tbody></table></div>"));
    }

    #[test]
    fn a_changed_line_sits_next_to_the_line_it_resembles() {
        let d = "--- a\n+++ b\n@@ -1,4 +1,3 @@\n def @main(%x: float32) {\n-  %0 = add(%x, 0f);\n-  multiply(%0, 1f)\n+  multiply(%x, 1f)\n }\n";
        let h = html(d);
        let rows: Vec<&str> = h.split("<tr>").skip(2).collect();
        assert_eq!(rows.len(), 4, "{h}");
        assert!(rows[1].contains("%0 = add(%x, 0f);</pre></td>") && !rows[1].contains("multiply"));
        assert!(
            rows[2].contains("multiply(<span style=\"background:#fdb8c0\">%0</span>, 1f)"),
            "{h}"
        );
        assert!(
            rows[2].contains("multiply(<span style=\"background:#acf2bd\">%x</span>, 1f)"),
            "{h}"
        );
    }

    #[test]
    fn changed_tokens_are_marked_whole() {
        assert_eq!(
            diff_tokens("  %1 = nn.batch_norm(%0, @f, 1e-05f);"),
            [
                "  ",
                "%1",
                " ",
                "=",
                " ",
                "nn.batch_norm",
                "(",
                "%0",
                ",",
                " ",
                "@f",
                ",",
                " ",
                "1e",
                "-",
                "05f",
                ")",
                ";"
            ]
        );
        let (l, r) = inline_diff(
            "  %1 = nn.batch_norm(%0, %gamma);",
            "  %1 = nn.batch_matmul(%0, %gamma);",
        );
        assert!(l.contains(">nn.batch_norm</span>"), "{l}");
        assert!(r.contains(">nn.batch_matmul</span>"), "{r}");
        assert!(l.contains("(%0, %gamma);") && r.contains("(%0, %gamma);"));
        // The marks only decorate: without them each side is its line.
        let old = "  %0 = add(%input_0, %input_1);";
        let new = "  %4 = add(%input_0, %input_1) /* ty=Tensor[(1, 64, 56, 56), float32] */;";
        let (l, r) = inline_diff(old, new);
        let strip = |h: &str| {
            regex::Regex::new("<[^>]*>")
                .unwrap()
                .replace_all(h, "")
                .to_string()
        };
        assert_eq!((strip(&l), strip(&r)), (old.to_string(), new.to_string()));
    }

    #[test]
    fn each_side_gets_half_of_the_width_and_wraps_in_it() {
        let h = html(DIFF);
        assert!(h.contains("width:100%;table-layout:fixed"), "{h}");
        assert!(h.contains(
            "<colgroup><col style=\"width:5ch\"><col><col style=\"width:5ch\"><col></colgroup>"
        ));
        assert!(TEXT.contains("white-space:pre-wrap") && TEXT.contains("overflow-wrap:anywhere"));
    }

    #[test]
    fn hunks_are_separated_and_numbered() {
        assert_eq!(hunk_starts("@@ -12,7 +14,8 @@"), (12, 14));
        assert_eq!(hunk_starts("@@ -3 +3 @@"), (3, 3));
        let two = "--- a\n+++ b\n@@ -1,1 +1,1 @@\n-x\n+y\n@@ -9,1 +9,1 @@\n-p\n+q\n";
        assert!(html(two).contains("⋯"));
    }
}
