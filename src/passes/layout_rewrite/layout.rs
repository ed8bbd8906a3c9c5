//! Layout names as the layout rewriter manipulates them (TVM's `tir::Layout`): a sequence of
//! axes, each a primal axis (`N`, `C`, upper case) or a sub-axis with its factor (`16c`). A
//! primal axis appears once; it may be split more than once (`OHWI16i64o2i`), as in TVM.
//! `""` is the defined layout of a scalar; an unknown layout is `None` at the use sites.
//!
//! Only the operations the rewriter needs: index of an axis, sub-layouts, prepending the
//! primal axes another layout has and this one lacks (`ExpandPrimal`), and convertibility.

use std::fmt;

/// A parsed layout. Equal layouts are one interned value ([`Layout::from_axes`]), so equality
/// and hashing look at the address of the axes only.
#[derive(Clone, Copy, Debug)]
pub struct Layout {
    /// Interned for the life of the process ([`Layout::from_axes`]): the rewriter copies a
    /// node's layouts several times per call it rewrites, and a copy is then one pointer copy,
    /// with no reference count to raise and lower (an atomic operation each: 7% of
    /// ConvertLayout when the axes were an `Arc<[Axis]>`).
    axes: &'static [Axis],
}

impl PartialEq for Layout {
    fn eq(&self, other: &Layout) -> bool {
        std::ptr::eq(self.axes, other.axes)
    }
}

impl Eq for Layout {}

impl std::hash::Hash for Layout {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        (self.axes.as_ptr() as usize).hash(state)
    }
}

/// The axes of a layout being built (a layout has a handful: no heap block for them).
type Axes = smallvec::SmallVec<[Axis; 8]>;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct Axis {
    letter: char,
    /// `None` for a primal axis.
    factor: Option<u32>,
}

/// The process's interned layouts.
type Table = rustc_hash::FxHashSet<&'static [Axis]>;

/// The interned copy of `axes` from `all`, made (and never freed) when `all` holds fewer than
/// `limit` layouts; `None` when it is new and `all` is full.
fn intern_in(all: &mut Table, axes: &[Axis], limit: usize) -> Option<&'static [Axis]> {
    if let Some(a) = all.get(axes) {
        return Some(a);
    }
    if all.len() >= limit {
        return None;
    }
    let a: &'static [Axis] = Box::leak(axes.into());
    all.insert(a);
    Some(a)
}

/// [`intern_in`] the process-wide table, through this thread's copy of the part it has used.
fn interned(axes: &[Axis], limit: usize) -> Option<&'static [Axis]> {
    use std::sync::{Mutex, OnceLock};
    static ALL: OnceLock<Mutex<Table>> = OnceLock::new();
    thread_local! {
        static MINE: std::cell::RefCell<Table> = Default::default();
    }
    MINE.with(|mine| {
        if let Some(a) = mine.borrow().get(axes) {
            return Some(*a);
        }
        let all = ALL.get_or_init(Default::default);
        let mut all = all.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let a = intern_in(&mut all, axes, limit)?;
        mine.borrow_mut().insert(a);
        Some(a)
    })
}

impl Layout {
    /// Parses `NCHW`, `NCHW16c`, `OIHW16i16o`, `OHWI16i64o2i` or `""`; `None` for anything else
    /// (a primal axis twice, a sub-axis without a factor).
    ///
    /// A model names a handful of layouts on thousands of calls, so each thread keeps the
    /// layouts it parsed (a bounded cache): equal names share one set of axes, parsing is a
    /// lookup, and the rewriter's many copies and drops of a layout touch one hot reference
    /// count instead of one per call spread over the heap.
    pub fn parse(s: &str) -> Option<Layout> {
        thread_local! {
            static PARSED: std::cell::RefCell<rustc_hash::FxHashMap<Box<str>, Option<Layout>>> =
                Default::default();
        }
        PARSED.with(|c| {
            if let Some(l) = c.borrow().get(s) {
                return *l;
            }
            let l = Layout::parse_new(s);
            let mut c = c.borrow_mut();
            if c.len() >= 256 {
                c.clear();
            }
            c.insert(s.into(), l);
            l
        })
    }

    fn parse_new(s: &str) -> Option<Layout> {
        let mut axes = Axes::new();
        let mut factor: Option<u32> = None;
        for ch in s.chars() {
            if let Some(d) = ch.to_digit(10) {
                factor = Some(factor.unwrap_or(0).checked_mul(10)?.checked_add(d)?);
            } else if ch.is_ascii_uppercase() && factor.is_none() {
                axes.push(Axis {
                    letter: ch,
                    factor: None,
                });
            } else if ch.is_ascii_lowercase() && factor.is_some_and(|f| f > 0) {
                axes.push(Axis {
                    letter: ch.to_ascii_uppercase(),
                    factor: factor.take(),
                });
            } else {
                return None;
            }
        }
        if factor.is_some() {
            return None;
        }
        let unique = axes
            .iter()
            .enumerate()
            .all(|(i, a)| a.factor.is_some() || !axes[..i].contains(a));
        unique.then(|| Layout::intern_parsed(&axes)).flatten()
    }

    /// The layout of these axes: every distinct layout is allocated once per process and
    /// never freed, like a compiler's interned symbols (a model names a handful of layouts,
    /// and the rewriter derives a handful more; each is a few dozen bytes). Each thread keeps
    /// the ones it has used, so the process-wide table is locked only for a layout new to the
    /// thread. Layouts derived from parsed ones always get a place (there are a bounded few
    /// per parsed layout); see [`Layout::intern_parsed`] for the parsed ones.
    fn from_axes(axes: &[Axis]) -> Layout {
        // Without a limit interning always succeeds; the empty fallback is never taken.
        Layout {
            axes: interned(axes, usize::MAX).unwrap_or_default(),
        }
    }

    /// The layout of these axes when it is interned already or the process has interned fewer
    /// than [`MAX_LAYOUTS`](crate::limits::MAX_LAYOUTS) layouts: the names a long session
    /// (a REPL, a kernel) is given cannot make the never-freed table grow without bound. A
    /// name beyond the limit is not a layout the rewriter handles (`None`, as for a name it
    /// cannot parse).
    fn intern_parsed(axes: &[Axis]) -> Option<Layout> {
        interned(axes, crate::limits::MAX_LAYOUTS).map(|axes| Layout { axes })
    }

    pub fn ndim(&self) -> usize {
        self.axes.len()
    }

    pub fn ndim_primal(&self) -> usize {
        self.axes.iter().filter(|a| a.factor.is_none()).count()
    }

    /// The position of primal axis `c` (upper case) or of its sub-axis (lower case).
    pub fn index_of(&self, c: char) -> Option<usize> {
        let primal = c.is_ascii_uppercase();
        let letter = c.to_ascii_uppercase();
        self.axes
            .iter()
            .position(|a| a.letter == letter && a.factor.is_none() == primal)
    }

    /// The axis at position `i` as a name (`C`, `c`), for finding it in another layout.
    pub fn axis_name(&self, i: usize) -> Option<char> {
        let a = self.axes.get(i)?;
        Some(match a.factor {
            None => a.letter,
            Some(_) => a.letter.to_ascii_lowercase(),
        })
    }

    /// The axis at position `i` as TVM writes it in a layout name (`C`, `16c`).
    pub fn axis_text(&self, i: usize) -> Option<String> {
        let a = self.axes.get(i)?;
        Some(match a.factor {
            None => a.letter.to_string(),
            Some(f) => format!("{f}{}", a.letter.to_ascii_lowercase()),
        })
    }

    /// The factor of the sub-axes of primal axis `c` (`16` for `C` in `NCHW16c`, `32` for `I`
    /// in `OHWI16i64o2i`: TVM's `FactorOf`, the product of all of them), if any.
    pub fn factor_of(&self, c: char) -> Option<u32> {
        let letter = c.to_ascii_uppercase();
        self.axes
            .iter()
            .filter(|a| a.letter == letter)
            .filter_map(|a| a.factor)
            .fold(None, |acc: Option<u32>, f| {
                Some(acc.unwrap_or(1).saturating_mul(f))
            })
    }

    /// The layout of the axes at `positions`, in that order.
    pub fn select(&self, positions: impl IntoIterator<Item = usize>) -> Option<Layout> {
        let axes = positions
            .into_iter()
            .map(|i| self.axes.get(i).copied())
            .collect::<Option<Axes>>()?;
        Layout::parse(&Layout::from_axes(&axes).to_string())
    }

    pub fn is_primal_at(&self, i: usize) -> bool {
        self.axes.get(i).is_some_and(|a| a.factor.is_none())
    }

    /// Axes `[pos, pos + len)`.
    pub fn sub_layout(&self, pos: usize, len: usize) -> Layout {
        let end = pos.saturating_add(len).min(self.axes.len());
        Layout::from_axes(self.axes.get(pos..end).unwrap_or(&[]))
    }

    /// TVM's `ExpandPrimal`: the primal axes of `dst` that this layout lacks, in `dst`'s
    /// order, followed by this layout.
    pub fn expand_primal(&self, dst: &Layout) -> Layout {
        let mut axes: Axes = dst
            .axes
            .iter()
            .filter(|a| a.factor.is_none() && self.index_of(a.letter).is_none())
            .copied()
            .collect();
        axes.extend(self.axes.iter().copied());
        Layout::from_axes(&axes)
    }

    /// TVM's `AdjustSubordinateFactors`: this layout, with the factor of each sub-axis set to 1
    /// where the operand (of layout `old` and shape `old_shape`) lacks that axis, or has
    /// extent 1 on it and did not split it already.
    pub fn adjust_subordinate(&self, old: &Layout, old_shape: &[Option<i64>]) -> Layout {
        let axes = self
            .axes
            .iter()
            .map(|a| match a.factor {
                None => *a,
                Some(_) => {
                    let one = match old.index_of(a.letter) {
                        None => true,
                        Some(i) => {
                            old_shape.get(i).copied().flatten() == Some(1)
                                && old.factor_of(a.letter).is_none()
                        }
                    };
                    Axis {
                        factor: if one { Some(1) } else { a.factor },
                        ..*a
                    }
                }
            })
            .collect::<Axes>();
        Layout::from_axes(&axes)
    }

    /// TVM's `Isomorphic`: the same number of axes, primal where the other's are, names
    /// mapped one to one, and equal factors.
    fn isomorphic(&self, other: &Layout) -> bool {
        if self.axes.len() != other.axes.len() {
            return false;
        }
        let name = |a: &Axis| (a.letter, a.factor.is_none());
        let mut to: Vec<((char, bool), (char, bool))> = Vec::new();
        for (a, b) in self.axes.iter().zip(other.axes) {
            if a.factor.is_none() != b.factor.is_none() || a.factor != b.factor {
                return false;
            }
            let (na, nb) = (name(a), name(b));
            if to.iter().any(|(x, y)| (*x == na) != (*y == nb)) {
                return false;
            }
            to.push((na, nb));
        }
        true
    }

    /// TVM's `TryTransformLike`: `self` (an operand's layout) changed the way `ref_old` changed
    /// to `ref_new`, when the two old layouts line up (the smaller one isomorphic to the
    /// trailing axes of the larger, the leading axes apart); `None` otherwise.
    pub fn try_transform_like(&self, ref_old: &Layout, ref_new: &Layout) -> Option<Layout> {
        let (large, small) = if ref_old.ndim() > self.ndim() {
            (ref_old, self)
        } else {
            (self, ref_old)
        };
        let cut = large.ndim() - small.ndim();
        let (rest, tail) = (&large.axes[..cut], large.sub_layout(cut, small.ndim()));
        if rest
            .iter()
            .any(|a| tail.axes.iter().any(|t| t.letter == a.letter))
            || !tail.isomorphic(small)
        {
            return None;
        }
        if self.ndim() == 0 {
            return Some(*self);
        }
        // Primal letters of ref_old mapped to this layout's, from the last axis backwards.
        let mut mapping: [Option<char>; 26] = [None; 26];
        let mut used = [false; 26];
        let idx = |c: char| {
            (c as u8)
                .checked_sub(b'A')
                .map(usize::from)
                .filter(|i| *i < 26)
        };
        for (r, o) in ref_old.axes.iter().rev().zip(self.axes.iter().rev()) {
            mapping[idx(r.letter)?] = Some(o.letter);
            used[idx(o.letter)?] = true;
        }
        for r in ref_old.axes.iter().rev() {
            let i = idx(r.letter)?;
            if mapping[i].is_none() {
                let pick = if used[i] {
                    (0..26).find(|j| !used[*j])?
                } else {
                    i
                };
                used[pick] = true;
                mapping[i] = Some((b'A' + pick as u8) as char);
            }
        }
        let mut name = String::new();
        for a in ref_new.axes {
            let letter = mapping[idx(a.letter)?]?;
            match a.factor {
                None => name.push(letter),
                Some(f) => {
                    name.push_str(&f.to_string());
                    name.push(letter.to_ascii_lowercase());
                }
            }
        }
        Layout::parse(&name)
    }

    /// True when a `layout_transform` between the two exists (the same primal axes).
    pub fn convertible(&self, other: &Layout) -> bool {
        let primals = |l: &Layout| {
            let mut v: smallvec::SmallVec<[char; 8]> = l
                .axes
                .iter()
                .filter(|a| a.factor.is_none())
                .map(|a| a.letter)
                .collect();
            v.sort_unstable();
            v
        };
        let subs_ok = |l: &Layout| {
            l.axes
                .iter()
                .filter(|a| a.factor.is_some())
                .all(|a| l.index_of(a.letter).is_some())
        };
        primals(self) == primals(other) && subs_ok(self) && subs_ok(other)
    }
}

impl fmt::Display for Layout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for a in self.axes.iter() {
            match a.factor {
                Some(n) => write!(f, "{n}{}", a.letter.to_ascii_lowercase())?,
                None => write!(f, "{}", a.letter)?,
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::{intern_in, Axis, Layout, Table};

    /// The never-freed table stops growing at its limit: a known layout is still found, a
    /// new one is refused.
    #[test]
    fn the_interned_layouts_are_bounded() {
        let axes = |s: &str| -> Vec<Axis> {
            s.chars()
                .map(|letter| Axis {
                    letter,
                    factor: None,
                })
                .collect()
        };
        let mut table = Table::default();
        let nchw = intern_in(&mut table, &axes("NCHW"), 2).unwrap();
        let nhwc = intern_in(&mut table, &axes("NHWC"), 2).unwrap();
        assert!(intern_in(&mut table, &axes("HWCN"), 2).is_none());
        assert!(std::ptr::eq(
            intern_in(&mut table, &axes("NCHW"), 2).unwrap(),
            nchw
        ));
        assert!(std::ptr::eq(
            intern_in(&mut table, &axes("NHWC"), 2).unwrap(),
            nhwc
        ));
        assert_eq!(table.len(), 2);
    }

    #[test]
    fn layouts() {
        let l = |s| Layout::parse(s).unwrap();
        assert_eq!(l("NCHW16c").to_string(), "NCHW16c");
        assert_eq!(l("NCHW16c").ndim_primal(), 4);
        assert_eq!(l("NCHW16c").index_of('c'), Some(4));
        assert_eq!(l("NHWC").sub_layout(3, 1).to_string(), "C");
        assert_eq!(l("C").expand_primal(&l("NCHW")).to_string(), "NHWC");
        assert!(l("NHWC").convertible(&l("NCHW16c")));
        assert!(!l("NCHW").convertible(&l("OIHW")));
        assert_eq!(l("").ndim(), 0);
        assert!(Layout::parse("NCHWc").is_none());
        assert!(Layout::parse("NN").is_none());
        let multi = l("OHWI16i64o2i");
        assert_eq!(multi.to_string(), "OHWI16i64o2i");
        assert_eq!(multi.factor_of('I'), Some(32));
        assert_eq!(multi.factor_of('O'), Some(64));
        assert!(l("OIHW").convertible(&multi));
    }

    /// Equal layouts share one interned set of axes, however and on whichever thread they
    /// were made: parsed, derived, or parsed on another thread.
    #[test]
    fn equal_layouts_are_one_interned_value() {
        let l = |s| Layout::parse(s).unwrap();
        let same = |a: Layout, b: Layout| a == b && std::ptr::eq(a.axes, b.axes);
        assert!(same(l("NHWC"), l("NHWC")));
        assert!(same(l("C").expand_primal(&l("NCHW")), l("NHWC")));
        assert!(same(l("NCHW16c").sub_layout(1, 1), l("C")));
        let other = std::thread::spawn(move || l("NHWC")).join().unwrap();
        assert!(same(other, l("NHWC")));
        assert!(!std::ptr::eq(l("NHWC").axes, l("NCHW").axes));
    }
}
