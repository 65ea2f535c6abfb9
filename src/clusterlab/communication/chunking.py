"""How many chunks a pipelined ring all-reduce should use: terms of the time, exact optimum, flat bottom.

The model is the chunked ring of :mod:`clusterlab.communication.ring` (see the comment block above
:func:`clusterlab.communication.ring.pipelined_time`): ``N`` ranks, one buffer of ``S`` bytes per rank cut into ``N``
blocks and
every block into ``c`` chunks of ``b = S/(N c)`` bytes; between two neighbours the data crosses ``h``
store-and-forward stages, each taking ``τ = α + b/β`` per chunk. Then

    T(c) = K(c)·τ,   K(c) = 2(N−1)·max(c, h) + min(c, h) − 1     (number of τ-slots on the critical path).

This module adds what the book needs on top of that closed form:

* :func:`chain_time` — the warm-up: one message of ``S`` bytes through ``h`` stages in ``c`` chunks,
  ``(c + h − 1)(α + S/(cβ))`` (classic pipelining; optimum ``sqrt((h−1)S/(αβ))``).
* :func:`pipelined_terms` — ``T(c)`` split into a latency part ``K·α`` and a bandwidth part ``K·b/β``.
* :func:`best_chunks` — the exact integer optimum over **all** ``c ≥ 1``. ``T`` is convex in ``c`` on
  ``[1, ∞)`` (each branch is of the form ``(A + kc)(α + B/c)``, and at ``c = h`` the slope jumps *up* by
  ``(2N−3)(α + B/h)``), so the minimiser is the stationary point of one branch or the kink ``c = h``:

    - small messages, ``S ≤ αβN h²/(2(N−1)h − 1)``: ``c* = sqrt((2(N−1)h − 1)·S/(Nαβ)) ≤ h``
      (fewer chunks than stages: the time per step is dominated by α);
    - large messages, ``S ≥ 2N(N−1)αβ h²/(h − 1)``: ``c* = sqrt((h−1)S/(2N(N−1)αβ)) ≥ h``;
    - in between: ``c* = h``.

  :attr:`ChunkChoice.continuous` is the minimiser over all ``c ≥ 1``, :attr:`ChunkChoice.regime` says on which
  side of ``h`` it lies, and :attr:`ChunkChoice.sweet_spot` is the ``c ≥ h`` branch alone (never below ``h``).
* :func:`near_optimal_range` — all ``c`` within a tolerance of the optimum: the bottom of the U is wide.
* :func:`regime_sizes` — the two message sizes above.
* :func:`compare_with_simulation` — closed form vs :func:`clusterlab.communication.ring.simulate_pipelined`.

All quantities SI (bytes, seconds, B/s). Source of the model and its derivation: this package (flow-shop
reasoning, no external source); the single-chain formula is the textbook pipelining result.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from ..validate import int_in_range, non_negative, positive
from . import ring

__all__ = [
    "ChunkChoice",
    "ChunkComparison",
    "PipelineTerms",
    "best_chunks",
    "chain_time",
    "compare_with_simulation",
    "near_optimal_range",
    "pipelined_terms",
    "regime_sizes",
]

Regime = Literal["fewer_than_stages", "equal_to_stages", "more_than_stages"]


def _check(
    size: float, ranks: int, latency: float, bandwidth: float, stages: int
) -> tuple[float, int, float, float, int]:
    s = non_negative("size", size)
    n = int_in_range("ranks", ranks, 2)
    a = non_negative("latency", latency)
    b = positive("bandwidth", bandwidth)
    h = int_in_range("stages", stages, 1)
    return s, n, a, b, h


# --------------------------------------------------------------------------------------------------------
# warm-up: one message through h stages
# --------------------------------------------------------------------------------------------------------
def chain_time(size: float, chunks: int, latency: float, bandwidth: float, *, stages: int = 3) -> float:
    """One message of ``size`` bytes through ``stages`` store-and-forward stages, cut into ``chunks`` chunks.

    ``(c + h − 1)·(α + S/(cβ))``: the first chunk needs ``h`` slots to cross all stages, after that one chunk
    leaves the last stage per slot. ``h = 1`` gives ``cα + S/β``: on a single stage chunking only adds α.
    """
    s = non_negative("size", size)
    c = int_in_range("chunks", chunks, 1)
    a = non_negative("latency", latency)
    b = positive("bandwidth", bandwidth)
    h = int_in_range("stages", stages, 1)
    return (c + h - 1) * (a + s / (c * b))


# --------------------------------------------------------------------------------------------------------
# the ring: terms, exact optimum, flat bottom
# --------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class PipelineTerms:
    """``T(c)`` of the chunked ring split into its parts.

    ``slots`` K = ``2(N−1)·max(c, h) + min(c, h) − 1``; ``chunk_bytes`` b = ``S/(Nc)``; ``chunk_time``
    τ = ``α + b/β``; ``latency_part`` = ``K·α``; ``bandwidth_part`` = ``K·b/β``; ``bandwidth_bound`` =
    ``2S(N−1)/(Nβ)``, the bandwidth term of the plain ring (the lower bound of §2); ``stalls`` is True when
    ``c < h`` (every step waits for its first chunk to cross all stages).
    """

    chunks: int
    stages: int
    slots: int
    chunk_bytes: float
    chunk_time: float
    latency_part: float
    bandwidth_part: float
    bandwidth_bound: float
    stalls: bool

    @property
    def time(self) -> float:
        """``T(c) = latency_part + bandwidth_part``; equals :func:`clusterlab.communication.ring.pipelined_time`."""
        return self.latency_part + self.bandwidth_part


def pipelined_terms(
    size: float, ranks: int, chunks: int, latency: float, bandwidth: float, *, stages: int = 3
) -> PipelineTerms:
    """The closed form of :func:`clusterlab.communication.ring.pipelined_time`, term by term (see
    :class:`PipelineTerms`)."""
    s, n, a, b, h = _check(size, ranks, latency, bandwidth, stages)
    c = int_in_range("chunks", chunks, 1)
    k = ring.pipeline_slots(n, c, h)
    chunk = s / (n * c)
    return PipelineTerms(
        chunks=c,
        stages=h,
        slots=k,
        chunk_bytes=chunk,
        chunk_time=a + chunk / b,
        latency_part=k * a,
        bandwidth_part=k * chunk / b,
        bandwidth_bound=2 * s * (n - 1) / (n * b),
        stalls=c < h,
    )


@dataclass(frozen=True)
class ChunkChoice:
    """Exact optimum of :func:`clusterlab.communication.ring.pipelined_time` over integers ``1 ≤ c (≤ max_chunks)``.

    ``chunks`` (ties go to the smaller ``c``), its ``time`` (s), ``chunk_bytes`` = ``S/(N·chunks)``, the
    continuous minimiser ``continuous`` over ``c ≥ 1`` (``inf`` when α = 0 and ``h > 1``) and the ``regime``:
    ``"fewer_than_stages"``, ``"equal_to_stages"`` or ``"more_than_stages"`` (where ``continuous`` lies
    relative to ``h``). ``sweet_spot`` is the sweet-spot formula ``max(h, sqrt((h−1)S/(2N(N−1)αβ)))``: the
    minimiser of the ``c ≥ h`` branch only (``inf`` when α = 0), which the book's figures draw next to ``chunks``.
    """

    chunks: int
    time: float
    chunk_bytes: float
    continuous: float
    regime: Regime
    sweet_spot: float


def _continuous(s: float, n: int, a: float, b: float, h: int) -> tuple[float, Regime]:
    big_b = s / (n * b)  # bytes-per-block time S/(Nβ)
    if a == 0:
        if h == 1 or big_b == 0:
            return 1.0, "equal_to_stages" if h == 1 else "fewer_than_stages"
        return math.inf, "more_than_stages"
    a_lo = 2 * (n - 1) * h - 1
    if a * h * h >= a_lo * big_b:  # slope of the c ≤ h branch at c = h is ≥ 0
        c_lo = max(1.0, math.sqrt(a_lo * big_b / a))
        return c_lo, ("equal_to_stages" if c_lo >= h else "fewer_than_stages")
    if 2 * (n - 1) * a * h * h <= (h - 1) * big_b:  # slope of the c ≥ h branch at c = h is ≤ 0
        c_hi = math.sqrt((h - 1) * big_b / (2 * (n - 1) * a))
        return c_hi, ("equal_to_stages" if c_hi <= h else "more_than_stages")
    return float(h), "equal_to_stages"


def best_chunks(
    size: float, ranks: int, latency: float, bandwidth: float, *, stages: int = 3, max_chunks: int | None = None
) -> ChunkChoice:
    """The integer ``c ≥ 1`` that minimises ``T(c)`` exactly, small messages included (see the module doc).

    ``T`` is convex in ``c``, so the best integer is the floor or the ceiling of the continuous minimiser
    (or ``max_chunks`` when that is smaller). α = 0 with ``h > 1`` makes ever finer chunks better: then
    ``max_chunks`` is required.
    """
    s, n, a, b, h = _check(size, ranks, latency, bandwidth, stages)
    cap = None if max_chunks is None else int_in_range("max_chunks", max_chunks, 1)
    cont, regime = _continuous(s, n, a, b, h)
    if math.isinf(cont) and cap is None:
        raise ValueError("latency = 0 makes ever finer chunks better: pass max_chunks to bound the search")
    if math.isinf(cont):
        candidates = {cap if cap is not None else 1}
    else:
        candidates = {max(1, math.floor(cont)), max(1, math.ceil(cont))}
        if cap is not None:
            candidates = {min(c, cap) for c in candidates}
    best = min(sorted(candidates), key=lambda c: ring.pipelined_time(s, n, c, a, b, stages=h))
    # c ≥ h: T = 2(N−1)cα + 2(N−1)k + (h−1)α + (h−1)k/c with k = S/(Nβ), minimum at sqrt((h−1)k/(2(N−1)α))
    k = s / (n * b)
    sweet = math.inf if a == 0 else max(float(h), math.sqrt((h - 1) * k / (2 * (n - 1) * a)))
    return ChunkChoice(best, ring.pipelined_time(s, n, best, a, b, stages=h), s / (n * best), cont, regime, sweet)


def regime_sizes(ranks: int, latency: float, bandwidth: float, *, stages: int = 3) -> tuple[float, float]:
    """``(S_low, S_high)``: below ``S_low`` the best continuous ``c`` is below ``h``; above ``S_high`` above ``h``.

    ``S_low = αβN h²/(2(N−1)h − 1)``, ``S_high = 2N(N−1)αβ h²/(h − 1)`` (``inf`` for ``h = 1``: one stage
    never wants more than one chunk). Between the two, ``c* = h``.
    """
    _, n, a, b, h = _check(0.0, ranks, latency, bandwidth, stages)
    low = a * b * n * h * h / (2 * (n - 1) * h - 1)
    high = math.inf if h == 1 else 2 * n * (n - 1) * a * b * h * h / (h - 1)
    return low, high


def near_optimal_range(
    size: float, ranks: int, latency: float, bandwidth: float, *, stages: int = 3, tolerance: float = 0.05
) -> tuple[int, int]:
    """Smallest and largest integer ``c`` with ``T(c) ≤ (1 + tolerance)·T(c*)``.

    ``T`` is convex, so these ``c`` form one interval around ``c*``; both ends are found by bisection.
    ``latency`` must be > 0 (with α = 0 the range has no upper end).
    """
    s, n, a, b, h = _check(size, ranks, latency, bandwidth, stages)
    if a == 0:
        raise ValueError("latency must be > 0 for a bounded range, got 0")
    tol = non_negative("tolerance", tolerance)
    opt = best_chunks(s, n, a, b, stages=h)
    limit = (1 + tol) * opt.time

    def ok(c: int) -> bool:
        return ring.pipelined_time(s, n, c, a, b, stages=h) <= limit

    # left end: T falls on [1, c*]; find the first c that is ok
    lo, hi = 1, opt.chunks
    while lo < hi:
        mid = (lo + hi) // 2
        if ok(mid):
            hi = mid
        else:
            lo = mid + 1
    left = lo
    # right end: T rises on [c*, ∞); grow an upper bracket, then bisect for the last ok c
    step = 1
    while ok(opt.chunks + step):
        step *= 2
    lo = opt.chunks + step // 2 if step > 1 else opt.chunks  # last c known to be ok
    hi = opt.chunks + step  # first c known not to be ok
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if ok(mid):
            lo = mid
        else:
            hi = mid
    return left, lo


# --------------------------------------------------------------------------------------------------------
# closed form vs discrete-event simulation
# --------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ChunkComparison:
    """One row of :func:`compare_with_simulation`: ``chunks``, ``chunk_bytes``, ``closed_form`` (s, from
    :func:`clusterlab.communication.ring.pipelined_time`), ``simulated`` (s, makespan of
    :func:`clusterlab.communication.ring.simulate_pipelined`)
    and ``busy_fraction`` (share of the makespan a stage is busy)."""

    chunks: int
    chunk_bytes: float
    closed_form: float
    simulated: float
    busy_fraction: float

    @property
    def relative_difference(self) -> float:
        """``|simulated − closed_form| / closed_form`` (0 when both are 0)."""
        if self.closed_form == 0:
            return abs(self.simulated)
        return abs(self.simulated - self.closed_form) / self.closed_form


def compare_with_simulation(
    size: float, ranks: int, chunks: Iterable[int], latency: float, bandwidth: float, *, stages: int = 3
) -> list[ChunkComparison]:
    """Closed form and discrete-event simulation side by side for every ``c`` in ``chunks``."""
    s, n, a, b, h = _check(size, ranks, latency, bandwidth, stages)
    rows = []
    for c in chunks:
        c = int_in_range("chunks", c, 1)
        sched = ring.simulate_pipelined(s, n, c, a, b, stages=h)
        rows.append(
            ChunkComparison(
                chunks=c,
                chunk_bytes=s / (n * c),
                closed_form=ring.pipelined_time(s, n, c, a, b, stages=h),
                simulated=sched.makespan,
                busy_fraction=sched.link_busy_fraction(),
            )
        )
    if not rows:
        raise ValueError("chunks must hold at least one chunk count")
    return rows
