//! "Did you mean" suggestions: the closest known name by edit distance.
//!
//! The work is bounded whatever the input: names longer than [`MAX_NAME_CHARS`] get no
//! suggestion, the distance is computed only in the band of cells that can stay within the
//! limit (three rows, no table), and one search stops after [`MAX_CELLS`] cells however many
//! candidates remain.

/// Names longer than this (in characters) get no suggestion: no typo of a name this long is
/// recognisable, and the search would cost the square of the length.
pub const MAX_NAME_CHARS: usize = 256;

/// The most distance-table cells one [`closest`] call computes over all its candidates.
const MAX_CELLS: usize = 20_000_000;

/// `name` as an error message quotes it: whole when short, else its first 60 characters and
/// how long it is, so that a megabyte-long name makes a one-line message.
pub fn shown(name: &str) -> std::borrow::Cow<'_, str> {
    const SHOWN: usize = 60;
    match name.char_indices().nth(SHOWN) {
        None => name.into(),
        Some((end, _)) => format!("{}… ({} characters)", &name[..end], name.chars().count()).into(),
    }
}

/// Edit distance between two strings (insertions, deletions, substitutions and adjacent
/// transpositions each cost 1), by characters, case-insensitively.
pub fn distance(a: &str, b: &str) -> usize {
    let (a, b) = (folded(a), folded(b));
    let limit = a.len().max(b.len());
    within(&a, &b, limit, &mut { usize::MAX }).unwrap_or(limit)
}

fn folded(s: &str) -> Vec<char> {
    s.chars().flat_map(char::to_lowercase).collect()
}

/// The distance between `a` and `b` if it is at most `limit`, computing only the cells within
/// `limit` of the diagonal and stopping as soon as a whole row exceeds it. Each computed cell is
/// taken from `budget`; `None` also when the budget runs out.
fn within(a: &[char], b: &[char], limit: usize, budget: &mut usize) -> Option<usize> {
    if a.len().abs_diff(b.len()) > limit {
        return None;
    }
    let far = limit + 1;
    let w = b.len() + 1;
    // Rows i-2, i-1 and i of the table; cells outside the band read as `far`.
    let mut rows = [vec![far; w], vec![far; w], vec![far; w]];
    for (j, cell) in rows[1].iter_mut().enumerate().take(limit.min(b.len()) + 1) {
        *cell = j;
    }
    for i in 1..=a.len() {
        let lo = i.saturating_sub(limit).max(1);
        let hi = (i + limit).min(b.len());
        let cells = (hi + 1).saturating_sub(lo);
        *budget = budget.checked_sub(cells)?;
        let [r2, r1, r0] = &mut rows;
        r0.fill(far);
        if i <= limit {
            r0[0] = i;
        }
        let mut best = r0[0];
        for j in lo..=hi {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut v = (r1[j] + 1).min(r0[j - 1] + 1).min(r1[j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                v = v.min(r2[j - 2] + 1);
            }
            r0[j] = v.min(far);
            best = best.min(r0[j]);
        }
        if best > limit {
            return None;
        }
        rows.rotate_left(1);
    }
    let d = rows[1][b.len()];
    (d <= limit).then_some(d)
}

/// The candidate closest to `name`, if it is close enough to be a plausible typo
/// (at most a third of the name's length, at least 1 edit for names of three or more
/// characters; a case-only difference always qualifies).
pub fn closest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let len = name.chars().count();
    // Names of one or two letters are too short for a typo to be recognisable.
    if !(3..=MAX_NAME_CHARS).contains(&len) {
        return None;
    }
    let limit = (len / 3).max(1);
    let key = folded(name);
    let mut budget = MAX_CELLS;
    let mut best: Option<(usize, &str)> = None;
    for c in candidates {
        if c == name {
            continue;
        }
        // A candidate's length in bytes bounds its length in characters from above, so one
        // far longer than any plausible match is skipped before it is even decoded.
        if c.len() > (len + limit) * 4 {
            continue;
        }
        let folded_c = folded(c);
        let Some(d) = within(&key, &folded_c, limit, &mut budget) else {
            if budget == 0 {
                break;
            }
            continue;
        };
        if best.is_none_or(|(bd, bc)| (d, c.len()) < (bd, bc.len())) {
            best = Some((d, c));
        }
    }
    best.map(|(_, c)| c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggests_close_names() {
        assert_eq!(distance("kitten", "sitting"), 3);
        assert_eq!(distance("alpah", "alpha"), 1);
        assert_eq!(distance("", "abc"), 3);
        assert_eq!(distance("abc", "ABC"), 0);
        let names = ["Sequential", "FoldConstant", "InferType"];
        assert_eq!(closest("Sequentail", names), Some("Sequential"));
        assert_eq!(closest("foldconstant", names), Some("FoldConstant"));
        assert_eq!(closest("zzz", names), None);
    }

    /// The banded distance agrees with the full table wherever it answers.
    #[test]
    fn banded_distance_agrees_with_the_full_table() {
        fn full(a: &[char], b: &[char]) -> usize {
            let w = b.len() + 1;
            let mut d = vec![0usize; (a.len() + 1) * w];
            for (j, cell) in d.iter_mut().enumerate().take(w) {
                *cell = j;
            }
            for i in 1..=a.len() {
                d[i * w] = i;
                for j in 1..=b.len() {
                    let cost = usize::from(a[i - 1] != b[j - 1]);
                    let mut v = (d[(i - 1) * w + j] + 1)
                        .min(d[i * w + j - 1] + 1)
                        .min(d[(i - 1) * w + j - 1] + cost);
                    if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                        v = v.min(d[(i - 2) * w + j - 2] + 1);
                    }
                    d[i * w + j] = v;
                }
            }
            d[a.len() * w + b.len()]
        }
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for _ in 0..3000 {
            let mut word = |n: u64| -> Vec<char> {
                let len = (next() % n) as usize;
                (0..len)
                    .map(|_| (b'a' + (next() % 3) as u8) as char)
                    .collect()
            };
            let (a, b) = (word(9), word(9));
            let exact = full(&a, &b);
            for limit in 0..8 {
                let got = within(&a, &b, limit, &mut { usize::MAX });
                let want = (exact <= limit).then_some(exact);
                assert_eq!(got, want, "{a:?} {b:?} limit {limit}");
            }
        }
    }

    /// Huge names and many candidates cost a bounded amount of work.
    #[test]
    fn work_is_bounded() {
        let long = "a".repeat(1_000_000);
        let near = format!("{}b", "a".repeat(999_999));
        assert_eq!(closest(&long, [near.as_str()]), None);
        let name = "x".repeat(MAX_NAME_CHARS);
        let many: Vec<String> = (0..100_000)
            .map(|i| format!("{}{i}", "y".repeat(250)))
            .collect();
        assert_eq!(closest(&name, many.iter().map(String::as_str)), None);
        // One pair computes only the band: at most (2 * limit + 1) cells a row.
        let (a, b) = (folded(&name), folded(&many[0]));
        let mut budget = usize::MAX;
        within(&a, &b, 85, &mut budget);
        assert!(usize::MAX - budget <= a.len() * (2 * 85 + 1));
    }
}
