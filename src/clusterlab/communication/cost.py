"""One value for what communication costs: the α-β model's terms, kept per link.

The α-β model (Hockney 1994; Thakur, Rabenseifner & Gropp, *Int. J. HPC Appl.* 19(1), 2005) prices a collective
as ``t = Σ_links (k_α·α + k_β/β) + t₀``: on each link the number of sequential latency steps ``k_α`` times that
link's latency α (s), plus the bytes ``k_β`` on the critical path over that link divided by its per-direction
bandwidth β (B/s), plus a fixed cost per call ``t₀`` (e.g. NCCL's base latency). Every communication model of the
package returns a :class:`Cost` — the flat collectives (:func:`clusterlab.communication.collectives.cost`), the
hierarchical all-reduce, the MPI lab's fit (:func:`clusterlab.lab.mpifit.cost_terms`, whose terms are
priced once α and β are fitted), the parallel axes (:meth:`clusterlab.cluster.parallel.AxisVolume.cost`) and the
planner's level-by-level collectives (:mod:`clusterlab.cluster.planning.comm`) — so a caller reads the latency and
bandwidth parts as ``.latency`` and ``.bandwidth`` instead of re-running a model with α = 0 or S = 0.

A :class:`Term` without a price (``latency``/``bandwidth`` ``None``) carries only its coefficients ``steps`` and
``bytes`` — the design matrix of a fit; :meth:`Cost.priced` gives them a link.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from ..validate import non_negative, positive

__all__ = ["ZERO", "Cost", "Term", "link_cost"]


@dataclass(frozen=True, slots=True)
class Term:
    """One link's share of a cost: ``steps`` latency steps of ``latency`` s and ``bytes`` over ``bandwidth`` B/s."""

    link: str
    steps: float
    bytes: float
    latency: float | None = None
    bandwidth: float | None = None

    @property
    def has_price(self) -> bool:
        return self.latency is not None and self.bandwidth is not None

    def _price(self) -> tuple[float, float]:
        if self.latency is None or self.bandwidth is None:
            raise ValueError(f"the term on link {self.link!r} has no latency/bandwidth yet: use Cost.priced(...)")
        return self.latency, self.bandwidth

    @property
    def latency_time(self) -> float:
        """``steps·α`` in s."""
        a, _ = self._price()
        return self.steps * a

    @property
    def bandwidth_time(self) -> float:
        """``bytes/β`` in s."""
        _, b = self._price()
        return self.bytes / b

    @property
    def time(self) -> float:
        a, b = self._price()
        return self.steps * a + self.bytes / b


@dataclass(frozen=True, slots=True)
class Cost:
    """A communication cost: its :class:`Term` per link and a fixed ``overhead`` per call (s).

    ``latency`` = overhead + Σ steps·α, ``bandwidth`` = Σ bytes/β, ``time`` = overhead + Σ (steps·α + bytes/β);
    ``steps`` and ``bytes`` sum the coefficients over the links; ``bytes_by_link`` lists the bytes per link.
    Costs add (one call after the other; the terms are kept in order) and scale by a number (``k`` calls).
    """

    terms: tuple[Term, ...] = ()
    overhead: float = 0.0

    @property
    def latency(self) -> float:
        t = self.overhead
        for x in self.terms:
            t += x.latency_time
        return t

    @property
    def bandwidth(self) -> float:
        t = 0.0
        for x in self.terms:
            t += x.bandwidth_time
        return t

    @property
    def time(self) -> float:
        t = self.overhead
        for x in self.terms:
            t += x.time
        return t

    @property
    def steps(self) -> float:
        return sum(x.steps for x in self.terms)

    @property
    def bytes(self) -> float:
        return sum(x.bytes for x in self.terms)

    @property
    def bytes_by_link(self) -> tuple[tuple[str, float], ...]:
        out: dict[str, float] = {}
        for x in self.terms:
            out[x.link] = out.get(x.link, 0.0) + x.bytes
        return tuple(out.items())

    def on(self, link: str) -> Cost:
        """The part of this cost on one link (no overhead)."""
        return Cost(tuple(x for x in self.terms if x.link == link))

    def priced(self, latency: float, bandwidth: float) -> Cost:
        """This cost with every unpriced term put on a link of ``latency`` s per step and ``bandwidth`` B/s."""
        a = non_negative("latency", latency)
        b = positive("bandwidth", bandwidth)
        return Cost(tuple(x if x.has_price else replace(x, latency=a, bandwidth=b) for x in self.terms), self.overhead)

    def __add__(self, other: Cost) -> Cost:
        """Both costs, one after the other: the terms are kept in order (so ``time`` is the sum of the two times)."""
        if not other.terms and not other.overhead:
            return self
        if not self.terms and not self.overhead:
            return other
        return Cost(self.terms + other.terms, self.overhead + other.overhead)

    def __mul__(self, k: float) -> Cost:
        if not (math.isfinite(k) and k >= 0):
            raise ValueError(f"a cost can be scaled by a finite k ≥ 0 only, got {k!r}")
        if k == 1:
            return self
        return Cost(tuple(Term(x.link, x.steps * k, x.bytes * k, x.latency, x.bandwidth) for x in self.terms),
                    self.overhead * k)

    __rmul__ = __mul__


ZERO = Cost()


def link_cost(link: str, steps: float, size: float, latency: float | None = None,
              bandwidth: float | None = None, *, overhead: float = 0.0) -> Cost:
    """A cost on one link: ``steps`` latency steps and ``size`` bytes (priced when ``latency``/``bandwidth`` given)."""
    return Cost((Term(link, float(steps), float(size), latency, bandwidth),), overhead)
