"""Quiz bank of §9.6.4: every key recomputed from closed forms, every distractor rejected and reachable."""

import math

import pytest

from clusterlab.book import quiz
from clusterlab.book.quizbank import part1_964 as qb

H = 3600.0
LAM = 419 / (16384 * 54 * 24)  # Llama 3: unexpected interruptions per GPU-hour
M16K = H / (16384 * LAM)  # job MTBF in s at 16 384 GPUs (= 54·24/419 h)
DELTA = 30.0  # the transfer job: asynchronous save
R = 1200.0
M6K = H / (6144 * LAM)  # job MTBF in s at 6144 GPUs

# closed forms, written out independently of clusterlab.faults.reliability / clusterlab.faults.checkpoint
KEYS = [
    LAM / 1e-5,  # ≈ 1.97 (units of 1e-5 per GPU-hour)
    1 / (3072 * LAM),  # ≈ 16.5 h
    math.sqrt(2 * DELTA * M6K) / 60,  # Young ≈ 22.2 min
    100 * (math.sqrt(2 * DELTA / M6K) + R / M6K),  # ≈ 8.5 %
    3e-6 * 16384 * 54 * 24,  # ≈ 63.7 interruptions predicted by the original text's rate
]


def _numeric(questions):
    return [q for q in questions if isinstance(q, quiz.Numeric)]


def _choices(questions):
    return [q for q in questions if isinstance(q, quiz.Choice)]


def test_at_least_five_questions():
    assert len(qb.s964_questions()) >= 5


def test_numeric_keys_match_closed_forms():
    qs = _numeric(qb.s964_questions())
    assert len(qs) == len(KEYS)
    for q, key in zip(qs, KEYS, strict=True):
        assert q.answer == pytest.approx(key, rel=1e-12), q.prompt


def test_expected_values_in_words():
    assert [round(q.answer, 2) for q in _numeric(qb.s964_questions())] == [1.97, 16.5, 22.25, 8.54, 63.7]
    assert M16K / H == pytest.approx(54 * 24 / 419)  # the observed job MTBF does not depend on G


def test_the_original_texts_numbers_are_distractors():
    rate, mtbf, young, waste, count = _numeric(qb.s964_questions())
    assert rate.match_wrong(0.3) is not None  # λ = 3e-6, in units of 1e-5
    assert rate.match_wrong(466 / (16384 * 54 * 24) / 1e-5) is not None  # planned maintenance counted
    assert rate.match_wrong(419 / (54 * 24) / 1e-5) is not None  # not divided by G
    assert mtbf.match_wrong(1 / (3072 * 3e-6)) is not None  # from the original rate
    assert mtbf.match_wrong(M16K / H) is not None  # MTBF taken as a property of the cluster
    assert mtbf.match_wrong(M16K / H * 3072 / 16384) is not None  # scaled the wrong way
    # the original text's low rate fed into Young's formula
    assert young.match_wrong(math.sqrt(2 * DELTA * H / (6144 * 3e-6)) / 60) is not None
    assert young.match_wrong(math.sqrt(55.8 / (4 * H / M6K)) * 60) is not None  # T = sqrt(55.8/(4f))
    assert young.match_wrong(math.sqrt(DELTA * M6K) / 60) is not None  # factor 2 forgotten
    assert young.match_wrong(math.sqrt(2 * DELTA * M16K) / 60) is not None  # the 16K-GPU MTBF
    assert waste.match_wrong(100 * math.sqrt(2 * DELTA / M6K)) is not None  # R/M forgotten
    assert count.match_wrong(419) is not None and count.match_wrong(466) is not None


def test_daly_interval_is_also_accepted():
    young = _numeric(qb.s964_questions())[2]
    x = DELTA / (2 * M6K)
    daly = (math.sqrt(2 * DELTA * M6K) * (1 + math.sqrt(x) / 3 + x / 9) - DELTA) / 60
    assert young.accepts(daly)


def test_choices():
    seed, table5, indep = _choices(qb.s964_questions())
    (correct,) = [o for o in seed.options if o.correct]
    assert "3.1" in correct.text  # 16 384 GPUs at the Llama 3 rate: one interruption every ≈ 3.1 h
    assert "20" in seed.prompt
    (correct,) = [o for o in table5.options if o.correct]
    assert "100%" in correct.text
    assert indep.multiple
    chosen = {o.text for o in indep.options if o.correct}
    assert len(chosen) == 2 and any("交换机" in t for t in chosen) and any("气温" in t for t in chosen)
    for q in (seed, table5, indep):
        assert all(o.feedback for o in q.options), q.prompt


def test_helpers():
    assert qb.llama3_rate() == pytest.approx(LAM)
    assert qb.llama3_rate(include_planned=True) == pytest.approx(466 / (16384 * 54 * 24))

