//! The Relay text format: parser (nom), printer, the `#[metadata]` section, and a terminal
//! highlighter kept apart from the plain printer.

pub mod diff;
pub mod highlight;
pub(crate) mod lexer;
pub mod metadata;
pub mod parser;
pub mod printer;

pub use highlight::{highlight, highlight_html, HighlightWriter};
pub use parser::{parse_expr, parse_module, parse_module_with_meta, ParseError};
pub use printer::{
    attr_value_to_string, print_expr, print_module, print_module_display, print_module_with,
    try_print_module_with, write_module, PrintOptions, TooLarge, MAX_PRINTED_BYTES, STREAM_BYTES,
};

/// The hash under which the parser and the printer index variable names: a table keyed by it
/// keeps programs' numbered names (`%x1`, `%x2`, ..., `%p0`, `%p1`, ...) next to each other.
///
/// A name ending in a number hashes to its prefix's hash plus the number in the bits that
/// pick the bucket (hashbrown takes the low bits), and to a mix of both in the top seven bits
/// (hashbrown's tag): consecutive names land in consecutive buckets with unrelated tags, so a
/// million-let chain binds and looks up its names in the table's order instead of at random
/// (a cache miss or two each). Other names hash as a whole. Equal names hash equally; unequal
/// ones still differ in some bits unless they are rare collisions, which the tables resolve by
/// comparing the names.
pub(crate) fn hash_name(name: &str) -> u64 {
    use std::hash::BuildHasher;
    let fx = rustc_hash::FxBuildHasher;
    let digits = name.bytes().rev().take_while(u8::is_ascii_digit).count();
    if digits == 0 || digits > 18 {
        return fx.hash_one(name);
    }
    let (prefix, number) = name.split_at(name.len() - digits);
    // At most 18 digits: no overflow.
    let n = number
        .bytes()
        .fold(0u64, |n, b| n * 10 + u64::from(b - b'0'));
    let base = fx.hash_one((prefix, digits));
    let tag = fx.hash_one((base, n));
    const LOW: u64 = (1 << 57) - 1;
    (tag & !LOW) | (base.wrapping_add(n) & LOW)
}

#[cfg(test)]
mod tests {
    use super::hash_name;

    #[test]
    fn numbered_names_hash_next_to_each_other_with_different_tags() {
        let h: Vec<u64> = (0..100).map(|i| hash_name(&format!("x{i}"))).collect();
        let low = |h: u64| h & ((1 << 57) - 1);
        for w in h[1..10].windows(2) {
            assert_eq!(low(w[1]), low(w[0]).wrapping_add(1));
        }
        let tags: std::collections::HashSet<u64> = h.iter().map(|h| h >> 57).collect();
        assert!(tags.len() > 40, "{} distinct tags in 100", tags.len());
        // Leading zeros and other prefixes make other hashes.
        assert_ne!(hash_name("x01"), hash_name("x1"));
        assert_ne!(hash_name("y1"), hash_name("x1"));
        assert_eq!(hash_name("abc"), hash_name("abc"));
    }
}
