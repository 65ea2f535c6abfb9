"""§9.6.5.1: the bubble when the backward pass is split into B and W (1F1B, ZB-H1, DualPipe)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from clusterlab.cluster import pipeline

TIMES = st.floats(0.05, 5.0, allow_nan=False, allow_infinity=False)


def test_equal_passes_match_the_zero_bubble_table():
    # Qi et al.'s comparison with T_F = T_B = T_W: bubble rate (p−1)/m for 1F1B, (p−1)/(3m) for ZB-H1
    p, m = 8, 64
    assert pipeline.split_backward_bubble(p, m, schedule="1f1b").of_ideal == pytest.approx((p - 1) / m)
    assert pipeline.split_backward_bubble(p, m).of_ideal == pytest.approx((p - 1) / (3 * m))
    # DeepSeek-V3 Table 2 with F = B = W = 1, F&B = F + B + W: (p/2 − 1)(3 + 2 − 3)
    assert pipeline.split_backward_bubble(p, m, schedule="dualpipe").idle == pytest.approx((p / 2 - 1) * 2)


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: pipeline.split_backward_bubble(4, 2), "micro_batches"),
        (lambda: pipeline.split_backward_bubble(0, 2), "stages"),
        (lambda: pipeline.split_backward_bubble(3, 6, schedule="dualpipe"), "even"),
        (lambda: pipeline.split_backward_bubble(4, 8, schedule="zb-h2"), "schedule"),
        (lambda: pipeline.split_backward_bubble(4, 8, weight_grad_time=0), "weight_grad_time"),
        (lambda: pipeline.split_backward_bubble(4, 8, schedule="dualpipe", overlapped_time=-1), "overlapped_time"),
    ],
)
def test_bad_arguments_name_the_parameter(call, name):
    with pytest.raises(ValueError, match=name):
        call()


@given(st.integers(1, 32), st.integers(0, 64), TIMES, TIMES, TIMES)
def test_1f1b_agrees_with_the_closed_form_and_zb_h1_saves_two_w_per_stage(p, extra, f, b, w):
    m = p + extra
    one = pipeline.split_backward_bubble(p, m, schedule="1f1b", forward_time=f, input_grad_time=b,
                                         weight_grad_time=w)
    zb = pipeline.split_backward_bubble(p, m, forward_time=f, input_grad_time=b, weight_grad_time=w)
    # however the backward is split, 1F1B idles (p − 1)(F + B + W): the bubble of pipeline.bubble
    assert one.of_total == pytest.approx(pipeline.bubble(p, m).of_total)
    # ZB-H1 moves the W passes into the cool-down: 2(p − 1)W less idle time, never below zero
    assert zb.idle == pytest.approx(max(0.0, one.idle - 2 * (p - 1) * w))
    assert 0.0 <= zb.of_total <= one.of_total < 1.0
    assert zb.work == pytest.approx(one.work)


@given(st.integers(1, 16), st.integers(0, 64), TIMES, TIMES, TIMES)
def test_dualpipe_with_its_pair_time_equal_to_the_sum(half, extra, f, b, w):
    p = 2 * half
    d = pipeline.split_backward_bubble(p, p + extra, schedule="dualpipe", forward_time=f, input_grad_time=b,
                                       weight_grad_time=w)
    assert d.idle == pytest.approx(max(0.0, (p / 2 - 1) * (f + 2 * b - w)))
    if p == 2:
        assert d.idle == 0.0
