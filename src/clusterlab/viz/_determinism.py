"""Figure of §9.6.5 determinism: how far apart the same float32 gradients summed in two orders land, over the
rank count, and how the difference travels through a small training run."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import numpy as np
from matplotlib.figure import Figure

from ..faults.determinism import OrderSweep
from ..faults.divergence import TrainingDivergence
from ..validate import choice
from ._style import PALETTE, new_figure

__all__ = ["determinism_figure", "float_bits_figure"]

#: Chinese names of the summation orders.
_ORDER_NAMES: Final = {
    "ring": "环形",
    "tree": "二叉树",
    "pairwise": "两两求和",
    "sequential": "按 rank 顺序",
    "arrival": "按到达顺序",
}


def determinism_figure(sweep: OrderSweep, run: TrainingDivergence, *, pair: tuple[str, str] = ("ring", "tree")
                       ) -> Figure:
    """Two panels.

    Left: for each rank count of ``sweep`` (:func:`clusterlab.faults.determinism.order_sweep`), the largest and
    the mean float32 ULP distance between the orders ``pair`` (default ring and tree), accumulating in float32,
    and the largest with float64 accumulation rounded once (symmetric-log axis, so 0 ULP is drawn).
    Right: for ``run`` (:func:`clusterlab.faults.divergence.training_divergence`), the largest ``|θ_A − θ_B|``
    and the largest loss difference after every step (log axis; steps where the runs are still identical are
    left out). Returns a pyplot figure.
    """
    if not isinstance(sweep, OrderSweep):
        raise ValueError("sweep must be an OrderSweep of clusterlab.faults.determinism.order_sweep")
    if not isinstance(run, TrainingDivergence):
        raise ValueError("run must be a TrainingDivergence of clusterlab.faults.divergence.training_divergence")
    orders = sweep.float32[0].orders
    a, b = (choice("pair", o, orders) for o in pair)
    name = f"{_ORDER_NAMES[a]} vs {_ORDER_NAMES[b]}"

    fig = new_figure((9.6, 4.0))
    ax_l, ax_r = fig.subplots(1, 2)
    ranks = np.array(sweep.ranks)
    ax_l.plot(ranks, sweep.max_ulp(a, b), "o-", color=PALETTE["vermillion"], label="最大（float32 累加）")
    ax_l.plot(ranks, sweep.mean_ulp(a, b), "s-", color=PALETTE["blue"], label="平均（float32 累加）")
    ax_l.plot(ranks, sweep.max_ulp(a, b, "float64"), "^--", color=PALETTE["green"],
              label="最大（float64 累加，最后舍入一次）")
    ax_l.set_yscale("symlog", linthresh=1)
    ax_l.set_ylim(-0.5, max(10.0, float(sweep.max_ulp(a, b).max())) * 100)  # room for the legend
    ax_l.set_xlabel("rank 数 N")
    ax_l.set_ylabel("ULP 距离")
    ax_l.set_title(f"同一组梯度：{name}（{sweep.length} 个元素）")
    ax_l.set_xticks(ranks if ranks.size <= 16 else ranks[:: max(1, ranks.size // 8)])
    ax_l.legend(loc="upper left", fontsize=8)

    steps = np.arange(run.steps + 1)
    shown = run.max_param_diff > 0
    ax_r.plot(steps[shown], run.max_param_diff[shown], "-", color=PALETTE["vermillion"], label="最大 |Δ参数|")
    loss_shown = run.loss_diff > 0
    ax_r.plot(steps[loss_shown], run.loss_diff[loss_shown], "-", color=PALETTE["blue"], alpha=0.8,
              label="|Δ损失|（nats）")
    if shown.any() or loss_shown.any():
        ax_r.set_yscale("log")
    ax_r.set_xlabel("训练步数")
    ax_r.set_ylabel("两次训练之差")
    ax_r.set_title(f"N = {run.ranks}：{_ORDER_NAMES[run.orders[0]]} vs {_ORDER_NAMES[run.orders[1]]}归约")
    ax_r.legend(loc="upper left", fontsize=8)
    return fig


#: field boundaries of a float32 bit pattern, most significant bit first: sign 1, exponent 8, significand 23
_FIELDS: Final = (("符号", 0, 1), ("指数", 1, 9), ("尾数", 9, 32))


def float_bits_figure(rows: Sequence[tuple[str, float]], *, reference: int = 0, title: str = "") -> Figure:
    """The 32 bits of float32 numbers, one row per ``(label, value)`` of ``rows`` (values as returned by a
    compute function, e.g. :class:`clusterlab.faults.determinism.OrderComparison` sums or
    :class:`clusterlab.faults.summation.PartialSums` values), most significant bit left: sign, exponent and
    significand fields shaded, a set bit dark; bits that differ from row ``reference`` outlined in vermillion.
    The hex pattern and the number of differing bits are written at the right. Returns a pyplot figure."""
    from matplotlib.patches import Rectangle

    if isinstance(rows, str | bytes) or not isinstance(rows, Sequence) or not rows:
        raise ValueError("rows must be a non-empty sequence of (label, value) pairs")
    labels = [str(label) for label, _ in rows]
    values = np.array([v for _, v in rows], dtype=np.float32)
    if not np.all(np.isfinite(values)):
        raise ValueError("rows must hold finite values")
    if not isinstance(reference, int) or not 0 <= reference < len(rows):
        raise ValueError(f"reference must be a row index in 0 … {len(rows) - 1}, got {reference!r}")
    words = values.view(np.uint32)
    bits = (words[:, None] >> np.arange(31, -1, -1, dtype=np.uint32)) & np.uint32(1)

    fig = new_figure((9.6, 0.55 * len(rows) + 1.1))
    ax = fig.add_subplot()
    shades = (PALETTE["orange"], PALETTE["sky"], PALETTE["green"])
    for r in range(len(rows)):
        y = len(rows) - 1 - r
        for (_, lo, hi), shade in zip(_FIELDS, shades, strict=True):
            for b in range(lo, hi):
                on = bool(bits[r, b])
                ax.add_patch(Rectangle((b, y), 0.92, 0.8, facecolor=PALETTE["ink"] if on else shade,
                                       alpha=0.9 if on else 0.25, linewidth=0))
                if bits[r, b] != bits[reference, b]:
                    ax.add_patch(Rectangle((b - 0.04, y - 0.04), 1.0, 0.88, fill=False,
                                           edgecolor=PALETTE["vermillion"], linewidth=2.2))
        n_diff = int(np.count_nonzero(bits[r] != bits[reference]))
        note = "参照" if r == reference else f"{n_diff} 位不同"
        ax.text(32.6, y + 0.4, f"0x{int(words[r]):08x}", va="center", fontsize=9, family="monospace")
        ax.text(38.2, y + 0.4, note, va="center", fontsize=9)
    for name, lo, hi in _FIELDS:
        ax.text((lo + hi) / 2 - 0.05, len(rows) + 0.2, name, ha="center", va="bottom", fontsize=9)
    ax.set_xlim(-0.3, 42)
    ax.grid(False)
    ax.set_ylim(-0.3, len(rows) + 0.9)
    ax.set_yticks([len(rows) - 1 - r + 0.4 for r in range(len(rows))], labels)
    ax.set_xticks([0.46, 8.46, 31.46], ["31", "23", "0"])
    ax.set_xlabel("位（高位在左）")
    for side in ("top", "right", "bottom"):
        ax.spines[side].set_visible(False)
    if title:
        ax.set_title(title)
    return fig
