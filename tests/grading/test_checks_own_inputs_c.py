"""Checks that judge with their own copy of the code a question hands out (collectives-961, overlap, checkpoint,
failures).

In each debugging question the notebook carries the colleague's buggy code, and the checks used to run the
notebook's copy: a submission that replaced it by a function returning a constant made every "counterexample" and
every "value the colleague's code reports" agree with its own made-up answers. The checks now run their own copy of
the code as printed in the question (and rebuild the failure log from ``data``); failures q4 compared the mean of
the simulation with a rate the submission itself could set, and now uses the published rate. Each attack below
earns nothing on the check it aimed at, and the reference answers still earn every one of them."""

from __future__ import annotations

import json
from pathlib import Path

import mistakes
import pytest

from clusterlab_grade.judge import CheckResult, Package, grade_cells
from clusterlab_grade.sandbox import Limits

from .helpers import SOURCE, build_exercises, needs_bwrap

pytestmark = [needs_bwrap, pytest.mark.slow]
LIMITS = Limits(timeout=180, cell_timeout=90, call_timeout=90)


def grade(set_name: str, question: str, cells: list[str] | None,
          tmp_path: Path) -> tuple[float, dict[str, CheckResult]]:
    """The question's score and its checks' results when the answer cells of ``question`` are ``cells``
    (``None``: the reference answers)."""
    built = build_exercises.build_set(SOURCE / set_name, tmp_path, check=False)
    package = Package.load(built.autograder_zip)
    nb = json.loads(built.autograder_notebook.read_text(encoding="utf-8"))
    if cells is not None:
        nb = mistakes.apply(nb, mistakes.Mistake("attack", question, "gaming a check", cells=tuple(cells)))
    nb = build_exercises.with_student_id(nb, package.sample_id)
    out = grade_cells(package, build_exercises.code_cells(nb), package.sample_id, LIMITS,
                      select=lambda q, _check: q == question)
    assert not out.fatal, out.fatal
    return out.scores[question], {r.name: r for r in out.checks if r.question == question}


COLLECTIVES_Q7 = '''
def ring_reduce_scatter_buggy(buffers):
    """Rewritten: always wrong, reports nothing sent."""
    return [[] for _ in buffers], [0] * len(buffers)


ring_reduce_scatter = ring_reduce_scatter_buggy
N7, M7 = data["N7"], data["m7"]
bug_letter = "A"
bug_input = [[1.0] * 8 for _ in range(4)]
sent_busiest = 0
sent_buggy = 0
bug_explain = "整除的时候看不出来，因为同事的分块恰好正确。"
bug_letter, sent_busiest, sent_buggy
'''


def test_collectives_q7_a_rewritten_colleague_earns_nothing(tmp_path: Path) -> None:
    # A divisible "counterexample" and made-up send counts, with the colleague's simulator replaced so that they agree.
    score, checks = grade("collectives-961", "q7", [COLLECTIVES_Q7], tmp_path)
    assert checks["test_q7_diagnosis"].earned == 0
    assert score == 0


OVERLAP_Q7 = '''
def ddp_step_time_buggy(backward_times, grad_bytes, ranks, alpha, beta, cap):
    """Rewritten: a step that takes no time."""
    return 0.0


cap7 = data["cap7_mib"] * MIB
bug_letter = "B"
bug_step_ms = 0.0
true_step_ms = ddp_step_time(BACKWARD_S, GRAD_B, 16, 20e-6, data["bw_gbs"] * 1e9, cap7) * 1e3
bug_explain = "同事的桶开始得太早，所以通信看起来被藏住了。"
bug_letter, bug_step_ms, true_step_ms
'''


def test_overlap_q7_a_rewritten_colleague_earns_nothing(tmp_path: Path) -> None:
    score, checks = grade("overlap", "q7", [OVERLAP_Q7], tmp_path)
    assert checks["test_q7_consistent"].earned == 0
    assert score == 0


CHECKPOINT_Q7 = '''
def simulate_wasted_buggy(work, interval, save_time, mtbf, restart_time, runs, seed):
    """Rewritten: everything is wasted."""
    return 1.0


T7 = data["interval7"]
bug_letter = "A"
bug_case = (900.0, 56.0, 7200.0, 180.0)
bug_gap = 1.0 - simulate_wasted(40 * T7, T7, data["delta"], data["mtbf7"], data["restart7"], 2000, 0)
bug_explain = "恢复时间比 MTBF 短很多时，这个错误几乎不出现。"
bug_letter, bug_case, bug_gap
'''


def test_checkpoint_q7_a_rewritten_colleague_earns_nothing(tmp_path: Path) -> None:
    # R << M is the case the colleague already tried: it cannot expose the bug, whatever the notebook's copy says.
    score, checks = grade("checkpoint", "q7", [CHECKPOINT_Q7], tmp_path)
    assert checks["test_q7_diagnosis"].earned == 0
    assert score == 0


FAILURES_Q6 = '''
def job_mtbf_from_log_buggy(events, hours):
    """Rewritten: a constant."""
    return 1.0


bug_letter = "B"
mtbf_log_h = 1 / (data["log_gpus"] * rate_log)
bug_bias = 1.0 / mtbf_log_h
bug_explain = "首尾两段没有算进相邻间隔里，所以有偏差。"
bug_letter, mtbf_log_h, bug_bias
'''


def test_failures_q6_a_rewritten_colleague_earns_nothing(tmp_path: Path) -> None:
    score, checks = grade("failures", "q6", [FAILURES_Q6], tmp_path)
    assert checks["test_q6_consistent"].earned == 0
    assert score == 0


FAILURES_Q4 = '''
def simulate_job_gaps(components, rate_per_hour, trials, rng):
    """A correct simulator."""
    return rng.exponential(1 / rate_per_hour, size=(trials, components)).min(axis=1)


llama3_rate = 1 / data["G_sim"]  # rewritten so that the formula gives 1 hour
sim_mean_g = 1.0
sim_mean_g, job_mtbf_hours(data["G_sim"], llama3_rate)
'''


def test_failures_q4_a_rewritten_rate_earns_nothing(tmp_path: Path) -> None:
    # No simulation of the student's case: a constant mean and the rate rewritten to match it. The hidden check
    # compares the mean with the published rate's MTBF, not with the notebook's llama3_rate.
    score, checks = grade("failures", "q4", [FAILURES_Q4], tmp_path)
    assert checks["test_q4_rng"].earned == 0
    assert checks["test_q4_statistics"].earned == checks["test_q4_statistics"].points  # the simulator itself is right
    assert score < 3


@pytest.mark.parametrize(("set_name", "question", "names"), [
    ("collectives-961", "q7", ["test_q7_diagnosis"]),
    ("overlap", "q7", ["test_q7_consistent"]),
    ("checkpoint", "q7", ["test_q7_diagnosis"]),
    ("failures", "q6", ["test_q6_consistent"]),
    ("failures", "q4", ["test_q4_rng", "test_q4_shape", "test_q4_mean"]),
])
def test_the_reference_answers_still_earn_these_checks(set_name: str, question: str, names: list[str],
                                                       tmp_path: Path) -> None:
    # the attacks fail on their own account, not because the checks reject everything
    _, checks = grade(set_name, question, None, tmp_path)
    for name in names:
        assert checks[name].earned == checks[name].points > 0, (name, checks[name].message)
