//! The kernel's input history, for `history_request` (tail, range, search), as IPython's
//! history manager answers it. Kept in memory for the life of the kernel process: one
//! session, numbered 1, with lines numbered by execution count.

use serde_json::{json, Map, Value};

/// The session number this kernel reports.
pub const SESSION: i64 = 1;

#[derive(Clone, Debug, PartialEq)]
struct Entry {
    line: i64,
    input: String,
    /// The plain text of the cell's execute_result, if it had one.
    output: Option<String>,
}

#[derive(Default)]
pub struct History {
    entries: Vec<Entry>,
}

impl History {
    pub fn new() -> History {
        History::default()
    }

    pub fn record(&mut self, line: i64, input: &str, output: Option<String>) {
        self.entries.push(Entry {
            line,
            input: input.to_string(),
            output,
        });
    }

    /// The reply content's `history` list for a request's content.
    pub fn query(&self, req: &Map<String, Value>) -> Vec<Value> {
        let output = req.get("output").and_then(Value::as_bool).unwrap_or(false);
        let int = |k: &str| req.get(k).and_then(Value::as_i64);
        let picked: Vec<&Entry> = match req.get("hist_access_type").and_then(Value::as_str) {
            Some("tail") => self.tail(int("n").unwrap_or(10)),
            Some("range") => self.range(
                int("session").unwrap_or(0),
                int("start").unwrap_or(0),
                int("stop"),
            ),
            Some("search") => self.search(
                req.get("pattern").and_then(Value::as_str).unwrap_or("*"),
                int("n"),
                req.get("unique").and_then(Value::as_bool).unwrap_or(false),
            ),
            _ => Vec::new(),
        };
        picked
            .into_iter()
            .map(|e| {
                if output {
                    json!([SESSION, e.line, [e.input, e.output]])
                } else {
                    json!([SESSION, e.line, e.input])
                }
            })
            .collect()
    }

    fn tail(&self, n: i64) -> Vec<&Entry> {
        let n = n.max(0) as usize;
        let skip = self.entries.len().saturating_sub(n);
        self.entries[skip..].iter().collect()
    }

    /// Lines `start..stop` of `session` (0 or negative-one-back means this one, as in
    /// IPython; there are no earlier sessions).
    fn range(&self, session: i64, start: i64, stop: Option<i64>) -> Vec<&Entry> {
        if session != 0 && session != SESSION {
            return Vec::new();
        }
        self.entries
            .iter()
            .filter(|e| e.line >= start && stop.is_none_or(|s| e.line < s))
            .collect()
    }

    /// Inputs matching the glob `pattern` (`*`, `?`; IPython wraps a pattern without
    /// wildcards in `*...*`), the last `n` of them, each input once if `unique`.
    fn search(&self, pattern: &str, n: Option<i64>, unique: bool) -> Vec<&Entry> {
        let pattern = if pattern.contains(['*', '?']) {
            pattern.to_string()
        } else {
            format!("*{pattern}*")
        };
        let mut out: Vec<&Entry> = Vec::new();
        for e in self.entries.iter().rev() {
            if !glob_match(&pattern, &e.input) {
                continue;
            }
            if unique && out.iter().any(|o| o.input == e.input) {
                continue;
            }
            out.push(e);
            if n.is_some_and(|n| n > 0 && out.len() as i64 >= n) {
                break;
            }
        }
        out.reverse();
        out
    }
}

/// Glob matching with `*` (any run) and `?` (any one character), over characters.
pub fn glob_match(pattern: &str, text: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let t: Vec<char> = text.chars().collect();
    let (mut pi, mut ti) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        if pi < p.len() && (p[pi] == '?' || p[pi] == t[ti]) {
            pi += 1;
            ti += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some((pi, ti));
            pi += 1;
        } else if let Some((sp, st)) = star {
            pi = sp + 1;
            ti = st + 1;
            star = Some((sp, st + 1));
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|c| *c == '*')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn history() -> History {
        let mut h = History::new();
        h.record(1, "x = 1", None);
        h.record(2, "x", Some("1".into()));
        h.record(3, "y = x", None);
        h.record(4, "x", Some("1".into()));
        h
    }

    fn query(h: &History, req: Value) -> Value {
        Value::Array(h.query(req.as_object().unwrap()))
    }

    #[test]
    fn tail_range_and_search() {
        let h = history();
        assert_eq!(
            query(
                &h,
                json!({"hist_access_type": "tail", "n": 2, "output": false})
            ),
            json!([[1, 3, "y = x"], [1, 4, "x"]])
        );
        assert_eq!(
            query(
                &h,
                json!({"hist_access_type": "tail", "n": 1, "output": true})
            ),
            json!([[1, 4, ["x", "1"]]])
        );
        assert_eq!(
            query(
                &h,
                json!({"hist_access_type": "range", "session": 1, "start": 2, "stop": 3})
            ),
            json!([[1, 2, "x"]])
        );
        assert_eq!(
            query(
                &h,
                json!({"hist_access_type": "range", "session": 7, "start": 1})
            ),
            json!([])
        );
        assert_eq!(
            query(&h, json!({"hist_access_type": "search", "pattern": "x*"})),
            json!([[1, 1, "x = 1"], [1, 2, "x"], [1, 4, "x"]])
        );
        assert_eq!(
            query(
                &h,
                json!({"hist_access_type": "search", "pattern": "x", "unique": true})
            ),
            json!([[1, 1, "x = 1"], [1, 3, "y = x"], [1, 4, "x"]])
        );
        assert_eq!(
            query(
                &h,
                json!({"hist_access_type": "search", "pattern": "x*", "n": 1})
            ),
            json!([[1, 4, "x"]])
        );
    }

    #[test]
    fn globs() {
        assert!(glob_match("a*c", "abbbc"));
        assert!(glob_match("a?c", "abc"));
        assert!(!glob_match("a?c", "ac"));
        assert!(glob_match("*", ""));
        assert!(glob_match("*ü*", "grüß"));
        assert!(!glob_match("x", "xy"));
    }
}
