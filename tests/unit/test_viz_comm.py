"""clusterlab.viz charts of the α-β model, the chunked ring pipeline and the choice of algorithm."""

from __future__ import annotations

import io
import warnings
from collections.abc import Callable
from typing import Any

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import numpy.typing as npt
import pytest
from matplotlib import colors as mcolors
from matplotlib.artist import Artist
from matplotlib.collections import QuadMesh
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Rectangle
from matplotlib.text import Text

from clusterlab import viz
from clusterlab.book import labels
from clusterlab.communication import chunking, collectives, ring
from clusterlab.units import fmt_seconds
from clusterlab.viz import _calculator, _chunks

S, N, BETA, ALPHA = 14e9, 8, 25e9, 5e-6  # 14 GB, 8 ranks, 200 Gb/s per direction, 5 µs


def by_gid(fig: Figure, gid: str) -> list[Any]:
    return list(fig.findobj(lambda a: isinstance(a, Artist) and a.get_gid() == gid))


def line(fig: Figure, gid: str, ax_index: int | None = None) -> Line2D:
    found = [a for a in by_gid(fig, gid) if isinstance(a, Line2D)]
    if ax_index is not None:
        found = [a for a in found if a.axes is fig.axes[ax_index]]
    assert len(found) == 1, f"expected one line with gid {gid!r}, found {len(found)}"
    return found[0]


def xs(ln: Line2D) -> npt.NDArray[np.float64]:
    return np.asarray(ln.get_xdata(), dtype=float)


def ys(ln: Line2D) -> npt.NDArray[np.float64]:
    return np.asarray(ln.get_ydata(), dtype=float)


def render(fig: Figure) -> list[str]:
    """Draw to PNG (glyph warnings surface here), close the figure, return every text shown."""
    fig.savefig(io.BytesIO(), format="png", dpi=50)
    shown = [t.get_text() for t in fig.findobj(Text) if t.get_text()]
    plt.close(fig)
    return shown


# --------------------------------------------------------------------------------------------------------
# time vs message size
# --------------------------------------------------------------------------------------------------------
def test_time_vs_message_size_data(no_leak: None, strict_warnings: list[warnings.WarningMessage]) -> None:
    ns = [2, 8, 64]
    sizes = np.geomspace(1e3, 14e9, 40)
    fig = viz.time_vs_message_size(ns, ALPHA, BETA, sizes=sizes)
    ax = fig.axes[0]
    assert ax.get_xscale() == ax.get_yscale() == "log"
    for n in ns:
        t = line(fig, f"time-N{n}")
        np.testing.assert_allclose(xs(t), sizes)
        np.testing.assert_allclose(
            ys(t), [collectives.alpha_beta_time("all_reduce", x, n, ALPHA, BETA) for x in sizes]
        )
        floor = ys(line(fig, f"latency-N{n}"))
        assert np.allclose(floor, 2 * (n - 1) * ALPHA)
        bw = line(fig, f"bandwidth-N{n}")
        np.testing.assert_allclose(
            ys(bw),
            [collectives.cost("all_reduce", x, n, 5e-6, BETA).bandwidth for x in xs(bw)],
        )
        # ring all-reduce: the two terms are equal at S = N·α·β, where T is twice the latency floor
        eq = line(fig, f"equal-N{n}")
        assert xs(eq)[0] == pytest.approx(n * ALPHA * BETA)
        assert ys(eq)[0] == pytest.approx(2 * 2 * (n - 1) * ALPHA)
    n_star = line(fig, "n-star")
    assert xs(n_star)[0] == pytest.approx(collectives.crossover_size(ALPHA, BETA))
    shown = render(fig)
    joined = "\n".join(shown)
    for needle in ("延迟主导", "带宽主导", "n* = α·β = 125 KB", "25 GB/s", "200 Gb/s", "每方向"):
        assert needle in joined
    assert {"1 KB", "1 MB", "1 GB"} <= set(shown)  # byte ticks carry units
    assert any(s.endswith("µs") for s in shown) and any(s.endswith("ms") for s in shown)


def test_time_vs_message_size_other_algorithm_and_op(no_leak: None) -> None:
    fig = viz.time_vs_message_size([16], ALPHA, BETA, op="all_reduce", algorithm="tree")
    eq = line(fig, "equal-N16")
    # tree: 2⌈log₂N⌉α = 2S/β  →  S = ⌈log₂N⌉αβ
    assert xs(eq)[0] == pytest.approx(4 * ALPHA * BETA)
    plt.close(fig)
    fig = viz.time_vs_message_size([4], ALPHA, BETA, op="broadcast", sizes=[1e3, 1e6])
    np.testing.assert_allclose(ys(line(fig, "time-N4")),
                               [collectives.alpha_beta_time("broadcast", x, 4, ALPHA, BETA) for x in (1e3, 1e6)])
    plt.close(fig)


# --------------------------------------------------------------------------------------------------------
# algbw and busbw
# --------------------------------------------------------------------------------------------------------
def test_busbw_curve_tends_to_link_speed(no_leak: None, strict_warnings: list[warnings.WarningMessage]) -> None:
    sizes = np.geomspace(1e3, 14e9, 30)
    fig = viz.busbw_curve("all_reduce", N, ALPHA, BETA, sizes=sizes)
    times = [collectives.alpha_beta_time("all_reduce", x, N, ALPHA, BETA) for x in sizes]
    bus = ys(line(fig, "busbw"))
    alg = ys(line(fig, "algbw"))
    np.testing.assert_allclose(bus, [collectives.busbw("all_reduce", x, N, t)
                                     for x, t in zip(sizes, times, strict=True)])
    np.testing.assert_allclose(alg, [collectives.algbw(x, t) for x, t in zip(sizes, times, strict=True)])
    assert bus[-1] == pytest.approx(BETA, rel=1e-3)  # bandwidth-optimal: busbw → β
    assert bus[-1] / alg[-1] == pytest.approx(2 * (N - 1) / N)
    assert ys(line(fig, "beta"))[0] == pytest.approx(BETA)
    assert ys(line(fig, "algbw-limit"))[0] == pytest.approx(BETA * N / (2 * (N - 1)))
    assert np.all(np.diff(bus) > 0)
    shown = render(fig)
    assert "带宽（GB/s）" in shown
    assert any("2(N−1)/N" in s and "1.75" in s for s in shown)


def test_busbw_curve_naive_stays_far_below_link(no_leak: None) -> None:
    fig = viz.busbw_curve("all_reduce", N, ALPHA, BETA, algorithm="naive")
    assert ys(line(fig, "busbw"))[-1] < BETA / 3
    plt.close(fig)


# --------------------------------------------------------------------------------------------------------
# chunked ring: T(c), sensitivity, Gantt
# --------------------------------------------------------------------------------------------------------
def test_chunk_curve_optimum_bound_and_simulation(
    no_leak: None, strict_warnings: list[warnings.WarningMessage]
) -> None:
    opt = chunking.best_chunks(S, N, ALPHA, BETA, stages=3)
    fig = viz.chunk_curve(S, N, ALPHA, BETA)
    for ax_index in (0, 1):
        star = line(fig, "optimum", ax_index)
        assert xs(star)[0] == opt.chunks == 45
        assert ys(star)[0] == pytest.approx(opt.time)
        bound = ys(line(fig, "lower-bound", ax_index))[0]
        assert bound == pytest.approx(2 * S * (N - 1) / (N * BETA))
    curve = line(fig, "closed-form", 0)
    cs = np.asarray(xs(curve))
    assert cs[0] == 1 and opt.chunks in cs and cs[-1] > 10 * opt.chunks
    np.testing.assert_allclose(ys(curve), [ring.pipelined_time(S, N, int(c), ALPHA, BETA) for c in cs])
    assert min(ys(curve)) == pytest.approx(opt.time)
    sim = line(fig, "simulated", 0)
    at = [int(c) for c in xs(sim)]
    assert opt.chunks in at and 1 in at and len(at) >= 4
    np.testing.assert_allclose(ys(sim), [ring.simulate_pipelined(S, N, c, ALPHA, BETA).makespan for c in at])
    np.testing.assert_allclose(ys(sim), [ring.pipelined_time(S, N, c, ALPHA, BETA) for c in at])
    assert not by_gid(fig, "single-stage")
    shown = render(fig)
    assert any("c* = 45" in s and "38.9 MB" in s for s in shown)


def test_chunk_curve_single_stage_and_explicit_points(no_leak: None) -> None:
    fig = viz.chunk_curve(64e6, 16, ALPHA, BETA, stages=4, chunks=range(1, 41), simulate_at=[2, 7],
                          compare_single_stage=True)
    single = line(fig, "single-stage", 0)
    np.testing.assert_allclose(xs(single), np.arange(1, 41))
    assert np.all(np.diff(ys(single)) > 0)  # h = 1: chunking only adds latency
    assert ys(single)[0] == pytest.approx(chunking.best_chunks(64e6, 16, ALPHA, BETA, stages=1).time)
    sim = line(fig, "simulated", 0)
    assert list(xs(sim)) == [2, 7]
    np.testing.assert_allclose(
        ys(sim), [ring.simulate_pipelined(64e6, 16, c, ALPHA, BETA, stages=4).makespan for c in (2, 7)]
    )
    plt.close(fig)


def test_chunk_sensitivity_follows_best_chunks(
    no_leak: None, strict_warnings: list[warnings.WarningMessage]
) -> None:
    fig = viz.chunk_sensitivity(S, N, ALPHA, BETA)
    main = [ax for ax in fig.axes if any(ln.get_gid() == "c-star" for ln in ax.lines)]
    assert len(main) == 4
    solvers: list[Callable[[float], chunking.ChunkChoice]] = [
        lambda v: chunking.best_chunks(S, N, v, BETA),
        lambda v: chunking.best_chunks(S, N, ALPHA, v),
        lambda v: chunking.best_chunks(S, round(v), ALPHA, BETA),
        lambda v: chunking.best_chunks(v, N, ALPHA, BETA),
    ]
    givens = (ALPHA, BETA, N, S)
    for ax, solve, given in zip(main, solvers, givens, strict=True):
        c_star = next(ln for ln in ax.lines if ln.get_gid() == "c-star")
        grid = xs(c_star)
        assert grid[0] < given < grid[-1]
        np.testing.assert_allclose(ys(c_star), [solve(float(v)).chunks for v in grid])
        assert np.any(np.isclose(grid, given))  # the given value is on the grid
    # chunk size on the twin axes, from the same optimum
    sizes = [ln for ln in by_gid(fig, "chunk-bytes") if isinstance(ln, Line2D)]
    assert len(sizes) == 4
    np.testing.assert_allclose(ys(sizes[3]),
                               [chunking.best_chunks(v, N, ALPHA, BETA).chunk_bytes for v in xs(sizes[3])])
    # c* falls with α and β, rises with S
    first = [np.asarray(ys(next(ln for ln in ax.lines if ln.get_gid() == "c-star"))) for ax in main]
    assert first[0][0] > first[0][-1] and first[1][0] > first[1][-1] and first[3][0] < first[3][-1]
    shown = render(fig)
    assert any("c* ∝ 1/√α" in s for s in shown)


def bars(fig: Figure) -> list[list[Rectangle]]:
    return [list(c) for c in fig.axes[0].containers if str(c.get_label()).startswith("_stage")]


def test_pipeline_gantt_bars_match_schedule(no_leak: None, strict_warnings: list[warnings.WarningMessage]) -> None:
    sched = ring.simulate_pipelined(S, 4, 4, ALPHA, BETA, stages=3)
    fig = viz.pipeline_gantt(sched, path=1)
    rows = bars(fig)
    assert len(rows) == 3
    jobs = 2 * (4 - 1) * 4
    for j, row in enumerate(rows):
        assert len(row) == jobs
        np.testing.assert_allclose([r.get_x() + r.get_width() for r in row], sched.finish[1, :, j])
        np.testing.assert_allclose([r.get_width() for r in row], sched.chunk_time)
    # reduce-scatter jobs and all-gather jobs come from two colour families
    first, last = mcolors.to_rgba(rows[0][0].get_facecolor()), mcolors.to_rgba(rows[0][-1].get_facecolor())
    assert first[0] > first[2] and last[2] > last[0]  # orange-ish, then blue-ish
    assert not by_gid(fig, "stall")  # c ≥ h: the pipeline never stalls
    assert by_gid(fig, "fill") and by_gid(fig, "drain")
    shown = render(fig)
    assert "RS1" in shown and "AG3" in shown


def test_pipeline_gantt_shows_stalls_when_c_below_h(no_leak: None) -> None:
    sched = ring.simulate_pipelined(S, 4, 1, ALPHA, BETA, stages=3)
    fig = viz.pipeline_gantt(sched)
    stalls = [p for p in by_gid(fig, "stall") if isinstance(p, Rectangle)]
    assert stalls
    # idle time on a row = makespan − busy time; the drawn gaps account for all of it
    idle = sum(p.get_width() for p in fig.findobj(Rectangle) if p.get_gid() in ("stall", "fill", "drain"))
    busy = 3 * 6 * sched.chunk_time
    assert idle == pytest.approx(3 * sched.makespan - busy)
    plt.close(fig)


def test_pipeline_gantt_caps_jobs(no_leak: None) -> None:
    sched = ring.simulate_pipelined(S, N, 45, ALPHA, BETA)
    fig = viz.pipeline_gantt(sched, max_jobs=20)
    assert [len(r) for r in bars(fig)] == [20, 20, 20]
    assert not by_gid(fig, "drain")
    plt.close(fig)
    fig = viz.pipeline_gantt(sched)
    assert len(bars(fig)[0]) == _chunks.GANTT_JOBS_MAX
    plt.close(fig)


# --------------------------------------------------------------------------------------------------------
# choice of algorithm
# --------------------------------------------------------------------------------------------------------
def test_algorithm_regions_cells_are_best_algorithm(
    no_leak: None, strict_warnings: list[warnings.WarningMessage]
) -> None:
    ranks = [4, 6, 8, 12, 16, 24, 64, 96, 1024]
    sizes = np.geomspace(1e3, 1e10, 15)
    fig = viz.algorithm_regions(ALPHA, BETA, ranks=ranks, sizes=sizes)
    (mesh,) = [m for m in by_gid(fig, "regions") if isinstance(m, QuadMesh)]
    codes = np.asarray(mesh.get_array()).reshape(len(sizes), len(ranks))
    for i in (0, 5, 9, 14):
        for j in range(len(ranks)):
            best = collectives.best_algorithm("all_reduce", sizes[i], ranks[j], ALPHA, BETA).best
            assert collectives.ALGORITHMS[int(codes[i, j])] == best
    winners = {collectives.ALGORITHMS[int(c)] for c in codes.ravel()}
    assert winners == {"ring", "tree", "halving_doubling"}
    star = line(fig, "tree-ring")
    np.testing.assert_allclose(ys(star), [collectives.tree_ring_crossover(int(n), ALPHA, BETA) for n in xs(star)])
    shown = render(fig)
    assert any("环形 ring" in s for s in shown) and any("双二叉树 tree" in s for s in shown)


def test_algorithm_regions_hierarchical_only_where_nodes_fit(no_leak: None) -> None:
    ranks = [12, 16, 24]
    sizes = [1e6, 1e9, 1e10]
    fig = viz.algorithm_regions(ALPHA, BETA, ranks=ranks, sizes=sizes, ranks_per_node=8)
    (mesh,) = [m for m in by_gid(fig, "regions") if isinstance(m, QuadMesh)]
    codes = np.asarray(mesh.get_array()).reshape(len(sizes), len(ranks))
    assert collectives.ALGORITHMS.index("hierarchical") not in codes[:, 0]  # 12 ranks ≠ whole nodes of 8
    expected = collectives.best_algorithm("all_reduce", 1e10, 24, ALPHA, BETA, ranks_per_node=8).best
    assert collectives.ALGORITHMS[int(codes[2, 2])] == expected == "hierarchical"
    plt.close(fig)
    fig = viz.algorithm_regions(ALPHA, BETA, ranks=[4, 8], sizes=[1e3, 1e9], op="all_gather")
    assert not by_gid(fig, "tree-ring")  # tree models all-reduce only
    plt.close(fig)


def test_algorithm_times_lines_and_ratios(no_leak: None, strict_warnings: list[warnings.WarningMessage]) -> None:
    sizes = np.geomspace(1e3, 1e10, 20)
    fig = viz.algorithm_times(N, ALPHA, BETA, sizes=sizes)
    algs = ("ring", "naive", "tree", "halving_doubling")
    ratios = []
    for a in algs:
        np.testing.assert_allclose(
            ys(line(fig, f"time-{a}")),
            [collectives.alpha_beta_time("all_reduce", x, N, ALPHA, BETA, a) for x in sizes],
        )
        ratios.append(np.asarray(ys(line(fig, f"ratio-{a}"))))
    stacked = np.vstack(ratios)
    np.testing.assert_allclose(stacked.min(axis=0), 1.0)
    assert np.all(stacked >= 1.0 - 1e-12)
    assert not by_gid(fig, "time-hierarchical")
    render(fig)


# --------------------------------------------------------------------------------------------------------
# calculator
# --------------------------------------------------------------------------------------------------------
def test_calculator_text_numbers() -> None:
    text = _calculator._calculator_text("all_reduce", "ring", N, S, ALPHA, BETA)
    assert "980.1 ms" in text  # 2(N−1)α + 2S(N−1)/(Nβ) = 70 µs + 980 ms
    assert "延迟项 latency" in text and "70 µs" in text
    assert "busbw" in text and "25 GB/s" in text and "algbw = S/T = 14.3 GB/s" in text
    assert "带宽主导" in text
    best = collectives.best_algorithm("all_reduce", S, N, ALPHA, BETA).best
    assert f"最快的算法 best：{labels.algorithm_name(best)}" in text
    small = _calculator._calculator_text("all_reduce", "ring", 1024, 1e3, ALPHA, BETA)
    assert "延迟主导" in small
    hier = _calculator._calculator_text("all_reduce", "hierarchical", 64, S, ALPHA, BETA, ranks_per_node=8)
    assert "分层 hierarchical" in hier
    t_h = collectives.alpha_beta_time("all_reduce", S, 64, ALPHA, BETA, "hierarchical", ranks_per_node=8)
    assert fmt_seconds(t_h, 4) in hier


def test_calculator_html_reports_unmodelled_choice() -> None:
    html = _calculator._calculator_html("all_gather", "tree", 8, 1e6, ALPHA, BETA, 8)
    assert "无法计算" in html and "all_reduce" in html
    html = _calculator._calculator_html("all_reduce", "hierarchical", 12, 1e6, ALPHA, BETA, 8)
    assert "无法计算" in html and "ranks_per_node" in html
    assert "&lt;" not in _calculator._calculator_html("all_reduce", "ring", 8, 1e6, ALPHA, BETA, 8)


def test_calculator_widget_updates(no_leak: None) -> None:
    box = viz.alpha_beta_calculator()
    controls, out = box.children
    w_op, w_alg, w_n = controls.children[:3]
    first = out.value
    assert "980.1 ms" in first
    w_n.value = 1024
    assert out.value != first and "N = 1024" in out.value
    w_alg.value = "tree"
    assert "双二叉树 tree · N = 1024" in out.value
    w_op.value = "all_gather"
    assert "无法计算" in out.value
    w_alg.value = "ring"
    assert "全收集 all-gather" in out.value and "无法计算" not in out.value


# --------------------------------------------------------------------------------------------------------
# validation
# --------------------------------------------------------------------------------------------------------
SCHED = ring.simulate_pipelined(1e6, 4, 2, ALPHA, BETA)
BAD: list[tuple[Callable[[], object], str]] = [
    (lambda: viz.time_vs_message_size([], ALPHA, BETA), "ranks_list"),
    (lambda: viz.time_vs_message_size([1, 4], ALPHA, BETA), "ranks_list"),
    (lambda: viz.time_vs_message_size(8, ALPHA, BETA), "ranks_list"),  # type: ignore[arg-type]
    (lambda: viz.time_vs_message_size(list(range(2, 10)), ALPHA, BETA), "ranks_list"),
    (lambda: viz.time_vs_message_size([8], 0.0, BETA), "latency"),
    (lambda: viz.time_vs_message_size([8], ALPHA, -1.0), "bandwidth"),
    (lambda: viz.time_vs_message_size([8], ALPHA, BETA, op="allreduce"), "op"),
    (lambda: viz.time_vs_message_size([8], ALPHA, BETA, op="all_gather", algorithm="tree"), "algorithm"),
    (lambda: viz.time_vs_message_size([8], ALPHA, BETA, algorithm="hierarchical"), "algorithm"),
    (lambda: viz.time_vs_message_size([8], ALPHA, BETA, sizes=[1e3]), "sizes"),
    (lambda: viz.time_vs_message_size([8], ALPHA, BETA, sizes=[0.0, 1e3]), "sizes"),
    (lambda: viz.time_vs_message_size([8], ALPHA, BETA, sizes="big"), "sizes"),  # type: ignore[arg-type]
    (lambda: viz.busbw_curve("all_reduce", 1, ALPHA, BETA), "ranks"),
    (lambda: viz.busbw_curve("all_reduce", N, -ALPHA, BETA), "latency"),
    (lambda: viz.busbw_curve("gather", N, ALPHA, BETA), "op"),
    (lambda: viz.chunk_curve(0.0, N, ALPHA, BETA), "size"),
    (lambda: viz.chunk_curve(S, 1, ALPHA, BETA), "ranks"),
    (lambda: viz.chunk_curve(S, N, 0.0, BETA), "latency"),
    (lambda: viz.chunk_curve(S, N, ALPHA, BETA, stages=0), "stages"),
    (lambda: viz.chunk_curve(S, N, ALPHA, BETA, chunks=[]), "chunks"),
    (lambda: viz.chunk_curve(S, N, ALPHA, BETA, chunks=[0, 2]), "chunks"),
    (lambda: viz.chunk_curve(S, N, ALPHA, BETA, simulate_at=[1.5]), "simulate_at"),  # type: ignore[list-item]
    (lambda: viz.chunk_curve(S, 1024, ALPHA, BETA, simulate_at=[500]), "simulate_at"),
    (lambda: viz.chunk_curve(S, N, ALPHA, BETA, compare_single_stage=1), "compare_single_stage"),  # type: ignore[arg-type]
    (lambda: viz.chunk_sensitivity(S, N, ALPHA, 0.0), "bandwidth"),
    (lambda: viz.chunk_sensitivity(S, N, ALPHA, BETA, stages=True), "stages"),
    (lambda: viz.pipeline_gantt("schedule"), "schedule"),  # type: ignore[arg-type]
    (lambda: viz.pipeline_gantt(SCHED, path=4), "path"),
    (lambda: viz.pipeline_gantt(SCHED, max_jobs=0), "max_jobs"),
    (lambda: viz.pipeline_gantt(SCHED, max_jobs=10_000), "max_jobs"),
    (lambda: viz.pipeline_gantt(ring.simulate_pipelined(1e6, 2, 1, ALPHA, BETA, stages=9)), "schedule"),
    (lambda: viz.algorithm_regions(0.0, BETA), "latency"),
    (lambda: viz.algorithm_regions(ALPHA, BETA, ranks=[1, 2]), "ranks"),
    (lambda: viz.algorithm_regions(ALPHA, BETA, candidates=[]), "candidates"),
    (lambda: viz.algorithm_regions(ALPHA, BETA, candidates="ring"), "candidates"),
    (lambda: viz.algorithm_regions(ALPHA, BETA, candidates=["hierarchical"]), "ranks_per_node"),
    (lambda: viz.algorithm_regions(ALPHA, BETA, op="all_to_all", candidates=["tree"]), "candidates"),
    (lambda: viz.algorithm_regions(ALPHA, BETA, ranks_per_node=1), "ranks_per_node"),
    (lambda: viz.algorithm_regions(ALPHA, BETA, intra_bandwidth=1e9), "ranks_per_node"),
    (lambda: viz.algorithm_regions(ALPHA, BETA, ranks_per_node=8, intra_bandwidth=0.0), "intra_bandwidth"),
    (lambda: viz.algorithm_regions(ALPHA, BETA, nodes=8), "nodes"),
    (lambda: viz.algorithm_regions(ALPHA, BETA, ranks=[6], candidates=["hierarchical"], ranks_per_node=4),
     "candidates"),
    (lambda: viz.algorithm_times(1, ALPHA, BETA), "ranks"),
    (lambda: viz.algorithm_times(N, ALPHA, BETA, op="reduce", candidates=["halving_doubling"]), "candidates"),
    (lambda: _calculator._calculator_text("all_reduce", "ring", N, -1.0, ALPHA, BETA), "size"),
    (lambda: _calculator._calculator_text("all_reduce", "hierarchical", 12, S, ALPHA, BETA, ranks_per_node=8),
     "ranks_per_node"),
    (lambda: viz.alpha_beta_calculator(ranks=1), "ranks"),
    (lambda: viz.alpha_beta_calculator(op="x"), "op"),
    (lambda: viz.alpha_beta_calculator(latency=0.0), "latency"),
    (lambda: viz.alpha_beta_calculator(ranks_per_node=100), "ranks_per_node"),
]


@pytest.mark.parametrize(("call", "name"), BAD)
def test_bad_input_raises_naming_the_parameter(no_leak: None, call: Callable[[], object], name: str) -> None:
    with pytest.raises(ValueError, match=rf"\b{name}\b"):
        call()
