"""One slow link in a synchronous ring, and what it does to the throughput of the whole job.

:func:`ring_with_slow_link` times every link of every step of a ring all-reduce when links differ in bandwidth:
each step lasts as long as its slowest link, so one link at ``β/k`` makes the whole ring ``k`` times slower in its
bandwidth term. :func:`throughput_with_slow_link` turns a slower collective into a slower training step, and
:func:`slowdown_for_throughput` inverts it. Both assume that communication hidden under computation stays hidden;
:func:`step_with_slow_link` drops that assumption: the collective runs in an overlap window of fixed length, and
whatever no longer fits is exposed, so :func:`throughput_with_slow_link` is an upper bound of its throughput.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ..validate import fraction, non_negative, positive

__all__ = [
    "RingLinkTiming",
    "SlowStep",
    "ring_with_slow_link",
    "slowdown_for_throughput",
    "step_with_slow_link",
    "throughput_with_slow_link",
]


@dataclass(frozen=True)
class RingLinkTiming:
    """Per-step, per-link transfer times of a synchronous ring all-reduce.

    ``link_times[s, r]``: seconds link ``r → r+1`` needs in step ``s``; every step lasts as long as its slowest
    link (``step_times``), because no rank can start step ``s+1`` before its block of step ``s`` arrived.
    """

    link_times: npt.NDArray[np.float64]

    @property
    def step_times(self) -> npt.NDArray[np.float64]:
        return np.asarray(self.link_times.max(axis=1))

    @property
    def total_time(self) -> float:
        return float(self.step_times.sum())

    @property
    def slowest_link(self) -> int:
        """The link whose median transfer time is largest: what per-link timing reports."""
        return int(np.argmax(np.median(self.link_times, axis=0)))

    @property
    def busy_times(self) -> npt.NDArray[np.float64]:
        """Seconds each link spends transferring, summed over all steps."""
        return np.asarray(self.link_times.sum(axis=0))

    @property
    def idle_times(self) -> npt.NDArray[np.float64]:
        """Seconds each link spends waiting for the slowest one: ``total_time − busy_times``."""
        return np.asarray(self.total_time - self.busy_times)

    def idle_fraction(self) -> npt.NDArray[np.float64]:
        """Share of the run each link spends waiting for the slowest one."""
        return np.asarray(1 - self.busy_times / self.total_time)


def ring_with_slow_link(
    size: float, bandwidths: Sequence[float], latency: float = 0.0
) -> RingLinkTiming:
    """Ring all-reduce of ``size`` bytes per rank where link ``r → r+1`` has bandwidth ``bandwidths[r]`` (B/s).

    Each of the ``2(N−1)`` steps moves one block of ``S/N`` bytes over every link: link ``r`` needs
    ``α + S/(N·β_r)``, and the step ends when the slowest link is done. With one link at ``β/k`` every step
    takes ``k`` times longer (bandwidth term): the whole ring runs at the slowest link's speed.
    """
    s = non_negative("size", size)
    a = non_negative("latency", latency)
    if len(bandwidths) < 2:
        raise ValueError(f"bandwidths must give one value per link, at least 2; got {len(bandwidths)}")
    bw = np.array([positive(f"bandwidths[{i}]", b) for i, b in enumerate(bandwidths)])
    n = bw.size
    per_step = a + s / (n * bw)
    return RingLinkTiming(np.tile(per_step, (2 * (n - 1), 1)))


def throughput_with_slow_link(exposed_fraction: float, slowdown: float) -> float:
    """Relative throughput when the exposed communication of a step becomes ``slowdown`` times longer.

    A step of length 1 spends ``f`` = ``exposed_fraction`` waiting for communication that no computation hides.
    If one link runs ``k`` = ``slowdown`` times slower, a bandwidth-bound ring collective takes ``k`` times longer
    (:func:`ring_with_slow_link`), so the step becomes ``(1 − f) + k·f`` and the
    throughput ``1/((1 − f) + k·f)``. This assumes that the hidden part of the communication stays hidden; when
    the slower collective no longer fits under the computation, the loss is larger.
    """
    f = fraction("exposed_fraction", exposed_fraction)
    k = positive("slowdown", slowdown)
    if k < 1:
        raise ValueError(f"slowdown must be >= 1, got {slowdown!r}")
    return 1.0 / ((1.0 - f) + k * f)


def slowdown_for_throughput(exposed_fraction: float, throughput: float) -> float:
    """The link slowdown ``k`` that brings the relative throughput down to ``throughput`` (inverse of
    :func:`throughput_with_slow_link`): ``k = 1 + (1/throughput − 1)/f``."""
    f = fraction("exposed_fraction", exposed_fraction)
    if f == 0:
        raise ValueError("exposed_fraction must be > 0: without exposed communication a slow link costs nothing")
    r = positive("throughput", throughput)
    if r > 1:
        raise ValueError(f"throughput must be in (0, 1], got {throughput!r}")
    return 1.0 + (1.0 / r - 1.0) / f


@dataclass(frozen=True)
class SlowStep:
    """One training step before and after its collective slows down, with overlap (all times in s).

    ``healthy_step`` = ``compute + max(0, communication − overlap)``; ``slow_step`` = ``compute + max(0,
    k·communication − overlap)``: the window in which communication can run under computation (e.g. the backward
    pass) keeps its length, so a slower collective spills out of it. ``throughput`` = ``healthy_step/slow_step``;
    ``bound`` is :func:`throughput_with_slow_link` for the same step, which multiplies only the *exposed*
    communication by ``k`` (the hidden part stays hidden): ``throughput ≤ bound``.
    """

    compute: float
    communication: float
    overlap: float
    slowdown: float
    healthy_step: float
    slow_step: float
    bound: float

    @property
    def exposed_fraction(self) -> float:
        """Share of the healthy step spent waiting for communication: ``f`` of :func:`throughput_with_slow_link`."""
        return (self.healthy_step - self.compute) / self.healthy_step

    @property
    def throughput(self) -> float:
        """Relative throughput with the slow link, overlap window kept: ``healthy_step / slow_step``."""
        return self.healthy_step / self.slow_step

    @property
    def slow_exposed(self) -> float:
        """Seconds of communication exposed per step with the slow link: ``max(0, k·communication − overlap)``."""
        return self.slow_step - self.compute


def step_with_slow_link(compute: float, communication: float, overlap: float, slowdown: float) -> SlowStep:
    """A step of ``compute`` seconds of computation and a collective of ``communication`` seconds that may run
    during an ``overlap``-second window of the computation, before and after the collective becomes ``slowdown``
    times slower (one slow link in a bandwidth-bound ring: :func:`ring_with_slow_link`).

    Step time = ``compute + max(0, k·communication − overlap)``. The returned :class:`SlowStep` also carries the
    bound :func:`throughput_with_slow_link` that keeps the hidden communication hidden; the two agree when the slow
    collective still fits in the window (no loss) or when nothing overlaps (``overlap = 0``).
    """
    c = positive("compute", compute)
    comm = non_negative("communication", communication)
    w = non_negative("overlap", overlap)
    if w > c:
        raise ValueError(f"overlap must be in [0, compute] = [0, {c!r}] (a window of the computation), got {overlap!r}")
    k = positive("slowdown", slowdown)
    if k < 1:
        raise ValueError(f"slowdown must be >= 1, got {slowdown!r}")
    healthy = c + max(0.0, comm - w)
    slow = c + max(0.0, k * comm - w)
    bound = throughput_with_slow_link((healthy - c) / healthy, k)
    return SlowStep(c, comm, w, k, healthy, slow, bound)
