"""Figures of fault tolerance: a ring with one slow link, resuming from a checkpoint with and without each piece,
the timeline of one incident, and goodput over the checkpoint interval and over the cluster size."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import numpy as np
from matplotlib.figure import Figure
from matplotlib.ticker import FixedLocator, FuncFormatter, NullFormatter, NullLocator

from ..faults import checkpoint, reliability
from ..faults.incident import Incident
from ..faults.recovery import RecoveryExperiment
from ..faults.slowlink import RingLinkTiming
from ..units import HOUR, MINUTE, fmt_num, fmt_seconds
from ..validate import int_in_range, non_negative, positive
from ._style import PALETTE, new_figure

__all__ = [
    "goodput_vs_interval",
    "goodput_vs_scale",
    "incident_timeline",
    "recovery_curves",
    "slow_link_figure",
]

#: Colour and label of each resume scenario of :func:`clusterlab.faults.recovery.recovery_experiment`.
_SCENARIO_STYLE: Final = {
    "all": (PALETTE["sky"], "四件全部恢复"),
    "no_optimizer": (PALETTE["vermillion"], "丢了优化器状态"),
    "no_rng": (PALETTE["green"], "丢了 RNG 状态"),
    "no_data": (PALETTE["orange"], "丢了数据位置"),
}
_PHASE_STYLE: Final = {
    "detect": (PALETTE["vermillion"], "检测"),
    "locate": (PALETTE["orange"], "定位"),
    "restart": (PALETTE["purple"], "重启"),
    "load": (PALETTE["blue"], "加载"),
    "catch_up": (PALETTE["grey"], "追赶进度"),
}
_GOODPUT_STYLE: Final = (
    ("useful", PALETTE["green"], "有效训练"),
    ("save", PALETTE["blue"], "写 checkpoint"),
    ("lost_work", PALETTE["yellow"], "重算丢失的进度"),
    ("recovery", PALETTE["vermillion"], "恢复（MTTR）"),
)


def _minutes(seconds: float) -> str:
    return f"{fmt_num(seconds / MINUTE)} min"


# ------------------------------------------------------------------------------------------------------------
# a ring with one slow link
# ------------------------------------------------------------------------------------------------------------
def slow_link_figure(healthy: RingLinkTiming, degraded: RingLinkTiming) -> Figure:
    """Two panels for a ring all-reduce (:func:`clusterlab.faults.slowlink.ring_with_slow_link`).

    Left: for the ``degraded`` ring, every link's time spent transferring (busy) and waiting for the slowest link
    (idle), summed over all ``2(N−1)`` steps; the slowest link is marked. Right: total time of the ``healthy`` and
    the ``degraded`` ring. Both rings must have the same number of links. Returns a pyplot figure.
    """
    if not isinstance(healthy, RingLinkTiming) or not isinstance(degraded, RingLinkTiming):
        raise ValueError("healthy and degraded must be RingLinkTiming results of reliability.ring_with_slow_link")
    if healthy.link_times.shape != degraded.link_times.shape:
        raise ValueError(
            f"healthy and degraded must have the same shape, got {healthy.link_times.shape} and "
            f"{degraded.link_times.shape}"
        )
    n = degraded.link_times.shape[1]
    busy = degraded.busy_times
    total = degraded.total_time
    idle = degraded.idle_times
    scale = 1.0 if total >= 1 else 1e3
    unit = "s" if scale == 1.0 else "ms"

    fig = new_figure((9.6, 4.2))
    ax_l, ax_r = fig.subplots(1, 2, width_ratios=[2.2, 1])
    x = np.arange(n)
    slow = degraded.slowest_link
    colours = [PALETTE["vermillion"] if r == slow else PALETTE["blue"] for r in x]
    ax_l.bar(x, busy * scale, color=colours, label="传输（忙）", zorder=2)
    ax_l.bar(x, idle * scale, bottom=busy * scale, color=PALETTE["grey"], alpha=0.35, label="等最慢的链路（闲）",
             zorder=2)
    ax_l.annotate(
        "最慢的链路",
        xy=(slow, total * scale),
        xytext=(0, 8),
        textcoords="offset points",
        ha="center",
        va="bottom",
        fontsize=9,
        color=PALETTE["vermillion"],
    )
    fast = int(np.argmin(busy))
    share = float(idle[fast] / total)
    ax_l.text(fast, busy[fast] * scale + idle[fast] * scale / 2, f"闲 {fmt_num(100 * share)}%", ha="center",
              va="center", fontsize=9)
    ax_l.set_xticks(x, [f"{r}→{(r + 1) % n}" for r in x])
    ax_l.set_xlabel("链路（rank r → r+1）")
    ax_l.set_ylabel(f"一次 all-reduce 内的时间（{unit}）")
    ax_l.set_ylim(0, total * scale * 1.18)
    ax_l.grid(axis="x", visible=False)
    ax_l.legend(loc="upper left", ncols=2)
    ax_l.set_title("每条链路：忙着传输，还是在等", loc="left")

    times = [healthy.total_time, total]
    bars = ax_r.bar([0, 1], [t * scale for t in times], color=[PALETTE["green"], PALETTE["vermillion"]], zorder=2)
    for b, t in zip(bars, times, strict=True):
        ax_r.text(b.get_x() + b.get_width() / 2, t * scale, fmt_seconds(t), ha="center", va="bottom", fontsize=9)
    ax_r.set_xticks([0, 1], ["全部健康", "一条链路降速"])
    ax_r.set_ylim(0, total * scale * 1.18)
    ax_r.grid(axis="x", visible=False)
    ax_r.set_ylabel(f"总时间（{unit}）")
    ax_r.set_title(f"整个环慢了 {fmt_num(total / healthy.total_time)} 倍", loc="left")
    fig.suptitle(f"环形 all-reduce 上的一条慢链路（N = {n}）", fontsize=11, fontweight="bold")
    return fig


# ------------------------------------------------------------------------------------------------------------
# resuming with and without each piece
# ------------------------------------------------------------------------------------------------------------
def recovery_curves(experiment: RecoveryExperiment, *, window: int = 120) -> Figure:
    """Two panels for :func:`clusterlab.faults.recovery.recovery_experiment`.

    Left: full-data loss (log scale) of the uninterrupted run and of every resumed run; the dashed line marks the
    checkpoint. Right: loss divided by the uninterrupted loss for the first ``window`` steps after the resume (log
    scale); an exact resume is the line at 1. Returns a pyplot figure.
    """
    if not isinstance(experiment, RecoveryExperiment):
        raise ValueError("experiment must be a RecoveryExperiment (clusterlab.faults.recovery.recovery_experiment)")
    int_in_range("window", window, 2)
    k = experiment.save_step
    steps = np.arange(1, experiment.total + 1)
    fig = new_figure((9.6, 4.4))
    ax_l, ax_r = fig.subplots(1, 2)
    ax_l.plot(steps, experiment.baseline.loss, color=PALETTE["ink"], lw=1.0, label="不中断（基线）", zorder=3)
    names = [n for n in _SCENARIO_STYLE if n in experiment.resumed]
    for name in names:
        colour, label = _SCENARIO_STYLE[name]
        after = steps[k:]
        if name == "all":
            ax_l.plot(after, experiment.resumed[name].loss, color=colour, lw=2.6, alpha=0.6, ls=(0, (4, 2)),
                      label=label + "（逐位相同）", zorder=4)
        else:
            ax_l.plot(after, experiment.resumed[name].loss, color=colour, lw=1.0, alpha=0.9, label=label, zorder=2)
    ax_l.axvline(k, color=PALETTE["grey"], ls="--", lw=1.0)
    ax_l.text(k, 0.98, f" 第 {k} 步存盘并中断", transform=ax_l.get_xaxis_transform(), ha="left", va="top",
              fontsize=9, color=PALETTE["grey"])
    ax_l.set_yscale("log")
    ax_l.set_xlabel("训练步")
    ax_l.set_ylabel("全数据损失（对数轴）")
    ax_l.set_xlim(0, experiment.total)
    ax_l.legend(loc="lower left", fontsize=8.5)
    ax_l.set_title("损失曲线", loc="left")

    w = min(window, experiment.total - k)
    x = np.arange(k + 1, k + w + 1)
    base = experiment.baseline.loss[k : k + w]
    ratios = []
    for name in names:
        colour, label = _SCENARIO_STYLE[name]
        ratio = experiment.resumed[name].loss[:w] / base
        ratios.append(ratio)
        if name == "all":
            ax_r.plot(x, ratio, color=colour, lw=2.6, alpha=0.6, ls=(0, (4, 2)), label=label + "（恒为 1）", zorder=4)
        else:
            ax_r.plot(x, ratio, color=colour, lw=1.1, label=label, zorder=3)
    ax_r.axhline(1, color=PALETTE["ink"], lw=0.8)
    ax_r.set_yscale("log")
    if ratios:
        top = max(float(r.max()) for r in ratios)
        bottom = min(float(r.min()) for r in ratios)
        span = max(top, 1 / bottom, 1.5) * 1.3
        ax_r.set_ylim(1 / span, span)
        ticks = [2.0**e for e in range(-6, 7) if 1 / span <= 2.0**e <= span]
        ax_r.yaxis.set_major_locator(FixedLocator(ticks))
    ax_r.yaxis.set_major_formatter(FuncFormatter(lambda v, _pos: fmt_num(v, 2)))
    ax_r.yaxis.set_minor_formatter(NullFormatter())
    ax_r.set_xlim(k, k + w)
    ax_r.set_xlabel("训练步")
    ax_r.set_ylabel("损失 ÷ 基线损失（对数轴）")
    ax_r.legend(loc="upper right", fontsize=8.5)
    ax_r.set_title(f"中断后的 {w} 步：与不中断相比", loc="left")
    fig.suptitle("从 checkpoint 恢复：四件套缺一件会怎样", fontsize=11, fontweight="bold")
    return fig


# ------------------------------------------------------------------------------------------------------------
# one incident on a time line
# ------------------------------------------------------------------------------------------------------------
def incident_timeline(incidents: Sequence[tuple[str, Incident]]) -> Figure:
    """Horizontal bars, one per ``(label, Incident)``, split into detect, locate, restart, load and catch-up; the
    MTTR (first four) and the total are written at the end of each bar, minutes on the x-axis. Returns a figure."""
    items = list(incidents)
    if not items or not all(
        isinstance(it, tuple) and len(it) == 2 and isinstance(it[0], str) and isinstance(it[1], Incident)
        for it in items
    ):
        raise ValueError("incidents must be a non-empty sequence of (label, Incident) pairs")
    fig = new_figure((9.6, 1.3 + 0.75 * len(items)))
    ax = fig.subplots()
    longest = max(inc.total for _, inc in items) / MINUTE
    y = np.arange(len(items))[::-1]
    seen: set[str] = set()
    for yi, (_label, inc) in zip(y, items, strict=True):
        start = 0.0
        for name, seconds in inc.phases():
            colour, zh = _PHASE_STYLE[name]
            minutes = seconds / MINUTE
            ax.barh(yi, minutes, left=start, color=colour, height=0.55, label=None if name in seen else zh,
                    alpha=0.55 if name == "catch_up" else 0.9, zorder=2)
            seen.add(name)
            if minutes > 0.06 * longest:
                ax.text(start + minutes / 2, yi, fmt_num(minutes), ha="center", va="center", fontsize=8.5,
                        color="white" if name != "catch_up" else PALETTE["ink"])
            start += minutes
        ax.text(start + 0.01 * longest, yi, f"MTTR {_minutes(inc.mttr)}｜合计 {_minutes(inc.total)}", va="center",
                ha="left", fontsize=9)
    ax.set_yticks(y, [label for label, _ in items])
    ax.set_xlim(0, longest * 1.42)
    ax.set_xlabel("故障发生后的时间（分钟）；条内数字为各阶段分钟数")
    ax.grid(axis="y", visible=False)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.32 - 0.1 / len(items)), ncols=5, fontsize=9)
    ax.set_title("一次故障的时间线：检测 → 定位 → 重启 → 加载 → 追赶进度", loc="left")
    return fig


# ------------------------------------------------------------------------------------------------------------
# goodput
# ------------------------------------------------------------------------------------------------------------
def goodput_vs_interval(save_time: float, mtbf: float, mttr: float, *, intervals: Sequence[float] | None = None
                        ) -> Figure:
    """Stacked shares of wall time (:func:`clusterlab.faults.reliability.goodput`) over the checkpoint interval ``T``
    (log axis, minutes): useful, saving, lost work, recovery. Young's ``T* = sqrt(2δM)`` is marked. ``save_time``
    δ, ``mtbf`` M, ``mttr`` and ``intervals`` in seconds (default: 40 values from δ up to 2M, stopping short of
    the interval at which redone work plus MTTR use up the whole MTBF). Returns a figure."""
    d = positive("save_time", save_time)
    m = positive("mtbf", mtbf)
    r = non_negative("mttr", mttr)
    if intervals is None:
        # up to 2M, but short of the interval where redone work plus MTTR fill the whole MTBF (no progress left)
        upper = min(2 * m, 0.98 * (2 * (m - r) - d))
        if upper <= d:
            raise ValueError(f"mttr must leave room for progress: mttr + save_time/2 < mtbf, got mttr = {mttr!r}")
        ts = np.geomspace(d, upper, 40)
    else:
        ts = np.array([positive("intervals", t) for t in intervals], dtype=float)
        if ts.size < 2:
            raise ValueError("intervals must hold at least 2 values")
        ts = np.sort(ts)
    parts = [reliability.goodput(float(t), d, m, r) for t in ts]
    fig = new_figure((9.6, 4.2))
    ax = fig.subplots()
    ys = [np.array([getattr(p, key) for p in parts]) * 100 for key, _, _ in _GOODPUT_STYLE]
    ax.stackplot(ts / MINUTE, *ys, colors=[c for _, c, _ in _GOODPUT_STYLE], labels=[z for _, _, z in _GOODPUT_STYLE],
                 alpha=0.85, zorder=2)
    t_star = checkpoint.young_interval(d, m)
    best = reliability.goodput(t_star, d, m, r)
    ax.axvline(t_star / MINUTE, color=PALETTE["ink"], ls="--", lw=1.0)
    ax.annotate(
        f"Young：T* = {_minutes(t_star)}\n有效 {fmt_num(100 * best.useful)}%",
        xy=(t_star / MINUTE, 100 * best.useful),
        xytext=(12, -28),
        textcoords="offset points",
        fontsize=9,
        arrowprops={"arrowstyle": "->", "color": PALETTE["ink"], "lw": 0.8},
    )
    ax.set_xscale("log")
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _pos: fmt_num(v, 3)))
    ax.set_xlim(ts[0] / MINUTE, ts[-1] / MINUTE)
    ax.set_ylim(0, 100)
    ax.set_xlabel("checkpoint 间隔 T（分钟，对数轴）")
    ax.set_ylabel("占墙钟时间的比例（%）")
    ax.legend(loc="lower left", fontsize=9)
    ax.set_title(
        f"时间都去哪了：δ = {fmt_seconds(d)}，MTBF = {fmt_num(m / HOUR)} h，MTTR = {_minutes(r)}", loc="left"
    )
    return fig


def goodput_vs_scale(
    gpus_list: Sequence[int], rate_per_hour: float, save_time: float, mttrs: Sequence[float]
) -> Figure:
    """Useful share of wall time over the number of GPUs (log axis) for each MTTR in ``mttrs`` (s): the job MTBF is
    ``1/(G·λ)`` (:func:`clusterlab.faults.reliability.job_mtbf`) and every point checkpoints at Young's interval for its
    MTBF (:func:`clusterlab.faults.checkpoint.young_interval`). ``save_time`` δ in s. Returns a pyplot figure."""
    try:
        gs = sorted({int(g) for g in gpus_list})
    except (TypeError, ValueError):
        raise ValueError("gpus_list must be a sequence of integers >= 1") from None
    if len(gs) < 2 or gs[0] < 1:
        raise ValueError(f"gpus_list must hold at least 2 integers >= 1, got {list(gpus_list)!r}")
    lam = positive("rate_per_hour", rate_per_hour)
    d = positive("save_time", save_time)
    rs = [non_negative("mttrs", r) for r in mttrs]
    if not rs:
        raise ValueError("mttrs must hold at least one MTTR in seconds")
    colours = [PALETTE[c] for c in ("green", "blue", "orange", "vermillion", "purple", "sky")]
    fig = new_figure((9.6, 4.2))
    ax = fig.subplots()
    x = np.array(gs, dtype=float)
    for i, r in enumerate(rs):
        useful = []
        for g in gs:
            m = reliability.job_mtbf(g, lam)
            useful.append(100 * reliability.goodput(checkpoint.young_interval(d, m), d, m, r).useful)
        ax.plot(x, useful, "o-", ms=3.5, color=colours[i % len(colours)], label=f"MTTR = {_minutes(r)}", zorder=3)
    ax.set_xscale("log", base=2)
    ax.xaxis.set_major_locator(FixedLocator([float(g) for g in gs]))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.set_xticklabels([str(g) for g in gs])
    ax.set_xlabel("GPU 数（对数轴）")
    ax.set_ylabel("有效训练占墙钟时间（%）")
    ax.legend(loc="lower left", fontsize=9)
    ax.set_title(
        f"规模越大，MTTR 越值钱：λ = {lam:.3g} /GPU·h，δ = {fmt_seconds(d)}，间隔取 Young 最优", loc="left"
    )
    return fig
