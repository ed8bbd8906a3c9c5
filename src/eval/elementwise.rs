//! Elementwise evaluation: numpy-broadcast binary ops, comparisons, logical and bitwise ops,
//! unary math, `cast`, `clip`, `where`, `zeros_like`/`ones_like`.
//!
//! Semantics follow TVM's generated code: arithmetic happens in the dtype (float32 in `f32`,
//! integers wrapped), integer `divide`/`mod` truncate, `floor_divide`/`floor_mod` floor,
//! `round` rounds half to even (LLVM `nearbyint`). Integer division by zero, shifts out of
//! range, float-to-int casts out of range, integer `power` and arithmetic on `bool` are not
//! evaluated (TVM's result there is undefined or not worth imitating).

use super::value::{attr_dtype, storage, Arr, Storage, Value};
use crate::ir::dtype::DTypeCode;
use crate::ir::{Attrs, DType};
use ndarray::{ArrayD, IxDyn, Zip};
use num_traits::Float;

const BINARY: &[&str] = &[
    "add",
    "subtract",
    "multiply",
    "divide",
    "power",
    "maximum",
    "minimum",
    "mod",
    "floor_mod",
    "floor_divide",
    "trunc_divide",
    "trunc_mod",
    "equal",
    "not_equal",
    "less",
    "less_equal",
    "greater",
    "greater_equal",
    "logical_and",
    "logical_or",
    "logical_xor",
    "bitwise_and",
    "bitwise_or",
    "bitwise_xor",
    "left_shift",
    "right_shift",
];

const UNARY: &[&str] = &[
    "negative",
    "abs",
    "exp",
    "log",
    "log2",
    "log10",
    "sqrt",
    "rsqrt",
    "sigmoid",
    "tanh",
    "erf",
    "floor",
    "ceil",
    "round",
    "trunc",
    "sign",
    "sin",
    "cos",
    "tan",
    "sinh",
    "cosh",
    "asin",
    "acos",
    "atan",
    "asinh",
    "acosh",
    "atanh",
    "nn.relu",
    "nn.leaky_relu",
    "copy",
    "clip",
    "cast",
    "logical_not",
    "bitwise_not",
    "isnan",
    "isinf",
    "isfinite",
    "zeros_like",
    "ones_like",
    "fast_exp",
    "fast_tanh",
    "fast_erf",
];

/// The canonical name if `op` is a broadcast binary op this module evaluates.
pub(crate) fn binary_name(op: &str) -> Option<&'static str> {
    BINARY.iter().find(|n| **n == op).copied()
}

pub(crate) fn is_unary(op: &str) -> bool {
    UNARY.contains(&op)
}

/// Every elementwise op with a kernel.
pub(crate) fn names() -> impl Iterator<Item = &'static str> {
    BINARY.iter().chain(UNARY).copied()
}

/// The numpy broadcast of two shapes.
pub(crate) fn broadcast_shape(a: &[usize], b: &[usize]) -> Option<Vec<usize>> {
    let n = a.len().max(b.len());
    let mut out = vec![0; n];
    for i in 0..n {
        let da = if i + a.len() >= n {
            a[i + a.len() - n]
        } else {
            1
        };
        let db = if i + b.len() >= n {
            b[i + b.len() - n]
        } else {
            1
        };
        out[i] = match (da, db) {
            (x, y) if x == y => x,
            (1, y) => y,
            (x, 1) => x,
            _ => return None,
        };
    }
    Some(out)
}

/// Calls `run(a_at, b_at, len, a_step, b_step)` for every run of the innermost axis of the
/// broadcast of shapes `ash` and `bsh` to `out`, in row-major order of the output: each
/// operand's elements of the run start at its offset and advance by its step (1, or 0 where
/// it is broadcast). See [`Runs`](super::broadcast::Runs).
pub(crate) fn broadcast_runs(
    ash: &[usize],
    bsh: &[usize],
    out: &[usize],
    mut run: impl FnMut(usize, usize, usize, usize, usize),
) {
    let runs = super::broadcast::Runs::new(ash, bsh, out);
    let (len, ia, ib) = (runs.len, runs.inner_a, runs.inner_b);
    runs.each(0, runs.count, |i, j| run(i, j, len, ia, ib));
}

/// Broadcasts `a` and `b` and applies `f` pairwise, a run of the innermost axis at a time
/// (each run a loop over slices the compiler vectorises; a large output split across threads,
/// see [`super::broadcast`]).
pub(crate) fn zip_with<T: Copy + Sync, U: Send>(
    a: &ArrayD<T>,
    b: &ArrayD<T>,
    f: impl Fn(T, T) -> U + Sync,
) -> Option<ArrayD<U>> {
    let shape = broadcast_shape(a.shape(), b.shape())?;
    super::shape_ops::bounded(&shape)?;
    let (sa, sb) = (a.as_standard_layout(), b.as_standard_layout());
    let (x, y) = (sa.as_slice()?, sb.as_slice()?);
    let out = super::broadcast::zip(x, a.shape(), y, b.shape(), &shape, f)?;
    ArrayD::from_shape_vec(IxDyn(&shape), out).ok()
}

/// [`zip_with`] for an `f` that may refuse a pair (`None` aborts).
pub(crate) fn try_zip_with<T: Copy, U>(
    a: &ArrayD<T>,
    b: &ArrayD<T>,
    f: impl Fn(T, T) -> Option<U>,
) -> Option<ArrayD<U>> {
    let shape = broadcast_shape(a.shape(), b.shape())?;
    let total = super::shape_ops::bounded(&shape)?;
    let (sa, sb) = (a.as_standard_layout(), b.as_standard_layout());
    let (x, y) = (sa.as_slice()?, sb.as_slice()?);
    let mut out: Vec<U> = Vec::with_capacity(total);
    let mut ok = true;
    broadcast_runs(a.shape(), b.shape(), &shape, |i, j, len, si, sj| {
        for t in 0..len {
            if !ok {
                return;
            }
            match f(x[i + t * si], y[j + t * sj]) {
                Some(v) => out.push(v),
                None => ok = false,
            }
        }
    });
    ok.then(|| ArrayD::from_shape_vec(IxDyn(&shape), out).ok())
        .flatten()
}

/// Binds `$f` to the float arithmetic of `$op` on `$F` and evaluates `$body` with it (each
/// op its own monomorphic loop), or evaluates `$none` for an op that is not float arithmetic:
/// the one list of the float binary ops, for every kernel that computes them.
macro_rules! float_arith {
    ($op:expr, $F:ty, $f:ident => $body:expr, $none:expr) => {
        match $op {
            "add" => {
                let $f = |a: $F, b: $F| a + b;
                $body
            }
            "subtract" => {
                let $f = |a: $F, b: $F| a - b;
                $body
            }
            "multiply" => {
                let $f = |a: $F, b: $F| a * b;
                $body
            }
            "divide" => {
                let $f = |a: $F, b: $F| a / b;
                $body
            }
            "power" => {
                let $f = |a: $F, b: $F| a.powf(b);
                $body
            }
            "maximum" => {
                let $f = |a: $F, b: $F| a.max(b);
                $body
            }
            "minimum" => {
                let $f = |a: $F, b: $F| a.min(b);
                $body
            }
            "mod" | "trunc_mod" => {
                let $f = |a: $F, b: $F| a % b;
                $body
            }
            "floor_mod" => {
                let $f = |a: $F, b: $F| a - (a / b).floor() * b;
                $body
            }
            "floor_divide" => {
                let $f = |a: $F, b: $F| (a / b).floor();
                $body
            }
            "trunc_divide" => {
                let $f = |a: $F, b: $F| (a / b).trunc();
                $body
            }
            _ => $none,
        }
    };
}

/// The float arithmetic of `op` over two broadcast arrays, each op its own loop.
fn float_zip<F: Float + Send + Sync>(op: &str, a: &ArrayD<F>, b: &ArrayD<F>) -> Option<ArrayD<F>> {
    float_arith!(op, F, f => zip_with(a, b, f), None)
}

/// `x op= y` over `x`'s own elements, when `y` broadcasts to `x`'s shape and `x` is in
/// standard layout; `false` (nothing written) otherwise.
fn zip_into<T: Copy + Send + Sync>(
    x: &mut ArrayD<T>,
    y: &ArrayD<T>,
    f: impl Fn(T, T) -> T + Sync,
) -> bool {
    let xsh = x.shape().to_vec();
    let sy = y.as_standard_layout();
    let (Some(a), Some(b)) = (x.as_slice_mut(), sy.as_slice()) else {
        return false;
    };
    super::broadcast::zip_into(a, &xsh, b, y.shape(), f)
}

/// [`float_zip`] into `a`'s own storage (see [`zip_into`]); `false` when it does not apply.
fn float_zip_into<F: Float + Send + Sync>(op: &str, a: &mut ArrayD<F>, b: &ArrayD<F>) -> bool {
    float_arith!(op, F, f => zip_into(a, b, f), false)
}

/// float32 arithmetic of `op` straight from two constants' `f32` elements (shapes `xs`, `ys`)
/// into a new vector of the broadcast shape `out`: FoldConstant's path for a binary op on
/// float32 weights, with no copy of either operand. The same function per element as
/// [`binary`] on the values read from the same data. `None` when `op` is not float
/// arithmetic or the operands do not broadcast.
pub(crate) fn binary_f32(
    op: &str,
    x: &[f32],
    xs: &[usize],
    y: &[f32],
    ys: &[usize],
    out: &[usize],
) -> Option<Vec<f32>> {
    float_arith!(op, f32, f => super::broadcast::zip(x, xs, y, ys, out, f), None)
}

/// [`binary`] computed in `x`'s storage when the result has `x`'s shape and dtype: float32
/// or float64 arithmetic whose other operand broadcasts to `x` (a folded model's weights times
/// their scale). The same numbers as [`binary`], without a new array. Answers `false`, with
/// `x` untouched, when that does not apply.
pub(crate) fn binary_into(op: &str, x: &mut Value, y: &Value) -> bool {
    let exact = |dt: DType| matches!((dt.code, dt.bits), (DTypeCode::Float, 32 | 64));
    if x.dtype != y.dtype || !exact(x.dtype) {
        return false;
    }
    match (&mut x.arr, &y.arr) {
        (Arr::F32(a), Arr::F32(b)) => float_zip_into(op, a, b),
        (Arr::F64(a), Arr::F64(b)) => float_zip_into(op, a, b),
        _ => false,
    }
}

/// Binary ops whose operands may swap (exactly, in IEEE arithmetic).
pub(crate) fn is_commutative(op: &str) -> bool {
    matches!(op, "add" | "multiply" | "maximum" | "minimum")
}

fn floor_div(a: i64, b: i64) -> Option<i64> {
    let q = a.checked_div(b)?;
    Some(if a % b != 0 && ((a < 0) != (b < 0)) {
        q - 1
    } else {
        q
    })
}

fn int_binary(op: &str, dt: DType, a: i64, b: i64) -> Option<i64> {
    let bits = dt.bits as i64;
    let arith = !dt.is_bool();
    Some(match op {
        "add" if arith => a.wrapping_add(b),
        "subtract" if arith => a.wrapping_sub(b),
        "multiply" if arith => a.wrapping_mul(b),
        // A product of booleans is their conjunction (a one-bit multiply).
        "multiply" => a & b,
        "divide" | "trunc_divide" if arith => a
            .checked_div(b)
            .or_else(|| (b == -1).then(|| a.wrapping_neg()))?,
        "mod" | "trunc_mod" if arith => a.checked_rem(b).or_else(|| (b == -1).then_some(0))?,
        "floor_divide" if arith => floor_div(a, b)?,
        "floor_mod" if arith => a - floor_div(a, b)?.wrapping_mul(b),
        "maximum" => a.max(b),
        "minimum" => a.min(b),
        "bitwise_and" => a & b,
        "bitwise_or" => a | b,
        "bitwise_xor" => a ^ b,
        "left_shift" if arith && (0..bits).contains(&b) => a.wrapping_shl(b as u32),
        "right_shift" if arith && (0..bits).contains(&b) => a >> b,
        "logical_and" => ((a != 0) && (b != 0)) as i64,
        "logical_or" => ((a != 0) || (b != 0)) as i64,
        "logical_xor" => ((a != 0) != (b != 0)) as i64,
        _ => return None,
    })
}

fn compare<T: PartialOrd>(op: &str, a: T, b: T) -> i64 {
    (match op {
        "equal" => a == b,
        "not_equal" => a != b,
        "less" => a < b,
        "less_equal" => a <= b,
        "greater" => a > b,
        _ => a >= b,
    }) as i64
}

/// Evaluates a broadcast binary op; the operands must have the same dtype.
pub(crate) fn binary(op: &str, x: &Value, y: &Value) -> Option<Value> {
    if x.dtype != y.dtype {
        return None;
    }
    let dt = x.dtype;
    if matches!(
        op,
        "equal" | "not_equal" | "less" | "less_equal" | "greater" | "greater_equal"
    ) {
        let out = match (&x.arr, &y.arr) {
            (Arr::F32(a), Arr::F32(b)) => zip_with(a, b, |p, q| compare(op, p, q))?,
            (Arr::F64(a), Arr::F64(b)) => zip_with(a, b, |p, q| compare(op, p, q))?,
            (Arr::Int(a), Arr::Int(b)) => zip_with(a, b, |p, q| compare(op, p, q))?,
            _ => return None,
        };
        return Value::new(DType::BOOL, Arr::Int(out));
    }
    let arr = match (&x.arr, &y.arr) {
        (Arr::F32(a), Arr::F32(b)) => Arr::F32(float_zip(op, a, b)?),
        (Arr::F64(a), Arr::F64(b)) => Arr::F64(float_zip(op, a, b)?),
        (Arr::Int(a), Arr::Int(b)) => {
            Arr::Int(try_zip_with(a, b, |p, q| int_binary(op, dt, p, q))?)
        }
        _ => return None,
    };
    Value::new(dt, arr)
}

fn erf<F: Float>(x: F) -> F {
    F::from(libm::erf(x.to_f64().unwrap_or(f64::NAN))).unwrap_or_else(F::nan)
}

/// The float math of a unary op over a whole array: the op is matched once, each arm a loop
/// of its own (attributes read once too).
fn float_map<F: Float>(op: &str, a: &ArrayD<F>, attrs: &Attrs) -> Option<ArrayD<F>> {
    let (zero, one) = (F::zero(), F::one());
    let attr = |name: &str| attrs.get_float(name).and_then(F::from);
    Some(match op {
        "negative" => a.mapv(|x| -x),
        "abs" => a.mapv(|x| x.abs()),
        "exp" | "fast_exp" => a.mapv(|x| x.exp()),
        "log" => a.mapv(|x| x.ln()),
        "log2" => a.mapv(|x| x.log2()),
        "log10" => a.mapv(|x| x.log10()),
        "sqrt" => a.mapv(|x| x.sqrt()),
        "rsqrt" => a.mapv(|x| one / x.sqrt()),
        "sigmoid" => a.mapv(|x| one / (one + (-x).exp())),
        "tanh" | "fast_tanh" => a.mapv(|x| x.tanh()),
        "erf" | "fast_erf" => a.mapv(erf),
        "floor" => a.mapv(|x| x.floor()),
        "ceil" => a.mapv(|x| x.ceil()),
        "round" => a.mapv(|x| {
            x.to_f64()
                .and_then(|v| F::from(v.round_ties_even()))
                .unwrap_or(x)
        }),
        "trunc" => a.mapv(|x| x.trunc()),
        "sign" => a.mapv(|x| {
            if x > zero {
                one
            } else if x < zero {
                -one
            } else {
                zero
            }
        }),
        "sin" => a.mapv(|x| x.sin()),
        "cos" => a.mapv(|x| x.cos()),
        "tan" => a.mapv(|x| x.tan()),
        "sinh" => a.mapv(|x| x.sinh()),
        "cosh" => a.mapv(|x| x.cosh()),
        "asin" => a.mapv(|x| x.asin()),
        "acos" => a.mapv(|x| x.acos()),
        "atan" => a.mapv(|x| x.atan()),
        "asinh" => a.mapv(|x| x.asinh()),
        "acosh" => a.mapv(|x| x.acosh()),
        "atanh" => a.mapv(|x| x.atanh()),
        "nn.relu" => a.mapv(|x| if x < zero { zero } else { x }),
        "nn.leaky_relu" => {
            let alpha = attr("alpha")?;
            a.mapv(|x| if x > zero { x } else { x * alpha })
        }
        "clip" => {
            let (lo, hi) = (attr("a_min")?, attr("a_max")?);
            a.mapv(|x| x.min(hi).max(lo))
        }
        "copy" => a.clone(),
        "zeros_like" => a.mapv(|_| zero),
        "ones_like" => a.mapv(|_| one),
        _ => return None,
    })
}

fn int_unary(op: &str, dt: DType, x: i64, attrs: &Attrs) -> Option<i64> {
    let arith = !dt.is_bool();
    Some(match op {
        "negative" if arith => x.wrapping_neg(),
        "abs" if arith => x.wrapping_abs(),
        "sign" if arith => x.signum(),
        "nn.relu" => x.max(0),
        "clip" if arith => {
            let lo = attrs.get_float("a_min")?.trunc() as i64;
            let hi = attrs.get_float("a_max")?.trunc() as i64;
            x.min(hi).max(lo)
        }
        "copy" | "floor" | "ceil" | "round" | "trunc" => x,
        "zeros_like" => 0,
        "ones_like" => 1,
        "logical_not" => (x == 0) as i64,
        "bitwise_not" if arith => !x,
        "bitwise_not" => (x == 0) as i64,
        _ => return None,
    })
}

/// Evaluates a unary elementwise op (including `cast` and the float classification ops).
pub(crate) fn unary(op: &str, attrs: &Attrs, x: &Value) -> Option<Value> {
    let dt = x.dtype;
    match op {
        "cast" => return cast(x, attr_dtype(attrs, "dtype")?),
        "isnan" | "isinf" | "isfinite" => {
            let test = |v: f64| match op {
                "isnan" => v.is_nan(),
                "isinf" => v.is_infinite(),
                _ => v.is_finite(),
            } as i64;
            let out = match &x.arr {
                Arr::F32(a) => a.mapv(|v| test(v as f64)),
                Arr::F64(a) => a.mapv(test),
                Arr::Int(a) => a.mapv(|_| (op == "isfinite") as i64),
            };
            return Value::new(DType::BOOL, Arr::Int(out));
        }
        _ => {}
    }
    let arr = match &x.arr {
        Arr::F32(a) => Arr::F32(float_map(op, a, attrs)?),
        Arr::F64(a) => Arr::F64(float_map(op, a, attrs)?),
        Arr::Int(a) => Arr::Int(map_opt(a, |v| int_unary(op, dt, v, attrs))?),
    };
    Value::new(dt, arr)
}

pub(crate) fn map_opt<T: Copy, U>(a: &ArrayD<T>, f: impl Fn(T) -> Option<U>) -> Option<ArrayD<U>> {
    let v: Option<Vec<U>> = a.iter().map(|&x| f(x)).collect();
    ArrayD::from_shape_vec(IxDyn(a.shape()), v?).ok()
}

/// Float to integer as LLVM's `fptosi`/`fptoui`: truncation, `None` when out of range.
fn float_to_int(v: f64, to: DType) -> Option<i64> {
    if to.is_bool() {
        return Some((v != 0.0) as i64);
    }
    let t = v.trunc();
    let (lo, hi) = match to.code {
        DTypeCode::UInt => (0.0, 2f64.powi(to.bits as i32)),
        _ => (
            -(2f64.powi(to.bits as i32 - 1)),
            2f64.powi(to.bits as i32 - 1),
        ),
    };
    (t >= lo && t < hi).then_some(t as i64)
}

/// `cast(x, dtype)`.
pub(crate) fn cast(x: &Value, to: DType) -> Option<Value> {
    let want = storage(to)?;
    let is_half = |d: DType| d.bits == 16 && d.is_float();
    let arr = match (&x.arr, want) {
        (Arr::F32(a), Storage::F32) => Arr::F32(a.clone()),
        (Arr::F32(a), Storage::F64) => Arr::F64(a.mapv(|v| v as f64)),
        (Arr::F64(a), Storage::F32) if is_half(to) => {
            // Round once, straight from f64 (going through f32 could round twice).
            let r = |v: f64| match to.code {
                DTypeCode::BFloat => half::bf16::from_f64(v).to_f32(),
                _ => half::f16::from_f64(v).to_f32(),
            };
            Arr::F32(a.mapv(r))
        }
        (Arr::F64(a), Storage::F32) => Arr::F32(a.mapv(|v| v as f32)),
        (Arr::F64(a), Storage::F64) => Arr::F64(a.clone()),
        (Arr::F32(a), Storage::Int) => Arr::Int(map_opt(a, |v| float_to_int(v as f64, to))?),
        (Arr::F64(a), Storage::Int) => Arr::Int(map_opt(a, |v| float_to_int(v, to))?),
        (Arr::Int(a), Storage::F32) => Arr::F32(a.mapv(|v| v as f32)),
        (Arr::Int(a), Storage::F64) => Arr::F64(a.mapv(|v| v as f64)),
        (Arr::Int(a), Storage::Int) => Arr::Int(a.clone()),
    };
    Value::new(to, arr)
}

/// `reinterpret(x, dtype)`: the same bits read as another dtype of the same width.
pub(crate) fn reinterpret(x: &Value, to: DType) -> Option<Value> {
    if to.bits != x.dtype.bits || to.lanes != x.dtype.lanes {
        return None;
    }
    storage(to)?;
    let mut data = x.to_data();
    data.dtype = to;
    Value::from_data(&data)
}

/// `where(cond, x, y)`: broadcast of all three, dtype of `x`.
pub(crate) fn where_(c: &Value, x: &Value, y: &Value) -> Option<Value> {
    if x.dtype != y.dtype {
        return None;
    }
    let Arr::Int(cond) = &cast(c, DType::BOOL)?.arr else {
        return None;
    };
    let xy = broadcast_shape(x.shape(), y.shape())?;
    let shape = broadcast_shape(cond.shape(), &xy)?;
    let cv = cond.broadcast(IxDyn(&shape))?;
    let arr = match (&x.arr, &y.arr) {
        (Arr::F32(a), Arr::F32(b)) => Arr::F32(select(&cv, a, b, &shape)?),
        (Arr::F64(a), Arr::F64(b)) => Arr::F64(select(&cv, a, b, &shape)?),
        (Arr::Int(a), Arr::Int(b)) => Arr::Int(select(&cv, a, b, &shape)?),
        _ => return None,
    };
    Value::new(x.dtype, arr)
}

fn select<T: Copy>(
    c: &ndarray::ArrayViewD<i64>,
    a: &ArrayD<T>,
    b: &ArrayD<T>,
    shape: &[usize],
) -> Option<ArrayD<T>> {
    let av = a.broadcast(IxDyn(shape))?;
    let bv = b.broadcast(IxDyn(shape))?;
    Some(
        Zip::from(c)
            .and(&av)
            .and(&bv)
            .map_collect(|&k, &p, &q| if k != 0 { p } else { q }),
    )
}
