"""Static charts of collective traffic: naive vs ring load per rank, ring volume and α-β time vs N."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

import numpy as np
from matplotlib.figure import Figure
from matplotlib.ticker import FixedLocator, NullLocator

from .. import collectives
from ..units import GB, check_nonnegative, check_positive, fmt_bytes, fmt_num, fmt_seconds
from ._style import PALETTE, setup, time_unit

__all__ = ["RankTraffic", "naive_vs_ring_load", "rank_traffic", "volume_and_time_vs_ranks"]

#: Largest N the per-rank bar chart draws (one group of bars per rank).
LOAD_RANKS_MAX: Final = 32
_NAMES: Final = {"naive": "朴素（汇聚到 rank 0 再广播）", "ring": "环形 all-reduce"}


@dataclass(frozen=True)
class RankTraffic:
    """Bytes each rank sends and receives in one all-reduce of ``size`` bytes per rank.

    ``ring``: every rank sends and receives ``2S(N−1)/N``. ``naive``: rank 0 (the root) receives ``S`` from
    each of the other ``N−1`` ranks, reduces, and sends each of them the result: ``S(N−1)`` each way; every
    other rank sends ``S`` and receives ``S``. Busiest rank and link totals agree with
    :func:`clusterlab.collectives.traffic` (``send_max``, ``recv_max``, ``total``).
    """

    algorithm: str
    size: float
    ranks: int
    sent: tuple[float, ...]
    received: tuple[float, ...]


def rank_traffic(size: float, ranks: int, algorithm: str = "ring") -> RankTraffic:
    """Per-rank bytes sent and received by all-reduce under ``algorithm`` ("ring" or "naive")."""
    if algorithm not in collectives.ALGORITHMS:
        raise ValueError(f"algorithm must be one of {', '.join(collectives.ALGORITHMS)}; got {algorithm!r}")
    t = collectives.traffic("all_reduce", size, ranks, algorithm)  # validates size and ranks
    n, s = t.ranks, t.size
    if algorithm == "ring":
        sent = tuple(2 * s * (n - 1) / n for _ in range(n))
        received = sent
    else:
        sent = (s * (n - 1),) + (s,) * (n - 1)
        received = sent
    return RankTraffic(algorithm, s, n, sent, received)


def _new_figure(figsize: tuple[float, float]) -> Figure:
    setup()
    import matplotlib.pyplot as plt

    return plt.figure(figsize=figsize, layout="constrained")


def naive_vs_ring_load(size: float, ranks: int) -> Figure:
    """Bar chart per rank: bytes sent (left) and received (right) by one all-reduce of ``size`` bytes per
    rank on ``ranks`` ranks, naive (through rank 0) next to ring. Bytes in GB (1 GB = 10⁹ B).

    The naive root carries ``S(N−1)`` in each direction, the ring spreads ``2S(N−1)/N < 2S`` evenly.
    ``ranks`` in 2 … 32. Returns a pyplot figure.
    """
    s = check_positive("size", size)
    if isinstance(ranks, bool) or not isinstance(ranks, int | np.integer) or not 2 <= ranks <= LOAD_RANKS_MAX:
        raise ValueError(f"ranks must be an integer in 2 … {LOAD_RANKS_MAX}, got {ranks!r}")
    n = int(ranks)
    naive = rank_traffic(s, n, "naive")
    ring = rank_traffic(s, n, "ring")
    fig = _new_figure((9.6, 4.4))
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
            if n <= 8:
                for xi, v in zip(x, vals, strict=True):
                    ax.text(xi + offset, v + top * 0.015, fmt_num(v), ha="center", va="bottom", fontsize=7.5,
                            rotation=90 if n > 4 else 0)
        ax.set_title(f"每个 rank 的{zh}量", loc="left")
        ax.set_xlabel("rank")
        ax.set_xticks(x, [str(i) if n <= 16 or i % 4 == 0 else "" for i in x])
        ax.grid(axis="x", visible=False)
        ax.set_ylim(0, top * 1.22)
        ax.annotate(
            f"根：S(N−1) = {fmt_bytes(s * (n - 1))}",
            xy=(-width / 2, s * (n - 1) / GB),
            xytext=(0.28, 0.9),
            textcoords="axes fraction",
            fontsize=8.5,
            color=PALETTE["vermillion"],
            arrowprops={"arrowstyle": "->", "color": PALETTE["vermillion"], "lw": 0.8},
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
    for v in items:
        if isinstance(v, bool) or not isinstance(v, int | np.integer) or v < 2:
            raise ValueError(f"ranks_list must hold integers >= 2, got {v!r}")
    out = sorted({int(v) for v in items})
    if out[-1] > 1 << 20:
        raise ValueError(f"ranks_list values must be <= {1 << 20}, got {out[-1]}")
    return out


def volume_and_time_vs_ranks(
    size: float, ranks_list: Sequence[int], latency: float, bandwidth: float
) -> Figure:
    """Two panels over N (log x-axis) for ring all-reduce of ``size`` bytes per rank.

    Left: per-rank send volume ``2S(N−1)/N`` (:func:`clusterlab.collectives.send_volume`), flat and
    approaching ``2S`` (dashed). Right: α-β time (:func:`clusterlab.collectives.alpha_beta_time`) stacked as
    bandwidth term ``2S(N−1)/(Nβ)`` and latency term ``2(N−1)α``. ``latency`` α ≥ 0 in s, ``bandwidth`` β > 0
    in B/s per direction. Returns a pyplot figure.
    """
    s = check_positive("size", size)
    ns = _check_ranks_list(ranks_list)
    alpha = check_nonnegative("latency", latency)
    beta = check_positive("bandwidth", bandwidth)
    vol = np.array([collectives.send_volume("all_reduce", s, n) for n in ns])
    total = np.array([collectives.alpha_beta_time("all_reduce", s, n, alpha, beta) for n in ns])
    lat = np.array([collectives.steps("all_reduce", n) * alpha for n in ns])
    bw = total - lat
    x = np.array(ns, dtype=float)

    fig = _new_figure((9.6, 4.2))
    ax_v, ax_t = fig.subplots(1, 2)
    ax_v.plot(x, vol / GB, "o-", color=PALETTE["blue"], label="每个 rank 发送 2S(N−1)/N", zorder=3)
    ax_v.axhline(2 * s / GB, color=PALETTE["ink"], ls="--", lw=1.0, label=f"2S = {fmt_bytes(2 * s)}")
    ax_v.set_ylim(0, 2 * s / GB * 1.18)
    ax_v.set_title("每个 rank 的发送量几乎不随 N 变", loc="left")
    ax_v.set_ylabel("字节（GB）")
    ax_v.legend(loc="lower right")

    scale, unit = time_unit(float(total.max()))
    ax_t.stackplot(x, bw / scale, lat / scale, colors=[PALETTE["sky"], PALETTE["orange"]],
                   labels=["带宽项 2S(N−1)/(Nβ)", "延迟项 2(N−1)α"], alpha=0.85, zorder=2)
    ax_t.plot(x, total / scale, "o-", color=PALETTE["ink"], lw=1.2, ms=3.5, label="总时间", zorder=3)
    ax_t.set_ylim(0, float(total.max()) / scale * 1.15)
    ax_t.set_title("α-β 时间：N 大时延迟项占上风", loc="left")
    ax_t.set_ylabel(f"时间（{unit}）")
    ax_t.legend(loc="upper left")

    for ax in (ax_v, ax_t):
        ax.set_xlabel("rank 数 N（对数轴）")
        if len(ns) > 1:
            ax.set_xscale("log", base=2)
            ax.set_xlim(x[0] / 1.25, x[-1] * 1.25)
        ticks = ns if len(ns) <= 12 else ns[:: max(1, len(ns) // 8)]
        ax.xaxis.set_major_locator(FixedLocator([float(t) for t in ticks]))
        ax.xaxis.set_minor_locator(NullLocator())
        ax.set_xticklabels([str(t) for t in ticks])
    fig.suptitle(
        f"环形 all-reduce：S = {fmt_bytes(s)}，α = {fmt_seconds(alpha)}，β = {fmt_bytes(beta)}/s",
        fontsize=11,
        fontweight="bold",
    )
    return fig
