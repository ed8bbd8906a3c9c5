"""Shared helpers for the Jupyter tests: the kernel's name, and running a cell through a
jupyter_client BlockingKernelClient while collecting what the kernel published for it."""
from __future__ import annotations

import os
from pathlib import Path

KERNEL_NAME = "passlab"
ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = ROOT / "notebooks"
CORPUS = ROOT.parent / "shared" / "corpus" / "relay"
TIMEOUT = 30


def execute(kc, code: str, timeout: float = TIMEOUT, **kw):
    """Runs `code`; returns (reply content, [(msg_type, content), ...]) of the iopub messages
    caused by it, from busy to idle (status and execute_input left out)."""
    msg_id = kc.execute(code, **kw)
    reply = kc.get_shell_msg(timeout=timeout)
    while reply["parent_header"].get("msg_id") != msg_id:
        reply = kc.get_shell_msg(timeout=timeout)
    outputs = []
    while True:
        msg = kc.get_iopub_msg(timeout=timeout)
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        kind = msg["msg_type"]
        if kind == "status":
            if msg["content"]["execution_state"] == "idle":
                break
            continue
        if kind == "execute_input":
            continue
        outputs.append((kind, msg["content"]))
    return reply["content"], outputs


def request(kc, method: str, *args, timeout: float = TIMEOUT, **kw):
    """Sends a shell request (kc.complete, kc.inspect, ...) and returns its reply content."""
    msg_id = getattr(kc, method)(*args, **kw)
    reply = kc.get_shell_msg(timeout=timeout)
    while reply["parent_header"].get("msg_id") != msg_id:
        reply = kc.get_shell_msg(timeout=timeout)
    return reply["content"]


def long_pipeline_code() -> str:
    """Cells binding `slow`: 10,000 InferType runs on a transformer (seconds of work)."""
    ten = lambda p: "[" + ", ".join([p] * 10) + "]"
    return "\n".join([
        f'big = load("{CORPUS / "glenside_transformer.relay"}")',
        f"s1 = Sequential({ten('InferType()')})",
        f"s2 = Sequential({ten('s1')})",
        f"s3 = Sequential({ten('s2')})",
        f"slow = Sequential({ten('s3')})",
    ])


def kernel_env() -> dict:
    return dict(os.environ)
