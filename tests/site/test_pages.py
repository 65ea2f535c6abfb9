"""What each page of the built site loads, and which pages exist (static checks on the HTML; the same pages in a
real browser are tests/browser)."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HTML = ROOT / "book" / "_build" / "html"
UNNUMBERED = {"9.6-overview", "9.6-selftest", "08-summary"}

pytestmark = pytest.mark.skipif(not (HTML / "index.html").is_file(), reason="book not built (run make book)")


def pages() -> list[str]:
    return sorted(
        p.relative_to(HTML).as_posix()
        for p in HTML.rglob("*.html")
        if not p.relative_to(HTML).parts[0].startswith("_") and p.name != "index.html"
    )


def test_assets_per_page():
    fa_script = re.compile(r"<script[^>]+fontawesome\.js")
    for name in pages():
        text = (HTML / name).read_text(encoding="utf-8")
        assert "thebe" not in text.lower(), f"{name} still configures Thebe"
        assert not fa_script.search(text), f"{name} loads the Font Awesome script"
        has_math = 'class="math' in text or "\\(" in text
        loads_mathjax = "vendor/mathjax/startup.js" in text
        assert loads_mathjax == has_math, f"{name}: math {has_math}, MathJax loaded {loads_mathjax}"
        if name != "search.html":
            assert "searchindex.js" not in text, f"{name} loads the search index"


def test_no_stray_pages_and_no_year_in_footer():
    assert not (HTML / "prf-prf.html").exists(), "the English proof index page is built"
    footer = (HTML / "intro.html").read_text(encoding="utf-8")
    footer = footer[footer.index('<footer class="bd-footer') :]
    assert not re.search(r"©[^<]*\b(19|20)\d\d\b", footer), "the footer shows a copyright year"


def test_numbered_items_carry_their_section():
    """Every figure, table, example, definition … of a section page is numbered '<kind> <section>-<k>' by the build
    (book/_ext/numbering.py), with Chinese labels; no English or sphinx-proof default label survives."""
    spec = importlib.util.spec_from_file_location("site_numbering", ROOT / "book" / "_ext" / "numbering.py")
    assert spec and spec.loader
    numbering = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(numbering)
    for page in sorted((HTML / "part1").glob("*.html")) + sorted((HTML / "part2").glob("*.html")):
        section = numbering.section_prefix(f"{page.parent.name}/{page.stem}")
        assert section, page.name
        text = page.read_text(encoding="utf-8")
        numbers = re.findall(r'class="caption-number">([^<]*)<', text)
        # the opening, the self-test and the summary number nothing; every other section page numbers something
        assert numbers or page.stem in UNNUMBERED, f"{page.name}: nothing numbered"
        for n in numbers:
            assert re.fullmatch(rf"(图|表|例|定义|定理|算法|代码) {re.escape(section)}-\d+ ", n), f"{page.name}: {n!r}"
        assert not re.search(r">(Example|Definition|Theorem|Fig\.|Table) \d", text), f"{page.name}: English label"
