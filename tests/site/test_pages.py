"""Every page of the built site, opened in headless Chromium at a phone width (390 px) and a desktop width
(1280 px): nothing wider than the viewport, no console error, no failed request; and what each page loads."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HTML = ROOT / "book" / "_build" / "html"

pytestmark = pytest.mark.skipif(not (HTML / "index.html").is_file(), reason="book not built (run make book)")


def pages() -> list[str]:
    return sorted(
        p.relative_to(HTML).as_posix()
        for p in HTML.rglob("*.html")
        if not p.relative_to(HTML).parts[0].startswith("_") and p.name != "index.html"
    )


def test_no_horizontal_overflow_and_no_console_errors(site_url, browser):
    problems = []
    for width in (390, 1280):
        context = browser.new_context(viewport={"width": width, "height": 900})
        page = context.new_page()
        errors: list[str] = []

        def on_console(message, errors=errors):
            if message.type in ("error", "warning"):
                errors.append(message.text)

        def on_response(response, errors=errors):
            if response.status >= 400:
                errors.append(f"{response.status} {response.url}")

        page.on("console", on_console)
        page.on("pageerror", lambda e, errors=errors: errors.append(str(e)))
        page.on("response", on_response)
        for name in pages():
            errors.clear()
            page.goto(f"{site_url}/{name}", wait_until="load")
            sizes = page.evaluate("() => [document.scrollingElement.scrollWidth, window.innerWidth]")
            if sizes[0] > sizes[1]:
                problems.append(f"{name} @ {width}px: page is {sizes[0]} px wide")
            if errors:
                problems.append(f"{name} @ {width}px: {sorted(set(errors))}")
        context.close()
    assert not problems, "\n".join(problems)


def test_assets_per_page():
    fa_script = re.compile(r"<script[^>]+fontawesome\.js")
    for name in pages():
        text = (HTML / name).read_text(encoding="utf-8")
        assert "thebe" not in text.lower(), f"{name} still configures Thebe"
        assert not fa_script.search(text), f"{name} loads the Font Awesome script"
        has_math = 'class="math' in text or "\\(" in text
        loads_mathjax = "vendor/mathjax/tex-chtml.js" in text
        assert loads_mathjax == has_math, f"{name}: math {has_math}, MathJax loaded {loads_mathjax}"
        if name != "search.html":
            assert "searchindex.js" not in text, f"{name} loads the search index"


def test_no_stray_pages_and_no_year_in_footer():
    assert not (HTML / "prf-prf.html").exists(), "the English proof index page is built"
    footer = (HTML / "intro.html").read_text(encoding="utf-8")
    footer = footer[footer.index('<footer class="bd-footer') :]
    assert not re.search(r"©[^<]*\b(19|20)\d\d\b", footer), "the footer shows a copyright year"
