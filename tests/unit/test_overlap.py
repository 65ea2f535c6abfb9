"""Overlap model and the two-stream simulator of §9.6.2: seed numbers, invariants (hypothesis), validation."""

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from clusterlab.communication import collectives, overlap

layers = st.lists(st.tuples(st.floats(0, 1e-2), st.floats(0, 1e8)), min_size=1, max_size=30)


def test_example_962_and_self_test_q2():
    ex = overlap.overlap_step(20.0, 8.0, 0.6)
    assert (ex.no_overlap, ex.full_overlap) == (28.0, 20.0)
    assert ex.step == pytest.approx(23.2)
    assert ex.efficiency_no_overlap == pytest.approx(20 / 28)
    assert ex.efficiency == pytest.approx(20 / 23.2)
    q2 = overlap.overlap_from_exposed(30.0, 12.0, 4.8)
    assert (q2.hidden, q2.ratio, q2.step, q2.no_overlap) == pytest.approx((7.2, 0.6, 34.8, 42.0))


def test_hidden_never_exceeds_compute():
    s = overlap.overlap_step(5.0, 8.0, 1.0)
    assert s.step == 8.0 and s.exposed == 3.0


@settings(max_examples=60, deadline=None)
@given(layers, st.floats(1e3, 1e9), st.integers(2, 64))
def test_ddp_invariants(data, cap, ranks):
    bt, gb = [t for t, _ in data], [b for _, b in data]
    s = overlap.simulate_ddp(bt, gb, ranks, 5e-6, 50e9, bucket_cap=cap, forward_time=1e-3)
    assert s.exposed <= s.communication + 1e-12
    assert s.step >= s.compute - 1e-12 and s.exposed >= -1e-12
    assert sorted(i for b in s.buckets for i in b.layers) == list(range(len(bt)))
    ends = [b.end for b in s.buckets]
    assert ends == sorted(ends)  # the communication stream serialises
    assert all(b.start >= b.ready - 1e-15 for b in s.buckets)
    one = overlap.simulate_ddp(bt, gb, ranks, 5e-6, 50e9, bucket_cap=math.inf, first_bucket_cap=None)
    assert len(one.buckets) == 1 and one.exposed == pytest.approx(one.communication, abs=1e-12)
    none = overlap.simulate_ddp(bt, [0.0] * len(bt), ranks, 5e-6, 50e9, bucket_cap=cap)
    assert none.step == pytest.approx(none.compute, abs=1e-15) and none.exposed == pytest.approx(0.0, abs=1e-15)


def test_bucket_costs_use_alpha_beta():
    s = overlap.simulate_ddp([1e-3] * 4, [1e6] * 4, 8, 1e-5, 1e10, bucket_cap=2e6, first_bucket_cap=None)
    assert [b.layers for b in s.buckets] == [(3, 2), (1, 0)]
    t = collectives.alpha_beta_time("all_reduce", 2e6, 8, 1e-5, 1e10)
    assert s.communication == pytest.approx(2 * t)


def test_sweep_has_an_interior_optimum():
    params = [3, 1, 4, 4] * 24
    bt = [4 * p * 1024**2 * 8192 / 150e12 for p in params]
    gb = [4 * p * 1024**2 for p in params]
    caps = [2**20 * 2 ** (k / 2) for k in range(0, 22)]
    sw = overlap.bucket_sweep(bt, gb, 64, 5e-6, 50e9, caps)
    assert 0 < sw.best < len(caps) - 1
    assert sw.best_step < sw.steps[0] and sw.best_step < sw.steps[-1]


@settings(max_examples=40, deadline=None)
@given(layers, st.integers(0, 5))
def test_prefetch_invariants(data, depth):
    ft, pb = [t for t, _ in data], [b for _, b in data]
    s = overlap.simulate_prefetch(ft, pb, 8, 5e-6, 1e10, depth)
    assert s.exposed <= s.communication + 1e-12 and s.exposed >= -1e-12
    assert s.extra_bytes >= 0
    deeper = overlap.simulate_prefetch(ft, pb, 8, 5e-6, 1e10, depth + 1)
    assert deeper.step <= s.step + 1e-12 and deeper.extra_bytes >= s.extra_bytes


def test_no_prefetch_is_serial():
    s = overlap.simulate_prefetch([1.0] * 3, [1e9] * 3, 8, 0.0, 1e9, 0)
    ag = collectives.alpha_beta_time("all_gather", 1e9, 8, 0.0, 1e9)
    assert s.step == pytest.approx(3 * (1.0 + ag))


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: overlap.overlap_step(-1, 1, 0.5), "compute_time"),
        (lambda: overlap.overlap_step(1, 1, 1.5), "overlap_ratio"),
        (lambda: overlap.overlap_from_exposed(1, 2, 3), "exposed_time"),
        (lambda: overlap.simulate_ddp([1], [1, 2], 2, 0, 1), "backward_times"),
        (lambda: overlap.simulate_ddp([1], [1], 1, 0, 1), "ranks"),
        (lambda: overlap.simulate_ddp([1], [1], 2, 0, 1, bucket_cap=0), "bucket_cap"),
        (lambda: overlap.simulate_prefetch([1], [1], 2, 0, 1, -1), "depth"),
        (lambda: overlap.bucket_sweep([1], [1], 2, 0, 1, []), "caps"),
        (lambda: overlap.run_streams([overlap.Task("x", "gpu", 1.0)]), "stream"),
    ],
)
def test_bad_input_names_the_parameter(call, name):
    with pytest.raises(ValueError, match=name):
        call()
