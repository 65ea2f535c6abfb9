"""Faults readers met on single pages, each checked where it can come back.

Source checks (no build needed): fences CommonMark refuses, table rows that split a cell, quiz questions without an
explanation, stored quizzes with a stale checker, and the §9.6.2 explorer prose against the explorer's grid. Built
checks (skipped without a build; ``CLUSTERLAB_SITE`` points at another build): dropdowns render, no raw MyST, no
figure shown twice or without a caption, no raw label in code, no negative zero, §3's node table once, the
compressor table keeps its byte column, the header says 打印. The same pages in a browser: tests/browser.
"""

from __future__ import annotations

import json
import math
import os
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any, ClassVar

import nbformat
import pytest
from markdown_it.rules_block.table import escapedSplit

from clusterlab import units
from clusterlab.book import quiz
from clusterlab.book.quizbank import BANKS
from clusterlab.communication import overlap_explore

ROOT = Path(__file__).resolve().parents[2]
BOOK = ROOT / "book"
HTML = Path(os.environ.get("CLUSTERLAB_SITE") or BOOK / "_build" / "html").resolve()
built = pytest.mark.skipif(not (HTML / "intro.html").is_file(), reason=f"book not built at {HTML} (run make book)")


def sources() -> list[Path]:
    """The book's pages (notebooks and Markdown), without build output and generated data."""
    skip = {"_build", "_exercises", "_extra", "_data", "_refs"}
    return sorted(p for p in BOOK.rglob("*") if p.suffix in {".ipynb", ".md"} and not skip & set(p.parts))


def markdown_of(path: Path) -> list[tuple[str, str]]:
    """(where, text) of every Markdown cell of a notebook, or of the whole Markdown file."""
    if path.suffix == ".md":
        return [(path.relative_to(ROOT).as_posix(), path.read_text(encoding="utf-8"))]
    nb = nbformat.read(path, as_version=4)
    rel = path.relative_to(ROOT).as_posix()
    return [(f"{rel} cell {i}", c.source) for i, c in enumerate(nb.cells) if c.cell_type == "markdown"]


# ---------------------------------------------------------------------------------------------------------------
# source checks
# ---------------------------------------------------------------------------------------------------------------
FENCE_OPEN = re.compile(r"^ {0,3}(`{3,})(.*)$")


def test_no_backtick_fence_with_a_backtick_in_its_info_line():
    """CommonMark does not open a backtick fence whose info string holds a backtick: a ``{doc}`` role in a directive
    title makes the whole block raw text (the self-test's 参考要点). Such directives take a colon fence."""
    bad = []
    for path in sources():
        for where, text in markdown_of(path):
            for line in text.splitlines():
                m = FENCE_OPEN.match(line)
                if m and m.group(2).startswith("{") and "`" in m.group(2):
                    bad.append(f"{where}: {line[:60]}")
    assert not bad, f"directives that render as raw text: {bad}"


def _cells(row: str) -> list[str]:
    """A table row split into cells exactly as the book's parser (markdown-it) splits it."""
    cells = escapedSplit(row.strip())
    if cells and not cells[0].strip():
        cells = cells[1:]
    if cells and not cells[-1].strip():
        cells = cells[:-1]
    return cells


def test_cells_split_as_the_parser_splits_them():
    assert len(_cells(r"| int8 | $s = \max|x|/(2^7-1)$ | 1 B |")) == 5  # what broke the compressor table
    assert len(_cells(r"| int8 | $s = \max \lvert x\rvert$ | 1 B |")) == 3
    assert len(_cells(r"| a | \| | b |")) == 3


def test_table_rows_have_as_many_cells_as_the_header():
    """A ``|`` inside math splits a cell and pushes the last column out of the table (§9.6.2 lost its "1 B")."""
    bad = []
    for path in sources():
        for where, text in markdown_of(path):
            lines = text.splitlines()
            for i in range(1, len(lines)):
                if not re.fullmatch(r"\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*", lines[i]):
                    continue
                width = len(_cells(lines[i - 1]))
                for row in lines[i + 1 :]:
                    if "|" not in row:
                        break
                    if len(_cells(row)) != width:
                        bad.append(f"{where}: {row[:70]}")
    assert not bad, f"table rows whose cells split: {bad}"


def test_every_quiz_question_is_explained():
    empty = [f"{key} Q{i + 1}" for key, bank in BANKS.items() for i, q in enumerate(bank())
             if not q.explanation.strip()]
    assert not empty, f"questions whose 解析 is empty: {empty}"


def test_unit_suffixed_answers_are_read():
    assert quiz.parse_number("23.25 gb", "GB") == 23.25
    assert quiz.parse_number("23.25 GiB", "GB") == pytest.approx(24.9645, abs=1e-4)
    assert quiz.parse_number("23.25 Gb", "GB") is None  # gigabits are not gigabytes
    assert quiz.parse_number("93 ms", "s") == pytest.approx(0.093)


def test_stored_quizzes_embed_the_current_checker():
    """The checker script is copied into every stored quiz output: a change to static/quiz.js reaches the pages only
    when the notebooks' outputs are refreshed."""
    checker = quiz._asset("quiz.js")
    stale = []
    for path in sources():
        if path.suffix != ".ipynb":
            continue
        for cell in nbformat.read(path, as_version=4).cells:
            for out in cell.get("outputs", []):
                html = out.get("data", {}).get("text/html", "")
                if isinstance(html, str) and 'class="clq-data"' in html and checker not in html:
                    stale.append(path.relative_to(ROOT).as_posix())
    assert not stale, f"quiz outputs with an old checker (refresh them): {sorted(set(stale))}"


# ---- §9.6.2: what the prose says about the explorer holds on the explorer's grid
OVERLAP = BOOK / "part1" / "9.6.2-overlap.ipynb"


@pytest.fixture(scope="module")
def explorer() -> dict[str, Any]:
    """The grid the page's explorer shows (built by the page's own cell) and the paragraph that describes it."""
    nb = nbformat.read(OVERLAP, as_version=4)
    code = next(c.source for c in nb.cells if c.cell_type == "code" and "overlap_explore.explore_grid(" in c.source)
    code = "\n".join(line for line in code.splitlines() if "viz." not in line)
    env: dict[str, Any] = {"math": math, "units": units, "overlap_explore": overlap_explore}
    exec(code, env)
    prose = next(c.source for c in nb.cells if c.cell_type == "markdown" and "打开时是" in c.source)
    return {"grid": env["grid"], "prose": prose, "axes": {k: env[k] for k in env if k.startswith("X_")}}


def test_explorer_prose_matches_its_grid(explorer):
    grid, prose = explorer["grid"], explorer["prose"]
    mib = units.MiB
    opening = {"layers": 48, "grad": 2e9, "alpha": 20e-6, "beta": 50e9, "cap": 25 * mib, "depth": 1}
    assert "48 层、2 GB 梯度、20 µs、50 GB/s、25 MiB 的桶、预取深度 1" in prose

    def at(**change: float) -> dict[str, float]:
        v = {**opening, **change}
        return grid.summaries[grid.index([v["layers"], v["grad"], v["alpha"], v["beta"], v["cap"], v["depth"]])]

    base = at()
    # "每层的梯度已经超过 25 MiB，每层自成一桶"
    assert "每层自成一桶" in prose and 2e9 / 48 > 25 * mib and base["ddp_buckets"] == 48
    # "把桶放大到 100 MiB" shortens the step
    assert "把桶放大到 100 MiB" in prose and at(cap=100 * mib)["ddp_step"] < base["ddp_step"]
    # "把 β 降到 12.5 GB/s … 重叠救不了带宽不够": a longer step and a lower overlap ratio
    slow = at(beta=12.5e9)
    assert "把 β 降到 12.5 GB/s" in prose and slow["ddp_step"] > base["ddp_step"]
    assert slow["ddp_ratio"] < base["ddp_ratio"]
    # α: the opening value is the grid's largest, so the prose can only lower it
    assert opening["alpha"] == max(grid.axes[2]) and "α 调大" not in prose
    fast = at(alpha=2e-6)
    assert "降到 2 µs" in prose and fast["ddp_step"] < 0.6 * base["ddp_step"]  # "延迟项占了一步的一大半"
    # more layers change nothing at 25 MiB (two layers fill a bucket) …
    deep = at(layers=96)
    assert "从 48 调到 96" in prose and "装两层才满" in prose
    assert deep["ddp_buckets"] == base["ddp_buckets"] and deep["ddp_step"] == pytest.approx(base["ddp_step"])
    assert 2e9 / 96 < 25 * mib <= 2 * 2e9 / 96
    # … and cost latency once the buckets are small
    small = at(layers=96, cap=mib)
    assert "缩到 1 MiB" in prose and small["ddp_buckets"] == 96 and small["ddp_step"] > base["ddp_step"]
    # prefetch depth 0 → 1: much less exposed, one layer's bf16 weights more
    pf0 = at(depth=0)
    assert "从 0 调到 1" in prose and base["fsdp_exposed"] < 0.6 * pf0["fsdp_exposed"]
    assert base["fsdp_extra_bytes"] == pytest.approx(2e9 / 48 / 2) and "一层的权重" in prose
    # every value the prose names is one the explorer offers
    for value in re.findall(r"(\d+(?:\.\d+)?) GB/s", prose):
        assert float(value) * 1e9 in grid.axes[3], value
    for value in re.findall(r"(\d+) MiB", prose):
        assert float(value) * mib in grid.axes[4], value
    for value in re.findall(r"(\d+) µs", prose):
        assert float(value) * 1e-6 in [pytest.approx(a) for a in grid.axes[2]], value


# ---------------------------------------------------------------------------------------------------------------
# built pages
# ---------------------------------------------------------------------------------------------------------------
def built_pages() -> list[Path]:
    return sorted(p for p in HTML.rglob("*.html") if not p.relative_to(HTML).parts[0].startswith("_"))


class _Page(HTMLParser):
    """Visible text outside code, text of code blocks, and every image with whether it sits in a figure/cell."""

    VOID: ClassVar[set[str]] = {"img", "br", "hr", "input", "meta", "link", "source", "wbr", "col", "area", "base",
                                "embed", "track"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[tuple[str, str]] = []
        self.text: list[str] = []
        self.code: list[str] = []
        self.images: list[tuple[str, bool, bool]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "img" and a.get("src"):
            in_figure = any(t == "figure" for t, _ in self.stack)
            in_output = any("cell_output" in c for _, c in self.stack)
            self.images.append((a["src"] or "", in_figure, in_output))
        if tag not in self.VOID:
            self.stack.append((tag, a.get("class") or ""))

    def handle_endtag(self, tag: str) -> None:
        for i in range(len(self.stack) - 1, -1, -1):
            if self.stack[i][0] == tag:
                del self.stack[i:]
                break

    def handle_data(self, data: str) -> None:
        tags = {t for t, _ in self.stack}
        if tags & {"script", "style", "template"}:
            return
        (self.code if tags & {"pre", "code"} else self.text).append(data)


def parse(path: Path) -> _Page:
    page = _Page()
    page.feed(path.read_text(encoding="utf-8"))
    return page


@built
def test_reference_dropdowns_render():
    page = (HTML / "part1" / "9.6-selftest.html").read_text(encoding="utf-8")
    dropdowns = re.findall(r'<div class="(?=[^"]*\bdropdown\b)(?=[^"]*\badmonition\b)[^"]*"', page)
    assert len(dropdowns) >= 5, f"{len(dropdowns)} 参考要点 dropdowns on the self-test page"


@built
def test_no_raw_myst_on_any_page():
    raw = re.compile(r"`{3,}\{|^:{3,}\{|:class: |\{(doc|ref|glue:text|numref|prf:ref)\}`", re.M)
    bad = {}
    for path in built_pages():
        found = raw.findall("".join(parse(path).text))
        if found:
            bad[path.relative_to(HTML).as_posix()] = found[:3]
    assert not bad, f"MyST markup shown as text: {bad}"


@built
def test_every_figure_is_shown_once_with_its_caption():
    bad = {}
    for path in built_pages():
        images = parse(path).images
        srcs = [s for s, _, _ in images if not s.startswith("data:")]
        twice = sorted({s for s in srcs if srcs.count(s) > 1})
        uncaptioned = [s for s, in_figure, in_output in images if in_output and not in_figure]
        if twice or uncaptioned:
            bad[path.relative_to(HTML).as_posix()] = {"twice": twice, "uncaptioned": uncaptioned[:3]}
    assert not bad, f"figures shown twice or without a caption: {bad}"


def labels() -> set[str]:
    """Every target name the book defines: ``(name)=``, ``:label:``, ``:name:``."""
    out: set[str] = set()
    for path in sources():
        text = path.read_text(encoding="utf-8")
        out |= set(re.findall(r"\(([a-z][a-z0-9.-]*-[a-z0-9.-]+)\)=", text))
        out |= set(re.findall(r":(?:label|name): ([a-z][a-z0-9.-]*-[a-z0-9.-]+)", text))
    return out


@built
def test_no_raw_label_in_code():
    names = labels()
    assert "ex-c03-size" in names and len(names) > 100
    alternatives = "|".join(map(re.escape, sorted(names, key=len, reverse=True)))
    pattern = re.compile(r"(?<![\w.-])(" + alternatives + r")(?![\w-])")
    bad = {}
    for path in built_pages():
        found = sorted(set(pattern.findall("".join(parse(path).code))))
        if found:
            bad[path.relative_to(HTML).as_posix()] = found
    assert not bad, f"cross-reference labels printed in code: {bad}"


@built
def test_no_negative_zero():
    zero = re.compile(r"(?<![\w.])[-−]0(?:\.0+)?(?![\w.])")
    bad = {}
    for path in built_pages():
        page = parse(path)
        found = zero.findall("".join(page.text) + "".join(page.code))
        if found:
            bad[path.relative_to(HTML).as_posix()] = found
    assert not bad, f"negative zeros: {bad}"
    assert zero.findall("比基线高 -0.0000") and not zero.findall("-0.5 −0.02 x-0")


@built
def test_node_table_once_without_a_repeated_row():
    page = (HTML / "part2" / "03-network.html").read_text(encoding="utf-8")
    tables = re.findall(r"<table[^>]*>.*?</table>", page, re.S)
    nodes = [t for t in tables if "NVLink（每 GPU 单向）" in t]
    assert len(nodes) == 1, f"the node table is shown {len(nodes)} times"
    rows = re.findall(r"<tr>(.*?)</tr>", nodes[0], re.S)
    assert len(rows) == len(set(rows)) == 4, rows  # header, A100, H100 at 400G, H100 at 200G


@built
def test_compressor_table_keeps_its_byte_column():
    page = (HTML / "part1" / "9.6.2-overlap.html").read_text(encoding="utf-8")
    table = next(t for t in re.findall(r"<table[^>]*>.*?</table>", page, re.S) if "每个数值" in t)
    rows = [
        [re.sub(r"<[^>]+>", "", c).strip() for c in re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", r, re.S)]
        for r in re.findall(r"<tr[^>]*>(.*?)</tr>", table, re.S)
    ]
    assert all(len(r) == 3 for r in rows), rows
    assert rows[3][0] == "int8" and rows[3][2] == "1 B", rows[3]


@built
def test_header_says_print_in_mainland_wording():
    page = (HTML / "intro.html").read_text(encoding="utf-8")
    assert "列印" not in page
    assert "打印" in page


@built
def test_quiz_pages_explain_every_question():
    empty = []
    for path in built_pages():
        text = path.read_text(encoding="utf-8")
        for m in re.finditer(r'<script type="application/json" class="clq-data">(.*?)</script>', text):
            for i, q in enumerate(json.loads(m.group(1))["questions"]):
                if not q["explanation_html"].strip():
                    empty.append(f"{path.name} Q{i + 1}")
    assert not empty, empty
