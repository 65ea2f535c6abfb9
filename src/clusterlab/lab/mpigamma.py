"""The α-β-γ model of MPICH's reducing collectives, fitted to real measurements (集群篇 §2.3). Pure: no MPI, no I/O.

:mod:`.mpifit` prices an algorithm as ``steps·α + bytes/β`` and lets the cost of adding the numbers disappear into
the fitted β. Thakur, Rabenseifner & Gropp (*Int. J. HPC Appl.* 19(1), 2005, §4) price it separately: ``γ`` seconds
per byte reduced, times the bytes one rank reduces on the critical path (:func:`reduced_bytes`; ``S`` one rank's
buffer, ``p = 2^⌊log₂N⌋``, ``e = 1`` when ``N ≠ p`` else 0):

* all-reduce ``ring``: the reduce-scatter half adds one block of ``S/N`` in each of its ``N − 1`` steps —
  ``(N−1)/N·S``; the all-gather half only copies;
* all-reduce ``recursive_doubling``: each of ``log₂p`` steps adds the partner's whole buffer — ``log₂p·S``;
  ``N ≠ p`` adds one whole buffer for the fold-in — ``(log₂p + e)·S``;
* all-reduce ``reduce_scatter_allgather`` (Rabenseifner): recursive halving adds ``S/2 + S/4 + … + S/p`` —
  ``(p−1)/p·S``, plus ``e·S`` for the fold-in; the all-gather only copies;
* reduce-scatter ``pairwise``: ``N − 1`` blocks of ``S/N`` — ``(N−1)/N·S``; ``recursive_halving``:
  ``(p−1)/p·S + e·S``;
* all-gather and broadcast reduce nothing.

Identifiability. When N is a power of two, for every algorithm above the reduced bytes are a fixed fraction of
the bytes it sends on the critical path (:mod:`.mpifit`'s ``bytes``): ring and Rabenseifner reduce half of what they
send (``(N−1)/N·S`` of ``2(N−1)/N·S``; the ring keeps that fraction at every N), recursive doubling reduces all of it
(``log₂p·S`` of ``log₂p·S``; the fold-out at ``N ≠ p`` sends a buffer it does not reduce). So one algorithm's
measurements at power-of-two N, at any sizes, cannot separate γ from β: they fix only ``1/β + γ·fraction``. γ becomes
visible only in a fit **shared by algorithms with different fractions** — one (α, β, γ) for the machine, as the
§2.2 chooser assumes — and then it is whatever makes recursive doubling's byte dearer than the ring's. At N = 2
ring and Rabenseifner have identical terms (2 steps, ``S`` sent, ``S/2`` reduced), so no α-β-γ model can tell
them apart; recursive doubling takes 1 step, sends ``S`` and reduces ``S``.

:func:`fit_gamma` is the shared least-squares fit in relative error (as :func:`.mpifit.fit`) with α ≥ 0 and γ ≥ 0
(each clamped at 0 when the free fit goes negative); :func:`compare_chooser_gamma` puts the chooser fed with it
beside the measured winner and the α-β chooser; :func:`held_out_gamma` compares the shared α-β and α-β-γ fits on
held-out sizes.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

import numpy as np

from .. import numerics as nm
from ..validate import choice, int_in_range, non_negative, positive
from .mpifit import MPI_ALGORITHMS, Fit, Sample, Sweep, check_algorithm, choose, cost_terms, fit_shared, median_abs

__all__ = ["REDUCING_OPS", "GammaChooserRow", "GammaFit", "GammaHeldOut", "GammaTerms", "choose_gamma",
           "compare_chooser_gamma", "crossover_size", "fit_gamma", "gamma_terms", "held_out_gamma", "reduced_bytes"]

#: the ops whose algorithms add numbers (the others have no γ term)
REDUCING_OPS: Final = ("all_reduce", "reduce_scatter")


def reduced_bytes(op: str, algorithm: str, size: float, ranks: int) -> float:
    """Bytes one rank reduces on the critical path of ``algorithm`` for ``op`` (see the module docstring); 0 for
    all-gather and broadcast."""
    op, algorithm = check_algorithm(op, algorithm)
    s = non_negative("size", size)
    n = int_in_range("ranks", ranks, 2)
    p = 1 << (n.bit_length() - 1)
    fold = s if p != n else 0.0
    if op not in REDUCING_OPS:
        return 0.0
    if algorithm in ("ring", "pairwise"):
        return s * (n - 1) / n
    if algorithm == "recursive_doubling":
        return s * (p.bit_length() - 1) + fold
    return s * (p - 1) / p + fold  # reduce_scatter_allgather, recursive_halving


@dataclass(frozen=True)
class GammaTerms:
    """The three coefficients of one call — ``steps`` (α), ``bytes`` sent (1/β), ``reduced`` bytes (γ) — and,
    once priced, the three times (s)."""

    steps: float
    bytes: float
    reduced: float
    latency_time: float = math.nan
    bandwidth_time: float = math.nan
    reduction_time: float = math.nan

    @property
    def time(self) -> float:
        return self.latency_time + self.bandwidth_time + self.reduction_time

    def priced(self, latency: float, bandwidth: float, reduction: float) -> GammaTerms:
        """These coefficients at α = ``latency`` s, β = ``bandwidth`` B/s, γ = ``reduction`` s/B."""
        a = non_negative("latency", latency)
        b = positive("bandwidth", bandwidth)
        g = non_negative("reduction", reduction)
        return GammaTerms(self.steps, self.bytes, self.reduced, self.steps * a, self.bytes / b, self.reduced * g)


def gamma_terms(op: str, algorithm: str, size: float, ranks: int) -> GammaTerms:
    """Unpriced α-β-γ coefficients of one call: :func:`.mpifit.cost_terms` plus :func:`reduced_bytes`."""
    c = cost_terms(op, algorithm, size, ranks)
    return GammaTerms(c.steps, c.bytes, reduced_bytes(op, algorithm, size, ranks))


@dataclass(frozen=True)
class GammaFit:
    """One (α s, β B/s, γ s/B) for every algorithm of ``op`` in ``samples``; ``clamped`` names the parameters held
    at 0 because the free fit made them negative. Residuals are ``(predicted − measured)/measured`` per sample."""

    op: str
    latency: float
    bandwidth: float
    reduction: float
    samples: tuple[Sample, ...]
    predicted: tuple[float, ...]
    residuals: tuple[float, ...]
    clamped: tuple[str, ...]

    @property
    def rms_residual(self) -> float:
        return float(np.sqrt(np.mean(np.square(self.residuals))))

    @property
    def reduction_rate(self) -> float:
        """``1/γ`` in B/s (inf when γ = 0): how fast the fit says a rank adds bytes."""
        return 1 / self.reduction if self.reduction > 0 else math.inf

    def terms(self, size: float, ranks: int, algorithm: str) -> GammaTerms:
        """The three priced terms of a call of ``size`` bytes on ``ranks`` ranks with ``algorithm``."""
        return gamma_terms(self.op, algorithm, size, ranks).priced(self.latency, self.bandwidth, self.reduction)

    def time(self, size: float, ranks: int, algorithm: str) -> float:
        """Predicted time (s)."""
        return self.terms(size, ranks, algorithm).time


def _design(op: str, samples: Sequence[Sample]) -> tuple[np.ndarray, np.ndarray]:
    rows = [gamma_terms(op, s.algorithm, s.size, s.ranks) for s in samples]
    t = np.array([s.median for s in samples], dtype=float)
    return np.array([[r.steps, r.bytes, r.reduced] for r in rows]) / t[:, None], t


def fit_gamma(op: str, samples: Sequence[Sample]) -> GammaFit:
    """Least-squares (α, β, γ) shared by every algorithm in ``samples`` (all of ``op``).

    Minimises ``Σ ((steps·α + bytes·b + reduced·γ − t)/t)²`` over α ≥ 0, γ ≥ 0 and ``b = 1/β > 0``: every
    combination of α and γ held at 0 is solved and the best one with no negative parameter is kept (for this
    convex problem that is the constrained optimum). Needs samples of at least two algorithms whose reduced bytes
    are different fractions of their sent bytes (e.g. ring and recursive_doubling) at two sizes or more;
    otherwise γ cannot be separated from β and this raises ``ValueError``.
    """
    op = choice("op", op, REDUCING_OPS)
    samples = tuple(samples)
    if len(samples) < 3:
        raise ValueError(f"samples must hold at least 3 points to fit α, β and γ; got {len(samples)}")
    for s in samples:
        if s.op != op:
            raise ValueError(f"samples must all be of op={op!r}; got one of {s.op!r}")
        check_algorithm(op, s.algorithm)
    a, t = _design(op, samples)
    _, rank = nm.lstsq(a, np.ones_like(t))
    if rank < 3:
        algs = sorted({s.algorithm for s in samples})
        raise ValueError(f"samples of algorithms {algs} cannot separate γ from β: in every algorithm the reduced "
                         "bytes are a fixed fraction of the sent bytes, so the samples must mix algorithms with "
                         "different fractions at two sizes or more (all-reduce: recursive_doubling with ring or "
                         "reduce_scatter_allgather; the two reduce-scatter algorithms share one fraction)")
    best: tuple[float, tuple[float, float, float], tuple[str, ...]] | None = None
    names = ("α", "γ")
    for held in itertools.chain.from_iterable(itertools.combinations((0, 2), k) for k in range(3)):
        free = [j for j in range(3) if j not in held]
        coef_free, r = nm.lstsq(a[:, free], np.ones_like(t))
        if r < len(free):
            continue
        coef = [0.0, 0.0, 0.0]
        for j, c in zip(free, coef_free, strict=True):
            coef[j] = c
        if coef[0] < 0 or coef[2] < 0 or not coef[1] > 0:
            continue
        rss = math.fsum((v - 1.0) ** 2 for v in (a @ np.array(coef)).tolist())
        if best is None or rss < best[0]:
            best = (rss, (coef[0], coef[1], coef[2]), tuple(names[(0, 2).index(j)] for j in held))
    if best is None:
        raise ValueError("the fit gives no positive bandwidth: the samples do not grow with size")
    _, (alpha, inv_beta, gamma), clamped = best
    pred = np.array([gamma_terms(op, s.algorithm, s.size, s.ranks).priced(alpha, 1 / inv_beta, gamma).time
                     for s in samples])
    return GammaFit(op, alpha, 1 / inv_beta, gamma, samples, tuple(float(x) for x in pred),
                    tuple(float(x) for x in (pred - t) / t), clamped)


def choose_gamma(op: str, size: float, ranks: int, latency: float, bandwidth: float, reduction: float,
                 algorithms: Sequence[str] | None = None) -> tuple[str, tuple[tuple[str, float], ...]]:
    """The §2.2 chooser under the α-β-γ model: the algorithm with the smallest time (ties: first listed), and
    every candidate's time (s)."""
    op = choice("op", op, REDUCING_OPS)
    algs = tuple(algorithms) if algorithms is not None else MPI_ALGORITHMS[op]
    times = tuple((a, gamma_terms(op, a, size, ranks).priced(latency, bandwidth, reduction).time) for a in algs)
    return min(times, key=lambda kv: kv[1])[0], times


def crossover_size(op: str, first: str, second: str, ranks: int, latency: float, bandwidth: float,
                   reduction: float) -> float:
    """The buffer ``S`` (B) at which algorithms ``first`` and ``second`` take equal α-β-γ time on ``ranks`` ranks.

    Every term is linear in ``S`` apart from the steps, so ``t = steps·α + S·(bytes₁/β + reduced₁·γ)`` with the
    per-byte coefficients at ``S = 1``: ``S* = Δsteps·α / −Δ(bytes₁/β + reduced₁·γ)``. Below ``S*`` the one with
    fewer steps wins. ``nan`` when the two never cross (same per-byte cost, or the one with fewer steps is also
    cheaper per byte). Example (N = 2, ring vs recursive doubling): ``S* = α/(γ/2) = 2α/γ``.
    """
    op = choice("op", op, REDUCING_OPS)
    n = int_in_range("ranks", ranks, 2)
    a, b = gamma_terms(op, first, 1.0, n), gamma_terms(op, second, 1.0, n)
    pa, pb = a.priced(latency, bandwidth, reduction), b.priced(latency, bandwidth, reduction)
    d_lat = pa.latency_time - pb.latency_time
    d_byte = (pb.bandwidth_time + pb.reduction_time) - (pa.bandwidth_time + pa.reduction_time)
    if d_byte == 0 or d_lat / d_byte <= 0:
        return math.nan
    return d_lat / d_byte


@dataclass(frozen=True)
class GammaChooserRow:
    """At one size: the measured winner, the α-β chooser's pick (one shared α, β) and the α-β-γ chooser's pick;
    ``measured`` holds every algorithm's median (s); ``tied`` the algorithms the α-β-γ model prices exactly like
    its pick (at N = 2: ring and reduce_scatter_allgather)."""

    size: float
    ranks: int
    measured_best: str
    ab_best: str
    gamma_best: str
    measured: tuple[tuple[str, float], ...]
    tied: tuple[str, ...]

    @property
    def agree(self) -> bool:
        """The α-β-γ chooser picked the measured winner."""
        return self.measured_best == self.gamma_best

    @property
    def agree_ab(self) -> bool:
        """The α-β chooser picked the measured winner."""
        return self.measured_best == self.ab_best

    @property
    def agree_up_to_tie(self) -> bool:
        """The measured winner is the pick or one the model cannot tell from it."""
        return self.measured_best in self.tied

    def loss(self, algorithm: str) -> float:
        """How much slower ``algorithm`` measured than the measured winner (ratio ≥ 1)."""
        m = dict(self.measured)
        return m[choice("algorithm", algorithm, tuple(m))] / m[self.measured_best]


def compare_chooser_gamma(sweep: Sweep, op: str, ranks: int, shared: Fit,
                          model: GammaFit) -> tuple[GammaChooserRow, ...]:
    """Per size measured for every algorithm of ``op`` at ``ranks``: the measured winner, the chooser fed
    ``shared``'s (α, β) (:func:`.mpifit.choose`) and the chooser fed ``model``'s (α, β, γ)."""
    op = choice("op", op, REDUCING_OPS)
    n = int_in_range("ranks", ranks, 2)
    algs = MPI_ALGORITHMS[op]
    rows = []
    for z in sweep.sizes:
        got = {s.algorithm: s.median for s in sweep.select(op, ranks=n, sizes=[z])}
        if set(got) != set(algs):
            continue
        measured = tuple((a, got[a]) for a in algs)
        best_m = min(measured, key=lambda kv: kv[1])[0]
        best_ab, _ = choose(op, z, n, shared.latency, shared.bandwidth, algs)
        best_g, times = choose_gamma(op, z, n, model.latency, model.bandwidth, model.reduction, algs)
        t_best = dict(times)[best_g]
        tied = tuple(a for a, t in times if math.isclose(t, t_best, rel_tol=1e-12))
        rows.append(GammaChooserRow(z, n, best_m, best_ab, best_g, measured, tied))
    if not rows:
        raise ValueError(f"sweep holds no size measured for every {op} algorithm at ranks={n}")
    return tuple(rows)


@dataclass(frozen=True)
class GammaHeldOut:
    """Shared α-β and α-β-γ fits of ``op`` at ``ranks`` on the 1st, 3rd, … sizes, and their relative errors on
    the other sizes (one per held-out sample, in the order of ``samples``)."""

    op: str
    ranks: int
    shared: Fit
    gamma: GammaFit
    samples: tuple[Sample, ...]
    ab_errors: tuple[float, ...]
    gamma_errors: tuple[float, ...]

    def median(self, model: str) -> float:
        """Median |error| of ``model`` (``"ab"`` or ``"gamma"``) over the held-out samples."""
        errs = self.ab_errors if choice("model", model, ("ab", "gamma")) == "ab" else self.gamma_errors
        return median_abs(errs)


def held_out_gamma(sweep: Sweep, op: str, ranks: int) -> GammaHeldOut:
    """Fit the shared α-β (:func:`.mpifit.fit_shared`) and α-β-γ (:func:`fit_gamma`) models on every other size
    (smallest first) of ``op`` at ``ranks``, and predict the rest."""
    op = choice("op", op, REDUCING_OPS)
    n = int_in_range("ranks", ranks, 2)
    pts = sweep.select(op, ranks=n)
    sizes = sorted({s.size for s in pts})
    if len(sizes) < 4:
        raise ValueError(f"sweep must hold at least 4 sizes of {op} at ranks={n} (2 to fit, 2 held out); "
                         f"got {len(sizes)}")
    fit_pts, test = sweep.select(op, ranks=n, sizes=sizes[::2]), sweep.select(op, ranks=n, sizes=sizes[1::2])
    shared, gamma = fit_shared(op, fit_pts), fit_gamma(op, fit_pts)
    ab = tuple(shared.time(s.size, s.ranks, s.algorithm) / s.median - 1 for s in test)
    g = tuple(gamma.time(s.size, s.ranks, s.algorithm) / s.median - 1 for s in test)
    return GammaHeldOut(op, n, shared, gamma, test, ab, g)
