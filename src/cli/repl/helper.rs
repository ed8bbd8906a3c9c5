//! The line editor's helper: completion, hints and highlighting, all
//! delegated to the session and the language (the editor itself knows nothing of either).

use colored::Colorize;
use passlab::lang::{matching_bracket, tokens, Token, TokenKind};
use passlab::session::commands::is_command;
use passlab::session::Session;
use rustyline::completion::{Completer, Pair};
use rustyline::highlight::{CmdKind, Highlighter};
use rustyline::hint::Hinter;
use rustyline::validate::Validator;
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

impl Highlighter for ReplHelper {
    fn highlight<'l>(&self, line: &'l str, pos: usize) -> Cow<'l, str> {
        if !self.color {
            return Cow::Borrowed(line);
        }
        let known = |name: &str| {
            self.session
                .try_borrow()
                .is_ok_and(|s| s.is_known_name(name))
        };
        Cow::Owned(highlight_line(line, matching_bracket(line, pos), &known))
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

/// Every line is submitted as typed: the REPL loop reads an incomplete entry's further lines
/// itself, under the `... ` prompt (rustyline's own multi-line editing shows no prompt).
impl Validator for ReplHelper {}

impl Helper for ReplHelper {}

/// Colours a command line from its tokens: commands at the start of a statement, strings,
/// numbers, `#` comments, Relay text inside `"""`, the names of known functions, passes and
/// variables before a `(` (an unknown name stays plain), and the bracket at `bracket`.
pub fn highlight_line(line: &str, bracket: Option<usize>, known: &dyn Fn(&str) -> bool) -> String {
    let mut out = String::with_capacity(line.len() * 2);
    let toks: Vec<Token> = tokens(line).collect();
    let mut stmt_start = true;
    for (k, t) in toks.iter().enumerate() {
        let text = t.text(line);
        let styled = match t.kind {
            _ if Some(t.start) == bracket => text.blue().bold().to_string(),
            TokenKind::RawStr { closed } => {
                let inner_end = if closed { text.len() - 3 } else { text.len() };
                let inner = &text[3.min(inner_end)..inner_end];
                let mut s = "\"\"\"".green().to_string();
                s.push_str(&passlab::present::highlight(inner));
                if closed {
                    s.push_str(&"\"\"\"".green().to_string());
                }
                s
            }
            TokenKind::Str { .. } => text.green().to_string(),
            TokenKind::Comment => text.bright_black().to_string(),
            TokenKind::Number => text.yellow().to_string(),
            TokenKind::Ident if stmt_start && is_command(text) => text.blue().bold().to_string(),
            TokenKind::Ident if matches!(text, "true" | "false" | "True" | "False" | "None") => {
                text.yellow().to_string()
            }
            TokenKind::Ident => {
                let next = toks[k + 1..].iter().find(|t| !t.is_trivia());
                let called = next.is_some_and(|n| n.kind == TokenKind::Open(b'('));
                if called && known(text) {
                    text.bold().to_string()
                } else {
                    text.to_string()
                }
            }
            _ => text.to_string(),
        };
        out.push_str(&styled);
        match t.kind {
            TokenKind::Newline | TokenKind::Open(b'{') => stmt_start = true,
            TokenKind::Punct if text == ";" => stmt_start = true,
            _ if t.is_trivia() => {}
            _ => stmt_start = false,
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Colour is forced on for these tests; the override is global, so they take turns.
    static COLOR: std::sync::Mutex<()> = std::sync::Mutex::new(());

    #[test]
    fn unknown_names_are_not_coloured_as_known_ones() {
        let _turn = COLOR.lock().unwrap_or_else(|e| e.into_inner());
        colored::control::set_override(true);
        let known = |n: &str| n == "FoldConstant";
        let line = highlight_line("x = FoldConstant()(Foldconstant())", None, &known);
        assert!(
            line.contains(&"FoldConstant".bold().to_string()),
            "{line:?}"
        );
        assert!(
            !line.contains(&"Foldconstant".bold().to_string()),
            "{line:?}"
        );
        assert!(line.contains("(Foldconstant("), "{line:?}");
        // A command only where a statement starts.
        let line = highlight_line("show passes; vars", None, &known);
        assert!(line.contains(&"show".blue().bold().to_string()), "{line:?}");
        assert!(line.contains(&"vars".blue().bold().to_string()), "{line:?}");
        assert!(
            !line.contains(&"passes".blue().bold().to_string()),
            "{line:?}"
        );
        colored::control::unset_override();
    }

    /// Highlighting only adds colour: without the escapes it is the line.
    #[test]
    fn highlighting_keeps_the_text() {
        let _turn = COLOR.lock().unwrap_or_else(|e| e.into_inner());
        colored::control::set_override(true);
        let escape = regex::Regex::new("\x1b\\[[0-9;]*m").unwrap();
        for line in [
            "m = parse(\"\"\"def @main() { 1 }\"\"\") # c",
            "x = \"open",
            "m = parse(\"\"\"def @main() {",
            "f(a[1], {\"k\": 2.5})",
            "π→Seq",
        ] {
            for bracket in [None, Some(1), Some(line.len())] {
                let h = highlight_line(line, bracket, &|_| true);
                let plain = escape.replace_all(&h, "");
                assert_eq!(plain, line);
            }
        }
        colored::control::unset_override();
    }
}
