//! The command-language parser's nom error: where parsing failed, what was expected there, or
//! a message that replaces the "expected" list (a semantic error such as a number out of
//! range). `parser.rs` turns it into a located [`ParseError`](crate::diagnostic::ParseError).

use smallvec::{smallvec, SmallVec};
use std::borrow::Cow;

#[derive(Debug, Clone)]
pub struct PErr<'a> {
    pub input: &'a str,
    /// (Inline: a failed alternative is part of normal parsing and must not allocate.)
    pub expected: SmallVec<[Cow<'static, str>; 1]>,
    pub message: Option<String>,
    pub label: Option<String>,
    /// Length of the offending text, for the caret (0 = one character).
    pub len: usize,
}

impl<'a> PErr<'a> {
    pub fn expected(input: &'a str, what: impl Into<Cow<'static, str>>) -> Self {
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
}

impl<'a> nom::error::ParseError<&'a str> for PErr<'a> {
    fn from_error_kind(input: &'a str, kind: nom::error::ErrorKind) -> Self {
        // `description` borrows the kind; the few kinds this parser meets are named here.
        let what = match kind {
            nom::error::ErrorKind::Digit => "a digit",
            nom::error::ErrorKind::Tag => "a keyword",
            nom::error::ErrorKind::TakeWhile1 => "a name",
            _ => "something else",
        };
        PErr::expected(input, what)
    }

    fn append(_: &'a str, _: nom::error::ErrorKind, other: Self) -> Self {
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
pub fn fail<'a, T>(i: &'a str, what: impl Into<Cow<'static, str>>) -> R<'a, T> {
    Err(nom::Err::Error(PErr::expected(i, what)))
}

/// An unrecoverable error with a message at `i` spanning `len` bytes.
pub fn fatal<'a, T>(i: &'a str, len: usize, msg: impl Into<String>) -> R<'a, T> {
    Err(nom::Err::Failure(PErr::message(i, len, msg)))
}
