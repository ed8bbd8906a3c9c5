"""Step-by-step debugging through the kernel with jupyter_client, one cell at a time, as a
notebook user does it: breakpoints, a run that pauses in one cell and is inspected, changed,
stepped, continued or aborted in later cells (also across cells that fail), the history of
the last run as display data, diffs in HTML, branching from history[k]; interrupts while
paused and while a resumed run works; completion and is_complete while paused; shutting
down with a run paused."""
from __future__ import annotations

import re
import time

import pytest
from jupyter_client.manager import start_new_kernel

from helpers import KERNEL_NAME, execute, long_pipeline_code, request

SETUP = '''m = parse("""def @main(%x: float32) { multiply(add(%x, 0f), 1f) }""")
add_abs = module_pass(name="AddAbs", add="""def @myabs(%a: float32) { abs(%a) }""")
drop_add = function_pass(name="DropAdd", rewrite=["add(?x, 0f) => ?x"])
drop_mul = function_pass(name="DropMul", rewrite=["multiply(?x, 1f) => ?x"])
seq = Sequential([InferType(), add_abs, drop_add, drop_mul, InferType()])'''


@pytest.fixture
def kernel():
    km, kc = start_new_kernel(kernel_name=KERNEL_NAME)
    yield km, kc
    kc.stop_channels()
    km.shutdown_kernel(now=True)


@pytest.fixture
def kc(kernel):
    kc = kernel[1]
    ok(kc, SETUP)
    return kc


def ok(kc, code, **kw):
    """Runs a cell that must succeed; returns its iopub outputs."""
    reply, outputs = execute(kc, code, **kw)
    assert reply["status"] == "ok", (code, reply, outputs)
    return outputs


def failing(kc, code):
    """Runs a cell that must fail; returns its error's evalue."""
    reply, outputs = execute(kc, code)
    assert reply["status"] == "error", (code, outputs)
    errors = [c for k, c in outputs if k == "error"]
    assert len(errors) == 1, outputs
    return errors[0]["evalue"]


def plain(outputs) -> str:
    """Everything a cell showed, as plain text, in order."""
    parts = []
    for kind, c in outputs:
        if kind == "stream":
            parts.append(c["text"])
        elif kind in ("display_data", "execute_result"):
            parts.append(c["data"]["text/plain"] + "\n")
    return "".join(parts)


def displays(outputs, kind="display_data"):
    return [c for k, c in outputs if k == kind]


def pause_of(outputs) -> dict:
    """The one display that says where the run paused."""
    found = [d for d in displays(outputs) if "passlab-pause" in d["data"].get("text/html", "")]
    assert len(found) == 1, outputs
    return found[0]


def where(kc) -> str:
    return plain(ok(kc, "where"))


def test_a_debugging_session_across_cells(kc):
    out = ok(kc, "break DropAdd\nbreak after DropMul")
    assert plain(out) == "breakpoint 1: before DropAdd\nbreakpoint 2: after DropMul\n"
    out = ok(kc, "breakpoints")
    table = displays(out)[0]["data"]
    assert "before DropAdd" in table["text/plain"] and "<table" in table["text/html"]

    # The run pauses: the cell ends (the kernel goes idle) and says where.
    out = ok(kc, "x = seq(m)")
    pause = pause_of(out)
    assert pause["data"]["text/plain"] == "paused before DropAdd (3 of 5) in sequential"
    assert not displays(out, "execute_result")
    assert where(kc) == (
        "sequential > DropAdd\n"
        "paused before DropAdd (3 of 5) in sequential, running `x = seq(m)`\n"
    )

    # Looking around while paused: the module as DropAdd will receive it.
    out = ok(kc, 'show ir["main"]')
    shown = displays(out)[0]["data"]
    assert "add(%x, 0f /* ty=float32 */)" in shown["text/plain"]
    assert "<span" in shown["text/html"]
    result = displays(ok(kc, "ir"), "execute_result")[0]["data"]
    assert "def @myabs(%a: float32)" in result["text/plain"]
    assert '<pre class="passlab-ir"' in result["text/html"]
    # Nothing is bound yet.
    assert failing(kc, "x") == "unknown name `x`"

    # A failing cell (and the cells queued behind it, aborted) leave the run paused.
    first = kc.execute("kept = 1\nundefined_thing")
    second = kc.execute("where")
    replies = {}
    while len(replies) < 2:
        msg = kc.get_shell_msg(timeout=10)
        replies[msg["parent_header"]["msg_id"]] = msg["content"]
    assert replies[first]["status"] == "error" and replies[second]["status"] == "aborted"
    assert "paused before DropAdd (3 of 5)" in where(kc)
    assert plain(ok(kc, "kept")) == "1\n", "the statements before the error ran"
    assert failing(kc, "exit") == "no PassContext is entered (the default context cannot be exited)"
    assert "paused before DropAdd (3 of 5)" in where(kc)

    # Instruments changed while paused apply to the passes not run yet.
    ok(kc, "override_instruments([PrintChanged(), PassTimingInstrument()])")
    out = ok(kc, "step")
    text = plain(out)
    assert "DropAdd changed @main" in text
    assert "-  %0 = add(%x, 0f /* ty=float32 */) /* ty=float32 */;" in text
    assert re.fullmatch(r"paused after DropAdd \(3 of 5\) in sequential: changed, [0-9.]+ [mu]?s", pause_of(out)["data"]["text/plain"])
    diffs = [d for d in displays(out) if "--- before DropAdd" in d["data"]["text/plain"]]
    assert diffs and "passlab-diff" in diffs[0]["data"]["text/html"], out
    assert text.index("DropAdd changed") < text.index("paused after DropAdd")

    out = ok(kc, "continue")
    text = plain(out)
    assert "DropMul changed @main" in text
    assert pause_text(out) == "paused after DropMul (4 of 5) in sequential"
    assert failing(kc, "x") == "unknown name `x`"

    out = ok(kc, "continue")
    assert "InferType changed @myabs" in plain(out)
    assert not [d for d in displays(out) if "passlab-pause" in d["data"].get("text/html", "")]
    assert failing(kc, "where") == "no run is paused"
    result = displays(ok(kc, 'x["main"]'), "execute_result")[0]["data"]["text/plain"]
    assert result == "def @main(%x: float32 /* ty=float32 */) -> float32 {\n  %x\n}"
    # Only the passes after the override were timed.
    timing = displays(ok(kc, "timing"))[0]["data"]["text/plain"]
    assert "DropAdd" in timing and "DropMul" in timing and "AddAbs" not in timing

    # The history of the run, as display data.
    hist = displays(ok(kc, "history"))[0]["data"]
    rows = hist["text/plain"].splitlines()
    assert rows[0] == "seq(m): 5 passes, finished"
    names = ["InferType", "AddAbs", "DropAdd", "DropMul", "InferType"]
    for k, name in enumerate(names, start=1):
        assert any(f"│ {k} ┆ {name} " in r for r in rows), hist["text/plain"]
    assert '<div class="passlab-history">' in hist["text/html"]
    assert hist["text/html"].count("<tr") == 6 and "seq(m): 5 passes, finished" in hist["text/html"]

    step2 = displays(ok(kc, "history[2]"), "execute_result")[0]["data"]
    assert "add(%x, 0f" in step2["text/plain"] and "def @myabs(%a: float32)" in step2["text/plain"]
    assert '<pre class="passlab-ir"' in step2["text/html"]

    diff = displays(ok(kc, "diff history[2] history[4] @main"))[0]["data"]
    assert diff["text/plain"].startswith("--- history[2]\n+++ history[4]\n")
    assert "+  %x" in diff["text/plain"]
    assert "passlab-diff" in diff["text/html"] and "history[4]" in diff["text/html"]

    # Branch from step 3 with other passes; the breakpoints still apply to the new run.
    out = ok(kc, "branch = Sequential([drop_mul, InferType()])(history[3])")
    assert pause_text(out) == "paused after DropMul (1 of 2) in sequential"
    ok(kc, "override_instruments([])\ndelete all\ncontinue")
    assert plain(ok(kc, "equal(branch, x)")) == "true\n"
    assert plain(ok(kc, "history")).startswith(
        "Sequential([drop_mul, InferType()])(history[3]): 2 passes, finished"
    )


def test_a_paused_bare_expression_is_not_the_cells_result(kc):
    ok(kc, "break DropMul")
    out = ok(kc, "seq(m)")
    assert not displays(out, "execute_result")
    assert pause_text(out) == "paused before DropMul (4 of 5) in sequential"
    # A cell that goes on after the pause: its last expression is its result.
    out = ok(kc, "continue\ny = seq(m)\nwhere\nir")
    assert "paused before DropMul" in pause_of(out)["data"]["text/plain"]
    result = displays(out, "execute_result")
    assert len(result) == 1 and "multiply(%x, 1f" in result[0]["data"]["text/plain"]
    ok(kc, "abort")


def test_conditional_breakpoints_and_abort_inside_a_block(kc):
    ok(kc, 'neg = function_pass(name="NegAbs", rewrite=["abs(?x) => negative(?x)"])')
    ok(kc, "seq2 = Sequential([add_abs, drop_add, neg, drop_mul])")
    assert plain(ok(kc, "break changed @myabs")) == "breakpoint 1: after a pass that changes @myabs\n"
    out = ok(kc, 'with PassContext(instruments=[Trace(name="t")]) {\n  x = seq2(m)\n  print("block done")\n}')
    text = plain(out)
    assert "[t] enter_pass_ctx" in text and "[t] run_after_pass AddAbs" in text
    assert pause_text(out) == (
        "breakpoint 1: AddAbs changed @myabs\npaused after AddAbs (1 of 4) in sequential"
    )
    # The next pass that changes @myabs pauses again; DropAdd (2 of 4) runs through.
    out = ok(kc, "continue")
    assert "[t] run_after_pass DropAdd" in plain(out)
    assert pause_text(out) == (
        "breakpoint 1: NegAbs changed @myabs\npaused after NegAbs (3 of 4) in sequential"
    )
    assert "negative(%a)" in plain(ok(kc, 'show ir["myabs"]'))
    # Paused inside the block: its context is the current one.
    assert "t" in plain(ok(kc, "current()"))

    out = ok(kc, "abort")
    text = plain(out)
    assert "[t] exit_pass_ctx" in text and "block done" not in text
    assert "aborted seq2(m) after NegAbs (3 of 4) in sequential; nothing was bound" in text
    assert failing(kc, "x") == "unknown name `x`"
    assert failing(kc, "abort") == "no run is paused"
    current = plain(ok(kc, "current()"))
    assert "│ instruments   ┆ []" in current, current
    hist = plain(ok(kc, "history"))
    assert hist.startswith("seq2(m): 3 passes, aborted")

    # `break slower 0us`: after the first pass that took any time at all.
    ok(kc, "delete all\nbreak slower 0us")
    out = ok(kc, "y = seq(m)")
    assert pause_text(out).endswith("paused after InferType (1 of 5) in sequential")
    assert "InferType took" in pause_of(out)["data"]["text/plain"]
    ok(kc, "delete all\ncontinue")
    assert "def @main" in plain(ok(kc, "y"))


def test_completion_inspection_and_is_complete_while_paused(kc):
    ok(kc, "break DropMul")
    ok(kc, "x = seq(m)")
    assert "continue" in request(kc, "complete", "cont", 4)["matches"]
    assert "ir" in request(kc, "complete", "show i", 6)["matches"]
    assert "history[" in request(kc, "complete", "show hist", 9)["matches"]
    reply = request(kc, "complete", "break after Dro", 15)
    assert reply["matches"] == ["DropAdd", "DropMul"] and reply["cursor_start"] == 12
    reply = request(kc, "complete", "break changed @m", 16)
    assert reply["matches"] == ["main", "myabs"] and reply["cursor_start"] == 15
    assert request(kc, "complete", "delete ", 7)["matches"] == ["1", "all"]
    reply = request(kc, "inspect", "step", 2)
    assert reply["found"] and "pause again" in reply["data"]["text/plain"]
    assert request(kc, "is_complete", "continue")["status"] == "complete"
    assert request(kc, "is_complete", "with PassContext() {\n  step")["status"] == "incomplete"
    assert request(kc, "is_complete", "show ir[")["status"] == "incomplete"
    # Still paused, at the same place.
    assert "paused before DropMul (4 of 5)" in where(kc)
    ok(kc, "continue")
    assert "%x" in plain(ok(kc, 'x["main"]'))


def pause_text(out):
    """The pause's text without what follows a pass (`: changed, 12 us`), which is timed."""
    text = pause_of(out)["data"]["text/plain"]
    return re.sub(r": (un)?changed, [0-9.]+ [mu]?s$", "", text, flags=re.M)


def wait_reply(kc, msg_id, timeout=30):
    reply = kc.get_shell_msg(timeout=timeout)
    while reply["parent_header"]["msg_id"] != msg_id:
        reply = kc.get_shell_msg(timeout=timeout)
    return reply["content"]


def test_interrupts_while_paused_and_while_running(kernel):
    km, kc = kernel
    ok(kc, long_pipeline_code(), timeout=60)
    ok(kc, "break after InferType")
    out = ok(kc, "out = slow(big)", timeout=60)
    assert "paused after InferType (1 of 10)" in pause_of(out)["data"]["text/plain"]
    before = where(kc)

    # Interrupting an idle kernel with a paused run changes nothing: the run waits.
    km.interrupt_kernel()
    time.sleep(0.5)
    assert where(kc) == before
    assert km.is_alive()

    # While paused, another long run goes straight through (no breakpoints); an interrupt
    # stops it and leaves the paused run as it was.
    msg_id = kc.execute("other = slow(big)")
    time.sleep(0.5)
    start = time.time()
    km.interrupt_kernel()
    reply = wait_reply(kc, msg_id)
    assert reply["status"] == "error" and reply["ename"] == "Interrupted", reply
    assert time.time() - start < 5
    assert where(kc) == before
    assert failing(kc, "other") == "unknown name `other`"

    # `continue` runs the rest of the paused run; an interrupt stops it at the next pass
    # boundary: the run ends, nothing is bound, nothing is paused any more.
    ok(kc, "delete all")
    msg_id = kc.execute("continue")
    time.sleep(0.5)
    start = time.time()
    km.interrupt_kernel()
    reply = wait_reply(kc, msg_id)
    assert reply["status"] == "error" and reply["ename"] == "Interrupted", reply
    # The boundary is the next pass to start: an InferType, or (one time in ten) the next
    # nested Sequential of the pipeline.
    assert re.search(r"interrupted before pass (InferType|sequential)\b", reply["evalue"]), reply
    assert time.time() - start < 5
    assert failing(kc, "where") == "no run is paused"
    assert failing(kc, "out") == "unknown name `out`"
    assert "slow(big):" in plain(ok(kc, "history")) and "failed: interrupted" in plain(ok(kc, "history"))
    # The kernel answers as usual afterwards.
    assert plain(ok(kc, "1")) == "1\n"


def test_shutdown_with_a_paused_run():
    km, kc = start_new_kernel(kernel_name=KERNEL_NAME)
    try:
        ok(kc, SETUP)
        ok(kc, "break DropAdd")
        ok(kc, 'with PassContext(instruments=[Trace(name="t")]) {\n  x = seq(m)\n}')
        msg_id = kc.shutdown()
        reply = kc.control_channel.get_msg(timeout=10)
        assert reply["parent_header"]["msg_id"] == msg_id
        deadline = time.time() + 10
        while km.is_alive() and time.time() < deadline:
            time.sleep(0.05)
        assert not km.is_alive(), "the kernel did not exit with a run paused"
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
