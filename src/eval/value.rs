//! Tensor values as the op kernels compute on them (shared by FoldConstant and the reference
//! evaluator, as TVM's FoldConstant runs calls on its interpreter).
//!
//! Values are `ndarray` arrays of one of three element types: `f32` (float32, and float16 /
//! bfloat16 computed in `f32` and rounded back after every op, as TVM's LLVM code does),
//! `f64` (float64) and `i64` (every integer dtype up to 32 bits, int64, uint8/16/32 and bool:
//! computed in `i64` and wrapped to the dtype after every op). So `add(0.1f, 0.2f)` is the
//! `f32` sum, `add(127i8, 1i8)` wraps to `-128`, and integer `divide` truncates.
//!
//! Invariants: the evaluator never panics on any input (bad shapes, bad attributes and
//! unsupported dtypes give `None`, i.e. "not folded"), and it never guesses: an op or a
//! dtype it does not implement exactly is not folded. `uint64` is held in `i64` too, and
//! evaluated only while every value is below 2^63 (where `i64` and `u64` arithmetic agree,
//! wrapping included): an input or a result at or above 2^63 is not evaluated. Sub-byte ints
//! and vector dtypes are not evaluated at all.

use crate::ir::dtype::DTypeCode;
use crate::ir::{Attrs, DType, TensorData};
use ndarray::{ArrayD, IxDyn};

/// The elements of a value.
#[derive(Clone, Debug)]
pub enum Arr {
    F32(ArrayD<f32>),
    F64(ArrayD<f64>),
    Int(ArrayD<i64>),
}

/// A tensor value with its Relay dtype.
#[derive(Clone, Debug)]
pub struct Value {
    pub dtype: DType,
    pub arr: Arr,
}

/// Applies `$body` (generic code over the element type, binding the array to `$a`) to each
/// storage variant, keeping the variant.
macro_rules! each {
    ($arr:expr, $a:ident => $body:expr) => {
        match $arr {
            $crate::eval::value::Arr::F32($a) => $crate::eval::value::Arr::F32($body),
            $crate::eval::value::Arr::F64($a) => $crate::eval::value::Arr::F64($body),
            $crate::eval::value::Arr::Int($a) => $crate::eval::value::Arr::Int($body),
        }
    };
}
pub(crate) use each;

/// The storage used for a dtype, if the evaluator supports it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Storage {
    F32,
    F64,
    Int,
}

pub(crate) fn storage(dt: DType) -> Option<Storage> {
    if dt.lanes != 1 {
        return None;
    }
    match (dt.code, dt.bits) {
        (DTypeCode::Float, 16 | 32) | (DTypeCode::BFloat, 16) => Some(Storage::F32),
        (DTypeCode::Float, 64) => Some(Storage::F64),
        (DTypeCode::Int, 4 | 8 | 16 | 32 | 64) | (DTypeCode::UInt, 4 | 8 | 16 | 32 | 64) => {
            Some(Storage::Int)
        }
        (DTypeCode::Bool, _) => Some(Storage::Int),
        _ => None,
    }
}

impl Value {
    /// Reads constant data; `None` for dtypes the evaluator does not support.
    pub fn from_data(t: &TensorData) -> Option<Value> {
        let shape: Vec<usize> = t
            .shape
            .iter()
            .map(|&d| usize::try_from(d).ok())
            .collect::<Option<_>>()?;
        let n = t.num_elements();
        if t.bytes.len() != n * t.dtype.size_bytes() {
            return None;
        }
        // The common dtypes straight from their bytes (the same values `get_f64` / `get_i64`
        // give, without matching the dtype per element).
        let b = &t.bytes;
        let arr = match (t.dtype.code, t.dtype.bits, storage(t.dtype)?) {
            // Held as `f32`s: one copy.
            (DTypeCode::Float, 32, Storage::F32) if b.as_f32().is_some() => {
                Arr::F32(ArrayD::from_shape_vec(IxDyn(&shape), b.as_f32()?.to_vec()).ok()?)
            }
            (DTypeCode::Float, 32, Storage::F32) => Arr::F32(from_vec(
                &shape,
                b.chunks_exact(4)
                    .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])),
            )?),
            (DTypeCode::Int, 32, Storage::Int) => Arr::Int(from_vec(
                &shape,
                b.chunks_exact(4)
                    .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]) as i64),
            )?),
            (DTypeCode::Int, 64, Storage::Int) => Arr::Int(from_vec(
                &shape,
                b.chunks_exact(8)
                    .map(|c| i64::from_le_bytes(c.try_into().expect("8 bytes"))),
            )?),
            (_, _, Storage::F32) => {
                Arr::F32(from_vec(&shape, (0..n).map(|i| t.get_f64(i) as f32))?)
            }
            (_, _, Storage::F64) => Arr::F64(from_vec(&shape, (0..n).map(|i| t.get_f64(i)))?),
            (_, _, Storage::Int) => Arr::Int(from_vec(&shape, (0..n).map(|i| t.get_i64(i)))?),
        };
        if is_u64(t.dtype) && !fits_u64(&arr) {
            return None;
        }
        Some(Value {
            dtype: t.dtype,
            arr,
        })
    }

    /// Builds a value of `dtype`, rounding or wrapping the elements to it.
    pub fn new(dtype: DType, arr: Arr) -> Option<Value> {
        let want = storage(dtype)?;
        let arr = match (want, arr) {
            (Storage::F32, Arr::F32(a)) => Arr::F32(round_f32(dtype, a)),
            (Storage::F64, a @ Arr::F64(_)) => a,
            (Storage::Int, Arr::Int(a)) if is_u64(dtype) => Arr::Int(a),
            (Storage::Int, Arr::Int(a)) => Arr::Int(a.mapv(|x| wrap_int(dtype, x))),
            _ => return None,
        };
        if is_u64(dtype) && !fits_u64(&arr) {
            return None;
        }
        Some(Value { dtype, arr })
    }

    pub fn shape(&self) -> &[usize] {
        match &self.arr {
            Arr::F32(a) => a.shape(),
            Arr::F64(a) => a.shape(),
            Arr::Int(a) => a.shape(),
        }
    }

    pub fn ndim(&self) -> usize {
        self.shape().len()
    }

    /// [`Value::to_data`], taking the value: a float32 array in standard layout becomes the
    /// data's storage as it is, with no copy.
    pub fn into_data(self) -> TensorData {
        match self.arr {
            Arr::F32(a)
                if (self.dtype.code, self.dtype.bits) == (DTypeCode::Float, 32)
                    && a.is_standard_layout() =>
            {
                let shape = a.shape().iter().map(|&d| d as i64).collect();
                let n = a.len();
                // Standard layout: the elements are `n` contiguous ones from the offset (an
                // owned array sliced in place may keep more of its vector around them).
                let v = match a.into_raw_vec_and_offset() {
                    (v, off) if off.unwrap_or(0) == 0 && v.len() == n => v,
                    (v, off) => {
                        let at = off.unwrap_or(0);
                        v.get(at..at + n).map_or_else(Vec::new, <[f32]>::to_vec)
                    }
                };
                TensorData {
                    dtype: self.dtype,
                    shape,
                    bytes: v.into(),
                }
            }
            _ => self.to_data(),
        }
    }

    /// The value as constant data (row-major).
    pub fn to_data(&self) -> TensorData {
        let shape = self.shape().iter().map(|&d| d as i64).collect();
        let (code, bits) = (self.dtype.code, self.dtype.bits);
        match &self.arr {
            // float32 and int32 straight to bytes (what `from_f64` / `from_i64` write for them).
            Arr::F32(a) if (code, bits) == (DTypeCode::Float, 32) => TensorData {
                dtype: self.dtype,
                shape,
                bytes: le_bytes(a, |x: f32| x.to_le_bytes()).into(),
            },
            Arr::Int(a) if (code, bits) == (DTypeCode::Int, 32) => TensorData {
                dtype: self.dtype,
                shape,
                bytes: le_bytes(a, |x| (x as i32).to_le_bytes()).into(),
            },
            Arr::F32(a) => {
                let v: Vec<f64> = a.iter().map(|&x| x as f64).collect();
                TensorData::from_f64(self.dtype, shape, &v)
            }
            Arr::F64(a) => {
                TensorData::from_f64(self.dtype, shape, &a.iter().copied().collect::<Vec<_>>())
            }
            Arr::Int(a) => {
                TensorData::from_i64(self.dtype, shape, &a.iter().copied().collect::<Vec<_>>())
            }
        }
    }
}

/// The elements of `a` in row-major order, each as the `W` bytes `f` gives.
fn le_bytes<T: Copy, const W: usize>(a: &ArrayD<T>, f: impl Fn(T) -> [u8; W]) -> Vec<u8> {
    let mut out = vec![0u8; a.len() * W];
    match a.as_slice() {
        Some(s) => out
            .chunks_exact_mut(W)
            .zip(s)
            .for_each(|(c, &x)| c.copy_from_slice(&f(x))),
        None => out
            .chunks_exact_mut(W)
            .zip(a.iter())
            .for_each(|(c, &x)| c.copy_from_slice(&f(x))),
    }
    out
}

pub(crate) fn from_vec<T>(shape: &[usize], it: impl Iterator<Item = T>) -> Option<ArrayD<T>> {
    ArrayD::from_shape_vec(IxDyn(shape), it.collect()).ok()
}

fn is_u64(dt: DType) -> bool {
    (dt.code, dt.bits) == (DTypeCode::UInt, 64)
}

/// Whether every element of a `uint64` value held in `i64` is its value (below 2^63).
fn fits_u64(arr: &Arr) -> bool {
    match arr {
        Arr::Int(a) => a.iter().all(|&x| x >= 0),
        _ => false,
    }
}

/// Wraps an integer computed in `i64` to the dtype (two's complement), bool to 0/1.
pub(crate) fn wrap_int(dt: DType, x: i64) -> i64 {
    match dt.code {
        DTypeCode::Bool => (x != 0) as i64,
        DTypeCode::Int if dt.bits < 64 => {
            let s = 64 - dt.bits as u32;
            (x << s) >> s
        }
        DTypeCode::UInt if dt.bits < 64 => x & ((1i64 << dt.bits) - 1),
        _ => x,
    }
}

fn round_f32(dt: DType, a: ArrayD<f32>) -> ArrayD<f32> {
    match (dt.code, dt.bits) {
        (DTypeCode::Float, 16) => a.mapv(|x| half::f16::from_f32(x).to_f32()),
        (DTypeCode::BFloat, 16) => a.mapv(|x| half::bf16::from_f32(x).to_f32()),
        _ => a,
    }
}

/// The dtype named by a string attribute (`dtype="int8"`), `None` when absent or null.
pub(crate) fn attr_dtype(attrs: &Attrs, name: &str) -> Option<DType> {
    attrs
        .get_str(name)
        .filter(|s| !s.is_empty())
        .and_then(DType::parse)
}

/// Normalizes an axis against a rank (negative axes count from the end).
pub(crate) fn norm_axis(axis: i64, ndim: usize) -> Option<usize> {
    let n = ndim as i64;
    let a = if axis < 0 { axis + n } else { axis };
    (0..n).contains(&a).then_some(a as usize)
}
