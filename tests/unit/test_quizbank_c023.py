"""Quiz bank of 集群篇 §2.3: every key recomputed from closed forms, every distractor rejected."""

import math

import pytest

from clusterlab.book import quiz
from clusterlab.book.quizbank import part2_23 as qb


def _numeric(questions):
    return [q for q in questions if isinstance(q, quiz.Numeric)]


def test_keys_by_hand():
    (s1, t1), (s2, t2) = (8e3, 60e-6), (32e6, 30e-3)
    n = 4
    beta = 2 * (s2 - s1) * (n - 1) / n / (t2 - t1)  # Δt = 2ΔS(N−1)/(Nβ)
    busbw = 64e6 / 40e-3 * 2 * 3 / 4
    steps_ratio = 2 * (16 - 1) / 4  # ring 2(N−1) vs recursive doubling log2 N
    pred = 3 * 12e-6 + 3 * 3e6 / 3e9  # log2 8 = 3 steps, each the whole S
    regime = 14 * 2.5e-6 + 2 * 48e3 * 7 / 8 / 2e9  # N = 8: 6 KB per step < 8192 B → small-message regime
    keys = [beta / 1e9, busbw / 1e9, steps_ratio, pred * 1e3, regime * 1e6]
    qs = _numeric(qb.c023_questions())
    assert len(qs) == 5
    for q, k in zip(qs, keys, strict=True):
        assert q.answer == pytest.approx(k, rel=1e-9), q.prompt
        for v, _ in q.wrong:
            assert not math.isclose(v, q.answer, rel_tol=q.rel_tol), (q.prompt, v)


def test_fitted_alpha_positive_and_exact():
    f = qb.fitted_ring()
    assert f.latency > 0 and f.rms_residual < 1e-12


def test_at_least_a_third_transfer_and_enough_questions():
    qs = qb.c023_questions()
    assert len(qs) >= 5 and sum(q.transfer for q in qs) * 3 >= len(qs)
