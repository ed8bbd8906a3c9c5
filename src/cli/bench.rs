//! `passlab bench`: times passes on a module and the pass manager's own cost per pass, with
//! the JSON keys of `shared/peers/tvm/tvm_bench.py` so `compare.sh` can put both side by side.

use passlab::instrument::{InstrumentRef, PassTimingInstrument};
use passlab::ir::Module;
use passlab::pass::{PassContext, PassInfo, PassManager, PassOptions, Sequential};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// What was measured.
pub struct BenchReport {
    /// Per pass: its name and the median, fastest and slowest of its timed runs, in seconds.
    pub passes: Vec<PassTime>,
    /// Nanoseconds per pass invocation of a Sequential of no-op passes, without and with timing.
    pub overhead: Option<(f64, f64)>,
    /// The length in bytes of the text `print` timed (see [`Timed::print`]).
    pub printed_bytes: Option<usize>,
    /// With `session`: the session's time over the pipeline's, round by round.
    pub session_over_pipeline: Option<Paired>,
}

/// The times of one pass's runs.
pub struct PassTime {
    pub name: String,
    pub median: f64,
    pub min: f64,
    pub max: f64,
    pub runs: usize,
}

impl PassTime {
    fn of(name: &str, mut v: Vec<Duration>) -> PassTime {
        v.sort();
        PassTime {
            name: name.to_string(),
            median: v[v.len() / 2].as_secs_f64(),
            min: v[0].as_secs_f64(),
            max: v[v.len() - 1].as_secs_f64(),
            runs: v.len(),
        }
    }
}

/// What [`bench`] times: passes by name and, with `walk`, a read-only walk.
#[derive(Clone, Copy)]
pub struct Timed<'a> {
    pub passes: &'a [String],
    /// Passes applied once, in order, untimed, to the typed module before anything is timed
    /// (each followed by InferType, so the timed passes see a typed module).
    pub prepare: &'a [String],
    /// Time the passes on the module as given, not typed first.
    pub untyped: bool,
    /// Also time [`walk_every_node`] (reported as `walk`).
    pub walk: bool,
    /// Also time parsing this text (with this file name), reported as `parse`.
    pub parse: Option<(&'a str, &'a str)>,
    /// Also time printing the typed module (types and metadata, as `save` writes it),
    /// reported as `print`; the text's length is [`BenchReport::printed_bytes`].
    pub print: bool,
    /// Also time `passes` as one Sequential: applied directly (`pipeline`), and as the
    /// statement `out = seq(m)` in a session (`session`), the product's path.
    pub session: bool,
    /// `passlab.num_threads` for the timed runs (1: every pass on the calling thread, so
    /// that `growth.py --instructions`, which counts that thread, sees all the work).
    pub threads: i64,
}

/// Imports an ONNX model `runs` times (reading the file each time, as TVM's `onnx.load`
/// plus `from_onnx` does) and returns the module with the times as `import`.
pub fn time_onnx_import(
    path: &std::path::Path,
    opts: &passlab::onnx::ImportOptions,
    runs: usize,
) -> Result<(Module, PassTime), String> {
    let m = passlab::onnx::import_file(path, opts).map_err(|e| e.to_string())?;
    let times = time_runs(runs.max(1), None, || passlab::onnx::import_file(path, opts));
    Ok((m, PassTime::of("import", times)))
}

/// Reads every node of every function of `m` once (as [`each_node`](passlab::ir::visit::each_node)
/// reaches them, shared nodes once) and counts them: the least any pass that must look at
/// every node does, so its growth with the module's size is the floor under theirs (what the
/// memory system alone adds when the module outgrows the caches).
pub fn walk_every_node(m: &Module) -> usize {
    let mut nodes = 0;
    for (_, f) in m.functions() {
        passlab::ir::visit::each_node(f, |_| nodes += 1);
    }
    nodes
}

/// The times of `runs` calls of `run`, each result dropped after its time was taken; with
/// `evict`, the caches are flushed (untimed) before every call.
fn time_runs<R>(
    runs: usize,
    mut evict: Option<&mut Vec<u64>>,
    mut run: impl FnMut() -> R,
) -> Vec<Duration> {
    let mut times = Vec::with_capacity(runs);
    for _ in 0..runs {
        if let Some(junk) = evict.as_deref_mut() {
            evict_caches(junk);
        }
        let start = Instant::now();
        let r = timed_run(&mut run);
        times.push(start.elapsed());
        drop(std::hint::black_box(r));
    }
    times
}

/// One timed run: its own symbol, so that `benches/growth.py --instructions` counts the
/// instructions of exactly the runs (callgrind's `--toggle-collect`), not of loading, typing
/// or dropping.
#[inline(never)]
fn timed_run<R>(run: &mut impl FnMut() -> R) -> R {
    run()
}

/// Bytes written (untimed) before each run with `cold`: twice the 32 MiB last-level cache of
/// the machine the goals are measured on, so nothing of the module or of the previous run is
/// left in any cache.
pub const EVICT_BYTES: usize = 64 << 20;

/// Writes one word per cache line of `buf` (see [`EVICT_BYTES`]).
fn evict_caches(buf: &mut [u64]) {
    for (i, w) in buf.iter_mut().enumerate().step_by(8) {
        *w = w.wrapping_add(i as u64);
    }
    std::hint::black_box(buf);
}

/// Runs each named pass `runs` times directly on `m`, never gated (as a direct call), after the
/// `what.prepare` passes (untimed); first,
/// with `what.walk`, [`walk_every_node`] (reported as `walk`); and
/// measures the overhead of `overhead` no-op passes when asked. The module is typed once first
/// (InferType, untimed), as every TVM module is, so a pass that needs types does not pay for
/// inferring them in each timed run; with `what.untyped` it is timed as given.
///
/// With `cold`, the caches are flushed (untimed, [`EVICT_BYTES`] written) before every run, so
/// each run starts with the module in memory only: the time of a pass's first touch of a
/// module rather than of repeated runs over one that stays in cache. (A diagnostic for growth
/// with size: a small model stays in cache between warm runs, a large one cannot.)
pub fn bench(
    m: &Module,
    what: Timed<'_>,
    runs: usize,
    overhead: Option<usize>,
    cold: bool,
) -> Result<BenchReport, String> {
    let mut pm = PassManager::new(passlab::passes::registry());
    let threads = PassContext::builder()
        .config("passlab.num_threads", what.threads)
        .build()
        .map_err(|e| e.to_string())?;
    pm.enter(&threads).map_err(|e| e.to_string())?;
    let runs = runs.max(1);
    let infer = pm
        .create("InferType", &PassOptions::new())
        .map_err(|e| e.to_string())?;
    let mut typed = if what.untyped {
        m.clone()
    } else {
        pm.run(&infer, m)
            .map_err(|e| format!("the module does not type-check: {e}"))?
    };
    for name in what.prepare {
        let pass = pm
            .create(name, &PassOptions::new())
            .map_err(|e| e.to_string())?;
        let prepared = pm
            .run(&pass, &typed)
            .map_err(|e| format!("--prepare {name}: {e}"))?;
        typed = pm
            .run(&infer, &prepared)
            .map_err(|e| format!("after --prepare {name}: {e}"))?;
    }
    let m = &typed;
    let mut out = Vec::new();
    let mut junk: Vec<u64> = if cold {
        vec![1; EVICT_BYTES / 8]
    } else {
        Vec::new()
    };
    if what.walk {
        std::hint::black_box(walk_every_node(m));
        let time = time_runs(runs, cold.then_some(&mut junk), || {
            walk_every_node(std::hint::black_box(m))
        });
        out.push(PassTime::of("walk", time));
    }
    if let Some((text, name)) = what.parse {
        let time = time_runs(runs, cold.then_some(&mut junk), || {
            passlab::text::parse_module(std::hint::black_box(text), name)
        });
        out.push(PassTime::of("parse", time));
    }
    let mut printed_bytes = None;
    if what.print {
        let print = || passlab::text::try_print_module_with(m, Default::default());
        let text = print().map_err(|e| e.to_string())?;
        printed_bytes = Some(text.len());
        drop(text);
        let time = time_runs(runs, cold.then_some(&mut junk), print);
        out.push(PassTime::of("print", time));
    }
    let mut session_over_pipeline = None;
    for name in what.passes {
        let pass = pm
            .create(name, &PassOptions::new())
            .map_err(|e| e.to_string())?;
        // One warm-up run, also to report a failing pass before timing.
        pm.run(&pass, m).map_err(|e| e.to_string())?;
        let time = time_runs(runs, cold.then_some(&mut junk), || pm.run(&pass, m));
        out.push(PassTime::of(name, time));
    }
    if what.session && !what.passes.is_empty() {
        let (pipeline, session, ratio) = time_pipeline(&pm, m, what.passes, runs, what.threads)?;
        out.push(pipeline);
        out.push(session);
        session_over_pipeline = Some(ratio);
    }
    let overhead = overhead.filter(|n| *n > 0).map(|n| {
        // The peer's shape (tvm_bench.py): n distinct empty Sequentials named p0, p1, ...
        let seq = Sequential::new(
            (0..n)
                .map(|i| {
                    Sequential::with_info(PassInfo::new(&format!("p{i}"), 0), vec![]).into_pass()
                })
                .collect(),
        )
        .into_pass();
        let per_pass = |instruments: Vec<InstrumentRef>| -> f64 {
            let mut pm = PassManager::new(passlab::passes::registry());
            let ctx = PassContext::builder()
                .instruments(instruments)
                .build()
                .expect("a valid context");
            let mut best = f64::MAX;
            for _ in 0..5 {
                let r = pm.with_context(&ctx, |pm| {
                    let start = Instant::now();
                    let r = pm.run(&seq, m);
                    Ok((start.elapsed(), r))
                });
                if let Ok((t, _)) = r {
                    best = best.min(t.as_nanos() as f64 / n as f64);
                }
            }
            best
        };
        let plain = per_pass(Vec::new());
        let timed = per_pass(vec![Arc::new(PassTimingInstrument::new()) as InstrumentRef]);
        (plain, timed)
    });
    Ok(BenchReport {
        passes: out,
        overhead,
        printed_bytes,
        session_over_pipeline,
    })
}

/// The passes as one Sequential on `m`, `runs` times each way: through the pass manager
/// (`pipeline`) and through [`Session::execute`](passlab::session::Session::execute)
/// (`session`). The two ways alternate run by run (pipeline first in odd rounds, session
/// first in even ones), so a change in the host's load meets both alike, and each round's
/// session time over its pipeline time is one of the [`Paired`] ratios. Each session run
/// rebinds `out`, dropping the previous result and run history as a user's next statement
/// does; the previous ones are dropped (untimed) first, as the pipeline's result is dropped
/// untimed after its run, so both ways time the same work.
fn time_pipeline(
    pm: &PassManager,
    m: &Module,
    passes: &[String],
    runs: usize,
    threads: i64,
) -> Result<(PassTime, PassTime, Paired), String> {
    use passlab::session::{Session, Value};
    let kids = passes
        .iter()
        .map(|n| pm.create(n, &PassOptions::new()))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| e.to_string())?;
    let seq = Sequential::new(kids).into_pass();
    pm.run(&seq, m).map_err(|e| e.to_string())?;
    let mut s = Session::new();
    s.set_html(false);
    s.set_var("m", Value::Module(m.clone()));
    s.set_var("seq", Value::Pass(seq.clone()));
    let entered = s.execute(&format!(
        "enter PassContext(config={{\"passlab.num_threads\": {threads}}})"
    ));
    if entered.is_error() {
        return Err(entered.plain());
    }
    let mut session_run = || -> Result<Duration, String> {
        s.execute("out = None");
        s.forget_run_history();
        let start = Instant::now();
        let out = timed_run(&mut || s.execute("out = seq(m)"));
        let took = start.elapsed();
        if out.is_error() {
            return Err(out.plain());
        }
        Ok(took)
    };
    let pipeline_run = || time_runs(1, None, || pm.run(&seq, m))[0];
    // The first round warms up (the session's first worker stack, the allocator's pools).
    session_run()?;
    let (mut pipeline, mut session) = (Vec::with_capacity(runs), Vec::with_capacity(runs));
    for round in 0..runs {
        if round % 2 == 0 {
            pipeline.push(pipeline_run());
            session.push(session_run()?);
        } else {
            session.push(session_run()?);
            pipeline.push(pipeline_run());
        }
    }
    let ratios = session
        .iter()
        .zip(&pipeline)
        .map(|(s, p)| s.as_secs_f64() / p.as_secs_f64())
        .collect();
    Ok((
        PassTime::of("pipeline", pipeline),
        PassTime::of("session", session),
        Paired::of(ratios),
    ))
}

/// The session's time over the pipeline's, round by round ([`time_pipeline`]): the median
/// and the range.
pub struct Paired {
    pub median: f64,
    pub min: f64,
    pub max: f64,
    pub ratios: Vec<f64>,
}

impl Paired {
    fn of(ratios: Vec<f64>) -> Paired {
        let mut v = ratios.clone();
        v.sort_by(f64::total_cmp);
        Paired {
            median: v[v.len() / 2],
            min: v[0],
            max: v[v.len() - 1],
            ratios,
        }
    }
}

impl BenchReport {
    /// One JSON object: `<Pass>_s` (the median), `overhead_ns_per_pass`,
    /// `overhead_ns_per_pass_timing` (the keys of TVM's side in compare.sh), and
    /// `<Pass>_min_s` / `<Pass>_max_s`, the fastest and slowest runs.
    pub fn to_json(&self) -> String {
        let mut obj = serde_json::Map::new();
        for p in &self.passes {
            obj.insert(format!("{}_s", p.name), serde_json::json!(p.median));
            obj.insert(format!("{}_min_s", p.name), serde_json::json!(p.min));
            obj.insert(format!("{}_max_s", p.name), serde_json::json!(p.max));
        }
        if let Some((a, b)) = self.overhead {
            obj.insert("overhead_ns_per_pass".into(), serde_json::json!(a));
            obj.insert("overhead_ns_per_pass_timing".into(), serde_json::json!(b));
        }
        if let Some(n) = self.printed_bytes {
            obj.insert("printed_bytes".into(), serde_json::json!(n));
        }
        if let Some(r) = &self.session_over_pipeline {
            obj.insert("session_over_pipeline".into(), serde_json::json!(r.median));
            obj.insert("session_over_pipeline_min".into(), serde_json::json!(r.min));
            obj.insert("session_over_pipeline_max".into(), serde_json::json!(r.max));
        }
        serde_json::Value::Object(obj).to_string()
    }

    /// A readable summary.
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        for p in &self.passes {
            // The spread says how far to trust the median: on a shared host it is often wide.
            s.push_str(&format!(
                "{:<28} {:>12.3} ms (median; {:.3}-{:.3} ms over {} runs)\n",
                p.name,
                p.median * 1e3,
                p.min * 1e3,
                p.max * 1e3,
                p.runs
            ));
        }
        if let Some((a, b)) = self.overhead {
            s.push_str(&format!("{:<28} {a:>12.1} ns per pass\n", "overhead"));
            s.push_str(&format!(
                "{:<28} {b:>12.1} ns per pass\n",
                "overhead with timing"
            ));
        }
        if let Some(n) = self.printed_bytes {
            s.push_str(&format!("{:<28} {n:>12} bytes printed\n", "print"));
        }
        if let Some(r) = &self.session_over_pipeline {
            let each: Vec<String> = r.ratios.iter().map(|x| format!("{x:.2}")).collect();
            s.push_str(&format!(
                "{:<28} {:>12.3} (median; {:.3}-{:.3}; by round: {})\n",
                "session / pipeline",
                r.median,
                r.min,
                r.max,
                each.join(" ")
            ));
        }
        s
    }
}

/// The latency of dependent random reads over one working-set size (`passlab host`).
pub struct ReadLatency {
    /// The working set, in bytes.
    pub bytes: usize,
    /// Median nanoseconds per read over a few laps.
    pub ns: f64,
}

/// What this host's memory looks like to a process now: [`ReadLatency`] at working sets from
/// 256 KiB doubling up to `max_bytes`, and the largest set still served from cache.
///
/// A pass over a module larger than the cache the host leaves reads memory at DRAM latency,
/// a module that fits does not; on a host shared with other tenants that share moves within
/// minutes (2 MiB of a 32 MiB L3 has been measured), and with it the time of a 100k-op
/// module against a 10k one. `growth.py` prints this before and after its runs.
pub struct HostMemory {
    pub latencies: Vec<ReadLatency>,
}

impl HostMemory {
    /// Measures working sets of 256 KiB, 512 KiB, ... up to `max_bytes` (at least one).
    pub fn measure(max_bytes: usize) -> HostMemory {
        let mut latencies = Vec::new();
        let mut bytes = 256 << 10;
        loop {
            latencies.push(ReadLatency {
                bytes,
                ns: chase(bytes),
            });
            if bytes * 2 > max_bytes {
                break;
            }
            bytes *= 2;
        }
        HostMemory { latencies }
    }

    /// The largest working set whose reads are nearer the fastest latency than the slowest
    /// (below their geometric mean), when the slowest is at least three times the fastest;
    /// without such a step every measured set counts as cached.
    pub fn cached_bytes(&self) -> usize {
        let fastest = self.latencies.iter().map(|l| l.ns).fold(f64::MAX, f64::min);
        let slowest = self.latencies.iter().map(|l| l.ns).fold(0.0, f64::max);
        if slowest < 3.0 * fastest {
            return self.latencies.last().map_or(0, |l| l.bytes);
        }
        let split = (fastest * slowest).sqrt();
        self.latencies
            .iter()
            .take_while(|l| l.ns < split)
            .last()
            .map_or(0, |l| l.bytes)
    }

    /// `{"cached_bytes": N, "latency_ns": {"<bytes>": ns, ...}}`, to add to.
    pub fn to_json_value(&self) -> serde_json::Value {
        let lat: serde_json::Map<String, serde_json::Value> = self
            .latencies
            .iter()
            .map(|l| (l.bytes.to_string(), serde_json::json!(l.ns)))
            .collect();
        serde_json::json!({ "cached_bytes": self.cached_bytes(), "latency_ns": lat })
    }

    /// A table and the verdict.
    pub fn to_text(&self) -> String {
        let mut s =
            String::from("dependent random reads, one 64-byte line each, by working set:\n");
        for l in &self.latencies {
            s.push_str(&format!("  {:>9} {:>8.1} ns\n", human_bytes(l.bytes), l.ns));
        }
        let cached = self.cached_bytes();
        let rest = if self.latencies.last().is_some_and(|l| l.bytes == cached) {
            "every set measured: no step to memory latency"
        } else {
            "the rest at memory latency"
        };
        s.push_str(&format!(
            "served from cache up to {} ({rest})\n",
            human_bytes(cached)
        ));
        s
    }
}

fn human_bytes(b: usize) -> String {
    if b >= 1 << 20 {
        format!("{} MiB", b >> 20)
    } else {
        format!("{} KiB", b >> 10)
    }
}

/// Median nanoseconds per read of a pointer chase through `bytes` of memory: one word per
/// 64-byte line, the lines linked in a random cyclic order (Sattolo's shuffle), so each read's
/// address depends on the one before and neither out-of-order execution nor a prefetcher can
/// run ahead of it.
fn chase(bytes: usize) -> f64 {
    const STEPS: usize = 1 << 18;
    let lines = (bytes / 64).max(2);
    let next = chase_links(lines);
    let mut p = 0;
    // One untimed lap loads whatever of the set fits in the caches.
    for _ in 0..lines.min(STEPS) {
        p = next[p];
    }
    let laps: Vec<f64> = (0..5)
        .map(|_| {
            let start = Instant::now();
            for _ in 0..STEPS {
                p = next[p];
            }
            start.elapsed().as_nanos() as f64 / STEPS as f64
        })
        .collect();
    std::hint::black_box(p);
    median(laps)
}

/// The middle value of `v` (the upper one of an even count); `v` is not empty.
fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Words in a 64-byte line: [`chase_links`] uses the first word of each.
const WORDS_PER_LINE: usize = 8;

/// `lines` cache lines' worth of words in which the first word of each line holds the index of
/// the next line's first word, the lines in one random cycle through all of them.
fn chase_links(lines: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..lines).collect();
    let mut rng = 0x9E37_79B9_7F4A_7C15u64;
    for i in (1..lines).rev() {
        // xorshift64: any fixed, well-spread sequence will do.
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        order.swap(i, (rng % i as u64) as usize);
    }
    let mut next = vec![0usize; lines * WORDS_PER_LINE];
    for k in 0..lines {
        next[order[k] * WORDS_PER_LINE] = order[(k + 1) % lines] * WORDS_PER_LINE;
    }
    next
}

/// The growth the memory system alone imposes on a walk (`passlab host --growth`): a
/// read-only walk over a chain of nodes of one size, laid out in the order the walk meets
/// them (as the parser and the passes lay out a module), timed at `small` and at ten times as
/// many nodes. The work is exactly ten times as much; a ratio above 10 is what the caches
/// make of a ten times larger working set. Measured for three node sizes, to show whether a
/// smaller node would move it (measured: it does not; the small walk gets faster too).
pub struct WalkGrowth {
    /// Nodes in the small walk (the large one has ten times as many).
    pub small: usize,
    /// Per node size in bytes: (median seconds of the small walk, of the large walk).
    pub by_size: Vec<(usize, f64, f64)>,
}

impl WalkGrowth {
    /// Measures 32-, 64- (an [`passlab::ir::Expr`] node's size) and 128-byte nodes, `small` and
    /// `10 * small` of them, alternating the two sizes over `rounds` rounds.
    pub fn measure(small: usize, rounds: usize) -> WalkGrowth {
        let by_size = vec![
            probe_size::<1>(small, rounds),
            probe_size::<5>(small, rounds),
            probe_size::<13>(small, rounds),
        ];
        WalkGrowth { small, by_size }
    }

    pub fn to_text(&self) -> String {
        let mut s = format!(
            "a read-only walk over nodes laid out in walk order, {} -> {} nodes (10x the work):\n",
            self.small,
            10 * self.small
        );
        for &(bytes, a, b) in &self.by_size {
            s.push_str(&format!(
                "  {bytes:>4}-byte nodes {:>9.3} ms {:>9.3} ms {:>7.2}x\n",
                a * 1e3,
                b * 1e3,
                b / a
            ));
        }
        s.push_str(
            "over 10x is the memory system's share: what no pass reading every node avoids\n",
        );
        s
    }

    /// `{"nodes": N, "ratio": {"<bytes>": r, ...}}`.
    pub fn to_json_value(&self) -> serde_json::Value {
        let ratio: serde_json::Map<String, serde_json::Value> = self
            .by_size
            .iter()
            .map(|&(bytes, a, b)| (bytes.to_string(), serde_json::json!(b / a)))
            .collect();
        serde_json::json!({ "nodes": self.small, "ratio": ratio })
    }
}

/// A node of the growth probe: a call-like node with an operand chain (`prev`) and a leaf
/// operand (`leaf`), padded to `8 * (3 + PAD)` bytes.
struct ProbeNode<const PAD: usize> {
    tag: u64,
    prev: Option<Box<ProbeNode<PAD>>>,
    leaf: Option<Box<ProbeNode<PAD>>>,
    _pad: [u64; PAD],
}

impl<const PAD: usize> ProbeNode<PAD> {
    fn new(
        tag: u64,
        prev: Option<Box<ProbeNode<PAD>>>,
        leaf: Option<Box<ProbeNode<PAD>>>,
    ) -> Box<Self> {
        Box::new(ProbeNode {
            tag,
            prev,
            leaf,
            _pad: [tag; PAD],
        })
    }

    /// `calls` call nodes, each with a fresh leaf, allocated leaf then call, bottom up (as
    /// the parser lays out a module: operands before their user).
    fn chain(calls: usize) -> Box<Self> {
        let mut cur = ProbeNode::new(0, None, None);
        for i in 1..=calls as u64 {
            let leaf = ProbeNode::new(i, None, None);
            cur = ProbeNode::new(i, Some(cur), Some(leaf));
        }
        cur
    }

    /// Pre-order with a stack of pending nodes, operands pushed in reverse, as
    /// [`each_node`](passlab::ir::visit::each_node) walks a module (the walk `passlab bench
    /// --walk` times): the sum of the tags.
    fn walk<'a>(&'a self, stack: &mut Vec<&'a ProbeNode<PAD>>) -> u64 {
        stack.clear();
        stack.push(self);
        let mut sum = 0u64;
        while let Some(n) = stack.pop() {
            sum = sum.wrapping_add(n.tag);
            if let Some(l) = &n.leaf {
                stack.push(l);
            }
            if let Some(p) = &n.prev {
                stack.push(p);
            }
        }
        sum
    }
}

impl<const PAD: usize> Drop for ProbeNode<PAD> {
    /// Unlinks the chain iteratively: the default drop would recurse once per node.
    fn drop(&mut self) {
        let mut next = self.prev.take();
        while let Some(mut n) = next {
            next = n.prev.take();
        }
    }
}

/// (node bytes, median small walk, median large walk) for one node size.
fn probe_size<const PAD: usize>(small: usize, rounds: usize) -> (usize, f64, f64) {
    // Two nodes (a call and its leaf) a step.
    let (a, b) = (
        ProbeNode::<PAD>::chain(small / 2),
        ProbeNode::<PAD>::chain(small * 5),
    );
    let time = |n: &ProbeNode<PAD>, laps: usize| {
        let mut stack = Vec::new();
        std::hint::black_box(n.walk(&mut stack));
        median(
            (0..laps)
                .map(|_| {
                    let start = Instant::now();
                    std::hint::black_box(n.walk(&mut stack));
                    start.elapsed().as_secs_f64()
                })
                .collect(),
        )
    };
    let (mut ta, mut tb) = (Vec::new(), Vec::new());
    for _ in 0..rounds.max(1) {
        ta.push(time(&a, 21));
        tb.push(time(&b, 7));
    }
    (
        std::mem::size_of::<ProbeNode<PAD>>(),
        median(ta),
        median(tb),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The walk reads each unique node once (shared ones once), in every function.
    #[test]
    fn the_walk_reads_every_node_once() {
        let text = passlab::testgen::peer_model(6, 8);
        let mut m = passlab::text::parse_module(&text, "peer").unwrap();
        let main = m.get("main").unwrap().clone();
        let mut nodes = 0;
        passlab::ir::visit::post_order(&main, |_| nodes += 1);
        assert!(nodes > 50, "{nodes}");
        assert_eq!(super::walk_every_node(&m), nodes);
        m.add("again", main).unwrap();
        assert_eq!(super::walk_every_node(&m), 2 * nodes);
    }

    fn host(ns: &[f64]) -> HostMemory {
        HostMemory {
            latencies: ns
                .iter()
                .enumerate()
                .map(|(i, &ns)| ReadLatency {
                    bytes: (256 << 10) << i,
                    ns,
                })
                .collect(),
        }
    }

    #[test]
    fn the_cache_ends_where_reads_reach_memory_latency() {
        // A measured host: about 18 ns up to 2 MiB, DRAM from 4 MiB.
        let h = host(&[13.0, 17.3, 17.6, 18.6, 278.5, 326.0, 174.8, 316.9, 192.8]);
        assert_eq!(h.cached_bytes(), 2 << 20);
        // A step back under the split after memory latency does not extend the cache.
        assert_eq!(
            host(&[5.0, 6.0, 150.0, 20.0, 160.0]).cached_bytes(),
            512 << 10
        );
        // No step (everything cached, or everything in memory): every measured set counts.
        let flat = host(&[5.0, 6.0, 7.0, 9.0]);
        assert_eq!(flat.cached_bytes(), 2 << 20);
        assert!(flat.to_text().ends_with(
            "served from cache up to 2 MiB (every set measured: no step to memory latency)\n"
        ));
        // The smallest set already slow: nothing counts as cached.
        assert_eq!(host(&[300.0, 20.0]).cached_bytes(), 0);
        let text = h.to_text();
        assert!(text.contains("  256 KiB     13.0 ns\n"), "{text}");
        assert!(text.ends_with("served from cache up to 2 MiB (the rest at memory latency)\n"));
        let v: serde_json::Value = serde_json::from_str(&h.to_json_value().to_string()).unwrap();
        assert_eq!(v["cached_bytes"], 2 << 20);
        assert_eq!(v["latency_ns"]["4194304"], 278.5);
    }

    #[test]
    fn a_chase_lap_reads_every_line_of_its_set_once() {
        for lines in [2, 3, 64, 1000, 4096] {
            let next = chase_links(lines);
            let mut seen = vec![false; lines];
            let mut p = 0;
            for _ in 0..lines {
                assert_eq!(p % WORDS_PER_LINE, 0, "a link lands on a line's first word");
                assert!(
                    !std::mem::replace(&mut seen[p / WORDS_PER_LINE], true),
                    "{lines}"
                );
                p = next[p];
            }
            assert_eq!(p, 0, "{lines} lines: one cycle through all of them");
            assert!(seen.iter().all(|&s| s));
        }
        // Not the identity order: neighbours in the lap are rarely neighbours in memory.
        let next = chase_links(4096);
        let adjacent = (0..4096)
            .filter(|&l| next[l * WORDS_PER_LINE] == (l + 1) * WORDS_PER_LINE)
            .count();
        assert!(
            adjacent < 40,
            "{adjacent} of 4096 links step to the next line"
        );
        assert!(chase(64 << 10) > 0.0);
    }

    /// The probe's nodes have the sizes it reports, its walk reads every node once, and a
    /// chain far deeper than the stack is built, walked and dropped.
    #[test]
    fn the_growth_probe_walks_every_node() {
        assert_eq!(std::mem::size_of::<ProbeNode<1>>(), 32);
        assert_eq!(std::mem::size_of::<ProbeNode<5>>(), 64);
        assert_eq!(std::mem::size_of::<ProbeNode<13>>(), 128);
        let chain = ProbeNode::<1>::chain(1_000_000);
        let n = 1_000_000u64;
        // Tags: the bottom leaf 0, then each step's call and leaf i.
        assert_eq!(chain.walk(&mut Vec::new()), n * (n + 1));
        drop(chain);
        let g = WalkGrowth::measure(200, 1);
        assert_eq!(
            g.by_size.iter().map(|s| s.0).collect::<Vec<_>>(),
            [32, 64, 128]
        );
        assert!(g.to_text().contains("200 -> 2000 nodes"), "{}", g.to_text());
        let v = g.to_json_value();
        assert_eq!(v["nodes"], 200);
        assert!(v["ratio"]["64"].as_f64().is_some_and(|r| r > 0.0));
    }
}
