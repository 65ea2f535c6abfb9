"""What a communication library computes before it moves a byte: algorithm costs, the chooser, busbw.

Helpers for 集群篇 §2.2 on top of the α-β models of :mod:`clusterlab.communication.collectives` (every time here is
computed there; nothing is modelled twice). Notation as in the whole book: ``N`` ranks, ``S`` bytes per rank,
α latency per message in s, β per-direction bandwidth in B/s, ``G`` ranks per node, ``M = N/G`` nodes.

:func:`hierarchical_breakdown`
    the two-level all-reduce split into its three phases (intra-node reduce-scatter, ``G`` concurrent
    inter-node all-reduces of ``S/G`` bytes, intra-node all-gather), plus the time of the common mistake of
    putting the whole ``S`` on one NIC, and the bound reached when the intra- and inter-node phases overlap.
:func:`tree_ring_crossover_at`
    the all-reduce size below which the tree beats the ring, when the tree only reaches a fraction of the
    link bandwidth (``tree_efficiency = 1`` gives :func:`clusterlab.communication.collectives.tree_ring_crossover`).
:func:`nhr_all_reduce_time`
    HCCL's NHR (nonuniform hierarchical ring) all-reduce as HCCL documents it: ``2⌈log₂N⌉α + 2S(N−1)/(Nβ)``
    for any N — the tree's step count with the ring's bytes.
:func:`measured_bandwidth`
    algbw ``S/t`` and busbw ``algbw × factor`` of a measured call, as nccl-tests reports them.

Sources: α-β model and halving-doubling — Thakur, Rabenseifner & Gropp, IJHPCA 19(1), 2005; busbw —
NVIDIA nccl-tests ``doc/PERFORMANCE.md``; two-level all-reduce (intra reduce-scatter, inter all-reduce, intra
all-gather) and NHR — HCCL user guide, 算法简介 / 分级通信原理 / NHR (CANN ``hccl`` repository,
``docs/*/user_guide/coll_algo_intro``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from ..validate import int_in_range, non_negative, positive
from . import collectives
from .cost import ZERO, Cost

__all__ = [
    "BandwidthReport",
    "HierarchicalBreakdown",
    "hierarchical_breakdown",
    "measured_bandwidth",
    "multi_nic_bandwidth",
    "nhr_all_reduce_time",
    "tree_ring_crossover_at",
]

# --------------------------------------------------------------------------------------------------------
# two-level all-reduce
# --------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class HierarchicalBreakdown:
    """The two-level all-reduce of ``size`` bytes on ``ranks = nodes × ranks_per_node`` ranks, phase by phase.

    Times in s: ``intra_reduce_scatter`` ``(G−1)α_in + S(G−1)/(Gβ_in)``; ``inter_all_reduce`` ``2(M−1)α +
    2(S/G)(M−1)/(Mβ)`` (each of the ``G`` ranks of a node runs its own ring over the ``M`` nodes on its own
    NIC, all ``G`` at once); ``intra_all_gather`` the same as the reduce-scatter. Bytes per rank:
    ``intra_bytes`` ``2S(G−1)/G`` on the intra-node links, ``inter_bytes`` ``2(S/G)(M−1)/M`` on the NIC.
    ``inter_unsplit`` is the inter-node phase of the common mistake — an all-reduce of the whole ``S`` over the
    nodes, as if one NIC per node carried everything — which is ``G`` times the bandwidth term.
    """

    size: float
    ranks: int
    ranks_per_node: int
    intra_reduce_scatter: float
    inter_all_reduce: float
    intra_all_gather: float
    intra_bytes: float
    inter_bytes: float
    inter_unsplit: float
    inter_unsplit_bytes: float
    phases: tuple[Cost, Cost, Cost] = field(repr=False, default=(ZERO, ZERO, ZERO))

    @property
    def nodes(self) -> int:
        """``M = N/G``."""
        return self.ranks // self.ranks_per_node

    @property
    def intra(self) -> float:
        """Both intra-node phases together (they use the same intra-node links), in s."""
        return self.intra_reduce_scatter + self.intra_all_gather

    @property
    def total(self) -> float:
        """The three phases one after the other: equals ``alpha_beta_time(..., "hierarchical", ...)``."""
        return self.intra_reduce_scatter + self.inter_all_reduce + self.intra_all_gather

    @property
    def cost(self) -> Cost:
        """The three phases as one :class:`~clusterlab.communication.cost.Cost` (links ``"intra"``, ``"inter"``)."""
        return Cost(self.phases[0].terms + self.phases[1].terms + self.phases[2].terms)

    @property
    def overlapped(self) -> float:
        """``max(intra, inter)``: no schedule that moves these bytes over these links can be faster.

        Pipelining the phases chunk by chunk (HCCL's ``pipeline`` algorithm uses intra- and inter-server
        links concurrently) approaches this bound; the sequential model pays the sum.
        """
        return max(self.intra, self.inter_all_reduce)

    @property
    def mistaken_total(self) -> float:
        """The total with the unsplit inter-node phase (the ``G``-fold error), in s."""
        return self.intra + self.inter_unsplit


def hierarchical_breakdown(
    size: float,
    ranks: int,
    ranks_per_node: int,
    latency: float,
    bandwidth: float,
    *,
    intra_latency: float | None = None,
    intra_bandwidth: float | None = None,
) -> HierarchicalBreakdown:
    """Phase-by-phase two-level all-reduce (see :class:`HierarchicalBreakdown`).

    ``latency``/``bandwidth``: the inter-node α and per-direction β of one rank's NIC; ``intra_latency``/
    ``intra_bandwidth``: the intra-node link (default: the inter-node values). ``ranks_per_node`` G ≥ 2 must
    divide ``ranks`` into at least 2 nodes. The phases are
    :func:`clusterlab.communication.collectives.hierarchical_phases`; :attr:`HierarchicalBreakdown.cost` is their sum.
    """
    s = non_negative("size", size)
    n = int_in_range("ranks", ranks, 2)
    g = int_in_range("ranks_per_node", ranks_per_node, 2)
    if n % g or n // g < 2:
        raise ValueError(f"ranks_per_node must divide ranks into at least 2 nodes; got ranks={n}, ranks_per_node={g}")
    m = n // g
    rs_c, inter_c, ag_c = collectives.hierarchical_phases(s, n, g, latency, bandwidth, intra_latency=intra_latency,
                                                          intra_bandwidth=intra_bandwidth)
    unsplit_c = collectives.cost("all_reduce", s, m, latency, bandwidth)
    rs, inter, ag, unsplit = rs_c.time, inter_c.time, ag_c.time, unsplit_c.time
    return HierarchicalBreakdown(
        size=s,
        ranks=n,
        ranks_per_node=g,
        intra_reduce_scatter=rs,
        inter_all_reduce=inter,
        intra_all_gather=ag,
        intra_bytes=rs_c.bytes + ag_c.bytes,
        inter_bytes=inter_c.bytes,
        inter_unsplit=unsplit,
        inter_unsplit_bytes=unsplit_c.bytes,
        phases=(rs_c, inter_c, ag_c),
    )


# --------------------------------------------------------------------------------------------------------
# tree vs ring
# --------------------------------------------------------------------------------------------------------
def tree_ring_crossover_at(ranks: int, latency: float, bandwidth: float, *, tree_efficiency: float = 1.0) -> float:
    """All-reduce size ``S*`` (bytes) below which the tree beats the ring, if the tree reaches only
    ``tree_efficiency`` × β.

    With ``L`` steps and ``c·S`` critical bytes (ring ``L_r = 2(N−1)``, ``c_r = 2(N−1)/N``; tree ``L_t =
    2⌈log₂N⌉``, ``c_t = 2``, both from :func:`clusterlab.communication.collectives.traffic`), the tree is faster while
    ``L_t α + c_t S/(eβ) < L_r α + c_r S/β``, i.e. below ``S* = (L_r − L_t)αβ / (c_t/e − c_r)``. For ``e = 1``
    this is ``N·α·β·(N − 1 − ⌈log₂N⌉)`` (:func:`clusterlab.communication.collectives.tree_ring_crossover`); 0 when the
    ring
    takes no more steps than the tree (N ≤ 3). ``tree_efficiency`` must be in (0, 1].
    """
    n = int_in_range("ranks", ranks, 2)
    alpha = non_negative("latency", latency)
    beta = positive("bandwidth", bandwidth)
    e = positive("tree_efficiency", tree_efficiency)
    if e > 1:
        raise ValueError(f"tree_efficiency must be in (0, 1], got {tree_efficiency!r}")
    ring_t = collectives.traffic("all_reduce", 1.0, n, "ring")
    tree_t = collectives.traffic("all_reduce", 1.0, n, "tree")
    extra_steps = ring_t.steps - tree_t.steps
    if extra_steps <= 0:
        return 0.0
    per_byte = tree_t.critical / e - ring_t.critical  # extra critical bytes of the tree per byte of S
    if per_byte <= 0:
        return math.inf
    return extra_steps * alpha * beta / per_byte


def nhr_all_reduce_time(size: float, ranks: int, latency: float, bandwidth: float) -> float:
    """HCCL's NHR all-reduce in the α-β model of its own documentation: ``2⌈log₂N⌉α + 2S(N−1)/(Nβ)``.

    NHR (Nonuniform Hierarchical Ring) runs a reduce-scatter, then an all-gather, each in ``⌈log₂N⌉`` steps (the
    reduce-scatter exchanges ``S/2`` first and half as much every further step), for any N, not only powers of
    two. The reduction term ``γ`` of the documentation is left out, as everywhere in this book. Source: CANN
    ``hccl`` repository, ``docs/en/user_guide/coll_algo_intro/NHR.md`` (Time Consumption Calculation, Table 1).
    """
    s = non_negative("size", size)
    n = int_in_range("ranks", ranks, 2)
    alpha = non_negative("latency", latency)
    beta = positive("bandwidth", bandwidth)
    steps = 2 * (n - 1).bit_length()  # 2⌈log₂N⌉
    return steps * alpha + collectives.send_volume("all_reduce", s, n) / beta


# --------------------------------------------------------------------------------------------------------
# measured time → algbw, busbw
# --------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class BandwidthReport:
    """What nccl-tests prints for one measurement: ``algbw = S/t`` and ``busbw = algbw × factor`` (B/s)."""

    op: str
    size: float
    ranks: int
    time: float
    algbw: float
    busbw: float
    factor: float

    def utilisation(self, link_bandwidth: float) -> float:
        """``busbw / β``: the fraction of the per-direction link speed the measurement reached."""
        return self.busbw / positive("link_bandwidth", link_bandwidth)


def measured_bandwidth(op: str, size: float, ranks: int, time: float) -> BandwidthReport:
    """algbw and busbw of a call of ``op`` on ``size`` bytes and ``ranks`` ranks that took ``time`` s.

    ``size`` is nccl-tests' ``S``: the per-rank buffer of all-reduce, the *total* array of all-gather and
    reduce-scatter (``count × sizeof(type) × n``). Factor from
    :func:`clusterlab.communication.collectives.busbw_factor`.
    """
    factor = collectives.busbw_factor(op, ranks)
    a = collectives.algbw(size, time)
    b = collectives.busbw(op, size, ranks, time)
    return BandwidthReport(op, float(size), int(ranks), float(time), a, b, factor)


def multi_nic_bandwidth(intra_bandwidth: float, nic_bandwidth: float, nics: int) -> float:
    """Per-direction bandwidth β (B/s) that a ring collective across nodes sees when each node uses ``nics`` NICs.

    NCCL splits one collective over several channels, one ring each, and can send each channel's node crossing
    through a different NIC (rail-optimised nodes: NIC i of every node on its own network rail). In every ring
    step a rank sends ``S/N`` over the intra-node link (NVLink), which all channels share, while the ``S/N`` that
    leaves the node is split over the ``k`` NICs: a step takes ``max(S/(N·β_intra), S/(N·k·β_nic))``, i.e.
    ``β = min(β_intra, k·β_nic)``.
    ``k = 1``: one ring over one NIC (also a group with one rank per node). ``intra_bandwidth``, ``nic_bandwidth`` > 0
    in B/s per direction; ``nics`` an integer 1 … 64. Use the result as ``bandwidth`` of
    :func:`.collectives.alpha_beta_time`.
    """
    b_in, b_nic = positive("intra_bandwidth", intra_bandwidth), positive("nic_bandwidth", nic_bandwidth)
    k = int_in_range("nics", nics, 1, 64)
    return min(b_in, k * b_nic)
