"""The checks of the algorithms, mpi-lab and network sets own the inputs they judge by.

Each test grades a submission that games a check through something the student controls — a made-up copy of the
real measurement, a function that answers one constant — and requires that the
question it attacks earns nothing (or loses the marks the trick would have bought), while the honest solution keeps
full marks. The real-data table of mpi-lab q6, for one, used to be read from a notebook cell: a wrong method that
matched a made-up table scored 3/3; it is now quoted in a cell again (the raw CSV the student parses),
and the checks know it by its hash and by their own copy of the numbers."""

from __future__ import annotations

from typing import Any

import pytest

from .helpers import SOURCE, build_exercises, for_student, needs_bwrap, read

pytestmark = [needs_bwrap, pytest.mark.slow]

STUDENT = "2024001"


def _replace(nb: dict[str, Any], old: str, new: str) -> dict[str, Any]:
    hits = 0
    for cell in nb["cells"]:
        src = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        if old in src:
            cell["source"] = src.replace(old, new)
            hits += 1
    assert hits == 1, old
    return nb


class Graded:
    def __init__(self, set_name: str, tmp_path_factory: pytest.TempPathFactory) -> None:
        from clusterlab_grade.judge import Package

        built = build_exercises.build_set(SOURCE / set_name, tmp_path_factory.mktemp(set_name), check=False)
        self.package = Package.load(built.autograder_zip)
        self.solution = read(built.autograder_notebook)

    def notebook(self) -> dict[str, Any]:
        return for_student(self.solution, STUDENT)

    def score(self, nb: dict[str, Any], question: str) -> tuple[float, set[str]]:
        from clusterlab_grade.judge import grade_cells

        out = grade_cells(self.package, build_exercises.code_cells(nb), STUDENT,
                          select=lambda q, _check: q == question)
        failed = {r.name for r in out.checks if r.question == question and r.message}
        return out.scores[question], failed

    def points(self, question: str) -> float:
        return next(q.points for q in self.package.questions if q.name == question)


@pytest.fixture(scope="module")
def mpi_lab(tmp_path_factory: pytest.TempPathFactory) -> Graded:
    return Graded("mpi-lab", tmp_path_factory)


@pytest.fixture(scope="module")
def algorithms(tmp_path_factory: pytest.TempPathFactory) -> Graded:
    return Graded("algorithms", tmp_path_factory)


@pytest.fixture(scope="module")
def network(tmp_path_factory: pytest.TempPathFactory) -> Graded:
    return Graded("network", tmp_path_factory)


def test_mpi_lab_q6_solution_keeps_full_marks(mpi_lab: Graded) -> None:
    score, failed = mpi_lab.score(mpi_lab.notebook(), "q6")
    assert (score, failed) == (mpi_lab.points("q6"), set())


def test_mpi_lab_q6_made_up_table_earns_nothing(mpi_lab: Graded) -> None:
    # the student replaces the quoted measurement by a quiet table of his own (quartiles within 1 % of the median) and
    # answers it consistently: no point is noisy, so keeping every point is "right" for that table. The public check
    # knows the quoted text, the hidden one keeps its own copy of the numbers: only the check of the methods on the
    # grader's own inputs keeps its marks
    old = 'op6, alg6 = data["real_op"], data["real_alg"]  # 你那一组'
    nb = _replace(mpi_lab.notebook(), old,
                  old + '\n_lines = BUSY_CSV.splitlines()\n'
                  'BUSY_CSV = "\\n".join(_lines[:4] + [",".join(f[:5] + [f"{0.99 * float(f[4]):.6e}",'
                  ' f"{1.01 * float(f[4]):.6e}"] + f[7:]) for f in (x.split(",") for x in _lines[4:])]) + "\\n"')
    score, failed = mpi_lab.score(nb, "q6")
    assert failed == {"test_q6_anchor", "test_q6_values"}, failed
    assert score == mpi_lab.points("q6") - 1.5 - 1.25


def test_mpi_lab_q3_constant_error_function_loses_marks(mpi_lab: Graded) -> None:
    # an error_pct that returns the public anchor's value agrees with itself on the student's own numbers
    nb = _replace(mpi_lab.notebook(),
                  "    return 100 * float(np.median([abs(p / t - 1) for p, t in zip(predicted, measured)]))",
                  "    return 20.0")
    score, failed = mpi_lab.score(nb, "q3")
    assert failed == {"test_q3_values"}
    assert score == mpi_lab.points("q3") - 1.25


def test_algorithms_q6_constant_diagnosis_loses_the_question(algorithms: Graded) -> None:
    # bug_kind used to be checked on the student's own table only: a right guess of one letter scored 2/2
    right, failed = algorithms.score(algorithms.notebook(), "q6")
    assert (right, failed) == (algorithms.points("q6"), set())
    nb = _replace(algorithms.notebook(),
                  '    wrong = [picks[k] for k in wrong_rows(picks, latency, bandwidth)]\n'
                  '    return "A" if all(p == "halving_doubling" for _, _, p in wrong) else "B"',
                  '    return "B"  # the sample student\'s letter')
    score, failed = algorithms.score(nb, "q6")
    assert {"test_q6_mine", "test_q6_values"} <= failed
    assert score <= 0.5


def test_network_q9_constant_design_earns_nothing(network: Graded) -> None:
    right, failed = network.score(network.notebook(), "q9")
    assert (right, failed) == (network.points("q9"), set())
    nb = _replace(network.notebook(),
                  "    switches, plan = min(feasible)\n    return plan, switches",
                  "    switches, plan = min(feasible)\n"
                  "    return _MINE if '_MINE' in globals() else (plan, switches)")
    line = 'q9_design, q9_switches = design(data["design_gpus"], data["min_gbs"])'
    nb = _replace(nb, line, line + "\n_MINE = (q9_design, q9_switches)")
    score, failed = network.score(nb, "q9")
    assert {"test_q9_constraints", "test_q9_optimal"} <= failed
    assert score == 0
