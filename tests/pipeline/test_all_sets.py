"""Every exercise set under exercises/source builds (the build grades its own solution for three student IDs and
its blank student notebook, trusted, without the sandbox), the solution earns full marks and the blank zero through
the real sandboxed grader for more variants, and the book publishes the current student notebooks."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.grading.helpers import SOURCE, build_exercises, for_student, gradebook, needs_bwrap, read, write

SETS = sorted(p.name for p in SOURCE.iterdir() if p.is_dir() and (p / f"{p.name}.ipynb").is_file())
VARIANT_IDS = ("2023117", "A19")

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def built_sets(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    out = tmp_path_factory.mktemp("all-sets")
    return {b.name: b for b in build_exercises.build_all(SOURCE, out)}


def test_every_source_set_is_built(built_sets: dict[str, Any]) -> None:
    assert SETS and sorted(built_sets) == SETS


@pytest.mark.parametrize("name", SETS)
def test_site_copy_is_current(built_sets: dict[str, Any], name: str) -> None:
    """The book publishes the committed student notebook; it must be exactly what the build makes today."""
    published = SOURCE.parents[1] / "book" / "_exercises" / f"{name}.ipynb"
    assert published.is_file(), f"{published} missing: run make exercises"
    assert published.read_bytes() == built_sets[name].student_notebook.read_bytes(), (
        f"{published.name} is out of date with exercises/source/{name}: run make exercises and commit"
    )


@needs_bwrap
@pytest.mark.parametrize("name", SETS)
def test_solution_full_marks_blank_zero_in_the_sandbox(built_sets: dict[str, Any], name: str, tmp_path: Path) -> None:
    b = built_sets[name]
    solution, blank = read(b.autograder_notebook), read(b.student_notebook)
    for sid in VARIANT_IDS:
        write(for_student(solution, sid), tmp_path / f"{sid}-解答.ipynb")
    write(for_student(blank, "2023999"), tmp_path / "2023999-空白.ipynb")
    book = gradebook.grade_folder(b.autograder_zip, tmp_path, jobs=2)
    rows = {r.student_id: r for r in book.rows}
    for sid in VARIANT_IDS:
        assert rows[sid].total == rows[sid].possible > 0, (sid, rows[sid].note, rows[sid].scores)
        assert rows[sid].note == ""
    assert rows["2023999"].total == 0
