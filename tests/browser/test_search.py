"""Every glossary term — Chinese, English, abbreviation, other names — finds the page that defines it among the first
three results of the site's search; result snippets show no raw LaTeX; the search box's icon does not cover the text.

The queries run in the real search page (``search.html?q=…``) in headless Chromium, so the jieba segmentation of
the index (with the dictionary generated from book/_data/glossary.yml) and the browser-side query splitting are both
exercised: the first through the page's URL, every term through the two steps of the page's own search code (parse,
rank), and a few through the results page as well, which must list exactly that ranking.
"""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path
from urllib.parse import quote

import pytest

ROOT = Path(__file__).resolve().parents[2]

RUN_QUERY = "q => { document.getElementById('search-results').replaceChildren(); Search.performSearch(q); }"
FINISHED = (
    "() => typeof Search !== 'undefined' && Search.title"
    " && Search.title.innerText === Documentation.gettext('Search Results')"
)


def _glossary_terms() -> list:
    spec = importlib.util.spec_from_file_location("glossary_tool", ROOT / "tools" / "glossary.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    _, terms = module.load()
    return terms


def glossary_names() -> list[str]:
    return list(dict.fromkeys(name for t in _glossary_terms() for name in t.names()))


def _page_with_id(site: Path, anchor: str) -> str:
    """The built page that holds ``id="anchor"`` (a glossary ``see`` may be a bare ``#label``)."""
    for path in sorted(site.rglob("*.html")):
        if f'id="{anchor}"' in path.read_text(encoding="utf-8", errors="replace"):
            return path.relative_to(site).as_posix()
    raise AssertionError(f"no page has id {anchor!r}")


def defining_pages(site: Path) -> dict[str, set[str]]:
    """name → the HTML pages that define a term of that name (a name may belong to one term only, see load())."""
    out: dict[str, set[str]] = {}
    for t in _glossary_terms():
        doc, _, anchor = t.see.partition("#")
        page = doc + ".html" if doc else _page_with_id(site, anchor)
        for name in t.names():
            out.setdefault(name, set()).add(page)
    return out


HITS = "els => els.map(e => e.getAttribute('href').split('#')[0].split('?')[0])"
# the pages of the hits of each query, in the order the results page lists them: Search.query's own two steps
# (parse the query with the page's splitter and stemmer, rank the index), without fetching every hit's page for its
# summary; the results page shows the ranked list from its end (it pops the items one by one)
RANK = """names => names.map((q) => {
  const [query, terms, excluded, highlight, objects] = Search._parseQuery(q);
  return Search._performSearch(query, terms, excluded, highlight, objects).reverse()
    .map((r) => r[0] + DOCUMENTATION_OPTIONS.LINK_SUFFIX);
})"""
SHOWN_TOO = 3  # queries besides the first that also go through the results page, to compare it with RANK


def _shown(page, query: str | None = None) -> list[str]:
    """The hits the results page lists (for ``query`` run in the loaded page; None: the query of the URL)."""
    if query is not None:
        page.evaluate(RUN_QUERY, query)
    page.wait_for_function(FINISHED, timeout=15000)
    return page.locator("#search-results ul.search li > a").evaluate_all(HITS)


def test_every_glossary_term_finds_its_page_first(base_url, browser, site):
    wanted = defining_pages(site)
    names = list(wanted)
    assert len(names) > 50
    page = browser.new_page()
    try:
        # the first query goes through the URL, as a reader's does; every query is then ranked in the page by the
        # search code that search.html?q=… runs, and a few are also run through the results page, which must list
        # exactly what the ranking gives
        page.goto(f"{base_url}/search.html?q={quote(names[0])}", wait_until="domcontentloaded")
        shown = {names[0]: _shown(page)}
        ranked = dict(zip(names, page.evaluate(RANK, names), strict=True))
        step = max(1, len(names) // SHOWN_TOO)
        for name in names[step::step][:SHOWN_TOO]:
            shown[name] = _shown(page, name)
    finally:
        page.close()
    assert all(shown[n] == ranked[n] for n in shown), {n: (shown[n][:3], ranked[n][:3]) for n in shown}
    missing = [name for name in names if not ranked[name]]
    buried = [f"{name} → {sorted(wanted[name])} not in {ranked[name][:3]}" for name in names
              if ranked[name] and not wanted[name] & set(ranked[name][:3])]
    assert not missing, f"search finds nothing for: {missing}"
    assert not buried, f"{len(buried)} terms whose defining page is not among the first three hits: {buried}"


def test_errata_page_first_for_kanwu(base_url, browser):
    page = browser.new_page()
    page.goto(f"{base_url}/search.html?q={quote('勘误')}", wait_until="domcontentloaded")
    page.wait_for_function(FINISHED, timeout=15000)
    hits = page.locator("#search-results ul.search li > a").evaluate_all(HITS)
    page.close()
    assert hits and hits[0] == "errata.html", hits[:5]


def test_snippets_show_no_raw_latex(base_url, browser):
    """The summaries under the hits are text: formulas written out, no \\( … \\) delimiters or commands."""
    page = browser.new_page()
    page.goto(f"{base_url}/search.html?q={quote('环形全归约')}", wait_until="domcontentloaded")
    page.wait_for_function(FINISHED, timeout=15000)
    page.wait_for_function("() => document.querySelectorAll('#search-results p.context').length >= 3")
    snippets = page.locator("#search-results p.context").all_inner_texts()
    plain = page.evaluate("t => window.clusterlabPlainTex(t)", "\\(2S(N-1)/N \\cdot \\alpha\\)")
    fraction = page.evaluate("t => window.clusterlabPlainTex(t)", "\\(\\tfrac{2(N-1)}{N}\\,bP/\\beta\\)")
    page.close()
    assert plain == "2S(N-1)/N · α"
    assert fraction == "(2(N-1))/(N) bP/β"
    left = [re.search(r"\\[A-Za-z(\[]", s) for s in snippets]  # no delimiter, no command left
    raw = [s[max(m.start() - 40, 0) : m.start() + 40] for s, m in zip(snippets, left, strict=True) if m]
    assert not raw, raw


def test_search_icon_does_not_cover_the_text(base_url, browser):
    page = browser.new_page(viewport={"width": 390, "height": 800})
    page.goto(f"{base_url}/search.html", wait_until="load")
    box = page.evaluate("""() => { const f = document.querySelector('form.bd-search'); if (!f) return null;
      const i = f.querySelector('i.fa-magnifying-glass, svg'), input = f.querySelector('input');
      const pad = parseFloat(getComputedStyle(input).paddingLeft), r = input.getBoundingClientRect();
      return {icon_right: i.getBoundingClientRect().right, text_left: r.left + pad,
              placeholder: input.getAttribute('placeholder')}; }""")
    page.close()
    assert box, "no search form on search.html"
    assert box["icon_right"] <= box["text_left"] + 0.5, box
    assert box["placeholder"] == "搜索本书…"


@pytest.mark.parametrize("query", ["全归约", "集合通信"])
def test_book_terms_hit_the_chapters(base_url, browser, query):
    page = browser.new_page()
    page.goto(f"{base_url}/search.html?q={quote(query)}", wait_until="domcontentloaded")
    page.wait_for_function(FINISHED, timeout=15000)
    hits = page.locator("#search-results ul.search li a").evaluate_all("els => els.map(e => e.getAttribute('href'))")
    page.close()
    assert any(h.startswith(("part1/", "part2/")) for h in hits), f"{query}: {hits}"
