//! Lexemes of the Relay text format as nom parsers over `&str`: whitespace and (nested)
//! comments, identifiers, `%locals`, `%0` graph ids, `@globals`, numbers with suffixes,
//! strings and `meta[...][i]` references. The grammar in `parser.rs` is built from these.

use nom::character::complete::digit1;
use std::borrow::Cow;

pub use crate::diagnostic::nom_error::{fail, fatal, Expected, PErr, R};

/// How the Relay parser names nom's error kinds in "expected ..." messages.
pub fn kind_text(kind: nom::error::ErrorKind) -> Cow<'static, str> {
    Cow::Owned(kind.description().to_string())
}

/// Skips whitespace, `//` line comments and nested `/* */` block comments.
#[inline]
pub fn ws(i: &str) -> R<'_, ()> {
    // The lexer calls this before every token, and most often (a token right after another,
    // or a second call at the same place) there is nothing to skip: answered inline.
    match i.as_bytes().first() {
        Some(b' ' | b'\t' | b'\n' | b'\r' | b'/') => skip_blanks_and_comments(i),
        _ => Ok((i, ())),
    }
}

fn skip_blanks_and_comments(mut i: &str) -> R<'_, ()> {
    loop {
        // Byte by byte (all four are ASCII, so the cut is a char boundary).
        i = &i[run_len(i, |b| matches!(b, b' ' | b'\t' | b'\n' | b'\r'))..];
        if !i.starts_with('/') {
            return Ok((i, ()));
        }
        if let Some(rest) = i.strip_prefix("//") {
            i = rest.find('\n').map(|n| &rest[n..]).unwrap_or("");
        } else if i.starts_with("/*") {
            let start = i;
            let mut depth = 0usize;
            let mut rest = i;
            loop {
                if let Some(r) = rest.strip_prefix("/*") {
                    depth += 1;
                    rest = r;
                } else if let Some(r) = rest.strip_prefix("*/") {
                    depth -= 1;
                    rest = r;
                    if depth == 0 {
                        break;
                    }
                } else {
                    // Skip to the next `/` or `*` after this character.
                    let n = rest.chars().next().map_or(0, char::len_utf8);
                    match rest[n..].find(['/', '*']) {
                        Some(k) => rest = &rest[n + k..],
                        None => return fatal(start, 2, "unterminated block comment"),
                    }
                }
            }
            i = rest;
        } else {
            return Ok((i, ()));
        }
    }
}

/// The type comment `/* ty=... */` right after an expression, if there is one (without
/// consuming anything else). Returns the text of the type and the input after the comment.
pub fn type_comment(i: &str) -> Option<(&str, &str)> {
    let t = i.trim_start_matches([' ', '\t']);
    let body = t.strip_prefix("/*")?;
    let body = body.trim_start();
    let body = body.strip_prefix("ty=")?;
    let end = body.find("*/")?;
    let inner = &body[..end];
    if inner.contains("/*") {
        return None;
    }
    let ty = inner.split(" span=").next().unwrap_or(inner).trim();
    Some((ty, &body[end + 2..]))
}

/// Punctuation or an operator, after whitespace.
pub fn sym<'a>(s: &'static str) -> impl Fn(&'a str) -> R<'a, &'a str> {
    move |i| {
        let (i, _) = ws(i)?;
        match i.strip_prefix(s) {
            Some(r) => Ok((r, &i[..s.len()])),
            None => fail(i, Expected::Literal(s)),
        }
    }
}

/// True when the next token (after whitespace) starts with `s`.
pub fn peek(i: &str, s: &str) -> bool {
    matches!(ws(i), Ok((r, _)) if r.starts_with(s))
}

pub fn is_ident_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_'
}

pub fn is_ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '/'
}

/// An identifier (no leading whitespace is skipped).
pub fn raw_ident(i: &str) -> R<'_, &str> {
    match i.as_bytes().first() {
        Some(&b) if is_ident_start(char::from(b)) => {
            let n = 1 + run_len(&i[1..], |b| is_ident_char(char::from(b)));
            Ok((&i[n..], &i[..n]))
        }
        _ => fail(i, "an identifier"),
    }
}

/// Length of the leading run of bytes of `i` that satisfy `f`. For ASCII classes: a byte
/// of a multi-byte character (128 and up) is no ASCII character, so `f` must reject it (as
/// every class here does, through `char::from` of the byte), and the cut is then a
/// character boundary.
#[inline]
fn run_len(i: &str, f: impl Fn(u8) -> bool) -> usize {
    i.bytes().position(|b| !f(b)).unwrap_or(i.len())
}

/// The leading ASCII digits of `i` (possibly none), and the rest.
#[inline]
fn digits(i: &str) -> (&str, &str) {
    let n = run_len(i, |b| b.is_ascii_digit());
    (&i[..n], &i[n..])
}

/// An identifier after whitespace.
pub fn ident(i: &str) -> R<'_, &str> {
    let (i, _) = ws(i)?;
    raw_ident(i)
}

/// A keyword: the identifier `kw` not followed by another identifier character.
pub fn keyword<'a>(kw: &'static str) -> impl Fn(&'a str) -> R<'a, &'a str> {
    move |i| {
        let (i, _) = ws(i)?;
        match raw_ident(i) {
            Ok((rest, id)) if id == kw => Ok((rest, id)),
            _ => fail(i, Expected::Literal(kw)),
        }
    }
}

/// A dotted name such as `nn.conv2d` or `relay.reshape_only`.
pub fn hier_name(i: &str) -> R<'_, &str> {
    let (i, _) = ws(i)?;
    let start = i;
    let (mut rest, _) = raw_ident(i)?;
    while let Some(r) = rest.strip_prefix('.') {
        match raw_ident(r) {
            Ok((r2, _)) => rest = r2,
            Err(_) => break,
        }
    }
    Ok((rest, &start[..start.len() - rest.len()]))
}

/// `%name` (a local variable); names may not start with a digit.
pub fn local(i: &str) -> R<'_, &str> {
    let (i, _) = ws(i)?;
    let Some(r) = i.strip_prefix('%') else {
        return fail(i, "a local variable `%name`");
    };
    match r.chars().next() {
        Some(c) if is_ident_start(c) => raw_ident(r),
        _ => fail(i, "a local variable `%name`"),
    }
}

/// True when `i` starts with a graph id (`%` and a digit), so that a `%name` is never lexed
/// as a graph id only to fail.
#[inline]
pub fn at_graph_id(i: &str) -> bool {
    i.strip_prefix('%')
        .is_some_and(|r| r.starts_with(|c: char| c.is_ascii_digit()))
}

/// `%0`: a graph binding id.
pub fn graph_id(i: &str) -> R<'_, u64> {
    let (i, _) = ws(i)?;
    let Some(r) = i.strip_prefix('%') else {
        return fail(i, "a graph id `%N`");
    };
    match digits(r) {
        ("", _) => fail(i, "a graph id `%N`"),
        (d, rest) => {
            let n = d.bytes().try_fold(0u64, |n, b| {
                n.checked_mul(10)?.checked_add(u64::from(b - b'0'))
            });
            match n {
                Some(n) => Ok((rest, n)),
                None => fatal(i, d.len() + 1, "graph id is too large"),
            }
        }
    }
}

/// `@name`.
pub fn global(i: &str) -> R<'_, &str> {
    let (i, _) = ws(i)?;
    let Some(r) = i.strip_prefix('@') else {
        return fail(i, "a global `@name`");
    };
    raw_ident(r)
}

/// A numeric literal as written.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Number {
    /// Value and explicit bit width (`5i64` → 64, `5` → None).
    Int(i64, Option<u8>),
    /// Value and bit width (`1f` → 32, `2f64` → 64, `3f16` → 16).
    Float(f64, u8),
}

/// A number: `-`* digits (`.` digits)? exponent? suffix?, or `inff`. Each `-` negates, as
/// TVM's tokenizer reads them (`--10` is 10, `---10` is -10).
pub fn number(i: &str) -> R<'_, Number> {
    let (i, _) = ws(i)?;
    let start = i;
    let unsigned = i.trim_start_matches('-');
    let (i, neg) = (unsigned, (i.len() - unsigned.len()) % 2 == 1);
    if let Some(rest) = i.strip_prefix("inff") {
        if !rest.starts_with(is_ident_char) {
            let v = if neg {
                f64::NEG_INFINITY
            } else {
                f64::INFINITY
            };
            return Ok((rest, Number::Float(v, 32)));
        }
    }
    let after_digits = match digits(i) {
        ("", _) => return fail(start, "a number"),
        (_, rest) => rest,
    };
    let mut rest = after_digits;
    let mut is_float = false;
    if let Some(r) = rest.strip_prefix('.') {
        let (d, r2) = digits(r);
        if !d.is_empty() {
            rest = r2;
            is_float = true;
        } else if r.starts_with(['f', 'e', 'E']) {
            rest = r;
            is_float = true;
        }
    }
    if let Some(r) = rest.strip_prefix(['e', 'E']) {
        let r = r.strip_prefix(['+', '-']).unwrap_or(r);
        let (d, r2) = digits(r);
        if !d.is_empty() {
            rest = r2;
            is_float = true;
        }
    }
    let body = &i[..i.len() - rest.len()];
    let text_len = start.len() - rest.len();
    let (rest, suffix) = match rest.chars().next() {
        Some(c @ ('f' | 'i')) => {
            let r = &rest[1..];
            let (bits, r) = digits(r);
            if r.starts_with(is_ident_char) {
                return fatal(start, text_len, "malformed number literal");
            }
            (r, Some((c, bits)))
        }
        Some(c) if is_ident_char(c) => {
            return fatal(start, text_len + 1, "malformed number literal")
        }
        _ => (rest, None),
    };
    let full_len = start.len() - rest.len();
    let bad = |msg: &str| fatal(start, full_len, msg.to_string());
    match suffix {
        Some(('f', bits)) => {
            let bits = match bits {
                "" | "32" => 32,
                "16" => 16,
                "64" => 64,
                _ => return bad("unsupported float literal width (use f16, f32 or f64)"),
            };
            let v: f64 = match body.parse() {
                Ok(v) => v,
                Err(_) => return bad("malformed float literal"),
            };
            let v = if neg { -v } else { v };
            let max = match bits {
                16 => 65504.0,
                32 => f32::MAX as f64,
                _ => f64::MAX,
            };
            if v.abs() > max {
                return bad("float literal out of range for its type");
            }
            Ok((rest, Number::Float(v, bits)))
        }
        Some((_, bits)) => {
            if is_float {
                return bad("an integer literal cannot have a fraction or exponent");
            }
            let bits: u8 = match bits {
                "" | "32" => 32,
                "16" => 16,
                "64" => 64,
                "8" => 8,
                _ => return bad("unsupported integer literal width (use i8, i16, i32 or i64)"),
            };
            let Some(v) = parse_int(body, neg) else {
                return bad("integer literal out of range");
            };
            let (lo, hi) = match bits {
                8 => (i8::MIN as i64, i8::MAX as i64),
                16 => (i16::MIN as i64, i16::MAX as i64),
                32 => (i32::MIN as i64, i32::MAX as i64),
                _ => (i64::MIN, i64::MAX),
            };
            if v < lo || v > hi {
                return bad("integer literal out of range for its type");
            }
            Ok((rest, Number::Int(v, Some(bits))))
        }
        None if is_float => match body.parse::<f64>() {
            // Accepted leniently (TVM 0.8 behaviour): a float without suffix is float32.
            Ok(v) => Ok((rest, Number::Float(if neg { -v } else { v }, 32))),
            Err(_) => bad("malformed float literal"),
        },
        None => match parse_int(body, neg) {
            Some(v) => Ok((rest, Number::Int(v, None))),
            None => bad("integer literal out of range"),
        },
    }
}

fn parse_int(digits: &str, neg: bool) -> Option<i64> {
    let v: i128 = digits.parse().ok()?;
    let v = if neg { -v } else { v };
    i64::try_from(v).ok()
}

/// A string literal. The escapes the printer writes (`\"`, `\\`, `\n`, `\t`, `\r`) are undone.
pub fn string_lit(i: &str) -> R<'_, String> {
    let (i, _) = ws(i)?;
    let Some(body) = i.strip_prefix('"') else {
        return fail(i, "a string");
    };
    let mut out = String::new();
    let mut chars = body.char_indices();
    while let Some((k, c)) = chars.next() {
        match c {
            '"' => return Ok((&body[k + 1..], out)),
            '\\' => match chars.next() {
                Some((_, 'n')) => out.push('\n'),
                Some((_, 't')) => out.push('\t'),
                Some((_, 'r')) => out.push('\r'),
                Some((_, c)) => out.push(c),
                None => break,
            },
            c => out.push(c),
        }
    }
    fatal(i, 1, "unterminated string")
}

/// The largest `i` a `meta[Key][i]` may name. A printed module's metadata section is a dense
/// array up to its highest index, so an index is also a size: this one keeps it printable.
pub const MAX_META_INDEX: usize = (1 << 20) - 1;

/// `meta[Key][i]`.
pub fn meta_ref(i: &str) -> R<'_, (&str, usize)> {
    let (i, _) = ws(i)?;
    let start = i;
    let Some(r) = i.strip_prefix("meta[") else {
        return fail(i, "`meta[...]`");
    };
    let Some(close) = r.find(']') else {
        return fatal(start, 5, "unterminated `meta[` reference");
    };
    let key = &r[..close];
    let r = &r[close + 1..];
    let Some(r) = r.strip_prefix('[') else {
        return fatal(start, 5 + close + 1, "expected `[index]` after `meta[...]`");
    };
    let (r, digits) = match digit1::<_, PErr>(r) {
        Ok(x) => x,
        Err(_) => return fatal(start, 5 + close + 2, "expected an index in `meta[...][i]`"),
    };
    let Some(r) = r.strip_prefix(']') else {
        return fatal(
            start,
            start.len() - r.len(),
            "expected `]` after the meta index",
        );
    };
    let idx = match digits.parse::<usize>() {
        Ok(idx) if idx <= MAX_META_INDEX => idx,
        _ => {
            return fatal(
                &start[5 + close + 2..],
                digits.len(),
                format!("meta index out of range (0 to {MAX_META_INDEX})"),
            )
        }
    };
    Ok((r, (key, idx)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers() {
        let n = |s| number(s).map(|(_, n)| n).unwrap();
        assert_eq!(n("1"), Number::Int(1, None));
        assert_eq!(n("-42i64"), Number::Int(-42, Some(64)));
        assert_eq!(n("7i16"), Number::Int(7, Some(16)));
        assert_eq!(n("1f"), Number::Float(1.0, 32));
        assert_eq!(n("1.5f"), Number::Float(1.5, 32));
        assert_eq!(n("1e-05f"), Number::Float(1e-5, 32));
        assert_eq!(n("2f64"), Number::Float(2.0, 64));
        assert_eq!(n("3f16"), Number::Float(3.0, 16));
        assert_eq!(n("-inff"), Number::Float(f64::NEG_INFINITY, 32));
        assert_eq!(n("0.044715f"), Number::Float(0.044715, 32));
        assert!(number("2147483648i32").is_err());
        assert!(number("65505f16").is_err());
    }

    #[test]
    fn comments_nest() {
        let (rest, _) = ws("/* a /* b */ c */ // x\n  y").unwrap();
        assert_eq!(rest, "y");
        assert!(ws("/* open").is_err());
        // Stars, slashes and multi-byte characters inside; ends exactly at the close.
        let (rest, _) = ws("/* é*/x").unwrap();
        assert_eq!(rest, "x");
        let (rest, _) = ws("/* a*b / c ** / ✓ /*é*/ */\t\r\n/**/%x").unwrap();
        assert_eq!(rest, "%x");
        assert_eq!(ws("/ x").unwrap().0, "/ x");
        for open in ["/*", "/* /* */", "/* é", "/* *", "/* /"] {
            assert!(ws(open).is_err(), "{open}");
        }
    }

    #[test]
    fn type_comments() {
        assert_eq!(
            type_comment(" /* ty=Tensor[(64), float32] */;"),
            Some(("Tensor[(64), float32]", ";"))
        );
        assert_eq!(type_comment(" /* note */"), None);
    }
}
