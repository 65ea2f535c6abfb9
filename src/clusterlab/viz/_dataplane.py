"""Figures of the data plane (集群篇 §6): cache hit rate per epoch and over the cache size, and the timeline of a
prefetching loader — drawn from :mod:`clusterlab.cluster.dataplane` and :mod:`clusterlab.cluster.loader` results."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Final

from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator, PercentFormatter

from ..cluster.dataplane import CacheRun, HitRateSweep
from ..cluster.loader import LoaderRun
from ..units import fmt_num
from ..validate import int_in_range, positive
from ._style import PALETTE, new_figure

__all__ = ["cache_hit_rates", "loader_timeline"]

_CASE_STYLE: Final = {
    "lru/sequential": (PALETTE["vermillion"], "LRU，顺序读"),
    "lru/shuffled": (PALETTE["orange"], "LRU，每轮打乱"),
    "static/shuffled": (PALETTE["blue"], "静态缓存（不淘汰）"),
}
_LINE_COLOURS: Final = (PALETTE["vermillion"], PALETTE["orange"], PALETTE["blue"], PALETTE["green"], PALETTE["purple"])


def cache_hit_rates(runs: Mapping[str, CacheRun], sweep: HitRateSweep) -> Figure:
    """Left: hit rate per epoch of each run of ``runs`` (label → :class:`~clusterlab.cluster.dataplane.CacheRun`),
    epoch 1 cold. Right: warm hit rate over the cache fraction from ``sweep`` — simulated points and closed-form
    lines (:func:`clusterlab.cluster.dataplane.hit_rate_sweep`). Returns a pyplot figure."""
    if not runs:
        raise ValueError("runs must contain at least one CacheRun")
    int_in_range("number of runs", len(runs), 1, len(_LINE_COLOURS))
    fig = new_figure((9.6, 4.0))
    ax_l, ax_r = fig.subplots(1, 2)
    for i, (label, run) in enumerate(runs.items()):
        if not isinstance(run, CacheRun):
            raise ValueError(f"runs[{label!r}] must be a CacheRun")
        epochs = list(range(1, run.epochs + 1))
        ax_l.plot(epochs, 100 * run.hit_rate, marker="o", color=_LINE_COLOURS[i], label=label)
    ax_l.set_xlabel("epoch")
    ax_l.set_ylabel("命中率")
    ax_l.set_ylim(-4, 104)
    ax_l.yaxis.set_major_formatter(PercentFormatter())
    ax_l.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax_l.set_title("每个 epoch 的命中率（第 1 个 epoch 是冷的）")
    ax_l.legend(fontsize=8, loc="center right")

    x = 100 * sweep.fractions
    for case, (colour, name) in _CASE_STYLE.items():
        ax_r.plot(x, 100 * sweep.closed_form[case], color=colour, lw=1.6, label=f"{name}：公式")
        ax_r.plot(x, 100 * sweep.simulated[case], ls="none", marker="o", ms=4, color=colour, label=f"{name}：模拟")
    ax_r.set_xlabel("缓存容量 ÷ 本节点要读的数据")
    ax_r.set_ylabel("第 2 个 epoch 起的平均命中率")
    ax_r.xaxis.set_major_formatter(PercentFormatter())
    ax_r.yaxis.set_major_formatter(PercentFormatter())
    ax_r.set_ylim(-4, 104)
    ax_r.set_title(f"{sweep.shards} 个分片，{sweep.epochs} 个 epoch")
    ax_r.legend(fontsize=7, loc="upper left")
    return fig


def loader_timeline(runs: Sequence[LoaderRun], *, batches: int = 24) -> Figure:
    """One row per run (e.g. increasing prefetch depth): the GPU's compute (blue) and its waits for data
    (vermillion) over the first ``batches`` steps, with the run's GPU-busy share over all its batches. Returns a
    pyplot figure."""
    if not runs:
        raise ValueError("runs must contain at least one LoaderRun")
    int_in_range("number of runs", len(runs), 1, 8)
    b = int_in_range("batches", batches, 1)
    for r in runs:
        if not isinstance(r, LoaderRun):
            raise ValueError("runs must be LoaderRun results of clusterlab.cluster.loader.simulate_loader")
    fig = new_figure((9.6, 0.75 * len(runs) + 1.4))
    ax = fig.subplots()
    horizon = max(float(r.taken[min(b, r.batches) - 1] + r.step_time) for r in runs)
    positive("horizon", horizon)
    labels = []
    for row, r in enumerate(runs):
        y = len(runs) - 1 - row
        n = min(b, r.batches)
        gpu = [(float(r.taken[k]), r.step_time) for k in range(n)]
        waits = [(float(r.taken[k] - r.wait[k]), float(r.wait[k])) for k in range(n) if r.wait[k] > 0]
        ax.broken_barh(gpu, (y - 0.3, 0.6), facecolors=PALETTE["sky"], edgecolors="white", linewidth=0.6)
        ax.broken_barh(waits, (y - 0.3, 0.6), facecolors=PALETTE["vermillion"])
        name = "主进程加载" if r.workers == 0 else f"W = {r.workers}，p = {r.prefetch_factor}（深度 {r.depth}）"
        labels.append((y, name))
        ax.text(horizon * 1.01, y, f"GPU 忙 {fmt_num(100 * r.gpu_busy)}%", va="center", fontsize=8)
    ax.set_yticks([y for y, _ in labels], [n for _, n in labels])
    ax.set_xlim(0, horizon * 1.14)
    ax.set_ylim(-0.7, len(runs) - 0.3)
    ax.set_xlabel("时间（s）")
    ax.set_title(f"前 {b} 步：蓝 = GPU 计算，红 = GPU 等数据")
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    return fig
