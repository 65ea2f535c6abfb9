"""Quiz bank of 集群篇 §5: every key recomputed from closed forms, every distractor rejected."""

import math

import pytest

from clusterlab.book import quiz
from clusterlab.book.quizbank import part2_05 as qb

H = 3600.0
LAMBDA = 419 / (16384 * 54 * 24)  # Llama 3: unexpected interruptions per GPU-hour
M_1536 = H / (1536 * LAMBDA)  # s: the transfer job
M_16K = H / (16384 * LAMBDA)
S, BETA, N = 14e9, 25e9, 8


def _numeric(questions):
    return [q for q in questions if isinstance(q, quiz.Numeric)]


def _choices(questions):
    return [q for q in questions if isinstance(q, quiz.Choice)]


def _goodput_useful(t, d, m, r):
    return (1 - ((t + d) / 2 + r) / m) * t / (t + d)


T_16K = math.sqrt(2 * 60 * M_16K)
# closed forms, written out independently of clusterlab
KEYS = [
    M_1536 / H,  # 33.0 h
    2 * S * (N - 1) / N / (BETA / 10),  # one link at 1/10: 9.8 s
    math.sqrt(2 * 60 * M_1536) / H,  # Young: 1.05 h
    100 * _goodput_useful(T_16K, 60, M_16K, 1800),  # 74.5 %
    1 + (1 / 0.75 - 1) / 0.3,  # k = 2.11
]


def test_numeric_keys_match_closed_forms():
    qs = _numeric(qb.c05_questions())
    assert len(qs) == len(KEYS)
    for q, key in zip(qs, KEYS, strict=True):
        assert q.answer == pytest.approx(key, rel=1e-12), q.prompt


def test_expected_values_in_words():
    got = [round(q.answer, 2) for q in _numeric(qb.c05_questions())]
    assert got == [32.99, 9.8, 1.05, 74.51, 2.11]


def test_seed_rate_is_a_distractor_of_the_mtbf_question():
    q = _numeric(qb.c05_questions())[0]
    assert q.match_wrong(3600 / (1536 * 3e-6) / H) == 0  # the original text's λ = 3e-6 /GPU-h
    assert q.match_wrong(M_16K / H) is not None  # MTBF taken as a property of the cluster
    degraded = _numeric(qb.c05_questions())[4]
    assert degraded.match_wrong(1 / 0.75) is not None  # the whole step taken as communication
    assert degraded.match_wrong(1 + 0.25 / 0.3) is not None  # step +25 % instead of ×1/0.75


def test_choices():
    cs = _choices(qb.c05_questions())
    assert len(cs) == 3
    pieces, adam, rng = cs
    assert pieces.multiple and pieces.correct_indices == frozenset({0, 1, 2, 3})
    assert not pieces.accepts([0])  # weights alone are not enough
    assert adam.correct_indices == frozenset({1}) and "sign" in adam.options[1].text
    assert rng.correct_indices == frozenset({2})
    for c in cs:
        assert all(o.feedback for o in c.options) or c is rng

