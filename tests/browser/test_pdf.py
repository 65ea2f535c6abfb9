"""The PDF edition (tools/pdf.py), printed by Chromium from the built site: here two chapters (the whole book is
``make pdf``), built once for the session.

Every number a chapter glues into its prose is in that chapter's pages; each page carries its number; the
bookmarks follow the table of contents; the fonts are embedded (Noto CJK among them); nothing is wider than the
page; no page break leaves a framed box empty; the animation prints as a strip of key frames; hidden code prints;
the quiz answers are in the appendix.
"""

from __future__ import annotations

import importlib.util
import re
import sys
import unicodedata
from pathlib import Path
from typing import Any

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[2]
CHAPTERS = ("part1/9.6.2-overlap.html", "part2/03-network.html")
GLUE_TEXT = re.compile(r"\{glue:text\}`([^`]+)`")


def _tool() -> Any:
    spec = importlib.util.spec_from_file_location("pdf_tool", ROOT / "tools" / "pdf.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def _flat(text: str) -> str:
    """Text as compared: NFKC (Chromium maps some CJK glyphs to Kangxi radicals), without any white space."""
    return re.sub(r"\s+", "", unicodedata.normalize("NFKC", text))


@pytest.fixture(scope="session")
def edition(site: Path, browser: Any, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    from pypdf import PdfReader

    out = tmp_path_factory.mktemp("pdf") / "two-chapters.pdf"
    # the session's Chromium; the empty-frame check reads the merged file below, once
    report = _tool().build(site, out, list(CHAPTERS), link=False, browser=browser, check_frames=False)
    reader = PdfReader(out)
    return {"report": report, "reader": reader, "texts": [p.extract_text() or "" for p in reader.pages]}


def glued_strings(notebook: Path) -> list[str]:
    """Each ``{glue:text}`` of the notebook's prose, formatted as the page shows it."""
    cache: dict[Path, dict[str, str]] = {}

    def values(path: Path) -> dict[str, str]:
        if path not in cache:
            out: dict[str, str] = {}
            for cell in nbformat.read(path, as_version=4).cells:
                for o in cell.get("outputs", []):
                    name = o.get("metadata", {}).get("scrapbook", {}).get("name")
                    plain = o.get("data", {}).get("application/papermill.record/text/plain")
                    if name and plain is not None:
                        out[name] = plain
            cache[path] = out
        return cache[path]

    found = []
    for cell in nbformat.read(notebook, as_version=4).cells:
        if cell.cell_type != "markdown":
            continue
        for ref in GLUE_TEXT.findall(cell.source):
            source = notebook
            if "::" in ref:
                doc, ref = ref.split("::", 1)
                source = notebook.parent / doc
            key, _, spec = ref.partition(":")
            plain = values(source)[key]
            found.append(format(float(plain), spec) if spec else plain.strip("'\""))
    return found


def test_every_glued_number_is_in_its_chapter(edition):
    report, texts = edition["report"], edition["texts"]
    for rel in CHAPTERS:
        first, count = report.ranges[rel]
        text = _flat("".join(texts[first : first + count]))
        notebook = (ROOT / "book" / rel).with_suffix(".ipynb")
        expected = glued_strings(notebook)
        assert len(expected) > 50, f"{rel}: only {len(expected)} glued numbers found"
        missing = sorted({s for s in expected if _flat(s) not in text})
        assert not missing, f"{rel}: glued numbers missing from the PDF: {missing[:20]}"


def test_pages_are_numbered(edition):
    texts = edition["texts"]
    unnumbered = [i + 1 for i, t in enumerate(texts) if not re.search(rf"(?<![\d.]){i + 1}\s*$", t)]
    assert not unnumbered, f"pages without their number: {unnumbered}"


def test_bookmarks_follow_the_table_of_contents(edition):
    reader = edition["reader"]
    top = [item for item in reader.outline if not isinstance(item, list)]
    titles = [str(t.title) for t in top]
    assert titles == ["第一部分 通信、容错与工程实践（§9.6）", "第二部分 集群篇", "附录"], titles
    chapters = [c for part in reader.outline if isinstance(part, list) for c in part if not isinstance(c, list)]
    names = [str(c.title) for c in chapters]
    assert names[:2] == ["§9.6.2 通信与计算重叠", "3 参数面网络"], names
    first, _ = edition["report"].ranges[CHAPTERS[1]]
    assert reader.get_destination_page_number(chapters[1]) == first
    sections = reader.outline[1][1]  # the headings of §9.6.2
    assert isinstance(sections, list) and "两条流的时间线" in [str(s.title) for s in sections]
    assert "目录" not in [str(s.title) for s in sections]


def test_fonts_are_embedded(edition):
    """Every font travels in the file: TrueType/CFF programs, or (Skia's choice for the CFF-outline Noto CJK
    collection) Type 3 fonts whose glyphs are drawn in the file, with a ToUnicode map so the text stays searchable."""
    missing, type3 = set(), 0
    for page in edition["reader"].pages:
        for font in page["/Resources"].get("/Font", {}).values():
            font = font.get_object()
            if font.get("/Subtype") == "/Type3":
                type3 += 1
                if "/CharProcs" not in font or "/ToUnicode" not in font:
                    missing.add(f"Type3 {font.get('/Name')}")
                continue
            desc = font.get("/FontDescriptor") or font["/DescendantFonts"][0].get_object().get("/FontDescriptor")
            if not any(k in desc.get_object() for k in ("/FontFile", "/FontFile2", "/FontFile3")):
                missing.add(str(font.get("/BaseFont")))
    assert not missing, f"fonts not embedded: {missing}"
    assert type3 > 0
    first = _flat(edition["texts"][0])
    assert _flat("§9.6.2 通信与计算重叠") in first and _flat("两种资源，同时开工") in first  # Chinese text extracts


def test_nothing_is_wider_than_the_page(edition):
    assert edition["report"].overflow == {}


def test_no_empty_frames_at_page_breaks(edition):
    """No code cell, admonition or table that a page break cuts leaves a piece holding nothing (or running on empty
    to the page's edge): read from the drawing operators of the merged PDF (tools/pdf.py empty_frames)."""
    assert _tool().empty_frames(edition["reader"]) == []
    assert len(edition["reader"].pages) > 20  # the two chapters break across many pages


def test_animation_hidden_code_and_answers_print(edition):
    report, texts = edition["report"], edition["texts"]
    assert report.strips[CHAPTERS[0]] == 1  # the DDP step animation as key frames
    first, count = report.ranges[CHAPTERS[0]]
    chapter = _flat("".join(texts[first : first + count]))
    assert _flat("第 1 / 30 帧") in chapter and _flat("第 30 / 30 帧") in chapter
    assert "X_LAYERS=[12,48,96]" in chapter  # a hide-input cell prints its code
    a_first, a_count = report.ranges["appendix"]
    appendix = _flat("".join(texts[a_first : a_first + a_count]))
    assert _flat("附录 · 自测答案") in appendix
    from clusterlab.book.quizbank import part1_962

    assert report.quizzes[CHAPTERS[0]] == len(part1_962.questions()) >= 10  # every question reaches the appendix
    assert _flat("答案：23.2 s") in appendix
