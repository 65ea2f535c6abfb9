"""Navigation at every width: on a phone (390 px) and a tablet (768 px) the menu button opens the book's table of
contents as a drawer, a chapter link in it navigates, and the page-TOC button opens this page's contents; on a laptop
(1280 px) the same button collapses and restores the sidebar, and no extra header bar sits above the page."""

from __future__ import annotations

import pytest

PAGE = "part2/02-ring-allreduce.html"
TARGET = "part2/03-network.html"

VISIBLE = """(sel) => { const e = document.querySelector(sel); if (!e) return false;
  const r = e.getBoundingClientRect(), s = getComputedStyle(e);
  return r.width > 0 && r.height > 0 && r.right > 0 && r.left < innerWidth && s.visibility !== "hidden"; }"""


def _visible_toggle(page, cls: str):
    toggles = page.locator(f"button.{cls}")
    for i in range(toggles.count()):
        if toggles.nth(i).is_visible():
            return toggles.nth(i)
    raise AssertionError(f"no visible .{cls} button")


@pytest.mark.parametrize("width", [390, 768])
def test_drawer_opens_and_a_chapter_link_navigates(new_page, width):
    page = new_page(width=width)
    page.goto(PAGE)
    assert not page.evaluate(VISIBLE, "#pst-primary-sidebar .bd-docs-nav"), "the drawer shows before it is opened"
    _visible_toggle(page, "primary-toggle").click()
    drawer = page.locator("#pst-primary-sidebar-modal")
    drawer.locator(".bd-docs-nav").wait_for(state="visible")
    assert page.evaluate("() => document.getElementById('pst-primary-sidebar-modal').open")
    box = drawer.locator(".bd-docs-nav").bounding_box()
    assert box and box["x"] >= 0 and box["x"] + box["width"] <= width + 1, f"drawer off-screen at {width} px: {box}"
    drawer.locator(f"a[href$='{TARGET.split('/')[-1]}']").first.click()
    page.wait_for_url(f"**/{TARGET}")
    assert page.locator("h1").first.inner_text().startswith("3")


@pytest.mark.parametrize("width", [390, 768])
def test_page_toc_opens(new_page, width):
    page = new_page(width=width)
    page.goto(PAGE)
    _visible_toggle(page, "secondary-toggle").click()
    dialog = page.locator("#pst-secondary-sidebar-modal")
    dialog.locator("nav.page-toc a").first.wait_for(state="visible")
    assert dialog.locator("nav.page-toc a").count() >= 5
    page.keyboard.press("Escape")
    assert not page.evaluate("() => document.getElementById('pst-secondary-sidebar-modal').open")


def test_desktop_collapse_and_no_header_bar(new_page):
    page = new_page(width=1280)
    page.goto(PAGE)
    assert page.evaluate("() => document.getElementById('pst-header').getBoundingClientRect().height") == 0
    assert page.evaluate(VISIBLE, "#pst-primary-sidebar .bd-docs-nav")
    toggle = _visible_toggle(page, "primary-toggle")
    toggle.click()
    page.wait_for_function(f"() => !({VISIBLE})('#pst-primary-sidebar .bd-docs-nav')")
    assert not page.evaluate("() => document.getElementById('pst-primary-sidebar-modal').open")
    toggle.click()
    page.wait_for_function(f"() => ({VISIBLE})('#pst-primary-sidebar .bd-docs-nav')")
    assert not page.errors
