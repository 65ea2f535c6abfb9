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


def test_overlap_threshold_page_hardware():
    t = overlap.overlap_threshold(150e12, 50e9, 4, ranks=64)
    assert t.tokens == pytest.approx(4 * 150e12 / (2 * 50e9) * 63 / 64)  # 5906.25
    assert overlap.overlap_threshold(150e12, 50e9, 4).tokens == pytest.approx(6000.0)  # C·b/(2β)
    assert overlap.overlap_threshold(150e12, 50e9, 2, ranks=64).tokens == pytest.approx(t.tokens / 2)
    assert t.ratio(t.tokens) == pytest.approx(1.0) and t.ratio(0) == 0.0


def test_overlap_threshold_matches_the_simulator():
    """At B* tokens the backward lasts exactly as long as one all-reduce of all gradients (α = 0)."""
    t = overlap.overlap_threshold(150e12, 50e9, 4, ranks=8)
    params = [3e6, 1e6, 4e6, 4e6]
    backward = [4 * p * t.tokens / 150e12 for p in params]
    s = overlap.simulate_ddp(backward, [4 * p for p in params], 8, 0.0, 50e9, bucket_cap=math.inf,
                             first_bucket_cap=None)
    assert s.communication == pytest.approx(sum(backward))


@settings(max_examples=80, deadline=None)
@given(st.floats(1e9, 1e16), st.floats(1e6, 1e13), st.floats(0.1, 8), st.integers(2, 4096), st.floats(0.5, 2))
def test_overlap_threshold_properties(flops, beta, b, ranks, k):
    t = overlap.overlap_threshold(flops, beta, b, ranks=ranks)
    limit = overlap.overlap_threshold(flops, beta, b)
    assert t.tokens <= limit.tokens and t.tokens == pytest.approx(limit.tokens * (ranks - 1) / ranks)
    assert t.tokens * t.compute_per_token == pytest.approx(t.comm_per_param)  # equal times at B*
    assert overlap.overlap_threshold(k * flops, beta, b, ranks=ranks).tokens == pytest.approx(k * t.tokens)
    assert overlap.overlap_threshold(flops, k * beta, b, ranks=ranks).tokens == pytest.approx(t.tokens / k)
    assert overlap.overlap_threshold(flops, beta, k * b, ranks=ranks).tokens == pytest.approx(k * t.tokens)
    assert t.ratio(2 * t.tokens) == pytest.approx(2.0)


@pytest.mark.parametrize(("args", "kwargs", "name"), [
    ((0, 50e9, 4), {}, "flops"), ((150e12, -1, 4), {}, "bandwidth"), ((150e12, 50e9, 0), {}, "bytes_per_param"),
    ((150e12, 50e9, 4), {"ranks": 1}, "ranks"), ((150e12, 50e9, 4), {"backward_flops": 0}, "backward_flops"),
    ((float("nan"), 50e9, 4), {}, "flops"), ((150e12, 50e9, True), {}, "bytes_per_param"),
])
def test_overlap_threshold_rejects_bad_input(args, kwargs, name):
    with pytest.raises(ValueError, match=name):
        overlap.overlap_threshold(*args, **kwargs)
    with pytest.raises(ValueError, match="tokens"):
        overlap.overlap_threshold(150e12, 50e9, 4).ratio(-1)
