"""Checks every quiz bank must pass: each numeric key is accepted, each anticipated wrong answer is rejected
and answered with its own feedback, each choice question is well formed, and rendering is deterministic.
The per-bank test files recompute the keys independently."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from clusterlab.book import quiz
from clusterlab.book.quizbank import BANKS

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("key", sorted(BANKS))
def test_numeric_keys_accepted_and_distractors_rejected(key):
    numeric = [q for q in BANKS[key]() if isinstance(q, quiz.Numeric)]
    assert numeric, f"bank {key} has no numeric question"
    for q in numeric:
        assert q.accepts(q.answer)
        assert q.judge(f"{q.answer!r}").status == "correct"
        assert q.wrong, f"no anticipated wrong answers for: {q.prompt}"
        values = [v for v, _ in q.wrong]
        assert len(set(values)) == len(values)
        for i, (value, feedback) in enumerate(q.wrong):
            assert not q.accepts(value), (q.prompt, value)
            assert q.match_wrong(value) == i, (q.prompt, value)
            assert q.feedback_for(value) == feedback


@pytest.mark.parametrize("key", sorted(BANKS))
def test_choices_are_well_formed(key):
    for q in BANKS[key]():
        if isinstance(q, quiz.Choice):
            correct = [i for i, o in enumerate(q.options) if o.correct]
            assert correct and (q.multiple or len(correct) == 1), q.prompt
            assert q.accepts(correct)
            assert all(o.feedback for o in q.options), q.prompt


@pytest.mark.parametrize("key", sorted(BANKS))
def test_bank_renders_deterministically(key):
    a = quiz.render(BANKS[key](), key)
    assert a == quiz.render(BANKS[key](), key)
    assert f'id="quiz-{key}"' in a and "http" not in a


def test_every_notebook_quiz_is_registered():
    shown = set()
    for nb in (ROOT / "book").rglob("*.ipynb"):
        if any(part.startswith("_") for part in nb.relative_to(ROOT).parts):  # _build, _exercises
            continue
        cells = json.loads(nb.read_text(encoding="utf-8"))["cells"]
        for c in cells:
            shown |= set(re.findall(r'quiz\.show\(.*?key="([^"]+)"', "".join(c["source"])))
    assert shown == set(BANKS)
