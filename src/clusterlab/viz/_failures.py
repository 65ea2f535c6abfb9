"""Charts of §9.6.4: how the MTBF of a synchronous job falls with the number of GPUs, for every failure rate in
:data:`clusterlab.reliability.FAILURE_DATA`, and how much wall time failures plus checkpoints cost at the best
checkpoint interval."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator

from .. import checkpoint, reliability
from ..reliability import HOUR, FailureSource
from ..units import check_nonnegative, check_positive, fmt_num, fmt_seconds
from ._style import PALETTE, ensure_setup

__all__ = ["failure_overhead_vs_gpus", "mtbf_vs_gpus"]

#: The rank counts of the original text's table.
SEED_COMPONENTS: Final = (8, 512, 8192, 16384)
#: Largest G drawn (Kokolis et al. project RSC-1 to 131 072 GPUs).
G_MAX: Final = 1 << 20

_COLOURS: Final = {
    "seed": PALETTE["grey"],
    "llama3": PALETTE["blue"],
    "opt175b": PALETTE["vermillion"],
    "rsc1": PALETTE["green"],
    "rsc2": PALETTE["purple"],
}
_EXTRA_COLOURS: Final = (PALETTE["orange"], PALETTE["sky"], PALETTE["ink"])
#: Horizontal reference lines of the MTBF chart: (hours, label).
_REFERENCES: Final = ((1.0, "1 小时"), (24.0, "1 天"), (168.0, "1 周"))


def _new_figure(figsize: tuple[float, float]) -> Figure:
    ensure_setup()
    import matplotlib.pyplot as plt

    return plt.figure(figsize=figsize, layout="constrained")


def _sources(keys: Sequence[str] | None) -> list[FailureSource]:
    if keys is None:
        return list(reliability.FAILURE_DATA)
    if isinstance(keys, str):
        raise ValueError("keys must be a sequence of source keys, not a single string")
    out = [reliability.failure_source(k) for k in keys]  # raises ValueError naming the allowed keys
    if not out:
        raise ValueError("keys must name at least one source of reliability.FAILURE_DATA")
    return out


def _check_components(components: Sequence[int], name: str = "components") -> list[int]:
    try:
        items = list(components)
    except TypeError:
        raise ValueError(f"{name} must be a sequence of integers in 1 … {G_MAX}") from None
    for v in items:
        if isinstance(v, bool) or not isinstance(v, int | np.integer) or not 1 <= v <= G_MAX:
            raise ValueError(f"{name} must hold integers in 1 … {G_MAX}, got {v!r}")
    return sorted({int(v) for v in items})


def _check_range(g_range: tuple[int, int]) -> tuple[int, int]:
    message = f"g_range must be two integers 1 <= lo < hi <= {G_MAX}, got {g_range!r}"
    try:
        items = tuple(g_range)
    except TypeError:
        raise ValueError(message) from None
    if len(items) != 2 or any(isinstance(v, bool) or not isinstance(v, int | np.integer) for v in items):
        raise ValueError(message)
    lo, hi = int(items[0]), int(items[1])
    if not 1 <= lo < hi <= G_MAX:
        raise ValueError(message)
    return lo, hi


def _label(src: FailureSource) -> str:
    rate = f"λ = {_sci(src.rate)} /GPU·h"
    if src.key == "seed":
        return f"{src.label}：{rate}"
    return f"{src.label}：{rate}" + ("" if src.verified else "（需核实）")


def _sci(x: float) -> str:
    """``1.97×10⁻⁵`` for prose-like labels."""
    mantissa, exponent = f"{x:.2e}".split("e")
    sup = str(int(exponent)).translate(str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻"))
    m = mantissa.rstrip("0").rstrip(".")
    return f"{m}×10{sup}"


def _style_of(src: FailureSource, i: int) -> dict[str, object]:
    colour = _COLOURS.get(src.key, _EXTRA_COLOURS[i % len(_EXTRA_COLOURS)])
    if src.key == "seed":
        return {"color": colour, "ls": (0, (6, 3)), "lw": 1.6}
    return {"color": colour, "ls": "-" if src.verified else (0, (2, 2)), "lw": 1.8}


def _g_axis(ax: Axes, lo: int, hi: int, marked: Sequence[int]) -> None:
    ax.set_xscale("log", base=2)
    ax.set_xlim(lo / 1.4, hi * 1.4)
    # powers of 8 and the range ends, but none crowding a marked value (within a factor 2.5)
    inside = [g for g in marked if lo <= g <= hi]
    base = {1 << k for k in range(0, 21, 3)} | {lo, hi}
    ticks = sorted({t for t in base if lo <= t <= hi and all(not 1 / 2.5 < t / m < 2.5 for m in inside)} | set(inside))
    ax.xaxis.set_major_locator(FixedLocator([float(t) for t in ticks]))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _pos: fmt_num(v, 7)))
    ax.set_xlabel("同步作业用到的 GPU 数 G（对数轴）")


def mtbf_vs_gpus(
    components: Sequence[int] = SEED_COMPONENTS,
    *,
    g_range: tuple[int, int] = (1, 131072),
    keys: Sequence[str] | None = None,
) -> Figure:
    """Job MTBF ``1/(G·λ)`` in hours against G on log–log axes, one line per failure source.

    Lines come from :func:`clusterlab.reliability.job_mtbf` for every source of
    :data:`~clusterlab.reliability.FAILURE_DATA` (``keys`` selects some): solid for sources read in the primary
    text, dotted and marked 需核实 for the others, the original text's assumption dashed grey with open circles at
    ``components`` (its table). Llama 3's observed point (16 384 GPUs) is a star, and an arrow shows how far the
    assumed rate misses it there. Horizontal reference lines at 1 hour, 1 day and 1 week. ``g_range`` bounds
    the x-axis (integers 1 … 2²⁰). Returns a pyplot figure.
    """
    marked = _check_components(components)
    lo, hi = _check_range(g_range)
    sources = _sources(keys)
    g = np.unique(np.geomspace(lo, hi, 120).round().astype(int))
    fig = _new_figure((9.6, 5.6))
    ax = fig.subplots()
    ax.set_yscale("log")
    y_all: list[float] = []
    by_key: dict[str, FailureSource] = {}
    for i, src in enumerate(sources):
        mtbf_h = np.array([reliability.job_mtbf(int(x), src.rate) / HOUR for x in g])
        y_all += [float(mtbf_h.min()), float(mtbf_h.max())]
        ax.plot(g, mtbf_h, label=_label(src), zorder=3, **_style_of(src, i))  # type: ignore[arg-type]
        by_key[src.key] = src
        pts = [x for x in marked if lo <= x <= hi]
        if pts:
            ys = [reliability.job_mtbf(x, src.rate) / HOUR for x in pts]
            face = "white" if src.key == "seed" else _style_of(src, i)["color"]
            ax.plot(pts, ys, "o", ms=5.5 if src.key == "seed" else 3.5, mfc=face,
                    mec=_style_of(src, i)["color"], mew=1.3, zorder=4, ls="none")
        if src.key == "seed":
            for x in pts:
                y = reliability.job_mtbf(x, src.rate) / HOUR
                ax.annotate(_fmt_hours(y), xy=(x, y), xytext=(5, 4), textcoords="offset points", fontsize=8,
                            color=PALETTE["grey"], ha="left", va="bottom")

    for hours, text in _REFERENCES:
        ax.axhline(hours, color=PALETTE["ink"], lw=0.8, ls=(0, (1, 2)), zorder=1)
        ax.text(lo / 1.3, hours * 1.08, text, fontsize=8.5, color=PALETTE["ink"], ha="left", va="bottom")

    if "llama3" in by_key and lo <= 16384 <= hi:
        obs = reliability.job_mtbf(16384, by_key["llama3"].rate) / HOUR
        ax.plot([16384], [obs], marker="*", ms=13, color=PALETTE["blue"], mec="white", mew=0.8, zorder=5,
                ls="none", label=f"Llama 3 实测：16 384 卡，每 {fmt_num(obs, 3)} h 一次非计划中断")
        if "seed" in by_key:
            assumed = reliability.job_mtbf(16384, by_key["seed"].rate) / HOUR
            ax.annotate("", xy=(16384 * 1.18, obs * 1.12), xytext=(16384 * 1.18, assumed / 1.12),
                        arrowprops={"arrowstyle": "->", "color": PALETTE["ink"], "lw": 1.2})
            ax.text(16384 * 1.3, (obs * assumed) ** 0.5, f"÷{fmt_num(assumed / obs, 2)}", fontsize=9,
                    color=PALETTE["ink"], ha="left", va="center", fontweight="bold")

    y_lo = min([*y_all, 1.0]) / 2.5
    y_hi = max([*y_all, 168.0]) * 3
    ax.set_ylim(y_lo, y_hi)
    ax.set_ylabel("作业 MTBF = 1/(Gλ)（小时，对数轴）")
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _pos: fmt_num(v, 3)))
    _g_axis(ax, lo, hi, marked)
    ax.grid(which="minor", visible=False)
    ax.legend(loc="upper right", fontsize=9)
    ax.set_title("同步作业的平均无故障时间随 GPU 数成反比下降", loc="left")
    return fig


def _fmt_hours(h: float) -> str:
    return f"{fmt_num(h, 3)} h"


def failure_overhead_vs_gpus(
    save_time: float,
    restart_time: float,
    *,
    g_range: tuple[int, int] = (8, 131072),
    keys: Sequence[str] | None = None,
    components: Sequence[int] = SEED_COMPONENTS,
    target: float | None = 0.10,
) -> Figure:
    """Share of wall time lost to checkpoints, redone work and restarts at the best interval, against G.

    For each source and G: ``M = job_mtbf(G, λ)``, Daly's interval ``T*`` (:func:`clusterlab.checkpoint.
    daly_interval`) and the exact expected loss for exponential failures
    (:func:`clusterlab.checkpoint.expected_wasted_fraction`, always below 100 %), in percent. ``save_time`` δ and
    ``restart_time`` R in seconds. Points at ``components``; ``target`` (a fraction, or None) draws a horizontal
    line, by default 10 % (90 % effective training time). Returns a pyplot figure.
    """
    d = check_nonnegative("save_time", save_time)
    r = check_nonnegative("restart_time", restart_time)
    if target is not None and not 0 < check_positive("target", target) < 1:
        raise ValueError(f"target must be a fraction in (0, 1) or None, got {target!r}")
    marked = _check_components(components)
    lo, hi = _check_range(g_range)
    sources = _sources(keys)
    g = np.unique(np.geomspace(lo, hi, 120).round().astype(int))

    def lost(gpus: int, rate: float) -> float:
        m = reliability.job_mtbf(gpus, rate)
        return 100 * checkpoint.expected_wasted_fraction(checkpoint.daly_interval(d, m), d, m, r)

    fig = _new_figure((9.6, 5.0))
    ax = fig.subplots()
    for i, src in enumerate(sources):
        style = _style_of(src, i)
        ax.plot(g, [lost(int(x), src.rate) for x in g], label=_label(src), zorder=3, **style)  # type: ignore[arg-type]
        pts = [x for x in marked if lo <= x <= hi]
        if pts:
            face = "white" if src.key == "seed" else style["color"]
            ax.plot(pts, [lost(x, src.rate) for x in pts], "o", ms=4, mfc=face, mec=style["color"], mew=1.2,
                    zorder=4, ls="none")
    if target is not None:
        ax.axhline(100 * target, color=PALETTE["ink"], lw=0.9, ls=(0, (1, 2)), zorder=1)
        ax.text(lo / 1.3, 100 * target + 1.2, f"损失 {fmt_num(100 * target, 3)}%（有效训练时间 "
                f"{fmt_num(100 * (1 - target), 3)}%）", fontsize=8.5, color=PALETTE["ink"], ha="left", va="bottom")
    ax.set_ylim(0, 100)
    ax.set_ylabel("最优间隔下损失的墙钟时间（%）")
    _g_axis(ax, lo, hi, marked)
    ax.legend(loc="upper left", fontsize=9)
    ax.set_title(f"故障 + 保存的代价：保存 δ = {fmt_seconds(d)}，重启 R = {fmt_seconds(r)}，Daly 间隔",
                 loc="left")
    return fig
