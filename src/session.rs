//! The session engine: `Session::execute(&str) -> Outputs`, the one entry point both front
//! ends (terminal REPL, Jupyter kernel) and the script runner call. A session owns its
//! variables and its [`PassManager`] (default context, entered contexts, registry, output
//! sink). Parsing has no effects; a statement that fails leaves every variable as it was.

mod bisect;
pub mod builtins;
pub mod commands;
pub mod complete;
mod complete_kind;
mod contexts;
pub mod debug;
pub mod display;
pub mod error;
pub mod eval;
pub mod history;
pub mod outputs;
mod pipeline;
mod reduce;
pub mod replay;
pub mod reproducer;
pub use crate::passes::rewrite_rule as rewrite;
pub mod sink;
mod suspend;
mod tensors;
mod timing_export;
pub mod value;

pub use commands::COMMANDS;
pub use error::{Origin, SessionError};
pub use outputs::{LiveOutput, Outputs, Part, PartKind};
pub use value::Value;

use crate::instrument::InstrumentRef;
use crate::lang::ast::{Stmt, StmtKind};
use crate::pass::{Pass, PassManager};
use crate::present::render;
use debug::Debugger;
pub use sink::SessionSink;
use std::collections::BTreeMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use suspend::Exec;

/// One interactive session.
pub struct Session {
    pub(crate) vars: BTreeMap<String, Value>,
    pub(crate) pm: PassManager,
    pub(crate) sink: SessionSink,
    /// Render ANSI colours in the `ansi` parts.
    pub(crate) color: bool,
    /// Make the `html` renderings of printed IR and diffs (a notebook shows them; a terminal
    /// does not, and on large models they cost more than the text).
    pub(crate) html: bool,
    /// The front end's width in columns (tables and help fit it); `None`: no limit.
    width: Option<usize>,
    /// Relative paths in `load`/`save`/`DumpIR` resolve against this directory.
    pub(crate) base_dir: PathBuf,
    /// The last PassTimingInstrument a context held, for `timing` after a `with` block.
    pub(crate) last_timing: Option<InstrumentRef>,
    interrupt: Arc<AtomicBool>,
    /// The name used for the input in error locations (`<input>`, a file name, `In [3]`).
    pub(crate) source_name: String,
    /// The text being executed, under its name (for error carets).
    pub(crate) input: Arc<Origin>,
    /// The names the executing top-level statement bound, each with its value before, in
    /// order: a failing statement (or `with` body) is undone by popping back to where it
    /// started, so a statement costs what it binds, not the number of variables.
    pub(crate) undo: Vec<(String, Option<Value>)>,
    /// Set by `clear_output()`; the statement's outputs then end with a clear part.
    pub(crate) clear_requested: bool,
    /// Breakpoints, the paused run, the last run's history.
    pub(crate) debug: Debugger,
    /// Which statement entered each context, and the block whose body is running.
    pub(crate) contexts: contexts::Contexts,
    /// The statements being executed, outermost first (a block's body statement is inside
    /// the block's): where a panic is reported.
    running: Vec<crate::ir::Span>,
    /// Where output goes as it is produced, when a front end streams (`set_live`).
    live: Option<Arc<dyn outputs::LiveOutput>>,
    /// The last failed pass application, for `reproducer("file.passlab")`.
    pub(crate) last_failure: Option<reproducer::Reproducer>,
    /// The ops this session registered (`register_op`): registering one again is an error
    /// here, as in TVM, though the process-wide registry takes the same definition again
    /// from another session.
    pub(crate) registered_ops: std::collections::BTreeSet<String>,
}

impl Default for Session {
    fn default() -> Self {
        Session::new()
    }
}

impl Session {
    /// A fresh session with no colours, resolving paths against the current directory.
    pub fn new() -> Session {
        let sink = SessionSink::new();
        let interrupt = Arc::new(AtomicBool::new(false));
        let mut pm = PassManager::new(crate::passes::registry()).with_sink(Arc::new(sink.clone()));
        pm.set_interrupt(Some(interrupt.clone()));
        Session {
            vars: BTreeMap::new(),
            pm,
            sink,
            color: false,
            html: true,
            width: None,
            base_dir: std::env::current_dir().unwrap_or_default(),
            last_timing: None,
            interrupt,
            source_name: "<input>".into(),
            input: Origin::new("<input>", ""),
            undo: Vec::new(),
            clear_requested: false,
            debug: Debugger::default(),
            contexts: contexts::Contexts::default(),
            running: Vec::new(),
            live: None,
            last_failure: None,
            registered_ops: Default::default(),
        }
    }

    /// Turns ANSI colours on or off for the `ansi` renderings.
    pub fn set_color(&mut self, color: bool) {
        self.color = color;
    }

    pub fn color_enabled(&self) -> bool {
        self.color
    }

    /// Turns the HTML renderings of printed IR and diffs on (the default, for notebooks) or
    /// off (terminal front ends: the REPL, `passlab run` and `replay`). Tables keep theirs:
    /// they are small.
    pub fn set_html(&mut self, html: bool) {
        self.html = html;
    }

    /// Fits tables and help to `width` columns (a terminal's width; the REPL sets it before
    /// each statement, so a resized window is followed), or lets them be as wide as they are
    /// (`None`, the default: notebooks, scripts, transcripts).
    pub fn set_width(&mut self, width: Option<usize>) {
        self.width = width;
    }

    /// What this session's front end shows (see [`render::Front`]).
    pub(crate) fn front(&self) -> render::Front {
        render::Front {
            color: self.color,
            html: self.html,
            width: self.width,
        }
    }

    /// Streams output to `front` as it is produced (or stops streaming, with `None`): the
    /// output of passes and instruments while a pass runs, `print`, displayed values and
    /// warnings as each statement produces them. `execute` then returns only the tail of its
    /// output: the input's result, a pause, or its error (see [`Outputs`]).
    pub fn set_live(&mut self, front: Option<Arc<dyn outputs::LiveOutput>>) {
        self.live = front;
    }

    /// Exits every entered context, innermost first (end of a session); a paused run is
    /// aborted first.
    pub fn exit_all_contexts(&mut self) -> Outputs {
        let mut out = Outputs::new();
        if let Err(e) = self.abort_suspended(&mut out) {
            self.push_error(&mut out, &e);
        }
        self.exit_every_context(&mut out);
        out
    }

    pub fn set_base_dir(&mut self, dir: impl Into<PathBuf>) {
        self.base_dir = dir.into();
    }

    /// The name shown in error locations.
    pub fn set_source_name(&mut self, name: &str) {
        self.source_name = name.to_string();
    }

    /// A flag that interrupts a running pipeline at the next pass boundary when set.
    pub fn interrupt_flag(&self) -> Arc<AtomicBool> {
        self.interrupt.clone()
    }

    /// The session's pass manager (contexts, registry).
    pub fn pass_manager(&self) -> &PassManager {
        &self.pm
    }

    /// A variable's value.
    pub fn var(&self, name: &str) -> Option<&Value> {
        self.vars.get(name)
    }

    /// The names of the session's variables, sorted.
    pub fn var_names(&self) -> Vec<String> {
        self.vars.keys().cloned().collect()
    }

    /// Registers a pass written in Rust (`register(p)` in the language): statements can then
    /// build it by name and name it in `required` lists. A built-in pass cannot be replaced.
    pub fn register(&mut self, pass: Pass, summary: &str) -> Result<(), SessionError> {
        let name = pass.info().name();
        if self.pm.registry().get(name).is_some_and(|r| !r.user) {
            return Err(SessionError::new(format!(
                "`{name}` is a built-in pass and cannot be replaced"
            )));
        }
        self.pm.register(pass, summary);
        Ok(())
    }

    /// Binds a value from Rust.
    pub fn set_var(&mut self, name: &str, value: Value) {
        self.vars.insert(name.to_string(), value);
    }

    /// Parses and runs `src`; stops at the first failing statement.
    pub fn execute(&mut self, src: &str) -> Outputs {
        self.execute_in(Arc::from(src), 0..src.len())
    }

    /// Parses and runs the statements in `text[range]`; error locations count lines and
    /// columns in the whole `text` (a script runs statement by statement this way, sharing
    /// one copy of its text).
    pub fn execute_in(&mut self, text: Arc<str>, range: std::ops::Range<usize>) -> Outputs {
        self.input = Arc::new(Origin {
            name: self.source_name.clone(),
            text,
        });
        self.interrupt
            .store(false, std::sync::atomic::Ordering::SeqCst);
        let mut out = match &self.live {
            Some(front) => {
                let live = Arc::new(outputs::Live::new(front.clone()));
                self.sink.set_live(Some((live.clone(), self.front())));
                Outputs::streaming(live)
            }
            None => Outputs::new(),
        };
        self.execute_statements(range, &mut out);
        self.sink.set_live(None);
        out.finish();
        out
    }

    fn execute_statements(&mut self, range: std::ops::Range<usize>, out: &mut Outputs) {
        let text = self.input.text.clone();
        let parsed = catch_unwind(AssertUnwindSafe(|| {
            crate::lang::parse_program_range(&text, range.clone(), COMMANDS)
        }));
        let stmts = match parsed {
            Ok(Ok(s)) => s,
            Ok(Err(e)) => {
                let err = SessionError::from_parse(e);
                self.push_error(out, &err);
                return;
            }
            Err(payload) => {
                let message = crate::pass::error::panic_message(&*payload);
                let whole = crate::ir::Span::new(range.start, range.end);
                self.push_error(out, &SessionError::panicked(&message, whole));
                return;
            }
        };
        let origin = self.input.clone();
        for stmt in &stmts {
            out.clear_result();
            let r = self.run_guarded(stmt, &origin, out);
            match r {
                Ok(Exec::Done) => self.undo.clear(),
                // The statement waits at a breakpoint; the next ones run while it is paused.
                Ok(Exec::Paused(p)) => self.suspend(p, 0, out),
                Err(e) => {
                    self.undo.clear();
                    self.push_error(out, &e);
                    break;
                }
            }
        }
    }

    /// Runs a top-level statement. A panic in it (a bug: bad input never panics) becomes an
    /// error at the statement, and the session is put back as it was before it: variables,
    /// the contexts it entered, a run it started. (A paused run that the statement was
    /// resuming is lost with it, and the contexts of its blocks are exited.)
    fn run_guarded(
        &mut self,
        stmt: &Stmt,
        origin: &Arc<Origin>,
        out: &mut Outputs,
    ) -> Result<Exec, SessionError> {
        let entries = self.pm.entries().to_vec();
        let run = catch_unwind(AssertUnwindSafe(|| self.run_stmt(stmt, None, out)));
        let payload = match run {
            Ok(r) => return r,
            Err(payload) => payload,
        };
        // The innermost statement that was running, in the input it came from (a resumed
        // statement's may be another cell's).
        let at = self.running.last().copied().unwrap_or(stmt.span);
        self.running.clear();
        let message = crate::pass::error::panic_message(&*payload);
        let err = SessionError::panicked(&message, at).in_source(&self.input);
        self.undo_to(0);
        self.clear_requested = false;
        self.input = origin.clone();
        self.exit_orphaned_contexts(&entries);
        self.drain_sink(out);
        Err(err)
    }

    fn push_error(&self, out: &mut Outputs, e: &SessionError) {
        self.drain_sink(out);
        let plain = e.render(&self.input, false);
        let ansi = self.color.then(|| e.render(&self.input, true));
        out.error(plain, ansi);
    }

    /// Moves what passes and instruments wrote into the outputs.
    pub(crate) fn drain_sink(&self, out: &mut Outputs) {
        self.sink.drain_into(out, self.front());
    }

    /// The input text a span covers.
    pub(crate) fn source_text(&self, span: crate::ir::Span) -> Option<&str> {
        self.input.text.get(span.lo as usize..span.hi as usize)
    }

    /// Runs one statement as a transaction: on failure the names it bound are restored. A
    /// statement whose run pauses returns its suspension (see `suspend.rs`); `resume`
    /// continues a paused statement with the result of its paused pass application.
    pub(crate) fn run_stmt(
        &mut self,
        stmt: &Stmt,
        resume: Option<(eval::Progress, Value)>,
        out: &mut Outputs,
    ) -> Result<Exec, SessionError> {
        let mark = self.undo.len();
        self.running.push(stmt.span);
        let mut r = self.run_stmt_inner(stmt, resume, out);
        self.running.pop();
        if let Err(e) = &mut r {
            // Every error points somewhere: at least at its statement.
            if e.span.is_none() && e.origin.is_none() {
                e.span = Some(stmt.span);
            }
        }
        self.drain_sink(out);
        if std::mem::take(&mut self.clear_requested) {
            out.clear();
        }
        if r.is_err() {
            self.undo_to(mark);
        }
        r
    }

    fn run_stmt_inner(
        &mut self,
        stmt: &Stmt,
        resume: Option<(eval::Progress, Value)>,
        out: &mut Outputs,
    ) -> Result<Exec, SessionError> {
        if let StmtKind::Assign {
            name, name_span, ..
        } = &stmt.kind
        {
            if name == "ir" && self.debug.suspended.is_some() {
                return Err(SessionError::at(
                    "`ir` is the module at the pause point while a run is paused",
                    *name_span,
                ));
            }
        }
        let evaluated = match resume {
            None => self.eval_stmt(stmt)?,
            Some((progress, value)) => self.resume_eval(stmt, progress, value)?,
        };
        let mut values = match evaluated {
            eval::Evaluated::Values(v) => v.into_iter(),
            eval::Evaluated::Paused(s) => return Ok(Exec::Paused(s)),
        };
        let mut value = || values.next().expect("a value per expression");
        let done = match &stmt.kind {
            StmtKind::Assign { name, .. } => {
                let v = value();
                self.bind(name, v);
                Ok(())
            }
            StmtKind::Expr(_) => {
                let v = value();
                self.drain_sink(out);
                if !matches!(v, Value::None) {
                    let before = out.count();
                    self.display_value(&v, false, out);
                    // A top-level expression's value is the input's result (`Outputs::result`).
                    if self.running.len() == 1 && out.count() > before {
                        out.mark_result();
                    }
                }
                Ok(())
            }
            StmtKind::Command { name, args } => {
                let cmd =
                    commands::find(name).expect("the parser only makes commands of the table");
                let call = commands::Invocation {
                    args,
                    span: stmt.span,
                    values,
                };
                return (cmd.run.0)(self, call, out);
            }
        };
        done.map(|()| Exec::Done)
    }

    /// Binds `name`, remembering its value before in the undo log.
    pub(crate) fn bind(&mut self, name: &str, v: Value) {
        let before = self.vars.insert(name.to_string(), v);
        self.undo.push((name.to_string(), before));
    }

    /// Puts back the values the bindings after the first `mark` entries of the undo log
    /// replaced, latest first (a name the statement introduced is removed).
    pub(crate) fn undo_to(&mut self, mark: usize) {
        while self.undo.len() > mark {
            let (name, before) = self.undo.pop().expect("longer than mark");
            match before {
                Some(v) => self.vars.insert(name, v),
                None => self.vars.remove(&name),
            };
        }
    }

    pub(crate) fn run_with(
        &mut self,
        ctx: &contexts::Scoped,
        span: crate::ir::Span,
        body: &[Stmt],
        out: &mut Outputs,
    ) -> Result<Exec, SessionError> {
        let block = self.contexts.new_block();
        self.enter_context(ctx, Some(block), span)?;
        let frame = suspend::Frame {
            block,
            span,
            rest: body.to_vec(),
        };
        self.run_frames(vec![frame], Ok(()), out)
    }

    /// Remembers a context's timing instrument for `timing`.
    pub(crate) fn note_timing(&mut self, ctx: &crate::pass::PassContext) {
        for inst in ctx.instruments().iter() {
            if inst
                .as_any()
                .is::<crate::instrument::PassTimingInstrument>()
            {
                self.last_timing = Some(inst.clone());
            }
        }
    }
}

/// Convenience for tests and scripts: run `src` in a fresh session, return the plain output.
pub fn run_plain(src: &str) -> String {
    Session::new().execute(src).plain()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failing_statement_keeps_variables() {
        let mut s = Session::new();
        let out = s.execute("x = 1\ny = 2");
        assert!(!out.is_error());
        let out = s.execute("x = Sequentail([])");
        assert!(out.is_error());
        assert!(
            out.plain().contains("did you mean `Sequential`?"),
            "{}",
            out.plain()
        );
        assert!(matches!(s.var("x"), Some(Value::Int(1))));
    }

    #[test]
    fn warnings_are_parts_of_their_own() {
        let dir = std::env::temp_dir().join(format!("passlab-warn-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("notes.txt"), "not a dump").unwrap();
        let mut s = Session::new();
        let src = format!(
            "m = parse(\"\"\"def @main(%x: float32) {{ %x }}\"\"\")\n\
             with PassContext(instruments=[DumpIR(\"{}\", refresh=true)]) {{\n\
               m2 = PrintIR()(m)\n\
             }}",
            dir.display()
        );
        let out = s.execute(&src);
        std::fs::remove_dir_all(&dir).unwrap();
        let kinds: Vec<PartKind> = out.parts.iter().map(|p| p.kind).collect();
        assert_eq!(kinds, vec![PartKind::Warning, PartKind::Display], "{out:?}");
        assert!(out.parts[0].plain.starts_with("warning: DumpIR keeps"));
        assert!(out.plain().contains("def @main"));
    }

    /// A terminal front end gets no HTML for printed IR, diffs or PrintChanged (the same text
    /// otherwise); a notebook's session (the default) gets all three.
    #[test]
    fn html_renderings_only_for_front_ends_that_show_them() {
        let src = "m = parse(\"\"\"def @main(%x: float32) { add(%x, add(1f, 2f)) }\"\"\")\n\
                   show m\n\
                   with PassContext(instruments=[PrintChanged()]) { m2 = FoldConstant()(m) }\n\
                   diff m m2";
        let html_parts = |html: bool| {
            let mut s = Session::new();
            s.set_html(html);
            let out = s.execute(src);
            assert!(!out.is_error(), "{}", out.plain());
            let n = out.parts.iter().filter(|p| p.html.is_some()).count();
            (n, out.plain())
        };
        let (with, text_with) = html_parts(true);
        let (without, text_without) = html_parts(false);
        assert_eq!((with, without), (3, 0));
        assert_eq!(text_with, text_without);
    }

    #[test]
    fn clear_output_is_a_part_in_order() {
        let mut s = Session::new();
        let out = s.execute("print(\"a\")\nclear_output()\nprint(\"b\")");
        let kinds: Vec<PartKind> = out.parts.iter().map(|p| p.kind).collect();
        assert_eq!(
            kinds,
            vec![PartKind::Stream, PartKind::Clear, PartKind::Stream]
        );
        assert_eq!(out.plain(), "a\nb\n");
    }

    /// An instrument whose name panics: `show` of it reaches the panic outside any pass or
    /// instrument callback.
    struct PanicsWhenShown;

    impl crate::instrument::Instrument for PanicsWhenShown {
        fn name(&self) -> &str {
            panic!("name() was asked")
        }
    }

    /// A panic in a statement is an error at the statement; the session goes on as it was
    /// before it: variables restored, the block's context exited.
    #[test]
    fn a_panicking_statement_fails_alone() {
        let mut s = Session::new();
        s.set_var("bad", Value::Instrument(Arc::new(PanicsWhenShown)));
        assert!(!s.execute("y = 2").is_error());
        let out = s.execute(
            "with PassContext(instruments=[Trace(name=\"t\")]) {\n  y = 3\n  z = 4\n  show bad\n}",
        );
        let text = out.plain();
        assert!(out.is_error(), "{text}");
        for line in [
            "[t] enter_pass_ctx",
            "[t] exit_pass_ctx",
            "error: internal error: name() was asked",
            " --> <input>:4:3",
            "^^^^^^^^ this statement panicked",
            "note: this is a bug in passlab; only this statement failed",
        ] {
            assert!(text.contains(line), "{line}\n{text}");
        }
        assert!(matches!(s.var("y"), Some(Value::Int(2))));
        assert!(s.var("z").is_none());
        assert!(s.pass_manager().stack().is_empty());
        assert_eq!(s.execute("y").plain(), "2\n");
    }
}
