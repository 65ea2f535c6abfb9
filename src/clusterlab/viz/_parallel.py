"""Figures of 集群篇 §4: a simulated pipeline schedule, the per-axis communication ledger, step time vs overlap."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from matplotlib.patches import Patch

from ..cluster.compute import StepTime
from ..cluster.parallel import LinkLoad
from ..cluster.pipeline import Schedule
from ._style import PALETTE, new_figure

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["parallel_ledger", "pipeline_schedule", "step_time_vs_overlap"]


def pipeline_schedule(schedules: Sequence[Schedule]) -> Figure:
    """One Gantt chart per :class:`~clusterlab.cluster.pipeline.Schedule` (stacked): forwards blue, backwards
    orange, the micro-batch number in each box, idle time left blank."""
    if not schedules:
        raise ValueError("schedules must be a non-empty sequence of Schedule")
    span = max(s.makespan for s in schedules)
    fig = new_figure((9.5, 1.0 + 1.5 * sum(0.4 + 0.35 * s.stages for s in schedules) / 1.5))
    axes = fig.subplots(len(schedules), 1, squeeze=False)[:, 0]
    names = {"1f1b": "1F1B", "gpipe": "GPipe"}
    for ax, s in zip(axes, schedules, strict=True):
        for i, j, fwd, a, b in zip(s.stage, s.micro_batch, s.forward, s.start, s.end, strict=True):
            colour = PALETTE["sky"] if fwd else PALETTE["orange"]
            ax.barh(int(i), b - a, left=a, height=0.8, color=colour, edgecolor="white", linewidth=0.6)
            ax.text((a + b) / 2, int(i), str(int(j) + 1), ha="center", va="center", fontsize=7)
        ax.set_yticks(range(s.stages), [f"段 {i}" for i in range(s.stages)])
        ax.invert_yaxis()
        ax.set_xlim(0, span)
        ax.set_title(f"{names[s.kind]}：p = {s.stages}，m = {s.micro_batches}，空泡占总时间 "
                     f"{100 * s.bubble_of_total:.1f}%，每段最多 {int(s.in_flight().max())} 个 micro-batch 的激活",
                     fontsize=9)
    axes[-1].set_xlabel("时间（以一次前向为单位）")
    handles = [Patch(color=PALETTE["sky"], label="前向"), Patch(color=PALETTE["orange"], label="反向")]
    axes[-1].legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, -0.32), fontsize=8, ncol=2)
    return fig


def parallel_ledger(loads: Sequence[LinkLoad], labels: Sequence[str]) -> Figure:
    """Left: bytes each rank sends per step per axis (log scale); right: time of each on its link. One bar per
    :class:`~clusterlab.cluster.parallel.LinkLoad`; bars coloured by link."""
    if not loads or len(loads) != len(labels):
        raise ValueError("loads and labels must be non-empty and of equal length")
    fig = new_figure((9.5, 0.9 + 0.55 * len(loads)))
    ax1, ax2 = fig.subplots(1, 2, sharey=True)
    colours: dict[str, str] = {}
    palette = [PALETTE[c] for c in ("green", "blue", "vermillion", "orange", "sky")]
    for ll in loads:
        colours.setdefault(ll.link, palette[len(colours) % len(palette)])
    y = list(range(len(loads)))
    ax1.barh(y, [ll.volume.send / 1e9 for ll in loads], color=[colours[ll.link] for ll in loads])
    ax2.barh(y, [ll.time * 1e3 for ll in loads], color=[colours[ll.link] for ll in loads])
    for yi, ll in zip(y, loads, strict=True):
        ax1.text(ll.volume.send / 1e9, yi, f" {ll.volume.send / 1e9:.3g} GB，{ll.volume.calls} 次", va="center",
                 fontsize=8)
        ms = f"{ll.time * 1e3:.0f}" if ll.time >= 0.1 else f"{ll.time * 1e3:.3g}"
        ax2.text(ll.time * 1e3, yi, f" {ms} ms（{ll.link}）", va="center", fontsize=8)
    ax1.set_xscale("log")
    ax1.set_yticks(y, list(labels))
    ax1.invert_yaxis()
    ax1.set_xlabel("每个 rank 每步发送（GB，对数轴）")
    ax2.set_xlabel("在所走链路上的时间（ms，不重叠）")
    ax1.set_xlim(right=max(ll.volume.send for ll in loads) / 1e9 * 30)
    ax2.set_xlim(right=max(ll.time for ll in loads) * 1e3 * 1.6)
    return fig


def step_time_vs_overlap(steps: Sequence[StepTime], marks: Sequence[float] = ()) -> Figure:
    """Left: compute and exposed communication stacked, vs the overlap of each
    :class:`~clusterlab.cluster.compute.StepTime`; right: PaLM's MFU and the compute fraction. ``marks``: overlaps
    to mark with a vertical line."""
    if not steps:
        raise ValueError("steps must be a non-empty sequence of StepTime")
    fig = new_figure((9.5, 3.5))
    ax1, ax2 = fig.subplots(1, 2)
    x = [s.overlap for s in steps]
    ax1.fill_between(x, 0, [s.compute for s in steps], color=PALETTE["sky"], label="计算")
    ax1.fill_between(x, [s.compute for s in steps], [s.total for s in steps], color=PALETTE["vermillion"],
                     alpha=0.7, label="暴露的通信")
    ax1.set_xlabel("重叠比例（被计算藏住的通信份额）")
    ax1.set_ylabel("每步时间（s）")
    ax1.set_ylim(0, max(s.total for s in steps) * 1.1)
    ax1.legend(fontsize=8, loc="lower left")
    ax2.plot(x, [s.compute_fraction for s in steps], "--", color=PALETTE["orange"], label="计算占比（原文的“MFU”）")
    ax2.plot(x, [s.mfu for s in steps], "-", color=PALETTE["blue"], label="MFU（PaLM 定义）")
    ax2.axhline(steps[0].efficiency, color=PALETTE["grey"], lw=0.8, ls=":", label="核函数效率 η（MFU 的上限）")
    ax2.set_ylim(0, 1.05)
    ax2.set_xlabel("重叠比例")
    ax2.legend(fontsize=8, loc="lower right")
    for ax in (ax1, ax2):
        for mk in marks:
            ax.axvline(mk, color=PALETTE["grey"], lw=0.8)
    return fig
