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
