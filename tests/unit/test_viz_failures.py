"""clusterlab.viz failure charts (§9.6.4): plotted data equal the reliability/checkpoint models, labels mark
unverified sources, reference lines sit where they should, bad input is refused, output is deterministic."""

from __future__ import annotations

import math
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.text import Text

from clusterlab import viz
from clusterlab.faults import checkpoint, reliability

H = 3600.0


def _close(fig: Figure) -> None:
    plt.close(fig)


def _lines(fig: Figure) -> list[Line2D]:
    (ax,) = fig.axes
    return list(ax.get_lines())


def _labelled(fig: Figure) -> dict[str, Line2D]:
    return {ln.get_label(): ln for ln in _lines(fig) if not ln.get_label().startswith("_")}


def _texts(fig: Figure) -> list[str]:
    return [t.get_text() for t in fig.findobj(Text) if t.get_text()]


def _draw(fig: Figure) -> None:
    fig.canvas.draw()


# --------------------------------------------------------------------------------------------------------
# MTBF vs G
# --------------------------------------------------------------------------------------------------------
def test_mtbf_lines_are_one_over_g_lambda(strict_warnings: None) -> None:
    fig = viz.mtbf_vs_gpus()
    _draw(fig)
    lines = _labelled(fig)
    for src in reliability.FAILURE_DATA:
        (line,) = [ln for label, ln in lines.items() if label.startswith(src.label)]
        g = np.asarray(line.get_xdata(), dtype=float)
        y = np.asarray(line.get_ydata(), dtype=float)
        assert g[0] == 1 and g[-1] == 131072
        np.testing.assert_allclose(y, 1 / (g * src.rate), rtol=1e-12)
        assert ("需核实" in line.get_label()) == (not src.verified and src.key != "seed")
    (ax,) = fig.axes
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
    _close(fig)


def test_mtbf_marks_the_seed_table_llama3_and_references() -> None:
    fig = viz.mtbf_vs_gpus()
    _draw(fig)
    lines = _lines(fig)
    seed = reliability.failure_source("seed")
    # open circles at the original table's G with the table's values 41 667 / 651 / 40.7 / 20.3 h
    seed_pts = [ln for ln in lines if ln.get_marker() == "o" and ln.get_markerfacecolor() == "white"]
    assert len(seed_pts) == 1
    np.testing.assert_array_equal(seed_pts[0].get_xdata(), [8, 512, 8192, 16384])
    np.testing.assert_allclose(seed_pts[0].get_ydata(), [1 / (g * seed.rate) for g in (8, 512, 8192, 16384)])
    assert seed_pts[0].get_ydata()[-1] == pytest.approx(20.345, rel=1e-3)
    # Llama 3's observed point: 54 days · 24 h / 419 interruptions, whatever G is
    (star,) = [ln for ln in lines if ln.get_marker() == "*"]
    assert star.get_xdata()[0] == 16384
    assert star.get_ydata()[0] == pytest.approx(54 * 24 / 419)
    # reference lines at 1 h, 1 day and 1 week, and their labels
    flat = sorted(
        float(ln.get_ydata()[0]) for ln in lines if len(set(np.asarray(ln.get_ydata(), dtype=float))) == 1
        and ln.get_marker() in ("None", "", None)
    )
    assert flat == [1.0, 24.0, 168.0]
    texts = _texts(fig)
    assert {"1 小时", "1 天", "1 周"} <= set(texts)
    assert any(t.startswith("÷6.6") for t in texts)  # 20.3 h / 3.09 h
    assert any("20.3 h" == t for t in texts)
    _close(fig)


def test_mtbf_selects_sources_and_range() -> None:
    fig = viz.mtbf_vs_gpus((64,), g_range=(8, 1024), keys=["llama3", "opt175b"])
    labels = list(_labelled(fig))
    assert len([s for s in labels if "λ" in s]) == 2
    assert not any(ln.get_marker() == "*" for ln in _lines(fig))  # 16 384 lies outside the range
    (ax,) = fig.axes
    lo, hi = ax.get_xlim()
    assert lo < 8 and 1024 < hi < 2048
    _close(fig)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"components": [0]}, "components"),
        ({"components": [8.5]}, "components"),
        ({"g_range": (1024, 8)}, "g_range"),
        ({"g_range": (8,)}, "g_range"),
        ({"keys": ["nope"]}, "key"),
        ({"keys": "llama3"}, "keys"),
        ({"keys": []}, "keys"),
    ],
)
def test_mtbf_bad_input(kwargs: dict[str, object], match: str) -> None:
    before = set(plt.get_fignums())
    with pytest.raises(ValueError, match=match):
        viz.mtbf_vs_gpus(**kwargs)  # type: ignore[arg-type]
    assert set(plt.get_fignums()) == before


# --------------------------------------------------------------------------------------------------------
# lost time vs G
# --------------------------------------------------------------------------------------------------------
def test_overhead_lines_are_the_exact_expected_loss_at_dalys_interval(strict_warnings: None) -> None:
    fig = viz.failure_overhead_vs_gpus(56.0, 600.0)
    _draw(fig)
    for src in reliability.FAILURE_DATA:
        (line,) = [ln for label, ln in _labelled(fig).items() if label.startswith(src.label)]
        g = np.asarray(line.get_xdata(), dtype=float)
        y = np.asarray(line.get_ydata(), dtype=float)
        m = H / (g * src.rate)
        expected = [
            100 * checkpoint.expected_wasted_fraction(checkpoint.daly_interval(56.0, mi), 56.0, mi, 600.0)
            for mi in m
        ]
        np.testing.assert_allclose(y, expected, rtol=1e-12)
        assert np.all(np.diff(y) > 0) and np.all(y < 100)  # more GPUs, more loss; never above 100 %
    # at 16 384 GPUs with the Llama 3 rate: first-order sqrt(2δ/M) + R/M ≈ 15.4 %, exact ≈ 14.4 %
    lam = reliability.failure_source("llama3").rate
    m = H / (16384 * lam)
    pts = [ln for ln in _lines(fig) if ln.get_marker() == "o" and 16384 in list(ln.get_xdata())]
    values = {round(float(ln.get_ydata()[list(ln.get_xdata()).index(16384)]), 6) for ln in pts}
    exact = 100 * checkpoint.expected_wasted_fraction(checkpoint.daly_interval(56.0, m), 56.0, m, 600.0)
    assert round(exact, 6) in values
    assert exact == pytest.approx(14.4, abs=0.1)
    assert 100 * (math.sqrt(2 * 56 / m) + 600 / m) == pytest.approx(15.4, abs=0.1)
    (ax,) = fig.axes
    assert ax.get_xscale() == "log" and ax.get_ylim() == (0.0, 100.0)
    assert any("有效训练时间 90%" in t for t in _texts(fig))
    _close(fig)


def test_overhead_without_target_line() -> None:
    fig = viz.failure_overhead_vs_gpus(56.0, 0.0, target=None, keys=["seed"])
    assert not any("有效训练时间" in t for t in _texts(fig))
    _close(fig)


@pytest.mark.parametrize(
    ("args", "kwargs", "match"),
    [
        ((-1.0, 600.0), {}, "save_time"),
        ((56.0, -1.0), {}, "restart_time"),
        ((56.0, 600.0), {"target": 1.5}, "target"),
        ((56.0, 600.0), {"g_range": (0, 8)}, "g_range"),
        ((56.0, 600.0), {"keys": ["x"]}, "key"),
    ],
)
def test_overhead_bad_input(args: tuple[float, float], kwargs: dict[str, object], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        viz.failure_overhead_vs_gpus(*args, **kwargs)  # type: ignore[arg-type]


def test_png_is_byte_identical(tmp_path: Path) -> None:
    blobs = []
    for i in range(2):
        for j, make in enumerate((viz.mtbf_vs_gpus, lambda: viz.failure_overhead_vs_gpus(56.0, 600.0))):
            fig = make()
            blobs.append(viz.save_figure(fig, tmp_path / f"f{i}{j}.png", dpi=60).read_bytes())
            _close(fig)
    assert blobs[0] == blobs[2] and blobs[1] == blobs[3]
