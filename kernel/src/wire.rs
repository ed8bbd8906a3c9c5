//! The Jupyter wire format: a multipart ZeroMQ message is routing identities, the `<IDS|MSG>`
//! delimiter, an HMAC-SHA256 signature (hex) over the next four frames, then the header,
//! parent header, metadata and content as JSON, then optional binary buffers.
//!
//! Decoding is deliberately lenient in what it accepts once the signature holds: a header or
//! content that is not the shape we expect still yields a [`Message`] (with the identities
//! kept), so the caller can send an error reply instead of dropping the request. What is never
//! accepted: a missing, wrong or replayed signature (see [`Verifier`]).

use bytes::Bytes;
use hmac::{Hmac, KeyInit, Mac};
use serde_json::{json, Map, Value};
use sha2::Sha256;
use std::collections::{HashSet, VecDeque};
use std::sync::{Arc, Mutex};

pub const DELIMITER: &[u8] = b"<IDS|MSG>";
pub const PROTOCOL_VERSION: &str = "5.3";

/// A decoded message. `header` and `parent_header` stay raw JSON so a reply copies the
/// request's header exactly, whatever fields the client put in it.
#[derive(Clone, Debug)]
pub struct Message {
    /// Routing identities (shell/control/stdin) or the topic (iopub).
    pub identities: Vec<Bytes>,
    pub header: Value,
    pub parent_header: Value,
    pub metadata: Value,
    pub content: Value,
    pub buffers: Vec<Bytes>,
}

impl Message {
    /// The `msg_type` of the header, or "" when there is none.
    pub fn msg_type(&self) -> &str {
        self.header
            .get("msg_type")
            .and_then(Value::as_str)
            .unwrap_or("")
    }

    /// The content as an object (empty when the client sent something else).
    pub fn content_obj(&self) -> &Map<String, Value> {
        static EMPTY: std::sync::OnceLock<Map<String, Value>> = std::sync::OnceLock::new();
        self.content
            .as_object()
            .unwrap_or_else(|| EMPTY.get_or_init(Map::new))
    }
}

/// Why an incoming multipart message was not accepted.
#[derive(Debug, PartialEq, Eq)]
pub enum Reject {
    NoDelimiter,
    TooFewFrames(usize),
    BadSignature,
    Replayed,
}

impl std::fmt::Display for Reject {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Reject::NoDelimiter => write!(f, "no <IDS|MSG> delimiter"),
            Reject::TooFewFrames(n) => write!(f, "{n} frames after the delimiter (need 5)"),
            Reject::BadSignature => write!(f, "missing or wrong signature"),
            Reject::Replayed => write!(f, "replayed signature"),
        }
    }
}

/// The signing key of a connection, and the signatures already seen (replay protection, as
/// ipykernel's digest history: a message whose signature was accepted once is refused after).
/// Clones share the history, so shell and control refuse each other's replays too.
#[derive(Clone)]
pub struct Verifier {
    key: Option<Arc<[u8]>>,
    seen: Arc<Mutex<Seen>>,
}

/// Signatures seen, oldest first forgotten past a bound (ipykernel keeps 2^16 too).
#[derive(Default)]
struct Seen {
    set: HashSet<Vec<u8>>,
    order: VecDeque<Vec<u8>>,
}

const SEEN_CAPACITY: usize = 1 << 16;

impl Seen {
    /// Records `sig`; false if it was already there.
    fn insert(&mut self, sig: &[u8]) -> bool {
        if self.set.contains(sig) {
            return false;
        }
        if self.order.len() >= SEEN_CAPACITY {
            if let Some(old) = self.order.pop_front() {
                self.set.remove(&old);
            }
        }
        self.set.insert(sig.to_vec());
        self.order.push_back(sig.to_vec());
        true
    }
}

impl Verifier {
    /// `key` empty: messages are neither signed nor checked (the protocol allows it).
    pub fn new(key: &str) -> Verifier {
        Verifier {
            key: (!key.is_empty()).then(|| Arc::from(key.as_bytes())),
            seen: Arc::default(),
        }
    }

    /// The hex HMAC of the four JSON frames ("" without a key).
    pub fn sign(&self, parts: [&[u8]; 4]) -> String {
        match self.mac() {
            None => String::new(),
            Some(mut mac) => {
                for p in parts {
                    mac.update(p);
                }
                hex(&mac.finalize().into_bytes())
            }
        }
    }

    fn mac(&self) -> Option<Hmac<Sha256>> {
        let key = self.key.as_ref()?;
        Some(Hmac::<Sha256>::new_from_slice(key).expect("HMAC takes keys of any length"))
    }

    /// Splits, verifies and decodes `frames`.
    pub fn decode(&self, frames: Vec<Bytes>) -> Result<Message, Reject> {
        let delim = frames
            .iter()
            .position(|f| &f[..] == DELIMITER)
            .ok_or(Reject::NoDelimiter)?;
        let after = frames.len() - delim - 1;
        if after < 5 {
            return Err(Reject::TooFewFrames(after));
        }
        let sig = &frames[delim + 1];
        let parts = &frames[delim + 2..delim + 6];
        if let Some(mut mac) = self.mac() {
            let expected = unhex(sig).ok_or(Reject::BadSignature)?;
            for p in parts {
                mac.update(p);
            }
            mac.verify_slice(&expected)
                .map_err(|_| Reject::BadSignature)?;
            let fresh = self
                .seen
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .insert(sig);
            if !fresh {
                return Err(Reject::Replayed);
            }
        }
        let json = |b: &Bytes| serde_json::from_slice::<Value>(b).unwrap_or(Value::Null);
        Ok(Message {
            identities: frames[..delim].to_vec(),
            header: json(&parts[0]),
            parent_header: json(&parts[1]),
            metadata: json(&parts[2]),
            content: json(&parts[3]),
            buffers: frames[delim + 6..].to_vec(),
        })
    }

    /// The frames of `msg`, signed.
    pub fn encode(&self, msg: &Message) -> Vec<Bytes> {
        let enc = |v: &Value| -> Vec<u8> {
            // `{}`, never `null`: clients index into these.
            if v.is_null() {
                b"{}".to_vec()
            } else {
                serde_json::to_vec(v).expect("JSON values serialize")
            }
        };
        let parts = [
            enc(&msg.header),
            enc(&msg.parent_header),
            enc(&msg.metadata),
            enc(&msg.content),
        ];
        let sig = self.sign([&parts[0], &parts[1], &parts[2], &parts[3]]);
        let mut frames = msg.identities.clone();
        frames.push(Bytes::from_static(DELIMITER));
        frames.push(Bytes::from(sig));
        frames.extend(parts.into_iter().map(Bytes::from));
        frames.extend(msg.buffers.iter().cloned());
        frames
    }
}

/// Who this kernel is in message headers.
#[derive(Clone, Debug)]
pub struct Identity {
    pub session: String,
    pub username: String,
}

impl Identity {
    pub fn new() -> Identity {
        Identity {
            session: uuid::Uuid::new_v4().to_string(),
            username: "passlab".into(),
        }
    }

    /// A new header of type `msg_type`.
    pub fn header(&self, msg_type: &str) -> Value {
        json!({
            "msg_id": uuid::Uuid::new_v4().to_string(),
            "session": self.session,
            "username": self.username,
            "date": iso8601_now(),
            "msg_type": msg_type,
            "version": PROTOCOL_VERSION,
        })
    }

    /// A message of type `msg_type` in reply to (or caused by) `parent`, routed back to the
    /// parent's identities. Use [`Identity::publish`] for iopub.
    pub fn reply(&self, parent: &Message, msg_type: &str, content: Value) -> Message {
        Message {
            identities: parent.identities.clone(),
            header: self.header(msg_type),
            parent_header: parent_header_of(parent),
            metadata: json!({}),
            content,
            buffers: Vec::new(),
        }
    }

    /// An iopub message: its one "identity" is the topic; the shell's routing identities are
    /// never copied onto iopub.
    pub fn publish(&self, parent: Option<&Message>, msg_type: &str, content: Value) -> Message {
        let topic = match msg_type {
            "stream" => format!(
                "stream.{}",
                content
                    .get("name")
                    .and_then(Value::as_str)
                    .unwrap_or("stdout")
            ),
            _ => format!("kernel.{}.{msg_type}", self.session),
        };
        Message {
            identities: vec![Bytes::from(topic)],
            header: self.header(msg_type),
            parent_header: parent.map(parent_header_of).unwrap_or_else(|| json!({})),
            metadata: json!({}),
            content,
            buffers: Vec::new(),
        }
    }
}

impl Default for Identity {
    fn default() -> Self {
        Identity::new()
    }
}

fn parent_header_of(parent: &Message) -> Value {
    if parent.header.is_object() {
        parent.header.clone()
    } else {
        json!({})
    }
}

fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        s.push(DIGITS[(b >> 4) as usize] as char);
        s.push(DIGITS[(b & 15) as usize] as char);
    }
    s
}

fn unhex(s: &[u8]) -> Option<Vec<u8>> {
    if !s.len().is_multiple_of(2) {
        return None;
    }
    let digit = |c: u8| (c as char).to_digit(16).map(|d| d as u8);
    s.chunks(2)
        .map(|p| Some(digit(p[0])? << 4 | digit(p[1])?))
        .collect()
}

/// The current UTC time as ISO 8601 with microseconds (`2024-01-31T12:34:56.123456Z`).
pub fn iso8601_now() -> String {
    let d = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    iso8601(d.as_secs() as i64, d.subsec_micros())
}

fn iso8601(secs: i64, micros: u32) -> String {
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{micros:06}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(v: &Verifier, id: &str, msg_type: &str) -> Vec<Bytes> {
        let ident = Identity::new();
        let mut header = ident.header(msg_type);
        header["msg_id"] = json!(id);
        let msg = Message {
            identities: vec![Bytes::from_static(b"client")],
            header,
            parent_header: json!({}),
            metadata: json!({}),
            content: json!({"code": "x = 1"}),
            buffers: vec![],
        };
        v.encode(&msg)
    }

    #[test]
    fn signed_round_trip_keeps_identities() {
        let v = Verifier::new("secret");
        let frames = request(&v, "a", "execute_request");
        let m = v.decode(frames).unwrap();
        assert_eq!(m.identities, vec![Bytes::from_static(b"client")]);
        assert_eq!(m.msg_type(), "execute_request");
        assert_eq!(m.content["code"], "x = 1");
    }

    #[test]
    fn wrong_key_tampering_and_replay_are_rejected() {
        let v = Verifier::new("secret");
        let other = Verifier::new("other");
        assert_eq!(
            v.decode(request(&other, "a", "execute_request"))
                .unwrap_err(),
            Reject::BadSignature
        );
        let mut frames = request(&v, "b", "execute_request");
        let n = frames.len();
        frames[n - 1] = Bytes::from_static(br#"{"code": "evil"}"#);
        assert_eq!(v.decode(frames).unwrap_err(), Reject::BadSignature);
        let frames = request(&v, "c", "execute_request");
        assert!(v.decode(frames.clone()).is_ok());
        assert_eq!(v.decode(frames).unwrap_err(), Reject::Replayed);
        let mut unsigned = request(&v, "d", "execute_request");
        unsigned[2] = Bytes::new();
        assert_eq!(v.decode(unsigned).unwrap_err(), Reject::BadSignature);
    }

    #[test]
    fn garbage_is_rejected_and_bad_json_decodes_leniently() {
        let v = Verifier::new("");
        assert_eq!(
            v.decode(vec![Bytes::from_static(b"junk")]).unwrap_err(),
            Reject::NoDelimiter
        );
        assert_eq!(
            v.decode(vec![Bytes::from_static(DELIMITER), Bytes::new()])
                .unwrap_err(),
            Reject::TooFewFrames(1)
        );
        let frames: Vec<Bytes> = [
            &b"id"[..],
            DELIMITER,
            b"",
            b"{not json",
            b"{}",
            b"{}",
            b"[]",
        ]
        .iter()
        .map(|f| Bytes::copy_from_slice(f))
        .collect();
        let m = v.decode(frames).unwrap();
        assert_eq!(m.msg_type(), "");
        assert!(m.content_obj().is_empty());
    }

    #[test]
    fn null_parts_encode_as_empty_objects() {
        let v = Verifier::new("k");
        let msg = Message {
            identities: vec![],
            header: json!({"msg_type": "x"}),
            parent_header: Value::Null,
            metadata: Value::Null,
            content: json!({}),
            buffers: vec![],
        };
        let frames = v.encode(&msg);
        assert_eq!(&frames[3][..], b"{}");
        assert_eq!(&frames[4][..], b"{}");
        assert_eq!(frames[1].len(), 64);
    }

    #[test]
    fn dates() {
        assert_eq!(iso8601(0, 0), "1970-01-01T00:00:00.000000Z");
        assert_eq!(iso8601(951_782_400, 5), "2000-02-29T00:00:00.000005Z");
        assert_eq!(iso8601(1_700_000_000, 0), "2023-11-14T22:13:20.000000Z");
    }
}
