"""Formulas: the reader never sees raw LaTeX and the text does not jump when MathJax replaces it. The article is
shown only once the formulas are typeset (book/_ext/site_assets.py); the cumulative layout shift (CLS, summed
``layout-shift`` entries without recent input) is measured from the first byte to at least two seconds after load,
on a cold cache, at a phone and a laptop width, and must stay below 0.1 (Google's "good" threshold). The six loads
run one after the other, each in a new context; each is read once two seconds have passed since its own load, so
that those waits overlap."""

from __future__ import annotations

import pytest

from . import support

PAGES = ["part2/02-ring-allreduce.html", "notation.html", "part2/08-summary.html"]
PROBE = """
window.__cls = 0;
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) if (!e.hadRecentInput) window.__cls += e.value;
}).observe({type: "layout-shift", buffered: true});
window.__rawAtReveal = null;
new MutationObserver(() => {
  const root = document.documentElement;
  if (!root) return;
  if (window.__pendingSeen && !root.classList.contains("mj-pending") && window.__rawAtReveal === null) {
    // the article has just become visible: count formulas in view that MathJax has not replaced
    window.__rawAtReveal = Array.from(document.querySelectorAll("article span.math, article div.math"))
      .filter((e) => !e.querySelector("mjx-container") && e.getBoundingClientRect().top < innerHeight).length;
  }
  if (root.classList.contains("mj-pending")) window.__pendingSeen = true;
}).observe(document, {subtree: true, attributes: true, attributeFilter: ["class"]});  // <html> may not exist yet
"""


WIDTHS = (390, 1280)
SINCE_LOAD = "() => performance.now() >= performance.getEntriesByType('navigation')[0].loadEventEnd + 2000"
READ = "() => ({cls: window.__cls, raw: window.__rawAtReveal, seen: !!window.__pendingSeen})"


@pytest.fixture(scope="module")
def measured(browser, base_url) -> dict[tuple[str, int], dict]:
    """(page, width) → {cls, raw, seen}: each page loaded on a cold cache, read two seconds or more after load."""
    tabs, out = {}, {}
    try:
        for page in PAGES:
            for width in WIDTHS:
                context = browser.new_context(viewport={"width": width, "height": 900})
                tab = context.new_page()
                tabs[(page, width)] = (context, tab)
                tab.add_init_script(PROBE)
                tab.goto(base_url + page, wait_until="load")
                support.settle(tab)
                tab.wait_for_function("() => !document.documentElement.classList.contains('mj-pending')")
        for key, (_, tab) in tabs.items():
            tab.wait_for_function(SINCE_LOAD)
            out[key] = tab.evaluate(READ)
    finally:
        for context, _ in tabs.values():
            context.close()
    return out


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("page", PAGES)
def test_no_raw_latex_and_no_layout_shift(measured, page, width, record_property):
    got = measured[(page, width)]
    cls, raw = got["cls"], got["raw"]
    record_property("cls", cls)
    assert got["seen"], "the article was never held back for MathJax"
    assert raw == 0, f"{raw} formulas showed as raw LaTeX when the article appeared"
    assert cls < 0.1, f"{page} at {width} px: layout shift {cls:.3f}"
