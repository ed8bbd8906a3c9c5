//! Text that fits a terminal: word wrapping for help and listings, and comfy-table's dynamic
//! arrangement for tables. The width comes from the front end (`Session::set_width`; the REPL
//! reads its terminal's before each statement); `None` (notebooks, scripts, transcripts) leaves
//! text as it is.

pub use crate::instrument::timing::fit_table;

/// Columns below which wrapping is not attempted (a line that narrow reads worse wrapped, as
/// [`fit_table`] decides for tables).
const NARROWEST: usize = 40;

/// `text` with every line longer than `width` broken at spaces; a continuation line is
/// indented like its line's text, plus two columns when the line is not indented. A word
/// longer than the space left stays whole.
pub fn wrap_text(text: &str, width: Option<usize>) -> String {
    let Some(width) = width.filter(|&w| w >= NARROWEST) else {
        return text.to_string();
    };
    let mut out = String::with_capacity(text.len() + text.len() / 16);
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let lead = line.len() - line.trim_start_matches(' ').len();
        let hang = if lead == 0 { 2 } else { lead };
        push_wrapped(&mut out, line, lead, hang, width);
    }
    out
}

/// Rows of `left` and `right`, indented by `indent`, the right column starting at
/// `indent + left_width + 1` and wrapped to `width` under itself; a left cell too long for its
/// column puts its right cell on the next line. Without a width (or too narrow a one), each
/// row is one line.
pub fn two_columns(
    rows: &[(&str, &str)],
    indent: usize,
    left_width: usize,
    width: Option<usize>,
) -> String {
    let mut out = String::new();
    let pad = " ".repeat(indent);
    let column = indent + left_width + 1;
    let fits = width.filter(|&w| w >= NARROWEST && w >= column + 20);
    for (left, right) in rows {
        let Some(w) = fits else {
            out.push_str(&format!("{pad}{left:<left_width$} {right}\n"));
            continue;
        };
        let mut line = format!("{pad}{left}");
        if left.chars().count() > left_width {
            // The right cell goes under its column, on the next line.
            out.push_str(&line);
            out.push('\n');
            line = " ".repeat(column);
        } else {
            line = format!("{line:<column$}");
        }
        line.push_str(right);
        push_wrapped(&mut out, &line, column, column, w);
        out.push('\n');
    }
    out
}

/// `line` broken at spaces into lines of at most `width` columns (where words allow); the
/// first `skip` columns are not break points; continuation lines start with `hang` spaces.
fn push_wrapped(out: &mut String, line: &str, skip: usize, hang: usize, width: usize) {
    if line.chars().count() <= width {
        out.push_str(line);
        return;
    }
    let indent = " ".repeat(hang);
    let mut rest = line;
    let mut first = true;
    loop {
        let room = if first {
            width
        } else {
            width - hang.min(width - NARROWEST / 2)
        };
        let from = if first { skip } else { 0 };
        let chars: Vec<(usize, char)> = rest.char_indices().collect();
        if chars.len() <= room {
            if !first {
                out.push_str(&indent);
            }
            out.push_str(rest);
            return;
        }
        // The last space at or before `room` (after `from`), else the first one after it.
        let limit = chars.get(room).map(|&(b, _)| b).unwrap_or(rest.len());
        let cut = rest[..limit]
            .char_indices()
            .rev()
            .find(|&(b, c)| c == ' ' && b > from)
            .map(|(b, _)| b)
            .or_else(|| rest[limit..].find(' ').map(|b| b + limit));
        let Some(cut) = cut else {
            if !first {
                out.push_str(&indent);
            }
            out.push_str(rest);
            return;
        };
        if !first {
            out.push_str(&indent);
        }
        out.push_str(rest[..cut].trim_end());
        out.push('\n');
        rest = rest[cut..].trim_start();
        first = false;
        if rest.is_empty() {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn widest(s: &str) -> usize {
        s.lines().map(|l| l.chars().count()).max().unwrap_or(0)
    }

    #[test]
    fn long_lines_break_at_spaces_and_keep_their_indent() {
        let text = "  diff a b [@func]  unified diff of two modules' printed text (lines that only renumbered match) and more words here\nshort";
        let w = wrap_text(text, Some(50));
        assert!(widest(&w) <= 50, "{w}");
        assert!(w.lines().nth(1).unwrap().starts_with("  "), "{w}");
        assert!(w.ends_with("\nshort"));
        let joined: Vec<&str> = w.split_whitespace().collect();
        assert_eq!(joined, text.split_whitespace().collect::<Vec<_>>());
        assert_eq!(wrap_text(text, None), text);
    }

    #[test]
    fn two_columns_wrap_under_the_right_column() {
        let rows = [
            (
                "show expr",
                "display a value in full (modules highlighted, pipelines as a tree)",
            ),
            (
                "break NAME | after NAME | changed @f | verify | numerics | slower 10ms",
                "pause runs before/after a pass",
            ),
        ];
        let t = two_columns(&rows, 2, 28, Some(80));
        assert!(widest(&t) <= 80, "{t}");
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(
            lines[0],
            "  show expr                    display a value in full (modules highlighted,"
        );
        assert_eq!(
            lines[1],
            "                               pipelines as a tree)"
        );
        // A long left cell: the right one starts on the next line, in its column.
        assert_eq!(
            lines[3],
            "                               pause runs before/after a pass"
        );
        let unbounded = two_columns(&rows, 2, 28, None);
        assert_eq!(unbounded.lines().count(), 2);
    }

    #[test]
    fn a_word_longer_than_the_room_stays_whole() {
        let long = "x".repeat(120);
        let text = format!("a b {long} c");
        let w = wrap_text(&text, Some(60));
        assert!(w.contains(&long), "{w}");
    }
}
