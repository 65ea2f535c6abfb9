"""α-β models of MPICH's collective algorithms, fitted to real measurements (集群篇 §2.3). Pure: no MPI, no I/O.

A measurement is a :class:`Sample` (one op, one MPICH algorithm, ``N`` ranks, ``S`` bytes, the median and spread of
repeated timings); a sweep is a :class:`Sweep`. Sizes follow the book's convention (one rank's full buffer:
all-reduce input, reduce-scatter input, all-gather output, broadcast message).

Every model here is **linear in (α, 1/β)**: ``t = steps(N)·α + bytes(S, N)/β``. :func:`cost_terms` gives the two
coefficients for each MPICH algorithm; where the book already has the model it is taken from
:func:`clusterlab.communication.collectives.traffic` (MPICH ``ring`` ↔ book ``ring``; ``reduce_scatter_allgather``,
``recursive_halving`` and the all-gather's ``recursive_doubling`` ↔ book ``halving_doubling``; ``pairwise``
reduce-scatter ↔ book ``ring``). Two MPICH algorithms the book did not price are added from Thakur, Rabenseifner &
Gropp, *Int. J. HPC Appl.* 19(1), 2005, §4:

* all-reduce ``recursive_doubling``: every one of ``log₂p`` steps exchanges the **whole** buffer —
  ``log₂p·α + S·log₂p/β`` (``p = 2^⌊log₂N⌋``; ``N ≠ p`` adds ``2α + 2S/β`` for the fold-in and fold-out);
* broadcast ``binomial``: ``⌈log₂N⌉(α + S/β)``; ``scatter_ring_allgather`` (van de Geijn):
  ``(⌈log₂N⌉ + N − 1)α + 2S(N−1)/(Nβ)``.

:func:`fit` is a least-squares fit of (α, 1/β) in **relative** error (each point weighted by 1/t, so 1 KB and
64 MB count alike), with α clamped at 0 if the free fit goes negative. The computation term γ (adding the
numbers) is not separate: on one machine it is absorbed into the fitted β.

One (α, β) cannot follow a real transport from 1 KB to 64 MB: MPICH sends a small point-to-point message eagerly
through a queue of shared-memory cells and a large one by a handshake followed by a single copy, and the two paths
have different per-message costs and slopes. :func:`fit_regimes` keeps the book's formula but fits it twice — one
(α, β) per regime — split at a **message size** (the mean bytes per step, :func:`message_size`, which is what decides
MPICH's protocol): by default MPICH's switch :data:`MPICH_SHM_SWITCH`, or (``threshold=None``) the split of the
fitted points that leaves the smallest fit residual (:func:`choose_threshold`; held-out points are never used).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

import numpy as np

from .. import numerics as nm
from ..communication import collectives
from ..communication.cost import Cost, link_cost
from ..validate import choice, int_in_range, non_negative, positive

__all__ = [
    "BOOK_EQUIVALENT", "MPICH_SHM_SWITCH", "MPI_ALGORITHMS", "ChooserRow", "Fit", "HeldOut",
    "RegimeFit", "Sample", "Sweep", "busbw", "check_algorithm", "choose", "choose_threshold", "compare_chooser",
    "cost_terms", "fit", "fit_regimes", "fit_shared", "held_out", "median_abs", "message_size", "predict",
    "relative_errors"
]

#: Message size (B) where MPICH 5.0 (ch4) changes its intranode protocol: a message that fits one shared-memory cell
#: (``MPIR_CVAR_CH4_SHM_POSIX_IQUEUE_CELL_SIZE``, 8192 B) is copied eagerly through the cell queue; from
#: ``MPIR_CVAR_CH4_IPC_CMA_P2P_THRESHOLD`` (8192 B) up the receiver copies it in one go after a handshake (CMA).
#: Both defaults as printed by the wheel's ``mpivars``; other MPICH versions use other values.
MPICH_SHM_SWITCH: Final = 8192.0
#: MPICH algorithm names (the values of ``MPIR_CVAR_<OP>_INTRA_ALGORITHM``) measured for each op
MPI_ALGORITHMS: Final[dict[str, tuple[str, ...]]] = {
    "all_reduce": ("ring", "recursive_doubling", "reduce_scatter_allgather"),
    "reduce_scatter": ("pairwise", "recursive_halving"),
    "all_gather": ("ring", "recursive_doubling"),
    "broadcast": ("binomial", "scatter_ring_allgather"),
}
#: (op, MPICH algorithm) → the book's algorithm with the same α-β model in :mod:`.collectives` (None: new here)
BOOK_EQUIVALENT: Final[dict[tuple[str, str], str | None]] = {
    ("all_reduce", "ring"): "ring",
    ("all_reduce", "recursive_doubling"): None,
    ("all_reduce", "reduce_scatter_allgather"): "halving_doubling",
    ("reduce_scatter", "pairwise"): "ring",
    ("reduce_scatter", "recursive_halving"): "halving_doubling",
    ("all_gather", "ring"): "ring",
    ("all_gather", "recursive_doubling"): "halving_doubling",
    ("broadcast", "binomial"): None,
    ("broadcast", "scatter_ring_allgather"): None,
}


def check_algorithm(op: object, algorithm: object) -> tuple[str, str]:
    """``(op, algorithm)``, or ``ValueError`` naming the allowed values."""
    o = choice("op", op, tuple(MPI_ALGORITHMS))
    return o, choice("algorithm", algorithm, MPI_ALGORITHMS[o])


def cost_terms(op: str, algorithm: str, size: float, ranks: int) -> Cost:
    """Latency steps and critical-path bytes of one MPICH ``algorithm`` for ``op`` (see the module docstring), as an
    unpriced :class:`~clusterlab.communication.cost.Cost` (``.steps``, ``.bytes``): a fit finds the α and β that
    ``.priced(α, β)`` puts on it."""
    op, algorithm = check_algorithm(op, algorithm)
    s = non_negative("size", size)
    n = int_in_range("ranks", ranks, 2)
    book = BOOK_EQUIVALENT[(op, algorithm)]
    if book is not None:
        t = collectives.traffic(op, s, n, book)
        return link_cost("link", float(t.steps), float(t.critical))
    lg_up = (n - 1).bit_length()  # ⌈log₂N⌉
    if algorithm == "recursive_doubling":  # all-reduce
        lg = n.bit_length() - 1
        extra = (1 << lg) != n
        return link_cost("link", lg + 2.0 * extra, s * lg + 2.0 * s * extra)
    if algorithm == "binomial":
        return link_cost("link", float(lg_up), s * lg_up)
    return link_cost("link", float(lg_up + n - 1), 2 * s * (n - 1) / n)  # scatter_ring_allgather


@dataclass(frozen=True)
class Sample:
    """One measured point: ``median`` (s) over ``repeats`` timings, with quartiles ``q25``/``q75`` and extremes."""

    op: str
    algorithm: str
    ranks: int
    size: float
    median: float
    q25: float
    q75: float
    low: float
    high: float
    repeats: int
    oversubscribed: bool = False

    @property
    def spread(self) -> float:
        """Interquartile range relative to the median."""
        return (self.q75 - self.q25) / self.median


@dataclass(frozen=True)
class Sweep:
    """A set of samples and the machine they were taken on (``machine``: (key, value) pairs)."""

    samples: tuple[Sample, ...]
    machine: tuple[tuple[str, str], ...] = ()

    def select(self, op: str | None = None, algorithm: str | None = None, ranks: int | None = None,
               sizes: Sequence[float] | None = None) -> tuple[Sample, ...]:
        """Samples matching every given field (sizes: any of them)."""
        return tuple(
            s for s in self.samples
            if (op is None or s.op == op) and (algorithm is None or s.algorithm == algorithm)
            and (ranks is None or s.ranks == ranks) and (sizes is None or any(s.size == z for z in sizes))
        )

    def info(self, key: str, default: str = "") -> str:
        return dict(self.machine).get(key, default)

    @property
    def sizes(self) -> tuple[float, ...]:
        return tuple(sorted({s.size for s in self.samples}))


@dataclass(frozen=True)
class Fit:
    """Fitted α (s) and β (B/s) of one op/algorithm, with the points used and their relative residuals."""

    op: str
    algorithm: str
    latency: float
    bandwidth: float
    sizes: tuple[float, ...]
    ranks: tuple[int, ...]
    measured: tuple[float, ...]
    predicted: tuple[float, ...]
    residuals: tuple[float, ...]  # (predicted − measured) / measured
    clamped: bool  # α held at 0 because the free fit went negative

    @property
    def rms_residual(self) -> float:
        return float(np.sqrt(np.mean(np.square(self.residuals))))

    def time(self, size: float, ranks: int, algorithm: str | None = None) -> float:
        """Predicted time (s) of a call of ``size`` bytes on ``ranks`` ranks (``algorithm``: for a shared fit)."""
        alg = self.algorithm if algorithm is None else algorithm
        return cost_terms(self.op, alg, size, ranks).priced(self.latency, self.bandwidth).time


def _points(samples: Sequence[Sample] | Sequence[tuple[float, int, float]]) -> list[tuple[float, int, float]]:
    pts = []
    for p in samples:
        if isinstance(p, Sample):
            pts.append((p.size, p.ranks, p.median))
        else:
            z, n, t = p
            pts.append((positive("size", z), int_in_range("ranks", n, 2), positive("time", t)))
    return pts


def _solve(terms: Sequence[Cost], t: np.ndarray) -> tuple[float, float, bool]:
    """(α, β, clamped) minimising the relative squared error, α ≥ 0."""
    a = np.array([[c.steps, c.bytes] for c in terms]) / t[:, None]
    # fixed-order Householder QR in Python floats: the same fit on every CPU (LAPACK's result depends on the kernel)
    coef, rank = nm.lstsq(a, np.ones_like(t))
    if rank < 2:
        raise ValueError("samples must include at least two different sizes so that α and β can be separated")
    alpha, inv_beta = coef
    clamped = alpha < 0
    if clamped:
        col = a[:, 1].tolist()
        alpha, inv_beta = 0.0, math.fsum(col) / math.fsum(v * v for v in col)
    if not inv_beta > 0:
        raise ValueError("the fit gives no positive bandwidth: the samples do not grow with size")
    return alpha, 1 / inv_beta, clamped


def _result(op: str, algorithm: str, pts: list[tuple[float, int, float]], terms: Sequence[Cost]) -> Fit:
    t = np.array([p[2] for p in pts])
    alpha, beta, clamped = _solve(terms, t)
    pred = np.array([c.priced(alpha, beta).time for c in terms])
    return Fit(op, algorithm, alpha, beta, tuple(p[0] for p in pts), tuple(p[1] for p in pts),
               tuple(float(x) for x in t), tuple(float(x) for x in pred), tuple(float(x) for x in (pred - t) / t),
               clamped)


def fit(op: str, algorithm: str, samples: Sequence[Sample] | Sequence[tuple[float, int, float]]) -> Fit:
    """Least-squares (α, β) of ``algorithm``'s model on ``samples`` (Samples or ``(size, ranks, time)`` triples).

    Minimises ``Σ ((steps·α + bytes·b − t)/t)²`` over α ≥ 0 and ``b = 1/β > 0``. Needs at least two points whose
    (steps, bytes) are not proportional — e.g. two sizes.
    """
    op, algorithm = check_algorithm(op, algorithm)
    pts = _points(samples)
    if len(pts) < 2:
        raise ValueError(f"samples must hold at least 2 points to fit α and β; got {len(pts)}")
    return _result(op, algorithm, pts, [cost_terms(op, algorithm, z, n) for z, n, _ in pts])


def fit_shared(op: str, samples: Sequence[Sample]) -> Fit:
    """One (α, β) for every algorithm of ``op`` at once — the machine's α and β as the §2.2 chooser assumes them.

    Each sample is priced with its own algorithm's model; the result's ``algorithm`` is ``"shared"``, so call
    ``time(size, ranks, algorithm)``.
    """
    op = choice("op", op, tuple(MPI_ALGORITHMS))
    if len(samples) < 2:
        raise ValueError(f"samples must hold at least 2 points to fit α and β; got {len(samples)}")
    pts = [(s.size, s.ranks, s.median) for s in samples]
    return _result(op, "shared", pts, [cost_terms(op, s.algorithm, s.size, s.ranks) for s in samples])


def message_size(op: str, algorithm: str, size: float, ranks: int) -> float:
    """Mean bytes one rank sends per step on the critical path (``bytes/steps``) — the point-to-point message size
    that decides MPICH's protocol (ring all-reduce: ``S/N``; recursive doubling and binomial broadcast: ``S``)."""
    c = cost_terms(op, algorithm, size, ranks)
    return c.bytes / c.steps if c.steps else c.bytes


def _borrow_beta(op: str, algorithm: str, pts: list[tuple[float, int, float]], bandwidth: float) -> Fit:
    """A regime with one measured size: β taken from the other regime, α (≥ 0) through the mean of its points."""
    terms = [cost_terms(op, algorithm, z, n) for z, n, _ in pts]
    alphas = [(t - c.bytes / bandwidth) / c.steps for c, (_, _, t) in zip(terms, pts, strict=True)]
    alpha = max(0.0, float(np.mean(alphas)))
    t = np.array([p[2] for p in pts])
    pred = np.array([c.priced(alpha, bandwidth).time for c in terms])
    return Fit(op, algorithm, alpha, bandwidth, tuple(p[0] for p in pts), tuple(p[1] for p in pts),
               tuple(float(x) for x in t), tuple(float(x) for x in pred), tuple(float(x) for x in (pred - t) / t),
               alpha == 0.0)


@dataclass(frozen=True)
class RegimeFit:
    """The book's α-β formula fitted separately below and above a message-size ``threshold`` (B per step).

    ``small``/``large`` are the two fits (``None`` when no fitted point fell in that regime: the other one is used
    there); ``source`` is ``"mpich"`` (threshold from MPICH's protocol switch) or ``"data"`` (chosen from the fitted
    points by :func:`choose_threshold`)."""

    op: str
    algorithm: str
    threshold: float
    small: Fit | None
    large: Fit | None
    source: str

    def regime(self, size: float, ranks: int) -> Fit:
        """The fit that prices a call of ``size`` bytes on ``ranks`` ranks."""
        small = message_size(self.op, self.algorithm, size, ranks) < self.threshold
        f = self.small if small else self.large
        g = f if f is not None else (self.large if small else self.small)
        assert g is not None  # fit_regimes never builds a RegimeFit with both regimes empty
        return g

    def time(self, size: float, ranks: int, algorithm: str | None = None) -> float:
        """Predicted time (s) of a call of ``size`` bytes on ``ranks`` ranks."""
        return self.regime(size, ranks).time(size, ranks)

    @property
    def sizes(self) -> tuple[float, ...]:
        return tuple(z for f in (self.small, self.large) if f is not None for z in f.sizes)

    @property
    def residuals(self) -> tuple[float, ...]:
        return tuple(r for f in (self.small, self.large) if f is not None for r in f.residuals)

    @property
    def rms_residual(self) -> float:
        return float(np.sqrt(np.mean(np.square(self.residuals))))


def fit_regimes(op: str, algorithm: str, samples: Sequence[Sample] | Sequence[tuple[float, int, float]],
                threshold: float | None = MPICH_SHM_SWITCH) -> RegimeFit:
    """Two α-β fits of ``algorithm``, split where the message size (:func:`message_size`) reaches ``threshold`` B.

    Each regime with two or more sizes gets its own least-squares (α, β) as in :func:`fit`; a regime with a single
    size, or whose β it cannot tell (:func:`_free`), keeps the other regime's β and fits only α; an empty regime borrows
    the other fit. ``threshold=None``
    chooses the split from ``samples`` (:func:`choose_threshold`).
    """
    op, algorithm = check_algorithm(op, algorithm)
    pts = _points(samples)
    if threshold is None:
        return _fit_split(op, algorithm, pts, choose_threshold(op, algorithm, pts), "data")
    return _fit_split(op, algorithm, pts, positive("threshold", threshold), "mpich")


def _fit_split(op: str, algorithm: str, pts: list[tuple[float, int, float]], threshold: float,
               source: str) -> RegimeFit:
    lo = [p for p in pts if message_size(op, algorithm, p[0], p[1]) < threshold]
    hi = [p for p in pts if message_size(op, algorithm, p[0], p[1]) >= threshold]
    n_lo, n_hi = len({p[0] for p in lo}), len({p[0] for p in hi})
    if max(n_lo, n_hi) < 2:
        raise ValueError(f"samples must hold at least two sizes on one side of threshold={threshold:g} B so that "
                         f"α and β can be separated; got {n_lo} below and {n_hi} above")
    small, large = _free(op, algorithm, lo, n_lo), _free(op, algorithm, hi, n_hi)
    if small is None and large is None:
        raise ValueError("the fit gives no positive bandwidth in either regime: the samples do not grow with size")
    if small is None and lo:
        assert large is not None
        small = _borrow_beta(op, algorithm, lo, large.bandwidth)
    if large is None and hi:
        assert small is not None
        large = _borrow_beta(op, algorithm, hi, small.bandwidth)
    return RegimeFit(op, algorithm, threshold, small, large, source)


def _free(op: str, algorithm: str, pts: list[tuple[float, int, float]], distinct: int) -> Fit | None:
    """Free (α, β) fit of one regime, or None if it has fewer than 2 sizes or β cannot be told from it: the times do
    not grow with size, or the bytes term is under 1 % of every time (latency only)."""
    if distinct < 2:
        return None
    terms = [cost_terms(op, algorithm, z, n) for z, n, _ in pts]
    try:
        f = _result(op, algorithm, pts, terms)
    except ValueError:  # flat within the noise: the regime keeps the other one's β
        return None
    if max(c.bytes / f.bandwidth / t for c, (_, _, t) in zip(terms, pts, strict=True)) < 0.01:
        return None
    return f


def choose_threshold(op: str, algorithm: str,
                     samples: Sequence[Sample] | Sequence[tuple[float, int, float]]) -> float:
    """The message-size split (B) of ``samples`` whose two-regime fit has the smallest RMS relative residual.

    Candidates lie midway (geometrically) between consecutive measured message sizes and leave at least two sizes
    in each regime, so both regimes are free fits; needs four sizes or more. Only ``samples`` are looked at — pass
    the fitted points, never held-out ones.
    """
    op, algorithm = check_algorithm(op, algorithm)
    pts = _points(samples)
    msg = sorted({message_size(op, algorithm, z, n) for z, n, _ in pts})
    best: tuple[float, float] | None = None
    for a, b in itertools.pairwise(msg):
        cut = math.sqrt(a * b)
        lo = {p[0] for p in pts if message_size(op, algorithm, p[0], p[1]) < cut}
        hi = {p[0] for p in pts if message_size(op, algorithm, p[0], p[1]) >= cut}
        if len(lo) < 2 or len(hi) < 2:
            continue
        rms = _fit_split(op, algorithm, pts, cut, "data").rms_residual
        if best is None or rms < best[0]:
            best = (rms, cut)
    if best is None:
        raise ValueError(f"samples must hold at least 4 sizes to choose a threshold (2 per regime); "
                         f"got {len({p[0] for p in pts})}")
    return best[1]


def predict(model: Fit | RegimeFit, sizes: Sequence[float], ranks: int) -> tuple[float, ...]:
    """Predicted times (s) of ``model`` at ``sizes`` on ``ranks`` ranks."""
    return tuple(model.time(z, ranks) for z in sizes)


def relative_errors(model: Fit | RegimeFit, samples: Sequence[Sample]) -> tuple[float, ...]:
    """``(predicted − measured)/measured`` of ``model`` on (held-out) ``samples``."""
    return tuple(model.time(s.size, s.ranks) / s.median - 1 for s in samples)


def busbw(sample: Sample) -> float:
    """nccl-tests bus bandwidth (B/s) of a sample: ``S/t × factor(op, N)``."""
    return collectives.busbw(sample.op, sample.size, sample.ranks, sample.median)


def choose(op: str, size: float, ranks: int, latency: float, bandwidth: float,
           algorithms: Sequence[str] | None = None) -> tuple[str, tuple[tuple[str, float], ...]]:
    """The §2.2 chooser over MPICH's algorithms: the one with the smallest α-β time (ties: first listed).

    For ring and reduce_scatter_allgather this is :func:`clusterlab.communication.collectives.best_algorithm` with
    candidates ``("ring", "halving_doubling")``; recursive doubling joins with the model above.
    """
    algs = tuple(algorithms) if algorithms is not None else MPI_ALGORITHMS[choice("op", op, tuple(MPI_ALGORITHMS))]
    non_negative("latency", latency)
    positive("bandwidth", bandwidth)
    times = tuple((a, cost_terms(op, a, size, ranks).priced(latency, bandwidth).time) for a in algs)
    return min(times, key=lambda kv: kv[1])[0], times


@dataclass(frozen=True)
class ChooserRow:
    """At one size: the measured winner, the chooser's pick from one shared (α, β), and the pick from per-algorithm
    fits; ``measured`` holds every algorithm's median (s)."""

    size: float
    ranks: int
    measured_best: str
    model_best: str
    fitted_best: str
    measured: tuple[tuple[str, float], ...]

    @property
    def agree(self) -> bool:
        return self.measured_best == self.model_best

    def loss(self, algorithm: str) -> float:
        """How much slower ``algorithm`` measured than the measured winner (ratio ≥ 1)."""
        m = dict(self.measured)
        return m[algorithm] / m[self.measured_best]


def compare_chooser(sweep: Sweep, op: str, ranks: int, shared: Fit,
                    fits: dict[str, Fit | RegimeFit] | dict[str, Fit]) -> tuple[ChooserRow, ...]:
    """Per measured size: measured winner vs the chooser fed ``shared``'s (α, β) vs the best per-algorithm fit."""
    algs = MPI_ALGORITHMS[choice("op", op, tuple(MPI_ALGORITHMS))]
    rows = []
    for z in sweep.sizes:
        got = {s.algorithm: s.median for s in sweep.select(op, ranks=ranks, sizes=[z])}
        if set(got) != set(algs):
            continue
        measured = tuple((a, got[a]) for a in algs)
        best_m = min(measured, key=lambda kv: kv[1])[0]
        best_model, _ = choose(op, z, ranks, shared.latency, shared.bandwidth, algs)
        best_fit = min(algs, key=lambda a: fits[a].time(z, ranks))
        rows.append(ChooserRow(z, ranks, best_m, best_model, best_fit, measured))
    return tuple(rows)


def median_abs(values: Sequence[float]) -> float:
    """Median of ``|values|`` (nan for none)."""
    return float(np.median(np.abs(values))) if len(values) else math.nan


@dataclass(frozen=True)
class HeldOut:
    """One op on one N: every other measured size fitted (smallest first), the rest predicted — by one α-β per
    algorithm (``one``) and by two regimes per algorithm (``two``). Errors ``(predicted − measured)/measured`` are
    listed per held-out sample, in the order of ``samples``."""

    op: str
    ranks: int
    threshold: float
    fits_one: tuple[tuple[str, Fit], ...]
    fits_two: tuple[tuple[str, RegimeFit], ...]
    samples: tuple[Sample, ...]
    one: tuple[float, ...]
    two: tuple[float, ...]

    def median(self, model: str, max_spread: float = math.inf) -> float:
        """Median |error| of ``model`` (``"one"`` or ``"two"``) over held-out samples with spread ≤ ``max_spread``."""
        errs = self.one if choice("model", model, ("one", "two")) == "one" else self.two
        return median_abs([e for e, s in zip(errs, self.samples, strict=True) if s.spread <= max_spread])

    def count(self, max_spread: float = math.inf) -> int:
        return sum(s.spread <= max_spread for s in self.samples)


def held_out(sweep: Sweep, op: str, ranks: int, threshold: float = MPICH_SHM_SWITCH) -> HeldOut:
    """Fit every MPICH algorithm of ``op`` measured at ``ranks`` on the 1st, 3rd, … sizes; predict the others."""
    op = choice("op", op, tuple(MPI_ALGORITHMS))
    ones: list[tuple[str, Fit]] = []
    twos: list[tuple[str, RegimeFit]] = []
    held: list[Sample] = []
    e1: list[float] = []
    e2: list[float] = []
    for alg in MPI_ALGORITHMS[op]:
        pts = sweep.select(op, alg, ranks=ranks)
        if not pts:
            continue
        sizes = sorted({s.size for s in pts})
        fit_pts, test = sweep.select(op, alg, ranks, sizes[::2]), sweep.select(op, alg, ranks, sizes[1::2])
        f1, f2 = fit(op, alg, fit_pts), fit_regimes(op, alg, fit_pts, threshold)
        ones.append((alg, f1))
        twos.append((alg, f2))
        held += test
        e1 += relative_errors(f1, test)
        e2 += relative_errors(f2, test)
    if not held:
        raise ValueError(f"sweep holds no {op} samples at ranks={ranks}")
    return HeldOut(op, ranks, threshold, tuple(ones), tuple(twos), tuple(held), tuple(e1), tuple(e2))
