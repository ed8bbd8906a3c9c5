//! The Relay text format: parser (nom), printer, the `#[metadata]` section and the line diff
//! of printed modules. Colouring printed text is presentation (`crate::present::highlight`),
//! kept apart from the plain printer.

pub mod diff;
pub(crate) mod lexer;
pub mod metadata;
pub mod parser;
pub mod printer;

pub use parser::{parse_expr, parse_module, parse_module_into, parse_module_with_meta, ParseError};
pub use printer::{
    attr_value_to_string, print_expr, print_module, print_module_display, print_module_with,
    try_print_module_with, write_module, PrintOptions, TooLarge, MAX_PRINTED_BYTES, STREAM_BYTES,
};

/// The hash under which the parser and the printer index variable names: a table keyed by it
/// keeps programs' numbered names (`%x1`, `%x2`, ..., `%p0`, `%p1`, ...) next to each other.
///
/// A name ending in a number hashes, in the bits that pick the bucket (hashbrown takes the low
/// bits), to a block of eight buckets picked by its prefix and its number over eight, and to
/// the number's last three bits within it; the top seven bits (hashbrown's tag) mix both.
/// Eight consecutive names land in eight consecutive buckets (a cache line of them), so a
/// million-let chain binds and looks up its names a line at a time instead of a miss or two
/// each; the blocks themselves are spread, so two runs of numbered names (`%p0...` and
/// `%0...`) never lie over each other in one long cluster that every probe must cross (a
/// run's hashes as one sequence did: parsing 30,000 parameters took 13x the instructions of
/// 3,000). Other names hash as a whole. Equal names hash equally; unequal ones still differ
/// in some bits unless they are rare collisions, which the tables resolve by comparing the
/// names.
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
    let block = fx.hash_one((base, n >> 3));
    const LOW: u64 = (1 << 57) - 1;
    (tag & !LOW) | (((block << 3) | (n & 7)) & LOW)
}

#[cfg(test)]
mod tests {
    use super::hash_name;

    #[test]
    fn numbered_names_hash_next_to_each_other_with_different_tags() {
        let h: Vec<u64> = (0..100).map(|i| hash_name(&format!("x{i}"))).collect();
        let low = |h: u64| h & ((1 << 57) - 1);
        // Eight at a time (x16 to x23) in consecutive buckets; the blocks themselves apart.
        for w in h[16..24].windows(2) {
            assert_eq!(low(w[1]), low(w[0]).wrapping_add(1));
        }
        // x0-x7, x8-x9 (one digit), x10-x15, x16-x23, ..., x96-x99 (two digits).
        let blocks: std::collections::HashSet<u64> = h.iter().map(|h| low(*h) >> 3).collect();
        assert_eq!(blocks.len(), 14, "100 names fill 14 blocks of eight");
        assert!(
            (2..12).all(|b| low(h[8 * b]) != low(h[8 * b - 1]).wrapping_add(1)),
            "blocks follow one another"
        );
        let tags: std::collections::HashSet<u64> = h.iter().map(|h| h >> 57).collect();
        assert!(tags.len() > 40, "{} distinct tags in 100", tags.len());
        // Leading zeros and other prefixes make other hashes.
        assert_ne!(hash_name("x01"), hash_name("x1"));
        assert_ne!(hash_name("y1"), hash_name("x1"));
        assert_eq!(hash_name("abc"), hash_name("abc"));
    }
}
