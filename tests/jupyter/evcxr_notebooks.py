"""The Rust notebooks, executed with nbclient in evcxr's kernel (kernelspec `rust`), from the
notebooks' folder so that `:dep passlab = { path = ".." }` finds the repository. Run by
`tests/jupyter/run.sh --evcxr`, which installs evcxr's kernelspec into a temporary
JUPYTER_PATH; not collected by a plain `pytest` run (the file name does not start with
`test_`), since it needs evcxr_jupyter and compiles passlab inside evcxr (minutes).

evcxr reports an error returned by `?` on the cell's standard error and carries on, so a cell
fails here when it wrote anything to standard error, as well as when it raised. The key cells'
text and their text/html renderings are checked."""
from __future__ import annotations

import time

import pytest

from helpers import EVCXR_KERNEL_NAME, NOTEBOOKS, execute_notebook, html_of, kernel_of, text_of

# notebook -> {cell id: [fragments its text output must contain, in this order]}
EXPECTED = {
    "rust-api.ipynb": {
        "module": ["%2 = multiply(%0, %1);", "%4 = add(%3, 0f);"],
        "pass": ["SimplifyArith (function, opt_level 1)"],
        "direct": ["%2 = multiply(%0, %1);", "%3 = add(%2, %b);\n  %4 = nn.relu(%3);"],
        "pipeline": [
            "✓ SimplifyArith",
            "✗ EliminateCommonSubexpr",
            "skipped: opt_level 3 > context opt_level 2",
        ],
        "context": ["opt_level     ┆ 3", "PassTimingInstrument, Stats"],
        "tree": ["✓ EliminateCommonSubexpr  opt 3   requires InferType"],
        "run": [
            "Stats: SimplifyArith 17 -> 12 nodes, changed",
            "Stats: EliminateCommonSubexpr 12 -> 11 nodes, changed",
            "add(%2, %2)",
        ],
        "diff": ["--- typed", "+++ out", "-  %2 = multiply(%0, %1)", "-  %4 = add(%3, 0f"],
        "timing": ["sequential", "FoldConstant", "SimplifyArith", "InferType", "EliminateCommonSubexpr"],
        "stats": ["SimplifyArith", "17 → 12", "InferType"],
        # SimplifyArith runs because CountMultiplies requires it, right before it.
        "register": [
            "[t] run_after_pass FoldConstant",
            "[t] run_before_pass SimplifyArith",
            "[t] run_after_pass SimplifyArith",
            "[t] run_before_pass CountMultiplies",
            "CountMultiplies: 0 multiply left",
        ],
        "language": ["└─ ✓ Tidy  opt 0   requires SimplifyArith", "-  %0 = multiply(%x, 1f);", "+  %x"],
    },
}

# cell id -> fragments its text/html must contain (the rich displays).
HTML = {
    "rust-api.ipynb": {
        "module": ['<pre class="passlab-ir"', ">multiply</span>"],
        "pass": [">SimplifyArith (function, opt_level 1)</pre>"],
        "direct": ['<pre class="passlab-ir"'],
        "pipeline": [">sequential (sequential, opt_level 0)", "✗ EliminateCommonSubexpr"],
        "context": ['<table class="passlab"', "<td", "PassTimingInstrument, Stats"],
        "tree": ["✓ EliminateCommonSubexpr"],
        "run": ['<pre class="passlab-ir"'],
        # The removed multiply, on the "before" side of the side-by-side table.
        "diff": ['<table class="passlab-diff"', 'background:#ffeef0"><pre', ">  %2 = multiply(%0, %1)"],
        "timing": [
            '<table class="passlab"', ">pass</th>", ">total</th>",
            "FoldConstant</td>",
            "SimplifyArith</td>",
            "EliminateCommonSubexpr</td>",
        ],
        "stats": ['<table class="passlab"', "SimplifyArith</td>", "17 → 12"],
        "language": ["requires SimplifyArith", '<table class="passlab-diff"'],
    },
}


def rust_notebooks() -> list[str]:
    return sorted(p.name for p in NOTEBOOKS.glob("*.ipynb") if kernel_of(p) == EVCXR_KERNEL_NAME)


def test_every_rust_notebook_is_covered():
    assert rust_notebooks() == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_rust_notebook_runs(name):
    start = time.monotonic()
    # The `:dep` cell compiles passlab and its dependencies (about two minutes on 2 cores). A
    # cell that fails to compile or panics raises CellExecutionError.
    cells = execute_notebook(name, EVCXR_KERNEL_NAME, timeout=1800, startup_timeout=120)
    print(f"{name}: executed in {time.monotonic() - start:.0f} s")
    for cell in cells.values():
        failed = [
            o
            for o in cell.outputs
            if o.output_type == "error" or (o.output_type == "stream" and o.name == "stderr")
        ]
        assert not failed, (cell.id, cell.source, failed)
    for cid, fragments in EXPECTED[name].items():
        assert cid in cells, f"{name}: no cell {cid}"
        text = text_of(cells[cid])
        at = 0
        for f in fragments:
            found = text.find(f, at)
            assert found >= 0, f"{name} [{cid}]: {f!r} not in (or not in order)\n{text[:3000]}"
            at = found + len(f)
    for cid, fragments in HTML[name].items():
        html = html_of(cells[cid])
        for f in fragments:
            assert f in html, f"{name} [{cid}]: {f!r} not in its HTML\n{html[:3000]}"
