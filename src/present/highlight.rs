//! Colouring of printed Relay text, for terminals (ANSI) and notebooks (HTML). It re-lexes the
//! plain text, so the plain printer stays the single source of truth and colour can never
//! change what parses.

use colored::Colorize;

/// A token class for colouring.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    Comment,
    Str,
    Global,
    Local,
    Number,
    Keyword,
    Literal,
    Type,
    Callee,
    Plain,
}

/// Splits printed Relay text into classified pieces (concatenated they give the input).
pub fn tokens(text: &str) -> Vec<(Class, &str)> {
    let mut out = Vec::new();
    let b = text.as_bytes();
    let mut i = 0;
    let mut plain_start = 0;
    fn flush<'t>(out: &mut Vec<(Class, &'t str)>, from: usize, to: usize, text: &'t str) {
        if to > from {
            out.push((Class::Plain, &text[from..to]));
        }
    }
    while i < b.len() {
        let c = b[i];
        let start = i;
        let (class, end) = if c == b'/' && b.get(i + 1) == Some(&b'*') {
            (
                Class::Comment,
                text[i..].find("*/").map(|n| i + n + 2).unwrap_or(b.len()),
            )
        } else if c == b'/' && b.get(i + 1) == Some(&b'/') {
            (
                Class::Comment,
                text[i..].find('\n').map(|n| i + n).unwrap_or(b.len()),
            )
        } else if c == b'"' {
            let mut j = i + 1;
            while j < b.len() && b[j] != b'"' {
                j += if b[j] == b'\\' { 2 } else { 1 };
            }
            (Class::Str, (j + 1).min(b.len()))
        } else if (c == b'%' || c == b'@') && i + 1 < b.len() {
            let mut j = i + 1;
            while j < b.len() && (b[j].is_ascii_alphanumeric() || b[j] == b'_' || b[j] == b'/') {
                j += 1;
            }
            (
                if c == b'@' {
                    Class::Global
                } else {
                    Class::Local
                },
                j,
            )
        } else if c.is_ascii_digit()
            && (i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_'))
        {
            let mut j = i;
            while j < b.len()
                && (b[j].is_ascii_alphanumeric()
                    || b[j] == b'.'
                    || ((b[j] == b'-' || b[j] == b'+') && matches!(b[j - 1], b'e' | b'E')))
            {
                j += 1;
            }
            (Class::Number, j)
        } else if c.is_ascii_alphabetic() || c == b'_' {
            let mut j = i;
            while j < b.len() && (b[j].is_ascii_alphanumeric() || b[j] == b'_' || b[j] == b'.') {
                j += 1;
            }
            let tok = &text[start..j];
            let class = match tok {
                "def" | "fn" | "let" | "if" | "else" | "type" | "free_var" => Class::Keyword,
                "True" | "False" | "None" => Class::Literal,
                "Tensor" => Class::Type,
                _ if crate::ir::DType::parse(tok).is_some() => Class::Type,
                _ if text[j..].starts_with('(') => Class::Callee,
                _ => Class::Plain,
            };
            (class, j)
        } else {
            i += text[i..].chars().next().map(char::len_utf8).unwrap_or(1);
            continue;
        };
        flush(&mut out, plain_start, start, text);
        out.push((class, &text[start..end]));
        i = end;
        plain_start = end;
    }
    flush(&mut out, plain_start, b.len(), text);
    out
}

/// ANSI colours for a terminal.
pub fn highlight(text: &str) -> String {
    let mut out = String::with_capacity(text.len() * 2);
    for (class, tok) in tokens(text) {
        let s = match class {
            Class::Comment => tok.bright_black().to_string(),
            Class::Str => tok.green().to_string(),
            Class::Global => tok.magenta().bold().to_string(),
            Class::Local => tok.cyan().to_string(),
            Class::Number | Class::Literal => tok.yellow().to_string(),
            Class::Keyword => tok.blue().bold().to_string(),
            Class::Type => tok.green().to_string(),
            Class::Callee => tok.bold().to_string(),
            Class::Plain => tok.to_string(),
        };
        out.push_str(&s);
    }
    out
}

/// A writer that colours Relay text (as [`highlight`]) on its way to `inner`, a whole line at a
/// time: for text that is streamed ([`crate::text::write_module`]), where a token could
/// otherwise be cut in two between writes. [`HighlightWriter::finish`] writes the last line.
pub struct HighlightWriter<W: std::io::Write> {
    inner: W,
    pending: Vec<u8>,
}

impl<W: std::io::Write> HighlightWriter<W> {
    pub fn new(inner: W) -> Self {
        HighlightWriter {
            inner,
            pending: Vec::new(),
        }
    }

    /// Colours and writes what is left (a last line without a newline), flushes, and returns
    /// the inner writer.
    pub fn finish(mut self) -> std::io::Result<W> {
        let rest = std::mem::take(&mut self.pending);
        self.emit(&rest)?;
        self.inner.flush()?;
        Ok(self.inner)
    }

    fn emit(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        let text = String::from_utf8_lossy(bytes);
        self.inner.write_all(highlight(&text).as_bytes())
    }
}

impl<W: std::io::Write> std::io::Write for HighlightWriter<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.pending.extend_from_slice(buf);
        if let Some(end) = memchr::memrchr(b'\n', &self.pending) {
            let rest = self.pending.split_off(end + 1);
            let lines = std::mem::replace(&mut self.pending, rest);
            self.emit(&lines)?;
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// HTML with `<span class="pl-...">` per token, inside `<pre class="passlab-ir">`.
pub fn highlight_html(text: &str) -> String {
    let mut out = String::with_capacity(text.len() * 2 + 64);
    out.push_str("<pre class=\"passlab-ir\">");
    for (class, tok) in tokens(text) {
        let style = match class {
            Class::Comment => "color:#8a8a8a",
            Class::Str => "color:#067d17",
            Class::Global => "color:#a626a4;font-weight:bold",
            Class::Local => "color:#0184bc",
            Class::Number | Class::Literal => "color:#986801",
            Class::Keyword => "color:#4078f2;font-weight:bold",
            Class::Type => "color:#50a14f",
            Class::Callee => "font-weight:bold",
            Class::Plain => "",
        };
        let esc = super::html_escape(tok);
        if style.is_empty() {
            out.push_str(&esc);
        } else {
            out.push_str(&format!("<span style=\"{style}\">{esc}</span>"));
        }
    }
    out.push_str("</pre>");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_cover_the_text() {
        let t = "def @main(%x: float32) { add(%x, 1f) /* ty=float32 */ }";
        let joined: String = tokens(t).iter().map(|(_, s)| *s).collect();
        assert_eq!(joined, t);
        assert!(tokens(t).contains(&(Class::Global, "@main")));
        assert!(tokens(t).contains(&(Class::Callee, "add")));
        assert!(highlight_html(t).contains("<span"));
    }
}
