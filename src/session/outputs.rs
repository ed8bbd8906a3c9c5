//! What executing a statement produces: an ordered list of parts (streamed text, displayed
//! values, errors), each with a plain rendering, an optional coloured one for terminals, and
//! an optional HTML one for Jupyter. Front ends choose; nothing here touches a terminal.

use crate::present::{html_escape, pre};
use std::sync::{Arc, Mutex};

/// The kind of one part of the output.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PartKind {
    /// Text written while running: instrument output, `print(...)`.
    Stream,
    /// A warning written while running (a pass's warning diagnostic, an instrument's): text
    /// for standard error.
    Warning,
    /// A value shown by `show` or by evaluating an expression.
    Display,
    /// `error: ...` with its location.
    Error,
    /// A run paused at a breakpoint or after a `step`: where it is. Shown like a displayed
    /// value, but it is never a statement's value (a Jupyter cell's result).
    Pause,
    /// `clear_output()`: a front end clears what the cell showed so far (Jupyter's
    /// clear_output; a terminal clears the screen; plain text has nothing to clear).
    Clear,
}

/// One part of the output.
#[derive(Clone, Debug, PartialEq)]
pub struct Part {
    pub kind: PartKind,
    /// Plain text, no ANSI codes, ending with a newline when non-empty.
    pub plain: String,
    /// The same with ANSI colours, when it differs.
    pub ansi: Option<String>,
    /// An HTML rendering (tables, highlighted IR, diffs).
    pub html: Option<String>,
}

/// Everything one `execute` call produced.
///
/// When the session streams (`Session::set_live`), the parts a front end should show as they
/// happen have already gone to its [`LiveOutput`] and are not kept here: what is left is the
/// tail that ends the input (its result, a pause, or its error).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Outputs {
    pub parts: Vec<Part>,
    /// The part that is the input's value (see [`Outputs::result`]).
    pub result: Option<usize>,
    live: Option<LiveHandle>,
    /// How many parts went to the live front end.
    streamed: usize,
}

/// A front end that shows output as it is produced (a terminal, a Jupyter kernel's `stream`
/// messages). Parts come in order, from the thread that produced them: a pass's instrument
/// output arrives from the worker thread that runs the pass, while the statement runs.
pub trait LiveOutput: Send + Sync {
    fn part(&self, part: &Part);
}

impl<F: Fn(&Part) + Send + Sync> LiveOutput for F {
    fn part(&self, part: &Part) {
        self(part)
    }
}

/// The streaming state shared by a session's outputs and its output sink: the front end, and
/// the one displayed part held back because it may still turn out to be the input's value
/// (Jupyter's `execute_result`, which must come last). Anything produced after it releases it.
pub(crate) struct Live {
    front: Arc<dyn LiveOutput>,
    held: Mutex<Held>,
}

#[derive(Default)]
struct Held {
    part: Option<Part>,
    is_result: bool,
}

impl Live {
    pub(crate) fn new(front: Arc<dyn LiveOutput>) -> Live {
        Live {
            front,
            held: Mutex::new(Held::default()),
        }
    }

    /// Shows `part` now, after any held part; a part that may be the input's value (`hold`)
    /// is held instead.
    pub(crate) fn push(&self, part: Part, hold: bool) {
        let mut held = crate::pass::sink::lock(&self.held);
        if let Some(h) = held.part.take() {
            held.is_result = false;
            self.front.part(&h);
        }
        if hold {
            held.part = Some(part);
        } else {
            self.front.part(&part);
        }
    }

    /// Shows the held part, if any.
    pub(crate) fn release(&self) {
        let mut held = crate::pass::sink::lock(&self.held);
        if let Some(h) = held.part.take() {
            held.is_result = false;
            self.front.part(&h);
        }
    }

    fn mark_result(&self) {
        let mut held = crate::pass::sink::lock(&self.held);
        held.is_result = held.part.is_some();
    }

    /// The held part and whether it is the input's value, leaving nothing held.
    fn take(&self) -> Option<(Part, bool)> {
        let mut held = crate::pass::sink::lock(&self.held);
        let is_result = std::mem::take(&mut held.is_result);
        held.part.take().map(|p| (p, is_result))
    }
}

/// [`Live`] inside [`Outputs`], which compare and print without it.
#[derive(Clone)]
struct LiveHandle(Arc<Live>);

impl std::fmt::Debug for LiveHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Live")
    }
}

impl PartialEq for LiveHandle {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

fn with_newline(mut s: String) -> String {
    if !s.is_empty() && !s.ends_with('\n') {
        s.push('\n');
    }
    s
}

impl Outputs {
    pub fn new() -> Outputs {
        Outputs::default()
    }

    /// Outputs that stream through `live` (see [`Outputs`]); [`Outputs::finish`] ends them.
    pub(crate) fn streaming(live: Arc<Live>) -> Outputs {
        Outputs {
            live: Some(LiveHandle(live)),
            ..Outputs::default()
        }
    }

    /// Ends streaming: the held part, if any, becomes this output's tail (and its result when
    /// it was marked as one).
    pub(crate) fn finish(&mut self) {
        let Some(LiveHandle(live)) = self.live.take() else {
            return;
        };
        if let Some((part, is_result)) = live.take() {
            // An error is the last thing an input produces: nothing is held past one.
            self.parts.insert(0, part);
            if is_result {
                self.result = Some(0);
            }
        }
    }

    /// Marks the part just added as the input's value, so far (see [`Outputs::result`]).
    pub(crate) fn mark_result(&mut self) {
        match &self.live {
            Some(LiveHandle(live)) => live.mark_result(),
            None => self.result = self.parts.len().checked_sub(1),
        }
    }

    /// A new statement starts: what came before is not the input's value.
    pub(crate) fn clear_result(&mut self) {
        self.result = None;
        if let Some(LiveHandle(live)) = &self.live {
            live.release();
        }
    }

    /// How many parts this output has had, streamed ones included (merged stream text counts
    /// once).
    pub(crate) fn count(&self) -> usize {
        self.parts.len() + self.streamed
    }

    /// Adds a part: a streaming output shows it now (holding a display, which may be the
    /// result) and keeps only errors.
    fn push(&mut self, part: Part) {
        match &self.live {
            Some(LiveHandle(live)) if part.kind != PartKind::Error => {
                let hold = matches!(part.kind, PartKind::Display | PartKind::Pause);
                live.push(part, hold);
                self.streamed += 1;
            }
            Some(LiveHandle(live)) => {
                live.release();
                self.parts.push(part);
            }
            None => self.parts.push(part),
        }
    }

    /// The index of the part that is the value of the input (a Jupyter cell's
    /// `execute_result`): the value its last statement displayed when that statement is a
    /// bare expression at the top level, nothing failed, and nothing was shown after it.
    pub fn result(&self) -> Option<usize> {
        let i = self.result?;
        let last = self.parts.len().checked_sub(1)?;
        (i == last && self.parts[i].kind == PartKind::Display && !self.is_error()).then_some(i)
    }

    pub fn stream(&mut self, text: impl Into<String>) {
        self.stream_rich(text.into(), None, None);
    }

    /// Stream text with its own ANSI and HTML renderings (a coloured diff, highlighted IR).
    /// Adjacent stream text is one part: where only one side has a rendering, the other
    /// side's plain text stands in for it.
    pub fn stream_rich(&mut self, text: String, ansi: Option<String>, html: Option<String>) {
        let text = with_newline(text);
        if text.is_empty() {
            return;
        }
        let ansi = ansi.map(with_newline);
        if self.live.is_some() {
            return self.push(Part {
                kind: PartKind::Stream,
                plain: text,
                ansi,
                html,
            });
        }
        if let Some(last) = self.parts.last_mut() {
            if last.kind == PartKind::Stream {
                if last.ansi.is_some() || ansi.is_some() {
                    let mut a = last.ansi.take().unwrap_or_else(|| last.plain.clone());
                    a.push_str(ansi.as_deref().unwrap_or(&text));
                    last.ansi = Some(a);
                }
                if last.html.is_some() || html.is_some() {
                    let mut h = last.html.take().unwrap_or_else(|| pre(&last.plain));
                    h.push_str(&html.unwrap_or_else(|| pre(&text)));
                    last.html = Some(h);
                }
                last.plain.push_str(&text);
                return;
            }
        }
        self.parts.push(Part {
            kind: PartKind::Stream,
            plain: text,
            ansi,
            html,
        });
    }

    /// A warning, for standard error (adjacent warnings are one part).
    pub fn warning(&mut self, text: impl Into<String>) {
        let text = with_newline(text.into());
        if text.is_empty() {
            return;
        }
        if self.live.is_some() {
            return self.push(Part {
                kind: PartKind::Warning,
                plain: text,
                ansi: None,
                html: None,
            });
        }
        if let Some(last) = self.parts.last_mut() {
            if last.kind == PartKind::Warning {
                last.plain.push_str(&text);
                return;
            }
        }
        self.parts.push(Part {
            kind: PartKind::Warning,
            plain: text,
            ansi: None,
            html: None,
        });
    }

    pub fn display(
        &mut self,
        plain: impl Into<String>,
        ansi: Option<String>,
        html: Option<String>,
    ) {
        self.push(Part {
            kind: PartKind::Display,
            plain: with_newline(plain.into()),
            ansi: ansi.map(with_newline),
            html,
        });
    }

    /// Where a run paused (see [`PartKind::Pause`]).
    pub fn pause(&mut self, plain: impl Into<String>, ansi: Option<String>, html: Option<String>) {
        self.push(Part {
            kind: PartKind::Pause,
            plain: with_newline(plain.into()),
            ansi: ansi.map(with_newline),
            html,
        });
    }

    /// Clears the output shown so far (plain: nothing; ANSI: clear the screen).
    pub fn clear(&mut self) {
        self.push(Part {
            kind: PartKind::Clear,
            plain: String::new(),
            ansi: Some("\x1b[H\x1b[2J".into()),
            html: None,
        });
    }

    pub fn error(&mut self, plain: impl Into<String>, ansi: Option<String>) {
        let plain = with_newline(plain.into());
        let html = Some(format!(
            "<pre class=\"passlab-error\" style=\"color:#b00\">{}</pre>",
            html_escape(&plain)
        ));
        self.push(Part {
            kind: PartKind::Error,
            plain,
            ansi: ansi.map(with_newline),
            html,
        });
    }

    pub fn extend(&mut self, other: Outputs) {
        for p in other.parts {
            match p.kind {
                PartKind::Stream => self.stream_rich(p.plain, p.ansi, p.html),
                PartKind::Warning => self.warning(p.plain),
                _ => self.push(p),
            }
        }
    }

    /// True when some part is an error.
    pub fn is_error(&self) -> bool {
        self.parts.iter().any(|p| p.kind == PartKind::Error)
    }

    /// All parts as plain text, in order.
    pub fn plain(&self) -> String {
        self.parts.iter().map(|p| p.plain.as_str()).collect()
    }

    /// All parts for a terminal (`color`: use the ANSI renderings).
    pub fn text(&self, color: bool) -> String {
        self.parts
            .iter()
            .map(|p| match (&p.ansi, color) {
                (Some(a), true) => a.as_str(),
                _ => p.plain.as_str(),
            })
            .collect()
    }

    /// All parts as HTML (plain parts in `<pre>`).
    pub fn html(&self) -> String {
        self.parts
            .iter()
            .filter(|p| p.kind != PartKind::Clear)
            .map(|p| match &p.html {
                Some(h) => h.clone(),
                None => pre(&p.plain),
            })
            .collect()
    }
}
