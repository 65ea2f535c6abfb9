"""Quiz bank of §9.6.2: every key recomputed from closed forms, the typical slips rejected."""

import pytest

from clusterlab.book import quiz
from clusterlab.book.quizbank import part1_962 as qb

KEYS = [
    20 + (1 - 0.6) * 8,  # 23.2 s
    100 * 11 / (11 + 0.25 * 9),  # 83.0 %
    100 * (14 - 4.9) / 14,  # 65 %
    max(6.5, 9.5),  # 9.5 s
    1e3 * 150 * 2 * 47 * 8e-6,  # 112.8 ms
    13e9 * 4 / 1e9,  # 52 GB
    0.75 * 2 * 13e9 / 1e9,  # 19.5 GB
    3e9 * 0.003 * 8 / 1e6,  # 72 MB
    400e12 * 2 / (2 * 25e9),  # 16000 tokens: C·b/(2β)
]


def _numeric():
    return [q for q in qb.questions() if isinstance(q, quiz.Numeric)]


def test_keys_match_closed_forms():
    qs = _numeric()
    assert len(qs) == len(KEYS)
    for q, key in zip(qs, KEYS, strict=True):
        assert q.answer == pytest.approx(key, rel=1e-12), q.prompt


def test_slips_are_distractors():
    ex, eff, ratio, bound, lat, ddp, zpp, topk, threshold = _numeric()
    assert ex.match_wrong(28.0) is not None and ex.match_wrong(24.8) is not None
    assert eff.match_wrong(100 * 11 / 20) is not None  # no overlap
    assert eff.match_wrong(75.0) is not None  # the overlap ratio taken for the efficiency
    assert ratio.match_wrong(35.0) is not None  # the exposed share
    assert bound.match_wrong(6.5) is not None  # more hidden than there is computation
    assert lat.match_wrong(56.4) is not None  # one phase only
    assert ddp.match_wrong(26.0) is not None  # erratum: "DDP 默认已是 bf16"
    assert zpp.match_wrong(78.0) is not None  # ZeRO-3's 3M
    assert topk.match_wrong(36.0) is not None  # values without indices
    assert threshold.match_wrong(32000.0) is not None  # forward's 2 FLOP per parameter per token
    assert threshold.match_wrong(8000.0) is not None  # all-reduce sends S, not 2S
    assert threshold.match_wrong(400e12 * 2 / (2 * 25e9) * 4 / 6) is not None  # forward counted as hiding compute


def test_at_least_half_ask_for_transfer():
    qs = qb.questions()
    assert sum(q.transfer for q in qs) >= len(qs) / 2


def test_choices_have_one_correct_option():
    for q in qb.questions():
        if isinstance(q, quiz.Choice):
            assert sum(o.correct for o in q.options) == 1
