"""Where a parallel group's ranks sit, and what its collectives cost level by level (集群篇 §2.2, §3, §4).

**Placement.** Ranks are numbered along an order of the axes, innermost first — Megatron-Core's default
``tp-cp-ep-dp-pp`` (the expert axis splits data parallelism), Llama 3's ``tp-cp-pp-dp`` (Grattafiori et al. 2024,
§3.3.2: "[TP, CP, PP, DP] ... the innermost parallelism requires the highest network bandwidth"). A group of
``n`` ranks with stride ``σ`` (the product of the axes inside it) has ``k_ℓ = clamp(size_ℓ/σ, 1, n)`` members in
each block of level ``ℓ``.

**Hierarchical collectives.** A reduce-scatter (or all-gather) of ``S`` bytes over such a group runs as one ring per
level: at level ``ℓ`` the ``r_ℓ = k_ℓ/k_{ℓ−1}`` blocks below exchange, each of the ``k_{ℓ−1}`` members of a block
carrying ``1/k_{ℓ−1}`` of the data on its own link (one NIC per GPU, rail-wired), so level ``ℓ`` costs
``(r_ℓ − 1)·α_ℓ + S(r_ℓ − 1)/(r_ℓ·k_{ℓ−1}·β_ℓ)`` — the two-level scheme of §2.2 applied to every tier; a group that
stays inside a pod never touches the links above it. An all-reduce is priced as its two halves (reduce-scatter,
then all-gather). In an all-to-all each rank
sends ``S(n − 1)/n``, the share addressed to other blocks of level ``ℓ`` on that level's link. Each call also pays
NCCL's base latency (8.4 µs, Simple protocol, ``baseLat`` in ``src/graph/tuning.cc``).

Every function returns a :class:`~clusterlab.communication.cost.Cost` — the package's one cost value: a term per
level (its latency steps and bytes, priced at that level's α and β) and the base latency as the call's overhead.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ...communication.cost import ZERO, Cost, Term
from .system import System

__all__ = ["BASE_LATENCY", "ORDERS", "ZERO", "Cost", "all_to_all", "members", "reduce_scatter", "ring_all_reduce",
           "send"]

BASE_LATENCY = 8.4e-6  # s per collective call (NCCL tuning.cc, baseLat, Ring/Simple)
ORDERS = {"megatron": ("tp", "cp", "ep", "dp", "pp"), "llama3": ("tp", "cp", "pp", "dp")}


def stride(axis: str, sizes: Mapping[str, int], order: Sequence[str]) -> int:
    """The distance in ranks between neighbours of ``axis``: the product of the sizes of the axes inside it."""
    s = 1
    for a in order:
        if a == axis:
            return s
        s *= sizes.get(a, 1)
    raise ValueError(f"axis must be one of {tuple(order)}, got {axis!r}")


def members(n: int, step: int, system: System) -> tuple[int, ...]:
    """Members of a group of ``n`` ranks with stride ``step`` inside one block of each level."""
    out = []
    for lv in system.levels:
        k = lv.size // step if step < lv.size else 1
        out.append(max(1, min(n, k)))
    out[-1] = n
    return tuple(out)


def reduce_scatter(size: float, n: int, step: int, system: System) -> Cost:
    """Reduce-scatter (or all-gather) of a buffer of ``size`` bytes over ``n`` ranks with stride ``step``."""
    if n <= 1 or size <= 0:
        return ZERO
    ks = members(n, step, system)
    terms, below = [], 1
    for lv, k in zip(system.levels, ks, strict=True):
        r = k // below if k >= below else 1
        if r > 1:
            terms.append(Term(lv.name, float(r - 1), size * (r - 1) / (r * below), lv.latency, lv.bandwidth))
        below = max(below, k)
    return Cost(tuple(terms), BASE_LATENCY)


def ring_all_reduce(size: float, n: int, step: int, system: System) -> Cost:
    """An all-reduce, priced as two reduce-scatter passes (its second half moves the same bytes in as many steps)."""
    return reduce_scatter(size, n, step, system) * 2


def all_to_all(size: float, n: int, step: int, system: System) -> Cost:
    """All-to-all: each rank holds ``size`` bytes, ``size/n`` for every rank; the share for ranks in other blocks of
    level ``ℓ`` crosses level ``ℓ``'s link (pairwise exchange, ``n − 1`` latency steps on the outermost level)."""
    if n <= 1 or size <= 0:
        return ZERO
    ks = members(n, step, system)
    terms, below = [], 1
    for lv, k in zip(system.levels, ks, strict=True):
        if k > below:  # the share addressed to ranks in this block but outside the block below
            terms.append(Term(lv.name, float(k - below), size * (k - below) / n, lv.latency, lv.bandwidth))
        below = max(below, k)
    return Cost(tuple(terms), BASE_LATENCY)


def send(size: float, step: int, system: System) -> Cost:
    """One point-to-point message of ``size`` bytes to the rank ``step`` away, on the lowest level joining them."""
    if size <= 0:
        return ZERO
    lv = next((x for x in system.levels if step < x.size), system.levels[-1])
    return Cost((Term(lv.name, 1.0, size, lv.latency, lv.bandwidth),), BASE_LATENCY)
