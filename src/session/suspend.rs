//! Statements that pause halfway, and how they are finished.
//!
//! When a run pauses, the pass application returns the pause marker
//! ([`SessionError::paused`]) and the statement unwinds. On the way up each level records
//! what it still has to do in the [`Pending`] pause: the innermost statement records itself,
//! each enclosing `with` block records a [`Frame`] (its remaining statements and the context
//! to exit). At the top the pending pause becomes the session's [`Suspended`] state and
//! the next statements run as usual (the `with` contexts stay entered: the session is "inside"
//! the block while paused, so `current()` and `override_instruments` see the run's context).
//!
//! When the run ends (`continue`, or `step` past the last pass) the paused statement is
//! executed again from the start, with the results of the runs it already made handed back in
//! order instead of running them again (so `x = B(A(m))` paused in `B` does not run `A`
//! twice), then the frames run: the rest of each block, then its exit. That part may pause
//! again, building a new suspension the same way. `abort` (or a failure) exits the frames'
//! contexts and restores the names the statement had bound, so it binds nothing.

use super::contexts::BlockId;
use super::debug::worker::{Msg, Pause, Resume, Run};
use super::debug::RunDone;
use super::history::RunHistory;
use super::{Origin, Outputs, Session, SessionError, Value};
use crate::ir::{Module, Span};
use crate::lang::ast::Stmt;
use crate::pass::PassError;
use std::sync::{Arc, Mutex};

/// What an enclosing `with` block still has to do.
pub(crate) struct Frame {
    /// The block, which owns the entries it exits when it ends (see `contexts.rs`).
    pub block: BlockId,
    /// The block's context expression (where its exit errors point).
    pub span: Span,
    pub rest: Vec<Stmt>,
}

/// A pause on its way up through the statement.
pub(crate) struct Pending {
    pub run: Run,
    pub pause: Pause,
    /// The statement's runs that completed before this one.
    pub memo: Vec<RunDone>,
    /// The paused run's history.
    pub history: Arc<Mutex<RunHistory>>,
    /// The last run's history when the innermost statement started (what `history` meant
    /// before its first run).
    pub history_before: Option<Arc<Mutex<RunHistory>>>,
    /// The pass application (for errors) and its input module.
    pub call: Span,
    pub input: Module,
    /// The innermost statement being executed.
    pub stmt: Option<Stmt>,
    /// Enclosing blocks, innermost first.
    pub frames: Vec<Frame>,
}

/// The session's paused state.
pub(crate) struct Suspended {
    pub run: Run,
    pub pause: Pause,
    memo: Vec<RunDone>,
    history: Arc<Mutex<RunHistory>>,
    history_before: Option<Arc<Mutex<RunHistory>>>,
    call: Span,
    input: Module,
    stmt: Stmt,
    /// Enclosing blocks, innermost first.
    frames: Vec<Frame>,
    /// The names the statement bound before pausing, with their values before it.
    restore: Vec<(String, Option<Value>)>,
    /// The input the statement came from, for error locations.
    source: Arc<Origin>,
}

impl Suspended {
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
    /// block (unless something failed), then its exit. A pause inside records the frames
    /// still to run and returns the marker.
    pub(crate) fn run_frames(
        &mut self,
        mut frames: Vec<Frame>,
        mut result: Result<(), SessionError>,
        out: &mut Outputs,
    ) -> Result<(), SessionError> {
        while let Some(Frame { block, span, rest }) = frames.pop() {
            if result.is_ok() {
                let outer = self.contexts.block.replace(block);
                for (i, s) in rest.iter().enumerate() {
                    match self.run_stmt(s, out) {
                        Ok(()) => {}
                        Err(e) if e.is_pause() => {
                            self.contexts.block = outer;
                            let p = self
                                .debug
                                .pending
                                .as_mut()
                                .expect("a pause leaves a pending suspension");
                            p.frames.push(Frame {
                                block,
                                span,
                                rest: rest[i + 1..].to_vec(),
                            });
                            p.frames.extend(frames.into_iter().rev());
                            return Err(e);
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
        result
    }

    /// Makes the pending pause the session's paused state and shows where it is. The
    /// statement's bindings so far are the undo log's entries after `mark`.
    pub(crate) fn suspend(&mut self, mark: usize, source: Arc<Origin>, out: &mut Outputs) {
        let p = self
            .debug
            .pending
            .take()
            .expect("a pause leaves a pending suspension");
        let restore = self.undo.split_off(mark.min(self.undo.len()));
        self.show_pause(&p.pause, out);
        self.debug.suspended = Some(Suspended {
            run: p.run,
            pause: p.pause,
            memo: p.memo,
            history: p.history,
            history_before: p.history_before,
            call: p.call,
            input: p.input,
            stmt: p.stmt.expect("the innermost statement records itself"),
            frames: p.frames,
            restore,
            source,
        });
    }

    /// `breakpoint 3: ...` lines, then `paused before FoldConstant (2 of 4) in sequential`.
    pub(crate) fn show_pause(&self, pause: &Pause, out: &mut Outputs) {
        let mut text = pause.reasons.join("\n");
        if !text.is_empty() {
            text.push('\n');
        }
        text.push_str(&pause.describe());
        let ansi = self.color.then(|| {
            text.lines()
                .map(|l| format!("\x1b[1;33m{l}\x1b[0m"))
                .collect::<Vec<_>>()
                .join("\n")
        });
        let html = format!(
            "<pre class=\"passlab-pause\" style=\"color:#b58900;font-weight:bold\">{}</pre>",
            super::outputs::html_escape(&text)
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

    /// The run ended: execute the statement again with its runs' results, then its frames.
    fn finish(
        &mut self,
        s: Suspended,
        result: Result<Module, PassError>,
        out: &mut Outputs,
    ) -> Result<(), SessionError> {
        let origin = s.source.clone();
        let saved = std::mem::replace(&mut self.input, origin.clone());
        // The statement's bindings so far are undone with it if it fails.
        let mark = self.undo.len();
        self.undo.extend(s.restore);
        let r = match result {
            Err(err) => Err(self.pass_error(err, &s.input, s.call)),
            Ok(m) => {
                let last = RunDone {
                    module: m,
                    history: Some(s.history.clone()),
                };
                self.debug.replay = s.memo.into_iter().chain([last]).collect();
                // Evaluated again as when it first ran: each replayed run makes its own
                // history the last run's again (see `RunDone`).
                self.debug.history = s.history_before.clone();
                // The statement is in the innermost block again.
                let outer =
                    std::mem::replace(&mut self.contexts.block, s.frames.first().map(|f| f.block));
                let r = self.run_stmt(&s.stmt, out);
                self.contexts.block = outer;
                if !self.debug.replay.is_empty() {
                    // The statement failed before it reached the run: the run is still the
                    // last one.
                    self.debug.replay.clear();
                    self.debug.history = Some(s.history.clone());
                }
                r
            }
        };
        let frames: Vec<Frame> = s.frames.into_iter().rev().collect();
        let r = match r {
            Err(e) if e.is_pause() => {
                if let Some(p) = self.debug.pending.as_mut() {
                    p.frames.extend(frames.into_iter().rev());
                }
                Err(e)
            }
            r => self.run_frames(frames, r, out),
        };
        let outcome = match r {
            Ok(()) => Ok(()),
            Err(e) if e.is_pause() => {
                self.suspend(mark, origin.clone(), out);
                Ok(())
            }
            Err(e) => {
                self.undo_to(mark);
                Err(e.in_source(&origin))
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
        let Suspended {
            mut run,
            pause,
            call,
            frames,
            restore,
            source,
            ..
        } = s;
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
