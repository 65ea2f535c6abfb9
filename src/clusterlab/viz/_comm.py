"""Charts and a calculator for the α-β cost model, the chunked ring pipeline and the choice of algorithm.

Every number drawn here comes from :mod:`clusterlab.collectives` or :mod:`clusterlab.ring`; this module only
samples those functions and draws. Inputs are SI (bytes, seconds, B/s per direction). The artists keep SI
data (seconds, bytes, B/s) and the axes format their ticks with units (B/KB/MB/GB, µs/ms/s, GB/s), so a
test can compare an artist's data with the package functions directly. Artists a reader might want to
find carry a ``gid`` (listed in each docstring).

Size and time axes
    :func:`time_vs_message_size` (α-β time vs S for several N, latency floor, bandwidth asymptote, n* = αβ),
    :func:`busbw_curve` (algbw and busbw vs S against the link speed β).
Chunked ring pipeline
    :func:`chunk_curve` (T(c) with its optimum, the bandwidth bound and discrete-event simulation points),
    :func:`chunk_sensitivity` (how c* moves with α, β, N, S), :func:`pipeline_gantt` (one path's schedule).
Choice of algorithm
    :func:`algorithm_regions` (cheapest algorithm over the (N, S) plane with the tree/ring boundary S*),
    :func:`algorithm_times` (every algorithm's time vs S at fixed N).
Widget
    :func:`alpha_beta_calculator` (ipywidgets, live Jupyter only; its text comes from
    :func:`_calculator_text`).
"""

from __future__ import annotations

import html
import math
from collections.abc import Callable, Sequence
from typing import Any, Final

import numpy as np
import numpy.typing as npt
from matplotlib import colors as mcolors
from matplotlib.axes import Axes
from matplotlib.axis import Axis
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from matplotlib.ticker import FixedLocator, FuncFormatter, LogLocator, NullFormatter, NullLocator

from .. import collectives, ring
from ..units import check_nonnegative, check_positive, fmt_bytes, fmt_num, fmt_seconds
from ._style import PALETTE, byte_unit, ensure_setup, time_unit

__all__ = [
    "algorithm_regions",
    "algorithm_times",
    "alpha_beta_calculator",
    "busbw_curve",
    "chunk_curve",
    "chunk_sensitivity",
    "pipeline_gantt",
    "time_vs_message_size",
]

FloatArray = npt.NDArray[np.float64]

#: Largest N any chart accepts (the α-β formulas are cheap; the limit only guards against typos).
RANKS_MAX: Final = 1 << 20
#: Most lines :func:`time_vs_message_size` draws (one colour each).
LINES_MAX: Final = 6
#: Largest number of chunk jobs :func:`pipeline_gantt` draws (2(N−1)·c = 168 for N = 8, c = 12).
GANTT_JOBS_MAX: Final = 168
#: Most stages :func:`pipeline_gantt` draws (one row each).
GANTT_STAGES_MAX: Final = 8
#: Work budget of one discrete-event simulation in :func:`chunk_curve`: chunk jobs × stages (Python loop
#: iterations) and chunk jobs × stages × ranks (array work).
SIM_LOOP_MAX: Final = 150_000
SIM_WORK_MAX: Final = 40_000_000
#: Most grid cells :func:`algorithm_regions` evaluates.
REGION_CELLS_MAX: Final = 40_000

#: Default message sizes: 1 KB … 10 GB, ten points per decade.
_DEFAULT_SIZES: Final = np.logspace(3.0, 10.0, 71)

_LINE_COLOURS: Final = tuple(PALETTE[k] for k in ("blue", "vermillion", "green", "orange", "purple", "sky"))

_OP_NAMES: Final = {
    "broadcast": "广播 broadcast",
    "reduce": "归约 reduce",
    "all_reduce": "全归约 all-reduce",
    "reduce_scatter": "归约-散播 reduce-scatter",
    "all_gather": "全收集 all-gather",
    "all_to_all": "全交换 all-to-all",
    "send_recv": "点对点 send/recv",
}
_ALG_NAMES: Final = {
    "ring": "环形 ring",
    "naive": "朴素 naive（经 rank 0）",
    "tree": "双二叉树 tree",
    "halving_doubling": "减半-加倍 halving-doubling",
    "hierarchical": "分层 hierarchical",
}
_ALG_COLOURS: Final = {
    "ring": PALETTE["blue"],
    "naive": PALETTE["vermillion"],
    "tree": PALETTE["green"],
    "halving_doubling": PALETTE["orange"],
    "hierarchical": PALETTE["purple"],
}
#: nccl-tests bus-bandwidth factor of each op, as a formula for labels (the value comes from
#: :func:`clusterlab.collectives.busbw_factor`).
_BUSBW_FORMULA: Final = {
    "all_reduce": "2(N−1)/N",
    "reduce_scatter": "(N−1)/N",
    "all_gather": "(N−1)/N",
    "all_to_all": "(N−1)/N",
    "broadcast": "1",
    "reduce": "1",
    "send_recv": "1",
}
#: Algorithms whose α-β time is ``steps·α + bytes/β`` with no extra parameters (one curve per chart).
_PLAIN_ALGORITHMS: Final = ("ring", "naive", "tree", "halving_doubling")


# --------------------------------------------------------------------------------------------------------
# formatting
# --------------------------------------------------------------------------------------------------------
def _size_text(nbytes: float) -> str:
    """``14e9 → '14 GB'``, ``1e3 → '1 KB'``: decimal unit chosen per value."""
    return fmt_bytes(nbytes, byte_unit(nbytes)) if nbytes > 0 else "0 B"


def _rate_text(rate: float, note: str = "") -> str:
    """A bandwidth with its bit rate: ``25e9 → '25 GB/s（200 Gb/s）'``; ``note`` goes inside the brackets."""
    return f"{_size_text(rate)}/s（{fmt_num(rate * 8 / 1e9)} Gb/s{'，' + note if note else ''}）"


def _link_text(latency: float, bandwidth: float) -> str:
    """``α = 5 µs，β = 25 GB/s（200 Gb/s，每方向 per direction）``."""
    return f"α = {fmt_seconds(latency)}，β = {_rate_text(bandwidth, '每方向 per direction')}"


def _tick_seconds(seconds: float) -> str:
    """Tick label for a log time axis: µs and ms below one second, plain seconds above (no minutes)."""
    return fmt_seconds(seconds) if seconds < 1.0 else f"{fmt_num(seconds)} s"


def _subs(lo: float, hi: float) -> tuple[float, ...]:
    """Ticks at 1, 2, 5 × 10^k when the range spans under 2.5 decades, else only at the decades."""
    return (1.0,) if hi <= 0 or lo <= 0 or math.log10(hi / lo) >= 2.5 else (1.0, 2.0, 5.0)


def _log_axis(axis: Axis, fmt: Callable[[float], str], subs: tuple[float, ...] = (1.0,)) -> None:
    """Log ticks labelled with units (``1 KB``, ``10 µs``) at ``subs`` × 10^k; unlabelled minor ticks."""
    axis.set_major_locator(LogLocator(base=10.0, subs=subs, numticks=12))
    axis.set_major_formatter(FuncFormatter(lambda v, _pos: fmt(v)))
    axis.set_minor_formatter(NullFormatter())


def _log_bytes_axis(axis: Axis, subs: tuple[float, ...] = (1.0,)) -> None:
    _log_axis(axis, _size_text, subs)


def _log_time_axis(axis: Axis) -> None:
    _log_axis(axis, _tick_seconds)


def _scaled_axis(axis: Axis, scale: float) -> None:
    """Linear axis holding SI data, tick labels divided by ``scale`` (a power of 1000 keeps nice ticks)."""
    axis.set_major_formatter(FuncFormatter(lambda v, _pos: fmt_num(v / scale, 4)))


def _time_axis(axis: Axis, seconds: float) -> str:
    """Linear time axis in s, ms or µs chosen from ``seconds``; returns the unit."""
    scale, unit = time_unit(seconds)
    _scaled_axis(axis, scale)
    return unit


def _new_figure(figsize: tuple[float, float]) -> Figure:
    ensure_setup()
    import matplotlib.pyplot as plt

    return plt.figure(figsize=figsize, layout="constrained")


# --------------------------------------------------------------------------------------------------------
# validation
# --------------------------------------------------------------------------------------------------------
def _check_int(name: str, value: object, lo: int, hi: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or not lo <= int(value) <= hi:
        raise ValueError(f"{name} must be an integer in {lo} … {hi}, got {value!r}")
    return int(value)


def _check_op(op: object) -> str:
    if not isinstance(op, str) or op not in collectives.OPS:
        raise ValueError(f"op must be one of {', '.join(collectives.OPS)}, got {op!r}")
    return op


def _check_algorithm(algorithm: object, op: str, allowed: Sequence[str]) -> str:
    if not isinstance(algorithm, str) or algorithm not in allowed:
        raise ValueError(f"algorithm must be one of {', '.join(allowed)}, got {algorithm!r}")
    if op not in collectives.SUPPORTED[algorithm]:
        raise ValueError(
            f"algorithm {algorithm!r} is modelled for op in {', '.join(collectives.SUPPORTED[algorithm])} only; "
            f"got op={op!r}"
        )
    return algorithm


def _check_ranks_list(values: object, name: str, max_items: int) -> list[int]:
    if isinstance(values, str | bytes) or not isinstance(values, Sequence | np.ndarray):
        raise ValueError(f"{name} must be a sequence of integers in 2 … {RANKS_MAX}, got {values!r}")
    items = list(values)
    if not items:
        raise ValueError(f"{name} must hold at least one integer >= 2, got an empty sequence")
    for v in items:
        _check_int(name, v, 2, RANKS_MAX)
    out = sorted({int(v) for v in items})
    if len(out) > max_items:
        raise ValueError(f"{name} may hold at most {max_items} distinct values for a readable chart, got {len(out)}")
    return out


def _check_sizes(sizes: object, name: str = "sizes") -> FloatArray:
    """Message sizes in bytes: at least two finite values > 0, returned sorted and unique."""
    if sizes is None:
        return np.array(_DEFAULT_SIZES, dtype=float)
    if isinstance(sizes, str | bytes):
        raise ValueError(f"{name} must be a sequence of byte counts > 0, got {sizes!r}")
    try:
        arr = np.asarray(sizes, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a sequence of byte counts > 0, got {sizes!r}") from None
    if arr.ndim != 1 or arr.size < 2:
        raise ValueError(f"{name} must be a 1-D sequence of at least 2 byte counts, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)) or np.any(arr <= 0):
        raise ValueError(f"{name} must hold finite byte counts > 0, got min {arr.min()!r}")
    return np.unique(arr)


# --------------------------------------------------------------------------------------------------------
# 1. α-β time vs message size
# --------------------------------------------------------------------------------------------------------
def _latency_and_per_byte(op: str, ranks: int, latency: float, bandwidth: float, algorithm: str) -> tuple[float, float]:
    """(latency term in s, bandwidth term per byte in s/B) of the α-β time, read off the model itself:
    the time of an empty message and the time with α = 0 of one byte."""
    lat = collectives.alpha_beta_time(op, 0.0, ranks, latency, bandwidth, algorithm)
    per_byte = collectives.alpha_beta_time(op, 1.0, ranks, 0.0, bandwidth, algorithm)
    return lat, per_byte


def time_vs_message_size(
    ranks_list: Sequence[int],
    latency: float,
    bandwidth: float,
    *,
    op: str = "all_reduce",
    algorithm: str = "ring",
    sizes: Sequence[float] | npt.NDArray[np.floating[Any]] | None = None,
) -> Figure:
    """Log-log α-β time of one ``op`` call vs the message size S, one curve per N in ``ranks_list``.

    Each curve (:func:`clusterlab.collectives.alpha_beta_time`, gid ``time-N{N}``) lies on its latency floor
    ``steps·α`` for small S (dashed, gid ``latency-N{N}``) and on its bandwidth asymptote ``bytes/β`` for
    large S (dotted, gid ``bandwidth-N{N}``); the dot (gid ``equal-N{N}``) marks the size where the two terms
    are equal (ring all-reduce: ``S = N·α·β``). The vertical line (gid ``n-star``) is the single-message
    crossover ``n* = α·β`` (:func:`clusterlab.collectives.crossover_size`).

    ``ranks_list``: up to 6 integers 2 … 2²⁰; ``latency`` α > 0 in s; ``bandwidth`` β > 0 in B/s per
    direction; ``algorithm`` one of ring, naive, tree, halving_doubling (modelled for ``op``); ``sizes`` in
    bytes (default 1 KB … 10 GB). Returns a pyplot figure.
    """
    ns = _check_ranks_list(ranks_list, "ranks_list", LINES_MAX)
    alpha = check_positive("latency", latency)
    beta = check_positive("bandwidth", bandwidth)
    op = _check_op(op)
    algorithm = _check_algorithm(algorithm, op, _PLAIN_ALGORITHMS)
    s = _check_sizes(sizes)
    n_star = collectives.crossover_size(alpha, beta)

    fig = _new_figure((9.6, 5.8))
    ax = fig.subplots()
    t_min, t_max = math.inf, 0.0
    for colour, n in zip(_LINE_COLOURS, ns, strict=False):
        t = np.array([collectives.alpha_beta_time(op, x, n, alpha, beta, algorithm) for x in s])
        lat, per_byte = _latency_and_per_byte(op, n, alpha, beta, algorithm)
        s_eq = lat / per_byte
        t_min, t_max = min(t_min, float(t.min())), max(t_max, float(t.max()))
        ax.plot(s, t, color=colour, lw=2.2, gid=f"time-N{n}", zorder=3,
                label=f"N = {n}：两项相等于 S = {_size_text(s_eq)}")
        left = s <= s_eq * 6
        right = s >= s_eq / 6
        if left.any():
            ax.plot(s[left], np.full(int(left.sum()), lat), color=colour, ls=(0, (5, 3)), lw=1.0, alpha=0.8,
                    gid=f"latency-N{n}", zorder=2)
        if right.any():
            ax.plot(s[right], per_byte * s[right], color=colour, ls=":", lw=1.3, alpha=0.9,
                    gid=f"bandwidth-N{n}", zorder=2)
        t_eq = collectives.alpha_beta_time(op, s_eq, n, alpha, beta, algorithm)
        ax.plot([s_eq], [t_eq], "o", ms=7, mfc="white", mec=colour, mew=1.8, gid=f"equal-N{n}", zorder=4)

    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(s[0], s[-1])
    ax.set_ylim(t_min / 2.5, t_max * 2.5)
    _log_bytes_axis(ax.xaxis)
    _log_time_axis(ax.yaxis)
    ax.set_xlabel("消息大小 S（每个 rank 的缓冲区，字节，对数轴）")
    ax.set_ylabel("一次调用的 α-β 时间（对数轴）")

    if s[0] < n_star < s[-1]:
        ax.axvline(n_star, color=PALETTE["grey"], ls="-.", lw=1.0, gid="n-star", zorder=1)
        ax.annotate(f"n* = α·β = {_size_text(n_star)}\n单条消息：延迟 = 传输", xy=(n_star, 1.0),
                    xycoords=("data", "axes fraction"), xytext=(5, -5), textcoords="offset points",
                    ha="left", va="top", fontsize=8.5, color=PALETTE["grey"])
    ax.text(0.015, 0.985, "← 延迟主导 latency-bound\nT ≈ 步数 × α，几乎不随 S 变", transform=ax.transAxes,
            ha="left", va="top", fontsize=9, color=PALETTE["ink"],
            bbox={"boxstyle": "round,pad=0.3", "fc": "white", "ec": "none", "alpha": 0.85})
    ax.text(0.985, 0.03, "带宽主导 bandwidth-bound →\nT ≈ 关键链路字节 / β，随 S 线性增长", transform=ax.transAxes,
            ha="right", va="bottom", fontsize=9, color=PALETTE["ink"],
            bbox={"boxstyle": "round,pad=0.3", "fc": "white", "ec": "none", "alpha": 0.85})

    curves = ax.legend(loc="upper left", bbox_to_anchor=(0.0, 0.86), title="实线：α-β 时间 T(S)", fontsize=8.5,
                       title_fontsize=8.5, alignment="left")
    ax.add_artist(curves)
    grey = PALETTE["grey"]
    style = [
        Line2D([], [], color=grey, ls=(0, (5, 3)), lw=1.0, label="虚线：延迟下限 latency floor（S = 0 的时间）"),
        Line2D([], [], color=grey, ls=":", lw=1.3, label="点线：带宽渐近线 bandwidth asymptote（α = 0）"),
        Line2D([], [], color=grey, ls="", marker="o", mfc="white", mec=grey, label="圆点：延迟项 = 带宽项"),
    ]
    ax.legend(handles=style, loc="lower right", bbox_to_anchor=(1.0, 0.13), fontsize=8.5)
    fig.suptitle(
        f"{_OP_NAMES[op]}（{_ALG_NAMES[algorithm]}）的时间与消息大小\n{_link_text(alpha, beta)}",
        fontsize=11, fontweight="bold",
    )
    return fig


# --------------------------------------------------------------------------------------------------------
# 6. algbw and busbw vs message size
# --------------------------------------------------------------------------------------------------------
def busbw_curve(
    op: str,
    ranks: int,
    latency: float,
    bandwidth: float,
    *,
    sizes: Sequence[float] | npt.NDArray[np.floating[Any]] | None = None,
    algorithm: str = "ring",
) -> Figure:
    """algbw ``S/t`` and busbw ``algbw × busbw_factor(op, N)`` (nccl-tests) vs the message size, with t the
    α-β time (:func:`clusterlab.collectives.alpha_beta_time`, :func:`~clusterlab.collectives.algbw`,
    :func:`~clusterlab.collectives.busbw`).

    For a bandwidth-optimal algorithm busbw climbs to the per-direction link speed β (dashed, gid ``beta``)
    while algbw levels off at ``β / factor`` (dotted, gid ``algbw-limit``). Lines: gid ``algbw`` and
    ``busbw``, data in B/s. ``latency`` α ≥ 0 in s (0 is allowed: then both curves are flat),
    ``bandwidth`` β > 0 in B/s, ``algorithm`` one of ring, naive, tree, halving_doubling. Returns a pyplot
    figure.
    """
    op = _check_op(op)
    n = _check_int("ranks", ranks, 2, RANKS_MAX)
    alpha = check_nonnegative("latency", latency)
    beta = check_positive("bandwidth", bandwidth)
    algorithm = _check_algorithm(algorithm, op, _PLAIN_ALGORITHMS)
    s = _check_sizes(sizes)
    t = np.array([collectives.alpha_beta_time(op, x, n, alpha, beta, algorithm) for x in s])
    alg = np.array([collectives.algbw(x, ti) for x, ti in zip(s, t, strict=True)])
    bus = np.array([collectives.busbw(op, x, n, ti) for x, ti in zip(s, t, strict=True)])
    factor = collectives.busbw_factor(op, n)
    # what algbw tends to for S → ∞: the bandwidth term alone
    alg_limit = collectives.algbw(1.0, collectives.alpha_beta_time(op, 1.0, n, 0.0, beta, algorithm))

    fig = _new_figure((9.6, 5.2))
    ax = fig.subplots()
    ax.plot(s, bus, color=PALETTE["vermillion"], lw=3.4, gid="busbw", zorder=3,
            label=f"busbw = algbw × {_BUSBW_FORMULA[op]} = algbw × {fmt_num(factor)}")
    ax.plot(s, alg, color=PALETTE["blue"], lw=1.8, gid="algbw", zorder=4, label="algbw = S / t")
    ax.axhline(beta, color=PALETTE["ink"], ls="--", lw=1.2, gid="beta",
               label=f"链路速度 β = {_size_text(beta)}/s（每方向）")
    ax.axhline(alg_limit, color=PALETTE["blue"], ls=":", lw=1.2, gid="algbw-limit",
               label=f"algbw 的上限 = {_size_text(alg_limit)}/s（只剩带宽项）")
    top = max(beta, alg_limit, float(bus.max()), float(alg.max()))
    ax.set_ylim(0, top * 1.32)
    ax.set_xscale("log")
    ax.set_xlim(s[0], s[-1])
    _log_bytes_axis(ax.xaxis)
    unit = byte_unit(top)
    _scaled_axis(ax.yaxis, {"B": 1.0, "KB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12}[unit])
    ax.set_ylabel(f"带宽（{unit}/s）")
    ax.set_xlabel("消息大小 S（每个 rank 的缓冲区，字节，对数轴）")
    ax.legend(loc="upper left", fontsize=8.5)
    if algorithm == "ring" and op in ("all_reduce", "reduce_scatter", "all_gather"):
        note = ("algbw 只数“用户数据 S”；环形算法每个 rank 实际发送 S × " + _BUSBW_FORMULA[op]
                + "，\n所以 busbw 才是与链路速度 β 对比的数")
    else:
        note = "busbw = algbw × nccl-tests 的系数；\n只有带宽最优的算法才能让 busbw 接近 β"
    ax.text(0.015, 0.68, note, transform=ax.transAxes, ha="left", va="top", fontsize=8.5,
            color=PALETTE["ink"], bbox={"boxstyle": "round,pad=0.3", "fc": "white", "ec": "none", "alpha": 0.9})
    fig.suptitle(
        f"{_OP_NAMES[op]}（{_ALG_NAMES[algorithm]}）的 algbw 与 busbw：N = {n}\n{_link_text(alpha, beta)}",
        fontsize=11, fontweight="bold",
    )
    return fig


# --------------------------------------------------------------------------------------------------------
# 2. T(c) of the chunked ring
# --------------------------------------------------------------------------------------------------------
def _check_chunk_values(values: object, name: str) -> list[int]:
    if isinstance(values, str | bytes) or not isinstance(values, Sequence | np.ndarray):
        raise ValueError(f"{name} must be a sequence of integers >= 1, got {values!r}")
    items = list(values)
    if not items:
        raise ValueError(f"{name} must hold at least one integer >= 1, got an empty sequence")
    for v in items:
        _check_int(name, v, 1, 10**7)
    return sorted({int(v) for v in items})


def _sim_cost(ranks: int, chunks: int, stages: int) -> tuple[int, int]:
    loop = 2 * (ranks - 1) * chunks * stages
    return loop, loop * ranks


def _default_chunks(opt: ring.ChunkOptimum, stages: int) -> list[int]:
    c_max = max(10 * stages, math.ceil(25 * opt.continuous), 2 * opt.chunks)
    grid = np.unique(np.round(np.geomspace(1.0, float(c_max), 400)).astype(int))
    return sorted({int(c) for c in grid} | {stages, opt.chunks})


def _default_simulate_at(opt: ring.ChunkOptimum, ranks: int, stages: int, c_max: int) -> list[int]:
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

    Left: the whole curve :func:`clusterlab.ring.pipelined_time` (gid ``closed-form``); right: the same
    around the optimum. Both panels show the optimum of :func:`clusterlab.ring.optimal_chunks` (star, gid
    ``optimum``: c*, its time and chunk size ``S/(N c*)``), the bandwidth lower bound ``2S(N−1)/(Nβ)`` (the
    ring's α-β time with α = 0, dashed, gid ``lower-bound``) and the makespans of the discrete-event
    simulation :func:`clusterlab.ring.simulate_pipelined` at the ``simulate_at`` values of c (hollow
    markers, gid ``simulated``; default: 1, h, c*/4, c*, 4c* within a work budget). With
    ``compare_single_stage=True`` the curve for a single stage (h = 1, gid ``single-stage``) is added: it
    only rises, c = 1 is best.

    ``size`` S > 0 bytes per rank, ``ranks`` N ≥ 2, ``latency`` α > 0 in s (per chunk per stage),
    ``bandwidth`` β > 0 in B/s per direction, ``stages`` h in 1 … 64, ``chunks`` the c values of the curve
    (default: a log grid from 1 to about 25·c*). Lines keep data in seconds. Returns a pyplot figure.
    """
    s = check_positive("size", size)
    n = _check_int("ranks", ranks, 2, RANKS_MAX)
    alpha = check_positive("latency", latency)
    beta = check_positive("bandwidth", bandwidth)
    h = _check_int("stages", stages, 1, 64)
    if not isinstance(compare_single_stage, bool):
        raise ValueError(f"compare_single_stage must be True or False, got {compare_single_stage!r}")
    opt = ring.optimal_chunks(s, n, alpha, beta, stages=h)
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
    bound = collectives.alpha_beta_time("all_reduce", s, n, 0.0, beta, "ring")
    sim_t = np.array([ring.simulate_pipelined(s, n, k, alpha, beta, stages=h).makespan for k in sim])
    single: tuple[FloatArray, ring.ChunkOptimum] | None = None
    if compare_single_stage:
        single = (
            np.array([ring.pipelined_time(s, n, c, alpha, beta, stages=1) for c in cs]),
            ring.optimal_chunks(s, n, alpha, beta, stages=1),
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

    fig = _new_figure((11.0, 5.0))
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


# --------------------------------------------------------------------------------------------------------
# 3. how c* moves
# --------------------------------------------------------------------------------------------------------
def _rank_grid(n: int) -> list[int]:
    lo, hi = max(2, n // 32), min(RANKS_MAX, n * 32)
    grid = np.unique(np.round(np.geomspace(lo, hi, 41)).astype(int))
    return sorted({int(v) for v in grid} | {n})


def chunk_sensitivity(size: float, ranks: int, latency: float, bandwidth: float, *, stages: int = 3) -> Figure:
    """2 × 2 panels: the optimal chunk count c* (:func:`clusterlab.ring.optimal_chunks`, left axis, gid
    ``c-star``; the continuous optimum dashed, gid ``c-continuous``) and the chunk size ``S/(N c*)`` in bytes
    (right axis, gid ``chunk-bytes``) when one of α, β, N, S varies over 1/100 … 100 × the given value
    (N: 1/32 … 32 ×), the others fixed. The given value is the dotted vertical line.

    Same inputs as :func:`chunk_curve`. The panels' x data are in SI (s, B/s, ranks, bytes). Returns a
    pyplot figure.
    """
    s = check_positive("size", size)
    n = _check_int("ranks", ranks, 2, RANKS_MAX)
    alpha = check_positive("latency", latency)
    beta = check_positive("bandwidth", bandwidth)
    h = _check_int("stages", stages, 1, 64)
    factors = np.logspace(-2.0, 2.0, 41)

    panels: list[tuple[str, str, FloatArray, Callable[[float], ring.ChunkOptimum], float, Callable[[float], str],
                       str]] = [
        ("α", "改变延迟 α（latency）", alpha * factors,
         lambda v: ring.optimal_chunks(s, n, v, beta, stages=h), alpha, _tick_seconds, "c* ∝ 1/√α"),
        ("β", "改变带宽 β（bandwidth，每方向）", beta * factors,
         lambda v: ring.optimal_chunks(s, n, alpha, v, stages=h), beta, lambda v: f"{_size_text(v)}/s",
         "c* ∝ 1/√β"),
        ("N", "改变 rank 数 N", np.array(_rank_grid(n), dtype=float),
         lambda v: ring.optimal_chunks(s, round(v), alpha, beta, stages=h), float(n), lambda v: fmt_num(v),
         "c* ∝ 1/√(N(N−1))"),
        ("S", "改变消息大小 S", s * factors,
         lambda v: ring.optimal_chunks(v, n, alpha, beta, stages=h), s, _size_text, "c* ∝ √S"),
    ]
    fig = _new_figure((11.0, 7.6))
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


# --------------------------------------------------------------------------------------------------------
# 4. Gantt chart of one path
# --------------------------------------------------------------------------------------------------------
def _family(colours: tuple[str, str], count: int) -> list[str]:
    """``count`` colours from light to dark between two hex colours."""
    ramp = mcolors.LinearSegmentedColormap.from_list("family", list(colours))
    return [mcolors.to_hex(ramp(x)) for x in (np.linspace(0.0, 1.0, count) if count > 1 else [0.6])]


_RS_FAMILY: Final = ("#F7C99A", "#B84A00")  # light orange → dark vermillion
_AG_FAMILY: Final = ("#B3D9F2", "#004C80")  # light sky → dark blue
_STAGE_NAMES_3: Final = ("GPU → NIC", "NIC → 交换机 → NIC", "NIC → GPU")


def pipeline_gantt(schedule: ring.PipelineSchedule, *, path: int = 0, max_jobs: int | None = None) -> Figure:
    """Gantt chart of one path (rank ``path`` → ``path + 1``) of a :class:`clusterlab.ring.PipelineSchedule`.

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
            f"schedule must be a clusterlab.ring.PipelineSchedule (from simulate_pipelined), got "
            f"{type(schedule).__name__}"
        )
    n, c, h = schedule.ranks, schedule.chunks, schedule.stages
    if h > GANTT_STAGES_MAX:
        raise ValueError(f"schedule.stages must be <= {GANTT_STAGES_MAX} for a readable chart, got {h}")
    p = _check_int("path", path, 0, n - 1)
    total = int(schedule.finish.shape[1])
    m = min(total, GANTT_JOBS_MAX) if max_jobs is None else min(total, _check_int("max_jobs", max_jobs, 1,
                                                                                  GANTT_JOBS_MAX))
    tau = schedule.chunk_time
    fin = schedule.finish[p, :m, :]
    start = fin - tau
    steps_n = n - 1
    colours = _family(_RS_FAMILY, steps_n) + _family(_AG_FAMILY, steps_n)
    job_colour = [colours[i // c] for i in range(m)]
    truncated = m < total
    end = float(fin[-1, -1]) if truncated else schedule.makespan

    fig = _new_figure((11.0, 1.9 + 0.62 * h))
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


# --------------------------------------------------------------------------------------------------------
# 5. cheapest algorithm over (N, S)
# --------------------------------------------------------------------------------------------------------
def _default_region_ranks() -> list[int]:
    """2, 3, 4, 6, 8, 12, …, 3072, 4096: powers of two and 1.5 × powers of two."""
    out = {1 << k for k in range(1, 13)} | {3 << k for k in range(0, 11)}
    return sorted(out)


def _hier_fits(ranks: int, hierarchical: dict[str, Any]) -> bool:
    g = hierarchical.get("ranks_per_node")
    return isinstance(g, int) and g >= 2 and ranks % g == 0 and ranks // g >= 2


def _candidates_for(op: str, ranks: int, candidates: tuple[str, ...] | None, hierarchical: dict[str, Any],
                    *, include_naive: bool = False) -> tuple[str, ...]:
    """The algorithms compared at one N: the given ones (or every one modelled for ``op``), minus
    ``hierarchical`` when ``ranks_per_node`` does not split N into at least two whole nodes."""
    if candidates is None:
        pool = tuple(
            a for a in collectives.ALGORITHMS
            if op in collectives.SUPPORTED[a] and (include_naive or a != "naive")
            and (a != "hierarchical" or hierarchical.get("ranks_per_node") is not None)
        )
    else:
        pool = candidates
    return tuple(a for a in pool if a != "hierarchical" or _hier_fits(ranks, hierarchical))


def _check_hierarchical(hierarchical: dict[str, Any]) -> dict[str, Any]:
    """The keyword arguments for the hierarchical model, validated; ``None`` values dropped."""
    out: dict[str, Any] = {}
    for key in hierarchical:
        if key not in ("ranks_per_node", "intra_latency", "intra_bandwidth"):
            raise ValueError(f"unknown keyword {key!r}: only ranks_per_node, intra_latency and intra_bandwidth are "
                             "passed (to the hierarchical model)")
    if hierarchical.get("ranks_per_node") is not None:
        out["ranks_per_node"] = _check_int("ranks_per_node", hierarchical["ranks_per_node"], 2, RANKS_MAX)
    for key, check in (("intra_latency", check_nonnegative), ("intra_bandwidth", check_positive)):
        if hierarchical.get(key) is not None:
            if "ranks_per_node" not in out:
                raise ValueError(f"{key} needs ranks_per_node (it belongs to the hierarchical model)")
            out[key] = check(key, hierarchical[key])
    return out


def _check_region_args(
    op: object, candidates: object, hierarchical: dict[str, Any]
) -> tuple[str, tuple[str, ...] | None, dict[str, Any]]:
    op = _check_op(op)
    hier = _check_hierarchical(hierarchical)
    if candidates is None:
        return op, None, hier
    if isinstance(candidates, str | bytes) or not isinstance(candidates, Sequence):
        raise ValueError(f"candidates must be a sequence of algorithm names, got {candidates!r}")
    cand = tuple(candidates)
    if not cand:
        raise ValueError("candidates must name at least one algorithm")
    for a in cand:
        if not isinstance(a, str) or a not in collectives.ALGORITHMS:
            raise ValueError(f"candidates must name algorithms among {', '.join(collectives.ALGORITHMS)}, got {a!r}")
        if op not in collectives.SUPPORTED[a]:
            raise ValueError(f"candidates: {a!r} is modelled for op in {', '.join(collectives.SUPPORTED[a])} only; "
                             f"got op={op!r}")
        if a == "hierarchical" and "ranks_per_node" not in hier:
            raise ValueError("candidates includes 'hierarchical': pass ranks_per_node (ranks in one node, e.g. 8)")
    return op, tuple(dict.fromkeys(cand)), hier


def _edges(values: FloatArray) -> FloatArray:
    """Cell edges on a log axis: geometric midpoints, extended by half a step at both ends."""
    logv = np.log(values)
    mid = (logv[1:] + logv[:-1]) / 2
    first = logv[0] - (mid[0] - logv[0]) if values.size > 1 else logv[0] - 0.5
    last = logv[-1] + (logv[-1] - mid[-1]) if values.size > 1 else logv[-1] + 0.5
    return np.exp(np.concatenate(([first], mid, [last])))


def algorithm_regions(
    latency: float,
    bandwidth: float,
    *,
    ranks: Sequence[int] | None = None,
    sizes: Sequence[float] | npt.NDArray[np.floating[Any]] | None = None,
    op: str = "all_reduce",
    candidates: Sequence[str] | None = None,
    **hierarchical: float | int | None,
) -> Figure:
    """Map of the cheapest algorithm (:func:`clusterlab.collectives.best_algorithm`) over the (N, S) plane.

    One cell per (N, S) pair, one colour per algorithm (QuadMesh gid ``regions``; its array holds the index
    of the winner in :data:`clusterlab.collectives.ALGORITHMS`, rows = sizes, columns = ranks). For
    all-reduce the curve ``S* = N·α·β·(N − 1 − ⌈log₂N⌉)`` (:func:`clusterlab.collectives.tree_ring_crossover`,
    gid ``tree-ring``), below which tree beats ring, is drawn over it.

    ``ranks``: the N values (default 2, 3, 4, 6, 8, 12, …, 4096: powers of two and 1.5 × powers of two, so the
    power-of-two columns where halving-doubling needs no extra fold step stand out); ``sizes`` in bytes
    (default 1 KB … 10 GB); ``candidates`` default: every algorithm modelled for ``op`` except naive, plus
    hierarchical when ``ranks_per_node`` is given (then only at N that split into ≥ 2 whole nodes).
    ``**hierarchical``: ``ranks_per_node``, ``intra_latency``, ``intra_bandwidth``. Returns a pyplot figure.
    """
    alpha = check_positive("latency", latency)
    beta = check_positive("bandwidth", bandwidth)
    op, cand, hier = _check_region_args(op, candidates, hierarchical)
    ns = _check_ranks_list(_default_region_ranks() if ranks is None else ranks, "ranks", 400)
    s = _check_sizes(sizes)
    if len(ns) * s.size > REGION_CELLS_MAX:
        raise ValueError(f"ranks × sizes must be <= {REGION_CELLS_MAX} cells, got {len(ns)} × {s.size}")
    codes = np.zeros((s.size, len(ns)), dtype=float)
    compared: dict[str, None] = {}
    seen: set[str] = set()
    for j, n in enumerate(ns):
        here = _candidates_for(op, n, cand, hier)
        if not here:
            raise ValueError(f"candidates leave no algorithm that fits N = {n} (hierarchical needs ranks_per_node "
                             "to split N into at least 2 whole nodes)")
        compared.update(dict.fromkeys(here))
        extra = hier if "hierarchical" in here else {}
        for i, x in enumerate(s):
            best = collectives.best_algorithm(op, float(x), n, alpha, beta, here, **extra).best
            codes[i, j] = collectives.ALGORITHMS.index(best)
            seen.add(best)
    palette = [_ALG_COLOURS[a] for a in collectives.ALGORITHMS]
    cmap = mcolors.ListedColormap(palette)
    norm = mcolors.BoundaryNorm(np.arange(len(palette) + 1) - 0.5, len(palette))
    x = np.array(ns, dtype=float)
    x_edges, s_edges = _edges(x), _edges(s)

    fig = _new_figure((10.0, 6.0))
    ax = fig.subplots()
    mesh = ax.pcolormesh(x_edges, s_edges, codes, cmap=cmap, norm=norm, shading="flat", alpha=0.8,
                         linewidth=0.0, zorder=1)
    mesh.set_gid("regions")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlim(x_edges[0], x_edges[-1])
    ax.set_ylim(s_edges[0], s_edges[-1])
    ax.grid(False)
    ticks = [v for v in ns if v & (v - 1) == 0] or ns
    ax.xaxis.set_major_locator(FixedLocator([float(v) for v in ticks]))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.set_xticklabels([str(v) for v in ticks])
    _log_bytes_axis(ax.yaxis)
    ax.set_xlabel("rank 数 N（对数轴）")
    ax.set_ylabel("消息大小 S（每个 rank，字节，对数轴）")
    handles: list[Any] = [
        Patch(facecolor=_ALG_COLOURS[a], alpha=0.8, label=_ALG_NAMES[a] + ("" if a in seen else "（从未最快）"))
        for a in compared
    ]
    if op == "all_reduce" and "tree" in compared and "ring" in compared:
        dense = np.unique(np.round(np.geomspace(4, max(ns[-1], 4), 300)).astype(int))
        star = np.array([collectives.tree_ring_crossover(int(v), alpha, beta) for v in dense])
        ok = star > 0
        ax.plot(dense[ok], star[ok], color=PALETTE["ink"], lw=2.0, gid="tree-ring", zorder=3)
        handles.append(Line2D([], [], color=PALETTE["ink"], lw=2.0,
                              label="S* = Nαβ(N−1−⌈log₂N⌉)：\n其下 tree 比 ring 快"))
    if "halving_doubling" in compared and "ring" in compared:
        handles.append(Patch(visible=False, label="N 为 2 的幂时 halving-doubling 与\n"
                             "ring 带宽项相同、步数只有 2log₂N，\n所以这些列归它；其他 N 要多\n一轮折叠（+2α + 2S/β）"))
    if "ranks_per_node" in hier:
        handles.append(Patch(visible=False, label=f"hierarchical：每节点 {hier['ranks_per_node']} 个 rank，\n"
                                                   "只在 N 能分成 ≥ 2 个整节点时参与"))
    fig.legend(handles=handles, loc="outside right upper", fontsize=8.5, title="最快的算法（α-β 模型）",
               title_fontsize=9, alignment="left", labelspacing=0.9)
    fig.suptitle(f"{_OP_NAMES[op]}：哪种算法最快？\n{_link_text(alpha, beta)}", fontsize=11, fontweight="bold")
    return fig


def algorithm_times(
    ranks: int,
    latency: float,
    bandwidth: float,
    *,
    sizes: Sequence[float] | npt.NDArray[np.floating[Any]] | None = None,
    op: str = "all_reduce",
    candidates: Sequence[str] | None = None,
    **hierarchical: float | int | None,
) -> Figure:
    """Every algorithm's α-β time vs message size at fixed N (left, log-log, gid ``time-{algorithm}``) and
    each time divided by the best one at that size (right, gid ``ratio-{algorithm}``; 1 = fastest).

    Candidates default to every algorithm modelled for ``op`` including naive, plus hierarchical when
    ``ranks_per_node`` is given and splits N into ≥ 2 whole nodes. Other inputs as
    :func:`algorithm_regions`. Returns a pyplot figure.
    """
    alpha = check_positive("latency", latency)
    beta = check_positive("bandwidth", bandwidth)
    n = _check_int("ranks", ranks, 2, RANKS_MAX)
    op, cand, hier = _check_region_args(op, candidates, hierarchical)
    s = _check_sizes(sizes)
    here = _candidates_for(op, n, cand, hier, include_naive=True)
    if not here:
        raise ValueError(f"candidates leave no algorithm that fits N = {n} (hierarchical needs ranks_per_node "
                         "to split N into at least 2 whole nodes)")
    extra = hier if "hierarchical" in here else {}
    choices = [collectives.best_algorithm(op, float(x), n, alpha, beta, here, **extra) for x in s]
    times = {a: np.array([ch.time(a) for ch in choices]) for a in here}
    best = np.array([ch.time(ch.best) for ch in choices])

    fig = _new_figure((11.0, 5.0))
    ax_t, ax_r = fig.subplots(1, 2)
    styles = ("-", "--", "-.", ":", (0, (6, 2, 1, 2)))
    for k, a in enumerate(here):
        ax_t.plot(s, times[a], color=_ALG_COLOURS[a], lw=2.0, ls=styles[k % len(styles)], gid=f"time-{a}",
                  label=_ALG_NAMES[a])
        ax_r.plot(s, times[a] / best, color=_ALG_COLOURS[a], lw=2.0, ls=styles[k % len(styles)],
                  gid=f"ratio-{a}", label=_ALG_NAMES[a])
    for ax in (ax_t, ax_r):
        ax.set_xscale("log")
        ax.set_xlim(s[0], s[-1])
        _log_bytes_axis(ax.xaxis)
        ax.set_xlabel("消息大小 S（每个 rank，字节，对数轴）")
    ax_t.set_yscale("log")
    _log_time_axis(ax_t.yaxis)
    ax_t.set_ylabel("α-β 时间（对数轴）")
    ax_t.set_title("时间", loc="left")
    ax_t.legend(loc="upper left", fontsize=8.5)
    ratios = np.concatenate([times[a] / best for a in here])
    ax_r.set_yscale("log")
    ax_r.set_ylim(0.9, max(2.0, float(ratios.max()) * 1.3))
    ax_r.yaxis.set_major_locator(LogLocator(base=10.0, subs=(1.0, 2.0, 5.0), numticks=12))
    ax_r.yaxis.set_major_formatter(FuncFormatter(lambda v, _pos: f"{fmt_num(v)}×"))
    ax_r.yaxis.set_minor_formatter(NullFormatter())
    ax_r.set_ylabel("相对最快算法的倍数（1× = 最快，对数轴）")
    ax_r.set_title("比最快的慢多少", loc="left")
    fig.suptitle(f"{_OP_NAMES[op]}：各算法的 α-β 时间，N = {n}\n{_link_text(alpha, beta)}", fontsize=11,
                 fontweight="bold")
    return fig


# --------------------------------------------------------------------------------------------------------
# 7. live calculator
# --------------------------------------------------------------------------------------------------------
def _calculator_text(
    op: str,
    algorithm: str,
    ranks: int,
    size: float,
    latency: float,
    bandwidth: float,
    *,
    ranks_per_node: int | None = None,
) -> str:
    """The calculator's read-out as plain text (raises ``ValueError`` for inputs the model does not cover).

    α-β time and its split into latency and bandwidth terms (:func:`clusterlab.collectives.alpha_beta_time`
    with S = 0 and with α = 0), algbw and busbw, and the fastest algorithm among those modelled for ``op``
    (:func:`clusterlab.collectives.best_algorithm`; hierarchical only with ``ranks_per_node``).
    ``ranks_per_node`` is used only by ``algorithm="hierarchical"`` and the comparison.
    """
    op = _check_op(op)
    algorithm = _check_algorithm(algorithm, op, collectives.ALGORITHMS)
    n = _check_int("ranks", ranks, 2, RANKS_MAX)
    s = check_positive("size", size)
    alpha = check_nonnegative("latency", latency)
    beta = check_positive("bandwidth", bandwidth)
    hier: dict[str, Any] = {}
    if ranks_per_node is not None:
        hier["ranks_per_node"] = _check_int("ranks_per_node", ranks_per_node, 2, RANKS_MAX)
    if algorithm == "hierarchical" and not _hier_fits(n, hier):
        raise ValueError(f"ranks_per_node must split ranks = {n} into at least 2 whole nodes for algorithm "
                         f"'hierarchical', got ranks_per_node={ranks_per_node!r}")
    extra = hier if algorithm == "hierarchical" else {}
    total = collectives.alpha_beta_time(op, s, n, alpha, beta, algorithm, **extra)
    lat = collectives.alpha_beta_time(op, 0.0, n, alpha, beta, algorithm, **extra)
    band = collectives.alpha_beta_time(op, s, n, 0.0, beta, algorithm, **extra)
    alg_bw = collectives.algbw(s, total)
    bus_bw = collectives.busbw(op, s, n, total)
    n_star = collectives.crossover_size(alpha, beta)
    here = _candidates_for(op, n, None, hier)
    choice = collectives.best_algorithm(op, s, n, alpha, beta, here, **(hier if "hierarchical" in here else {}))
    regime = "延迟主导 latency-bound" if lat > band else "带宽主导 bandwidth-bound"

    def pct(x: float) -> str:
        return f"{fmt_num(100 * x / total)} %" if total > 0 else "—"

    lines = [
        f"{_OP_NAMES[op]} · {_ALG_NAMES[algorithm]} · N = {n} · S = {_size_text(s)}",
        f"α = {fmt_seconds(alpha)} · β = {_rate_text(beta, '每方向 per direction')}",
        "",
        f"α-β 时间 T = {fmt_seconds(total, 4)}",
        f"  延迟项 latency = {fmt_seconds(lat, 4)}（{pct(lat)}）",
        f"  带宽项 bandwidth = {fmt_seconds(band, 4)}（{pct(band)}）",
        f"  → {regime}；n* = α·β = {_size_text(n_star)}",
        "",
        f"algbw = S/T = {_size_text(alg_bw)}/s",
        f"busbw = algbw × {_BUSBW_FORMULA[op]} = {_size_text(bus_bw)}/s（对比 β = {_size_text(beta)}/s）",
        "",
        f"最快的算法 best：{_ALG_NAMES[choice.best]}（{fmt_seconds(choice.time(choice.best), 4)}）",
    ]
    t_best = choice.time(choice.best)
    for a, t_a in sorted(choice.times, key=lambda kv: kv[1]):
        gap = "最快" if a == choice.best else f"慢 {fmt_seconds(t_a - t_best)}，{fmt_num(t_a / t_best)}×"
        lines.append(f"  {_ALG_NAMES[a]}：{fmt_seconds(t_a, 4)}（{gap}）")
    return "\n".join(lines)


def _calculator_html(
    op: str, algorithm: str, ranks: int, size: float, latency: float, bandwidth: float, ranks_per_node: int | None
) -> str:
    """HTML for the widget: the text of :func:`_calculator_text`, or the reason the model does not apply."""
    try:
        text = _calculator_text(op, algorithm, ranks, size, latency, bandwidth, ranks_per_node=ranks_per_node)
    except ValueError as err:
        text = f"无法计算 / not modelled：{err}"
    return f"<pre style='font-size:13px;line-height:1.45'>{html.escape(text)}</pre>"


def _series(lo_exp: int, hi_exp: int, steps: Sequence[float] = (1.0, 2.0, 5.0)) -> list[float]:
    """``m × 10^e`` for every step ``m`` and exponent, parsed from decimal text so ``5e-06`` stays exact."""
    return [float(f"{m}e{e}") for e in range(lo_exp, hi_exp + 1) for m in steps]


def _options(values: Sequence[float], current: float, fmt: Callable[[float], str]) -> list[tuple[str, float]]:
    """Slider options (label, value): ``values`` plus ``current``, sorted, without two equal labels."""
    vals = sorted({*values, current})
    out: dict[str, float] = {}
    for v in vals:
        label = fmt(v)
        if label not in out or math.isclose(v, current):
            out[label] = v
    return sorted(((k, v) for k, v in out.items()), key=lambda kv: kv[1])


def alpha_beta_calculator(
    *,
    op: str = "all_reduce",
    algorithm: str = "ring",
    ranks: int = 8,
    size: float = 14e9,
    latency: float = 5e-6,
    bandwidth: float = 25e9,
    ranks_per_node: int = 8,
) -> Any:
    """An ipywidgets panel for live Jupyter use: drop-downs for op and algorithm, sliders for N, S, α, β and
    ranks per node (hierarchical); the read-out (:func:`_calculator_text`) shows the α-β time, its latency
    and bandwidth terms, algbw / busbw and the fastest algorithm, and updates on every change.

    Inputs are SI (bytes, s, B/s per direction) and are validated like the charts. Returns an
    ``ipywidgets.VBox`` (children: the controls box and the ``HTML`` read-out). In the static book the
    callbacks do not run.
    """
    op = _check_op(op)
    algorithm = _check_algorithm(algorithm, op, collectives.ALGORITHMS)
    n0 = _check_int("ranks", ranks, 2, 1 << 16)
    s0 = check_positive("size", size)
    a0 = check_positive("latency", latency)
    b0 = check_positive("bandwidth", bandwidth)
    g0 = _check_int("ranks_per_node", ranks_per_node, 2, 64)
    import ipywidgets as widgets

    wide = {"description_width": "initial"}
    layout = widgets.Layout(width="430px")
    w_op = widgets.Dropdown(options=[(_OP_NAMES[o], o) for o in collectives.OPS], value=op,
                            description="操作 op", style=wide, layout=layout)
    w_alg = widgets.Dropdown(options=[(_ALG_NAMES[a], a) for a in collectives.ALGORITHMS], value=algorithm,
                             description="算法 algorithm", style=wide, layout=layout)
    rank_values = sorted({1 << k for k in range(1, 17)} | {3 << k for k in range(0, 15)} | {n0})
    w_n = widgets.SelectionSlider(options=[(str(v), v) for v in rank_values], value=n0,
                                  description="rank 数 N", style=wide, layout=layout, continuous_update=False)
    w_s = widgets.SelectionSlider(options=_options(_series(0, 11), s0, _size_text), value=s0,
                                  description="消息大小 S", style=wide, layout=layout, continuous_update=False)
    w_a = widgets.SelectionSlider(options=_options(_series(-8, -2), a0, fmt_seconds), value=a0,
                                  description="延迟 α", style=wide, layout=layout, continuous_update=False)
    rates = _series(8, 12, (1.0, 1.25, 2.0, 2.5, 5.0))
    w_b = widgets.SelectionSlider(options=_options(rates, b0, _rate_text), value=b0,
                                  description="带宽 β（每方向）", style=wide, layout=layout, continuous_update=False)
    w_g = widgets.SelectionSlider(options=[(str(v), v) for v in sorted({2, 4, 8, 16, 32, 64} | {g0})], value=g0,
                                  description="每节点 rank 数（hierarchical）", style=wide, layout=layout,
                                  continuous_update=False)
    out = widgets.HTML()

    def update(_change: object = None) -> None:
        out.value = _calculator_html(w_op.value, w_alg.value, int(w_n.value), float(w_s.value), float(w_a.value),
                                     float(w_b.value), int(w_g.value))

    for w in (w_op, w_alg, w_n, w_s, w_a, w_b, w_g):
        w.observe(update, names="value")
    update()
    return widgets.VBox([widgets.VBox([w_op, w_alg, w_n, w_s, w_a, w_b, w_g]), out])
