"""§9.6.5 determinism: orders of summation on real float32 gradients, ULPs, error bounds, two training runs, figure."""

from __future__ import annotations

import math
from fractions import Fraction

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from clusterlab import viz
from clusterlab.communication.ring import simulate_all_reduce
from clusterlab.faults import determinism as dt
from clusterlab.faults import divergence as dv

FIXED = ("ring", "tree", "pairwise", "sequential")

#: finite float32 gradients, N = 2 … 16 ranks × L = 1 … 12 elements, |x| ≤ 2⁹⁹ (< 1e30)
_values = st.floats(-2.0**99, 2.0**99, allow_nan=False, allow_infinity=False, width=32)
gradients = st.tuples(st.integers(2, 16), st.integers(1, 12)).flatmap(
    lambda shape: hnp.arrays(np.float32, shape, elements=_values)
)


def _exact(g: np.ndarray) -> list[Fraction]:
    """The exact real sums per element (rational arithmetic, no rounding)."""
    return [sum((Fraction(float(v)) for v in g[:, i]), Fraction(0)) for i in range(g.shape[1])]


# ------------------------------------------------------------------------------------------------------------
# bits and ULPs
# ------------------------------------------------------------------------------------------------------------
def test_hex_and_neighbours():
    assert dt.float32_hex(1.0) == "0x3f800000"
    assert dt.float32_hex(-2.0) == "0xc0000000"
    one = np.float32(1)
    assert int(dt.ulp_distance(one, np.nextafter(one, np.float32(2)))) == 1
    assert int(dt.ulp_distance(np.float32(0.0), np.float32(-0.0))) == 1
    tiny = np.float32(1e-45)  # smallest subnormal: −tiny, −0, +0, +tiny
    assert int(dt.ulp_distance(tiny, -tiny)) == 3
    assert int(dt.ulp_distance(np.float64(1), np.nextafter(1.0, 2.0))) == 1


@given(st.floats(width=32, allow_nan=False, allow_infinity=False),
       st.floats(width=32, allow_nan=False, allow_infinity=False))
def test_ulp_distance_is_symmetric_and_zero_iff_bit_identical(a, b):
    x, y = np.float32(a), np.float32(b)
    d = int(dt.ulp_distance(x, y))
    assert d == int(dt.ulp_distance(y, x))
    assert (d == 0) == (x.view(np.uint32) == y.view(np.uint32))
    if x != 0 and np.isfinite(np.nextafter(x, np.float32(np.inf))):
        assert int(dt.ulp_distance(x, np.nextafter(x, np.float32(np.inf)))) == 1  # neighbours are 1 apart


# ------------------------------------------------------------------------------------------------------------
# orders
# ------------------------------------------------------------------------------------------------------------
def test_ring_order_is_read_from_the_simulator():
    assert dt.ring_order(4) == ((0, 1, 2, 3), (1, 2, 3, 0), (2, 3, 0, 1), (3, 0, 1, 2))
    g = dt.sample_gradients(5, 23, seed=3)
    bounds = simulate_all_reduce(g).bounds
    by_hand = np.empty(23, dtype=np.float32)
    for c, order in enumerate(dt.ring_order(5)):
        acc = g[order[0], bounds[c] : bounds[c + 1]].copy()
        for r in order[1:]:
            acc += g[r, bounds[c] : bounds[c + 1]]
        by_hand[bounds[c] : bounds[c + 1]] = acc
    np.testing.assert_array_equal(dt.reduce_gradients(g, "ring").view(np.uint32), by_hand.view(np.uint32))


def test_orders_differ_in_the_last_bits_on_real_gradients():
    c = dt.compare_orders(dt.sample_gradients(8, 4096), FIXED)
    for a, b in (("ring", "tree"), ("ring", "pairwise"), ("tree", "pairwise")):
        assert 0.2 < c.differing(a, b) < 0.9
        assert c.max_ulp(a, b) >= 1
    assert c.hex("ring").startswith("0x") and len(c.hex("ring")) == 10


@settings(max_examples=40)
@given(gradients, st.sampled_from(FIXED))
def test_fixed_order_sums_are_bit_identical_across_runs(g, order):
    runs = dt.repeat_runs(g, order, runs=3)
    assert runs.identical and runs.max_ulp == 0 and runs.distinct == 1


def test_arrival_order_is_not_reproducible():
    runs = dt.repeat_runs(dt.sample_gradients(8, 1024), "arrival", runs=5)
    assert not runs.identical and runs.max_ulp >= 1
    same_seed = dt.repeat_runs(dt.sample_gradients(8, 1024), "arrival", runs=2, seed=7)
    assert dt.reduce_gradients(dt.sample_gradients(8, 1024), "arrival", seed=7).tobytes() == same_seed.sums[0].tobytes()


@settings(max_examples=60)
@given(gradients, st.sampled_from(dt.ORDERS), st.integers(0, 50))
def test_every_order_is_within_the_recursive_summation_bound(g, order, seed):
    n = g.shape[0]
    got = dt.reduce_gradients(g, order, seed=seed)
    bound = dt.error_bound(g)
    exact = _exact(g)
    u = 2.0**-24
    for i in range(g.shape[1]):
        err = abs(Fraction(float(got[i])) - exact[i])
        assert err <= Fraction(float(bound[i])) * (1 + 1e-12)
        assert float(bound[i]) <= n * u * float(np.abs(g[:, i].astype(np.float64)).sum()) * (1 + 1e-12)


@settings(max_examples=60)
@given(gradients)
def test_exact_sum_is_the_exactly_rounded_sum(g):
    exact = _exact(g)
    got = dt.exact_sum(g)
    for i, s in enumerate(exact):
        f = got[i]
        neighbours = (np.nextafter(f, np.float32(-np.inf)), np.nextafter(f, np.float32(np.inf)))
        err = abs(Fraction(float(f)) - s)
        assert all(err <= abs(Fraction(float(v)) - s) for v in neighbours)


@settings(max_examples=30)
@given(st.integers(2, 16), st.integers(1, 300), st.integers(0, 10_000), st.sampled_from(FIXED))
def test_float64_accumulation_error_at_most_float32s(n, length, seed, order):
    g = dt.sample_gradients(n, length, seed=seed)
    exact = np.array([float(s) for s in _exact(g)])
    e32 = np.abs(dt.reduce_gradients(g, order).astype(np.float64) - exact)
    e64 = np.abs(dt.reduce_gradients(g, order, accumulate="float64").astype(np.float64) - exact)
    assert np.all(e64 <= e32)


def test_float64_accumulation_shrinks_but_does_not_remove_the_difference():
    sweep = dt.order_sweep(range(2, 17), length=1024)
    assert np.all(sweep.max_ulp("ring", "tree", "float64") <= sweep.max_ulp("ring", "tree"))
    assert sweep.max_ulp("ring", "tree")[2:].min() >= 1
    spread = dt.compare_orders(dt.sample_gradients(16, 1024, spread_bits=30), accumulate="float64")
    assert np.count_nonzero(spread.wide_ulp("ring", "tree")) > 0  # the float64 accumulators still differ
    ex = dt.rounding_example()
    assert ex.ulp == 1 and ex.hexes == ("0x3f800001", "0x3f800000")
    assert ex.sums[0] == ex.exact and ex.wide[0] != ex.wide[1]


def test_exactness_reference_agrees_with_fsum_on_easy_cases():
    g = np.array([[1.0, 0.1], [2.0, 0.2], [3.0, 0.3]], dtype=np.float32)
    expected = [np.float32(math.fsum(float(v) for v in g[:, i])) for i in range(2)]
    np.testing.assert_array_equal(dt.exact_sum(g), expected)


# ------------------------------------------------------------------------------------------------------------
# bad input
# ------------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: dt.reduce_gradients(np.ones((1, 4)), "ring"), "ranks"),
        (lambda: dt.reduce_gradients(np.ones(4), "ring"), "gradients"),
        (lambda: dt.reduce_gradients([[1.0, np.nan], [1.0, 2.0]], "ring"), "gradients"),
        (lambda: dt.reduce_gradients(np.ones((2, 4)), "butterfly"), "order"),
        (lambda: dt.reduce_gradients(np.ones((2, 4)), "ring", accumulate="float16"), "accumulate"),
        (lambda: dt.reduce_gradients(np.ones((2, 4)), "arrival", seed=-1), "seed"),
        (lambda: dt.sample_gradients(1, 4), "ranks"),
        (lambda: dt.sample_gradients(2, 0), "length"),
        (lambda: dt.sample_gradients(2, 4, spread_bits=61), "spread_bits"),
        (lambda: dt.ring_order(1), "ranks"),
        (lambda: dt.compare_orders(np.ones((2, 4)), ("ring", "ring")), "orders"),
        (lambda: dt.repeat_runs(np.ones((2, 4)), "ring", runs=1), "runs"),
        (lambda: dt.order_sweep((1, 2)), "ranks"),
        (lambda: dt.error_bound(np.ones((2, 4)), additions=0), "additions"),
        (lambda: dt.ulp_distance(np.float32(1), np.float64(1)), "float32"),
        (lambda: dv.training_divergence(1), "ranks"),
        (lambda: dv.training_divergence(2, 0), "steps"),
        (lambda: dv.training_divergence(2, 1, orders=("ring",)), "orders"),
        (lambda: dv.training_divergence(2, 1, learning_rate=0), "learning_rate"),
    ],
)
def test_bad_input_names_the_parameter(call, match):
    with pytest.raises(ValueError, match=match):
        call()


# ------------------------------------------------------------------------------------------------------------
# two training runs
# ------------------------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def run() -> dv.TrainingDivergence:
    return dv.training_divergence(8, 60)


def test_same_order_trains_bit_identically():
    same = dv.training_divergence(4, 20, orders=("ring", "ring"))
    assert same.first_divergent_step is None
    assert np.all(same.max_param_diff == 0) and np.all(same.loss_diff == 0)


def test_different_orders_drift_apart(run):
    assert run.first_divergent_step == 1
    assert run.max_param_diff[0] == 0 and run.differing_params[0] == 0
    assert run.differing_params[-1] > 2 * run.differing_params[1]
    assert run.max_param_diff[-1] > run.max_param_diff[1]
    assert 0 < run.loss_diff[1:].max() < 1e-6  # the losses still agree to many digits
    assert run.loss[0, -1] < run.loss[0, 0]  # and the model learns


# ------------------------------------------------------------------------------------------------------------
# figure
# ------------------------------------------------------------------------------------------------------------
def test_determinism_figure_draws_the_model(run, no_leak, strict_warnings):
    sweep = dt.order_sweep(range(2, 9), length=256)
    fig = viz.determinism_figure(sweep, run)
    fig.canvas.draw()
    ax_l, ax_r = fig.axes
    lines = {ln.get_label(): ln for ln in ax_l.get_lines()}
    (biggest,) = [ln for label, ln in lines.items() if label.startswith("最大（float32")]
    np.testing.assert_array_equal(biggest.get_ydata(), sweep.max_ulp("ring", "tree"))
    (param,) = [ln for ln in ax_r.get_lines() if "参数" in ln.get_label()]
    np.testing.assert_array_equal(param.get_ydata(), run.max_param_diff[run.max_param_diff > 0])
    plt.close(fig)


def test_determinism_figure_refuses_bad_input(run):
    with pytest.raises(ValueError, match="sweep"):
        viz.determinism_figure("sweep", run)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="pair"):
        viz.determinism_figure(dt.order_sweep((2, 3), length=8), run, pair=("ring", "arrival"))
