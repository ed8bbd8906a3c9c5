//! The kernel answers every message a client can send, and its session survives them all.
//! Requests of every type are built, then mutated: fields removed or given values of every
//! JSON kind (huge and negative numbers, long strings, deep nesting), code taken from the
//! session transcripts or garbled, headers without a type or with a made-up one, frames
//! dropped, garbled or signed wrongly. Each goes through the same path a socket's would,
//! without the socket: [`Verifier::decode`], [`dispatch`], and every reply and iopub
//! message through `encode` and back. Rules: nothing panics; a frame set that decodes and
//! names a `*_request` type gets exactly its reply type, whose content has a status (and an
//! error one an `ename` and `evalue`); a variable the session held before is still there.
//! The cases are drawn from a fixed seed: `PASSLAB_FUZZ_CASES=N` runs N (default 2000), and
//! `PASSLAB_FUZZ_SEED=S` draws others.

use crate::connection::ConnectionInfo;
use crate::execute::Executor;
use crate::kernel::{dispatch, reply_type, Channel, Shared};
use crate::wire::{Identity, Message, Verifier, DELIMITER};
use crate::worker::Worker;
use bytes::Bytes;
use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestCaseError, TestRng, TestRunner};
use serde_json::{json, Value};
use std::sync::OnceLock;
use tokio::sync::mpsc;

const KEY: &str = "fuzz-key";

const TYPES: &[&str] = &[
    "execute_request",
    "complete_request",
    "inspect_request",
    "is_complete_request",
    "history_request",
    "kernel_info_request",
    "comm_info_request",
    "connect_request",
    "interrupt_request",
    "shutdown_request",
    "comm_open",
    "comm_msg",
    "comm_close",
    "input_reply",
    "debug_request",
    "made_up_request",
    "_request",
    "execute_reply",
    "status",
];

const FIELDS: &[&str] = &[
    "code",
    "cursor_pos",
    "silent",
    "store_history",
    "stop_on_error",
    "user_expressions",
    "allow_stdin",
    "detail_level",
    "hist_access_type",
    "output",
    "raw",
    "n",
    "start",
    "stop",
    "session",
    "pattern",
    "unique",
    "restart",
    "comm_id",
    "target_name",
    "data",
];

/// Statements of the session transcripts: code for `execute_request` and the others.
fn code_pool() -> &'static [String] {
    static POOL: OnceLock<Vec<String>> = OnceLock::new();
    POOL.get_or_init(|| {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/sessions");
        let mut files: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "passlab"))
            .collect();
        files.sort();
        let mut pool: Vec<String> = files
            .iter()
            .flat_map(|f| {
                let text = std::fs::read_to_string(f).unwrap();
                let (items, _) = passlab::session::replay::split(&text);
                items.into_iter().map(|i| i.source.join("\n"))
            })
            // Transcripts that write files write them relative to the kernel's directory.
            .filter(|c| !c.contains("save(") && !c.contains("DumpIR"))
            .collect();
        pool.extend(
            [
                "?Sequential",
                "FoldConstant?",
                "?",
                "?nope",
                "help",
                "x = ",
                "with PassContext() {",
                "\"\"\"",
                "continue",
                "abort",
                "exit",
                "break slower 18446744073709551616s",
                "x = const([300], dtype=\"int8\")",
            ]
            .map(String::from),
        );
        pool.push("[".repeat(100_000));
        pool.push("x".repeat(2_000));
        pool
    })
}

/// A JSON value of any kind, including the awkward ones.
fn any_json() -> impl Strategy<Value = Value> {
    let code = (0..code_pool().len()).prop_map(|i| json!(code_pool()[i]));
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        Just(json!(u64::MAX)),
        Just(json!(-1)),
        Just(json!(0)),
        any::<f64>().prop_map(|f| json!(f)),
        "\\PC{0,40}".prop_map(Value::from),
        code,
        Just(json!("x".repeat(100_000))),
        Just(json!([])),
        Just(json!({})),
        Just(json!({"a": "x = 1", "b": 7, "c": "[["})),
        Just(json!(["tail", 3])),
        (0usize..300).prop_map(|d| {
            let mut v = json!(1);
            for _ in 0..d {
                v = json!([v]);
            }
            v
        }),
    ]
}

/// A plausible content for a request type.
fn base_content(ty: &str, code: &str) -> Value {
    match ty {
        "execute_request" => json!({
            "code": code, "silent": false, "store_history": true,
            "user_expressions": {"e": "1"}, "allow_stdin": false, "stop_on_error": true,
        }),
        "complete_request" | "inspect_request" => {
            json!({"code": code, "cursor_pos": code.chars().count(), "detail_level": 0})
        }
        "is_complete_request" => json!({"code": code}),
        "history_request" => json!({
            "output": true, "raw": true, "hist_access_type": "tail", "n": 10,
            "session": 0, "start": 0, "stop": 5, "pattern": "*", "unique": true,
        }),
        "shutdown_request" => json!({"restart": false}),
        "comm_open" => json!({"comm_id": "c1", "target_name": "t", "data": {}}),
        _ => json!({}),
    }
}

/// How the frames are damaged after signing.
#[derive(Clone, Debug)]
enum FrameDamage {
    None,
    Unsigned,
    WrongSignature,
    DropFrame(usize),
    DuplicateFrame(usize),
    Garble(usize, Vec<u8>),
    NoDelimiter,
    ExtraBuffers(usize),
}

fn frame_damage() -> impl Strategy<Value = FrameDamage> {
    prop_oneof![
        24 => Just(FrameDamage::None),
        1 => Just(FrameDamage::Unsigned),
        1 => Just(FrameDamage::WrongSignature),
        1 => any::<usize>().prop_map(FrameDamage::DropFrame),
        1 => any::<usize>().prop_map(FrameDamage::DuplicateFrame),
        1 => (any::<usize>(), prop::collection::vec(any::<u8>(), 0..16))
            .prop_map(|(k, b)| FrameDamage::Garble(k, b)),
        1 => Just(FrameDamage::NoDelimiter),
        1 => (0usize..4).prop_map(FrameDamage::ExtraBuffers),
    ]
}

/// One generated message.
#[derive(Clone, Debug)]
struct Case {
    ty: String,
    code: usize,
    /// (field, Some(value) to set / None to remove).
    edits: Vec<(usize, Option<Value>)>,
    /// The content replaced by a value of another kind.
    content: Option<Value>,
    /// The header's msg_type replaced, or the header not an object.
    header: Option<Value>,
    identities: usize,
    channel: Channel,
    damage: FrameDamage,
}

fn case() -> impl Strategy<Value = Case> {
    let ty = prop_oneof![
        9 => prop::sample::select(TYPES).prop_map(String::from),
        1 => "\\PC{0,12}(_request)?",
        1 => Just("x".repeat(1_000) + "_request"),
    ];
    (
        ty,
        any::<usize>(),
        prop::collection::vec(
            (
                any::<usize>(),
                prop_oneof![3 => any_json().prop_map(Some), 1 => Just(None)],
            ),
            0..4,
        ),
        prop_oneof![8 => Just(None), 1 => any_json().prop_map(Some)],
        prop_oneof![
            12 => Just(None),
            1 => any_json().prop_map(Some),
            1 => Just(Some(json!({"msg_id": "m"}))),
        ],
        0usize..3,
        prop_oneof![4 => Just(Channel::Shell), 1 => Just(Channel::Control)],
        frame_damage(),
    )
        .prop_map(
            |(ty, code, edits, content, header, identities, channel, damage)| Case {
                ty,
                code,
                edits,
                content,
                header,
                identities,
                channel,
                damage,
            },
        )
}

/// The frames of a case, signed with [`KEY`] and then damaged.
fn frames(c: &Case, n: usize) -> Vec<Bytes> {
    let pool = code_pool();
    let mut content = base_content(&c.ty, &pool[c.code % pool.len()]);
    for (field, value) in &c.edits {
        let f = FIELDS[field % FIELDS.len()];
        if let Some(obj) = content.as_object_mut() {
            match value {
                Some(v) => obj.insert(f.to_string(), v.clone()),
                None => obj.remove(f),
            };
        }
    }
    if let Some(v) = &c.content {
        content = v.clone();
    }
    let ident = Identity::new();
    let mut header = ident.header(&c.ty);
    header["msg_id"] = json!(format!("fuzz-{n}"));
    match &c.header {
        Some(Value::String(t)) => header["msg_type"] = json!(t),
        Some(Value::Object(h)) => header = Value::Object(h.clone()),
        Some(other) => header = other.clone(),
        None => {}
    }
    let msg = Message {
        identities: (0..c.identities)
            .map(|i| Bytes::from(format!("client-{i}")))
            .collect(),
        header,
        parent_header: json!({}),
        metadata: json!({}),
        content,
        buffers: Vec::new(),
    };
    let mut frames = Verifier::new(KEY).encode(&msg);
    let delim = frames
        .iter()
        .position(|f| &f[..] == DELIMITER)
        .expect("encode writes the delimiter");
    let pick = |k: usize, len: usize| k % len.max(1);
    match &c.damage {
        FrameDamage::None => {}
        FrameDamage::Unsigned => frames[delim + 1] = Bytes::new(),
        FrameDamage::WrongSignature => frames[delim + 1] = Bytes::from("0".repeat(64)),
        FrameDamage::DropFrame(k) => {
            let k = pick(*k, frames.len());
            frames.remove(k);
        }
        FrameDamage::DuplicateFrame(k) => {
            let k = pick(*k, frames.len());
            let f = frames[k].clone();
            frames.insert(k, f);
        }
        FrameDamage::Garble(k, bytes) => {
            let k = pick(*k, frames.len());
            frames[k] = Bytes::from(bytes.clone());
        }
        FrameDamage::NoDelimiter => {
            frames.remove(delim);
        }
        FrameDamage::ExtraBuffers(n) => {
            frames.extend((0..*n).map(|i| Bytes::from(vec![i as u8; i * 7])));
        }
    }
    frames
}

/// The kernel's state for one run, without sockets.
struct Harness {
    /// Frame sets dropped, requests answered (ok, error), other messages.
    tally: [usize; 4],
    k: Shared,
    exec: Executor,
    iopub: mpsc::UnboundedReceiver<Message>,
    rt: tokio::runtime::Runtime,
}

impl Harness {
    fn new() -> Harness {
        let conn = ConnectionInfo {
            transport: "tcp".into(),
            ip: "127.0.0.1".into(),
            shell_port: 1,
            iopub_port: 2,
            stdin_port: 3,
            control_port: 4,
            hb_port: 5,
            key: KEY.into(),
            signature_scheme: "hmac-sha256".into(),
        };
        let (tx, iopub) = mpsc::unbounded_channel();
        let dir = std::env::temp_dir().join(format!("passlab-kernel-fuzz-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let worker = Worker::start(dir);
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap();
        let h = Harness {
            tally: [0; 4],
            k: Shared::new(conn, worker, tx),
            exec: Executor::new(),
            iopub,
            rt,
        };
        h.rt.block_on(
            h.k.worker
                .run(|s| s.set_var("kept_by_the_kernel", passlab::session::Value::Int(42))),
        )
        .unwrap();
        h
    }

    /// One frame set arriving on `channel`, as the socket loop handles it.
    fn handle(&mut self, frames: Vec<Bytes>, channel: Channel) -> Result<(), TestCaseError> {
        let msg = match self.k.verifier.decode(frames) {
            Ok(msg) if !msg.msg_type().is_empty() => msg,
            _ => {
                self.tally[0] += 1;
                return Ok(());
            }
        };
        self.dispatch(channel, msg)
    }

    fn dispatch(&mut self, channel: Channel, msg: Message) -> Result<(), TestCaseError> {
        let exec = (channel == Channel::Shell).then_some(&mut self.exec);
        let done = self.rt.block_on(dispatch(&self.k, channel, exec, &msg));
        match reply_type(msg.msg_type()) {
            Some(want) => {
                prop_assert_eq!(done.replies.len(), 1, "{:?}", msg);
                let (ty, content) = &done.replies[0];
                prop_assert_eq!(ty, &want);
                check_reply(&want, content)?;
                let failed = content.get("status").and_then(Value::as_str) == Some("error");
                self.tally[1 + usize::from(failed)] += 1;
            }
            None => {
                prop_assert!(done.replies.is_empty(), "{:?}", done.replies);
                self.tally[3] += 1;
            }
        }
        // Every reply and iopub message goes through the wire and back.
        let back = Verifier::new(KEY);
        for (ty, content) in done.replies {
            let reply = self.k.ident.reply(&msg, &ty, content);
            prop_assert!(back.decode(self.k.verifier.encode(&reply)).is_ok());
        }
        while let Ok(m) = self.iopub.try_recv() {
            prop_assert!(back.decode(self.k.verifier.encode(&m)).is_ok());
        }
        // The session goes on, with its variables.
        let kept = self
            .rt
            .block_on(self.k.worker.run(|s| s.var("kept_by_the_kernel").is_some()));
        prop_assert_eq!(kept, Ok(true));
        Ok(())
    }
}

/// A reply's content: an object with a status; an error names and explains itself, and
/// is never a panic the worker or the session caught.
fn check_reply(ty: &str, c: &Value) -> Result<(), TestCaseError> {
    prop_assert!(
        !c.to_string().contains("internal error"),
        "{ty} reports a panic: {c}"
    );
    let status = c.get("status").and_then(Value::as_str);
    let allowed: &[&str] = if ty == "is_complete_reply" {
        &["complete", "incomplete", "invalid", "unknown", "error"]
    } else {
        &["ok", "error", "aborted"]
    };
    prop_assert!(
        status.is_some_and(|s| allowed.contains(&s)),
        "{ty} without a status: {c}"
    );
    if status == Some("error") {
        prop_assert!(c.get("ename").is_some_and(Value::is_string), "{c}");
        prop_assert!(c.get("evalue").is_some_and(Value::is_string), "{c}");
        prop_assert!(c.get("traceback").is_some_and(Value::is_array), "{c}");
    }
    Ok(())
}

fn cases() -> u32 {
    std::env::var("PASSLAB_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2000)
}

#[test]
fn every_message_gets_an_answer_and_the_session_survives() {
    let h = Harness::new();
    let config = Config {
        cases: cases(),
        failure_persistence: None,
        max_shrink_iters: 100,
        ..Config::default()
    };
    let seed: u64 = std::env::var("PASSLAB_FUZZ_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(7);
    let mut key = [0u8; 32];
    key[..8].copy_from_slice(&seed.to_le_bytes());
    let rng = TestRng::from_seed(RngAlgorithm::ChaCha, &key);
    let mut runner = TestRunner::new_with_rng(config, rng);
    let n = std::cell::Cell::new(0usize);
    let h = std::cell::RefCell::new(h);
    let result = runner.run(&case(), |c| {
        n.set(n.get() + 1);
        h.borrow_mut().handle(frames(&c, n.get()), c.channel)
    });
    if let Err(e) = result {
        panic!("{e}");
    }
    let [dropped, ok, error, other] = h.borrow().tally;
    eprintln!(
        "{} messages: {dropped} dropped, {ok} answered ok, {error} answered with an error, \
         {other} needing no answer",
        n.get()
    );
}

/// Frames no client could produce: nothing, only delimiters, huge identities.
#[test]
fn garbage_frames_are_dropped() {
    let mut h = Harness::new();
    let cases: Vec<Vec<Bytes>> = vec![
        vec![],
        vec![Bytes::from_static(DELIMITER); 7],
        vec![Bytes::from(vec![0xff; 100_000])],
        {
            let mut f = vec![Bytes::from(vec![b'i'; 100_000])];
            f.push(Bytes::from_static(DELIMITER));
            f.extend((0..5).map(|_| Bytes::from_static(b"{")));
            f
        },
    ];
    for frames in cases {
        h.handle(frames.clone(), Channel::Shell).unwrap();
        h.handle(frames, Channel::Control).unwrap();
    }
}
