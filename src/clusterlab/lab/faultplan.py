"""The fault experiment's plan and bookkeeping (pure; :mod:`clusterlab.lab.faultlab` runs it): the seeded fault
schedule, the configuration, the book's prediction for the measured useful share and its standard error, and the
report (with JSON round trip and a terminal summary).

**What is compared.** Faults strike the running job only (the injector's clock runs from each restart), so the
run is a sequence of cycles: an up time ``U ~ Exp(M)`` in which the job completes ``⌊U/(T+δ)⌋`` checkpoints, then
``R`` = detection + restart. Over the ``n`` cycles the measured useful share is (steps the last restart resumed
from) × (the run's training time per step) / wall time. Inside the up time the book's exact model applies with
``R = 0``, and each failure adds ``R`` of wall time, so the prediction is
``(1 − expected_wasted_fraction(T, δ, M)) · M/(M + R)``.
The book's own numbers — exact with restarts exposed to failures,
:func:`~clusterlab.faults.checkpoint.expected_wasted_fraction` ``(T, δ, M, R)``, and first-order
:func:`~clusterlab.faults.checkpoint.wasted_fraction` — are reported beside it. The lost work per fault (time since
the last commit) is compared with the first-order ``T/2`` (:func:`~clusterlab.faults.checkpoint.wasted_terms`).
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, fields
from typing import Any, Final

import numpy as np

from ..faults.checkpoint import expected_wasted_fraction, wasted_fraction, wasted_terms
from ..validate import choice, int_in_range, non_negative, positive

__all__ = ["KINDS", "SEGMENT_KINDS", "Fault", "FaultConfig", "FaultRecord", "FaultReport", "Prediction", "Segment",
           "fault_schedule", "load", "predict", "summary", "timeline", "useful_share_stderr", "wall_shares"]

KINDS: Final = ("kill", "link")

# ------------------------------------------------------------------------------------------------------------
# pure parts: the schedule, the configuration, the prediction
# ------------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Fault:
    """One injected fault: ``gap`` s of up time after the (re)start, ``kind`` ``kill`` (SIGKILL rank ``target``)
    or ``link`` (cut node ``target``'s link)."""

    gap: float
    kind: str
    target: int


def fault_schedule(count: int, mtbf: float, seed: int = 0, *, nodes: int = 2, ranks_per_node: int = 1,
                   kinds: Sequence[str] = KINDS) -> tuple[Fault, ...]:
    """``count`` faults with exponential gaps of mean ``mtbf`` s, a kind drawn uniformly from ``kinds`` and a
    uniform target (a rank for ``kill``, a node for ``link``); the same seed gives the same schedule."""
    n = int_in_range("count", count, 0)
    m = positive("mtbf", mtbf)
    k = _check_kinds(kinds, int_in_range("nodes", nodes, 1, 64))
    ranks = nodes * int_in_range("ranks_per_node", ranks_per_node, 1, 64)
    rng = np.random.default_rng([int_in_range("seed", seed, 0), 9643])
    out = []
    for _ in range(n):
        gap = float(rng.exponential(m))
        kind = k[int(rng.integers(len(k)))]
        out.append(Fault(gap, kind, int(rng.integers(ranks if kind == "kill" else nodes))))
    return tuple(out)


def _check_kinds(kinds: Sequence[str], nodes: int) -> tuple[str, ...]:
    k = tuple(choice("kinds", x, KINDS) for x in kinds)
    if not k:
        raise ValueError(f"kinds must name at least one of {', '.join(KINDS)}; got none")
    if "link" in k and nodes < 2:
        raise ValueError(f"kinds 'link' needs nodes >= 2 (ranks on one node do not use the link); got nodes={nodes}")
    return k


@dataclass(frozen=True)
class FaultConfig:
    """One experiment: the cluster (``nodes`` × ``ranks_per_node``, links of ``rate`` bit/s), ``faults`` faults of
    mean gap ``mtbf`` s, checkpoint ``interval`` s (None: Young's for the measured save cost), watchdog
    ``timeout`` s, the model's work per step (``batch`` rows, ``dim`` → ``hidden`` → 1)."""

    nodes: int = 2
    ranks_per_node: int = 1
    mtbf: float = 3.0
    faults: int = 20
    seed: int = 0
    interval: float | None = None
    timeout: float = 0.5
    kinds: tuple[str, ...] = KINDS
    rate: float = 1e9
    batch: int = 2048
    dim: int = 256
    hidden: int = 256
    wall_limit: float = 900.0

    def __post_init__(self) -> None:
        int_in_range("nodes", self.nodes, 1, 16)
        int_in_range("ranks_per_node", self.ranks_per_node, 1, 8)
        if self.nodes * self.ranks_per_node < 2:
            raise ValueError("nodes × ranks_per_node must be at least 2 (a data-parallel job); got 1")
        positive("mtbf", self.mtbf)
        int_in_range("faults", self.faults, 1, 1000)
        int_in_range("seed", self.seed, 0)
        if self.interval is not None:
            positive("interval", self.interval)
        positive("timeout", self.timeout)
        _check_kinds(self.kinds, self.nodes)
        positive("rate", self.rate)
        int_in_range("batch", self.batch, 1, 1 << 20)
        int_in_range("dim", self.dim, 1, 1 << 14)
        int_in_range("hidden", self.hidden, 1, 1 << 14)
        positive("wall_limit", self.wall_limit)

    @property
    def ranks(self) -> int:
        return self.nodes * self.ranks_per_node


@dataclass(frozen=True)
class Prediction:
    """The book's numbers for interval ``T``, save cost ``δ``, MTBF ``M``, restart ``R`` (see the module text)."""

    useful: float  # (1 − expected_wasted_fraction(T, δ, M)) · M/(M + R): faults strike the running job only
    useful_book_exact: float  # 1 − expected_wasted_fraction(T, δ, M, R): restarts exposed to faults too
    useful_first_order: float  # 1 − wasted_fraction(T, δ, M, R) = 1 − δ/T − (T/2 + R)/M
    lost_per_fault: float  # first-order T/2


def predict(interval: float, save_cost: float, mtbf: float, restart: float) -> Prediction:
    """The predictions for one run (every argument in seconds; ``restart`` = detection + restart)."""
    t, d, m = positive("interval", interval), non_negative("save_cost", save_cost), positive("mtbf", mtbf)
    r = non_negative("restart", restart)
    up = 1.0 - expected_wasted_fraction(t, d, m)
    return Prediction(up * m / (m + r), 1.0 - expected_wasted_fraction(t, d, m, r),
                      1.0 - wasted_fraction(t, d, m, r), wasted_terms(t, d, m).failure * m)


def useful_share_stderr(faults: int, interval: float, save_cost: float, mtbf: float, restart: float) -> float:
    """Standard error of the useful share measured over ``faults`` cycles (delta method on the ratio estimator).

    Per cycle the up time is ``U = cK + V`` with ``c = T + δ``: ``K`` (checkpoints completed) is geometric with
    ``q = e^{−c/M}`` and, the exponential being memoryless, independent of the remainder ``V`` ∈ [0, c). With
    useful work ``TK``, wall ``U + R`` and share ``s``: ``Var(TK − s(U + R)) = (T − sc)²·q/(1−q)² + s²·Var V``
    (``Var V ≤ c²/12``), divided by ``n·E[U + R]²``."""
    n = int_in_range("faults", faults, 1)
    t, d, m = positive("interval", interval), non_negative("save_cost", save_cost), positive("mtbf", mtbf)
    r = non_negative("restart", restart)
    s = predict(t, d, m, r).useful
    c = t + d
    q = math.exp(-c / m)
    var = (t - s * c) ** 2 * q / (1 - q) ** 2 + s * s * c * c / 12
    return math.sqrt(var / n) / (m + r)


# ------------------------------------------------------------------------------------------------------------
# the report
# ------------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class FaultRecord:
    """One fault, times in s from the first start: injected, detected (``how``: ``exit`` or ``heartbeat``),
    restarted (the new job resumed); ``lost`` = injected − the last commit (or the restart if none since)."""

    kind: str
    target: int
    injected: float
    detected: float
    restarted: float
    lost: float
    how: str
    resumed_step: int

    @property
    def detection(self) -> float:
        return self.detected - self.injected

    @property
    def restart(self) -> float:
        return self.restarted - self.detected


@dataclass(frozen=True)
class FaultReport:
    """The measured run against the prediction; :meth:`as_dict` for JSON."""

    config: FaultConfig
    save_cost: float  # δ from the probe (s): what Young's interval used
    interval: float  # T the run was given (s)
    interval_measured: float  # mean training time between two saves (steps are whole)
    save_cost_measured: float  # mean save in the run
    step_time: float  # training time per step in the run (between saves)
    steps: int
    records: tuple[FaultRecord, ...]
    wall: float  # first start → restart after the last fault
    useful: float  # resumed steps × step time
    prediction: Prediction
    stderr: float
    final_hash: str
    reference_hash: str
    ranks_agree: bool
    #: CPU, cores, OS, MPI, load average and other work's cores at the start (:func:`clusterlab.lab.faultlab.
    #: run_faults` fills it; ``busy`` when other work used more than a quarter of a core)
    machine: dict[str, Any] = field(default_factory=dict)

    @property
    def identical(self) -> bool:
        return self.final_hash == self.reference_hash and self.ranks_agree

    @property
    def useful_share(self) -> float:
        return self.useful / self.wall

    @property
    def mean_lost(self) -> float:
        return float(np.mean([r.lost for r in self.records]))

    @property
    def mean_detection(self) -> float:
        return float(np.mean([r.detection for r in self.records]))

    @property
    def mean_restart(self) -> float:
        return float(np.mean([r.restart for r in self.records]))

    def as_dict(self) -> dict[str, Any]:
        out = {f.name: getattr(self, f.name) for f in fields(self) if f.name not in ("config", "records",
                                                                                    "prediction")}
        out.update(config=asdict(self.config), prediction=asdict(self.prediction),
                   records=[{**asdict(r), "detection": r.detection, "restart": r.restart} for r in self.records],
                   identical=self.identical, useful_share=self.useful_share, mean_lost=self.mean_lost,
                   mean_detection=self.mean_detection, mean_restart=self.mean_restart)
        return out

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> FaultReport:
        cfg = dict(d["config"], kinds=tuple(d["config"]["kinds"]))
        recs = tuple(FaultRecord(**{k: r[k] for k in (f.name for f in fields(FaultRecord))}) for r in d["records"])
        keep = {f.name for f in fields(cls)} - {"config", "records", "prediction"}
        return cls(config=FaultConfig(**cfg), records=recs, prediction=Prediction(**d["prediction"]),
                   **{k: d[k] for k in keep})


def summary(rep: FaultReport) -> str:
    """A few lines for the terminal."""
    c, p = rep.config, rep.prediction
    kinds = {k: sum(r.kind == k for r in rep.records) for k in c.kinds}
    return "\n".join([
        f"{len(rep.records)} faults ({', '.join(f'{v} {k}' for k, v in kinds.items())}), MTBF {c.mtbf:g} s, "
        f"{c.nodes} nodes × {c.ranks_per_node} ranks, {rep.steps} steps of {1e3 * rep.step_time:.1f} ms",
        f"save cost {1e3 * rep.save_cost:.1f} ms (in the run {1e3 * rep.save_cost_measured:.1f} ms); interval "
        f"{rep.interval:.3f} s set, {rep.interval_measured:.3f} s kept",
        f"detection {1e3 * rep.mean_detection:.0f} ms, restart {1e3 * rep.mean_restart:.0f} ms (mean)",
        f"lost work per fault {rep.mean_lost:.3f} s measured, T/2 = {p.lost_per_fault:.3f} s first order",
        f"useful share {rep.useful_share:.3f} ± {rep.stderr:.3f} measured; predicted {p.useful:.3f} "
        f"(book exact with exposed restarts {p.useful_book_exact:.3f}, first order {p.useful_first_order:.3f})",
        f"final parameters {'identical to' if rep.identical else 'DIFFERENT from'} the uninterrupted run "
        f"(sha256 {rep.final_hash[:16]}…)",
    ])


def load(path: str | os.PathLike[str]) -> FaultReport:
    """A report written by ``python -m clusterlab.lab faults … --json``."""
    with open(path, encoding="utf-8") as fh:
        return FaultReport.from_dict(json.load(fh))


@dataclass(frozen=True)
class Segment:
    """One stretch of a run's wall time (s from the first start): ``kind`` ``work`` (training and saving that
    the run kept), ``lost`` (training after the last commit, redone after the fault), ``detect`` (fault → the
    watchdog saw it), ``restart`` (→ the new job resumed)."""

    start: float
    end: float
    kind: str


SEGMENT_KINDS: Final = ("work", "lost", "detect", "restart")


def timeline(rep: FaultReport) -> tuple[Segment, ...]:
    """The run's wall time cut into :class:`Segment` s, in order, from the first start to the last restart."""
    out: list[Segment] = []
    prev = 0.0
    for r in rep.records:
        cut = max(prev, r.injected - r.lost)
        out += [Segment(prev, cut, "work"), Segment(cut, r.injected, "lost"),
                Segment(r.injected, r.detected, "detect"), Segment(r.detected, r.restarted, "restart")]
        prev = r.restarted
    return tuple(s for s in out if s.end > s.start)


def wall_shares(rep: FaultReport) -> dict[str, float]:
    """Each :data:`SEGMENT_KINDS` kind's share of the wall time (they sum to 1)."""
    segs = timeline(rep)
    total = sum(s.end - s.start for s in segs)
    return {k: sum(s.end - s.start for s in segs if s.kind == k) / total for k in SEGMENT_KINDS}
