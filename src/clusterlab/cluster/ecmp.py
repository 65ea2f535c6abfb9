"""ECMP hash collisions: ``n`` long flows placed by a hash on ``m`` equal-cost uplinks (集群篇 §3).

Equal-cost multi-path routing picks a flow's uplink from a hash of its header (5-tuple); every packet of a flow
takes the same uplink, so a few large flows — the typical all-reduce traffic — can land on the same link while
others stay idle. Model: each of ``n`` flows picks one of ``m`` uplinks independently and uniformly (an ideal hash);
every uplink has line rate ``B``, every flow could send at ``B``; a link's rate is shared equally by its flows.

* probability that at least two flows share an uplink (the birthday problem):
  ``P = 1 − m!/((m−n)!·mⁿ)`` (``P = 1`` for ``n > m``);
* expected uplinks left idle: ``m·(1 − 1/m)ⁿ``; expected aggregate throughput, as a fraction of the ideal
  ``min(n, m)·B``: ``m·(1 − (1 − 1/m)ⁿ)/min(n, m)`` (every busy link carries ``B``);
* expected largest load ``E[max]`` (flows on the busiest uplink), exactly, by the recursion over uplinks
  ``P(all ≤ c | r flows, j links) = Σᵢ C(r, i)(1/j)ⁱ(1 − 1/j)^{r−i}·P(all ≤ c | r − i, j − 1)``. A synchronous
  collective waits for its slowest flow, which gets ``B/max``: the step is ``E[max]/⌈n/m⌉`` times slower than with a
  perfect spread (the *slowdown*).

A Monte Carlo version (:func:`simulate_ecmp`) checks the closed forms. Limits: uniform independent hashing; flows of
equal size that last the whole step; no rerouting (adaptive routing and per-packet spraying avoid collisions,
at the price of reordering). Counts are integers, rates are fractions of the line rate.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .. import numerics as nm
from ..validate import int_in_range

__all__ = ["EcmpCollisions", "EcmpSimulation", "ecmp_collisions", "simulate_ecmp"]


@dataclass(frozen=True)
class EcmpCollisions:
    """Closed-form collision statistics of ``flows`` on ``uplinks`` (see the module docstring)."""

    flows: int
    uplinks: int
    collision_probability: float
    expected_idle: float
    expected_max_load: float

    @property
    def ideal_max_load(self) -> int:
        """``⌈n/m⌉``: the busiest link's load if flows were spread perfectly."""
        return -(-self.flows // self.uplinks)

    @property
    def throughput_fraction(self) -> float:
        """Expected aggregate throughput over ``min(n, m)·B``."""
        return (self.uplinks - self.expected_idle) / min(self.flows, self.uplinks)

    @property
    def slowdown(self) -> float:
        """``E[max]/⌈n/m⌉``: how much longer the slowest flow takes than under a perfect spread."""
        return self.expected_max_load / self.ideal_max_load


class _Pmf:
    """Binomial pmf vectors ``C(r, i)(1/j)ⁱ(1 − 1/j)^{r−i}`` over ``r = i … n``, computed once per ``(j, i)`` and
    shared by every ``c`` of one :func:`ecmp_collisions` call (they do not depend on ``c``)."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.r = np.arange(n + 1)
        self.lg = np.array([math.lgamma(x + 1) for x in range(n + 1)])
        self._cache: dict[tuple[int, int], np.ndarray] = {}

    def __call__(self, j: int, i: int) -> np.ndarray:
        got = self._cache.get((j, i))
        if got is None:
            p = 1.0 / j
            rr = self.r[i:]
            log_pmf = self.lg[rr] - self.lg[i] - self.lg[rr - i] + i * math.log(p) + (rr - i) * math.log1p(-p)
            got = self._cache[(j, i)] = nm.exp(log_pmf)
        return got


def _p_max_at_most(c: int, n: int, m: int, pmf: _Pmf | None = None) -> float:
    """``P(max load ≤ c)`` for ``n`` flows on ``m`` uplinks (recursion over uplinks, vectorised over flows)."""
    if c * m < n:
        return 0.0
    f = pmf if pmf is not None else _Pmf(n)
    prob = (f.r <= c).astype(float)  # one link left: all r remaining flows land on it
    for j in range(2, m + 1):
        new = np.zeros(n + 1)
        for i in range(min(c, n) + 1):
            new[i:] += f(j, i) * prob[: n + 1 - i]
        prob = new
    return float(min(1.0, prob[n]))


def ecmp_collisions(flows: int, uplinks: int) -> EcmpCollisions:
    """Collision probability, idle uplinks and expected busiest-link load of ``flows`` hashed on ``uplinks``
    (``1 ≤ flows, uplinks ≤ 256``)."""
    n = int_in_range("flows", flows, 1, 256)
    m = int_in_range("uplinks", uplinks, 1, 256)
    if n > m:
        p_coll = 1.0
    else:
        p_coll = 1.0 - math.exp(math.lgamma(m + 1) - math.lgamma(m - n + 1) - n * math.log(m))
    idle = m * (1.0 - 1.0 / m) ** n
    # E[max] = Σ_{c ≥ 0} P(max > c); stop once P(max ≤ c) is 1 to double precision
    e_max, pmf = 0.0, _Pmf(n)
    for c in range(n):
        below = _p_max_at_most(c, n, m, pmf)
        e_max += 1.0 - below
        if below >= 1.0 - 1e-15:
            break
    return EcmpCollisions(flows=n, uplinks=m, collision_probability=max(0.0, p_coll), expected_idle=idle,
                          expected_max_load=e_max)


@dataclass(frozen=True)
class EcmpSimulation:
    """``trials`` random hashings: the share with a collision, mean idle uplinks, mean busiest-link load, and the
    busiest-link load of every trial (read-only)."""

    flows: int
    uplinks: int
    collision_rate: float
    mean_idle: float
    mean_max_load: float
    max_loads: np.ndarray


def simulate_ecmp(flows: int, uplinks: int, *, trials: int = 10_000, seed: int = 0) -> EcmpSimulation:
    """Hash ``flows`` onto ``uplinks`` uniformly ``trials`` times (numpy ``default_rng(seed)``)."""
    n = int_in_range("flows", flows, 1, 1024)
    m = int_in_range("uplinks", uplinks, 1, 1024)
    t = int_in_range("trials", trials, 1)
    s = int_in_range("seed", seed, 0)
    rng = np.random.default_rng(s)
    picks = rng.integers(0, m, size=(t, n))
    loads = np.zeros((t, m), dtype=np.int64)
    np.add.at(loads, (np.arange(t)[:, None], picks), 1)
    max_loads = loads.max(axis=1)
    max_loads.setflags(write=False)
    return EcmpSimulation(
        flows=n, uplinks=m, collision_rate=float((max_loads > 1).mean()), mean_idle=float((loads == 0).sum(1).mean()),
        mean_max_load=float(max_loads.mean()), max_loads=max_loads,
    )
