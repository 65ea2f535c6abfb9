"""Self-check scores in a real browser: a quiz answered wrong then right keeps its score across a reload, the
progress page shows it, and both reset buttons clear it; without localStorage the quiz still scores (in memory)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from . import support

PROGRESS = "progress.html"
NO_STORAGE = """Object.defineProperty(window, "localStorage", {
  get() { throw new DOMException("storage disabled", "SecurityError"); }
});"""


def _quiz(site: Path, page: str) -> tuple[str, list[dict]]:
    """The key and questions of the first quiz on ``page``, read from the built HTML."""
    text = (site / page).read_text(encoding="utf-8")
    key = re.search(r'<div\b[^>]*\bdata-clq-key="([^"]+)"', text)
    assert key, f"no quiz on {page}"
    data = re.compile(r'<script type="application/json" class="clq-data">(.*?)</script>', re.DOTALL)
    m = data.search(text, key.end())
    assert m, f"no quiz data on {page}"
    return key.group(1), json.loads(m.group(1))["questions"]


def _quiz_pages(site: Path) -> list[str]:
    return [p for p in support.pages(site) if "data-clq-key=" in (site / p).read_text(encoding="utf-8")]


@pytest.fixture(scope="module")
def quiz(site):
    """The lightest page whose quiz has a numeric and a single-choice question."""
    for page in sorted(_quiz_pages(site), key=lambda p: (site / p).stat().st_size):
        key, questions = _quiz(site, page)
        numeric = [i for i, q in enumerate(questions) if q["type"] == "numeric"]
        single = [i for i, q in enumerate(questions) if q["type"] == "choice" and not q["multiple"]]
        if numeric and single:
            n = len(questions)
            return {"page": page, "key": key, "qs": questions, "numeric": numeric[0], "choice": single[0], "n": n}
    pytest.fail("no quiz with a numeric and a single-choice question")


def _loaded(page) -> None:
    """After a (re)load: the quiz code logged nothing; forget what the theme logged, so that later checks see only
    what the interaction causes (page-load errors are reported by test_pages)."""
    assert not [e for e in page.errors if "clq" in e], page.errors
    page.errors.clear()


def _far(q: dict) -> str:
    """A number no tolerance accepts."""
    return repr(abs(q["answer"]) * 4 + 1 + 10 * q["abs_tol"])


def _score(page, key: str) -> str:
    return page.locator(f"#quiz-{key} .clq-score-text").inner_text()


def _q(page, key: str, i: int):
    return page.locator(f"#quiz-{key} .clq-q").nth(i)


def _answer(page, quiz: dict, right_choice: bool = True) -> None:
    """Question ``numeric``: wrong, then right; question ``choice``: right (or wrong) at the first try."""
    key, qn, qc = quiz["key"], quiz["numeric"], quiz["choice"]
    box = _q(page, key, qn)
    box.locator("input.clq-in").fill(_far(quiz["qs"][qn]))
    box.locator("button.clq-check").click()
    assert _score(page, key) == f"已答 1/{quiz['n']} · 首次答对 0"
    box.locator("input.clq-in").fill(repr(quiz["qs"][qn]["answer"]))
    box.locator("input.clq-in").press("Enter")
    assert box.locator(".clq-fb").inner_text() == "正确！"
    assert _score(page, key) == f"已答 1/{quiz['n']} · 首次答对 0"
    options = quiz["qs"][qc]["options"]
    pick = next(i for i, o in enumerate(options) if o["correct"] is right_choice)
    box = _q(page, key, qc)
    box.locator("input").nth(pick).check()
    box.locator("button.clq-check").click()
    assert _score(page, key) == f"已答 2/{quiz['n']} · 首次答对 {int(right_choice)}"


def test_score_survives_reload_and_reset_clears_it(new_page, quiz):
    page, key, n = new_page(), quiz["key"], quiz["n"]
    page.goto(quiz["page"])
    _loaded(page)
    assert _score(page, key) == f"已答 0/{n} · 首次答对 0"
    assert page.locator(f"#quiz-{key} .clq-reset").is_disabled()
    _answer(page, quiz)
    stored = json.loads(page.evaluate(f"() => localStorage.getItem('clq:{key}')"))
    assert stored["q"][quiz["numeric"]]["f"] == 0 and stored["q"][quiz["choice"]]["f"] == 1

    page.reload()
    _loaded(page)
    assert _score(page, key) == f"已答 2/{n} · 首次答对 1"
    box = _q(page, key, quiz["numeric"])
    assert box.locator("input.clq-in").input_value() == repr(quiz["qs"][quiz["numeric"]]["answer"])
    assert box.locator(".clq-fb").inner_text() == "正确！"
    assert box.locator(".clq-tag").inner_text() == "已答 · 首次未答对"
    box = _q(page, key, quiz["choice"])
    assert box.locator(".clq-fb").inner_text() == "正确！"
    assert box.locator(".clq-tag").inner_text() == "✓ 首次答对"
    assert box.locator("input:checked").count() == 1

    page.locator(f"#quiz-{key} .clq-reset").click()
    assert _score(page, key) == f"已答 0/{n} · 首次答对 0"
    assert _q(page, key, quiz["numeric"]).locator("input.clq-in").input_value() == ""
    assert page.evaluate(f"() => localStorage.getItem('clq:{key}')") is None
    assert not page.errors and not page.refused()


def test_progress_page_shows_scores_and_resets_all(new_page, quiz, site):
    page, key, n = new_page(390), quiz["key"], quiz["n"]
    page.goto(quiz["page"])
    _loaded(page)
    _answer(page, quiz)
    assert not page.errors
    page.goto(PROGRESS)
    _loaded(page)
    row = page.locator(f".clq-pitem[data-clq-key='{key}']")
    assert row.locator(".clq-pscore").inner_text() == f"已答 2/{n} · 首次答对 1"
    # every quiz of the site is listed once, with a link to it that resolves, and the total adds up
    pages = _quiz_pages(site)
    keys = page.eval_on_selector_all(".clq-pitem", "els => els.map(e => e.dataset.clqKey)")
    assert sorted(keys) == sorted(_quiz(site, p)[0] for p in pages)
    for link in page.eval_on_selector_all(".clq-plink", "els => els.map(e => e.href)"):
        target, _, anchor = link.partition("#")
        rel = target.split("/", 3)[3]
        assert (site / rel).is_file() and f'id="{anchor}"' in (site / rel).read_text(encoding="utf-8"), link
    assert row.locator(".clq-plink").get_attribute("href") == f"{quiz['page']}#quiz-{key}"
    total = sum(len(_quiz(site, p)[1]) for p in pages)
    summary = f"全书 {len(pages)} 组自测，共 {total} 题：已答 2/{total} · 首次答对 1。"
    assert page.locator(".clq-psum").inner_text() == summary

    page.once("dialog", lambda d: d.accept())
    page.locator(".clq-reset-all").click()
    assert row.locator(".clq-pscore").inner_text() == f"已答 0/{n} · 首次答对 0"
    assert page.evaluate(f"() => localStorage.getItem('clq:{key}')") is None
    assert not page.errors and not page.refused()


def test_quiz_scores_without_local_storage(new_page, quiz):
    page, key, n = new_page(init_script=NO_STORAGE), quiz["key"], quiz["n"]
    page.goto(quiz["page"])
    _answer(page, quiz, right_choice=False)
    page.locator(f"#quiz-{key} .clq-reset").click()
    assert _score(page, key) == f"已答 0/{n} · 首次答对 0"
    page.goto(PROGRESS)
    assert page.locator(f".clq-pitem[data-clq-key='{key}'] .clq-pscore").inner_text() == f"已答 0/{n} · 首次答对 0"
    assert "不允许本地存储" in page.locator("#clq-progress").inner_text()
    # the theme's own scripts fail without storage; the quiz's must not
    assert not [e for e in page.errors if "clq-quiz.js" in e], page.errors


def test_progress_page_works_from_file_url(new_page, site):
    page = new_page()
    page.goto((site / PROGRESS).as_uri())
    assert page.locator(".clq-pitem").count() >= 1
    href = page.locator(".clq-plink").first.get_attribute("href")
    assert href and not href.startswith(("http", "/")), href
