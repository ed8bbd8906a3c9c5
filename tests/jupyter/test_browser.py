"""What the kernel's HTML looks like in a real browser: a notebook executed with the passlab
kernel, exported with nbconvert (the lab template, as `jupyter nbconvert --to html` does),
opened in headless Chromium through selenium. The checks measure the rendered boxes: both sides
of a diff with long lines inside the output cell's width, IR and the pipeline tree in a
monospace font with whitespace kept, numbers right-aligned under right-aligned headers, and
sorting by a column keeping the timing tree. Screenshots go to target/browser-screenshots/
(PASSLAB_SCREENSHOTS overrides) for a person to look at.

Needs Debian's chromium and chromium-driver (.ci/run installs them); without them this fails,
it does not skip."""
from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient
from nbconvert import HTMLExporter

from helpers import CORPUS, KERNEL_NAME, ROOT

CHROMIUM = os.environ.get("PASSLAB_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("PASSLAB_CHROMEDRIVER", "/usr/bin/chromedriver")
SHOTS = Path(os.environ.get("PASSLAB_SCREENSHOTS", ROOT / "target" / "browser-screenshots"))
# A narrow window, as a notebook beside a file browser: long IR lines cannot fit.
WIDTH, HEIGHT = 1000, 900

# A module whose signature alone is longer than the cell is wide, then a pass that changes it.
LONG = ", ".join(
    [f"%input_{i}: Tensor[(1, 64, 56, 56), float32]" for i in range(2)]
    + [f"%bn_{p}: Tensor[(64), float32]" for p in ("gamma", "beta", "mean", "var")]
    + [f"%residual_{i}: Tensor[(1, 64, 56, 56), float32]" for i in range(2)]
)
CELLS = {
    "diff": f'''m = parse("""
def @main({LONG}) {{
  %0 = add(%input_0, %input_1);
  %1 = nn.batch_norm(%0, %bn_gamma, %bn_beta, %bn_mean, %bn_var);
  %2 = add(%1.0, multiply(2f, 3f));
  %3 = add(%2, %residual_0);
  nn.relu(add(%3, %residual_1))
}}
""")
with PassContext(opt_level=3, instruments=[PassTimingInstrument(), Stats()]) {{
  m2 = Sequential([InferType(), SimplifyInference(), FoldConstant()])(m)
}}
diff m m2''',
    "ir": f'resnet = load("{CORPUS / "resnet18_typed_dump.relay"}")\nshow resnet',
    "tree": "show Sequential([InferType(), Sequential([FoldConstant(), FuseOps()])])",
    "timing": "timing",
    "history": "history",
}


@pytest.fixture(scope="module")
def page():
    """The exported notebook open in headless Chromium (the driver)."""
    for tool in (CHROMIUM, CHROMEDRIVER):
        if not shutil.which(tool):
            pytest.fail(f"{tool} is missing: apt-get install chromium chromium-driver (.ci/run does)")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": KERNEL_NAME, "display_name": "passlab", "language": "passlab"}
    for cid, code in CELLS.items():
        cell = nbformat.v4.new_code_cell(code)
        cell["id"] = cid
        cell["metadata"]["tags"] = [f"cell-{cid}"]
        nb.cells.append(cell)
    NotebookClient(nb, kernel_name=KERNEL_NAME, timeout=120).execute()
    body, _ = HTMLExporter(template_name="lab").from_notebook_node(nb)
    SHOTS.mkdir(parents=True, exist_ok=True)
    out = SHOTS / "outputs.html"
    out.write_text(body, encoding="utf-8")

    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                f"--window-size={WIDTH},{HEIGHT}", "--hide-scrollbars"):
        opts.add_argument(arg)
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=opts)
    try:
        driver.get(out.as_uri())
        # The page's scripts may still be laying out when `get` returns (seen on a loaded
        # machine): wait until every cell's output is there.
        deadline = time.time() + 60
        while not all(
            driver.find_elements("css selector", f".celltag_cell-{cid} .jp-OutputArea-output")
            for cid in CELLS
        ):
            if time.time() > deadline:
                pytest.fail(f"the exported page shows no output for some cell: {out}")
            time.sleep(0.2)
        yield driver
    finally:
        driver.quit()


def output_of(driver, cid):
    """The last output of the cell tagged `cell-<cid>` (nbconvert keeps tags as classes)."""
    return driver.find_elements("css selector", f".celltag_cell-{cid} .jp-OutputArea-output")[-1]


def shoot(driver, element, name):
    driver.execute_script("arguments[0].scrollIntoView({block: 'start'})", element)
    assert element.screenshot(str(SHOTS / f"{name}.png"))


def test_both_sides_of_a_long_diff_are_visible(page):
    out = output_of(page, "diff")
    shoot(page, out, "diff")
    box = page.execute_script(
        """
        const out = arguments[0].getBoundingClientRect();
        const table = arguments[0].querySelector('table.passlab-diff');
        const rows = [...table.tBodies[0].rows].filter(r => r.cells.length == 4);
        const sig = rows.find(r => r.cells[1].textContent.startsWith('def @main'));
        const side = c => { const b = c.getBoundingClientRect();
                            return {left: b.left, right: b.right, width: b.width}; };
        return {out: {left: out.left, right: out.right},
                table: side(table),
                before: side(sig.cells[1]), after: side(sig.cells[3]),
                afterText: sig.cells[3].textContent,
                rightmost: Math.max(...rows.flatMap(r => [...r.cells].map(c => c.getBoundingClientRect().right))),
                whiteSpace: getComputedStyle(sig.cells[3].querySelector("pre")).whiteSpace,
                wordBreak: getComputedStyle(sig.cells[3].querySelector("pre")).wordBreak};
        """,
        out,
    )
    assert box["afterText"].startswith("def @main(%input_0"), box
    # The table and every cell end inside the output area.
    assert box["table"]["right"] <= box["out"]["right"] + 1, box
    assert box["rightmost"] <= box["out"]["right"] + 1, box
    # Each side has about half of the width, the after side to the right of the before side.
    for side in ("before", "after"):
        assert box[side]["width"] > 0.4 * box["table"]["width"], box
    assert box["before"]["right"] <= box["after"]["left"] + 1, box
    # Wrapping at spaces, not inside a token (JupyterLab's and nbconvert's `pre` rules say
    # `word-break: break-all`).
    assert (box["whiteSpace"], box["wordBreak"]) == ("pre-wrap", "normal"), box
    # The long line wraps inside its column instead: its cell is taller than one line.
    heights = page.execute_script(
        """
        const rows = [...arguments[0].querySelectorAll('table.passlab-diff tbody tr')];
        const sig = rows.find(r => r.cells.length == 4 && r.cells[1].textContent.startsWith('def @main'));
        const other = rows.find(r => r.cells.length == 4 && r.cells[1].textContent.trim() == '}');
        return [sig.getBoundingClientRect().height, other.getBoundingClientRect().height];
        """,
        out,
    )
    assert heights[0] > 2 * heights[1], heights


def test_changed_tokens_are_marked_whole(page):
    """A mark never starts or ends inside a name (`nn.bat|ch_norm`)."""
    cuts = page.execute_script(
        """
        const word = c => /[A-Za-z0-9_.%@]/.test(c || '');
        const spans = [...arguments[0].querySelectorAll('table.passlab-diff td span')];
        const cuts = [];
        for (const s of spans) {
            const before = (s.previousSibling && s.previousSibling.textContent || '').slice(-1);
            const after = (s.nextSibling && s.nextSibling.textContent || '').slice(0, 1);
            const t = s.textContent;
            if ((word(before) && word(t[0]) && t[0] != '%' && t[0] != '@') ||
                (word(after) && word(t[t.length - 1]) && after != '%' && after != '@'))
                cuts.push(before + '|' + t + '|' + after);
        }
        return [spans.length, cuts];
        """,
        output_of(page, "diff"),
    )
    assert cuts[0] > 0, "the replaced lines have marked tokens"
    assert cuts[1] == [], cuts


def test_ir_and_the_pipeline_tree_are_monospace_with_whitespace_kept(page):
    for cid, selector in (("ir", ".passlab-ir"), ("tree", "pre"), ("diff", "table.passlab-diff")):
        out = output_of(page, cid)
        shoot(page, out, cid)
        el = out.find_element("css selector", selector)
        font = page.execute_script("return getComputedStyle(arguments[0]).fontFamily", el)
        assert "monospace" in font, (cid, font)
        if cid != "diff":
            ws = page.execute_script("return getComputedStyle(arguments[0]).whiteSpace", el)
            assert ws == "pre", (cid, ws)
    # Indentation is kept: the first binding of @main starts two characters in.
    indent = page.execute_script(
        """
        const ir = arguments[0].querySelector('.passlab-ir');
        const probe = document.createElement('span');
        probe.textContent = 'xx';
        ir.appendChild(probe);
        const w = probe.getBoundingClientRect().width;
        probe.remove();
        return [w, ir.textContent.split('\\n').find(l => l.includes('nn.conv2d')).search(/\\S/)];
        """,
        output_of(page, "ir"),
    )
    assert indent[1] >= 2, indent


def test_a_big_module_folds_by_function_and_its_signature_is_one_parameter_a_line(page):
    out = output_of(page, "ir")
    folds = out.find_elements("css selector", ".passlab-ir details")
    assert len(folds) == 1, "resnet-18 has one function, @main"
    summary = folds[0].find_element("css selector", "summary")
    lines = summary.text.splitlines()
    assert lines[0].startswith("def @main(") and len(lines) > 50, lines[:3]
    height_open = folds[0].size["height"]
    summary.click()
    assert folds[0].get_attribute("open") is None
    assert folds[0].size["height"] <= summary.size["height"] + 2 < 0.6 * height_open
    shoot(page, out, "ir-folded")
    summary.click()
    # No IR line overflows the output area by wrapping: long lines scroll in their own box.
    over = page.execute_script(
        "const o = arguments[0].getBoundingClientRect(); const ir = arguments[0].querySelector('.passlab-ir').getBoundingClientRect(); return [o.right, ir.right];",
        out,
    )
    assert over[1] <= over[0] + 1, over


def numeric_columns(driver, cid):
    """For the table in cell `cid`: per column, the header's computed text-align and the
    right edge of each cell's text relative to the cell's content box."""
    return driver.execute_script(
        """
        const t = arguments[0].querySelector('table.passlab');
        const heads = [...t.tHead.rows[0].cells].map(h => ({
            name: h.firstChild.textContent, align: getComputedStyle(h).textAlign}));
        const cols = heads.map((h, c) => [...t.tBodies[0].rows].map(r => {
            const td = r.cells[c], range = document.createRange();
            range.selectNodeContents(td);
            const text = range.getBoundingClientRect(), box = td.getBoundingClientRect();
            const pad = parseFloat(getComputedStyle(td).paddingRight);
            return {text: td.textContent, align: getComputedStyle(td).textAlign,
                    gap: box.right - pad - text.right};
        }));
        return {heads, cols};
        """,
        output_of(driver, cid),
    )


@pytest.mark.parametrize("cid,numeric,texty", [
    ("timing", ["total", "self", "% all", "% parent"], ["pass"]),
    ("history", ["#", "time", "nodes"], ["pass", "changed"]),
])
def test_tables_right_align_numbers(page, cid, numeric, texty):
    shoot(page, output_of(page, cid), cid)
    t = numeric_columns(page, cid)
    heads = {h["name"]: (i, h["align"]) for i, h in enumerate(t["heads"])}
    for name in numeric:
        i, align = heads[name]
        assert align == "right", (name, t["heads"])
        for cell in t["cols"][i]:
            assert cell["align"] == "right" and abs(cell["gap"]) < 1.5, (name, cell)
    for name in texty:
        i, align = heads[name]
        assert align == "left", (name, t["heads"])


def test_sorting_by_time_keeps_the_timing_tree(page):
    out = output_of(page, "timing")
    rows = lambda: page.execute_script(
        "return [...arguments[0].querySelectorAll('table.passlab tbody tr')]"
        ".map(r => [parseInt(r.dataset.depth), r.cells[0].textContent.trim(), parseFloat(r.cells[1].dataset.v)])",
        out,
    )
    before = rows()
    header = out.find_element("css selector", "table.passlab th:nth-child(2)")
    header.click()
    after = rows()
    assert sorted(before) == sorted(after)
    assert after[0][1] == "sequential" and after[0][0] == 0
    kids = [r for r in after if r[0] == 1]
    assert [k[2] for k in kids] == sorted((k[2] for k in kids), reverse=True), after
    assert "▼" in header.text
    header.click()
    kids = [r for r in rows() if r[0] == 1]
    assert [k[2] for k in kids] == sorted(k[2] for k in kids)
    shoot(page, out, "timing-sorted")


@pytest.mark.parametrize("name", ["03_standard_passes.ipynb", "05_debugging.ipynb"])
def test_the_tutorials_diffs_fit_their_cells(page, name):
    """The stored outputs of the tutorials with diffs (`diff`, `step`, PrintChanged), exported
    as a reader would: every diff inside its output area, both sides visible."""
    nb = nbformat.read(ROOT / "notebooks" / name, as_version=4)
    body, _ = HTMLExporter(template_name="lab").from_notebook_node(nb)
    out = SHOTS / name.replace(".ipynb", ".html")
    out.write_text(body, encoding="utf-8")
    page.get(out.as_uri())
    # A loaded machine may still be laying the exported page out: wait for its diffs.
    deadline = time.monotonic() + 60
    while (
        not page.execute_script("return document.querySelectorAll('table.passlab-diff').length")
        and time.monotonic() < deadline
    ):
        time.sleep(0.25)
    try:
        found = page.execute_script(
            """
            return [...document.querySelectorAll('table.passlab-diff')].map(t => {
                const area = t.closest('.jp-OutputArea-output').getBoundingClientRect();
                const rows = [...t.tBodies[0].rows].filter(r => r.cells.length == 4);
                return {area: area.right, table: t.getBoundingClientRect().right,
                        after: Math.min(...rows.map(r => r.cells[3].getBoundingClientRect().width)),
                        cells: Math.max(...rows.flatMap(r => [...r.cells].map(c => c.getBoundingClientRect().right)))};
            });
            """
        )
        assert found, f"{name} shows diffs"
        for d in found:
            assert d["table"] <= d["area"] + 1 and d["cells"] <= d["area"] + 1, d
            assert d["after"] > 100, d
        first = page.find_elements("css selector", "table.passlab-diff")[0]
        shoot(page, first.find_element("xpath", "./ancestor::div[contains(@class, 'jp-OutputArea-output')]"),
              name.replace(".ipynb", "-diff"))
        fonts = page.execute_script(
            "return [...document.querySelectorAll('.passlab-ir')].map(e => getComputedStyle(e).fontFamily)"
        )
        assert fonts and all("monospace" in f for f in fonts), fonts
    finally:
        page.get((SHOTS / "outputs.html").as_uri())
