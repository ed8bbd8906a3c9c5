//! Terminal colouring of printed Relay text. It re-lexes the plain text, so the plain printer
//! stays the single source of truth and colour can never change what parses.

use colored::Colorize;

/// Colours keywords, `%locals`, `@globals`, numbers, strings, types and comments.
pub fn highlight(text: &str) -> String {
    let mut out = String::with_capacity(text.len() * 2);
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let start = i;
        if c == b'/' && b.get(i + 1) == Some(&b'*') {
            let end = text[i..].find("*/").map(|n| i + n + 2).unwrap_or(b.len());
            out.push_str(&text[start..end].bright_black().to_string());
            i = end;
        } else if c == b'/' && b.get(i + 1) == Some(&b'/') {
            let end = text[i..].find('\n').map(|n| i + n).unwrap_or(b.len());
            out.push_str(&text[start..end].bright_black().to_string());
            i = end;
        } else if c == b'"' {
            let mut j = i + 1;
            while j < b.len() && b[j] != b'"' {
                j += if b[j] == b'\\' { 2 } else { 1 };
            }
            let end = (j + 1).min(b.len());
            out.push_str(&text[start..end].green().to_string());
            i = end;
        } else if c == b'%' || c == b'@' {
            let mut j = i + 1;
            while j < b.len() && (b[j].is_ascii_alphanumeric() || b[j] == b'_' || b[j] == b'/') {
                j += 1;
            }
            let tok = &text[start..j];
            out.push_str(&if c == b'@' {
                tok.magenta().bold().to_string()
            } else {
                tok.cyan().to_string()
            });
            i = j;
        } else if c.is_ascii_digit() {
            let mut j = i;
            while j < b.len()
                && (b[j].is_ascii_alphanumeric()
                    || b[j] == b'.'
                    || ((b[j] == b'-' || b[j] == b'+') && matches!(b[j - 1], b'e' | b'E')))
            {
                j += 1;
            }
            out.push_str(&text[start..j].yellow().to_string());
            i = j;
        } else if c.is_ascii_alphabetic() || c == b'_' {
            let mut j = i;
            while j < b.len() && (b[j].is_ascii_alphanumeric() || b[j] == b'_' || b[j] == b'.') {
                j += 1;
            }
            let tok = &text[start..j];
            let styled = match tok {
                "def" | "fn" | "let" | "if" | "else" | "type" | "free_var" => {
                    tok.blue().bold().to_string()
                }
                "True" | "False" | "None" => tok.yellow().to_string(),
                "Tensor" => tok.green().to_string(),
                _ if crate::ir::DType::parse(tok).is_some() => tok.green().to_string(),
                _ if text[j..].starts_with('(') => tok.bold().to_string(),
                _ => tok.to_string(),
            };
            out.push_str(&styled);
            i = j;
        } else {
            let ch = text[i..].chars().next().map(char::len_utf8).unwrap_or(1);
            out.push_str(&text[i..i + ch]);
            i += ch;
        }
    }
    out
}
