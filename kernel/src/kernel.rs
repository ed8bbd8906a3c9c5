//! Request dispatch for the shell and control channels. Every request whose header names a
//! type gets a reply: a known request its reply, a malformed one an error reply of the same
//! type, an unknown `*_request` an error reply naming the type. Shell requests are framed by
//! `status: busy` / `status: idle` on iopub, as ipykernel does (clients use them to know the
//! kernel is ready and when a cell is done).

use crate::connection::ConnectionInfo;
use crate::execute::Executor;
use crate::log;
use crate::requests;
use crate::wire::{Identity, Message, Verifier};
use crate::worker::Worker;
use serde_json::{json, Value};
use std::sync::Arc;
use tokio::sync::{mpsc, Notify};

/// What the channel tasks share.
pub struct Shared {
    pub ident: Identity,
    pub verifier: Verifier,
    pub worker: Worker,
    pub conn: ConnectionInfo,
    iopub: mpsc::UnboundedSender<Message>,
    /// Notified once a shutdown reply was sent.
    pub shutdown: Arc<Notify>,
}

impl Shared {
    pub fn new(
        conn: ConnectionInfo,
        worker: Worker,
        iopub: mpsc::UnboundedSender<Message>,
    ) -> Shared {
        Shared {
            ident: Identity::new(),
            verifier: Verifier::new(&conn.key),
            worker,
            conn,
            iopub,
            shutdown: Arc::new(Notify::new()),
        }
    }

    /// A publisher of iopub messages under `parent`, for another thread (the session's, which
    /// streams a cell's output while it runs).
    pub fn publisher(&self, parent: &Message) -> Publisher {
        Publisher {
            ident: self.ident.clone(),
            iopub: self.iopub.clone(),
            parent: parent.clone(),
        }
    }

    /// Queues an iopub message.
    pub fn publish(&self, parent: Option<&Message>, msg_type: &str, content: Value) {
        let _ = self
            .iopub
            .send(self.ident.publish(parent, msg_type, content));
    }

    pub fn status(&self, parent: &Message, state: &str) {
        self.publish(Some(parent), "status", json!({ "execution_state": state }));
    }
}

/// Publishes iopub messages under one parent request, from any thread.
pub struct Publisher {
    ident: Identity,
    iopub: mpsc::UnboundedSender<Message>,
    parent: Message,
}

impl Publisher {
    pub fn publish(&self, msg_type: &str, content: Value) {
        let _ = self
            .iopub
            .send(self.ident.publish(Some(&self.parent), msg_type, content));
    }
}

/// Which socket a request came in on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Channel {
    Shell,
    Control,
}

/// The reply type of a request type (`execute_request` -> `execute_reply`).
pub fn reply_type(msg_type: &str) -> Option<String> {
    msg_type
        .strip_suffix("_request")
        .map(|base| format!("{base}_reply"))
}

/// An error reply's content.
pub fn error_reply(ename: &str, evalue: &str) -> Value {
    json!({"status": "error", "ename": ename, "evalue": evalue, "traceback": []})
}

/// Handles one request; returns the replies to send on the request's channel (in order).
/// `exec` is the shell's execution state (None on control).
pub async fn dispatch(
    k: &Shared,
    channel: Channel,
    exec: Option<&mut Executor>,
    msg: &Message,
) -> Dispatched {
    let msg_type = msg.msg_type().to_string();
    let Some(reply_ty) = reply_type(&msg_type) else {
        // Not a request: comm messages and the like. No comms exist, so a comm_open is
        // closed at once; everything else needs no answer.
        if msg_type == "comm_open" {
            let id = msg
                .content_obj()
                .get("comm_id")
                .cloned()
                .unwrap_or(json!(""));
            k.publish(Some(msg), "comm_close", json!({"comm_id": id, "data": {}}));
        } else {
            log!("{channel:?}: ignored a `{msg_type}` message");
        }
        return Dispatched::default();
    };
    if !msg.content.is_object() {
        return Dispatched::reply(
            reply_ty,
            error_reply("BadRequest", "the message content is not a JSON object"),
        );
    }
    let c = msg.content_obj();
    let result: Result<Value, String> = match msg_type.as_str() {
        "kernel_info_request" => Ok(requests::kernel_info()),
        "is_complete_request" => requests::is_complete_reply(c),
        "shutdown_request" => {
            let restart = c.get("restart").and_then(Value::as_bool).unwrap_or(false);
            let content = json!({"status": "ok", "restart": restart});
            // ipykernel also announces it on iopub.
            k.publish(Some(msg), "shutdown_reply", content.clone());
            return Dispatched {
                replies: vec![(reply_ty, content)],
                shutdown: true,
                abort_queue: false,
            };
        }
        "interrupt_request" => {
            k.worker.interrupt();
            Ok(json!({"status": "ok"}))
        }
        "connect_request" => Ok(json!({
            "status": "ok",
            "shell_port": k.conn.shell_port,
            "iopub_port": k.conn.iopub_port,
            "stdin_port": k.conn.stdin_port,
            "control_port": k.conn.control_port,
            "hb_port": k.conn.hb_port,
        })),
        "comm_info_request" => Ok(json!({"status": "ok", "comms": {}})),
        _ if channel == Channel::Control => Err(format!(
            "`{msg_type}` is not handled on the control channel"
        )),
        "complete_request" => requests::complete(&k.worker, c).await,
        "inspect_request" => requests::inspect(&k.worker, c).await,
        "history_request" => {
            let exec = exec.expect("shell requests come with the executor");
            match c.get("hist_access_type").and_then(Value::as_str) {
                Some("tail" | "range" | "search") => {
                    Ok(json!({"status": "ok", "history": exec.history.query(c)}))
                }
                _ => Err("`hist_access_type` must be tail, range or search".into()),
            }
        }
        "execute_request" => {
            let exec = exec.expect("shell requests come with the executor");
            match exec.execute(k, msg).await {
                Ok(done) => {
                    return Dispatched {
                        replies: vec![(reply_ty, done.reply)],
                        shutdown: false,
                        abort_queue: done.abort_queue,
                    }
                }
                Err(e) => {
                    let mut r = error_reply("BadRequest", &e);
                    r["execution_count"] = json!(exec.count);
                    return Dispatched::reply(reply_ty, r);
                }
            }
        }
        _ => {
            return Dispatched::reply(
                reply_ty,
                error_reply(
                    "UnknownMessageType",
                    &format!("passlab does not handle `{msg_type}`"),
                ),
            )
        }
    };
    match result {
        Ok(content) => Dispatched::reply(reply_ty, content),
        Err(e) => Dispatched::reply(reply_ty, error_reply("BadRequest", &e)),
    }
}

/// The outcome of dispatching one request.
#[derive(Default)]
pub struct Dispatched {
    /// (msg_type, content) of each reply.
    pub replies: Vec<(String, Value)>,
    pub shutdown: bool,
    pub abort_queue: bool,
}

impl Dispatched {
    fn reply(msg_type: String, content: Value) -> Dispatched {
        Dispatched {
            replies: vec![(msg_type, content)],
            ..Dispatched::default()
        }
    }
}

/// The reply content of an execute request aborted after an earlier cell failed.
pub fn aborted_reply() -> Value {
    json!({"status": "aborted"})
}
