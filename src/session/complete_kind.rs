//! What kind of thing a completion candidate is, for front ends that label candidates
//! (JupyterLab shows the kind beside each one, from the kernel's `_jupyter_types_experimental`).
//! It reads the candidate as completion wrote it (`FoldConstant(`, `opt_level=`, `@main`,
//! `data/`), so it stays right whatever produced the candidate.

use super::builtins::{self, BuiltinKind};
use super::Session;

impl Session {
    /// The kind of completion candidate `candidate`: `pass`, `instrument`, `function` (a
    /// builtin), `class` (a constructor such as `PassContext`), `param` (a keyword argument),
    /// `keyword`, `command`, `path`, `config` (a config key), `global` (`@f`), or for a
    /// variable the kind of its value (`module`, `pass`, ...).
    pub fn completion_kind(&self, candidate: &str) -> &'static str {
        if candidate.ends_with('=') {
            return "param";
        }
        if candidate.starts_with('@') {
            return "global";
        }
        if candidate.ends_with('/') || candidate.contains('/') {
            return "path";
        }
        if let Some(name) = candidate.strip_suffix('(') {
            if let Some(b) = builtins::find(name) {
                return match b.kind {
                    BuiltinKind::Function => "function",
                    BuiltinKind::Constructor => "class",
                    BuiltinKind::Instrument => "instrument",
                };
            }
            if self.pm.registry().get(name).is_some() {
                return "pass";
            }
            return "function";
        }
        if candidate == "history[" || candidate == "ir" {
            return "debugger";
        }
        if let Some(v) = self.vars.get(candidate) {
            return v.kind();
        }
        if matches!(candidate, "true" | "false" | "None") {
            return "keyword";
        }
        if super::commands::find(candidate).is_some() {
            return "command";
        }
        if crate::pass::config::config_keys()
            .iter()
            .any(|k| k.name == candidate)
        {
            return "config";
        }
        if self.pm.registry().get(candidate).is_some() {
            return "pass";
        }
        "text"
    }
}

#[cfg(test)]
mod tests {
    use crate::session::Session;

    #[test]
    fn candidates_are_labelled_by_kind() {
        let mut s = Session::new();
        let _ = s.execute("m = parse(\"def @main(%x: float32) { %x }\")");
        let kind = |c: &str| s.completion_kind(c);
        assert_eq!(kind("FoldConstant("), "pass");
        assert_eq!(kind("PassTimingInstrument("), "instrument");
        assert_eq!(kind("opt_level="), "param");
        assert_eq!(kind("@main"), "global");
        assert_eq!(kind("m"), "module");
        assert_eq!(kind("relay.FuseOps.max_depth"), "config");
        assert_eq!(kind("data/"), "path");
        let every = s.complete("", 0).candidates;
        assert!(every.len() > 20, "{every:?}");
        for c in &every {
            assert_ne!(s.completion_kind(c), "text", "{c} has no kind");
        }
    }

    #[test]
    fn inspecting_a_keyword_argument_gives_that_options_doc() {
        let s = Session::new();
        let line = "FoldConstant(fold_qnn=True)";
        for cursor in [15, 21] {
            let doc = s.inspect(line, cursor).expect("an answer");
            assert!(doc.starts_with("FoldConstant(fold_qnn=...): bool"), "{doc}");
            assert!(doc.contains("QNN"), "{doc}");
        }
        let doc = s.inspect("PassContext(opt_level=", 15).expect("an answer");
        assert!(
            doc.contains("opt_level") && doc.contains("PassContext("),
            "{doc}"
        );
        // The call itself still answers with the pass's help.
        assert!(s.inspect(line, 3).unwrap().contains("opt_level"));
        // An argument the call does not take: the word's own help, here none.
        assert_eq!(s.inspect("FoldConstant(nothing=1)", 15), None);
    }
}
