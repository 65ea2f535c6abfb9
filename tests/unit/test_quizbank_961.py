"""Quiz bank of §9.6.1: every key recomputed from closed forms, every distractor rejected and reachable."""

import pytest

from clusterlab.book import quiz
from clusterlab.book.quizbank import part1_961 as qb

GB = 1e9
S = 13e9 * 2  # 13B, bf16 (the transfer scenario)
N = 8  # one H100 server
NT = 16  # ZeRO-2 and FSDP ranks of the transfer scenario
BETA_IB = 400e9 / 8  # 50 GB/s per direction
BETA_NIC = 200e9 / 8  # 25 GB/s per direction
BETA_H100 = 900e9 / 2  # 450 GB/s per direction
ALPHA = 5e-6
ALPHA_T = 3e-6
LAYER = 4 * 5120**2 + 3 * 5120 * 13824  # Llama-2-13B


def _numeric(qs):
    return [q for q in qs if isinstance(q, quiz.Numeric)]


def _choices(qs):
    return [q for q in qs if isinstance(q, quiz.Choice)]


# closed forms written out independently of clusterlab
KEYS = [
    2 * S * (NT - 1) / NT / GB,  # ZeRO-2: RS + AG = 48.75 GB (not "half": 24.375)
    2 * S * (N - 1) / N / BETA_H100 * 1e3,  # H100 NVLink all-reduce, ms (101.1)
    LAYER * 2 / 1e6,  # Llama-2-13B layer in bf16, MB (634.4)
    ((NT - 1) * ALPHA_T + LAYER * 2 * (NT - 1) / NT / BETA_NIC) * 1e3,  # FSDP layer all-gather, ms (23.83)
    ALPHA_T * BETA_NIC / 1e3,  # α·β in KB (75)
    100_000 * (2 * 63 * ALPHA + 2 * (1e9 / 100_000) * 63 / 64 / BETA_IB),  # 1e5 small all-reduces, s (63.04)
]


def test_numeric_keys_match_closed_forms():
    qs = _numeric(qb.s961_questions())
    assert len(qs) == len(KEYS)
    for q, key in zip(qs, KEYS, strict=True):
        assert q.answer == pytest.approx(key, rel=1e-12), q.prompt


def test_expected_values_in_words():
    values = [round(q.answer, 4) for q in _numeric(qb.s961_questions())]
    assert values == [48.75, 101.1111, 634.3885, 23.8346, 75.0, 63.0394]


def test_seed_numbers_are_distractors():
    zero2, h100, layer, layer_t, cross, bucket = _numeric(qb.s961_questions())
    # the seed's ZeRO-2 "省一半": 24.375 GB, named as the misconception it is
    assert zero2.match_wrong(24.375) is not None
    assert "省一半" in zero2.feedback_for(24.375)
    # 900 GB/s read as per direction; the A100 number
    assert h100.match_wrong(S * 1.75 / 900e9 * 1e3) is not None
    assert h100.match_wrong(S * 1.75 / 300e9 * 1e3) is not None
    # parameter count instead of bytes; fp32
    assert layer.match_wrong(LAYER / 1e6) is not None and layer.match_wrong(4 * LAYER / 1e6) is not None
    # "延迟主导": latency term (N−1)α = 45 µs only
    assert "延迟项" in layer_t.feedback_for(0.045)
    assert cross.match_wrong(600) is not None  # Gb/s read as GB/s
    assert cross.match_wrong(1200) is not None  # the ring's Nαβ
    assert bucket.match_wrong(1e9 * 2 * 63 / 64 / BETA_IB) is not None  # bandwidth term only


def test_choices():
    bound, fsdp, which = _choices(qb.s961_questions())
    (correct,) = [o for o in bound.options if o.correct]
    assert "2S(N-1)/N" in correct.text
    (correct,) = [o for o in fsdp.options if o.correct]
    assert "跨节点" in correct.text
    assert which.multiple
    chosen = {o.text.split("（")[0] for o in which.options if o.correct}
    assert chosen == {"归约-散播", "全收集", "全交换"}
    for q in (bound, fsdp, which):
        assert all(o.feedback for o in q.options)
        assert not any(o.feedback.startswith("这是原文的说法") for o in q.options)  # name the misconception


def test_bandwidth_helpers():
    assert qb.ib_bandwidth() == pytest.approx(50e9)
    assert qb.nvlink_bandwidth(600) == pytest.approx(300e9)
    assert qb.nvlink_bandwidth(900) == pytest.approx(450e9)
