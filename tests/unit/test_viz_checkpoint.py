"""Checkpoint figures: drawn data equal clusterlab.faults.checkpoint / reliability, no glyph warnings, bad input
rejected."""

from __future__ import annotations

import io
import math
import warnings

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib.axes import Axes
from matplotlib.container import BarContainer, ErrorbarContainer
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.text import Text

from clusterlab import viz
from clusterlab.book.labels import CHECKPOINT_STRATEGY_NAMES as STRATEGY_NAMES
from clusterlab.faults import checkpoint as ck
from clusterlab.faults import reliability

STATE = 112e9  # 7B × 16 B (mixed-precision Adam)
RANKS = 128
STORAGE = 2e9  # 2 GB/s aggregate
DELTA = 56.0  # s
MTBF = 7200.0  # s (f = 0.5 / h)
RESTART = 180.0  # s
SEED_INTERVAL = math.sqrt(60 * 0.93 / (4 * 0.5)) * 3600  # the original text's 5.3 h, in s


def render(fig: Figure) -> None:
    """Draw to PNG and SVG: a missing glyph raises under ``strict_warnings``."""
    for fmt in ("png", "svg"):
        fig.savefig(io.BytesIO(), format=fmt)


def line(ax: Axes, label: str) -> Line2D:
    (found,) = [ln for ln in ax.get_lines() if ln.get_label() == label]
    return found


def texts(fig: Figure) -> str:
    return "\n".join(t.get_text() for t in fig.findobj(Text) if t.get_text())


def plans() -> list[ck.SavePlan]:
    return [ck.save_plan(s, STATE, RANKS, STORAGE) for s in ck.STRATEGIES]


# --------------------------------------------------------------------------------------------------------
# strategies
# --------------------------------------------------------------------------------------------------------
def test_strategies_bars_are_the_save_plans(no_leak: None, strict_warnings: list[warnings.WarningMessage]) -> None:
    ps = plans()
    fig = viz.checkpoint_strategies(ps)
    render(fig)
    ax_b, ax_t = fig.axes[:2]
    bars_b = [c for c in ax_b.containers if isinstance(c, BarContainer)]
    bars_t = [c for c in ax_t.containers if isinstance(c, BarContainer)]
    words = texts(fig)
    plt.close(fig)
    per_rank, total = (np.array([b.get_width() for b in c]) for c in bars_b)
    np.testing.assert_allclose(per_rank, [p.per_rank_bytes / 1e9 for p in ps])
    np.testing.assert_allclose(total, [p.total_bytes / 1e9 for p in ps])
    # 0.875 GB per rank when sharded, 14 336 GB in total when every rank writes everything
    assert per_rank[ck.STRATEGIES.index("sharded")] == pytest.approx(0.875)
    assert total[ck.STRATEGIES.index("full_every_rank")] == pytest.approx(14336)
    blocking, durable = (np.array([b.get_width() for b in c]) for c in bars_t)
    np.testing.assert_allclose(blocking, [p.blocking_time for p in ps])
    np.testing.assert_allclose(durable, [p.save_time for p in ps])
    assert durable[ck.STRATEGIES.index("sharded")] == pytest.approx(56.0)
    assert durable[ck.STRATEGIES.index("full_every_rank")] == pytest.approx(7168.0)
    for name in STRATEGY_NAMES.values():
        assert name in words
    assert "分片" in words and "1.99 h" in words and "35 ms" in words


def test_strategies_rejects_bad_plans(no_leak: None) -> None:
    with pytest.raises(ValueError, match="plans"):
        viz.checkpoint_strategies([])
    with pytest.raises(ValueError, match=r"plans\[0\]"):
        viz.checkpoint_strategies([42])  # type: ignore[list-item]
    with pytest.raises(ValueError, match=r"plans\[1\]"):
        viz.checkpoint_strategies([plans()[0], ck.save_plan("sharded", 0.0, RANKS, STORAGE)])
    with pytest.raises(ValueError, match="plans"):
        viz.checkpoint_strategies(None)  # type: ignore[arg-type]


# --------------------------------------------------------------------------------------------------------
# wasted time vs interval
# --------------------------------------------------------------------------------------------------------
def test_wasted_time_curves_and_marks(no_leak: None, strict_warnings: list[warnings.WarningMessage]) -> None:
    fig = viz.checkpoint_wasted_time(DELTA, MTBF, RESTART, marks=[("原文 5.3 h", SEED_INTERVAL)])
    render(fig)
    ax = fig.axes[0]
    first = line(ax, "一阶模型 W(T)")
    exact = line(ax, "精确期望（指数分布故障）")
    save = line(ax, "保存项 δ/T")
    verticals = [ln for ln in ax.get_lines() if len(ln.get_xdata()) == 2 and len(set(ln.get_xdata())) == 1]
    words = texts(fig)
    xlabel = ax.get_xlabel()
    plt.close(fig)
    assert "min" in xlabel  # 15 min … 8 h are shown in minutes
    t = np.asarray(first.get_xdata(), dtype=float) * 60
    # the curve covers the seed's 5.3 h and the optimum
    assert t.min() < ck.young_interval(DELTA, MTBF) < SEED_INTERVAL < t.max()
    np.testing.assert_allclose(
        first.get_ydata(), [100 * ck.wasted_fraction(x, DELTA, MTBF, RESTART) for x in t], rtol=1e-9
    )
    np.testing.assert_allclose(
        exact.get_ydata(), [100 * ck.expected_wasted_fraction(x, DELTA, MTBF, RESTART) for x in t], rtol=1e-9
    )
    np.testing.assert_allclose(save.get_ydata(), 100 * DELTA / t, rtol=1e-9)
    xs = sorted(float(np.asarray(v.get_xdata(), dtype=float)[0]) * 60 for v in verticals)
    expected = sorted([ck.young_interval(DELTA, MTBF), ck.daly_interval(DELTA, MTBF), SEED_INTERVAL])
    np.testing.assert_allclose(xs, expected, rtol=1e-9)
    # annotations: Young 15 min, Daly 14.4 min, W(T*) 15 %, the seed's interval with both models' waste
    assert "15 min" in words and "14.4 min" in words and "W(T*) = 15%" in words
    assert "原文 5.3 h" in words and "135%" in words and "80.4%" in words


def test_wasted_time_minimum_of_first_order_curve_is_young(no_leak: None) -> None:
    fig = viz.checkpoint_wasted_time(DELTA, MTBF)
    first = line(fig.axes[0], "一阶模型 W(T)")
    exact = line(fig.axes[0], "精确期望（指数分布故障）")
    plt.close(fig)
    t = np.asarray(first.get_xdata(), dtype=float) * 60
    t_first = t[int(np.argmin(first.get_ydata()))]
    t_exact = t[int(np.argmin(exact.get_ydata()))]
    step = t[1] / t[0]
    assert ck.young_interval(DELTA, MTBF) / step <= t_first <= ck.young_interval(DELTA, MTBF) * step
    assert ck.daly_interval(DELTA, MTBF) / step <= t_exact <= ck.daly_interval(DELTA, MTBF) * step


def test_wasted_time_units_follow_the_range(no_leak: None) -> None:
    fig = viz.checkpoint_wasted_time(DELTA, reliability.job_mtbf(128, 1.97e-5), RESTART)
    assert "（h" in fig.axes[0].get_xlabel()
    plt.close(fig)
    fig = viz.checkpoint_wasted_time(1.0, 60.0, t_range=(1.0, 100.0))
    assert "（s" in fig.axes[0].get_xlabel()
    plt.close(fig)


def test_wasted_time_rejects_bad_input(no_leak: None) -> None:
    with pytest.raises(ValueError, match="save_time"):
        viz.checkpoint_wasted_time(0.0, MTBF)
    with pytest.raises(ValueError, match="mtbf"):
        viz.checkpoint_wasted_time(DELTA, -1.0)
    with pytest.raises(ValueError, match="restart_time"):
        viz.checkpoint_wasted_time(DELTA, MTBF, -5.0)
    with pytest.raises(ValueError, match="marks"):
        viz.checkpoint_wasted_time(DELTA, MTBF, marks=[(SEED_INTERVAL, "原文")])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="marks"):
        viz.checkpoint_wasted_time(DELTA, MTBF, marks=[("a", -1.0)])
    with pytest.raises(ValueError, match="t_range"):
        viz.checkpoint_wasted_time(DELTA, MTBF, t_range=(100.0, 10.0))
    with pytest.raises(ValueError, match="t_range"):
        viz.checkpoint_wasted_time(DELTA, MTBF, t_range=(0.0, 10.0))


# --------------------------------------------------------------------------------------------------------
# Monte Carlo
# --------------------------------------------------------------------------------------------------------
def test_monte_carlo_points_and_residuals(no_leak: None, strict_warnings: list[warnings.WarningMessage]) -> None:
    intervals = [1800.0, 300.0, 900.0]  # unsorted on purpose
    results = [ck.simulate_run(20 * 3600, t, DELTA, MTBF, RESTART, runs=400, seed=i) for i, t in enumerate(intervals)]
    fig = viz.checkpoint_monte_carlo(results, DELTA, MTBF, RESTART)
    render(fig)
    ax, ax_r = fig.axes[:2]
    (bars,) = [c for c in ax.containers if isinstance(c, ErrorbarContainer)]
    (bars_r,) = [c for c in ax_r.containers if isinstance(c, ErrorbarContainer)]
    words = texts(fig)
    plt.close(fig)
    order = np.argsort(intervals)
    res = [results[i] for i in order]
    x, y = (np.asarray(v, dtype=float) for v in bars.lines[0].get_data())
    np.testing.assert_allclose(x * 60, np.sort(intervals))
    np.testing.assert_allclose(y, [100 * r.wasted_fraction for r in res])
    # error bars are ±2 standard errors
    segs = bars.lines[2][0].get_segments()
    np.testing.assert_allclose([s[1][1] - s[0][1] for s in segs], [400 * r.wasted_fraction_stderr for r in res])
    _, yr = (np.asarray(v, dtype=float) for v in bars_r.lines[0].get_data())
    exact = [ck.expected_wasted_fraction(r.interval, DELTA, MTBF, RESTART) for r in res]
    np.testing.assert_allclose(yr, [100 * (r.wasted_fraction - e) for r, e in zip(res, exact, strict=True)])
    assert "400 次运行" in words and "20 h 有效训练" in words
    # runs of different length: the title says "about"
    mixed = [ck.simulate_run(w, 900.0, DELTA, MTBF, runs=50, seed=0) for w in (9000.0, 18000.0)]
    fig = viz.checkpoint_monte_carlo(mixed, DELTA, MTBF)
    words = texts(fig)
    plt.close(fig)
    assert "约 3.8 h 有效训练" in words


def test_monte_carlo_rejects_bad_input(no_leak: None) -> None:
    one = ck.simulate_run(3600, 600, DELTA, MTBF, runs=10, seed=0)
    with pytest.raises(ValueError, match="results"):
        viz.checkpoint_monte_carlo([one], DELTA, MTBF)
    with pytest.raises(ValueError, match=r"results\[1\]"):
        viz.checkpoint_monte_carlo([one, 0.1], DELTA, MTBF)  # type: ignore[list-item]
    tiny = ck.simulate_run(3600, 600, DELTA, MTBF, runs=1, seed=0)
    with pytest.raises(ValueError, match=r"results\[1\]"):
        viz.checkpoint_monte_carlo([one, tiny], DELTA, MTBF)
    with pytest.raises(ValueError, match="z"):
        viz.checkpoint_monte_carlo([one, one], DELTA, MTBF, z=0.0)
    with pytest.raises(ValueError, match="mtbf"):
        viz.checkpoint_monte_carlo([one, one], DELTA, 0.0)


# --------------------------------------------------------------------------------------------------------
# interval vs scale
# --------------------------------------------------------------------------------------------------------
def test_interval_vs_scale_lines(no_leak: None, strict_warnings: list[warnings.WarningMessage]) -> None:
    rates = {"原文假设": 3e-6, "Llama 3": reliability.failure_source("llama3").rate}
    gpus = [2**k for k in range(3, 19)]
    fig = viz.checkpoint_interval_vs_scale(DELTA, rates, gpus, RESTART, reference_mtbf=MTBF, highlight_gpus=128)
    render(fig)
    ax_t, ax_w = fig.axes[:2]
    lines_t = {ln.get_label(): ln for ln in ax_t.get_lines()}
    lines_w = {ln.get_label(): ln for ln in ax_w.get_lines()}
    dots = [ln for ln in ax_t.get_lines() if ln.get_marker() == "o"]
    plt.close(fig)
    for label, rate in rates.items():
        mt = [reliability.job_mtbf(g, rate) for g in gpus]
        np.testing.assert_allclose(lines_t[label].get_xdata(), gpus)
        np.testing.assert_allclose(lines_t[label].get_ydata(), [ck.young_interval(DELTA, m) / 3600 for m in mt])
        np.testing.assert_allclose(
            lines_w[label].get_ydata(), [100 * min(ck.optimal_wasted_fraction(DELTA, m, RESTART), 1.0) for m in mt]
        )
    # 128 GPUs at the original text's λ: T* ≈ 9.0 h; Llama 3 rate: ≈ 3.5 h
    t_seed = np.interp(128, gpus, np.asarray(lines_t["原文假设"].get_ydata(), dtype=float))
    t_llama = np.interp(128, gpus, np.asarray(lines_t["Llama 3"].get_ydata(), dtype=float))
    assert t_seed == pytest.approx(9.0, abs=0.01) and t_llama == pytest.approx(3.51, abs=0.01)
    # where each rate gives M = 2 h: λ = 3e-6 needs 1/(0.5 · 3e-6) ≈ 166 667 GPUs
    xs = sorted(float(np.asarray(d.get_xdata(), dtype=float)[0]) for d in dots)
    assert xs[-1] == pytest.approx(3600 / (3e-6 * MTBF))


def test_interval_vs_scale_rejects_bad_input(no_leak: None) -> None:
    with pytest.raises(ValueError, match="rates"):
        viz.checkpoint_interval_vs_scale(DELTA, {}, [8, 16])
    with pytest.raises(ValueError, match="rates"):
        viz.checkpoint_interval_vs_scale(DELTA, {"x": -1.0}, [8, 16])
    with pytest.raises(ValueError, match="rates"):
        viz.checkpoint_interval_vs_scale(DELTA, [("x", 1e-5)], [8, 16])  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="gpus"):
        viz.checkpoint_interval_vs_scale(DELTA, {"x": 1e-5}, [8])
    with pytest.raises(ValueError, match="gpus"):
        viz.checkpoint_interval_vs_scale(DELTA, {"x": 1e-5}, [0, 8])
    with pytest.raises(ValueError, match="highlight_gpus"):
        viz.checkpoint_interval_vs_scale(DELTA, {"x": 1e-5}, [8, 16], highlight_gpus=True)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="reference_mtbf"):
        viz.checkpoint_interval_vs_scale(DELTA, {"x": 1e-5}, [8, 16], reference_mtbf=0.0)
    with pytest.raises(ValueError, match="save_time"):
        viz.checkpoint_interval_vs_scale(-1.0, {"x": 1e-5}, [8, 16])
