"""Output streams while a cell runs: instrument output of a long pipeline reaches the client
as `stream` messages before the cell ends, in order with the cell's displays; an interrupt
stops both the run and the flood of its output, and the result stays the cell's last message."""
import time

import pytest
from jupyter_client.manager import start_new_kernel

from helpers import KERNEL_NAME, execute, long_pipeline_code


@pytest.fixture
def kernel():
    km, kc = start_new_kernel(kernel_name=KERNEL_NAME)
    yield km, kc
    kc.stop_channels()
    km.shutdown_kernel(now=True)


def test_trace_lines_arrive_while_the_pipeline_runs_and_an_interrupt_stops_them(kernel):
    km, kc = kernel
    reply, _ = execute(kc, long_pipeline_code(), timeout=60)
    assert reply["status"] == "ok", reply
    # 10,000 InferType runs with a Trace: a minute or more of work and 40,000 lines of output.
    msg_id = kc.execute('with PassContext(instruments=[Trace(name="t")]) {\n  out = slow(big)\n}')
    start = time.time()
    first = None
    while first is None:
        msg = kc.get_iopub_msg(timeout=30)
        if msg["parent_header"].get("msg_id") != msg_id or msg["msg_type"] != "stream":
            continue
        first = msg["content"]["text"]
    waited = time.time() - start
    # The first line comes while the pipeline runs: the cell has not replied yet.
    assert first.startswith("[t] enter_pass_ctx"), first
    assert waited < 20, waited
    assert kc.shell_channel.msg_ready() is False
    km.interrupt_kernel()
    reply = kc.get_shell_msg(timeout=30)
    while reply["parent_header"].get("msg_id") != msg_id:
        reply = kc.get_shell_msg(timeout=30)
    assert reply["content"]["status"] == "error", reply["content"]
    assert reply["content"]["ename"] == "Interrupted", reply["content"]
    assert time.time() - start < 60
    # Nothing was bound, and the kernel goes on.
    reply, outputs = execute(kc, "print(1)")
    assert reply["status"] == "ok" and outputs == [("stream", {"name": "stdout", "text": "1\n"})]


def test_streamed_parts_keep_their_order_and_the_result_comes_last(kernel):
    _, kc = kernel
    reply, outputs = execute(
        kc,
        'm = parse("def @main(%x: float32) { add(%x, 1f) }")\n'
        "show m\n"
        'print("between")\n'
        'with PassContext(instruments=[Trace(name="t")]) {\n  m2 = InferType()(m)\n}\n'
        "equal(m, m)",
    )
    assert reply["status"] == "ok", reply
    kinds = [k for k, _ in outputs]
    assert kinds[0] == "display_data" and "def @main" in outputs[0][1]["data"]["text/plain"]
    text = "".join(c["text"] for k, c in outputs if k == "stream")
    assert text.startswith("between\n[t] enter_pass_ctx\n"), text
    assert text.endswith("[t] exit_pass_ctx\n"), text
    assert kinds[-1] == "execute_result", kinds
    assert outputs[-1][1]["data"]["text/plain"] == "true"
