//! Which statement entered each context, and which statement may exit it.
//!
//! Every context on the pass manager's stack was entered by an `enter` statement or by the
//! header of a `with` block; the session records which, where (for error locations), and
//! the block whose body was running (none at the top level). The rules:
//! - A `with` block's end exits exactly the entries its block owns: the one its header made
//!   and those `enter` statements in its body made and left entered, innermost first,
//!   wherever they are on the stack. A context entered at the top level while a run is
//!   paused inside the block is not the block's: it stays entered when the block ends.
//! - `exit` pops the innermost entry when an `enter` statement made it; a `with` block's own
//!   entry is the block's to exit, so `exit` refuses it (the stack is unchanged).
//! - At the end of a session (`exit_all_contexts`), a failing exit is reported at the
//!   statement that entered the context.

use super::error::SessionError;
use super::{Outputs, Session};
use crate::ir::Span;
use crate::pass::{EntryId, PassContext};
use crate::target::Target;
use std::sync::Arc;

/// What `enter` and `with` enter: a pass context, or a target (TVM's
/// `with tvm.target.Target(...)`), which runs no instrument and only sets the target the
/// passes run for.
#[derive(Clone)]
pub(crate) enum Scoped {
    Context(PassContext),
    Target(Target),
}

/// A `with` block's execution (each run of a block is a new one).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct BlockId(u64);

/// How a context came to be entered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum EnteredBy {
    /// An `enter` statement.
    Enter,
    /// A `with` block's header.
    With,
}

/// The session's record of one entry on the stack.
pub(crate) struct Entered {
    id: EntryId,
    by: EnteredBy,
    /// The block that exits it: the `with` block for its own entry, the block whose body
    /// ran the `enter` statement, or none (the top level: only `exit` or the end of the
    /// session exits it).
    block: Option<BlockId>,
    /// The entering statement's context expression, in `origin`.
    span: Span,
    /// The input the statement came from: (source name, text).
    origin: Arc<super::Origin>,
}

/// The records and the block whose body is running.
#[derive(Default)]
pub(crate) struct Contexts {
    entered: Vec<Entered>,
    /// The block whose body statements are running (none at the top level).
    pub block: Option<BlockId>,
    next_block: u64,
}

impl Contexts {
    fn record(&self, id: EntryId) -> Option<&Entered> {
        self.entered.iter().find(|e| e.id == id)
    }

    /// A fresh block id.
    pub fn new_block(&mut self) -> BlockId {
        self.next_block += 1;
        BlockId(self.next_block)
    }
}

impl Session {
    /// Enters `ctx` for an `enter` statement (owned by the running block, if any) or for
    /// the header of block `with` (owned by that block). `span` is the context expression.
    pub(crate) fn enter_context(
        &mut self,
        scope: &Scoped,
        with: Option<BlockId>,
        span: Span,
    ) -> Result<EntryId, SessionError> {
        let id = match scope {
            Scoped::Context(ctx) => self
                .pm
                .enter(ctx)
                .map_err(|err| SessionError::from_pass(&err, span))?,
            Scoped::Target(t) => self.pm.enter_target(t),
        };
        let (by, block) = match with {
            Some(b) => (EnteredBy::With, Some(b)),
            None => (EnteredBy::Enter, self.contexts.block),
        };
        self.contexts.entered.push(Entered {
            id,
            by,
            block,
            span,
            origin: self.input.clone(),
        });
        if let Scoped::Context(ctx) = scope {
            self.note_timing(ctx);
        }
        Ok(id)
    }

    /// Exits one entry and forgets its record.
    fn exit_entry(&mut self, id: EntryId) -> Result<(), crate::pass::PassError> {
        self.contexts.entered.retain(|e| e.id != id);
        self.pm.exit_entry(id).map(|_| ())
    }

    /// The `exit` statement.
    pub(crate) fn exit_statement(&mut self, span: Span) -> Result<(), SessionError> {
        let Some(&top) = self.pm.entries().last() else {
            return Err(SessionError::at(
                "no PassContext is entered (the default context cannot be exited)",
                span,
            )
            .with_label(Some(
                "`exit` leaves a context entered with `enter`; to leave the REPL: `quit`, \
                 `exit()` or Ctrl-D"
                    .into(),
            )));
        };
        if let Some(Entered {
            by: EnteredBy::With,
            block: Some(block),
            span: with_span,
            origin,
            ..
        }) = self.contexts.record(top)
        {
            if self
                .debug
                .suspended
                .as_ref()
                .is_some_and(|s| s.holds(*block))
            {
                return Err(SessionError::at(
                    "this PassContext belongs to the `with` block of the paused statement",
                    span,
                )
                .with_label(Some("`continue` or `abort` the run first".into())));
            }
            let (line, col) = crate::diagnostic::line_col(&origin.text, with_span.lo as usize);
            return Err(SessionError::at(
                format!(
                    "the innermost PassContext belongs to the `with` block at {}:{line}:{col}; \
                     the block exits it when it ends",
                    origin.name
                ),
                span,
            )
            .with_label(Some(
                "`exit` only exits contexts entered with `enter`".into(),
            )));
        }
        self.exit_entry(top)
            .map_err(|err| SessionError::from_pass(&err, span))
    }

    /// The end of block `block` (its header at `span`): exits the entries it owns,
    /// innermost first, also when the block failed. An exit error is added to `result`.
    pub(crate) fn exit_block(
        &mut self,
        block: BlockId,
        span: Span,
        result: Result<(), SessionError>,
        out: &mut Outputs,
    ) -> Result<(), SessionError> {
        let owned: Vec<EntryId> = self
            .pm
            .entries()
            .iter()
            .rev()
            .copied()
            .filter(|id| {
                self.contexts
                    .record(*id)
                    .is_some_and(|e| e.block == Some(block))
            })
            .collect();
        let mut failure: Option<SessionError> = None;
        for id in owned {
            if let Err(x) = self.exit_entry(id) {
                failure.get_or_insert(SessionError::from_pass(&x, span));
            }
        }
        self.drain_sink(out);
        match (result, failure) {
            (r, None) => r,
            (Ok(()), Some(x)) => Err(x),
            (Err(e), Some(mut x)) => {
                x.message = format!(
                    "{}\n(while exiting after the block failed: {})",
                    x.message, e.message
                );
                Err(x)
            }
        }
    }

    /// Exits every entered context, innermost first; a failure is an error at the
    /// statement that entered the context.
    pub(crate) fn exit_every_context(&mut self, out: &mut Outputs) {
        while let Some(&top) = self.pm.entries().last() {
            let record = self
                .contexts
                .record(top)
                .map(|e| (e.span, e.origin.clone()));
            if let Err(x) = self.exit_entry(top) {
                self.drain_sink(out);
                let err = match record {
                    Some((span, origin)) => SessionError::from_pass(&x, span)
                        .with_label(Some(
                            "entered here, and exited when the session ended".into(),
                        ))
                        .in_source(&origin),
                    None => SessionError::new(x.to_string()),
                };
                self.push_error(out, &err);
            }
        }
        self.drain_sink(out);
    }

    /// After a statement panicked: exits what it entered (entries not in `before`) and the
    /// entries of blocks no paused run holds any more, innermost first, ignoring failures.
    pub(crate) fn exit_orphaned_contexts(&mut self, before: &[EntryId]) {
        let orphans: Vec<EntryId> = self
            .pm
            .entries()
            .iter()
            .rev()
            .copied()
            .filter(|id| {
                let held = |b: BlockId| self.debug.suspended.as_ref().is_some_and(|s| s.holds(b));
                match self.contexts.record(*id) {
                    Some(e) => match e.block {
                        Some(b) => !held(b),
                        None => !before.contains(id),
                    },
                    None => !before.contains(id),
                }
            })
            .collect();
        for id in orphans {
            let _ = self.exit_entry(id);
        }
        self.contexts.block = None;
    }
}
