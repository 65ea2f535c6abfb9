"""Quiz bank of 集群篇 §4: every key recomputed from closed forms, the misconceptions rejected."""

import pytest

from clusterlab.book import quiz
from clusterlab.book.quizbank import part2_04 as qb

FPT = 6 * 13e9 + 12 * 40 * 5120 * 4096  # PaLM App. B
PSI_MP = 13e9 / 8
KEYS = [
    3 * 13e9 * 2 * 63 / 64 / 1e9,  # ZeRO-3: 3Ψ(N−1)/N
    4 * (40 / 5) * 16,  # 4 all-reduces per layer per micro-batch
    2 * (2 * 2048 * 5120 * 2) * 3 / 4 / 1e6,  # 2S(t−1)/t
    100 * 7 / (24 + 7),  # bubble / total
    100 * 7 / (2 * 24),  # interleaved, bubble / ideal
    100 * 4.6e6 * FPT / (1024 * 989e12),  # MFU
    (2 * PSI_MP + 14 * PSI_MP / 16) / 1e9,  # ZeRO-2 under TP×PP = 8
    0.8 + 0.5 * 0.6,  # step time
    2 * 65536 * 8 * 128 * 2 * 7 / 8 / 1e6,  # all-gather CP: S(c−1)/c
]


def _numeric(qs):
    return [q for q in qs if isinstance(q, quiz.Numeric)]


def test_keys_match_closed_forms():
    qs = _numeric(qb.c04_questions())
    assert len(qs) == len(KEYS)
    for q, key in zip(qs, KEYS, strict=True):
        assert q.answer == pytest.approx(key, rel=1e-12), q.prompt


def test_misconceptions_are_rejected():
    z3, calls, tpb, bub, inter, mfu, mem, step, cp = _numeric(qb.c04_questions())
    assert z3.match_wrong(2 * 13e9 * 2 * 63 / 64 / 1e9) is not None  # the original "~2V"
    assert calls.match_wrong(2 * 8 * 16) is not None  # "每层 2 次"
    assert tpb.match_wrong(2 * 2048 * 5120 * 2 / 1e6) is not None  # S instead of 2S(t−1)/t
    assert bub.match_wrong(100 * 7 / 24) is not None  # Megatron's convention
    assert inter.match_wrong(100 * 7 / 24) is not None  # v forgotten
    assert mfu.match_wrong(100 * 4.6e6 * 6 * 13e9 / (1024 * 989e12)) is not None  # 6N only
    assert mem.match_wrong((2 * 13e9 + 14 * 13e9 / 16) / 1e9) is not None  # model parallelism forgotten
    assert step.match_wrong(1.4) is not None  # no overlap
    assert cp.match_wrong(2 * 65536 * 8 * 128 * 2 / 1e6) is not None  # the whole K/V instead of S(c−1)/c
    assert cp.match_wrong(2 * 65536 * 64 * 128 * 2 * 7 / 8 / 1e6) is not None  # K/V counted with the query heads


def test_definition_choice_marks_compute_fraction():
    (q,) = [q for q in qb.c04_questions() if isinstance(q, quiz.Choice)]
    assert [o.correct for o in q.options] == [True, False, False, False]
