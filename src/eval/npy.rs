//! NumPy's `.npy` format (versions 1.0, 2.0 and 3.0), read and written: a magic string, a
//! version, a header (a Python dict literal with `descr`, `fortran_order` and `shape`), then
//! the elements in C order.
//!
//! Read: little-endian (or byte-sized) booleans, signed and unsigned integers of 8 to 64 bits
//! and floats of 16, 32 and 64 bits; anything else (big-endian data, Fortran order, structured
//! or object arrays) is refused by name. The header is at most [`MAX_HEADER`] bytes, the data
//! must be exactly what the shape says, and the shape at most
//! [`crate::limits::MAX_TENSOR_ELEMENTS`] elements. Written: version 1.0, C order, the
//! header padded so the data starts at a multiple of 64 bytes, as NumPy writes it.

use crate::ir::dtype::DTypeCode;
use crate::ir::{DType, TensorData};

/// The largest header read (NumPy itself refuses headers over 10,000 bytes by default).
pub const MAX_HEADER: usize = 1 << 16;

const MAGIC: &[u8] = b"\x93NUMPY";

/// NumPy's `descr` for a dtype (`<f4`, `|b1`, ...).
fn descr(dt: DType) -> Option<&'static str> {
    Some(match (dt.code, dt.bits, dt.lanes) {
        (DTypeCode::Bool, _, 1) => "|b1",
        (DTypeCode::Int, 8, 1) => "|i1",
        (DTypeCode::Int, 16, 1) => "<i2",
        (DTypeCode::Int, 32, 1) => "<i4",
        (DTypeCode::Int, 64, 1) => "<i8",
        (DTypeCode::UInt, 8, 1) => "|u1",
        (DTypeCode::UInt, 16, 1) => "<u2",
        (DTypeCode::UInt, 32, 1) => "<u4",
        (DTypeCode::UInt, 64, 1) => "<u8",
        (DTypeCode::Float, 16, 1) => "<f2",
        (DTypeCode::Float, 32, 1) => "<f4",
        (DTypeCode::Float, 64, 1) => "<f8",
        _ => return None,
    })
}

fn dtype_of(d: &str) -> Result<DType, String> {
    let (order, kind) = d.split_at(d.len().min(1));
    if order == ">" && !kind.ends_with('1') {
        return Err(format!(
            "big-endian data ({d:?}) is not supported; save it little-endian"
        ));
    }
    Ok(match kind {
        "b1" => DType::BOOL,
        "i1" => DType::INT8,
        "i2" => DType::INT16,
        "i4" => DType::INT32,
        "i8" => DType::INT64,
        "u1" => DType::UINT8,
        "u2" => DType::new(DTypeCode::UInt, 16),
        "u4" => DType::new(DTypeCode::UInt, 32),
        "u8" => DType::new(DTypeCode::UInt, 64),
        "f2" => DType::FLOAT16,
        "f4" => DType::FLOAT32,
        "f8" => DType::FLOAT64,
        _ => {
            return Err(format!(
            "the element type {d:?} is not supported (bool, int8-64, uint8-64, float16/32/64 are)"
        ))
        }
    })
}

/// The value of `'key':` in a header dict, as the text up to the next top-level comma.
fn field<'a>(header: &'a str, key: &str) -> Result<&'a str, String> {
    let at = header
        .find(&format!("'{key}'"))
        .ok_or_else(|| format!("the header has no '{key}'"))?;
    let rest = header[at + key.len() + 2..].trim_start();
    let rest = rest
        .strip_prefix(':')
        .ok_or_else(|| format!("the header's '{key}' has no value"))?
        .trim_start();
    let end = if rest.starts_with('(') {
        rest.find(')').map(|i| i + 1)
    } else {
        rest.find([',', '}'])
    }
    .ok_or_else(|| format!("the header's '{key}' is not closed"))?;
    Ok(rest[..end].trim())
}

/// Parses a `.npy` file's bytes.
pub fn read(bytes: &[u8]) -> Result<TensorData, String> {
    let rest = bytes
        .strip_prefix(MAGIC)
        .ok_or("not a NumPy .npy file (it does not start with \\x93NUMPY)")?;
    let (major, rest) = match rest {
        [major, _minor, rest @ ..] => (*major, rest),
        _ => return Err("the file ends inside its version".into()),
    };
    let (len, rest) = match (major, rest) {
        (1, [a, b, rest @ ..]) => (u16::from_le_bytes([*a, *b]) as usize, rest),
        (2 | 3, [a, b, c, d, rest @ ..]) => (u32::from_le_bytes([*a, *b, *c, *d]) as usize, rest),
        (1..=3, _) => return Err("the file ends inside its header length".into()),
        _ => return Err(format!("unknown .npy version {major}")),
    };
    if len > MAX_HEADER {
        return Err(format!("the header is {len} bytes (at most {MAX_HEADER})"));
    }
    if rest.len() < len {
        return Err(format!(
            "the file ends inside its header ({} of {len} bytes)",
            rest.len()
        ));
    }
    let header = std::str::from_utf8(&rest[..len]).map_err(|_| "the header is not text")?;
    let data = &rest[len..];
    let descr = field(header, "descr")?.trim_matches(['\'', '"']);
    let dtype = dtype_of(descr)?;
    match field(header, "fortran_order")? {
        "False" => {}
        "True" => return Err(
            "Fortran-order arrays are not supported; save a C-order copy (np.ascontiguousarray)"
                .into(),
        ),
        other => return Err(format!("fortran_order is {other:?}, not True or False")),
    }
    let shape_text = field(header, "shape")?;
    let inner = shape_text
        .strip_prefix('(')
        .and_then(|s| s.strip_suffix(')'))
        .ok_or_else(|| format!("the shape {shape_text:?} is not a tuple"))?;
    let shape: Vec<i64> = inner
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| {
            s.trim_end_matches('L')
                .parse::<i64>()
                .ok()
                .filter(|&d| d >= 0)
                .ok_or_else(|| format!("the shape {shape_text} has a bad dimension {s:?}"))
        })
        .collect::<Result<_, _>>()?;
    if shape.len() > crate::limits::MAX_TENSOR_NDIM {
        return Err(format!(
            "the shape has {} dimensions (at most {})",
            shape.len(),
            crate::limits::MAX_TENSOR_NDIM
        ));
    }
    let count = shape
        .iter()
        .try_fold(1u64, |n, &d| n.checked_mul(d as u64))
        .filter(|&n| n <= crate::limits::MAX_TENSOR_ELEMENTS)
        .ok_or_else(|| {
            format!(
                "the shape {shape:?} has more than {} elements",
                crate::limits::MAX_TENSOR_ELEMENTS
            )
        })?;
    let want = count as usize * dtype.size_bytes();
    if data.len() != want {
        return Err(format!(
            "the data is {} bytes, but {dtype} {shape:?} needs {want}",
            data.len()
        ));
    }
    if dtype.is_bool() && data.iter().any(|&b| b > 1) {
        return Err("a boolean element is neither 0 nor 1".into());
    }
    Ok(TensorData {
        dtype,
        shape,
        bytes: data.to_vec().into(),
    })
}

/// The bytes of a `.npy` file (version 1.0) holding `t`.
pub fn write(t: &TensorData) -> Result<Vec<u8>, String> {
    let d = descr(t.dtype).ok_or_else(|| format!("{} tensors cannot be saved as .npy", t.dtype))?;
    let dims: Vec<String> = t.shape.iter().map(i64::to_string).collect();
    let shape = match dims.len() {
        1 => format!("({},)", dims[0]),
        _ => format!("({})", dims.join(", ")),
    };
    let mut header = format!("{{'descr': '{d}', 'fortran_order': False, 'shape': {shape}, }}");
    // Magic (6) + version (2) + length (2) + header + newline: a multiple of 64.
    let unpadded = 10 + header.len() + 1;
    header.push_str(&" ".repeat(unpadded.next_multiple_of(64) - unpadded));
    header.push('\n');
    let len = u16::try_from(header.len()).map_err(|_| "the shape is too long for a header")?;
    let mut out = Vec::with_capacity(10 + header.len() + t.bytes.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&[1, 0]);
    out.extend_from_slice(&len.to_le_bytes());
    out.extend_from_slice(header.as_bytes());
    out.extend_from_slice(&t.bytes);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_refuses_bad_files() {
        let t = TensorData::from_f64(DType::FLOAT32, vec![2, 3], &[1.0, 2.0, 3.0, 4.0, 5.0, 6.5]);
        let bytes = write(&t).unwrap();
        assert_eq!(
            (10 + u16::from_le_bytes([bytes[8], bytes[9]]) as usize) % 64,
            0
        );
        assert_eq!(read(&bytes).unwrap(), t);
        let s = TensorData::from_i64(DType::INT64, vec![], &[7]);
        assert_eq!(read(&write(&s).unwrap()).unwrap(), s);
        let v = TensorData::from_i64(DType::UINT8, vec![3], &[1, 2, 255]);
        assert_eq!(read(&write(&v).unwrap()).unwrap(), v);
        assert!(read(b"hello").unwrap_err().contains("not a NumPy"));
        assert!(read(&bytes[..bytes.len() - 1])
            .unwrap_err()
            .contains("needs 24"));
        let big = String::from_utf8_lossy(&bytes).replace("<f4", ">f4");
        assert!(read(big.as_bytes()).is_err());
    }
}
