"""Quiz bank of 集群篇 §5.1: every key recomputed by hand, every distractor rejected."""

import math

import pytest

from clusterlab.book import quiz
from clusterlab.book.quizbank import part2_051 as qb


def test_keys_by_hand() -> None:
    d, m, r = 0.012, 5.0, 0.8
    t = math.sqrt(2 * d * m)
    c = t + d
    # exact expected waste for exponential faults, R = 0: e^{c/M} − 1 extra wall per cycle of useful work T
    up = t / (m * (math.exp(c / m) - 1))
    share = up * m / (m + r)
    qs = [q for q in qb.questions() if isinstance(q, quiz.Numeric)]
    assert len(qs) == 2
    for q, key in zip(qs, [t, share], strict=True):
        assert q.answer == pytest.approx(key, rel=1e-9), q.prompt
        for v, _ in q.wrong:
            assert not math.isclose(v, q.answer, rel_tol=q.rel_tol), (q.prompt, v)


def test_choices_have_one_key_and_enough_transfer() -> None:
    qs = qb.questions()
    for q in qs:
        if isinstance(q, quiz.Choice):
            assert sum(o.correct for o in q.options) == 1
    assert len(qs) >= 4 and sum(q.transfer for q in qs) * 3 >= len(qs)
