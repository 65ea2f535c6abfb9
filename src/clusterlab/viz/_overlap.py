"""Figures of §9.6.2: two-stream timelines, the bucket-size sweep, prefetch depth, compressed training runs.

Every function draws what :mod:`clusterlab.communication.overlap` or
:mod:`clusterlab.communication.compression` returned; nothing is recomputed here.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.figure import Figure

from ..communication.compression import TrainingRun
from ..communication.overlap import BucketSweep, PrefetchSchedule, Timeline
from ..units import MiB
from ._style import PALETTE, new_figure

__all__ = ["bucket_sweep_figure", "compression_curves", "overlap_timelines", "prefetch_tradeoff"]

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
    axes[-1].set_xlabel(f"时间（{unit_label}）；虚线：计算结束")
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
    ax.set_title("桶太小付延迟，桶太大关不上重叠窗口", loc="left", fontsize=10)
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
