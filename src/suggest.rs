//! "Did you mean" suggestions: the closest known name by edit distance.

/// Edit distance between two strings (insertions, deletions, substitutions and adjacent
/// transpositions each cost 1), by characters, case-insensitively.
pub fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.to_lowercase().chars().collect();
    let b: Vec<char> = b.to_lowercase().chars().collect();
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

/// The candidate closest to `name`, if it is close enough to be a plausible typo
/// (at most a third of the name's length, at least 1 edit for names of three or more
/// characters; a case-only difference always qualifies).
pub fn closest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let len = name.chars().count();
    // Names of one or two letters are too short for a typo to be recognisable.
    let limit = if len < 3 { 0 } else { (len / 3).max(1) };
    candidates
        .into_iter()
        .filter(|c| *c != name)
        .map(|c| (distance(name, c), c))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, c)| (*d, c.len()))
        .map(|(_, c)| c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggests_close_names() {
        assert_eq!(distance("kitten", "sitting"), 3);
        assert_eq!(distance("alpah", "alpha"), 1);
        let names = ["Sequential", "FoldConstant", "InferType"];
        assert_eq!(closest("Sequentail", names), Some("Sequential"));
        assert_eq!(closest("foldconstant", names), Some("FoldConstant"));
        assert_eq!(closest("zzz", names), None);
    }
}
