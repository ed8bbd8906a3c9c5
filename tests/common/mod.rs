//! Helpers shared by the integration tests.

#![allow(dead_code)]

pub mod pass_lab;

use std::path::PathBuf;

/// The shared Relay corpus (`../shared/corpus/relay`, or `$PASSLAB_CORPUS`). Missing corpus is
/// a test failure, never a silent pass.
pub fn corpus_dir() -> PathBuf {
    let dir = std::env::var_os("PASSLAB_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/relay")
        });
    assert!(
        dir.is_dir(),
        "the Relay corpus is missing at {} (set PASSLAB_CORPUS)",
        dir.display()
    );
    dir
}

/// Every `.relay` file of the corpus, sorted, with its text.
pub fn corpus_files() -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = std::fs::read_dir(corpus_dir())
        .expect("corpus dir")
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "relay"))
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            let text = std::fs::read_to_string(&p).expect("read corpus file");
            (name, text)
        })
        .collect();
    out.sort();
    assert!(
        out.len() >= 30,
        "expected the 30 corpus programs, found {}",
        out.len()
    );
    out
}

/// Runs `f` on a thread with a 2 MiB stack (the default for spawned threads, and small).
pub fn on_small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(f)
        .expect("spawn")
        .join()
        .expect("the small-stack thread panicked")
}

/// The modules the last run's history keeps, history[0] (its input) to history[n], read
/// through the language (`h = history[k]` until it fails); `h` is unbound afterwards.
pub fn history_snapshots(s: &mut passlab::session::Session) -> Vec<passlab::ir::Module> {
    use passlab::session::Value;
    let mut kept = Vec::new();
    while !s
        .execute(&format!("h = history[{}]", kept.len()))
        .is_error()
    {
        match s.var("h") {
            Some(Value::Module(m)) => kept.push(m.clone()),
            _ => unreachable!("history[k] is a module"),
        }
    }
    let out = s.execute("h = None");
    assert!(!out.is_error(), "{}", out.plain());
    kept
}

/// A fresh, empty directory for one test: `passlab-<suite>-<pid>-<name>` under the system's
/// temporary directory (a previous run's leftovers are removed first).
pub fn fresh_dir(suite: &str, name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("passlab-{suite}-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A tiny deterministic generator (xorshift), so that every randomized test reproduces.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Runs `f` on a thread with a stack of `bytes`, passing its panic on.
pub fn on_stack<T: Send + 'static>(bytes: usize, f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(bytes)
        .spawn(f)
        .expect("spawn")
        .join()
        .unwrap_or_else(|p| std::panic::resume_unwind(p))
}
