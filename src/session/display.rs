//! How values and command results look: plain text (tests, transcripts, `NO_COLOR`), ANSI
//! for terminals and HTML for Jupyter. Modules are summarised when large and highlighted when
//! shown; pipelines are a tree that says which passes would run under the current context.

use super::outputs::html_escape;
use super::{Outputs, Session, SessionError, Value};
use crate::instrument::PassTimingInstrument;
use crate::ir::{visit, ExprKind, Module};
use crate::lang::ast::Expr;
use crate::pass::{Gate, Pass, PassContext};
use crate::text::{highlight, highlight_html, print_module_with, PrintOptions};
use comfy_table::{presets, Table};

/// Modules longer than this are summarised when displayed without `show`.
const SUMMARY_LINES: usize = 40;

/// A table rendered both ways.
pub(crate) struct Tab {
    pub header: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

impl Tab {
    pub fn plain(&self) -> String {
        let mut t = Table::new();
        t.load_style(presets::UTF8_FULL_CONDENSED);
        t.set_header(self.header.clone());
        for r in &self.rows {
            t.add_row(r.clone());
        }
        t.to_string()
    }

    pub fn html(&self) -> String {
        let mut s = String::from("<table class=\"passlab\"><thead><tr>");
        for h in &self.header {
            s.push_str(&format!("<th>{}</th>", html_escape(h)));
        }
        s.push_str("</tr></thead><tbody>");
        for r in &self.rows {
            s.push_str("<tr>");
            for c in r {
                s.push_str(&format!(
                    "<td style=\"text-align:left;font-family:monospace\">{}</td>",
                    html_escape(c)
                ));
            }
            s.push_str("</tr>");
        }
        s.push_str("</tbody></table>");
        s
    }
}

fn module_text(m: &Module) -> String {
    crate::text::print_module_display(m)
}

/// "Module: 1 function (@main: 2 params, 7 calls)".
pub fn module_summary(m: &Module) -> String {
    let mut parts = Vec::new();
    for (g, f) in m.functions() {
        let mut calls = 0;
        let mut consts = 0;
        visit::post_order(f, |e| match e.kind() {
            ExprKind::Call(_) => calls += 1,
            ExprKind::Constant(_) => consts += 1,
            _ => {}
        });
        let params = f.as_function().map(|f| f.params.len()).unwrap_or(0);
        let mut s = format!(
            "@{}: {params} param{}, {calls} call{}",
            g.name(),
            plural(params),
            plural(calls)
        );
        if consts > 0 {
            s.push_str(&format!(", {consts} constant{}", plural(consts)));
        }
        parts.push(s);
    }
    let n = m.len();
    format!("Module: {n} function{} ({})", plural(n), parts.join("; "))
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

impl Session {
    /// Shows a value: `full` for `show`, else a summary for big modules.
    pub(crate) fn display_value(&self, v: &Value, full: bool, out: &mut Outputs) {
        match v {
            Value::Module(m) => {
                let text = module_text(m);
                if !full && text.lines().count() > SUMMARY_LINES {
                    let s = format!("{} — `show` it for the full text", module_summary(m));
                    out.display(
                        s.clone(),
                        None,
                        Some(format!("<pre>{}</pre>", html_escape(&s))),
                    );
                } else {
                    out.display(
                        text.clone(),
                        self.color.then(|| highlight(&text)),
                        Some(highlight_html(&text)),
                    );
                }
            }
            Value::Function { name, func, .. } => {
                let mut one = Module::new();
                let _ = one.add(name, func.clone());
                let text = print_module_with(
                    &one,
                    PrintOptions {
                        header: false,
                        ..PrintOptions::default()
                    },
                );
                out.display(
                    text.clone(),
                    self.color.then(|| highlight(&text)),
                    Some(highlight_html(&text)),
                );
            }
            Value::Pass(p) => {
                let text = if full {
                    self.pass_tree(p)
                } else {
                    pass_line(p)
                };
                out.display(
                    text.clone(),
                    None,
                    Some(format!("<pre>{}</pre>", html_escape(&text))),
                );
            }
            Value::Context(c) => {
                let tab = context_table(c, self.pm.current().same_as(c));
                out.display(tab.plain(), None, Some(tab.html()));
            }
            Value::Instrument(i) => {
                let text = match i.as_any().downcast_ref::<PassTimingInstrument>() {
                    Some(t) if full => format!("PassTimingInstrument\n{}", t.render_table()),
                    _ => format!("<instrument {}>", i.name()),
                };
                out.display(
                    text.clone(),
                    None,
                    Some(format!("<pre>{}</pre>", html_escape(&text))),
                );
            }
            Value::Str(s) if full => out.display(s.clone(), None, None),
            other => out.display(other.repr(), None, None),
        }
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
            other => other.repr(),
        }
    }

    /// A pipeline as a tree: each pass, its level, its required list and whether it would run
    /// under the current context (and why not).
    pub(crate) fn pass_tree(&self, p: &Pass) -> String {
        let ctx = self.pm.current();
        let info = p.info();
        let mut lines = vec![format!(
            "{} ({}, opt_level {})",
            info.name(),
            info.kind().as_str(),
            info.opt_level()
        )];
        let kids = p.children();
        let mut rows = Vec::new();
        tree_rows(kids, ctx, "", &mut rows);
        let width = rows
            .iter()
            .map(|(l, _)| l.chars().count())
            .max()
            .unwrap_or(0);
        for (left, right) in rows {
            let pad = width - left.chars().count();
            lines.push(
                format!("{left}{}  {right}", " ".repeat(pad))
                    .trim_end()
                    .to_string(),
            );
        }
        lines.join("\n")
    }

    pub(crate) fn cmd_timing(&mut self, out: &mut Outputs) -> Result<(), SessionError> {
        let current = self
            .pm
            .current()
            .instruments()
            .iter()
            .find(|i| i.as_any().is::<PassTimingInstrument>())
            .cloned();
        let Some(inst) = current.or_else(|| self.last_timing.clone()) else {
            return Err(SessionError::new(
                "no PassTimingInstrument has been used: run passes under PassContext(instruments=[PassTimingInstrument()])",
            ));
        };
        let t = inst
            .as_any()
            .downcast_ref::<PassTimingInstrument>()
            .expect("checked above");
        if t.records().is_empty() {
            out.display("(no passes timed yet)", None, None);
            return Ok(());
        }
        let text = t.render_table();
        let html = timing_html(&t.records());
        out.display(text, None, Some(html));
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
        out.display(tab.plain(), None, Some(tab.html()));
        Ok(())
    }

    pub(crate) fn cmd_configs(&mut self, out: &mut Outputs) -> Result<(), SessionError> {
        let rows = crate::pass::config::config_keys()
            .iter()
            .map(|k| {
                vec![
                    k.name.to_string(),
                    k.ty.to_string(),
                    format!("{:?}", (k.default)()),
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
        out.display(tab.plain(), None, Some(tab.html()));
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
        out.display(tab.plain(), None, Some(tab.html()));
        Ok(())
    }

    pub(crate) fn cmd_diff(
        &mut self,
        a: &Expr,
        b: &Expr,
        func: Option<&str>,
        out: &mut Outputs,
    ) -> Result<(), SessionError> {
        let va = self.eval(a)?;
        let vb = self.eval(b)?;
        let text_of = |v: &Value, span| -> Result<String, SessionError> {
            let m = match v {
                Value::Module(m) => m.clone(),
                Value::Function { name, func, .. } => {
                    let mut one = Module::new();
                    let _ = one.add(name, func.clone());
                    one
                }
                other => {
                    return Err(SessionError::at(
                        format!("diff compares modules, got a {}", other.kind()),
                        span,
                    ))
                }
            };
            let m = match func {
                Some(f) => {
                    let body = m.get(f).ok_or_else(|| {
                        SessionError::at(format!("the module has no function @{f}"), span)
                    })?;
                    let mut one = Module::new();
                    let _ = one.add(f, body.clone());
                    one
                }
                None => m,
            };
            Ok(print_module_with(
                &m,
                PrintOptions {
                    header: false,
                    ..PrintOptions::default()
                },
            ))
        };
        let ta = text_of(&va, a.span)?;
        let tb = text_of(&vb, b.span)?;
        let la = self.source_text(a.span).unwrap_or("a").to_string();
        let lb = self.source_text(b.span).unwrap_or("b").to_string();
        if ta == tb {
            out.display("(no differences)", None, None);
            return Ok(());
        }
        let diff = crate::instrument::print_changed::unified_diff(&ta, &tb, &la, &lb);
        let ansi = self.color.then(|| super::diff::ansi(&diff));
        out.display(diff.clone(), ansi, Some(super::diff::html(&diff)));
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
            out.display(text, None, None);
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
        all.extend(COMMANDS.iter().map(|(n, ..)| n.to_string()));
        let hint = crate::suggest::closest(name, all.iter().map(String::as_str))
            .map(|s| format!("did you mean `{s}`?"));
        Err(SessionError::at(format!("no help for `{name}`"), *span).with_label(hint))
    }
}

/// The statement commands: name, syntax, summary.
pub static COMMANDS: &[(&str, &str, &str)] = &[
    (
        "show",
        "show expr",
        "display a value in full (modules highlighted, pipelines as a tree)",
    ),
    (
        "enter",
        "enter ctx",
        "push a PassContext (its instruments' enter_pass_ctx run)",
    ),
    ("exit", "exit", "pop the innermost entered context"),
    (
        "with",
        "with ctx { statements }",
        "enter, run the block, exit (also when the block fails)",
    ),
    (
        "timing",
        "timing",
        "the PassTimingInstrument results as a table",
    ),
    ("passes", "passes", "the registered passes"),
    ("configs", "configs", "the registered config keys"),
    ("vars", "vars", "the session's variables"),
    (
        "diff",
        "diff a b [@func]",
        "unified diff of two modules' printed text",
    ),
    (
        "help",
        "help [name]",
        "this help, or help on a command, pass, builtin or variable",
    ),
    (
        "break",
        "break NAME | after NAME | changed @f | verify | slower 10ms",
        "pause runs before/after a pass, or after a pass that changes @f, fails the checks or is slow",
    ),
    ("breakpoints", "breakpoints", "the breakpoints and how often each hit"),
    ("delete", "delete N | delete all", "delete a breakpoint, or all of them"),
    (
        "where",
        "where",
        "the running passes of the paused run (sequential > Pass)",
    ),
    (
        "step",
        "step",
        "run the paused run until the next pass has finished, pause again",
    ),
    (
        "continue",
        "continue",
        "run to the next breakpoint or the end (then the statement completes)",
    ),
    (
        "abort",
        "abort",
        "abandon the paused run: nothing is bound, `with` contexts are exited",
    ),
    (
        "ir",
        "show ir | ir[\"main\"]",
        "while a run is paused: the module at the pause point",
    ),
    (
        "history",
        "history | history[k]",
        "the passes of the last run; history[k] is the module after pass k (0: the input)",
    ),
];

fn general_help(s: &Session) -> String {
    let mut out = String::from("Statements:\n");
    for (_, syntax, summary) in COMMANDS {
        out.push_str(&format!("  {syntax:<28} {summary}\n"));
    }
    out.push_str("  name = expr                  bind a value\n\nFunctions and constructors:\n");
    for b in super::builtins::BUILTINS {
        out.push_str(&format!("  {:<28} {}\n", b.name, b.summary));
    }
    out.push_str(&format!(
        "\n{} registered passes: `passes` lists them, `help NAME` describes one.",
        s.pm.registry().entries().len()
    ));
    out
}

fn pass_line(p: &Pass) -> String {
    let info = p.info();
    let mut s = format!(
        "<{} pass {}, opt_level {}",
        info.kind().as_str(),
        info.name(),
        info.opt_level()
    );
    if !info.required().is_empty() {
        let req: Vec<&str> = info.required().iter().map(|r| &**r).collect();
        s.push_str(&format!(", requires {}", req.join(", ")));
    }
    if !p.children().is_empty() {
        s.push_str(&format!(", {} passes", p.children().len()));
    }
    s.push('>');
    s
}

fn tree_rows(kids: &[Pass], ctx: &PassContext, indent: &str, rows: &mut Vec<(String, String)>) {
    for (i, k) in kids.iter().enumerate() {
        let last = i + 1 == kids.len();
        let info = k.info();
        let gate = ctx.gate(info);
        let mark = if gate.enabled() { "✓" } else { "✗" };
        let left = format!(
            "{indent}{} {mark} {}",
            if last { "└─" } else { "├─" },
            info.name()
        );
        let mut right = format!("opt {}", info.opt_level());
        if !info.required().is_empty() {
            let req: Vec<&str> = info.required().iter().map(|r| &**r).collect();
            right.push_str(&format!("   requires {}", req.join(", ")));
        }
        match gate {
            Gate::Disabled => right.push_str("   skipped: in disabled_pass"),
            Gate::Required => right.push_str("   runs: in required_pass"),
            Gate::OptLevel {
                enabled: false,
                context,
                pass,
            } => right.push_str(&format!(
                "   skipped: opt_level {pass} > context opt_level {context}"
            )),
            Gate::OptLevel { .. } => {}
        }
        rows.push((left, right));
        if !k.children().is_empty() {
            let next = format!("{indent}{}", if last { "   " } else { "│  " });
            tree_rows(k.children(), ctx, &next, rows);
        }
    }
}

fn context_table(c: &PassContext, is_current: bool) -> Tab {
    let list = |xs: &[std::sync::Arc<str>]| {
        if xs.is_empty() {
            "[]".to_string()
        } else {
            xs.iter()
                .map(|x| x.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        }
    };
    let insts: Vec<String> = c
        .instruments()
        .iter()
        .map(|i| i.name().to_string())
        .collect();
    let config: Vec<String> = c
        .config()
        .iter()
        .map(|(k, v)| format!("{k}={v:?}"))
        .collect();
    let mut rows = vec![
        vec!["opt_level".to_string(), c.opt_level().to_string()],
        vec!["required_pass".to_string(), list(c.required_pass())],
        vec!["disabled_pass".to_string(), list(c.disabled_pass())],
        vec![
            "instruments".to_string(),
            if insts.is_empty() {
                "[]".into()
            } else {
                insts.join(", ")
            },
        ],
        vec![
            "config".to_string(),
            if config.is_empty() {
                "{}".into()
            } else {
                config.join(", ")
            },
        ],
    ];
    if is_current {
        rows.insert(0, vec!["context".into(), "current".into()]);
    }
    Tab {
        header: vec!["PassContext".into(), "".into()],
        rows,
    }
}

fn timing_html(records: &[crate::instrument::TimingRecord]) -> String {
    use crate::instrument::timing::human_duration;
    let top: f64 = records.iter().map(|r| r.total.as_secs_f64()).sum();
    let mut rows = Vec::new();
    fn walk(
        r: &crate::instrument::TimingRecord,
        depth: usize,
        top: f64,
        parent: f64,
        rows: &mut Vec<Vec<String>>,
    ) {
        let t = r.total.as_secs_f64();
        let pct = |a: f64, b: f64| {
            if b > 0.0 {
                format!("{:.1}", a / b * 100.0)
            } else {
                "-".into()
            }
        };
        rows.push(vec![
            format!("{}{}", "\u{a0}\u{a0}".repeat(depth * 2), r.name),
            human_duration(r.total),
            human_duration(r.self_time()),
            pct(t, top),
            pct(t, parent),
        ]);
        for c in &r.children {
            walk(c, depth + 1, top, t, rows);
        }
    }
    for r in records {
        walk(r, 0, top, top, &mut rows);
    }
    Tab {
        header: ["pass", "total", "self", "% all", "% parent"]
            .map(String::from)
            .to_vec(),
        rows,
    }
    .html()
}
