//! The `#[metadata]` section: TVM's JSON object graph (`SaveJSON` of a
//! `Map<String, Array<ObjectRef>>`) with tensors as base64 `SaveDLTensor` blobs. passlab reads
//! constants and attrs objects from it, and writes one for constants too large to print inline,
//! so printed modules parse back with their data.

use crate::ir::op::{AttrKind, AttrSchema};
use crate::ir::{AttrValue, DType, TensorData};
use crate::limits::{MAX_ATTR_DEPTH, MAX_METADATA_VALUES, MAX_TENSOR_ELEMENTS, MAX_TENSOR_NDIM};
use base64::Engine;
use rustc_hash::FxHashMap;
use serde_json::{json, Value};
use std::sync::Arc;

const DL_MAGIC: u64 = 0xDD5E40F096B4A13F;

/// Objects a module's text refers to with `meta[Key][i]`.
#[derive(Default, Clone, Debug)]
pub struct MetaTable {
    /// `meta[relay.Constant][i]` (None: present but not decodable).
    pub constants: Vec<Option<Arc<TensorData>>>,
    /// `meta[relay.attrs.X][i]`: raw fields, converted with the op's schema when used.
    pub attrs: FxHashMap<String, Vec<RawAttrs>>,
}

/// An attrs object as stored in the JSON: field name to the string TVM wrote (a POD value, or
/// for object fields an index into the node list).
#[derive(Clone, Debug, Default)]
pub struct RawAttrs {
    pub fields: Vec<(String, String)>,
    nodes: Arc<Vec<Value>>,
}

impl RawAttrs {
    /// The fields in the schema's order, converted by kind (missing ones left out). An object
    /// field whose value nests more than [`MAX_ATTR_DEPTH`] deep, refers to itself, or expands
    /// to more than [`MAX_METADATA_VALUES`] values is an error.
    pub fn to_fields(
        &self,
        schema: Option<&AttrSchema>,
    ) -> Result<Vec<(Arc<str>, AttrValue)>, String> {
        match schema {
            Some(s) => {
                let mut budget = MAX_METADATA_VALUES;
                let mut out = Vec::new();
                for f in s.fields {
                    let Some((_, raw)) = self.fields.iter().find(|(k, _)| k == f.name) else {
                        continue;
                    };
                    let value = self
                        .convert(raw, f.kind, &mut budget)
                        .map_err(|e| format!("metadata attribute `{}`: {e}", f.name))?;
                    out.push((f.name.into(), value));
                }
                Ok(out)
            }
            None => Ok(self
                .fields
                .iter()
                .map(|(k, v)| (k.as_str().into(), AttrValue::str(v)))
                .collect()),
        }
    }

    fn convert(&self, s: &str, kind: AttrKind, budget: &mut usize) -> Result<AttrValue, String> {
        Ok(match kind {
            AttrKind::Bool => AttrValue::Bool(s != "0" && s != "false"),
            AttrKind::Int => s.parse().map(AttrValue::int).unwrap_or(AttrValue::Null),
            AttrKind::Double => s.parse().map(AttrValue::Float).unwrap_or(AttrValue::Null),
            AttrKind::DType if s.is_empty() => AttrValue::Null,
            AttrKind::Str | AttrKind::DType => AttrValue::str(s),
            AttrKind::Array | AttrKind::Any => match s.parse::<usize>() {
                Ok(i) => object(&self.nodes, i, 0, budget)?,
                Err(_) => AttrValue::str(s),
            },
        })
    }
}

/// Converts an object node (array, integer or float immediate, string) to a value, taking
/// each value made from `budget`.
fn object(
    nodes: &[Value],
    i: usize,
    depth: usize,
    budget: &mut usize,
) -> Result<AttrValue, String> {
    let Some(node) = nodes.get(i).filter(|_| i != 0) else {
        return Ok(AttrValue::Null);
    };
    if depth >= MAX_ATTR_DEPTH {
        return Err(format!(
            "object {i} nests more than {MAX_ATTR_DEPTH} deep (or refers to itself)"
        ));
    }
    *budget = budget
        .checked_sub(1)
        .ok_or_else(|| format!("object {i} expands to more than {MAX_METADATA_VALUES} values"))?;
    let attrs = &node["attrs"];
    Ok(match node["type_key"].as_str().unwrap_or_default() {
        "Array" => {
            let items = node["data"]
                .as_array()
                .map(Vec::as_slice)
                .unwrap_or_default();
            let mut out = Vec::with_capacity(items.len().min(*budget));
            for j in items.iter().filter_map(Value::as_u64) {
                out.push(object(nodes, j as usize, depth + 1, budget)?);
            }
            AttrValue::Array(out.into())
        }
        "IntImm" => {
            let v = attrs["value"]
                .as_str()
                .and_then(|s| s.parse().ok())
                .unwrap_or(0);
            let bits = if attrs["dtype"].as_str() == Some("int64") {
                64
            } else {
                32
            };
            AttrValue::Int(v, bits)
        }
        "FloatImm" => AttrValue::Float(
            attrs["value"]
                .as_str()
                .and_then(|s| s.parse().ok())
                .unwrap_or(0.0),
        ),
        "runtime.String" => AttrValue::str(node["repr_str"].as_str().unwrap_or_default()),
        "tir.Any" => AttrValue::Any,
        key => AttrValue::Meta(key.into(), i),
    })
}

/// Parses the JSON text after `#[metadata]`.
pub fn parse(json_text: &str) -> Result<MetaTable, String> {
    let v: Value =
        serde_json::from_str(json_text).map_err(|e| format!("invalid metadata JSON: {e}"))?;
    let nodes = v["nodes"]
        .as_array()
        .ok_or("metadata JSON has no `nodes` array")?;
    let mut arrays: Vec<Option<Arc<TensorData>>> = Vec::new();
    for (k, s) in v["b64ndarrays"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
    {
        let Some(s) = s.as_str() else {
            arrays.push(None);
            continue;
        };
        let t = decode_tensor(s).map_err(|e| format!("metadata tensor {k}: {e}"))?;
        arrays.push(t.map(Arc::new));
    }
    let root = v["root"].as_u64().ok_or("metadata JSON has no `root`")? as usize;
    let map = nodes.get(root).ok_or("metadata root out of range")?;
    let keys = map["keys"].as_array().cloned().unwrap_or_default();
    let data = map["data"].as_array().cloned().unwrap_or_default();
    let mut table = MetaTable::default();
    let shared = Arc::new(nodes.clone());
    for (k, d) in keys.iter().zip(data.iter()) {
        let key = k.as_str().unwrap_or_default().to_string();
        let arr = nodes
            .get(d.as_u64().unwrap_or(0) as usize)
            .ok_or("metadata index out of range")?;
        let items: Vec<usize> = arr["data"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|x| x.as_u64())
                    .map(|x| x as usize)
                    .collect()
            })
            .unwrap_or_default();
        for idx in items {
            let node = nodes.get(idx).ok_or("metadata index out of range")?;
            if key == "relay.Constant" {
                let data_idx = node["attrs"]["data"]
                    .as_str()
                    .and_then(|s| s.parse::<usize>().ok());
                table
                    .constants
                    .push(data_idx.and_then(|i| arrays.get(i).cloned().flatten()));
            } else {
                let mut raw = RawAttrs {
                    fields: Vec::new(),
                    nodes: shared.clone(),
                };
                if let Some(attrs) = node["attrs"].as_object() {
                    for (f, val) in attrs {
                        let s = val.as_str().unwrap_or_default();
                        raw.fields.push((f.clone(), s.to_string()));
                    }
                }
                table.attrs.entry(key.clone()).or_default().push(raw);
            }
        }
    }
    Ok(table)
}

/// Decodes one `b64ndarrays` entry: `None` for a tensor of a dtype passlab does not know
/// (kept as an opaque constant), an error for one that is malformed or over the limits.
pub fn decode_tensor(b64: &str) -> Result<Option<TensorData>, String> {
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(b64.trim())
        .map_err(|e| format!("invalid base64: {e}"))?;
    let mut r = Reader { b: &bytes, at: 0 };
    let short = || "the blob ends early".to_string();
    if r.u64().ok_or_else(short)? != DL_MAGIC {
        return Err("not a DLTensor blob (wrong magic number)".into());
    }
    r.u64().ok_or_else(short)?; // reserved
    r.u32().ok_or_else(short)?; // device type
    r.u32().ok_or_else(short)?; // device id
    let ndim = r.u32().ok_or_else(short)? as usize;
    let code = r.u8().ok_or_else(short)?;
    let bits = r.u8().ok_or_else(short)?;
    let lanes = r.u16().ok_or_else(short)?;
    if ndim > MAX_TENSOR_NDIM {
        return Err(format!("{ndim} dimensions (at most {MAX_TENSOR_NDIM})"));
    }
    let mut shape = Vec::with_capacity(ndim);
    let mut elements: u64 = 1;
    for _ in 0..ndim {
        let d = r.u64().ok_or_else(short)? as i64;
        if d < 0 {
            return Err(format!("negative dimension {d}"));
        }
        elements = elements
            .checked_mul(d as u64)
            .filter(|n| *n <= MAX_TENSOR_ELEMENTS)
            .ok_or_else(|| format!("more than {MAX_TENSOR_ELEMENTS} elements"))?;
        shape.push(d);
    }
    let nbytes = r.u64().ok_or_else(short)?;
    let Some(dtype) = DType::from_dl(code, bits, lanes) else {
        return if lanes == 0 {
            Err("a dtype with 0 lanes".into())
        } else {
            Ok(None)
        };
    };
    let expected = elements * dtype.size_bytes() as u64;
    if nbytes != expected {
        return Err(format!(
            "{nbytes} bytes of data for {elements} elements of {dtype} ({expected} expected)"
        ));
    }
    let data = r.take(nbytes as usize).ok_or_else(short)?.to_vec();
    Ok(Some(TensorData {
        dtype,
        shape,
        bytes: data.into(),
    }))
}

/// Encodes a tensor as a `b64ndarrays` entry.
pub fn encode_tensor(t: &TensorData) -> String {
    let mut b = Vec::with_capacity(48 + t.bytes.len());
    b.extend(DL_MAGIC.to_le_bytes());
    b.extend(0u64.to_le_bytes());
    b.extend(1u32.to_le_bytes());
    b.extend(0u32.to_le_bytes());
    b.extend((t.shape.len() as u32).to_le_bytes());
    b.push(t.dtype.dl_code());
    b.push(t.dtype.bits as u8);
    b.extend(t.dtype.lanes.to_le_bytes());
    for d in &t.shape {
        b.extend(d.to_le_bytes());
    }
    b.extend((t.bytes.len() as u64).to_le_bytes());
    b.extend_from_slice(&t.bytes);
    base64::engine::general_purpose::STANDARD.encode(b)
}

/// Writes the metadata JSON for a list of constants (`meta[relay.Constant][0..n]`); `None`
/// entries are placeholders for opaque constants (a node without data).
pub fn write_constants(constants: &[Option<Arc<TensorData>>]) -> String {
    let n = constants.len();
    let mut nodes = vec![
        json!({"type_key": ""}),
        json!({"type_key": "Map", "keys": ["relay.Constant"], "data": [2]}),
        json!({"type_key": "Array", "data": (0..n).map(|i| i + 3).collect::<Vec<_>>()}),
    ];
    let mut arrays: Vec<String> = Vec::new();
    for c in constants {
        let data = match c {
            Some(t) => {
                arrays.push(encode_tensor(t));
                (arrays.len() - 1).to_string()
            }
            None => String::new(),
        };
        nodes.push(json!({"type_key": "relay.Constant", "attrs": {
            "_checked_type_": "0", "data": data, "span": "0"}}));
    }
    let v = json!({
        "root": 1,
        "nodes": nodes,
        "b64ndarrays": arrays,
        "attrs": {"tvm_version": "0.18.0"}
    });
    serde_json::to_string_pretty(&v).unwrap_or_default()
}

struct Reader<'a> {
    b: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let s = self.b.get(self.at..self.at.checked_add(n)?)?;
        self.at += n;
        Some(s)
    }
    fn u8(&mut self) -> Option<u8> {
        Some(self.take(1)?[0])
    }
    fn u16(&mut self) -> Option<u16> {
        Some(u16::from_le_bytes(self.take(2)?.try_into().ok()?))
    }
    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }
    fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }
}

/// Finds the `#[metadata]` marker outside comments and strings; returns its byte offset.
pub fn find_marker(text: &str) -> Option<usize> {
    // Most programs have no metadata: a vectorised substring search says so at once.
    if !text.contains("#[metadata]") {
        return None;
    }
    // Scanned from one byte that matters to the next (memchr), not byte by byte: the text
    // before the marker is the whole program.
    let b = text.as_bytes();
    let mut i = 0;
    let mut depth = 0usize;
    while i < b.len() {
        if depth > 0 {
            i += memchr::memchr2(b'/', b'*', &b[i..])?;
            if b[i..].starts_with(b"/*") {
                depth += 1;
                i += 2;
            } else if b[i..].starts_with(b"*/") {
                depth -= 1;
                i += 2;
            } else {
                i += 1;
            }
            continue;
        }
        i += memchr::memchr3(b'/', b'"', b'#', &b[i..])?;
        match b[i] {
            b'/' if b.get(i + 1) == Some(&b'/') => {
                i = memchr::memchr(b'\n', &b[i..]).map_or(b.len(), |k| i + k);
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                depth = 1;
                i += 2;
            }
            b'"' => {
                i += 1;
                // To the closing quote, stepping over escaped characters.
                loop {
                    let k = memchr::memchr2(b'"', b'\\', &b[i..])?;
                    if b[i + k] == b'\\' {
                        i += k + 2;
                    } else {
                        i += k + 1;
                        break;
                    }
                    if i >= b.len() {
                        return None;
                    }
                }
            }
            b'#' if b[i..].starts_with(b"#[metadata]") => return Some(i),
            _ => i += 1,
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_the_reference_blob() {
        let t = decode_tensor("P6G0lvBAXt0AAAAAAAAAAAEAAAAAAAAAAgAAAAIgAQACAAAAAAAAAAMAAAAAAAAAGAAAAAAAAAAAAIA/AAAAQAAAQEAAAIBAAACgQAAAwEA=").unwrap().unwrap();
        assert_eq!(t.dtype, DType::FLOAT32);
        assert_eq!(t.shape, vec![2, 3]);
        assert_eq!(t.to_f64_vec(), vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
        assert_eq!(decode_tensor(&encode_tensor(&t)), Ok(Some(t)));
    }

    /// The byte-by-byte scan `find_marker` replaced, kept as its specification.
    fn find_marker_bytewise(text: &str) -> Option<usize> {
        let b = text.as_bytes();
        let (mut i, mut depth) = (0, 0usize);
        while i < b.len() {
            if depth > 0 {
                if b[i..].starts_with(b"/*") {
                    depth += 1;
                    i += 2;
                } else if b[i..].starts_with(b"*/") {
                    depth -= 1;
                    i += 2;
                } else {
                    i += 1;
                }
                continue;
            }
            match b[i] {
                b'/' if b.get(i + 1) == Some(&b'/') => {
                    while i < b.len() && b[i] != b'\n' {
                        i += 1;
                    }
                }
                b'/' if b.get(i + 1) == Some(&b'*') => {
                    depth = 1;
                    i += 2;
                }
                b'"' => {
                    i += 1;
                    while i < b.len() && b[i] != b'"' {
                        if b[i] == b'\\' {
                            i += 1;
                        }
                        i += 1;
                    }
                    i += 1;
                }
                b'#' if b[i..].starts_with(b"#[metadata]") => return Some(i),
                _ => i += 1,
            }
        }
        None
    }

    /// Texts built from the pieces that matter to the scan (comment and string delimiters,
    /// escapes, newlines, the marker, its prefix), every one compared with the byte scan.
    #[test]
    fn the_jumping_scan_finds_what_the_byte_scan_finds() {
        let pieces = [
            "/*",
            "*/",
            "//",
            "/",
            "*",
            "\"",
            "\\",
            "\n",
            "#[metadata]",
            "#[meta",
            "#",
            "x",
            " ",
        ];
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut found = 0;
        for _ in 0..20_000 {
            let mut t = String::new();
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let n = 1 + (seed % 12) as usize;
            let mut r = seed;
            for _ in 0..n {
                t.push_str(pieces[(r % pieces.len() as u64) as usize]);
                r = r.rotate_left(7).wrapping_mul(0x9e37_79b9_7f4a_7c15);
            }
            t.push_str("#[metadata]");
            let want = find_marker_bytewise(&t);
            found += usize::from(want.is_some());
            assert_eq!(find_marker(&t), want, "{t:?}");
        }
        assert!(
            found > 1000,
            "the cases reach the marker often enough ({found})"
        );
    }

    #[test]
    fn marker_outside_comments_only() {
        assert_eq!(
            find_marker("// #[metadata]\n/* #[metadata] */x\n#[metadata]\n{}"),
            Some(34)
        );
        assert_eq!(find_marker("\"#[metadata]\""), None);
    }
}
