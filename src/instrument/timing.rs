//! `PassTimingInstrument`: nested pass timing. `run_before_pass` starts a record, and
//! `run_after_pass` closes it; records nest (a Sequential's children under it). Per record:
//! total time, self time (total minus children), % of the grand total (the sum of the top-level
//! records) and % of the parent. A pass skipped by `should_run` is never recorded.
//!
//! **passlab:** records belong to the instrument (TVM keeps one store per thread and wipes it
//! when any context exits); they survive the context's exit and are cleared only when the
//! instrument is entered again. A pass that fails (an error, a panic, Ctrl-C or a debugger's
//! abort inside it) still gets its record, marked failed, with the records of the passes that
//! ran inside it. Time a debugger holds the run (between `run_suspended` and `run_resumed`)
//! is nobody's: it is taken out of every record open across it. While a run is paused,
//! [`PassTimingInstrument::records_paused`] also shows the passes still running, marked so.
//! The clock is injectable so tests and transcripts get exact numbers.

use super::clock::{Clock, SystemClock};
use super::{Instrument, InstrumentCx};
use crate::ir::Module;
use crate::pass::error::{InstrumentError, PassError};
use crate::pass::PassInfo;
use comfy_table::{presets, CellAlignment, Table};
use std::fmt::Write;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// One timed pass run, with the runs nested in it.
#[derive(Clone, Debug, PartialEq)]
pub struct TimingRecord {
    pub name: Arc<str>,
    pub total: Duration,
    pub children: Vec<TimingRecord>,
    pub status: RecordStatus,
}

/// How a timed pass run ended.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RecordStatus {
    #[default]
    Finished,
    /// The pass failed (or was interrupted or aborted) after it started; `total` is its time
    /// until then.
    Failed,
    /// Still running: the run is paused inside it; `total` is its time until the pause.
    Running,
}

impl RecordStatus {
    /// What the renderings append to the pass's name: nothing, ` (failed)`, ` (running)`.
    pub fn suffix(self) -> &'static str {
        match self {
            RecordStatus::Finished => "",
            RecordStatus::Failed => " (failed)",
            RecordStatus::Running => " (running)",
        }
    }
}

impl TimingRecord {
    /// Total minus the children's totals.
    pub fn self_time(&self) -> Duration {
        let kids: Duration = self.children.iter().map(|c| c.total).sum();
        self.total.saturating_sub(kids)
    }
}

/// Times every pass run.
///
/// Speed: per pass, two raw clock reads (the CPU's time-stamp counter, scaled only when the
/// records are read), one spin-lock acquisition (a compare-exchange; the release is a plain
/// store, and the lock is never held across a pass body, so a running pipeline never contends
/// for it) and one entry (a counted handle on the name, a tag and two clock readings)
/// appended to columns that keep their capacity. A pass's start
/// goes to a slot for its depth (plain atomic stores, no lock: only one pass runs at a depth
/// at a time), and its end logs the whole record; the tree of records is built from the log
/// when it is read, not while passes run.
///
/// One instrument timing two pipelines on two threads at once gets garbled records (as TVM's
/// per-thread store would not); nothing worse.
pub struct PassTimingInstrument {
    clock: Arc<dyn Clock>,
    /// The machine's clock again, when `clock` is it, read directly (inlined `rdtsc`) rather
    /// than through the trait object: two indirect calls fewer per pass.
    system: Option<SystemClock>,
    /// The start of the pass running at each depth below [`SLOTS`] (deeper ones: `State::deep`).
    slots: [Slot; SLOTS],
    /// The last start's sequence number (starts are numbered from 1; 0 marks an empty slot).
    seq: AtomicU64,
    /// Raw clock ticks the run has spent suspended (in a debugger's hands) since the last
    /// clear; a record's time is its clock span less what this grew by across it.
    paused: AtomicU64,
    /// The raw reading when the current suspension began; 0 when the run is not suspended.
    suspended_at: AtomicU64,
    state: spin::Mutex<State>,
}

/// Passes nested this deep or less keep their start in a lock-free slot.
const SLOTS: usize = 32;

/// Where `run_before_pass` leaves a pass's start for its `run_after_pass`.
#[derive(Default)]
struct Slot {
    /// The start's sequence number; 0 when no timed pass is running at this depth.
    seq: AtomicU64,
    /// The raw clock reading when the pass started.
    raw: AtomicU64,
    /// The address of the pass's name (checked at the end: the pass that ends is the one
    /// that started).
    name: AtomicUsize,
    /// The instrument's paused time (`PassTimingInstrument::paused`) when the pass started.
    paused: AtomicU64,
}

/// A pass's start, as a slot holds it.
#[derive(Clone, Copy, Default)]
struct Start {
    seq: u64,
    raw: u64,
    name: usize,
    paused: u64,
}

impl Slot {
    fn load(&self) -> Start {
        Start {
            seq: self.seq.load(Ordering::Relaxed),
            raw: self.raw.load(Ordering::Relaxed),
            name: self.name.load(Ordering::Relaxed),
            paused: self.paused.load(Ordering::Relaxed),
        }
    }
}

/// What the callbacks log, in call order.
#[derive(Default)]
struct State {
    log: Log,
    /// The slots of depths from [`SLOTS`] on.
    deep: Vec<Start>,
}

/// The log as two columns of plain values, one entry per ended pass or exit: pushing words
/// stores them in place, where an enum of the fields would be built on the stack and then
/// copied, with a stalled reload (two columns are also faster than four, one per field).
#[derive(Default)]
struct Log {
    /// A timed pass's name; `None` for the other entries.
    names: Vec<Option<Arc<str>>>,
    /// `[tag, start, end]`. The tag of a timed pass: its start's sequence number above
    /// [`FAILED_BIT`] (set when the pass failed) above [`DEPTH_BITS`] bits of depth (the
    /// records that end before it one level down and started after it are its children), with
    /// the raw clock readings at its start (moved later by the time suspended across the pass)
    /// and end. Of an
    /// untimed pass (one that started before the instrument was installed or cleared: it has
    /// no record, and its children's records move up to its parent): the depth alone. Of
    /// `exit_pass_ctx` (records still waiting for a parent are dropped): [`EXIT`].
    marks: Vec<[u64; 3]>,
}

/// Bits of a [`Log`] tag that hold the depth (deeper passes are logged at this depth less
/// one: a million nested passes would overflow the stack first).
const DEPTH_BITS: u32 = 20;
const DEPTH_MASK: u64 = (1 << DEPTH_BITS) - 1;
/// The tag bit of a failed pass; the start's sequence number is above it.
const FAILED_BIT: u64 = 1 << DEPTH_BITS;
const SEQ_SHIFT: u32 = DEPTH_BITS + 1;
const EXIT: u64 = u64::MAX;

/// One entry of the [`Log`].
enum Entry<'a> {
    End {
        name: &'a Arc<str>,
        depth: usize,
        seq: u64,
        start: u64,
        end: u64,
        failed: bool,
    },
    Untimed {
        depth: usize,
    },
    Exit,
}

impl Log {
    fn clear(&mut self) {
        self.names.clear();
        self.marks.clear();
    }

    fn push(&mut self, name: Option<Arc<str>>, tag: u64, start: u64, end: u64) {
        self.names.push(name);
        self.marks.push([tag, start, end]);
    }

    fn entries(&self) -> impl Iterator<Item = Entry<'_>> {
        self.names
            .iter()
            .zip(&self.marks)
            .map(|(name, &[tag, start, end])| match name {
                _ if tag == EXIT => Entry::Exit,
                Some(name) => Entry::End {
                    name,
                    depth: (tag & DEPTH_MASK) as usize,
                    seq: tag >> SEQ_SHIFT,
                    start,
                    end,
                    failed: tag & FAILED_BIT != 0,
                },
                None => Entry::Untimed {
                    depth: (tag & DEPTH_MASK) as usize,
                },
            })
    }
}

fn name_address(name: &Arc<str>) -> usize {
    Arc::as_ptr(name) as *const u8 as usize
}

/// No record: the `u32` links below use it instead of `Option<u32>` (8 bytes each).
const NONE: u32 = u32::MAX;

/// The records as a tree, built from the events.
#[derive(Default)]
struct Tree {
    nodes: Vec<Node>,
    roots: Vec<usize>,
    /// By depth (from 1), the finished records not yet claimed by a parent, as
    /// (start sequence number, node), in the order they ended.
    waiting: Vec<Vec<(u64, usize)>>,
}

/// One pass invocation. Children are linked through indices (no per-node allocation), so a
/// Sequential of 10,000 passes records in one growing vector.
struct Node {
    name: Arc<str>,
    /// Nanoseconds.
    total: u64,
    status: RecordStatus,
    /// Links by index, [`NONE`] for none.
    first_child: u32,
    last_child: u32,
    next_sibling: u32,
}

impl Default for PassTimingInstrument {
    fn default() -> Self {
        PassTimingInstrument::new()
    }
}

impl PassTimingInstrument {
    /// Timing with the machine's monotonic clock.
    pub fn new() -> PassTimingInstrument {
        let clock = SystemClock::new();
        PassTimingInstrument {
            system: Some(clock.clone()),
            ..PassTimingInstrument::with_clock(Arc::new(clock))
        }
    }

    pub fn with_clock(clock: Arc<dyn Clock>) -> PassTimingInstrument {
        PassTimingInstrument {
            clock,
            system: None,
            slots: Default::default(),
            seq: AtomicU64::new(0),
            paused: AtomicU64::new(0),
            suspended_at: AtomicU64::new(0),
            state: spin::Mutex::new(State::default()),
        }
    }

    /// A raw reading of the instrument's clock.
    #[inline]
    fn raw(&self) -> u64 {
        match &self.system {
            Some(c) => c.raw(),
            None => self.clock.raw(),
        }
    }

    /// The top-level records of the passes that ended (finished or failed), in execution
    /// order. While a run is paused, the finished records under a pass that started before
    /// the instrument was installed are top-level ones too (that pass has no record to hold
    /// them); [`records_paused`](Self::records_paused) also shows the running passes.
    pub fn records(&self) -> Vec<TimingRecord> {
        self.records_paused(&[])
    }

    /// [`records`](Self::records) while a run is paused inside `running` (the passes that
    /// enclose the pause, outermost first, as the debugger reports them): each of them that
    /// this instrument timed is a record marked [`RecordStatus::Running`], with its time so
    /// far and the records that ended inside it.
    pub fn records_paused(&self, running: &[PassInfo]) -> Vec<TimingRecord> {
        let mut tree = Tree::default();
        let st = self.state.lock();
        for e in st.log.entries() {
            match e {
                Entry::End {
                    name,
                    depth,
                    seq,
                    start,
                    end,
                    failed,
                } => {
                    let status = if failed {
                        RecordStatus::Failed
                    } else {
                        RecordStatus::Finished
                    };
                    tree.end(
                        name,
                        depth,
                        seq,
                        self.clock.raw_delta_nanos(start, end),
                        status,
                    )
                }
                Entry::Untimed { depth } => tree.untimed(depth),
                Entry::Exit => tree.waiting.clear(),
            }
        }
        // The running passes, innermost first, each closed as of now (or of the suspension).
        let now = match self.suspended_at.load(Ordering::Relaxed) {
            0 => self.raw(),
            at => at,
        };
        let paused = self.paused.load(Ordering::Relaxed);
        for depth in (0..running.len()).rev() {
            match self.start_at(depth, &st) {
                Some(s) if s.name == name_address(running[depth].name_arc()) => {
                    let start = s.raw.saturating_add(paused.saturating_sub(s.paused));
                    let total = self.clock.raw_delta_nanos(start, now);
                    let name = running[depth].name_arc();
                    tree.end(name, depth, s.seq, total, RecordStatus::Running);
                }
                _ => tree.untimed(depth),
            }
        }
        // Records waiting under passes that are all untimed and still running.
        let mut depth = 1;
        while depth < tree.waiting.len() && self.start_at(depth - 1, &st).is_none() {
            let lost = std::mem::take(&mut tree.waiting[depth]);
            tree.roots.extend(lost.into_iter().map(|(_, i)| i));
            depth += 1;
        }
        drop(st);
        tree.roots.iter().map(|&i| tree.record(i)).collect()
    }

    /// The timed pass running (or failed) at `depth`, if any.
    fn start_at(&self, depth: usize, st: &State) -> Option<Start> {
        let s = match self.slots.get(depth) {
            Some(slot) => slot.load(),
            None => st.deep.get(depth - SLOTS).copied().unwrap_or_default(),
        };
        (s.seq != 0).then_some(s)
    }

    /// Forgets every record (keeping the storage for the next run); a pass running now ends
    /// untimed.
    pub fn clear(&self) {
        let mut st = self.state.lock();
        st.log.clear();
        st.deep.clear();
        for slot in &self.slots {
            slot.seq.store(0, Ordering::Relaxed);
        }
        // No start is left to compare with: numbering starts again (a log tag holds 43 bits
        // of it, 8 trillion starts between two clears).
        self.seq.store(0, Ordering::Relaxed);
        self.paused.store(0, Ordering::Relaxed);
        self.suspended_at.store(0, Ordering::Relaxed);
    }

    /// TVM's text rendering, byte for byte: one line per record, depth-first,
    /// `"\t"*depth + name + ": " + %.0f(total_us) + "us [" + %.0f(self_us) + "us] (" +
    /// %.2f(pct_of_total) + "%; " + %.2f(pct_of_parent) + "%)\n"`.
    pub fn render(&self) -> String {
        render_records(&self.records())
    }

    /// The records as a table (tree-shaped names, times in human units).
    pub fn render_table(&self) -> String {
        render_table(&self.records(), None)
    }
}

impl Tree {
    fn record(&self, i: usize) -> TimingRecord {
        let n = &self.nodes[i];
        let mut children = Vec::new();
        let mut c = n.first_child;
        while c != NONE {
            children.push(self.record(c as usize));
            c = self.nodes[c as usize].next_sibling;
        }
        TimingRecord {
            name: n.name.clone(),
            total: Duration::from_nanos(n.total),
            children,
            status: n.status,
        }
    }

    /// The records waiting at `depth` (1 and up), and every deeper one dropped: when a pass at
    /// `depth - 1` ends, the deeper records still waiting lost their parent to a failure.
    fn take_waiting(&mut self, depth: usize) -> Vec<(u64, usize)> {
        let taken = match self.waiting.get_mut(depth) {
            Some(w) => std::mem::take(w),
            None => Vec::new(),
        };
        for deeper in self.waiting.iter_mut().skip(depth + 1) {
            deeper.clear();
        }
        taken
    }

    fn wait(&mut self, depth: usize, seq: u64, node: usize) {
        if depth == 0 {
            self.roots.push(node);
            return;
        }
        if self.waiting.len() <= depth {
            self.waiting.resize_with(depth + 1, Vec::new);
        }
        self.waiting[depth].push((seq, node));
    }

    /// A timed pass at `depth` ended: its children are the records waiting one level down
    /// that started after it (earlier ones belonged to a sibling that failed).
    fn end(&mut self, name: &Arc<str>, depth: usize, seq: u64, total: u64, status: RecordStatus) {
        let idx = self.nodes.len();
        let Ok(id) = u32::try_from(idx) else {
            // Four billion records: stop recording rather than wrap.
            return;
        };
        if id == NONE {
            return;
        }
        let kids = self.take_waiting(depth + 1);
        let mut node = Node {
            name: name.clone(),
            total,
            status,
            first_child: NONE,
            last_child: NONE,
            next_sibling: NONE,
        };
        for (_, k) in kids.into_iter().filter(|(s, _)| *s > seq) {
            let k = k as u32;
            match node.last_child {
                NONE => node.first_child = k,
                last => self.nodes[last as usize].next_sibling = k,
            }
            node.last_child = k;
        }
        self.nodes.push(node);
        self.wait(depth, seq, idx);
    }

    /// An untimed pass at `depth` ended: the records waiting under it move up one level.
    fn untimed(&mut self, depth: usize) {
        let kids = self.take_waiting(depth + 1);
        for (seq, k) in kids {
            self.wait(depth, seq, k);
        }
    }
}

impl Instrument for PassTimingInstrument {
    fn name(&self) -> &str {
        "PassTimingInstrument"
    }

    fn enter_pass_ctx(&self, _cx: &InstrumentCx<'_>) -> Result<(), InstrumentError> {
        self.clear();
        Ok(())
    }

    fn exit_pass_ctx(&self, _cx: &InstrumentCx<'_>) -> Result<(), InstrumentError> {
        self.state.lock().log.push(None, EXIT, 0, 0);
        Ok(())
    }

    fn has_should_run(&self) -> bool {
        false
    }

    fn run_before_pass(
        &self,
        _m: &Module,
        info: &PassInfo,
        cx: &InstrumentCx<'_>,
    ) -> Result<(), InstrumentError> {
        // A load and a store, not an atomic increment: one pass starts at a time.
        let seq = self.seq.load(Ordering::Relaxed) + 1;
        self.seq.store(seq, Ordering::Relaxed);
        let name = name_address(info.name_arc());
        let paused = self.paused.load(Ordering::Relaxed);
        match self.slots.get(cx.depth) {
            Some(slot) => {
                slot.name.store(name, Ordering::Relaxed);
                slot.seq.store(seq, Ordering::Relaxed);
                slot.paused.store(paused, Ordering::Relaxed);
                // Read last, so the bookkeeping above is not part of the pass's time.
                slot.raw.store(self.raw(), Ordering::Relaxed);
            }
            None => {
                let mut st = self.state.lock();
                let i = cx.depth - SLOTS;
                if st.deep.len() <= i {
                    st.deep.resize(i + 1, Start::default());
                }
                // The clock is read last (the lock's release is all that follows it).
                st.deep[i] = Start {
                    seq,
                    name,
                    paused,
                    raw: self.raw(),
                };
            }
        }
        Ok(())
    }

    fn run_after_pass(
        &self,
        _m: &Module,
        info: &PassInfo,
        cx: &InstrumentCx<'_>,
    ) -> Result<(), InstrumentError> {
        let end = self.raw();
        self.end_pass(info, cx.depth, end, 0);
        Ok(())
    }

    fn run_failed_pass(
        &self,
        _m: &Module,
        info: &PassInfo,
        _error: &PassError,
        cx: &InstrumentCx<'_>,
    ) {
        let end = self.raw();
        // A pass that failed inside this one may have left its start behind (it failed
        // before its own end was logged): those deeper starts are stale now.
        let mut st = self.state.lock();
        for slot in self.slots.iter().skip(cx.depth + 1) {
            slot.seq.store(0, Ordering::Relaxed);
        }
        st.deep.truncate((cx.depth + 1).saturating_sub(SLOTS));
        drop(st);
        self.end_pass(info, cx.depth, end, FAILED_BIT);
    }

    fn run_suspended(&self, _cx: &InstrumentCx<'_>) {
        self.suspended_at
            .store(self.raw().max(1), Ordering::Relaxed);
    }

    fn run_resumed(&self, _cx: &InstrumentCx<'_>) {
        let at = self.suspended_at.swap(0, Ordering::Relaxed);
        if at != 0 {
            let held = self.raw().saturating_sub(at);
            self.paused.fetch_add(held, Ordering::Relaxed);
        }
    }
}

impl PassTimingInstrument {
    /// Logs the end of the pass at `depth` (`flags`: 0 or [`FAILED_BIT`]): its record when
    /// this instrument saw it start, else an untimed entry.
    #[inline]
    fn end_pass(&self, info: &PassInfo, depth: usize, end: u64, flags: u64) {
        let mut st = self.state.lock();
        let start = match self.slots.get(depth) {
            Some(slot) => {
                let s = slot.load();
                slot.seq.store(0, Ordering::Relaxed);
                s
            }
            None => st
                .deep
                .get_mut(depth - SLOTS)
                .map(std::mem::take)
                .unwrap_or_default(),
        };
        let logged_depth = (depth as u64).min(DEPTH_MASK - 1);
        if start.seq != 0 && start.name == name_address(info.name_arc()) {
            let tag = start.seq << SEQ_SHIFT | flags | logged_depth;
            // The time suspended across the pass moves its start later.
            let held = self
                .paused
                .load(Ordering::Relaxed)
                .saturating_sub(start.paused);
            st.log.push(
                Some(info.name_arc().clone()),
                tag,
                start.raw.saturating_add(held),
                end,
            );
        } else {
            st.log.push(None, logged_depth, 0, 0);
        }
    }
}

fn micros(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

/// `%.Nf` as C prints it (NaN and infinities included).
fn c_fixed(v: f64, prec: usize) -> String {
    if v.is_nan() {
        "nan".into()
    } else if v.is_infinite() {
        if v > 0.0 { "inf" } else { "-inf" }.into()
    } else {
        format!("{v:.prec$}")
    }
}

/// TVM's `RenderPassProfiles` over a list of top-level records.
pub fn render_records(roots: &[TimingRecord]) -> String {
    let top: f64 = roots.iter().map(|r| micros(r.total)).sum();
    let mut out = String::new();
    let mut stack: Vec<(usize, f64, &TimingRecord)> =
        roots.iter().rev().map(|r| (0, top, r)).collect();
    while let Some((depth, parent_us, r)) = stack.pop() {
        let total = micros(r.total);
        let mut self_us = total;
        for c in r.children.iter().rev() {
            self_us -= micros(c.total);
            stack.push((depth + 1, total, c));
        }
        let _ = writeln!(
            out,
            "{}{}{}: {}us [{}us] ({}%; {}%)",
            "\t".repeat(depth),
            r.name,
            r.status.suffix(),
            c_fixed(total, 0),
            c_fixed(self_us, 0),
            c_fixed(total / top * 100.0, 2),
            c_fixed(total / parent_us * 100.0, 2),
        );
    }
    out
}

/// A human duration: `412 us`, `38.2 ms`, `1.25 s`.
pub fn human_duration(d: Duration) -> String {
    let us = micros(d);
    if us < 1000.0 {
        format!("{us:.0} us")
    } else if us < 1e6 {
        format!("{:.1} ms", us / 1e3)
    } else {
        format!("{:.2} s", us / 1e6)
    }
}

/// The records as a table: pass (as a tree), total, self, % of all, % of parent; fitted to
/// `width` columns when there is one (the pass column wraps first).
pub fn render_table(roots: &[TimingRecord], width: Option<usize>) -> String {
    let top: f64 = roots.iter().map(|r| micros(r.total)).sum();
    let mut table = Table::new();
    table.load_style(presets::UTF8_FULL_CONDENSED);
    fit_table(&mut table, width);
    table.set_header(vec!["pass", "total", "self", "% all", "% parent"]);
    let mut rows = Vec::new();
    for r in roots {
        table_rows(r, "", top, top, &mut rows);
    }
    for row in rows {
        table.add_row(row);
    }
    for col in 1..5 {
        if let Some(c) = table.column_mut(col) {
            c.set_cell_alignment(CellAlignment::Right);
        }
    }
    table.to_string()
}

/// Lets comfy-table wrap cells so that `table` fits `width` columns (at least 40: narrower
/// tables read worse wrapped than cut off). Every table of the product goes through this
/// (`present::wrap` re-exports it for the tables above this layer).
pub fn fit_table(table: &mut Table, width: Option<usize>) {
    if let Some(w) = width.filter(|&w| w >= 40) {
        table.set_content_arrangement(comfy_table::ContentArrangement::Dynamic);
        table.set_width(u16::try_from(w).unwrap_or(u16::MAX));
    }
}

fn pct(part: f64, whole: f64) -> String {
    if whole > 0.0 {
        format!("{:.1}", part / whole * 100.0)
    } else {
        "-".into()
    }
}

fn table_rows(r: &TimingRecord, indent: &str, top: f64, parent: f64, rows: &mut Vec<Vec<String>>) {
    let total = micros(r.total);
    rows.push(vec![
        format!("{indent}{}{}", r.name, r.status.suffix()),
        human_duration(r.total),
        human_duration(r.self_time()),
        pct(total, top),
        pct(total, parent),
    ]);
    let base = indent.replace("├─ ", "│  ").replace("└─ ", "   ");
    for (i, c) in r.children.iter().enumerate() {
        let is_last = i + 1 == r.children.len();
        let prefix = format!("{base}{}", if is_last { "└─ " } else { "├─ " });
        table_rows(c, &prefix, top, total, rows);
    }
}
