"""Quiz bank of 集群篇 §7: every key recomputed from closed forms, the misconceptions rejected."""

import pytest

from clusterlab.book import quiz
from clusterlab.book.quizbank import part2_07 as qb

IDEAL_Q2 = 6 * 70e9 * 8e6 / (2048 * 989e12)
STEP_Q5 = 6 * 7e9 * 2**21 / (512 * 312e12) / 0.5
KEYS = [
    100 * (4e6 / 0.9) * 6 * 13e9 / (1024 * 989e12),  # MFU from a measured step
    100 * IDEAL_Q2 / (IDEAL_Q2 / 0.4 + 1.0),  # the double count removed
    1.87 - min(0.8 * 1.87, 1.1),  # hiding capped at the compute time
    3 * 7e9 * 2 * 511 / 512 / 50e9,  # ZeRO-3 3Ψ on 400 Gb/s = 50 GB/s
    1e12 / (2**21 / STEP_Q5) / 86400,  # days
    100 * 430 / 989,  # Llama 3 Table 4, 8,192 GPUs
]


def _numeric(qs):
    return [q for q in qs if isinstance(q, quiz.Numeric)]


def test_keys_match_closed_forms():
    qs = _numeric(qb.c07_questions())
    assert len(qs) == len(KEYS)
    for q, key in zip(qs, KEYS, strict=True):
        assert q.answer == pytest.approx(key, rel=1e-12), q.prompt


def test_misconceptions_are_rejected():
    mfu, double, cap, bits, days, llama = _numeric(qb.c07_questions())
    assert mfu.match_wrong(100 * (4e6 / 0.9) * 2 * 13e9 / (1024 * 989e12)) is not None  # 2N
    assert double.match_wrong(40.0) is not None  # "MFU 40 %" kept after adding exposed comm
    assert cap.match_wrong(0.2 * 1.87) is not None  # 20 % of the comm, ignoring the cap
    assert bits.match_wrong(3 * 7e9 * 2 * 511 / 512 / 400e9) is not None  # bits taken for bytes
    assert days.match_wrong(KEYS[4] * 24) is not None  # hours
    assert llama.match_wrong(100 * 430 / 1979) is not None  # sparse peak


def test_transfer_share_and_choices():
    qs = qb.c07_questions()
    assert len(qs) >= 6
    assert sum(q.transfer for q in qs) / len(qs) >= 1 / 3
    data, zero3 = [q for q in qs if isinstance(q, quiz.Choice)]
    assert [o.correct for o in data.options] == [True, False, False, False]
    assert [o.correct for o in zero3.options] == [True, False, False, False]
