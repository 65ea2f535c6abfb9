"""WCAG 2.1 A and AA on every page, checked by axe-core in the browser (``AXE_PLAN`` in conftest.py says which
rules run at which width): no serious or critical violation at 320, 390 and 1280 px, nor in dark mode; formulas
out of the Tab order with assistive MathML; Chinese alt text; a keyboard-only walk through a quiz and an animation."""

from __future__ import annotations

import json

import pytest

from . import support
from .test_pages import PAGES

NO_AXE = "axe-core not vendored (tools/vendor_assets.py needs npm once): accessibility checks skipped"


@pytest.mark.parametrize("page", PAGES)
def test_no_serious_axe_violation(visit, page, axe_source):
    if not axe_source:
        pytest.skip(NO_AXE)
    found = {where: found for where, found in visit(page).axe.items() if found}
    assert not found, f"{page}: " + "; ".join(
        f"{where}: " + ", ".join(f"{v['id']} ({v['impact']}) {v['nodes']}" for v in vs) for where, vs in found.items()
    )


def test_axe_finds_a_violation(new_page, axe_source):
    """The check itself: an unlabelled slider and an image without alt are reported."""
    if not axe_source:
        pytest.skip(NO_AXE)
    page = new_page()
    page.goto("intro.html")
    page.add_script_tag(content=axe_source)
    page.evaluate("""() => { const d = document.createElement("div");
      d.innerHTML = '<img src="_static/favicon.svg"><input type="range">';
      document.querySelector("article").append(d); }""")
    from .conftest import AXE_RUN

    ids = {v["id"] for v in page.evaluate(AXE_RUN, [None, [], False])}
    assert {"image-alt", "label"} <= ids


def test_formulas_are_no_tab_stops_and_carry_mathml(new_page):
    page = new_page()
    page.goto("part2/02-ring-allreduce.html")
    support.settle(page)
    assert page.locator("mjx-container").count() > 50
    stops = page.evaluate("() => document.querySelectorAll('mjx-container[tabindex]:not([tabindex=\"-1\"])').length")
    assert stops == 0
    assert page.locator("mjx-container mjx-assistive-mml math").count() == page.locator("mjx-container").count()


def test_figures_have_chinese_alt_text(site):
    import re

    missing = []
    for rel in PAGES:
        for alt in re.findall(r'<img\b[^>]*\balt="([^"]*)"', (site / rel).read_text(encoding="utf-8")):
            if not re.search(r"[\u4e00-\u9fff]", alt) or re.search(r"\.(png|svg|jpe?g)$", alt):
                missing.append(f"{rel}: {alt[:60]!r}")
    assert not missing, missing[:10]


def test_keyboard_walk_through_a_quiz_and_an_animation(new_page):
    page = new_page()
    page.goto("part2/02-ring-allreduce.html")
    support.settle(page)
    # the animation: focus its next-frame button with Tab alone, press Enter, the frame and its description change
    # to that frame's own text (written from its data, tests/site/test_frame_alts.py), which the slider speaks too
    player = page.locator("div.animation").first
    img, slider = player.locator("img"), player.locator("input.anim-slider")
    texts = json.loads(img.get_attribute("data-alts") or "[]")
    assert slider.get_attribute("aria-label") and len(texts) == int(slider.get_attribute("max") or 0) + 1
    assert img.get_attribute("alt") == texts[0]
    assert slider.get_attribute("aria-valuetext") == f"第 1 帧，共 {len(texts)} 帧：{texts[0]}"
    target = player.locator("button[onclick$='.next_frame()']")
    _tab_to(page, target)
    page.keyboard.press("Enter")
    assert slider.input_value() == "1"
    assert img.get_attribute("alt") == texts[1] != texts[0]
    assert (slider.get_attribute("aria-valuetext") or "").startswith("第 2 帧")
    # the slider itself moves with the arrow keys, and so does the text
    _tab_to(page, slider)
    page.keyboard.press("ArrowRight")
    assert slider.input_value() == "2"
    assert img.get_attribute("alt") == texts[2]
    # the first quiz question: Tab to its answer box, type the answer, Tab to 检查, press Enter
    q = page.locator(".clq-q").first
    box = q.locator("input.clq-in")
    _tab_to(page, box)
    page.keyboard.type("23.25")
    _tab_to(page, q.locator("button.clq-check"))
    page.keyboard.press("Enter")
    q.locator(".clq-fb.clq-ok").wait_for()
    assert not page.errors


def _tab_to(page, locator, limit: int = 600) -> None:
    """Press Tab until ``locator`` has the focus (fails after ``limit`` presses)."""
    handle = locator.element_handle()
    for _ in range(limit):
        if page.evaluate("(e) => document.activeElement === e", handle):
            return
        page.keyboard.press("Tab")
    raise AssertionError(f"{locator} not reached with Tab in {limit} presses")


def test_dense_figure_opens_full_size_on_a_phone(new_page):
    page = new_page(width=390)
    page.goto("part2/03-network.html", wait_until="load")
    links = page.locator("figure a.clusterlab-zoom > img")
    links.first.wait_for(state="attached")
    href = page.locator("figure a.clusterlab-zoom").first.get_attribute("href")
    assert href and href.endswith(".png") and "_images/" in href
    natural, shown = page.evaluate(
        "() => { const i = document.querySelector('figure a.clusterlab-zoom > img');"
        " return [i.naturalWidth, i.getBoundingClientRect().width]; }"
    )
    assert natural > shown
