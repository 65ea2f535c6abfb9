"""Figures of 集群篇 §7: the step of a :class:`~clusterlab.cluster.ledger.Ledger` as a waterfall, and the step
across overlap."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..cluster.ledger import Ledger
from ._style import PALETTE, new_figure

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["ledger_overlap", "ledger_waterfall"]

_NAMES = {"efficiency": "核函数效率损失", "communication": "暴露的通信", "bubble": "流水线空泡", "data": "等数据"}
_COLOURS = {"efficiency": "orange", "communication": "vermillion", "bubble": "purple", "data": "yellow"}


def ledger_waterfall(ledgers: Sequence[Ledger], titles: Sequence[str]) -> Figure:
    """One waterfall per ledger: the ideal compute ``F/peak``, each loss of
    :data:`clusterlab.cluster.ledger.LOSSES` stacked on it, and the step; each bar labelled with its seconds, the
    step bar also with the MFU. The panels share one time axis."""
    if not ledgers or len(ledgers) != len(titles):
        raise ValueError("ledgers and titles must be non-empty and of equal length")
    fig = new_figure((4.3 * len(ledgers) + 0.6, 3.9))
    axes = fig.subplots(1, len(ledgers), squeeze=False)[0]
    top = max(led.step for led in ledgers)
    for ax, led, title in zip(axes, ledgers, titles, strict=True):
        losses = led.losses
        names = ["理想计算", *(_NAMES[k] for k in losses), "一步"]
        bottoms = [0.0]
        heights = [led.ideal]
        colours = [PALETTE["sky"]]
        level = led.ideal
        for k, v in losses.items():
            bottoms.append(level)
            heights.append(v)
            colours.append(PALETTE[_COLOURS[k]])
            level += v
        bottoms.append(0.0)
        heights.append(led.step)
        colours.append(PALETTE["blue"])
        x = range(len(names))
        ax.bar(x, heights, bottom=bottoms, color=colours, width=0.7, edgecolor="white")
        for i, (b, h) in enumerate(zip(bottoms, heights, strict=True)):
            ax.text(i, b + h + 0.015 * top, f"{h:.2f}", ha="center", va="bottom", fontsize=8)
        for i in range(len(names) - 2):
            top = bottoms[i] + heights[i]
            ax.plot([i + 0.35, i + 0.65], [top, top], color=PALETTE["grey"], lw=0.7)
        ax.set_xticks(list(x), names, rotation=35, ha="right", fontsize=8)
        ax.set_ylim(0, top * 1.15)
        ax.set_ylabel("每步时间（s）")
        ax.set_title(f"{title}\nMFU {100 * led.mfu:.1f}%", fontsize=9)
    return fig


def ledger_overlap(sweep: Sequence[Ledger], marks: Sequence[float] = ()) -> Figure:
    """Left: compute and the exposed communication of each ledger of ``sweep`` (e.g.
    :func:`clusterlab.cluster.ledger.overlap_sweep`) against its overlap, with the exposed time a reader gets by
    forgetting the cap (dashed); right: MFU. ``marks``: overlaps to mark."""
    if not sweep:
        raise ValueError("sweep must be a non-empty sequence of Ledger")
    fig = new_figure((9.5, 3.5))
    ax1, ax2 = fig.subplots(1, 2)
    x = [s.overlap for s in sweep]
    comp = [s.compute + s.bubble + s.stall for s in sweep]
    ax1.fill_between(x, 0, comp, color=PALETTE["sky"], label="计算（含空泡、等数据）")
    ax1.fill_between(x, comp, [s.step for s in sweep], color=PALETTE["vermillion"], alpha=0.7, label="暴露的通信")
    ax1.plot(x, [c + s.uncapped_exposed for c, s in zip(comp, sweep, strict=True)], "--", color=PALETTE["ink"],
             lw=1, label="忘了“最多藏住计算时间”")
    ax1.set_xlabel("重叠比例 ρ")
    ax1.set_ylabel("每步时间（s）")
    ax1.set_ylim(0, max(s.step for s in sweep) * 1.1)
    ax1.legend(fontsize=8, loc="lower left")
    ax2.plot(x, [100 * s.mfu for s in sweep], "-", color=PALETTE["blue"], label="MFU（PaLM 定义）")
    ax2.axhline(100 * sweep[0].efficiency, color=PALETTE["grey"], lw=0.8, ls=":", label="核函数效率 η（上限）")
    ax2.set_ylim(0, 105 * sweep[0].efficiency)
    ax2.set_xlabel("重叠比例 ρ")
    ax2.set_ylabel("MFU（%）")
    ax2.legend(fontsize=8, loc="lower right")
    for ax in (ax1, ax2):
        for mk in marks:
            ax.axvline(mk, color=PALETTE["grey"], lw=0.8)
    return fig
