"""Sizing the parameter-plane fabric: a two-tier leaf-spine and a three-tier fat-tree (Clos) built from switches of
radix ``k``, and the bandwidth of a GPU node inside versus across nodes (集群篇 §3).

Model (every switch has ``k`` ports of one speed ``B``, B/s per direction; a *host* is one NIC port):

* **leaf** (top-of-rack / edge): ``d₁`` ports down to hosts, ``u₁ = k − d₁`` up; oversubscription ``o₁ = d₁/u₁``.
* **two-tier leaf-spine**: spines have all ``k`` ports down, one leaf per port at most, so at most ``k`` leaves and
  ``k·d₁`` hosts — ``k²/2`` when non-blocking (``d₁ = u₁ = k/2``). Spines needed: ``⌈leaves·u₁/k⌉`` (a leaf's uplinks
  are spread evenly over the spines; parallel links allowed).
* **three-tier fat-tree**: a *pod* is a two-tier block of leaves and aggregation switches; an aggregation switch has
  ``d₂`` ports down (one per leaf of its pod, so ``d₂`` leaves per pod) and ``u₂`` up to the cores
  (``o₂ = d₂/u₂``, the oversubscription "above the pod"); every leaf has one link to each of the ``u₁``
  aggregation switches of its pod; a core has ``k`` ports, one per pod, so at most ``k`` pods. Capacity
  ``k·d₂·d₁`` hosts — ``k³/4`` for the non-blocking k-ary fat-tree of Al-Fares, Loukissas & Vahdat (SIGCOMM 2008,
  §3.2: ``k`` pods of ``k/2`` edge and ``k/2`` aggregation switches, ``(k/2)²`` cores). Cores needed:
  ``⌈aggregation·u₂/k⌉``.
* **switch hops** (switches a packet crosses, shortest path): same leaf 1; same pod (or, two-tier, any two leaves)
  3; across pods 5.
* **bisection bandwidth** (per direction, cut between two halves of the hosts; the worst case the tiers allow):
  ``(H/2)·B / o`` with ``o = o₁`` inside one pod or in a two-tier fabric and ``o = o₁·o₂`` across pods — what each
  host can push through the top of the fabric when every host talks across the cut.

Llama 3 (arXiv:2407.21783 §3.3.1): 24K-GPU RoCE cluster, a three-layer Clos; 3,072-GPU pods with full bisection
bandwidth; the aggregation layer above the pods oversubscribed 1:7.

Node bandwidth (:data:`NODES`, :func:`node_bandwidth`): per GPU and per direction, NVLink inside the node versus the
GPU's own NIC across nodes. DGX A100: NVLink 3, 12 links, 600 GB/s bidirectional → 300 GB/s per direction; eight
200 Gb/s compute NICs. DGX H100: NVLink 4, 18 links, 900 GB/s bidirectional → 450 GB/s; eight 400 Gb/s NICs (NVIDIA
DGX A100 / H100 user guides and product pages); the entries are built from :data:`clusterlab.specs.NODES`.

Sizes in bytes, bandwidths in B/s per direction, counts as integers.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Final

from .. import specs, units
from ..validate import choice, int_in_range, positive

__all__ = [
    "NODES",
    "WIRINGS",
    "Fabric",
    "NodeBandwidth",
    "NodeSpec",
    "RingHops",
    "fat_tree",
    "leaf_spine",
    "max_hosts",
    "nic_host",
    "nic_leaves",
    "node_bandwidth",
    "ports_split",
    "ring_hops",
    "ring_uplink_flows",
]

#: how a node's NICs are cabled to leaves: ``rail`` — NIC ``g`` of every node on leaf (rail) ``g``; ``node`` — all
#: NICs of a node on the same leaf (the leaf fills node by node)
WIRINGS: Final = ("rail", "node")


def ports_split(radix: int, oversubscription: float) -> tuple[int, int]:
    """``(down, up)`` ports of a ``radix``-port switch at ``down/up ≈ oversubscription``.

    ``down = ⌊k·o/(1 + o)⌋`` (so the ratio is never better than asked), ``up = k − down``; ``o = 1`` gives ``k/2``
    each for even ``k``. ``ValueError`` if a side would have no port.
    """
    k = int_in_range("radix", radix, 2)
    o = positive("oversubscription", oversubscription)
    down = math.floor(k * o / (1 + o) + 1e-9)
    if down < 1 or down > k - 1:
        raise ValueError(
            f"oversubscription must leave at least one port up and one down on a {k}-port switch, got {o!r}"
        )
    return down, k - down


@dataclass(frozen=True)
class Fabric:
    """A sized leaf-spine (``tiers = 2``) or fat-tree (``tiers = 3``); counts of what to buy and what it delivers.

    ``hosts_per_leaf`` = ``d₁``, ``leaf_uplinks`` = ``u₁``; for three tiers ``leaves_per_pod`` = ``d₂`` and
    ``agg_uplinks`` = ``u₂`` (two tiers: the spine layer is one pod, ``agg_uplinks = 0``). ``spines`` counts the
    second tier (aggregation switches in a fat-tree), ``cores`` the third. ``host_links`` + ``leaf_links`` +
    ``core_links`` = ``cables``. ``bisection_bandwidth`` in B/s per direction; ``capacity`` is the most hosts this
    radix and oversubscription can serve in this many tiers.
    """

    tiers: int
    radix: int
    hosts: int
    link_bandwidth: float
    hosts_per_leaf: int
    leaf_uplinks: int
    leaves_per_pod: int
    agg_uplinks: int
    leaves: int
    spines: int
    cores: int
    pods: int
    capacity: int
    host_links: int
    leaf_links: int
    core_links: int
    leaf_oversubscription: float
    pod_oversubscription: float

    @property
    def switches(self) -> int:
        """All switches: leaves + spines (aggregation) + cores."""
        return self.leaves + self.spines + self.cores

    @property
    def cables(self) -> int:
        """All links, host ↔ leaf, leaf ↔ spine, aggregation ↔ core."""
        return self.host_links + self.leaf_links + self.core_links

    @property
    def hops_same_leaf(self) -> int:
        """Switches crossed between two hosts on one leaf: 1."""
        return 1

    @property
    def hops_same_pod(self) -> int:
        """Switches crossed between two leaves of one pod (any two leaves of a two-tier fabric): 3."""
        return 3

    @property
    def hops_cross_pod(self) -> int:
        """Switches crossed between two pods: 5 (three tiers); a two-tier fabric has one pod, so 3."""
        return 5 if self.tiers == 3 else 3

    @property
    def cross_pod_oversubscription(self) -> float:
        """``o₁·o₂``: hosts' traffic to the cores over the pod's core uplinks (``o₁`` for two tiers)."""
        return self.leaf_oversubscription * (self.pod_oversubscription if self.tiers == 3 else 1.0)

    @property
    def bisection_bandwidth(self) -> float:
        """Worst-case bisection bandwidth, B/s per direction: ``(H/2)·B/o`` (``o`` across pods if there are ≥ 2)."""
        o = self.cross_pod_oversubscription if self.pods > 1 else self.leaf_oversubscription
        return self.hosts / 2 * self.link_bandwidth / o

    @property
    def full_bisection(self) -> float:
        """``(H/2)·B``: the bisection of a non-blocking fabric with these hosts, B/s per direction."""
        return self.hosts / 2 * self.link_bandwidth

    def pod_hosts(self) -> tuple[int, ...]:
        """Hosts in each pod, in order (hosts fill leaves, leaves fill pods; the last pod may be smaller)."""
        per_pod = self.hosts_per_leaf * self.leaves_per_pod
        full, rest = divmod(self.hosts, per_pod)
        return (per_pod,) * full + ((rest,) if rest else ())

    def _pod_cut(self, hosts: int, a: int, core_cost: int) -> int:
        """Fewest links cut inside one pod of ``hosts`` hosts when ``a`` of them are on side A and the tier above
        (cores; a two-tier fabric's spines) is on side B; ``core_cost``: uplinks of one of the pod's second-tier
        switches to that tier (three tiers; 0 in two tiers, where the leaves' uplinks go to that tier directly)."""
        d1, u1 = self.hosts_per_leaf, self.leaf_uplinks
        leaves = -(-hosts // d1)
        last = hosts - (leaves - 1) * d1  # hosts on the last leaf (d₁ unless the pod ends in a partial leaf)
        full = leaves - 1 if last < d1 else leaves
        best: int | None = None
        for g in range(u1 + 1) if self.tiers == 3 else (0,):  # the pod's second-tier switches on side A
            on_a, on_b = u1 - g, g  # uplinks a side-A (side-B) leaf has to the other side

            def split(n: int, r: int, on_a: int = on_a, on_b: int = on_b) -> int:
                return min(r + on_b, (n - r) + on_a)  # a leaf with r of its n hosts on side A, leaf on B or on A

            options = []
            for last_side in ("a", "b", "split") if last < d1 else ("none",):
                rest = a - (last if last_side == "a" else 0)
                if last_side == "split":
                    r_last = a % d1
                    if not 0 < r_last < last or a // d1 > full:
                        continue
                    j = a // d1
                    options.append(j * on_a + (full - j) * on_b + split(last, r_last))
                    continue
                if rest < 0:
                    continue
                j, r = divmod(rest, d1)
                if j + (1 if r else 0) > full:
                    continue
                cost = j * on_a + (full - j - (1 if r else 0)) * on_b + (split(d1, r) if r else 0)
                if last_side == "a":
                    cost += on_a
                elif last_side == "b":
                    cost += on_b
                options.append(cost)
            if options:
                total = g * core_cost + min(options)
                best = total if best is None else min(best, total)
        if best is None:
            raise ValueError(f"a must be between 0 and the pod's {hosts} hosts, got {a}")
        return best

    def min_bisection(self) -> float:
        """The bisection bandwidth of this fabric as built, B/s per direction: the fewest link capacities a cut must
        sever to split the hosts into two halves (⌊H/2⌋ and ⌈H/2⌉), every switch free to fall on either side.

        Exact for this wiring: by symmetry the top tier (cores; spines of a two-tier fabric) sits on one side (a
        cut's cost is linear in how many top switches are on side A, so an end is optimal); every pod but one is
        whole on one side; within the split pod all leaves but one are whole and its second-tier switches are
        counted one by one. When the halves fall on pod boundaries, a three-tier fabric's bisection is the pods'
        core uplinks ``(H/2)·B/(o₁·o₂)``; when they do not, the split pod is cut inside it, where links are
        denser. (The page's 1:7 example: pods of 1,792 + 1,792 + 512 hosts.)"""
        half = self.hosts // 2
        pods = self.pod_hosts()
        core = self.agg_uplinks if self.tiers == 3 else 0
        whole_cost = [self._pod_cut(n, n, core) for n in pods]  # a whole pod on side A
        best = None
        for split in range(len(pods)):
            others = [i for i in range(len(pods)) if i != split]
            # choose which other pods are wholly on A: a 0/1 knapsack on host counts (few distinct sizes)
            reach: dict[int, int] = {0: 0}
            for i in others:
                nxt = dict(reach)
                for got, cost in reach.items():
                    g2 = got + pods[i]
                    if g2 <= half:
                        c2 = cost + whole_cost[i]
                        if nxt.get(g2, c2 + 1) > c2:
                            nxt[g2] = c2
                reach = nxt
            for got, cost in reach.items():
                a = half - got
                if 0 <= a <= pods[split]:
                    total = cost + self._pod_cut(pods[split], a, core)
                    best = total if best is None else min(best, total)
        assert best is not None
        return best * self.link_bandwidth

    def leaf_of(self, host: int) -> int:
        """Leaf of host ``host`` (hosts fill leaves in order, ``d₁`` per leaf)."""
        return int_in_range("host", host, 0, self.hosts - 1) // self.hosts_per_leaf

    def pod_of(self, host: int) -> int:
        """Pod of host ``host`` (``d₂`` leaves per pod; always 0 in two tiers)."""
        return self.leaf_of(host) // self.leaves_per_pod if self.tiers == 3 else 0

    def uplinks(self) -> tuple[tuple[int, int], ...]:
        """Every leaf → second-tier link as ``(leaf, spine)``: leaf ``l``'s ``u₁`` uplinks go round-robin
        (two tiers: ``q = l·u₁ + j`` to spine ``q mod spines``; three tiers: to the ``u₁`` aggregation switches of
        its pod)."""
        links = []
        for leaf in range(self.leaves):
            for j in range(self.leaf_uplinks):
                if self.tiers == 2:
                    links.append((leaf, (leaf * self.leaf_uplinks + j) % self.spines))
                else:
                    links.append((leaf, (leaf // self.leaves_per_pod) * self.leaf_uplinks + j))
        return tuple(links)

    def switch_hops(self, a: int, b: int) -> int:
        """Switches on the shortest path between hosts ``a`` and ``b`` (0 if ``a == b``)."""
        if int_in_range("a", a, 0, self.hosts - 1) == int_in_range("b", b, 0, self.hosts - 1):
            return 0
        if self.leaf_of(a) == self.leaf_of(b):
            return self.hops_same_leaf
        if self.pod_of(a) == self.pod_of(b):
            return self.hops_same_pod
        return self.hops_cross_pod


def max_hosts(radix: int, tiers: int, *, oversubscription: float = 1.0, pod_oversubscription: float = 1.0) -> int:
    """Most hosts of a ``tiers``-tier fabric of ``radix``-port switches: ``k·d₁`` (two tiers; ``k²/2`` at 1:1) or
    ``k·d₂·d₁`` (three tiers; ``k³/4`` at 1:1, Al-Fares et al. 2008). ``oversubscription`` is the leaf's ``o₁``,
    ``pod_oversubscription`` the aggregation layer's ``o₂`` (three tiers only)."""
    k = int_in_range("radix", radix, 2)
    t = int_in_range("tiers", tiers, 2, 3)
    d1, _ = ports_split(k, oversubscription)
    if t == 2:
        return k * d1
    d2, _ = ports_split(k, pod_oversubscription)
    return k * d2 * d1


def leaf_spine(hosts: int, radix: int, link_bandwidth: float, *, oversubscription: float = 1.0) -> Fabric:
    """Size a two-tier leaf-spine for ``hosts`` NIC ports of ``link_bandwidth`` (B/s per direction) with
    ``radix``-port switches and leaf ``oversubscription`` ``o₁ = d₁/u₁`` (1 = non-blocking).

    ``leaves = ⌈H/d₁⌉``, ``spines = ⌈leaves·u₁/k⌉``; ``ValueError`` if ``hosts`` exceeds ``k·d₁`` (``k²/2`` at 1:1):
    beyond that a third tier is needed (:func:`fat_tree`).
    """
    k = int_in_range("radix", radix, 2)
    b = positive("link_bandwidth", link_bandwidth)
    d1, u1 = ports_split(k, oversubscription)
    cap = k * d1
    h = int_in_range("hosts", hosts, 1, cap)
    leaves = math.ceil(h / d1)
    spines = math.ceil(leaves * u1 / k)
    return Fabric(
        tiers=2, radix=k, hosts=h, link_bandwidth=b, hosts_per_leaf=d1, leaf_uplinks=u1, leaves_per_pod=leaves,
        agg_uplinks=0, leaves=leaves, spines=spines, cores=0, pods=1, capacity=cap, host_links=h,
        leaf_links=leaves * u1, core_links=0, leaf_oversubscription=d1 / u1, pod_oversubscription=1.0,
    )


def fat_tree(
    hosts: int,
    radix: int,
    link_bandwidth: float,
    *,
    oversubscription: float = 1.0,
    pod_oversubscription: float = 1.0,
) -> Fabric:
    """Size a three-tier fat-tree (Clos) for ``hosts`` NIC ports: leaf oversubscription ``o₁``
    (``oversubscription``), aggregation-to-core oversubscription ``o₂`` (``pod_oversubscription``; Llama 3: 7).

    ``leaves = ⌈H/d₁⌉``, ``pods = ⌈leaves/d₂⌉``, aggregation switches ``pods·u₁`` (every pod fully built),
    ``cores = ⌈pods·u₁·u₂/k⌉``; ``ValueError`` if ``hosts`` exceeds ``k·d₂·d₁`` (``k³/4`` at 1:1).
    """
    k = int_in_range("radix", radix, 2)
    b = positive("link_bandwidth", link_bandwidth)
    d1, u1 = ports_split(k, oversubscription)
    d2, u2 = ports_split(k, pod_oversubscription)
    cap = k * d2 * d1
    h = int_in_range("hosts", hosts, 1, cap)
    leaves = math.ceil(h / d1)
    pods = math.ceil(leaves / d2)
    aggs = pods * u1
    cores = math.ceil(aggs * u2 / k)
    return Fabric(
        tiers=3, radix=k, hosts=h, link_bandwidth=b, hosts_per_leaf=d1, leaf_uplinks=u1, leaves_per_pod=d2,
        agg_uplinks=u2, leaves=leaves, spines=aggs, cores=cores, pods=pods, capacity=cap, host_links=h,
        leaf_links=leaves * u1, core_links=aggs * u2, leaf_oversubscription=d1 / u1, pod_oversubscription=d2 / u2,
    )


def nic_host(node: int, gpu: int, nodes: int, gpus_per_node: int, fabric: Fabric, wiring: str = "rail") -> int:
    """Host (port) index in ``fabric`` of the NIC of GPU ``gpu`` in node ``node`` (one NIC per GPU).

    ``node`` wiring: host ``node·G + gpu`` (a node's NICs sit together, leaves fill node by node). ``rail`` wiring:
    NIC ``g`` of every node goes to rail ``g``; a rail occupies ``⌈nodes/d₁⌉`` consecutive leaves, so host
    ``(g·⌈nodes/d₁⌉ + node // d₁)·d₁ + node mod d₁`` (NVIDIA's rail-optimised reference designs).
    """
    w = choice("wiring", wiring, WIRINGS)
    m = int_in_range("nodes", nodes, 1)
    g = int_in_range("gpus_per_node", gpus_per_node, 1)
    n = int_in_range("node", node, 0, m - 1)
    i = int_in_range("gpu", gpu, 0, g - 1)
    if m * g > fabric.hosts:
        raise ValueError(f"nodes·gpus_per_node must be at most the fabric's {fabric.hosts} hosts, got {m * g}")
    if w == "node":
        return n * g + i
    d1 = fabric.hosts_per_leaf
    leaves_per_rail = math.ceil(m / d1)
    host = (i * leaves_per_rail + n // d1) * d1 + n % d1
    if host >= fabric.hosts:
        raise ValueError(f"rail wiring needs {g * leaves_per_rail * d1} host ports, the fabric has {fabric.hosts}")
    return host


def nic_leaves(nodes: int, gpus_per_node: int, fabric: Fabric, wiring: str = "rail") -> tuple[tuple[int, ...], ...]:
    """``[node][gpu]`` → the leaf its NIC is cabled to (:func:`nic_host` then :meth:`Fabric.leaf_of`)."""
    m = int_in_range("nodes", nodes, 1)
    g = int_in_range("gpus_per_node", gpus_per_node, 1)
    return tuple(tuple(fabric.leaf_of(nic_host(n, i, m, g, fabric, wiring)) for i in range(g)) for n in range(m))


@dataclass(frozen=True)
class RingHops:
    """Switch hops of the inter-node ring steps of a job: GPU ``g`` of node ``j`` sends to GPU ``g`` of node ``j+1``
    (NCCL pairs same-index GPUs across nodes), for every ``g`` and every ``j`` (ring closes)."""

    wiring: str
    pairs: int
    same_leaf: int
    same_pod: int
    cross_pod: int

    @property
    def mean_hops(self) -> float:
        """Average switches crossed per inter-node ring step."""
        return (self.same_leaf + 3 * self.same_pod + 5 * self.cross_pod) / self.pairs

    @property
    def through_spine_fraction(self) -> float:
        """Fraction of inter-node ring steps that leave their leaf (and are hashed by ECMP onto an uplink)."""
        return (self.same_pod + self.cross_pod) / self.pairs


def ring_hops(nodes: int, gpus_per_node: int, fabric: Fabric, wiring: str = "rail") -> RingHops:
    """Count the inter-node ring steps of ``nodes`` nodes by the switches they cross under ``wiring``."""
    m = int_in_range("nodes", nodes, 2)
    g = int_in_range("gpus_per_node", gpus_per_node, 1)
    counts = {1: 0, 3: 0, 5: 0}
    for i in range(g):
        for j in range(m):
            a = nic_host(j, i, m, g, fabric, wiring)
            b = nic_host((j + 1) % m, i, m, g, fabric, wiring)
            counts[fabric.switch_hops(a, b)] += 1
    return RingHops(wiring=wiring, pairs=m * g, same_leaf=counts[1], same_pod=counts[3], cross_pod=counts[5])


def ring_uplink_flows(nodes: int, gpus_per_node: int, fabric: Fabric, wiring: str = "rail") -> tuple[int, ...]:
    """Per leaf of ``fabric``, how many inter-node ring steps (same-index GPUs of consecutive nodes, one ring per
    GPU index, as :func:`ring_hops`) leave it: the long flows its uplinks carry at once, which ECMP hashes
    (:func:`clusterlab.cluster.ecmp.ecmp_collisions`). With ``rail`` wiring a rail's ring leaves each of its leaves
    once; with ``node`` wiring every one of the ``gpus_per_node`` rings leaves every leaf once. Length: leaves."""
    m = int_in_range("nodes", nodes, 2)
    g = int_in_range("gpus_per_node", gpus_per_node, 1)
    out = [0] * fabric.leaves
    for i in range(g):
        for j in range(m):
            a = fabric.leaf_of(nic_host(j, i, m, g, fabric, wiring))
            if a != fabric.leaf_of(nic_host((j + 1) % m, i, m, g, fabric, wiring)):
                out[a] += 1
    return tuple(out)


@dataclass(frozen=True)
class NodeSpec:
    """A GPU server: GPUs, NVLink bandwidth per GPU (B/s per direction), compute NICs and their line rate (bit/s)."""

    name: str
    gpus: int
    nvlink_per_direction: float
    nvlink_links: int
    nics: int
    nic_bits_per_s: float


def _from_catalogue(node: specs.NodeSpec) -> NodeSpec:
    """This module's view of a catalogue node (every field it needs must be published there)."""
    if node.nvlink_links is None or node.nics is None or node.nic_line_rate is None:
        raise ValueError(f"node {node.name!r} lacks nvlink_links, nics or nic_line_rate in clusterlab.specs")
    return NodeSpec(node.name, node.gpus_per_node, node.intra_bandwidth, node.nvlink_links, node.nics,
                    node.nic_line_rate)


#: DGX A100 and DGX H100, from :data:`clusterlab.specs.NODES` (sources there)
NODES: Final = {
    "A100": _from_catalogue(specs.NODES["DGX A100"]),
    "H100": _from_catalogue(specs.NODES["DGX H100"]),
}


@dataclass(frozen=True)
class NodeBandwidth:
    """Per GPU, per direction: ``intra`` (NVLink) and ``inter`` (its share of the node's NICs), B/s; ``ratio``."""

    node: NodeSpec
    intra: float
    inter: float

    @property
    def ratio(self) -> float:
        """``intra / inter``: how much faster a byte leaves a GPU over NVLink than over the network."""
        return self.intra / self.inter


def node_bandwidth(node: NodeSpec | str, *, nic_bits_per_s: float | None = None) -> NodeBandwidth:
    """Intra- vs inter-node bandwidth of one GPU, per direction: NVLink vs ``nics/gpus`` NICs of
    ``nic_bits_per_s`` (default: the node's own NICs; e.g. 200e9 for a 200 Gb/s RoCE plane). ``node`` is a
    :class:`NodeSpec` or a key of :data:`NODES`."""
    spec = NODES[choice("node", node, tuple(NODES))] if isinstance(node, str) else node
    bits = spec.nic_bits_per_s if nic_bits_per_s is None else positive("nic_bits_per_s", nic_bits_per_s)
    inter = units.gbit_per_s(bits / 1e9) * spec.nics / spec.gpus
    return NodeBandwidth(node=spec, intra=spec.nvlink_per_direction, inter=inter)
