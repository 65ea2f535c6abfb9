"""clusterlab.communication.algorithms: two-level all-reduce phases, tree/ring crossover with tree efficiency,
busbw; the §2.2 table rows."""

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from clusterlab.book import tables
from clusterlab.communication import algorithms as A
from clusterlab.communication import collectives as C

S = 14e9  # 7B fp16 gradients
ALPHA_IN, BETA_IN = 2e-6, 300e9  # NVLink, per direction
ALPHA, BETA = 5e-6, 50e9  # 400 Gb/s NIC, per direction


# --------------------------------------------------------------------------------------------------------
# two-level all-reduce
# --------------------------------------------------------------------------------------------------------
def test_breakdown_worked_example_closed_forms():
    h = A.hierarchical_breakdown(S, 1024, 8, ALPHA, BETA, intra_latency=ALPHA_IN, intra_bandwidth=BETA_IN)
    assert h.nodes == 128
    rs = 7 * ALPHA_IN + S * 7 / 8 / BETA_IN
    inter = 2 * 127 * ALPHA + 2 * (S / 8) * 127 / 128 / BETA
    assert h.intra_reduce_scatter == pytest.approx(rs, rel=1e-12)
    assert h.intra_all_gather == pytest.approx(rs, rel=1e-12)
    assert h.inter_all_reduce == pytest.approx(inter, rel=1e-12)
    assert h.total == pytest.approx(2 * rs + inter, rel=1e-12)
    assert h.inter_bytes == pytest.approx(2 * (S / 8) * 127 / 128)  # 3.47 GB per NIC, not 27.8 GB
    assert h.inter_unsplit_bytes == pytest.approx(8 * h.inter_bytes)
    assert h.inter_unsplit == pytest.approx(2 * 127 * ALPHA + 2 * S * 127 / 128 / BETA, rel=1e-12)
    assert h.overlapped == pytest.approx(max(2 * rs, inter))
    assert h.mistaken_total > C.alpha_beta_time("all_reduce", S, 1024, ALPHA, BETA)  # the error even flips the verdict


@given(
    st.floats(0, 1e12),
    st.integers(2, 16),
    st.integers(2, 256),
    st.floats(0, 1e-4),
    st.floats(1e8, 1e12),
    st.floats(0, 1e-4),
    st.floats(1e8, 1e12),
)
def test_breakdown_total_equals_collectives(s, g, m, a, b, a_in, b_in):
    n = g * m
    h = A.hierarchical_breakdown(s, n, g, a, b, intra_latency=a_in, intra_bandwidth=b_in)
    ref = C.alpha_beta_time("all_reduce", s, n, a, b, "hierarchical", ranks_per_node=g,
                            intra_latency=a_in, intra_bandwidth=b_in)
    assert math.isclose(h.total, ref, rel_tol=1e-12, abs_tol=1e-15)
    assert h.overlapped <= h.total + 1e-15
    # bytes per rank are those of a flat ring: the two-level scheme moves them off the NIC, it does not remove them
    assert math.isclose(h.intra_bytes + h.inter_bytes, C.send_volume("all_reduce", s, n), rel_tol=1e-12, abs_tol=1e-6)
    assert math.isclose(h.inter_unsplit_bytes, g * h.inter_bytes, rel_tol=1e-12, abs_tol=1e-6)


def test_breakdown_defaults_and_errors():
    h = A.hierarchical_breakdown(S, 16, 8, ALPHA, BETA)  # intra defaults to the inter-node link
    assert h.intra_reduce_scatter == pytest.approx(C.alpha_beta_time("reduce_scatter", S, 8, ALPHA, BETA))
    with pytest.raises(ValueError, match="ranks_per_node"):
        A.hierarchical_breakdown(S, 12, 8, ALPHA, BETA)
    with pytest.raises(ValueError, match="ranks_per_node"):
        A.hierarchical_breakdown(S, 8, 8, ALPHA, BETA)  # one node only
    with pytest.raises(ValueError, match="intra_bandwidth"):
        A.hierarchical_breakdown(S, 16, 8, ALPHA, BETA, intra_bandwidth=0)
    with pytest.raises(ValueError, match="size"):
        A.hierarchical_breakdown(-1, 16, 8, ALPHA, BETA)


# --------------------------------------------------------------------------------------------------------
# tree vs ring
# --------------------------------------------------------------------------------------------------------
@given(st.integers(2, 4096), st.floats(1e-7, 1e-4), st.floats(1e8, 1e12))
def test_crossover_full_efficiency_is_collectives(n, a, b):
    assert math.isclose(A.tree_ring_crossover_at(n, a, b), C.tree_ring_crossover(n, a, b), rel_tol=1e-9)


@given(st.integers(4, 2048), st.floats(1e-7, 1e-4), st.floats(1e8, 1e12), st.floats(0.3, 1.0))
def test_crossover_is_where_the_times_meet(n, a, b, e):
    s_star = A.tree_ring_crossover_at(n, a, b, tree_efficiency=e)
    if s_star == 0:
        assert n <= 3 or C.steps("all_reduce", n) <= C.steps("all_reduce", n, "tree")
        return
    ring = C.alpha_beta_time("all_reduce", s_star, n, a, b)
    # tree at efficiency e: latency at α, bandwidth term at e·β
    tree = C.steps("all_reduce", n, "tree") * a + C.traffic("all_reduce", s_star, n, "tree").critical / (e * b)
    assert math.isclose(ring, tree, rel_tol=1e-9)
    # below S* the tree is faster, above it the ring
    for f, tree_faster in ((0.5, True), (2.0, False)):
        s = f * s_star
        r = C.alpha_beta_time("all_reduce", s, n, a, b)
        t = C.steps("all_reduce", n, "tree") * a + C.traffic("all_reduce", s, n, "tree").critical / (e * b)
        assert (t < r) == tree_faster


def test_crossover_numbers_and_monotonicity():
    # N = 1024: N·α·β·(N − 1 − 10) = 1024 · 250 kB · 1013 ≈ 259 GB with a perfect tree
    assert A.tree_ring_crossover_at(1024, ALPHA, BETA) == pytest.approx(1024 * ALPHA * BETA * 1013)
    # a tree at 80 % of β: S* = 2·1013·αβ / (2/0.8 − 2·1023/1024) ≈ 1.01 GB
    assert A.tree_ring_crossover_at(1024, ALPHA, BETA, tree_efficiency=0.8) == pytest.approx(
        2 * 1013 * ALPHA * BETA / (2 / 0.8 - 2 * 1023 / 1024)
    )
    values = [A.tree_ring_crossover_at(64, ALPHA, BETA, tree_efficiency=e) for e in (0.4, 0.6, 0.8, 1.0)]
    assert values == sorted(values)
    assert A.tree_ring_crossover_at(3, ALPHA, BETA) == 0.0
    assert A.tree_ring_crossover_at(2, ALPHA, BETA, tree_efficiency=0.5) == 0.0
    for bad in (0.0, 1.5, -0.1):
        with pytest.raises(ValueError, match="tree_efficiency"):
            A.tree_ring_crossover_at(8, ALPHA, BETA, tree_efficiency=bad)


# --------------------------------------------------------------------------------------------------------
# busbw
# --------------------------------------------------------------------------------------------------------
def test_measured_bandwidth_nccl_tests_example():
    r = A.measured_bandwidth("all_reduce", 2**30, 8, 7.5e-3)
    assert r.algbw == pytest.approx(2**30 / 7.5e-3)
    assert r.factor == pytest.approx(1.75)
    assert r.busbw == pytest.approx(2**30 / 7.5e-3 * 1.75)
    assert r.utilisation(300e9) == pytest.approx(r.busbw / 300e9)
    with pytest.raises(ValueError, match="time"):
        A.measured_bandwidth("all_reduce", 1e9, 8, 0)
    with pytest.raises(ValueError, match="link_bandwidth"):
        r.utilisation(0)


@given(st.floats(1e3, 1e12), st.integers(2, 4096), st.floats(0, 1e-4), st.floats(1e8, 1e12))
def test_ring_busbw_approaches_link_speed(s, n, a, b):
    # a bandwidth-optimal ring measured at its α-β time: busbw ≤ β, and = β when α = 0
    t = C.alpha_beta_time("all_reduce", s, n, a, b)
    r = A.measured_bandwidth("all_reduce", s, n, t)
    assert r.busbw <= b * (1 + 1e-12)
    t0 = C.cost("all_reduce", s, n, 5e-6, b).bandwidth
    assert math.isclose(A.measured_bandwidth("all_reduce", s, n, t0).busbw, b, rel_tol=1e-9)


def test_hierarchical_busbw_can_exceed_the_nic():
    # busbw assumes a flat fabric; a two-level algorithm on fast intra-node links beats the NIC figure
    t = C.alpha_beta_time("all_reduce", S, 1024, ALPHA, BETA, "hierarchical", ranks_per_node=8,
                          intra_latency=ALPHA_IN, intra_bandwidth=BETA_IN)
    assert A.measured_bandwidth("all_reduce", S, 1024, t).busbw > BETA


# --------------------------------------------------------------------------------------------------------
# rows
# --------------------------------------------------------------------------------------------------------
def test_algorithm_rows_mark_the_fastest():
    rows = tables.algorithm_rows(S, 1024, ALPHA, BETA, ("ring", "tree", "halving_doubling", "hierarchical"),
                                ranks_per_node=8, intra_latency=ALPHA_IN, intra_bandwidth=BETA_IN)
    assert rows[0] == ["算法", "步数", "每个 rank 发送 (GB)", "延迟项", "带宽项", "总时间"]
    marked = [r for r in rows[1:] if r[0].endswith("★")]
    assert len(marked) == 1 and marked[0][0].startswith("两级")
    ring = rows[1]
    assert ring[1] == "2046" and ring[2] == "27.97"
    hier = rows[4]
    assert hier[1] == str(2 * 7 + 2 * 127)
    rows8 = tables.algorithm_rows(S, 8, ALPHA_IN, BETA_IN)
    assert [r[1] for r in rows8[1:]] == ["14", "6", "6"]
    with pytest.raises(ValueError, match="algorithms"):
        tables.algorithm_rows(S, 8, ALPHA, BETA, ())


def test_busbw_factor_rows():
    rows = tables.busbw_factor_rows([2, 8, 1024])
    assert rows[0] == ["原语", "因子", "N = 2", "N = 8", "N = 1024"]
    assert rows[1][2:] == ["1", "1.75", "1.998"]
    assert [r[1] for r in rows[1:]] == ["2(N−1)/N", "(N−1)/N", "(N−1)/N", "(N−1)/N", "1", "1"]
    with pytest.raises(ValueError, match="ops"):
        tables.busbw_factor_rows([8], ("scatter",))
    with pytest.raises(ValueError, match="ranks"):
        tables.busbw_factor_rows([])


# --------------------------------------------------------------------------------------------------------
# NHR (HCCL)
# --------------------------------------------------------------------------------------------------------
@given(st.floats(0, 1e12), st.integers(2, 5000), st.floats(0, 1e-4), st.floats(1e8, 1e12))
def test_nhr_has_tree_steps_and_ring_bytes(s, n, a, b):
    t = A.nhr_all_reduce_time(s, n, a, b)
    expected = 2 * math.ceil(math.log2(n)) * a + 2 * s * (n - 1) / n / b
    assert math.isclose(t, expected, rel_tol=1e-9, abs_tol=1e-15)
    # never slower than ring or halving-doubling in this model
    assert t <= C.alpha_beta_time("all_reduce", s, n, a, b) * (1 + 1e-12) + 1e-15
    assert t <= C.alpha_beta_time("all_reduce", s, n, a, b, "halving_doubling") * (1 + 1e-12) + 1e-15


def test_nhr_examples_and_errors():
    # 96 servers, 1 MB: 2·7·5 µs + 2·1e6·95/96/50e9
    assert A.nhr_all_reduce_time(1e6, 96, ALPHA, BETA) == pytest.approx(14 * ALPHA + 2e6 * 95 / 96 / BETA)
    assert A.nhr_all_reduce_time(1e6, 2, ALPHA, BETA) == pytest.approx(2 * ALPHA + 1e6 / BETA)
    with pytest.raises(ValueError, match="ranks"):
        A.nhr_all_reduce_time(1e6, 1, ALPHA, BETA)
    with pytest.raises(ValueError, match="bandwidth"):
        A.nhr_all_reduce_time(1e6, 8, ALPHA, 0)
