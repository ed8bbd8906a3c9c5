//! Rendering of diagnostics: a message, then the place as `file:line:col`, the source line and
//! a caret under the span, with an optional label ("did you mean ..."). Spans are byte
//! offsets; they become line and column only here. Colour is optional and off for plain text.

use crate::ir::Span;
use colored::Colorize;

/// An error or warning tied to a place in a source text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub message: String,
    pub span: Span,
    /// A short note printed after the caret (`expected `)``, `did you mean ...`).
    pub label: Option<String>,
}

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

    /// The location block alone: `--> name:line:col`, the source line and the caret line.
    pub fn render_location(&self, source_name: &str, text: &str, color: bool) -> String {
        let lo = (self.span.lo as usize).min(text.len());
        let hi = (self.span.hi as usize).clamp(lo, text.len());
        let (line, col) = line_col(text, lo);
        let line_start = text[..floor_boundary(text, lo)]
            .rfind('\n')
            .map(|i| i + 1)
            .unwrap_or(0);
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
        let gutter = line.to_string().len();
        let pad = " ".repeat(gutter);
        // Tabs in the source line keep their width in the caret line.
        let lead: String = src_line
            .chars()
            .take(col - 1)
            .map(|c| if c == '\t' { '\t' } else { ' ' })
            .collect();
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
}
