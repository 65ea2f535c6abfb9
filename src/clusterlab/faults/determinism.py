"""Determinism of a gradient all-reduce: the same float32 gradients summed in different orders (§9.6.5).

Floating-point addition rounds every partial sum to the nearest representable number (IEEE 754, round to
nearest, ties to even), so it is commutative but not associative: ``(a + b) + c`` and ``a + (b + c)`` may differ
in the last bits. An all-reduce fixes an order of additions per element; a different algorithm, rank count or
arrival order gives a different order and hence, in general, a different float32 result.

Orders (``N`` ranks, rank ``r`` holds the vector ``x_r``; every order sums all ``N`` vectors element by element):

* ``"ring"``: what :func:`clusterlab.communication.ring.simulate_all_reduce` computes (it is called). Element
  ``i`` in chunk ``c`` (``np.array_split`` boundaries) is summed along the ring starting at rank ``c``:
  ``(((x_c + x_{c+1}) + x_{c+2}) + … ) + x_{c−1}`` (indices mod N) — :func:`ring_order` reads this order from
  the simulator's own schedule. Different chunks of the same vector are summed in different orders.
* ``"tree"``: the single NCCL binary tree of :func:`clusterlab.communication.primitives.simulate`
  (``all_reduce``, ``"tree"``; called): every node adds its children's partial sums to its own vector, smaller
  rank first, from the leaves up to rank 0.
* ``"pairwise"``: pairwise (cascade) summation (Higham 2002, §4.1): ``y_j = x_{2j} + x_{2j+1}``, an odd last term
  carried, repeated until one sum is left — ``⌈log₂N⌉`` levels of additions.
* ``"sequential"``: recursive summation in rank order, ``((x_0 + x_1) + x_2) + … + x_{N−1}``.
* ``"arrival"``: recursive summation in the order the vectors arrive — a permutation of the ranks drawn per run
  from ``seed`` (a reduction that adds whatever comes first, as a parameter server or an atomic add does).

Units: gradients and sums are dimensionless float32 numbers; distances are counted in ULPs (units in the last
place): the number of representable floats between two values, read from their bit patterns.

Error bounds (Higham 2002, §4.2, eq. (4.4) and (4.6); Goldberg 1991, Theorem 8): with unit roundoff
``u = 2⁻²⁴`` (float32; ``2⁻⁵³`` for float64) and ``γ_k = k·u / (1 − k·u)``, any order of additions whose longest
chain from an input to the result has ``k`` additions satisfies ``|ŝ − s| ≤ γ_k · Σ|x_i|``. Recursive summation
(ring, sequential, arrival) has ``k = N − 1``, so ``|ŝ − s| ≤ γ_{N−1}·Σ|x_i| ≤ N·u·Σ|x_i|``; pairwise summation
has ``k = ⌈log₂N⌉``. Since every order of ``N`` terms has ``k ≤ N − 1``, ``γ_{N−1}·Σ|x_i|`` bounds them all.

Sources: IEEE Std 754-2019, §4.3 (rounding) and §6.3; D. Goldberg, "What every computer scientist should know
about floating-point arithmetic", ACM Computing Surveys 23(1):5–48, 1991; N. J. Higham, *Accuracy and Stability
of Numerical Algorithms*, 2nd ed., SIAM 2002, ch. 4 (summation); exactly rounded sums: Python's ``math.fsum``
(Shewchuk's algorithm).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from ..communication.primitives import simulate
from ..communication.ring import simulate_all_reduce
from ..validate import choice, int_in_range

__all__ = [
    "ACCUMULATE",
    "MAX_MAGNITUDE",
    "MAX_RANKS",
    "ORDERS",
    "OrderComparison",
    "OrderSweep",
    "RoundingExample",
    "RunToRun",
    "as_gradients",
    "compare_orders",
    "error_bound",
    "exact_sum",
    "float32_hex",
    "order_sweep",
    "reduce_gradients",
    "repeat_runs",
    "ring_order",
    "rounding_example",
    "sample_gradients",
    "ulp_distance",
    "unit_roundoff",
]

ORDERS: Final = ("ring", "tree", "pairwise", "sequential", "arrival")
#: dtype of the accumulator: float32 throughout, or float64 partial sums rounded once to float32 at the end
ACCUMULATE: Final = ("float32", "float64")
MAX_RANKS: Final = 1024
#: largest |gradient| accepted: sums of up to MAX_RANKS values stay far from float32 overflow (3.4·10³⁸)
MAX_MAGNITUDE: Final = 1e30


# ------------------------------------------------------------------------------------------------------------
# bits and ULPs
# ------------------------------------------------------------------------------------------------------------
def unit_roundoff(dtype: str = "float32") -> float:
    """``u = 2⁻ᵖ`` with ``p`` the significand bits: ``2⁻²⁴`` for float32, ``2⁻⁵³`` for float64 (round to nearest:
    ``fl(a ∘ b) = (a ∘ b)(1 + δ)``, ``|δ| ≤ u``; Goldberg 1991, Higham 2002 §2.2)."""
    d = choice("dtype", dtype, ACCUMULATE)
    return 2.0**-24 if d == "float32" else 2.0**-53


def float32_hex(value: Any) -> str:
    """The bit pattern of ``value`` rounded to float32, as 8 hex digits: ``float32_hex(1.0) == "0x3f800000"``."""
    x = np.asarray(value, dtype=np.float32)
    if x.ndim != 0:
        raise ValueError(f"value must be a single number, got an array of shape {x.shape}")
    return f"0x{int(x.view(np.uint32)):08x}"


def _ordered(x: npt.NDArray[Any]) -> npt.NDArray[np.uint64]:
    """Map float bits to unsigned integers in the order of the values: ``+x`` → sign bit set, ``−x`` → all bits
    inverted. Adjacent floats map to adjacent integers; ``−0`` and ``+0`` are one apart."""
    if x.dtype == np.float32:
        u = x.view(np.uint32).astype(np.uint64)
        sign = np.uint64(1 << 31)
        mask = np.uint64((1 << 32) - 1)
    else:
        u = x.view(np.uint64)
        sign = np.uint64(1 << 63)
        mask = np.uint64((1 << 64) - 1)
    return np.where(u & sign, ~u & mask, u | sign)


def ulp_distance(a: npt.ArrayLike, b: npt.ArrayLike) -> npt.NDArray[np.uint64]:
    """Elementwise number of representable floats between ``a`` and ``b`` (both float32 or both float64, finite).

    Read from the bit patterns: the patterns are mapped to integers in the order of the values (:func:`_ordered`)
    and subtracted. Symmetric; 0 exactly when the bits are identical (``−0`` and ``+0`` count as 1 apart, being
    different bit patterns); 1 for neighbouring floats. Shape: the broadcast shape of ``a`` and ``b``.
    """
    x, y = np.asarray(a), np.asarray(b)
    if x.dtype not in (np.float32, np.float64) or x.dtype != y.dtype:
        raise ValueError(f"a and b must both be float32 or both float64 arrays, got {x.dtype} and {y.dtype}")
    if not (np.all(np.isfinite(x)) and np.all(np.isfinite(y))):
        raise ValueError("a and b must be finite (no NaN or ±inf)")
    ox, oy = np.broadcast_arrays(_ordered(x), _ordered(y))
    out: npt.NDArray[np.uint64] = np.where(ox >= oy, ox - oy, oy - ox)
    return out


# ------------------------------------------------------------------------------------------------------------
# gradients and the orders of summation
# ------------------------------------------------------------------------------------------------------------
def as_gradients(gradients: npt.ArrayLike) -> npt.NDArray[np.float32]:
    """A read-only float32 ``N × L`` copy of ``gradients`` (one row per rank), or ``ValueError`` naming
    ``gradients``: 2 … :data:`MAX_RANKS` rows, at least one column, finite values with ``|x| ≤ 10³⁰``."""
    try:
        g = np.array(gradients, dtype=np.float32, copy=True)
    except (TypeError, ValueError):
        raise ValueError("gradients must be an N × L array of numbers (one row per rank)") from None
    if g.ndim != 2 or g.shape[1] < 1:
        raise ValueError(f"gradients must be an N × L array (one row per rank, L ≥ 1), got shape {g.shape}")
    int_in_range("gradients.shape[0] (ranks)", g.shape[0], 2, MAX_RANKS)
    if not np.all(np.isfinite(g)) or np.abs(g).max() > MAX_MAGNITUDE:
        raise ValueError(f"gradients must be finite with |x| ≤ {MAX_MAGNITUDE:g}")
    g.setflags(write=False)
    return g


def sample_gradients(ranks: int, length: int, *, seed: int = 0, spread_bits: int = 0) -> npt.NDArray[np.float32]:
    """Seeded per-rank float32 gradients, ``N × L``: a common signal plus per-rank noise, both standard normal
    (``g_r = s + ε_r``: every rank sees the same model but different samples). ``spread_bits`` (0 … 60) scales
    every value by ``2^k``, ``k`` a uniform integer in ``−spread_bits … spread_bits``, so that the ranks'
    contributions to one element differ by up to ``2^(2·spread_bits)`` in magnitude. Read-only."""
    n = int_in_range("ranks", ranks, 2, MAX_RANKS)
    n_el = int_in_range("length", length, 1, 1 << 22)
    rng = np.random.default_rng(int_in_range("seed", seed, 0))
    b = int_in_range("spread_bits", spread_bits, 0, 60)
    g = (rng.standard_normal(n_el, dtype=np.float32) + rng.standard_normal((n, n_el), dtype=np.float32))
    if b:
        g = np.ldexp(g, rng.integers(-b, b + 1, size=(n, n_el))).astype(np.float32)
    g.setflags(write=False)
    return g


def ring_order(ranks: int) -> tuple[tuple[int, ...], ...]:
    """For each chunk ``c`` of the ring simulator, the ranks in the order their vectors enter the sum.

    Read from the schedule of :func:`~clusterlab.communication.ring.simulate_all_reduce`: at reduce-scatter step
    0 the first sender of chunk ``c`` contributes, then each receiver adds its own copy. The result is
    ``(c, c+1, …, c−1) mod N``: ``((x_c + x_{c+1}) + …) + x_{c−1}``.
    """
    n = int_in_range("ranks", ranks, 2, MAX_RANKS)
    trace = simulate_all_reduce(np.zeros((n, n), dtype=np.float32))
    order: list[list[int]] = [[] for _ in range(n)]
    for step in trace.steps:
        if step.phase != "reduce_scatter":
            break
        for send in step.sends:
            if not order[send.chunk]:
                order[send.chunk].append(send.src)
            order[send.chunk].append(send.dst)
    return tuple(tuple(o) for o in order)


def _recursive(g: npt.NDArray[Any], ranks: Sequence[int]) -> npt.NDArray[Any]:
    acc: npt.NDArray[Any] = g[ranks[0]].copy()
    for r in ranks[1:]:
        acc += g[r]  # in place: every partial sum rounded to the accumulator dtype
    return acc


def _pairwise(g: npt.NDArray[Any]) -> npt.NDArray[Any]:
    level: list[npt.NDArray[Any]] = list(g)
    while len(level) > 1:
        nxt = [level[j] + level[j + 1] for j in range(0, len(level) - 1, 2)]
        if len(level) % 2:
            nxt.append(level[-1])
        level = nxt
    return level[0].copy()


def _arrival(n: int, seed: int) -> list[int]:
    return [int(r) for r in np.random.default_rng(seed).permutation(n)]


def _reduce(g: npt.NDArray[np.float32], order: str, accumulate: str, seed: int) -> npt.NDArray[Any]:
    """The unvalidated reduction, in the accumulator dtype (not yet rounded to float32)."""
    work = g.astype(np.float64) if accumulate == "float64" else g
    n = g.shape[0]
    if order == "ring":
        ring: npt.NDArray[Any] = simulate_all_reduce(work).final[0].copy()
        return ring
    if order == "tree":
        tree: npt.NDArray[Any] = simulate("all_reduce", work, "tree").final[0].copy()
        return tree
    if order == "pairwise":
        return _pairwise(work)
    if order == "sequential":
        return _recursive(work, range(n))
    return _recursive(work, _arrival(n, seed))


def reduce_gradients(
    gradients: npt.ArrayLike, order: str, *, accumulate: str = "float32", seed: int = 0
) -> npt.NDArray[np.float32]:
    """The elementwise sum over ranks of ``gradients`` (``N × L``) in ``order`` (one of :data:`ORDERS`), length L.

    ``accumulate="float32"``: every partial sum rounded to float32 (what an all-reduce of float32 buffers does);
    ``"float64"``: the same order of additions on float64 partial sums, rounded once to float32 at the end.
    ``seed`` (≥ 0) draws the permutation of ``"arrival"`` and is ignored by the fixed orders.
    """
    g = as_gradients(gradients)
    o = choice("order", order, ORDERS)
    acc = choice("accumulate", accumulate, ACCUMULATE)
    s = int_in_range("seed", seed, 0)
    return _reduce(g, o, acc, s).astype(np.float32)


def _round_exact(col: list[float]) -> float:
    """The exact sum of ``col`` rounded once to float32 (round to nearest, ties to even)."""
    s = math.fsum(col)  # the exact sum correctly rounded to float64
    f = np.float32(s)
    if float(f) == s:
        return float(f)
    other = np.nextafter(f, np.float32(math.copysign(math.inf, s - float(f))))
    midpoint = (float(f) + float(other)) / 2  # exact in float64
    if s != midpoint:
        return float(f)  # the exact sum lies on the same side of the midpoint as s
    rest = math.fsum([*col, -s])  # sign of (exact − s) decides a float64 tie
    if rest == 0:
        return float(f)
    return float(max(f, other) if rest > 0 else min(f, other))


def exact_sum(gradients: npt.ArrayLike) -> npt.NDArray[np.float32]:
    """The exact elementwise sum over ranks, rounded once to float32 — the best any order can give.

    ``math.fsum`` gives the exact sum correctly rounded to float64; where that float64 lies exactly halfway
    between two float32 numbers, the sign of the remainder (again by ``math.fsum``) decides, so the result is the
    exactly rounded float32 (no double rounding). Read-only, length L.
    """
    g = as_gradients(gradients).astype(np.float64)
    out = np.array([_round_exact(g[:, i].tolist()) for i in range(g.shape[1])], dtype=np.float32)
    out.setflags(write=False)
    return out


def error_bound(gradients: npt.ArrayLike, *, additions: int | None = None, accumulate: str = "float32"
                ) -> npt.NDArray[np.float64]:
    """Elementwise ``γ_k·Σ|x_i|`` with ``γ_k = k·u/(1 − k·u)``: the largest error of any order of summation whose
    longest chain from an input to the result has ``k = additions`` additions (default ``N − 1``, recursive
    summation, which bounds every order) — Higham 2002, eq. (4.4) and §4.2. Length L, float64."""
    g = as_gradients(gradients)
    k = g.shape[0] - 1 if additions is None else int_in_range("additions", additions, 1, MAX_RANKS)
    ku = k * unit_roundoff(accumulate)
    out: npt.NDArray[np.float64] = ku / (1 - ku) * np.abs(g.astype(np.float64)).sum(axis=0)
    out.setflags(write=False)
    return out


# ------------------------------------------------------------------------------------------------------------
# comparisons
# ------------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class OrderComparison:
    """The same gradients (``ranks`` × ``length``) summed in each of ``orders`` (:func:`compare_orders`).

    ``sums[k]``: the float32 result of ``orders[k]``; ``exact``: the exactly rounded float32 sum
    (:func:`exact_sum`); ``accumulate``: the accumulator dtype; ``wide``: with ``accumulate="float64"``, the
    float64 partial sums before the final rounding (else the float32 ``sums``). ULPs count float32 steps.
    """

    ranks: int
    length: int
    orders: tuple[str, ...]
    accumulate: str
    sums: npt.NDArray[np.float32] = field(repr=False)
    exact: npt.NDArray[np.float32] = field(repr=False)
    wide: npt.NDArray[Any] = field(repr=False)

    def sum_of(self, order: str) -> npt.NDArray[np.float32]:
        """The float32 result of ``order`` (one of :attr:`orders`), length L."""
        row: npt.NDArray[np.float32] = self.sums[self.orders.index(choice("order", order, self.orders))]
        return row

    def ulp(self, a: str, b: str) -> npt.NDArray[np.uint64]:
        """Elementwise float32 ULP distance between the results of orders ``a`` and ``b``."""
        return ulp_distance(self.sum_of(a), self.sum_of(b))

    def max_ulp(self, a: str, b: str) -> int:
        return int(self.ulp(a, b).max())

    def mean_ulp(self, a: str, b: str) -> float:
        return float(self.ulp(a, b).mean())

    def differing(self, a: str, b: str) -> float:
        """Fraction of the elements whose bits differ between orders ``a`` and ``b`` (0 … 1)."""
        return float(np.count_nonzero(self.ulp(a, b)) / self.length)

    def error_ulp(self, order: str) -> npt.NDArray[np.uint64]:
        """Elementwise float32 ULP distance of ``order``'s result from the exactly rounded sum."""
        return ulp_distance(self.sum_of(order), self.exact)

    def wide_ulp(self, a: str, b: str) -> npt.NDArray[np.uint64]:
        """ULP distance between the accumulators of ``a`` and ``b`` before the final rounding (float64 ULPs when
        ``accumulate="float64"``)."""
        i, j = (self.orders.index(choice("order", o, self.orders)) for o in (a, b))
        return ulp_distance(self.wide[i], self.wide[j])

    def hex(self, order: str, element: int = 0) -> str:
        """The float32 bits of ``order``'s result at ``element``, e.g. ``"0x40a1c3f2"``."""
        i = int_in_range("element", element, 0, self.length - 1)
        return float32_hex(self.sum_of(order)[i])


def compare_orders(
    gradients: npt.ArrayLike,
    orders: Sequence[str] = ("ring", "tree", "pairwise"),
    *,
    accumulate: str = "float32",
    seed: int = 0,
) -> OrderComparison:
    """Sum ``gradients`` (``N × L``, one row per rank) in every one of ``orders`` (see :data:`ORDERS`) and return
    the :class:`OrderComparison` (results, the exactly rounded sum, bits, ULP distances)."""
    g = as_gradients(gradients)
    names = tuple(choice("orders", o, ORDERS) for o in orders)
    if not names or len(set(names)) != len(names):
        raise ValueError(f"orders must be a non-empty sequence of distinct names from {', '.join(ORDERS)}")
    acc = choice("accumulate", accumulate, ACCUMULATE)
    s = int_in_range("seed", seed, 0)
    wide = np.stack([_reduce(g, o, acc, s) for o in names])
    sums = wide.astype(np.float32)
    for arr in (wide, sums):
        arr.setflags(write=False)
    return OrderComparison(g.shape[0], g.shape[1], names, acc, sums, exact_sum(g), wide)


@dataclass(frozen=True)
class OrderSweep:
    """:func:`compare_orders` for every rank count of ``ranks`` on seeded gradients (:func:`sample_gradients`);
    float32 and float64 accumulation side by side."""

    ranks: tuple[int, ...]
    length: int
    seed: int
    float32: tuple[OrderComparison, ...] = field(repr=False)
    float64: tuple[OrderComparison, ...] = field(repr=False)

    def max_ulp(self, a: str, b: str, accumulate: str = "float32") -> npt.NDArray[np.int64]:
        """Per rank count, the largest float32 ULP distance between orders ``a`` and ``b``."""
        return np.array([c.max_ulp(a, b) for c in self._of(accumulate)], dtype=np.int64)

    def mean_ulp(self, a: str, b: str, accumulate: str = "float32") -> npt.NDArray[np.float64]:
        """Per rank count, the mean float32 ULP distance between orders ``a`` and ``b``."""
        return np.array([c.mean_ulp(a, b) for c in self._of(accumulate)])

    def differing(self, a: str, b: str, accumulate: str = "float32") -> npt.NDArray[np.float64]:
        """Per rank count, the fraction of elements whose bits differ between ``a`` and ``b``."""
        return np.array([c.differing(a, b) for c in self._of(accumulate)])

    def max_error_ulp(self, order: str, accumulate: str = "float32") -> npt.NDArray[np.int64]:
        """Per rank count, the largest ULP distance of ``order`` from the exactly rounded sum."""
        return np.array([int(c.error_ulp(order).max()) for c in self._of(accumulate)], dtype=np.int64)

    def _of(self, accumulate: str) -> tuple[OrderComparison, ...]:
        return self.float32 if choice("accumulate", accumulate, ACCUMULATE) == "float32" else self.float64


def order_sweep(
    ranks: Sequence[int] = tuple(range(2, 17)),
    *,
    length: int = 4096,
    orders: Sequence[str] = ("ring", "tree", "pairwise"),
    seed: int = 0,
) -> OrderSweep:
    """Compare ``orders`` for each rank count in ``ranks`` (default N = 2 … 16) on :func:`sample_gradients`
    (``length`` elements, ``seed``), accumulating in float32 and in float64."""
    ns = tuple(int_in_range("ranks", n, 2, MAX_RANKS) for n in ranks)
    if not ns:
        raise ValueError("ranks must hold at least one rank count (an integer in 2 … 1024)")
    n_el = int_in_range("length", length, 1, 1 << 16)
    s = int_in_range("seed", seed, 0)
    grads = [sample_gradients(n, n_el, seed=s) for n in ns]
    f32 = tuple(compare_orders(g, orders, accumulate="float32", seed=s) for g in grads)
    f64 = tuple(compare_orders(g, orders, accumulate="float64", seed=s) for g in grads)
    return OrderSweep(ns, n_el, s, f32, f64)


# ------------------------------------------------------------------------------------------------------------
# run to run
# ------------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class RunToRun:
    """The same reduction executed ``runs`` times (:func:`repeat_runs`); ``sums[k]`` is run ``k``'s result."""

    order: str
    runs: int
    sums: npt.NDArray[np.float32] = field(repr=False)

    @property
    def identical(self) -> bool:
        """True when every run is bit-identical to run 0."""
        return bool(np.all(self.sums.view(np.uint32) == self.sums[0].view(np.uint32)))

    @property
    def max_ulp(self) -> int:
        """The largest ULP distance of any run from run 0, over all elements."""
        return int(ulp_distance(self.sums, self.sums[0]).max())

    @property
    def distinct(self) -> int:
        """How many different bit patterns the runs produce for element 0."""
        return len(set(self.sums[:, 0].view(np.uint32).tolist()))

    def hexes(self, element: int = 0) -> tuple[str, ...]:
        """Run by run, the float32 bits of ``element``."""
        i = int_in_range("element", element, 0, self.sums.shape[1] - 1)
        return tuple(float32_hex(v) for v in self.sums[:, i])


def repeat_runs(gradients: npt.ArrayLike, order: str, runs: int = 5, *, seed: int = 0) -> RunToRun:
    """Execute the reduction ``runs`` times from scratch. A fixed order (``ring``, ``tree``, ``pairwise``,
    ``sequential``) gives the same bits every time; ``"arrival"`` draws run ``k``'s permutation of the ranks from
    ``seed + k``, as if the vectors arrived in a different order each run."""
    g = as_gradients(gradients)
    o = choice("order", order, ORDERS)
    k = int_in_range("runs", runs, 2, 1000)
    s = int_in_range("seed", seed, 0)
    sums = np.stack([_reduce(g, o, "float32", s + i) for i in range(k)]).astype(np.float32)
    sums.setflags(write=False)
    return RunToRun(o, k, sums)


# ------------------------------------------------------------------------------------------------------------
# float64 accumulation does not remove the difference
# ------------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class RoundingExample:
    """Five float32 numbers whose float64 sums, taken in two orders and rounded once to float32, differ.

    ``values``: ``(2⁴⁰, 2⁻⁴⁰, −2⁴⁰, 1, 2⁻²⁴)``, all exact in float32. The exact sum ``1 + 2⁻²⁴ + 2⁻⁴⁰`` lies just
    above the float32 midpoint ``1 + 2⁻²⁴`` and rounds to ``1 + 2⁻²³``. ``order_a`` = ``(0, 2, 1, 3, 4)`` cancels
    the big pair first and keeps ``2⁻⁴⁰`` in the float64 accumulator; ``order_b`` = ``(0, 1, 2, 3, 4)`` adds
    ``2⁻⁴⁰`` to ``2⁴⁰`` first, where float64's 53 bits lose it; its sum lands exactly on the midpoint and ties to
    even, 1.0. ``sums``/``wide``: float32 results / float64 accumulators of (a, b); ``exact``: exactly rounded.
    """

    values: tuple[float, ...]
    order_a: tuple[int, ...]
    order_b: tuple[int, ...]
    wide: tuple[float, float]
    sums: tuple[float, float]
    exact: float

    @property
    def ulp(self) -> int:
        """Float32 ULP distance between the two rounded results (1)."""
        return int(ulp_distance(np.float32(self.sums[0]), np.float32(self.sums[1])))

    @property
    def hexes(self) -> tuple[str, str]:
        return float32_hex(self.sums[0]), float32_hex(self.sums[1])


def rounding_example() -> RoundingExample:
    """The :class:`RoundingExample`: float64 accumulation rounded once still depends on the order."""
    values = (2.0**40, 2.0**-40, -(2.0**40), 1.0, 2.0**-24)
    order_a, order_b = (0, 2, 1, 3, 4), (0, 1, 2, 3, 4)
    g = np.array(values, dtype=np.float64)[:, None]
    wide_a = float(_recursive(g, order_a)[0])
    wide_b = float(_recursive(g, order_b)[0])
    exact = _round_exact(list(values))
    return RoundingExample(values, order_a, order_b, (wide_a, wide_b),
                           (float(np.float32(wide_a)), float(np.float32(wide_b))), exact)
