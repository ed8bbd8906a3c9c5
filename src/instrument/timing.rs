//! `PassTimingInstrument`: nested pass timing. `run_before_pass` starts a record, and
//! `run_after_pass` closes it; records nest (a Sequential's children under it). Per record:
//! total time, self time (total minus children), % of the grand total (the sum of the top-level
//! records) and % of the parent. A pass skipped by `should_run` is never recorded.
//!
//! **passlab:** records belong to the instrument (TVM keeps one store per thread and wipes it
//! when any context exits); they survive the context's exit and are cleared only when the
//! instrument is entered again. Records left open by a failed pass are dropped. The clock is
//! injectable so tests and transcripts get exact numbers.

use super::clock::{Clock, SystemClock};
use super::{Instrument, InstrumentCx};
use crate::ir::Module;
use crate::pass::error::InstrumentError;
use crate::pass::PassInfo;
use comfy_table::{presets, CellAlignment, Table};
use std::fmt::Write;
use std::sync::Arc;
use std::time::Duration;

/// One timed pass run, with the runs nested in it.
#[derive(Clone, Debug, PartialEq)]
pub struct TimingRecord {
    pub name: Arc<str>,
    pub total: Duration,
    pub children: Vec<TimingRecord>,
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
/// records are read), two spin-lock acquisitions (a compare-exchange each; the release is a
/// plain store, and the lock is never held across a pass body, so it is never contended by a
/// running pipeline) and two 40-byte events appended to a vector that keeps its capacity.
/// The tree of records is built from the events when they are read, not while passes run.
pub struct PassTimingInstrument {
    clock: Arc<dyn Clock>,
    /// The machine's clock again, when `clock` is it, read directly (inlined `rdtsc`) rather
    /// than through the trait object: two indirect calls fewer per pass.
    system: Option<SystemClock>,
    state: spin::Mutex<State>,
}

/// What the callbacks log, in call order.
#[derive(Default)]
struct State {
    events: Vec<Event>,
}

enum Event {
    /// `run_before_pass`, with the raw clock reading when the pass started.
    Start {
        name: Arc<str>,
        raw: u64,
        depth: usize,
    },
    /// `run_after_pass`; `name` is the address of the pass's name (it matches its `Start`'s
    /// name, which keeps that address alive).
    End { name: usize, raw: u64, depth: usize },
    /// `exit_pass_ctx`: every record still open is dropped.
    Exit,
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
    /// Indices of the records still running, outermost first.
    /// The running passes by depth; `None` for one that started before the instrument was
    /// installed (`override_instruments` while a run is paused) and has no record.
    open: Vec<Option<usize>>,
}

/// One pass invocation. Children are linked through indices (no per-node allocation), so a
/// Sequential of 10,000 passes records in one growing vector.
struct Node {
    name: Arc<str>,
    /// The raw clock reading when the pass started.
    start: u64,
    /// Nanoseconds, once the pass has ended (0 while it runs).
    total: u64,
    /// Links by index, [`NONE`] for none.
    first_child: u32,
    last_child: u32,
    next_sibling: u32,
    /// Its pass failed: the record is dropped from the results.
    abandoned: bool,
    is_root: bool,
}

const _: () = assert!(std::mem::size_of::<Node>() == 48);

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

    /// The finished top-level records, in execution order.
    pub fn records(&self) -> Vec<TimingRecord> {
        let mut tree = Tree::default();
        {
            let st = self.state.lock();
            for e in &st.events {
                match e {
                    Event::Start { name, raw, depth } => tree.start(name, *raw, *depth),
                    Event::End { name, raw, depth } => tree.end(*name, *raw, *depth, &*self.clock),
                    Event::Exit => {
                        while !tree.open.is_empty() {
                            tree.abandon();
                        }
                    }
                }
            }
        }
        tree.roots.iter().map(|&i| tree.record(i)).collect()
    }

    /// Forgets every record (keeping the storage for the next run).
    pub fn clear(&self) {
        self.state.lock().events.clear();
    }

    /// TVM's text rendering, byte for byte: one line per record, depth-first,
    /// `"\t"*depth + name + ": " + %.0f(total_us) + "us [" + %.0f(self_us) + "us] (" +
    /// %.2f(pct_of_total) + "%; " + %.2f(pct_of_parent) + "%)\n"`.
    pub fn render(&self) -> String {
        render_records(&self.records())
    }

    /// The records as a table (tree-shaped names, times in human units).
    pub fn render_table(&self) -> String {
        render_table(&self.records())
    }
}

impl Tree {
    fn record(&self, i: usize) -> TimingRecord {
        let n = &self.nodes[i];
        let mut children = Vec::new();
        let mut c = n.first_child;
        while c != NONE {
            let child = &self.nodes[c as usize];
            if !child.abandoned {
                children.push(self.record(c as usize));
            }
            c = child.next_sibling;
        }
        TimingRecord {
            name: n.name.clone(),
            total: Duration::from_nanos(n.total),
            children,
        }
    }

    /// Drops the innermost open record (its pass failed).
    fn abandon(&mut self) {
        if let Some(Some(i)) = self.open.pop() {
            self.nodes[i].abandoned = true;
            if self.nodes[i].is_root {
                self.roots.pop();
            }
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
        self.state.lock().events.push(Event::Exit);
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
        let mut st = self.state.lock();
        st.events.push(Event::Start {
            name: info.name_arc().clone(),
            raw: 0,
            depth: cx.depth,
        });
        // Read last, so the bookkeeping above is not part of the pass's time.
        if let Some(Event::Start { raw, .. }) = st.events.last_mut() {
            *raw = self.raw();
        }
        Ok(())
    }

    fn run_after_pass(
        &self,
        _m: &Module,
        info: &PassInfo,
        cx: &InstrumentCx<'_>,
    ) -> Result<(), InstrumentError> {
        let raw = self.raw();
        self.state.lock().events.push(Event::End {
            name: name_address(info.name_arc()),
            raw,
            depth: cx.depth,
        });
        Ok(())
    }
}

impl Tree {
    /// A pass started at `depth`: records deeper than it were left open by failed passes.
    fn start(&mut self, name: &Arc<str>, raw: u64, depth: usize) {
        while self.open.len() > depth {
            self.abandon();
        }
        if self.open.len() < depth {
            self.open.resize(depth, None);
        }
        let idx = self.nodes.len();
        let id = match u32::try_from(idx) {
            Ok(id) if id != NONE => id,
            // Four billion records: stop recording rather than wrap.
            _ => {
                self.open.push(None);
                return;
            }
        };
        let parent = self.open.iter().rev().find_map(|o| *o);
        match parent {
            Some(p) => {
                match self.nodes[p].last_child {
                    NONE => self.nodes[p].first_child = id,
                    last => self.nodes[last as usize].next_sibling = id,
                }
                self.nodes[p].last_child = id;
            }
            None => self.roots.push(idx),
        }
        self.open.push(Some(idx));
        self.nodes.push(Node {
            name: name.clone(),
            start: raw,
            total: 0,
            first_child: NONE,
            last_child: NONE,
            next_sibling: NONE,
            abandoned: false,
            is_root: parent.is_none(),
        });
    }

    /// The pass at `depth` whose name lives at `name` ended at `raw`.
    fn end(&mut self, name: usize, raw: u64, depth: usize, clock: &dyn Clock) {
        while self.open.len() > depth + 1 {
            self.abandon();
        }
        // A pass that started before this instrument was installed has no open record.
        if self.open.len() == depth + 1 {
            match *self.open.last().expect("checked length") {
                None => {
                    self.open.pop();
                }
                Some(i) if name_address(&self.nodes[i].name) == name => {
                    self.open.pop();
                    let start = self.nodes[i].start;
                    self.nodes[i].total = clock.raw_delta_nanos(start, raw);
                }
                Some(_) => {}
            }
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
            "{}{}: {}us [{}us] ({}%; {}%)",
            "\t".repeat(depth),
            r.name,
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

/// The records as a table: pass (as a tree), total, self, % of all, % of parent.
pub fn render_table(roots: &[TimingRecord]) -> String {
    let top: f64 = roots.iter().map(|r| micros(r.total)).sum();
    let mut table = Table::new();
    table.load_style(presets::UTF8_FULL_CONDENSED);
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
        format!("{indent}{}", r.name),
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
