//! `allclose`: whether two results agree elementwise within `atol + rtol * |b|` (NumPy's
//! rule, `b` the reference; NaN equals nothing unless `equal_nan`, as in NumPy), and when
//! they do not, by how much: how many elements differ, the largest absolute and relative
//! errors and where they are.

use super::Output;
use crate::ir::TensorData;

/// How two results differ.
#[derive(Clone, Debug, PartialEq)]
pub struct Difference {
    /// Which tensor of a tuple (`[1][0]`), empty for a single tensor.
    pub path: String,
    pub kind: DiffKind,
}

#[derive(Clone, Debug, PartialEq)]
pub enum DiffKind {
    /// Not comparable: a tensor against a tuple, tuples of different lengths, other shapes.
    Structure(String),
    Values {
        differing: usize,
        total: usize,
        max_abs: f64,
        max_abs_at: Vec<usize>,
        /// The two values at `max_abs_at`.
        pair: (f64, f64),
        max_rel: f64,
        max_rel_at: Vec<usize>,
        rtol: f64,
        atol: f64,
    },
}

fn index_of(mut flat: usize, shape: &[i64]) -> Vec<usize> {
    let mut out = vec![0; shape.len()];
    for k in (0..shape.len()).rev() {
        let d = shape[k].max(1) as usize;
        out[k] = flat % d;
        flat /= d;
    }
    out
}

fn fmt_index(ix: &[usize]) -> String {
    format!(
        "[{}]",
        ix.iter()
            .map(usize::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    )
}

/// A tolerance as written: `1e-5`, `0.001`, `0`.
fn tol(x: f64) -> String {
    if x != 0.0 && x.abs() < 1e-3 {
        format!("{x:e}")
    } else {
        format!("{x}")
    }
}

fn num(x: f64) -> String {
    if x.is_finite() && x != 0.0 && !(1e-4..1e6).contains(&x.abs()) {
        format!("{x:.4e}")
    } else if x.fract() == 0.0 || !x.is_finite() {
        format!("{x}")
    } else {
        format!("{x:.6}").trim_end_matches('0').to_string()
    }
}

impl std::fmt::Display for Difference {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let at = if self.path.is_empty() {
            String::new()
        } else {
            format!("{}: ", self.path)
        };
        match &self.kind {
            DiffKind::Structure(s) => write!(f, "{at}{s}"),
            DiffKind::Values {
                differing,
                total,
                max_abs,
                max_abs_at,
                pair,
                max_rel,
                max_rel_at,
                rtol,
                atol,
            } => write!(
                f,
                "{at}{differing} of {total} elements differ (rtol={}, atol={}); max abs error {} at {} ({} vs {}), max rel error {} at {}",
                tol(*rtol),
                tol(*atol),
                num(*max_abs),
                fmt_index(max_abs_at),
                num(pair.0),
                num(pair.1),
                num(*max_rel),
                fmt_index(max_rel_at)
            ),
        }
    }
}

/// Compares two tensors; `None` when every element is close.
pub fn tensors(
    a: &TensorData,
    b: &TensorData,
    rtol: f64,
    atol: f64,
    equal_nan: bool,
) -> Option<Difference> {
    let structure = |s: String| {
        Some(Difference {
            path: String::new(),
            kind: DiffKind::Structure(s),
        })
    };
    if a.shape != b.shape {
        return structure(format!("shapes differ: {:?} vs {:?}", a.shape, b.shape));
    }
    let n = a.num_elements();
    let (x, y) = (a.to_f64_vec(), b.to_f64_vec());
    let mut differing = 0;
    let (mut max_abs, mut abs_at, mut max_rel, mut rel_at) = (0f64, 0usize, 0f64, 0usize);
    let mut first_bad = None;
    for i in 0..n {
        let (p, q) = (x[i], y[i]);
        let err = (p - q).abs();
        let close =
            err <= atol + rtol * q.abs() || p == q || (equal_nan && p.is_nan() && q.is_nan());
        if !close {
            differing += 1;
            first_bad.get_or_insert(i);
        }
        let err = match (close, err.is_nan()) {
            (true, _) => 0.0,
            (false, true) => f64::INFINITY,
            (false, false) => err,
        };
        if err > max_abs {
            (max_abs, abs_at) = (err, i);
        }
        let rel = if q == 0.0 {
            if err == 0.0 {
                0.0
            } else {
                f64::INFINITY
            }
        } else {
            err / q.abs()
        };
        if rel > max_rel {
            (max_rel, rel_at) = (rel, i);
        }
    }
    if differing == 0 {
        return None;
    }
    if max_abs == 0.0 {
        abs_at = first_bad.unwrap_or(0);
    }
    Some(Difference {
        path: String::new(),
        kind: DiffKind::Values {
            differing,
            total: n,
            max_abs,
            max_abs_at: index_of(abs_at, &a.shape),
            pair: (x[abs_at], y[abs_at]),
            max_rel,
            max_rel_at: index_of(rel_at, &a.shape),
            rtol,
            atol,
        },
    })
}

/// At most 200 characters of a data value's text.
fn cut(text: &str) -> String {
    match text.char_indices().nth(200) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}

fn kind(o: &Output) -> &'static str {
    match o {
        Output::Tensor(_) => "a tensor",
        Output::Tuple(_) => "a tuple",
        Output::Adt(_) => "a data value",
    }
}

/// Compares two results (tensors or tuples, field by field); the first difference found.
pub fn outputs(
    a: &Output,
    b: &Output,
    rtol: f64,
    atol: f64,
    equal_nan: bool,
) -> Option<Difference> {
    let mut stack: Vec<(&Output, &Output, String)> = vec![(a, b, String::new())];
    while let Some((a, b, path)) = stack.pop() {
        let found = match (a, b) {
            (Output::Tensor(x), Output::Tensor(y)) => tensors(x, y, rtol, atol, equal_nan),
            (Output::Tuple(xs), Output::Tuple(ys)) if xs.len() == ys.len() => {
                for (i, (x, y)) in xs.iter().zip(ys).enumerate().rev() {
                    stack.push((x, y, format!("{path}[{i}]")));
                }
                None
            }
            (Output::Tuple(xs), Output::Tuple(ys)) => Some(Difference {
                path: String::new(),
                kind: DiffKind::Structure(format!(
                    "tuples of {} and {} fields",
                    xs.len(),
                    ys.len()
                )),
            }),
            (Output::Adt(x), Output::Adt(y)) if x.pieces == y.pieces => {
                for (i, (x, y)) in x.tensors.iter().zip(&y.tensors).enumerate().rev() {
                    if let Some(mut d) = tensors(x, y, rtol, atol, equal_nan) {
                        d.path = format!("{path} (tensor {i} of the data value)");
                        return Some(d);
                    }
                }
                None
            }
            (Output::Adt(x), Output::Adt(y)) => Some(Difference {
                path: String::new(),
                kind: DiffKind::Structure(format!(
                    "data values {} and {}",
                    cut(&x.text()),
                    cut(&y.text())
                )),
            }),
            (x, y) => Some(Difference {
                path: String::new(),
                kind: DiffKind::Structure(format!("{} against {}", kind(x), kind(y))),
            }),
        };
        if let Some(mut d) = found {
            d.path = path;
            return Some(d);
        }
    }
    None
}
