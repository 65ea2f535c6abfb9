"""Every exercise set ships a library of typical wrong answers (``mistakes.yml``), and its public checks catch each
one: a student who makes the mistake learns it from the notebook's own self-check, before handing in.

The library is submitted through the real judge (``tools/mistakes.py``); the solution's full marks are the build's
own check (tests/pipeline/test_all_sets.py)."""

from __future__ import annotations

from pathlib import Path

import mistakes
import pytest

from tests.grading.helpers import SOURCE

SETS = sorted(p.name for p in SOURCE.iterdir() if p.is_dir() and (p / f"{p.name}.ipynb").is_file())

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("name", SETS)
def test_public_checks_catch_every_typical_mistake(name: str, tmp_path: Path) -> None:
    verdicts = mistakes.judge(SOURCE / name, tmp_path, hidden=False)  # what the student's self-check shows
    assert len(verdicts) >= mistakes.MIN_MISTAKES, f"{name}: only {len(verdicts)} typical mistakes in the library"
    missed = [f"{v.mistake.question} {v.mistake.id}" for v in verdicts if not v.caught]
    assert not missed, f"{name}: public checks let these typical mistakes through: {missed}"
    hidden_only = [v for v in verdicts if v.mistake.only_hidden]
    assert all(v.hidden_failed for v in hidden_only), f"{name}: a mistake marked only_hidden passes the hidden checks"


@pytest.mark.parametrize("name", [s for s in SETS if (SOURCE / s / "variants.yml").is_file()])
def test_correct_answers_in_other_forms_keep_full_marks(name: str, tmp_path: Path) -> None:
    verdicts = mistakes.judge(SOURCE / name, tmp_path, file="variants.yml")
    assert verdicts
    short = [f"{v.mistake.question} {v.mistake.id}: {v.score:g}/{v.possible:g}" for v in verdicts
             if v.score < v.possible]
    assert not short, f"{name}: correct answers lose marks: {short}"


def _library(tmp_path: Path, text: str) -> Path:
    (tmp_path / "mistakes.yml").write_text(text, encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("- {id: a, question: q1, mistake: x}\n", "四项"),
        ("- {id: a, question: q1, mistake: x, replace: [{old: '1', new: '2'}]}\n"
         "- {id: a, question: q1, mistake: y, replace: [{old: '3', new: '4'}]}\n", "重复"),
        ("- {id: a, question: q1, mistake: x, replace: [{old: '1', new: '1'}]}\n", "什么也没改"),
        ("- {id: a, question: q1, mistake: '', replace: [{old: '1', new: '2'}]}\n", "误解"),
        ("id: a\n", "列表"),
        ("- {id: a, question: q1, mistake: x, replace: [{old: '1', new: '2'}], cells: ['x = 1']}\n", "二者之一"),
        ("- {id: a, question: q1, mistake: x, cells: []}\n", "cells"),
        ("- {id: a, question: q1, mistake: x, cells: ['x = 1'], only_hidden: ''}\n", "only_hidden"),
        ("- {id: a, question: q1, mistake: x, cells: ['x = 1'], colour: red}\n", "可选"),
    ],
)
def test_malformed_library_is_refused_with_a_reason(tmp_path: Path, text: str, says: str) -> None:
    with pytest.raises(mistakes.LibraryError, match=says):
        mistakes.load(_library(tmp_path, text))


def test_an_edit_must_match_exactly_once() -> None:
    nb = {"cells": [{"cell_type": "code", "source": "x = 2 * y\nz = 2 * y\n"},
                    {"cell_type": "markdown", "source": "x = 2 * y"}]}
    once = mistakes.Mistake("m", "q1", "误解", (("x = 2 * y", "x = y"),))
    twice = mistakes.Mistake("m", "q1", "误解", (("2 * y", "y"),))
    assert mistakes.apply(nb, once)["cells"][0]["source"] == "x = y\nz = 2 * y\n"
    assert nb["cells"][0]["source"] == "x = 2 * y\nz = 2 * y\n"  # the solution itself is untouched
    with pytest.raises(mistakes.LibraryError, match="2 次"):
        mistakes.apply(nb, twice)
    marked = mistakes.Mistake("m", "q1", "误解", (("z = 2 * y  # SOLUTION", "z = y"),))
    assert mistakes.apply(nb, marked)["cells"][0]["source"] == "x = 2 * y\nz = y\n"


def test_whole_answer_cells_replace_the_questions_answer_cells_only() -> None:
    answer = {"tags": ["answer"]}
    nb = {"cells": [
        {"cell_type": "markdown", "source": "## 第 1 题　甲"},
        {"cell_type": "code", "source": "a = 1", "metadata": answer},
        {"cell_type": "markdown", "source": "## 第 2 题　乙"},
        {"cell_type": "code", "source": "b = 2", "metadata": answer},
        {"cell_type": "code", "source": "helper = 0", "metadata": {}},
        {"cell_type": "code", "source": "c = 3", "metadata": answer},
    ]}
    m = mistakes.Mistake("m", "q2", "误解", cells=("b = 20", "c = 30"))
    out = [c["source"] for c in mistakes.apply(nb, m)["cells"]]
    assert out == ["## 第 1 题　甲", "a = 1", "## 第 2 题　乙", "b = 20", "helper = 0", "c = 30"]
    with pytest.raises(mistakes.LibraryError, match="2 个答案单元格"):
        mistakes.apply(nb, mistakes.Mistake("m", "q2", "误解", cells=("b = 20",)))


def test_a_hidden_only_mistake_counts_as_caught_only_when_a_hidden_check_fails() -> None:
    m = mistakes.Mistake("m", "q1", "误解", cells=("x = 1",), only_hidden="公开的例子会泄露答案")
    assert mistakes.Verdict(m, (), ("test_h",), 0.0, 1.0).caught
    assert not mistakes.Verdict(m, (), (), 1.0, 1.0).caught
    plain = mistakes.Mistake("p", "q1", "误解", cells=("x = 1",))
    assert not mistakes.Verdict(plain, (), ("test_h",), 0.0, 1.0).caught
    assert mistakes.tally([mistakes.Verdict(m, (), ("h",), 0, 1), mistakes.Verdict(plain, ("p",), (), 0, 1),
                           mistakes.Verdict(plain, (), (), 1, 1)]) == {"public": 1, "hidden": 1, "neither": 1}
