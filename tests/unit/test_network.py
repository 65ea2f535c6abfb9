"""集群篇 §3: fabric sizing, rail wiring, node bandwidth, ECMP collisions, PFC headroom and go-back-N."""

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from clusterlab.cluster import ecmp, lossless, network

B = 50e9  # 400 Gb/s per direction


@given(st.integers(1, 64).map(lambda h: 2 * h))
def test_capacities_are_k2_over_2_and_k3_over_4(k):
    assert network.max_hosts(k, 2) == k * k // 2
    assert network.max_hosts(k, 3) == k**3 // 4


def test_al_fares_k4_and_k48():
    f = network.fat_tree(16, 4, B)
    assert (f.pods, f.leaves, f.spines, f.cores) == (4, 8, 8, 4)  # k pods, k/2 edge + k/2 aggr each, (k/2)² cores
    big = network.fat_tree(27648, 48, B)  # Al-Fares §3.2: 48-port switches → 27,648 hosts
    assert big.capacity == 27648 and big.cores == 576 and big.switches == 2880


@settings(max_examples=60)
@given(st.integers(2, 32).map(lambda h: 2 * h), st.data())
def test_leaf_spine_counts_are_consistent(k, data):
    hosts = data.draw(st.integers(1, k * k // 2))
    f = network.leaf_spine(hosts, k, B)
    assert f.leaves * f.hosts_per_leaf >= hosts > (f.leaves - 1) * f.hosts_per_leaf
    assert f.spines * k >= f.leaves * f.leaf_uplinks  # enough spine ports
    assert f.cables == hosts + f.leaves * f.leaf_uplinks
    assert f.bisection_bandwidth == pytest.approx(hosts / 2 * B)
    assert len(f.uplinks()) == f.leaf_links
    assert max(s for _, s in f.uplinks()) < f.spines


@settings(max_examples=60)
@given(st.integers(2, 16).map(lambda h: 2 * h), st.sampled_from([1.0, 3.0, 7.0]), st.data())
def test_fat_tree_counts_and_hops(k, o2, data):
    cap = network.max_hosts(k, 3, pod_oversubscription=o2)
    hosts = data.draw(st.integers(1, cap))
    f = network.fat_tree(hosts, k, B, pod_oversubscription=o2)
    assert f.pods <= k and f.leaves <= f.pods * f.leaves_per_pod
    assert f.cores * k >= f.spines * f.agg_uplinks
    a, b = data.draw(st.integers(0, hosts - 1)), data.draw(st.integers(0, hosts - 1))
    hops = f.switch_hops(a, b)
    assert hops == f.switch_hops(b, a)
    assert hops in (0, 1, 3, 5)
    assert (hops == 1) == (a != b and f.leaf_of(a) == f.leaf_of(b))
    if f.pods > 1:
        assert f.bisection_bandwidth <= f.full_bisection + 1e-6


def test_two_tier_beyond_k2_over_2_is_refused():
    with pytest.raises(ValueError, match="hosts"):
        network.leaf_spine(2049, 64, B)
    with pytest.raises(ValueError, match="radix"):
        network.leaf_spine(10, 1, B)
    with pytest.raises(ValueError, match="oversubscription"):
        network.ports_split(8, 0.01)


def test_oversubscription_cuts_cross_pod_bandwidth_sevenfold():
    f = network.fat_tree(4096, 64, B, pod_oversubscription=7)
    assert f.pod_oversubscription == 7 and f.bisection_bandwidth == pytest.approx(4096 / 2 * B / 7)
    assert f.switches < network.fat_tree(4096, 64, B).switches


def test_rail_wiring_keeps_same_index_gpus_on_one_leaf():
    f = network.leaf_spine(32, 8, B)
    rail = network.ring_hops(4, 8, f, "rail")
    node = network.ring_hops(4, 8, f, "node")
    assert rail.through_spine_fraction == 0 and rail.mean_hops == 1
    assert node.through_spine_fraction == 1 and node.mean_hops == 3
    hosts = {network.nic_host(n, g, 4, 8, f, "rail") for n in range(4) for g in range(8)}
    assert hosts == set(range(32))


def test_ring_uplink_flows_count_the_ring_steps_leaving_each_leaf():
    two = network.leaf_spine(1024, 64, B)  # 32 hosts per leaf: 4 nodes under a leaf with node wiring
    node = network.ring_uplink_flows(128, 8, two, "node")
    rail = network.ring_uplink_flows(128, 8, two, "rail")
    assert node == (8,) * two.leaves  # each of the 8 rings leaves every leaf once
    assert rail == (1,) * two.leaves  # a rail's ring leaves each of its 4 leaves once
    hops = network.ring_hops(128, 8, two, "node")
    assert sum(node) == hops.same_pod + hops.cross_pod
    small = network.leaf_spine(32, 8, B)
    assert network.ring_uplink_flows(4, 8, small, "rail") == (0,) * small.leaves


def test_node_bandwidth_ratios_per_direction():
    assert network.node_bandwidth("A100").ratio == pytest.approx(300 / 25)
    assert network.node_bandwidth("H100").ratio == pytest.approx(450 / 50)
    assert network.node_bandwidth("H100", nic_bits_per_s=200e9).ratio == pytest.approx(18)


def _birthday(n, m):
    return 1 - math.prod((m - i) / m for i in range(n)) if n <= m else 1.0


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 24), st.integers(1, 24))
def test_ecmp_closed_forms(n, m):
    e = ecmp.ecmp_collisions(n, m)
    assert e.collision_probability == pytest.approx(_birthday(n, m), abs=1e-12)
    assert e.expected_idle == pytest.approx(m * (1 - 1 / m) ** n)
    assert max(1.0, n / m) - 1e-9 <= e.expected_max_load <= n + 1e-9
    assert 0 < e.throughput_fraction <= 1 + 1e-12
    assert e.slowdown >= 1 - 1e-9


def test_ecmp_max_load_small_case_by_enumeration():
    # 3 flows on 2 links: max 3 with prob 2/8, else 2 → E = 2.25
    assert ecmp.ecmp_collisions(3, 2).expected_max_load == pytest.approx(2.25)
    assert ecmp.ecmp_collisions(2, 4).expected_max_load == pytest.approx(1.25)


@pytest.mark.parametrize(("n", "m"), [(8, 8), (16, 8), (32, 64)])
def test_ecmp_simulation_agrees(n, m):
    e = ecmp.ecmp_collisions(n, m)
    s = ecmp.simulate_ecmp(n, m, trials=20_000, seed=3)
    se = s.max_loads.std() / math.sqrt(20_000)
    assert abs(s.mean_max_load - e.expected_max_load) < 5 * se + 1e-9
    assert s.mean_idle == pytest.approx(e.expected_idle, rel=0.02, abs=0.02)
    with pytest.raises(ValueError):
        s.max_loads[0] = 0


def test_pfc_and_go_back_n():
    h = lossless.pfc_headroom(B, 100.0)
    assert h.cable == pytest.approx(2 * B * 100 / 2e8) and h.total == pytest.approx(50e3 + 50e3 + 8192)
    g = lossless.go_back_n(1e-3, B, 10e-6)
    assert g.window == 123 and g.go_back_n == pytest.approx(1 / 1.123)
    assert lossless.go_back_n(0.0, B, 10e-6).go_back_n == 1.0
    with pytest.raises(ValueError, match="loss"):
        lossless.go_back_n(1.0, B, 1e-5)


@settings(max_examples=40)
@given(st.floats(0, 0.5), st.floats(1e-6, 1e-3))
def test_go_back_n_never_beats_selective_repeat(p, rtt):
    g = lossless.go_back_n(p, B, rtt)
    assert g.go_back_n <= g.selective + 1e-15 and g.ratio >= 1 - 1e-12


# --- bisection as a minimum cut of the fabric as built ------------------------------------------------------------
def _graph(f: network.Fabric) -> dict[tuple[str, int], dict[tuple[str, int], int]]:
    """Undirected unit-capacity links of ``f``: host–leaf, leaf–second tier (``uplinks``), aggregation–core
    round robin (uplink ``q = a·u₂ + j`` of aggregation switch ``a`` to core ``q mod cores``)."""
    g: dict[tuple[str, int], dict[tuple[str, int], int]] = {}

    def link(a: tuple[str, int], b: tuple[str, int]) -> None:
        g.setdefault(a, {}).setdefault(b, 0)
        g.setdefault(b, {}).setdefault(a, 0)
        g[a][b] += 1
        g[b][a] += 1

    for h in range(f.hosts):
        link(("h", h), ("leaf", f.leaf_of(h)))
    for leaf, spine in f.uplinks():
        link(("leaf", leaf), ("spine", spine))
    for a in range(f.spines if f.tiers == 3 else 0):
        for j in range(f.agg_uplinks):
            link(("spine", a), ("core", (a * f.agg_uplinks + j) % f.cores))
    return g


def _max_flow(g: dict, sources: set, sinks: set) -> int:
    cap = {u: dict(vs) for u, vs in g.items()}
    s, t = ("s", 0), ("t", 0)
    big = 10**9
    cap[s] = {x: big for x in sources}
    cap[t] = {}
    for x in sinks:
        cap[x][t] = big
    for x in sources:
        cap[x].setdefault(s, 0)
    flow = 0
    while True:  # Edmonds–Karp
        parent = {s: None}
        queue = [s]
        for u in queue:
            for v, c in cap[u].items():
                if c > 0 and v not in parent:
                    parent[v] = u
                    queue.append(v)
        if t not in parent:
            return flow
        path, v = [], t
        while parent[v] is not None:
            path.append((parent[v], v))
            v = parent[v]
        push = min(cap[u][v] for u, v in path)
        for u, v in path:
            cap[u][v] -= push
            cap[v].setdefault(u, 0)
            cap[v][u] += push
        flow += push


def _brute_bisection(f: network.Fabric) -> int:
    import itertools

    g = _graph(f)
    hosts = [("h", h) for h in range(f.hosts)]
    best = None
    for side in itertools.combinations(range(1, f.hosts), f.hosts // 2 - 1):  # host 0 on side A (symmetry)
        a = {hosts[0], *(hosts[i] for i in side)}
        cut = _max_flow(g, a, set(hosts) - a)
        best = cut if best is None else min(best, cut)
    return best


@pytest.mark.parametrize(("tiers", "hosts", "radix", "o1", "o2"), [
    (2, 7, 4, 1.0, 1.0), (2, 10, 6, 2.0, 1.0), (2, 9, 6, 1.0, 1.0), (3, 8, 4, 1.0, 1.0), (3, 11, 4, 1.0, 1.0),
    (3, 10, 6, 1.0, 2.0), (3, 12, 6, 2.0, 1.0),
])
def test_min_bisection_equals_the_max_flow_min_cut(tiers: int, hosts: int, radix: int, o1: float, o2: float) -> None:
    f = (network.leaf_spine(hosts, radix, 1.0, oversubscription=o1) if tiers == 2
         else network.fat_tree(hosts, radix, 1.0, oversubscription=o1, pod_oversubscription=o2))
    assert f.min_bisection() == pytest.approx(_brute_bisection(f))


def test_min_bisection_of_the_pages_one_to_seven_fabric() -> None:
    f = network.fat_tree(4096, 64, 25e9, pod_oversubscription=7)
    assert f.pod_hosts() == (1792, 1792, 512)
    assert f.min_bisection() == pytest.approx(12.8e12)  # the split falls inside a pod, where links are denser
    assert f.bisection_bandwidth == pytest.approx(2048 * 25e9 / 7)  # the (H/2)·B/o formula assumes pod boundaries
    nb = network.fat_tree(4096, 64, 25e9)
    assert nb.min_bisection() == pytest.approx(nb.full_bisection)
