//! `einsum(data, equation)`: NumPy's Einstein summation over a tuple of tensors, as TVM's
//! `einsum` op computes it (`topi.einsum`). The equation names each input's axes with letters
//! (`"ij,jk->ik"`); `...` stands for the axes not named (broadcast against each other,
//! aligned at the right); without `->` the output is `...` followed by the letters used
//! once, in alphabetical order. A letter repeated within one input takes its diagonal; a
//! letter missing from the output is summed over.
//!
//! [`parse`] is shared with the type rule (`EinsumRel`), so both accept the same equations
//! and agree on the output's axes.

use super::shape_ops::bounded;
use super::value::{Arr, Value};
use ndarray::{ArrayD, IxDyn};

/// An axis label: a letter, or the `i`-th axis of the broadcast `...` block.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Label {
    Letter(u8),
    Ellipsis(usize),
}

/// A parsed equation for inputs of given ranks.
#[derive(Debug)]
pub(crate) struct Spec {
    /// Each input's axis labels, one per axis.
    pub inputs: Vec<Vec<Label>>,
    /// The output's axis labels.
    pub output: Vec<Label>,
}

/// The letters of one term and where its `...` stands (index into the letters), if any.
fn term(s: &str) -> Result<(Vec<u8>, Option<usize>), String> {
    let mut letters = Vec::new();
    let mut dots = None;
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            c if c.is_ascii_alphabetic() => letters.push(c),
            b'.' if b[i..].starts_with(b"...") && dots.is_none() => {
                dots = Some(letters.len());
                i += 2;
            }
            b' ' => {}
            c => return Err(format!("einsum: unexpected `{}` in `{s}`", c as char)),
        }
        i += 1;
    }
    Ok((letters, dots))
}

/// Parses `equation` for inputs of the given ranks.
pub(crate) fn parse(equation: &str, ranks: &[usize]) -> Result<Spec, String> {
    let (lhs, rhs) = match equation.split_once("->") {
        Some((l, r)) => (l, Some(r)),
        None => (equation, None),
    };
    let terms: Vec<&str> = lhs.split(',').collect();
    if terms.len() != ranks.len() {
        return Err(format!(
            "einsum: the equation `{equation}` has {} operands, {} given",
            terms.len(),
            ranks.len()
        ));
    }
    let parsed = terms
        .iter()
        .map(|t| term(t))
        .collect::<Result<Vec<_>, _>>()?;
    let mut ellipsis = 0;
    for ((letters, dots), &rank) in parsed.iter().zip(ranks) {
        let fits = match dots {
            Some(_) => letters.len() <= rank,
            None => letters.len() == rank,
        };
        if !fits {
            return Err(format!(
                "einsum: `{equation}` names {} axes of an operand of rank {rank}",
                letters.len()
            ));
        }
        if dots.is_some() {
            ellipsis = ellipsis.max(rank - letters.len());
        }
    }
    let inputs: Vec<Vec<Label>> = parsed
        .iter()
        .zip(ranks)
        .map(|((letters, dots), &rank)| {
            let mut labels: Vec<Label> = letters.iter().map(|&c| Label::Letter(c)).collect();
            if let Some(at) = *dots {
                let e = rank - letters.len();
                let block = (ellipsis - e..ellipsis).map(Label::Ellipsis);
                labels.splice(at..at, block);
            }
            labels
        })
        .collect();
    let output = match rhs {
        Some(r) => {
            let (letters, dots) = term(r)?;
            for (i, c) in letters.iter().enumerate() {
                if letters[..i].contains(c) {
                    return Err(format!(
                        "einsum: `{}` appears twice in the output of `{equation}`",
                        *c as char
                    ));
                }
                if !parsed.iter().any(|(l, _)| l.contains(c)) {
                    return Err(format!(
                        "einsum: the output's `{}` is no operand's axis in `{equation}`",
                        *c as char
                    ));
                }
            }
            let mut labels: Vec<Label> = letters.iter().map(|&c| Label::Letter(c)).collect();
            if let Some(at) = dots {
                labels.splice(at..at, (0..ellipsis).map(Label::Ellipsis));
            }
            labels
        }
        None => {
            let mut once: Vec<u8> = Vec::new();
            for c in b'A'..=b'z' {
                let n: usize = parsed
                    .iter()
                    .map(|(l, _)| l.iter().filter(|&&x| x == c).count())
                    .sum();
                if n == 1 {
                    once.push(c);
                }
            }
            (0..ellipsis)
                .map(Label::Ellipsis)
                .chain(once.into_iter().map(Label::Letter))
                .collect()
        }
    };
    Ok(Spec { inputs, output })
}

impl Spec {
    /// Every label in order of first appearance: the output's, then the summed ones.
    fn all_labels(&self) -> Vec<Label> {
        let mut all = self.output.clone();
        for l in self.inputs.iter().flatten() {
            if !all.contains(l) {
                all.push(*l);
            }
        }
        all
    }

    /// The extent of each of `labels` from the inputs' shapes: a letter must have one extent
    /// wherever it appears; an axis of `...` broadcasts (1 against any extent).
    pub(crate) fn extents<D: Clone>(
        &self,
        labels: &[Label],
        shapes: &[&[D]],
        one: impl Fn(&D) -> bool,
        same: impl Fn(&D, &D) -> bool,
    ) -> Result<Vec<Option<D>>, String> {
        let mut out: Vec<Option<D>> = vec![None; labels.len()];
        for (input, shape) in self.inputs.iter().zip(shapes) {
            for (l, d) in input.iter().zip(shape.iter()) {
                let Some(k) = labels.iter().position(|x| x == l) else {
                    continue;
                };
                out[k] = match (&out[k], l) {
                    (None, _) => Some(d.clone()),
                    (Some(e), _) if same(e, d) => Some(e.clone()),
                    (Some(e), Label::Ellipsis(_)) if one(e) => Some(d.clone()),
                    (Some(e), Label::Ellipsis(_)) if one(d) => Some(e.clone()),
                    (Some(_), Label::Letter(c)) => {
                        return Err(format!(
                            "einsum: the axes labelled `{}` differ in extent",
                            *c as char
                        ))
                    }
                    (Some(_), Label::Ellipsis(_)) => {
                        return Err("einsum: the `...` axes do not broadcast".into())
                    }
                };
            }
        }
        Ok(out)
    }

    /// The output's dimensions from the inputs' shapes.
    pub(crate) fn output_dims<D: Clone>(
        &self,
        shapes: &[&[D]],
        one: impl Fn(&D) -> bool,
        same: impl Fn(&D, &D) -> bool,
        unit: D,
    ) -> Result<Vec<D>, String> {
        let ext = self.extents(&self.output, shapes, one, same)?;
        Ok(ext.into_iter().map(|d| d.unwrap_or(unit.clone())).collect())
    }
}

/// Evaluates `einsum(xs, equation)`; `None` for a bad equation, mixed dtypes or more than
/// [`super::shape_ops::MAX_ELEMENTS`] products to sum.
pub(crate) fn einsum(equation: &str, xs: &[&Value]) -> Option<Value> {
    let first = xs.first()?;
    if xs.iter().any(|x| x.dtype != first.dtype) {
        return None;
    }
    let ranks: Vec<usize> = xs.iter().map(|x| x.ndim()).collect();
    let spec = parse(equation, &ranks).ok()?;
    let labels = spec.all_labels();
    let shapes: Vec<&[usize]> = xs.iter().map(|x| x.shape()).collect();
    let ext: Vec<usize> = spec
        .extents(&labels, &shapes, |d| *d == 1, |a, b| a == b)
        .ok()?
        .into_iter()
        .map(|d| d.unwrap_or(1))
        .collect();
    bounded(&ext)?;
    let out_shape = ext[..spec.output.len()].to_vec();
    // Per input, the step each label's index moves its flat offset by (0 on a broadcast axis;
    // summed over a letter repeated within the input, which walks its diagonal).
    let steps: Vec<Vec<usize>> = spec
        .inputs
        .iter()
        .zip(&shapes)
        .map(|(input, shape)| {
            let mut step = vec![0usize; labels.len()];
            let mut stride = 1usize;
            for (l, &d) in input.iter().zip(shape.iter()).rev() {
                let k = labels.iter().position(|x| x == l).unwrap_or(0);
                if d != 1 || ext[k] == 1 {
                    step[k] += stride;
                }
                stride *= d;
            }
            step
        })
        .collect();
    /// The sums of products, `add` and `mul` the dtype's arithmetic.
    fn run<T: Copy>(
        data: &[&[T]],
        steps: &[Vec<usize>],
        ext: &[usize],
        n_out: usize,
        zero: T,
        (add, mul): (impl Fn(T, T) -> T, impl Fn(T, T) -> T),
    ) -> Vec<T> {
        let total_out: usize = ext[..n_out].iter().product();
        let mut out = Vec::with_capacity(total_out);
        let mut idx = vec![0usize; ext.len()];
        if ext.contains(&0) {
            return vec![zero; total_out];
        }
        let total_in: usize = ext[n_out..].iter().product();
        // The odometer over `idx[lo..]`, the last axis fastest.
        let advance = |idx: &mut [usize], lo: usize, hi: usize| {
            for k in (lo..hi).rev() {
                idx[k] += 1;
                if idx[k] < ext[k] {
                    return;
                }
                idx[k] = 0;
            }
        };
        for _ in 0..total_out {
            let mut acc = zero;
            for _ in 0..total_in {
                let mut p: Option<T> = None;
                for (d, s) in data.iter().zip(steps) {
                    let off: usize = idx.iter().zip(s).map(|(i, s)| i * s).sum();
                    let v = d[off];
                    p = Some(match p {
                        None => v,
                        Some(q) => mul(q, v),
                    });
                }
                acc = add(acc, p.unwrap_or(zero));
                advance(&mut idx, n_out, ext.len());
            }
            out.push(acc);
            // The summed indices are back at 0; next output index.
            advance(&mut idx, 0, n_out);
        }
        out
    }
    let n_out = spec.output.len();
    // One arm per storage type: every operand's array in standard layout, then the sums of
    // products with that type's zero, addition and multiplication.
    macro_rules! sum_of_products {
        ($variant:ident, $t:ty, $zero:expr, $add:expr, $mul:expr) => {{
            let owned: Vec<ArrayD<$t>> = xs
                .iter()
                .map(|x| match &x.arr {
                    Arr::$variant(a) => Some(a.as_standard_layout().into_owned()),
                    _ => None,
                })
                .collect::<Option<_>>()?;
            let data: Vec<&[$t]> = owned.iter().map(|a| a.as_slice()).collect::<Option<_>>()?;
            let values = run(&data, &steps, &ext, n_out, $zero, ($add, $mul));
            Arr::$variant(ArrayD::from_shape_vec(IxDyn(&out_shape), values).ok()?)
        }};
    }
    let arr = match &first.arr {
        Arr::F32(_) => sum_of_products!(F32, f32, 0.0, |a, b| a + b, |a, b| a * b),
        Arr::F64(_) => sum_of_products!(F64, f64, 0.0, |a, b| a + b, |a, b| a * b),
        Arr::Int(_) => {
            if first.dtype.is_bool() {
                return None;
            }
            sum_of_products!(Int, i64, 0, i64::wrapping_add, i64::wrapping_mul)
        }
    };
    Value::new(first.dtype, arr)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f32s(shape: &[usize], v: &[f32]) -> Value {
        Value {
            dtype: crate::ir::DType::FLOAT32,
            arr: Arr::F32(ArrayD::from_shape_vec(IxDyn(shape), v.to_vec()).unwrap()),
        }
    }

    fn out(v: Value) -> (Vec<usize>, Vec<f32>) {
        let Arr::F32(a) = v.arr else { panic!() };
        (a.shape().to_vec(), a.iter().copied().collect())
    }

    #[test]
    fn products_traces_transposes_and_broadcasts() {
        let a = f32s(&[2, 3], &[1., 2., 3., 4., 5., 6.]);
        let b = f32s(&[3, 2], &[1., 0., 0., 1., 1., 1.]);
        let m = |eq: &str, xs: &[&Value]| out(einsum(eq, xs).unwrap());
        assert_eq!(
            m("ij,jk->ik", &[&a, &b]),
            (vec![2, 2], vec![4., 5., 10., 11.])
        );
        assert_eq!(m("ij,jk", &[&a, &b]), (vec![2, 2], vec![4., 5., 10., 11.]));
        assert_eq!(m("ij->ji", &[&a]).1, vec![1., 4., 2., 5., 3., 6.]);
        assert_eq!(m("ij->", &[&a]), (vec![], vec![21.]));
        assert_eq!(m("ba", &[&a]).1, vec![1., 4., 2., 5., 3., 6.]);
        let sq = f32s(&[2, 2], &[1., 2., 3., 4.]);
        assert_eq!(m("ii", &[&sq]), (vec![], vec![5.]));
        assert_eq!(m("ii->i", &[&sq]).1, vec![1., 4.]);
        // `...` broadcasts: (2, 1, 2) against (3, 2) batches of vectors.
        let x = f32s(&[2, 1, 2], &[1., 2., 3., 4.]);
        let y = f32s(&[3, 2], &[1., 1., 1., 0., 0., 1.]);
        assert_eq!(
            m("...i,...i->...", &[&x, &y]),
            (vec![2, 3], vec![3., 1., 2., 7., 3., 4.])
        );
        assert!(einsum("ij,jk->ik", &[&a, &a]).is_none());
        assert!(einsum("ij->iz", &[&a]).is_none());
        assert!(einsum("i->i", &[&a]).is_none());
    }
}
