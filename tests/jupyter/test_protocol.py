"""The kernel with jupyter_client: an execute round trip per value kind, interrupts (message
and SIGINT) during a long pipeline, restart, and the security and robustness rules: wrong or
missing signatures and replays never execute, malformed signed requests get error replies,
garbage on any port leaves the kernel answering. Completion kinds, inspect on a keyword
argument, and the kernel's exit when its parent dies."""
from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time

import pytest
import zmq
from jupyter_client.blocking import BlockingKernelClient
from jupyter_client.manager import start_new_kernel
from jupyter_client.session import Session

from helpers import CORPUS, KERNEL_NAME, execute, long_pipeline_code, request

MODULE = 'parse("""def @main(%x: Tensor[(1, 4), float32]) { add(%x, 1f) }""")'


@pytest.fixture(scope="module")
def kernel():
    km, kc = start_new_kernel(kernel_name=KERNEL_NAME)
    yield km, kc
    kc.stop_channels()
    km.shutdown_kernel(now=False)


@pytest.fixture
def kc(kernel):
    return kernel[1]


def only(outputs, kind):
    found = [c for k, c in outputs if k == kind]
    assert len(found) == 1, outputs
    return found[0]


# (code, iopub message type, text/plain fragment, text/html fragment or None)
VALUE_KINDS = [
    ("7", "execute_result", "7", None),
    ("2.5", "execute_result", "2.5", None),
    ('"π and →"', "execute_result", '"π and →"', None),
    ("true", "execute_result", "true", None),
    ('[1, "two", [3]]', "execute_result", '[1, "two", [3]]', None),
    ('{"a": 1}', "execute_result", '{"a": 1}', None),
    (MODULE, "execute_result", "add(%x, 1f)", '<pre class="passlab-ir"'),
    (f'{MODULE}["main"]', "execute_result", "def @main(%x", "<span"),
    ("InferType()", "execute_result", "module pass InferType", None),
    ('Trace(name="t")', "execute_result", "instrument t", None),
    ("PassContext(opt_level=3)", "execute_result", "opt_level", "<table"),
    ("show Sequential([InferType(), PrintIR()])", "display_data", "✓ InferType", None),
    ("passes", "display_data", "InferType", "<table"),
    ("configs", "display_data", "passlab.required", "<table"),
    ("help Sequential", "display_data", "Sequential(", None),
]


@pytest.mark.parametrize("code,kind,plain,html", VALUE_KINDS, ids=[v[0][:30] for v in VALUE_KINDS])
def test_value_kinds(kc, code, kind, plain, html):
    reply, outputs = execute(kc, code)
    assert reply["status"] == "ok", reply
    content = only(outputs, kind)
    assert plain in content["data"]["text/plain"]
    assert "\x1b[" not in content["data"]["text/plain"]
    if html:
        assert html in content["data"]["text/html"]
    if kind == "execute_result":
        assert content["execution_count"] == reply["execution_count"]


def test_none_shows_nothing_and_counts(kc):
    first, outputs = execute(kc, "None")
    assert first["status"] == "ok" and outputs == []
    second, _ = execute(kc, "x = 1")
    assert second["execution_count"] == first["execution_count"] + 1
    silent, outputs = execute(kc, "y = 2", silent=True)
    assert outputs == [] and silent["execution_count"] == second["execution_count"]


def test_pipeline_timing_and_diff(kc):
    code = (
        f"m = {MODULE}\n"
        "with PassContext(opt_level=3, instruments=[PassTimingInstrument(), PrintChanged()]) {\n"
        "  m2 = Sequential([InferType()])(m)\n"
        "}\n"
        "timing"
    )
    reply, outputs = execute(kc, code)
    assert reply["status"] == "ok", outputs
    # PrintChanged's diff is rendered (a display of its own), then the timing table.
    displays = [c for k, c in outputs if k in ("display_data", "execute_result")]
    diffs = [d for d in displays if "--- before InferType" in d["data"]["text/plain"]]
    assert diffs and "text/html" in diffs[0]["data"], outputs
    tables = [d for d in displays if "<table" in d["data"].get("text/html", "")]
    assert tables and "InferType" in tables[0]["data"]["text/plain"], outputs
    reply, outputs = execute(kc, "diff m m2")
    diff = only(outputs, "display_data")
    assert "--- m" in diff["data"]["text/plain"] and "passlab-diff" in diff["data"]["text/html"]


def test_print_and_warning_streams(kc, tmp_path):
    (tmp_path / "mine.txt").write_text("keep me")
    reply, outputs = execute(
        kc,
        f"m = {MODULE}\n"
        f'with PassContext(instruments=[DumpIR("{tmp_path}", refresh=true)]) {{ m2 = InferType()(m) }}\n'
        'print("done", 1)',
    )
    assert reply["status"] == "ok"
    streams = [(c["name"], c["text"]) for k, c in outputs if k == "stream"]
    assert streams[0][0] == "stderr" and "DumpIR keeps" in streams[0][1]
    assert streams[-1] == ("stdout", "done 1\n")
    assert (tmp_path / "mine.txt").exists()


def test_error_keeps_values_and_names_the_cell(kc):
    execute(kc, "kept = 41")
    reply, outputs = execute(kc, "kept = 1\nundefined_thing")
    assert reply["status"] == "error"
    err = only(outputs, "error")
    assert err["evalue"] == "unknown name `undefined_thing`"
    assert any(f"In [{reply['execution_count']}]:2:1" in line for line in err["traceback"])
    _, outputs = execute(kc, "kept")
    assert only(outputs, "execute_result")["data"]["text/plain"] == "1"


def test_pager_payload(kc):
    reply, outputs = execute(kc, "InferType?")
    assert reply["status"] == "ok" and outputs == []
    page = reply["payload"][0]
    assert page["source"] == "page" and "module pass" in page["data"]["text/plain"]


def test_completion_counts_code_points(kc):
    code = 'x = "π→"\nPassCon'
    reply = request(kc, "complete", code, len(code))
    assert reply["matches"] == ["PassContext("]
    assert (reply["cursor_start"], reply["cursor_end"]) == (len(code) - 7, len(code))
    reply, _ = execute(kc, "pipeline_one = Sequential([])")
    assert reply["status"] == "ok"
    reply = request(kc, "complete", 'x = "π"; pipeline_', 18)
    assert "pipeline_one" in reply["matches"] and reply["cursor_start"] == 9


def test_inspect_under_cursor(kc):
    code = 'π = 1\nPassContext(opt_level=3)'
    reply = request(kc, "inspect", code, code.index("PassContext") + 3)
    assert reply["found"] and "opt_level" in reply["data"]["text/plain"]
    reply = request(kc, "inspect", "nothing_here", 3)
    assert reply["status"] == "ok" and not reply["found"]


def test_completion_replies_carry_kinds(kc):
    """JupyterLab labels each candidate with the `type` of IPython's experimental metadata."""
    reply, _ = execute(kc, f"fold_me = {MODULE}")
    assert reply["status"] == "ok"
    for code, text, kind in [("Fo", "FoldConstant(", "pass"), ("fo", "fold_me", "module")]:
        reply = request(kc, "complete", code, len(code))
        types = reply["metadata"]["_jupyter_types_experimental"]
        assert [t["text"] for t in types] == reply["matches"]
        assert {"start": 0, "end": 2, "text": text, "type": kind} in types, types
    code = "with PassContext(opt_le"
    reply = request(kc, "complete", code, len(code))
    types = reply["metadata"]["_jupyter_types_experimental"]
    assert {"start": 17, "end": 23, "text": "opt_level=", "type": "param"} in types, types
    reply = request(kc, "complete", "x = PassTim", 11)
    kinds = {t["text"]: t["type"] for t in reply["metadata"]["_jupyter_types_experimental"]}
    assert kinds == {"PassTimingInstrument(": "instrument"}, kinds


def test_inspect_on_a_keyword_argument(kc):
    code = "FoldConstant(fold_qnn=True)"
    reply = request(kc, "inspect", code, code.index("fold_qnn") + 4)
    assert reply["found"], reply
    text = reply["data"]["text/plain"]
    assert text.startswith("FoldConstant(fold_qnn=...): bool"), text
    # At the end of the name, as Shift-Tab right after typing it.
    reply = request(kc, "inspect", "FoldConstant(fold_qnn=", len("FoldConstant(fold_qnn"))
    assert reply["data"]["text/plain"] == text


def test_the_kernel_exits_when_its_parent_dies(tmp_path):
    """Jupyter sets JPY_PARENT_PID; a kernel whose launcher is killed exits (as ipykernel
    does) instead of running on, orphaned."""
    launcher = tmp_path / "launch.py"
    launcher.write_text(
        "import sys, time\n"
        "from jupyter_client.manager import KernelManager\n"
        f"km = KernelManager(kernel_name={KERNEL_NAME!r})\n"
        "km.start_kernel()\n"
        "print(km.provisioner.process.pid, km.connection_file, flush=True)\n"
        "time.sleep(600)\n"
    )
    proc = subprocess.Popen([sys.executable, str(launcher)], stdout=subprocess.PIPE, text=True)
    try:
        pid_text, conn = proc.stdout.readline().split()
        pid = int(pid_text)
        kc = BlockingKernelClient(connection_file=conn)
        kc.load_connection_file()
        kc.start_channels()
        try:
            kc.wait_for_ready(timeout=30)
            assert execute(kc, "1")[0]["status"] == "ok"
        finally:
            kc.stop_channels()
        assert alive(pid), "the kernel runs while its parent does"
        proc.kill()
        proc.wait()
        deadline = time.time() + 10
        while alive(pid) and time.time() < deadline:
            time.sleep(0.1)
        assert not alive(pid), "the kernel outlived its parent by 10 s"
    finally:
        proc.kill()
        proc.wait()
        try:
            os.kill(pid, signal.SIGKILL)
        except (ProcessLookupError, NameError, UnboundLocalError):
            pass


def alive(pid: int) -> bool:
    """Whether process `pid` runs (a zombie, exited but not yet reaped, does not)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except FileNotFoundError:
        return False


def test_comm_info_and_kernel_info(kc):
    assert request(kc, "comm_info")["comms"] == {}
    info = request(kc, "kernel_info")
    assert info["protocol_version"] == "5.3"
    lang = info["language_info"]
    assert (lang["name"], lang["file_extension"], lang["pygments_lexer"]) == ("passlab", ".passlab", "python")


def test_stop_on_error_aborts_queued_cells(kc):
    first = kc.execute("undefined_a")
    second = kc.execute("after = 1")
    replies = {}
    while len(replies) < 2:
        msg = kc.get_shell_msg(timeout=10)
        replies[msg["parent_header"]["msg_id"]] = msg["content"]
    assert replies[first]["status"] == "error"
    assert replies[second]["status"] == "aborted"
    _, outputs = execute(kc, "after")
    assert only(outputs, "error")["evalue"] == "unknown name `after`"


def run_and_interrupt(km, kc, interrupt):
    execute(kc, long_pipeline_code() + "\nbefore = 1", timeout=60)
    msg_id = kc.execute("out = slow(big)")
    time.sleep(0.5)
    start = time.time()
    interrupt()
    reply = kc.get_shell_msg(timeout=30)
    while reply["parent_header"]["msg_id"] != msg_id:
        reply = kc.get_shell_msg(timeout=30)
    return reply["content"], time.time() - start


def test_interrupt_message_stops_a_long_pipeline(kernel):
    km, kc = kernel
    assert km.kernel_spec.interrupt_mode == "message"
    reply, elapsed = run_and_interrupt(km, kc, km.interrupt_kernel)
    assert reply["status"] == "error", reply
    assert reply["ename"] == "Interrupted" and "interrupted" in reply["evalue"]
    assert elapsed < 5, f"the interrupt took {elapsed:.1f}s"
    _, outputs = execute(kc, "before")
    assert only(outputs, "execute_result")["data"]["text/plain"] == "1"
    _, outputs = execute(kc, "out")
    assert only(outputs, "error")["evalue"] == "unknown name `out`"


def test_sigint_interrupts_and_the_kernel_survives(kernel):
    km, kc = kernel
    reply, elapsed = run_and_interrupt(km, kc, lambda: km.signal_kernel(signal.SIGINT))
    assert reply["status"] == "error" and "interrupted" in reply["evalue"], reply
    assert elapsed < 5
    assert km.is_alive()
    reply, outputs = execute(kc, "before")
    assert reply["status"] == "ok"


def test_restart_starts_a_fresh_session():
    km, kc = start_new_kernel(kernel_name=KERNEL_NAME)
    try:
        execute(kc, "x = 41")
        km.restart_kernel(now=False)
        kc.wait_for_ready(timeout=30)
        reply, outputs = execute(kc, "x")
        assert reply["status"] == "error" and reply["execution_count"] == 1
        assert only(outputs, "error")["evalue"] == "unknown name `x`"
    finally:
        kc.stop_channels()
        km.shutdown_kernel()


# --- security and robustness, with raw ZeroMQ sockets --------------------------------------

def raw_socket(km, channel, kind=zmq.DEALER):
    ctx = zmq.Context.instance()
    s = ctx.socket(kind)
    s.linger = 0
    port = getattr(km, f"{channel}_port")
    s.connect(f"tcp://{km.ip}:{port}")
    return s


def signed_session(km, key=None):
    return Session(key=km.session.key if key is None else key, signature_scheme="hmac-sha256")


def no_reply(sock, wait=1.0):
    return sock.poll(int(wait * 1000)) == 0


def count_now(kc):
    reply, _ = execute(kc, "None")
    return reply["execution_count"]


def test_wrong_key_and_unsigned_messages_never_execute(kernel):
    km, kc = kernel
    shell = raw_socket(km, "shell")
    for key in (b"not-the-key", b""):
        sess = signed_session(km, key)
        sess.send(shell, sess.msg("execute_request", {"code": "forged = 1", "silent": False,
                                                       "store_history": True, "user_expressions": {},
                                                       "allow_stdin": False}))
        assert no_reply(shell)
    # Tampering with a correctly signed message breaks its signature.
    sess = signed_session(km)
    msg = sess.msg("execute_request", {"code": "forged = 2"})
    frames = sess.serialize(msg)
    frames[-1] = json.dumps({"code": "forged = 3"}).encode()
    shell.send_multipart(frames)
    assert no_reply(shell)
    _, outputs = execute(kc, "forged")
    assert only(outputs, "error")["evalue"] == "unknown name `forged`"
    shell.close()


def test_replayed_message_is_rejected(kernel):
    km, kc = kernel
    shell = raw_socket(km, "shell")
    sess = signed_session(km)
    frames = sess.serialize(sess.msg("execute_request", {"code": "None", "silent": False,
                                                         "store_history": True}))
    before = count_now(kc)
    shell.send_multipart(frames)
    assert shell.poll(10_000), "the genuine message got no reply"
    _, reply = sess.recv(shell)
    assert reply["content"]["status"] == "ok"
    shell.send_multipart(frames)
    assert no_reply(shell)
    # The replay also counts on another channel: control shares the history.
    control = raw_socket(km, "control")
    control.send_multipart(frames)
    assert no_reply(control)
    assert count_now(kc) == before + 2
    shell.close()
    control.close()


def test_malformed_signed_requests_get_error_replies(kernel):
    km, kc = kernel
    shell = raw_socket(km, "shell")
    sess = signed_session(km)
    cases = [
        ("execute_request", {"code": 5}, "execute_reply"),
        ("complete_request", {"cursor_pos": "x"}, "complete_reply"),
        ("history_request", {"hist_access_type": "sideways"}, "history_reply"),
        ("frobnicate_request", {}, "frobnicate_reply"),
    ]
    for msg_type, content, reply_type in cases:
        sess.send(shell, sess.msg(msg_type, content))
        assert shell.poll(10_000), msg_type
        _, reply = sess.recv(shell)
        assert reply["header"]["msg_type"] == reply_type
        assert reply["content"]["status"] == "error" and reply["content"]["ename"], reply
    # Content that is not an object.
    msg = sess.msg("inspect_request", {})
    frames = sess.serialize(msg)
    frames[-1] = b"[1, 2]"
    frames[1] = sess.sign(frames[2:6])
    shell.send_multipart(frames)
    assert shell.poll(10_000)
    _, reply = sess.recv(shell)
    assert reply["content"]["status"] == "error"
    shell.close()


GARBAGE = [
    [b"garbage"],
    [b"<IDS|MSG>"],
    [b"<IDS|MSG>", b"sig", b"{", b"{", b"{", b"{"],
    [b"\xff" * 1024],
    [b"<IDS|MSG>", b"", b"not json", b"{}", b"{}", b"{}"],
    [b""] * 20,
]


def test_garbage_on_every_port_leaves_the_kernel_answering(kernel):
    km, kc = kernel
    for channel in ("shell", "control", "stdin"):
        s = raw_socket(km, channel)
        for frames in GARBAGE:
            s.send_multipart(frames)
        time.sleep(0.1)
        s.close()
    hb = raw_socket(km, "hb", zmq.DEALER)
    for frames in GARBAGE:
        hb.send_multipart(frames)
    hb.close()
    iopub = raw_socket(km, "iopub", zmq.XSUB)
    iopub.send(b"\x07junk")
    iopub.send(b"")
    iopub.close()
    # Not even ZeroMQ: raw bytes on every TCP port.
    for channel in ("shell", "control", "stdin", "hb", "iopub"):
        with socket.create_connection((km.ip, getattr(km, f"{channel}_port")), timeout=5) as raw:
            raw.sendall(b"GET / HTTP/1.1\r\n\r\n" + bytes(range(256)))
            time.sleep(0.05)
    time.sleep(0.2)
    assert km.is_alive()
    assert kc.is_alive()
    info = request(kc, "kernel_info")
    assert info["status"] == "ok"
    reply, outputs = execute(kc, "40")
    assert reply["status"] == "ok" and only(outputs, "execute_result")["data"]["text/plain"] == "40"
    # Heartbeat still echoes.
    hb = raw_socket(km, "hb", zmq.REQ)
    hb.send(b"ping")
    assert hb.poll(5000) and hb.recv() == b"ping"
    hb.close()


def test_shutdown_reply_arrives():
    km, kc = start_new_kernel(kernel_name=KERNEL_NAME)
    try:
        msg_id = kc.shutdown()
        reply = kc.control_channel.get_msg(timeout=10)
        assert reply["parent_header"]["msg_id"] == msg_id
        assert reply["content"] == {"status": "ok", "restart": False}
        deadline = time.time() + 10
        while km.is_alive() and time.time() < deadline:
            time.sleep(0.05)
        assert not km.is_alive()
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
