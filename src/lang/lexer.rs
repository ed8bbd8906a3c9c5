//! The command language's lexer: lossless, so the tokens of any text (valid or not) concatenate
//! back to it, each with its byte range. Completion, the REPL's highlighter, bracket matching
//! and [`is_complete`](super::is_complete) all read the input through it; none of them
//! re-scans characters. Work is linear in the input: every token is at least one byte and is
//! looked at once.
//!
//! The parser (nom, `parser.rs`) reads the same text with the same rules for names, strings and
//! comments; the lexer's unit tests pin that they agree on where strings and comments end.

/// What a token is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TokenKind {
    /// Spaces, tabs and carriage returns.
    Space,
    /// One `\n`.
    Newline,
    /// `#` to the end of the line (the newline is not part of it).
    Comment,
    /// A name: a letter or `_`, then letters, digits and `_`.
    Ident,
    /// A digit, then letters, digits and `.` (`10ms`, `1.5`, `0x1f`: the parser judges them).
    Number,
    /// `"..."` with `\` escapes; `closed` is false when a newline or the end comes first (the
    /// token then stops before the newline).
    Str { closed: bool },
    /// `"""..."""`, which may span lines; `closed` is false when the input ends inside it.
    RawStr { closed: bool },
    /// `(`, `[` or `{`.
    Open(u8),
    /// `)`, `]` or `}`.
    Close(u8),
    /// Any other character (`=`, `,`, `;`, `@`, `.`, `-`, or a character the language does not
    /// use, which the parser rejects).
    Punct,
}

/// A token: its kind and its byte range in the input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Token {
    pub kind: TokenKind,
    pub start: usize,
    pub end: usize,
}

impl Token {
    /// The token's text in `src` (the text it was lexed from).
    pub fn text<'s>(&self, src: &'s str) -> &'s str {
        &src[self.start..self.end]
    }

    /// Whitespace, newlines and comments: tokens the grammar skips.
    pub fn is_trivia(&self) -> bool {
        matches!(
            self.kind,
            TokenKind::Space | TokenKind::Newline | TokenKind::Comment
        )
    }
}

/// The tokens of `src`, in order.
pub fn tokens(src: &str) -> Lexer<'_> {
    Lexer {
        src,
        pos: 0,
        in_raw: false,
    }
}

/// An iterator over the tokens of a text.
#[derive(Clone, Debug)]
pub struct Lexer<'s> {
    src: &'s str,
    pos: usize,
    in_raw: bool,
}

impl<'s> Lexer<'s> {
    /// The tokens of `src`, a piece of input that starts inside a `"""` string opened in an
    /// earlier piece: the first token runs to the closing `"""` (a `RawStr`).
    pub fn inside_raw_string(src: &'s str) -> Lexer<'s> {
        Lexer {
            src,
            pos: 0,
            in_raw: true,
        }
    }

    /// The end of the `"""` string whose contents start at `from`, and whether it is closed.
    fn raw_end(&self, from: usize) -> (usize, bool) {
        match self.src[from..].find("\"\"\"") {
            Some(k) => (from + k + 3, true),
            None => (self.src.len(), false),
        }
    }
}

fn is_ident_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_'
}

fn is_ident_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

impl Iterator for Lexer<'_> {
    type Item = Token;

    fn next(&mut self) -> Option<Token> {
        let b = self.src.as_bytes();
        let start = self.pos;
        if start >= b.len() {
            return None;
        }
        let run = |mut i: usize, f: fn(u8) -> bool| {
            while i < b.len() && f(b[i]) {
                i += 1;
            }
            i
        };
        let (kind, end) = if std::mem::take(&mut self.in_raw) {
            let (end, closed) = self.raw_end(start);
            (TokenKind::RawStr { closed }, end)
        } else {
            match b[start] {
                b' ' | b'\t' | b'\r' => (
                    TokenKind::Space,
                    run(start, |c| matches!(c, b' ' | b'\t' | b'\r')),
                ),
                b'\n' => (TokenKind::Newline, start + 1),
                b'#' => (TokenKind::Comment, run(start, |c| c != b'\n')),
                b'"' if b[start..].starts_with(b"\"\"\"") => {
                    let (end, closed) = self.raw_end(start + 3);
                    (TokenKind::RawStr { closed }, end)
                }
                b'"' => {
                    let mut i = start + 1;
                    let mut closed = false;
                    while i < b.len() && b[i] != b'\n' {
                        if b[i] == b'"' {
                            closed = true;
                            i += 1;
                            break;
                        }
                        // An escape takes the next character, unless that ends the line.
                        i += if b[i] == b'\\' && b.get(i + 1).is_some_and(|&c| c != b'\n') {
                            2
                        } else {
                            1
                        };
                    }
                    // An escape of a multi-byte character stops on its continuation bytes,
                    // which are never `"`, `\\` or a newline: `i` ends on a boundary.
                    (TokenKind::Str { closed }, i)
                }
                c @ (b'(' | b'[' | b'{') => (TokenKind::Open(c), start + 1),
                c @ (b')' | b']' | b'}') => (TokenKind::Close(c), start + 1),
                c if is_ident_start(c) => (TokenKind::Ident, run(start, is_ident_char)),
                c if c.is_ascii_digit() => (
                    TokenKind::Number,
                    run(start, |c| {
                        c.is_ascii_alphanumeric() || c == b'.' || c == b'_'
                    }),
                ),
                _ => {
                    let n = self.src[start..].chars().next().map_or(1, char::len_utf8);
                    (TokenKind::Punct, start + n)
                }
            }
        };
        self.pos = end;
        Some(Token { kind, start, end })
    }
}

/// The opener a closing bracket matches.
pub fn opener_of(close: u8) -> u8 {
    match close {
        b')' => b'(',
        b']' => b'[',
        _ => b'{',
    }
}

/// The position of the bracket matching the one at `pos` or, failing that, just before it;
/// brackets inside strings and comments do not count.
pub fn matching_bracket(src: &str, pos: usize) -> Option<usize> {
    let toks: Vec<Token> = tokens(src)
        .filter(|t| matches!(t.kind, TokenKind::Open(_) | TokenKind::Close(_)))
        .collect();
    let at = [Some(pos), pos.checked_sub(1)]
        .into_iter()
        .flatten()
        .find_map(|p| toks.iter().position(|t| t.start == p))?;
    let mut depth = 0usize;
    match toks[at].kind {
        TokenKind::Open(open) => {
            for t in &toks[at..] {
                match t.kind {
                    TokenKind::Open(_) => depth += 1,
                    TokenKind::Close(c) => {
                        depth -= 1;
                        if depth == 0 {
                            return (opener_of(c) == open).then_some(t.start);
                        }
                    }
                    _ => {}
                }
            }
        }
        TokenKind::Close(close) => {
            for t in toks[..=at].iter().rev() {
                match t.kind {
                    TokenKind::Close(_) => depth += 1,
                    TokenKind::Open(o) => {
                        depth -= 1;
                        if depth == 0 {
                            return (o == opener_of(close)).then_some(t.start);
                        }
                    }
                    _ => {}
                }
            }
        }
        _ => {}
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(src: &str) -> Vec<(TokenKind, &str)> {
        tokens(src).map(|t| (t.kind, t.text(src))).collect()
    }

    /// The tokens of `src` concatenate back to it, each is non-empty and starts where the one
    /// before ended.
    pub(crate) fn assert_lossless(src: &str) {
        let mut at = 0;
        let mut text = String::with_capacity(src.len());
        for t in tokens(src) {
            assert_eq!(t.start, at, "{src:?}");
            assert!(t.end > t.start, "{src:?}");
            text.push_str(t.text(src));
            at = t.end;
        }
        assert_eq!(text, src);
    }

    #[test]
    fn tokens_of_a_statement() {
        use TokenKind::*;
        let src = "x = f(a=1.5, \"s\\\"\") # c\n@main";
        assert_eq!(
            kinds(src),
            vec![
                (Ident, "x"),
                (Space, " "),
                (Punct, "="),
                (Space, " "),
                (Ident, "f"),
                (Open(b'('), "("),
                (Ident, "a"),
                (Punct, "="),
                (Number, "1.5"),
                (Punct, ","),
                (Space, " "),
                (Str { closed: true }, "\"s\\\"\""),
                (Close(b')'), ")"),
                (Space, " "),
                (Comment, "# c"),
                (Newline, "\n"),
                (Punct, "@"),
                (Ident, "main"),
            ]
        );
    }

    #[test]
    fn strings_that_do_not_close() {
        use TokenKind::*;
        assert_eq!(
            kinds("\"ab\ncd"),
            vec![
                (Str { closed: false }, "\"ab"),
                (Newline, "\n"),
                (Ident, "cd")
            ]
        );
        assert_eq!(kinds("\"a\\"), vec![(Str { closed: false }, "\"a\\")]);
        assert_eq!(
            kinds("\"\"\"def @m() {\n1"),
            vec![(RawStr { closed: false }, "\"\"\"def @m() {\n1")]
        );
        let src = "x\"\"\" y";
        let mut l = Lexer::inside_raw_string(src);
        assert_eq!(
            l.next().map(|t| (t.kind, t.text(src))),
            Some((RawStr { closed: true }, "x\"\"\""))
        );
    }

    #[test]
    fn lossless_on_odd_text() {
        for src in [
            "",
            "π→Seq",
            "\"é\\é\"",
            "\"\\",
            "\"\"\"",
            "\"\"\"\"\"\"",
            "🬞zn[Á",
            "1.2.3ms + 0x_ff",
            "#\n#\n",
            "a\r\n\tb",
        ] {
            assert_lossless(src);
        }
    }

    /// Every transcript and tutorial the project ships lexes back to itself.
    #[test]
    fn lossless_on_every_transcript_and_tutorial() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut files = 0;
        for dir in ["tests/sessions", "examples", "notebooks"] {
            let Ok(rd) = std::fs::read_dir(root.join(dir)) else {
                panic!("{dir} is missing");
            };
            for e in rd.flatten() {
                let p = e.path();
                let ext = p.extension().and_then(|x| x.to_str());
                let text = match ext {
                    Some("passlab" | "ipynb") => std::fs::read_to_string(&p).expect("readable"),
                    _ => continue,
                };
                if ext == Some("ipynb") {
                    // Each code cell's source, as the kernel receives it.
                    let nb: serde_json::Value = serde_json::from_str(&text).expect("a notebook");
                    for cell in nb["cells"].as_array().into_iter().flatten() {
                        let lines = cell["source"].as_array().into_iter().flatten();
                        let src: String = lines.filter_map(|l| l.as_str()).collect();
                        assert_lossless(&src);
                    }
                } else {
                    assert_lossless(&text);
                }
                files += 1;
            }
        }
        assert!(files > 20, "only {files} transcripts and tutorials found");
    }

    #[test]
    fn brackets_match_outside_strings_and_comments() {
        assert_eq!(matching_bracket("f(a[1])", 1), Some(6));
        assert_eq!(matching_bracket("f(a[1])", 7), Some(1));
        assert_eq!(matching_bracket("f(\")\")", 1), Some(5));
        assert_eq!(matching_bracket("f( # )\n)", 1), Some(7));
        assert_eq!(matching_bracket("f(]", 1), None);
        assert_eq!(matching_bracket("abc", 1), None);
        assert_eq!(matching_bracket("(", 0), None);
    }
}
