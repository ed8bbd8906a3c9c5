//! Session transcripts: every `tests/sessions/*.passlab` file is replayed and must print exactly
//! its `#>` lines. `PASSLAB_BLESS=1 cargo test --test sessions` rewrites them from a fresh run.

use passlab::session::{replay, Session};
use std::path::Path;

#[test]
fn transcripts_replay() {
    replay_dir("tests/sessions", 4);
}

/// The tutorials in examples/ are transcripts too: they must keep working.
#[test]
fn example_tutorials_replay() {
    replay_dir("examples", 3);
}

fn replay_dir(rel: &str, at_least: usize) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(rel);
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "passlab"))
        .collect();
    files.sort();
    assert!(
        files.len() >= at_least,
        "transcripts missing from {}",
        dir.display()
    );
    let bless = std::env::var_os("PASSLAB_BLESS").is_some();
    let mut failures = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        let make = || {
            let mut s = Session::new();
            s.set_base_dir(f.parent().unwrap());
            s.set_source_name(&f.file_name().unwrap().to_string_lossy());
            s
        };
        let mut s = make();
        if bless {
            let fresh = replay::bless_until_stable(make, &text);
            std::fs::write(&f, fresh).unwrap();
            continue;
        }
        if let Err(m) = replay::replay(&mut s, &text) {
            failures.push(format!(
                "{}:{}\n{}\n{}",
                f.display(),
                m.line,
                m.statement,
                m.diff
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "transcripts did not replay:\n{}",
        failures.join("\n")
    );
}
