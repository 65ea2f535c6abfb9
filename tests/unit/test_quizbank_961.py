"""Quiz bank of §9.6.1: every key recomputed from closed forms, every distractor rejected and reachable."""

import pytest

from clusterlab.book import quiz
from clusterlab.book.quizbank import part1_961 as qb

GB = 1e9
S = 7e9 * 2  # 7B, bf16
N = 8
BETA_IB = 400e9 / 8  # 50 GB/s per direction
BETA_H100 = 900e9 / 2  # 450 GB/s per direction
ALPHA = 5e-6
LAYER = 4 * 4096**2 + 3 * 4096 * 11008


def _numeric(qs):
    return [q for q in qs if isinstance(q, quiz.Numeric)]


def _choices(qs):
    return [q for q in qs if isinstance(q, quiz.Choice)]


# closed forms written out independently of clusterlab
KEYS = [
    2 * S * (N - 1) / N / GB,  # ZeRO-2: RS + AG = 24.5 GB (not the seed's 12.25)
    2 * S * (N - 1) / N / BETA_H100 * 1e3,  # H100 NVLink all-reduce, ms (54.4)
    LAYER * 2 / 1e6,  # Llama-2-7B layer in bf16, MB (404.75)
    ((N - 1) * ALPHA + LAYER * 2 * (N - 1) / N / BETA_IB) * 1e3,  # FSDP layer all-gather, ms (7.12)
    ALPHA * BETA_IB / 1e3,  # α·β in KB (250)
    100_000 * (2 * 63 * ALPHA + 2 * (1e9 / 100_000) * 63 / 64 / BETA_IB),  # 1e5 small all-reduces, s (63.04)
]


def test_numeric_keys_match_closed_forms():
    qs = _numeric(qb.s961_questions())
    assert len(qs) == len(KEYS)
    for q, key in zip(qs, KEYS, strict=True):
        assert q.answer == pytest.approx(key, rel=1e-12), q.prompt


def test_expected_values_in_words():
    values = [round(q.answer, 4) for q in _numeric(qb.s961_questions())]
    assert values == [24.5, 54.4444, 404.7503, 7.1181, 250.0, 63.0394]


def test_seed_numbers_are_distractors():
    zero2, h100, layer, layer_t, cross, bucket = _numeric(qb.s961_questions())
    # the seed's ZeRO-2 "省一半": 12.25 GB
    assert zero2.match_wrong(12.25) is not None
    assert "原文" in zero2.feedback_for(12.25)
    # 900 GB/s read as per direction; the A100 number 0.0817 s
    assert h100.match_wrong(S * 1.75 / 900e9 * 1e3) is not None
    assert h100.match_wrong(81.67) is not None
    # parameter count instead of bytes; fp32
    assert layer.match_wrong(202.375) is not None and layer.match_wrong(809.5) is not None
    # "延迟主导": latency term (N−1)α = 35 µs only
    assert "延迟项" in layer_t.feedback_for(0.035)
    assert cross.match_wrong(2000) is not None  # Gb/s read as GB/s
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


def test_bandwidth_helpers():
    assert qb.ib_bandwidth() == pytest.approx(50e9)
    assert qb.nvlink_bandwidth(600) == pytest.approx(300e9)
    assert qb.nvlink_bandwidth(900) == pytest.approx(450e9)
