//! The global allocator of the binary, examples and benches: mimalloc, reached the way a
//! `malloc` is meant to be reached.
//!
//! The `mimalloc` crate's allocator sends every request through `mi_malloc_aligned`, and
//! mimalloc 3 serves an aligned request in its size class only when that class is a power of
//! two: an 80-byte `Arc<ExprNode>` (alignment 8) was over-allocated as 87 bytes, so it took
//! a 96-byte block through the out-of-line over-allocation path. Every IR node paid 20% more
//! memory (cache lines, page faults) and a slower allocation. Here, a request whose alignment
//! a plain block already has goes to `mi_malloc`: mimalloc's size classes are multiples of
//! 8 bytes (of 16 from 16 bytes on) and start 16-aligned, so a block of a size that is a
//! multiple of an alignment up to 16 has that alignment. Other requests keep the aligned
//! calls. (The same fix is proposed upstream: purpleprotocol/mimalloc_rust#170.)

use libmimalloc_sys::{
    mi_free, mi_malloc, mi_malloc_aligned, mi_realloc, mi_realloc_aligned, mi_zalloc,
    mi_zalloc_aligned,
};
use std::alloc::{GlobalAlloc, Layout};
use std::ffi::c_void;

/// How long freed memory stays with the process before mimalloc returns it to the OS, in
/// milliseconds (mimalloc's `purge_delay`; arenas wait 10 times as long). mimalloc's default,
/// 10 ms, returns a dropped result's pages between two statements, and the next result of the
/// same size faults fresh pages in again, each zeroed by the kernel: FoldConstant's output on a
/// real model is about 100 MB of new tensors, and on the shared host those faults were most
/// of its time. A second keeps them for the next statement or benchmark run.
pub const PURGE_DELAY_MS: i64 = 1000;

/// Sets mimalloc's options for passlab (see [`PURGE_DELAY_MS`]), as defaults: a
/// `MIMALLOC_PURGE_DELAY` in the environment still wins. Call it first thing in `main`; it
/// only changes when memory is given back, never what is allocated.
pub fn configure() {
    extern "C" {
        fn mi_option_set_default(option: std::ffi::c_int, value: std::ffi::c_long);
    }
    /// `mi_option_purge_delay` in mimalloc 3's `mi_option_t` (`mimalloc.h`: the 16th entry,
    /// between `mi_option_deprecated_eager_commit_delay` = 14 and `mi_option_use_numa_nodes`
    /// = 16, which libmimalloc-sys's extended bindings also number so).
    const MI_OPTION_PURGE_DELAY: std::ffi::c_int = 15;
    // SAFETY: a plain FFI call with a valid option and value; mimalloc reads the option on its
    // next purge decision, from any thread.
    unsafe { mi_option_set_default(MI_OPTION_PURGE_DELAY, PURGE_DELAY_MS as std::ffi::c_long) }
}

/// mimalloc as the global allocator: `#[global_allocator] static A: MiMalloc = MiMalloc;`.
pub struct MiMalloc;

/// The largest alignment every plain mimalloc block of a suitable size has.
const PLAIN_ALIGN: usize = 16;

/// True when a plain block of `size` bytes is aligned to `align`.
#[inline(always)]
fn plain(size: usize, align: usize) -> bool {
    align <= PLAIN_ALIGN && size.is_multiple_of(align)
}

// SAFETY: every method forwards to the mimalloc function for the same operation, which meets
// the GlobalAlloc contract (a null result on failure, blocks of at least the size asked for,
// aligned as asked: by the aligned calls, or by `plain`'s argument above), and `dealloc` /
// `realloc` receive only pointers this allocator returned (mimalloc frees aligned and plain
// blocks alike with `mi_free` / `mi_realloc*`).
unsafe impl GlobalAlloc for MiMalloc {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let (size, align) = (layout.size(), layout.align());
        // SAFETY: plain FFI calls with a size and a power-of-two alignment.
        unsafe {
            if plain(size, align) {
                mi_malloc(size) as *mut u8
            } else {
                mi_malloc_aligned(size, align) as *mut u8
            }
        }
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let (size, align) = (layout.size(), layout.align());
        // SAFETY: as in `alloc`.
        unsafe {
            if plain(size, align) {
                mi_zalloc(size) as *mut u8
            } else {
                mi_zalloc_aligned(size, align) as *mut u8
            }
        }
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, _layout: Layout) {
        // SAFETY: `ptr` came from this allocator (the caller's GlobalAlloc obligation).
        unsafe { mi_free(ptr as *mut c_void) }
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: `ptr` came from this allocator with `layout`; the new block keeps the
        // alignment by the same rule as `alloc` (decided on the new size).
        unsafe {
            if plain(new_size, layout.align()) {
                mi_realloc(ptr as *mut c_void, new_size) as *mut u8
            } else {
                mi_realloc_aligned(ptr as *mut c_void, new_size, layout.align()) as *mut u8
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::MiMalloc;
    use std::alloc::{GlobalAlloc, Layout};

    /// Every size from 1 to 600 bytes (and a few large ones) at every alignment from 1 to 64:
    /// each block is aligned as asked, writable over its whole size, and survives a realloc
    /// with its contents.
    #[test]
    fn blocks_are_aligned_and_usable_at_every_size_and_alignment() {
        let a = MiMalloc;
        let sizes = (1..=600).chain([1000, 4096, 5000, 65536, 1 << 20, 3 << 20]);
        for size in sizes {
            for align in [1usize, 2, 4, 8, 16, 32, 64] {
                let layout = Layout::from_size_align(size, align).unwrap();
                // Many blocks of one layout, so a class's later blocks are checked too.
                let blocks: Vec<*mut u8> = (0..if size < 1000 { 40 } else { 2 })
                    .map(|i| {
                        // SAFETY: a non-zero size; freed below with the same layout.
                        let p = unsafe {
                            if i % 2 == 0 {
                                a.alloc(layout)
                            } else {
                                a.alloc_zeroed(layout)
                            }
                        };
                        assert!(!p.is_null());
                        assert_eq!(p as usize % align, 0, "size {size} align {align}");
                        // SAFETY: the block holds `size` bytes.
                        unsafe {
                            if i % 2 == 1 {
                                assert!((0..size).all(|k| *p.add(k) == 0));
                            }
                            p.write_bytes(0xA5, size);
                        }
                        p
                    })
                    .collect();
                for p in blocks {
                    let grown = size * 3 + 5;
                    // SAFETY: `p` came from `alloc*` with `layout`; the result is freed with
                    // the grown layout.
                    unsafe {
                        let q = a.realloc(p, layout, grown);
                        assert!(!q.is_null());
                        assert_eq!(
                            q as usize % align,
                            0,
                            "realloc {size} -> {grown} align {align}"
                        );
                        assert!((0..size).all(|k| *q.add(k) == 0xA5));
                        a.dealloc(q, Layout::from_size_align(grown, align).unwrap());
                    }
                }
            }
        }
    }

    /// The reason for this module: 80-byte nodes with alignment 8 come from the 80-byte class
    /// (blocks of one page 80 bytes apart), not 96-byte blocks as through the aligned path.
    #[test]
    fn an_80_byte_block_is_not_over_allocated() {
        let a = MiMalloc;
        let layout = Layout::from_size_align(80, 8).unwrap();
        // SAFETY: allocated and freed with the same layout.
        unsafe {
            let ps: Vec<*mut u8> = (0..256).map(|_| a.alloc(layout)).collect();
            let mut addrs: Vec<usize> = ps.iter().map(|p| *p as usize).collect();
            addrs.sort_unstable();
            // The closest two blocks are one block apart, whatever order a reused page's free
            // list hands them out in.
            let closest = addrs.windows(2).map(|w| w[1] - w[0]).min();
            assert_eq!(closest, Some(80));
            for p in ps {
                a.dealloc(p, layout);
            }
        }
    }
}
