"""Quiz bank of §9.6.3: every key recomputed from closed forms, every distractor rejected and reachable."""

import math

import pytest

from clusterlab.book import quiz
from clusterlab.book.quizbank import part1_963 as qb

GB = 1e9
STATE = 7e9 * 16  # 112 GB: mixed-precision Adam, 16 B per parameter
N = 128
BW = 2e9  # aggregate, shared by all ranks
DELTA = STATE / BW  # 56 s
M = 3600 / 0.5  # the original's f = 0.5 / h → 7200 s
R = 180.0
STATE_T = 13e9 * 16  # 208 GB: the 13B transfer job
N_T = 256
BW_T = 5e9
G_T = 2048
LLAMA3_RATE = 419 / (16384 * 54 * 24)  # unexpected interruptions per GPU-hour

# closed forms, written out independently of clusterlab.faults.checkpoint / reliability
KEYS = [
    STATE_T / GB,  # sharded total: 208 GB
    STATE_T / BW_T,  # 41.6 s
    math.sqrt(2 * DELTA * M) / 60,  # Young: 14.97 min
    100 * (math.sqrt(2 * DELTA / M) + R / M),  # 14.97 %
    100 * (DELTA / 7200 + (7200 / 2 + R) / M),  # 53.3 % at the original's 2 h interval
    1 / (G_T * LLAMA3_RATE),  # 24.7 h
]


def _numeric(questions):
    return [q for q in questions if isinstance(q, quiz.Numeric)]


def _choices(questions):
    return [q for q in questions if isinstance(q, quiz.Choice)]


def test_numeric_keys_match_closed_forms():
    qs = _numeric(qb.questions())
    assert len(qs) == len(KEYS)
    for q, key in zip(qs, KEYS, strict=True):
        assert q.answer == pytest.approx(key, rel=1e-12), q.prompt


def test_expected_values_in_words():
    qs = _numeric(qb.questions())
    assert [round(q.answer, 2) for q in qs] == [208.0, 41.6, 14.97, 14.97, 53.28, 24.74]


def test_at_least_five_questions():
    assert len(qb.questions()) >= 5


def test_seed_numbers_and_factor_two_are_distractors():
    total, time, young, overhead, two_hours, mtbf = _numeric(qb.questions())
    assert total.match_wrong(STATE_T / N_T / GB) is not None  # erratum 14: the per-rank shard taken for the total
    assert total.match_wrong(13e9 * 2 / GB) is not None  # bf16 weights only
    assert time.match_wrong(STATE_T / N_T / BW_T) is not None  # aggregate bandwidth taken per rank
    assert time.match_wrong(N_T * STATE_T / BW_T) is not None  # every rank writes everything
    # the original's optimum sqrt(60·0.93/(4f)) h = 5.28 h, typed in minutes
    assert young.match_wrong(5.28 * 60) is not None
    assert young.match_wrong(math.sqrt(DELTA * M) / 60) is not None  # forgot the factor 2
    # Daly's refined interval is also accepted
    daly = math.sqrt(2 * DELTA * M) * (1 + math.sqrt(DELTA / (2 * M)) / 3 + DELTA / (2 * M) / 9) - DELTA
    assert young.accepts(daly / 60)
    # the original's 7.5 % (typed as it prints it) for both overhead questions
    assert overhead.match_wrong(7.5) is not None and two_hours.match_wrong(7.5) is not None
    assert overhead.match_wrong(100 * math.sqrt(2 * DELTA / M)) is not None  # forgot R/M
    assert mtbf.match_wrong(2.0) is not None  # the original's f = 0.5 / h
    assert mtbf.match_wrong(1 / (16384 * LLAMA3_RATE)) is not None  # 16K-GPU MTBF, 3.09 h
    assert mtbf.match_wrong(1 / (16384 * LLAMA3_RATE) / 8) is not None  # scaled the wrong way
    assert mtbf.match_wrong(1 / (G_T * 3e-6)) is not None  # the seed's low rate


def test_seed_helpers_reproduce_the_original_numbers():
    assert qb.seed_optimal_interval_h() == pytest.approx(5.282, abs=1e-3)
    assert 100 * qb.seed_overhead_fraction() == pytest.approx(7.44, abs=0.01)
    with pytest.raises(ValueError, match="failures_per_hour"):
        qb.seed_optimal_interval_h(0.0)


def test_choices_have_one_correct_option_with_feedback():
    restart, scale = _choices(qb.questions())
    for q in (restart, scale):
        assert sum(o.correct for o in q.options) == 1
        assert all(o.feedback for o in q.options), q.prompt
    assert [o.text for o in restart.options if o.correct] == ["不变"]
    assert [o.text for o in scale.options if o.correct] == ["间隔缩短为 1/4，浪费不变"]
    # δ/4 and M/4: T* = sqrt(2δM) quarters, sqrt(2δ/M) is unchanged
    delta, m = 56.0, 1 / (128 * LLAMA3_RATE) * 3600
    assert math.sqrt(2 * delta / 4 * m / 4) == pytest.approx(math.sqrt(2 * delta * m) / 4)
    assert scale.transfer and sum(q.transfer for q in qb.questions()) >= len(qb.questions()) / 2

