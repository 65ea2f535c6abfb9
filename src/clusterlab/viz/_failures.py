"""Charts of failures at scale (§9.6.3, §9.6.4): how the MTBF of a synchronous job falls with the number of GPUs,
for every failure rate in :data:`clusterlab.faults.reliability.FAILURE_DATA`; how much wall time failures plus
checkpoints cost at the best checkpoint interval; how the optimal interval and its waste change with scale."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Final

import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator

from ..faults import checkpoint, reliability
from ..faults.reliability import FailureSource
from ..units import HOUR, fmt_num, fmt_seconds
from ..validate import fraction, int_in_range, non_negative, positive
from ._checkpoint import _log_axis, _pct
from ._style import PALETTE, new_figure

__all__ = ["checkpoint_interval_vs_scale", "failure_overhead_vs_gpus", "mtbf_vs_gpus"]

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
    return sorted({int_in_range(name, v, 1, G_MAX) for v in items})


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

    Lines come from :func:`clusterlab.faults.reliability.job_mtbf` for every source of
    :data:`~clusterlab.faults.reliability.FAILURE_DATA` (``keys`` selects some): solid for sources read in the primary
    text, dotted and marked 需核实 for the others, the original text's assumption dashed grey with open circles at
    ``components`` (its table). Llama 3's observed point (16 384 GPUs) is a star, and an arrow shows how far the
    assumed rate misses it there. Horizontal reference lines at 1 hour, 1 day and 1 week. ``g_range`` bounds
    the x-axis (integers 1 … 2²⁰). Returns a pyplot figure.
    """
    marked = _check_components(components)
    lo, hi = _check_range(g_range)
    sources = _sources(keys)
    g = np.unique(np.geomspace(lo, hi, 120).round().astype(int))
    fig = new_figure((9.6, 5.6))
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

    For each source and G: ``M = job_mtbf(G, λ)``, Daly's interval ``T*`` (:func:`clusterlab.faults.checkpoint.
    daly_interval`) and the exact expected loss for exponential failures
    (:func:`clusterlab.faults.checkpoint.expected_wasted_fraction`, always below 100 %), in percent. ``save_time`` δ and
    ``restart_time`` R in seconds. Points at ``components``; ``target`` (a fraction, or None) draws a horizontal
    line, by default 10 % (90 % effective training time). Returns a pyplot figure.
    """
    d = non_negative("save_time", save_time)
    r = non_negative("restart_time", restart_time)
    if target is not None:
        fraction("target", target, low_open=True, high_open=True)
    marked = _check_components(components)
    lo, hi = _check_range(g_range)
    sources = _sources(keys)
    g = np.unique(np.geomspace(lo, hi, 120).round().astype(int))

    def lost(gpus: int, rate: float) -> float:
        return 100 * checkpoint.daly_wasted_fraction(d, reliability.job_mtbf(gpus, rate), r)

    fig = new_figure((9.6, 5.0))
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


# --------------------------------------------------------------------------------------------------------
# checkpoint interval vs scale
# --------------------------------------------------------------------------------------------------------
def _check_rates(rates: Mapping[str, float]) -> list[tuple[str, float]]:
    if not isinstance(rates, Mapping):
        raise ValueError("rates must be a mapping {label: failures per GPU-hour}")
    if not 1 <= len(rates) <= 8:
        raise ValueError(f"rates must hold 1 … 8 failure rates, got {len(rates)}")
    out: list[tuple[str, float]] = []
    for label, rate in rates.items():
        if not isinstance(label, str):
            raise ValueError(f"rates keys must be str labels, got {label!r}")
        out.append((label, positive(f"rates[{label!r}]", rate)))
    return out


def _check_gpus(gpus: Sequence[int]) -> list[int]:
    try:
        items = list(gpus)
    except TypeError:
        raise ValueError("gpus must be a sequence of integers >= 1") from None
    if len(items) < 2:
        raise ValueError(f"gpus must hold at least 2 GPU counts, got {len(items)}")
    return sorted({int_in_range("gpus", v, 1, 1 << 24) for v in items})


def checkpoint_interval_vs_scale(
    save_time: float,
    rates: Mapping[str, float],
    gpus: Sequence[int],
    restart_time: float = 0.0,
    *,
    reference_mtbf: float | None = None,
    highlight_gpus: int | None = None,
) -> Figure:
    """How the optimal interval and the unavoidable waste change with the number of GPUs.

    For each ``label → rate`` (failures per GPU-hour, 1 … 8 entries) the job MTBF is
    :func:`clusterlab.faults.reliability.job_mtbf` ``(G, rate)``; left: Young's ``T* = sqrt(2δM)`` (h, log-log), right:
    ``W(T*) = sqrt(2δ/M) + R/M`` (%, capped at 100 %). ``gpus``: at least 2 GPU counts. ``reference_mtbf`` (s)
    draws a horizontal line at the ``T*`` and ``W(T*)`` of that MTBF (e.g. the original text's 2 h) and marks
    where each rate reaches it; ``highlight_gpus`` draws a vertical line at that GPU count. Returns a pyplot
    figure.
    """
    d = positive("save_time", save_time)
    r = non_negative("restart_time", restart_time)
    rs = _check_rates(rates)
    gs = _check_gpus(gpus)
    ref = None if reference_mtbf is None else positive("reference_mtbf", reference_mtbf)
    if highlight_gpus is not None:
        int_in_range("highlight_gpus", highlight_gpus, 1)
    g = np.array(gs, dtype=float)
    fig = new_figure((9.6, 5.0))
    ax_t, ax_w = fig.subplots(1, 2)
    colours = [PALETTE[k] for k in ("vermillion", "blue", "green", "orange", "purple", "sky", "grey", "ink")]
    t_all: list[float] = []
    w_all: list[float] = []
    for (label, rate), colour in zip(rs, colours, strict=False):
        mt = np.array([reliability.job_mtbf(n, rate) for n in gs])
        ts = np.array([checkpoint.young_interval(d, x) for x in mt]) / HOUR
        ws = 100 * np.minimum([checkpoint.optimal_wasted_fraction(d, x, r) for x in mt], 1.0)
        t_all += ts.tolist()
        w_all += ws.tolist()
        ax_t.plot(g, ts, "-", color=colour, lw=1.6, label=label)
        ax_w.plot(g, ws, "-", color=colour, lw=1.6, label=label)
        if ref is not None:
            g_ref = reliability.components_for_mtbf(ref, rate)
            if g[0] <= g_ref <= g[-1]:
                ax_t.plot([g_ref], [checkpoint.young_interval(d, ref) / HOUR], "o", color=colour, ms=5, zorder=4)
    if ref is not None:
        t_ref = checkpoint.young_interval(d, ref)
        w_ref = checkpoint.optimal_wasted_fraction(d, ref, r)
        ax_t.axhline(t_ref / HOUR, color=PALETTE["ink"], lw=1.0, ls="--",
                     label=f"M = {fmt_seconds(ref)} 时 T* = {fmt_seconds(t_ref)}")
        ax_w.axhline(100 * min(w_ref, 1.0), color=PALETTE["ink"], lw=1.0, ls="--",
                     label=f"M = {fmt_seconds(ref)} 时 {_pct(w_ref)}")
        t_all.append(t_ref / HOUR)
        w_all.append(100 * min(w_ref, 1.0))
    for ax in (ax_t, ax_w):
        ax.set_xscale("log", base=2)
        ax.set_xlim(g[0] / 1.3, g[-1] * 1.3)
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _pos: f"{v:.0f}" if v < 1024 else f"{v / 1024:.0f}K"))
        ax.set_xlabel("GPU 数 G（对数轴，1K = 1024）")
        if highlight_gpus is not None:
            ax.axvline(float(highlight_gpus), color=PALETTE["grey"], lw=1.0, ls=":", zorder=1)
            ax.text(float(highlight_gpus) * 1.08, 0.98, f"G = {int(highlight_gpus)}",
                    transform=ax.get_xaxis_transform(), fontsize=8, color=PALETTE["grey"], va="top", ha="left")
    _log_axis(ax_t, "y", min(t_all) / 1.6, max(t_all) * 1.6)
    ax_t.set_ylabel("Young 最优间隔 T*（h，对数轴）")
    ax_t.set_title("最优间隔随规模缩短", loc="left")

    _log_axis(ax_w, "y", min(w_all) / 1.6, max(w_all) * 1.6)
    ax_w.set_ylabel("最优间隔下的浪费 W(T*)（%，对数轴）")
    ax_w.set_title("躲不掉的浪费随规模增长", loc="left")
    handles, labels = ax_t.get_legend_handles_labels()
    handles_w, labels_w = ax_w.get_legend_handles_labels()
    if ref is not None:
        handles.append(handles_w[-1])
        labels.append(labels_w[-1])
    fig.legend(handles, labels, loc="outside lower center", ncols=3, fontsize=8)
    fig.suptitle(
        f"作业 MTBF = 1/(Gλ)：δ = {fmt_seconds(d)}，R = {fmt_seconds(r) if r else '0'}",
        fontsize=11,
        fontweight="bold",
    )
    return fig
