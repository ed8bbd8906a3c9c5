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

/// The look of IR in HTML, inline so that it holds wherever the HTML goes (JupyterLab,
/// nbconvert's exports, evcxr): a monospace font of its own, whitespace kept, no wrapping (a
/// long line scrolls rather than breaking inside a token).
pub const IR_STYLE: &str = "font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,'DejaVu Sans Mono',monospace;font-size:12px;line-height:1.4;white-space:pre;overflow-x:auto;text-align:left;margin:0;padding:4px 0";

/// A piece of a folding text: the block's look, without its box.
const PIECE: &str = "margin:0;padding:0;border:0;background:none;font:inherit;color:inherit;white-space:pre;overflow:visible";

/// Texts longer than this many lines show each function as a block that folds (`<details>`).
const FOLD_LINES: usize = 40;

/// A function signature (`def @f(...)` or `fn (...)` at the start of a line) longer than this
/// shows one parameter per line in HTML.
const LONG_SIGNATURE: usize = 100;

/// Printed Relay text as highlighted HTML (a styled `<span>` per token) in its own monospace
/// block. Long signatures show one parameter per line; a long text shows each top-level
/// function as a foldable block, open, its summary the signature. Only whitespace differs from
/// the plain text, so what is copied from it parses to the same module.
pub fn highlight_html(text: &str) -> String {
    let mut out = String::with_capacity(text.len() * 2 + 256);
    let fold = text.lines().nth(FOLD_LINES).is_some();
    if !fold {
        out.push_str(&format!("<pre class=\"passlab-ir\" style=\"{IR_STYLE}\">"));
        for line in text.split_inclusive('\n') {
            if is_signature(line) && line.trim_end().len() > LONG_SIGNATURE {
                spans(&mut out, &one_param_per_line(line));
            } else {
                spans(&mut out, line);
            }
        }
        out.push_str("</pre>");
        return out;
    }
    // Each piece of text is in a `<pre>`: HTML rewriters (nbconvert's BeautifulSoup pass)
    // collapse runs of spaces outside one, whatever the CSS says.
    out.push_str(&format!("<div class=\"passlab-ir\" style=\"{IR_STYLE}\">"));
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let mut i = 0;
    while i < lines.len() {
        if !lines[i].starts_with("def @") {
            let from = i;
            while i < lines.len() && !lines[i].starts_with("def @") {
                i += 1;
            }
            let between: String = lines[from..i].concat();
            // A blank line between functions is the gap between the blocks.
            if !between.trim().is_empty() {
                out.push_str(&format!("<pre style=\"{PIECE}\">"));
                spans(&mut out, between.trim_end_matches('\n'));
                out.push_str("</pre>");
            }
            continue;
        }
        let line = lines[i];
        // A function: its signature, then its body up to the `}` that closes it at column 0.
        let end = lines[i + 1..]
            .iter()
            .position(|l| l.starts_with('}'))
            .map_or(lines.len() - 1, |k| i + 1 + k);
        let name = line[4..]
            .split(|c: char| c == '(' || c.is_whitespace())
            .next()
            .unwrap_or("");
        let body_lines = end - i;
        let sig = if line.trim_end().len() > LONG_SIGNATURE {
            one_param_per_line(line)
        } else {
            line.to_string()
        };
        out.push_str(&format!(
            "<details open style=\"display:block;margin:0 0 1.4em 0\"><summary style=\"cursor:pointer\" title=\"{}: {body_lines} lines (click to fold)\"><pre style=\"{PIECE};display:inline-block;vertical-align:top\">",
            super::html_escape(name)
        ));
        spans(&mut out, sig.trim_end_matches('\n'));
        out.push_str(&format!("</pre></summary><pre style=\"{PIECE}\">"));
        let body: String = lines[i + 1..=end].concat();
        spans(&mut out, body.trim_end_matches('\n'));
        out.push_str("</pre></details>");
        i = end + 1;
    }
    out.push_str("</div>");
    out
}

/// Whether `line` opens a function: `def @f(` or `fn (` at its start.
fn is_signature(line: &str) -> bool {
    line.starts_with("def @") || line.starts_with("fn (")
}

/// A signature line with each parameter on its own line, indented by two spaces, and the
/// closing parenthesis back at column 0: `def @f(\n  %a: T,\n  %b: U\n) -> V {`.
fn one_param_per_line(line: &str) -> String {
    let Some(open) = line.find('(') else {
        return line.to_string();
    };
    let mut out = String::with_capacity(line.len() + 64);
    out.push_str(&line[..=open]);
    out.push_str("\n  ");
    let mut depth = 0usize;
    let mut rest = &line[open + 1..];
    let mut chars = rest.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' if depth > 0 => depth -= 1,
            ')' => {
                out.push('\n');
                rest = &rest[i..];
                out.push_str(rest);
                return out;
            }
            ',' if depth == 0 => {
                out.push_str(",\n ");
                if chars.peek().map(|(_, c)| *c) == Some(' ') {
                    chars.next();
                    out.push(' ');
                }
                continue;
            }
            _ => {}
        }
        out.push(c);
    }
    line.to_string()
}

/// Appends `text` as HTML, one styled `<span>` per token.
fn spans(out: &mut String, text: &str) {
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

    fn strip_tags(h: &str) -> String {
        let mut out = String::new();
        let mut in_tag = false;
        for c in h.chars() {
            match c {
                '<' => in_tag = true,
                '>' => in_tag = false,
                c if !in_tag => out.push(c),
                _ => {}
            }
        }
        out.replace("&quot;", "\"")
            .replace("&lt;", "<")
            .replace("&gt;", ">")
            .replace("&amp;", "&")
    }

    #[test]
    fn a_long_signature_shows_one_parameter_per_line() {
        let params: Vec<String> = (0..6)
            .map(|i| format!("%input_{i}: Tensor[(1, 64, 56, 56), float32]"))
            .collect();
        let text = format!(
            "def @main({}) -> Tensor[(1), float32] {{\n  add(%input_0, %input_1)\n}}\n",
            params.join(", ")
        );
        let h = highlight_html(&text);
        assert!(h.starts_with("<pre class=\"passlab-ir\" style=\""), "{h}");
        assert!(
            h.contains("white-space:pre") && h.contains("monospace"),
            "{h}"
        );
        let shown = strip_tags(&h);
        let expected = format!(
            "def @main(\n  {}\n) -> Tensor[(1), float32] {{\n  add(%input_0, %input_1)\n}}\n",
            params.join(",\n  ")
        );
        assert_eq!(shown, expected);
        // Only whitespace moved.
        let squash = |s: &str| s.split_whitespace().collect::<String>();
        assert_eq!(squash(&shown), squash(&text));
        // A short one stays on its line.
        let short = "def @f(%x: float32) {\n  %x\n}\n";
        assert_eq!(strip_tags(&highlight_html(short)), short);
    }

    #[test]
    fn a_long_text_folds_by_function() {
        let mut text = String::from("#[version = \"0.0.5\"]\n");
        for f in ["f", "g"] {
            text.push_str(&format!("def @{f}(%x: float32) {{\n"));
            for i in 0..30 {
                text.push_str(&format!("  %{i} = add(%x, {i}f);\n"));
            }
            text.push_str("  %x\n}\n\n");
        }
        let h = highlight_html(&text);
        assert!(h.starts_with("<div class=\"passlab-ir\""), "{h}");
        assert_eq!(h.matches("<details open").count(), 2, "{h}");
        assert!(h.contains("title=\"@g: 32 lines (click to fold)\""), "{h}");
        // Summary and body together are the text (blocks break the lines themselves; a
        // blank line between functions is the gap between blocks).
        let shown = strip_tags(
            &h.replace("</summary>", "\n")
                .replace("</details>", "\n\n")
                .replace("</pre><details", "</pre>\n<details"),
        );
        assert_eq!(shown, text);
        // Every space is inside a `<pre>`: nothing between the tags but other tags.
        let outside = regex::Regex::new(r"</pre>([^<]+)<").unwrap();
        assert!(outside.find(&h).is_none(), "{h}");
    }
}
