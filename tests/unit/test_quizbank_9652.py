"""Quiz bank of §9.6.5.2: every key recomputed from closed forms, the transfer flag set on enough questions."""

import math

import pytest

from clusterlab.book import quiz
from clusterlab.book.quizbank import part1_9652 as qb

U = 2.0**-24  # float32 unit roundoff

# closed forms, written out independently of clusterlab.faults.determinism / clusterlab.faults.summation
KEYS = [
    63 * U / (1 - 63 * U) * 1e6,  # γ_63 for 64 ranks, in 1e-6
    math.ceil(math.log2(1000)),  # 10 levels of pairwise summation
    2.0 ** (2 - 23) * 1e7,  # one ULP at 5.0 = 2^-21, in 1e-7
    20 * (1 + 7.46),  # 169.2 h
]


def _numeric(questions):
    return [q for q in questions if isinstance(q, quiz.Numeric)]


def test_size_and_transfer_share():
    qs = qb.questions()
    assert len(qs) >= 6
    assert sum(q.transfer for q in qs) * 3 >= len(qs)


def test_numeric_keys_match_closed_forms():
    qs = _numeric(qb.questions())
    assert len(qs) == len(KEYS)
    for q, key in zip(qs, KEYS, strict=True):
        assert q.answer == pytest.approx(key, rel=1e-12), q.prompt


def test_typical_slips_are_distractors():
    bound, chain, ulp, cost = _numeric(qb.questions())
    assert bound.match_wrong(64 * U / (1 - 64 * U) * 1e6) is not None  # N instead of N − 1
    assert bound.match_wrong(63 * 2.0**-23 / (1 - 63 * 2.0**-23) * 1e6) is not None  # epsilon for u
    assert bound.match_wrong(6 * U / (1 - 6 * U) * 1e6) is not None  # the pairwise bound
    assert chain.match_wrong(999) is not None and chain.match_wrong(9) is not None
    assert ulp.match_wrong(2.0**-23 * 1e7) is not None  # the ULP at 1.0
    assert cost.match_wrong(20 * 7.46) is not None  # overhead read as the total multiple
    assert not bound.accepts(64 * U / (1 - 64 * U) * 1e6)


def test_choices_mark_the_layout_rule():
    choices = [q for q in qb.questions() if isinstance(q, quiz.Choice)]
    identical = choices[0]
    assert [o.correct for o in identical.options] == [True, False, False, False, False]
    layout = choices[1]
    assert [o.correct for o in layout.options].count(True) == 1 and layout.transfer


def test_same_layout_rerun_is_possible_not_guaranteed():
    identical = next(q for q in qb.questions() if isinstance(q, quiz.Choice))
    key = identical.options[0]
    assert key.correct and "需核实" in key.feedback and "有可能" in identical.prompt
