import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from clusterlab.faults import checkpoint as ck

STATE = 112e9  # 7B params × 16 B (mixed-precision Adam)


def test_example_963_save_times():
    sharded = ck.save_plan("sharded", STATE, 128, 2e9)
    assert sharded.per_rank_bytes == pytest.approx(0.875e9)
    assert sharded.save_time == pytest.approx(56)
    every = ck.save_plan("full_every_rank", STATE, 128, 2e9)
    assert every.total_bytes == pytest.approx(14336e9)
    assert every.save_time == pytest.approx(7168)  # ≈ 2 h
    rank0 = ck.save_plan("full_rank0", STATE, 128, 2e9, writer_bandwidth=1e9)
    assert rank0.total_bytes == STATE and rank0.save_time == pytest.approx(112)


def test_async_blocks_only_for_the_host_copy():
    p = ck.save_plan("async", STATE, 128, 2e9, host_copy_bandwidth=20e9)
    assert p.blocking_time == pytest.approx(0.875e9 / 20e9)
    assert p.background_time == pytest.approx(56)
    assert p.extra_host_bytes == pytest.approx(0.875e9)


def test_recompute_on_load_skips_the_bf16_copy():
    p = ck.save_plan("recompute_on_load", STATE, 128, 2e9)
    assert p.total_bytes == pytest.approx(98e9)  # 14 of 16 bytes per parameter


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [({"strategy": "incremental"}, "strategy"), ({"ranks": 0}, "ranks"), ({"storage_bandwidth": 0}, "storage"),
     ({"state_bytes": -1}, "state_bytes"), ({"recomputable_fraction": 1.0}, "recomputable")],
)
def test_save_plan_bad_input(kwargs, match):
    args = {"strategy": "sharded", "state_bytes": STATE, "ranks": 8, "storage_bandwidth": 2e9}
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        ck.save_plan(**args)


def test_young_and_daly_on_the_seed_example():
    # δ = 56 s, f = 0.5/h → M = 2 h: Young ≈ 15.0 min, Daly ≈ 14.4 min (not the original's 5.3 h)
    assert ck.young_interval(56, 7200) / 60 == pytest.approx(14.9666, rel=1e-4)
    assert ck.daly_interval(56, 7200) / 60 == pytest.approx(14.3509, rel=1e-4)


@pytest.mark.parametrize(("mtbf_min", "expected_min"), [(24 * 60, 116.69), (6 * 60, 56.71), (15, 9.14)])
def test_daly_reproduces_his_examples(mtbf_min, expected_min):
    assert ck.daly_interval(300, mtbf_min * 60) / 60 == pytest.approx(expected_min, abs=0.01)


def test_daly_caps_at_mtbf():
    assert ck.daly_interval(500, 200) == 200


@given(st.floats(1, 3600), st.floats(3600, 1e7), st.floats(0, 3600))
def test_young_minimises_first_order_waste(d, m, r):
    t = ck.young_interval(d, m)
    w = ck.wasted_fraction(t, d, m, r)
    assert w <= ck.wasted_fraction(t * 1.1, d, m, r) and w <= ck.wasted_fraction(t / 1.1, d, m, r)
    assert w == pytest.approx(math.sqrt(2 * d / m) + r / m)


@given(st.floats(1, 600), st.floats(3600, 1e6), st.floats(0, 600))
def test_daly_is_close_to_the_exact_optimum(d, m, r):
    ts = np.linspace(ck.young_interval(d, m) * 0.5, ck.young_interval(d, m) * 1.5, 4001)
    exact = ts[np.argmin([ck.expected_wasted_fraction(t, d, m, r) for t in ts])]
    assert ck.daly_interval(d, m) == pytest.approx(exact, rel=2e-3)


@given(st.floats(1, 300), st.floats(36_000, 1e7), st.floats(0, 300))
def test_first_order_is_the_small_interval_limit(d, m, r):
    t = ck.young_interval(d, m)
    assert ck.expected_wasted_fraction(t, d, m, r) == pytest.approx(ck.wasted_fraction(t, d, m, r), rel=0.08)


def test_monte_carlo_matches_the_exact_model_and_finds_the_same_optimum():
    d, m, r = 56.0, 7200.0, 180.0
    intervals = [300, 600, 898, 1500, 3600]
    measured = []
    for t in intervals:
        res = ck.simulate_run(50 * 3600, t, d, m, r, runs=4000, seed=7)
        expected = ck.expected_wasted_fraction(t, d, m, r)
        assert abs(res.wasted_fraction - expected) < 4 * res.wasted_fraction_stderr + 1e-3
        measured.append(res.wasted_fraction)
    assert intervals[int(np.argmin(measured))] == 898  # the grid point nearest Young / Daly


def test_monte_carlo_without_failures_costs_only_saves():
    res = ck.simulate_run(3600, 600, 60, 1e12, runs=10, seed=0)
    assert np.all(res.failures == 0)
    # 6 intervals of work, 5 saves in between (the last interval needs none)
    assert res.wall == pytest.approx(np.full(10, 3600 + 5 * 60))


def test_monte_carlo_is_seeded():
    a = ck.simulate_run(7200, 900, 60, 3600, 60, runs=100, seed=3)
    b = ck.simulate_run(7200, 900, 60, 3600, 60, runs=100, seed=3)
    assert np.array_equal(a.wall, b.wall)


@settings(max_examples=20, deadline=None)
@given(st.floats(60, 3600), st.floats(0, 120), st.floats(1800, 36000), st.floats(0, 600))
def test_monte_carlo_never_beats_failure_free(t, d, m, r):
    res = ck.simulate_run(4 * 3600, t, d, m, r, runs=50, seed=1)
    assert np.all(res.wall >= 4 * 3600 - 1e-6)


@pytest.mark.parametrize(
    ("f", "args", "match"),
    [(ck.young_interval, (-1, 10), "save_time"), (ck.young_interval, (1, 0), "mtbf"),
     (ck.wasted_fraction, (0, 1, 10), "interval"), (ck.simulate_run, (10, 1, 1, 10, -1), "restart_time")],
)
def test_bad_input(f, args, match):
    with pytest.raises(ValueError, match=match):
        f(*args)


@settings(max_examples=15, deadline=None)
@given(st.floats(300, 3600), st.floats(0, 120), st.floats(1800, 36000), st.floats(0, 600), st.floats(1, 30))
def test_monte_carlo_mean_equals_the_exact_finite_run(t, d, m, r, hours):
    work = hours * 3600
    res = ck.simulate_run(work, t, d, m, r, runs=3000, seed=11)
    expected = ck.expected_wall_time(work, t, d, m, r)
    stderr = float(res.wall.std(ddof=1)) / math.sqrt(res.wall.size)
    assert abs(float(res.wall.mean()) - expected) < 5 * stderr + 1e-9 * expected


def test_exact_wall_time_without_failures():
    assert ck.expected_wall_time(3600, 600, 60, 1e15) == pytest.approx(3600 + 5 * 60)


def test_expected_waste_tends_to_one_instead_of_overflowing() -> None:
    from clusterlab.faults import checkpoint as ck
    w = ck.expected_wasted_fraction(1e6, 60.0, 1000.0)  # (T + δ)/M ≈ 1000: e^1000 is not a float
    assert 0.999 < w <= 1.0
    near = ck.expected_wasted_fraction(699.0 * 1000.0 - 60.0, 60.0, 1000.0)
    beyond = ck.expected_wasted_fraction(701.0 * 1000.0 - 60.0, 60.0, 1000.0)
    assert near <= beyond <= 1.0  # the two branches meet: the waste keeps growing with the interval
