//! How values look, independent of a session: plain text (tests, transcripts, `NO_COLOR`),
//! ANSI for terminals and HTML for Jupyter. Modules are summarised when large and highlighted
//! when shown; pipelines are a tree that says which passes would run under a given context;
//! contexts, timing and stats are tables; diffs are unified text or a side-by-side table. The
//! session's `display.rs` and the notebook displays (`crate::notebook`, evcxr) both call these,
//! so every value looks the same in the REPL, our Jupyter kernel and evcxr.

use super::{highlight, highlight_html};
use super::{html_escape, pre};
use crate::instrument::{Instrument, PassTimingInstrument, StatRecord, Stats};
use crate::ir::{visit, Expr, ExprKind, Module};
use crate::pass::{Gate, Pass, PassContext, PassInfo};
use crate::text::{print_expr, print_module_with, PrintOptions};
use comfy_table::{presets, Table};

/// Modules longer than this are summarised when displayed without `show`.
const SUMMARY_LINES: usize = 40;

/// A table rendered both ways.
pub(crate) struct Tab {
    pub header: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

impl Tab {
    /// The table drawn with comfy-table. Fitted to `width` columns when there is one: the
    /// widest column wraps while the others keep their width, if that leaves it 30 columns;
    /// else each row becomes a short block (see [`Tab::records`]).
    pub fn plain(&self, width: Option<usize>) -> String {
        let mut t = Table::new();
        t.load_style(presets::UTF8_FULL_CONDENSED);
        t.set_header(self.header.clone());
        for r in &self.rows {
            t.add_row(r.clone());
        }
        let Some(w) = width.filter(|&w| w >= 40) else {
            return t.to_string();
        };
        let widths: Vec<usize> = (0..self.header.len())
            .map(|c| {
                self.rows
                    .iter()
                    .chain(std::iter::once(&self.header))
                    .filter_map(|r| r.get(c))
                    .map(|x| x.chars().count())
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        // Each column costs its content, two of padding and one of border.
        let natural: usize = widths.iter().map(|x| x + 3).sum::<usize>() + 1;
        if natural <= w {
            return t.to_string();
        }
        let flex = (0..widths.len()).max_by_key(|&c| widths[c]).unwrap_or(0);
        let others: usize = natural - (widths[flex] + 3);
        if others + 3 + 30 > w {
            return self.records(w);
        }
        super::wrap::fit_table(&mut t, Some(w));
        for c in (0..widths.len()).filter(|&c| c != flex) {
            if let Some(col) = t.column_mut(c) {
                col.set_constraint(comfy_table::ColumnConstraint::ContentWidth);
            }
        }
        t.to_string()
    }

    /// The rows as blocks, for a terminal too narrow for the table: the first cell on a line
    /// of its own, then the short cells as `header: value` on one line, then each long one
    /// (over 24 characters) on its own, all wrapped to `width`.
    fn records(&self, width: usize) -> String {
        let mut out = String::new();
        for row in &self.rows {
            let Some(first) = row.first() else { continue };
            out.push_str(first.trim());
            out.push('\n');
            let cells = || {
                self.header
                    .iter()
                    .zip(row)
                    .skip(1)
                    .map(|(h, c)| (h, c.trim()))
                    .filter(|(_, c)| !c.is_empty())
            };
            let short: Vec<String> = cells()
                .filter(|(_, c)| c.chars().count() <= 24)
                .map(|(h, c)| format!("{h}: {c}"))
                .collect();
            if !short.is_empty() {
                let line = format!("    {}", short.join("   "));
                out.push_str(&super::wrap::wrap_text(&line, Some(width)));
                out.push('\n');
            }
            for (h, c) in cells().filter(|(_, c)| c.chars().count() > 24) {
                let line = format!("    {h}: {c}");
                out.push_str(&super::wrap::wrap_text(&line, Some(width)));
                out.push('\n');
            }
        }
        out.trim_end().to_string()
    }

    /// The table as static HTML: numeric columns (every filled cell a number, a duration, a
    /// percentage or `a → b`) right-aligned under right-aligned headers, the others left.
    pub fn html(&self) -> String {
        self.html_with(None)
    }

    /// The table as HTML whose headers sort the rows when clicked (a small inline script; where
    /// scripts do not run, as in JupyterLab's untrusted output, it stays the static table).
    /// With `depths` (one per row, a tree in pre-order) sorting reorders siblings only, so the
    /// tree stays a tree.
    pub fn sortable_html(&self, depths: Option<&[usize]>) -> String {
        let mut s = self.html_with(Some(depths.unwrap_or(&[])));
        s.push_str(SORT_SCRIPT);
        s
    }

    fn html_with(&self, sort: Option<&[usize]>) -> String {
        let numeric: Vec<bool> = (0..self.header.len())
            .map(|c| {
                let mut cells = self.rows.iter().filter_map(|r| r.get(c)).map(|x| x.trim());
                let mut any = false;
                let all = cells.all(|x| match sort_value(x) {
                    Some(_) => {
                        any = true;
                        true
                    }
                    None => x.is_empty() || x == "-",
                });
                all && any
            })
            .collect();
        let align = |c: usize| {
            if numeric.get(c).copied().unwrap_or(false) {
                "right"
            } else {
                "left"
            }
        };
        let mut s = format!("<table class=\"passlab\" style=\"{TABLE_STYLE}\"");
        if let Some(depths) = sort {
            s.push_str(" data-passlab-sort=\"");
            s.push_str(if depths.is_empty() { "flat" } else { "tree" });
            s.push('"');
        }
        s.push_str("><thead><tr>");
        for (c, h) in self.header.iter().enumerate() {
            s.push_str(&format!(
                "<th style=\"{CELL_STYLE};text-align:{}\">{}</th>",
                align(c),
                html_escape(h)
            ));
        }
        s.push_str("</tr></thead><tbody>");
        for (i, r) in self.rows.iter().enumerate() {
            match sort.and_then(|d| d.get(i)) {
                Some(d) => s.push_str(&format!("<tr data-depth=\"{d}\">")),
                None => s.push_str("<tr>"),
            }
            for (c, cell) in r.iter().enumerate() {
                let text = cell.trim_end();
                let text = if numeric[c] { text.trim_start() } else { text };
                let key = match (sort, sort_value(text)) {
                    (Some(_), Some(v)) => format!(" data-v=\"{v}\""),
                    _ => String::new(),
                };
                s.push_str(&format!(
                    "<td style=\"{CELL_STYLE};text-align:{}\"{key}>{}</td>",
                    align(c),
                    html_escape(text)
                ));
            }
            s.push_str("</tr>");
        }
        s.push_str("</tbody></table>");
        s
    }
}

/// The tables' look, inline (notebook front ends and nbconvert's exports drop stylesheets of
/// their own): monospace, so columns of numbers line up digit under digit.
const TABLE_STYLE: &str = "border-collapse:collapse;font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,'DejaVu Sans Mono',monospace;font-size:12px";
const CELL_STYLE: &str = "padding:1px 8px;white-space:pre;font-variant-numeric:tabular-nums";

/// The number a cell sorts by, if it is numeric: `12`, `-3.5`, `40.0 %`, a duration
/// (`400 us`, `1.2 ms`, `3.00 s`, in microseconds) or `before → after` (the after count).
pub(crate) fn sort_value(cell: &str) -> Option<f64> {
    let cell = cell.trim();
    let cell = match cell.rsplit_once(" → ") {
        Some((before, after)) => {
            before.trim().parse::<f64>().ok()?;
            after
        }
        None => cell,
    };
    let (num, unit) = match cell.split_once(' ') {
        Some((n, u)) => (n, u.trim()),
        None => (cell.strip_suffix('%').unwrap_or(cell), ""),
    };
    // Durations in microseconds (short decimals in the HTML).
    let scale = match unit {
        "" | "%" => 1.0,
        "ns" => 1e-3,
        "us" | "µs" => 1.0,
        "ms" => 1e3,
        "s" => 1e6,
        _ => return None,
    };
    if !num.starts_with(|c: char| c.is_ascii_digit() || c == '-') {
        return None;
    }
    num.parse::<f64>()
        .ok()
        .filter(|v| v.is_finite())
        .map(|v| (v * scale * 1e3).round() / 1e3)
}

/// Makes the headers of the table just before it sort its rows (numbers by `data-v`, text by
/// its content; a second click reverses). A tree (`data-depth` on rows) sorts each node's
/// children and keeps them under it. Runs once per table, in JupyterLab's trusted output and in
/// exported HTML; where scripts are dropped, the table stays as printed.
const SORT_SCRIPT: &str = r#"<script>(function(){var t=document.currentScript&&document.currentScript.previousElementSibling;if(!t||t.tagName!=="TABLE"||t.dataset.passlabSorted)return;t.dataset.passlabSorted="1";var hs=t.tHead.rows[0].cells,b=t.tBodies[0],tree=t.dataset.passlabSort==="tree",dir={};function key(r,c){var d=r.cells[c];if(!d)return"";return d.dataset.v!==undefined?parseFloat(d.dataset.v):d.textContent.trim().toLowerCase();}function cmp(c,s){return function(x,y){var a=key(x.r,c),b2=key(y.r,c);if(typeof a==="number"&&typeof b2==="number")return s*(a-b2)||x.i-y.i;a=String(a);b2=String(b2);return s*(a<b2?-1:a>b2?1:0)||x.i-y.i;};}function sortBy(c){var s=dir[c]=dir[c]===-1?1:(dir[c]===1?-1:(t.rows[1]&&t.rows[1].cells[c]&&t.rows[1].cells[c].dataset.v!==undefined?-1:1));var rows=Array.prototype.slice.call(b.rows),root={kids:[]},stack=[{d:-1,n:root}];rows.forEach(function(r,i){var d=tree?parseInt(r.dataset.depth||"0",10):0,n={r:r,i:i,kids:[]};while(stack.length>1&&stack[stack.length-1].d>=d)stack.pop();stack[stack.length-1].n.kids.push(n);stack.push({d:d,n:n});});var out=[];(function emit(n){n.kids.sort(cmp(c,s));n.kids.forEach(function(k){out.push(k.r);emit(k);});})(root);out.forEach(function(r){b.appendChild(r);});for(var j=0;j<hs.length;j++){hs[j].dataset.arrow="";hs[j].lastChild.textContent=j===c?(s>0?" ▲":" ▼"):"";}}for(var i=0;i<hs.length;i++){(function(c){var h=hs[c],m=document.createElement("span");h.appendChild(m);h.style.cursor="pointer";h.title="click to sort by "+h.firstChild.textContent;h.addEventListener("click",function(){sortBy(c);});})(i);}})();</script>"#;

pub(crate) fn module_text(m: &Module) -> String {
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

/// One value's renderings: plain text (always), ANSI colours for a terminal (when they add
/// something) and HTML (when there is more to show than preformatted text).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rendering {
    pub plain: String,
    pub ansi: Option<String>,
    pub html: Option<String>,
}

impl Rendering {
    /// Plain text only.
    pub fn plain(text: impl Into<String>) -> Rendering {
        Rendering {
            plain: text.into(),
            ansi: None,
            html: None,
        }
    }

    /// Plain text, and the same as an HTML `<pre>` block (kept monospaced in a notebook).
    pub fn pre(text: impl Into<String>) -> Rendering {
        let plain = text.into();
        let html = Some(pre(&plain));
        Rendering {
            plain,
            ansi: None,
            html,
        }
    }

    /// A table, drawn with comfy-table (fitted to `width` columns) and as an HTML table.
    pub(crate) fn table(tab: &Tab, width: Option<usize>) -> Rendering {
        Rendering {
            plain: tab.plain(width),
            ansi: None,
            html: Some(tab.html()),
        }
    }

    /// Relay text: highlighted for a terminal and in HTML, as `front` shows them.
    fn ir(text: String, front: Front) -> Rendering {
        Rendering {
            ansi: front.color.then(|| highlight(&text)),
            html: front.html.then(|| highlight_html(&text)),
            plain: text,
        }
    }
}

/// What a front end shows besides plain text: ANSI colours (a terminal that takes them) and
/// HTML (Jupyter, evcxr). The renderings a front end does not show are not made: on a 100k-op
/// model the HTML of printed IR or of a diff costs more than printing it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Front {
    pub color: bool,
    pub html: bool,
    /// The terminal's width in columns, which tables and help fit; `None`: no limit.
    pub width: Option<usize>,
}

impl Front {
    /// A notebook: HTML, no ANSI colours.
    pub const NOTEBOOK: Front = Front {
        color: false,
        html: true,
        width: None,
    };
}

/// A module: its text, highlighted; a summary instead when it is long and not `full`.
pub fn module_rendering(m: &Module, full: bool, front: Front) -> Rendering {
    let text = module_text(m);
    if !full && text.lines().count() > SUMMARY_LINES {
        Rendering::pre(format!(
            "{} — `show` it for the full text",
            module_summary(m)
        ))
    } else {
        Rendering::ir(text, front)
    }
}

/// The printing of IR shown to people inside a larger text (no version header).
fn body_options() -> PrintOptions {
    PrintOptions {
        header: false,
        ..PrintOptions::default()
    }
}

/// A module holding just `func`, bound to `@name`.
pub fn single_function(name: &str, func: &Expr) -> Module {
    let mut one = Module::new();
    let _ = one.add(name, func.clone());
    one
}

/// A function of a module, printed as its definition (`def @name(...)`).
pub fn function_rendering(name: &str, func: &Expr, front: Front) -> Rendering {
    Rendering::ir(
        print_module_with(&single_function(name, func), body_options()),
        front,
    )
}

/// Any expression (a function prints as `fn (...) { ... }`, as TVM prints `mod["main"]`).
pub fn expr_rendering(e: &Expr, front: Front) -> Rendering {
    Rendering::ir(print_expr(e, body_options()), front)
}

/// A pass in one line: `<sequential pass sequential, opt_level 0, 3 passes>`.
pub fn pass_line_rendering(p: &Pass) -> Rendering {
    Rendering::pre(pass_line(p))
}

/// A pipeline as a tree under `ctx` (see [`pass_tree`]).
pub fn pass_tree_rendering(p: &Pass, ctx: &PassContext) -> Rendering {
    Rendering::pre(pass_tree(p, ctx))
}

/// A pipeline as a tree: each pass, its level, its required list and whether it would run
/// under `ctx` (and why not).
pub fn pass_tree(p: &Pass, ctx: &PassContext) -> String {
    let info = p.info();
    let mut lines = vec![format!(
        "{} ({}, opt_level {})",
        info.name(),
        info.kind().as_str(),
        info.opt_level()
    )];
    let mut rows = Vec::new();
    tree_rows(p.children(), ctx, "", &mut rows);
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

/// A context as a table (with a `context: current` row when it is the current one).
pub fn context_rendering(c: &PassContext, is_current: bool, front: Front) -> Rendering {
    Rendering::table(&context_table(c, is_current), front.width)
}

/// A timing instrument's records as a table (what the `timing` command shows), with the
/// passes still `running` around a pause (outermost first; empty when no run is paused).
pub fn timing_rendering(t: &PassTimingInstrument, running: &[PassInfo], front: Front) -> Rendering {
    let records = t.records_paused(running);
    if records.is_empty() {
        return Rendering::plain("(no passes timed yet)");
    }
    Rendering {
        plain: crate::instrument::timing::render_table(&records, front.width),
        ansi: None,
        html: Some(timing_html(&records)),
    }
}

/// The runs a `Stats` instrument recorded, as a tree-shaped table: pass, kind, node count
/// before → after, changed.
pub fn stats_rendering(s: &Stats, front: Front) -> Rendering {
    let records = s.records();
    if records.is_empty() {
        return Rendering::plain("(no passes recorded yet)");
    }
    let order = stats_tree_order(&records);
    let tab = |indent: &str| Tab {
        header: ["pass", "kind", "nodes", "changed"]
            .map(String::from)
            .to_vec(),
        rows: order
            .iter()
            .map(|r| {
                vec![
                    format!("{}{}", indent.repeat(r.depth), r.pass),
                    r.kind.as_str().to_string(),
                    format!("{} → {}", r.nodes_before, r.nodes_after),
                    if r.changed { "yes" } else { "no" }.to_string(),
                ]
            })
            .collect(),
    };
    let depths: Vec<usize> = order.iter().map(|r| r.depth).collect();
    Rendering {
        plain: tab("  ").plain(front.width),
        ansi: None,
        html: Some(tab("\u{a0}\u{a0}").sortable_html(Some(&depths))),
    }
}

/// Stats records come in completion order (a Sequential after its children); this is the
/// tree's pre-order (a Sequential before its children), children in the order they ran.
fn stats_tree_order(records: &[StatRecord]) -> Vec<&StatRecord> {
    struct Node<'a> {
        rec: &'a StatRecord,
        kids: Vec<Node<'a>>,
    }
    fn emit<'a>(n: Node<'a>, out: &mut Vec<&'a StatRecord>) {
        out.push(n.rec);
        for k in n.kids {
            emit(k, out);
        }
    }
    let mut done: Vec<Node<'_>> = Vec::new();
    for rec in records {
        let first_kid = done
            .iter()
            .rposition(|n| n.rec.depth <= rec.depth)
            .map_or(0, |i| i + 1);
        let kids = done.split_off(first_kid);
        done.push(Node { rec, kids });
    }
    let mut out = Vec::with_capacity(records.len());
    for n in done {
        emit(n, &mut out);
    }
    out
}

/// An instrument as `show` displays it: its name, then its results when it keeps a table
/// (timing, stats; `running` as for [`timing_rendering`]).
pub fn instrument_rendering(i: &dyn Instrument, running: &[PassInfo], front: Front) -> Rendering {
    let results = if let Some(t) = i.downcast_ref::<PassTimingInstrument>() {
        timing_rendering(t, running, front)
    } else if let Some(s) = i.downcast_ref::<Stats>() {
        stats_rendering(s, front)
    } else {
        return Rendering::pre(format!("<instrument {}>", i.name()));
    };
    Rendering {
        plain: format!("{}\n{}", i.name(), results.plain),
        ansi: None,
        html: Some(format!(
            "{}{}",
            pre(i.name()),
            results.html.unwrap_or_else(|| pre(&results.plain))
        )),
    }
}

/// The unified diff of two modules' printed text (labelled `a_label` and `b_label`),
/// coloured for a terminal and side by side in HTML; `(no differences)` when they print the
/// same.
pub fn diff_rendering(
    a: &Module,
    a_label: &str,
    b: &Module,
    b_label: &str,
    front: Front,
) -> Rendering {
    let ta = print_module_with(a, body_options());
    let tb = print_module_with(b, body_options());
    if ta == tb {
        return Rendering::plain("(no differences)");
    }
    let diff = crate::instrument::print_changed::unified_diff(&ta, &tb, a_label, b_label);
    Rendering {
        ansi: front.color.then(|| super::diff::ansi(&diff)),
        html: front.html.then(|| super::diff::html(&diff)),
        plain: diff,
    }
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
    let config: Vec<String> = c.config().iter().map(|(k, v)| format!("{k}={v}")).collect();
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
        depths: &mut Vec<usize>,
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
            format!(
                "{}{}{}",
                "\u{a0}\u{a0}".repeat(depth * 2),
                r.name,
                r.status.suffix()
            ),
            human_duration(r.total),
            human_duration(r.self_time()),
            pct(t, top),
            pct(t, parent),
        ]);
        depths.push(depth);
        for c in &r.children {
            walk(c, depth + 1, top, t, rows, depths);
        }
    }
    let mut depths = Vec::new();
    for r in records {
        walk(r, 0, top, top, &mut rows, &mut depths);
    }
    Tab {
        header: ["pass", "total", "self", "% all", "% parent"]
            .map(String::from)
            .to_vec(),
        rows,
    }
    .sortable_html(Some(&depths))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_that_sort_as_numbers() {
        assert_eq!(sort_value("12"), Some(12.0));
        assert_eq!(sort_value(" 1.2 ms"), Some(1200.0));
        assert_eq!(sort_value("3.00 s"), Some(3e6));
        assert_eq!(sort_value("400 us"), Some(400.0));
        assert_eq!(sort_value("25.0"), Some(25.0));
        assert_eq!(sort_value("34 → 32"), Some(32.0));
        for text in [
            "",
            "-",
            "yes",
            "InferType",
            "1 pass",
            "x → 3",
            "[]",
            "0.1.0",
        ] {
            assert_eq!(sort_value(text), None, "{text}");
        }
    }

    #[test]
    fn numbers_are_right_aligned_under_right_aligned_headers() {
        let tab = Tab {
            header: ["#", "pass", "time", "nodes", "default"]
                .map(String::from)
                .to_vec(),
            rows: vec![
                ["1", "InferType", "   12 us", "7 → 7", "false"]
                    .map(String::from)
                    .to_vec(),
                ["2", "FoldConstant", "1.5 ms", "7 → 4", "256"]
                    .map(String::from)
                    .to_vec(),
            ],
        };
        let h = tab.html();
        let align = |cell: &str| {
            let at = h.find(cell).unwrap_or_else(|| panic!("{cell} in {h}"));
            let open = h[..at].rfind('<').unwrap();
            h[open..at].contains("text-align:right")
        };
        assert!(align(">#</th>") && align(">time</th>") && align(">nodes</th>"));
        assert!(!align(">pass</th>") && !align(">default</th>"));
        assert!(align(">12 us</td>") && align(">7 → 4</td>") && align(">2</td>"));
        assert!(!align(">FoldConstant</td>") && !align(">256</td>"));
        assert!(!h.contains("<script"), "a plain table has no script");
        // Sortable: the same table, each row's depth and number, and the script after it.
        let s = tab.sortable_html(Some(&[0, 1]));
        assert!(s.contains("data-passlab-sort=\"tree\""));
        assert!(s.contains("<tr data-depth=\"1\">"));
        assert!(s.contains(" data-v=\"1500\">1.5 ms</td>"), "{s}");
        assert!(s.ends_with("</table><script>(function(){") || s.contains("</table><script>"));
        assert!(s.ends_with("</script>"));
    }
}
