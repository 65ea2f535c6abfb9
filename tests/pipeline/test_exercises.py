"""Building one set (ring-allreduce): layout, reproducibility, and what the student notebook may contain.

The grading itself is tested in tests/grading (sandbox, attack suite, gradebook)."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

import nbformat
import pytest

from tests.grading.helpers import SOURCE, build_exercises

SET = "ring-allreduce"
HIDDEN_MARKER = "【隐藏测试】"  # every hidden check of a set carries it in its docstring
QUESTIONS = ["q1", "q2", "q3", "q4", "q5", "q6", "q7", "q8"]
MAX_POINTS = 19.0

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Any:
    return build_exercises.build_set(SOURCE / SET, tmp_path_factory.mktemp("build"))


def _spec(zip_path: Path) -> dict[str, Any]:
    with zipfile.ZipFile(zip_path) as zf:
        return json.loads(zf.read("exercise.json"))


def test_build_layout(built: Any) -> None:
    assert built.student_notebook.is_file() and built.autograder_notebook.is_file()
    assert built.autograder_zip.name == f"{SET}-autograder.zip"
    with zipfile.ZipFile(built.autograder_zip) as zf:
        assert zf.namelist() == ["exercise.json", "variant.py"]
        assert {i.date_time for i in zf.infolist()} == {build_exercises.zip_epoch()}
    spec = _spec(built.autograder_zip)
    assert [q["name"] for q in spec["questions"]] == QUESTIONS
    assert sum(q["points"] for q in spec["questions"]) == MAX_POINTS


def test_build_is_reproducible(built: Any, tmp_path: Path) -> None:
    again = build_exercises.build_set(SOURCE / SET, tmp_path, check=False)
    for a, b in ((built.student_notebook, again.student_notebook), (built.autograder_zip, again.autograder_zip),
                 (built.autograder_notebook, again.autograder_notebook)):
        assert a.read_bytes() == b.read_bytes()


def test_hidden_checks_only_in_the_package(built: Any) -> None:
    student = built.student_notebook.read_text(encoding="utf-8")
    spec = _spec(built.autograder_zip)
    checks = [c for q in spec["questions"] for c in q["checks"]]
    hidden = [c for c in checks if c["hidden"]]
    assert len(hidden) >= 10 and all(HIDDEN_MARKER in c["source"] for c in hidden)
    assert HIDDEN_MARKER not in student
    for c in checks:
        assert (f"def {c['name']}(" in student) == (not c["hidden"]), c["name"]


def _solution_lines() -> list[str]:
    """Substantial lines of the master's solutions: ``… # SOLUTION`` lines and BEGIN/END SOLUTION blocks."""
    nb = nbformat.read(SOURCE / SET / f"{SET}.ipynb", as_version=4)
    lines, inside = [], False
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        for raw in cell.source.splitlines():
            marker = raw.strip()
            if marker == "# BEGIN SOLUTION":
                inside = True
            elif marker == "# END SOLUTION":
                inside = False
            elif raw.rstrip().endswith("# SOLUTION") or inside:
                line = raw.split("# SOLUTION")[0].strip()
                if len(line) >= 16:
                    lines.append(line)
    prose = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    lines = [line for line in lines if line not in prose]  # a prompt may name the quantity it asks for
    assert len(lines) >= 10, "the master should hold solution lines"
    return lines


def test_student_notebook_has_no_answers_and_no_otter(built: Any) -> None:
    text = built.student_notebook.read_text(encoding="utf-8")
    assert "clusterlab" not in text and "otter" not in text.lower() and "grader.check" not in text
    for line in _solution_lines():
        assert line not in text, f"the student notebook gives away a solution line: {line}"
    nb = nbformat.read(built.student_notebook, as_version=4)
    assert all(not c.get("outputs") for c in nb.cells if c.cell_type == "code")
    assert nb.metadata["exercise"] == {"set": SET, "format": 1}
    id_cell = next(c for c in nb.cells if c.cell_type == "code" and c.source.startswith("学号 = "))
    assert id_cell.source.startswith('学号 = ""')


def test_student_notebook_is_chinese(built: Any) -> None:
    nb = nbformat.read(built.student_notebook, as_version=4)
    text = "\n".join(c.source for c in nb.cells)
    assert text.count("**本题 ") == len(QUESTIONS)
    assert [f'自测("{q}"' in text for q in QUESTIONS] == [True] * len(QUESTIONS)
    assert "自测全部()" in text and "pip install numpy" in text
    assert f"满分 {MAX_POINTS:g} 分" in nb.cells[1].source


def test_student_side_checks_speak_chinese(built: Any, capsys: pytest.CaptureFixture[str]) -> None:
    """Run the student notebook as a student would (blank, then the solution): messages are Chinese."""
    for path, expect in ((built.student_notebook, "✗"), (built.autograder_notebook, "✓")):
        nb = build_exercises.with_student_id(json.loads(path.read_text(encoding="utf-8")), "2024001")
        ns: dict[str, Any] = {}
        for src in build_exercises.code_cells(nb):
            try:
                exec(src, ns)
            except Exception:  # a blank answer cell may fail, as in Jupyter
                pass
        out = capsys.readouterr().out
        assert expect in out and "你的数据" in out
        assert "Error" not in out.replace("AssertionError", "") or expect == "✗"
        for english in ("Traceback", "failed", "passed", "Test"):
            assert english not in out


def test_variants_differ_between_students(built: Any) -> None:
    from clusterlab_grade.judge import Package

    pkg = Package.load(built.autograder_zip)
    datas = [pkg.data_for(f"20240{i:02d}") for i in range(20)]
    assert len({json.dumps(d, sort_keys=True) for d in datas}) >= 10
    assert pkg.data_for("2024001") == pkg.data_for(" 2024001 ")
    with pytest.raises(ValueError):
        pkg.data_for("")


def test_build_fails_when_solutions_fail_their_checks(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "source" / SET
    src.mkdir(parents=True)
    nb = nbformat.read(SOURCE / SET / f"{SET}.ipynb", as_version=4)
    cell = next(c for c in nb.cells if c.cell_type == "code" and "return 2 / ranks  # SOLUTION" in c.source)
    cell.source = cell.source.replace("return 2 / ranks  # SOLUTION", "return 1 / ranks  # SOLUTION")
    nbformat.write(nb, src / f"{SET}.ipynb")
    (src / "variant.py").write_bytes((SOURCE / SET / "variant.py").read_bytes())
    assert build_exercises.main([str(tmp_path / "source"), str(tmp_path / "out")]) == 1
    err = capsys.readouterr().err
    assert "自检失败" in err and "test_q3_random" in err
    assert not (tmp_path / "out" / SET).exists()


def test_master_notebook_is_stored_executed() -> None:
    nb = json.loads((SOURCE / SET / f"{SET}.ipynb").read_text(encoding="utf-8"))
    code = [c for c in nb["cells"] if c["cell_type"] == "code"]
    assert code and all(c["execution_count"] is not None for c in code)
    assert not any(o.get("output_type") == "error" for c in code for o in c["outputs"])
