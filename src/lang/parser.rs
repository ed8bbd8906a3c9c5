//! The command language parser (nom): statements separated by newlines or `;`, `#` comments,
//! `with expr { ... }` blocks, calls with keyword arguments, lists, maps, `"..."` and `"""..."""`
//! strings. Parsing has no effects; errors carry a span, what was expected, and a "did you
//! mean" for misspelt statement keywords. Nesting grows the stack on demand.

use super::ast::*;
use super::commands::{statement, Command, Form};
use crate::diagnostic::nom_error::{fail, fatal, Expected, PErr, R};
use crate::diagnostic::ParseError;
use crate::ir::Span;
use nom::bytes::complete::{tag, take_while, take_while1};
use nom::character::complete::digit1;
use std::cell::Cell;
use std::time::Duration;

/// How deeply expressions and blocks may nest: brackets, calls, indexing and `with` blocks
/// each count a level. Deeper input is an error at the place it goes too deep, so every
/// walk over a statement or a value stays within a small stack.
pub const MAX_NESTING: usize = 256;

/// Parses a whole input (a cell, a script, a REPL entry) into statements; `commands` is the
/// table of statement commands (the session's `COMMANDS`).
pub fn parse_program<H>(src: &str, commands: &[Command<H>]) -> Result<Vec<Stmt>, ParseError> {
    parse_program_range(src, 0..src.len(), commands)
}

/// Parses the statements in `text[range]`, with spans that are offsets into `text` (a
/// script's statement keeps its line and column without copying or padding the script).
/// A range that is out of bounds or not on character boundaries is an error.
pub fn parse_program_range<H>(
    text: &str,
    range: std::ops::Range<usize>,
    commands: &[Command<H>],
) -> Result<Vec<Stmt>, ParseError> {
    let Some(input) = text.get(range.clone()) else {
        return Err(ParseError {
            message: format!(
                "{}..{} is not a range of the {}-byte input",
                range.start,
                range.end,
                text.len()
            ),
            span: Span::new(0, 0),
            label: None,
        });
    };
    // Offsets are `src.len() - rest.len()`: with `src` ending where the input ends, they
    // count from the start of `text`.
    let src = &text[..range.end];
    let p = LangParser {
        src,
        depth: Cell::new(0),
        commands,
    };
    match p.program(input, None) {
        Ok((_, stmts)) => Ok(stmts),
        Err(nom::Err::Error(e)) | Err(nom::Err::Failure(e)) => Err(p.to_error(e)),
        Err(nom::Err::Incomplete(_)) => Err(ParseError {
            message: "unexpected end of input".into(),
            span: Span::new(src.len(), src.len()),
            label: None,
        }),
    }
}

struct LangParser<'s, 'c, H> {
    src: &'s str,
    /// The nesting level at the current position (see [`MAX_NESTING`]).
    depth: Cell<usize>,
    commands: &'c [Command<H>],
}

/// Skips spaces, tabs and comments (not newlines).
fn ws(i: &str) -> R<'_, ()> {
    let mut i = i.trim_start_matches([' ', '\t', '\r']);
    while i.starts_with('#') {
        i = i.find('\n').map(|n| &i[n..]).unwrap_or("");
        i = i.trim_start_matches([' ', '\t', '\r']);
    }
    Ok((i, ()))
}

/// Skips whitespace including newlines, and comments (inside brackets).
fn wsn(i: &str) -> R<'_, ()> {
    let mut i = i.trim_start();
    while i.starts_with('#') {
        i = i.find('\n').map(|n| &i[n..]).unwrap_or("");
        i = i.trim_start();
    }
    Ok((i, ()))
}

fn is_ident_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_'
}

fn is_ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

fn ident(i: &str) -> R<'_, &str> {
    match nom::combinator::recognize(nom::sequence::pair(
        take_while1::<_, _, PErr>(is_ident_start),
        take_while(is_ident_char),
    ))(i)
    {
        Ok(r) => Ok(r),
        Err(_) => fail(i, "a name"),
    }
}

/// How the command language names nom's error kinds in "expected ..." messages (the few
/// kinds its parser meets).
fn kind_text(kind: nom::error::ErrorKind) -> std::borrow::Cow<'static, str> {
    std::borrow::Cow::Borrowed(match kind {
        nom::error::ErrorKind::Digit => "a digit",
        nom::error::ErrorKind::Tag => "a keyword",
        nom::error::ErrorKind::TakeWhile1 => "a name",
        _ => "something else",
    })
}

fn punct<'a>(i: &'a str, s: &'static str, nl: bool) -> R<'a, &'a str> {
    let (i, _) = if nl { wsn(i)? } else { ws(i)? };
    match tag::<_, _, PErr>(s)(i) {
        Ok(r) => Ok(r),
        Err(_) => fail(i, Expected::Literal(s)),
    }
}

impl<'s, H> LangParser<'s, '_, H> {
    fn off(&self, i: &str) -> usize {
        self.src.len() - i.len()
    }

    fn span(&self, from: &str, to: &str) -> Span {
        Span::new(self.off(from), self.off(to))
    }

    fn to_error(&self, e: PErr<'_>) -> ParseError {
        let at = self.off(e.input);
        let found_len = token_len(e.input);
        if let Some(message) = e.message {
            return ParseError {
                message,
                span: Span::new(at, at + e.len.max(1).min(self.src.len().saturating_sub(at))),
                label: e.label,
            };
        }
        let what = e.expected_text(kind_text);
        let found = if e.input.trim_start_matches([' ', '\t']).is_empty() {
            "end of input".to_string()
        } else if e.input.starts_with('\n') {
            "end of line".to_string()
        } else {
            format!("`{}`", &e.input[..found_len])
        };
        ParseError {
            message: format!("expected {what}, found {found}"),
            span: Span::new(
                at,
                at + found_len.max(1).min(self.src.len().saturating_sub(at)),
            ),
            label: e.label.or(Some(format!("expected {what}"))),
        }
    }

    /// Statements until the end of input (`close` None) or the closing `}` of a block.
    fn program(&self, mut i: &'s str, close: Option<&'static str>) -> R<'s, Vec<Stmt>> {
        let mut out = Vec::new();
        loop {
            // Separators: newlines, `;`, comments.
            loop {
                let (r, _) = ws(i)?;
                if let Some(r) = r.strip_prefix('\n').or_else(|| r.strip_prefix(';')) {
                    i = r;
                } else {
                    i = r;
                    break;
                }
            }
            if i.is_empty() {
                if let Some(c) = close {
                    return fail(i, format!("`{c}` to close the block"));
                }
                return Ok((i, out));
            }
            if let Some(c) = close {
                if i.starts_with(c) {
                    return Ok((i, out));
                }
            }
            let (r, stmt) = self.stmt(i)?;
            out.push(stmt);
            let (r, _) = ws(r)?;
            let ended = r.is_empty()
                || r.starts_with('\n')
                || r.starts_with(';')
                || close.is_some_and(|c| r.starts_with(c));
            if !ended {
                let mut err = PErr::expected(r, "the end of the statement");
                err.label = self.keyword_hint(i);
                return Err(nom::Err::Failure(err));
            }
            i = r;
        }
    }

    /// "did you mean `show`?" when a statement starts with a near-miss of a keyword.
    fn keyword_hint(&self, stmt_start: &str) -> Option<String> {
        let (_, word) = ident(stmt_start).ok()?;
        if statement(self.commands, word).is_some() {
            return None;
        }
        let names = self.commands.iter().filter(|c| c.is_statement());
        crate::suggest::closest(word, names.map(|c| c.name)).map(|k| format!("did you mean `{k}`?"))
    }

    fn stmt(&self, i: &'s str) -> R<'s, Stmt> {
        let start = i;
        let (r, kind) = self.stmt_kind(i)?;
        Ok((
            r,
            Stmt {
                kind,
                span: self.span(start, r),
            },
        ))
    }

    fn stmt_kind(&self, i: &'s str) -> R<'s, StmtKind> {
        let start = i;
        if let Ok((r, word)) = ident(i) {
            let (after_ws, _) = ws(r)?;
            let assigning = after_ws.starts_with('=') && !after_ws.starts_with("==");
            let indexing = after_ws.starts_with('[') || after_ws.starts_with('(');
            if let Some(cmd) = statement(self.commands, word) {
                if assigning {
                    return fatal(
                        start,
                        word.len(),
                        format!("`{word}` is a command and cannot be assigned"),
                    );
                }
                if !(indexing && cmd.form == Form::BareOrValue) {
                    let (r, args) = self.command(cmd.form, r)?;
                    return Ok((
                        r,
                        StmtKind::Command {
                            name: cmd.name,
                            args,
                        },
                    ));
                }
            }
            if assigning {
                let name_span = self.span(start, r);
                let (r, _) = punct(r, "=", false)?;
                let (r, value) = self.expr(r)?;
                return Ok((
                    r,
                    StmtKind::Assign {
                        name: word.to_string(),
                        name_span,
                        value,
                    },
                ));
            }
        }
        let (r, e) = self.expr(i)?;
        Ok((r, StmtKind::Expr(e)))
    }

    /// A command's arguments, read by its form.
    fn command(&self, form: Form, r: &'s str) -> R<'s, CommandArgs> {
        match form {
            Form::Bare | Form::BareOrValue | Form::Topic => Ok((r, CommandArgs::None)),
            Form::Expr => {
                let (r, e) = self.expr(r)?;
                Ok((r, CommandArgs::Expr(e)))
            }
            Form::Block => {
                let (r, ctx) = self.expr(r)?;
                let (r, _) = punct(r, "{", false)?;
                let (r, body) = self.nested(r, || self.program(r, Some("}")))?;
                let (r, _) = punct(r, "}", true)?;
                Ok((r, CommandArgs::Block { ctx, body }))
            }
            Form::Diff => {
                let (r, a) = self.expr(r)?;
                let (r, b) = self.expr(r)?;
                let (r2, _) = ws(r)?;
                if let Some(g) = r2.strip_prefix('@') {
                    let (r3, name) = ident(g)?;
                    let func = Some(name.to_string());
                    return Ok((r3, CommandArgs::Diff { a, b, func }));
                }
                Ok((r, CommandArgs::Diff { a, b, func: None }))
            }
            Form::Name => {
                let (r2, _) = ws(r)?;
                if r2.is_empty() || r2.starts_with('\n') || r2.starts_with(';') {
                    return Ok((r2, CommandArgs::Name(None)));
                }
                let at = r2;
                let (r3, name) =
                    take_while1::<_, _, PErr>(|c: char| is_ident_char(c) || c == '.')(r2)
                        .or_else(|_| fail(r2, "a name to get help on"))?;
                Ok((
                    r3,
                    CommandArgs::Name(Some((name.to_string(), self.span(at, r3)))),
                ))
            }
            Form::Delete => {
                let (r2, _) = ws(r)?;
                if let Ok((r3, _)) = tag::<_, _, PErr>("all")(r2) {
                    return Ok((r3, CommandArgs::Delete(None)));
                }
                match digit1::<_, PErr>(r2) {
                    Ok((r3, d)) => match d.parse() {
                        Ok(n) => Ok((r3, CommandArgs::Delete(Some(n)))),
                        Err(_) => fatal(
                            r2,
                            d.len(),
                            format!("breakpoint number out of range (at most {})", usize::MAX),
                        ),
                    },
                    Err(_) => fail(r2, "a breakpoint number or `all`"),
                }
            }
            Form::Break => {
                let (r, spec) = self.break_spec(r)?;
                Ok((r, CommandArgs::Break(spec)))
            }
        }
    }

    fn break_spec(&self, r: &'s str) -> R<'s, BreakSpec> {
        let (r, _) = ws(r)?;
        let (r2, word) = ident(r).or_else(|_| {
            fail(
                r,
                "a pass name, `after`, `changed`, `verify`, `numerics` or `slower`",
            )
        })?;
        let name_after = |r: &'s str| -> R<'s, String> {
            let (r, _) = ws(r)?;
            let (r, n) = ident(r).or_else(|_| fail(r, "a pass name"))?;
            Ok((r, n.to_string()))
        };
        match word {
            "after" => {
                let (r, n) = name_after(r2)?;
                Ok((r, BreakSpec::After(n)))
            }
            "changed" => {
                let (r, _) = ws(r2)?;
                let Some(g) = r.strip_prefix('@') else {
                    return fail(r, "a function `@name`");
                };
                let (r, n) = ident(g)?;
                Ok((r, BreakSpec::Changed(n.to_string())))
            }
            "verify" => Ok((r2, BreakSpec::Verify)),
            "numerics" => Ok((r2, BreakSpec::Numerics)),
            "slower" => {
                let (r, _) = ws(r2)?;
                let at = r;
                let (r, int) =
                    digit1::<_, PErr>(r).or_else(|_| fail(r, "a duration such as `10ms`"))?;
                let (r, frac) = match r.strip_prefix('.').map(digit1::<_, PErr>) {
                    Some(Ok((r, frac))) => (r, frac),
                    _ => (r, ""),
                };
                let (r, unit) = take_while::<_, _, PErr>(is_ident_char)(r)?;
                let unit_ns: u128 = match unit {
                    "us" => 1_000,
                    "ms" | "" => 1_000_000,
                    "s" => 1_000_000_000,
                    _ => {
                        return fatal(
                            at,
                            at.len() - r.len(),
                            format!("unknown time unit `{unit}` (use us, ms or s)"),
                        )
                    }
                };
                match duration(int, frac, unit_ns) {
                    Some(d) => Ok((r, BreakSpec::Slower(d))),
                    None => fatal(
                        at,
                        at.len() - r.len(),
                        format!("duration out of range (at most {} s)", u64::MAX),
                    ),
                }
            }
            name => Ok((r2, BreakSpec::Before(name.to_string()))),
        }
    }

    // ----- expressions --------------------------------------------------------------------

    /// Runs `f` one nesting level deeper; past [`MAX_NESTING`] it is an error at `at`.
    fn nested<T>(&self, at: &'s str, f: impl FnOnce() -> R<'s, T>) -> R<'s, T> {
        self.deeper(at, 1)?;
        let r = stacker::maybe_grow(64 * 1024, 1024 * 1024, f);
        self.depth.set(self.depth.get() - 1);
        r
    }

    /// Goes `by` levels deeper, or fails at `at` when that is too deep.
    fn deeper(&self, at: &'s str, by: usize) -> R<'s, ()> {
        let d = self.depth.get() + by;
        if d > MAX_NESTING {
            return fatal(
                at,
                token_len(at).max(1),
                format!("nested too deeply (at most {MAX_NESTING} levels of brackets, calls, indexing and blocks)"),
            );
        }
        self.depth.set(d);
        Ok((at, ()))
    }

    fn expr(&self, i: &'s str) -> R<'s, Expr> {
        self.nested(i, || self.postfix(i))
    }

    /// A primary expression and its calls and indexing; each of those is a level deeper
    /// (the expression it applies to is inside it).
    fn postfix(&self, i: &'s str) -> R<'s, Expr> {
        let outer = self.depth.get();
        let r = self.postfix_chain(i);
        self.depth.set(outer);
        r
    }

    fn postfix_chain(&self, i: &'s str) -> R<'s, Expr> {
        let (i, _) = ws(i)?;
        let start = i;
        let (mut i, mut e) = self.primary(i)?;
        loop {
            let (r, _) = ws(i)?;
            if r.starts_with('(') || r.starts_with('[') {
                self.deeper(r, 1)?;
            }
            if r.starts_with('(') {
                let (r, args) = self.args(r)?;
                e = Expr {
                    kind: ExprKind::Call {
                        callee: Box::new(e),
                        args,
                    },
                    span: self.span(start, r),
                };
                i = r;
            } else if r.starts_with('[') {
                let (r, _) = punct(r, "[", false)?;
                let (r, _) = wsn(r)?;
                let (r, idx) = self.expr(r)?;
                let (r, _) = punct(r, "]", true)?;
                e = Expr {
                    kind: ExprKind::Index {
                        base: Box::new(e),
                        index: Box::new(idx),
                    },
                    span: self.span(start, r),
                };
                i = r;
            } else {
                return Ok((i, e));
            }
        }
    }

    fn args(&self, i: &'s str) -> R<'s, Vec<Arg>> {
        let (mut i, _) = punct(i, "(", false)?;
        let mut out = Vec::new();
        let mut any_named = false;
        loop {
            let (r, _) = wsn(i)?;
            if r.starts_with(')') {
                i = r;
                break;
            }
            let mut named = false;
            if let Ok((r2, n)) = ident(r) {
                let (r3, _) = wsn(r2)?;
                if r3.starts_with('=') && !r3.starts_with("==") {
                    let name = Some((n.to_string(), self.span(r, r2)));
                    let (r4, _) = wsn(&r3[1..])?;
                    let (r5, value) = self.expr(r4)?;
                    out.push(Arg { name, value });
                    i = r5;
                    named = true;
                    any_named = true;
                }
            }
            if !named {
                if any_named {
                    return fatal(
                        r,
                        token_len(r),
                        "a positional argument cannot follow keyword arguments",
                    );
                }
                let (r2, value) = self.expr(r)?;
                out.push(Arg { name: None, value });
                i = r2;
            }
            let (r, _) = wsn(i)?;
            if let Some(r) = r.strip_prefix(',') {
                i = r;
            } else {
                i = r;
                break;
            }
        }
        let (i, _) = punct(i, ")", true)?;
        Ok((i, out))
    }

    fn primary(&self, i: &'s str) -> R<'s, Expr> {
        let start = i;
        let mk = |kind: ExprKind, r: &'s str| Expr {
            kind,
            span: self.span(start, r),
        };
        let c = i.chars().next().unwrap_or('\0');
        match c {
            '"' if i.starts_with("\"\"\"") => match i[3..].find("\"\"\"") {
                Some(end) => {
                    let r = &i[3 + end + 3..];
                    Ok((r, mk(ExprKind::Str(i[3..3 + end].to_string()), r)))
                }
                None => fatal(i, 3, "unterminated `\"\"\"` string"),
            },
            '"' => {
                let mut out = String::new();
                let mut chars = i[1..].char_indices();
                while let Some((k, ch)) = chars.next() {
                    match ch {
                        '"' => {
                            let r = &i[1 + k + 1..];
                            return Ok((r, mk(ExprKind::Str(out), r)));
                        }
                        '\\' => match chars.next() {
                            Some((_, 'n')) => out.push('\n'),
                            Some((_, 't')) => out.push('\t'),
                            Some((_, c)) => out.push(c),
                            None => break,
                        },
                        '\n' => break,
                        c => out.push(c),
                    }
                }
                fatal(i, 1, "unterminated string")
            }
            '[' => {
                let (mut r, _) = punct(i, "[", false)?;
                let mut items = Vec::new();
                loop {
                    let (r2, _) = wsn(r)?;
                    if r2.starts_with(']') {
                        r = r2;
                        break;
                    }
                    let (r3, e) = self.expr(r2)?;
                    items.push(e);
                    let (r4, _) = wsn(r3)?;
                    if let Some(r5) = r4.strip_prefix(',') {
                        r = r5;
                    } else {
                        r = r4;
                        break;
                    }
                }
                let (r, _) = punct(r, "]", true)?;
                Ok((r, mk(ExprKind::List(items), r)))
            }
            '{' => {
                let (mut r, _) = punct(i, "{", false)?;
                let mut items = Vec::new();
                loop {
                    let (r2, _) = wsn(r)?;
                    if r2.starts_with('}') {
                        r = r2;
                        break;
                    }
                    let (r3, k) = self.expr(r2)?;
                    let (r3, _) = punct(r3, ":", true)?;
                    let (r3, _) = wsn(r3)?;
                    let (r3, v) = self.expr(r3)?;
                    items.push((k, v));
                    let (r4, _) = wsn(r3)?;
                    if let Some(r5) = r4.strip_prefix(',') {
                        r = r5;
                    } else {
                        r = r4;
                        break;
                    }
                }
                let (r, _) = punct(r, "}", true)?;
                Ok((r, mk(ExprKind::Map(items), r)))
            }
            '(' => {
                let (r, _) = punct(i, "(", false)?;
                let (r, _) = wsn(r)?;
                let (r, e) = self.expr(r)?;
                let (r, _) = punct(r, ")", true)?;
                Ok((
                    r,
                    Expr {
                        kind: e.kind,
                        span: self.span(start, r),
                    },
                ))
            }
            '@' => {
                let (r, name) = ident(&i[1..]).or_else(|_| fail(i, "a function name after `@`"))?;
                Ok((r, mk(ExprKind::Global(name.to_string()), r)))
            }
            c if c.is_ascii_digit() || c == '-' => self.number(i),
            c if is_ident_start(c) => {
                let (r, word) = ident(i)?;
                let kind = match word {
                    "true" | "True" => ExprKind::Bool(true),
                    "false" | "False" => ExprKind::Bool(false),
                    "None" => ExprKind::None,
                    w => ExprKind::Ident(w.to_string()),
                };
                Ok((r, mk(kind, r)))
            }
            _ => fail(i, "an expression"),
        }
    }

    fn number(&self, i: &'s str) -> R<'s, Expr> {
        let start = i;
        let body = i.strip_prefix('-').unwrap_or(i);
        let (mut r, _) = digit1::<_, PErr>(body).or_else(|_| fail(i, "a number"))?;
        let mut float = false;
        if let Some(r2) = r.strip_prefix('.') {
            if let Ok((r3, _)) = digit1::<_, PErr>(r2) {
                r = r3;
                float = true;
            }
        }
        if let Some(r2) = r.strip_prefix(['e', 'E']) {
            let r2 = r2.strip_prefix(['+', '-']).unwrap_or(r2);
            if let Ok((r3, _)) = digit1::<_, PErr>(r2) {
                r = r3;
                float = true;
            }
        }
        if r.starts_with(is_ident_char) {
            return fatal(start, start.len() - r.len() + 1, "malformed number");
        }
        let text = &start[..start.len() - r.len()];
        let kind = if float {
            let v: f64 = text.parse().unwrap_or(f64::NAN);
            let mantissa = text.split(['e', 'E']).next().unwrap_or(text);
            if v.is_infinite() {
                return fatal(
                    start,
                    text.len(),
                    format!(
                        "number out of range (floats are at most {:e} in magnitude)",
                        f64::MAX
                    ),
                );
            }
            if v == 0.0 && mantissa.contains(|c: char| ('1'..='9').contains(&c)) {
                return fatal(
                    start,
                    text.len(),
                    "number too small: it would round to 0 (the smallest float is about 5e-324)",
                );
            }
            ExprKind::Float(v)
        } else {
            match text.parse() {
                Ok(v) => ExprKind::Int(v),
                Err(_) => {
                    return fatal(
                        start,
                        text.len(),
                        format!("integer out of range ({} to {})", i64::MIN, i64::MAX),
                    )
                }
            }
        };
        Ok((
            r,
            Expr {
                kind,
                span: self.span(start, r),
            },
        ))
    }
}

/// `int.frac` in units of `unit_ns` nanoseconds, rounded to the nanosecond; `None` when it
/// does not fit a [`Duration`].
fn duration(int: &str, frac: &str, unit_ns: u128) -> Option<Duration> {
    let whole: u128 = int.parse().ok()?;
    let mut nanos = whole.checked_mul(unit_ns)?;
    // Digits past the twelfth are below a thousandth of a nanosecond in every unit.
    let frac = &frac[..frac.len().min(12)];
    if !frac.is_empty() {
        let scale = 10u128.pow(frac.len() as u32);
        let part: u128 = frac.parse().ok()?;
        nanos = nanos.checked_add((part * unit_ns + scale / 2) / scale)?;
    }
    let secs = u64::try_from(nanos / 1_000_000_000).ok()?;
    Some(Duration::new(secs, (nanos % 1_000_000_000) as u32))
}

fn token_len(i: &str) -> usize {
    let Some(c) = i.chars().next() else { return 0 };
    if c == '\n' {
        return 1;
    }
    if is_ident_char(c) {
        i.find(|c: char| !is_ident_char(c)).unwrap_or(i.len())
    } else {
        c.len_utf8()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A command table for the parser alone (the session's has handlers and help).
    const fn cmd(name: &'static str, form: Form) -> Command<()> {
        Command {
            name,
            syntax: "",
            summary: "",
            help: "",
            form,
            run: (),
        }
    }

    static TABLE: &[Command<()>] = &[
        cmd("show", Form::Expr),
        cmd("exit", Form::Bare),
        cmd("with", Form::Block),
        cmd("timing", Form::Bare),
        cmd("diff", Form::Diff),
        cmd("help", Form::Name),
        cmd("break", Form::Break),
        cmd("delete", Form::Delete),
        cmd("history", Form::BareOrValue),
        cmd("ir", Form::Topic),
    ];

    fn parse_program(src: &str) -> Result<Vec<Stmt>, ParseError> {
        super::parse_program(src, TABLE)
    }

    fn kinds(src: &str) -> Vec<StmtKind> {
        parse_program(src)
            .unwrap()
            .into_iter()
            .map(|s| s.kind)
            .collect()
    }

    fn args(src: &str) -> CommandArgs {
        match kinds(src).remove(0) {
            StmtKind::Command { args, .. } => args,
            other => panic!("{other:?}"),
        }
    }

    fn spec(src: &str) -> BreakSpec {
        match args(src) {
            CommandArgs::Break(spec) => spec,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn statements() {
        let k = kinds("m = load(\"a.relay\")\nshow m; exit\n# comment\nwith PassContext(opt_level=3) {\n  m2 = seq(m)\n}\n");
        assert_eq!(k.len(), 4);
        assert!(matches!(&k[0], StmtKind::Assign { name, .. } if name == "m"));
        assert!(matches!(
            &k[1],
            StmtKind::Command {
                name: "show",
                args: CommandArgs::Expr(_)
            }
        ));
        assert_eq!(
            k[2],
            StmtKind::Command {
                name: "exit",
                args: CommandArgs::None
            }
        );
        match &k[3] {
            StmtKind::Command {
                args: CommandArgs::Block { body, .. },
                ..
            } => assert_eq!(body.len(), 1),
            other => panic!("{other:?}"),
        }
        assert!(
            matches!(spec("break after FoldConstant"), BreakSpec::After(n) if n == "FoldConstant")
        );
        assert_eq!(
            spec("break slower 10ms"),
            BreakSpec::Slower(Duration::from_millis(10))
        );
        // `ir` has help but is not a command: it is a name.
        assert!(matches!(&kinds("ir")[0], StmtKind::Expr(_)));
        assert!(matches!(&kinds("ir = 1")[0], StmtKind::Assign { .. }));
        assert!(matches!(
            &kinds("x = history[2]")[0],
            StmtKind::Assign { .. }
        ));
        assert!(
            matches!(args("diff a b @main"), CommandArgs::Diff { func: Some(f), .. } if f == "main")
        );
        assert!(matches!(
            &kinds("PassContext(config={\"a\": 1,\n \"b\": [1, 2]})")[0],
            StmtKind::Expr(_)
        ));
    }

    #[test]
    fn errors_point_and_suggest() {
        let e = parse_program("shwo m").unwrap_err();
        assert_eq!(e.label.as_deref(), Some("did you mean `show`?"));
        assert_eq!(e.span.lo, 5);
        let e = parse_program("x = f(1,").unwrap_err();
        assert!(e.message.contains("expected"), "{}", e.message);
        let e = parse_program("timing = 1").unwrap_err();
        assert!(e.message.contains("is a command"));
        let e = parse_program("f(a=1, 2)").unwrap_err();
        assert!(e.message.contains("positional"));
    }

    /// Out-of-range numbers are errors at the number, saying the range; nothing saturates.
    #[test]
    fn numbers_out_of_range_are_errors() {
        let err = |src: &str| parse_program(src).unwrap_err();
        let e = err("x = 9223372036854775808");
        assert_eq!(
            e.message,
            "integer out of range (-9223372036854775808 to 9223372036854775807)"
        );
        assert_eq!((e.span.lo, e.span.hi), (4, 23));
        assert!(matches!(
            kinds("x = -9223372036854775808")[0],
            StmtKind::Assign {
                value: Expr {
                    kind: ExprKind::Int(i64::MIN),
                    ..
                },
                ..
            }
        ));
        assert!(err("x = 1e999").message.contains("out of range"));
        assert!(err("x = -1e400").message.contains("out of range"));
        assert!(err("x = 1e-400").message.contains("would round to 0"));
        assert!(matches!(
            kinds("x = 0e-999")[0],
            StmtKind::Assign { value: Expr { kind: ExprKind::Float(f), .. }, .. } if f == 0.0
        ));
        let e = err("delete 18446744073709551616");
        assert!(
            e.message.contains("breakpoint number out of range"),
            "{}",
            e.message
        );
        assert_eq!(e.span.lo, 7);
    }

    #[test]
    fn durations_are_exact_and_checked() {
        let slower = |src: &str| match spec(src) {
            BreakSpec::Slower(d) => d,
            other => panic!("{other:?}"),
        };
        assert_eq!(slower("break slower 1.5s"), Duration::from_millis(1500));
        assert_eq!(slower("break slower 0.1ms"), Duration::from_micros(100));
        assert_eq!(slower("break slower 250us"), Duration::from_micros(250));
        assert_eq!(slower("break slower 7"), Duration::from_millis(7));
        assert_eq!(
            slower("break slower 18446744073709551615s"),
            Duration::new(u64::MAX, 0)
        );
        for src in [
            "break slower 18446744073709551616s",
            "break slower 99999999999999999999999999999999999999999ms",
        ] {
            let e = parse_program(src).unwrap_err();
            assert!(
                e.message.starts_with("duration out of range"),
                "{src}: {}",
                e.message
            );
            assert_eq!(e.span.lo, 13, "{src}");
        }
        let e = parse_program("break slower 1.2.3ms").unwrap_err();
        assert!(
            e.message.contains("expected the end of the statement"),
            "{}",
            e.message
        );
        let e = parse_program("break slower 1e400s").unwrap_err();
        assert_eq!(e.message, "unknown time unit `e400s` (use us, ms or s)");
        assert!(parse_program("break slower .5s").is_err());
    }

    /// Nesting past MAX_NESTING is an error where it goes too deep, however deep the input.
    #[test]
    fn nesting_is_bounded() {
        let ok = format!("x = {}{}", "[".repeat(200), "]".repeat(200));
        assert!(parse_program(&ok).is_ok());
        let n = 100_000;
        for src in [
            format!("x = {}", "[".repeat(n)),
            format!("x = {}1{}", "(".repeat(n), ")".repeat(n)),
            format!("x = {}{}", "f(".repeat(n), ")".repeat(n)),
            format!("x = a{}", "[1]".repeat(n)),
            format!("x = f{}", "()".repeat(n)),
            format!("{}{}", "with c {\n".repeat(n), "}".repeat(n)),
        ] {
            let e = parse_program(&src).unwrap_err();
            assert!(e.message.starts_with("nested too deeply"), "{}", e.message);
            assert!((e.span.lo as usize) < 10 * MAX_NESTING, "{}", e.span.lo);
        }
    }
}
