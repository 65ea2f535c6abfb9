"""Overlapping communication with computation: the step-time model and a two-stream timeline simulator (§9.6.2).

Step-time model
    A step computes for ``t_c`` seconds and communicates for ``t_m`` seconds. Without overlap the step takes
    ``t_c + t_m``; with perfect overlap ``max(t_c, t_m)``. With an **overlap ratio** ``r`` (the share of the
    communication hidden behind computation), the hidden time is ``h = min(r·t_m, t_c)``, the exposed time
    ``e = t_m − h`` and the step ``t_c + e``; the compute efficiency is ``t_c / step``
    (:func:`overlap_step`). Given a measured exposed time, ``r = 1 − e/t_m`` (:func:`overlap_from_exposed`).

When overlap is possible at all (:func:`overlap_threshold`)
    Backward costs ``k_b`` FLOP per parameter per token (4: two matrix products per weight), the ring all-reduce
    of the gradients ``2(N−1)/N · b/β`` s per parameter (``b`` bytes per gradient value, β per direction). The
    backward outlasts the all-reduce once a rank processes more than ``B* = 2(N−1)/N · b·C / (k_b·β)`` tokens per
    step, ``≈ C·b/(2β)`` for large N (Austin et al., *How to Scale Your Model*, Part 5 "Training", data
    parallelism: ``B/X > C/W`` for bf16 gradients).

Two-stream engine
    :func:`run_streams` places tasks on two in-order streams, ``"compute"`` and ``"comm"`` (a GPU's compute
    kernels and its communication kernels, which run concurrently). A task starts when its stream is free and
    every task it depends on has ended. Both simulators below build their task lists for this engine.

Data-parallel backward with buckets (:func:`simulate_ddp`)
    Backward produces layer gradients in reverse layer order. Gradients fill buckets in that order; a bucket
    closes as soon as it holds at least its cap (the first bucket uses ``first_bucket_cap``), as PyTorch DDP's
    ``compute_bucket_assignment_by_size`` does, at the granularity of one layer. A closed bucket is all-reduced
    once its last gradient exists, costed with :func:`clusterlab.communication.collectives.alpha_beta_time`;
    the communication stream runs one reduction at a time. The step ends when the last reduction ends (the
    optimizer step is left out). Exposed communication = step − computation; overlap ratio = hidden / total
    communication. PyTorch's defaults are a first bucket of 1 MiB and a cap of 25 MiB
    (``torch/csrc/distributed/c10d/reducer.hpp``: ``kDefaultFirstBucketBytes``, ``kDefaultBucketBytesCap``).

FSDP / ZeRO-3 forward prefetch (:func:`simulate_prefetch`)
    Before layer ``l`` computes, its parameters are all-gathered. With prefetch depth ``d`` the all-gather of
    layer ``l`` may start once layer ``l − d − 1`` has finished (and freed its gathered parameters), so at most
    ``d + 1`` layers are gathered at once: depth buys hidden communication with memory.

Limits: one compute and one communication stream per rank, no contention between them (in practice NCCL
kernels take SMs and memory bandwidth from compute), costs from the α-β model, CPU launch overheads ignored.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

import numpy as np

from ..units import MiB
from ..validate import fraction, int_in_range, non_negative, positive
from .collectives import alpha_beta_time, check_algorithm, traffic

__all__ = [
    "DDP_BUCKET_CAP",
    "DDP_FIRST_BUCKET",
    "STREAMS",
    "Bucket",
    "BucketSweep",
    "DDPSchedule",
    "OverlapStep",
    "OverlapThreshold",
    "PrefetchSchedule",
    "Task",
    "Timeline",
    "bucket_sweep",
    "overlap_from_exposed",
    "overlap_step",
    "overlap_threshold",
    "prefetch_sweep",
    "run_streams",
    "simulate_ddp",
    "simulate_prefetch",
]

#: PyTorch DDP defaults (``reducer.hpp``): first bucket 1 MiB, every later bucket capped at 25 MiB
DDP_FIRST_BUCKET: Final = 1 * MiB
DDP_BUCKET_CAP: Final = 25 * MiB
STREAMS: Final = ("compute", "comm")


# ------------------------------------------------------------------------------------------------------------
# the back-of-the-envelope model
# ------------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class OverlapStep:
    """One step under the overlap model (all times in s): ``hidden = min(ratio·communication, compute)``,
    ``exposed = communication − hidden``, ``step = compute + exposed``."""

    compute: float
    communication: float
    ratio: float
    hidden: float
    exposed: float
    step: float
    no_overlap: float  # compute + communication
    full_overlap: float  # max(compute, communication)

    @property
    def efficiency(self) -> float:
        """Share of the step spent computing, ``compute / step``."""
        return self.compute / self.step if self.step > 0 else 1.0

    @property
    def efficiency_no_overlap(self) -> float:
        return self.compute / self.no_overlap if self.no_overlap > 0 else 1.0

    @property
    def efficiency_full_overlap(self) -> float:
        return self.compute / self.full_overlap if self.full_overlap > 0 else 1.0


def overlap_step(compute_time: float, comm_time: float, overlap_ratio: float) -> OverlapStep:
    """Step time with ``overlap_ratio`` r ∈ [0, 1] of the communication hidden (see module docstring).

    Example (the original's example 9.6.2): 20 s compute, 8 s communication, r = 0.6 → hidden 4.8 s, exposed
    3.2 s, step 23.2 s (no overlap 28 s, full overlap 20 s); efficiency 86.2 % (71.4 % without overlap).
    The hidden time cannot exceed the computation there is to hide it behind.
    """
    tc = non_negative("compute_time", compute_time)
    tm = non_negative("comm_time", comm_time)
    r = fraction("overlap_ratio", overlap_ratio)
    hidden = min(r * tm, tc)
    exposed = tm - hidden
    return OverlapStep(tc, tm, r, hidden, exposed, tc + exposed, tc + tm, max(tc, tm))


def overlap_from_exposed(compute_time: float, comm_time: float, exposed_time: float) -> OverlapStep:
    """The overlap model from a measured exposed time: ``r = 1 − exposed/comm`` (``0 ≤ exposed ≤ comm``,
    ``comm − exposed ≤ compute``). Self-test Q2 of the original: 30 s, 12 s, 4.8 s exposed → r = 60 %,
    step 34.8 s (42 s without overlap)."""
    tc = non_negative("compute_time", compute_time)
    tm = positive("comm_time", comm_time)
    e = non_negative("exposed_time", exposed_time)
    if e > tm or tm - e > tc:
        raise ValueError(
            f"exposed_time must lie in [max(0, comm_time − compute_time), comm_time] = "
            f"[{max(0.0, tm - tc)!r}, {tm!r}], got {exposed_time!r}"
        )
    return overlap_step(tc, tm, 1 - e / tm)


@dataclass(frozen=True)
class OverlapThreshold:
    """Backward compute against the gradient all-reduce, per parameter (SI units): ``compute_per_token`` s of
    backward per parameter per token, ``comm_per_param`` s of all-reduce (bandwidth term) per parameter, and their
    ratio ``tokens``, the tokens per rank per step at which the two are equal."""

    flops: float  # FLOP/s per rank
    bandwidth: float  # B/s per direction
    bytes_per_param: float  # bytes per gradient value on the wire
    ranks: int | None  # None: the large-N limit, 2(N−1)/N → 2
    backward_flops: float  # FLOP per parameter per token of backward
    compute_per_token: float
    comm_per_param: float
    tokens: float

    def ratio(self, tokens: float) -> float:
        """Backward time over all-reduce time at ``tokens`` per rank per step (≥ 1: the backward can hide it)."""
        return non_negative("tokens", tokens) / self.tokens


def overlap_threshold(flops: float, bandwidth: float, bytes_per_param: float, *, ranks: int | None = None,
                      backward_flops: float = 4.0) -> OverlapThreshold:
    """Tokens per rank per step above which the data-parallel backward lasts longer than its gradient all-reduce.

    ``B* = (2(N−1)/N · b/β) / (k_b/C)`` with ``C = flops`` (FLOP/s), ``β = bandwidth`` (B/s per direction),
    ``b = bytes_per_param`` and ``k_b = backward_flops``; ``2(N−1)/N`` is the ring all-reduce's bandwidth factor
    (:func:`clusterlab.communication.collectives.traffic`), 2 when ``ranks`` is None. With ``k_b = 4`` and large N,
    ``B* ≈ C·b/(2β)``. Below B* no bucketing can hide the all-reduce; above it the backward can, except the last
    bucket (always exposed) and the latency terms, which this bound leaves out: necessary, not sufficient.

    Source: J. Austin et al., *How to Scale Your Model*, Part 5 "Training", section Data Parallelism: compute-bound
    when ``B/X > C/W`` (per-chip batch over per-chip FLOP/s and bidirectional ICI bandwidth, bf16 gradients).

    Example: 150 TFLOP/s, 50 GB/s per direction, fp32 gradients (4 B), 64 ranks → ``B*`` = 5906.25 tokens
    (6000 in the large-N limit); bf16 gradients halve it.
    """
    c = positive("flops", flops)
    beta = positive("bandwidth", bandwidth)
    b = positive("bytes_per_param", bytes_per_param)
    kb = positive("backward_flops", backward_flops)
    if ranks is None:
        n, comm = None, 2 * b / beta
    else:
        n = int_in_range("ranks", ranks, 2)
        comm = traffic("all_reduce", b, n).send_max / beta  # the ring's bytes on the critical link
    per_token = kb / c
    return OverlapThreshold(c, beta, b, n, kb, per_token, comm, comm / per_token)


# ------------------------------------------------------------------------------------------------------------
# the two-stream engine
# ------------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Task:
    """One kernel: ``stream`` is ``"compute"`` or ``"comm"``; ``after`` lists indices of earlier tasks that must
    end before it starts; ``nbytes`` is what a communication task moves (0 for compute)."""

    name: str
    stream: str
    duration: float
    after: tuple[int, ...] = ()
    nbytes: float = 0.0


@dataclass(frozen=True)
class Timeline:
    """Tasks with their start and end times (s); ``end`` is the time the last task ends."""

    tasks: tuple[Task, ...]
    starts: tuple[float, ...]
    ends: tuple[float, ...]

    @property
    def end(self) -> float:
        return max(self.ends, default=0.0)

    def busy(self, stream: str) -> float:
        """Total time ``stream`` is busy."""
        return sum(t.duration for t in self.tasks if t.stream == stream)


def run_streams(tasks: Sequence[Task]) -> Timeline:
    """Schedule ``tasks`` on two in-order streams: each starts at ``max(its stream is free, its dependencies
    ended)``. Tasks of one stream run in list order; dependencies must point to earlier tasks."""
    free = {s: 0.0 for s in STREAMS}
    starts: list[float] = []
    ends: list[float] = []
    for i, t in enumerate(tasks):
        if t.stream not in free:
            raise ValueError(f"tasks[{i}].stream must be one of {', '.join(STREAMS)}; got {t.stream!r}")
        if any(not 0 <= j < i for j in t.after):
            raise ValueError(f"tasks[{i}].after must name earlier tasks (0 … {i - 1}); got {t.after!r}")
        start = max([free[t.stream], *(ends[j] for j in t.after)])
        starts.append(start)
        ends.append(start + t.duration)
        free[t.stream] = ends[-1]
    return Timeline(tuple(tasks), tuple(starts), tuple(ends))


# ------------------------------------------------------------------------------------------------------------
# data-parallel backward with gradient buckets
# ------------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Bucket:
    """One gradient bucket: the layers it holds (in the order backward produces them), its bytes, the time its
    last gradient is ready and its all-reduce's start and end (s)."""

    layers: tuple[int, ...]
    nbytes: float
    ready: float
    start: float
    end: float


@dataclass(frozen=True)
class DDPSchedule:
    """One data-parallel step simulated on two streams (times in s, sizes in bytes)."""

    timeline: Timeline
    buckets: tuple[Bucket, ...]
    bucket_cap: float
    first_bucket_cap: float
    compute: float  # forward + backward
    communication: float  # sum of all-reduce times
    step: float  # when the last reduction (or the backward) ends
    exposed: float  # step − compute

    @property
    def hidden(self) -> float:
        return self.communication - self.exposed

    @property
    def overlap_ratio(self) -> float:
        """hidden / communication (1 when there is nothing to communicate)."""
        return self.hidden / self.communication if self.communication > 0 else 1.0


def _layer_arrays(backward_times: Sequence[float], grad_bytes: Sequence[float]) -> tuple[np.ndarray, np.ndarray]:
    bt = [non_negative("backward_times", t) for t in backward_times]
    gb = [non_negative("grad_bytes", b) for b in grad_bytes]
    if not bt or len(bt) != len(gb):
        raise ValueError(
            f"backward_times and grad_bytes must be non-empty and of equal length; got {len(bt)} and {len(gb)}"
        )
    return np.array(bt, dtype=float), np.array(gb, dtype=float)


def simulate_ddp(
    backward_times: Sequence[float],
    grad_bytes: Sequence[float],
    ranks: int,
    latency: float,
    bandwidth: float,
    *,
    bucket_cap: float = DDP_BUCKET_CAP,
    first_bucket_cap: float | None = DDP_FIRST_BUCKET,
    forward_time: float = 0.0,
    algorithm: str = "ring",
) -> DDPSchedule:
    """Simulate the backward of one data-parallel step with bucketed, overlapped all-reduce.

    ``backward_times[l]`` (s) and ``grad_bytes[l]`` (B) belong to layer ``l`` in forward order; backward runs
    ``l = L−1 … 0``. ``ranks`` N ≥ 2, ``latency`` α (s), ``bandwidth`` β (B/s per direction) and ``algorithm``
    price each bucket's all-reduce. ``bucket_cap`` (B, may be ``inf``: one bucket for everything);
    ``first_bucket_cap`` (B, ``None``: same as ``bucket_cap``). ``forward_time`` (s) runs before backward.
    Invariants: exposed ≤ communication; one bucket ⇒ exposed = communication; no bytes ⇒ step = compute.
    """
    bt, gb = _layer_arrays(backward_times, grad_bytes)
    n = int_in_range("ranks", ranks, 2)
    alpha = non_negative("latency", latency)
    beta = positive("bandwidth", bandwidth)
    cap = _cap("bucket_cap", bucket_cap)
    first = cap if first_bucket_cap is None else _cap("first_bucket_cap", first_bucket_cap)
    fwd = non_negative("forward_time", forward_time)
    check_algorithm(algorithm, "all_reduce")

    tasks: list[Task] = []
    if fwd > 0:
        tasks.append(Task("forward", "compute", fwd))
    task_of_layer: dict[int, int] = {}
    for layer in range(len(bt) - 1, -1, -1):
        task_of_layer[layer] = len(tasks)
        tasks.append(Task(f"backward {layer}", "compute", float(bt[layer]), (len(tasks) - 1,) if tasks else ()))
    groups = _assign_buckets(gb, first, cap)
    comm_index: list[int] = []
    for b, layers in enumerate(groups):
        size = float(gb[list(layers)].sum())
        t = alpha_beta_time("all_reduce", size, n, alpha, beta, algorithm) if size > 0 else 0.0
        comm_index.append(len(tasks))
        tasks.append(Task(f"all-reduce {b}", "comm", t, (task_of_layer[layers[-1]],), size))
    tl = run_streams(tasks)
    buckets = tuple(
        Bucket(layers, tasks[i].nbytes, tl.ends[task_of_layer[layers[-1]]], tl.starts[i], tl.ends[i])
        for layers, i in zip(groups, comm_index, strict=True)
    )
    compute = tl.busy("compute")
    communication = tl.busy("comm")
    step = max(tl.end, compute)
    return DDPSchedule(tl, buckets, cap, first, compute, communication, step, step - compute)


def _cap(name: str, value: float) -> float:
    if isinstance(value, float | int) and not isinstance(value, bool) and value == math.inf:
        return math.inf
    return positive(name, value)


def _assign_buckets(grad_bytes: np.ndarray, first: float, cap: float) -> list[tuple[int, ...]]:
    """Layers in backward order grouped into buckets: a bucket closes once it holds ≥ its cap."""
    groups: list[tuple[int, ...]] = []
    current: list[int] = []
    filled = 0.0
    for layer in range(len(grad_bytes) - 1, -1, -1):
        current.append(layer)
        filled += float(grad_bytes[layer])
        if filled >= (first if not groups else cap):
            groups.append(tuple(current))
            current, filled = [], 0.0
    if current:
        groups.append(tuple(current))
    return groups


@dataclass(frozen=True)
class BucketSweep:
    """Step, exposed communication and bucket count for each bucket cap (B); ``best`` is the index of the
    shortest step (the first one on ties)."""

    caps: tuple[float, ...]
    steps: tuple[float, ...]
    exposed: tuple[float, ...]
    communication: tuple[float, ...]
    buckets: tuple[int, ...]
    compute: float
    best: int

    @property
    def best_cap(self) -> float:
        return self.caps[self.best]

    @property
    def best_step(self) -> float:
        return self.steps[self.best]


def bucket_sweep(
    backward_times: Sequence[float],
    grad_bytes: Sequence[float],
    ranks: int,
    latency: float,
    bandwidth: float,
    caps: Sequence[float],
    *,
    forward_time: float = 0.0,
    algorithm: str = "ring",
) -> BucketSweep:
    """:func:`simulate_ddp` for every cap in ``caps`` (first bucket = cap, so that only the cap varies). Small
    buckets pay α once per bucket; large ones close late and leave the last reduction exposed."""
    if len(caps) == 0:
        raise ValueError("caps must hold at least one bucket cap")
    runs = [
        simulate_ddp(backward_times, grad_bytes, ranks, latency, bandwidth, bucket_cap=c, first_bucket_cap=None,
                     forward_time=forward_time, algorithm=algorithm)
        for c in caps
    ]
    steps = tuple(r.step for r in runs)
    return BucketSweep(
        tuple(r.bucket_cap for r in runs),
        steps,
        tuple(r.exposed for r in runs),
        tuple(r.communication for r in runs),
        tuple(len(r.buckets) for r in runs),
        runs[0].compute,
        int(np.argmin(steps)),
    )


# ------------------------------------------------------------------------------------------------------------
# FSDP / ZeRO-3 forward prefetch
# ------------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class PrefetchSchedule:
    """The forward pass of a fully sharded model with prefetch depth ``depth`` (times in s, bytes in B)."""

    timeline: Timeline
    depth: int
    compute: float
    communication: float
    step: float
    exposed: float
    peak_gathered_bytes: float  # most full-size layer parameters held at once
    extra_bytes: float  # peak − the largest single layer (what prefetching costs over depth 0)

    @property
    def overlap_ratio(self) -> float:
        return (self.communication - self.exposed) / self.communication if self.communication > 0 else 1.0


def simulate_prefetch(
    forward_times: Sequence[float],
    param_bytes: Sequence[float],
    ranks: int,
    latency: float,
    bandwidth: float,
    depth: int,
    *,
    algorithm: str = "ring",
) -> PrefetchSchedule:
    """Forward pass with per-layer all-gathers of ``param_bytes[l]`` (the full layer, B) before layer ``l``
    computes for ``forward_times[l]`` s. Depth ``d`` ≥ 0: the all-gather of layer ``l`` may start once layer
    ``l − d − 1`` has finished. Depth 0 = no prefetch (gather, compute, gather, …); the all-gathers are costed
    with :func:`~clusterlab.communication.collectives.alpha_beta_time` (``S`` = the full layer)."""
    ft, pb = _layer_arrays(forward_times, param_bytes)
    n = int_in_range("ranks", ranks, 2)
    alpha = non_negative("latency", latency)
    beta = positive("bandwidth", bandwidth)
    d = int_in_range("depth", depth, 0)
    check_algorithm(algorithm, "all_gather")
    layers = len(ft)
    tasks: list[Task] = []
    gather: dict[int, int] = {}
    compute: dict[int, int] = {}

    def add_gather(layer: int) -> None:
        after = () if layer - d - 1 < 0 else (compute[layer - d - 1],)
        t = alpha_beta_time("all_gather", float(pb[layer]), n, alpha, beta, algorithm) if pb[layer] > 0 else 0.0
        gather[layer] = len(tasks)
        tasks.append(Task(f"all-gather {layer}", "comm", t, after, float(pb[layer])))

    for layer in range(min(d + 1, layers)):
        add_gather(layer)
    for layer in range(layers):
        compute[layer] = len(tasks)
        tasks.append(Task(f"forward {layer}", "compute", float(ft[layer]), (gather[layer],)))
        if layer + d + 1 < layers:
            add_gather(layer + d + 1)
    tl = run_streams(tasks)
    peak = max(float(pb[i:i + d + 1].sum()) for i in range(layers))
    comp = tl.busy("compute")
    step = max(tl.end, comp)
    return PrefetchSchedule(tl, d, comp, tl.busy("comm"), step, step - comp, peak, peak - float(pb.max()))


def prefetch_sweep(
    forward_times: Sequence[float],
    param_bytes: Sequence[float],
    ranks: int,
    latency: float,
    bandwidth: float,
    depths: Sequence[int],
    *,
    algorithm: str = "ring",
) -> tuple[PrefetchSchedule, ...]:
    """:func:`simulate_prefetch` for each depth in ``depths``."""
    if len(depths) == 0:
        raise ValueError("depths must hold at least one prefetch depth")
    return tuple(
        simulate_prefetch(forward_times, param_bytes, ranks, latency, bandwidth, d, algorithm=algorithm)
        for d in depths
    )
