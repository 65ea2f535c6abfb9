"""Choice of algorithm: the cheapest algorithm over the (N, S) plane with the tree/ring boundary, and every
algorithm's time vs S at fixed N (:func:`clusterlab.communication.collectives.best_algorithm`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

import numpy as np
import numpy.typing as npt
from matplotlib import colors as mcolors
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from matplotlib.ticker import FixedLocator, FuncFormatter, LogLocator, NullFormatter, NullLocator

from ..book import labels
from ..communication import collectives
from ..units import fmt_num
from ..validate import int_in_range, non_negative, positive
from ._axes import (
    _ALG_COLOURS,
    RANKS_MAX,
    FloatArray,
    _alg_name,
    _check_ranks_list,
    _check_sizes,
    _link_text,
    _log_bytes_axis,
    _log_time_axis,
)
from ._style import PALETTE, new_figure

__all__ = ["algorithm_regions", "algorithm_times"]

#: Most grid cells :func:`algorithm_regions` evaluates.
REGION_CELLS_MAX: Final = 40_000


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
        out["ranks_per_node"] = int_in_range("ranks_per_node", hierarchical["ranks_per_node"], 2, RANKS_MAX)
    for key, check in (("intra_latency", non_negative), ("intra_bandwidth", positive)):
        if hierarchical.get(key) is not None:
            if "ranks_per_node" not in out:
                raise ValueError(f"{key} needs ranks_per_node (it belongs to the hierarchical model)")
            out[key] = check(key, hierarchical[key])
    return out


def _check_region_args(
    op: object, candidates: object, hierarchical: dict[str, Any]
) -> tuple[str, tuple[str, ...] | None, dict[str, Any]]:
    op = collectives.check_op(op)
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
    """Map of the cheapest algorithm (:func:`clusterlab.communication.collectives.best_algorithm`) over the (N, S)
    plane.

    One cell per (N, S) pair, one colour per algorithm (QuadMesh gid ``regions``; its array holds the index
    of the winner in :data:`clusterlab.communication.collectives.ALGORITHMS`, rows = sizes, columns = ranks). For
    all-reduce the curve ``S* = N·α·β·(N − 1 − ⌈log₂N⌉)``
    (:func:`clusterlab.communication.collectives.tree_ring_crossover`,
    gid ``tree-ring``), below which tree beats ring, is drawn over it.

    ``ranks``: the N values (default 2, 3, 4, 6, 8, 12, …, 4096: powers of two and 1.5 × powers of two, so the
    power-of-two columns where halving-doubling needs no extra fold step stand out); ``sizes`` in bytes
    (default 1 KB … 10 GB); ``candidates`` default: every algorithm modelled for ``op`` except naive, plus
    hierarchical when ``ranks_per_node`` is given (then only at N that split into ≥ 2 whole nodes).
    ``**hierarchical``: ``ranks_per_node``, ``intra_latency``, ``intra_bandwidth``. Returns a pyplot figure.
    """
    alpha = positive("latency", latency)
    beta = positive("bandwidth", bandwidth)
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

    fig = new_figure((10.0, 6.0))
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
        Patch(facecolor=_ALG_COLOURS[a], alpha=0.8, label=_alg_name[a] + ("" if a in seen else "（从未最快）"))
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
    fig.suptitle(f"{labels.op_name(op)}：哪种算法最快？\n{_link_text(alpha, beta)}", fontsize=11, fontweight="bold")
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
    alpha = positive("latency", latency)
    beta = positive("bandwidth", bandwidth)
    n = int_in_range("ranks", ranks, 2, RANKS_MAX)
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

    fig = new_figure((11.0, 5.0))
    ax_t, ax_r = fig.subplots(1, 2)
    styles = ("-", "--", "-.", ":", (0, (6, 2, 1, 2)))
    for k, a in enumerate(here):
        ax_t.plot(s, times[a], color=_ALG_COLOURS[a], lw=2.0, ls=styles[k % len(styles)], gid=f"time-{a}",
                  label=_alg_name[a])
        ax_r.plot(s, times[a] / best, color=_ALG_COLOURS[a], lw=2.0, ls=styles[k % len(styles)],
                  gid=f"ratio-{a}", label=_alg_name[a])
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
    fig.suptitle(f"{labels.op_name(op)}：各算法的 α-β 时间，N = {n}\n{_link_text(alpha, beta)}", fontsize=11,
                 fontweight="bold")
    return fig
