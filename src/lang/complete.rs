//! Whether an input is complete: a front end keeps reading lines while a `{`, `(`, `[` or
//! `"""` is open. Comments and strings are skipped; closers without openers make the input
//! invalid (the parser reports it).

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

/// Scans brackets, strings and comments of `src`.
pub fn is_complete(src: &str) -> Completeness {
    let mut s = Scanner::new();
    s.feed(src);
    s.state()
}

/// [`is_complete`] for input that arrives in pieces (a script's lines, a pipe's): each piece
/// is scanned once, so reading a statement of n lines costs O(n), not O(n²). Pieces must not
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
        let b = src.as_bytes();
        let mut i = 0;
        if self.in_raw {
            match src.find("\"\"\"") {
                Some(end) => {
                    self.in_raw = false;
                    i = end + 3;
                }
                None => return,
            }
        }
        while i < b.len() && !self.invalid {
            match b[i] {
                b'#' => {
                    while i < b.len() && b[i] != b'\n' {
                        i += 1;
                    }
                    continue;
                }
                b'"' if b[i..].starts_with(b"\"\"\"") => match src[i + 3..].find("\"\"\"") {
                    Some(end) => {
                        i += 3 + end + 3;
                        continue;
                    }
                    None => {
                        self.in_raw = true;
                        return;
                    }
                },
                b'"' => {
                    i += 1;
                    while i < b.len() && b[i] != b'"' && b[i] != b'\n' {
                        if b[i] == b'\\' {
                            i += 1;
                        }
                        i += 1;
                    }
                    if i >= b.len() || b[i] == b'\n' {
                        self.invalid = true;
                        return;
                    }
                    i += 1;
                    continue;
                }
                c @ (b'{' | b'(' | b'[') => {
                    self.stack.push(c);
                    self.braces += usize::from(c == b'{');
                }
                c @ (b'}' | b')' | b']') => {
                    let open = match c {
                        b'}' => b'{',
                        b')' => b'(',
                        _ => b'[',
                    };
                    if self.stack.pop() != Some(open) {
                        self.invalid = true;
                        return;
                    }
                    self.braces -= usize::from(c == b'}');
                }
                _ => {}
            }
            i += 1;
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
        let text = "with PassContext() {\n  m = parse(\"\"\"def @main() {\n  1 # not a comment\n}\"\"\") # [\n  x = [1,\n 2]\n}\nf())";
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
