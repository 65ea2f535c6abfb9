"""§2.3.1 figure: imposed vs fitted β and α on the emulated cluster, one bar per (run, node count), the ±10 % and
±25 % bands of the checks drawn. Draws what :func:`clusterlab.lab.report.recovery_rows` returns."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.figure import Figure

from ..lab.report import RecoveryRow
from ._style import PALETTE, new_figure

__all__ = ["emulated_recovery"]


def emulated_recovery(rows: Sequence[RecoveryRow]) -> Figure:
    """Two panels of horizontal bars: fitted β over imposed − 1 and fitted α over imposed − 1, in %."""
    if not rows:
        raise ValueError("rows must hold at least one RecoveryRow")
    fig = new_figure((8.6, 0.42 * len(rows) + 1.4))
    axes = fig.subplots(1, 2, sharey=True)
    y = np.arange(len(rows))[::-1]
    labels = [f"{r.label}，{r.nodes} 节点" for r in rows]
    for ax, attr, band, title in ((axes[0], "beta_error", 10, "β：拟合 / 强加 − 1"),
                                  (axes[1], "alpha_error", 25, "α：拟合 / （软件底噪 + 时延） − 1")):
        vals = np.array([100 * getattr(r, attr) for r in rows])
        ax.axvspan(-band, band, color=PALETTE["green"], alpha=0.12, lw=0)
        ax.axvline(0, color="0.3", lw=0.8)
        ax.barh(y, vals, color=PALETTE["blue"], height=0.6)
        for yy, v in zip(y, vals, strict=True):
            ax.text(v + (0.6 if v >= 0 else -0.6), yy, f"{v:+.1f}%", va="center", ha="left" if v >= 0 else "right",
                    fontsize="small")
        lim = max(band * 1.6, float(np.abs(vals).max()) * 1.35)
        ax.set_xlim(-lim, lim)
        ax.set_title(title, fontsize="medium")
        ax.set_xlabel(f"%（绿带：±{band}%）")
    axes[0].set_yticks(y, labels)
    return fig
