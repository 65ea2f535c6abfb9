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


# A mistake must show on more than one student's data (the sample ID and one more): a check whose example happens
# to divide evenly for the sample lets floor and ceil pass alike. Each mistake runs only through its own question,
# so two IDs cost less than one did when every notebook ran to the end.
IDS = 2


@pytest.mark.parametrize("name", SETS)
def test_public_checks_catch_every_typical_mistake(name: str, tmp_path: Path) -> None:
    verdicts = mistakes.judge(SOURCE / name, tmp_path, hidden=False, ids=IDS)  # what the student's self-check shows
    assert len(verdicts) >= mistakes.MIN_MISTAKES, f"{name}: only {len(verdicts)} typical mistakes in the library"
    missed = [f"{v.mistake.question} {v.mistake.id} (IDs {', '.join(v.missed_ids) or v.ids[0]})"
              for v in verdicts if not v.caught]
    assert not missed, f"{name}: public checks let these typical mistakes through: {missed}"
    hidden_only = [v for v in verdicts if v.mistake.only_hidden]
    assert all(v.by_hidden for v in hidden_only), f"{name}: a mistake marked only_hidden passes the hidden checks"


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


def test_ids_name_the_sample_and_fixed_others_or_the_ones_given() -> None:
    assert mistakes.student_ids("2024000", None) == ("2024000",)
    assert mistakes.student_ids("2024000", 3) == ("2024000", *mistakes.EXTRA_IDS[:2])
    assert mistakes.student_ids("2024001", "2") == ("2024001", "2024002")  # the sample is not taken twice
    assert mistakes.student_ids("2024000", "A19, 2024001,A19") == ("A19", "2024001")
    for bad in (0, "0", 1 + len(mistakes.EXTRA_IDS) + 1, ",", ""):
        with pytest.raises(mistakes.LibraryError, match="--ids"):
            mistakes.student_ids("2024000", bad)


def test_caught_means_caught_for_every_id_and_coincident_ids_are_set_aside() -> None:
    m = mistakes.Mistake("m", "q1", "误解", cells=("x = 1",))
    both = mistakes.Verdict(m, ("p",), (), 0, 1, ids=("a", "b"))
    one = mistakes.Verdict(m, ("p",), (), 1, 1, public_missed=("b",), ids=("a", "b"))
    assert both.caught and not one.caught and one.missed_ids == ("b",)
    assert mistakes.tally([both, one]) == {"public": 1, "hidden": 0, "neither": 1}
    aside = mistakes.Verdict(m, ("p",), (), 0, 1, ids=("a", "b"), coincident_ids=("b",))
    assert aside.caught  # for "b" the mistaken answer is the right one: no test of the checks
    hidden = mistakes.Mistake("h", "q1", "误解", cells=("x = 1",), only_hidden="会泄露答案")
    assert mistakes.Verdict(hidden, (), ("h",), 0, 1, public_missed=("a", "b"), ids=("a", "b")).caught
    assert not mistakes.Verdict(hidden, (), ("h",), 0, 1, public_missed=("a", "b"), hidden_missed=("b",),
                                ids=("a", "b")).caught
    variant = mistakes.Verdict(m, (), (), 1, 1, lowest=0.5, ids=("a", "b"))
    assert not variant.full_marks  # a correct alternative must keep full marks for every ID


def test_a_mistake_runs_only_through_its_question() -> None:
    nb = {"cells": [
        {"cell_type": "markdown", "source": "## 第 1 题　甲"},
        {"cell_type": "code", "source": "a = 1"},
        {"cell_type": "markdown", "source": "## 第 2 题　乙"},
        {"cell_type": "code", "source": "b = 2"},
        {"cell_type": "markdown", "source": "说明"},
        {"cell_type": "markdown", "source": "## 第 3 题　丙"},
        {"cell_type": "code", "source": "c = simulate()"},
    ]}
    assert [c["source"] for c in mistakes.through_question(nb, "q2")["cells"]] == \
        ["## 第 1 题　甲", "a = 1", "## 第 2 题　乙", "b = 2", "说明"]
    assert len(mistakes.through_question(nb, "q3")["cells"]) == 7
    assert len(nb["cells"]) == 7  # the notebook itself is untouched
