//! Rendering of diagnostics: a message, then the place as `file:line:col`, the source line and
//! a caret under the span, with an optional label ("did you mean ..."). Spans are byte
//! offsets; they become line and column only here. Colour is optional and off for plain text.

pub mod nom_error;

use colored::Colorize;

/// A byte range in the source text something (an expression, a statement) was read from.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct Span {
    pub lo: u32,
    pub hi: u32,
}

impl Span {
    pub const DUMMY: Span = Span { lo: 0, hi: 0 };

    pub fn new(lo: usize, hi: usize) -> Span {
        Span {
            lo: lo as u32,
            hi: hi as u32,
        }
    }

    pub fn is_dummy(&self) -> bool {
        self.lo == 0 && self.hi == 0
    }
}

/// An error or warning tied to a place in a source text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub message: String,
    pub span: Span,
    /// A short note printed after the caret (`expected `)``, `did you mean ...`).
    pub label: Option<String>,
}

/// A syntax or name error, with the byte span it points at: what the Relay text parser
/// (`crate::text`) and the command-language parser (`crate::lang`) both return.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    pub message: String,
    pub span: Span,
    pub label: Option<String>,
}

impl ParseError {
    /// `error: ...`, then `--> name:line:col`, the line and a caret.
    pub fn render(&self, source_name: &str, text: &str, color: bool) -> String {
        self.diagnostic().render(source_name, text, color)
    }

    pub fn diagnostic(&self) -> Diagnostic {
        Diagnostic {
            message: self.message.clone(),
            span: self.span,
            label: self.label.clone(),
        }
    }
}

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ParseError {}

/// The most characters of a source line a diagnostic shows.
pub const SHOWN_LINE_CHARS: usize = 200;

/// 1-based line and column (in characters) of a byte offset.
pub fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = &text[..floor_boundary(text, offset)];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map(|i| i + 1).unwrap_or(0);
    let col = before[line_start..].chars().count() + 1;
    (line, col)
}

fn floor_boundary(text: &str, mut i: usize) -> usize {
    while i > 0 && !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

impl Diagnostic {
    pub fn new(message: impl Into<String>, span: Span) -> Diagnostic {
        Diagnostic {
            message: message.into(),
            span,
            label: None,
        }
    }

    pub fn with_label(mut self, label: impl Into<String>) -> Diagnostic {
        self.label = Some(label.into());
        self
    }

    /// `error: message` followed by the location block.
    pub fn render(&self, source_name: &str, text: &str, color: bool) -> String {
        let head = if color {
            format!("{} {}", "error:".red().bold(), self.message.bold())
        } else {
            format!("error: {}", self.message)
        };
        format!("{head}\n{}", self.render_location(source_name, text, color))
    }

    /// The location block alone: `--> name:line:col`, the source line and the caret line. Any
    /// span is accepted: offsets past the end or inside a character are moved back to the
    /// character they fall in. A source line longer than [`SHOWN_LINE_CHARS`] is shown as a
    /// window around the span (`…` marks what is left out); the column stays the real one.
    pub fn render_location(&self, source_name: &str, text: &str, color: bool) -> String {
        let lo = floor_boundary(text, (self.span.lo as usize).min(text.len()));
        let hi = floor_boundary(text, (self.span.hi as usize).clamp(lo, text.len()));
        let (line, col) = line_col(text, lo);
        let line_start = text[..lo].rfind('\n').map(|i| i + 1).unwrap_or(0);
        let line_end = text[line_start..]
            .find('\n')
            .map(|i| line_start + i)
            .unwrap_or(text.len());
        let src_line = text[line_start..line_end].trim_end_matches('\r');
        let width = if hi > lo && hi <= line_end {
            text[lo..hi].chars().count().max(1)
        } else {
            1
        };
        // The window of the line shown: all of it when short, else from a little before the
        // span's start, so that the caret stays under what it points at.
        let skip = if src_line.chars().count() > SHOWN_LINE_CHARS {
            (col - 1).saturating_sub(SHOWN_LINE_CHARS / 4)
        } else {
            0
        };
        let mut shown: String = src_line.chars().skip(skip).take(SHOWN_LINE_CHARS).collect();
        let cut_right = src_line.chars().count() > skip + SHOWN_LINE_CHARS;
        let width = width.min(SHOWN_LINE_CHARS - (col - 1 - skip).min(SHOWN_LINE_CHARS) + 1);
        let mut lead_prefix = String::new();
        if skip > 0 {
            shown.insert(0, '…');
            lead_prefix.push(' ');
        }
        if cut_right {
            shown.push('…');
        }
        let src_line = shown.as_str();
        let gutter = line.to_string().len();
        let pad = " ".repeat(gutter);
        // Tabs in the source line keep their width in the caret line.
        let marks = lead_prefix.len();
        let lead: String = lead_prefix
            + &src_line
                .chars()
                .skip(marks)
                .take(col - 1 - skip)
                .map(|c| if c == '\t' { '\t' } else { ' ' })
                .collect::<String>();
        let mut caret = "^".repeat(width);
        if let Some(l) = &self.label {
            caret.push(' ');
            caret.push_str(l);
        }
        let caret = if color {
            caret.red().bold().to_string()
        } else {
            caret
        };
        let bar = if color {
            "|".blue().bold().to_string()
        } else {
            "|".to_string()
        };
        let arrow = if color {
            "-->".blue().bold().to_string()
        } else {
            "-->".to_string()
        };
        format!(
            "{pad}{arrow} {source_name}:{line}:{col}\n{pad} {bar}\n{line} {bar} {src_line}\n{pad} {bar} {lead}{caret}"
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_line_column_and_caret() {
        let text = "def @main() {\n  nn.conv2(%x)\n}\n";
        let d = Diagnostic::new("unknown op `nn.conv2`", Span::new(16, 24))
            .with_label("did you mean `nn.conv2d`?");
        let out = d.render("m.relay", text, false);
        assert_eq!(
            out,
            "error: unknown op `nn.conv2`\n --> m.relay:2:3\n  |\n2 |   nn.conv2(%x)\n  |   ^^^^^^^^ did you mean `nn.conv2d`?"
        );
        assert_eq!(line_col(text, 0), (1, 1));
    }

    /// Spans inside a multi-byte character or past the end render; long lines are windowed.
    #[test]
    fn any_span_renders() {
        let text = "é\nxé€y\n";
        for lo in 0..text.len() as u32 + 3 {
            for hi in 0..text.len() as u32 + 3 {
                let d = Diagnostic::new("m", Span::new(lo as usize, hi as usize));
                let out = d.render("f", text, false);
                assert!(out.contains("--> f:"), "{out}");
            }
        }
        let long = format!("{}BAD{}", "a".repeat(5000), "b".repeat(5000));
        let d = Diagnostic::new("bad", Span::new(5000, 5003));
        let out = d.render("f", &long, false);
        assert!(out.contains("--> f:1:5001"), "{out}");
        let lines: Vec<&str> = out.lines().collect();
        let src = lines[3];
        let caret = lines[4];
        assert!(src.chars().count() < SHOWN_LINE_CHARS + 10, "{src}");
        let chars_before = |line: &str, pat: &str| line[..line.find(pat).unwrap()].chars().count();
        assert_eq!(
            chars_before(caret, "^^^"),
            chars_before(src, "BAD"),
            "{src}\n{caret}"
        );
    }
}
