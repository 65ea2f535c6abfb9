"""Hidden checks own the inputs they judge (parallelism, fault-tolerance, dataplane, ledger).

Each attack below is a submission that used to earn a hidden check's points without doing the work: it changed the
argument the check passed in, so that a reference computed afterwards from that argument agreed with a constant
answer, or it replaced the code the check exercised. The checks now compute their reference before the call, from
their own copy, and compare the notebook's given code with the judge's own; the attack earns nothing there."""

from __future__ import annotations

import json
from pathlib import Path

import mistakes
import pytest

from clusterlab_grade.judge import CheckResult, Package, grade_cells
from clusterlab_grade.sandbox import Limits

from .helpers import SOURCE, build_exercises, needs_bwrap

pytestmark = [needs_bwrap, pytest.mark.slow]
LIMITS = Limits(timeout=120, cell_timeout=60, call_timeout=60)


def grade(set_name: str, question: str, cells: list[str], tmp_path: Path) -> tuple[float, dict[str, CheckResult]]:
    """The question's score and its checks' results when the answer cells of ``question`` are ``cells``."""
    built = build_exercises.build_set(SOURCE / set_name, tmp_path, check=False)
    package = Package.load(built.autograder_zip)
    solution = json.loads(built.autograder_notebook.read_text(encoding="utf-8"))
    attack = mistakes.Mistake("attack", question, "gaming a check", cells=tuple(cells))
    nb = build_exercises.with_student_id(mistakes.apply(solution, attack), package.sample_id)
    out = grade_cells(package, build_exercises.code_cells(nb), package.sample_id, LIMITS,
                      select=lambda q, _check: q == question)
    assert not out.fatal, out.fatal
    return out.scores[question], {r.name: r for r in out.checks if r.question == question}


def test_dataplane_q1_emptying_the_streams_earns_nothing(tmp_path: Path) -> None:
    # No LRU at all: empty every epoch the check passes in, so that a reference counted afterwards sees no opens.
    cells = ["""
def lru_hits(streams, capacity):
    for stream in streams:
        stream.clear()
    return [0] * len(streams)


seq_hits = [7, 7, 7, 7]
seq_hits
"""]
    score, checks = grade("dataplane", "q1", cells, tmp_path)
    assert checks["test_q1_random"].earned == 0
    assert score == 0


def test_ledger_q2_rewriting_the_budget_earns_nothing(tmp_path: Path) -> None:
    # Right step and MFU, a constant number of days: rewrite the budget in the check's dict so that it takes one day.
    cells = ['''
diagnosis = """网卡速率是比特，通信少算了 8 倍，一步偏小；MFU 不是 η，报高了。"""


def fixed_ledger(d, n):
    bw = d["nic_gbps"] * 1e9 / 8
    comm = 3 * d["params"] * 2 * (n - 1) / n / bw
    t0 = 6 * d["params"] * d["tokens"] / n / d["peak2"]
    tc = t0 / d["eta2"]
    step = tc + comm - min(d["rho2"] * comm, tc)
    d["budget"] = d["tokens"] * 86400 / step
    return step, t0 / step, 1.0


fixed = fixed_ledger(dict(data), data["gpus_fix"])
fixed
''']
    score, checks = grade("ledger", "q2", cells, tmp_path)
    assert checks["test_q2_random"].earned == 0
    assert score == 0


def test_fault_tolerance_q5_a_trainer_that_never_trains_earns_nothing(tmp_path: Path) -> None:
    # Replace the given Trainer by one whose every step returns the same loss: any save/restore then "resumes".
    cells = ['''
class Trainer:
    def __init__(self, seed=0, **kwargs):
        self.w = np.zeros(5)

    def step(self):
        return 0.5


def save(trainer):
    return {}


def restore(trainer, ckpt):
    pass
''']
    score, checks = grade("fault-tolerance", "q5", cells, tmp_path)
    assert checks["test_q5_random_points"].earned == 0
    assert all(c.earned == 0 for c in checks.values())
    assert score == 0


def test_the_reference_answers_still_earn_these_checks(tmp_path: Path) -> None:
    # the same three questions answered as the master does: every check above passes (the attacks fail on their
    # own account, not because the checks reject everything)
    built = build_exercises.build_set(SOURCE / "fault-tolerance", tmp_path, check=False)
    package = Package.load(built.autograder_zip)
    solution = json.loads(built.autograder_notebook.read_text(encoding="utf-8"))
    nb = build_exercises.with_student_id(solution, package.sample_id)
    out = grade_cells(package, build_exercises.code_cells(nb), package.sample_id, LIMITS,
                      select=lambda q, _check: q == "q5")
    assert out.scores["q5"] == 4


def test_ledger_real_data_cell_quotes_the_data_file() -> None:
    # the published table is given in the notebook as text to parse; it is the data file's table, line for line
    nb = json.loads((SOURCE / "ledger" / "ledger.ipynb").read_text(encoding="utf-8"))
    cell = next("".join(c["source"]) for c in nb["cells"] if "MPT_H100_BF16 = " in "".join(c["source"]))
    quoted = cell.split('"""')[1].strip("\n").splitlines()
    data = (SOURCE / "ledger" / "mpt_h100_bf16.md").read_text(encoding="utf-8")
    table = [line for line in data.splitlines() if line.startswith("|")]
    assert quoted == table
    assert len(table) == 54  # header, separator and the 52 rows of the H100 80GB BF16 section
    assert "061f2c7ce64e655100286584a7629e2a09f827ba" in data  # the source is stated with the commit it was read at
