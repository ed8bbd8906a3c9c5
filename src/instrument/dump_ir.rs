//! `DumpIR(dir, refresh=false)`: after each pass that ran, writes the module's Relay text to
//! `dir/NNN_<name>.relay` (`NNN` a zero-padded counter of at least 3 digits; `< > : " / \ | ?
//! *` in the name become `_`). The directory is created lazily; the counter lives on the
//! instrument and survives across contexts; skipped passes write nothing. Writes are atomic
//! and streamed (`files::write_atomic_with`, `text::write_module`).
//!
//! `refresh` removes old dumps (once, before the first dump or when first entered) only if
//! the directory holds nothing but dump files; otherwise it warns and keeps everything.

use super::{Instrument, InstrumentCx};
use crate::files::write_atomic_with;
use crate::ir::Module;
use crate::pass::error::InstrumentError;
use crate::pass::sink::{emit, lock, ChunkKind, OutputSink};
use crate::pass::PassInfo;
use crate::text::write_module;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Dumps the module after every pass.
pub struct DumpIR {
    dir: PathBuf,
    refresh: bool,
    state: Mutex<DumpState>,
}

#[derive(Default)]
struct DumpState {
    counter: usize,
    refresh_done: bool,
}

impl DumpIR {
    pub fn new(dir: impl Into<PathBuf>) -> DumpIR {
        DumpIR::with_refresh(dir, false)
    }

    pub fn with_refresh(dir: impl Into<PathBuf>, refresh: bool) -> DumpIR {
        DumpIR {
            dir: dir.into(),
            refresh,
            state: Mutex::new(DumpState::default()),
        }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// How many dumps were written so far (the next file's number).
    pub fn counter(&self) -> usize {
        lock(&self.state).counter
    }

    fn refresh_once(&self, st: &mut DumpState, sink: &dyn OutputSink) {
        if !self.refresh || st.refresh_done {
            return;
        }
        st.refresh_done = true;
        if let Err(e) = self.remove_old_dumps() {
            let msg = format!("warning: DumpIR keeps {}: {e}", self.dir.display());
            emit(sink, ChunkKind::Warning, self.name(), &msg);
        }
    }

    fn remove_old_dumps(&self) -> io::Result<()> {
        let entries = match fs::read_dir(&self.dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(e),
        };
        let mut dumps = Vec::new();
        for entry in entries {
            let entry = entry?;
            let name = entry.file_name().to_string_lossy().into_owned();
            if !entry.file_type()?.is_file() || !is_dump_name(&name) {
                return Err(io::Error::other(format!(
                    "it holds {name}, which is not a dump file"
                )));
            }
            dumps.push(entry.path());
        }
        for p in dumps {
            fs::remove_file(p)?;
        }
        Ok(())
    }
}

/// `NNN_<name>.relay` (and `.NNN_<name>.relay.<random>.tmp`, the temporary file of a write
/// that was interrupted).
pub fn is_dump_name(name: &str) -> bool {
    let name = name
        .strip_prefix('.')
        .and_then(|n| n.strip_suffix(".tmp"))
        .and_then(|n| n.rsplit_once('.'))
        .map_or(name, |(n, _)| n);
    let digits = name.bytes().take_while(u8::is_ascii_digit).count();
    digits >= 3 && name[digits..].starts_with('_') && name.ends_with(".relay")
}

/// The file name of dump number `n` of pass `pass`.
pub fn dump_file_name(n: usize, pass: &str) -> String {
    let clean: String = pass
        .chars()
        .map(|c| {
            if matches!(c, '<' | '>' | ':' | '"' | '/' | '\\' | '|' | '?' | '*') {
                '_'
            } else {
                c
            }
        })
        .collect();
    format!("{n:03}_{clean}.relay")
}

impl Instrument for DumpIR {
    fn name(&self) -> &str {
        "DumpIR"
    }

    fn has_should_run(&self) -> bool {
        false
    }

    fn enter_pass_ctx(&self, cx: &InstrumentCx<'_>) -> Result<(), InstrumentError> {
        self.refresh_once(&mut lock(&self.state), cx.sink);
        Ok(())
    }

    fn run_after_pass(
        &self,
        m: &Module,
        info: &PassInfo,
        cx: &InstrumentCx<'_>,
    ) -> Result<(), InstrumentError> {
        let mut st = lock(&self.state);
        self.refresh_once(&mut st, cx.sink);
        let path = self.dir.join(dump_file_name(st.counter, info.name()));
        fs::create_dir_all(&self.dir)
            .and_then(|_| write_atomic_with(&path, |w| write_module(m, Default::default(), w)))
            .map_err(|e| format!("DumpIR cannot write {}: {e}", path.display()))?;
        st.counter += 1;
        Ok(())
    }

    fn describe(&self) -> String {
        format!(
            "DumpIR({:?}, refresh={})",
            self.dir.display().to_string(),
            self.refresh
        )
    }
}

#[cfg(test)]
mod tests {
    use super::is_dump_name;

    #[test]
    fn dump_names_and_their_temporary_files() {
        assert!(is_dump_name("000_InferType.relay"));
        assert!(is_dump_name(".012_FuseOps.relay.a1B2c3.tmp"));
        assert!(!is_dump_name("notes.txt"));
        assert!(!is_dump_name(".notes.txt.a1B2c3.tmp"));
        assert!(!is_dump_name("12_x.relay"));
    }
}
