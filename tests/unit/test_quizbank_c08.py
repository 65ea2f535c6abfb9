"""Quiz bank of 集群篇 §8: keys recomputed from closed forms (not through clusterlab), distractors rejected."""

import math

import pytest

from clusterlab.book import quiz
from clusterlab.book.quizbank import part2_08 as qb

N, S, A, B = 128, 2e9, 8e-6, 400e9 / 8
KEYS = [
    (2 * (N - 1) * A + 2 * S * (N - 1) / (N * B)) * 1e3,  # ring all-reduce, ms
    48**3 / 4,  # three-tier fat-tree hosts
    100 * (math.sqrt(2 * 60 / 10800) + 600 / 10800),  # waste at Young's interval, %
    100 * 11 / (36 + 11),  # bubble of total, %
]


def _numeric(qs):
    return [q for q in qs if isinstance(q, quiz.Numeric)]


def test_keys():
    qs = _numeric(qb.c08_questions())
    assert [q.answer for q in qs] == pytest.approx(KEYS, rel=1e-12)
    assert [round(q.answer, 2) for q in qs] == [81.41, 27648.0, 16.1, 23.4]


def test_distractors():
    ring, cap, waste, bubble = _numeric(qb.c08_questions())
    assert ring.match_wrong(2 * S * (N - 1) / (N * B) * 1e3) is not None  # latency term forgotten
    assert cap.match_wrong(48**2 / 2) is not None  # two tiers
    assert waste.match_wrong(100 * math.sqrt(2 * 60 / 10800)) is not None  # R/M forgotten
    assert bubble.match_wrong(100 * 11 / 36) is not None  # the other convention


def test_transfer_share():
    qs = qb.c08_questions()
    assert len(qs) >= 4 and sum(q.transfer for q in qs) * 3 >= len(qs)
