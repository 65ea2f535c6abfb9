"""Quiz bank of §9.6.2: every key recomputed from closed forms, the typical slips rejected."""

import pytest

from clusterlab.book import quiz
from clusterlab.book.quizbank import part1_962 as qb

KEYS = [
    20 + (1 - 0.6) * 8,  # 23.2 s
    100 * 15 / (15 + 0.25 * 10),  # 85.7 %
    100 * (10 - 3) / 10,  # 70 %
    max(5, 8),  # 8 s
    1e3 * 200 * 2 * 31 * 10e-6,  # 124 ms
    7e9 * 4 / 1e9,  # 28 GB
    0.75 * 2 * 13e9 / 1e9,  # 19.5 GB
    1e9 * 0.01 * 8 / 1e6,  # 80 MB
]


def _numeric():
    return [q for q in qb.questions() if isinstance(q, quiz.Numeric)]


def test_keys_match_closed_forms():
    qs = _numeric()
    assert len(qs) == len(KEYS)
    for q, key in zip(qs, KEYS, strict=True):
        assert q.answer == pytest.approx(key, rel=1e-12), q.prompt


def test_slips_are_distractors():
    ex, eff, ratio, bound, lat, ddp, zpp, topk = _numeric()
    assert ex.match_wrong(28.0) is not None and ex.match_wrong(24.8) is not None
    assert eff.match_wrong(60.0) is not None  # no overlap
    assert ratio.match_wrong(30.0) is not None
    assert bound.match_wrong(5.0) is not None
    assert lat.match_wrong(62.0) is not None
    assert ddp.match_wrong(14.0) is not None  # erratum: "DDP 默认已是 bf16"
    assert zpp.match_wrong(78.0) is not None  # ZeRO-3's 3M
    assert topk.match_wrong(40.0) is not None  # values without indices


def test_choices_have_one_correct_option():
    for q in qb.questions():
        if isinstance(q, quiz.Choice):
            assert sum(o.correct for o in q.options) == 1
