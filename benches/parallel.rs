//! Parallel function passes: FoldConstant + EliminateCommonSubexpr + DeadCodeElimination (and
//! the InferType they require) on `testgen::globals_model` (20,000 functions by default), once
//! per thread count in each round, under `passlab.num_threads` = 1 and 2 (or the counts given).
//! Prints each count's fastest and median run and the speedup of each count over the first,
//! the CPU time (all threads, and the calling thread's part), and checks that every count
//! gives the same module as the first.
//!
//! `cargo bench --bench parallel [-- FUNCTIONS [ROUNDS [COUNTS]]]`, e.g. `-- 20000 9 1,2`.
//! The rounds interleave the counts, so a change in the host's load falls on all of them.

use passlab::ir::structural::module_equal;
use passlab::ir::Module;
use passlab::pass::{PassContext, PassManager, PassOptions, Sequential};
use std::time::{Duration, Instant};

#[global_allocator]
static GLOBAL: passlab_alloc::MiMalloc = passlab_alloc::MiMalloc;

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let functions: usize = args.first().and_then(|a| a.parse().ok()).unwrap_or(20_000);
    let rounds: usize = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(9);
    let counts: Vec<i64> = args
        .get(2)
        .map(|a| a.split(',').filter_map(|c| c.parse().ok()).collect())
        .unwrap_or_else(|| vec![1, 2]);
    let text = passlab::testgen::globals_model(functions);
    let m = passlab::text::parse_module(&text, "globals.relay").expect("the model parses");
    let mut pm = PassManager::new(passlab::passes::registry());
    let seq = Sequential::new(
        [
            "FoldConstant",
            "EliminateCommonSubexpr",
            "DeadCodeElimination",
        ]
        .iter()
        .map(|n| {
            pm.create(n, &PassOptions::new())
                .expect("a registered pass")
        })
        .collect(),
    )
    .into_pass();
    let contexts: Vec<PassContext> = counts
        .iter()
        .map(|&n| {
            PassContext::builder()
                .opt_level(3)
                .config("passlab.num_threads", n)
                .build()
                .expect("a valid context")
        })
        .collect();
    // The pipeline first, then each pass alone (on the typed module: a direct run, no gate).
    let typed = pm
        .run(&pm.pass("InferType").unwrap(), &m)
        .expect("the model types");
    let singles: Vec<(&str, passlab::pass::Pass)> = [
        "InferType",
        "FoldConstant",
        "EliminateCommonSubexpr",
        "DeadCodeElimination",
    ]
    .iter()
    .map(|n| (*n, pm.pass(n).unwrap()))
    .collect();
    let mut single_times: Vec<Vec<Vec<Duration>>> =
        vec![vec![Vec::new(); singles.len()]; counts.len()];
    let mut times: Vec<Vec<Duration>> = vec![Vec::new(); counts.len()];
    let mut cpu: Vec<Vec<Duration>> = vec![Vec::new(); counts.len()];
    let mut own: Vec<Vec<Duration>> = vec![Vec::new(); counts.len()];
    let mut first: Option<Module> = None;
    // One untimed round first: threads started, allocator pools and caches warm.
    for round in 0..=rounds {
        for (k, ctx) in contexts.iter().enumerate() {
            let (t, out) = pm
                .with_context(ctx, |pm| {
                    let (start, c0, o0) = (Instant::now(), cpu_time(), thread_time());
                    let out = pm.run(&seq, &m);
                    let (c, o) = (cpu_time() - c0, thread_time() - o0);
                    Ok(((start.elapsed(), c, o), out))
                })
                .expect("the context enters and exits");
            let (t, c, o) = t;
            let out = out.expect("the pipeline runs");
            match &first {
                None => first = Some(out),
                Some(f) => assert!(
                    module_equal(f, &out, false),
                    "{} threads gave another module",
                    counts[k]
                ),
            }
            if round > 0 {
                times[k].push(t);
                cpu[k].push(c);
                own[k].push(o);
            }
            for (j, (_, pass)) in singles.iter().enumerate() {
                let t = pm
                    .with_context(ctx, |pm| {
                        let start = Instant::now();
                        let out = pm.run(pass, &typed);
                        Ok((start.elapsed(), out))
                    })
                    .expect("the context enters and exits")
                    .0;
                if round > 0 {
                    single_times[k][j].push(t);
                }
            }
        }
    }
    println!(
        "FoldConstant + EliminateCommonSubexpr + DeadCodeElimination (with InferType), {} functions, {rounds} rounds, {} cores",
        m.len(),
        passlab::pass::parallel::cores()
    );
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let mut base = None;
    for (j, (name, _)) in singles.iter().enumerate() {
        let best: Vec<String> = (0..counts.len())
            .map(|k| {
                let v = &mut single_times[k][j];
                v.sort();
                format!("{:7.1} ms ({} threads)", ms(v[0]), counts[k])
            })
            .collect();
        println!("  {name:<24} alone, best: {}", best.join("  "));
    }
    for (k, mut v) in times.into_iter().enumerate() {
        v.sort();
        let (best, median) = (v[0], v[v.len() / 2]);
        cpu[k].sort();
        own[k].sort();
        let cpu_median = cpu[k][cpu[k].len() / 2];
        let own_median = own[k][own[k].len() / 2];
        let (b0, m0) = *base.get_or_insert((best, median));
        println!(
            "num_threads={:<3} best {:8.1} ms  median {:8.1} ms  speedup best {:.2}x  median {:.2}x  (CPU time, median {:8.1} ms, {:8.1} ms of it on the calling thread)",
            counts[k],
            ms(best),
            ms(median),
            ms(b0) / ms(best),
            ms(m0) / ms(median),
            ms(cpu_median),
            ms(own_median)
        );
        if counts[k] > 1 {
            // On a host whose other load takes cores away, wall time says little: the calling
            // thread's part plus the workers' part shared evenly is what an idle host would take.
            let workers = cpu_median.saturating_sub(own_median);
            let idle = ms(own_median) + ms(workers) / counts[k] as f64;
            println!(
                "              on an idle host about {idle:8.1} ms (calling thread + workers' CPU / {}), {:.2}x the first count's median CPU time",
                counts[k],
                ms(cpu[0][cpu[0].len() / 2]) / idle
            );
        }
    }
}

/// The process's CPU time so far, all threads.
fn cpu_time() -> Duration {
    clock(libc::CLOCK_PROCESS_CPUTIME_ID)
}

/// The calling thread's CPU time so far: the pipeline's sequential part (the calling thread
/// waits while the pool's workers map the functions).
fn thread_time() -> Duration {
    clock(libc::CLOCK_THREAD_CPUTIME_ID)
}

fn clock(id: libc::clockid_t) -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid timespec for the call to fill.
    unsafe { libc::clock_gettime(id, &mut ts) };
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}
