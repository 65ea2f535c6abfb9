"""Every glossary term — Chinese, English, abbreviation, other names — finds at least one page in the site's search.

The query goes through the real search page (``search.html?q=…``) in headless Chromium, so the jieba
segmentation of the index (with the dictionary generated from book/_data/glossary.yml) and the browser-side query
splitting are both exercised.
"""

from __future__ import annotations

import importlib.util
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


def glossary_names() -> list[str]:
    spec = importlib.util.spec_from_file_location("glossary_tool", ROOT / "tools" / "glossary.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    _, terms = module.load()
    return list(dict.fromkeys(name for t in terms for name in t.names()))


def test_every_glossary_term_is_found(base_url, browser):
    names = glossary_names()
    assert len(names) > 50
    page = browser.new_page()
    # the first query goes through the URL, as a reader's does; the others reuse the loaded index and run the
    # same query code in the page (Search.performSearch is what search.html?q=… calls on load)
    page.goto(f"{base_url}/search.html?q={quote(names[0])}", wait_until="domcontentloaded")
    page.wait_for_function(FINISHED, timeout=15000)
    missing = [] if page.locator("#search-results ul.search li").count() else [names[0]]
    for name in names[1:]:
        page.evaluate(RUN_QUERY, name)
        page.wait_for_function(FINISHED, timeout=15000)
        if page.locator("#search-results ul.search li").count() == 0:
            missing.append(name)
    page.close()
    assert not missing, f"search finds nothing for: {missing}"


@pytest.mark.parametrize("query", ["全归约", "集合通信"])
def test_book_terms_hit_the_chapters(base_url, browser, query):
    page = browser.new_page()
    page.goto(f"{base_url}/search.html?q={quote(query)}", wait_until="domcontentloaded")
    page.wait_for_function(FINISHED, timeout=15000)
    hits = page.locator("#search-results ul.search li a").evaluate_all("els => els.map(e => e.getAttribute('href'))")
    page.close()
    assert any(h.startswith(("part1/", "part2/")) for h in hits), f"{query}: {hits}"
