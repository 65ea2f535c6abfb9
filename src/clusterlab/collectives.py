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
    ignored — the chunked model is :func:`clusterlab.ring.pipelined_time`); all-to-all as ``N−1`` pairwise
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

from dataclasses import dataclass
from typing import Final

from .units import check_nonnegative, check_positive, check_ranks

__all__ = [
    "ALGORITHMS",
    "OPS",
    "RankTraffic",
    "Traffic",
    "alpha_beta_time",
    "busbw_factor",
    "rank_traffic",
    "recv_volume",
    "send_volume",
    "steps",
    "traffic",
]

OPS: Final = ("broadcast", "reduce", "all_reduce", "reduce_scatter", "all_gather", "all_to_all", "send_recv")
ALGORITHMS: Final = ("ring", "naive")


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


def _check_op(op: str) -> str:
    if op not in OPS:
        raise ValueError(f"op must be one of {', '.join(OPS)}; got {op!r}")
    return op


def _check_algorithm(algorithm: str) -> str:
    if algorithm not in ALGORITHMS:
        raise ValueError(f"algorithm must be one of {', '.join(ALGORITHMS)}; got {algorithm!r}")
    return algorithm


def traffic(op: str, size: float, ranks: int, algorithm: str = "ring") -> Traffic:
    """Traffic of ``op`` on ``ranks`` ranks with per-rank buffer ``size`` bytes (see module docstring)."""
    _check_op(op)
    _check_algorithm(algorithm)
    s = check_nonnegative("size", size)
    n = check_ranks(ranks)
    f = (n - 1) / n  # fraction of the buffer a rank does not own
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
    _check_op(op)
    n = check_ranks(ranks)
    if op == "all_reduce":
        return 2 * (n - 1) / n
    if op in ("reduce_scatter", "all_gather", "all_to_all"):
        return (n - 1) / n
    return 1.0


def alpha_beta_time(
    op: str, size: float, ranks: int, latency: float, bandwidth: float, algorithm: str = "ring"
) -> float:
    """α-β time in seconds: ``steps·α + bytes_on_the_critical_link / β``.

    Ring all-reduce: ``2(N−1)·α + 2·S·(N−1)/N / β``. Naive all-reduce: ``2α + 2·S·(N−1)/β`` (the root
    first receives ``S(N−1)``, then sends ``S(N−1)``). ``latency`` α ≥ 0 in s, ``bandwidth`` β > 0 in B/s
    per direction.
    """
    t = traffic(op, size, ranks, algorithm)
    alpha = check_nonnegative("latency", latency)
    beta = check_positive("bandwidth", bandwidth)
    return t.steps * alpha + t.critical / beta


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
