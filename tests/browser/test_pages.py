"""Every page of the built site in a real browser: no console errors, nothing fetched from another host, no
horizontal overflow on a phone (390 px) or a laptop (1280 px), every internal link resolves, and the load time of
the heaviest page is measured and reported (not asserted: ``benchmarks/test_page_load.py`` holds the target)."""

from __future__ import annotations

import html.parser
import posixpath
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from . import support
from .conftest import WIDTHS

PAGES = (support.pages() if support.SITE.is_dir() else []) or ["(site not built)"]


@pytest.mark.parametrize("page", PAGES)
def test_no_console_errors(visit, page):
    errors = visit(page).console_errors
    assert not errors, f"{page}: console errors {errors}"


@pytest.mark.parametrize("page", PAGES)
def test_no_request_leaves_the_site(visit, page):
    foreign = sorted(set(visit(page).foreign_requests))
    assert not foreign, f"{page} requests other hosts: {foreign}"


def test_a_request_to_another_host_is_refused_and_recorded(shared_context, base_url):
    """The guard itself: a page that asks another host gets nothing, and the request is recorded where each visit
    reads its page's refused requests."""
    url = "http://cdn.example.com/x.js"
    start = len(shared_context.foreign)
    tab = shared_context.new_page()
    try:
        tab.goto(base_url + "intro.html", wait_until="load")
        got = tab.evaluate("(u) => fetch(u).then(() => 'fetched', () => 'refused')", url)
        assert got == "refused" and shared_context.foreign[start:] == [url]
    finally:
        tab.close()
        del shared_context.foreign[start:]


@pytest.mark.parametrize("page", PAGES)
def test_tables_fit_a_laptop_column(visit, page):
    """At 1280 px every table fits its column (on a phone a wide table scrolls in its own box instead)."""
    clipped = visit(page).clipped_tables[1280]
    assert not clipped, f"{page}: tables wider than the column at 1280 px: {clipped}"


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("page", PAGES)
def test_no_horizontal_overflow(visit, page, width):
    o = visit(page).overflow[width]
    assert o["scroll"] <= o["inner"], (
        f"{page} at {width} px: scrollWidth {o['scroll']} > innerWidth {o['inner']}; widest: {o['offenders']}"
    )


def test_heaviest_page_load_time(site, cold_load, request, record_testsuite_property):
    """The largest page (with its images) loaded on a cold cache from the local server. The figure is printed at
    the end of the run and recorded as junit test-suite properties; the target is in benchmarks/test_page_load.py."""
    heaviest = max(PAGES, key=lambda p: support.weight(site, p))
    metrics = {"page": heaviest, "bytes": support.weight(site, heaviest), **cold_load(heaviest)}
    request.node.user_properties.append(("heaviest_page_load", metrics))  # for the summary line (conftest.py)
    record_testsuite_property("heaviest_page", heaviest)
    record_testsuite_property("heaviest_page_load_ms", round(metrics["load_ms"]))
    assert metrics["load_ms"] > 0


# ---- internal links (static: read from the built HTML)
class _Scan(html.parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.ids: set[str] = set()
        self.hrefs: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        for name in ("id", "name") if tag == "a" else ("id",):
            if a.get(name):
                self.ids.add(a[name] or "")
        if tag == "a" and a.get("href"):
            self.hrefs.append(a["href"] or "")


def _scan(path: Path, cache: dict[Path, _Scan]) -> _Scan:
    if path not in cache:
        s = _Scan()
        s.feed(path.read_text(encoding="utf-8", errors="replace"))
        cache[path] = s
    return cache[path]


def test_internal_links_resolve(site):
    cache: dict[Path, _Scan] = {}
    broken: list[str] = []
    for page in sorted(site.rglob("*.html")):
        rel = page.relative_to(site).as_posix()
        if rel.startswith("_"):
            continue
        for href in _scan(page, cache).hrefs:
            parts = urlsplit(href)
            if parts.scheme or parts.netloc or href.startswith(("#!", "javascript:")) or href == "#":
                continue  # other sites, mailto:, and the theme's “#” buttons
            target_rel = posixpath.normpath(posixpath.join(posixpath.dirname(rel), unquote(parts.path)))
            target = page if not parts.path else site / target_rel
            if target.is_dir():
                target = target / "index.html"
            if not target.is_file() or not target.resolve().is_relative_to(site):
                broken.append(f"{rel}: {href} (no such file)")
                continue
            anchor = unquote(parts.fragment)
            if anchor and target.suffix == ".html" and anchor not in _scan(target, cache).ids:
                broken.append(f"{rel}: {href} (no id {anchor!r})")
    assert not broken, f"{len(broken)} broken internal links:\n" + "\n".join(broken[:40])
