"""The α-β cost model on a size axis: time of one call vs the message size (latency floor, bandwidth asymptote,
n* = αβ) and algbw / busbw vs the message size against the link speed. Every number comes from
:mod:`clusterlab.communication.collectives`; artists keep SI data and carry a ``gid`` (see each docstring)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Final

import numpy as np
import numpy.typing as npt
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from ..book import labels
from ..communication import collectives
from ..units import fmt_num
from ..validate import int_in_range, non_negative, positive
from ._axes import (
    _LINE_COLOURS,
    _PLAIN_ALGORITHMS,
    RANKS_MAX,
    _alg_name,
    _check_algorithm,
    _check_ranks_list,
    _check_sizes,
    _link_text,
    _log_bytes_axis,
    _log_time_axis,
    _scaled_axis,
    _size_text,
)
from ._style import PALETTE, byte_unit, new_figure

__all__ = ["busbw_curve", "time_vs_message_size"]

#: Most lines :func:`time_vs_message_size` draws (one colour each).
LINES_MAX: Final = 6


def _latency_and_per_byte(op: str, ranks: int, latency: float, bandwidth: float, algorithm: str) -> tuple[float, float]:
    """(latency term in s, bandwidth term per byte in s/B) of the α-β cost of a one-byte call."""
    c = collectives.cost(op, 1.0, ranks, latency, bandwidth, algorithm)
    return c.latency, c.bandwidth


def time_vs_message_size(
    ranks_list: Sequence[int],
    latency: float,
    bandwidth: float,
    *,
    op: str = "all_reduce",
    algorithm: str = "ring",
    sizes: Sequence[float] | npt.NDArray[np.floating[Any]] | None = None,
) -> Figure:
    """Log-log α-β time of one ``op`` call vs the message size S, one curve per N in ``ranks_list``.

    Each curve (:func:`clusterlab.communication.collectives.alpha_beta_time`, gid ``time-N{N}``) lies on its latency
    floor
    ``steps·α`` for small S (dashed, gid ``latency-N{N}``) and on its bandwidth asymptote ``bytes/β`` for
    large S (dotted, gid ``bandwidth-N{N}``); the dot (gid ``equal-N{N}``) marks the size where the two terms
    are equal (ring all-reduce: ``S = N·α·β``). The vertical line (gid ``n-star``) is the single-message
    crossover ``n* = α·β`` (:func:`clusterlab.communication.collectives.crossover_size`).

    ``ranks_list``: up to 6 integers 2 … 2²⁰; ``latency`` α > 0 in s; ``bandwidth`` β > 0 in B/s per
    direction; ``algorithm`` one of ring, naive, tree, halving_doubling (modelled for ``op``); ``sizes`` in
    bytes (default 1 KB … 10 GB). Returns a pyplot figure.
    """
    ns = _check_ranks_list(ranks_list, "ranks_list", LINES_MAX)
    alpha = positive("latency", latency)
    beta = positive("bandwidth", bandwidth)
    op = collectives.check_op(op)
    algorithm = _check_algorithm(algorithm, op, _PLAIN_ALGORITHMS)
    s = _check_sizes(sizes)
    n_star = collectives.crossover_size(alpha, beta)

    fig = new_figure((9.6, 5.8))
    ax = fig.subplots()
    t_min, t_max = math.inf, 0.0
    for colour, n in zip(_LINE_COLOURS, ns, strict=False):
        t = np.array([collectives.alpha_beta_time(op, x, n, alpha, beta, algorithm) for x in s])
        lat, per_byte = _latency_and_per_byte(op, n, alpha, beta, algorithm)
        s_eq = lat / per_byte
        t_min, t_max = min(t_min, float(t.min())), max(t_max, float(t.max()))
        ax.plot(s, t, color=colour, lw=2.2, gid=f"time-N{n}", zorder=3,
                label=f"N = {n}：两项相等于 S = {_size_text(s_eq)}")
        left = s <= s_eq * 6
        right = s >= s_eq / 6
        if left.any():
            ax.plot(s[left], np.full(int(left.sum()), lat), color=colour, ls=(0, (5, 3)), lw=1.0, alpha=0.8,
                    gid=f"latency-N{n}", zorder=2)
        if right.any():
            ax.plot(s[right], per_byte * s[right], color=colour, ls=":", lw=1.3, alpha=0.9,
                    gid=f"bandwidth-N{n}", zorder=2)
        t_eq = collectives.alpha_beta_time(op, s_eq, n, alpha, beta, algorithm)
        ax.plot([s_eq], [t_eq], "o", ms=7, mfc="white", mec=colour, mew=1.8, gid=f"equal-N{n}", zorder=4)

    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(s[0], s[-1])
    ax.set_ylim(t_min / 2.5, t_max * 2.5)
    _log_bytes_axis(ax.xaxis)
    _log_time_axis(ax.yaxis)
    ax.set_xlabel("消息大小 S（每个 rank 的缓冲区，字节，对数轴）")
    ax.set_ylabel("一次调用的 α-β 时间（对数轴）")

    if s[0] < n_star < s[-1]:
        ax.axvline(n_star, color=PALETTE["grey"], ls="-.", lw=1.0, gid="n-star", zorder=1)
        ax.annotate(f"n* = α·β = {_size_text(n_star)}\n单条消息：延迟 = 传输", xy=(n_star, 1.0),
                    xycoords=("data", "axes fraction"), xytext=(5, -5), textcoords="offset points",
                    ha="left", va="top", fontsize=8.5, color=PALETTE["grey"])
    ax.text(0.015, 0.985, "← 延迟主导 latency-bound\nT ≈ 步数 × α，几乎不随 S 变", transform=ax.transAxes,
            ha="left", va="top", fontsize=9, color=PALETTE["ink"],
            bbox={"boxstyle": "round,pad=0.3", "fc": "white", "ec": "none", "alpha": 0.85})
    ax.text(0.985, 0.03, "带宽主导 bandwidth-bound →\nT ≈ 关键链路字节 / β，随 S 线性增长", transform=ax.transAxes,
            ha="right", va="bottom", fontsize=9, color=PALETTE["ink"],
            bbox={"boxstyle": "round,pad=0.3", "fc": "white", "ec": "none", "alpha": 0.85})

    curves = ax.legend(loc="upper left", bbox_to_anchor=(0.0, 0.86), title="实线：α-β 时间 T(S)", fontsize=8.5,
                       title_fontsize=8.5, alignment="left")
    ax.add_artist(curves)
    grey = PALETTE["grey"]
    style = [
        Line2D([], [], color=grey, ls=(0, (5, 3)), lw=1.0, label="虚线：延迟下限 latency floor（S = 0 的时间）"),
        Line2D([], [], color=grey, ls=":", lw=1.3, label="点线：带宽渐近线 bandwidth asymptote（α = 0）"),
        Line2D([], [], color=grey, ls="", marker="o", mfc="white", mec=grey, label="圆点：延迟项 = 带宽项"),
    ]
    ax.legend(handles=style, loc="lower right", bbox_to_anchor=(1.0, 0.13), fontsize=8.5)
    fig.suptitle(
        f"{labels.op_name(op)}（{_alg_name[algorithm]}）的时间与消息大小\n{_link_text(alpha, beta)}",
        fontsize=11, fontweight="bold",
    )
    return fig




def busbw_curve(
    op: str,
    ranks: int,
    latency: float,
    bandwidth: float,
    *,
    sizes: Sequence[float] | npt.NDArray[np.floating[Any]] | None = None,
    algorithm: str = "ring",
) -> Figure:
    """algbw ``S/t`` and busbw ``algbw × busbw_factor(op, N)`` (nccl-tests) vs the message size, with t the
    α-β time (:func:`clusterlab.communication.collectives.alpha_beta_time`,
    :func:`~clusterlab.communication.collectives.algbw`,
    :func:`~clusterlab.communication.collectives.busbw`).

    For a bandwidth-optimal algorithm busbw climbs to the per-direction link speed β (dashed, gid ``beta``)
    while algbw levels off at ``β / factor`` (dotted, gid ``algbw-limit``). Lines: gid ``algbw`` and
    ``busbw``, data in B/s. ``latency`` α ≥ 0 in s (0 is allowed: then both curves are flat),
    ``bandwidth`` β > 0 in B/s, ``algorithm`` one of ring, naive, tree, halving_doubling. Returns a pyplot
    figure.
    """
    op = collectives.check_op(op)
    n = int_in_range("ranks", ranks, 2, RANKS_MAX)
    alpha = non_negative("latency", latency)
    beta = positive("bandwidth", bandwidth)
    algorithm = _check_algorithm(algorithm, op, _PLAIN_ALGORITHMS)
    s = _check_sizes(sizes)
    t = np.array([collectives.alpha_beta_time(op, x, n, alpha, beta, algorithm) for x in s])
    alg = np.array([collectives.algbw(x, ti) for x, ti in zip(s, t, strict=True)])
    bus = np.array([collectives.busbw(op, x, n, ti) for x, ti in zip(s, t, strict=True)])
    factor = collectives.busbw_factor(op, n)
    # what algbw tends to for S → ∞: the bandwidth term alone
    alg_limit = collectives.algbw(1.0, collectives.cost(op, 1.0, n, alpha, beta, algorithm).bandwidth)

    fig = new_figure((9.6, 5.2))
    ax = fig.subplots()
    ax.plot(s, bus, color=PALETTE["vermillion"], lw=3.4, gid="busbw", zorder=3,
            label=f"busbw = algbw × {labels.BUSBW_FORMULA[op]} = algbw × {fmt_num(factor)}")
    ax.plot(s, alg, color=PALETTE["blue"], lw=1.8, gid="algbw", zorder=4, label="algbw = S / t")
    ax.axhline(beta, color=PALETTE["ink"], ls="--", lw=1.2, gid="beta",
               label=f"链路速度 β = {_size_text(beta)}/s（每方向）")
    ax.axhline(alg_limit, color=PALETTE["blue"], ls=":", lw=1.2, gid="algbw-limit",
               label=f"algbw 的上限 = {_size_text(alg_limit)}/s（只剩带宽项）")
    top = max(beta, alg_limit, float(bus.max()), float(alg.max()))
    ax.set_ylim(0, top * 1.32)
    ax.set_xscale("log")
    ax.set_xlim(s[0], s[-1])
    _log_bytes_axis(ax.xaxis)
    unit = byte_unit(top)
    _scaled_axis(ax.yaxis, {"B": 1.0, "KB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12}[unit])
    ax.set_ylabel(f"带宽（{unit}/s）")
    ax.set_xlabel("消息大小 S（每个 rank 的缓冲区，字节，对数轴）")
    ax.legend(loc="upper left", fontsize=8.5)
    if algorithm == "ring" and op in ("all_reduce", "reduce_scatter", "all_gather"):
        note = ("algbw 只数“用户数据 S”；环形算法每个 rank 实际发送 S × " + labels.BUSBW_FORMULA[op]
                + "，\n所以 busbw 才是与链路速度 β 对比的数")
    else:
        note = "busbw = algbw × nccl-tests 的系数；\n只有带宽最优的算法才能让 busbw 接近 β"
    ax.text(0.015, 0.68, note, transform=ax.transAxes, ha="left", va="top", fontsize=8.5,
            color=PALETTE["ink"], bbox={"boxstyle": "round,pad=0.3", "fc": "white", "ec": "none", "alpha": 0.9})
    fig.suptitle(
        f"{labels.op_name(op)}（{_alg_name[algorithm]}）的 algbw 与 busbw：N = {n}\n{_link_text(alpha, beta)}",
        fontsize=11, fontweight="bold",
    )
    return fig
