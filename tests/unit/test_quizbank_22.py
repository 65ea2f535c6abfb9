"""Quiz bank of 集群篇 §2.2: every key recomputed from closed forms, every distractor rejected."""

import math

import pytest

from clusterlab.book import quiz
from clusterlab.book.quizbank import part2_22 as qb

S = 7e9 * 2  # 14 GB
B_IN = 600e9 / 2  # NVLink 600 GB/s bidirectional → 300 GB/s per direction
B_OUT = 400e9 / 8  # 400 Gb/s → 50 GB/s
A_IN, A_OUT = 2e-6, 5e-6
B_H100 = 900e9 / 2  # transfer: H100 NVLink per direction
A_H100 = 3e-6
S_T = 13e9 * 2  # transfer: 13B on 2048 = 256 × 8 GPUs


def _numeric(questions):
    return [q for q in questions if isinstance(q, quiz.Numeric)]


def _choices(questions):
    return [q for q in questions if isinstance(q, quiz.Choice)]


# closed forms, written out independently of clusterlab
KEYS = [
    8 * A_H100 * B_H100 * (8 - 1 - 3) / 1e6,  # tree/ring crossover N·α·β·(N−1−⌈log2 N⌉) in MB: 43.2
    2 * (S_T / 8) * 255 / 256 / 1e9,  # NIC bytes of the two-level all-reduce, 2(S/G)(M−1)/M: 6.47 GB
    2**30 / 4e-3 * 7 / 8 / 1e9,  # all-gather busbw = S/t · (N−1)/N: 234.9 GB/s
    (2 * 3 * A_OUT + 2 * 100e6 * 7 / 8 / B_OUT + 2 * A_OUT + 2 * 100e6 / B_OUT) * 1e3,  # HD on 12 ranks: 7.54 ms
]


def test_numeric_keys_match_closed_forms():
    qs = _numeric(qb.c022_questions())
    assert len(qs) == len(KEYS)
    for q, key in zip(qs, KEYS, strict=True):
        assert q.answer == pytest.approx(key, rel=1e-12), q.prompt
    assert [round(q.answer, 4) for q in qs] == [43.2, 6.4746, 234.881, 7.54]


def test_specific_distractors():
    cross, inter, busbw, hd = _numeric(qb.c022_questions())
    wrong = dict(cross.wrong)
    assert any(math.isclose(v, A_H100 * B_H100 / 1e6) for v in wrong)  # αβ of one message: 1.35 MB
    assert any(math.isclose(v, 8 * A_H100 * B_H100 / 1e6) for v in wrong)  # the ring's own Nαβ
    assert any(math.isclose(v, 2 * cross.answer) for v in wrong)  # 900 GB/s read as per direction
    # the 8× error: the whole buffer on one NIC per node
    assert any(math.isclose(v, 2 * S_T * 255 / 256 / 1e9) for v in dict(inter.wrong))
    assert any(math.isclose(v, 8 * inter.answer) for v in dict(inter.wrong))
    # the all-reduce factor applied to an all-gather; algbw
    assert any(math.isclose(v, 2**30 / 4e-3 * 2 * 7 / 8 / 1e9) for v in dict(busbw.wrong))
    assert any(math.isclose(v, 2**30 / 4e-3 / 1e9) for v in dict(busbw.wrong))
    # the power-of-two formula on N = 12 forgets the extra 2α + 2S/β
    assert any(math.isclose(v, (6 * A_OUT + 2 * 100e6 * 7 / 8 / B_OUT) * 1e3) for v in dict(hd.wrong))


def test_choices():
    choose, same, proto = _choices(qb.c022_questions())
    for q in (choose, same, proto):
        assert not q.multiple
        assert sum(o.correct for o in q.options) == 1
        assert all(o.feedback for o in q.options), q.prompt
    # N = 1000, 1 MB: tree 2·10·α + 2S/β = 140 µs; HD (p = 512) 2·9·α + 2α + 2S·511/512/β + 2S/β ≈ 180 µs;
    # ring 2·999·α + … ≈ 10 ms
    tree = 20 * A_OUT + 2 * 1e6 / B_OUT
    hd = 20 * A_OUT + 2 * 1e6 * 511 / 512 / B_OUT + 2 * 1e6 / B_OUT
    ring = 2 * 999 * A_OUT + 2 * 1e6 * 999 / 1000 / B_OUT
    assert tree < hd < ring
    (correct,) = [o for o in choose.options if o.correct]
    assert "tree" in correct.text
    (correct,) = [o for o in same.options if o.correct]
    assert "H-D_R" in correct.text and "NVLS" in correct.text
    (correct,) = [o for o in proto.options if o.correct]
    assert correct.text == "LL、LL128、Simple"
    for q in (same, proto):  # every wrong option names its misconception, none is a strawman
        assert not any(o.feedback.startswith("这是原文的说法") for o in q.options)
        assert not any("TCP" in o.text or "只实现了环" in o.text for o in q.options)

