//! The runs of a numpy broadcast of two operands, and the elementwise loops over them that
//! every broadcast binary kernel uses (the evaluator's and FoldConstant's alike).
//!
//! A broadcast of shapes `a` and `b` to `out` is walked as runs of its innermost merged axis
//! ([`Runs`]): adjacent axes on which both operands behave alike (both full, or one broadcast)
//! are merged first, so a `(64, 3, 7, 7) x (64, 1, 1, 1)` product is 64 runs of 147 elements,
//! not 9,408 runs of 7. Each run is a loop over slices that the compiler vectorises.
//!
//! An output of at least [`PARALLEL_MIN`] elements is cut into contiguous pieces of whole runs,
//! each written by one task on rayon's pool (the calling pass's pool when a function pass runs
//! in parallel, otherwise the global one). Every element is the same function of the same two
//! inputs as in a sequential loop and nothing is reduced, so the result is bitwise the same
//! for any number of threads. The point is memory as much as arithmetic: a fold's result is
//! fresh memory, and the kernel zeroes each page as it is first written, so two threads
//! writing halves fault their pages in at twice the rate.
//!
//! Invariants: no loop here allocates except the one output vector ([`zip`]); every element
//! of it is written exactly once before it is handed out; operands whose lengths do not match
//! their shapes are refused (`None`), never read out of bounds.

use rayon::prelude::*;
use std::mem::MaybeUninit;

/// Outputs of at least this many elements are split across rayon's threads (a piece is about
/// this size, so a task's overhead, a few microseconds, stays under a few percent).
pub(crate) const PARALLEL_MIN: usize = 1 << 16;

/// The runs of the broadcast of two shapes to `out`, in row-major order of the output.
pub(crate) struct Runs {
    /// Extents of the merged axes outside the innermost one, outermost first.
    outer: Vec<usize>,
    /// Each operand's element step along each outer axis (0 where it is broadcast).
    step_a: Vec<usize>,
    step_b: Vec<usize>,
    /// Elements per run.
    pub(crate) len: usize,
    /// Each operand's step inside a run: 1, or 0 where it is broadcast.
    pub(crate) inner_a: usize,
    pub(crate) inner_b: usize,
    /// The number of runs (0 for an empty output).
    pub(crate) count: usize,
}

impl Runs {
    /// The runs of `ash` and `bsh` broadcast to `out` (which must be their broadcast shape).
    pub(crate) fn new(ash: &[usize], bsh: &[usize], out: &[usize]) -> Runs {
        let n = out.len();
        let pad = |s: &[usize], k: usize| {
            if k + s.len() >= n {
                s[k + s.len() - n]
            } else {
                1
            }
        };
        let mut axes: Vec<(usize, bool, bool)> = Vec::new();
        for (k, &d) in out.iter().enumerate() {
            if d == 1 {
                continue;
            }
            let (af, bf) = (pad(ash, k) == d, pad(bsh, k) == d);
            match axes.last_mut() {
                Some((e, x, y)) if *x == af && *y == bf => *e *= d,
                _ => axes.push((d, af, bf)),
            }
        }
        let empty = out.contains(&0);
        let Some(&(len, ia, ib)) = axes.last() else {
            // A single element (every axis 1), or nothing.
            return Runs {
                outer: Vec::new(),
                step_a: Vec::new(),
                step_b: Vec::new(),
                len: 1,
                inner_a: 0,
                inner_b: 0,
                count: usize::from(!empty),
            };
        };
        let r = axes.len() - 1;
        let (mut step_a, mut step_b) = (vec![0usize; r], vec![0usize; r]);
        let mut acc_a = if ia { len } else { 1 };
        let mut acc_b = if ib { len } else { 1 };
        for k in (0..r).rev() {
            let (e, af, bf) = axes[k];
            if af {
                step_a[k] = acc_a;
                acc_a *= e;
            }
            if bf {
                step_b[k] = acc_b;
                acc_b *= e;
            }
        }
        let outer: Vec<usize> = axes[..r].iter().map(|a| a.0).collect();
        let count = if empty { 0 } else { outer.iter().product() };
        Runs {
            outer,
            step_a,
            step_b,
            len,
            inner_a: usize::from(ia),
            inner_b: usize::from(ib),
            count,
        }
    }

    /// Calls `run(a_at, b_at)` with each operand's offset for the runs `from..to`, in order.
    pub(crate) fn each(&self, from: usize, to: usize, mut run: impl FnMut(usize, usize)) {
        let to = to.min(self.count);
        if from >= to {
            return;
        }
        let r = self.outer.len();
        // The outer position of run `from` (row-major over the outer extents).
        let mut pos = vec![0usize; r];
        let (mut oa, mut ob) = (0usize, 0usize);
        let mut rest = from;
        for k in (0..r).rev() {
            pos[k] = rest % self.outer[k];
            rest /= self.outer[k];
            oa += pos[k] * self.step_a[k];
            ob += pos[k] * self.step_b[k];
        }
        for _ in from..to - 1 {
            run(oa, ob);
            let mut k = r;
            loop {
                // Runs remain, so some outer axis can still advance.
                k -= 1;
                pos[k] += 1;
                oa += self.step_a[k];
                ob += self.step_b[k];
                if pos[k] < self.outer[k] {
                    break;
                }
                oa -= self.step_a[k] * self.outer[k];
                ob -= self.step_b[k] * self.outer[k];
                pos[k] = 0;
            }
        }
        run(oa, ob);
    }

    /// Runs per parallel piece, or `None` when the output is too small to split (or rayon
    /// has one thread).
    fn piece(&self) -> Option<usize> {
        let total = self.count * self.len;
        (total >= PARALLEL_MIN && self.count > 1 && rayon::current_num_threads() > 1)
            .then(|| PARALLEL_MIN.div_ceil(self.len).max(1))
    }
}

/// `f` of each pair of the broadcast of `x` (shape `xs`) and `y` (shape `ys`) to `out`, in
/// row-major order: a new vector of `out`'s element count, each element written once (no
/// zeroing first). `None` when a slice's length is not its shape's element count or `out` is
/// not the broadcast shape.
pub(crate) fn zip<T: Copy + Sync, U: Send>(
    x: &[T],
    xs: &[usize],
    y: &[T],
    ys: &[usize],
    out: &[usize],
    f: impl Fn(T, T) -> U + Sync,
) -> Option<Vec<U>> {
    if super::elementwise::broadcast_shape(xs, ys).as_deref() != Some(out)
        || x.len() != xs.iter().product::<usize>()
        || y.len() != ys.iter().product::<usize>()
    {
        return None;
    }
    let runs = Runs::new(xs, ys, out);
    let total = runs.count * runs.len;
    let mut v: Vec<U> = Vec::new();
    v.try_reserve_exact(total).ok()?;
    let dst = &mut v.spare_capacity_mut()[..total];
    match runs.piece() {
        Some(per) => dst
            .par_chunks_mut(per * runs.len)
            .enumerate()
            .for_each(|(k, d)| write_runs(&runs, k * per, (k + 1) * per, x, y, d, &f)),
        None => write_runs(&runs, 0, runs.count, x, y, dst, &f),
    }
    // SAFETY: `write_runs` wrote every element of each piece it was given (it checks that it
    // filled its piece exactly, and panics otherwise, before this line is reached), and the
    // pieces cover `dst`, the first `total` elements of the spare capacity, reserved above.
    unsafe { v.set_len(total) };
    Some(v)
}

/// Writes the runs `from..to` of `f(x, y)` into `dst`, which holds exactly those runs.
fn write_runs<T: Copy, U>(
    runs: &Runs,
    from: usize,
    to: usize,
    x: &[T],
    y: &[T],
    dst: &mut [MaybeUninit<U>],
    f: &impl Fn(T, T) -> U,
) {
    let len = runs.len;
    let mut w = 0;
    runs.each(from, to, |i, j| {
        let d = &mut dst[w..w + len];
        w += len;
        match (runs.inner_a, runs.inner_b) {
            (1, 1) => d
                .iter_mut()
                .zip(&x[i..i + len])
                .zip(&y[j..j + len])
                .for_each(|((d, p), q)| {
                    d.write(f(*p, *q));
                }),
            (1, _) => {
                let q = y[j];
                d.iter_mut().zip(&x[i..i + len]).for_each(|(d, p)| {
                    d.write(f(*p, q));
                });
            }
            (_, 1) => {
                let p = x[i];
                d.iter_mut().zip(&y[j..j + len]).for_each(|(d, q)| {
                    d.write(f(p, *q));
                });
            }
            _ => d.iter_mut().for_each(|d| {
                d.write(f(x[i], y[j]));
            }),
        }
    });
    assert_eq!(w, dst.len(), "a broadcast piece is written in full");
}

/// `x = f(x, y)` over `x`'s own elements (shape `xs`), `y` (shape `ys`) broadcast to it;
/// `false`, nothing written, when `y` does not broadcast to `xs` or a length is off.
pub(crate) fn zip_into<T: Copy + Send + Sync>(
    x: &mut [T],
    xs: &[usize],
    y: &[T],
    ys: &[usize],
    f: impl Fn(T, T) -> T + Sync,
) -> bool {
    if super::elementwise::broadcast_shape(xs, ys).as_deref() != Some(xs)
        || x.len() != xs.iter().product::<usize>()
        || y.len() != ys.iter().product::<usize>()
    {
        return false;
    }
    let runs = Runs::new(xs, ys, xs);
    let total = runs.count * runs.len;
    let x = &mut x[..total];
    match runs.piece() {
        Some(per) => x
            .par_chunks_mut(per * runs.len)
            .enumerate()
            .for_each(|(k, d)| update_runs(&runs, k * per, (k + 1) * per, y, d, &f)),
        None => update_runs(&runs, 0, runs.count, y, x, &f),
    }
    true
}

/// `d = f(d, y)` for the runs `from..to`, which `d` holds exactly (the first operand is `d`).
fn update_runs<T: Copy>(
    runs: &Runs,
    from: usize,
    to: usize,
    y: &[T],
    d: &mut [T],
    f: &impl Fn(T, T) -> T,
) {
    let len = runs.len;
    let mut w = 0;
    runs.each(from, to, |_, j| {
        let run = &mut d[w..w + len];
        w += len;
        if runs.inner_b == 1 {
            run.iter_mut()
                .zip(&y[j..j + len])
                .for_each(|(p, q)| *p = f(*p, *q));
        } else {
            let q = y[j];
            run.iter_mut().for_each(|p| *p = f(*p, q));
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The runs as the plain nested loops over the output index give them.
    fn naive<T: Copy, U>(
        x: &[T],
        xs: &[usize],
        y: &[T],
        ys: &[usize],
        out: &[usize],
        f: impl Fn(T, T) -> U,
    ) -> Vec<U> {
        let n = out.len();
        let total: usize = out.iter().product();
        let at = |s: &[usize], idx: &[usize]| {
            let mut off = 0;
            for (k, &d) in s.iter().enumerate() {
                let i = idx[k + n - s.len()];
                off = off * d + if d == 1 { 0 } else { i };
            }
            off
        };
        (0..total)
            .map(|mut flat| {
                let mut idx = vec![0; n];
                for k in (0..n).rev() {
                    idx[k] = flat % out[k];
                    flat /= out[k];
                }
                f(x[at(xs, &idx)], y[at(ys, &idx)])
            })
            .collect()
    }

    fn data(n: usize, seed: u32) -> Vec<f32> {
        (0..n)
            .map(|i| ((i as u32).wrapping_mul(2654435761) ^ seed) as f32 / 1e9 - 2.0)
            .collect()
    }

    /// Large and small shapes, every kind of broadcast (full, scalar, per channel, both ways,
    /// middle axes): the runs, sequential or split across threads, give the naive loops'
    /// elements bit for bit, from any starting run.
    #[test]
    fn runs_and_pieces_match_the_naive_loops() {
        let cases: &[(&[usize], &[usize])] = &[
            (&[512, 256, 3, 3], &[512, 1, 1, 1]),
            (&[512, 1, 1, 1], &[512, 256, 3, 3]),
            (&[2048, 1000], &[1000]),
            (&[300, 1, 400], &[1, 300, 1]),
            (&[64, 3, 7, 7], &[1, 3, 1, 7]),
            (&[70000], &[1]),
            (&[1], &[70000]),
            (&[7, 1, 5], &[7, 9, 5]),
            (&[3, 0, 2], &[1, 2]),
            (&[], &[]),
            (&[1, 1], &[1]),
        ];
        for &(xs, ys) in cases {
            let out = crate::eval::elementwise::broadcast_shape(xs, ys).expect("broadcasts");
            let x = data(xs.iter().product(), 1);
            let y = data(ys.iter().product(), 7);
            let want = naive(&x, xs, &y, ys, &out, |a, b| a * b - a);
            let got = zip(&x, xs, &y, ys, &out, |a, b| a * b - a).expect("zips");
            let bits = |v: &[f32]| v.iter().map(|z| z.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&got), bits(&want), "{xs:?} x {ys:?}");
            // One thread: the same bits.
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(1)
                .build()
                .unwrap();
            let one = pool.install(|| zip(&x, xs, &y, ys, &out, |a, b| a * b - a).unwrap());
            assert_eq!(bits(&one), bits(&want), "{xs:?} x {ys:?} on one thread");
            if out == xs {
                let mut z = x.clone();
                assert!(zip_into(&mut z, xs, &y, ys, |a, b| a * b - a));
                assert_eq!(bits(&z), bits(&want), "{xs:?} x= {ys:?}");
            }
            // Every start: a piece starting mid-way sees the same offsets as the full walk.
            let runs = Runs::new(xs, ys, &out);
            let mut all = Vec::new();
            runs.each(0, runs.count, |i, j| all.push((i, j)));
            assert_eq!(all.len(), runs.count);
            for from in (0..runs.count).step_by(runs.count / 7 + 1) {
                let mut part = Vec::new();
                runs.each(from, runs.count, |i, j| part.push((i, j)));
                assert_eq!(part, all[from..], "{xs:?} x {ys:?} from run {from}");
            }
        }
    }

    /// Operands whose lengths are not their shapes' are refused, not read out of bounds.
    #[test]
    fn mismatched_lengths_are_refused() {
        let x = data(10, 1);
        assert!(zip(&x, &[11], &x, &[1], &[11], |a, b| a + b).is_none());
        assert!(zip(&x, &[10], &x[..3], &[10], &[10], |a, b| a + b).is_none());
        assert!(zip(&x, &[10], &x, &[10], &[2, 10], |a, b| a + b).is_none());
        let mut z = x.clone();
        assert!(!zip_into(&mut z, &[10], &x, &[2, 10], |a, b| a + b));
        assert!(!zip_into(&mut z, &[5], &x, &[5], |a, b| a + b));
    }
}
