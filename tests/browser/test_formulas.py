"""Formulas: the reader never sees raw LaTeX and the text does not jump when MathJax replaces it. The article is
shown only once the formulas are typeset (book/_ext/site_assets.py); the cumulative layout shift (CLS, summed
``layout-shift`` entries without recent input) is measured from the first byte to two seconds after load, on a cold
cache, at a phone and a laptop width, and must stay below 0.1 (Google's "good" threshold)."""

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


@pytest.mark.parametrize("width", [390, 1280])
@pytest.mark.parametrize("page", PAGES)
def test_no_raw_latex_and_no_layout_shift(browser, base_url, page, width, record_property):
    context = browser.new_context(viewport={"width": width, "height": 900})
    try:
        tab = context.new_page()
        tab.add_init_script(PROBE)
        tab.goto(base_url + page, wait_until="load")
        support.settle(tab)
        tab.wait_for_function("() => !document.documentElement.classList.contains('mj-pending')")
        tab.wait_for_timeout(2000)
        cls = tab.evaluate("() => window.__cls")
        raw = tab.evaluate("() => window.__rawAtReveal")
        seen = tab.evaluate("() => !!window.__pendingSeen")
    finally:
        context.close()
    record_property("cls", cls)
    assert seen, "the article was never held back for MathJax"
    assert raw == 0, f"{raw} formulas showed as raw LaTeX when the article appeared"
    assert cls < 0.1, f"{page} at {width} px: layout shift {cls:.3f}"
