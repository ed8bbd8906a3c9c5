//! How a tensor looks: a header with dtype and shape, then the values as NumPy prints them
//! (nested brackets, one row per line, right-aligned), elided in the middle of every long
//! axis once the tensor has more than [`THRESHOLD`] elements (the first and last
//! [`EDGE`] of each), with the range and mean of a large float tensor.

use crate::ir::TensorData;

/// Tensors with more elements than this are summarized (NumPy's `threshold`).
pub const THRESHOLD: usize = 1000;
/// Elements shown at each end of a summarized axis (NumPy's `edgeitems`).
pub const EDGE: usize = 3;

fn element(t: &TensorData, i: usize) -> String {
    if t.dtype.is_bool() {
        return if t.get_i64(i) != 0 { "True" } else { "False" }.into();
    }
    if !t.dtype.is_float() {
        return t.get_i64(i).to_string();
    }
    let v = t.get_f64(i);
    // Very large and very small magnitudes in scientific notation, as NumPy prints them.
    if v.is_finite() && v != 0.0 && !(1e-4..1e16).contains(&v.abs()) {
        return if t.dtype.bits == 32 {
            format!("{:e}", v as f32)
        } else {
            format!("{v:e}")
        };
    }
    let s = if t.dtype.bits == 32 {
        format!("{}", v as f32)
    } else {
        format!("{v}")
    };
    if v.is_finite() && !s.contains(['.', 'e']) {
        format!("{s}.")
    } else {
        s
    }
}

/// The indices shown along an axis of `len` (`None`: the `...` mark).
fn shown(len: usize, summarize: bool) -> Vec<Option<usize>> {
    if summarize && len > 2 * EDGE {
        (0..EDGE)
            .map(Some)
            .chain([None])
            .chain((len - EDGE..len).map(Some))
            .collect()
    } else {
        (0..len).map(Some).collect()
    }
}

/// The header line: `tensor float32 [2, 3]`.
pub fn header(t: &TensorData) -> String {
    format!("tensor {} {:?}", t.dtype, t.shape)
}

/// The full display: the header, then the values.
pub fn render(t: &TensorData) -> String {
    let n = t.num_elements();
    let summarize = n > THRESHOLD;
    let shape: Vec<usize> = t.shape.iter().map(|&d| d.max(0) as usize).collect();
    let mut strides = vec![1usize; shape.len()];
    for k in (0..shape.len().saturating_sub(1)).rev() {
        strides[k] = strides[k + 1] * shape[k + 1];
    }
    // The elements shown, formatted once to find the width.
    let mut cells: Vec<(Vec<Option<usize>>, String)> = Vec::new();
    collect(
        &shape,
        &strides,
        summarize,
        0,
        0,
        &mut Vec::new(),
        t,
        &mut cells,
    );
    let width = cells.iter().map(|(_, s)| s.len()).max().unwrap_or(0);
    let mut out = header(t);
    out.push('\n');
    if shape.is_empty() {
        out.push_str(&element(t, 0));
    } else if n == 0 {
        out.push_str(&"[".repeat(shape.len()));
        out.push_str(&"]".repeat(shape.len()));
    } else {
        write_nested(&shape, summarize, width, &cells, &mut out);
    }
    if summarize && t.dtype.is_float() {
        let v = t.to_f64_vec();
        let (lo, hi) = v
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), &x| {
                (l.min(x), h.max(x))
            });
        let mean = v.iter().sum::<f64>() / v.len() as f64;
        out.push_str(&format!("\nmin {lo:.6}, max {hi:.6}, mean {mean:.6}"));
    }
    out
}

#[allow(clippy::too_many_arguments)]
fn collect(
    shape: &[usize],
    strides: &[usize],
    summarize: bool,
    axis: usize,
    base: usize,
    path: &mut Vec<Option<usize>>,
    t: &TensorData,
    cells: &mut Vec<(Vec<Option<usize>>, String)>,
) {
    if axis == shape.len() {
        if !shape.is_empty() {
            cells.push((path.clone(), element(t, base)));
        }
        return;
    }
    for i in shown(shape[axis], summarize).into_iter().flatten() {
        path.push(Some(i));
        collect(
            shape,
            strides,
            summarize,
            axis + 1,
            base + i * strides[axis],
            path,
            t,
            cells,
        );
        path.pop();
    }
}

/// Writes the cells (in row-major order of the shown indices) with brackets and elisions.
fn write_nested(
    shape: &[usize],
    summarize: bool,
    width: usize,
    cells: &[(Vec<Option<usize>>, String)],
    out: &mut String,
) {
    let nd = shape.len();
    let mut next = 0usize;
    write_axis(shape, summarize, width, cells, &mut next, 0, nd, out);
}

#[allow(clippy::too_many_arguments)]
fn write_axis(
    shape: &[usize],
    summarize: bool,
    width: usize,
    cells: &[(Vec<Option<usize>>, String)],
    next: &mut usize,
    axis: usize,
    nd: usize,
    out: &mut String,
) {
    out.push('[');
    let items = shown(shape[axis], summarize);
    for (k, item) in items.iter().enumerate() {
        if k > 0 {
            if axis + 1 == nd {
                out.push_str(", ");
            } else {
                out.push(',');
                out.push_str(&"\n".repeat(nd - axis - 1));
                out.push_str(&" ".repeat(axis + 1));
            }
        }
        match item {
            None => out.push_str("..."),
            Some(_) if axis + 1 == nd => {
                let s = &cells[*next].1;
                *next += 1;
                out.push_str(&" ".repeat(width - s.len()));
                out.push_str(s);
            }
            Some(_) => write_axis(shape, summarize, width, cells, next, axis + 1, nd, out),
        }
    }
    out.push(']');
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::DType;

    #[test]
    fn small_tensors_print_whole_and_large_ones_elided() {
        let t = TensorData::from_f64(DType::FLOAT32, vec![2, 3], &[1.0, 2.5, -3.0, 4.0, 5.0, 6.0]);
        assert_eq!(
            render(&t),
            "tensor float32 [2, 3]\n[[ 1., 2.5, -3.],\n [ 4.,  5.,  6.]]"
        );
        let s = TensorData::from_i64(DType::INT64, vec![], &[7]);
        assert_eq!(render(&s), "tensor int64 []\n7");
        let big: Vec<f64> = (0..2000).map(f64::from).collect();
        let b = TensorData::from_f64(DType::FLOAT32, vec![2, 1000], &big);
        let r = render(&b);
        assert!(
            r.contains("[[   0.,    1.,    2., ...,  997.,  998.,  999.],"),
            "{r}"
        );
        assert!(
            r.ends_with("min 0.000000, max 1999.000000, mean 999.500000"),
            "{r}"
        );
    }
}
