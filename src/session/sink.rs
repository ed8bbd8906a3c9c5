//! The session's output sink: what passes and instruments write while a statement runs, kept
//! with each chunk's kind so the session can render it per front end (a `PrintChanged` diff
//! coloured in the terminal and side by side in Jupyter, printed IR highlighted). A run on a
//! worker thread writes here too; the session drains it after the statement, a pause or the
//! end of a run.

use super::outputs::{Live, Outputs, Part, PartKind};
use crate::pass::sink::{lock, Chunk, ChunkKind, OutputSink};
use crate::present::diff;
use crate::present::render::Front;
use crate::present::{highlight, highlight_html};
use std::sync::{Arc, Mutex};

/// Where a streaming sink sends chunks, and how the front end shows them.
type LiveTarget = Option<(Arc<Live>, Front)>;

/// Collects chunks; clones share the same buffer. While the session streams (`set_live`),
/// chunks go straight to the front end instead, rendered as it shows them.
#[derive(Clone, Default)]
pub struct SessionSink {
    chunks: Arc<Mutex<Vec<(ChunkKind, String)>>>,
    live: Arc<Mutex<LiveTarget>>,
}

impl std::fmt::Debug for SessionSink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SessionSink").finish_non_exhaustive()
    }
}

/// A chunk as an output part: text as a stream part; diffs and printed IR as displays with an
/// ANSI rendering and an HTML one as `front` shows them; warnings for standard error.
fn part_of(kind: ChunkKind, text: String, front: Front) -> Part {
    let (kind, ansi, html) = match kind {
        ChunkKind::Diff => (
            PartKind::Display,
            front.color.then(|| diff::ansi(&text)),
            front.html.then(|| diff::html(&text)),
        ),
        ChunkKind::Ir => (
            PartKind::Display,
            front.color.then(|| highlight(&text)),
            front.html.then(|| highlight_html(&text)),
        ),
        ChunkKind::Log => (PartKind::Stream, None, None),
        ChunkKind::Warning => (PartKind::Warning, None, None),
    };
    Part {
        kind,
        plain: text,
        ansi,
        html,
    }
}

impl SessionSink {
    pub fn new() -> SessionSink {
        SessionSink::default()
    }

    /// Streams every later chunk to `live` (rendered for `front`), or stops streaming.
    pub(crate) fn set_live(&self, live: LiveTarget) {
        *lock(&self.live) = live;
    }

    /// The chunks so far, emptying the buffer. Adjacent log and warning chunks are merged.
    pub fn take(&self) -> Vec<(ChunkKind, String)> {
        std::mem::take(&mut *lock(&self.chunks))
    }

    /// Moves the chunks into `out`: text as stream parts; diffs and printed IR as parts of
    /// their own with an ANSI rendering and an HTML one as `front` shows them, so a notebook
    /// shows them rendered (a kernel sends stream parts as plain text).
    pub fn drain_into(&self, out: &mut Outputs, front: Front) {
        for (kind, text) in self.take() {
            let part = part_of(kind, text, front);
            match part.kind {
                PartKind::Display => out.display(part.plain, part.ansi, part.html),
                // Warnings are their own part: Jupyter shows them on standard error.
                PartKind::Warning => out.warning(part.plain),
                _ => out.stream(part.plain),
            }
        }
    }
}

impl OutputSink for SessionSink {
    fn write(&self, chunk: Chunk<'_>) {
        let live = lock(&self.live).clone();
        if let Some((live, front)) = live {
            let mut part = part_of(chunk.kind, chunk.text.to_string(), front);
            if !part.plain.ends_with('\n') {
                part.plain.push('\n');
            }
            return live.push(part, false);
        }
        let mut chunks = lock(&self.chunks);
        match chunks.last_mut() {
            Some((kind, text))
                if *kind == chunk.kind && matches!(kind, ChunkKind::Log | ChunkKind::Warning) =>
            {
                text.push_str(chunk.text)
            }
            _ => chunks.push((chunk.kind, chunk.text.to_string())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pass::sink::emit;
    use crate::session::PartKind;

    #[test]
    fn diffs_are_parts_with_colour_and_html_logs_stay_plain() {
        let sink = SessionSink::new();
        emit(&sink, ChunkKind::Log, "t", "[t] one");
        emit(&sink, ChunkKind::Log, "t", "[t] two");
        emit(
            &sink,
            ChunkKind::Diff,
            "PrintChanged",
            "P changed @main\n--- before P\n+++ after P\n@@ -1 +1 @@\n-a\n+b\n",
        );
        let mut out = Outputs::new();
        sink.drain_into(
            &mut out,
            Front {
                width: None,
                color: true,
                html: true,
            },
        );
        assert_eq!(out.parts.len(), 2, "log lines merge into one stream part");
        assert_eq!(out.parts[0].kind, PartKind::Stream);
        assert_eq!(out.parts[0].plain, "[t] one\n[t] two\n");
        let p = &out.parts[1];
        assert_eq!(p.kind, PartKind::Display);
        assert!(p.plain.starts_with("P changed @main\n"));
        let ansi = p.ansi.as_deref().unwrap();
        assert!(ansi.contains("\x1b[32m+b"), "{ansi:?}");
        let html = p.html.as_deref().unwrap();
        assert!(html.contains("passlab-diff"), "{html}");
        // The plain text of the whole output is what the instruments wrote, in order.
        assert!(out
            .plain()
            .starts_with("[t] one\n[t] two\nP changed @main\n--- before P\n"));
    }
}
