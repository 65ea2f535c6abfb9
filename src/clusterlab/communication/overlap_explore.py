"""The §9.6.2 explorer's model: one uniform model run through both overlap simulators, over a grid of settings.

A model of ``layers`` equal layers carries ``grad_bytes`` bytes of gradients in all (fp32: 4 B per parameter),
so its bf16 weights are ``grad_bytes / 2``. One step computes ``forward_time`` + ``backward_time`` seconds,
split evenly over the layers, on ``ranks`` data-parallel ranks with α = ``latency`` (s) and β = ``bandwidth``
(B/s per direction). Two ways to train it are simulated:

* DDP: :func:`~clusterlab.communication.overlap.simulate_ddp` with every bucket (the first one too) capped at
  ``bucket_cap`` bytes;
* FSDP / ZeRO-3 forward: :func:`~clusterlab.communication.overlap.simulate_prefetch` with prefetch depth ``depth``,
  each layer's weights all-gathered before it computes.

:func:`explore_point` runs one setting (the live Jupyter explorer calls it on every change); :func:`explore_grid`
runs the product of a few values per control, for the static page. Limits: those of the two simulators.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

from ..validate import int_in_range, positive
from .overlap import DDPSchedule, PrefetchSchedule, simulate_ddp, simulate_prefetch

__all__ = ["ExplorerGrid", "ExplorerPoint", "explore_grid", "explore_point", "uniform_model"]

CONTROLS = ("layers", "grad_bytes", "latency", "bandwidth", "bucket_cap", "depth")


@dataclass(frozen=True)
class ExplorerPoint:
    """One setting (inputs in SI) and both schedules; the summary properties are what the explorer shows."""

    layers: int
    grad_bytes: float
    latency: float
    bandwidth: float
    bucket_cap: float
    depth: int
    ddp: DDPSchedule
    fsdp: PrefetchSchedule

    def summary(self) -> dict[str, float]:
        """The numbers the explorer shows (s, B, ratios): DDP step, exposed, overlap ratio, bucket count;
        FSDP forward, exposed, extra gathered bytes."""
        return {
            "ddp_compute": self.ddp.compute,
            "ddp_comm": self.ddp.communication,
            "ddp_step": self.ddp.step,
            "ddp_exposed": self.ddp.exposed,
            "ddp_ratio": self.ddp.overlap_ratio,
            "ddp_buckets": float(len(self.ddp.buckets)),
            "fsdp_compute": self.fsdp.compute,
            "fsdp_comm": self.fsdp.communication,
            "fsdp_step": self.fsdp.step,
            "fsdp_exposed": self.fsdp.exposed,
            "fsdp_extra_bytes": self.fsdp.extra_bytes,
        }


def uniform_model(layers: int, grad_bytes: float, forward_time: float, backward_time: float
                  ) -> tuple[list[float], list[float], list[float], list[float]]:
    """Per-layer forward times, backward times, gradient bytes and bf16 weight bytes of the uniform model."""
    n = int_in_range("layers", layers, 1)
    g = positive("grad_bytes", grad_bytes)
    f = positive("forward_time", forward_time)
    b = positive("backward_time", backward_time)
    return [f / n] * n, [b / n] * n, [g / n] * n, [g / n / 2] * n


def explore_point(
    layers: int,
    grad_bytes: float,
    latency: float,
    bandwidth: float,
    bucket_cap: float,
    depth: int,
    *,
    ranks: int = 64,
    forward_time: float = 0.04,
    backward_time: float = 0.08,
) -> ExplorerPoint:
    """Both simulations for one setting (see module docstring); ``bucket_cap`` may be ``math.inf``."""
    fwd, bwd, gb, wb = uniform_model(layers, grad_bytes, forward_time, backward_time)
    ddp = simulate_ddp(bwd, gb, ranks, latency, bandwidth, bucket_cap=bucket_cap, first_bucket_cap=None,
                       forward_time=forward_time)
    fsdp = simulate_prefetch(fwd, wb, ranks, latency, bandwidth, depth)
    return ExplorerPoint(int(layers), float(grad_bytes), float(latency), float(bandwidth), float(bucket_cap),
                         int(depth), ddp, fsdp)


@dataclass(frozen=True)
class ExplorerGrid:
    """The values of each control (``axes``, in :data:`CONTROLS` order) and one summary per grid point, in the
    order of ``itertools.product(*axes)``."""

    axes: tuple[tuple[float, ...], ...]
    summaries: tuple[dict[str, float], ...]
    ranks: int
    forward_time: float
    backward_time: float

    def index(self, values: Sequence[float]) -> int:
        """Position of the grid point with these control values."""
        if len(values) != len(self.axes):
            raise ValueError(f"values must give one value per control ({', '.join(CONTROLS)})")
        i = 0
        for axis, v in zip(self.axes, values, strict=True):
            if v not in axis:
                raise ValueError(f"values: {v!r} is not on the grid ({axis!r})")
            i = i * len(axis) + axis.index(v)
        return i


def explore_grid(
    layers: Sequence[int],
    grad_bytes: Sequence[float],
    latencies: Sequence[float],
    bandwidths: Sequence[float],
    bucket_caps: Sequence[float],
    depths: Sequence[int],
    *,
    ranks: int = 64,
    forward_time: float = 0.04,
    backward_time: float = 0.08,
) -> ExplorerGrid:
    """:func:`explore_point` on every combination of the given values (each list non-empty)."""
    axes = (tuple(layers), tuple(grad_bytes), tuple(latencies), tuple(bandwidths), tuple(bucket_caps), tuple(depths))
    for name, axis in zip(CONTROLS, axes, strict=True):
        if not axis:
            raise ValueError(f"{name} must hold at least one value")
    summaries = tuple(
        explore_point(*combo, ranks=ranks, forward_time=forward_time, backward_time=backward_time).summary()
        for combo in itertools.product(*axes)
    )
    return ExplorerGrid(axes, summaries, ranks, forward_time, backward_time)
