//! Constant tensors: real data of any supported dtype, stored as little-endian bytes (the
//! layout TVM's NDArray and its `b64ndarrays` metadata use), or opaque constants that carry a
//! type but no data (`meta[relay.Constant][i]` with no metadata section to resolve it).

use super::dtype::{DType, DTypeCode};
use super::types::{Dim, TensorType};
use std::sync::Arc;

/// Dense tensor contents.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct TensorData {
    pub dtype: DType,
    pub shape: Vec<i64>,
    /// Little-endian element bytes, row-major.
    pub bytes: Bytes,
}

/// The element bytes of a tensor: a byte vector, or (on little-endian hosts) the `f32`
/// elements themselves, so a float32 tensor computed by a kernel becomes constant data without
/// a copy, and a kernel reads it back as `f32`s with one `memcpy` ([`Bytes::as_f32`]).
/// Either way it reads as the same `[u8]`; equality and hashing are of those bytes.
#[derive(Clone)]
pub struct Bytes(Repr);

#[derive(Clone)]
enum Repr {
    U8(Vec<u8>),
    F32(Vec<f32>),
}

impl Bytes {
    /// The `f32` elements held as such (little-endian host), or `None` for plain bytes.
    pub fn as_f32(&self) -> Option<&[f32]> {
        match &self.0 {
            Repr::F32(v) => Some(v),
            Repr::U8(_) => None,
        }
    }

    /// Plain bytes, copied out when the elements are held as `f32`s.
    pub fn into_vec(self) -> Vec<u8> {
        match self.0 {
            Repr::U8(v) => v,
            Repr::F32(_) => self.to_vec(),
        }
    }
}

impl From<Vec<u8>> for Bytes {
    fn from(v: Vec<u8>) -> Bytes {
        Bytes(Repr::U8(v))
    }
}

impl From<Vec<f32>> for Bytes {
    /// Keeps the vector on a little-endian host (where its memory is the little-endian bytes);
    /// elsewhere it is converted.
    fn from(v: Vec<f32>) -> Bytes {
        if cfg!(target_endian = "little") {
            Bytes(Repr::F32(v))
        } else {
            Bytes(Repr::U8(v.iter().flat_map(|x| x.to_le_bytes()).collect()))
        }
    }
}

impl std::ops::Deref for Bytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match &self.0 {
            Repr::U8(v) => v,
            // SAFETY: the pointer and length cover exactly the vector's initialized `f32`s;
            // `u8` has alignment 1 and every byte of an `f32` is initialized. Only built on
            // little-endian hosts (see `From<Vec<f32>>`), so these are the little-endian bytes.
            Repr::F32(v) => unsafe {
                std::slice::from_raw_parts(v.as_ptr().cast::<u8>(), std::mem::size_of_val(&v[..]))
            },
        }
    }
}

impl PartialEq for Bytes {
    fn eq(&self, other: &Bytes) -> bool {
        self[..] == other[..]
    }
}

impl Eq for Bytes {}

impl PartialEq<Vec<u8>> for Bytes {
    fn eq(&self, other: &Vec<u8>) -> bool {
        self[..] == other[..]
    }
}

impl std::hash::Hash for Bytes {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self[..].hash(h)
    }
}

impl std::fmt::Debug for Bytes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self[..].fmt(f)
    }
}

/// A constant expression's payload.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Constant {
    /// The tensor type; `None` only for an opaque constant whose type is not known yet.
    pub ty: Option<TensorType>,
    /// `None` for an opaque constant.
    pub data: Option<Arc<TensorData>>,
    /// For opaque constants: the index of the `meta[relay.Constant][i]` reference they came from.
    pub meta_index: Option<usize>,
}

impl Constant {
    pub fn from_data(data: TensorData) -> Constant {
        let ty = TensorType::new(
            data.shape.iter().map(|d| Dim::Static(*d)).collect(),
            data.dtype,
        );
        Constant {
            ty: Some(ty),
            data: Some(Arc::new(data)),
            meta_index: None,
        }
    }

    /// An opaque constant of unknown contents standing for `meta[relay.Constant][index]`.
    pub fn opaque(ty: Option<TensorType>, index: usize) -> Constant {
        Constant {
            ty,
            data: None,
            meta_index: Some(index),
        }
    }

    pub fn scalar_f32(v: f32) -> Constant {
        Constant::from_data(TensorData::from_f64(DType::FLOAT32, vec![], &[v as f64]))
    }

    pub fn scalar_i32(v: i32) -> Constant {
        Constant::from_data(TensorData::from_i64(DType::INT32, vec![], &[v as i64]))
    }

    pub fn scalar_bool(v: bool) -> Constant {
        Constant::from_data(TensorData::from_i64(DType::BOOL, vec![], &[v as i64]))
    }

    /// True for a 0-d constant with data.
    pub fn is_scalar(&self) -> bool {
        self.data.as_ref().is_some_and(|d| d.shape.is_empty())
    }
}

impl TensorData {
    pub fn num_elements(&self) -> usize {
        // Saturating: a shape whose count overflows cannot have its data anyway.
        self.shape
            .iter()
            .try_fold(1usize, |n, &d| n.checked_mul(usize::try_from(d).ok()?))
            .unwrap_or(usize::MAX)
    }

    /// Builds a tensor from `f64` values, converting to the dtype.
    pub fn from_f64(dtype: DType, shape: Vec<i64>, values: &[f64]) -> TensorData {
        let mut bytes = Vec::with_capacity(values.len() * dtype.size_bytes());
        for &v in values {
            push_value(&mut bytes, dtype, v, v as i64);
        }
        TensorData {
            dtype,
            shape,
            bytes: bytes.into(),
        }
    }

    /// Builds a tensor from `i64` values, converting to the dtype.
    pub fn from_i64(dtype: DType, shape: Vec<i64>, values: &[i64]) -> TensorData {
        let mut bytes = Vec::with_capacity(values.len() * dtype.size_bytes());
        for &v in values {
            push_value(&mut bytes, dtype, v as f64, v);
        }
        TensorData {
            dtype,
            shape,
            bytes: bytes.into(),
        }
    }

    /// Element `i` as `f64` (exact for every dtype up to 53 bits of integer).
    pub fn get_f64(&self, i: usize) -> f64 {
        let dt = self.dtype;
        let w = dt.size_bytes();
        let b = &self.bytes[i * w..(i + 1) * w];
        match (dt.code, dt.bits) {
            (DTypeCode::Float, 16) => half::f16::from_le_bytes([b[0], b[1]]).to_f64(),
            (DTypeCode::BFloat, 16) => half::bf16::from_le_bytes([b[0], b[1]]).to_f64(),
            (DTypeCode::Float, 32) => f32::from_le_bytes(b.try_into().unwrap()) as f64,
            (DTypeCode::Float, 64) => f64::from_le_bytes(b.try_into().unwrap()),
            _ => self.get_i64(i) as f64,
        }
    }

    /// Element `i` as `i64` (floats truncate).
    pub fn get_i64(&self, i: usize) -> i64 {
        let dt = self.dtype;
        let w = dt.size_bytes();
        let b = &self.bytes[i * w..(i + 1) * w];
        match (dt.code, w) {
            (DTypeCode::Float | DTypeCode::BFloat, _) => self.get_f64(i) as i64,
            (DTypeCode::Bool, _) => (b[0] != 0) as i64,
            (DTypeCode::Int, 1) => b[0] as i8 as i64,
            (DTypeCode::Int, 2) => i16::from_le_bytes([b[0], b[1]]) as i64,
            (DTypeCode::Int, 4) => i32::from_le_bytes(b.try_into().unwrap()) as i64,
            (DTypeCode::Int, 8) => i64::from_le_bytes(b.try_into().unwrap()),
            (DTypeCode::UInt, 1) => b[0] as i64,
            (DTypeCode::UInt, 2) => u16::from_le_bytes([b[0], b[1]]) as i64,
            (DTypeCode::UInt, 4) => u32::from_le_bytes(b.try_into().unwrap()) as i64,
            (DTypeCode::UInt, 8) => u64::from_le_bytes(b.try_into().unwrap()) as i64,
            _ => 0,
        }
    }

    /// All elements as `f64`.
    pub fn to_f64_vec(&self) -> Vec<f64> {
        (0..self.num_elements()).map(|i| self.get_f64(i)).collect()
    }

    /// All elements as `i64`.
    pub fn to_i64_vec(&self) -> Vec<i64> {
        (0..self.num_elements()).map(|i| self.get_i64(i)).collect()
    }
}

fn push_value(out: &mut Vec<u8>, dt: DType, f: f64, i: i64) {
    match (dt.code, dt.bits) {
        (DTypeCode::Float, 16) => out.extend(half::f16::from_f64(f).to_le_bytes()),
        (DTypeCode::BFloat, 16) => out.extend(half::bf16::from_f64(f).to_le_bytes()),
        (DTypeCode::Float, 32) => out.extend((f as f32).to_le_bytes()),
        (DTypeCode::Float, 64) => out.extend(f.to_le_bytes()),
        (DTypeCode::Bool, _) => out.push((i != 0) as u8),
        (_, 8) | (_, 1) | (_, 4) => out.push(i as u8),
        (_, 16) => out.extend((i as i16).to_le_bytes()),
        (_, 32) => out.extend((i as i32).to_le_bytes()),
        _ => out.extend(i.to_le_bytes()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_round_trip_through_bytes() {
        let t = TensorData::from_f64(DType::FLOAT16, vec![2], &[1.5, -2.0]);
        assert_eq!(t.to_f64_vec(), vec![1.5, -2.0]);
        let t = TensorData::from_i64(DType::INT8, vec![3], &[-1, 127, 5]);
        assert_eq!(t.to_i64_vec(), vec![-1, 127, 5]);
        let t = TensorData::from_i64(DType::UINT8, vec![1], &[255]);
        assert_eq!(t.get_i64(0), 255);
    }
}
