//! Data types of tensors, spelled as TVM spells them (`float32`, `int64`, `uint8`, `bool`,
//! `bfloat16`, `int8x4`). `bool` is kept apart from `uint1` only in spelling.

use std::fmt;

/// The kind of scalar a tensor element is.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum DTypeCode {
    Int,
    UInt,
    Float,
    BFloat,
    Bool,
}

/// A tensor element type: code, bit width and vector lanes.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub struct DType {
    pub code: DTypeCode,
    pub bits: u16,
    pub lanes: u16,
}

impl DType {
    pub const BOOL: DType = DType::new(DTypeCode::Bool, 1);
    pub const INT8: DType = DType::new(DTypeCode::Int, 8);
    pub const INT16: DType = DType::new(DTypeCode::Int, 16);
    pub const INT32: DType = DType::new(DTypeCode::Int, 32);
    pub const INT64: DType = DType::new(DTypeCode::Int, 64);
    pub const UINT8: DType = DType::new(DTypeCode::UInt, 8);
    pub const FLOAT16: DType = DType::new(DTypeCode::Float, 16);
    pub const FLOAT32: DType = DType::new(DTypeCode::Float, 32);
    pub const FLOAT64: DType = DType::new(DTypeCode::Float, 64);
    pub const BFLOAT16: DType = DType::new(DTypeCode::BFloat, 16);

    pub const fn new(code: DTypeCode, bits: u16) -> DType {
        DType {
            code,
            bits,
            lanes: 1,
        }
    }

    /// Parses a dtype name (`float32`, `int`, `uint8`, `bool`, `bfloat16`, `int8x4`).
    pub fn parse(s: &str) -> Option<DType> {
        let (base, lanes) = match s.find('x') {
            Some(i) if i > 0 && s[..i].ends_with(|c: char| c.is_ascii_digit()) => {
                (&s[..i], s[i + 1..].parse::<u16>().ok().filter(|l| *l > 0)?)
            }
            _ => (s, 1),
        };
        let (code, rest) = if base == "bool" {
            return Some(DType {
                lanes,
                ..DType::BOOL
            });
        } else if let Some(r) = base.strip_prefix("bfloat") {
            (DTypeCode::BFloat, r)
        } else if let Some(r) = base.strip_prefix("float") {
            (DTypeCode::Float, r)
        } else if let Some(r) = base.strip_prefix("uint") {
            (DTypeCode::UInt, r)
        } else if let Some(r) = base.strip_prefix("int") {
            (DTypeCode::Int, r)
        } else {
            return None;
        };
        let bits = if rest.is_empty() {
            match code {
                DTypeCode::BFloat => 16,
                _ => 32,
            }
        } else {
            rest.parse::<u16>().ok()?
        };
        let valid = match code {
            DTypeCode::Float => matches!(bits, 16 | 32 | 64),
            DTypeCode::BFloat => bits == 16,
            DTypeCode::Int => matches!(bits, 1 | 4 | 8 | 16 | 32 | 64),
            DTypeCode::UInt => matches!(bits, 1 | 4 | 8 | 16 | 32 | 64),
            DTypeCode::Bool => true,
        };
        valid.then_some(DType { code, bits, lanes })
    }

    pub fn is_float(self) -> bool {
        matches!(self.code, DTypeCode::Float | DTypeCode::BFloat)
    }

    pub fn is_int(self) -> bool {
        matches!(self.code, DTypeCode::Int | DTypeCode::UInt)
    }

    pub fn is_bool(self) -> bool {
        self.code == DTypeCode::Bool
    }

    /// Bytes taken by one element (bool and sub-byte types take a whole byte, as in DLPack).
    pub fn size_bytes(self) -> usize {
        (self.bits as usize).div_ceil(8).max(1) * self.lanes as usize
    }

    /// The DLPack type code (0 int, 1 uint, 2 float, 4 bfloat).
    pub fn dl_code(self) -> u8 {
        match self.code {
            DTypeCode::Int => 0,
            DTypeCode::UInt | DTypeCode::Bool => 1,
            DTypeCode::Float => 2,
            DTypeCode::BFloat => 4,
        }
    }

    /// The inverse of [`DType::dl_code`].
    pub fn from_dl(code: u8, bits: u8, lanes: u16) -> Option<DType> {
        if lanes == 0 {
            return None;
        }
        let code = match (code, bits) {
            (1, 1) => DTypeCode::Bool,
            (0, _) => DTypeCode::Int,
            (1, _) => DTypeCode::UInt,
            (2, _) => DTypeCode::Float,
            (4, _) => DTypeCode::BFloat,
            _ => return None,
        };
        let bits = bits as u16;
        let valid = match code {
            DTypeCode::Float => matches!(bits, 16 | 32 | 64),
            DTypeCode::BFloat => bits == 16,
            DTypeCode::Int | DTypeCode::UInt => matches!(bits, 1 | 4 | 8 | 16 | 32 | 64),
            DTypeCode::Bool => true,
        };
        valid.then_some(DType { code, bits, lanes })
    }

    /// The name of a common single-lane type, without formatting (printers write a type per
    /// node, most often one of these).
    pub fn static_name(&self) -> Option<&'static str> {
        if self.lanes != 1 {
            return None;
        }
        Some(match (self.code, self.bits) {
            (DTypeCode::Bool, _) => "bool",
            (DTypeCode::Float, 32) => "float32",
            (DTypeCode::Float, 16) => "float16",
            (DTypeCode::Float, 64) => "float64",
            (DTypeCode::Int, 32) => "int32",
            (DTypeCode::Int, 64) => "int64",
            (DTypeCode::Int, 8) => "int8",
            (DTypeCode::Int, 16) => "int16",
            (DTypeCode::UInt, 8) => "uint8",
            (DTypeCode::BFloat, 16) => "bfloat16",
            _ => return None,
        })
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(name) = self.static_name() {
            return f.write_str(name);
        }
        match self.code {
            DTypeCode::Bool => f.write_str("bool")?,
            DTypeCode::Int => write!(f, "int{}", self.bits)?,
            DTypeCode::UInt => write!(f, "uint{}", self.bits)?,
            DTypeCode::Float => write!(f, "float{}", self.bits)?,
            DTypeCode::BFloat => write!(f, "bfloat{}", self.bits)?,
        }
        if self.lanes != 1 {
            write!(f, "x{}", self.lanes)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_names() {
        for name in [
            "float32", "float16", "float64", "int8", "int16", "int32", "int64", "uint8", "uint1",
            "bool", "bfloat16", "int8x4",
        ] {
            assert_eq!(DType::parse(name).unwrap().to_string(), name);
        }
        assert_eq!(DType::parse("int"), Some(DType::INT32));
        assert_eq!(DType::parse("float7"), None);
        assert_eq!(DType::parse("Tensor"), None);
    }
}
