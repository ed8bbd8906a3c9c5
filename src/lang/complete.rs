//! Whether an input is complete: a front end keeps reading lines while a `{`, `(`, `[` or
//! `"""` is open. Read through the lexer, so brackets in strings and comments do not count; a
//! closer without its opener, or a `"` string broken by a newline, makes the input invalid
//! (the parser reports it).

use super::lexer::{opener_of, tokens, Lexer, TokenKind};

/// The answer to "is this input ready to run?".
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Completeness {
    Complete,
    /// More input is needed; `indent` is a suggested indentation for the next line.
    Incomplete {
        indent: usize,
    },
    Invalid,
}

/// Whether `src` is complete.
pub fn is_complete(src: &str) -> Completeness {
    let mut s = Scanner::new();
    s.feed(src);
    s.state()
}

/// [`is_complete`] for input that arrives in pieces (a script's lines, a pipe's): each piece
/// is lexed once, so reading a statement of n lines costs O(n), not O(n²). Pieces must not
/// split a `"""`; whole lines, with the newlines between them fed too, never do.
#[derive(Clone, Debug, Default)]
pub struct Scanner {
    /// Open brackets, innermost last.
    stack: Vec<u8>,
    /// How many of them are `{`.
    braces: usize,
    /// Inside a `"""` string.
    in_raw: bool,
    /// A closer without its opener, or a string broken by a newline.
    invalid: bool,
}

impl Scanner {
    pub fn new() -> Scanner {
        Scanner::default()
    }

    /// Scans the next piece of the input.
    pub fn feed(&mut self, src: &str) {
        if src.is_empty() {
            return;
        }
        let lexer = if std::mem::take(&mut self.in_raw) {
            Lexer::inside_raw_string(src)
        } else {
            tokens(src)
        };
        for t in lexer {
            if self.invalid {
                return;
            }
            match t.kind {
                TokenKind::RawStr { closed } => self.in_raw = !closed,
                TokenKind::Str { closed } => self.invalid |= !closed,
                TokenKind::Open(c) => {
                    self.stack.push(c);
                    self.braces += usize::from(c == b'{');
                }
                TokenKind::Close(c) => {
                    if self.stack.pop() != Some(opener_of(c)) {
                        self.invalid = true;
                        return;
                    }
                    self.braces -= usize::from(c == b'}');
                }
                _ => {}
            }
        }
    }

    /// Whether the input so far is complete.
    pub fn state(&self) -> Completeness {
        if self.invalid {
            Completeness::Invalid
        } else if self.in_raw {
            Completeness::Incomplete { indent: 0 }
        } else if self.stack.is_empty() {
            Completeness::Complete
        } else {
            Completeness::Incomplete {
                indent: 4 * self.braces,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn brackets_strings_and_comments() {
        assert_eq!(is_complete("x = 1"), Completeness::Complete);
        assert_eq!(
            is_complete("with PassContext() {"),
            Completeness::Incomplete { indent: 4 }
        );
        assert_eq!(
            is_complete("m = parse(\"\"\"def @main() {"),
            Completeness::Incomplete { indent: 0 }
        );
        assert_eq!(
            is_complete("m = parse(\"\"\"def @main() { 1 }\"\"\")"),
            Completeness::Complete
        );
        assert_eq!(is_complete("x = [1, # ]\n 2]"), Completeness::Complete);
        assert_eq!(is_complete("s = \"{\""), Completeness::Complete);
        assert_eq!(is_complete("x = )"), Completeness::Invalid);
        assert_eq!(is_complete("f(["), Completeness::Incomplete { indent: 0 });
    }

    /// Fed a line at a time, the scanner answers as `is_complete` on the whole text.
    #[test]
    fn pieces_answer_as_the_whole() {
        let text = "with PassContext() {\n\n  m = parse(\"\"\"def @a() {\n\n1 }\"\"\")\n  m = parse(\"\"\"def @main() {\n  1 # not a comment\n}\"\"\") # [\n  x = [1,\n 2]\n}\nf())";
        let mut s = Scanner::new();
        let mut sofar = String::new();
        for (k, line) in text.split('\n').enumerate() {
            if k > 0 {
                s.feed("\n");
                sofar.push('\n');
            }
            s.feed(line);
            sofar.push_str(line);
            assert_eq!(s.state(), is_complete(&sofar), "{sofar}");
        }
        assert_eq!(s.state(), Completeness::Invalid);
    }
}
