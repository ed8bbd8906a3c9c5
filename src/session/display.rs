//! Showing values and running the display commands (`show`, `timing`, `passes`, `configs`,
//! `vars`, `diff`, `help`; the table that names them is `commands.rs`): the session's side, which knows the current context and the
//! variables. How each value looks is in `render.rs`, shared with the notebook displays.

use super::{Outputs, Session, SessionError, Value};
use crate::instrument::PassTimingInstrument;
use crate::ir::{Module, Span};
use crate::present::render::{
    context_rendering, diff_rendering, function_rendering, instrument_rendering, module_rendering,
    module_summary, module_text, pass_line_rendering, pass_tree_rendering, single_function,
    timing_rendering, Rendering, Tab,
};
use crate::present::wrap::{two_columns, wrap_text};

impl Session {
    /// Shows a value: `full` for `show`, else a summary for big modules.
    pub(crate) fn display_value(&self, v: &Value, full: bool, out: &mut Outputs) {
        let r = match v {
            Value::Module(m) => module_rendering(m, full, self.front()),
            Value::Function { name, func, .. } => function_rendering(name, func, self.front()),
            Value::Pass(p) if full => {
                let tree = pass_tree_rendering(p, self.pm.current());
                match crate::pass::pipeline_text(p) {
                    Ok(text) => Rendering::pre(format!("{}\ntext: {text}", tree.plain)),
                    Err(_) => tree,
                }
            }
            Value::Pass(p) => pass_line_rendering(p),
            Value::Context(c) => context_rendering(c, self.pm.current().same_as(c), self.front()),
            Value::Instrument(i) if full => {
                instrument_rendering(&**i, self.running_passes(), self.front())
            }
            Value::Instrument(i) => Rendering::pre(format!("<instrument {}>", i.name())),
            Value::Str(s) if full => Rendering::plain(s.clone()),
            Value::Tensor(t) => Rendering::pre(crate::eval::summary::render(t)),
            Value::List(items) if is_tensor_tuple(items) => Rendering::pre(tensor_list(items)),
            other => Rendering::plain(other.repr()),
        };
        out.display(r.plain, r.ansi, r.html);
    }

    /// The plain text of a value as `print` writes it.
    pub(crate) fn plain_text(&self, v: &Value) -> String {
        match v {
            Value::Str(s) => s.clone(),
            Value::Module(m) => module_text(m).trim_end().to_string(),
            Value::Function { .. } | Value::Pass(_) | Value::Context(_) | Value::Instrument(_) => {
                let mut o = Outputs::new();
                self.display_value(v, true, &mut o);
                o.plain().trim_end().to_string()
            }
            Value::Tensor(t) => crate::eval::summary::render(t),
            Value::List(items) if is_tensor_tuple(items) => tensor_list(items),
            other => other.repr(),
        }
    }

    pub(crate) fn cmd_timing(
        &mut self,
        span: crate::ir::Span,
        out: &mut Outputs,
    ) -> Result<(), SessionError> {
        let current = self
            .pm
            .current()
            .instruments()
            .iter()
            .find(|i| i.as_any().is::<PassTimingInstrument>())
            .cloned();
        let Some(inst) = current.or_else(|| self.last_timing.clone()) else {
            return Err(SessionError::at(
                "no PassTimingInstrument has been used: run passes under PassContext(instruments=[PassTimingInstrument()])",
                span,
            ));
        };
        let t = inst
            .as_any()
            .downcast_ref::<PassTimingInstrument>()
            .expect("checked above");
        let r = timing_rendering(t, self.running_passes(), self.front());
        out.display(r.plain, r.ansi, r.html);
        Ok(())
    }

    pub(crate) fn cmd_passes(&mut self, out: &mut Outputs) -> Result<(), SessionError> {
        let mut rows = Vec::new();
        for r in self.pm.registry().entries() {
            let req: Vec<&str> = r.required.iter().map(|s| &**s).collect();
            rows.push(vec![
                r.name.to_string(),
                r.kind.as_str().to_string(),
                r.opt_level.to_string(),
                req.join(", "),
                format!("{}{}", r.summary, if r.user { " (user)" } else { "" }),
            ]);
        }
        let tab = Tab {
            header: ["pass", "kind", "opt_level", "required", "summary"]
                .map(String::from)
                .to_vec(),
            rows,
        };
        out.display(tab.plain(self.front().width), None, Some(tab.html()));
        Ok(())
    }

    pub(crate) fn cmd_configs(&mut self, out: &mut Outputs) -> Result<(), SessionError> {
        let rows = crate::pass::config::config_keys()
            .iter()
            .map(|k| {
                vec![
                    k.name.to_string(),
                    k.ty.to_string(),
                    (k.default)().to_string(),
                    k.doc.to_string(),
                ]
            })
            .collect();
        let tab = Tab {
            header: ["key", "type", "default", "meaning"]
                .map(String::from)
                .to_vec(),
            rows,
        };
        out.display(tab.plain(self.front().width), None, Some(tab.html()));
        Ok(())
    }

    pub(crate) fn cmd_vars(&mut self, out: &mut Outputs) -> Result<(), SessionError> {
        if self.vars.is_empty() {
            out.display("(no variables)", None, None);
            return Ok(());
        }
        let rows = self
            .vars
            .iter()
            .map(|(k, v)| {
                let what = match v {
                    Value::Module(m) => module_summary(m),
                    other => other.repr(),
                };
                vec![k.clone(), v.kind().to_string(), what]
            })
            .collect();
        let tab = Tab {
            header: ["name", "kind", "value"].map(String::from).to_vec(),
            rows,
        };
        out.display(tab.plain(self.front().width), None, Some(tab.html()));
        Ok(())
    }

    /// `diff a b [@f]`, with `a` and `b` evaluated (and where they were written).
    pub(crate) fn cmd_diff(
        &mut self,
        (va, a_span): (Value, Span),
        (vb, b_span): (Value, Span),
        func: Option<&str>,
        out: &mut Outputs,
    ) -> Result<(), SessionError> {
        let module_of = |v: &Value, span| -> Result<Module, SessionError> {
            let m = match v {
                Value::Module(m) => m.clone(),
                Value::Function { name, func, .. } => single_function(name, func),
                other => {
                    return Err(SessionError::at(
                        format!("diff compares modules, got a {}", other.kind()),
                        span,
                    ))
                }
            };
            match func {
                Some(f) => m
                    .get(f)
                    .map(|body| single_function(f, body))
                    .ok_or_else(|| {
                        SessionError::at(format!("the module has no function @{f}"), span)
                    }),
                None => Ok(m),
            }
        };
        let ma = module_of(&va, a_span)?;
        let mb = module_of(&vb, b_span)?;
        let la = self.source_text(a_span).unwrap_or("a");
        let lb = self.source_text(b_span).unwrap_or("b");
        let r = diff_rendering(&ma, la, &mb, lb, self.front());
        out.display(r.plain, r.ansi, r.html);
        Ok(())
    }

    pub(crate) fn cmd_help(
        &mut self,
        name: Option<&(String, crate::ir::Span)>,
        out: &mut Outputs,
    ) -> Result<(), SessionError> {
        let Some((name, span)) = name else {
            out.display(general_help(self), None, None);
            return Ok(());
        };
        if let Some(text) = self.help_text(name) {
            out.display(wrap_text(&text, self.front().width), None, None);
            return Ok(());
        }
        let mut all: Vec<String> = super::builtins::BUILTINS
            .iter()
            .map(|b| b.name.to_string())
            .collect();
        all.extend(
            self.pm
                .registry()
                .entries()
                .iter()
                .map(|r| r.name.to_string()),
        );
        all.extend(super::COMMANDS.iter().map(|c| c.name.to_string()));
        let hint = crate::suggest::closest(name, all.iter().map(String::as_str))
            .map(|s| format!("did you mean `{s}`?"));
        Err(SessionError::at(format!("no help for `{name}`"), *span).with_label(hint))
    }
}

/// A non-empty list of tensors only (what `evaluate` returns for a tuple).
fn is_tensor_tuple(items: &[Value]) -> bool {
    !items.is_empty() && items.iter().all(|v| matches!(v, Value::Tensor(_)))
}

/// Each tensor of a list, numbered: `[0] tensor float32 [2, 3]` and its values.
fn tensor_list(items: &[Value]) -> String {
    let parts: Vec<String> = items
        .iter()
        .enumerate()
        .map(|(i, v)| match v {
            Value::Tensor(t) => format!("[{i}] {}", crate::eval::summary::render(t)),
            other => format!("[{i}] {}", other.repr()),
        })
        .collect();
    format!("a list of {} tensors:\n{}", items.len(), parts.join("\n"))
}

/// `help` with no name: the statements, then the functions, each with its summary, fitted
/// to the front end's width.
fn general_help(s: &Session) -> String {
    let width = s.front().width;
    let mut statements: Vec<(&str, &str)> = super::COMMANDS
        .iter()
        .map(|c| (c.syntax, c.summary))
        .collect();
    statements.push(("name = expr", "bind a value"));
    let functions: Vec<(&str, &str)> = super::builtins::BUILTINS
        .iter()
        .map(|b| (b.name, b.summary))
        .collect();
    let mut out = String::from("Statements:\n");
    out.push_str(&two_columns(&statements, 2, 28, width));
    out.push_str("\nFunctions and constructors:\n");
    out.push_str(&two_columns(&functions, 2, 28, width));
    out.push_str(&wrap_text(
        &format!(
            "\n{} registered passes: `passes` lists them, `help NAME` describes one.",
            s.pm.registry().entries().len()
        ),
        width,
    ));
    out
}
