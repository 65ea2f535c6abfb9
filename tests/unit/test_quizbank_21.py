"""Quiz bank of §2.1: every key recomputed from closed forms, every distractor rejected."""

import math

import pytest

from clusterlab.book import quiz
from clusterlab.book.quizbank import part2_21 as qb

S = 7e9 * 2  # 14 GB
BETA = 200e9 / 8  # 25 GB/s per direction
ALPHA = 5e-6
N, H = 8, 3
S_T = 13e9 * 2  # transfer: 13B, 16 ranks, 400 Gb/s
N_T = 16
BETA_T = 400e9 / 8


def _numeric(questions):
    return [q for q in questions if isinstance(q, quiz.Numeric)]


def _choices(questions):
    return [q for q in questions if isinstance(q, quiz.Choice)]


# closed forms, written out independently of clusterlab.communication.ring / clusterlab.communication.chunking
C_STAR = math.sqrt((H - 1) * S_T / (2 * N_T * (N_T - 1) * ALPHA * BETA_T))  # ≈ 20.82
TAU_HAND = ALPHA + 8e6 / (4 * 2 * BETA)  # 45 µs
KEYS = [
    2 * (N - 1) * (100 - 1) * ALPHA * 1e3,  # single stage: 2(N−1)(c−1)α = 6.93 ms
    C_STAR,
    S_T / (N_T * 21) / 1e6,  # best integer c = 21 → 77.4 MB
    (2 * (4 - 1) * H + 2 - 1) * TAU_HAND * 1e6,  # c < h: (2(N−1)h + c − 1)τ = 19 τ = 855 µs
]


def test_numeric_keys_match_closed_forms():
    qs = _numeric(qb.c021_questions())
    assert len(qs) == len(KEYS)
    for q, key in zip(qs, KEYS, strict=True):
        assert q.answer == pytest.approx(key, rel=1e-12), q.prompt


def test_expected_values_in_words():
    assert [round(q.answer, 4) for q in _numeric(qb.c021_questions())] == [6.93, 20.8167, 77.381, 855.0]


def test_specific_distractors():
    single, opt, size, hand = _numeric(qb.c021_questions())
    assert any(v == pytest.approx(2 * (N - 1) * 100 * ALPHA * 1e3) for v in dict(single.wrong))  # c instead of c−1
    assert single.accepts(6.93) and not single.accepts(7.0)
    chain = math.sqrt((H - 1) * S_T / (ALPHA * BETA_T))  # single-message optimum
    assert any(v == pytest.approx(chain) for v in dict(opt.wrong))
    assert any(v == pytest.approx(math.sqrt(S_T / (2 * N_T * (N_T - 1) * ALPHA * BETA_T))) for v in dict(opt.wrong))
    assert opt.accepts(20) and opt.accepts(21) and not opt.accepts(23)
    assert any(v == pytest.approx(S_T / 21 / 1e6) for v in dict(size.wrong))  # forgot the N blocks
    assert any(v == pytest.approx(S_T / (N_T * 21) / 2**20) for v in dict(size.wrong))  # MiB
    assert any(v == pytest.approx((2 * 3 * 2 + H - 1) * TAU_HAND * 1e6) for v in dict(hand.wrong))  # c ≥ h formula


def test_choices():
    why, proto, alpha = _choices(qb.c021_questions())
    for q in (why, proto, alpha):
        assert not q.multiple
        assert sum(o.correct for o in q.options) == 1
        assert all(o.feedback for o in q.options)
    (correct,) = [o for o in why.options if o.correct]
    assert "下界" in correct.text
    (correct,) = [o for o in proto.options if o.correct]
    assert correct.text == "LL、LL128、Simple"
    seed_option = next(o for o in proto.options if "点对点" in o.text)
    assert not seed_option.correct and "原文的说法" not in seed_option.feedback
    assert not any("TCP" in o.text for o in proto.options)  # a transport strawman replaced by NCCL's transports
    (correct,) = [o for o in alpha.options if o.correct]
    assert correct.text == "1/2"  # c* ∝ 1/sqrt(α)

