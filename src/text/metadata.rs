//! The `#[metadata]` section: TVM's JSON object graph (`SaveJSON` of a
//! `Map<String, Array<ObjectRef>>`) with tensors as base64 `SaveDLTensor` blobs. passlab reads
//! constants and attrs objects from it, and writes one for constants too large to print inline,
//! so printed modules parse back with their data.

use crate::ir::op::{AttrKind, AttrSchema};
use crate::ir::{AttrValue, DType, TensorData};
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
    /// The fields in the schema's order, converted by kind (missing ones left out).
    pub fn to_fields(&self, schema: Option<&AttrSchema>) -> Vec<(Arc<str>, AttrValue)> {
        match schema {
            Some(s) => s
                .fields
                .iter()
                .filter_map(|f| {
                    let (_, raw) = self.fields.iter().find(|(k, _)| k == f.name)?;
                    Some((f.name.into(), self.convert(raw, f.kind)))
                })
                .collect(),
            None => self
                .fields
                .iter()
                .map(|(k, v)| (k.as_str().into(), AttrValue::str(v)))
                .collect(),
        }
    }

    fn convert(&self, s: &str, kind: AttrKind) -> AttrValue {
        match kind {
            AttrKind::Bool => AttrValue::Bool(s != "0" && s != "false"),
            AttrKind::Int => s.parse().map(AttrValue::int).unwrap_or(AttrValue::Null),
            AttrKind::Double => s.parse().map(AttrValue::Float).unwrap_or(AttrValue::Null),
            AttrKind::DType if s.is_empty() => AttrValue::Null,
            AttrKind::Str | AttrKind::DType => AttrValue::str(s),
            AttrKind::Array | AttrKind::Any => match s.parse::<usize>() {
                Ok(i) => object(&self.nodes, i, 0),
                Err(_) => AttrValue::str(s),
            },
        }
    }
}

/// Converts an object node (array, integer or float immediate, string) to a value.
fn object(nodes: &[Value], i: usize, depth: usize) -> AttrValue {
    let Some(node) = nodes.get(i).filter(|_| i != 0 && depth < 64) else {
        return AttrValue::Null;
    };
    let attrs = &node["attrs"];
    match node["type_key"].as_str().unwrap_or_default() {
        "Array" => AttrValue::Array(
            node["data"]
                .as_array()
                .map(|a| a.iter().filter_map(Value::as_u64))
                .into_iter()
                .flatten()
                .map(|j| object(nodes, j as usize, depth + 1))
                .collect(),
        ),
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
    }
}

/// Parses the JSON text after `#[metadata]`.
pub fn parse(json_text: &str) -> Result<MetaTable, String> {
    let v: Value =
        serde_json::from_str(json_text).map_err(|e| format!("invalid metadata JSON: {e}"))?;
    let nodes = v["nodes"]
        .as_array()
        .ok_or("metadata JSON has no `nodes` array")?;
    let arrays: Vec<Option<Arc<TensorData>>> = v["b64ndarrays"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|s| s.as_str().and_then(decode_tensor).map(Arc::new))
                .collect()
        })
        .unwrap_or_default();
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

/// Decodes one `b64ndarrays` entry.
pub fn decode_tensor(b64: &str) -> Option<TensorData> {
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(b64.trim())
        .ok()?;
    let mut r = Reader { b: &bytes, at: 0 };
    if r.u64()? != DL_MAGIC {
        return None;
    }
    r.u64()?; // reserved
    r.u32()?; // device type
    r.u32()?; // device id
    let ndim = r.u32()? as usize;
    let code = r.u8()?;
    let bits = r.u8()?;
    let lanes = r.u16()?;
    let dtype = DType::from_dl(code, bits, lanes)?;
    let mut shape = Vec::with_capacity(ndim);
    for _ in 0..ndim {
        shape.push(r.u64()? as i64);
    }
    let nbytes = r.u64()? as usize;
    let data = r.take(nbytes)?.to_vec();
    let expected: i64 = shape.iter().product::<i64>() * dtype.size_bytes() as i64;
    if expected as usize != data.len() {
        return None;
    }
    Some(TensorData {
        dtype,
        shape,
        bytes: data,
    })
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
    b.extend(&t.bytes);
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
        let t = decode_tensor("P6G0lvBAXt0AAAAAAAAAAAEAAAAAAAAAAgAAAAIgAQACAAAAAAAAAAMAAAAAAAAAGAAAAAAAAAAAAIA/AAAAQAAAQEAAAIBAAACgQAAAwEA=").unwrap();
        assert_eq!(t.dtype, DType::FLOAT32);
        assert_eq!(t.shape, vec![2, 3]);
        assert_eq!(t.to_f64_vec(), vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
        assert_eq!(decode_tensor(&encode_tensor(&t)), Some(t));
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
