//! `execute_request`: run a cell on the session thread and turn its output into iopub
//! messages as it is produced. Stream parts become `stream` (stdout), warnings `stream`
//! (stderr), displayed values `display_data` — except the value of a cell's last statement
//! when it is a bare expression, which is the cell's `execute_result`, as in IPython — and an
//! error `error`. A pipeline's instrument output is published while the pipeline runs (the
//! session streams to [`CellStream`]); after an interrupt, the rest of a flood is dropped.

use crate::kernel::{Publisher, Shared};
use crate::wire::Message;
use passlab::session::{LiveOutput, Part, PartKind};
use serde_json::{json, Map, Value};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// A running cell's output, published as the session produces it.
struct CellStream {
    publisher: Publisher,
    interrupt: Arc<AtomicBool>,
    stopped: AtomicBool,
}

impl LiveOutput for CellStream {
    fn part(&self, part: &Part) {
        if self.interrupt.load(Ordering::SeqCst) {
            if !self.stopped.swap(true, Ordering::SeqCst) {
                self.publisher.publish(
                    "stream",
                    json!({"name": "stderr", "text": "interrupted: the rest of the output is dropped\n"}),
                );
            }
            return;
        }
        let (msg_type, content) = part_message(part);
        self.publisher.publish(msg_type, content);
    }
}

/// The iopub message of a part that is not the cell's result or error.
fn part_message(part: &Part) -> (&'static str, Value) {
    match part.kind {
        PartKind::Stream => ("stream", json!({"name": "stdout", "text": part.plain})),
        PartKind::Warning => ("stream", json!({"name": "stderr", "text": part.plain})),
        PartKind::Clear => ("clear_output", json!({"wait": false})),
        _ => (
            "display_data",
            json!({"data": mime_bundle(part), "metadata": {}, "transient": {}}),
        ),
    }
}

/// What the shell loop needs to know after a cell ran.
pub struct Executed {
    pub reply: Value,
    /// The cell failed and asked to stop on error (queued cells are aborted).
    pub abort_queue: bool,
}

/// The options of an execute request, read leniently.
struct Request {
    code: String,
    silent: bool,
    store_history: bool,
    stop_on_error: bool,
    user_expressions: Map<String, Value>,
}

impl Request {
    fn parse(c: &Map<String, Value>) -> Result<Request, String> {
        let code = c
            .get("code")
            .and_then(Value::as_str)
            .ok_or("execute_request has no `code` string")?
            .to_string();
        let flag = |k: &str, default: bool| c.get(k).and_then(Value::as_bool).unwrap_or(default);
        let silent = flag("silent", false);
        Ok(Request {
            code,
            silent,
            store_history: !silent && flag("store_history", true),
            stop_on_error: flag("stop_on_error", true),
            user_expressions: c
                .get("user_expressions")
                .and_then(Value::as_object)
                .cloned()
                .unwrap_or_default(),
        })
    }
}

/// The shell's execution state: the counter and the history.
pub struct Executor {
    pub count: i64,
    pub history: crate::history::History,
}

impl Executor {
    pub fn new() -> Executor {
        Executor {
            count: 0,
            history: crate::history::History::new(),
        }
    }

    pub async fn execute(&mut self, k: &Shared, msg: &Message) -> Result<Executed, String> {
        let req = Request::parse(msg.content_obj())?;
        if req.store_history {
            self.count += 1;
        }
        let count = self.count;
        if !req.silent {
            k.publish(
                Some(msg),
                "execute_input",
                json!({"code": req.code, "execution_count": count}),
            );
        }
        // `?NAME` or `NAME?` pages the help of NAME, as in IPython.
        if let Some(name) = help_query(&req.code) {
            let name = name.to_string();
            let text = k.worker.run(move |s| s.help_text(&name)).await;
            return Ok(match text {
                Ok(Some(t)) => Executed {
                    reply: json!({
                        "status": "ok",
                        "execution_count": count,
                        "payload": [{"source": "page", "data": {"text/plain": t}, "start": 0}],
                        "user_expressions": {},
                    }),
                    abort_queue: false,
                },
                Ok(None) => {
                    let e = format!("error: no help for `{}`", help_query(&req.code).unwrap());
                    self.fail(k, msg, &req, count, e.clone(), e)
                }
                Err(err) => {
                    let e = format!("error: {}", err.explain("the help request"));
                    self.fail(k, msg, &req, count, e.clone(), e)
                }
            });
        }
        let code = req.code.clone();
        let source = format!("In [{count}]");
        let exprs = req.user_expressions.clone();
        // A silent cell shows nothing, so nothing streams.
        let publisher = (!req.silent).then(|| k.publisher(msg));
        let ran = k
            .worker
            .run(move |s| {
                s.set_source_name(&source);
                if let Some(publisher) = publisher {
                    s.set_live(Some(Arc::new(CellStream {
                        publisher,
                        interrupt: s.interrupt_flag(),
                        stopped: AtomicBool::new(false),
                    })));
                }
                let out = s.execute(&code);
                s.set_live(None);
                (out, evaluate_user_expressions(s, &exprs))
            })
            .await;
        let (out, user_expressions) = match ran {
            Ok(r) => r,
            Err(err) => {
                // `execute` turns a statement's panic into an error of its own: this is one
                // outside any statement.
                let e = format!("error: {}", err.explain("the cell"));
                return Ok(self.fail(k, msg, &req, count, e.clone(), e));
            }
        };
        let result_index = out.result();
        let mut error = None;
        let mut result_text = None;
        for (i, part) in out.parts.iter().enumerate() {
            if part.kind == PartKind::Error {
                error = Some(part);
                if !req.silent {
                    k.publish(Some(msg), "error", error_content(part));
                }
                continue;
            }
            if Some(i) == result_index {
                result_text = Some(part.plain.trim_end_matches('\n').to_string());
            }
            if req.silent {
                continue;
            }
            let (msg_type, content) = if Some(i) == result_index {
                (
                    "execute_result",
                    json!({"execution_count": count, "data": mime_bundle(part), "metadata": {}}),
                )
            } else {
                part_message(part)
            };
            k.publish(Some(msg), msg_type, content);
        }
        if req.store_history {
            self.history.record(count, &req.code, result_text);
        }
        Ok(match error {
            Some(part) => {
                let mut reply = error_content(part);
                reply["status"] = json!("error");
                reply["execution_count"] = json!(count);
                reply["user_expressions"] = json!({});
                Executed {
                    reply,
                    abort_queue: req.stop_on_error,
                }
            }
            None => Executed {
                reply: json!({
                    "status": "ok",
                    "execution_count": count,
                    "payload": [],
                    "user_expressions": user_expressions,
                }),
                abort_queue: false,
            },
        })
    }

    /// An error that did not come from the session (e.g. unknown help topic).
    fn fail(
        &mut self,
        k: &Shared,
        msg: &Message,
        req: &Request,
        count: i64,
        plain: String,
        evalue: String,
    ) -> Executed {
        let part = Part {
            kind: PartKind::Error,
            plain: format!("{plain}\n"),
            ansi: None,
            html: None,
        };
        if !req.silent {
            k.publish(Some(msg), "error", error_content(&part));
        }
        if req.store_history {
            self.history.record(count, &req.code, None);
        }
        let mut reply = error_content(&part);
        reply["evalue"] = json!(evalue.trim_start_matches("error: "));
        reply["status"] = json!("error");
        reply["execution_count"] = json!(count);
        reply["user_expressions"] = json!({});
        Executed {
            reply,
            abort_queue: req.stop_on_error,
        }
    }
}

impl Default for Executor {
    fn default() -> Self {
        Executor::new()
    }
}

/// `?NAME` / `NAME?` (a name, nothing else).
fn help_query(code: &str) -> Option<&str> {
    let t = code.trim();
    let name = t.strip_prefix('?').or_else(|| t.strip_suffix('?'))?.trim();
    let ok = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '.');
    ok.then_some(name)
}

fn mime_bundle(part: &Part) -> Value {
    let mut data = json!({"text/plain": part.plain.trim_end_matches('\n')});
    if let Some(html) = &part.html {
        data["text/html"] = json!(html);
    }
    data
}

/// `error` content (ename, evalue, traceback) of an error part.
fn error_content(part: &Part) -> Value {
    let plain = part.plain.trim_end_matches('\n');
    let first = plain.lines().next().unwrap_or("");
    let evalue = first.strip_prefix("error: ").unwrap_or(first);
    let ename = if evalue.starts_with("interrupted") || evalue.contains(": interrupted") {
        "Interrupted"
    } else {
        "Error"
    };
    let shown = part.ansi.as_deref().unwrap_or(plain).trim_end_matches('\n');
    json!({
        "ename": ename,
        "evalue": evalue,
        "traceback": shown.lines().collect::<Vec<_>>(),
    })
}

/// `user_expressions`: each expression evaluated after the cell, its plain display returned.
fn evaluate_user_expressions(
    s: &mut passlab::session::Session,
    exprs: &Map<String, Value>,
) -> Value {
    let mut out = Map::new();
    for (name, expr) in exprs {
        let Some(code) = expr.as_str() else {
            out.insert(
                name.clone(),
                json!({"status": "error", "ename": "Error", "evalue": "not a string", "traceback": []}),
            );
            continue;
        };
        let o = s.execute(code);
        let v = match o.parts.iter().find(|p| p.kind == PartKind::Error) {
            Some(e) => error_content(e),
            None => {
                let shown = o.parts.iter().rev().find(|p| p.kind == PartKind::Display);
                let data = shown
                    .map(mime_bundle)
                    .unwrap_or_else(|| json!({"text/plain": "None"}));
                json!({"status": "ok", "data": data, "metadata": {}})
            }
        };
        let mut v = v;
        if v.get("status").is_none() {
            v["status"] = json!("error");
        }
        out.insert(name.clone(), v);
    }
    Value::Object(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use passlab::session::Outputs;

    #[test]
    fn help_queries() {
        assert_eq!(help_query("?Sequential"), Some("Sequential"));
        assert_eq!(help_query("  FoldConstant? "), Some("FoldConstant"));
        assert_eq!(help_query("x = 1"), None);
        assert_eq!(help_query("?"), None);
        assert_eq!(help_query("a b?"), None);
    }

    #[test]
    fn results_are_bare_last_expressions() {
        let result = |code: &str| passlab::session::Session::new().execute(code).result();
        assert_eq!(result("x = 1\nx"), Some(0));
        assert_eq!(result("x = 1\nprint(\"a\")\nx"), Some(1));
        assert_eq!(result("x = 1"), None);
        assert_eq!(result("show 1"), None);
        assert_eq!(result("x = ("), None);
        assert_eq!(result("x = 1\nx\ny = 2"), None);
        assert_eq!(result("with PassContext() {\n  1\n}"), None);
        assert_eq!(result("1\nnope"), None);
    }

    #[test]
    fn a_pause_is_never_the_cells_result() {
        let mut s = passlab::session::Session::new();
        let out = s.execute(
            "m = parse(\"\"\"def @main(%x: float32) { %x }\"\"\")\n\
             break InferType\n\
             InferType()(m)",
        );
        assert_eq!(out.parts.last().map(|p| p.kind), Some(PartKind::Pause));
        assert_eq!(out.result(), None);
        // Once the run is paused, later bare expressions are results as usual.
        let out = s.execute("ir");
        assert_eq!(out.result(), Some(0));
        let out = s.execute("continue");
        assert!(out.plain().contains("def @main"), "{}", out.plain());
    }

    #[test]
    fn error_parts_become_error_content() {
        let mut o = Outputs::new();
        o.error("error: unknown name `x`\n  --> In [1]:1:1", None);
        let c = error_content(&o.parts[0]);
        assert_eq!(c["ename"], "Error");
        assert_eq!(c["evalue"], "unknown name `x`");
        assert_eq!(c["traceback"].as_array().unwrap().len(), 2);
    }
}
