//! The line editor's helper: completion, hints, highlighting and multi-line validation, all
//! delegated to the session and the language (the editor itself knows nothing of either).

use colored::Colorize;
use passlab::lang::{is_complete, Completeness};
use passlab::session::Session;
use rustyline::completion::{Completer, Pair};
use rustyline::highlight::{CmdKind, Highlighter};
use rustyline::hint::Hinter;
use rustyline::validate::{ValidationContext, ValidationResult, Validator};
use rustyline::{Context, Helper};
use std::borrow::Cow;
use std::cell::RefCell;
use std::rc::Rc;

/// Shares the session with the REPL loop.
pub struct ReplHelper {
    pub session: Rc<RefCell<Session>>,
    pub color: bool,
}

impl Completer for ReplHelper {
    type Candidate = Pair;

    fn complete(
        &self,
        line: &str,
        pos: usize,
        _ctx: &Context<'_>,
    ) -> rustyline::Result<(usize, Vec<Pair>)> {
        let Ok(s) = self.session.try_borrow() else {
            return Ok((pos, Vec::new()));
        };
        let c = s.complete(line, pos);
        let pairs = c
            .candidates
            .into_iter()
            .map(|cand| Pair {
                display: cand.clone(),
                replacement: cand,
            })
            .collect();
        Ok((c.start, pairs))
    }
}

impl Hinter for ReplHelper {
    type Hint = String;

    /// The rest of the only completion of the word being typed (shown greyed).
    fn hint(&self, line: &str, pos: usize, _ctx: &Context<'_>) -> Option<String> {
        if pos < line.len()
            || line.is_empty()
            || line.ends_with(|c: char| !c.is_alphanumeric() && c != '_')
        {
            return None;
        }
        let s = self.session.try_borrow().ok()?;
        let c = s.complete(line, pos);
        let typed = &line[c.start..pos];
        if typed.len() < 2 {
            return None;
        }
        match c.candidates.as_slice() {
            [only] => only
                .strip_prefix(typed)
                .map(str::to_string)
                .filter(|r| !r.is_empty()),
            _ => None,
        }
    }
}

const KEYWORDS: &[&str] = passlab::lang::ast::KEYWORDS;

impl Highlighter for ReplHelper {
    fn highlight<'l>(&self, line: &'l str, pos: usize) -> Cow<'l, str> {
        if !self.color {
            return Cow::Borrowed(line);
        }
        Cow::Owned(highlight_line(line, matching_bracket(line, pos)))
    }

    fn highlight_hint<'h>(&self, hint: &'h str) -> Cow<'h, str> {
        if self.color {
            Cow::Owned(hint.bright_black().to_string())
        } else {
            Cow::Borrowed(hint)
        }
    }

    fn highlight_char(&self, _line: &str, _pos: usize, _kind: CmdKind) -> bool {
        self.color
    }
}

impl Validator for ReplHelper {
    fn validate(&self, ctx: &mut ValidationContext) -> rustyline::Result<ValidationResult> {
        let input = ctx.input();
        // A blank last line submits anyway, so a typo cannot trap the user in "...".
        if input.ends_with("\n\n") || (input.ends_with('\n') && input.trim().is_empty()) {
            return Ok(ValidationResult::Valid(None));
        }
        Ok(match is_complete(input) {
            Completeness::Incomplete { .. } => ValidationResult::Incomplete,
            _ => ValidationResult::Valid(None),
        })
    }
}

impl Helper for ReplHelper {}

/// The position of the bracket matching the one at or just before `pos`.
pub fn matching_bracket(line: &str, pos: usize) -> Option<usize> {
    let b = line.as_bytes();
    let at = [pos, pos.wrapping_sub(1)]
        .into_iter()
        .find(|&i| i < b.len() && matches!(b[i], b'(' | b')' | b'[' | b']' | b'{' | b'}'))?;
    let (open, close, forward) = match b[at] {
        b'(' => (b'(', b')', true),
        b')' => (b'(', b')', false),
        b'[' => (b'[', b']', true),
        b']' => (b'[', b']', false),
        b'{' => (b'{', b'}', true),
        _ => (b'{', b'}', false),
    };
    let mut depth = 0i32;
    if forward {
        for (i, &c) in b.iter().enumerate().skip(at) {
            if c == open {
                depth += 1;
            } else if c == close {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
        }
    } else {
        for i in (0..=at).rev() {
            if b[i] == close {
                depth += 1;
            } else if b[i] == open {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
        }
    }
    None
}

/// Colours a command line: keywords, strings, numbers, `#` comments, Relay text inside `"""`,
/// and the bracket matching the cursor's.
pub fn highlight_line(line: &str, bracket: Option<usize>) -> String {
    let mut out = String::with_capacity(line.len() * 2);
    let b = line.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if Some(i) == bracket {
            out.push_str(&(c as char).to_string().blue().bold().to_string());
            i += 1;
        } else if line[i..].starts_with("\"\"\"") {
            let close = line[i + 3..].find("\"\"\"");
            let inner_end = close.map(|e| i + 3 + e).unwrap_or(b.len());
            out.push_str(&"\"\"\"".green().to_string());
            out.push_str(&passlab::present::highlight(&line[i + 3..inner_end]));
            if close.is_some() {
                out.push_str(&"\"\"\"".green().to_string());
                i = inner_end + 3;
            } else {
                i = inner_end;
            }
        } else if c == b'"' {
            let mut j = i + 1;
            while j < b.len() && b[j] != b'"' {
                j += if b[j] == b'\\' { 2 } else { 1 };
            }
            let end = (j + 1).min(b.len());
            out.push_str(&line[i..end].green().to_string());
            i = end;
        } else if c == b'#' {
            let end = line[i..].find('\n').map(|n| i + n).unwrap_or(b.len());
            out.push_str(&line[i..end].bright_black().to_string());
            i = end;
        } else if c.is_ascii_digit() {
            let mut j = i;
            while j < b.len() && (b[j].is_ascii_alphanumeric() || b[j] == b'.') {
                j += 1;
            }
            out.push_str(&line[i..j].yellow().to_string());
            i = j;
        } else if c.is_ascii_alphabetic() || c == b'_' {
            let mut j = i;
            while j < b.len() && (b[j].is_ascii_alphanumeric() || b[j] == b'_') {
                j += 1;
            }
            let w = &line[i..j];
            let styled = if KEYWORDS.contains(&w) {
                w.blue().bold().to_string()
            } else if matches!(w, "true" | "false" | "True" | "False" | "None") {
                w.yellow().to_string()
            } else if line[j..].starts_with('(') {
                w.bold().to_string()
            } else {
                w.to_string()
            };
            out.push_str(&styled);
            i = j;
        } else {
            let n = line[i..].chars().next().map(char::len_utf8).unwrap_or(1);
            out.push_str(&line[i..i + n]);
            i += n;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn brackets_match() {
        assert_eq!(matching_bracket("f(a[1])", 1), Some(6));
        assert_eq!(matching_bracket("f(a[1])", 7), Some(1));
        assert_eq!(matching_bracket("abc", 1), None);
    }
}
