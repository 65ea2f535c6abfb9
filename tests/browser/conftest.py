"""Fixtures for the browser tests: the built site served on 127.0.0.1, one headless Chromium per session.

If Chromium (or Playwright, or the built site) is missing, every test here is skipped with one line saying why.
All pages share one browser context, so that after the first page the theme and MathJax come from the cache;
localStorage is emptied before each test and before each page visit. Each page is loaded once, at 320 px, then
widened to 390 and 1280 px; that visit is shared by the per-page tests. At each width axe-core (vendored by
tools/vendor_assets.py, injected into the page, no network) checks the page against WCAG 2.1 A and AA (``AXE_PLAN``):
every rule at 320 and 1280 px, except that the colour rules, which do not depend on the width and are the slowest,
run at 1280 px only, in light and in dark mode; at 390 px the rules that the layout can change. Requests to any
other host are refused and recorded.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from . import support

REASON = support.unavailable()
WIDTHS = (390, 1280)
A11Y_WIDTHS = (320, *WIDTHS)
AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
# Rules that depend on colours only (the slowest ones): run at 1280 px, in light and in dark mode, not at every width.
AXE_COLOUR = ["color-contrast", "link-in-text-block"]
# Rules whose outcome the layout can change between two phone widths (scroll boxes, controls shown or hidden).
AXE_LAYOUT = ["scrollable-region-focusable", "aria-hidden-focus", "button-name", "link-name", "image-alt", "label"]
AXE_PLAN = {  # width → [(label, rules to run or None for every WCAG 2.1 A/AA rule, rules to leave out, dark mode)]
    320: [("320 px", None, AXE_COLOUR, False)],
    390: [("390 px", AXE_LAYOUT, [], False)],
    1280: [("1280 px", None, [], False), ("1280 px dark", AXE_COLOUR, [], True)],
}
# [rules or null, rules left out, dark?] → the serious and critical violations: [{id, impact, nodes}]
AXE_RUN = """async ([only, skip, dark]) => {
  const root = document.documentElement;
  const frame = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
  if (dark) { root.dataset.theme = "dark"; await frame(); }
  const options = {runOnly: only ? {type: "rule", values: only} : {type: "tag", values: @TAGS@},
                   resultTypes: ["violations"], rules: {}};
  for (const id of skip) options.rules[id] = {enabled: false};
  const why = (n) => (n.failureSummary || "").split("\\n").slice(1, 2).join(" ").trim();
  try {
    const r = await axe.run({exclude: [["mjx-container mjx-math"]]}, options);
    return r.violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => ({
      id: v.id, impact: v.impact, nodes: v.nodes.slice(0, 5).map((n) => n.target.join(" ") + " :: " + why(n))}));
  } finally { if (dark) root.dataset.theme = "light"; }
}""".replace("@TAGS@", json.dumps(AXE_TAGS))
# the same run, failing if axe-core has not finished after AXE_TIMEOUT_MS (a run that never ends would otherwise hold
# the whole suite: page.evaluate waits for ever)
AXE_TIMEOUT_MS = 180_000
AXE_RUN_BOUNDED = """(args) => Promise.race([(@RUN@)(args), new Promise((_, reject) => setTimeout(
  () => reject(new Error("axe-core did not finish in @MS@ ms")), @MS@))])""".replace("@RUN@", AXE_RUN).replace(
    "@MS@", str(AXE_TIMEOUT_MS))
HEIGHT = 900
FOREIGN = re.compile(r"^(?!http://127\.0\.0\.1:\d+/|file://)")
OVERFLOW = """() => {
  const w = window.innerWidth, out = [];
  const scrolls = (e) => /(auto|scroll|hidden|clip)/.test(getComputedStyle(e).overflowX);
  for (const e of document.body.querySelectorAll("*")) {
    const r = e.getBoundingClientRect();
    if (r.width === 0 || r.right <= w + 1) continue;
    let p = e.parentElement, inside = false;
    for (; p && p !== document.body; p = p.parentElement) {
      if (scrolls(p) || p.getBoundingClientRect().right > w + 1) { inside = true; break; }
    }
    if (!inside) out.push(e.tagName.toLowerCase() + (e.id ? "#" + e.id : "") +
      (typeof e.className === "string" && e.className ? "." + e.className.trim().split(/\\s+/).join(".") : "") +
      " right=" + Math.round(r.right));
    if (out.length >= 5) break;
  }
  return {scroll: document.documentElement.scrollWidth, inner: w, offenders: out};
}"""


# code blocks whose lines run past the block's right edge (cut, or hidden behind a scroll bar)
CODE_OVERFLOW = """() => Array.from(document.querySelectorAll("pre"))
  .filter((p) => p.offsetParent !== null && p.scrollWidth > p.clientWidth + 1)
  .map((p) => (p.closest("[id]") ? p.closest("[id]").id : "?") + " +" + (p.scrollWidth - p.clientWidth) + "px")"""

# tables that do not fit their box (they scroll sideways): the box's id/class and how far it overflows
CLIPPED_TABLES = """() => Array.from(document.querySelectorAll(
    "div.output.text_html, .pst-scrollable-table-container"))
  .filter((d) => d.querySelector("table") && d.scrollWidth > d.clientWidth + 1)
  .map((d) => (d.closest("figure, div.cell")?.id || d.className) + " +" + (d.scrollWidth - d.clientWidth) + "px")"""


def pytest_runtest_setup(item: pytest.Item) -> None:
    if REASON:
        pytest.skip(REASON)  # raised here for every test, so the summary folds them into one line


@pytest.fixture(scope="session")
def site() -> Path:
    return support.SITE


@pytest.fixture(scope="session")
def base_url(site: Path) -> Iterator[str]:
    with support.serve(site) as url:
        yield url


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    with support.launch() as b:
        yield b


@dataclass
class Visit:
    """What one load of a page showed."""

    console_errors: list[str] = field(default_factory=list)
    foreign_requests: list[str] = field(default_factory=list)
    overflow: dict[int, dict[str, Any]] = field(default_factory=dict)
    clipped_tables: dict[int, list[str]] = field(default_factory=dict)
    code_overflow: dict[int, list[str]] = field(default_factory=dict)
    # "320 px", "1280 px dark", … → serious and critical axe violations (empty when axe-core is not vendored)
    axe: dict[str, list[dict[str, Any]]] = field(default_factory=dict)


def _guard(context: Any, sink: list[str]) -> None:
    """Record, and refuse, every request to a host other than 127.0.0.1 (data: and blob: URLs never reach here)."""

    def refuse(route: Any) -> None:
        sink.append(route.request.url)
        route.abort()

    context.route(FOREIGN, refuse)


def _watch(page: Any, sink: list[str]) -> None:
    page.on("console", lambda m: sink.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: sink.append(f"uncaught: {e.message}\n{e.stack or ''}".strip()))


@pytest.fixture(scope="session")
def shared_context(browser: Any, base_url: str) -> Iterator[Any]:
    """One context for the whole run, so pages after the first load the theme and MathJax from the cache."""
    context = browser.new_context(viewport={"width": WIDTHS[-1], "height": HEIGHT}, base_url=base_url)
    context.set_default_timeout(10_000)
    context.foreign = []
    _guard(context, context.foreign)
    yield context
    context.close()


def _clear_storage(context: Any) -> None:
    page = context.new_page()
    page.goto("/_static/", wait_until="commit")  # any URL of the site's origin
    page.evaluate("() => localStorage.clear()")
    page.close()


@pytest.fixture
def new_page(shared_context: Any) -> Iterator[Callable[..., Any]]:
    """``new_page(width=1280, init_script=None)`` → a page of the shared context, whose localStorage is empty when
    the test starts; its console errors are collected in ``page.errors``; ``page.refused()`` lists refused URLs."""
    _clear_storage(shared_context)
    opened: list[Any] = []
    start = len(shared_context.foreign)

    def make(width: int = 1280, init_script: str | None = None) -> Any:
        page = shared_context.new_page()
        opened.append(page)
        page.set_viewport_size({"width": width, "height": HEIGHT})
        if init_script:
            page.add_init_script(init_script)
        page.errors = []
        page.refused = lambda: shared_context.foreign[start:]
        _watch(page, page.errors)
        return page

    yield make
    for page in opened:
        page.close()
    del shared_context.foreign[start:]


def axe_script() -> str | None:
    """axe-core's source, or None when it has not been vendored (tools/vendor_assets.py; needs npm once)."""
    path = support.axe_core()
    return path.read_text(encoding="utf-8") if path else None


@pytest.fixture(scope="session")
def axe_source() -> str | None:
    return axe_script()


def _settle_frame(page: Any) -> None:
    page.evaluate("() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))")


@pytest.fixture(scope="session")
def visit(shared_context: Any, base_url: str, axe_source: str | None) -> Callable[[str], Visit]:
    """``visit(page)``: load the page once at the narrowest width, then widen the window to each other width in turn;
    remember console errors, refused requests, the overflow of the page, of its tables and of its code blocks, and
    the axe violations at each width."""
    cache: dict[str, Visit] = {}

    def run(rel: str) -> Visit:
        if rel in cache:
            return cache[rel]
        v = Visit()
        start = len(shared_context.foreign)
        page = shared_context.new_page()
        try:
            page.set_viewport_size({"width": A11Y_WIDTHS[0], "height": HEIGHT})
            page.add_init_script("localStorage.clear()")  # as for a first-time reader (the cache stays warm)
            _watch(page, v.console_errors)
            page.goto(base_url + rel, wait_until="load")
            support.settle(page)
            if axe_source:
                page.add_script_tag(content=axe_source)
            for width in A11Y_WIDTHS:
                if width != A11Y_WIDTHS[0]:
                    page.set_viewport_size({"width": width, "height": HEIGHT})
                    _settle_frame(page)
                if width in WIDTHS:
                    v.overflow[width] = page.evaluate(OVERFLOW)
                    v.clipped_tables[width] = page.evaluate(CLIPPED_TABLES)
                    v.code_overflow[width] = page.evaluate(CODE_OVERFLOW)
                for label, only, skip, dark in AXE_PLAN[width] if axe_source else []:
                    v.axe[label] = page.evaluate(AXE_RUN_BOUNDED, [only, skip, dark])
        finally:
            page.close()
        v.foreign_requests = shared_context.foreign[start:]
        cache[rel] = v
        return v

    return run


@pytest.fixture(scope="session")
def cold_load(browser: Any, base_url: str) -> Callable[[str], dict[str, float]]:
    """``cold_load(page)`` → load metrics of the page in a new context (empty cache) at 1280 px."""

    def run(rel: str) -> dict[str, float]:
        context = browser.new_context(viewport={"width": WIDTHS[-1], "height": HEIGHT})
        try:
            _guard(context, [])
            page = context.new_page()
            page.goto(base_url + rel, wait_until="load")
            return dict(page.evaluate(support.LOAD_METRICS))
        finally:
            context.close()

    return run


# ---- report the page-load measurement at the end of the run (works with and without xdist)
_LOADS: list[dict[str, Any]] = []


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    for name, value in getattr(report, "user_properties", []):
        if name == "heaviest_page_load" and report.when == "call":
            _LOADS.append(value)


def pytest_terminal_summary(terminalreporter: Any) -> None:
    for m in _LOADS:
        terminalreporter.write_line(
            f"heaviest page: {m['page']} ({m['bytes'] / 1e6:.2f} MB with its images, {m['all_bytes'] / 1e6:.2f} MB "
            f"with scripts, styles and fonts) loaded in {m['load_ms']:.0f} ms on a cold cache "
            f"(DOMContentLoaded {m['dcl_ms']:.0f} ms)"
        )
