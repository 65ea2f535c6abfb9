import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from clusterlab.faults import reliability as rel
from clusterlab.faults import slowlink


def test_seed_table_and_llama3():
    seed = rel.failure_source("seed").rate
    assert rel.job_mtbf(8, seed) / 3600 == pytest.approx(41666.7, rel=1e-4)
    assert rel.job_mtbf(16384, seed) / 3600 == pytest.approx(20.345, rel=1e-3)
    llama = rel.failure_source("llama3").rate
    assert llama == pytest.approx(1.9733e-5, rel=1e-3)
    assert rel.job_mtbf(16384, llama) / 3600 == pytest.approx(3.093, rel=1e-3)
    assert llama / seed == pytest.approx(6.58, rel=1e-2)


def test_rsc_projection_reproduces_the_paper():
    assert rel.job_mtbf(16384, rel.failure_source("rsc1").rate) / 3600 == pytest.approx(1.80, abs=0.01)
    assert rel.job_mtbf(131072, rel.failure_source("rsc1").rate) / 3600 == pytest.approx(0.225, abs=0.001)


def test_every_source_is_documented():
    for src in rel.FAILURE_DATA:
        assert src.source and src.derivation and src.rate > 0
    with pytest.raises(ValueError, match="key"):
        rel.failure_source("nope")


@given(st.integers(1, 10**6), st.floats(1e-8, 1e-3))
def test_mtbf_scales_inversely(g, lam):
    assert rel.job_mtbf(g, lam) * g == pytest.approx(rel.job_mtbf(1, lam))


def test_one_slow_link_slows_the_whole_ring():
    fast = slowlink.ring_with_slow_link(14e9, [25e9] * 8)
    slow = slowlink.ring_with_slow_link(14e9, [25e9] * 7 + [2.5e9])
    assert slow.total_time == pytest.approx(10 * fast.total_time)
    assert slow.slowest_link == 7
    idle = slow.idle_fraction()
    assert idle[7] == pytest.approx(0) and np.all(idle[:7] == pytest.approx(0.9))


def test_goodput_parts_add_up():
    g = rel.goodput(898, 56, 7200, 180)
    assert g.useful + g.save + g.lost_work + g.recovery == pytest.approx(1)
    assert g.recovery == pytest.approx(180 / 7200)
    dead = rel.goodput(7200, 60, 600, 600)
    assert dead.useful == 0


def test_bad_input():
    with pytest.raises(ValueError, match="components"):
        rel.job_mtbf(0, 1e-5)
    with pytest.raises(ValueError, match="bandwidths"):
        slowlink.ring_with_slow_link(1e9, [1e9])
    with pytest.raises(ValueError, match=r"bandwidths\[1\]"):
        slowlink.ring_with_slow_link(1e9, [1e9, 0])


def test_scale_cost_matches_its_parts() -> None:
    from clusterlab import units
    from clusterlab.faults import checkpoint

    lam = rel.failure_source("llama3").rate
    c = rel.scale_cost(16384, lam, 56.0, 600.0)
    m = rel.job_mtbf(16384, lam)
    assert c.mtbf == m
    assert c.young == checkpoint.young_interval(56.0, m)
    assert c.daly == checkpoint.daly_interval(56.0, m)
    assert c.first_order == checkpoint.optimal_wasted_fraction(56.0, m, 600.0)
    assert c.exact == checkpoint.expected_wasted_fraction(c.daly, 56.0, m, 600.0)
    assert c.failures_per_day == units.DAY / m
    assert c.lost_gpu_hours_per_day == c.exact * 16384 * 24
    with pytest.raises(ValueError, match="gpus"):
        rel.scale_cost(0, lam, 56.0)
    with pytest.raises(ValueError, match="rate_per_hour"):
        rel.scale_cost(8, 0.0, 56.0)
