//! The five sockets and their tasks, on one tokio thread: shell and control (ROUTER), iopub
//! (XPUB, so a subscription is seen and answered with `iopub_welcome`), stdin (ROUTER, unused:
//! the language never asks for input) and heartbeat (REP, echo). Nothing a peer sends ends a
//! loop: a frame that fails to decode or verify is logged and dropped.

use crate::connection::ConnectionInfo;
use crate::execute::Executor;
use crate::kernel::{aborted_reply, dispatch, Channel, Shared};
use crate::log;
use crate::wire::Message;
use crate::worker::Worker;
use bytes::Bytes;
use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc;
use zeromq::{RepSocket, RouterSocket, Socket, SocketRecv, SocketSend, XPubSocket, ZmqMessage};

/// Runs the kernel until a shutdown request; returns the process exit code.
pub fn run(conn: ConnectionInfo) -> i32 {
    let rt = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            return 1;
        }
    };
    rt.block_on(serve(conn))
}

async fn bind<S: Socket>(mut s: S, conn: &ConnectionInfo, port: u16) -> Result<S, String> {
    let ep = conn.endpoint(port);
    s.bind(&ep)
        .await
        .map_err(|e| format!("cannot bind {ep}: {e}"))?;
    Ok(s)
}

async fn serve(conn: ConnectionInfo) -> i32 {
    let sockets = async {
        Ok::<_, String>((
            bind(RouterSocket::new(), &conn, conn.shell_port).await?,
            bind(RouterSocket::new(), &conn, conn.control_port).await?,
            bind(XPubSocket::new(), &conn, conn.iopub_port).await?,
            bind(RouterSocket::new(), &conn, conn.stdin_port).await?,
            bind(RepSocket::new(), &conn, conn.hb_port).await?,
        ))
    };
    let (shell, control, iopub, stdin, hb) = match sockets.await {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {e}");
            return 1;
        }
    };
    let base_dir = std::env::current_dir().unwrap_or_default();
    let worker = Worker::start(base_dir);
    let (iopub_tx, iopub_rx) = mpsc::unbounded_channel();
    let k = Arc::new(Shared::new(conn, worker, iopub_tx));

    tokio::spawn(iopub_loop(k.clone(), iopub, iopub_rx));
    tokio::spawn(heartbeat_loop(hb));
    tokio::spawn(stdin_loop(stdin));
    tokio::spawn(sigint_loop(k.clone()));
    tokio::spawn(router_loop(k.clone(), shell, Channel::Shell));
    tokio::spawn(router_loop(k.clone(), control, Channel::Control));

    k.publish(
        None,
        "status",
        serde_json::json!({"execution_state": "starting"}),
    );
    k.shutdown.notified().await;
    // Entered contexts are exited so their instruments finish (a cell still running gets a
    // moment, not forever).
    let exit = k.worker.run(|s| {
        s.exit_all_contexts();
    });
    let _ = tokio::time::timeout(Duration::from_secs(1), exit).await;
    // `send` only queues: give the shutdown reply (and iopub) time to leave.
    tokio::time::sleep(Duration::from_millis(200)).await;
    0
}

async fn router_loop(k: Arc<Shared>, mut socket: RouterSocket, channel: Channel) {
    let mut exec = (channel == Channel::Shell).then(Executor::new);
    let mut pending: VecDeque<Message> = VecDeque::new();
    loop {
        let msg = match pending.pop_front() {
            Some(m) => m,
            None => match recv_request(&k, &mut socket, channel).await {
                Some(m) => m,
                None => continue,
            },
        };
        let is_shell = channel == Channel::Shell;
        if is_shell {
            k.status(&msg, "busy");
        }
        let done = dispatch(&k, channel, exec.as_mut(), &msg).await;
        // Requests that were already waiting when the cell failed are collected before its
        // reply leaves, so a request sent after the client saw the reply is never aborted.
        let aborted = if done.abort_queue {
            collect_queued(&k, &mut socket, &mut pending).await
        } else {
            Vec::new()
        };
        for (msg_type, content) in done.replies {
            let reply = k.ident.reply(&msg, &msg_type, content);
            send(&k, &mut socket, &reply, channel).await;
        }
        if is_shell {
            k.status(&msg, "idle");
        }
        for m in aborted {
            k.status(&m, "busy");
            let reply = k.ident.reply(&m, "execute_reply", aborted_reply());
            send(&k, &mut socket, &reply, channel).await;
            k.status(&m, "idle");
        }
        if done.shutdown {
            k.shutdown.notify_one();
        }
    }
}

/// The next request that decodes and verifies; None when a frame set was dropped.
async fn recv_request(k: &Shared, socket: &mut RouterSocket, channel: Channel) -> Option<Message> {
    let frames = match socket.recv().await {
        Ok(m) => m.into_vec(),
        Err(e) => {
            log!("{channel:?}: receive failed: {e}");
            tokio::time::sleep(Duration::from_millis(10)).await;
            return None;
        }
    };
    match k.verifier.decode(frames) {
        Ok(m) if m.msg_type().is_empty() => {
            log!("{channel:?}: dropped a signed message without a header msg_type");
            None
        }
        Ok(m) => {
            crate::debug!("{channel:?}: <- {}", m.msg_type());
            Some(m)
        }
        Err(r) => {
            log!("{channel:?}: dropped a message: {r}");
            None
        }
    }
}

/// After a failed cell with `stop_on_error`: the execute requests already waiting, to be
/// answered "aborted" without running; anything else waiting is kept, in order, for the loop.
async fn collect_queued(
    k: &Shared,
    socket: &mut RouterSocket,
    pending: &mut VecDeque<Message>,
) -> Vec<Message> {
    let mut aborted: Vec<Message> = Vec::new();
    // Those already taken off the socket first.
    let mut keep = VecDeque::new();
    for m in pending.drain(..) {
        if m.msg_type() == "execute_request" {
            aborted.push(m);
        } else {
            keep.push_back(m);
        }
    }
    *pending = keep;
    loop {
        let next = tokio::time::timeout(
            Duration::from_millis(1),
            recv_request(k, socket, Channel::Shell),
        )
        .await;
        match next {
            Ok(Some(m)) if m.msg_type() == "execute_request" => aborted.push(m),
            Ok(Some(m)) => pending.push_back(m),
            Ok(None) => {}
            Err(_) => break,
        }
    }
    aborted
}

async fn send(k: &Shared, socket: &mut RouterSocket, msg: &Message, channel: Channel) {
    if msg.identities.is_empty() {
        log!("{channel:?}: a request without a routing identity cannot be answered");
        return;
    }
    let Ok(zmq) = ZmqMessage::try_from(k.verifier.encode(msg)) else {
        return;
    };
    crate::debug!("{channel:?}: -> {}", msg.msg_type());
    if let Err(e) = socket.send(zmq).await {
        log!("{channel:?}: send failed: {e}");
    }
}

async fn iopub_loop(
    k: Arc<Shared>,
    mut socket: XPubSocket,
    mut rx: mpsc::UnboundedReceiver<Message>,
) {
    loop {
        tokio::select! {
            msg = rx.recv() => {
                let Some(msg) = msg else { return };
                if let Ok(zmq) = ZmqMessage::try_from(k.verifier.encode(&msg)) {
                    if let Err(e) = socket.send(zmq).await {
                        log!("iopub: send failed: {e}");
                    }
                }
            }
            sub = socket.recv() => match sub {
                // A subscription is one frame: 1 then the topic (0 then the topic unsubscribes).
                Ok(m) => if let Some(topic) = m.get(0).and_then(|f| f.strip_prefix(&[1u8][..])) {
                    welcome(&k, &mut socket, topic).await;
                },
                Err(e) => {
                    log!("iopub: receive failed: {e}");
                    tokio::time::sleep(Duration::from_millis(10)).await;
                }
            }
        }
    }
}

/// JEP 65: tell a new subscriber its subscription is live.
async fn welcome(k: &Shared, socket: &mut XPubSocket, topic: &[u8]) {
    let topic_str = String::from_utf8_lossy(topic).into_owned();
    let mut msg = k.ident.publish(
        None,
        "iopub_welcome",
        serde_json::json!({ "subscription": topic_str }),
    );
    msg.identities = if topic.is_empty() {
        Vec::new()
    } else {
        vec![Bytes::copy_from_slice(topic)]
    };
    if let Ok(zmq) = ZmqMessage::try_from(k.verifier.encode(&msg)) {
        if let Err(e) = socket.send(zmq).await {
            log!("iopub: welcome failed: {e}");
        }
    }
}

async fn heartbeat_loop(mut socket: RepSocket) {
    loop {
        match socket.recv().await {
            Ok(m) => {
                if let Err(e) = socket.send(m).await {
                    log!("heartbeat: send failed: {e}");
                }
            }
            Err(e) => {
                log!("heartbeat: receive failed: {e}");
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        }
    }
}

/// The stdin channel: bound because clients connect to it; the language never reads input,
/// so whatever arrives is dropped.
async fn stdin_loop(mut socket: RouterSocket) {
    loop {
        if socket.recv().await.is_err() {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }
}

/// SIGINT (what clients send with `interrupt_mode: signal`, or Ctrl-C in a terminal)
/// interrupts the running pipeline instead of killing the kernel.
async fn sigint_loop(k: Arc<Shared>) {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        let Ok(mut sig) = signal(SignalKind::interrupt()) else {
            log!("cannot handle SIGINT");
            return;
        };
        while sig.recv().await.is_some() {
            log!("SIGINT: interrupting the running pipeline");
            k.worker.interrupt();
        }
    }
    #[cfg(not(unix))]
    {
        while tokio::signal::ctrl_c().await.is_ok() {
            k.worker.interrupt();
        }
    }
}
