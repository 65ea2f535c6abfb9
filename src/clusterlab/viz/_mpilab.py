"""§2.3 lab figure: measured all-reduce times (median, quartile bars) against the fitted α-β models, fit points
filled and held-out points hollow, one panel per N. A two-regime model is drawn as two pieces, broken where the
algorithm's message size crosses the switch. Draws what :mod:`clusterlab.lab.mpifit` returns."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.figure import Figure

from ..lab.mpicheck import SpreadRelation
from ..lab.mpifit import Fit, RegimeFit, Sample
from ._axes import _log_bytes_axis, _log_time_axis
from ._style import PALETTE, new_figure

__all__ = ["mpi_fit_figure", "mpi_spread_figure"]

_COLOURS = ("blue", "vermillion", "green", "orange", "purple")


def mpi_fit_figure(samples: Sequence[Sample], fits: dict[tuple[str, int], Fit] | dict[tuple[str, int], RegimeFit],
                   names: dict[str, str]) -> Figure:
    """Log-log time vs size. ``fits[(algorithm, N)]`` is the model drawn for that panel; a sample is filled when
    its size was used by that fit, hollow when held out. ``names`` maps algorithm → legend label."""
    ranks = sorted({s.ranks for s in samples})
    fig = new_figure((4.6 * len(ranks), 3.8))
    axes = fig.subplots(1, len(ranks), squeeze=False)[0]
    for ax, n in zip(axes, ranks, strict=True):
        for k, alg in enumerate(names):
            pts = sorted((s for s in samples if s.ranks == n and s.algorithm == alg), key=lambda s: s.size)
            if not pts:
                continue
            colour = PALETTE[_COLOURS[k % len(_COLOURS)]]
            f = fits.get((alg, n))
            used = set(f.sizes) if f is not None else set()
            z = np.array([s.size for s in pts])
            med = np.array([s.median for s in pts])
            err = np.array([[s.median - s.q25 for s in pts], [s.q75 - s.median for s in pts]])
            ax.errorbar(z, med, yerr=err, fmt="none", ecolor=colour, lw=0.8)
            fit_mask = np.array([s.size in used for s in pts])
            ax.plot(z[fit_mask], med[fit_mask], "o", color=colour, label=names[alg])
            ax.plot(z[~fit_mask], med[~fit_mask], "o", mfc="white", color=colour)
            if f is not None:
                grid = np.geomspace(z.min(), z.max(), 120)
                piece = np.array([id(f.regime(x, n)) if isinstance(f, RegimeFit) else 0 for x in grid])
                for key in dict.fromkeys(piece):  # each regime's piece separately: no line across the jump
                    g = grid[piece == key]
                    ax.plot(g, [f.time(x, n) for x in g], "-", color=colour, lw=1.2)
        ax.set_xscale("log")
        ax.set_yscale("log")
        _log_bytes_axis(ax.xaxis)
        _log_time_axis(ax.yaxis)
        ax.set_xlabel("每个 rank 的缓冲区 S")
        ax.set_ylabel("全归约时间（中位数）")
        ax.set_title(f"N = {n}")
        ax.grid(True, which="major", alpha=0.3)
    axes[0].legend(fontsize="small", loc="upper left")
    return fig


def mpi_spread_figure(relation: SpreadRelation, names: dict[str, str]) -> Figure:
    """Each sample's |relative model error| against its spread (IQR / median), one colour per op (``names``: op →
    legend label); the worst point ringed. Draws what :func:`clusterlab.lab.mpicheck.spread_relation` returns."""
    fig = new_figure((6.2, 3.8))
    ax = fig.subplots()
    spread = np.array(relation.spreads)
    err = np.abs(np.array(relation.errors))
    ops = [s.op for s in relation.samples]
    for k, op in enumerate(names):
        mask = np.array([o == op for o in ops])
        if mask.any():
            ax.plot(spread[mask], 100 * err[mask], "o", ms=4.5, alpha=0.8,
                    color=PALETTE[_COLOURS[k % len(_COLOURS)]], label=names[op])
    w = relation.worst
    ax.plot([spread[w]], [100 * err[w]], "o", ms=11, mfc="none", mec="black", mew=1.0)
    ax.set_xlabel("离散度（四分位距 / 中位数）")
    ax.set_ylabel("|相对误差|（%）")
    ax.set_xlim(0, None)
    ax.set_ylim(0, None)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize="small", loc="upper right")
    return fig
