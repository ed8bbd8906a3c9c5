//! `passlab bench`: times passes on a module and the pass manager's own cost per pass, with
//! the JSON keys of `shared/peers/tvm/tvm_bench.py` so `compare.sh` can put both side by side.

use crate::instrument::{InstrumentRef, PassTimingInstrument};
use crate::ir::Module;
use crate::pass::{PassContext, PassInfo, PassManager, PassOptions, Sequential};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// What was measured.
pub struct BenchReport {
    /// Per pass: its name and the median, fastest and slowest of its timed runs, in seconds.
    pub passes: Vec<PassTime>,
    /// Nanoseconds per pass invocation of a Sequential of no-op passes, without and with timing.
    pub overhead: Option<(f64, f64)>,
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

/// Runs each named pass `runs` times directly on `m` (never gated, as a direct call), and
/// measures the overhead of `overhead` no-op passes when asked. The module is typed once first
/// (InferType, untimed), as every TVM module is, so a pass that needs types does not pay for
/// inferring them in each timed run.
///
/// With `cold`, the caches are flushed (untimed, [`EVICT_BYTES`] written) before every run, so
/// each run starts with the module in memory only: the time of a pass's first touch of a
/// module rather than of repeated runs over one that stays in cache. (A diagnostic for growth
/// with size: a small model stays in cache between warm runs, a large one cannot.)
pub fn bench(
    m: &Module,
    passes: &[String],
    runs: usize,
    overhead: Option<usize>,
    cold: bool,
) -> Result<BenchReport, String> {
    let pm = PassManager::new();
    let runs = runs.max(1);
    let infer = pm
        .create("InferType", &PassOptions::new())
        .map_err(|e| e.to_string())?;
    let typed = pm
        .run(&infer, m)
        .map_err(|e| format!("the module does not type-check: {e}"))?;
    let m = &typed;
    let mut out = Vec::new();
    for name in passes {
        let pass = pm
            .create(name, &PassOptions::new())
            .map_err(|e| e.to_string())?;
        // One warm-up run, also to report a failing pass before timing.
        pm.run(&pass, m).map_err(|e| e.to_string())?;
        let mut times = Vec::with_capacity(runs);
        let mut junk: Vec<u64> = if cold {
            vec![1; EVICT_BYTES / 8]
        } else {
            Vec::new()
        };
        for _ in 0..runs {
            if cold {
                evict_caches(&mut junk);
            }
            let start = Instant::now();
            let r = pm.run(&pass, m);
            times.push(start.elapsed());
            drop(std::hint::black_box(r));
        }
        out.push(PassTime::of(name, times));
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
            let mut pm = PassManager::new();
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
    })
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
        s
    }
}
