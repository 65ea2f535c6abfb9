"""One gradient element summed step by step, and one global batch summed under different data-parallel layouts
(§9.6.5).

Two views of the same fact — float32 addition rounds every partial sum, so the result depends on the order of
the additions (:mod:`clusterlab.faults.determinism`):

* :func:`partial_sums` follows **one element** through a linear order of additions (the ring simulator's order
  for the element's chunk, rank order, or an arrival order) and records every partial sum and its bits, next
  to the exact partial sum rounded once to float32. The step at which two orders first part is where their
  bits start to differ.
* :func:`accumulation_precision` sums a long bfloat16 dot product (``K`` terms, one output element per column)
  as a split-K kernel would, with the accumulator in float32 or in bfloat16, for two split counts: the
  accumulator's precision sets both the error and how often two orders of the same additions disagree after the
  output is rounded to bfloat16.
* :func:`layout_sums` sums the **same global batch** of ``M`` per-sample gradients with ``N`` data-parallel
  ranks for several ``N``: rank ``r`` holds the contiguous samples ``r·M/N … (r+1)·M/N − 1`` and adds them in
  sample order (a local float32 sum, as a gradient accumulated over the rank's micro-batch); the ``N`` local
  sums are then all-reduced in one of :data:`~clusterlab.faults.determinism.ORDERS`. Same data, same seed,
  different ``N`` — the mathematical sum is the same, the float32 bits in general are not.

Units: dimensionless float32 gradients; distances in float32 ULPs
(:func:`~clusterlab.faults.determinism.ulp_distance`).

Sources: IEEE Std 754-2019 §4.3 (rounding of every operation); N. J. Higham, *Accuracy and Stability of
Numerical Algorithms*, 2nd ed., SIAM 2002, §4.1 (recursive summation and its order); ring order: Patarasuk &
Yuan, JPDC 69(2), 2009, as implemented by :func:`clusterlab.communication.ring.simulate_all_reduce`.
bfloat16: 1 sign, 8 exponent and 7 stored significand bits (8 with the implicit bit), float32's exponent range;
a float32 addition of two bfloat16 numbers rounded to bfloat16 is the correctly rounded bfloat16 addition, because
24 ≥ 2·8 + 2 makes the double rounding innocuous (S. A. Figueroa, "When is double rounding innocuous?", ACM
SIGNUM Newsletter 30(3):21–26, 1995). Reduced-precision reductions in bf16 GEMMs: PyTorch, *CUDA semantics*,
"Reduced Precision Reduction in BF16 GEMMs".
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Final

import numpy as np
import numpy.typing as npt

from ..communication.buffers import chunk_bounds
from ..validate import choice, finite, int_in_range
from .determinism import (
    MAX_RANKS,
    ORDERS,
    as_gradients,
    error_bound,
    exact_sum,
    float32_hex,
    reduce_gradients,
    ring_order,
    ulp_distance,
)

__all__ = [
    "ACCUMULATORS",
    "LINEAR_ORDERS",
    "AccumulationPrecision",
    "BoundUse",
    "LayoutSums",
    "PartialSums",
    "accumulation_precision",
    "bound_use",
    "layout_sums",
    "longest_chain",
    "partial_sums",
    "round_bfloat16",
    "ulp_size",
]

#: orders that add the ranks one after another (a chain), so that every step has one partial sum
LINEAR_ORDERS: Final = ("ring", "sequential", "arrival")
#: accumulators of :func:`accumulation_precision`: float32 throughout; float32 within each slice, the slices'
#: partial results rounded to bfloat16 and combined in bfloat16 (a reduced-precision split-K reduction);
#: bfloat16 after every addition
ACCUMULATORS: Final = ("float32", "bf16-reduction", "bfloat16")
MAX_TERMS: Final = 1 << 16


def longest_chain(order: str, ranks: int) -> int:
    """The most additions between any input and the result, ``k`` in the bound ``γ_k·Σ|x_i|``: ``N − 1`` for the
    chains of :data:`LINEAR_ORDERS` (every partial sum feeds the next), ``⌈log₂N⌉`` for ``"pairwise"`` (one
    addition per level of the cascade; Higham 2002, §4.1)."""
    o = choice("order", order, (*LINEAR_ORDERS, "pairwise"))
    n = int_in_range("ranks", ranks, 2, MAX_RANKS)
    return (n - 1).bit_length() if o == "pairwise" else n - 1


def ulp_size(value: float) -> float:
    """The size of one float32 ULP at ``value`` (finite, ``|value|`` ≤ float32 max): the gap to the next float32
    away from zero, ``2^(e−23)`` for ``|value|`` in ``[2^e, 2^(e+1))`` (``2^−149`` among subnormals)."""
    v = finite("value", value)
    if abs(v) > float(np.finfo(np.float32).max):
        raise ValueError(f"value must be within the float32 range (|value| ≤ 3.4e38), got {value!r}")
    return float(np.spacing(np.abs(np.float32(v))))


@dataclass(frozen=True)
class PartialSums:
    """Element ``element`` of ``N`` ranks' gradients summed in ``order`` (:func:`partial_sums`).

    ``ranks``: the ranks in the order they enter the sum; ``values[k]``: the float32 partial sum after
    ``k + 1`` terms (``values[0]`` is the first rank's value itself); ``exact[k]``: the exact sum of the same
    ``k + 1`` terms rounded once to float32. ``N`` entries each.
    """

    order: str
    element: int
    ranks: tuple[int, ...]
    values: npt.NDArray[np.float32] = field(repr=False)
    exact: npt.NDArray[np.float32] = field(repr=False)

    @property
    def hexes(self) -> tuple[str, ...]:
        """The bits of every partial sum, e.g. ``"0x40a1c3f2"``."""
        return tuple(float32_hex(v) for v in self.values)

    @property
    def ulp_from_exact(self) -> npt.NDArray[np.uint64]:
        """Per step, the ULP distance of the partial sum from the exactly rounded partial sum."""
        return ulp_distance(self.values, self.exact)

    @property
    def result(self) -> float:
        """The final float32 sum (the last partial sum)."""
        return float(self.values[-1])


def partial_sums(gradients: npt.ArrayLike, element: int, order: str = "ring", *, seed: int = 0) -> PartialSums:
    """Follow element ``element`` of ``gradients`` (``N × L``, one row per rank) through the additions of
    ``order`` (one of :data:`LINEAR_ORDERS`): ``"ring"`` the ring simulator's order for the element's chunk
    (:func:`~clusterlab.faults.determinism.ring_order`, ``np.array_split`` chunk boundaries), ``"sequential"``
    rank order, ``"arrival"`` a permutation of the ranks drawn from ``seed``. The last partial sum is bit for
    bit what :func:`~clusterlab.faults.determinism.reduce_gradients` returns for that element."""
    g = as_gradients(gradients)
    n, length = g.shape
    i = int_in_range("element", element, 0, length - 1)
    o = choice("order", order, LINEAR_ORDERS)
    s = int_in_range("seed", seed, 0)
    if o == "ring":
        bounds = chunk_bounds(length, n)
        chunk = int(np.searchsorted(bounds, i, side="right")) - 1
        ranks = ring_order(n)[chunk]
    elif o == "sequential":
        ranks = tuple(range(n))
    else:
        ranks = tuple(int(r) for r in np.random.default_rng(s).permutation(n))
    column = g[list(ranks), i]
    values = np.empty(n, dtype=np.float32)
    acc = np.float32(column[0])
    values[0] = acc
    for k in range(1, n):
        acc = np.float32(acc + column[k])  # rounded to float32 after every addition
        values[k] = acc
    exact = np.array([exact_sum(column[: k + 1, None])[0] if k else column[0] for k in range(n)], dtype=np.float32)
    for arr in (values, exact):
        arr.setflags(write=False)
    return PartialSums(o, i, tuple(ranks), values, exact)


@dataclass(frozen=True)
class LayoutSums:
    """One global batch of ``samples`` per-sample gradients (``length`` elements) summed with each rank count
    of ``ranks`` (:func:`layout_sums`); ``sums[k]`` is the float32 result with ``ranks[k]`` ranks, ``exact``
    the exactly rounded sum of all samples."""

    samples: int
    length: int
    order: str
    ranks: tuple[int, ...]
    sums: npt.NDArray[np.float32] = field(repr=False)
    exact: npt.NDArray[np.float32] = field(repr=False)

    def _row(self, ranks: int) -> npt.NDArray[np.float32]:
        if ranks not in self.ranks:
            raise ValueError(f"ranks must be one of {self.ranks}, got {ranks!r}")
        row: npt.NDArray[np.float32] = self.sums[self.ranks.index(ranks)]
        return row

    def ulp(self, a: int, b: int) -> npt.NDArray[np.uint64]:
        """Elementwise ULP distance between the results with ``a`` and with ``b`` ranks."""
        return ulp_distance(self._row(a), self._row(b))

    def differing(self, a: int, b: int) -> float:
        """Fraction of the elements whose bits differ between ``a`` and ``b`` ranks (0 … 1)."""
        return float(np.count_nonzero(self.ulp(a, b)) / self.length)

    def error_ulp(self, ranks: int) -> npt.NDArray[np.uint64]:
        """Elementwise ULP distance of the result with ``ranks`` ranks from the exactly rounded sum."""
        return ulp_distance(self._row(ranks), self.exact)


def layout_sums(samples: npt.ArrayLike, ranks: Sequence[int], *, order: str = "ring") -> LayoutSums:
    """Sum the per-sample gradients ``samples`` (``M × L``) with every data-parallel rank count of ``ranks``
    (each an integer in 1 … M that divides ``M``; 1 means a single rank adding all samples in order): local
    float32 sums of contiguous samples in sample order, then the all-reduce ``order`` (one of
    :data:`~clusterlab.faults.determinism.ORDERS`) over the ``N`` local sums."""
    x = as_gradients(samples)
    m, length = x.shape
    o = choice("order", order, ORDERS)
    ns = tuple(int_in_range("ranks", n, 1, min(m, MAX_RANKS)) for n in ranks)
    if not ns or len(set(ns)) != len(ns):
        raise ValueError("ranks must be a non-empty sequence of distinct rank counts")
    for n in ns:
        if m % n:
            raise ValueError(f"ranks must divide the number of samples {m}, got {n}")
    rows = []
    for n in ns:
        local = np.empty((n, length), dtype=np.float32)
        per = m // n
        for r in range(n):
            acc = x[r * per].copy()
            for k in range(r * per + 1, (r + 1) * per):
                acc += x[k]  # float32, in sample order
            local[r] = acc
        rows.append(local[0].copy() if n == 1 else reduce_gradients(local, o))
    sums = np.stack(rows).astype(np.float32)
    sums.setflags(write=False)
    return LayoutSums(m, length, o, ns, sums, exact_sum(x))


@dataclass(frozen=True)
class BoundUse:
    """How much of the error bound ``γ_{N−1}·Σ|x_i|`` an order actually uses (:func:`bound_use`), per element.

    ``ratio``: ``|ŝ − s| / (γ_{N−1}·Σ|x_i|)`` (0 … 1 by the theorem); ``condition``: ``Σ|x_i| / |Σx_i|``, the
    factor by which the bound relative to the sum exceeds the bound relative to ``Σ|x_i|`` (``inf`` where the
    sum is 0); ``s`` is the exact sum (``math.fsum``, correctly rounded to float64)."""

    order: str
    ranks: int
    ratio: npt.NDArray[np.float64] = field(repr=False)
    condition: npt.NDArray[np.float64] = field(repr=False)


def bound_use(gradients: npt.ArrayLike, order: str, *, seed: int = 0) -> BoundUse:
    """For each element of ``gradients`` (``N × L``), the error of ``order``'s float32 sum as a fraction of the
    recursive-summation bound ``γ_{N−1}·Σ|x_i|`` (:func:`~clusterlab.faults.determinism.error_bound`), and the
    condition number ``Σ|x_i| / |Σx_i|`` of the sum (Higham 2002, §4.2)."""
    g = as_gradients(gradients)
    o = choice("order", order, ORDERS)
    got = reduce_gradients(g, o, seed=int_in_range("seed", seed, 0)).astype(np.float64)
    g64 = g.astype(np.float64)
    exact = np.array([math.fsum(g64[:, i].tolist()) for i in range(g.shape[1])])
    bound = np.asarray(error_bound(g))
    ratio = np.divide(np.abs(got - exact), bound, out=np.zeros_like(exact), where=bound > 0)
    absum = np.abs(g64).sum(axis=0)
    with np.errstate(divide="ignore"):
        condition = np.where(exact != 0, absum / np.abs(exact), np.inf)
    for arr in (ratio, condition):
        arr.setflags(write=False)
    return BoundUse(o, g.shape[0], ratio, condition)


# ------------------------------------------------------------------------------------------------------------
# the accumulator's precision
# ------------------------------------------------------------------------------------------------------------
def round_bfloat16(values: npt.ArrayLike) -> npt.NDArray[np.float32]:
    """``values`` (finite, float32 range) rounded to the nearest bfloat16, ties to even, returned as float32
    numbers whose low 16 bits are zero. Integer arithmetic on the bit patterns, the same on every CPU."""
    x = np.asarray(values, dtype=np.float32)
    if not np.all(np.isfinite(x)):
        raise ValueError("values must be finite (no NaN or ±inf)")
    bits = x.view(np.uint32).astype(np.uint64)
    half = np.uint64(0x7FFF) + ((bits >> np.uint64(16)) & np.uint64(1))  # ties go to the even neighbour
    out: npt.NDArray[np.float32] = (((bits + half) >> np.uint64(16)) << np.uint64(16)).astype(np.uint32).view(
        np.float32)
    return out


def _slice_sums(terms: npt.NDArray[np.float32], slices: int, accumulator: str) -> npt.NDArray[np.float32]:
    """The split-K sum of ``terms`` (``K × L``) with ``slices`` contiguous slices, every addition in index order;
    the result rounded to bfloat16 (the output dtype)."""
    per = terms.shape[0] // slices
    bf16_every = accumulator == "bfloat16"
    parts = []
    for s in range(slices):
        acc = terms[s * per].copy()
        for i in range(s * per + 1, (s + 1) * per):
            acc = acc + terms[i]  # float32 addition
            if bf16_every:
                acc = round_bfloat16(acc)
        parts.append(acc if accumulator == "float32" else round_bfloat16(acc))
    total = parts[0]
    for part in parts[1:]:
        total = total + part
        if accumulator != "float32":
            total = round_bfloat16(total)  # the slices combined in bfloat16
    return round_bfloat16(total)


@dataclass(frozen=True)
class AccumulationPrecision:
    """A bfloat16 dot product of ``terms`` terms per output element (``length`` elements), summed as split-K
    kernels with ``splits`` slices under each of :data:`ACCUMULATORS` (:func:`accumulation_precision`).

    ``sums[a, k]``: the bfloat16 outputs (held in float32) of accumulator ``ACCUMULATORS[a]`` with ``splits[k]``
    slices; ``exact``: the exact sums of the same bfloat16 terms (``math.fsum``, float64). ``stall``: the sum of
    ``terms`` ones in each accumulator with one slice (output rounded to bfloat16): float32 counts them all,
    bfloat16 stops at 256, where 1 is half an ULP of the accumulator and ``256 + 1`` ties back to even."""

    terms: int
    length: int
    splits: tuple[int, int]
    sums: npt.NDArray[np.float32] = field(repr=False)
    exact: npt.NDArray[np.float64] = field(repr=False)
    stall: tuple[float, ...]

    def _index(self, accumulator: str) -> int:
        return ACCUMULATORS.index(choice("accumulator", accumulator, ACCUMULATORS))

    def relative_error(self, accumulator: str, split: int | None = None) -> npt.NDArray[np.float64]:
        """Elementwise ``|ŝ − s| / |s|`` of ``accumulator`` with ``split`` slices (default the first of
        :attr:`splits`); ``inf`` where the exact sum is 0."""
        k = 0 if split is None else self.splits.index(int_in_range("split", split, 1, MAX_TERMS))
        got = self.sums[self._index(accumulator), k].astype(np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            out: npt.NDArray[np.float64] = np.where(self.exact != 0, np.abs(got - self.exact) / np.abs(self.exact),
                                                    np.inf)
        return out

    def median_error(self, accumulator: str) -> float:
        """The median relative error of ``accumulator`` over the elements and both split counts."""
        return float(np.median(np.concatenate([self.relative_error(accumulator, s) for s in self.splits])))

    def bf16_ulp(self, accumulator: str) -> npt.NDArray[np.uint64]:
        """Elementwise distance in bfloat16 ULPs between the outputs of the two split counts."""
        a = self._index(accumulator)
        out: npt.NDArray[np.uint64] = ulp_distance(self.sums[a, 0], self.sums[a, 1]) >> np.uint64(16)
        return out

    def differing(self, accumulator: str) -> float:
        """Fraction of the elements whose bfloat16 output differs between the two split counts (0 … 1)."""
        return float(np.count_nonzero(self.bf16_ulp(accumulator)) / self.length)


def accumulation_precision(terms: int = 4096, length: int = 512, *, splits: tuple[int, int] = (4, 8),
                           seed: int = 0) -> AccumulationPrecision:
    """Seeded bfloat16 terms ``x_ki = round_bf16(s_i + ε_ki)`` (``s``, ``ε`` standard normal: products that share a
    signal, as the per-token contributions to one weight gradient), ``terms`` = K per element (2 … 65,536) and
    ``length`` elements, summed by split-K with each slice count of ``splits`` (two distinct divisors of K) under
    every accumulator of :data:`ACCUMULATORS`. Explicit ordered loops over elementwise float32 additions and
    integer rounding to bfloat16: bit for bit the same on every CPU."""
    k = int_in_range("terms", terms, 2, MAX_TERMS)
    n_el = int_in_range("length", length, 1, 1 << 14)
    s = int_in_range("seed", seed, 0)
    sp = tuple(int_in_range("splits", v, 1, k) for v in splits)
    if len(sp) != 2 or sp[0] == sp[1] or any(k % v for v in sp):
        raise ValueError(f"splits must be two distinct divisors of terms = {k}, got {splits!r}")
    rng = np.random.default_rng(s)
    x = round_bfloat16(rng.standard_normal(n_el, dtype=np.float32)
                       + rng.standard_normal((k, n_el), dtype=np.float32))
    sums = np.stack([np.stack([_slice_sums(x, v, a) for v in sp]) for a in ACCUMULATORS])
    x64 = x.astype(np.float64)
    exact = np.array([math.fsum(x64[:, i].tolist()) for i in range(n_el)])
    ones = np.ones((k, 1), dtype=np.float32)
    stall = tuple(float(_slice_sums(ones, 1, a)[0]) for a in ACCUMULATORS)
    for arr in (sums, exact):
        arr.setflags(write=False)
    return AccumulationPrecision(k, n_el, (sp[0], sp[1]), sums, exact, stall)
