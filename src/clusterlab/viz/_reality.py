"""The book's page 「模型与现实」: the planner's step time against the step time each published run implies.

Everything drawn comes from :func:`clusterlab.cluster.planning.reality.compare`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..cluster.planning.reality import Check
from ._style import PALETTE, new_figure

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["model_vs_reality"]

_FAMILIES = (("A100", "A100", "blue"), ("H100", "H100", "vermillion"), ("H800", "H800", "orange"),
             ("TPU", "TPU v4", "green"))


def _family(hardware: str) -> tuple[str, str]:
    for prefix, label, colour in _FAMILIES:
        if hardware.startswith(prefix):
            return label, colour
    return hardware, "grey"


def model_vs_reality(checks: Sequence[Check]) -> Figure:
    """Left: predicted against measured seconds per step (log–log), one point per run, coloured by accelerator,
    circles dense and triangles MoE; the vertical bar spans the options the paper did not publish; the diagonal
    and the ±10 % and ±20 % bands. Right: the error of every run by accelerator, dense and MoE apart."""
    if not checks:
        raise ValueError("checks must hold at least one run")
    fig = new_figure((10, 4.4))
    ax1, ax2 = fig.subplots(1, 2, gridspec_kw={"width_ratios": [1, 1.15]})
    lo = min(min(c.measured, c.low) for c in checks) / 1.5
    hi = max(max(c.measured, c.predicted) for c in checks) * 1.5
    xs = [lo, hi]
    ax1.plot(xs, xs, color=PALETTE["grey"], lw=1)
    for band, alpha in ((0.2, 0.10), (0.1, 0.18)):
        ax1.fill_between(xs, [x * (1 - band) for x in xs], [x * (1 + band) for x in xs], color=PALETTE["grey"],
                         alpha=alpha, lw=0, label=f"±{band:.0%}")
    seen: set[str] = set()
    for c in checks:
        label, colour = _family(c.hardware)
        if c.high > c.low * 1.0001:
            ax1.plot([c.measured, c.measured], [c.low, min(c.high, hi)], color=PALETTE[colour], lw=0.8, alpha=0.5)
        name = f"{label}{'（MoE）' if c.moe else ''}"
        ax1.scatter([c.measured], [c.predicted], color=PALETTE[colour], marker="^" if c.moe else "o", s=22,
                    label=None if name in seen else name, zorder=3)
        seen.add(name)
    ax1.set_xscale("log")
    ax1.set_yscale("log")
    ax1.set_xlim(lo, hi)
    ax1.set_ylim(lo, hi)
    ax1.set_xlabel("论文的测量折算的步时（s）")
    ax1.set_ylabel("模型预测的步时（s）")
    ax1.legend(fontsize=7, loc="upper left")
    groups: dict[str, list[Check]] = {}
    for c in checks:
        groups.setdefault(f"{_family(c.hardware)[0]}{'（MoE）' if c.moe else '（稠密）'}", []).append(c)
    names = sorted(groups, key=lambda g: ("MoE" in g, g))
    for y, g in enumerate(names):
        members = sorted(groups[g], key=lambda c: c.error)
        n = len(members)
        offsets = [0.0] if n == 1 else [-0.25 + 0.5 * i / (n - 1) for i in range(n)]
        colour = PALETTE[_family(members[0].hardware)[1]]
        ax2.scatter([100 * c.error for c in members], [y + d for d in offsets], color=colour,
                    marker="^" if members[0].moe else "o", s=18, zorder=3)
    ax2.set_yticks(range(len(names)), [f"{g}\n{len(groups[g])} 次" for g in names], fontsize=8)
    ax2.invert_yaxis()
    for x in (-20, -10, 10, 20):
        ax2.axvline(x, color=PALETTE["grey"], lw=0.6, ls="--")
    ax2.axvline(0, color="black", lw=0.8)
    ax2.set_xlabel("误差：预测 ÷ 测量 − 1（%）")
    ax2.set_title("每次训练的误差（虚线：±10 %、±20 %）", fontsize=9)
    return fig
