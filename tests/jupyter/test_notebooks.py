"""Every tutorial notebook executed with nbclient against the installed kernelspec, from the
notebooks' folder (so relative corpus paths resolve as for a user). No cell may fail unless it
is tagged `raises-exception` (it demonstrates an error) — and those must fail. Key outputs
are checked cell by cell. `run.sh --update` writes the fresh outputs back into notebooks/
once a notebook passes (so the stored outputs show what the current kernel renders)."""
from __future__ import annotations

import subprocess

import pytest

from helpers import (
    EVCXR_KERNEL_NAME,
    KERNEL_NAME,
    NOTEBOOKS,
    ROOT,
    execute_notebook_nb,
    html_of,
    kernel_of,
    text_of,
    updating_notebooks,
    write_notebook,
)

# notebook -> {cell id: [fragments its text output must contain]}
EXPECTED = {
    "01_tour.ipynb": {
        "passes": ["InferType", "PrintIR"],
        "load": ["nn.conv2d(%x, %weight", "add(%4, %5)"],
        "seq": ["✓ InferType", "✗ Expensive", "skipped: opt_level 3 > context opt_level 2"],
        "opt1": ["[t] run_after_pass Simplify", "[t] exit_pass_ctx"],
        "opt3": ["InferType", "Simplify", "Expensive", "% all"],
        "diff": ["--- small", "+++ m3", "-  multiply(%0, 1f)"],
        "result": ["  %x\n}"],
        "ctx": ["skipped: in disabled_pass", "✓ Expensive"],
        "error": ["did you mean `Sequential`?"],
        "help": ["PassContext(opt_level=2"],
    },
    "02_instruments.ipynb": {
        "timing": ["sequential", "InferType", "Simplify"],
        "render": ["sequential: ", "\tInferType: "],
        "printing": ["Print IR after: Simplify", "PrintIR():"],
        "changed": ["InferType changed @main", "Simplify changed @main", "+  add(%x, 1f"],
        "trace": ["[t] should_run Simplify", "[t] run_before_pass PrintIR", "true"],
        "bisect": ["BISECT: running pass (1) InferType", "BISECT: NOT running pass (2) Simplify"],
        "stats": ["Stats: Simplify 8 -> 5 nodes, changed"],
        "enter": ["[live] enter_pass_ctx"],
        "run-live": ["[live] run_after_pass Simplify"],
        "override": ["[live] exit_pass_ctx", "Simplify changed @main"],
        "current": ["PrintChanged", "context       ┆ current"],
        "failing": ["[one] exit_pass_ctx", "two enter_pass_ctx failed"],
    },
    "03_standard_passes.ipynb": {
        "passes": ["InferType", "SimplifyInference", "FuseOps", "FoldScaleAxis"],
        "load": ["Module: 1 function (@main: 100 params"],
        "pipeline": [
            "inference (sequential, opt_level 0)",
            "✗ EliminateCommonSubexpr    opt 3",
            "skipped: opt_level 3 > context opt_level 2",
        ],
        "resnet-run": [
            "Stats: SimplifyInference 202 -> 413 nodes, changed",
            "Stats: FuseOps 397 -> 682 nodes, changed",
            "Module: 1 function (@main: 100 params, 319 calls, 19 constants)",
        ],
        "timing": ["inference", "├─ SimplifyInference", "│  ├─ BackwardFoldScaleAxis"],
        "stats": ["inference                 ┆ sequential ┆ 202 → 682"],
        "small": [
            "SimplifyInference changed @main",
            "-  %1 = nn.batch_norm(",
            "FoldConstant changed @main",
            "FuseOps changed @main",
        ],
        "small-result": ["Primitive=1", "nn.conv2d"],
        "lstm": ["Module: 1 function (@main: 10 params, 577 calls)"],
        "lstm-run": ["Stats: EliminateCommonSubexpr 853 -> 785 nodes, changed", "lstm"],
        "lstm-stats": ["FuseOps", "785 → 1578"],
        "lstm-equal": ["false"],
    },
    "04_user_passes.ipynb": {
        "module": ["def @myabs(%a: float32)"],
        "rewrite": ["def @main(%x: float32) {\n  %x\n}"],
        "bad-rule": ["?y is used on the right but not bound on the left"],
        "replace": ["negative(%a)"],
        "needs": ["pass Needs requires AddAbs, which is not a registered pass"],
        "register": ["[t] run_after_pass AddAbs", "[t] run_after_pass Needs", "def @myabs"],
        "passes": ["AddAbs"],
        "broken": ["Broken: pass failed", "[t] exit_pass_ctx"],
        "still-there": ["true"],
    },
    "05_debugging.ipynb": {
        "break": ["breakpoint 1: before FoldConstant", "│ 1 ┆ before FoldConstant ┆ 0"],
        "run": ["paused before FoldConstant (3 of 5) in sequential"],
        "where": ["sequential > FoldConstant", "running `m2 = seq(m)`"],
        "ir": [
            "%0 = add(%var, 1e-05f /* ty=float32 */) /* ty=Tensor[(4), float32] */;",
            "multiply(2f /* ty=float32 */, 3f",
        ],
        "typo": ["the module has no function @mian"],
        "step": [
            "FoldConstant changed @main",
            "+  %12 = add(%11, 6f",
            "paused after FoldConstant (3 of 5) in sequential",
        ],
        "continue": ["FuseOps changed @main", "Primitive=1"],
        "result": ["%14(%x, %w, %13, %mean, %beta)"],
        "history": ["seq(m): 8 passes, finished", "│ 4 ┆ FoldConstant           ┆ yes", "34 → 32"],
        "diff": ["--- history[2]", "+++ history[3]", "-  %1 = nn.batch_norm("],
        "branch": ["+    %8 = multiply(2f /* ty=float32 */, 3f"],
        "verify": [
            "the module fails the checks after ReluToAdd",
            "paused after ReluToAdd (2 of 3) in sequential",
        ],
        "abort": ["after ReluToAdd (2 of 3) in sequential; nothing was bound"],
        "unbound": ["unknown name `m3`"],
        "resnet": [
            "breakpoint 3: SimplifyInference changed @main",
            "paused after SimplifyInference (1 of 3) in sequential",
        ],
        "resnet-history": ["5 passes, finished", "202 → 413", "413 → 654"],
    },
    "06_onnx_numerics.ipynb": {
        "load": ["Module: 1 function (@main: 1 param"],
        "imported": ["true"],
        "fold": ["Stats: SimplifyInference", "Stats: FoldConstant", "true"],
        "rest": ["Stats: BackwardFoldScaleAxis", "Stats: FuseOps", "changed", "true"],
        "tight": ["true"],
        "verify": ["true"],
        "wrong": ["not close: shapes differ: [1, 3, 224, 224] vs [1, 1000]", "false"],
    },
}

# Notebooks that read the ONNX package's test models: tests/onnx/setup.sh makes the venv and
# the links they read (target/onnx-data, target/onnx-light-inputs) first.
NEEDS_ONNX = {"06_onnx_numerics.ipynb"}

# Cells whose text must not contain these fragments (cell id -> fragments).
ABSENT = {
    "05_debugging.ipynb": {"continue": ["paused"], "resnet-history": ["paused"]},
}

# HTML renderings the notebooks must carry (cell id -> fragment of its text/html).
HTML = {
    "01_tour.ipynb": {"load": '<pre class="passlab-ir"', "opt3": "<table", "diff": "passlab-diff"},
    "02_instruments.ipynb": {"timing": "<table", "current": "<table"},
    "03_standard_passes.ipynb": {
        "timing": "data-passlab-sort",
        "stats": "data-passlab-sort",
        "small": "passlab-diff",
        "small-result": 'class="passlab-ir"',
    },
    "05_debugging.ipynb": {
        "run": "passlab-pause",
        "ir": "<span",
        "step": "passlab-diff",
        "history": "passlab-history",
        "diff": "passlab-diff",
        "branch": "passlab-diff",
    },
}


def test_every_notebook_is_covered():
    """Every notebook is for the passlab kernel (tested here) or for evcxr (evcxr_notebooks.py)."""
    kernels = {p.name: kernel_of(p) for p in NOTEBOOKS.glob("*.ipynb")}
    assert set(kernels.values()) <= {KERNEL_NAME, EVCXR_KERNEL_NAME}, kernels
    assert sorted(n for n, k in kernels.items() if k == KERNEL_NAME) == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_notebook_runs(name):
    if name in NEEDS_ONNX:
        subprocess.run(["bash", str(ROOT / "tests" / "onnx" / "setup.sh")], check=True)
    nb, cells = execute_notebook_nb(name, KERNEL_NAME, timeout=120)
    for cell in cells.values():
        errors = [o for o in cell.outputs if o.output_type == "error"]
        expects_error = "raises-exception" in cell.metadata.get("tags", [])
        assert bool(errors) == expects_error, (cell.id, cell.source, errors)
    for cid, fragments in EXPECTED[name].items():
        assert cid in cells, f"{name}: no cell {cid}"
        text = text_of(cells[cid])
        for f in fragments:
            assert f in text, f"{name} [{cid}]: {f!r} not in\n{text[:2000]}"
    for cid, fragments in ABSENT.get(name, {}).items():
        text = text_of(cells[cid])
        for f in fragments:
            assert f not in text, f"{name} [{cid}]: {f!r} in\n{text[:2000]}"
    for cid, fragment in HTML.get(name, {}).items():
        assert fragment in html_of(cells[cid]), f"{name} [{cid}]: no {fragment!r} in its HTML"
    if updating_notebooks():
        write_notebook(name, nb)
