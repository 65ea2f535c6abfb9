"""Can a §2.3 measurement be trusted, and how does it compare with the book's reference run (集群篇 §2.3).

Three checks on a :class:`~clusterlab.lab.mpifit.Sweep`:

* :func:`spread_relation` — is a point's model error related to its spread (interquartile range / median)? Spearman's
  rank correlation between ``|error|`` and spread, the largest spread, and where the worst point sits.
* :func:`machine_load` — the load average the measurement recorded (its ``note``, written by
  :func:`clusterlab.lab.mpibench.load_note`) or the current machine's, against the cores. A 1-minute load above the
  core count means other work competed with the ranks; MPICH busy-polls, so that inflates the times as
  oversubscription does.
* :func:`summarize` / :func:`compare_runs` — per (op, MPICH algorithm, N): fitted α and β, the two-regime model's
  held-out error and the largest spread, for the reference and (if there is one) the reader's own run side by side.

Pure except :func:`machine_load` without a sweep, which reads the current load average.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..validate import choice, int_in_range
from .mpifit import Sample, Sweep, fit, held_out, median_abs

__all__ = ["MachineLoad", "RunComparison", "RunSummary", "SpreadRelation", "compare_runs", "machine_load",
           "rank_correlation", "spread_relation", "summarize"]

_LOAD = re.compile(r"load average\s+([0-9.]+)\s+([0-9.]+)\s+([0-9.]+)")


def _ranks(x: Sequence[float]) -> list[float]:
    """Ranks 1…n, ties given their average rank."""
    order = sorted(range(len(x)), key=lambda i: x[i])
    r = [0.0] * len(x)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and x[order[j + 1]] == x[order[i]]:
            j += 1
        for k in range(i, j + 1):
            r[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return r


def rank_correlation(x: Sequence[float], y: Sequence[float]) -> float:
    """Spearman's ρ: the Pearson correlation of the ranks of ``x`` and ``y`` (average ranks for ties), in
    [−1, 1]; nan when either has no variation. Sums are :func:`math.fsum` (the same value on every CPU)."""
    if len(x) != len(y):
        raise ValueError(f"x and y must have the same length; got {len(x)} and {len(y)}")
    if len(x) < 2:
        raise ValueError(f"x must hold at least 2 values; got {len(x)}")
    rx, ry = _ranks([float(v) for v in x]), _ranks([float(v) for v in y])
    mx, my = math.fsum(rx) / len(rx), math.fsum(ry) / len(ry)
    sxy = math.fsum((a - mx) * (b - my) for a, b in zip(rx, ry, strict=True))
    sxx, syy = math.fsum((a - mx) ** 2 for a in rx), math.fsum((b - my) ** 2 for b in ry)
    return sxy / math.sqrt(sxx * syy) if sxx > 0 and syy > 0 else math.nan


@dataclass(frozen=True)
class SpreadRelation:
    """Model errors of ``samples`` against their spreads (IQR / median)."""

    samples: tuple[Sample, ...]
    errors: tuple[float, ...]  # (predicted − measured)/measured, one per sample
    correlation: float  # Spearman ρ between |error| and spread

    @property
    def spreads(self) -> tuple[float, ...]:
        return tuple(s.spread for s in self.samples)

    @property
    def max_spread(self) -> float:
        return max(self.spreads)

    @property
    def median_spread(self) -> float:
        return float(np.median(self.spreads))

    @property
    def widest(self) -> int:
        """Index of the sample with the largest spread."""
        return int(np.argmax(self.spreads))

    @property
    def worst(self) -> int:
        """Index of the sample with the largest |error|."""
        return int(np.argmax(np.abs(self.errors)))

    def spread_rank(self, index: int) -> int:
        """1 = widest: how the spread of sample ``index`` ranks among all."""
        i = int_in_range("index", index, 0, len(self.samples) - 1)
        return 1 + sum(s > self.samples[i].spread for s in self.spreads)

    def count_above(self, spread: float) -> int:
        """Samples whose spread exceeds ``spread``."""
        return sum(s > spread for s in self.spreads)


def spread_relation(samples: Sequence[Sample], errors: Sequence[float]) -> SpreadRelation:
    """Relate each sample's relative model error (``errors``, same order) to its spread."""
    samples, errors = tuple(samples), tuple(float(e) for e in errors)
    if len(samples) != len(errors):
        raise ValueError(f"errors must hold one value per sample; got {len(errors)} for {len(samples)} samples")
    if len(samples) < 2:
        raise ValueError(f"samples must hold at least 2 points; got {len(samples)}")
    rho = rank_correlation([abs(e) for e in errors], [s.spread for s in samples])
    return SpreadRelation(samples, errors, rho)


@dataclass(frozen=True)
class MachineLoad:
    """Load average over 1, 5 and 15 minutes (nan: not recorded) and the cores; ``source`` is ``"recorded"``
    (a sweep's note), ``"current"`` (this machine now) or ``"missing"`` (the sweep recorded no load)."""

    load1: float
    load5: float
    load15: float
    cores: int
    source: str

    @property
    def known(self) -> bool:
        return not math.isnan(self.load1)

    @property
    def overloaded(self) -> bool:
        """The 1-minute load exceeds the cores: other work competed with the ranks for the CPU."""
        return self.known and self.load1 > self.cores

    @property
    def busy_before(self) -> bool:
        """The 15-minute load exceeds the cores: the machine was busy in the quarter hour before."""
        return not math.isnan(self.load15) and self.load15 > self.cores


def machine_load(sweep: Sweep | None = None) -> MachineLoad:
    """The load a ``sweep`` recorded (``# note: … load average a b c`` and ``# cores: k``), or with no sweep the
    current machine's (:func:`os.getloadavg`, the cores this process may use)."""
    if sweep is None:
        from .mpibench import cores

        a, b, c = os.getloadavg()
        return MachineLoad(a, b, c, cores(), "current")
    raw = sweep.info("cores")
    if not raw.isdigit() or int(raw) < 1:
        raise ValueError(f"sweep must record its cores as a positive integer (# cores: k); got {raw!r}")
    m = _LOAD.search(sweep.info("note"))
    if m is None:
        return MachineLoad(math.nan, math.nan, math.nan, int(raw), "missing")
    a, b, c = (float(g) for g in m.groups())
    return MachineLoad(a, b, c, int(raw), "recorded")


@dataclass(frozen=True)
class RunSummary:
    """One (op, MPICH algorithm, N) of a run: α (s) and β (B/s) fitted on all its sizes (one regime), the
    two-regime model's median |held-out error| (:func:`.mpifit.held_out`), the largest spread, the sizes, and
    whether the ranks outnumbered the cores."""

    op: str
    algorithm: str
    ranks: int
    latency: float
    bandwidth: float
    held_out: float
    max_spread: float
    sizes: int
    oversubscribed: bool


def summarize(sweep: Sweep, ops: Sequence[str] | None = None) -> tuple[RunSummary, ...]:
    """A :class:`RunSummary` for every (op, algorithm, N) of ``sweep`` (``ops``: only these) with 4 sizes or more
    (2 fitted and 2 held out)."""
    from .mpifit import MPI_ALGORITHMS

    wanted = tuple(choice("ops", o, tuple(MPI_ALGORITHMS)) for o in ops) if ops is not None else tuple(MPI_ALGORITHMS)
    out = []
    for op in wanted:
        for n in sorted({s.ranks for s in sweep.select(op)}):
            if len({s.size for s in sweep.select(op, ranks=n)}) < 4:
                continue
            h = held_out(sweep, op, n)
            for alg in MPI_ALGORITHMS[op]:
                pts = sweep.select(op, alg, ranks=n)
                if len({s.size for s in pts}) < 4:
                    continue
                f = fit(op, alg, pts)
                errs = [e for e, s in zip(h.two, h.samples, strict=True) if s.algorithm == alg]
                out.append(RunSummary(op, alg, n, f.latency, f.bandwidth, median_abs(errs),
                                      max(s.spread for s in pts), len({s.size for s in pts}),
                                      any(s.oversubscribed for s in pts)))
    if not out:
        raise ValueError("sweep must hold at least one (op, algorithm, N) measured at 4 sizes or more")
    return tuple(out)


@dataclass(frozen=True)
class RunComparison:
    """The reference run's summary of one (op, algorithm, N) and the reader's (``own``; None when the reader
    has no run or did not measure it)."""

    reference: RunSummary
    own: RunSummary | None

    @property
    def latency_ratio(self) -> float:
        """Own α / reference α (nan without an own run or with α = 0)."""
        if self.own is None or self.reference.latency == 0:
            return math.nan
        return self.own.latency / self.reference.latency

    @property
    def bandwidth_ratio(self) -> float:
        """Own β / reference β (nan without an own run)."""
        return math.nan if self.own is None else self.own.bandwidth / self.reference.bandwidth


def compare_runs(reference: Sweep, own: Sweep | None = None,
                 ops: Sequence[str] | None = None) -> tuple[RunComparison, ...]:
    """Per (op, algorithm, N) of ``reference``: its summary beside ``own``'s (None where ``own`` is None or lacks
    it)."""
    ref = summarize(reference, ops)
    mine = {(r.op, r.algorithm, r.ranks): r for r in summarize(own, ops)} if own is not None else {}
    return tuple(RunComparison(r, mine.get((r.op, r.algorithm, r.ranks))) for r in ref)
