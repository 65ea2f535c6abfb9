"""Static charts of collective traffic: naive vs ring load per rank, ring volume and α-β time vs N."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import numpy as np
from matplotlib.figure import Figure
from matplotlib.ticker import FixedLocator, NullLocator

from ..communication import collectives
from ..units import GB, fmt_bytes, fmt_num, fmt_seconds
from ..validate import int_in_range, non_negative, positive
from ._style import BYTE_DIV as _BYTE_DIV
from ._style import PALETTE, byte_unit, new_figure, time_unit

__all__ = ["naive_vs_ring_load", "volume_and_time_vs_ranks"]

#: Largest N the per-rank bar chart draws (one group of bars per rank).
LOAD_RANKS_MAX: Final = 32
_NAMES: Final = {"naive": "朴素（汇聚到 rank 0 再广播）", "ring": "环形 all-reduce"}


def naive_vs_ring_load(size: float, ranks: int) -> Figure:
    """Bar chart per rank: bytes sent (left) and received (right) by one all-reduce of ``size`` bytes per
    rank on ``ranks`` ranks, naive (through rank 0) next to ring. Bytes in GB (1 GB = 10⁹ B).

    The naive root carries ``S(N−1)`` in each direction, the ring spreads ``2S(N−1)/N < 2S`` evenly.
    ``ranks`` in 2 … 32. Returns a pyplot figure.
    """
    s = positive("size", size)
    n = int_in_range("ranks", ranks, 2, LOAD_RANKS_MAX)
    naive = collectives.rank_traffic("all_reduce", s, n, "naive")
    ring = collectives.rank_traffic("all_reduce", s, n, "ring")
    fig = new_figure((9.6, 4.4))
    axes = fig.subplots(1, 2, sharey=True)
    x = np.arange(n)
    width = 0.4
    colours = {"naive": PALETTE["vermillion"], "ring": PALETTE["blue"]}
    top = max(max(naive.sent), max(ring.sent)) / GB
    for ax, field, zh in ((axes[0], "sent", "发送"), (axes[1], "received", "接收")):
        for offset, tr in ((-width / 2, naive), (width / 2, ring)):
            vals = np.asarray(getattr(tr, field)) / GB
            ax.bar(x + offset, vals, width=width, color=colours[tr.algorithm], label=_NAMES[tr.algorithm],
                   zorder=2)
            for xi, v in zip(x, vals, strict=True):
                if (n <= 4 or (n <= 8 and xi <= 1)) and not (tr.algorithm == "naive" and xi == 0):
                    ax.text(xi + offset, v + top * 0.012, fmt_num(v), ha="center", va="bottom", fontsize=8)
        ax.set_title(f"每个 rank 的{zh}量", loc="left")
        ax.set_xlabel("rank")
        ax.set_xticks(x, [str(i) if n <= 16 or i % 4 == 0 else "" for i in x])
        ax.grid(axis="x", visible=False)
        ax.set_ylim(0, top * 1.15)
        ax.annotate(
            f"根 rank 0：S(N−1) = {fmt_bytes(naive.received[0])}",
            xy=(0, naive.received[0] / GB),
            xytext=(14, -3),
            textcoords="offset points",
            ha="left",
            va="top",
            fontsize=9,
            color=PALETTE["vermillion"],
            arrowprops={"arrowstyle": "->", "color": PALETTE["vermillion"], "lw": 0.8, "shrinkA": 0,
                        "shrinkB": 2},
        )
    axes[0].set_ylabel("字节（GB）")
    axes[1].legend(loc="upper right", bbox_to_anchor=(1.0, 0.8))
    fig.suptitle(
        f"all-reduce 的负载：S = {fmt_bytes(s)}，N = {n}；环形每个 rank 发送 2S(N−1)/N = "
        f"{fmt_bytes(ring.sent[0])}",
        fontsize=11,
        fontweight="bold",
    )
    return fig


def _check_ranks_list(ranks_list: Sequence[int]) -> list[int]:
    try:
        items = list(ranks_list)
    except TypeError:
        raise ValueError("ranks_list must be a sequence of integers >= 2") from None
    if not items:
        raise ValueError("ranks_list must hold at least one integer >= 2, got an empty sequence")
    return sorted({int_in_range("ranks_list", v, 2, 1 << 20) for v in items})


def volume_and_time_vs_ranks(
    size: float, ranks_list: Sequence[int], latency: float, bandwidth: float
) -> Figure:
    """Two panels over N (log x-axis) for ring all-reduce of ``size`` bytes per rank.

    Left: per-rank send volume ``2S(N−1)/N`` (:func:`clusterlab.communication.collectives.send_volume`), flat and
    approaching ``2S`` (dashed). Right: α-β time (:func:`clusterlab.communication.collectives.alpha_beta_time`) stacked
    as
    bandwidth term ``2S(N−1)/(Nβ)`` and latency term ``2(N−1)α``. ``latency`` α ≥ 0 in s, ``bandwidth`` β > 0
    in B/s per direction. Returns a pyplot figure.
    """
    s = positive("size", size)
    ns = _check_ranks_list(ranks_list)
    alpha = non_negative("latency", latency)
    beta = positive("bandwidth", bandwidth)
    vol = np.array([collectives.send_volume("all_reduce", s, n) for n in ns])
    total = np.array([collectives.alpha_beta_time("all_reduce", s, n, alpha, beta) for n in ns])
    lat = np.array([collectives.steps("all_reduce", n) * alpha for n in ns])  # the latency term, read off the model
    bw = total - lat
    x = np.array(ns, dtype=float)

    unit = byte_unit(2 * s)
    div = _BYTE_DIV[unit]
    fig = new_figure((9.6, 4.2))
    ax_v, ax_t = fig.subplots(1, 2)
    style = "o-" if len(ns) <= 16 else "-"
    ax_v.plot(x, vol / div, style, color=PALETTE["blue"], label="每个 rank 发送 2S(N−1)/N", zorder=3)
    ax_v.axhline(2 * s / div, color=PALETTE["ink"], ls="--", lw=1.0, label=f"2S = {fmt_bytes(2 * s, unit)}")
    ax_v.set_ylim(0, 2 * s / div * 1.18)
    ax_v.set_title("每个 rank 的发送量几乎不随 N 变", loc="left")
    ax_v.set_ylabel(f"字节（{unit}）")
    ax_v.legend(loc="lower right")

    scale, t_unit = time_unit(float(total.max()))
    ax_t.stackplot(x, bw / scale, lat / scale, colors=[PALETTE["sky"], PALETTE["orange"]],
                   labels=["带宽项 2S(N−1)/(Nβ)", "延迟项 2(N−1)α"], alpha=0.85, zorder=2)
    ax_t.plot(x, total / scale, style, color=PALETTE["ink"], lw=1.2, ms=3.5, label="总时间", zorder=3)
    ax_t.set_ylim(0, float(total.max()) / scale * 1.15)
    ax_t.set_title("α-β 时间 = 带宽项 + 延迟项", loc="left")
    ax_t.set_ylabel(f"时间（{t_unit}）")
    ax_t.legend(loc="upper left")

    for ax in (ax_v, ax_t):
        ax.set_xlabel("rank 数 N（对数轴）")
        ax.set_xscale("log", base=2)
        ax.set_xlim(x[0] / 1.25, x[-1] * 1.25)
        ticks = ns if len(ns) <= 12 else [1 << k for k in range(1, 21) if ns[0] <= 1 << k <= ns[-1]]
        ax.xaxis.set_major_locator(FixedLocator([float(t) for t in ticks]))
        ax.xaxis.set_minor_locator(NullLocator())
        ax.set_xticklabels([str(t) for t in ticks])
    fig.suptitle(
        f"环形 all-reduce：S = {fmt_bytes(s, unit)}，α = {fmt_seconds(alpha)}，"
        f"β = {fmt_bytes(beta, byte_unit(beta))}/s",
        fontsize=11,
        fontweight="bold",
    )
    return fig
