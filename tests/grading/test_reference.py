"""Checks that grade a question's function with the reference implementation of an earlier question's function
(``reference:`` in the check's TEST CONFIG): a mistake in question A costs A's marks, not those of B's checks that
call A's function; the reference is the master's own code, kept in the grading package and out of the student
notebook; the substitution lasts for that check only."""

from __future__ import annotations

import json
import re
import zipfile
from pathlib import Path
from typing import Any

import pytest

from clusterlab_grade import master
from clusterlab_grade.judge import Connection, Package, grade_cells

from .helpers import SOURCE, build_exercises, for_student, needs_bwrap, read, sandbox

STUDENT = "2024017"


def _replace_in_answer(nb: dict[str, Any], old: str, new: str) -> dict[str, Any]:
    out = json.loads(json.dumps(nb))
    for cell in out["cells"]:
        src = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        if cell["cell_type"] == "code" and old in src:
            cell["source"] = src.replace(old, new, 1)
            return out
    raise AssertionError(f"{old!r} not in any code cell")


def _without_references(package: Path, out: Path) -> Path:
    """The same grading package with every ``reference`` declaration removed (the grader as it was before)."""
    with zipfile.ZipFile(package) as zf:
        spec = json.loads(zf.read("exercise.json"))
        variant = zf.read("variant.py")
    for q in spec["questions"]:
        for c in q["checks"]:
            c.pop("reference", None)
    spec.pop("reference_source", None)
    build_exercises.write_zip(out, {"exercise.json": json.dumps(spec, ensure_ascii=False).encode(),
                                    "variant.py": variant})
    return out


def _grade(package: Path, nb: dict[str, Any]) -> dict[str, float]:
    pkg = Package.load(package)
    out = grade_cells(pkg, build_exercises.code_cells(for_student(nb, STUDENT)), STUDENT,
                      sandbox.Limits(timeout=120, cell_timeout=60))
    assert out.fatal == "", out.fatal
    return out.scores


@pytest.fixture(scope="module")
def chunking(tmp_path_factory: pytest.TempPathFactory) -> build_exercises.BuiltSet:
    return build_exercises.build_set(SOURCE / "chunking", tmp_path_factory.mktemp("ref"), check=False)


def test_the_package_carries_the_reference_and_the_student_notebook_does_not(
        chunking: build_exercises.BuiltSet) -> None:
    pkg = Package.load(chunking.autograder_zip)
    marked = {c.name: c.reference for q in pkg.questions for c in q.checks if c.reference}
    assert marked == {n: ("ring_chunked_time",) for n in ("test_q2_anchors", "test_q2_small_message",
                                                          "test_q2_random")}
    assert "def ring_chunked_time(" in pkg.reference_source
    assert "def best_integer_chunks(" not in pkg.reference_source  # only what the named functions need
    body = [line.strip() for line in pkg.reference_source.split("def ring_chunked_time(")[1].splitlines()[1:]
            if line.startswith("    ") and not line.strip().startswith(('"""', "#"))]
    student = "".join("".join(c["source"]) for c in read(chunking.student_notebook)["cells"])
    assert body and not [line for line in body if line in student], body
    assert "reference:" not in student
    # the judge's own copy, for a check that calls the function itself
    assert pkg.reference("ring_chunked_time")(24.0, 2, 2, 1.0, 1.0, 2) == 35.0


@needs_bwrap
def test_a_wrong_earlier_function_costs_only_its_own_question(chunking: build_exercises.BuiltSet,
                                                              tmp_path: Path) -> None:
    """chunking q2 (3 points: best_integer_chunks, which calls q1's ring_chunked_time) keeps its marks when q1's
    function forgets that each of the N ranks sends S/N; without the reference it lost all three."""
    solution = read(chunking.autograder_notebook)
    wrong = _replace_in_answer(solution, "size / (ranks * chunks * bandwidth)", "size / (chunks * bandwidth)")
    with_ref = _grade(chunking.autograder_zip, wrong)
    without = _grade(_without_references(chunking.autograder_zip, tmp_path / "old.zip"), wrong)
    assert with_ref["q1"] == 0 and without["q1"] == 0
    assert with_ref["q2"] == 3.0, with_ref
    assert without["q2"] < 3.0, without  # what the mistake cost before
    assert sum(_grade(chunking.autograder_zip, solution).values()) == Package.load(chunking.autograder_zip).possible


@needs_bwrap
def test_ring_allreduce_q5_anchor_keeps_its_half_point_after_bits_for_bytes(tmp_path: Path) -> None:
    built = build_exercises.build_set(SOURCE / "ring-allreduce", tmp_path, check=False)
    wrong = _replace_in_answer(read(built.autograder_notebook), "return gbps * 1e9 / 8", "return gbps * 1e9")
    pkg = Package.load(built.autograder_zip)
    out = grade_cells(pkg, build_exercises.code_cells(for_student(wrong, STUDENT)), STUDENT,
                      sandbox.Limits(timeout=120, cell_timeout=60))
    by_name = {c.name: c for c in out.checks}
    assert out.scores["q4"] < 3
    assert by_name["test_q5_anchor"].earned == 0.5, by_name["test_q5_anchor"].message


@needs_bwrap
def test_substitution_lasts_one_check_and_reaches_the_students_callers() -> None:
    """While substituted, the notebook's name is the reference (its own functions that call it get the reference);
    afterwards the notebook's own value is back, and a name the notebook never defined is gone again."""
    cells = ["def f(x):\n    return 'mine'\n\ndef g(x):\n    return f(x)\n"]
    reference = "def f(x):\n    return 'reference'\n\ndef h():\n    return 'h'\n"
    with sandbox.Sandbox(sandbox.Limits(timeout=30, cell_timeout=10)) as box:
        box.run_notebook(cells)
        conn = Connection(box, 10)
        assert conn.get("g")(1) == "mine"
        conn.substitute(("f", "h"), reference)
        assert conn.get("g")(1) == "reference" and conn.get("h")() == "h"
        conn.restore()
        assert conn.get("g")(1) == "mine"
        with pytest.raises(NameError):
            conn.get("h")
        conn.substitute(("f",), reference)  # the source is sent once; later substitutions name the functions
        assert conn.reference_sent and conn.get("g")(2) == "reference"
        conn.restore()


def _master_with(tmp_path: Path, check: str, reference: str) -> Path:
    src = SOURCE / "chunking" / "chunking.ipynb"
    nb = json.loads(src.read_text(encoding="utf-8"))
    for cell in nb["cells"]:
        text = "".join(cell["source"])
        if re.search(rf"^def {check}\(", text, re.M):
            text = re.sub(r"reference: \[.*?\]\n", "", text)
            end = '""" # END TEST CONFIG'
            cell["source"] = text.replace(end, f"reference: [{reference}]\n{end}", 1)
    out = tmp_path / "chunking.ipynb"
    out.write_text(json.dumps(nb, ensure_ascii=False), encoding="utf-8")
    return out


@pytest.mark.parametrize(("check", "reference", "why"), [
    ("test_q2_anchors", "best_integer_chunks", "属于本题"),  # its own question's function
    ("test_q1_small", "best_integer_chunks", "前面某道题"),  # a later question's function
    ("test_q2_anchors", "no_such_function", "前面某道题"),
])
def test_reference_must_name_an_earlier_questions_function(tmp_path: Path, check: str, reference: str,
                                                           why: str) -> None:
    variant = (SOURCE / "chunking" / "variant.py").read_text(encoding="utf-8")
    with pytest.raises(master.MasterError, match=why):
        master.parse(_master_with(tmp_path, check, reference), variant)
