"""Quiz bank of 即时自测 9.6: every key recomputed from closed forms (not through clusterlab), the original text's
halved ZeRO-2 volume rejected, every section 9.6.1–9.6.5 covered, at least a third of the questions transfer."""

import math

import pytest

from clusterlab.book import quiz
from clusterlab.book.quizbank import part1_96 as qb

S = 1.3e9 * 2  # B: 1.3B parameters, fp16 gradients
K = 16
LAM = 419 / (16384 * 54 * 24)  # Llama 3 unexpected interruptions per GPU-hour

KEYS = [
    2 * S * (K - 1) / K / 1e9,  # all-reduce, GB
    S * (K - 1) / K / 1e9,  # reduce-scatter, GB
    2 * S * (K - 1) / K / 1e9,  # ZeRO-2: RS(grads) + AG(params) = DDP (erratum 4)
    100 * (12 - 4.8) / 12,  # overlap ratio, %
    30 + 4.8,  # step, s
    max(20.0, 25.0),  # hidden capped at the compute: step = max(t_c, t_m)
    math.sqrt(2 * 30 * 5 * 3600) / 60,  # Young, min
    1 / (4096 * LAM),  # MTBF, h
    2048 * LAM * 7 * 24,  # expected interruptions in a week
    (2 * 7e9 / 4 + 14 * 7e9 / 4 / 1024) / 1e9,  # ZeRO-2 model states with PP 4, DP 1024, GB
]


def _numeric(qs):
    return [q for q in qs if isinstance(q, quiz.Numeric)]


def test_numeric_keys_match_closed_forms():
    qs = _numeric(qb.questions())
    assert len(qs) == len(KEYS)
    for q, key in zip(qs, KEYS, strict=True):
        assert q.answer == pytest.approx(key, rel=1e-12), q.prompt


def test_expected_values_in_words():
    assert [round(q.answer, 2) for q in _numeric(qb.questions())] == [
        4.88, 2.44, 4.88, 60.0, 34.8, 25.0, 17.32, 12.37, 6.79, 3.52
    ]


def test_the_original_texts_errors_are_distractors():
    ar, _rs, zero2, ratio, step, cap, young, mtbf, events, mem = _numeric(qb.questions())
    assert zero2.match_wrong(S * (K - 1) / K / 1e9) is not None  # "ZeRO-2 halves the traffic"
    assert "勘误" in zero2.feedback_for(S * (K - 1) / K / 1e9)
    assert ar.match_wrong(2 * S / 1e9) is not None
    assert ratio.match_wrong(40.0) is not None  # exposed share instead of hidden share
    assert step.match_wrong(42.0) is not None  # no overlap
    assert cap.match_wrong(20 + 0.1 * 25) is not None  # hidden not capped at the compute
    assert young.match_wrong(math.sqrt(30 * 5 * 3600) / 60) is not None  # factor 2
    assert mtbf.match_wrong(1 / (4096 * 3e-6)) is not None  # the original's rate
    assert events.match_wrong(2048 * 3e-6 * 7 * 24) is not None
    assert mem.match_wrong(26.25) is not None  # the original's 26 GB (N_d = 8)
    assert mem.match_wrong((2 * 7e9 + 14 * 7e9 / 1024) / 1e9) is not None  # PP forgotten


def test_zero2_equals_ddp_not_half():
    ar, _, zero2 = _numeric(qb.questions())[:3]
    assert zero2.answer == pytest.approx(ar.answer)


def test_groups_cover_every_section_and_transfer_share():
    groups = qb.groups()
    assert [sec for sec, _ in groups] == ["9.6.1", "9.6.2", "9.6.3", "9.6.4", "9.6.5"]
    assert all(qs for _, qs in groups)
    qs = qb.questions()
    assert sum(q.transfer for q in qs) * 3 >= len(qs)


def test_reproducibility_question_has_several_correct_answers():
    (bits,) = [q for q in qb.questions() if isinstance(q, quiz.Choice) and q.multiple]
    correct = [o.text for o in bits.options if o.correct]
    assert len(correct) >= 3
    assert any("结合律" in t for t in correct)
    (commut,) = [o for o in bits.options if "交换律" in o.text]
    assert not commut.correct
