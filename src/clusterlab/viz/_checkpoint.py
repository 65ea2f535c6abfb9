"""Checkpoint figures: cost of each save strategy, wasted time vs interval, Monte Carlo check.

Every number drawn comes from :mod:`clusterlab.faults.checkpoint` (save plans, Young/Daly intervals, first-order
and exact wasted fraction and its terms, Monte Carlo results); this module only draws. The interval against the
number of GPUs is in :mod:`clusterlab.viz._failures`. Times are taken in seconds and shown in s, min or h; wasted time
is shown in % of wall time.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Final

import numpy as np
import numpy.typing as npt
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

from ..book.labels import CHECKPOINT_STRATEGY_NAMES
from ..faults import checkpoint
from ..units import GB, HOUR, MINUTE, fmt_num, fmt_seconds
from ..validate import non_negative, positive
from ._style import PALETTE, new_figure

__all__ = [
    "CHECKPOINT_STRATEGY_NAMES",
    "STRATEGY_NAMES",
    "checkpoint_monte_carlo",
    "checkpoint_strategies",
    "checkpoint_wasted_time",
]

#: Chinese names of :data:`clusterlab.faults.checkpoint.STRATEGIES`
#: (:data:`clusterlab.book.labels.CHECKPOINT_STRATEGY_NAMES`).
STRATEGY_NAMES: Final = CHECKPOINT_STRATEGY_NAMES

#: Background of text boxes drawn over curves.
_BOX: Final = {"boxstyle": "round,pad=0.25", "facecolor": "white", "edgecolor": "none", "alpha": 0.88}
#: Points per curve (log-spaced).
_CURVE_POINTS: Final = 400
#: Most Monte Carlo results / failure sources one figure draws.
_MAX_SERIES: Final = 40


def _time_axis_unit(seconds: float) -> tuple[float, str]:
    """Divisor and label for an axis of durations whose largest value is ``seconds``: s, min or h."""
    if seconds < 10 * MINUTE:
        return 1.0, "s"
    if seconds <= 10 * HOUR:
        return MINUTE, "min"
    return HOUR, "h"


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
    """Two panels of horizontal bars (log axes), one row per :class:`clusterlab.faults.checkpoint.SavePlan`.

    Left: bytes — what the busiest rank writes and what all ranks write together (GB). Right: time — how long
    training is blocked and how long until the checkpoint is durable (blocking + background write). ``plans``:
    1 … 40 save plans with positive bytes (e.g. ``[save_plan(s, …) for s in STRATEGIES]``). Returns a pyplot
    figure.
    """
    items = _check_plans(plans)
    n = len(items)
    fig = new_figure((9.6, 1.6 + 0.62 * n))
    ax_b, ax_t = fig.subplots(1, 2, sharey=True)
    y = np.arange(n)[::-1].astype(float)
    h = 0.38
    names = [STRATEGY_NAMES.get(p.strategy, p.strategy) for p in items]

    per_rank = np.array([p.per_rank_bytes for p in items]) / GB
    total = np.array([p.total_bytes for p in items]) / GB
    ax_b.barh(y + h / 2, per_rank, height=h, color=PALETTE["sky"], label="每个 rank 写入", zorder=2)
    ax_b.barh(y - h / 2, total, height=h, color=PALETTE["blue"], label="所有 rank 合计写入", zorder=2)
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
        raise ValueError("plans must be a sequence of clusterlab.faults.checkpoint.SavePlan") from None
    if not 1 <= len(items) <= _MAX_SERIES:
        raise ValueError(f"plans must hold 1 … {_MAX_SERIES} save plans, got {len(items)}")
    for i, p in enumerate(items):
        if not isinstance(p, checkpoint.SavePlan):
            raise ValueError(f"plans[{i}] must be a clusterlab.faults.checkpoint.SavePlan, got {type(p).__name__}")
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
        out.append((item[0], positive(f"marks[{i}] interval", item[1])))
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
    terms = [checkpoint.wasted_terms(x, save_time, mtbf, restart_time) for x in t]
    exact = np.array([checkpoint.expected_wasted_fraction(x, save_time, mtbf, restart_time) for x in t])
    return {
        "interval": t,
        "first_order": np.array([w.total for w in terms]),
        "save_term": np.array([w.save for w in terms]),
        "failure_term": np.array([w.failure for w in terms]),
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

    Curves: the first-order model ``W(T) = δ/T + (T/2 + R)/M`` (:func:`clusterlab.faults.checkpoint.wasted_fraction`)
    with its two terms dashed, and the exact expected waste for exponential failures
    (:func:`clusterlab.faults.checkpoint.expected_wasted_fraction`). Vertical lines: Young's ``T* = sqrt(2δM)`` and
    Daly's interval, plus every ``(label, interval in s)`` of ``marks`` (at most 8), each annotated with both
    models' waste there. The y-axis stops at 100 % (the first-order model exceeds it when ``T ≳ M``).
    ``save_time`` δ ≥ 0, ``mtbf`` M > 0, ``restart_time`` R ≥ 0, all in s; ``t_range`` (s) overrides the
    default span ``T*/20 … 20·T*`` (widened to include the marks). Returns a pyplot figure.
    """
    d = positive("save_time", save_time)
    m = positive("mtbf", mtbf)
    r = non_negative("restart_time", restart_time)
    mk = _check_marks(marks)
    t_young = checkpoint.young_interval(d, m)
    t_daly = checkpoint.daly_interval(d, m)
    lo, hi = _interval_range(t_young, mk, t_range)
    c = wasted_curves(d, m, r, lo, hi)
    div, unit = _time_axis_unit(hi)
    x = c["interval"] / div

    fig = new_figure((9.6, 5.0))
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
        raise ValueError("results must be a sequence of clusterlab.faults.checkpoint.MonteCarloResult") from None
    if not 2 <= len(items) <= _MAX_SERIES:
        raise ValueError(f"results must hold 2 … {_MAX_SERIES} Monte Carlo results, got {len(items)}")
    for i, res in enumerate(items):
        if not isinstance(res, checkpoint.MonteCarloResult):
            raise ValueError(
                f"results[{i}] must be a clusterlab.faults.checkpoint.MonteCarloResult, got {type(res).__name__}"
            )
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
    """Monte Carlo vs model, one point per :class:`clusterlab.faults.checkpoint.MonteCarloResult` (2 … 40 results).

    Left: measured wasted fraction (%) with ``±z`` standard errors, over the first-order ``W(T)`` and the exact
    expected waste, log x-axis. Right: the residual *measured − exact* in percentage points with the same error
    bars (they should cover zero). ``save_time``, ``mtbf``,
    ``restart_time`` (s) must be the values the results were simulated with; ``z`` > 0. Returns a pyplot figure.
    """
    items = _check_results(results)
    d = positive("save_time", save_time)
    m = positive("mtbf", mtbf)
    r = non_negative("restart_time", restart_time)
    zz = positive("z", z)
    t = np.array([res.interval for res in items])
    meas = np.array([res.wasted_fraction for res in items])
    err = np.array([res.wasted_fraction_stderr for res in items])
    exact_pts = np.array([checkpoint.expected_wasted_fraction(x, d, m, r) for x in t])
    lo, hi = float(t.min()) / 1.5, float(t.max()) * 1.5
    c = wasted_curves(d, m, r, lo, hi)
    div, unit = _time_axis_unit(hi)

    fig = new_figure((9.6, 4.4))
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
