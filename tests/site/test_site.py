"""Checks on the built site (run after ``jupyter-book build``; ``make site-check`` builds first).

The site must be readable offline from file://: no <script src> or <link href> may point off-site (a forgotten CDN
fails here), MathJax is served from the build, and the search index must hold Chinese terms (jieba segmentation).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HTML = ROOT / "book" / "_build" / "html"
EXTERNAL = re.compile(r"""<(?:script|link|img|iframe)\b[^>]*?\b(?:src|href)\s*=\s*["']((?:https?:)?//[^"']+)""", re.I)

pytestmark = pytest.mark.skipif(not (HTML / "index.html").is_file(), reason="book not built (run make book)")


def pages() -> list[Path]:
    return sorted(HTML.rglob("*.html"))


def test_no_external_assets():
    offenders = {}
    for page in pages():
        found = EXTERNAL.findall(page.read_text(encoding="utf-8"))
        if found:
            offenders[str(page.relative_to(HTML))] = sorted(set(found))
    assert not offenders, f"pages load assets from other hosts: {offenders}"


def test_external_asset_pattern_catches_cdn():
    assert EXTERNAL.findall('<script src="https://cdn.jsdelivr.net/npm/mathjax@3/es5/tex-chtml.js"></script>')
    assert EXTERNAL.findall("<link rel='stylesheet' href='//maxcdn.bootstrapcdn.com/fa.css'>")
    assert not EXTERNAL.findall('<a href="https://arxiv.org/abs/2407.21783">论文</a>')


def test_mathjax_is_local():
    page = (HTML / "notation.html").read_text(encoding="utf-8")
    assert "_static/vendor/mathjax/startup.js" in page
    for part in ("startup.js", "core.js", "input/tex.js", "output/chtml.js", "a11y/assistive-mml.js"):
        assert (HTML / "_static" / "vendor" / "mathjax" / part).is_file(), part


def test_search_index_has_chinese_terms():
    raw = (HTML / "searchindex.js").read_text(encoding="utf-8")
    index = json.loads(raw[raw.index("(") + 1 : raw.rindex(")")])
    terms = {t for t in index["terms"] if re.fullmatch(r"[\u4e00-\u9fff]{2,}", t)}
    assert len(terms) > 50, f"only {len(terms)} Chinese terms indexed: is jieba installed?"
    for word in ("单位", "带宽", "勘误"):
        assert word in terms, f"{word} missing from the search index"


def test_glued_numbers_are_rendered():
    page = (HTML / "notation.html").read_text(encoding="utf-8")
    # units.gbit_per_s(400) → 50 GB/s and A100 NVLink 600 GB/s bidirectional → 300 GB/s per direction
    assert re.search(r">\s*50\s*<", page) and re.search(r">\s*300\s*<", page)
    assert "No key" not in page


def test_every_toc_page_built():
    toc = (ROOT / "book" / "_toc.yml").read_text(encoding="utf-8")
    for name in re.findall(r"file:\s*(\S+)", toc):
        assert (HTML / f"{name}.html").is_file(), name


# English strings the theme puts in every page's markup (tooltips, labels, the search placeholder)
THEME_ENGLISH = re.compile(
    r'(?:title|aria-label|placeholder|data-bs-title)="(Toggle [a-z ]+|Color mode|System Settings|Main|Page|'
    r"Search this book\.\.\.|Link to this [a-z]+|Download [a-z ]+|Fullscreen mode|Print to PDF|Contents)\""
)


def test_theme_strings_are_chinese():
    offenders = {}
    for page in pages():
        found = THEME_ENGLISH.findall(page.read_text(encoding="utf-8"))
        if found:
            offenders[str(page.relative_to(HTML))] = sorted(set(found))
    assert not offenders, f"English theme strings: {offenders}"
    assert 'placeholder="搜索本书…"' in (HTML / "intro.html").read_text(encoding="utf-8")


def test_theme_english_pattern_catches_tooltips():
    assert THEME_ENGLISH.findall('<button title="Toggle primary sidebar" data-bs-toggle="tooltip">')
    assert THEME_ENGLISH.findall('<input placeholder="Search this book..."/>')
    assert not THEME_ENGLISH.findall('<button title="显示或收起全书目录">')


def test_no_notebook_source_copies():
    """No _sources/ copies of the notebooks, and no page links to one."""
    assert not (HTML / "_sources").exists()
    linked = [str(p.relative_to(HTML)) for p in pages() if "_sources/" in p.read_text(encoding="utf-8")]
    assert not linked, f"pages link _sources/: {linked}"


def test_ships_only_what_pages_use():
    """No source maps, no unused theme script, no TrueType copies of the icon fonts, and only the MathJax parts the
    pages load (tools/vendor_assets.py)."""
    static = HTML / "_static"
    maps = sorted(p.relative_to(HTML).as_posix() for p in HTML.rglob("*.map"))
    assert not maps, maps
    assert not (static / "scripts" / "fontawesome.js").exists()
    assert not list(static.rglob("*.ttf"))
    mapped = [
        p.name for p in static.rglob("*.js") if "sourceMappingURL=" in p.read_text(encoding="utf-8", errors="replace")
    ]
    assert not mapped, mapped
    mathjax = static / "vendor" / "mathjax"
    assert (mathjax / "startup.js").is_file() and (mathjax / "a11y" / "assistive-mml.js").is_file()
    size = sum(p.stat().st_size for p in mathjax.rglob("*") if p.is_file())
    assert size < 3_000_000, f"MathJax ships {size / 1e6:.1f} MB"
    assert not (mathjax / "sre").exists() and not (mathjax / "tex-svg.js").exists()
    assert not (mathjax / "ui" / "menu.js").exists() and not (mathjax / "tex-chtml.js").exists()
