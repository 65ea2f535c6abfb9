"""tools/pdf.py without a browser: the reading order it takes from the site's navigation, the download-menu link
it adds after ``make pdf`` (once, with a path that resolves from every folder), the appendix it writes, and its
clear refusals. The printed PDF itself is tested in tests/browser/test_pdf.py."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]

NAV = """<html><head><title>记号 — 集群训练工程：可执行的教程</title></head><body>
<nav class="bd-links bd-docs-nav" aria-label="全书目录"><ul class="nav bd-sidenav bd-sidenav__home-link">
<li class="toctree-l1 current active"><a class="reference internal" href="#">集群训练工程</a></li></ul>
<p aria-level="2" class="caption" role="heading"><span class="caption-text">开篇</span></p>
<ul class="nav bd-sidenav">
<li class="toctree-l1"><a class="reference internal" href="notation.html">记号与单位</a></li></ul>
<p aria-level="2" class="caption" role="heading"><span class="caption-text">第二部分 集群篇</span></p>
<ul class="nav bd-sidenav">
<li class="toctree-l1"><a class="reference internal" href="part2/03-network.html">3 参数面网络</a></li>
<li class="toctree-l1"><a class="reference internal" href="progress.html">自测进度</a></li></ul></nav>
<h1>集群训练工程</h1>
<div class="dropdown dropdown-download-buttons"><button></button>
  <ul class="dropdown-menu"><li><button onclick="window.print()">.pdf</button></li></ul></div>
</body></html>"""


@pytest.fixture(scope="module")
def pdf() -> Any:
    spec = importlib.util.spec_from_file_location("pdf_tool_static", ROOT / "tools" / "pdf.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def site(tmp_path: Path) -> Path:
    (tmp_path / "part2").mkdir()
    (tmp_path / "intro.html").write_text(NAV, encoding="utf-8")
    (tmp_path / "part2" / "03-network.html").write_text(NAV, encoding="utf-8")
    return tmp_path


def test_reading_order_follows_the_navigation(pdf, site):
    toc = pdf.contents(site)
    assert [(e.rel, e.title, e.part) for e in toc] == [
        ("intro.html", "集群训练工程", ""),
        ("notation.html", "记号与单位", "开篇"),
        ("part2/03-network.html", "3 参数面网络", "第二部分 集群篇"),
    ]  # the progress page (scores kept in a browser) is not printed


def test_download_menu_links_the_pdf_once(pdf, site):
    assert pdf.link_pdf(site, "book.pdf") == 2
    assert pdf.link_pdf(site, "book.pdf") == 0  # already linked
    top = (site / "intro.html").read_text(encoding="utf-8")
    deep = (site / "part2" / "03-network.html").read_text(encoding="utf-8")
    assert 'href="book.pdf"' in top and 'href="../book.pdf"' in deep
    assert top.count(pdf.LINK_MARK) == 1 and "全书 PDF" in top


def test_appendix_lists_each_answer_with_its_explanation(pdf):
    numeric = {"type": "numeric", "prompt_html": "每步多少秒？", "answer_text": "23.2 s",
               "tolerance_text": "允许误差 ±1%", "explanation_html": "一步 = 计算 + 暴露。"}
    choice = {"type": "choice", "prompt_html": "哪一项？", "explanation_html": "",
              "options": [{"html": "甲", "correct": False}, {"html": "乙", "correct": True}]}
    page = pdf.appendix_html([("§9.6.2 通信与计算重叠", [numeric, choice])])
    assert "<h2>§9.6.2 通信与计算重叠</h2>" in page
    assert "23.2 s（允许误差 ±1%）" in page and "一步 = 计算 + 暴露。" in page
    assert "<strong>答案：</strong>乙</div>" in page


def test_doubled_headings_come_out_once(pdf):
    assert pdf._heading("常见误解常见误解") == "常见误解"
    assert pdf._heading("  两条流的\n时间线 ") == "两条流的 时间线"
    assert pdf._heading("ABAB C") == "ABAB C"


def test_refusals_name_the_problem(pdf, site, tmp_path):
    with pytest.raises(ValueError, match=r"site: .* holds no built book"):
        pdf.build(tmp_path / "nowhere", tmp_path / "x.pdf")
    with pytest.raises(ValueError, match=r"pages: \['nope.html'\] are not in the table of contents"):
        pdf.build(site, tmp_path / "x.pdf", ["nope.html"], browser=object())


def _page_pdf(*drawings: str) -> Any:
    """A one-page A4 PDF whose content stream is ``drawings`` (PDF operators, points, y up), read back."""
    import io

    from pypdf import PdfReader, PdfWriter
    from pypdf.generic import DecodedStreamObject, DictionaryObject, NameObject

    writer = PdfWriter()
    page = writer.add_blank_page(595.92, 842.88)
    font = DictionaryObject({NameObject("/Type"): NameObject("/Font"), NameObject("/Subtype"): NameObject("/Type1"),
                             NameObject("/BaseFont"): NameObject("/Helvetica")})
    page[NameObject("/Resources")] = DictionaryObject(
        {NameObject("/Font"): DictionaryObject({NameObject("/F1"): writer._add_object(font)})})
    stream = DecodedStreamObject()
    stream.set_data("\n".join(drawings).encode("latin-1"))
    page[NameObject("/Contents")] = writer._add_object(stream)
    out = io.BytesIO()
    writer.write(out)
    return PdfReader(io.BytesIO(out.getvalue()))


BOTTOM, TOP = 51.02, 797.53  # the content area's bottom and top edges for print.css's A4 margins (18 mm, 16 mm)


def _text(y: float) -> str:
    return f"BT /F1 9 Tf 1 0 0 1 60 {y} Tm (x) Tj ET"


def test_empty_frames_finds_a_box_left_empty_by_a_break(pdf):
    # a grey code box from 140 pt down to the page's bottom edge, its code on the next page
    assert pdf.empty_frames(_page_pdf("0.95 g", f"43 {BOTTOM} 510 90 re f", _text(300))) == [
        "page 1 bottom: box x 43–553 pt, y 51–141 pt, empty"]
    # the stub of a rule continued at the top of the next page, with nothing beside it
    (found,) = pdf.empty_frames(_page_pdf("0 0.48 1 rg", f"43 {TOP - 8} 2.5 8 re f", _text(700)))
    assert found.startswith("page 1 top:") and found.endswith("empty")
    # one line of code, then 205 pt of empty frame down to the bottom edge
    (found,) = pdf.empty_frames(_page_pdf("0.95 g", f"43 {BOTTOM} 510 220 re f", _text(BOTTOM + 205)))
    assert "205 pt without content below" in found


def test_empty_frames_accepts_boxes_cut_where_their_content_is(pdf):
    # code runs to the page's bottom; a table row cut at the top whose tallest cell starts at the top; a rule; white
    assert pdf.empty_frames(_page_pdf(
        "0.95 g", f"43 {BOTTOM} 510 300 re f", _text(BOTTOM + 6), _text(BOTTOM + 280),
        "0.9 g", f"43 {TOP - 60} 100 60 re f", f"143 {TOP - 60} 100 60 re f",
        f"BT /F1 9 Tf 1 0 0 1 150 {TOP - 12} Tm (x) Tj ET", _text(TOP - 55),
        "0 g", f"43 {BOTTOM} 510 1 re f",
        "1 g", f"43 {BOTTOM} 510 200 re f",
        "0.9 g", "43 400 510 100 re f")) == []
