"""Figures of §9.6.2: two-stream timelines, the bucket-size sweep, prefetch depth, compressed training runs, and a
step-by-step animation of one data-parallel step (:func:`ddp_step_animation`).

Every function draws what :mod:`clusterlab.communication.overlap` or
:mod:`clusterlab.communication.compression` returned; nothing is recomputed here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from matplotlib.figure import Figure

from ..communication.compression import TrainingRun
from ..communication.overlap import BucketSweep, DDPSchedule, PrefetchSchedule, Timeline
from ..units import MiB
from ..validate import int_in_range, positive
from ._anim import check_key, jshtml
from ._style import PALETTE, new_figure

if TYPE_CHECKING:
    from IPython.display import HTML

__all__ = [
    "bucket_sweep_figure",
    "compression_curves",
    "ddp_step_animation",
    "ddp_step_animation_html",
    "overlap_timelines",
    "prefetch_tradeoff",
]

_LANES = (("compute", "计算流", PALETTE["blue"]), ("comm", "通信流", PALETTE["orange"]))


def overlap_timelines(panels: Sequence[tuple[str, Timeline]], *, unit: float = 1e-3, unit_label: str = "ms"
                      ) -> Figure:
    """One panel per ``(title, Timeline)``: a compute lane and a communication lane, every task a bar (alternate
    shades so neighbours stay apart); the end of computation and the end of the step are marked. Shared x-axis
    in ``unit`` seconds."""
    items = list(panels)
    if not items or not all(isinstance(p, tuple) and len(p) == 2 and isinstance(p[1], Timeline) for p in items):
        raise ValueError("panels must be a non-empty sequence of (title, Timeline) pairs")
    fig = new_figure((9.6, 0.4 + 1.55 * len(items)))
    axes = fig.subplots(len(items), 1, sharex=True, squeeze=False)[:, 0]
    longest = max(tl.end for _, tl in items) / unit
    for ax, (title, tl) in zip(axes, items, strict=True):
        for lane, (stream, _name, colour) in enumerate(_LANES):
            y = 1 - lane
            k = 0
            for task, s, e in zip(tl.tasks, tl.starts, tl.ends, strict=True):
                if task.stream != stream or e <= s:
                    continue
                ax.barh(y, (e - s) / unit, left=s / unit, height=0.6, color=colour, alpha=0.95 if k % 2 else 0.6,
                        edgecolor="white", linewidth=0.4)
                k += 1
        compute_end = max((e for t, e in zip(tl.tasks, tl.ends, strict=True) if t.stream == "compute"), default=0.0)
        ax.axvline(compute_end / unit, color=PALETTE["ink"], lw=1, ls=":")
        if tl.end > compute_end:
            ax.annotate("", xy=(tl.end / unit, -0.55), xytext=(compute_end / unit, -0.55),
                        arrowprops={"arrowstyle": "<->", "color": PALETTE["vermillion"], "lw": 1.2})
            ax.text((compute_end + tl.end) / 2 / unit, -0.62, "暴露的通信", ha="center", va="top", fontsize=8.5,
                    color=PALETTE["vermillion"])
        ax.set_yticks([1, 0], [n for _, n, _ in _LANES])
        ax.set_ylim(-1.05, 1.5)
        ax.set_title(title, loc="left", fontsize=10)
        ax.grid(axis="y", visible=False)
    axes[-1].set_xlim(0, longest * 1.02)
    axes[-1].set_xlabel(f"时间（{unit_label}）；点线：计算结束")
    return fig


def bucket_sweep_figure(sweep: BucketSweep, *, marks: Sequence[tuple[str, float]] = ()) -> Figure:
    """Step time and exposed communication (ms) over the bucket cap (MiB, log axis); the compute time as a floor,
    the best cap and the caps in ``marks`` (``(label, bytes)``, e.g. PyTorch's 25 MiB) marked. Right panel: the
    number of buckets."""
    if not isinstance(sweep, BucketSweep):
        raise ValueError("sweep must be a BucketSweep")
    caps = np.array(sweep.caps) / MiB
    fig = new_figure((9.6, 3.9))
    ax, ax2 = fig.subplots(1, 2, width_ratios=(2.2, 1))
    ax.plot(caps, np.array(sweep.steps) * 1e3, color=PALETTE["blue"], lw=2, label="一步的时间")
    ax.plot(caps, np.array(sweep.exposed) * 1e3, color=PALETTE["vermillion"], lw=1.5, label="暴露的通信")
    ax.plot(caps, np.array(sweep.communication) * 1e3, color=PALETTE["orange"], lw=1.2, ls="--",
            label="通信合计（α 项随桶数增加）")
    ax.axhline(sweep.compute * 1e3, color=PALETTE["grey"], lw=1, ls=":", label="计算（下限）")
    ax.plot([caps[sweep.best]], [sweep.best_step * 1e3], "o", color=PALETTE["green"], ms=8,
            label=f"最优：{caps[sweep.best]:.3g} MiB")
    for label, cap in marks:
        ax.axvline(cap / MiB, color=PALETTE["purple"], lw=1, ls="-.")
        ax.text(cap / MiB, ax.get_ylim()[1] * 0.97, f" {label}", color=PALETTE["purple"], fontsize=8.5, va="top")
    ax.set_xscale("log")
    ax.set_xlabel("桶的上限（MiB，对数轴）")
    ax.set_ylabel("ms")
    ax.set_ylim(bottom=0)
    ax.legend(fontsize=8.5, loc="upper center", bbox_to_anchor=(0.5, -0.2), ncols=3)
    ax.set_title("桶太小多付延迟，桶太大重叠窗口关闭", loc="left", fontsize=10)
    ax2.step(caps, sweep.buckets, where="post", color=PALETTE["ink"])
    ax2.set_xscale("log")
    ax2.set_yscale("log")
    ax2.set_xlabel("桶的上限（MiB）")
    ax2.set_title("桶数", loc="left", fontsize=10)
    return fig


def prefetch_tradeoff(schedules: Sequence[PrefetchSchedule], *, unit: float = 1e-3, unit_label: str = "ms"
                      ) -> Figure:
    """Exposed all-gather time (bars, left axis) and the extra gathered parameter memory (line, right axis, MB)
    for each prefetch depth."""
    items = list(schedules)
    if not items or not all(isinstance(s, PrefetchSchedule) for s in items):
        raise ValueError("schedules must be a non-empty sequence of PrefetchSchedule")
    depths = [s.depth for s in items]
    fig = new_figure((7.2, 3.4))
    ax = fig.subplots()
    ax.bar(depths, [s.exposed / unit for s in items], color=PALETTE["vermillion"], width=0.6, label="暴露的通信")
    ax.set_xlabel("预取深度 d（提前聚合的层数）")
    ax.set_ylabel(f"暴露的通信（{unit_label}）")
    ax.set_xticks(depths)
    ax.grid(axis="x", visible=False)
    twin = ax.twinx()
    twin.plot(depths, [s.extra_bytes / 1e6 for s in items], "o-", color=PALETTE["blue"], label="额外显存")
    twin.set_ylabel("额外的已聚合参数（MB）")
    twin.set_ylim(bottom=0)
    twin.grid(visible=False)
    h1, l1 = ax.get_legend_handles_labels()
    h2, l2 = twin.get_legend_handles_labels()
    ax.legend(h1 + h2, l1 + l2, loc="upper center", fontsize=9)
    ax.set_title("预取：用显存换重叠", loc="left", fontsize=10)
    return fig


def compression_curves(runs: Sequence[TrainingRun], baseline: TrainingRun) -> Figure:
    """Loss over steps (left) and loss over bytes one worker sent (right, log axis) for every run; the fp32
    ``baseline`` in black. Runs with error feedback solid, without dashed."""
    items = list(runs)
    if not items or not all(isinstance(r, TrainingRun) for r in items) or not isinstance(baseline, TrainingRun):
        raise ValueError("runs must be a non-empty sequence of TrainingRun and baseline a TrainingRun")
    colours = {"bf16": PALETTE["sky"], "int8": PALETTE["green"], "sign": PALETTE["orange"],
               "topk": PALETTE["vermillion"], "fp32": PALETTE["ink"]}
    fig = new_figure((9.6, 3.9))
    ax, ax2 = fig.subplots(1, 2)
    for r in [baseline, *items]:
        steps = np.arange(r.losses.size)
        per_step = r.bytes_sent / max(1, r.losses.size - 1)
        style = {"color": colours[r.kind], "lw": 2.2 if r is baseline else 1.4,
                 "ls": "-" if (r.error_feedback or r is baseline) else "--"}
        label = "fp32（基线）" if r is baseline else r.label
        ax.plot(steps, r.losses, label=label, **style)
        ax2.plot(steps[1:] * per_step, r.losses[1:], **style)
    ax.set_xlabel("步数")
    ax.set_ylabel("训练集上的损失")
    ax.legend(fontsize=8, ncols=2)
    ax.set_title("损失随步数（虚线：无误差反馈）", loc="left", fontsize=10)
    ax2.set_xscale("log")
    ax2.set_xlabel("一个 worker 累计发送的字节（对数轴）")
    ax2.set_title("损失随通信量", loc="left", fontsize=10)
    lo = min(float(r.losses.min()) for r in [baseline, *items])
    for a in (ax, ax2):
        a.set_ylim(lo * 0.95, float(baseline.losses[0]) * 1.02)
    return fig


# ------------------------------------------------------------------------------------------------------------
# one data-parallel step, event by event
# ------------------------------------------------------------------------------------------------------------
_FORWARD, _GRAD, _END, _START = 0, 1, 2, 3  # event kinds; at equal times they happen in this order


@dataclass(frozen=True)
class _Steps:
    """What the animation reads from a :class:`DDPSchedule`: the task indices of each role and the frames."""

    forward: int | None  # task index of the forward pass
    grads: tuple[int, ...]  # compute tasks of the gradients, in the order backward produces them
    bucket_of_grad: tuple[int, ...]  # bucket each of them goes into
    reduces: tuple[int, ...]  # communication task of each bucket
    compute_end: float
    frames: tuple[tuple[float, tuple[tuple[int, int], ...]], ...]  # (time, events (kind, index)) per frame


def _ddp_steps(schedule: DDPSchedule, max_frames: int) -> _Steps:
    """Split the schedule's tasks into their roles and group its events (a gradient done, an all-reduce starting or
    ending) into at most ``max_frames`` frames; frame 0 is the start of the step."""
    tl = schedule.timeline
    compute = [i for i, t in enumerate(tl.tasks) if t.stream == "compute"]
    reduces = tuple(i for i, t in enumerate(tl.tasks) if t.stream == "comm")
    sizes = [len(b.layers) for b in schedule.buckets]
    if len(reduces) != len(schedule.buckets) or len(compute) - sum(sizes) not in (0, 1):
        raise ValueError("schedule must come from clusterlab.communication.overlap.simulate_ddp")
    forward = compute[0] if len(compute) > sum(sizes) else None
    grads = tuple(compute[1:] if forward is not None else compute)
    bucket_of_grad = tuple(b for b, n in enumerate(sizes) for _ in range(n))
    events = [(tl.ends[g], _GRAD, j) for j, g in enumerate(grads)]
    events += [(tl.ends[r], _END, b) for b, r in enumerate(reduces)]
    events += [(tl.starts[r], _START, b) for b, r in enumerate(reduces)]
    if forward is not None:
        events.append((tl.ends[forward], _FORWARD, 0))
    events.sort()
    moments: list[tuple[float, list[tuple[int, int]]]] = []  # events at one instant stay together
    for t, kind, idx in events:
        if moments and moments[-1][0] == t:
            moments[-1][1].append((kind, idx))
        else:
            moments.append((t, [(kind, idx)]))
    compute_end = max((tl.ends[i] for i in compute), default=0.0)
    # the forward pass and everything from the end of backward on (the exposed part) get frames of their own,
    # unless that alone would take more than half of the frames; the rest share the remaining frames evenly
    budget = max_frames - 1
    fixed = [m for m in moments if m[0] >= compute_end or any(k == _FORWARD for k, _ in m[1])]
    if len(fixed) > budget // 2:
        fixed = []
    head = [m for m in moments if not any(m is f for f in fixed)]
    groups: list[list[tuple[float, list[tuple[int, int]]]]] = [[f] for f in fixed]
    if head:
        n = max(1, min(budget - len(fixed), len(head)))
        total = sum(len(ev) for _, ev in head)
        split: dict[int, list[tuple[float, list[tuple[int, int]]]]] = {}
        before = g = 0
        for i, m in enumerate(head):  # about total/n events per frame; no frame empty, none skipped
            g = max(g, min(g + 1, before * n // total), n - (len(head) - i))
            split.setdefault(g, []).append(m)
            before += len(m[1])
        groups += list(split.values())
    groups.sort(key=lambda g: g[0][0])
    frames = [(0.0, ())] + [(g[-1][0], tuple(e for _, ev in g for e in ev)) for g in groups]
    return _Steps(forward, grads, bucket_of_grad, reduces, compute_end, tuple(frames))


def _numbers(items: Sequence[int]) -> str:
    """1-based bucket numbers: ``3``, ``3、5`` or ``3–6`` (consecutive)."""
    nums = sorted(i + 1 for i in items)
    if len(nums) > 2 and nums[-1] - nums[0] == len(nums) - 1:
        return f"{nums[0]}–{nums[-1]}"
    return "、".join(str(n) for n in nums)


def _mib(values: Sequence[float]) -> str:
    sizes = sorted({f"{v / MiB:.3g}" for v in values}, key=float)
    return f"{'各 ' if len(values) > 1 and len(sizes) == 1 else ''}{'/'.join(sizes)} MiB"


def _headline(schedule: DDPSchedule, steps: _Steps, frame: int) -> str:
    """What happened in ``frame``, in Chinese."""
    t, events = steps.frames[frame]
    if frame == 0:
        return "一步开始：计算流先做前向，通信流空闲" if steps.forward is not None else "一步开始：反向从最后一层算起"
    bk = schedule.buckets
    grads = [i for k, i in events if k == _GRAD]
    ends = [i for k, i in events if k == _END]
    starts = [i for k, i in events if k == _START]
    closed = {steps.bucket_of_grad[j] for j in grads if j == len(steps.grads) - 1
              or steps.bucket_of_grad[j + 1] != steps.bucket_of_grad[j]}
    queued = sorted(b for b in closed if b not in starts)
    parts: list[str] = []
    if any(k == _FORWARD for k, _ in events):
        parts.append("前向结束，反向从最后一层开始逐层产生梯度")
    if grads:
        done = max(grads) + 1
        tail = "，反向结束" if done == len(steps.grads) else ""
        parts.append(f"算完 {len(grads)} 个梯度张量{tail}" if len(grads) > 1 else f"算完第 {done} 个梯度张量{tail}")
    if ends:
        parts.append(f"第 {_numbers(ends)} 个全归约结束")
    if starts:
        full = "装满" if all(b in closed for b in starts) else "开始"
        size = _mib([bk[b].nbytes for b in starts])
        parts.append(f"第 {_numbers(starts)} 个桶{full}（{size}），开始全归约" if full == "装满"
                     else f"第 {_numbers(starts)} 个桶（{size}）开始全归约")
    if queued:
        parts.append(f"第 {_numbers(queued)} 个桶装满，排队等通信流")
    if t >= schedule.step and ends:
        parts.append("这一步结束")
    return "；".join(parts)


def _status(schedule: DDPSchedule, steps: _Steps, frame: int, unit: float, unit_label: str) -> str:
    """Time, progress and the exposed communication so far (compute idle time up to ``t``, which ends equal to
    ``schedule.exposed``)."""
    tl = schedule.timeline
    t = steps.frames[frame][0]
    busy = sum(max(0.0, min(e, t) - s) for task, s, e in zip(tl.tasks, tl.starts, tl.ends, strict=True)
               if task.stream == "compute")
    grads = sum(1 for g in steps.grads if tl.ends[g] <= t)
    started = sum(1 for r in steps.reduces if tl.starts[r] <= t and frame > 0)
    ended = sum(1 for r in steps.reduces if tl.ends[r] <= t and frame > 0)
    nb = len(steps.reduces)
    return (f"t = {t / unit:.1f} {unit_label}　梯度 {grads}/{len(steps.grads)}　全归约：已开始 {started}/{nb}，"
            f"已结束 {ended}/{nb}　暴露的通信 {(t - busy) / unit:.1f} {unit_label}")


def _frame_alt(schedule: DDPSchedule, steps: _Steps, frame: int, unit: float, unit_label: str) -> str:
    """The frame's text alternative: the two lines it prints (what happened, then time, progress and exposure)."""
    status = _status(schedule, steps, frame, unit, unit_label).replace("　", "；")
    return f"{_headline(schedule, steps, frame)}；{status}。"


def _draw_ddp_frame(fig: Figure, schedule: DDPSchedule, steps: _Steps, frame: int, unit: float,
                    unit_label: str) -> None:
    fig.clear()
    tl = schedule.timeline
    t = steps.frames[frame][0]
    ax = fig.add_axes((0.09, 0.2, 0.89, 0.57))
    lane = {"compute": 1.0, "comm": 0.0}
    colour = {"compute": PALETTE["blue"], "comm": PALETTE["orange"]}
    bucket_of_task = {g: steps.bucket_of_grad[j] for j, g in enumerate(steps.grads)}
    bucket_of_task.update({r: b for b, r in enumerate(steps.reduces)})
    for i, (task, s, e) in enumerate(zip(tl.tasks, tl.starts, tl.ends, strict=True)):
        if e <= s:
            continue
        y = lane[task.stream]
        ax.barh(y, (e - s) / unit, left=s / unit, height=0.6, color="#EDEDED", edgecolor="white", linewidth=0.4)
        if s < t:
            b = bucket_of_task.get(i)
            alpha = 0.45 if b is None else (0.95 if b % 2 else 0.6)
            ax.barh(y, (min(e, t) - s) / unit, left=s / unit, height=0.6, color=colour[task.stream], alpha=alpha,
                    edgecolor="white", linewidth=0.4)
    started = [b for k, b in steps.frames[frame][1] if k == _START]
    if started:  # the bucket whose all-reduce started last
        x = tl.starts[steps.reduces[started[-1]]] / unit
        right = x > 0.85 * schedule.step / unit
        ax.text(x, -0.42, f"桶 {started[-1] + 1}", fontsize=8, va="top", ha="right" if right else "left",
                color=PALETTE["ink"])
    if frame > 0:
        ax.axvline(t / unit, color=PALETTE["ink"], lw=1)
    if t >= steps.compute_end > 0 and frame > 0:
        ax.axvline(steps.compute_end / unit, color=PALETTE["ink"], lw=1, ls=":")
        if t > steps.compute_end:
            ax.annotate("", xy=(t / unit, 1.48), xytext=(steps.compute_end / unit, 1.48),
                        arrowprops={"arrowstyle": "<->", "color": PALETTE["vermillion"], "lw": 1.2})
            ax.text(steps.compute_end / unit, 1.62, "暴露 ", ha="right", va="center", fontsize=8.5,
                    color=PALETTE["vermillion"])
    ax.set_yticks([1, 0], ["计算流", "通信流"])
    ax.set_ylim(-0.8, 1.8)
    ax.set_xlim(0, schedule.step * 1.02 / unit)
    ax.set_xlabel(f"时间（{unit_label}）；竖线：当前时刻，点线：计算结束")
    ax.grid(axis="y", visible=False)
    head = _headline(schedule, steps, frame)
    fig.text(0.01, 0.97, head, fontsize=max(8.0, min(10.0, 520 / len(head))), va="top", color=PALETTE["ink"])
    fig.text(0.01, 0.875, _status(schedule, steps, frame, unit, unit_label), fontsize=9, va="top",
             color=PALETTE["grey"])


def ddp_step_animation_html(
    schedule: DDPSchedule,
    *,
    max_frames: int = 30,
    unit: float = 1e-3,
    unit_label: str = "ms",
    key: str | None = None,
    interval: int = 1200,
    dpi: float = 80,
) -> str:
    """The HTML of :func:`ddp_step_animation` as a string (self-contained, deterministic)."""
    if not isinstance(schedule, DDPSchedule):
        raise ValueError(f"schedule must be a DDPSchedule (from overlap.simulate_ddp), got {type(schedule).__name__}")
    n = int_in_range("max_frames", max_frames, 2, 120)
    u = positive("unit", unit)
    check_key(key)
    steps = _ddp_steps(schedule, n)
    alts = [_frame_alt(schedule, steps, i, u, unit_label) for i in range(len(steps.frames))]
    return jshtml(lambda fig, i: _draw_ddp_frame(fig, schedule, steps, i, u, unit_label), len(steps.frames),
                  figsize=(8.0, 2.8), key=key, interval=interval, dpi=dpi, alts=alts)


def ddp_step_animation(
    schedule: DDPSchedule,
    *,
    max_frames: int = 30,
    unit: float = 1e-3,
    unit_label: str = "ms",
    key: str | None = None,
    interval: int = 1200,
    dpi: float = 80,
) -> HTML:
    """One data-parallel step of :func:`clusterlab.communication.overlap.simulate_ddp`, event by event, as a
    self-contained HTML animation (slider and buttons, no kernel).

    Frame 0 is the start of the step; every later frame advances the two streams to the next event — a gradient
    tensor finished on the compute stream, a bucket full and its all-reduce starting, an all-reduce ending — and
    says what happened in one Chinese line, with the time, the progress and the exposed communication so far
    (the time the compute stream has been idle; at the end it is ``schedule.exposed``). The whole schedule is
    drawn in grey underneath; gradients and reductions are coloured by bucket (alternate shades). With more
    events than ``max_frames − 1`` frames, the events during backward are grouped evenly; the forward pass and
    the events after backward (the exposed part) keep frames of their own. ``dpi`` keeps the page light (about
    0.3 MB for 30 frames at 80 dpi). Each frame's text alternative is the two lines it prints.
    """
    from IPython.display import HTML

    return HTML(  # type: ignore[no-untyped-call]
        ddp_step_animation_html(schedule, max_frames=max_frames, unit=unit, unit_label=unit_label, key=key,
                                interval=interval, dpi=dpi)
    )
