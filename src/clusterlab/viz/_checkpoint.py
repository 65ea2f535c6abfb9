"""Checkpoint figures: cost of each save strategy, wasted time vs interval, Monte Carlo check, interval vs scale.

Every number drawn comes from :mod:`clusterlab.checkpoint` (save plans, Young/Daly intervals, first-order and
exact wasted fraction, Monte Carlo results) or :mod:`clusterlab.reliability` (job MTBF); this module only
draws. Times are taken in seconds and shown in s, min or h; wasted time is shown in % of wall time.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Final

import numpy as np
import numpy.typing as npt
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

from .. import checkpoint, reliability
from ..units import GB, check_nonnegative, check_positive, fmt_num, fmt_seconds
from ._style import PALETTE, ensure_setup

__all__ = [
    "CHECKPOINT_STRATEGY_NAMES",
    "STRATEGY_NAMES",
    "checkpoint_interval_vs_scale",
    "checkpoint_monte_carlo",
    "checkpoint_strategies",
    "checkpoint_wasted_time",
]

#: Chinese names of :data:`clusterlab.checkpoint.STRATEGIES`, as the figures and tables of the book print them.
STRATEGY_NAMES: Final = {
    "full_every_rank": "全量：每个秩各存一份",
    "full_rank0": "全量：只由 rank 0 存",
    "sharded": "分片",
    "async": "异步（分片）",
    "recompute_on_load": "加载时重算（分片）",
}
#: The same mapping under the name :mod:`clusterlab.viz` exports.
CHECKPOINT_STRATEGY_NAMES: Final = STRATEGY_NAMES

#: Background of text boxes drawn over curves.
_BOX: Final = {"boxstyle": "round,pad=0.25", "facecolor": "white", "edgecolor": "none", "alpha": 0.88}
#: Points per curve (log-spaced).
_CURVE_POINTS: Final = 400
#: Most Monte Carlo results / failure sources one figure draws.
_MAX_SERIES: Final = 40


def _new_figure(figsize: tuple[float, float]) -> Figure:
    ensure_setup()
    import matplotlib.pyplot as plt

    return plt.figure(figsize=figsize, layout="constrained")


def _time_axis_unit(seconds: float) -> tuple[float, str]:
    """Divisor and label for an axis of durations whose largest value is ``seconds``: s, min or h."""
    if seconds < 600.0:
        return 1.0, "s"
    if seconds <= 10 * 3600.0:
        return 60.0, "min"
    return 3600.0, "h"


def _log_axis(ax: Axes, axis: str, lo: float, hi: float) -> None:
    """Log scale over ``lo … hi`` with major ticks printed as plain numbers (no powers of ten): 1-2-5 ticks
    when the axis spans at most three decades, else one tick per decade."""
    target = ax.xaxis if axis == "x" else ax.yaxis
    if axis == "x":
        ax.set_xscale("log")
        ax.set_xlim(lo, hi)
    else:
        ax.set_yscale("log")
        ax.set_ylim(lo, hi)
    subs = (1.0, 2.0, 5.0) if math.log10(hi / lo) <= 3.0 else (1.0,)
    target.set_major_locator(LogLocator(base=10, subs=subs))
    target.set_major_formatter(FuncFormatter(lambda v, _pos: fmt_num(v, 3)))
    target.set_minor_formatter(NullFormatter())


def _pct(x: float) -> str:
    return f"{fmt_num(100 * x, 3)}%"


# --------------------------------------------------------------------------------------------------------
# strategies
# --------------------------------------------------------------------------------------------------------
def checkpoint_strategies(plans: Sequence[checkpoint.SavePlan]) -> Figure:
    """Two panels of horizontal bars (log axes), one row per :class:`clusterlab.checkpoint.SavePlan`.

    Left: bytes — what the busiest rank writes and what all ranks write together (GB). Right: time — how long
    training is blocked and how long until the checkpoint is durable (blocking + background write). ``plans``:
    1 … 40 save plans with positive bytes (e.g. ``[save_plan(s, …) for s in STRATEGIES]``). Returns a pyplot
    figure.
    """
    items = _check_plans(plans)
    n = len(items)
    fig = _new_figure((9.6, 1.6 + 0.62 * n))
    ax_b, ax_t = fig.subplots(1, 2, sharey=True)
    y = np.arange(n)[::-1].astype(float)
    h = 0.38
    names = [STRATEGY_NAMES.get(p.strategy, p.strategy) for p in items]

    per_rank = np.array([p.per_rank_bytes for p in items]) / GB
    total = np.array([p.total_bytes for p in items]) / GB
    ax_b.barh(y + h / 2, per_rank, height=h, color=PALETTE["sky"], label="每个秩写入", zorder=2)
    ax_b.barh(y - h / 2, total, height=h, color=PALETTE["blue"], label="所有秩合计写入", zorder=2)
    for yi, a, b in zip(y, per_rank, total, strict=True):
        ax_b.text(a * 1.12, yi + h / 2, f"{fmt_num(a)} GB", va="center", fontsize=8)
        ax_b.text(b * 1.12, yi - h / 2, f"{fmt_num(b)} GB", va="center", fontsize=8)
    _log_axis(ax_b, "x", min(per_rank.min(), total.min()) / 3, max(per_rank.max(), total.max()) * 12)
    ax_b.set_xlabel("字节（GB，对数轴）")
    ax_b.set_title("写多少", loc="left")
    ax_b.set_yticks(y, names)
    ax_b.grid(axis="y", visible=False)
    ax_b.legend(loc="upper center", bbox_to_anchor=(0.5, -0.16), ncols=2)

    blocking = np.array([p.blocking_time for p in items])
    durable = np.array([p.save_time for p in items])
    positive = np.concatenate([blocking[blocking > 0], durable])
    ax_t.barh(y + h / 2, np.where(blocking > 0, blocking, np.nan), height=h, color=PALETTE["vermillion"],
              label="训练被阻塞", zorder=2)
    ax_t.barh(y - h / 2, durable, height=h, color=PALETTE["orange"], label="直到落盘（阻塞 + 后台）", zorder=2)
    for yi, a, b in zip(y, blocking, durable, strict=True):
        ax_t.text(a * 1.12 if a > 0 else positive.min() / 2.5, yi + h / 2, fmt_seconds(a), va="center",
                  fontsize=8)
        ax_t.text(b * 1.12, yi - h / 2, fmt_seconds(b), va="center", fontsize=8)
    _log_axis(ax_t, "x", positive.min() / 3, positive.max() * 12)
    ax_t.set_xlabel("时间（s，对数轴）")
    ax_t.set_title("花多久", loc="left")
    ax_t.grid(axis="y", visible=False)
    ax_t.legend(loc="upper center", bbox_to_anchor=(0.5, -0.16), ncols=2)
    ax_t.tick_params(axis="y", length=0)

    ref = items[0]
    fig.suptitle(
        f"一次 checkpoint 的代价：每种策略写多少、训练停多久（合计状态 {fmt_num(_state_of(ref) / GB)} GB）",
        fontsize=11,
        fontweight="bold",
    )
    return fig


def _state_of(plan: checkpoint.SavePlan) -> float:
    """The model state behind ``plan`` (bytes): the total for every strategy except the redundant copies."""
    if plan.strategy == "full_every_rank":
        return plan.per_rank_bytes
    return plan.total_bytes


def _check_plans(plans: Sequence[checkpoint.SavePlan]) -> list[checkpoint.SavePlan]:
    try:
        items = list(plans)
    except TypeError:
        raise ValueError("plans must be a sequence of clusterlab.checkpoint.SavePlan") from None
    if not 1 <= len(items) <= _MAX_SERIES:
        raise ValueError(f"plans must hold 1 … {_MAX_SERIES} save plans, got {len(items)}")
    for i, p in enumerate(items):
        if not isinstance(p, checkpoint.SavePlan):
            raise ValueError(f"plans[{i}] must be a clusterlab.checkpoint.SavePlan, got {type(p).__name__}")
        if p.per_rank_bytes <= 0 or p.total_bytes <= 0 or p.save_time <= 0:
            raise ValueError(f"plans[{i}] must write a positive number of bytes in positive time (log axes)")
    return items


# --------------------------------------------------------------------------------------------------------
# wasted time vs interval
# --------------------------------------------------------------------------------------------------------
def _check_marks(marks: Sequence[tuple[str, float]]) -> list[tuple[str, float]]:
    try:
        items = list(marks)
    except TypeError:
        raise ValueError("marks must be a sequence of (label, interval in s) pairs") from None
    if len(items) > 8:
        raise ValueError(f"marks may hold at most 8 (label, interval) pairs, got {len(items)}")
    out: list[tuple[str, float]] = []
    for i, item in enumerate(items):
        if not isinstance(item, tuple | list) or len(item) != 2 or not isinstance(item[0], str):
            raise ValueError(f"marks[{i}] must be a (label, interval in s) pair, got {item!r}")
        out.append((item[0], check_positive(f"marks[{i}] interval", item[1])))
    return out


def _interval_range(
    t_star: float, marks: Sequence[tuple[str, float]], t_range: tuple[float, float] | None
) -> tuple[float, float]:
    if t_range is None:
        lo = t_star / 20
        hi = max([t_star * 20] + [t * 1.6 for _, t in marks])
        lo = min([lo] + [t / 1.6 for _, t in marks])
        return lo, hi
    try:
        lo, hi = (float(v) for v in t_range)
    except (TypeError, ValueError):
        raise ValueError(f"t_range must be a pair (t_min, t_max) of seconds, got {t_range!r}") from None
    if not (math.isfinite(lo) and math.isfinite(hi) and 0 < lo < hi):
        raise ValueError(f"t_range must satisfy 0 < t_min < t_max (seconds), got {t_range!r}")
    return lo, hi


def wasted_curves(
    save_time: float, mtbf: float, restart_time: float, t_min: float, t_max: float, points: int = _CURVE_POINTS
) -> dict[str, npt.NDArray[np.float64]]:
    """Log-spaced intervals ``T`` (s) and the curves the figures draw: first-order ``W(T)``, its save term
    ``δ/T`` and failure term ``(T/2 + R)/M``, and the exact expected waste (fractions, not %)."""
    t = np.geomspace(t_min, t_max, points)
    first = np.array([checkpoint.wasted_fraction(x, save_time, mtbf, restart_time) for x in t])
    exact = np.array([checkpoint.expected_wasted_fraction(x, save_time, mtbf, restart_time) for x in t])
    return {
        "interval": t,
        "first_order": first,
        "save_term": save_time / t,
        "failure_term": (t / 2 + restart_time) / mtbf,
        "exact": exact,
    }


def checkpoint_wasted_time(
    save_time: float,
    mtbf: float,
    restart_time: float = 0.0,
    *,
    marks: Sequence[tuple[str, float]] = (),
    t_range: tuple[float, float] | None = None,
) -> Figure:
    """Fraction of wall time lost vs checkpoint interval ``T`` (log x-axis), in %.

    Curves: the first-order model ``W(T) = δ/T + (T/2 + R)/M`` (:func:`clusterlab.checkpoint.wasted_fraction`)
    with its two terms dashed, and the exact expected waste for exponential failures
    (:func:`clusterlab.checkpoint.expected_wasted_fraction`). Vertical lines: Young's ``T* = sqrt(2δM)`` and
    Daly's interval, plus every ``(label, interval in s)`` of ``marks`` (at most 8), each annotated with both
    models' waste there. The y-axis stops at 100 % (the first-order model exceeds it when ``T ≳ M``).
    ``save_time`` δ ≥ 0, ``mtbf`` M > 0, ``restart_time`` R ≥ 0, all in s; ``t_range`` (s) overrides the
    default span ``T*/20 … 20·T*`` (widened to include the marks). Returns a pyplot figure.
    """
    d = check_positive("save_time", save_time)
    m = check_positive("mtbf", mtbf)
    r = check_nonnegative("restart_time", restart_time)
    mk = _check_marks(marks)
    t_young = checkpoint.young_interval(d, m)
    t_daly = checkpoint.daly_interval(d, m)
    lo, hi = _interval_range(t_young, mk, t_range)
    c = wasted_curves(d, m, r, lo, hi)
    div, unit = _time_axis_unit(hi)
    x = c["interval"] / div

    fig = _new_figure((9.6, 5.0))
    ax = fig.subplots()
    ax.plot(x, 100 * c["save_term"], ls="--", lw=1.0, color=PALETTE["grey"], label="保存项 δ/T")
    ax.plot(x, 100 * c["failure_term"], ls=":", lw=1.3, color=PALETTE["grey"], label="故障项 (T/2 + R)/M")
    ax.plot(x, 100 * c["first_order"], lw=2.0, color=PALETTE["blue"], label="一阶模型 W(T)")
    ax.plot(x, 100 * c["exact"], lw=2.0, color=PALETTE["vermillion"], label="精确期望（指数分布故障）")
    w_star = checkpoint.wasted_fraction(t_young, d, m, r)
    ax.axvline(t_young / div, color=PALETTE["green"], lw=1.2, zorder=1)
    ax.axvline(t_daly / div, color=PALETTE["green"], lw=1.0, ls="--", zorder=1)
    ax.plot([t_young / div], [100 * w_star], "o", color=PALETTE["green"], ms=6, zorder=4)
    ax.annotate(
        f"Young T* = √(2δM) = {fmt_seconds(t_young)}\nDaly {fmt_seconds(t_daly)}（虚线）\n"
        f"W(T*) = {_pct(w_star)}",
        xy=(t_young / div, 100 * w_star),
        xytext=(0.46, 0.70),
        textcoords="axes fraction",
        fontsize=9,
        color=PALETTE["green"],
        ha="left",
        va="center",
        bbox=_BOX,
        arrowprops={"arrowstyle": "->", "color": PALETTE["green"], "lw": 0.8},
    )
    for i, (label, t) in enumerate(mk):
        w1 = checkpoint.wasted_fraction(t, d, m, r)
        we = checkpoint.expected_wasted_fraction(t, d, m, r)
        ax.axvline(t / div, color=PALETTE["purple"], lw=1.2, ls="-.", zorder=1)
        ax.plot([t / div], [100 * min(we, 1.0)], "s", color=PALETTE["purple"], ms=5, zorder=4)
        ax.text(
            t / div / 1.06,
            97 - 13 * i,
            f"{label}\n一阶 {_pct(w1)}，精确 {_pct(we)}",
            fontsize=9,
            color=PALETTE["purple"],
            ha="right",
            va="top",
            bbox=_BOX,
        )
    _log_axis(ax, "x", x[0], x[-1])
    ax.set_ylim(0, 100)
    ax.set_xlabel(f"checkpoint 间隔 T（{unit}，对数轴）")
    ax.set_ylabel("浪费的墙钟时间（%）")
    ax.legend(loc="upper left", ncols=2, bbox_to_anchor=(0.0, 1.0), frameon=True, facecolor="white",
              edgecolor="none", framealpha=0.9)
    fig.suptitle(
        f"浪费比例与间隔：δ = {fmt_seconds(d)}，M = {fmt_seconds(m)}，R = {fmt_seconds(r) if r else '0'}",
        fontsize=11,
        fontweight="bold",
    )
    return fig


# --------------------------------------------------------------------------------------------------------
# Monte Carlo
# --------------------------------------------------------------------------------------------------------
def _check_results(results: Sequence[checkpoint.MonteCarloResult]) -> list[checkpoint.MonteCarloResult]:
    try:
        items = list(results)
    except TypeError:
        raise ValueError("results must be a sequence of clusterlab.checkpoint.MonteCarloResult") from None
    if not 2 <= len(items) <= _MAX_SERIES:
        raise ValueError(f"results must hold 2 … {_MAX_SERIES} Monte Carlo results, got {len(items)}")
    for i, res in enumerate(items):
        if not isinstance(res, checkpoint.MonteCarloResult):
            raise ValueError(f"results[{i}] must be a clusterlab.checkpoint.MonteCarloResult, got {type(res).__name__}")
        if res.wall.size < 2:
            raise ValueError(f"results[{i}] must hold at least 2 runs (for an error bar), got {res.wall.size}")
    return sorted(items, key=lambda res: res.interval)


def checkpoint_monte_carlo(
    results: Sequence[checkpoint.MonteCarloResult],
    save_time: float,
    mtbf: float,
    restart_time: float = 0.0,
    *,
    z: float = 2.0,
) -> Figure:
    """Monte Carlo vs model, one point per :class:`clusterlab.checkpoint.MonteCarloResult` (2 … 40 results).

    Left: measured wasted fraction (%) with ``±z`` standard errors, over the first-order ``W(T)`` and the exact
    expected waste, log x-axis. Right: the residual *measured − exact* in percentage points with the same error
    bars (they should cover zero). ``save_time``, ``mtbf``,
    ``restart_time`` (s) must be the values the results were simulated with; ``z`` > 0. Returns a pyplot figure.
    """
    items = _check_results(results)
    d = check_positive("save_time", save_time)
    m = check_positive("mtbf", mtbf)
    r = check_nonnegative("restart_time", restart_time)
    zz = check_positive("z", z)
    t = np.array([res.interval for res in items])
    meas = np.array([res.wasted_fraction for res in items])
    err = np.array([res.wasted_fraction_stderr for res in items])
    exact_pts = np.array([checkpoint.expected_wasted_fraction(x, d, m, r) for x in t])
    lo, hi = float(t.min()) / 1.5, float(t.max()) * 1.5
    c = wasted_curves(d, m, r, lo, hi)
    div, unit = _time_axis_unit(hi)

    fig = _new_figure((9.6, 4.4))
    ax, ax_r = fig.subplots(1, 2, width_ratios=(1.35, 1.0))
    ax.plot(c["interval"] / div, 100 * c["first_order"], lw=1.6, color=PALETTE["blue"], label="一阶模型 W(T)")
    ax.plot(c["interval"] / div, 100 * c["exact"], lw=1.6, color=PALETTE["vermillion"], label="精确期望")
    ax.errorbar(t / div, 100 * meas, yerr=100 * zz * err, fmt="o", ms=4.5, color=PALETTE["ink"], capsize=3,
                label=f"蒙特卡洛（±{fmt_num(zz)} 个标准误）", zorder=4)
    t_young = checkpoint.young_interval(d, m)
    ax.axvline(t_young / div, color=PALETTE["green"], lw=1.0, ls="--", label=f"Young T* = {fmt_seconds(t_young)}")
    best = int(np.argmin(meas))
    ax.plot([t[best] / div], [100 * meas[best]], "o", mfc="none", mec=PALETTE["green"], ms=11, mew=1.6,
            zorder=5)
    _log_axis(ax, "x", lo / div, hi / div)
    top = float(max(meas.max(), exact_pts.max()))
    ax.set_ylim(0, min(100.0, 100 * top * 1.25))
    ax.set_xlabel(f"checkpoint 间隔 T（{unit}，对数轴）")
    ax.set_ylabel("浪费的墙钟时间（%）")
    ax.set_title("模拟与两条理论曲线", loc="left")
    ax.legend(loc="upper left")

    ax_r.axhline(0, color=PALETTE["vermillion"], lw=1.2)
    ax_r.errorbar(t / div, 100 * (meas - exact_pts), yerr=100 * zz * err, fmt="o", ms=4.5, color=PALETTE["ink"],
                  capsize=3, label="蒙特卡洛 − 精确", zorder=4)
    _log_axis(ax_r, "x", lo / div, hi / div)
    span = 100 * float((np.abs(meas - exact_pts) + zz * err).max()) * 1.3
    ax_r.set_ylim(-span, span)
    ax_r.set_xlabel(f"T（{unit}，对数轴）")
    ax_r.set_ylabel("模拟 − 精确期望（百分点）")
    ax_r.set_title("残差：误差棒应盖住 0", loc="left")
    ax_r.legend(loc="lower left")

    runs = items[0].wall.size
    works = [res.work for res in items]
    same = max(works) <= min(works) * (1 + 1e-9)
    work_txt = f" {fmt_seconds(works[0])}" if same else f"约 {fmt_seconds(float(np.mean(works)), 2)}"
    fig.suptitle(
        f"蒙特卡洛：每个间隔 {runs:,} 次运行，每次{work_txt} 有效训练；"
        f"δ = {fmt_seconds(d)}，M = {fmt_seconds(m)}，R = {fmt_seconds(r) if r else '0'}",
        fontsize=11,
        fontweight="bold",
    )
    return fig


# --------------------------------------------------------------------------------------------------------
# interval vs scale
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
        out.append((label, check_positive(f"rates[{label!r}]", rate)))
    return out


def _check_gpus(gpus: Sequence[int]) -> list[int]:
    try:
        items = list(gpus)
    except TypeError:
        raise ValueError("gpus must be a sequence of integers >= 1") from None
    if len(items) < 2:
        raise ValueError(f"gpus must hold at least 2 GPU counts, got {len(items)}")
    for v in items:
        if isinstance(v, bool) or not isinstance(v, int | np.integer) or not 1 <= v <= 1 << 24:
            raise ValueError(f"gpus must hold integers in 1 … {1 << 24}, got {v!r}")
    return sorted({int(v) for v in items})


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
    :func:`clusterlab.reliability.job_mtbf` ``(G, rate)``; left: Young's ``T* = sqrt(2δM)`` (h, log-log), right:
    ``W(T*) = sqrt(2δ/M) + R/M`` (%, capped at 100 %). ``gpus``: at least 2 GPU counts. ``reference_mtbf`` (s)
    draws a horizontal line at the ``T*`` and ``W(T*)`` of that MTBF (e.g. the original text's 2 h) and marks
    where each rate reaches it; ``highlight_gpus`` draws a vertical line at that GPU count. Returns a pyplot
    figure.
    """
    d = check_positive("save_time", save_time)
    r = check_nonnegative("restart_time", restart_time)
    rs = _check_rates(rates)
    gs = _check_gpus(gpus)
    ref = None if reference_mtbf is None else check_positive("reference_mtbf", reference_mtbf)
    if highlight_gpus is not None and (
        isinstance(highlight_gpus, bool) or not isinstance(highlight_gpus, int | np.integer) or highlight_gpus < 1
    ):
        raise ValueError(f"highlight_gpus must be an integer >= 1 or None, got {highlight_gpus!r}")
    g = np.array(gs, dtype=float)
    fig = _new_figure((9.6, 5.0))
    ax_t, ax_w = fig.subplots(1, 2)
    colours = [PALETTE[k] for k in ("vermillion", "blue", "green", "orange", "purple", "sky", "grey", "ink")]
    t_all: list[float] = []
    w_all: list[float] = []
    for (label, rate), colour in zip(rs, colours, strict=False):
        mt = np.array([reliability.job_mtbf(n, rate) for n in gs])
        ts = np.array([checkpoint.young_interval(d, x) for x in mt]) / 3600
        ws = 100 * np.minimum([checkpoint.optimal_wasted_fraction(d, x, r) for x in mt], 1.0)
        t_all += ts.tolist()
        w_all += ws.tolist()
        ax_t.plot(g, ts, "-", color=colour, lw=1.6, label=label)
        ax_w.plot(g, ws, "-", color=colour, lw=1.6, label=label)
        if ref is not None:
            g_ref = reliability.HOUR / (rate * ref)  # G with 1/(G·λ) hours = ref
            if g[0] <= g_ref <= g[-1]:
                ax_t.plot([g_ref], [checkpoint.young_interval(d, ref) / 3600], "o", color=colour, ms=5, zorder=4)
    if ref is not None:
        t_ref = checkpoint.young_interval(d, ref)
        w_ref = checkpoint.optimal_wasted_fraction(d, ref, r)
        ax_t.axhline(t_ref / 3600, color=PALETTE["ink"], lw=1.0, ls="--",
                     label=f"M = {fmt_seconds(ref)} 时 T* = {fmt_seconds(t_ref)}")
        ax_w.axhline(100 * min(w_ref, 1.0), color=PALETTE["ink"], lw=1.0, ls="--",
                     label=f"M = {fmt_seconds(ref)} 时 {_pct(w_ref)}")
        t_all.append(t_ref / 3600)
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
