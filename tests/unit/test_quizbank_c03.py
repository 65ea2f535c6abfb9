"""Quiz bank of 集群篇 §3: every key recomputed from closed forms, the misconceptions rejected."""

import math

import pytest

from clusterlab.book import quiz
from clusterlab.book.quizbank import part2_03 as qb

KEYS = [
    32 * 32 / 2,  # two tiers, k = 32: k²/2
    32**3 / 4,  # three tiers: k³/4
    (2048 / 32) * 32 / 64,  # leaves × uplinks / radix = 32 spines
    300 / (4 * 25 / 8),  # NVLink 300 GB/s per direction vs 4 × 25 GB/s shared by 8 GPUs = 24
    1 - 16 * 15 * 14 * 13 / 16**4,  # birthday problem
    50 / 3,  # 400 Gb/s = 50 GB/s over a 1:3 pod
    100 / (1 + 1e-3 * math.ceil(25e9 * 8e-6 / 4096)),  # go-back-N, W = 49
    1e3 * 2 * 1e9 * 3 / 4 / 28e9,  # ring all-reduce on one link of a 4-NPU full mesh
]


def _numeric(qs):
    return [q for q in qs if isinstance(q, quiz.Numeric)]


def test_keys_match_closed_forms():
    qs = _numeric(qb.c03_questions())
    assert len(qs) == len(KEYS)
    for q, key in zip(qs, KEYS, strict=True):
        assert q.answer == pytest.approx(key, rel=1e-12), q.prompt


def test_misconceptions_are_rejected():
    cap2, cap3, _spines, ratio, coll, pod, gbn, mesh = _numeric(qb.c03_questions())
    assert cap2.match_wrong(32 * 32) is not None  # all ports down
    assert cap3.match_wrong(512) is not None  # two-tier formula
    assert ratio.match_wrong(48) is not None  # NVLink bidirectional vs NIC one direction
    assert coll.match_wrong(6 / 16) is not None  # union bound
    assert pod.match_wrong(400 / 3) is not None  # bits for bytes
    assert gbn.match_wrong(100 / (1 + 1e-3)) is not None  # selective repeat
    assert mesh.match_wrong(1e3 * 2 * 1e9 * 3 / 4 / 84e9) is not None  # the NPU's total over all three links


def test_hops_choice_marks_one_switch():
    (hops,) = [q for q in qb.c03_questions() if isinstance(q, quiz.Choice)]
    assert [o.correct for o in hops.options] == [True, False, False, False]
    assert "1" in hops.options[0].text
