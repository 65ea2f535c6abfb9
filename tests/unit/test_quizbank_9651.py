"""Quiz bank of §9.6.5.1: every key recomputed from closed forms, distractors rejected."""

import pytest

from clusterlab.book import quiz
from clusterlab.book.quizbank import part1_9651 as qb

KEYS = [
    (2 * 3.5e9 + 14 * 3.5e9 / 2048) / 1e9,  # ZeRO-2, Ψ' = 7e9/2, N = 2048 → 7.02 GB
    3072 / (4 * 8),  # dense DP = 96
    100 * 11 / (2 * 24),  # interleaved bubble 22.9 %
    11 * 2**20 / 4096 / 32,  # 88 micro-batches
]


def test_numeric_keys():
    qs = [q for q in qb.questions() if isinstance(q, quiz.Numeric)]
    assert len(qs) == len(KEYS)
    for q, k in zip(qs, KEYS, strict=True):
        assert q.answer == pytest.approx(k, rel=1e-12), q.prompt


def test_shape_and_transfer_share():
    qs = qb.questions()
    assert len(qs) >= 6
    assert sum(q.transfer for q in qs) * 3 >= len(qs)


def test_seed_numbers_are_distractors():
    z2, dp, bub, _m = [q for q in qb.questions() if isinstance(q, quiz.Numeric)]
    assert z2.match_wrong(26.25) is not None
    assert dp.match_wrong(6) is not None  # EP taken as its own GPUs
    assert bub.match_wrong(100 * 11 / 24) is not None


def test_micro_batches_divided_by_all_gpus():
    m = [q for q in qb.questions() if isinstance(q, quiz.Numeric)][3]
    for typed in (11 * 2**20 / 4096 / 1024, 11 * 2**20 // 4096 // 1024):  # 2.75 and its integer part 2
        fb = m.feedback_for(typed)
        assert m.match_wrong(typed) is not None and "DP" in fb
    assert "整数" in m.feedback_for(2.75)
