//! The nom error of both parsers (the Relay text format's and the command language's): where
//! parsing failed, what was expected there, or a message that replaces the "expected" list (a
//! semantic error such as an unknown op). Each parser turns it into a located
//! [`ParseError`](super::ParseError) with [`PErr::expected_text`].
//!
//! A failed alternative is part of normal parsing (every `a | b` tries `a` first), so making
//! one allocates nothing: what was expected is kept as given (a static text, a literal of the
//! grammar, a nom error kind) and formatted only when the error is shown.

use nom::error::ErrorKind;
use smallvec::{smallvec, SmallVec};
use std::borrow::Cow;

/// One thing a parser expected at a place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Expected {
    /// A description shown as is ("a name", "`,` or `)`").
    Text(Cow<'static, str>),
    /// A keyword or symbol of the grammar, shown quoted: `` `(` ``.
    Literal(&'static str),
    /// What a nom combinator wanted; each parser names the kinds in its own words.
    Kind(ErrorKind),
}

impl From<&'static str> for Expected {
    fn from(s: &'static str) -> Expected {
        Expected::Text(Cow::Borrowed(s))
    }
}

impl From<String> for Expected {
    fn from(s: String) -> Expected {
        Expected::Text(Cow::Owned(s))
    }
}

impl Expected {
    /// The text shown for this expectation, with `kind` naming nom's error kinds.
    pub fn text(&self, kind: fn(ErrorKind) -> Cow<'static, str>) -> Cow<'static, str> {
        match self {
            Expected::Text(s) => s.clone(),
            Expected::Literal(s) => Cow::Owned(format!("`{s}`")),
            Expected::Kind(k) => kind(*k),
        }
    }
}

#[derive(Debug, Clone)]
pub struct PErr<'a> {
    pub input: &'a str,
    /// (Inline: a failed alternative is part of normal parsing and must not allocate.)
    pub expected: SmallVec<[Expected; 1]>,
    pub message: Option<String>,
    pub label: Option<String>,
    /// Length of the offending text, for the caret (0 = one character).
    pub len: usize,
}

impl<'a> PErr<'a> {
    pub fn expected(input: &'a str, what: impl Into<Expected>) -> Self {
        PErr {
            input,
            expected: smallvec![what.into()],
            message: None,
            label: None,
            len: 0,
        }
    }

    pub fn message(input: &'a str, len: usize, msg: impl Into<String>) -> Self {
        PErr {
            input,
            expected: SmallVec::new(),
            message: Some(msg.into()),
            label: None,
            len,
        }
    }

    pub fn with_label(mut self, label: Option<String>) -> Self {
        self.label = label;
        self
    }

    /// What was expected, as one phrase: `a`, `a or b`, `a, b or c` (each text once, in the
    /// order met), or "something else" when nothing was recorded.
    pub fn expected_text(&self, kind: fn(ErrorKind) -> Cow<'static, str>) -> String {
        let mut texts: Vec<Cow<'static, str>> = Vec::with_capacity(self.expected.len());
        for e in &self.expected {
            let t = e.text(kind);
            if !texts.contains(&t) {
                texts.push(t);
            }
        }
        match texts.len() {
            0 => "something else".to_string(),
            1 => texts[0].to_string(),
            n => format!("{} or {}", texts[..n - 1].join(", "), texts[n - 1]),
        }
    }
}

impl<'a> nom::error::ParseError<&'a str> for PErr<'a> {
    fn from_error_kind(input: &'a str, kind: ErrorKind) -> Self {
        PErr::expected(input, Expected::Kind(kind))
    }

    fn append(_: &'a str, _: ErrorKind, other: Self) -> Self {
        other
    }

    fn or(self, other: Self) -> Self {
        // Keep the error that got further; merge the expectations of errors at the same place.
        match self.input.len().cmp(&other.input.len()) {
            std::cmp::Ordering::Less => self,
            std::cmp::Ordering::Greater => other,
            std::cmp::Ordering::Equal => {
                if self.message.is_some() {
                    return self;
                }
                if other.message.is_some() {
                    return other;
                }
                let mut merged = self;
                for e in other.expected {
                    if !merged.expected.contains(&e) {
                        merged.expected.push(e);
                    }
                }
                merged
            }
        }
    }
}

pub type R<'a, T> = nom::IResult<&'a str, T, PErr<'a>>;

/// A recoverable error: "expected `what`" at `i`.
pub fn fail<'a, T>(i: &'a str, what: impl Into<Expected>) -> R<'a, T> {
    Err(nom::Err::Error(PErr::expected(i, what)))
}

/// An unrecoverable error with a message at `i` spanning `len` bytes.
pub fn fatal<'a, T>(i: &'a str, len: usize, msg: impl Into<String>) -> R<'a, T> {
    Err(nom::Err::Failure(PErr::message(i, len, msg)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use nom::error::ParseError as _;

    fn kind(k: ErrorKind) -> Cow<'static, str> {
        Cow::Owned(k.description().to_string())
    }

    #[test]
    fn expectations_at_one_place_merge_once_in_order() {
        let at = "x";
        let a = PErr::expected(at, Expected::Literal("("));
        let b = PErr::expected(at, "a name");
        let c = PErr::expected(at, "`(`".to_string());
        let merged = a
            .or(b)
            .or(c)
            .or(PErr::from_error_kind(at, ErrorKind::Digit));
        assert_eq!(merged.expected_text(kind), "`(`, a name or Digit");
    }

    #[test]
    fn the_error_that_got_further_wins_and_messages_replace_lists() {
        let src = "abc";
        let near = PErr::expected(src, "a");
        let far = PErr::expected(&src[1..], "b");
        assert_eq!(near.clone().or(far.clone()).expected_text(kind), "b");
        assert_eq!(far.or(near).expected_text(kind), "b");
        let msg = PErr::message(src, 1, "bad");
        let merged = PErr::expected(src, "a").or(msg);
        assert_eq!(merged.message.as_deref(), Some("bad"));
        assert_eq!(
            PErr::message(src, 0, "m").expected_text(kind),
            "something else"
        );
    }
}
