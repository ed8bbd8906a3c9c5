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
    let b = src.as_bytes();
    let mut stack: Vec<u8> = Vec::new();
    let mut i = 0;
    while i < b.len() {
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
                None => return Completeness::Incomplete { indent: 0 },
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
                    return Completeness::Invalid;
                }
                i += 1;
                continue;
            }
            c @ (b'{' | b'(' | b'[') => stack.push(c),
            c @ (b'}' | b')' | b']') => {
                let open = match c {
                    b'}' => b'{',
                    b')' => b'(',
                    _ => b'[',
                };
                if stack.pop() != Some(open) {
                    return Completeness::Invalid;
                }
            }
            _ => {}
        }
        i += 1;
    }
    if stack.is_empty() {
        Completeness::Complete
    } else {
        Completeness::Incomplete {
            indent: 4 * stack.iter().filter(|c| **c == b'{').count(),
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
}
