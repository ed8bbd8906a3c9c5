//! `passlab opt FILE -p PIPELINE`: the batch driver, in the spirit of LLVM's `opt` and MLIR's
//! `mlir-opt`. It holds no pass logic: the pipeline is read by the session's `pipeline`
//! (the text `text(p)` writes), the flags become a `PassContext` (opt_level, required and
//! disabled passes, config, instruments), and the run is one statement executed by a
//! `Session`, the path the REPL, scripts and the kernel take. The optimized module goes to
//! standard output (or `-o`), what instruments print to standard error, as `opt` does.

use super::repl::stdio;
use passlab::instrument::{
    Bisect, EventLog, InstrumentRef, PassPrintingInstrument, PassTimingInstrument, PrintAfterAll,
    PrintBeforeAll, PrintChanged, Verify,
};
use passlab::ir::Module;
use passlab::lang::ast::{ExprKind, StmtKind};
use passlab::pass::{ConfigValue, Gate, Pass, PassContext};
use passlab::session::{Origin, PartKind, Session, Value};
use std::sync::Arc;

/// The flags of `passlab opt`.
#[derive(clap::Args)]
pub struct OptArgs {
    pub file: String,
    /// The pipeline: a command-language pass expression (what `text(p)` writes), e.g.
    /// 'Sequential([InferType(), FoldConstant()], opt_level=3)', or one pass name.
    #[arg(short = 'p', long = "passes", value_name = "PIPELINE")]
    pub pipeline: String,
    /// The file to write the module to (stdout when absent).
    #[arg(short, long)]
    pub out: Option<String>,
    /// The context's opt_level.
    #[arg(long, default_value_t = 2)]
    pub opt_level: i32,
    /// The target to run for, as TVM writes it ('llvm -mtriple=aarch64-linux-gnu
    /// -mattr=+sme'): entered around the context, as `with Target(...)` in a session.
    #[arg(long, value_name = "TARGET")]
    pub target: Option<String>,
    /// A pass the context disables (repeatable).
    #[arg(long = "disable-pass", value_name = "PASS")]
    pub disable_pass: Vec<String>,
    /// A pass the context requires (repeatable).
    #[arg(long = "required-pass", value_name = "PASS")]
    pub required_pass: Vec<String>,
    /// A config entry KEY=VALUE (repeatable); VALUE is a literal (3, true, ["a"]) or text.
    #[arg(long, value_name = "KEY=VALUE")]
    pub config: Vec<String>,
    /// Print a diff of the module after each pass that changed it.
    #[arg(long)]
    pub print_changed: bool,
    /// Print the module before the named pass (repeatable).
    #[arg(long = "print-before", value_name = "PASS")]
    pub print_before: Vec<String>,
    /// Print the module after the named pass (repeatable).
    #[arg(long = "print-after", value_name = "PASS")]
    pub print_after: Vec<String>,
    /// Print the module before every pass.
    #[arg(long)]
    pub print_before_all: bool,
    /// Print the module after every pass.
    #[arg(long)]
    pub print_after_all: bool,
    /// Print only these functions of a printed module (repeatable).
    #[arg(long = "filter-print-funcs", value_name = "FUNC")]
    pub filter_print_funcs: Vec<String>,
    /// The timing table and the flat list by self time, to stderr.
    #[arg(long)]
    pub time_passes: bool,
    /// Check well-formedness and types after every pass.
    #[arg(long)]
    pub verify_each: bool,
    /// Run only the first N passes (the Bisect instrument).
    #[arg(long, value_name = "N")]
    pub bisect_limit: Option<usize>,
    /// On failure, write a .passlab script that reproduces it.
    #[arg(long, value_name = "FILE")]
    pub reproducer: Option<String>,
    /// Print the per-pass events as one JSON object (the module then goes only to -o).
    #[arg(long)]
    pub json: bool,
}

/// Runs the pipeline on `module`; `Err` holds the rendered error (exit status 1).
pub fn run(args: &OptArgs, module: Module) -> Result<(), String> {
    let mut s = Session::new();
    s.set_color(false);
    s.set_html(false);
    let pass = s
        .pipeline(&args.pipeline)
        .map_err(|e| e.render(&Origin::new("<pipeline>", args.pipeline.as_str()), false))?;
    let events = Arc::new(EventLog::new());
    let timing = Arc::new(PassTimingInstrument::new());
    let ctx = context(args, &events, &timing)?;
    // The pipeline as the user wrote it (a bare name as a call), so an error points into it.
    let trimmed = args.pipeline.trim();
    let expr = if s.pass_manager().registry().contains(trimmed) {
        format!("{trimmed}()")
    } else {
        trimmed.to_string()
    };
    let mut statement = format!("with ctx {{\n  output = {expr}(input)\n}}");
    if let Some(text) = &args.target {
        let target =
            passlab::target::Target::parse(text).map_err(|e| format!("error: --target: {e}"))?;
        s.set_var("target", Value::Target(target));
        statement = format!("with target {{\n{statement}\n}}");
    }
    s.set_source_name("<opt>");
    s.set_var("input", Value::Module(module.clone()));
    s.set_var("ctx", Value::Context(ctx.clone()));
    let outputs = s.execute(&statement);
    let mut error = None;
    for part in &outputs.parts {
        if part.kind == PartKind::Error {
            error = Some(part.plain.clone());
        } else if part.kind != PartKind::Clear {
            stdio::err(&filter_funcs(&part.plain, &args.filter_print_funcs));
        }
    }
    if args.time_passes && !timing.records().is_empty() {
        // Full width: `opt` output is read by scripts and lit-style checks.
        let records = timing.records();
        stdio::err(&passlab::instrument::timing::render_table(&records, None));
        stdio::err("\n");
        stdio::err(&passlab::instrument::timing_views::render_flat(
            &records, None,
        ));
    }
    let mut notes = String::new();
    if let (Some(_), Some(path)) = (&error, &args.reproducer) {
        notes = write_reproducer(path, &s);
    }
    if args.json {
        let doc = serde_json::json!({
            "file": args.file,
            "pipeline": passlab::pass::pipeline_text(&pass).ok(),
            "ok": error.is_none(),
            "error": error,
            "events": events.to_json(),
            "gated": gated(&pass, &ctx),
        });
        stdio::out(&format!("{doc}\n"));
    }
    if let Some(err) = error {
        return Err(format!("{}{notes}", err.trim_end()));
    }
    let Some(Value::Module(out)) = s.var("output").cloned() else {
        return Err("error: the pipeline gave no module".into());
    };
    let text = passlab::text::try_print_module_with(&out, Default::default())
        .map_err(|e| format!("error: {e}"))?;
    match &args.out {
        Some(path) => passlab::files::write_atomic(path.as_ref(), text.as_bytes())
            .map_err(|e| format!("error: cannot write {path}: {e}")),
        None if args.json => Ok(()),
        None => {
            stdio::out(&text);
            Ok(())
        }
    }
}

/// The context the flags describe.
fn context(
    args: &OptArgs,
    events: &Arc<EventLog>,
    timing: &Arc<PassTimingInstrument>,
) -> Result<PassContext, String> {
    let mut instruments: Vec<InstrumentRef> = Vec::new();
    if args.json {
        instruments.push(events.clone());
    }
    if args.verify_each {
        instruments.push(Arc::new(Verify::new()));
    }
    if let Some(n) = args.bisect_limit {
        instruments.push(Arc::new(Bisect::new(n)));
    }
    if args.print_before_all {
        instruments.push(Arc::new(PrintBeforeAll));
    }
    if !args.print_before.is_empty() || !args.print_after.is_empty() {
        instruments.push(Arc::new(PassPrintingInstrument::new(
            &args.print_before,
            &args.print_after,
        )));
    }
    if args.print_after_all {
        instruments.push(Arc::new(PrintAfterAll));
    }
    if args.print_changed {
        instruments.push(Arc::new(PrintChanged::new().only(&args.filter_print_funcs)));
    }
    if args.time_passes {
        instruments.push(timing.clone());
    }
    let mut b = PassContext::builder()
        .opt_level(args.opt_level)
        .required_pass(&args.required_pass)
        .disabled_pass(&args.disable_pass)
        .instruments(instruments);
    for kv in &args.config {
        let Some((k, v)) = kv.split_once('=') else {
            return Err(format!("error: --config takes KEY=VALUE, got {kv:?}"));
        };
        b = b.config(k.trim(), config_value(v.trim()));
    }
    b.build().map_err(|e| format!("error: {e}"))
}

/// A `--config` value: a literal of the command language (`3`, `true`, `["a", "b"]`,
/// `{"k": ["v"]}`), or else the text itself as a string.
fn config_value(text: &str) -> ConfigValue {
    let literal = passlab::lang::parse_program(text, passlab::session::COMMANDS)
        .ok()
        .and_then(|stmts| match stmts.as_slice() {
            [s] => match &s.kind {
                StmtKind::Expr(e) => literal(&e.kind),
                _ => None,
            },
            _ => None,
        });
    literal.unwrap_or_else(|| ConfigValue::Str(text.into()))
}

fn literal(e: &ExprKind) -> Option<ConfigValue> {
    Some(match e {
        ExprKind::Int(i) => ConfigValue::Int(*i),
        ExprKind::Float(x) => ConfigValue::Float(*x),
        ExprKind::Bool(b) => ConfigValue::Bool(*b),
        ExprKind::Str(s) => ConfigValue::Str(s.as_str().into()),
        ExprKind::None => ConfigValue::None,
        ExprKind::List(items) => ConfigValue::List(
            items
                .iter()
                .map(|x| literal(&x.kind))
                .collect::<Option<_>>()?,
        ),
        ExprKind::Map(items) => ConfigValue::Map(
            items
                .iter()
                .map(|(k, v)| match &k.kind {
                    ExprKind::Str(k) => Some((k.as_str().into(), literal(&v.kind)?)),
                    _ => None,
                })
                .collect::<Option<_>>()?,
        ),
        _ => return None,
    })
}

/// Keeps, of a printed module, the definitions of the named functions (`def @f` up to its
/// closing `}` at the start of a line); text that is not a printed module passes unchanged.
fn filter_funcs(text: &str, funcs: &[String]) -> String {
    if funcs.is_empty() {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut keep = true;
    for line in text.split_inclusive('\n') {
        if let Some(rest) = line.strip_prefix("def @") {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '.')
                .collect();
            keep = funcs.iter().any(|f| f.trim_start_matches('@') == name);
            if keep {
                out.push_str(line);
            }
            continue;
        }
        if keep {
            out.push_str(line);
        }
        if line.trim_end() == "}" && !keep {
            keep = true;
        }
    }
    out
}

/// The passes the opt_level gate or `disabled_pass` keeps out of the run (no instrument sees
/// them), with the reason, from the pipeline's tree.
fn gated(root: &Pass, ctx: &PassContext) -> serde_json::Value {
    let mut out = Vec::new();
    // Depth-first in run order; the root is applied directly, so no gate decides it.
    let mut stack: Vec<(&Pass, usize)> = root.children().iter().rev().map(|c| (c, 1)).collect();
    while let Some((p, depth)) = stack.pop() {
        let reason = match ctx.gate(p.info()) {
            Gate::Disabled => Some("disabled_pass".to_string()),
            Gate::OptLevel {
                enabled: false,
                context,
                pass,
            } => Some(format!("opt_level {pass} > context opt_level {context}")),
            _ => None,
        };
        match reason {
            Some(reason) => out.push(serde_json::json!({
                "pass": p.name(),
                "depth": depth,
                "status": "skipped",
                "reason": reason,
            })),
            None => stack.extend(p.children().iter().rev().map(|c| (c, depth + 1))),
        }
    }
    serde_json::Value::Array(out)
}

/// Writes the reproducer of the session's last failure; returns the note to print after the
/// error.
fn write_reproducer(path: &str, s: &Session) -> String {
    let Some(r) = s.last_failure() else {
        return "\nnote: no reproducer: the failure was not in a pass".into();
    };
    match r.write(path.as_ref()) {
        Ok(_) => format!("\nnote: wrote a reproducer to {path} (`passlab run {path}`)"),
        Err(e) => format!("\nerror: cannot write the reproducer {path}: {e}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_values_are_literals_or_strings() {
        assert_eq!(config_value("3"), ConfigValue::Int(3));
        assert_eq!(config_value("true"), ConfigValue::Bool(true));
        assert_eq!(
            config_value("[\"a\"]"),
            ConfigValue::List(vec![ConfigValue::Str("a".into())])
        );
        assert_eq!(config_value("NCHW"), ConfigValue::Str("NCHW".into()));
        assert_eq!(config_value("a b"), ConfigValue::Str("a b".into()));
    }

    #[test]
    fn the_function_filter_keeps_named_definitions() {
        let text =
            "PrintIR:\n#[version = \"0.0.5\"]\ndef @f() {\n  1f\n}\n\ndef @main() {\n  @f()\n}\n";
        assert_eq!(
            filter_funcs(text, &["main".into()]),
            "PrintIR:\n#[version = \"0.0.5\"]\n\ndef @main() {\n  @f()\n}\n"
        );
    }
}
