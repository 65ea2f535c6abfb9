"""Quiz bank of 集群篇 §6: every key recomputed from closed forms written out here, every distractor rejected."""

import math

import pytest

from clusterlab.book import quiz
from clusterlab.book.quizbank import part2_06 as qb


def _numeric(questions):
    return [q for q in questions if isinstance(q, quiz.Numeric)]


def _choices(questions):
    return [q for q in questions if isinstance(q, quiz.Choice)]


C = 0.4
KEYS = [
    100 * (C + (1 - C) * math.log(1 - C)),  # shuffled LRU: 9.35 %
    (3000 - 1200) * 1e9 / 1e12,  # static cache: the 1800 shards that are not pinned, 1.8 TB
    math.ceil(0.9 / 0.25),  # workers: 4
    6 * 3,  # batches in flight
    8 * 312e12 * 0.4 / (6 * 13e9),  # tokens/s of a node: 12 800
    70e9 * 16 / 60 / 1e9,  # checkpoint burst: 18.7 GB/s
]


def test_numeric_keys_match_closed_forms():
    qs = _numeric(qb.c06_questions())
    assert len(qs) == len(KEYS)
    for q, key in zip(qs, KEYS, strict=True):
        assert q.answer == pytest.approx(key, rel=1e-12), q.prompt


def test_expected_values_in_words():
    got = [round(q.answer, 2) for q in _numeric(qb.c06_questions())]
    assert got == [9.35, 1.8, 4.0, 18.0, 12800.0, 18.67]


def test_misconceptions_are_distractors():
    lru, static, workers, depth, tokens, burst = _numeric(qb.c06_questions())
    assert lru.match_wrong(40.0) is not None  # hit rate = cache fraction (static cache)
    assert lru.match_wrong(100.0) is not None  # the original text's "near 100 %"
    assert static.match_wrong(3.0) is not None  # sequential LRU refetches everything
    c = 1.2 / 3
    assert static.match_wrong(3 * (1 - (c + (1 - c) * math.log(1 - c)))) is not None  # LRU formula for a static cache
    assert workers.match_wrong(1.0) is not None  # "prefetch will fix it"
    assert depth.match_wrong(3.0) is not None  # prefetch_factor alone
    assert tokens.match_wrong(KEYS[4] * 6) is not None  # dropped the 6
    assert burst.match_wrong(70e9 * 16 / 60 / 2**30) is not None  # GiB


def test_transfer_share():
    # numbers not printed in the chapter: c = 0.4, the static-cache volume, 0.9 s / 0.25 s, 6 × 3, 70B in 60 s
    qs = qb.c06_questions()
    assert len(qs) == 8
    assert sum(q.transfer for q in qs) == 5


def test_choices():
    seq, pin = _choices(qb.c06_questions())
    assert [o.correct for o in seq.options] == [False, False, True, False]
    assert [o.correct for o in pin.options] == [False, True, False, False]
