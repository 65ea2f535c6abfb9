"""Every exercise set under exercises/source builds, its solution earns full marks, a blank copy earns zero,
and the student version holds neither hidden tests nor the package that answers the questions."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from .test_exercises import HIDDEN_MARKER, SOURCE, build_exercises, gradebook

SETS = sorted(p.name for p in SOURCE.iterdir() if p.is_dir() and (p / f"{p.name}.ipynb").is_file())

pytestmark = [
    pytest.mark.slow,
    pytest.mark.filterwarnings("ignore:Traits should be given as instances:DeprecationWarning"),
]


@pytest.fixture(scope="module")
def built_sets(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    out = tmp_path_factory.mktemp("all-sets")
    return {b.name: b for b in build_exercises.build_all(SOURCE, out)}


def test_every_source_set_is_built(built_sets: dict[str, Any]) -> None:
    assert SETS and sorted(built_sets) == SETS


@pytest.mark.parametrize("name", SETS)
def test_student_version_is_clean(built_sets: dict[str, Any], name: str) -> None:
    text = built_sets[name].student_notebook.read_text(encoding="utf-8")
    assert HIDDEN_MARKER not in text
    assert "import clusterlab" not in text and "from clusterlab" not in text


@pytest.mark.parametrize("name", SETS)
def test_site_copy_is_current(built_sets: dict[str, Any], name: str) -> None:
    """The book publishes the committed student notebook; it must be exactly what the build makes today."""
    published = SOURCE.parents[1] / "book" / "_exercises" / f"{name}.ipynb"
    assert published.is_file(), f"{published} missing: run make exercises"
    assert published.read_bytes() == built_sets[name].student_notebook.read_bytes(), (
        f"{published.name} is out of date with exercises/source/{name}: run make exercises and commit"
    )


@pytest.mark.parametrize("name", SETS)
def test_solution_full_marks_blank_zero(
    built_sets: dict[str, Any], name: str, tmp_path: Path
) -> None:
    b = built_sets[name]
    subs = tmp_path / "subs"
    subs.mkdir()
    shutil.copy(b.autograder_notebook, subs / "solution.ipynb")
    shutil.copy(b.student_notebook, subs / "blank.ipynb")
    book = gradebook.grade_folder(b.autograder_zip, subs, jobs=2, cell_timeout=60, timeout=300)
    rows = {r.student: r for r in book.rows}
    assert rows["solution"].total == rows["solution"].possible > 0, rows["solution"].note
    assert rows["blank"].total == 0 and not rows["blank"].note
