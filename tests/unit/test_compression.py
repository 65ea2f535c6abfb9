"""Compressors, error feedback, the compressed training run and ZeRO++ volumes of §9.6.2."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from clusterlab.communication import compression

vectors = arrays(np.float64, st.integers(1, 200), elements=st.floats(-1e3, 1e3))


@settings(max_examples=80, deadline=None)
@given(vectors)
def test_int8_round_trip_within_half_a_step(x):
    c = compression.compress(x, "int8")
    step = np.max(np.abs(x)) / 127 if np.max(np.abs(x)) > 0 else 1.0
    assert np.all(np.abs(c.decoded - x) <= step / 2 * (1 + 1e-9) + 1e-300)
    assert c.nbytes == x.size + 4


@settings(max_examples=60, deadline=None)
@given(st.lists(arrays(np.float64, 50, elements=st.floats(-1e3, 1e3)), min_size=1, max_size=20),
       st.sampled_from(["sign", "topk"]))
def test_error_feedback_residual_stays_bounded(grads, kind):
    e = np.zeros(50)
    for g in grads:
        p = g + e
        _, e = compression.error_feedback_step(g, e, kind, ratio=0.1)
        assert np.linalg.norm(e) <= np.linalg.norm(p) * (1 + 1e-9) + 1e-9


def test_bytes_per_kind():
    x = np.linspace(-1, 1, 1000)
    assert compression.compress(x, "fp32").nbytes == 4000
    assert compression.compress(x, "bf16").nbytes == 2000
    assert compression.compress(x, "sign").nbytes == 125 + 4
    assert compression.compress(x, "topk", ratio=0.01).nbytes == 80
    assert compression.bytes_per_value("topk", ratio=0.01) == pytest.approx(0.08)


def test_bf16_keeps_eight_significant_bits():
    x = np.array([1.0, 1 + 2**-9, 3.14159])
    y = compression.compress(x, "bf16").decoded
    assert y[0] == 1.0 and y[1] == 1.0 and abs(y[2] - 3.140625) < 1e-12


def test_training_run_shows_the_point_and_reproduces():
    base = compression.train("fp32", steps=150)
    topk = compression.train("topk", steps=150)
    topk_ef = compression.train("topk", error_feedback=True, steps=150)
    assert topk.losses[-1] - base.losses[-1] > 3 * (topk_ef.losses[-1] - base.losses[-1])
    assert topk_ef.bytes_sent < base.bytes_sent / 40
    again = compression.train("topk", error_feedback=True, steps=150)
    assert np.array_equal(again.losses, topk_ef.losses)


def test_zeropp_volume_matches_the_paper():
    base = compression.zeropp_volume(7e9, 8)
    full = compression.zeropp_volume(7e9, 8, qwz=True, hpz=True, qgz=True)
    m = 14e9
    assert base.cross_node == pytest.approx(3 * m) and full.cross_node == pytest.approx(0.75 * m)
    assert full.intra_node == pytest.approx(m) and full.secondary_bytes == pytest.approx(m / 8)


def test_ddp_default_dtype_is_the_gradient_dtype():
    assert compression.ddp_allreduce_bytes(7e9) == 28e9
    assert compression.ddp_allreduce_bytes(7e9, hook="bf16") == 14e9


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: compression.compress(np.ones(3), "fp8"), "kind"),
        (lambda: compression.compress(np.ones(3), "topk", ratio=2), "ratio"),
        (lambda: compression.compress(np.array([]), "fp32"), "x"),
        (lambda: compression.train("fp32", workers=0), "workers"),
        (lambda: compression.train("fp32", batch=10_000), "batch"),
        (lambda: compression.zeropp_volume(-1, 8), "params"),
        (lambda: compression.ddp_allreduce_bytes(1, hook="int8"), "hook"),
    ],
)
def test_bad_input_names_the_parameter(call, name):
    with pytest.raises(ValueError, match=name):
        call()


@pytest.mark.parametrize("x", [[5e-324, 0.0], [1e-310, -3e-311], [2.2250738585072014e-308, 1e-320]])
def test_int8_handles_subnormal_peaks(x):
    v = np.array(x)
    c = compression.compress(v, "int8")
    assert np.all(np.isfinite(c.decoded))
    assert np.all(np.abs(c.decoded - v) <= np.max(np.abs(v)) / 127 / 2 * (1 + 1e-9) + 5e-324)
