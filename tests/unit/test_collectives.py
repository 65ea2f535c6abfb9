import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from clusterlab.communication import algorithms, schemes
from clusterlab.communication import collectives as C

sizes = st.floats(min_value=0, max_value=1e12, allow_nan=False)
ranks = st.integers(min_value=2, max_value=4096)


def test_seed_example_961():
    # 7B bf16 gradients, 8 ranks, IB 400 Gb/s = 50 GB/s per direction (seed §9.6.1, Ex. 9.6.1)
    assert C.send_volume("all_reduce", 14e9, 8) == pytest.approx(24.5e9)
    assert C.send_volume("reduce_scatter", 14e9, 8) == pytest.approx(12.25e9)
    assert C.cost("all_reduce", 14e9, 8, 5e-6, 50e9).bandwidth == pytest.approx(0.49)
    assert C.cost("all_reduce", 14e9, 8, 5e-6, 300e9).bandwidth == pytest.approx(0.0816667, rel=1e-5)


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
    t_ring = C.cost("all_reduce", s, n, 5e-6, 1e9).bandwidth
    t_naive = C.cost("all_reduce", s, n, 5e-6, 1e9, "naive").bandwidth
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
        ({"algorithm": "trie"}, "algorithm"),
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
@given(st.sampled_from(C.OPS), st.floats(1.0, 1e12), st.integers(2, 256), st.sampled_from(("ring", "naive")))
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
        C.rank_traffic("all_reduce", 1.0, 4, "trie")


# ---------------------------------------------------------------------------------------------------------------
# tree, halving-doubling, hierarchical, chooser
# ---------------------------------------------------------------------------------------------------------------
def test_tree_model():
    # 2⌈log2 N⌉α + 2S/β
    assert C.alpha_beta_time("all_reduce", 1e6, 1024, 5e-6, 25e9, "tree") == pytest.approx(20 * 5e-6 + 2e6 / 25e9)
    assert C.alpha_beta_time("all_reduce", 1e6, 1000, 5e-6, 25e9, "tree") == pytest.approx(20 * 5e-6 + 2e6 / 25e9)
    with pytest.raises(ValueError, match="modelled for op"):
        C.alpha_beta_time("broadcast", 1e6, 8, 5e-6, 25e9, "tree")


def test_halving_doubling_power_of_two_matches_ring_bandwidth():
    n, s = 64, 1e9
    hd = C.traffic("all_reduce", s, n, "halving_doubling")
    assert hd.send_max == pytest.approx(C.send_volume("all_reduce", s, n))
    assert hd.steps == 2 * 6
    t = C.alpha_beta_time("all_reduce", s, n, 5e-6, 25e9, "halving_doubling")
    assert t == pytest.approx(12 * 5e-6 + 2 * s * 63 / 64 / 25e9)


def test_halving_doubling_non_power_of_two_pays_extra():
    # N = 6: p = 4, two extra ranks hand over S and get S back: +2α + 2S/β
    t6 = C.alpha_beta_time("all_reduce", 1e9, 6, 1e-6, 1e10, "halving_doubling")
    t4 = C.alpha_beta_time("all_reduce", 1e9, 4, 1e-6, 1e10, "halving_doubling")
    assert t6 == pytest.approx(t4 + 2e-6 + 2e9 / 1e10)
    rs = C.traffic("reduce_scatter", 1e9, 8, "halving_doubling")
    assert rs.steps == 3 and rs.send_max == pytest.approx(1e9 * 7 / 8)


def test_hierarchical_inter_node_moves_s_over_g():
    s, n, g = 14e9, 1024, 8
    t = C.alpha_beta_time("all_reduce", s, n, 5e-6, 50e9, "hierarchical", ranks_per_node=g,
                          intra_latency=1e-6, intra_bandwidth=300e9)
    m = n // g
    intra = 2 * (g - 1) * 1e-6 + 2 * s * (g - 1) / (g * 300e9)
    inter = 2 * (m - 1) * 5e-6 + 2 * (s / g) * (m - 1) / (m * 50e9)
    assert t == pytest.approx(intra + inter)
    # much faster than a flat ring on the inter-node link, but not 8x slower than it either
    flat = C.alpha_beta_time("all_reduce", s, n, 5e-6, 50e9)
    assert t < flat


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({}, "needs ranks_per_node"),
        ({"ranks_per_node": 3}, "divide"),
        ({"ranks_per_node": 16}, "at least 2 nodes"),
        ({"ranks_per_node": 1}, "ranks_per_node must be"),
        ({"ranks_per_node": 8, "intra_bandwidth": 0}, "intra_bandwidth"),
    ],
)
def test_hierarchical_bad_input(kwargs, match):
    with pytest.raises(ValueError, match=match):
        C.alpha_beta_time("all_reduce", 1e9, 16, 1e-6, 1e10, "hierarchical", **kwargs)


def test_intra_parameters_only_for_hierarchical():
    with pytest.raises(ValueError, match="only used by algorithm='hierarchical'"):
        C.alpha_beta_time("all_reduce", 1e9, 16, 1e-6, 1e10, "ring", intra_bandwidth=1e11)
    with pytest.raises(ValueError, match="only used by"):
        C.traffic("all_reduce", 1e9, 16, "ring", ranks_per_node=8)


@given(st.integers(2, 4096), st.floats(1e-7, 1e-4), st.floats(1e8, 1e12))
def test_tree_ring_crossover_is_where_times_meet(n, a, b):
    s_star = C.tree_ring_crossover(n, a, b)
    if s_star == 0:
        assert C.alpha_beta_time("all_reduce", 1e6, n, a, b) <= C.alpha_beta_time("all_reduce", 1e6, n, a, b, "tree")
        return
    ring = C.alpha_beta_time("all_reduce", s_star, n, a, b)
    tree = C.alpha_beta_time("all_reduce", s_star, n, a, b, "tree")
    assert ring == pytest.approx(tree, rel=1e-9)
    assert C.best_algorithm("all_reduce", s_star / 2, n, a, b, ("ring", "tree")).best == "tree"
    assert C.best_algorithm("all_reduce", s_star * 2, n, a, b, ("ring", "tree")).best == "ring"


@given(st.sampled_from(["all_reduce", "reduce_scatter", "all_gather"]), st.floats(1, 1e11), st.integers(2, 2048))
def test_best_algorithm_is_the_minimum(op, s, n):
    choice = C.best_algorithm(op, s, n, 5e-6, 25e9)
    assert choice.time(choice.best) == min(t for _, t in choice.times)
    assert "naive" not in dict(choice.times)


def test_crossover_and_busbw():
    assert C.crossover_size(5e-6, 25e9) == pytest.approx(125e3)
    # 14 GB on 8 ranks in 1.12 s: algbw 12.5 GB/s, busbw 21.875 GB/s
    assert C.algbw(14e9, 1.12) == pytest.approx(12.5e9)
    assert C.busbw("all_reduce", 14e9, 8, 1.12) == pytest.approx(21.875e9)
    # a bandwidth-optimal algorithm at zero latency shows busbw == β
    t = C.cost("all_reduce", 14e9, 8, 5e-6, 25e9).bandwidth
    assert C.busbw("all_reduce", 14e9, 8, t) == pytest.approx(25e9)


def test_bucketing_pays_latency_per_bucket():
    one = C.bucketed_time("all_reduce", 1e9, 1, 8, 5e-6, 25e9)
    many = C.bucketed_time("all_reduce", 1e9, 40, 8, 5e-6, 25e9)
    assert many - one == pytest.approx(39 * 14 * 5e-6)
    with pytest.raises(ValueError, match="buckets"):
        C.bucketed_time("all_reduce", 1e9, 0, 8, 5e-6, 25e9)


@given(st.integers(2, 4096), st.floats(1e-7, 1e-4), st.floats(1e8, 1e12))
def test_algorithm_crossover_generalises_tree_ring(n, a, b):
    s_star = C.algorithm_crossover("all_reduce", n, a, b, "ring", "tree")
    expected = C.tree_ring_crossover(n, a, b)
    if expected == 0:  # N ≤ 3: the lines never cross at a positive size (or coincide at N = 2)
        assert s_star <= 0 or math.isinf(s_star)
        return
    assert s_star == pytest.approx(expected, rel=1e-6)
    t1 = C.alpha_beta_time("all_reduce", s_star, n, a, b)
    assert t1 == pytest.approx(C.alpha_beta_time("all_reduce", s_star, n, a, b, "tree"), rel=1e-6)


def test_algorithm_crossover_with_hierarchical_and_parallel_lines():
    kw = {"ranks_per_node": 8, "intra_latency": 2e-6, "intra_bandwidth": 300e9}
    s = C.algorithm_crossover("all_reduce", 1024, 5e-6, 50e9, "tree", "hierarchical", **kw)
    t_tree = C.alpha_beta_time("all_reduce", s, 1024, 5e-6, 50e9, "tree")
    t_hier = C.alpha_beta_time("all_reduce", s, 1024, 5e-6, 50e9, "hierarchical", **kw)
    assert t_tree == pytest.approx(t_hier, rel=1e-9)
    assert C.algorithm_crossover("all_reduce", 8, 5e-6, 50e9, "ring", "ring") == float("inf")


def test_all_reduce_schemes_totals_961():
    # §9.6.1: N = 8, S = 14 GB. Gathering from everyone moves N(N−1)S = 784 GB; the root variant and the ring
    # 2(N−1)S = 196 GB.
    direct = schemes.all_reduce_scheme_volume("direct", 14e9, 8)
    root = schemes.all_reduce_scheme_volume("root", 14e9, 8)
    ring = schemes.all_reduce_scheme_volume("ring", 14e9, 8)
    assert direct.total == pytest.approx(784e9) and direct.send_max == pytest.approx(98e9)
    assert root.total == pytest.approx(196e9) and root.send_max == pytest.approx(98e9)
    assert root.recv_max == pytest.approx(98e9)
    assert ring.total == pytest.approx(196e9) and ring.send_max == pytest.approx(24.5e9)


@given(sizes, ranks)
def test_all_reduce_scheme_formulas(s, n):
    direct = schemes.all_reduce_scheme_volume("direct", s, n)
    root = schemes.all_reduce_scheme_volume("root", s, n)
    ring = schemes.all_reduce_scheme_volume("ring", s, n)
    assert math.isclose(direct.total, n * (n - 1) * s, rel_tol=1e-12, abs_tol=1e-6)
    assert math.isclose(root.total, 2 * (n - 1) * s, rel_tol=1e-12, abs_tol=1e-6)
    assert math.isclose(ring.total, root.total, rel_tol=1e-12, abs_tol=1e-6)
    assert math.isclose(ring.send_max * n, ring.total, rel_tol=1e-12, abs_tol=1e-6)
    assert math.isclose(root.recv_max, C.traffic("all_reduce", s, n, "naive").recv_max, rel_tol=1e-12)


def test_all_reduce_scheme_bad_input():
    with pytest.raises(ValueError, match="scheme"):
        schemes.all_reduce_scheme_volume("star", 1e9, 8)
    with pytest.raises(ValueError, match="ranks"):
        schemes.all_reduce_scheme_volume("ring", 1e9, 1)
    with pytest.raises(ValueError, match="size"):
        schemes.all_reduce_scheme_volume("direct", -1.0, 8)


def test_multi_nic_bandwidth():
    nvlink_h100, nic = 450e9, 50e9  # per direction: H100 NVLink, one 400 Gb/s NIC
    assert algorithms.multi_nic_bandwidth(nvlink_h100, nic, 1) == pytest.approx(50e9)
    assert algorithms.multi_nic_bandwidth(nvlink_h100, nic, 8) == pytest.approx(400e9)
    assert algorithms.multi_nic_bandwidth(nvlink_h100, nic, 16) == pytest.approx(450e9)  # NVLink caps it
    for bad in ({"nics": 0}, {"nics": 65}, {"nics": 2.0}):
        with pytest.raises(ValueError, match="nics"):
            algorithms.multi_nic_bandwidth(nvlink_h100, nic, **bad)
    with pytest.raises(ValueError, match="nic_bandwidth"):
        algorithms.multi_nic_bandwidth(nvlink_h100, 0.0, 8)
    with pytest.raises(ValueError, match="intra_bandwidth"):
        algorithms.multi_nic_bandwidth(-1.0, nic, 8)
