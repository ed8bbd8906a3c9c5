//! Completion and inspection for the front ends (REPL Tab, Jupyter `complete_request` and
//! `inspect_request`): the session knows the language, its registries and its variables.

use super::builtins::BUILTINS;
use super::display::COMMANDS;
use super::Session;
use crate::lang::ast::KEYWORDS;

/// Completion candidates for the text `line` with the cursor at byte `cursor`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Completion {
    /// Byte range of `line` the candidates replace.
    pub start: usize,
    pub end: usize,
    pub candidates: Vec<String>,
}

fn is_word(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '.'
}

/// Where the word ending at the end of `s` starts (a byte offset, on a character boundary).
fn word_start(s: &str) -> usize {
    s.char_indices()
        .rev()
        .find(|(_, c)| !is_word(*c))
        .map_or(0, |(i, c)| i + c.len_utf8())
}

/// `cursor` clamped to `line` and moved back to a character boundary.
fn clamp_cursor(line: &str, cursor: usize) -> usize {
    let mut c = cursor.min(line.len());
    while !line.is_char_boundary(c) {
        c -= 1;
    }
    c
}

/// The function whose argument list the cursor is in, if any (`PassContext(opt_le|`).
fn enclosing_call(before: &str) -> Option<&str> {
    let mut depth = 0i32;
    for (i, c) in before.char_indices().rev() {
        match c {
            ')' | ']' | '}' => depth += 1,
            '[' | '{' if depth > 0 => depth -= 1,
            '[' | '{' => return None,
            '(' if depth > 0 => depth -= 1,
            '(' => {
                let head = &before[..i];
                let name = &head[word_start(head)..];
                return (!name.is_empty()).then_some(name);
            }
            _ => {}
        }
    }
    None
}

/// True when the cursor is inside an unclosed `"` string; returns the string's start.
fn open_string(before: &str) -> Option<usize> {
    let mut open = None;
    let b = before.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i..].starts_with(b"\"\"\"") {
            match before[i + 3..].find("\"\"\"") {
                Some(e) => i += 3 + e + 3,
                None => return Some(i + 3),
            }
            continue;
        }
        if b[i] == b'"' {
            open = match open {
                Some(_) => None,
                None => Some(i + 1),
            };
        } else if b[i] == b'\\' && open.is_some() {
            i += 1;
        }
        i += 1;
    }
    open
}

impl Session {
    /// Everything that can be completed at `cursor` in `line`.
    pub fn complete(&self, line: &str, cursor: usize) -> Completion {
        let cursor = clamp_cursor(line, cursor);
        let before = &line[..cursor];
        // Inside a string: file paths for load/save/DumpIR, config keys inside config={...}.
        if let Some(s) = open_string(before) {
            let prefix = &before[s..];
            let call = enclosing_call(&before[..s.saturating_sub(1)]);
            let candidates = if before[..s].contains("config")
                && before[..s].rfind('{') > before[..s].rfind('}')
            {
                crate::pass::config::config_keys()
                    .iter()
                    .map(|k| k.name.to_string())
                    .filter(|k| k.starts_with(prefix))
                    .collect()
            } else if matches!(call, Some("load" | "save" | "DumpIR")) {
                self.complete_path(prefix)
            } else {
                Vec::new()
            };
            return Completion {
                start: s,
                end: cursor,
                candidates,
            };
        }
        let start = word_start(before);
        let prefix = &before[start..];
        if let Some(candidates) = self.complete_debug_command(&before[..start], prefix) {
            return Completion {
                start,
                end: cursor,
                candidates,
            };
        }
        let mut out: Vec<String> = Vec::new();
        let at_statement_start = before[..start].trim().is_empty();
        if let Some(call) = enclosing_call(&before[..start]) {
            for p in self.keyword_params(call) {
                if p.starts_with(prefix) {
                    out.push(format!("{p}="));
                }
            }
        }
        if at_statement_start {
            out.extend(
                KEYWORDS
                    .iter()
                    .filter(|k| k.starts_with(prefix))
                    .map(|k| k.to_string()),
            );
        }
        for b in BUILTINS {
            if b.name.starts_with(prefix) {
                out.push(format!("{}(", b.name));
            }
        }
        for r in self.pm.registry().entries() {
            if r.name.starts_with(prefix) {
                out.push(format!("{}(", r.name));
            }
        }
        for v in self.vars.keys() {
            if v.starts_with(prefix) {
                out.push(v.clone());
            }
        }
        // The debugger's names: the paused module, the last run's steps.
        if self.paused().is_some() && "ir".starts_with(prefix) {
            out.push("ir".into());
        }
        if self.debug.history.is_some() && !at_statement_start && "history".starts_with(prefix) {
            out.push("history[".into());
        }
        out.sort();
        out.dedup();
        Completion {
            start,
            end: cursor,
            candidates: out,
        }
    }

    /// The arguments of the debugger's commands, whose words are not expressions: after
    /// `break` its forms and pass names (no `(`: a breakpoint names a pass, it does not
    /// build one), after `break after` pass names, after `break changed @` function names,
    /// after `delete` the breakpoint numbers and `all`. `None` elsewhere.
    fn complete_debug_command(&self, head: &str, prefix: &str) -> Option<Vec<String>> {
        // The current statement: after the last newline or `;` (commands are not nested).
        let stmt = head.rsplit(['\n', ';']).next().unwrap_or(head);
        let (stmt, at) = match stmt.strip_suffix('@') {
            Some(s) => (s, true),
            None => (stmt, false),
        };
        if !stmt.ends_with(char::is_whitespace) {
            return None;
        }
        let words: Vec<&str> = stmt.split_whitespace().collect();
        let mut out: Vec<String> = match (words.as_slice(), at) {
            (["break"], false) => {
                let mut v: Vec<String> = ["after", "changed", "verify", "numerics", "slower"]
                    .map(String::from)
                    .to_vec();
                v.extend(self.known_pass_names());
                v
            }
            (["break", "after"], false) => self.known_pass_names(),
            (["break", "changed"], _) => {
                let mut v: Vec<String> = Vec::new();
                let modules = self
                    .vars
                    .values()
                    .filter_map(|v| match v {
                        super::Value::Module(m) => Some(m.clone()),
                        _ => None,
                    })
                    .chain(self.paused_module());
                for m in modules {
                    v.extend(m.functions().map(|(g, _)| g.name().to_string()));
                }
                if !at {
                    v = v.into_iter().map(|f| format!("@{f}")).collect();
                }
                v
            }
            (["delete"], false) => {
                let mut v = vec!["all".to_string()];
                let bps = crate::pass::sink::lock(&self.debug.breakpoints);
                v.extend(bps.list().iter().map(|b| b.id.to_string()));
                v
            }
            _ => return None,
        };
        out.retain(|c| c.starts_with(prefix));
        out.sort();
        out.dedup();
        Some(out)
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

    /// Help for the name under the cursor (a pass, builtin, command or variable).
    pub fn inspect(&self, line: &str, cursor: usize) -> Option<String> {
        let cursor = clamp_cursor(line, cursor);
        let start = word_start(&line[..cursor]);
        let end = line[cursor..]
            .find(|c: char| !is_word(c))
            .map(|i| cursor + i)
            .unwrap_or(line.len());
        let word = &line[start..end];
        // A keyword argument (`FoldConstant(fold_qnn=`): that option of the call.
        if !word.is_empty() && line[end..].starts_with('=') && !line[end..].starts_with("==") {
            if let Some(doc) =
                enclosing_call(&line[..start]).and_then(|c| self.option_help(c, word))
            {
                return Some(doc);
            }
        }
        let word = if word.is_empty() {
            enclosing_call(&line[..cursor])?
        } else {
            word
        };
        self.help_text(word)
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
            return Some(s);
        }
        if let Some((_, syntax, summary)) = COMMANDS.iter().find(|(n, ..)| *n == name) {
            return Some(format!("{syntax}\n  {summary}"));
        }
        self.vars
            .get(name)
            .map(|v| format!("{name}: {} = {}", v.kind(), v.repr()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
