import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from clusterlab import collectives as C

sizes = st.floats(min_value=0, max_value=1e12, allow_nan=False)
ranks = st.integers(min_value=2, max_value=4096)


def test_seed_example_961():
    # 7B bf16 gradients, 8 ranks, IB 400 Gb/s = 50 GB/s per direction (seed §9.6.1, Ex. 9.6.1)
    assert C.send_volume("all_reduce", 14e9, 8) == pytest.approx(24.5e9)
    assert C.send_volume("reduce_scatter", 14e9, 8) == pytest.approx(12.25e9)
    assert C.alpha_beta_time("all_reduce", 14e9, 8, 0, 50e9) == pytest.approx(0.49)
    assert C.alpha_beta_time("all_reduce", 14e9, 8, 0, 300e9) == pytest.approx(0.0816667, rel=1e-5)


def test_naive_root_load_cluster_seed_section1():
    t = C.traffic("all_reduce", 14e9, 8, algorithm="naive")
    assert t.recv_max == pytest.approx(98e9) and t.send_max == pytest.approx(98e9)
    assert t.critical == pytest.approx(196e9)


@given(sizes, ranks)
def test_ring_allreduce_is_reduce_scatter_plus_all_gather(s, n):
    ar = C.traffic("all_reduce", s, n)
    rs = C.traffic("reduce_scatter", s, n)
    ag = C.traffic("all_gather", s, n)
    assert math.isclose(ar.send_max, rs.send_max + ag.send_max, rel_tol=1e-12, abs_tol=1e-6)
    assert ar.steps == rs.steps + ag.steps == 2 * (n - 1)


@given(sizes, ranks)
def test_ring_volume_matches_busbw_factor(s, n):
    # a bandwidth-optimal algorithm sends busbw_factor · S per rank (nccl-tests definition)
    for op in ("all_reduce", "reduce_scatter", "all_gather", "all_to_all", "broadcast", "reduce"):
        assert math.isclose(C.send_volume(op, s, n), C.busbw_factor(op, n) * s, rel_tol=1e-12, abs_tol=1e-6)


@given(st.floats(min_value=1, max_value=1e12), ranks)
def test_ring_beats_naive_bandwidth_for_all_reduce(s, n):
    assert C.send_volume("all_reduce", s, n) < 2 * s <= C.send_volume("all_reduce", s, n, "naive") * 2
    t_ring = C.alpha_beta_time("all_reduce", s, n, 0, 1e9)
    t_naive = C.alpha_beta_time("all_reduce", s, n, 0, 1e9, "naive")
    assert t_naive / t_ring == pytest.approx(n, rel=1e-9)  # 2S(N-1) vs 2S(N-1)/N


@given(sizes, ranks, st.floats(0, 1e-3), st.floats(1e6, 1e12))
def test_alpha_beta_is_steps_times_alpha_plus_volume_over_beta(s, n, a, b):
    t = C.alpha_beta_time("all_reduce", s, n, a, b)
    assert math.isclose(t, 2 * (n - 1) * a + 2 * s * (n - 1) / n / b, rel_tol=1e-12, abs_tol=1e-15)


@given(sizes, ranks)
def test_naive_root_link_is_the_bottleneck(s, n):
    # through a root, the root's link carries at least as much as any rank sends or receives
    for op in C.OPS:
        t = C.traffic(op, s, n, "naive")
        assert t.critical >= max(t.send_max, t.recv_max) * (1 - 1e-12)
        assert t.total >= t.send_max * (1 - 1e-12)


def test_busbw_factors_nccl_tests():
    assert C.busbw_factor("all_reduce", 8) == 1.75
    assert C.busbw_factor("all_gather", 8) == 0.875
    assert C.busbw_factor("broadcast", 8) == 1.0
    assert C.busbw_factor("send_recv", 2) == 1.0


def test_steps():
    assert C.steps("all_reduce", 8) == 14
    assert C.steps("all_reduce", 8, "naive") == 2


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"op": "allreduce"}, "op must be one of"),
        ({"ranks": 1}, "ranks"),
        ({"size": -1.0}, "size"),
        ({"algorithm": "tree"}, "algorithm"),
        ({"latency": -1e-6}, "latency"),
        ({"bandwidth": 0.0}, "bandwidth"),
    ],
)
def test_bad_input(kwargs, match):
    args = {"op": "all_reduce", "size": 1e9, "ranks": 8, "latency": 5e-6, "bandwidth": 25e9, "algorithm": "ring"}
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        C.alpha_beta_time(**args)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(C.OPS), st.floats(1.0, 1e12), st.integers(2, 256), st.sampled_from(C.ALGORITHMS))
def test_rank_traffic_agrees_with_traffic(op, size, n, algorithm):
    rt = C.rank_traffic(op, size, n, algorithm)
    t = C.traffic(op, size, n, algorithm)
    assert len(rt.sent) == len(rt.received) == n
    assert max(rt.sent) == pytest.approx(t.send_max)
    assert max(rt.received) == pytest.approx(t.recv_max)
    assert sum(rt.sent) == pytest.approx(t.total)
    assert sum(rt.sent) == pytest.approx(sum(rt.received))  # every byte sent is received


def test_rank_traffic_naive_root():
    rt = C.rank_traffic("all_reduce", 2e9, 4, "naive")
    assert rt.sent == (6e9, 2e9, 2e9, 2e9) and rt.received == rt.sent
    with pytest.raises(ValueError, match="algorithm"):
        C.rank_traffic("all_reduce", 1.0, 4, "tree")
