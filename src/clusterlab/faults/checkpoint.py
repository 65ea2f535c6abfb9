"""Checkpoints: bytes written and save time per strategy, optimal interval (Young, Daly), wasted time.

Units: bytes, seconds, bytes/s. Symbols: ``δ`` save time (s), ``M`` mean time between failures of the whole job
(s), ``R`` restart time (s: detect, reschedule, load the checkpoint), ``T`` checkpoint interval (s of work between
two saves).

First-order model of the fraction of wall time lost (Young 1974):

    W(T) = δ/T + (T/2 + R)/M

— each interval pays one save (δ per T of work), and each failure (one per M of wall time) loses on average half
an interval of work plus the restart. ``dW/dT = 0`` gives Young's interval ``T* = sqrt(2δM)``; ``R`` does not
move the optimum. Daly (2006) adds higher-order terms:
``T* = sqrt(2δM)·[1 + ⅓·sqrt(δ/(2M)) + (1/9)·(δ/(2M))] − δ`` for ``δ < 2M``, else ``T* = M``.

Sources: J. W. Young, "A first order approximation to the optimum checkpoint interval", CACM 17(9):530–531, 1974;
J. T. Daly, "A higher order estimate of the optimum checkpoint interval for restart dumps", FGCS 22(3):303–312,
2006; mixed-precision Adam state of 16 bytes per parameter: Rajbhandari et al., ZeRO, arXiv:1910.02054, §3.1;
asynchronous save (copy to host memory, then write in the background): PyTorch Distributed Checkpoint
``async_save`` recipe.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Final

import numpy as np
import numpy.typing as npt

from ..validate import int_in_range, non_negative, positive

__all__ = [
    "STRATEGIES",
    "MonteCarloResult",
    "SavePlan",
    "WastedTerms",
    "daly_interval",
    "daly_wasted_fraction",
    "expected_wall_time",
    "expected_wasted_fraction",
    "optimal_wasted_fraction",
    "save_plan",
    "simulate_run",
    "wasted_fraction",
    "wasted_terms",
    "young_interval",
]

STRATEGIES: Final = ("full_every_rank", "full_rank0", "sharded", "async", "recompute_on_load")


@dataclass(frozen=True)
class SavePlan:
    """What one checkpoint costs under a strategy.

    ``per_rank_bytes``: the most any rank writes; ``total_bytes``: written by all ranks together;
    ``blocking_time``: how long training stops (s); ``background_time``: writing that overlaps with training (s);
    ``extra_host_bytes``: pinned host memory per rank that the strategy needs (async only).
    """

    strategy: str
    per_rank_bytes: float
    total_bytes: float
    blocking_time: float
    background_time: float
    extra_host_bytes: float

    @property
    def save_time(self) -> float:
        """Wall time from start to a durable checkpoint: blocking + background (s)."""
        return self.blocking_time + self.background_time


def save_plan(
    strategy: str,
    state_bytes: float,
    ranks: int,
    storage_bandwidth: float,
    *,
    writer_bandwidth: float | None = None,
    host_copy_bandwidth: float | None = None,
    recomputable_fraction: float = 0.125,
) -> SavePlan:
    """Bytes and time of one checkpoint of ``state_bytes`` of model state spread over ``ranks`` ranks.

    ``storage_bandwidth``: aggregate write bandwidth of the storage system (B/s); ``writer_bandwidth``: what one
    rank's client can write (B/s; default: no per-client limit below the aggregate).

    * ``full_every_rank``: every rank writes the whole state — ``N·state`` bytes (a strawman: N identical copies).
    * ``full_rank0``: rank 0 gathers and writes the whole state once — ``state`` bytes through one client (the
      gather itself and rank 0's host memory are not modelled; without ``writer_bandwidth`` the single client is
      assumed to reach the aggregate bandwidth, which is optimistic).
    * ``sharded``: every rank writes its ``state/N`` shard — ``state`` bytes in total, all clients in parallel.
    * ``async``: sharded, but training only stops for the copy of the shard into host memory
      (``host_copy_bandwidth`` per rank, default 25 GB/s); the write runs in the background; needs one shard of
      extra pinned host memory per rank.
    * ``recompute_on_load``: sharded, but skips what can be rebuilt when loading (e.g. bf16 weights from the fp32
      master copy: ``recomputable_fraction`` = 2/16 of mixed-precision Adam state).
    """
    if strategy not in STRATEGIES:
        raise ValueError(f"strategy must be one of {', '.join(STRATEGIES)}; got {strategy!r}")
    s = non_negative("state_bytes", state_bytes)
    n = int_in_range("ranks", ranks, 1)
    agg = positive("storage_bandwidth", storage_bandwidth)
    per_client = math.inf if writer_bandwidth is None else positive("writer_bandwidth", writer_bandwidth)
    frac = non_negative("recomputable_fraction", recomputable_fraction)
    if frac >= 1:
        raise ValueError(f"recomputable_fraction must be in [0, 1), got {recomputable_fraction!r}")

    def parallel_write(per_rank: float, writers: int) -> float:
        return per_rank * writers / min(agg, writers * per_client)

    if strategy == "full_every_rank":
        return SavePlan(strategy, s, n * s, parallel_write(s, n), 0.0, 0.0)
    if strategy == "full_rank0":
        return SavePlan(strategy, s, s, parallel_write(s, 1), 0.0, 0.0)
    if strategy == "sharded":
        return SavePlan(strategy, s / n, s, parallel_write(s / n, n), 0.0, 0.0)
    if strategy == "recompute_on_load":
        kept = s * (1 - frac)
        return SavePlan(strategy, kept / n, kept, parallel_write(kept / n, n), 0.0, 0.0)
    copy_bw = 25e9 if host_copy_bandwidth is None else positive("host_copy_bandwidth", host_copy_bandwidth)
    shard = s / n
    return SavePlan(strategy, shard, s, shard / copy_bw, parallel_write(shard, n), shard)


# ------------------------------------------------------------------------------------------------------------
# interval and wasted time
# ------------------------------------------------------------------------------------------------------------
def _times(save_time: float, mtbf: float) -> tuple[float, float]:
    return non_negative("save_time", save_time), positive("mtbf", mtbf)


def young_interval(save_time: float, mtbf: float) -> float:
    """Young's optimum ``T* = sqrt(2·δ·M)`` in s (work between two checkpoints)."""
    d, m = _times(save_time, mtbf)
    return math.sqrt(2 * d * m)


def daly_interval(save_time: float, mtbf: float) -> float:
    """Daly's higher-order optimum in s: ``sqrt(2δM)[1 + ⅓sqrt(δ/2M) + (δ/2M)/9] − δ`` if ``δ < 2M``, else ``M``.

    Reproduces Daly's examples: δ = 5 min with M = 24 h, 6 h, 15 min → 116.7, 56.7, 9.14 min.
    """
    d, m = _times(save_time, mtbf)
    if d >= 2 * m:
        return m
    x = d / (2 * m)
    return math.sqrt(2 * d * m) * (1 + math.sqrt(x) / 3 + x / 9) - d


@dataclass(frozen=True)
class WastedTerms:
    """The two terms of the first-order waste ``W(T)``: ``save`` = ``δ/T`` (one save per interval of work) and
    ``failure`` = ``(T/2 + R)/M`` (half an interval of work and a restart per failure); ``total`` is their sum."""

    interval: float
    save: float
    failure: float

    @property
    def total(self) -> float:
        """``W(T) = δ/T + (T/2 + R)/M``: :func:`wasted_fraction`."""
        return self.save + self.failure


def wasted_terms(interval: float, save_time: float, mtbf: float, restart_time: float = 0.0) -> WastedTerms:
    """``W(T)`` split into its save term ``δ/T`` and failure term ``(T/2 + R)/M`` (see :class:`WastedTerms`)."""
    t = positive("interval", interval)
    d, m = _times(save_time, mtbf)
    r = non_negative("restart_time", restart_time)
    return WastedTerms(t, d / t, (t / 2 + r) / m)


def wasted_fraction(interval: float, save_time: float, mtbf: float, restart_time: float = 0.0) -> float:
    """First-order fraction of wall time lost: ``W(T) = δ/T + (T/2 + R)/M`` (may exceed 1 when T ≳ M)."""
    return wasted_terms(interval, save_time, mtbf, restart_time).total


def expected_wasted_fraction(interval: float, save_time: float, mtbf: float, restart_time: float = 0.0) -> float:
    """Exact expected fraction of wall time lost for exponential failures, in the long-run limit of
    :func:`simulate_run` (a finite run also skips the last save: see :func:`expected_wall_time`).

    One cycle of ``T`` work plus ``δ`` save, retried after every failure (and a failure may also strike during
    the restart ``R``), takes on average ``E = M·e^{R/M}·(e^{(T+δ)/M} − 1)`` of wall time (Daly 2006, §3), so the
    lost fraction is ``1 − T/E``. For ``T, δ, R ≪ M`` this reduces to the first-order :func:`wasted_fraction`.
    """
    t = positive("interval", interval)
    d, m = _times(save_time, mtbf)
    r = non_negative("restart_time", restart_time)
    x, y = (t + d) / m, r / m
    if x + y < 700.0:
        expected_cycle = m * math.exp(y) * math.expm1(x)
        return 1.0 - t / expected_cycle
    # e^x overflows a float beyond x ≈ 709: the same ratio in logarithms (log expm1(x) = x + log1p(−e^{−x}))
    log_cycle = math.log(m) + y + x + math.log1p(-math.exp(-x))
    return 1.0 - math.exp(math.log(t) - log_cycle)


def expected_wall_time(
    work: float, interval: float, save_time: float, mtbf: float, restart_time: float = 0.0
) -> float:
    """Exact expected wall time (s) of the finite run that :func:`simulate_run` simulates.

    A segment of ``L`` seconds that must run without a failure takes on average ``M·e^{R/M}·(e^{L/M} − 1)``
    (each failure costs the time lost plus a restart that may fail too). The run is ``K = ⌈W/T⌉ − 1`` segments of
    ``T + δ`` (work, then save) followed by a last one of ``W − K·T`` seconds of work with no save.
    """
    w = positive("work", work)
    t = positive("interval", interval)
    d, m = _times(save_time, mtbf)
    r = non_negative("restart_time", restart_time)
    k = math.ceil(w / t - 1e-12) - 1
    last = w - k * t
    scale = m * math.exp(r / m)
    return k * scale * math.expm1((t + d) / m) + scale * math.expm1(last / m)


def optimal_wasted_fraction(save_time: float, mtbf: float, restart_time: float = 0.0) -> float:
    """``W(T*)`` at Young's interval: ``sqrt(2δ/M) + R/M``."""
    return wasted_fraction(young_interval(save_time, mtbf), save_time, mtbf, restart_time)


def daly_wasted_fraction(save_time: float, mtbf: float, restart_time: float = 0.0) -> float:
    """Exact expected fraction of wall time lost (:func:`expected_wasted_fraction`, exponential failures) when
    checkpointing at Daly's interval (:func:`daly_interval`): the cost of failures plus checkpoints at the best
    interval, always below 1."""
    return expected_wasted_fraction(daly_interval(save_time, mtbf), save_time, mtbf, restart_time)


# ------------------------------------------------------------------------------------------------------------
# Monte Carlo of a long run with exponential failures
# ------------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class MonteCarloResult:
    """``wall[i]``: wall time (s) of run ``i`` to finish ``work`` seconds of useful training;
    ``failures[i]``: failures it met. ``wasted_fraction`` = 1 − work / mean wall time."""

    interval: float
    work: float
    wall: npt.NDArray[np.float64]
    failures: npt.NDArray[np.int64]

    @property
    def wasted_fraction(self) -> float:
        return 1.0 - self.work / float(self.wall.mean())

    @property
    def wasted_fraction_stderr(self) -> float:
        """Standard error of ``wasted_fraction`` (delta method on the mean wall time)."""
        mean = float(self.wall.mean())
        return self.work / mean**2 * float(self.wall.std(ddof=1)) / math.sqrt(self.wall.size)


def simulate_run(
    work: float,
    interval: float,
    save_time: float,
    mtbf: float,
    restart_time: float = 0.0,
    *,
    runs: int = 10_000,
    seed: int = 0,
) -> MonteCarloResult:
    """Simulate ``runs`` independent training runs of ``work`` seconds of useful compute.

    A run alternates ``interval`` seconds of work and ``save_time`` seconds of saving; failures arrive as a
    Poisson process with mean gap ``mtbf`` (exponential gaps, in wall time; a failure can strike during work,
    save or restart). After a failure the run pays ``restart_time`` and resumes from the last completed
    checkpoint. Vectorised over runs: each loop iteration draws the next failure gap of every unfinished run.
    """
    w = positive("work", work)
    t = positive("interval", interval)
    d, m = _times(save_time, mtbf)
    r = non_negative("restart_time", restart_time)
    n = int_in_range("runs", runs, 1)
    rng = np.random.default_rng(seed)
    cycle = t + d
    done = np.zeros(n)  # useful work secured by completed checkpoints
    wall = np.zeros(n)
    failures = np.zeros(n, dtype=np.int64)
    active = np.arange(n)
    restart = np.zeros(n)  # the first segment starts without a restart
    while active.size:
        gap = rng.exponential(m, size=active.size)
        need = w - done[active]
        cycles_needed = np.ceil(need / t - 1e-12)
        finish_time = restart[active] + (cycles_needed - 1) * cycle + need - (cycles_needed - 1) * t
        # the final interval needs no save: the run ends when the last piece of work is done
        finishes = gap >= finish_time
        idx_fin = active[finishes]
        wall[idx_fin] += finish_time[finishes]
        done[idx_fin] = w
        idx_fail = active[~finishes]
        g = gap[~finishes]
        usable = np.maximum(g - restart[idx_fail], 0.0)
        done[idx_fail] += np.floor(usable / cycle) * t
        wall[idx_fail] += g
        failures[idx_fail] += 1
        restart[idx_fail] = r
        active = idx_fail
    return MonteCarloResult(t, w, wall, failures)
