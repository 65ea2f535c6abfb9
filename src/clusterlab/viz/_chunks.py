"""The chunked ring pipeline: ``T(c)`` with its optimum, the bandwidth bound and simulation points; how the optimal
chunk count moves with α, β, N and S; the Gantt chart of one path. Every number comes from
:mod:`clusterlab.communication.ring` and :mod:`clusterlab.communication.chunking`."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Final

import numpy as np
from matplotlib import colors as mcolors
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from matplotlib.ticker import FuncFormatter, NullFormatter

from ..communication import chunking, collectives, ring
from ..communication.chunking import ChunkChoice
from ..units import fmt_num, fmt_seconds
from ..validate import int_in_range, positive
from ._axes import (
    RANKS_MAX,
    FloatArray,
    _link_text,
    _log_axis,
    _log_bytes_axis,
    _size_text,
    _subs,
    _tick_seconds,
    _time_axis,
)
from ._style import PALETTE, new_figure

__all__ = ["chunk_curve", "chunk_sensitivity", "pipeline_gantt"]

#: Largest number of chunk jobs :func:`pipeline_gantt` draws (2(N−1)·c = 168 for N = 8, c = 12).
GANTT_JOBS_MAX: Final = 168
#: Most stages :func:`pipeline_gantt` draws (one row each).
GANTT_STAGES_MAX: Final = 8
#: Work budget of one discrete-event simulation in :func:`chunk_curve`: chunk jobs × stages (Python loop
#: iterations) and chunk jobs × stages × ranks (array work).
SIM_LOOP_MAX: Final = 150_000
SIM_WORK_MAX: Final = 40_000_000


def _check_chunk_values(values: object, name: str) -> list[int]:
    if isinstance(values, str | bytes) or not isinstance(values, Sequence | np.ndarray):
        raise ValueError(f"{name} must be a sequence of integers >= 1, got {values!r}")
    items = list(values)
    if not items:
        raise ValueError(f"{name} must hold at least one integer >= 1, got an empty sequence")
    for v in items:
        int_in_range(name, v, 1, 10**7)
    return sorted({int(v) for v in items})


def _sim_cost(ranks: int, chunks: int, stages: int) -> tuple[int, int]:
    loop = 2 * (ranks - 1) * chunks * stages
    return loop, loop * ranks


def _default_chunks(opt: ChunkChoice, stages: int) -> list[int]:
    c_max = max(10 * stages, math.ceil(25 * opt.continuous), 2 * opt.chunks)
    grid = np.unique(np.round(np.geomspace(1.0, float(c_max), 400)).astype(int))
    return sorted({int(c) for c in grid} | {stages, opt.chunks})


def _default_simulate_at(opt: ChunkChoice, ranks: int, stages: int, c_max: int) -> list[int]:
    c = opt.chunks
    wanted = {1, stages, max(1, round(c / 4)), c, 4 * c}
    out = []
    for k in sorted(wanted):
        loop, work = _sim_cost(ranks, k, stages)
        if k <= c_max and loop <= SIM_LOOP_MAX and work <= SIM_WORK_MAX:
            out.append(k)
    return out


def chunk_curve(
    size: float,
    ranks: int,
    latency: float,
    bandwidth: float,
    *,
    stages: int = 3,
    chunks: Sequence[int] | None = None,
    simulate_at: Sequence[int] | None = None,
    compare_single_stage: bool = False,
) -> Figure:
    """Time of the chunked ring all-reduce vs the number of chunks per block ``c`` (log axis).

    Left: the whole curve :func:`clusterlab.communication.ring.pipelined_time` (gid ``closed-form``); right: the same
    around the optimum. Both panels show the optimum of :func:`clusterlab.communication.chunking.best_chunks` (star, gid
    ``optimum``: c*, its time and chunk size ``S/(N c*)``), the bandwidth lower bound ``2S(N−1)/(Nβ)`` (the
    bandwidth part of the ring's α-β cost, dashed, gid ``lower-bound``) and the makespans of the discrete-event
    simulation :func:`clusterlab.communication.ring.simulate_pipelined` at the ``simulate_at`` values of c (hollow
    markers, gid ``simulated``; default: 1, h, c*/4, c*, 4c* within a work budget). With
    ``compare_single_stage=True`` the curve for a single stage (h = 1, gid ``single-stage``) is added: it
    only rises, c = 1 is best.

    ``size`` S > 0 bytes per rank, ``ranks`` N ≥ 2, ``latency`` α > 0 in s (per chunk per stage),
    ``bandwidth`` β > 0 in B/s per direction, ``stages`` h in 1 … 64, ``chunks`` the c values of the curve
    (default: a log grid from 1 to about 25·c*). Lines keep data in seconds. Returns a pyplot figure.
    """
    s = positive("size", size)
    n = int_in_range("ranks", ranks, 2, RANKS_MAX)
    alpha = positive("latency", latency)
    beta = positive("bandwidth", bandwidth)
    h = int_in_range("stages", stages, 1, 64)
    if not isinstance(compare_single_stage, bool):
        raise ValueError(f"compare_single_stage must be True or False, got {compare_single_stage!r}")
    opt = chunking.best_chunks(s, n, alpha, beta, stages=h)
    cs = _default_chunks(opt, h) if chunks is None else _check_chunk_values(chunks, "chunks")
    if simulate_at is None:
        sim = _default_simulate_at(opt, n, h, max(cs[-1], opt.chunks))
    else:
        sim = _check_chunk_values(simulate_at, "simulate_at")
        for k in sim:
            loop, work = _sim_cost(n, k, h)
            if loop > SIM_LOOP_MAX or work > SIM_WORK_MAX:
                raise ValueError(
                    f"simulate_at value {k} means 2(N−1)·c·h = {loop} chunk-stage events on each of N = {n} paths, "
                    f"beyond the budget ({SIM_LOOP_MAX} events, {SIM_WORK_MAX} in total); pick a smaller c"
                )
    c_arr = np.array(cs, dtype=float)
    t = np.array([ring.pipelined_time(s, n, c, alpha, beta, stages=h) for c in cs])
    bound = collectives.cost("all_reduce", s, n, alpha, beta, "ring").bandwidth
    sim_t = np.array([ring.simulate_pipelined(s, n, k, alpha, beta, stages=h).makespan for k in sim])
    single: tuple[FloatArray, ChunkChoice] | None = None
    if compare_single_stage:
        single = (
            np.array([ring.pipelined_time(s, n, c, alpha, beta, stages=1) for c in cs]),
            chunking.best_chunks(s, n, alpha, beta, stages=1),
        )

    # zoom window around the optimum (c* far above h) or over the small-c region (c* = h)
    c_opt = opt.chunks
    if c_opt >= 4 * h:
        lo, hi = max(float(h), c_opt / 10), c_opt * 10.0
    else:
        lo, hi = 1.0, max(10.0 * h, 4.0 * c_opt)
    lo, hi = max(lo, float(cs[0])), min(hi, float(cs[-1]))
    if hi <= lo:
        lo, hi = float(cs[0]), float(cs[-1])

    fig = new_figure((11.0, 5.0))
    ax_all, ax_zoom = fig.subplots(1, 2)
    for ax, zoom in ((ax_all, False), (ax_zoom, True)):
        keep = (c_arr >= lo) & (c_arr <= hi) if zoom else np.ones(c_arr.size, dtype=bool)
        ax.plot(c_arr[keep], t[keep], color=PALETTE["blue"], lw=2.0, gid="closed-form", zorder=3,
                label=f"闭式 T(c)，h = {h} 级")
        if single is not None:
            ax.plot(c_arr[keep], single[0][keep], color=PALETTE["grey"], lw=1.5, ls="-.", gid="single-stage",
                    zorder=2, label="h = 1 级：只增不减，c = 1 最好")
        ax.axhline(bound, color=PALETTE["ink"], ls="--", lw=1.1, gid="lower-bound", zorder=1,
                   label=f"带宽下界 2S(N−1)/(Nβ) = {fmt_seconds(bound)}")
        show = [i for i, k in enumerate(sim) if not zoom or lo <= k <= hi]
        if show:
            ax.plot([sim[i] for i in show], sim_t[show], "o", ms=11, mfc="none", mec=PALETTE["vermillion"],
                    mew=1.6, gid="simulated", zorder=6, label="离散事件模拟 DES 的完成时间")
        ax.plot([c_opt], [opt.time], "*", ms=13, color=PALETTE["orange"], mec=PALETTE["ink"], mew=0.6,
                gid="optimum", zorder=5, label=f"最优 c* = {c_opt}")
        ax.set_xscale("log")
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _pos: fmt_num(v)))
        ax.xaxis.set_minor_formatter(NullFormatter())
        ax.set_xlabel("每块切成的 chunk 数 c（对数轴）")
        if zoom:
            ax.set_xlim(lo / 1.15, hi * 1.15)
            inside = t[keep]
            top = float(inside.max()) if inside.size else float(opt.time) * 1.1
            if single is not None and single[0][keep].size:
                top = max(top, float(np.min(single[0][keep])) * 1.02)
            top = min(top, bound + 12 * max(opt.time - bound, 1e-12 * bound))
            top = max(top, opt.time + 0.02 * (opt.time - bound) + 1e-9 * bound)
            span = top - bound
            ax.set_ylim(bound - 0.08 * span, top + 0.1 * span)
            ax.set_title("最优点附近（放大）", loc="left")
        else:
            ax.set_xlim(c_arr[0] / 1.2, c_arr[-1] * 1.2)
            peak = float(t.max())
            ax.set_ylim(0, peak * 1.12)
            ax.set_title("全貌：c 从 1 到很大", loc="left")
            if h > 1:
                ax.axvspan(c_arr[0] / 1.2, h, color=PALETTE["grey"], alpha=0.12, lw=0, zorder=0)
                ax.text(math.sqrt(c_arr[0] / 1.2 * h), peak * 0.03, f"c < h：\n每步都等\n首个 chunk\n走完 {h} 级",
                        ha="center", va="bottom", fontsize=8, color=PALETTE["grey"])
        unit = _time_axis(ax.yaxis, float(t.max()) if not zoom else top)
        ax.set_ylabel(f"all-reduce 时间（{unit}）")
    ax_zoom.annotate(
        f"c* = {c_opt}：T = {fmt_seconds(opt.time, 4)}\n每个 chunk S/(N·c*) = {_size_text(opt.chunk_bytes)}",
        xy=(c_opt, opt.time), xytext=(0, 26), textcoords="offset points", ha="center", va="bottom", fontsize=9,
        arrowprops={"arrowstyle": "->", "color": PALETTE["ink"], "lw": 0.8},
        bbox={"boxstyle": "round,pad=0.3", "fc": "white", "ec": PALETTE["orange"], "lw": 0.8},
    )
    ax_all.legend(loc="upper right", fontsize=8.5)
    fig.suptitle(
        f"分块流水线环形 all-reduce：S = {_size_text(s)}，N = {n}，h = {h} 级存储转发\n"
        f"{_link_text(alpha, beta)}；T(c) = (2(N−1)·max(c,h) + min(c,h) − 1)·(α + S/(N c β))",
        fontsize=11, fontweight="bold",
    )
    return fig




def _rank_grid(n: int) -> list[int]:
    lo, hi = max(2, n // 32), min(RANKS_MAX, n * 32)
    grid = np.unique(np.round(np.geomspace(lo, hi, 41)).astype(int))
    return sorted({int(v) for v in grid} | {n})


def chunk_sensitivity(size: float, ranks: int, latency: float, bandwidth: float, *, stages: int = 3) -> Figure:
    """2 × 2 panels: the optimal chunk count c* (:func:`clusterlab.communication.chunking.best_chunks`, left axis, gid
    ``c-star``; the continuous optimum dashed, gid ``c-continuous``) and the chunk size ``S/(N c*)`` in bytes
    (right axis, gid ``chunk-bytes``) when one of α, β, N, S varies over 1/100 … 100 × the given value
    (N: 1/32 … 32 ×), the others fixed. The given value is the dotted vertical line.

    Same inputs as :func:`chunk_curve`. The panels' x data are in SI (s, B/s, ranks, bytes). Returns a
    pyplot figure.
    """
    s = positive("size", size)
    n = int_in_range("ranks", ranks, 2, RANKS_MAX)
    alpha = positive("latency", latency)
    beta = positive("bandwidth", bandwidth)
    h = int_in_range("stages", stages, 1, 64)
    factors = np.logspace(-2.0, 2.0, 41)

    panels: list[tuple[str, str, FloatArray, Callable[[float], ChunkChoice], float, Callable[[float], str],
                       str]] = [
        ("α", "改变延迟 α（latency）", alpha * factors,
         lambda v: chunking.best_chunks(s, n, v, beta, stages=h), alpha, _tick_seconds, "c* ∝ 1/√α"),
        ("β", "改变带宽 β（bandwidth，每方向）", beta * factors,
         lambda v: chunking.best_chunks(s, n, alpha, v, stages=h), beta, lambda v: f"{_size_text(v)}/s",
         "c* ∝ 1/√β"),
        ("N", "改变 rank 数 N", np.array(_rank_grid(n), dtype=float),
         lambda v: chunking.best_chunks(s, round(v), alpha, beta, stages=h), float(n), lambda v: fmt_num(v),
         "c* ∝ 1/√(N(N−1))"),
        ("S", "改变消息大小 S", s * factors,
         lambda v: chunking.best_chunks(v, n, alpha, beta, stages=h), s, _size_text, "c* ∝ √S"),
    ]
    fig = new_figure((11.0, 7.6))
    axes = fig.subplots(2, 2)
    twins: list[Axes] = []
    for ax, (sym, title, xs, solve, given, fmt, law) in zip(axes.flat, panels, strict=True):
        opts = [solve(float(v)) for v in xs]
        c_int = np.array([o.chunks for o in opts], dtype=float)
        c_cont = np.array([o.continuous for o in opts])
        c_bytes = np.array([o.chunk_bytes for o in opts])
        ax.plot(xs, c_int, color=PALETTE["blue"], lw=2.0, drawstyle="steps-mid", gid="c-star", zorder=3,
                label="最优 c*（整数）")
        ax.plot(xs, c_cont, color=PALETTE["blue"], lw=1.0, ls="--", gid="c-continuous", zorder=2,
                label="c ≥ h 一支的连续最优 max(h, √((h−1)S/(2N(N−1)αβ)))")
        ax.axhline(h, color=PALETTE["grey"], lw=0.8, ls="-.", zorder=1)
        ax.axvline(given, color=PALETTE["ink"], lw=1.0, ls=":", zorder=1)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlim(float(xs[0]), float(xs[-1]))
        c_lo = min(float(c_int.min()), float(h))
        c_hi = max(float(c_int.max()), float(c_cont.max()))
        ax.set_ylim(c_lo / 1.6, c_hi * 1.6)
        _log_axis(ax.xaxis, fmt, _subs(float(xs[0]), float(xs[-1])))
        _log_axis(ax.yaxis, fmt_num, _subs(c_lo, c_hi))
        ax.set_xlabel(f"{sym}（对数轴）")
        ax.set_ylabel("c*", color=PALETTE["blue"])
        ax.tick_params(axis="y", colors=PALETTE["blue"])
        ax.set_title(f"{title}：{law}", loc="left")
        tw = ax.twinx()
        tw.plot(xs, c_bytes, color=PALETTE["vermillion"], lw=1.6, gid="chunk-bytes", zorder=3,
                label="chunk 大小 S/(N c*)")
        tw.set_yscale("log")
        tw.grid(False)
        tw.spines["right"].set_visible(True)
        tw.spines["right"].set_color(PALETTE["vermillion"])
        tw.tick_params(axis="y", colors=PALETTE["vermillion"])
        _log_bytes_axis(tw.yaxis, _subs(float(c_bytes.min()), float(c_bytes.max())))
        tw.set_ylabel("chunk 大小（字节）", color=PALETTE["vermillion"])
        twins.append(tw)
    handles = [
        Line2D([], [], color=PALETTE["blue"], lw=2.0, label="最优 c*（整数，左轴）"),
        Line2D([], [], color=PALETTE["blue"], lw=1.0, ls="--",
               label="c ≥ h 一支的连续最优 max(h, √((h−1)S/(2N(N−1)αβ)))"),
        Line2D([], [], color=PALETTE["vermillion"], lw=1.6, label="chunk 大小 S/(N c*)（右轴）"),
        Line2D([], [], color=PALETTE["ink"], lw=1.0, ls=":", label="给定值"),
        Line2D([], [], color=PALETTE["grey"], lw=0.8, ls="-.", label=f"c = h = {h}（两种工况的分界）"),
    ]
    fig.legend(handles=handles, loc="outside lower center", ncols=3, fontsize=9)
    fig.suptitle(
        f"最优 chunk 数 c* 如何移动：基准 S = {_size_text(s)}，N = {n}，h = {h}，{_link_text(alpha, beta)}",
        fontsize=11, fontweight="bold",
    )
    return fig




def _family(colours: tuple[str, str], count: int) -> list[str]:
    """``count`` colours from light to dark between two hex colours."""
    ramp = mcolors.LinearSegmentedColormap.from_list("family", list(colours))
    return [mcolors.to_hex(ramp(x)) for x in (np.linspace(0.0, 1.0, count) if count > 1 else [0.6])]


_RS_FAMILY: Final = ("#F7C99A", "#B84A00")  # light orange → dark vermillion
_AG_FAMILY: Final = ("#B3D9F2", "#004C80")  # light sky → dark blue
_STAGE_NAMES_3: Final = ("GPU → NIC", "NIC → 交换机 → NIC", "NIC → GPU")


def pipeline_gantt(schedule: ring.PipelineSchedule, *, path: int = 0, max_jobs: int | None = None) -> Figure:
    """Gantt chart of one path (rank ``path`` → ``path + 1``) of a
    :class:`clusterlab.communication.ring.PipelineSchedule`.

    One row per store-and-forward stage, one bar per chunk job from ``finish − τ`` to ``finish``
    (``schedule.finish[path, job, stage]``), coloured by ring step: reduce-scatter steps in oranges,
    all-gather steps in blues, lighter for earlier steps; the step names RS1, RS2, … AG1, … sit above the first
    row. Grey blocks at the start and end of a row are pipeline fill and drain; hatched blocks are stalls
    (the stage waits for a chunk that has not yet arrived from the previous rank; they appear when c < h).

    Bars are in ``ax.containers`` (one per stage, top row first), data in seconds. ``max_jobs`` (1 … 168)
    draws only the first jobs; by default all, up to 168 (N = 8 with c = 12). Returns a pyplot figure.
    """
    if not isinstance(schedule, ring.PipelineSchedule):
        raise ValueError(
            f"schedule must be a clusterlab.communication.ring.PipelineSchedule (from simulate_pipelined), got "
            f"{type(schedule).__name__}"
        )
    n, c, h = schedule.ranks, schedule.chunks, schedule.stages
    if h > GANTT_STAGES_MAX:
        raise ValueError(f"schedule.stages must be <= {GANTT_STAGES_MAX} for a readable chart, got {h}")
    p = int_in_range("path", path, 0, n - 1)
    total = int(schedule.finish.shape[1])
    m = min(total, GANTT_JOBS_MAX) if max_jobs is None else min(total, int_in_range("max_jobs", max_jobs, 1,
                                                                                  GANTT_JOBS_MAX))
    tau = schedule.chunk_time
    fin = schedule.finish[p, :m, :]
    start = fin - tau
    steps_n = n - 1
    colours = _family(_RS_FAMILY, steps_n) + _family(_AG_FAMILY, steps_n)
    job_colour = [colours[i // c] for i in range(m)]
    truncated = m < total
    end = float(fin[-1, -1]) if truncated else schedule.makespan

    fig = new_figure((11.0, 1.9 + 0.62 * h))
    ax = fig.subplots()
    width_in = 11.0 * 0.8
    label_bars = c > 1 and end > 0 and tau / end * width_in > 0.16
    eps = 1e-9 * max(tau, end)
    for j in range(h):
        ax.barh(np.full(m, j), np.full(m, tau), left=start[:, j], height=0.64, color=job_colour,
                edgecolor="white", linewidth=0.6 if m <= 60 else 0.3, zorder=3, label=f"_stage{j}")
        if label_bars:
            for i in range(m):
                ax.text(start[i, j] + tau / 2, j, str(i % c), ha="center", va="center", fontsize=7.5,
                        color="white" if (i // c) % steps_n >= steps_n / 2 else PALETTE["ink"], zorder=4)
        # idle time: fill before the first job, stalls between jobs, drain after the last one
        gaps = [(0.0, float(start[0, j]), "fill")] if start[0, j] > eps else []
        for i in range(m - 1):
            if start[i + 1, j] - fin[i, j] > eps:
                gaps.append((float(fin[i, j]), float(start[i + 1, j]), "stall"))
        if not truncated and end - fin[-1, j] > eps:
            gaps.append((float(fin[-1, j]), end, "drain"))
        for a, b, kind in gaps:
            if kind == "stall":
                ax.barh(j, b - a, left=a, height=0.64, color="white", edgecolor=PALETTE["grey"], hatch="////",
                        linewidth=0.0, zorder=2, gid="stall")
            else:
                ax.barh(j, b - a, left=a, height=0.64, color="#E6E6E6", linewidth=0.0, zorder=2, gid=kind)
    # step names above the first row
    for step in range(2 * steps_n):
        i = step * c
        if i >= m:
            break
        name = f"RS{step + 1}" if step < steps_n else f"AG{step - steps_n + 1}"
        x0 = float(start[i, 0])
        x1 = float(fin[min(i + c, m) - 1, 0])
        if (x1 - x0) / end * width_in > 0.28 or step == 0:
            ax.text((x0 + x1) / 2, -0.52, name, ha="center", va="bottom", fontsize=8,
                    color=PALETTE["vermillion"] if step < steps_n else PALETTE["blue"], fontweight="bold")
    names = _STAGE_NAMES_3 if h == 3 else tuple("" for _ in range(h))
    ax.set_yticks(range(h), [f"第 {j + 1} 级 stage {j + 1}\n{names[j]}".strip() for j in range(h)])
    ax.set_ylim(h - 0.5, -0.95)
    ax.grid(axis="y", visible=False)
    ax.set_xlim(0, end * 1.005)
    unit = _time_axis(ax.xaxis, end)
    ax.set_xlabel(f"时间（{unit}）")
    if not truncated:
        ax.axvline(end, color=PALETTE["ink"], lw=1.0, ls="--", zorder=5)
    legend = [
        Patch(facecolor=colours[max(0, steps_n // 2)], label=f"归约-散播 reduce-scatter RS1…RS{steps_n}"),
        Patch(facecolor=colours[steps_n + steps_n // 2], label=f"全收集 all-gather AG1…AG{steps_n}"),
        Patch(facecolor="#E6E6E6", label="填充 fill / 排空 drain"),
        Patch(facecolor="white", edgecolor=PALETTE["grey"], hatch="////", label="停顿 stall：等上一个 rank 的 chunk"),
    ]
    fig.legend(handles=legend, loc="outside lower center", ncols=4, fontsize=8.5)
    shown = f"（只画前 {m} / {total} 个 chunk 作业）" if truncated else ""
    bar_note = "，方块内数字 = 块内 chunk 编号" if label_bars else ""
    fig.suptitle(
        f"流水线甘特图：rank {p} → rank {(p + 1) % n} 的 {h} 级存储转发，N = {n}，c = {c}{shown}\n"
        f"每个 chunk 每级 τ = {fmt_seconds(tau)}；完成时间 {fmt_seconds(schedule.makespan)}；"
        f"每级忙碌占比 {fmt_num(100 * schedule.link_busy_fraction())} %{bar_note}",
        fontsize=10.5, fontweight="bold",
    )
    return fig
