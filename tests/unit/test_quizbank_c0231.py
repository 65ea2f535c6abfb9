"""Quiz bank of 集群篇 §2.3.1: every key recomputed by hand, every distractor rejected."""

import math

import pytest

from clusterlab.book import quiz
from clusterlab.book.quizbank import part2_231 as qb


def test_keys_by_hand() -> None:
    frame = 400e6 / 8 * 1448 / (1514 + 66 / 2) / 1e6  # MB/s, data both ways
    leaf = 150.0  # Mbit/s: one crossing edge per direction of the 150 Mbit/s uplink, below the 200 Mbit/s links
    n, s, a, b, k = 4, 2e6, 6e-6, 12e6, 3.0
    slow = 2 * (n - 1) * (a + s / (n * b / k))  # every step waits for the slow link
    keys = [frame, leaf, slow * 1e3]
    qs = [q for q in qb.questions() if isinstance(q, quiz.Numeric)]
    assert len(qs) == 3
    for q, key in zip(qs, keys, strict=True):
        assert q.answer == pytest.approx(key, rel=1e-9), q.prompt
        for v, _ in q.wrong:
            assert not math.isclose(v, q.answer, rel_tol=q.rel_tol), (q.prompt, v)


def test_choices_have_one_key_and_enough_transfer() -> None:
    qs = qb.questions()
    for q in qs:
        if isinstance(q, quiz.Choice):
            assert sum(o.correct for o in q.options) == 1
    assert len(qs) >= 5 and sum(q.transfer for q in qs) * 3 >= len(qs)


def test_slow_node_position_does_not_matter() -> None:
    assert qb.slow_ring_time(0) == pytest.approx(qb.slow_ring_time(2), rel=1e-12)
