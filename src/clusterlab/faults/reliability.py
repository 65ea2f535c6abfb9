"""Failures at scale: MTBF of many components, failure rates from public data, goodput.

For ``G`` independent components that each fail as a Poisson process with rate ``λ`` (per hour of operation),
the whole job fails at rate ``G·λ`` and its mean time between failures is ``MTBF = 1/(G·λ)``. A job that stops
when any GPU fails therefore sees failures ``G`` times as often as one GPU.

Public data (:data:`FAILURE_DATA`) give per-GPU-hour rates that are far higher than the ``3e-6`` the original
text assumes; every entry carries its source and whether the numbers were read in the primary text.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from ..units import DAY, HOUR
from ..validate import int_in_range, non_negative, positive

__all__ = [
    "FAILURE_DATA",
    "FailureSource",
    "Goodput",
    "ScaleCost",
    "components_for_mtbf",
    "failure_source",
    "goodput",
    "job_mtbf",
    "rate_from_events",
    "scale_cost",
]

def job_mtbf(components: int, rate_per_hour: float) -> float:
    """MTBF of a job in **seconds**: ``1/(G·λ)`` hours with ``λ`` failures per component-hour."""
    g = int_in_range("components", components, 1)
    lam = positive("rate_per_hour", rate_per_hour)
    return HOUR / (g * lam)


def components_for_mtbf(mtbf: float, rate_per_hour: float) -> float:
    """The number of components ``G = 1/(λ·M)`` (not rounded) whose job MTBF is ``mtbf`` seconds at ``λ`` failures
    per component-hour: the inverse of :func:`job_mtbf`."""
    m = positive("mtbf", mtbf)
    lam = positive("rate_per_hour", rate_per_hour)
    return HOUR / (lam * m)


def rate_from_events(events: float, components: int, hours: float) -> float:
    """Failures per component-hour from a count of ``events`` over ``components × hours``."""
    e = non_negative("events", events)
    g = int_in_range("components", components, 1)
    return e / (g * positive("hours", hours))


@dataclass(frozen=True)
class FailureSource:
    """One published (or assumed) failure rate: ``rate`` per GPU-hour, how it was derived, the source, and
    ``verified``: False where only secondary copies were read (the book marks those 需核实)."""

    key: str
    label: str
    rate: float
    derivation: str
    source: str
    verified: bool


def _llama3_rate() -> float:
    # 419 unexpected interruptions in a 54-day snapshot of training on up to 16,384 H100 GPUs
    return rate_from_events(419, 16_384, 54 * 24)


def _opt_rate() -> float:
    # ≥ 35 manual + ~70 automatic restarts on 992 A100 over about 2 months (60 days)
    return rate_from_events(105, 992, 60 * 24)


def _rsc_rate(failures_per_1000_node_days: float) -> float:
    return failures_per_1000_node_days / (1000 * 8 * 24)  # 8 GPUs per node


FAILURE_DATA: Final[tuple[FailureSource, ...]] = (
    FailureSource(
        "seed", "原文假设", 3e-6,
        "λ = 3×10⁻⁶ /GPU·h（原文 §9.6.4 的假设，未给出处）", "原文 §9.6.4", False,
    ),
    FailureSource(
        "llama3", "Llama 3（Meta，16K H100）", _llama3_rate(),
        "419 次非计划中断 ÷ (16 384 GPU × 54 天 × 24 h)；若实际在用的卡更少，速率更高，故为下界",
        "Llama 3 Herd of Models, arXiv:2407.21783, §3.3.4 与表 5", True,
    ),
    FailureSource(
        "opt175b", "OPT-175B（Meta，992 A100）", _opt_rate(),
        "约 105 次重启（≥35 次人工 + 约 70 次自动）÷ (992 GPU × 约 60 天 × 24 h)",
        "Zhang et al., OPT, arXiv:2205.01068, §2.5", True,
    ),
    FailureSource(
        "rsc1", "Meta RSC-1（16K A100）", _rsc_rate(6.50),
        "6.50 次故障 / 1000 节点·天，每节点 8 卡",
        "Kokolis et al., Revisiting Reliability in Large-Scale ML Research Clusters, arXiv:2410.21680", False,
    ),
    FailureSource(
        "rsc2", "Meta RSC-2（8K A100）", _rsc_rate(2.34),
        "2.34 次故障 / 1000 节点·天，每节点 8 卡",
        "Kokolis et al., arXiv:2410.21680", False,
    ),
)


def failure_source(key: str) -> FailureSource:
    for src in FAILURE_DATA:
        if src.key == key:
            return src
    raise ValueError(f"key must be one of {', '.join(s.key for s in FAILURE_DATA)}; got {key!r}")


# ------------------------------------------------------------------------------------------------------------
# goodput
# ------------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Goodput:
    """Where the wall time of a failing job goes, as fractions of wall time (first-order model).

    ``save``: checkpoint writing, ``lost_work``: work redone after failures (half an interval each),
    ``recovery``: detection, localisation, restart and loading (the MTTR), ``useful`` = the rest.
    """

    useful: float
    save: float
    lost_work: float
    recovery: float


def goodput(interval: float, save_time: float, mtbf: float, mttr: float) -> Goodput:
    """First-order split of wall time: save ``δ/(T+δ)``, and per failure (every ``M`` s) ``(T+δ)/2`` of lost
    work plus ``mttr``. Useful = ``(1 − ((T+δ)/2 + MTTR)/M) · T/(T+δ)``.

    This is a slightly more careful first-order model than :func:`clusterlab.faults.checkpoint.wasted_fraction`
    (``δ/T + (T/2 + R)/M``, Young's form, used to derive the optimum): it counts the save as a share of wall
    time and loses half a whole cycle, save included. Both agree to first order; the exact value for
    exponential failures is :func:`clusterlab.faults.checkpoint.expected_wasted_fraction`. ``mttr`` here is the
    ``restart_time`` R of :mod:`clusterlab.faults.checkpoint`. When a failure costs at least the MTBF
    (``(T+δ)/2 + MTTR ≥ M``) the first-order model has no useful time left and returns ``useful = 0``; the
    exact model still gives a (small) positive value there.
    """
    t = positive("interval", interval)
    d = non_negative("save_time", save_time)
    m = positive("mtbf", mtbf)
    r = non_negative("mttr", mttr)
    per_failure = (t + d) / 2 + r
    lost = per_failure / m
    if lost >= 1:
        return Goodput(0.0, 0.0, (t + d) / 2 / per_failure, r / per_failure)
    running = 1 - lost
    return Goodput(
        useful=running * t / (t + d),
        save=running * d / (t + d),
        lost_work=(t + d) / 2 / m,
        recovery=r / m,
    )


# ------------------------------------------------------------------------------------------------------------
# what failures cost a job of a given size
# ------------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ScaleCost:
    """What failures cost a synchronous job of ``gpus`` GPUs at ``rate`` (/GPU·h), saving for ``save_time`` s
    and restarting in ``restart_time`` s (the MTTR): the job MTBF, Young's and Daly's intervals (s), the
    first-order waste at Young's interval ``sqrt(2δ/M) + R/M`` and the exact expected waste at Daly's interval
    (exponential failures), as fractions of wall time."""

    gpus: int
    rate: float
    save_time: float
    restart_time: float
    mtbf: float
    young: float
    daly: float
    first_order: float
    exact: float

    @property
    def failures_per_day(self) -> float:
        """Expected interruptions in one day: ``DAY / M``."""
        return DAY / self.mtbf

    @property
    def lost_gpu_hours_per_day(self) -> float:
        """GPU-hours lost per day at the exact waste: ``exact · gpus · 24 h``."""
        return self.exact * self.gpus * DAY / HOUR


def scale_cost(gpus: int, rate_per_hour: float, save_time: float, restart_time: float = 0.0) -> ScaleCost:
    """:class:`ScaleCost` of a job of ``gpus`` GPUs: ``M = 1/(Gλ)`` (:func:`job_mtbf`), Young's and Daly's
    intervals, first-order waste at Young's and exact expected waste at Daly's (:mod:`clusterlab.faults.checkpoint`)."""
    from . import checkpoint

    g = int_in_range("gpus", gpus, 1)
    lam = positive("rate_per_hour", rate_per_hour)
    d = non_negative("save_time", save_time)
    r = non_negative("restart_time", restart_time)
    m = job_mtbf(g, lam)
    return ScaleCost(
        gpus=g,
        rate=lam,
        save_time=d,
        restart_time=r,
        mtbf=m,
        young=checkpoint.young_interval(d, m),
        daly=checkpoint.daly_interval(d, m),
        first_order=checkpoint.optimal_wasted_fraction(d, m, r),
        exact=checkpoint.daly_wasted_fraction(d, m, r),
    )
