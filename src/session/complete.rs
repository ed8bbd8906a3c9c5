//! Completion and inspection for the front ends (REPL Tab, Jupyter `complete_request` and
//! `inspect_request`): the session knows the language, its registries and its variables. The
//! text before the cursor is read through the language's lexer: which bracket the cursor is in,
//! which statement, whether it is inside a string.

use super::builtins::{BuiltinKind, BUILTINS};
use super::commands::{self, COMMANDS};
use super::{Session, Value};
use crate::ir::Module;
use crate::lang::lexer::{tokens, Token, TokenKind};

/// Completion candidates for the text `line` with the cursor at byte `cursor`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Completion {
    /// Byte range of `line` the candidates replace.
    pub start: usize,
    pub end: usize,
    pub candidates: Vec<String>,
}

/// `cursor` clamped to `line` and moved back to a character boundary.
fn clamp_cursor(line: &str, cursor: usize) -> usize {
    let mut c = cursor.min(line.len());
    while !line.is_char_boundary(c) {
        c -= 1;
    }
    c
}

/// The text before the cursor, as tokens: the brackets still open and where the statement
/// being typed starts.
struct Place<'a> {
    text: &'a str,
    toks: Vec<Token>,
    /// Indices in `toks` of the open brackets, innermost last.
    open: Vec<usize>,
    /// Index in `toks` of the current statement's first token.
    stmt_start: usize,
}

impl<'a> Place<'a> {
    fn new(text: &'a str) -> Place<'a> {
        let toks: Vec<Token> = tokens(text).collect();
        let mut open = Vec::new();
        // For each open `with` block: its `{` and the statement start outside it.
        let mut blocks: Vec<(usize, usize)> = Vec::new();
        let mut stmt_start = 0;
        for (k, t) in toks.iter().enumerate() {
            match t.kind {
                TokenKind::Open(c) => {
                    open.push(k);
                    let first = toks[stmt_start..k].iter().find(|t| !t.is_trivia());
                    if c == b'{' && first.is_some_and(|f| f.text(text) == "with") {
                        blocks.push((k, stmt_start));
                        stmt_start = k + 1;
                    }
                }
                TokenKind::Close(_) => {
                    if let Some(o) = open.pop() {
                        if blocks.last().is_some_and(|&(b, _)| b == o) {
                            stmt_start = blocks.pop().map_or(0, |(_, s)| s);
                        }
                    }
                }
                TokenKind::Newline | TokenKind::Punct
                    if (t.kind == TokenKind::Newline || t.text(text) == ";")
                        && open
                            .last()
                            .is_none_or(|&o| blocks.last().is_some_and(|&(b, _)| b == o)) =>
                {
                    stmt_start = k + 1;
                }
                _ => {}
            }
        }
        Place {
            text,
            toks,
            open,
            stmt_start,
        }
    }

    fn str(&self, k: usize) -> &'a str {
        self.toks[k].text(self.text)
    }

    /// The significant token before index `k`, if any.
    fn before(&self, k: usize) -> Option<usize> {
        (0..k).rev().find(|&j| !self.toks[j].is_trivia())
    }

    /// The innermost open bracket (its character) and the significant tokens before it.
    fn innermost(&self) -> Option<(u8, Option<usize>)> {
        let &o = self.open.last()?;
        let TokenKind::Open(c) = self.toks[o].kind else {
            return None;
        };
        Some((c, self.before(o)))
    }

    /// The name called by the innermost bracket when it is a call's `(`: `PassContext(opt_le|`.
    fn enclosing_call(&self) -> Option<&'a str> {
        match self.innermost()? {
            (b'(', Some(k)) if self.toks[k].kind == TokenKind::Ident => Some(self.str(k)),
            _ => None,
        }
    }

    /// Inside a list of instruments: `instruments=[` or `override_instruments([`.
    fn in_instrument_list(&self) -> bool {
        let Some((b'[', Some(k))) = self.innermost() else {
            return false;
        };
        let before = self.before(k);
        match (self.str(k), before) {
            ("=", Some(j)) => self.str(j) == "instruments",
            ("(", Some(j)) => self.str(j) == "override_instruments",
            _ => false,
        }
    }

    /// The statement's significant tokens before index `end`.
    fn statement_head(&self, end: usize) -> Vec<usize> {
        (self.stmt_start..end)
            .filter(|&k| !self.toks[k].is_trivia())
            .collect()
    }
}

impl Session {
    /// Everything that can be completed at `cursor` in `line`.
    pub fn complete(&self, line: &str, cursor: usize) -> Completion {
        let cursor = clamp_cursor(line, cursor);
        let place = Place::new(&line[..cursor]);
        let last = place.toks.last().copied();
        // Inside a string: config keys inside config={...}, a module's function names inside
        // m["...", file paths for load/save/DumpIR.
        if let Some(t) = last.filter(|t| {
            matches!(
                t.kind,
                TokenKind::Str { closed: false } | TokenKind::RawStr { closed: false }
            )
        }) {
            let quote = if matches!(t.kind, TokenKind::RawStr { .. }) {
                3
            } else {
                1
            };
            let start = (t.start + quote).min(cursor);
            let prefix = &line[start..cursor];
            let candidates = if quote == 3 {
                Vec::new()
            } else {
                self.complete_in_string(&place, prefix)
            };
            return Completion {
                start,
                end: cursor,
                candidates,
            };
        }
        let (word_at, start) = match last {
            Some(t) if matches!(t.kind, TokenKind::Ident | TokenKind::Number) => {
                (place.toks.len() - 1, t.start)
            }
            _ => (place.toks.len(), cursor),
        };
        let prefix = &line[start..cursor];
        let head = place.statement_head(word_at);
        let candidates = match self.complete_command_argument(&place, &head, word_at) {
            Some(mut v) => {
                v.retain(|c| c.starts_with(prefix));
                v.sort();
                v.dedup();
                v
            }
            None => self.complete_expression(&place, head.is_empty(), prefix),
        };
        Completion {
            start,
            end: cursor,
            candidates,
        }
    }

    /// Candidates for the string the cursor is in.
    fn complete_in_string(&self, place: &Place<'_>, prefix: &str) -> Vec<String> {
        let mut out: Vec<String> = match place.innermost() {
            // config={"...
            Some((b'{', Some(k))) if place.str(k) == "=" => {
                let key = place.before(k).map(|j| place.str(j));
                if key != Some("config") {
                    return Vec::new();
                }
                crate::pass::config::config_keys()
                    .iter()
                    .map(|k| k.name.to_string())
                    .collect()
            }
            // m["...
            Some((b'[', Some(k))) if place.toks[k].kind == TokenKind::Ident => self
                .module_named(place.str(k))
                .map(|m| function_names(&m))
                .unwrap_or_default(),
            // load("...
            Some((b'(', Some(k))) if matches!(place.str(k), "load" | "save" | "DumpIR") => {
                return self.complete_path(prefix)
            }
            _ => Vec::new(),
        };
        out.retain(|c| c.starts_with(prefix));
        out.sort();
        out.dedup();
        out
    }

    /// The module a name stands for: a module variable, or `ir` while a run is paused.
    fn module_named(&self, name: &str) -> Option<Module> {
        match self.vars.get(name) {
            Some(Value::Module(m)) => Some(m.clone()),
            None if name == "ir" => self.paused_module(),
            _ => None,
        }
    }

    /// Every module the session holds (variables, the paused one).
    fn modules(&self) -> Vec<Module> {
        self.vars
            .values()
            .filter_map(|v| match v {
                Value::Module(m) => Some(m.clone()),
                _ => None,
            })
            .chain(self.paused_module())
            .collect()
    }

    /// The arguments of the commands whose words are not expressions: after `help` the names
    /// it knows (no `(`: help names a thing, it does not call it); after `break` its forms and
    /// pass names, after `break after` pass names, after `break changed @` function names;
    /// after `delete` the breakpoint numbers and `all`; after `diff a b @` the functions of
    /// `a` and `b`. `None` where the statement is not in such a place.
    fn complete_command_argument(
        &self,
        place: &Place<'_>,
        head: &[usize],
        word_at: usize,
    ) -> Option<Vec<String>> {
        let (&first, rest) = head.split_first()?;
        let cmd = place.str(first);
        if !commands::is_command(cmd) || !place.open.iter().all(|&o| o < place.stmt_start) {
            return None;
        }
        let words: Vec<&str> = rest.iter().map(|&k| place.str(k)).collect();
        // `@` right before the word (or the cursor).
        let at = rest.last().is_some_and(|&k| {
            place.str(k) == "@"
                && place.toks[k].end
                    == place
                        .toks
                        .get(word_at)
                        .map_or(place.text.len(), |t| t.start)
        });
        Some(match (cmd, words.as_slice()) {
            ("help", []) => self.help_topics(),
            ("break", []) => {
                let mut v: Vec<String> = ["after", "changed", "verify", "numerics", "slower"]
                    .map(String::from)
                    .to_vec();
                v.extend(self.known_pass_names());
                v
            }
            ("break", ["after"]) => self.known_pass_names(),
            ("break", ["changed"]) => self
                .modules()
                .iter()
                .flat_map(function_names)
                .map(|f| format!("@{f}"))
                .collect(),
            ("break", ["changed", "@"]) if at => {
                self.modules().iter().flat_map(function_names).collect()
            }
            ("delete", []) => {
                let mut v = vec!["all".to_string()];
                let bps = crate::pass::sink::lock(&self.debug.breakpoints);
                v.extend(bps.list().iter().map(|b| b.id.to_string()));
                v
            }
            ("diff", [.., "@"]) if at => {
                let named: Vec<Module> =
                    words.iter().filter_map(|w| self.module_named(w)).collect();
                let modules = if named.is_empty() {
                    self.modules()
                } else {
                    named
                };
                modules.iter().flat_map(function_names).collect()
            }
            ("timing", []) => vec!["flat".to_string()],
            ("help" | "break" | "delete" | "timing", _) => Vec::new(),
            _ => return None,
        })
    }

    /// Names in an expression: keyword arguments of the enclosing call first, then (at the
    /// start of a statement) commands, builtins, passes and variables; only instruments inside
    /// a list of instruments.
    fn complete_expression(
        &self,
        place: &Place<'_>,
        at_statement_start: bool,
        prefix: &str,
    ) -> Vec<String> {
        let keep = |c: &String| c.starts_with(prefix);
        if place.in_instrument_list() {
            let mut out: Vec<String> = BUILTINS
                .iter()
                .filter(|b| b.kind == BuiltinKind::Instrument)
                .map(|b| format!("{}(", b.name))
                .chain(
                    self.vars
                        .iter()
                        .filter(|(_, v)| matches!(v, Value::Instrument(_)))
                        .map(|(k, _)| k.clone()),
                )
                .filter(keep)
                .collect();
            out.sort();
            return out;
        }
        let mut kwargs: Vec<String> = match place.enclosing_call() {
            Some(call) => self
                .keyword_params(call)
                .into_iter()
                .map(|p| format!("{p}="))
                .filter(keep)
                .collect(),
            None => Vec::new(),
        };
        let mut out: Vec<String> = Vec::new();
        if at_statement_start {
            out.extend(
                COMMANDS
                    .iter()
                    .filter(|c| c.is_statement())
                    .map(|c| c.name.to_string()),
            );
        }
        out.extend(BUILTINS.iter().map(|b| format!("{}(", b.name)));
        out.extend(
            self.pm
                .registry()
                .entries()
                .iter()
                .map(|r| format!("{}(", r.name)),
        );
        out.extend(self.vars.keys().cloned());
        // The debugger's names: the paused module, the last run's steps.
        if self.paused().is_some() {
            out.push("ir".into());
        }
        if self.debug.history.is_some() && !at_statement_start {
            out.push("history[".into());
        }
        out.retain(keep);
        out.sort();
        out.dedup();
        kwargs.sort();
        kwargs.dedup();
        kwargs.extend(out);
        kwargs
    }

    /// What `help NAME` knows: commands, builtins, passes and variables.
    fn help_topics(&self) -> Vec<String> {
        let mut v: Vec<String> = COMMANDS.iter().map(|c| c.name.to_string()).collect();
        v.extend(BUILTINS.iter().map(|b| b.name.to_string()));
        v.extend(
            self.pm
                .registry()
                .entries()
                .iter()
                .map(|r| r.name.to_string()),
        );
        v.extend(self.vars.keys().cloned());
        v
    }

    /// Whether `name` is something a call or a statement can name: a command, builtin, pass
    /// or variable (the REPL highlights those and leaves unknown names plain).
    pub fn is_known_name(&self, name: &str) -> bool {
        commands::is_command(name)
            || super::builtins::find(name).is_some()
            || self.pm.registry().get(name).is_some()
            || self.vars.contains_key(name)
    }

    /// The keyword arguments of a builtin or a registered pass.
    pub fn keyword_params(&self, call: &str) -> Vec<String> {
        if let Some(b) = super::builtins::find(call) {
            return b.params.iter().map(|p| p.to_string()).collect();
        }
        if let Some(r) = self.pm.registry().get(call) {
            return r.options.iter().map(|o| o.name.to_string()).collect();
        }
        Vec::new()
    }

    fn complete_path(&self, prefix: &str) -> Vec<String> {
        let (dir_part, file_part) = match prefix.rfind('/') {
            Some(i) => (&prefix[..=i], &prefix[i + 1..]),
            None => ("", prefix),
        };
        let dir = if dir_part.is_empty() {
            self.base_dir.clone()
        } else if std::path::Path::new(dir_part).is_absolute() {
            dir_part.into()
        } else {
            self.base_dir.join(dir_part)
        };
        let mut out = Vec::new();
        if let Ok(rd) = std::fs::read_dir(dir) {
            for e in rd.flatten() {
                let name = e.file_name().to_string_lossy().into_owned();
                if name.starts_with(file_part) && !name.starts_with('.') {
                    let suffix = if e.path().is_dir() { "/" } else { "" };
                    out.push(format!("{dir_part}{name}{suffix}"));
                }
            }
        }
        out.sort();
        out
    }

    /// Help for the name under the cursor (a pass, builtin, command or variable), or for the
    /// call the cursor is in; a command's long help with its example.
    pub fn inspect(&self, line: &str, cursor: usize) -> Option<String> {
        let cursor = clamp_cursor(line, cursor);
        let tok = tokens(line)
            .find(|t| t.kind == TokenKind::Ident && t.start <= cursor && cursor <= t.end);
        // A keyword argument (`FoldConstant(fold_qnn=`): that option of the call.
        if let Some(t) = &tok {
            let after = &line[t.end..];
            if after.starts_with('=') && !after.starts_with("==") {
                let doc = Place::new(&line[..t.start])
                    .enclosing_call()
                    .and_then(|c| self.option_help(c, t.text(line)));
                if doc.is_some() {
                    return doc;
                }
            }
        }
        let word = match tok.map(|t| t.text(line)) {
            Some(w) => w,
            None => Place::new(&line[..cursor]).enclosing_call()?,
        };
        let text = self.help_text(word)?;
        Some(match commands::find(word) {
            Some(c) => format!("{text}\n\n{}", c.help),
            None => text,
        })
    }

    /// The help of keyword argument `arg` of `call` (a registered pass's option, or a
    /// builtin's parameter with the builtin's signature).
    fn option_help(&self, call: &str, arg: &str) -> Option<String> {
        if let Some(r) = self.pm.registry().get(call) {
            let o = r.options.iter().find(|o| o.name == arg)?;
            return Some(format!("{call}({arg}=...): {} — {}", o.ty, o.doc));
        }
        let b = super::builtins::find(call)?;
        b.params.contains(&arg).then(|| {
            format!(
                "{call}({arg}=...), a parameter of\n{}\n  {}",
                b.signature, b.summary
            )
        })
    }

    /// The text `help NAME` shows, if NAME is known.
    pub fn help_text(&self, name: &str) -> Option<String> {
        if let Some(b) = super::builtins::find(name) {
            let mut s = format!("{}\n  {}", b.signature, b.summary);
            if b.name == "evaluate" {
                s.push_str("\n  ops with an evaluator (FoldConstant folds with the same kernels):");
                let mut line = String::new();
                for op in crate::eval::ops::kernels() {
                    if line.len() + op.len() > 86 {
                        s.push_str(&format!("\n    {}", line.trim_end()));
                        line.clear();
                    }
                    line.push_str(op);
                    line.push_str(", ");
                }
                s.push_str(&format!("\n    {}", line.trim_end_matches(", ")));
            }
            return Some(s);
        }
        if let Some(r) = self.pm.registry().get(name) {
            let mut s = format!(
                "{} — {} pass, opt_level {}\n  {}",
                r.name,
                r.kind.as_str(),
                r.opt_level,
                r.summary
            );
            if !r.required.is_empty() {
                let req: Vec<&str> = r.required.iter().map(|x| &**x).collect();
                s.push_str(&format!("\n  requires: {}", req.join(", ")));
            }
            for o in r.options {
                s.push_str(&format!("\n  option {}: {} — {}", o.name, o.ty, o.doc));
            }
            s.push_str(&format!("\n  example: {}", pass_example(r)));
            return Some(s);
        }
        if let Some(c) = commands::find(name) {
            let mut s = format!("{}\n  {}", c.syntax, c.summary);
            // The example may take several lines, indented in the table by nine spaces.
            if let Some(example) = c.help.split("Example: ").nth(1) {
                for (k, line) in example.lines().enumerate() {
                    let line = line.strip_prefix("         ").unwrap_or(line.trim_start());
                    let lead = if k == 0 { "example: " } else { "         " };
                    s.push_str(&format!("\n  {lead}{line}"));
                }
            }
            return Some(s);
        }
        self.vars
            .get(name)
            .map(|v| format!("{name}: {} = {}", v.kind(), v.repr()))
    }
}

/// A statement applying the registered pass `r` to a module `m`: with its first option that has
/// a value valid for any pass (a flag or a number), under a context whose opt_level lets it run.
fn pass_example(r: &crate::pass::registry::Registered) -> String {
    use crate::pass::ConfigType;
    let option = r.options.iter().find_map(|o| match o.ty {
        ConfigType::Bool => Some(format!("{}=true", o.name)),
        ConfigType::Int => Some(format!("{}=2", o.name)),
        ConfigType::Choice(c) => c.first().map(|v| format!("{}=\"{v}\"", o.name)),
        _ => None,
    });
    let apply = format!("m2 = {}({})(m)", r.name, option.unwrap_or_default());
    if r.opt_level > crate::pass::PassContext::default().opt_level() {
        format!("with PassContext(opt_level={}) {{ {apply} }}", r.opt_level)
    } else {
        apply
    }
}

/// The names of a module's functions (without `@`).
fn function_names(m: &Module) -> Vec<String> {
    m.functions().map(|(g, _)| g.name().to_string()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `help NAME` ends with an example for every pass and every command that has one, and
    /// each example parses; a pass's example runs on a small typed module.
    #[test]
    fn help_gives_an_example_that_parses_and_runs() {
        let mut s = Session::new();
        s.execute("m = InferType()(parse(\"def @main(%x: float32) { add(%x, 0f) }\"))");
        let names: Vec<String> =
            s.pm.registry()
                .entries()
                .iter()
                .map(|r| r.name.to_string())
                .collect();
        for name in names {
            let help = s.help_text(&name).unwrap();
            let example = help.lines().last().unwrap().strip_prefix("  example: ");
            let example = example.unwrap_or_else(|| panic!("no example: {help}"));
            crate::lang::parse_program(example, COMMANDS)
                .unwrap_or_else(|e| panic!("{name}: {example}: {}", e.message));
            // Passes whose options have no example value may need one to run (ConvertLayout's
            // desired_layouts); the others run.
            if name != "ConvertLayout" {
                let out = s.execute(example);
                assert!(!out.is_error(), "{name}: {example}: {}", out.plain());
            }
        }
        for c in COMMANDS.iter().filter(|c| c.help.contains("Example: ")) {
            let help = s.help_text(c.name).unwrap();
            let at = help
                .find("\n  example: ")
                .unwrap_or_else(|| panic!("{help}"));
            let example: Vec<&str> = help[at + 1..].lines().map(|l| &l[11..]).collect();
            crate::lang::parse_program(&example.join("\n"), COMMANDS)
                .unwrap_or_else(|e| panic!("{}: {example:?}: {}", c.name, e.message));
        }
    }

    /// Words after characters of several bytes, and cursors inside a character.
    #[test]
    fn any_text_and_cursor_is_answered() {
        let s = Session::new();
        let c = s.complete("π→Seq", "π→Seq".len());
        assert_eq!(c.start, "π→".len());
        assert!(c.candidates.contains(&"Sequential(".to_string()), "{c:?}");
        let c = s.complete("é(opt", "é(opt".len());
        assert_eq!(c.start, "é(".len());
        assert!(s.inspect("𐓪Sequential", 5).unwrap().contains("Sequential"));
        for line in ["𐓪", "🬞zn[Á", "a(é", "\"é", "x = €"] {
            for cursor in 0..=line.len() + 2 {
                let _ = s.complete(line, cursor);
                let _ = s.inspect(line, cursor);
            }
        }
    }

    #[test]
    fn completes_names_keywords_and_config_keys() {
        let mut s = Session::new();
        s.execute("seq = Sequential([])");
        let c = s.complete("Seq", 3);
        assert!(c.candidates.contains(&"Sequential(".to_string()), "{c:?}");
        assert!(c.candidates.contains(&"seq".to_string()) || !c.candidates.is_empty());
        let c = s.complete("PassContext(opt", 15);
        assert_eq!(c.candidates, vec!["opt_level=".to_string()]);
        let line = "PassContext(config={\"testing.";
        let c = s.complete(line, line.len());
        assert_eq!(c.candidates, vec!["testing.immutable_module".to_string()]);
        let c = s.complete("sh", 2);
        assert!(c.candidates.contains(&"show".to_string()));
        assert!(s.inspect("PassContext(", 3).unwrap().contains("opt_level"));
    }

    #[test]
    fn completes_the_debuggers_arguments() {
        let mut s = Session::new();
        let out = s.execute(
            "m = parse(\"\"\"def @main(%x: float32) { %x }\n\ndef @other(%y: float32) { %y }\"\"\")\n\
             drop_add = function_pass(name=\"DropAdd\", rewrite=[\"add(?x, 0f) => ?x\"])\n\
             seq = Sequential([drop_add], name=\"inner\")\n\
             break DropAdd",
        );
        assert!(!out.is_error(), "{}", out.plain());
        let at = |line: &str| s.complete(line, line.len());
        let c = at("break Fold");
        assert_eq!(c.candidates, vec!["FoldConstant", "FoldScaleAxis"]);
        assert_eq!((c.start, c.end), (6, 10));
        let c = at("break ");
        for w in [
            "after",
            "changed",
            "verify",
            "slower",
            "DropAdd",
            "inner",
            "InferType",
        ] {
            assert!(c.candidates.iter().any(|x| x == w), "{w}: {c:?}");
        }
        assert_eq!(at("x = 1; break after Dro").candidates, vec!["DropAdd"]);
        assert_eq!(at("break changed ").candidates, vec!["@main", "@other"]);
        let c = at("break changed @o");
        assert_eq!((c.candidates, c.start), (vec!["other".to_string()], 15));
        assert_eq!(at("delete ").candidates, vec!["1", "all"]);
        // Elsewhere `break` words are ordinary names.
        assert!(at("x = Fold")
            .candidates
            .contains(&"FoldConstant(".to_string()));
        assert!(at("brea").candidates.contains(&"break".to_string()));
    }

    fn session_with_modules() -> Session {
        let mut s = Session::new();
        let out = s.execute(
            "m = parse(\"\"\"def @main(%x: float32) { %x }\n\ndef @helper(%y: float32) { %y }\"\"\")\n\
             m2 = parse(\"\"\"def @main(%x: float32) { %x }\n\ndef @other(%y: float32) { %y }\"\"\")\n\
             t = Trace(name=\"t\")",
        );
        assert!(!out.is_error(), "{}", out.plain());
        s
    }

    /// `diff a b @` offers the functions of `a` and `b`; `m["` the functions of `m`.
    #[test]
    fn completes_function_names_of_modules() {
        let s = session_with_modules();
        let at = |line: &str| s.complete(line, line.len());
        let c = at("diff m m2 @");
        assert_eq!(c.candidates, vec!["helper", "main", "other"]);
        assert_eq!((c.start, c.end), (11, 11));
        assert_eq!(at("diff m m @h").candidates, vec!["helper"]);
        assert_eq!(at("diff m2 m2 @").candidates, vec!["main", "other"]);
        let c = at("m[\"");
        assert_eq!(c.candidates, vec!["helper", "main"]);
        assert_eq!(c.start, 3);
        assert_eq!(at("x = m2[\"o").candidates, vec!["other"]);
        // A string that is not an index of a module offers nothing.
        assert!(at("x = [\"").candidates.is_empty());
    }

    /// Inside a call its keyword arguments come first, then the other names.
    #[test]
    fn keyword_arguments_first() {
        let mut s = Session::new();
        s.execute("instrument_count = 1");
        let line = "PassContext(i";
        let c = s.complete(line, line.len());
        assert_eq!(c.candidates[0], "instruments=");
        assert!(c.candidates.len() > 1, "{c:?}");
        assert!(c.candidates[1..].iter().all(|x| !x.ends_with('=')), "{c:?}");
        assert!(
            c.candidates.contains(&"instrument_count".to_string()),
            "{c:?}"
        );
        let line = "FoldConstant()(m, ";
        assert!(s
            .complete(line, line.len())
            .candidates
            .iter()
            .all(|x| !x.ends_with('=')));
    }

    /// Inside `instruments=[` and `override_instruments([` only instruments are offered.
    #[test]
    fn instrument_lists_offer_instruments() {
        let s = session_with_modules();
        for line in [
            "PassContext(instruments=[",
            "with PassContext(opt_level=3, instruments=[PassTimingInstrument(), ",
            "override_instruments([",
        ] {
            let c = s.complete(line, line.len());
            assert!(
                c.candidates.contains(&"PassTimingInstrument(".to_string()),
                "{line}: {c:?}"
            );
            assert!(c.candidates.contains(&"t".to_string()), "{line}: {c:?}");
            assert!(
                !c.candidates
                    .iter()
                    .any(|x| x == "FoldConstant(" || x == "m"),
                "{line}: {c:?}"
            );
            for cand in &c.candidates {
                let is_instrument = crate::session::builtins::find(cand.trim_end_matches('('))
                    .is_some_and(|b| b.kind == BuiltinKind::Instrument);
                assert!(is_instrument || cand == "t", "{line}: {cand}");
            }
        }
        let line = "PassContext(instruments=[], config={}, opt";
        assert_eq!(s.complete(line, line.len()).candidates, vec!["opt_level="]);
    }

    /// `help` names things without calling them: no `(`.
    #[test]
    fn help_completes_bare_names() {
        let s = session_with_modules();
        let at = |line: &str| s.complete(line, line.len());
        assert_eq!(at("help FoldC").candidates, vec!["FoldConstant"]);
        assert_eq!(at("timing f").candidates, vec!["flat"]);
        assert_eq!(at("help Sequ").candidates, vec!["Sequential"]);
        assert_eq!(at("help m").candidates, vec!["m", "m2", "module_pass"]);
        assert!(at("help ").candidates.contains(&"ir".to_string()));
        assert!(at("help ").candidates.iter().all(|c| !c.ends_with('(')));
    }

    /// Commands are offered where a statement starts: after `;`, a newline or a `with` block's
    /// `{`, not inside an expression.
    #[test]
    fn commands_where_statements_start() {
        let s = Session::new();
        let at = |line: &str| s.complete(line, line.len());
        for line in ["sh", "x = 1; sh", "x = 1\nsh", "with PassContext() { sh"] {
            assert!(at(line).candidates.contains(&"show".to_string()), "{line}");
        }
        for line in ["x = sh", "f(sh", "with PassContext(sh"] {
            assert!(!at(line).candidates.contains(&"show".to_string()), "{line}");
        }
    }

    /// Inspection of a command gives its long help with an example.
    #[test]
    fn inspect_shows_a_commands_example() {
        let s = Session::new();
        let text = s.inspect("diff a b", 2).unwrap();
        assert!(text.starts_with("diff a b [@func]"), "{text}");
        assert!(text.contains("Example: diff"), "{text}");
    }
}
