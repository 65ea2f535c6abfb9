"""Page faults in a real browser: the self-test's 参考要点 open and close, no code block runs off the page at 390 or
1280 px, the glossary's "见" column fits at 1280 px, the student notebook downloads from a copy opened from disk,
and a single page prints with its code wrapped, its tables inside the page, its hidden code shown and no player
controls (the static checks of the same faults: tests/site/test_page_faults.py)."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from . import support
from .conftest import WIDTHS
from .test_pages import PAGES


def test_reference_points_are_collapsed_dropdowns(new_page):
    page = new_page(1280)
    page.goto("part1/9.6-selftest.html", wait_until="load")
    boxes = page.locator("div.admonition.dropdown")
    assert boxes.count() >= 5
    first = boxes.nth(0)
    body = first.locator("ul").first
    assert not body.is_visible(), "参考要点 shown before the reader opens it"
    first.locator(".admonition-title").first.click()
    body.wait_for(state="visible")
    assert "环形全归约" in body.inner_text()


@pytest.mark.parametrize("page", PAGES)
def test_no_code_block_runs_off_the_page(visit, page):
    """At 390 and 1280 px no code line runs past its block's right edge (long lines wrap, code.css)."""
    cut = {width: found[:4] for width, found in visit(page).code_overflow.items() if found}
    assert set(visit(page).code_overflow) == set(WIDTHS)
    assert not cut, f"{page}: code lines cut at the right edge: {cut}"


def test_glossary_see_column_fits_at_1280(new_page):
    page = new_page(1280)
    page.goto("glossary.html", wait_until="load")
    got = page.evaluate("""() => {
      const t = Array.from(document.querySelectorAll("table")).find((x) => x.textContent.includes("English"));
      const box = t.closest(".pst-scrollable-table-container") || t.parentElement;
      const right = box.getBoundingClientRect().right;
      const cells = Array.from(t.querySelectorAll("tr > :last-child"));
      return {scrolls: box.scrollWidth > box.clientWidth + 1, header: cells[0].textContent.trim(),
              cut: cells.filter((c) => c.getBoundingClientRect().right > right + 1 || c.scrollWidth > c.clientWidth + 1)
                        .map((c) => c.textContent.trim()).slice(0, 5)};
    }""")
    assert got["header"] == "见"
    assert not got["scrolls"] and not got["cut"], got


def test_student_notebook_downloads_from_file(browser, site):
    context = browser.new_context(accept_downloads=True)
    try:
        page = context.new_page()
        page.goto((site / "part1" / "9.6.2-overlap.html").as_uri(), wait_until="load")
        link = page.locator("a.download", has_text="下载学生版笔记本").first
        target = (site / "part1" / link.get_attribute("href")).resolve()
        with page.expect_download(timeout=10_000) as info:
            link.click()
        download = info.value
        assert download.suggested_filename == "overlap.ipynb"
        saved = Path(download.path()).read_bytes()
        assert hashlib.sha256(saved).digest() == hashlib.sha256(target.read_bytes()).digest()
        assert page.url.endswith("9.6.2-overlap.html"), "the page navigated to the notebook's JSON"
    finally:
        context.close()


def test_a_single_page_prints_whole(new_page):
    page = new_page(680)  # the width of A4 between print.css's margins
    page.emulate_media(media="print")
    page.goto("part1/9.6.2-overlap.html", wait_until="load")
    support.settle(page)
    got = page.evaluate("""() => {
      const visible = (e) => e && e.getBoundingClientRect().height > 0 && getComputedStyle(e).display !== "none";
      const article = document.querySelector(".bd-article");
      const wide = Array.from(article.querySelectorAll("pre, table"))
        .filter((e) => e.getBoundingClientRect().right > article.getBoundingClientRect().right + 2
                       || e.scrollWidth > e.clientWidth + 1).length;
      return {wide, hidden_code: visible(document.querySelector("details.hide .cell_input pre")),
              controls: Array.from(document.querySelectorAll(".anim-controls")).some(visible),
              sidebar: visible(document.querySelector(".bd-sidebar-primary"))};
    }""")
    assert got == {"wide": 0, "hidden_code": True, "controls": False, "sidebar": False}, got
