//! Where pass and instrument output goes. Passes and instruments never print: they hand text
//! to the [`OutputSink`] the caller installed on the [`PassManager`](super::PassManager), so
//! the REPL can print it, the Jupyter kernel can stream it and tests can capture it.

use std::io::Write;
use std::sync::{Arc, Mutex};

/// What a piece of output is, so a front end can render it (highlight IR, colour diffs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ChunkKind {
    /// Relay text of a module, possibly after a header line.
    Ir,
    /// A unified diff.
    Diff,
    /// A log line (Trace, Stats, Bisect).
    Log,
    /// A warning (a pass's warning diagnostic, DumpIR keeping files).
    Warning,
}

/// One piece of output, always ending with a newline.
#[derive(Clone, Copy, Debug)]
pub struct Chunk<'a> {
    pub kind: ChunkKind,
    /// The pass or instrument that produced it.
    pub source: &'a str,
    pub text: &'a str,
}

/// Receives the output of passes and instruments.
pub trait OutputSink: Send + Sync {
    fn write(&self, chunk: Chunk<'_>);
}

/// Writes `text` (adding a final newline when missing) to `sink`.
pub fn emit(sink: &dyn OutputSink, kind: ChunkKind, source: &str, text: &str) {
    if text.ends_with('\n') {
        sink.write(Chunk { kind, source, text });
    } else {
        let owned = format!("{text}\n");
        sink.write(Chunk {
            kind,
            source,
            text: &owned,
        });
    }
}

/// Discards everything.
#[derive(Clone, Copy, Debug, Default)]
pub struct NullSink;

impl OutputSink for NullSink {
    fn write(&self, _: Chunk<'_>) {}
}

/// Keeps the output in order; clones share the same buffer. Warnings are told apart from the
/// rest, so a front end can send them to standard error.
#[derive(Clone, Debug, Default)]
pub struct BufferSink {
    buf: Arc<Mutex<Vec<Segment>>>,
}

/// A run of output of one sort.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Segment {
    /// True for [`ChunkKind::Warning`] output.
    pub warning: bool,
    pub text: String,
}

impl BufferSink {
    pub fn new() -> BufferSink {
        BufferSink::default()
    }

    /// The output so far.
    pub fn contents(&self) -> String {
        lock(&self.buf).iter().map(|s| s.text.as_str()).collect()
    }

    /// The output so far, emptying the buffer.
    pub fn take(&self) -> String {
        self.take_segments().into_iter().map(|s| s.text).collect()
    }

    /// The output so far as runs of warnings and other output, emptying the buffer.
    pub fn take_segments(&self) -> Vec<Segment> {
        std::mem::take(&mut *lock(&self.buf))
    }
}

impl OutputSink for BufferSink {
    fn write(&self, chunk: Chunk<'_>) {
        let warning = chunk.kind == ChunkKind::Warning;
        let mut buf = lock(&self.buf);
        match buf.last_mut() {
            Some(last) if last.warning == warning => last.text.push_str(chunk.text),
            _ => buf.push(Segment {
                warning,
                text: chunk.text.to_string(),
            }),
        }
    }
}

/// Writes to standard output: for examples and simple command-line tools. (The REPL and the
/// kernel install their own sinks.)
#[derive(Clone, Copy, Debug, Default)]
pub struct StdoutSink;

impl OutputSink for StdoutSink {
    fn write(&self, chunk: Chunk<'_>) {
        let mut out = std::io::stdout().lock();
        // A closed pipe is not worth a panic.
        let _ = out.write_all(chunk.text.as_bytes());
    }
}

/// Locks a mutex, recovering the data if a panic poisoned it (instruments survive panics).
pub(crate) fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}
