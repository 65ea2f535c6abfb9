"""Collective-communication primitives: traffic per rank, bus-bandwidth factors and α-β time.

Notation (used throughout the book): ``N`` ranks, ``S`` bytes = **one rank's full buffer** — the all-reduce
input, the all-gather *output*, the reduce-scatter *input*, the all-to-all buffer (``S/N`` to every peer),
the broadcast / reduce / send-recv message. α = per-message latency in s, β = per-direction link
bandwidth in B/s (see :class:`clusterlab.units.Link`).

Algorithms
----------
``"ring"`` (bandwidth-optimal, point-to-point)
    all-reduce runs a reduce-scatter, then an all-gather, around the ring: ``2(N−1)`` steps, each rank
    sends ``2S(N−1)/N``; reduce-scatter and all-gather: ``N−1`` steps, ``S(N−1)/N``; broadcast and reduce as
    a pipelined chain
    (every rank forwards the whole message once, ``S``; latency ``(N−1)α`` in the pipelined limit, fill cost
    ignored — the chunked model is :func:`clusterlab.communication.ring.pipelined_time`); all-to-all as ``N−1`` pairwise
    exchange steps of ``S/N``; send/recv one message of ``S``.
``"naive"`` (through a root)
    every rank sends what it has to rank 0, rank 0 computes and sends every rank what it needs. The root's
    single link carries everything: for all-reduce it receives and sends ``S(N−1)`` each. Time: one α per
    phase plus the root's received and sent bytes over β (the two phases run one after the other).

Sources: bus-bandwidth factors exactly as nccl-tests ``doc/PERFORMANCE.md``; ring volumes and the
lower bound ``2S(N−1)/N`` for point-to-point all-reduce: Patarasuk & Yuan, *J. Parallel Distrib. Comput.*
69(2), 2009; α-β model: Thakur, Rabenseifner & Gropp, *Int. J. HPC Appl.* 19(1), 2005.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Final

from ..validate import choice, int_in_range, non_negative, positive
from .cost import Cost, link_cost

__all__ = [
    "ALGORITHMS",
    "OPS",
    "SUPPORTED",
    "AlgorithmChoice",
    "RankTraffic",
    "Traffic",
    "algbw",
    "algorithm_crossover",
    "alpha_beta_time",
    "best_algorithm",
    "bucketed_time",
    "busbw",
    "busbw_factor",
    "check_algorithm",
    "check_op",
    "cost",
    "crossover_size",
    "hierarchical_phases",
    "rank_traffic",
    "recv_volume",
    "send_volume",
    "steps",
    "traffic",
    "tree_ring_crossover",
]

OPS: Final = ("broadcast", "reduce", "all_reduce", "reduce_scatter", "all_gather", "all_to_all", "send_recv")
ALGORITHMS: Final = ("ring", "naive", "tree", "halving_doubling", "hierarchical")
#: which ops each algorithm's cost model covers
SUPPORTED: Final[dict[str, tuple[str, ...]]] = {
    "ring": OPS,
    "naive": OPS,
    "tree": ("all_reduce",),
    "halving_doubling": ("all_reduce", "reduce_scatter", "all_gather"),
    "hierarchical": ("all_reduce",),
}


@dataclass(frozen=True)
class Traffic:
    """Bytes moved by one collective call.

    ``send_max`` / ``recv_max``: bytes sent / received by the busiest rank; ``total``: bytes on all links
    together; ``steps``: sequential communication steps (each costs one latency α in the α-β model);
    ``critical``: bytes that cross the bottleneck link one after another (ring: ``send_max``; naive: what
    the root receives plus what it sends), which sets the bandwidth term of the α-β time.
    """

    op: str
    algorithm: str
    size: float
    ranks: int
    send_max: float
    recv_max: float
    total: float
    steps: int
    critical: float


def check_op(op: object) -> str:
    """``op``, or ``ValueError`` unless it is one of :data:`OPS`."""
    return choice("op", op, OPS)


def check_algorithm(algorithm: object, op: object = None) -> str:
    """``algorithm``, or ``ValueError`` unless it is one of :data:`ALGORITHMS` and (given ``op``) models ``op``."""
    alg = choice("algorithm", algorithm, ALGORITHMS)
    if op is not None and op not in SUPPORTED[alg]:
        raise ValueError(f"algorithm {alg!r} is modelled for op in {', '.join(SUPPORTED[alg])} only; got op={op!r}")
    return alg


def _log2_ceil(n: int) -> int:
    return (n - 1).bit_length()


def _log2_floor(n: int) -> int:
    return n.bit_length() - 1


def _check_nodes(ranks: int, ranks_per_node: int | None) -> tuple[int, int]:
    """(G ranks per node, M nodes) for the hierarchical model; G ≥ 2 and M ≥ 2 must divide N exactly."""
    if ranks_per_node is None:
        raise ValueError("algorithm='hierarchical' needs ranks_per_node (ranks in one node, e.g. 8)")
    g = int_in_range("ranks_per_node", ranks_per_node, 2)
    if ranks % g or ranks // g < 2:
        raise ValueError(
            f"ranks_per_node must divide ranks into at least 2 nodes; got ranks={ranks}, ranks_per_node={g}"
        )
    return g, ranks // g


def traffic(
    op: str, size: float, ranks: int, algorithm: str = "ring", *, ranks_per_node: int | None = None
) -> Traffic:
    """Traffic of ``op`` on ``ranks`` ranks with per-rank buffer ``size`` bytes (see module docstring).

    ``ranks_per_node`` G is required by (and only by) ``algorithm="hierarchical"``. For ``hierarchical`` the
    numbers add intra-node (NVLink) and inter-node (NIC) bytes and steps, which cross different links: use
    :func:`alpha_beta_time` for its time, not ``critical/β``.
    """
    check_op(op)
    check_algorithm(algorithm, op)
    s = non_negative("size", size)
    n = int_in_range("ranks", ranks, 2)
    f = (n - 1) / n  # fraction of the buffer a rank does not own
    if algorithm == "hierarchical":
        g, m = _check_nodes(n, ranks_per_node)
        intra = 2 * s * (g - 1) / g
        inter = 2 * (s / g) * (m - 1) / m
        vol = intra + inter
        return Traffic(op, algorithm, s, n, vol, vol, vol * n, 2 * (g - 1) + 2 * (m - 1), critical=vol)
    if ranks_per_node is not None:
        raise ValueError("ranks_per_node is only used by algorithm='hierarchical'")
    if algorithm == "tree":
        # pipelined double binary tree: each rank is an inner node of one tree and a leaf of the other
        steps_ = 2 * _log2_ceil(n)
        vol = 2 * s if n > 2 else s
        return Traffic(op, algorithm, s, n, vol, vol, vol * n, steps_, critical=vol)
    if algorithm == "halving_doubling":
        p = 1 << _log2_floor(n)  # largest power of two <= N
        extra = n - p
        per_phase = s * (p - 1) / p
        phases = 2 if op == "all_reduce" else 1
        # N not a power of two: each of the N−p extra ranks hands its data to a partner first and gets its result
        # back at the end (all-reduce: S each way; reduce-scatter: S in, its S/N piece back; all-gather: its S/N
        # piece in, the whole S back). The two hand-overs are separate phases, so their bytes add up in time.
        hand_in = s / n if op == "all_gather" else s
        hand_back = s / n if op == "reduce_scatter" else s
        vol = phases * per_phase + (hand_back if extra else 0.0)
        n_steps = phases * _log2_floor(n) + (2 if extra else 0)
        critical = phases * per_phase + (hand_in + hand_back if extra else 0.0)
        total = phases * per_phase * p + (hand_in + hand_back) * extra
        return Traffic(op, algorithm, s, n, vol, vol, total, n_steps, critical=critical)
    if algorithm == "ring":
        # (busiest send, busiest receive, total over links, steps)
        table: dict[str, tuple[float, float, float, int]] = {
            "broadcast": (s, s, s * (n - 1), n - 1),
            "reduce": (s, s, s * (n - 1), n - 1),
            "all_reduce": (2 * s * f, 2 * s * f, 2 * s * f * n, 2 * (n - 1)),
            "reduce_scatter": (s * f, s * f, s * f * n, n - 1),
            "all_gather": (s * f, s * f, s * f * n, n - 1),
            "all_to_all": (s * f, s * f, s * f * n, n - 1),
            "send_recv": (s, s, s, 1),
        }
    else:  # naive: through rank 0. (root sends, root receives, a non-root sends, a non-root receives, steps)
        root_send, root_recv, other_send, other_recv = _naive_root_and_others(op, s, n)
        n_steps = 1 if op in ("broadcast", "reduce", "send_recv") else 2
        others = 1 if op == "send_recv" else n - 1
        return Traffic(
            op,
            algorithm,
            s,
            n,
            send_max=max(root_send, other_send),
            recv_max=max(root_recv, other_recv),
            total=root_send + others * other_send,
            steps=n_steps,
            critical=root_send + root_recv,
        )
    send_max, recv_max, total, n_steps = table[op]
    return Traffic(op, algorithm, s, n, send_max, recv_max, total, n_steps, critical=send_max)


def _naive_root_and_others(op: str, s: float, n: int) -> tuple[float, float, float, float]:
    """(root sends, root receives, a non-root sends, a non-root receives) when everything goes through rank 0."""
    f = (n - 1) / n
    naive: dict[str, tuple[float, float, float, float]] = {
        "broadcast": (s * (n - 1), 0.0, 0.0, s),
        "reduce": (0.0, s * (n - 1), s, 0.0),
        "all_reduce": (s * (n - 1), s * (n - 1), s, s),
        # non-roots send their whole input; the root returns each rank its reduced S/N chunk
        "reduce_scatter": (s * f, s * (n - 1), s, s / n),
        # non-roots send their S/N piece; the root sends each rank the (N-1)/N it lacks
        "all_gather": (s * f * (n - 1), s * f, s / n, s * f),
        # non-roots send their outgoing (N-1)/N·S to the root, which forwards each rank its (N-1)/N·S
        "all_to_all": (s * f * (n - 1), s * f * (n - 1), s * f, s * f),
        "send_recv": (s, 0.0, 0.0, s),
    }
    return naive[op]


def send_volume(op: str, size: float, ranks: int, algorithm: str = "ring") -> float:
    """Bytes sent by the busiest rank. Ring all-reduce: ``2·S·(N−1)/N``; naive all-reduce: ``S·(N−1)``."""
    return traffic(op, size, ranks, algorithm).send_max


def recv_volume(op: str, size: float, ranks: int, algorithm: str = "ring") -> float:
    """Bytes received by the busiest rank (the root of the naive scheme receives ``S·(N−1)``)."""
    return traffic(op, size, ranks, algorithm).recv_max


def steps(op: str, ranks: int, algorithm: str = "ring") -> int:
    """Sequential communication steps (latency terms): ring all-reduce ``2(N−1)``."""
    return traffic(op, 0.0, ranks, algorithm).steps


def busbw_factor(op: str, ranks: int) -> float:
    """nccl-tests bus-bandwidth factor: ``busbw = algbw × factor`` with ``algbw = S / t``.

    all_reduce ``2(n−1)/n``; reduce_scatter, all_gather, all_to_all ``(n−1)/n``; broadcast, reduce,
    send_recv ``1`` (NVIDIA/nccl-tests, ``doc/PERFORMANCE.md``). busbw is the figure to compare with the
    per-direction link speed: a bandwidth-optimal algorithm on a link of β B/s shows busbw → β.
    """
    check_op(op)
    n = int_in_range("ranks", ranks, 2)
    if op == "all_reduce":
        return 2 * (n - 1) / n
    if op in ("reduce_scatter", "all_gather", "all_to_all"):
        return (n - 1) / n
    return 1.0


def cost(
    op: str,
    size: float,
    ranks: int,
    latency: float,
    bandwidth: float,
    algorithm: str = "ring",
    *,
    ranks_per_node: int | None = None,
    intra_latency: float | None = None,
    intra_bandwidth: float | None = None,
) -> Cost:
    """The α-β cost of one call, as a :class:`~clusterlab.communication.cost.Cost`: ``steps·α`` plus the bytes on the
    critical link over β, kept apart (``.latency``, ``.bandwidth``, ``.time``).

    ``latency`` α ≥ 0 in s and ``bandwidth`` β > 0 in B/s per direction. Models (``N`` ranks, ``S`` bytes):

    * ``ring``: all-reduce ``2(N−1)α + 2S(N−1)/(Nβ)``; reduce-scatter / all-gather ``(N−1)α + S(N−1)/(Nβ)``.
    * ``naive`` (through rank 0): all-reduce ``2α + 2S(N−1)/β`` (the root receives, then sends, ``S(N−1)``).
    * ``tree`` (all-reduce, pipelined double binary tree as in NCCL ≥ 2.4): ``2⌈log₂N⌉α + 2S/β`` — latency
      logarithmic in N, bandwidth term ``2S/β`` instead of ring's ``2S(N−1)/(Nβ)``; pipeline fill ignored.
    * ``halving_doubling`` (recursive halving reduce-scatter + recursive doubling all-gather; Thakur,
      Rabenseifner & Gropp 2005, §4): with ``p = 2^⌊log₂N⌋``, all-reduce ``2log₂p·α + 2S(p−1)/(pβ)``; when N is
      not a power of two the ``N−p`` extra ranks first hand their data to a partner and get the result back at
      the end: ``+ 2α + 2S/β`` (reduce-scatter and all-gather: ``+ 2α + S(1 + 1/N)/β``).
    * ``hierarchical`` (all-reduce, two levels): intra-node reduce-scatter over the ``G = ranks_per_node`` local
      ranks (``intra_latency``, ``intra_bandwidth``; default: the inter-node values), then ``G`` concurrent
      inter-node ring all-reduces of ``S/G`` bytes over the ``M = N/G`` nodes (``latency``, ``bandwidth``: one
      NIC per rank), then intra-node all-gather: ``2(G−1)α_in + 2S(G−1)/(Gβ_in) + 2(M−1)α + 2(S/G)(M−1)/(Mβ)``.
      Note the inter-node phase moves ``S/G`` per rank, not ``S``. Its terms sit on two links, ``"intra"`` and
      ``"inter"`` (:func:`hierarchical_phases` gives the three phases one by one); a flat algorithm's on ``"link"``.

    Limits of these models (what they leave out on purpose): every flat algorithm prices every message at the
    one (α, β) given — one channel, one NIC per rank, no contention; ``tree`` assumes both trees stream at full
    link speed (NCCL's own tuner discounts its trees); ``halving_doubling`` assumes a full-bisection network where
    exchanges with distant partners do not collide, so for a power-of-two N it is never slower than the ring —
    NCCL does not implement it, and on rings of NVLink or oversubscribed fabrics it loses that edge.
    """
    alpha = non_negative("latency", latency)
    beta = positive("bandwidth", bandwidth)
    if algorithm == "hierarchical":
        rs, inter, ag = hierarchical_phases(size, ranks, ranks_per_node, alpha, beta, intra_latency=intra_latency,
                                            intra_bandwidth=intra_bandwidth, op=op)
        return Cost(rs.terms + inter.terms + ag.terms)  # in phase order: .time is the three phases' sum
    if intra_latency is not None or intra_bandwidth is not None:
        raise ValueError("intra_latency and intra_bandwidth are only used by algorithm='hierarchical'")
    t = traffic(op, size, ranks, algorithm, ranks_per_node=ranks_per_node)
    return link_cost("link", t.steps, t.critical, alpha, beta)


def hierarchical_phases(
    size: float,
    ranks: int,
    ranks_per_node: int | None,
    latency: float,
    bandwidth: float,
    *,
    intra_latency: float | None = None,
    intra_bandwidth: float | None = None,
    op: str = "all_reduce",
) -> tuple[Cost, Cost, Cost]:
    """The two-level all-reduce's three phases, each a :class:`~clusterlab.communication.cost.Cost`: the
    intra-node reduce-scatter over the ``G = ranks_per_node`` local ranks (link ``"intra"``), ``G`` concurrent
    inter-node ring all-reduces of ``S/G`` bytes over the ``M = N/G`` nodes (link ``"inter"``, one NIC per rank),
    and the intra-node all-gather. ``latency``/``bandwidth`` price the inter-node link, ``intra_*`` the
    intra-node one (default: the inter-node values)."""
    check_op(op)
    check_algorithm("hierarchical", op)
    s = non_negative("size", size)
    n = int_in_range("ranks", ranks, 2)
    g, m = _check_nodes(n, ranks_per_node)
    alpha = non_negative("latency", latency)
    beta = positive("bandwidth", bandwidth)
    a_in = alpha if intra_latency is None else non_negative("intra_latency", intra_latency)
    b_in = beta if intra_bandwidth is None else positive("intra_bandwidth", intra_bandwidth)
    half = traffic("reduce_scatter", s, g)
    whole = traffic("all_reduce", s / g, m)
    rs = link_cost("intra", half.steps, half.critical, a_in, b_in)
    return rs, link_cost("inter", whole.steps, whole.critical, alpha, beta), rs


def alpha_beta_time(
    op: str,
    size: float,
    ranks: int,
    latency: float,
    bandwidth: float,
    algorithm: str = "ring",
    *,
    ranks_per_node: int | None = None,
    intra_latency: float | None = None,
    intra_bandwidth: float | None = None,
) -> float:
    """The α-β time in s, ``cost(...).time`` (see :func:`cost` for the models and their limits)."""
    return cost(op, size, ranks, latency, bandwidth, algorithm, ranks_per_node=ranks_per_node,
                intra_latency=intra_latency, intra_bandwidth=intra_bandwidth).time


def crossover_size(latency: float, bandwidth: float) -> float:
    """``n* = α·β`` bytes: the message size at which one message's latency and transfer time are equal.

    Much smaller messages are latency-bound (their time barely depends on size), much larger ones are
    bandwidth-bound. E.g. α = 5 µs, β = 25 GB/s → 125 KB.
    """
    return non_negative("latency", latency) * positive("bandwidth", bandwidth)


def tree_ring_crossover(ranks: int, latency: float, bandwidth: float) -> float:
    """All-reduce size ``S*`` (bytes) below which the ``tree`` model beats ``ring``.

    Setting ``2⌈log₂N⌉α + 2S/β = 2(N−1)α + 2S(N−1)/(Nβ)`` gives ``S* = N·α·β·(N − 1 − ⌈log₂N⌉)``
    (0 when N ≤ 3: the ring is never slower there).
    """
    n = int_in_range("ranks", ranks, 2)
    return max(0, n - 1 - _log2_ceil(n)) * n * crossover_size(latency, bandwidth)


def algorithm_crossover(
    op: str,
    ranks: int,
    latency: float,
    bandwidth: float,
    first: str,
    second: str,
    **hierarchical: float | int | None,
) -> float:
    """Message size (bytes) at which ``first`` and ``second`` take equal α-β time.

    Every model here is affine in ``S``: ``t(S) = t(0) + k·S``, with ``t(0)`` the cost's latency part and ``k`` its
    bandwidth part per byte. Two such lines meet at ``S* = (t₂(0) − t₁(0)) / (k₁ − k₂)``. Returns ``inf`` when the lines
    are parallel; a negative value means they meet at no real message size (one algorithm is faster for all
    ``S ≥ 0``). Keyword arguments go to the ``hierarchical`` model. :func:`tree_ring_crossover` is the special
    case ring/tree.
    """

    def line(alg: str) -> tuple[float, float]:
        kw = hierarchical if alg == "hierarchical" else {}
        c = cost(op, 1.0, ranks, latency, bandwidth, alg, **kw)  # type: ignore[arg-type]
        return c.latency, c.bandwidth  # the intercept (s) and the slope (s per byte): the model is affine in S

    (a1, k1), (a2, k2) = line(first), line(second)
    return math.inf if k1 == k2 else (a2 - a1) / (k1 - k2)


@dataclass(frozen=True)
class AlgorithmChoice:
    """The cheapest algorithm for one call, with every candidate's α-β time (s)."""

    op: str
    size: float
    ranks: int
    best: str
    times: tuple[tuple[str, float], ...]

    def time(self, algorithm: str) -> float:
        return dict(self.times)[algorithm]


def best_algorithm(
    op: str,
    size: float,
    ranks: int,
    latency: float,
    bandwidth: float,
    candidates: tuple[str, ...] | None = None,
    **hierarchical: float | int | None,
) -> AlgorithmChoice:
    """Pick the algorithm with the smallest :func:`alpha_beta_time` among ``candidates``.

    Default candidates: every algorithm modelled for ``op`` except ``naive`` (and ``hierarchical`` unless
    ``ranks_per_node`` is given). Ties go to the earlier candidate. Keyword arguments are passed to the
    hierarchical model (``ranks_per_node``, ``intra_latency``, ``intra_bandwidth``).
    """
    check_op(op)
    if candidates is None:
        candidates = tuple(
            a for a in ALGORITHMS
            if op in SUPPORTED[a] and a != "naive" and (a != "hierarchical" or hierarchical.get("ranks_per_node"))
        )
    if not candidates:
        raise ValueError("candidates must name at least one algorithm")
    times = []
    for a in candidates:
        extra = hierarchical if a == "hierarchical" else {}
        times.append((a, alpha_beta_time(op, size, ranks, latency, bandwidth, a, **extra)))  # type: ignore[arg-type]
    best = min(times, key=lambda kv: kv[1])[0]
    return AlgorithmChoice(op, float(size), int(ranks), best, tuple(times))


def algbw(size: float, time: float) -> float:
    """Algorithm bandwidth as nccl-tests reports it: ``S / t`` in B/s."""
    return non_negative("size", size) / positive("time", time)


def busbw(op: str, size: float, ranks: int, time: float) -> float:
    """Bus bandwidth ``algbw × busbw_factor(op, N)`` in B/s (nccl-tests ``doc/PERFORMANCE.md``)."""
    return algbw(size, time) * busbw_factor(op, ranks)


def bucketed_time(
    op: str, total_size: float, buckets: int, ranks: int, latency: float, bandwidth: float, algorithm: str = "ring"
) -> float:
    """Time of ``buckets`` back-to-back calls that together move ``total_size`` bytes (equal buckets).

    Each call pays its own latency terms; the bandwidth term is the same as one big call. This is why
    frameworks pack many small gradients into buckets (PyTorch DDP: 25 MiB by default).
    """
    k = int_in_range("buckets", buckets, 1)
    return k * alpha_beta_time(op, non_negative("total_size", total_size) / k, ranks, latency, bandwidth,
                               algorithm)


@dataclass(frozen=True)
class RankTraffic:
    """Bytes each rank sends and receives in one call (``sent[r]``, ``received[r]``, rank 0 first).

    Ring: every rank of all-reduce, reduce-scatter, all-gather and all-to-all moves the same amount; the chain
    of broadcast (reduce) starts (ends) at rank 0, whose upstream (downstream) neighbour is absent. Naive: rank 0
    is the root. The busiest entries and the sums agree with :func:`traffic`.
    """

    op: str
    algorithm: str
    size: float
    ranks: int
    sent: tuple[float, ...]
    received: tuple[float, ...]


def rank_traffic(op: str, size: float, ranks: int, algorithm: str = "ring") -> RankTraffic:
    """Per-rank bytes sent and received by ``op`` (see :class:`RankTraffic`).

    Naive all-reduce: the root sends and receives ``S(N−1)``, every other rank ``S`` each way; ring all-reduce:
    every rank ``2S(N−1)/N`` each way.
    """
    if algorithm not in ("ring", "naive"):
        raise ValueError(f"rank_traffic models algorithm 'ring' or 'naive'; got algorithm={algorithm!r}")
    t = traffic(op, size, ranks, algorithm)
    n, s = t.ranks, t.size
    if op == "send_recv":
        sent = (s,) + (0.0,) * (n - 1)
        received = (0.0, s) + (0.0,) * (n - 2)
    elif algorithm == "ring" and op == "broadcast":  # chain 0 → 1 → … → N−1
        sent = (s,) * (n - 1) + (0.0,)
        received = (0.0,) + (s,) * (n - 1)
    elif algorithm == "ring" and op == "reduce":  # chain N−1 → … → 1 → 0
        sent = (0.0,) + (s,) * (n - 1)
        received = (s,) * (n - 1) + (0.0,)
    elif algorithm == "ring":
        sent = (t.send_max,) * n
        received = (t.recv_max,) * n
    else:
        root_send, root_recv, other_send, other_recv = _naive_root_and_others(op, s, n)
        sent = (root_send,) + (other_send,) * (n - 1)
        received = (root_recv,) + (other_recv,) * (n - 1)
    return RankTraffic(op, algorithm, s, n, sent, received)
