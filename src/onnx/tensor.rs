//! ONNX tensors (`TensorProto`) as passlab tensors ([`TensorData`]): element types, the typed
//! data fields and `raw_data`, checked against the dims before anything is allocated.

use super::proto::{data_type as dt, TensorProto};
use crate::ir::dtype::DTypeCode;
use crate::ir::{DType, TensorData};
use crate::limits::{MAX_TENSOR_ELEMENTS, MAX_TENSOR_NDIM};

/// The passlab dtype of an ONNX element type, or `None` for the ones passlab has no dtype for
/// (strings, complex numbers, 8- and 4-bit floats, 2-bit integers).
pub fn dtype_of(elem_type: i32) -> Option<DType> {
    Some(match elem_type {
        dt::FLOAT => DType::FLOAT32,
        dt::UINT8 => DType::UINT8,
        dt::INT8 => DType::INT8,
        dt::UINT16 => DType::new(DTypeCode::UInt, 16),
        dt::INT16 => DType::INT16,
        dt::INT32 => DType::INT32,
        dt::INT64 => DType::INT64,
        dt::BOOL => DType::BOOL,
        dt::FLOAT16 => DType::FLOAT16,
        dt::DOUBLE => DType::FLOAT64,
        dt::UINT32 => DType::new(DTypeCode::UInt, 32),
        dt::UINT64 => DType::new(DTypeCode::UInt, 64),
        dt::BFLOAT16 => DType::BFLOAT16,
        dt::UINT4 => DType::new(DTypeCode::UInt, 4),
        dt::INT4 => DType::new(DTypeCode::Int, 4),
        _ => return None,
    })
}

/// The ONNX name of an element type, for messages.
pub fn elem_type_name(elem_type: i32) -> String {
    let name = match elem_type {
        0 => "UNDEFINED",
        dt::STRING => "STRING",
        14 => "COMPLEX64",
        15 => "COMPLEX128",
        17..=20 | 24 => "an 8-bit float type",
        23 => "FLOAT4E2M1",
        25 | 26 => "UINT2/INT2",
        _ => return format!("element type {elem_type}"),
    };
    name.to_string()
}

/// Checks dims and returns them with the element count (within passlab's tensor limits).
pub fn checked_dims(dims: &[i64]) -> Result<(Vec<i64>, usize), String> {
    if dims.len() > MAX_TENSOR_NDIM {
        return Err(format!(
            "{} dimensions (at most {MAX_TENSOR_NDIM})",
            dims.len()
        ));
    }
    let mut n: u64 = 1;
    for &d in dims {
        if d < 0 {
            return Err(format!("a negative dimension ({d})"));
        }
        n = n.saturating_mul(d as u64);
    }
    if n > MAX_TENSOR_ELEMENTS {
        return Err(format!(
            "shape {dims:?} has more than {MAX_TENSOR_ELEMENTS} elements"
        ));
    }
    Ok((dims.to_vec(), n as usize))
}

/// Decodes a tensor. The error says what is wrong, without the tensor's name (the caller
/// adds where the tensor is).
pub fn to_data(t: &TensorProto) -> Result<TensorData, String> {
    let elem = t.data_type.unwrap_or(0);
    let dtype = dtype_of(elem)
        .ok_or_else(|| format!("{} tensors are not supported", elem_type_name(elem)))?;
    if t.data_location == Some(1) {
        return Err("its data is stored in an external file, which passlab does not read".into());
    }
    let (shape, n) = checked_dims(&t.dims)?;
    let width = dtype.size_bytes();
    let mismatch = |found: usize| {
        Err(format!(
            "shape {:?} needs {n} elements, the tensor holds {found}",
            t.dims
        ))
    };
    if dtype.bits == 4 {
        return unpack_4bit(t, dtype, shape, n);
    }
    let mut bytes = Vec::new();
    if let Some(raw) = &t.raw_data {
        if raw.len() != n * width {
            return mismatch(raw.len() / width);
        }
        if dtype == DType::FLOAT32 {
            // Held as `f32`s, so the kernels (FoldConstant's weight folds) read it in place.
            let v: Vec<f32> = raw
                .chunks_exact(4)
                .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect();
            return Ok(TensorData {
                dtype,
                shape,
                bytes: v.into(),
            });
        }
        bytes.extend_from_slice(raw);
        if dtype == DType::BOOL {
            for b in &mut bytes {
                *b = u8::from(*b != 0);
            }
        }
        return Ok(TensorData {
            dtype,
            shape,
            bytes: bytes.into(),
        });
    }
    if elem == dt::FLOAT {
        if t.float_data.len() != n {
            return mismatch(t.float_data.len());
        }
        return Ok(TensorData {
            dtype,
            shape,
            bytes: t.float_data.clone().into(),
        });
    }
    bytes.reserve(n * width);
    match elem {
        dt::DOUBLE => {
            if t.double_data.len() != n {
                return mismatch(t.double_data.len());
            }
            t.double_data
                .iter()
                .for_each(|v| bytes.extend_from_slice(&v.to_le_bytes()));
        }
        dt::INT64 => {
            if t.int64_data.len() != n {
                return mismatch(t.int64_data.len());
            }
            t.int64_data
                .iter()
                .for_each(|v| bytes.extend_from_slice(&v.to_le_bytes()));
        }
        dt::UINT32 | dt::UINT64 => {
            if t.uint64_data.len() != n {
                return mismatch(t.uint64_data.len());
            }
            t.uint64_data
                .iter()
                .for_each(|v| bytes.extend_from_slice(&v.to_le_bytes()[..width]));
        }
        // Everything narrower travels in int32_data: integers by value, 16-bit floats as
        // their bit patterns, booleans as 0/1.
        _ => {
            if t.int32_data.len() != n {
                return mismatch(t.int32_data.len());
            }
            for &v in &t.int32_data {
                if dtype == DType::BOOL {
                    bytes.push(u8::from(v != 0));
                } else {
                    bytes.extend_from_slice(&v.to_le_bytes()[..width]);
                }
            }
        }
    }
    Ok(TensorData {
        dtype,
        shape,
        bytes: bytes.into(),
    })
}

/// A 4-bit integer tensor: two elements a byte, the first in the low nibble, in `raw_data`
/// or one packed byte per `int32_data` entry. Held one element a byte, sign-extended for
/// int4 (as passlab holds sub-byte types).
fn unpack_4bit(
    t: &TensorProto,
    dtype: DType,
    shape: Vec<i64>,
    n: usize,
) -> Result<TensorData, String> {
    let packed: Vec<u8> = match &t.raw_data {
        Some(raw) => raw.to_vec(),
        None => t.int32_data.iter().map(|&v| v as u8).collect(),
    };
    if packed.len() != n.div_ceil(2) {
        return Err(format!(
            "shape {:?} needs {} packed bytes of 4-bit elements, the tensor holds {}",
            t.dims,
            n.div_ceil(2),
            packed.len()
        ));
    }
    let signed = dtype.code == DTypeCode::Int;
    let bytes: Vec<u8> = (0..n)
        .map(|i| {
            let nib = (packed[i / 2] >> (4 * (i % 2))) & 0xf;
            if signed && nib & 0x8 != 0 {
                nib | 0xf0
            } else {
                nib
            }
        })
        .collect();
    Ok(TensorData {
        dtype,
        shape,
        bytes: bytes.into(),
    })
}
