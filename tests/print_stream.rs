//! Printing streams: `text::write_module` hands a module's text to its writer as it is made,
//! so a module whose text is far larger than itself (nested `if`s: indentation grows with
//! depth, ~6 n^2 bytes for n levels) prints with memory linear in the module. The heap is
//! measured by a global allocator that tracks live and peak bytes; one test function only
//! (the allocator counts the whole process, so nothing else may allocate concurrently).

mod common;

use passlab::text::{parse_module, try_print_module_with, write_module, PrintOptions};
use std::alloc::{GlobalAlloc, Layout, System};
use std::hash::Hasher;
use std::io::{self, Write};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

/// The system allocator, counting live bytes and their peak.
struct Peak;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every method forwards to `System` with the caller's arguments unchanged (so
// `System`'s guarantees hold); the counters only read the layouts' sizes.
unsafe impl GlobalAlloc for Peak {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            let live = LIVE.fetch_add(layout.size(), Relaxed) + layout.size();
            PEAK.fetch_max(live, Relaxed);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size(), Relaxed);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            LIVE.fetch_sub(layout.size(), Relaxed);
            let live = LIVE.fetch_add(new_size, Relaxed) + new_size;
            PEAK.fetch_max(live, Relaxed);
        }
        p
    }
}

#[global_allocator]
static GLOBAL: Peak = Peak;

/// A writer that keeps only the length and a hash of what it was given.
#[derive(Default)]
struct Digest {
    bytes: usize,
    hash: std::collections::hash_map::DefaultHasher,
}

impl Write for Digest {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.bytes += buf.len();
        self.hash.write(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

fn digest(text: &str) -> (usize, u64) {
    let mut d = Digest::default();
    d.write_all(text.as_bytes()).unwrap();
    (d.bytes, d.hash.finish())
}

fn streamed(m: &passlab::ir::Module, opts: PrintOptions) -> (usize, u64) {
    let mut d = Digest::default();
    write_module(m, opts, &mut d).expect("streams");
    (d.bytes, d.hash.finish())
}

/// A writer that fails after `left` bytes, as a full disk does.
struct Full {
    left: usize,
}

impl Write for Full {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.left == 0 {
            return Err(io::Error::new(io::ErrorKind::StorageFull, "disk full"));
        }
        let n = buf.len().min(self.left);
        self.left -= n;
        Ok(n)
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[test]
fn printing_streams_in_memory_linear_in_the_module() {
    common::on_stack(64 << 20, || {
        // The streamed text is the printed text, byte for byte: every corpus model and every
        // generated shape whose text nests scopes (typed and untyped, with and without
        // metadata).
        let mut cases: Vec<(String, String)> = common::corpus_files();
        cases.push(("ifs".into(), passlab::testgen::nested_if_model(300)));
        cases.push(("closures".into(), passlab::testgen::closures_model(300)));
        cases.push(("fns".into(), passlab::testgen::nested_fn_model(300)));
        cases.push(("tuples".into(), passlab::testgen::nested_tuple_model(300)));
        for (name, text) in &cases {
            // (Corpus programs the IR cannot hold yet are other tests' business.)
            let Ok(m) = parse_module(text, name) else {
                continue;
            };
            let m = passlab::passes::infer_type::infer_module(&m).unwrap_or(m);
            for opts in [
                PrintOptions::default(),
                PrintOptions {
                    types: false,
                    metadata: false,
                    ..PrintOptions::default()
                },
            ] {
                let whole = try_print_module_with(&m, opts).unwrap();
                assert_eq!(streamed(&m, opts), digest(&whole), "{name}");
                // What is printed parses back to the module printed (type comments are
                // not read back: compare untyped).
                if !opts.types {
                    let back = parse_module(&whole, name).unwrap();
                    assert_eq!(try_print_module_with(&back, opts).unwrap(), whole, "{name}");
                }
            }
        }

        // 4,000 nested ifs print 100 MB of text (indentation) from a module of about 1 MB:
        // streamed, the heap never holds more than a small multiple of the module.
        let text = passlab::testgen::nested_if_model(4000);
        let m = parse_module(&text, "ifs").unwrap();
        drop(text);
        let before = LIVE.load(Relaxed);
        PEAK.store(before, Relaxed);
        let (bytes, _) = streamed(&m, PrintOptions::default());
        let peak = PEAK.load(Relaxed) - before;
        eprintln!("streamed {bytes} bytes holding at most {peak} heap bytes");
        assert!(bytes > 90_000_000, "{bytes} bytes printed");
        assert!(
            peak < 16 << 20,
            "streaming {bytes} bytes held {peak} bytes at its peak"
        );

        // A writer that fails stops the print with its error.
        let e = write_module(&m, PrintOptions::default(), &mut Full { left: 5 << 20 })
            .expect_err("the writer is full");
        assert_eq!(e.kind(), io::ErrorKind::StorageFull);
    });
}
