//! Statements that pause halfway, and how they are finished.
//!
//! When a pass application pauses at a breakpoint, the evaluator (`eval.rs`) stops where it
//! is and returns a [`Suspension`] holding the run, the statement and its evaluation so far.
//! On the way up each enclosing `with` block adds a [`Frame`] (its remaining statements and
//! the context to exit). At the top the suspension becomes the session's paused state and
//! the next statements run as usual (the `with` contexts stay entered: the session is
//! "inside" the block while paused, so `current()` and `override_instruments` see the run's
//! context).
//!
//! When the run ends (`continue`, or `step` past the last pass) the statement continues
//! where it stopped, with the run's module as the value of the paused application: nothing
//! it did before the pause happens again. Then the frames run: the rest of each block, then
//! its exit. That part may pause again, making a new suspension the same way. `abort` (or a
//! failure) exits the frames' contexts and undoes the names the statement had bound, so it
//! binds nothing.

use super::contexts::BlockId;
use super::debug::worker::{Msg, Pause, Resume, Run};
use super::eval::{PausedRun, Progress};
use super::history::RunHistory;
use super::{Origin, Outputs, Session, SessionError, Value};
use crate::ir::{Module, Span};
use crate::lang::ast::Stmt;
use crate::pass::PassError;
use std::sync::{Arc, Mutex};

/// What running a statement came to.
pub(crate) enum Exec {
    Done,
    /// A run paused inside it; the suspension holds the rest of the statement.
    Paused(Box<Suspension>),
}

/// What an enclosing `with` block still has to do.
pub(crate) struct Frame {
    /// The block, which owns the entries it exits when it ends (see `contexts.rs`).
    pub block: BlockId,
    /// The block's context expression (where its exit errors point).
    pub span: Span,
    pub rest: Vec<Stmt>,
}

/// A statement paused at a breakpoint: the run, what the statement still has to do, and
/// what to undo if it never finishes. The session holds at most one.
pub(crate) struct Suspension {
    pub run: Run,
    pub pause: Pause,
    /// The paused run's history.
    history: Arc<Mutex<RunHistory>>,
    /// The pass application (for errors) and its input module.
    call: Span,
    input: Module,
    /// The innermost statement, and how far its evaluation got.
    stmt: Stmt,
    progress: Progress,
    /// Enclosing blocks, innermost first.
    pub frames: Vec<Frame>,
    /// The names the statement bound before pausing, with their values before, in order.
    restore: Vec<(String, Option<Value>)>,
    /// The input the statement came from, for error locations.
    source: Arc<Origin>,
}

impl Suspension {
    pub fn new(run: PausedRun, stmt: Stmt, progress: Progress, source: Arc<Origin>) -> Self {
        Suspension {
            run: run.run,
            pause: run.pause,
            history: run.history,
            call: run.call,
            input: run.input,
            stmt,
            progress,
            frames: Vec::new(),
            restore: Vec::new(),
            source,
        }
    }

    /// True when `block` is a `with` block the paused statement is inside.
    pub fn holds(&self, block: BlockId) -> bool {
        self.frames.iter().any(|f| f.block == block)
    }

    /// The first line of the paused statement, for `where`.
    pub fn statement_line(&self) -> String {
        let (lo, hi) = (self.stmt.span.lo as usize, self.stmt.span.hi as usize);
        let text = self.source.text.get(lo..hi).unwrap_or("");
        let first = text.lines().next().unwrap_or("").trim();
        if text.trim().lines().count() > 1 {
            format!("{first} ...")
        } else {
            first.to_string()
        }
    }
}

impl Session {
    /// Runs `frames` (innermost last) after a statement ended with `result`: the rest of each
    /// block (unless something failed), then its exit. A pause inside adds the frames still
    /// to run to the suspension.
    pub(crate) fn run_frames(
        &mut self,
        mut frames: Vec<Frame>,
        mut result: Result<(), SessionError>,
        out: &mut Outputs,
    ) -> Result<Exec, SessionError> {
        while let Some(Frame { block, span, rest }) = frames.pop() {
            if result.is_ok() {
                let outer = self.contexts.block.replace(block);
                for (i, s) in rest.iter().enumerate() {
                    match self.run_stmt(s, None, out) {
                        Ok(Exec::Done) => {}
                        Ok(Exec::Paused(mut p)) => {
                            self.contexts.block = outer;
                            p.frames.push(Frame {
                                block,
                                span,
                                rest: rest[i + 1..].to_vec(),
                            });
                            p.frames.extend(frames.into_iter().rev());
                            return Ok(Exec::Paused(p));
                        }
                        Err(e) => {
                            result = Err(e);
                            break;
                        }
                    }
                }
                self.contexts.block = outer;
            }
            result = self.exit_block(block, span, result, out);
        }
        result.map(|()| Exec::Done)
    }

    /// Makes `s` the session's paused state and shows where it is. The statement's bindings
    /// so far are the undo log's entries after `mark`.
    pub(crate) fn suspend(&mut self, mut s: Box<Suspension>, mark: usize, out: &mut Outputs) {
        s.restore = self.undo.split_off(mark.min(self.undo.len()));
        self.show_pause(&s.pause, out);
        self.debug.suspended = Some(s);
    }

    /// `breakpoint 3: ...` lines, then `paused before FoldConstant (2 of 4) in sequential`.
    pub(crate) fn show_pause(&self, pause: &Pause, out: &mut Outputs) {
        let mut text = pause.reasons.join("\n");
        if !text.is_empty() {
            text.push('\n');
        }
        text.push_str(&pause.describe_outcome());
        let ansi = self.color.then(|| {
            text.lines()
                .map(|l| format!("\x1b[1;33m{l}\x1b[0m"))
                .collect::<Vec<_>>()
                .join("\n")
        });
        let html = format!(
            "<pre class=\"passlab-pause\" style=\"color:#b58900;font-weight:bold\">{}</pre>",
            crate::present::html_escape(&text)
        );
        out.pause(text, ansi, Some(html));
    }

    /// `step` / `continue`: lets the paused run go on, then shows the next pause or finishes
    /// the statement.
    pub(crate) fn resume(&mut self, how: Resume, out: &mut Outputs) -> Result<(), SessionError> {
        let Some(mut s) = self.debug.suspended.take() else {
            return Ok(());
        };
        let msg = s.run.resume(how);
        self.drain_sink(out);
        match msg {
            Msg::Paused(p) => {
                self.show_pause(&p, out);
                s.pause = p;
                self.debug.suspended = Some(s);
                Ok(())
            }
            Msg::Done(r) => self.finish(s, r, out),
        }
    }

    /// The run ended: the statement continues from the paused application with its result,
    /// then its frames run.
    fn finish(
        &mut self,
        s: Box<Suspension>,
        result: Result<Module, PassError>,
        out: &mut Outputs,
    ) -> Result<(), SessionError> {
        let Suspension {
            history,
            call,
            input,
            stmt,
            progress,
            frames,
            restore,
            source,
            ..
        } = *s;
        let saved = std::mem::replace(&mut self.input, source.clone());
        // The statement's bindings so far are undone with it if it fails.
        let mark = self.undo.len();
        self.undo.extend(restore);
        let r = match result {
            Err(err) => Err(self.pass_error(err, &input, call)),
            Ok(m) => {
                // Runs made while paused went straight through: the paused one is the last.
                self.debug.history = Some(history);
                // The statement is in the innermost block again.
                let outer =
                    std::mem::replace(&mut self.contexts.block, frames.first().map(|f| f.block));
                let r = self.run_stmt(&stmt, Some((progress, Value::Module(m))), out);
                self.contexts.block = outer;
                r
            }
        };
        let mut frames: Vec<Frame> = frames.into_iter().rev().collect();
        let r = match r {
            Ok(Exec::Paused(mut p)) => {
                p.frames.extend(frames.drain(..).rev());
                Ok(Exec::Paused(p))
            }
            Ok(Exec::Done) => self.run_frames(frames, Ok(()), out),
            Err(e) => self.run_frames(frames, Err(e), out),
        };
        let outcome = match r {
            Ok(Exec::Done) => Ok(()),
            Ok(Exec::Paused(p)) => {
                self.suspend(p, mark, out);
                Ok(())
            }
            Err(e) => {
                self.undo_to(mark);
                Err(e.in_source(&source))
            }
        };
        self.input = saved;
        outcome
    }

    /// `abort`: the worker unwinds; the blocks' contexts are exited and nothing is bound.
    pub(crate) fn abort_suspended(&mut self, out: &mut Outputs) -> Result<(), SessionError> {
        let Some(s) = self.debug.suspended.take() else {
            return Ok(());
        };
        let Suspension {
            mut run,
            pause,
            call,
            frames,
            restore,
            source,
            ..
        } = *s;
        // The worker answers with its `Aborted` error; nothing else can come back.
        let _ = run.resume(Resume::Abort);
        self.drain_sink(out);
        let mut result = Ok(());
        for f in frames {
            result = self.exit_block(f.block, f.span, result, out);
        }
        let mark = self.undo.len();
        self.undo.extend(restore);
        self.undo_to(mark);
        let call = source
            .text
            .get(call.lo as usize..call.hi as usize)
            .unwrap_or("the run");
        out.display(
            format!(
                "aborted {call} {}; nothing was bound",
                pause.describe().trim_start_matches("paused ")
            ),
            None,
            None,
        );
        result.map_err(|e| e.in_source(&source))
    }
}
