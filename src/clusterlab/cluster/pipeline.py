"""The pipeline bubble: closed forms under both conventions, and a simulated schedule (集群篇 §4).

With ``p`` stages, ``m`` micro-batches and uniform stages (a forward takes ``t_f``, a backward ``t_b``), every stage
idles ``(p−1)(t_f + t_b)`` per step while the pipeline fills and drains; the useful work of a stage is
``m(t_f + t_b)``. Two ratios are in use and differ only in the denominator:

* **bubble / total time** ``(p−1)/(m+p−1)`` — GPipe (Huang et al., arXiv:1811.06965, §2.3, ``O((K−1)/(M+K−1))``);
* **bubble / ideal compute time** ``(p−1)/m`` — Megatron-LM (Narayanan et al., arXiv:2104.04473, §2.2.1).

They convert into each other: ``total = ideal/(1 + ideal)`` and ``ideal = total/(1 − total)``. The interleaved
schedule with ``v`` model chunks per stage divides the bubble time by ``v``: ``(p−1)/(v·m)`` of ideal time
(Narayanan et al. §2.2.2), ``(p−1)/(v·m + p − 1)`` of total time.

:func:`simulate` schedules every forward and backward of a step on every stage (GPipe: all forwards then all
backwards; 1F1B: ``p − i − 1`` warm-up forwards on stage ``i``, then one forward, one backward) and returns the
start and end of each; the makespan is ``(m + p − 1)(t_f + t_b)`` for both, while 1F1B keeps at most ``p``
micro-batches' activations on a stage instead of ``m``.

:func:`split_backward_bubble` splits the backward pass into ``B`` (gradient of the input, which the previous stage
waits for) and ``W`` (gradient of the weights, which nobody waits for), as zero-bubble pipeline parallelism does
(Qi et al., arXiv:2401.10241, §2–3), and gives the idle time of a stage in the steady state (``m ≥ p``) for four
schedules: 1F1B ``(p−1)(F+B+W)``; ZB-H1, which postpones the ``W`` passes into the cool-down,
``(p−1)(F+B−W)`` — with ``F = B = W`` a third of the 1F1B bubble at the same activation memory (the authors'
table: bubble rate ``(p−1)/m`` vs ``(p−1)/(3m)``); DeepSeek-V3's DualPipe (arXiv:2412.19437, §3.2.1, Table 2,
where ``B`` is the whole backward ``B + W`` of this module) ``(p/2−1)(F&B + B + W − 3W)``, with ``F&B`` the time of
one forward and one backward chunk run together (default ``F + B + W``: no gain from running them together),
two copies of the parameters and ``p`` even.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

import numpy as np
import numpy.typing as npt

from ..validate import choice, int_in_range, non_negative, positive

__all__ = ["SCHEDULES", "SPLIT_SCHEDULES", "Bubble", "Schedule", "SplitBubble", "bubble", "simulate",
           "split_backward_bubble"]

SCHEDULES: Final = ("1f1b", "gpipe")
SPLIT_SCHEDULES: Final = ("1f1b", "zb-h1", "dualpipe")


@dataclass(frozen=True)
class Bubble:
    """Pipeline bubble of ``stages`` (p), ``micro_batches`` (m), ``chunks`` (v, 1 = not interleaved).

    ``of_total``: bubble / (bubble + ideal) = ``(p−1)/(v·m + p − 1)``; ``of_ideal``: bubble / ideal = ``(p−1)/(v·m)``.
    """

    stages: int
    micro_batches: int
    chunks: int

    @property
    def of_ideal(self) -> float:
        return (self.stages - 1) / (self.chunks * self.micro_batches)

    @property
    def of_total(self) -> float:
        return (self.stages - 1) / (self.chunks * self.micro_batches + self.stages - 1)

    @property
    def efficiency(self) -> float:
        """Share of time a stage computes, ``1 − of_total``."""
        return 1.0 - self.of_total


def bubble(stages: int, micro_batches: int, *, chunks: int = 1) -> Bubble:
    """The bubble of a pipeline with ``stages`` ≥ 1, ``micro_batches`` ≥ 1 and ``chunks`` (v ≥ 1) model chunks per
    stage (interleaved 1F1B needs ``m`` a multiple of ``p``, not checked here)."""
    p = int_in_range("stages", stages, 1)
    m = int_in_range("micro_batches", micro_batches, 1)
    v = int_in_range("chunks", chunks, 1)
    return Bubble(p, m, v)


@dataclass(frozen=True)
class Schedule:
    """One simulated step: op ``k`` runs on ``stage[k]``, is a forward (``forward[k]``) or a backward of
    ``micro_batch[k]``, from ``start[k]`` to ``end[k]`` (s). Arrays are read-only."""

    kind: str
    stages: int
    micro_batches: int
    forward_time: float
    backward_time: float
    stage: npt.NDArray[np.int64]
    micro_batch: npt.NDArray[np.int64]
    forward: npt.NDArray[np.bool_]
    start: npt.NDArray[np.float64]
    end: npt.NDArray[np.float64]

    @property
    def makespan(self) -> float:
        return float(self.end.max())

    @property
    def busy(self) -> float:
        """Compute time of one stage, ``m(t_f + t_b)``."""
        return self.micro_batches * (self.forward_time + self.backward_time)

    @property
    def bubble_of_total(self) -> float:
        """Idle share of the step on a stage, measured on the schedule."""
        return 1.0 - self.busy / self.makespan

    def in_flight(self) -> npt.NDArray[np.int64]:
        """Most micro-batches whose activations a stage holds at once (forward done, backward not yet), per stage."""
        peak = np.zeros(self.stages, dtype=np.int64)
        for i in range(self.stages):
            sel = self.stage == i
            events = sorted(
                [(float(t), 1) for t in self.end[sel & self.forward]]
                + [(float(t), -1) for t in self.end[sel & ~self.forward]],
                key=lambda e: (e[0], e[1]),
            )
            level = 0
            for _, d in events:
                level += d
                peak[i] = max(peak[i], level)
        return peak


def _order(kind: str, stage: int, p: int, m: int) -> list[tuple[bool, int]]:
    if kind == "gpipe":
        return [(True, j) for j in range(m)] + [(False, j) for j in range(m)]
    warm = min(p - stage - 1, m)
    order = [(True, j) for j in range(warm)]
    f, b = warm, 0
    while b < m:
        if f < m:
            order.append((True, f))
            f += 1
        order.append((False, b))
        b += 1
    return order


def simulate(
    stages: int, micro_batches: int, *, forward_time: float = 1.0, backward_time: float = 2.0, kind: str = "1f1b"
) -> Schedule:
    """Run one step of ``kind`` in ``SCHEDULES`` on ``stages`` uniform stages: each op starts when its stage is
    free and its input is ready (forward of micro-batch j on stage i after the forward on stage i−1; backward after
    the backward on stage i+1, or after the own forward on the last stage). Communication time is neglected."""
    p = int_in_range("stages", stages, 1)
    m = int_in_range("micro_batches", micro_batches, 1)
    tf = positive("forward_time", forward_time)
    tb = positive("backward_time", backward_time)
    k = choice("kind", kind, SCHEDULES)
    orders = [_order(k, i, p, m) for i in range(p)]
    pos = [0] * p
    free = [0.0] * p
    done_f = np.full((p, m), np.nan)
    done_b = np.full((p, m), np.nan)
    rows: list[tuple[int, int, bool, float, float]] = []
    remaining = 2 * p * m
    while remaining:
        progressed = False
        for i in range(p):
            while pos[i] < len(orders[i]):
                fwd, j = orders[i][pos[i]]
                if fwd:
                    dep = 0.0 if i == 0 else done_f[i - 1, j]
                else:
                    dep = done_f[i, j] if i == p - 1 else done_b[i + 1, j]
                if np.isnan(dep):
                    break
                start = max(free[i], float(dep))
                end = start + (tf if fwd else tb)
                (done_f if fwd else done_b)[i, j] = end
                free[i] = end
                rows.append((i, j, fwd, start, end))
                pos[i] += 1
                remaining -= 1
                progressed = True
        if not progressed:  # pragma: no cover - the orders above never deadlock
            raise RuntimeError("pipeline schedule deadlocked")
    arr = list(zip(*rows, strict=True))

    def _ro(a: npt.NDArray[np.generic]) -> npt.NDArray[np.generic]:
        a.setflags(write=False)
        return a

    return Schedule(
        k, p, m, tf, tb,
        _ro(np.array(arr[0], dtype=np.int64)),  # type: ignore[arg-type]
        _ro(np.array(arr[1], dtype=np.int64)),  # type: ignore[arg-type]
        _ro(np.array(arr[2], dtype=np.bool_)),  # type: ignore[arg-type]
        _ro(np.array(arr[3], dtype=np.float64)),  # type: ignore[arg-type]
        _ro(np.array(arr[4], dtype=np.float64)),  # type: ignore[arg-type]
    )


@dataclass(frozen=True)
class SplitBubble:
    """Idle time of one stage per step (``idle``, s) under ``schedule`` (one of :data:`SPLIT_SCHEDULES`), with
    forward ``F``, input-gradient ``B`` and weight-gradient ``W`` times per micro-batch and stage (s).

    ``work`` = ``m(F + B + W)``, the compute of a stage; ``of_total`` = idle / (idle + work); ``of_ideal`` =
    idle / work (the two conventions of :class:`Bubble`)."""

    schedule: str
    stages: int
    micro_batches: int
    forward_time: float
    input_grad_time: float
    weight_grad_time: float
    overlapped_time: float
    idle: float

    @property
    def work(self) -> float:
        return self.micro_batches * (self.forward_time + self.input_grad_time + self.weight_grad_time)

    @property
    def of_total(self) -> float:
        return self.idle / (self.idle + self.work)

    @property
    def of_ideal(self) -> float:
        return self.idle / self.work


def split_backward_bubble(
    stages: int,
    micro_batches: int,
    *,
    schedule: str = "zb-h1",
    forward_time: float = 1.0,
    input_grad_time: float = 1.0,
    weight_grad_time: float = 1.0,
    overlapped_time: float | None = None,
) -> SplitBubble:
    """The steady-state bubble of ``schedule`` on ``stages`` (p ≥ 1) uniform stages with ``micro_batches``
    (m ≥ p): ``1f1b`` ``(p−1)(F+B+W)``; ``zb-h1`` ``max(0, (p−1)(F+B−W))`` (Qi et al. 2023, arXiv:2401.10241,
    §3.1); ``dualpipe`` ``max(0, (p/2−1)(F&B + B − 2W))`` with ``p`` even (DeepSeek-V3, arXiv:2412.19437, Table 2,
    whose full backward is ``B + W`` here); ``overlapped_time`` is ``F&B`` (default ``F + B + W``). The defaults
    ``F = B = W = 1`` are the zero-bubble paper's assumption; communication is neglected.

    >>> [round(split_backward_bubble(8, 64, schedule=k).of_ideal, 4) for k in SPLIT_SCHEDULES]
    [0.1094, 0.0365, 0.0312]
    """
    k = choice("schedule", schedule, SPLIT_SCHEDULES)
    p = int_in_range("stages", stages, 1)
    m = int_in_range("micro_batches", micro_batches, p)
    f = positive("forward_time", forward_time)
    b = positive("input_grad_time", input_grad_time)
    w = positive("weight_grad_time", weight_grad_time)
    fb = f + b + w if overlapped_time is None else non_negative("overlapped_time", overlapped_time)
    if k == "1f1b":
        idle = (p - 1) * (f + b + w)
    elif k == "zb-h1":
        idle = max(0.0, (p - 1) * (f + b - w))
    else:
        if p % 2:
            raise ValueError(f"stages must be even for dualpipe, got {stages!r}")
        idle = max(0.0, (p / 2 - 1) * (fb + b - 2 * w))
    return SplitBubble(k, p, m, f, b, w, fb, float(idle))
