"""clusterlab.viz fault-tolerance figures: the drawn data equal the models (ring timing, resumed runs, incident
phases, goodput), bad input is refused, Chinese text renders without missing glyphs, output is deterministic."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib.collections import PolyCollection
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle
from matplotlib.text import Text

from clusterlab import viz
from clusterlab.faults import checkpoint, incident, reliability, slowlink
from clusterlab.faults import recovery as rc

SMALL = rc.Config(samples=128, hidden=16, batch=16, warmup=10, horizon=100)
LAMBDA = reliability.failure_source("llama3").rate


@pytest.fixture(scope="module")
def small_experiment() -> rc.RecoveryExperiment:
    return rc.recovery_experiment(80, 30, SMALL)


def _texts(fig: Figure) -> list[str]:
    return [t.get_text() for t in fig.findobj(Text) if t.get_text()]


def _bars(ax: plt.Axes) -> list[Rectangle]:
    return [p for p in ax.patches if isinstance(p, Rectangle)]


def _rings() -> tuple[slowlink.RingLinkTiming, slowlink.RingLinkTiming]:
    return (slowlink.ring_with_slow_link(14e9, [25e9] * 8),
            slowlink.ring_with_slow_link(14e9, [25e9] * 7 + [2.5e9]))


# --------------------------------------------------------------------------------------------------------
# slow link
# --------------------------------------------------------------------------------------------------------
def test_slow_link_bars_are_busy_and_idle_time(strict_warnings: None) -> None:
    healthy, degraded = _rings()
    fig = viz.slow_link_figure(healthy, degraded)
    fig.canvas.draw()
    ax_l, ax_r = fig.axes
    bars = _bars(ax_l)
    busy, idle = bars[:8], bars[8:16]
    expected_busy = degraded.link_times.sum(axis=0)
    np.testing.assert_allclose([b.get_height() for b in busy], expected_busy, rtol=1e-12)
    np.testing.assert_allclose([b.get_height() + i.get_height() for b, i in zip(busy, idle, strict=True)],
                               degraded.total_time, rtol=1e-12)
    assert busy[7].get_facecolor() != busy[0].get_facecolor()  # the slow link stands out
    totals = [b.get_height() for b in _bars(ax_r)]
    np.testing.assert_allclose(totals, [healthy.total_time, degraded.total_time], rtol=1e-12)
    text = " ".join(_texts(fig))
    assert "慢了 10 倍" in text and "闲 90%" in text and "最慢的链路" in text
    plt.close(fig)


def test_slow_link_refuses_mismatched_rings() -> None:
    healthy, _ = _rings()
    other = slowlink.ring_with_slow_link(14e9, [25e9] * 4)
    with pytest.raises(ValueError, match="same shape"):
        viz.slow_link_figure(healthy, other)
    with pytest.raises(ValueError, match="RingLinkTiming"):
        viz.slow_link_figure(healthy, "slow")  # type: ignore[arg-type]


# --------------------------------------------------------------------------------------------------------
# resumed runs
# --------------------------------------------------------------------------------------------------------
def test_recovery_curves_draw_the_runs(small_experiment: rc.RecoveryExperiment, strict_warnings: None) -> None:
    ex = small_experiment
    fig = viz.recovery_curves(ex, window=40)
    fig.canvas.draw()
    ax_l, ax_r = fig.axes
    lines = {ln.get_label(): ln for ln in ax_l.get_lines() if not ln.get_label().startswith("_")}
    (base,) = [ln for label, ln in lines.items() if label.startswith("不中断")]
    np.testing.assert_array_equal(base.get_ydata(), ex.baseline.loss)
    (no_opt,) = [ln for label, ln in lines.items() if "优化器" in label]
    np.testing.assert_array_equal(no_opt.get_xdata(), np.arange(31, 81))
    np.testing.assert_array_equal(no_opt.get_ydata(), ex.resumed["no_optimizer"].loss)
    assert ax_l.get_yscale() == "log"
    ratios = {ln.get_label(): ln for ln in ax_r.get_lines() if not ln.get_label().startswith("_")}
    (exact,) = [ln for label, ln in ratios.items() if label.startswith("四件")]
    assert np.all(np.asarray(exact.get_ydata()) == 1.0)
    (no_rng,) = [ln for label, ln in ratios.items() if "RNG" in label]
    np.testing.assert_allclose(no_rng.get_ydata(), ex.resumed["no_rng"].loss[:40] / ex.baseline.loss[30:70],
                               rtol=1e-12)
    assert "第 30 步存盘并中断" in " ".join(_texts(fig))
    plt.close(fig)


def test_recovery_curves_refuse_bad_input(small_experiment: rc.RecoveryExperiment) -> None:
    with pytest.raises(ValueError, match="RecoveryExperiment"):
        viz.recovery_curves("run")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="window"):
        viz.recovery_curves(small_experiment, window=1)


# --------------------------------------------------------------------------------------------------------
# incident timeline
# --------------------------------------------------------------------------------------------------------
def test_incident_timeline_segments_are_the_phases(strict_warnings: None) -> None:
    manual = incident.Incident.with_interval(600, 1800, 600, 300, 4620)
    auto = incident.Incident.with_interval(120, 300, 180, 60, 4620)
    fig = viz.incident_timeline([("人工", manual), ("自动", auto)])
    fig.canvas.draw()
    (ax,) = fig.axes
    bars = _bars(ax)
    widths = [b.get_width() for b in bars]
    expected = [s / 60 for _, s in manual.phases()] + [s / 60 for _, s in auto.phases()]
    np.testing.assert_allclose(widths, expected, rtol=1e-12)
    lefts = [b.get_x() for b in bars[:5]]
    np.testing.assert_allclose(lefts, np.cumsum([0, *expected[:4]]), rtol=1e-12)
    text = " ".join(_texts(fig))
    assert "MTTR 55 min" in text and "合计 93.5 min" in text and "追赶进度" in text
    plt.close(fig)


def test_incident_timeline_refuses_bad_input() -> None:
    with pytest.raises(ValueError, match="incidents"):
        viz.incident_timeline([])
    with pytest.raises(ValueError, match="incidents"):
        viz.incident_timeline([("a", 5.0)])  # type: ignore[list-item]


# --------------------------------------------------------------------------------------------------------
# goodput
# --------------------------------------------------------------------------------------------------------
def test_goodput_vs_interval_stacks_the_goodput_split(strict_warnings: None) -> None:
    m = reliability.job_mtbf(16384, LAMBDA)
    ts = [120.0, 600.0, 1200.0, 3600.0]
    fig = viz.goodput_vs_interval(60, m, 1800, intervals=ts)
    fig.canvas.draw()
    (ax,) = fig.axes
    polys = [c for c in ax.collections if isinstance(c, PolyCollection)]
    assert len(polys) == 4
    top_of_useful = polys[0].get_paths()[0].vertices
    for t in ts:
        g = reliability.goodput(t, 60, m, 1800)
        ys = top_of_useful[np.isclose(top_of_useful[:, 0], t / 60), 1]
        assert np.isclose(ys, 100 * g.useful).any()
    t_star = checkpoint.young_interval(60, m)
    vlines = [ln for ln in ax.get_lines() if np.allclose(ln.get_xdata(), t_star / 60)]
    assert vlines
    assert "Young" in " ".join(_texts(fig))
    plt.close(fig)


def test_goodput_vs_scale_lines_are_useful_fractions(strict_warnings: None) -> None:
    gpus = [512, 1024, 16384]
    fig = viz.goodput_vs_scale(gpus, LAMBDA, 60, [600, 3600])
    fig.canvas.draw()
    (ax,) = fig.axes
    lines = [ln for ln in ax.get_lines() if not ln.get_label().startswith("_")]
    assert [ln.get_label() for ln in lines] == ["MTTR = 10 min", "MTTR = 60 min"]
    for ln, r in zip(lines, [600, 3600], strict=True):
        expected = []
        for g in gpus:
            m = reliability.job_mtbf(g, LAMBDA)
            expected.append(100 * reliability.goodput(checkpoint.young_interval(60, m), 60, m, r).useful)
        np.testing.assert_allclose(ln.get_ydata(), expected, rtol=1e-12)
    assert ax.get_xscale() == "log"
    plt.close(fig)


def test_goodput_figures_refuse_bad_input() -> None:
    with pytest.raises(ValueError, match="save_time"):
        viz.goodput_vs_interval(0, 3600, 60)
    with pytest.raises(ValueError, match="intervals"):
        viz.goodput_vs_interval(60, 3600, 60, intervals=[100.0])
    with pytest.raises(ValueError, match="gpus_list"):
        viz.goodput_vs_scale([1024], LAMBDA, 60, [60])
    with pytest.raises(ValueError, match="mttrs"):
        viz.goodput_vs_scale([512, 1024], LAMBDA, 60, [])
    with pytest.raises(ValueError, match="rate_per_hour"):
        viz.goodput_vs_scale([512, 1024], 0, 60, [60])


# --------------------------------------------------------------------------------------------------------
# determinism
# --------------------------------------------------------------------------------------------------------
def test_saved_png_is_deterministic(tmp_path: Path, small_experiment: rc.RecoveryExperiment) -> None:
    outs = []
    for i in range(2):
        fig = viz.recovery_curves(small_experiment)
        outs.append(viz.save_figure(fig, tmp_path / f"r{i}.png").read_bytes())
        plt.close(fig)
    assert outs[0] == outs[1]


def test_goodput_vs_interval_default_range_keeps_progress() -> None:
    m, r = reliability.job_mtbf(16384, LAMBDA), 3300.0
    fig = viz.goodput_vs_interval(60, m, r)
    (ax,) = fig.axes
    lo, hi = ax.get_xlim()
    assert lo == pytest.approx(1.0) and hi * 60 < 2 * (m - r) - 60
    assert reliability.goodput(hi * 60, 60, m, r).useful > 0
    plt.close(fig)
    with pytest.raises(ValueError, match="mttr"):
        viz.goodput_vs_interval(60, 3600, 3600)
