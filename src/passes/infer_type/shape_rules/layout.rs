//! Data layouts as TVM writes them (`NCHW`, `NHWC`, `OIHW`, `NCHW16c`, `OIHW16i16o`): upper-case
//! letters are primal axes, a number followed by a lower-case letter is a sub-axis that splits
//! the primal axis of the same letter by that factor. A primal axis may be split more than once
//! (`OHWI16i64o2i`: `I` is `I * 32 + 16i * 2 + 2i`, the earlier sub-axis the outer one), and its
//! factor is then the product of its sub-axes' factors, as TVM's `Layout::FactorOf`. Converting
//! a shape between two layouts with the same primal axes is TVM's
//! `BijectiveLayout::ForwardShape`: each primal extent is rebuilt in full (`C * c`), then split
//! again by the target's factors.
//!
//! Not supported: sub-axes without a factor (`NCHWc`) — TVM cannot convert those either.

use super::{dim_op, floordiv};
use crate::ir::Dim;

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Layout {
    /// `(letter, factor)`: factor `None` for a primal (upper-case) axis. Shared: a layout
    /// comes from [`Layout::parse`]'s cache and is cloned into each rule that uses it.
    axes: std::sync::Arc<[(char, Option<i64>)]>,
}

/// Layout strings kept parsed per thread: a model names a handful (`NCHW`, `OIHW`, ...) on
/// every convolution, and InferType's conv rule reads four per call (5% of its time on a conv
/// model went to parsing them again).
const CACHED_LAYOUTS: usize = 64;

impl Layout {
    /// Parses a layout string (through a small per-thread cache of the strings seen).
    pub fn parse(s: &str) -> Result<Layout, String> {
        thread_local! {
            static SEEN: std::cell::RefCell<Vec<(Box<str>, Layout)>> =
                const { std::cell::RefCell::new(Vec::new()) };
        }
        let hit = SEEN.with(|seen| {
            let seen = seen.borrow();
            seen.iter().find(|(k, _)| &**k == s).map(|(_, l)| l.clone())
        });
        if let Some(l) = hit {
            return Ok(l);
        }
        let l = Layout::parse_uncached(s)?;
        SEEN.with(|seen| {
            let mut seen = seen.borrow_mut();
            if seen.len() < CACHED_LAYOUTS {
                seen.push((s.into(), l.clone()));
            }
        });
        Ok(l)
    }

    fn parse_uncached(s: &str) -> Result<Layout, String> {
        let mut axes = Vec::new();
        let mut factor: Option<i64> = None;
        for c in s.chars() {
            if let Some(d) = c.to_digit(10) {
                factor = Some(factor.unwrap_or(0) * 10 + d as i64);
            } else if c.is_ascii_uppercase() {
                if factor.is_some() {
                    return Err(format!(
                        "invalid layout \"{s}\": a factor must precede a lower-case axis"
                    ));
                }
                axes.push((c, None));
            } else if c.is_ascii_lowercase() {
                match factor.take() {
                    Some(f) if f > 0 => axes.push((c, Some(f))),
                    _ => {
                        return Err(format!(
                            "invalid layout \"{s}\": sub-axis `{c}` needs a positive factor"
                        ))
                    }
                }
            } else {
                return Err(format!("invalid layout \"{s}\""));
            }
        }
        if factor.is_some() {
            return Err(format!("invalid layout \"{s}\": trailing factor"));
        }
        let layout = Layout { axes: axes.into() };
        for (c, f) in layout.axes.iter() {
            // A primal axis appears once; a sub-axis may repeat (two splits of one axis).
            let dup = layout
                .axes
                .iter()
                .filter(|(d, g)| d == c && g.is_none() && f.is_none())
                .count();
            if dup > 1 {
                return Err(format!("invalid layout \"{s}\": axis `{c}` appears twice"));
            }
            if f.is_some() && layout.index_of(c.to_ascii_uppercase()).is_none() {
                return Err(format!(
                    "invalid layout \"{s}\": sub-axis `{c}` has no primal axis"
                ));
            }
        }
        Ok(layout)
    }

    pub fn len(&self) -> usize {
        self.axes.len()
    }

    /// Position of a primal axis (upper-case letter) or of a sub-axis (lower-case letter).
    pub fn index_of(&self, c: char) -> Option<usize> {
        let primal = c.is_ascii_uppercase();
        self.axes
            .iter()
            .position(|(d, f)| *d == c && f.is_none() == primal)
    }

    /// The split factor of primal axis `c`, when the layout has its sub-axis: the product of
    /// the factors of all its sub-axes (TVM's `FactorOf`).
    pub fn factor_of(&self, c: char) -> Option<i64> {
        let lower = c.to_ascii_lowercase();
        self.axes
            .iter()
            .filter(|(d, _)| *d == lower)
            .filter_map(|(_, f)| *f)
            .fold(None, |acc: Option<i64>, f| {
                Some(acc.unwrap_or(1).saturating_mul(f))
            })
    }

    fn primals(&self) -> Vec<char> {
        let mut v: Vec<char> = self
            .axes
            .iter()
            .filter(|(_, f)| f.is_none())
            .map(|(c, _)| *c)
            .collect();
        v.sort_unstable();
        v
    }

    /// Converts a shape written in this layout to `dst`.
    pub fn convert(&self, shape: &[Dim], dst: &Layout) -> Result<Vec<Dim>, String> {
        if shape.len() != self.len() {
            return Err(format!(
                "a tensor of rank {} does not have layout {} (rank {})",
                shape.len(),
                self,
                self.len()
            ));
        }
        if self == dst {
            return Ok(shape.to_vec());
        }
        if self.primals() != dst.primals() {
            return Err(format!("layouts {self} and {dst} are not convertible"));
        }
        let full = |c: char| -> Dim {
            let d = &shape[self.index_of(c).expect("primal axes checked")];
            match self.factor_of(c) {
                Some(f) => dim_op(d, &Dim::Static(f), i64::saturating_mul),
                None => d.clone(),
            }
        };
        Ok(dst
            .axes
            .iter()
            .map(|&(c, f)| match f {
                Some(g) => Dim::Static(g),
                None => match dst.factor_of(c) {
                    Some(g) => dim_op(&full(c), &Dim::Static(g), floordiv),
                    None => full(c),
                },
            })
            .collect())
    }
}

impl std::fmt::Display for Layout {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (c, factor) in self.axes.iter() {
            if let Some(n) = factor {
                write!(f, "{n}")?;
            }
            write!(f, "{c}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &[i64]) -> Vec<Dim> {
        v.iter().map(|x| Dim::Static(*x)).collect()
    }

    #[test]
    fn converts_between_layouts() {
        let nchw = Layout::parse("NCHW").unwrap();
        let nhwc = Layout::parse("NHWC").unwrap();
        let nchw16c = Layout::parse("NCHW16c").unwrap();
        assert_eq!(
            nhwc.convert(&s(&[1, 56, 56, 64]), &nchw).unwrap(),
            s(&[1, 64, 56, 56])
        );
        assert_eq!(
            nchw.convert(&s(&[1, 64, 56, 56]), &nchw16c).unwrap(),
            s(&[1, 4, 56, 56, 16])
        );
        assert_eq!(
            nchw16c.convert(&s(&[1, 4, 56, 56, 16]), &nchw).unwrap(),
            s(&[1, 64, 56, 56])
        );
        let hwio = Layout::parse("HWIO").unwrap();
        let oihw = Layout::parse("OIHW").unwrap();
        assert_eq!(
            hwio.convert(&s(&[3, 3, 64, 32]), &oihw).unwrap(),
            s(&[32, 64, 3, 3])
        );
        assert!(Layout::parse("NCHWc").is_err());
        assert!(Layout::parse("NCHWN").is_err());
        // Two splits of one axis: I is 2 * 16i * 2i, O is 2 * 64o.
        let multi = Layout::parse("OHWI16i64o2i").unwrap();
        assert_eq!(multi.factor_of('I'), Some(32));
        assert_eq!(
            oihw.convert(&s(&[128, 64, 3, 3]), &multi).unwrap(),
            s(&[2, 3, 3, 2, 16, 64, 2])
        );
        assert_eq!(
            multi.convert(&s(&[2, 3, 3, 2, 16, 64, 2]), &oihw).unwrap(),
            s(&[128, 64, 3, 3])
        );
        assert_eq!(multi.to_string(), "OHWI16i64o2i");
        assert!(nchw.convert(&s(&[1, 2, 3, 4]), &oihw).is_err());
        assert_eq!(nchw16c.to_string(), "NCHW16c");
    }
}
