"""Shared helpers for the Jupyter tests: the kernel's name, and running a cell through a
jupyter_client BlockingKernelClient while collecting what the kernel published for it."""
from __future__ import annotations

import os
import re
from pathlib import Path

import nbformat

KERNEL_NAME = "passlab"
# evcxr's kernelspec name; notebooks for it are tested by evcxr_notebooks.py (run.sh --evcxr).
EVCXR_KERNEL_NAME = "rust"
ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = ROOT / "notebooks"
CORPUS = ROOT.parent / "shared" / "corpus" / "relay"
TIMEOUT = 30
ANSI = re.compile(r"\x1b\[[0-9;]*m")


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


def execute_notebook(name: str, kernel_name: str, timeout: float, **kw) -> dict:
    """Runs notebooks/NAME with nbclient in the kernel it names (which must be `kernel_name`),
    from the notebooks' folder, as a user would; returns its code cells by id. Raises
    CellExecutionError on an unexpected error."""
    return execute_notebook_nb(name, kernel_name, timeout, **kw)[1]


def updating_notebooks() -> bool:
    """`run.sh --update` (PASSLAB_UPDATE_NOTEBOOKS=1): tests that execute a notebook write its
    fresh outputs back once every check on it passed."""
    return os.environ.get("PASSLAB_UPDATE_NOTEBOOKS") == "1"


def write_notebook(name: str, nb) -> None:
    """Writes notebooks/NAME atomically (a temporary file in the same folder, then a rename)."""
    path = NOTEBOOKS / name
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    try:
        nbformat.write(nb, str(tmp))
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


def execute_notebook_nb(name: str, kernel_name: str, timeout: float, **kw):
    """Like `execute_notebook`, also returning the executed notebook (to write it back). When
    updating, no per-cell timing metadata is recorded (it would change on every run)."""
    from nbclient import NotebookClient

    if updating_notebooks():
        kw.setdefault("record_timing", False)
    nb = nbformat.read(NOTEBOOKS / name, as_version=4)
    assert nb.metadata.kernelspec.name == kernel_name
    client = NotebookClient(
        nb,
        kernel_name=kernel_name,
        timeout=timeout,
        resources={"metadata": {"path": str(NOTEBOOKS)}},
        **kw,
    )
    client.execute()
    return nb, {c.get("id"): c for c in nb.cells if c.cell_type == "code"}


def kernel_of(notebook: Path) -> str:
    """The name of the kernelspec a notebook asks for."""
    return nbformat.read(notebook, as_version=4).metadata.kernelspec.name


def text_of(cell) -> str:
    """A code cell's output as text: streams, tracebacks (without colours), text/plain."""
    parts = []
    for out in cell.get("outputs", []):
        if out["output_type"] == "stream":
            parts.append(out["text"])
        elif out["output_type"] == "error":
            parts.append(ANSI.sub("", "\n".join(out["traceback"])))
        else:
            parts.append(out.get("data", {}).get("text/plain", ""))
    return "\n".join(parts)


def html_of(cell) -> str:
    """A code cell's text/html outputs, concatenated."""
    return "".join(o.get("data", {}).get("text/html", "") for o in cell.get("outputs", []))


def kernel_env() -> dict:
    return dict(os.environ)
