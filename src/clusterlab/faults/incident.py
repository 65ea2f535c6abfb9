"""The time one failure costs, phase by phase: detect, locate, restart, load (together the MTTR) and catch up.

The MTTR is the ``mttr`` of :func:`clusterlab.faults.reliability.goodput` and the ``restart_time`` R of
:mod:`clusterlab.faults.checkpoint`; the catch-up (recomputing the work since the last checkpoint) is on average
half the checkpoint interval when failures strike at random. All times in seconds.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ..units import HOUR
from ..validate import int_in_range, non_negative, positive

__all__ = ["Incident"]


@dataclass(frozen=True)
class Incident:
    """One failure, phase by phase, in seconds: ``detect`` (heartbeat or collective timeout fires), ``locate``
    (find and cordon the faulty node or link), ``restart`` (reschedule, relaunch, rebuild communicators), ``load``
    (read the checkpoint), ``catch_up`` (recompute the work done since the last checkpoint)."""

    detect: float
    locate: float
    restart: float
    load: float
    catch_up: float

    PHASES: ClassVar[tuple[str, ...]] = ("detect", "locate", "restart", "load", "catch_up")

    def __post_init__(self) -> None:
        for name in self.PHASES:
            object.__setattr__(self, name, non_negative(name, getattr(self, name)))

    @classmethod
    def with_interval(cls, detect: float, locate: float, restart: float, load: float, interval: float) -> Incident:
        """Catch-up = half the checkpoint ``interval`` (the mean work lost when failures strike at random)."""
        return cls(detect, locate, restart, load, positive("interval", interval) / 2)

    @property
    def mttr(self) -> float:
        """Time until the job computes again: detect + locate + restart + load (s)."""
        return self.detect + self.locate + self.restart + self.load

    @property
    def total(self) -> float:
        """Time until the job is back where it was when the failure struck: MTTR + catch-up (s)."""
        return self.mttr + self.catch_up

    def phases(self) -> tuple[tuple[str, float], ...]:
        """``(name, seconds)`` in order."""
        return tuple((name, float(getattr(self, name))) for name in self.PHASES)

    def gpu_hours(self, gpus: int) -> float:
        """GPU-hours one incident costs when all ``gpus`` wait for it: ``gpus · total / HOUR``."""
        return int_in_range("gpus", gpus, 1) * self.total / HOUR
