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
    """One horizontal waterfall per ledger, stacked: the ideal compute ``F/peak``, each loss of
    :data:`clusterlab.cluster.ledger.LOSSES` laid after it, and the step; each bar labelled with its seconds, the
    title with the MFU. The panels share one time axis, so the ledgers compare at a glance."""
    if not ledgers or len(ledgers) != len(titles):
        raise ValueError("ledgers and titles must be non-empty and of equal length")
    fig = new_figure((7.6, 0.35 + 2.15 * len(ledgers)))
    axes = fig.subplots(len(ledgers), 1, squeeze=False, sharex=True)[:, 0]
    longest = max(led.step for led in ledgers)
    for ax, led, title in zip(axes, ledgers, titles, strict=True):
        losses = led.losses
        names = ["理想计算", *(_NAMES[k] for k in losses), "一步"]
        lefts = [0.0]
        widths = [led.ideal]
        colours = [PALETTE["sky"]]
        level = led.ideal
        for k, v in losses.items():
            lefts.append(level)
            widths.append(v)
            colours.append(PALETTE[_COLOURS[k]])
            level += v
        lefts.append(0.0)
        widths.append(led.step)
        colours.append(PALETTE["blue"])
        y = list(range(len(names)))
        ax.barh(y, widths, left=lefts, color=colours, height=0.7, edgecolor="white")
        for i, (left, w) in enumerate(zip(lefts, widths, strict=True)):
            ax.text(left + w + 0.01 * longest, i, f"{w:.2f}", ha="left", va="center", fontsize=9)
        for i in range(len(names) - 2):
            end = lefts[i] + widths[i]
            ax.plot([end, end], [i + 0.35, i + 0.65], color=PALETTE["grey"], lw=0.7)
        ax.set_yticks(y, names, fontsize=9)
        ax.invert_yaxis()
        ax.set_xlim(0, longest * 1.12)
        ax.set_title(f"{title}（MFU {100 * led.mfu:.1f}%）", fontsize=10, loc="left")
    axes[-1].set_xlabel("每步时间（s）")
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
