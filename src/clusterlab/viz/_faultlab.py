"""§5.1 figure: a fault-injection run on the emulated cluster — where its wall time went (rows of the timeline,
one colour per :data:`~clusterlab.lab.faultplan.SEGMENT_KINDS` kind, a mark per fault) and the measured useful
share beside the book's predictions. Draws what :func:`clusterlab.lab.faultplan.timeline` returns."""

from __future__ import annotations

import math

from matplotlib.figure import Figure

from ..lab.faultplan import FaultReport, timeline
from ._style import PALETTE, new_figure

__all__ = ["fault_run"]

COLOURS = {"work": PALETTE["green"], "lost": PALETTE["vermillion"], "detect": PALETTE["orange"],
           "restart": PALETTE["grey"]}
NAMES = {"work": "训练与存盘（保留）", "lost": "上次提交后的工作（丢失）", "detect": "检测", "restart": "重启与加载"}


def fault_run(rep: FaultReport, row_seconds: float = 30.0) -> Figure:
    """Top: the timeline cut into rows of ``row_seconds``, kill faults marked ×, link cuts marked ▼. Bottom:
    useful share measured (± one standard error) and the three predictions."""
    if not rep.records:
        raise ValueError("rep must hold at least one fault record")
    if not math.isfinite(row_seconds) or row_seconds <= 0:
        raise ValueError(f"row_seconds must be a positive number of seconds; got {row_seconds!r}")
    segs = timeline(rep)
    rows = max(1, math.ceil(rep.wall / row_seconds))
    fig = new_figure((8.6, 0.5 * rows + 3.2))
    top, bottom = fig.subplots(2, 1, height_ratios=[0.5 * rows + 0.8, 2.0])
    for s in segs:
        a = s.start
        while a < s.end:
            r = int(a // row_seconds)
            b = min(s.end, (r + 1) * row_seconds)
            top.barh(r, b - a, left=a - r * row_seconds, height=0.6, color=COLOURS[s.kind], lw=0)
            a = b
    for f in rep.records:
        r = int(f.injected // row_seconds)
        top.plot(f.injected - r * row_seconds, r - 0.45, marker="x" if f.kind == "kill" else "v", ms=5,
                 color=PALETTE["ink"], ls="none")
    top.set_ylim(rows - 0.5, -0.8)
    top.set_yticks(range(rows), [f"{r * row_seconds:.0f} s 起" for r in range(rows)])
    top.set_xlim(0, row_seconds)
    top.set_xlabel(f"墙钟时间（s，每行 {row_seconds:.0f} s）")
    handles = [top.bar(0, 0, color=COLOURS[k], label=NAMES[k]) for k in COLOURS]
    handles.append(top.plot([], [], marker="x", color=PALETTE["ink"], ls="none", label="杀掉一个 rank")[0])
    handles.append(top.plot([], [], marker="v", color=PALETTE["ink"], ls="none", label="切断一条链路")[0])
    top.legend(handles=handles, ncols=3, fontsize="small", loc="lower center", bbox_to_anchor=(0.5, 1.0),
               frameon=False)
    p = rep.prediction
    labels = ["实测", "预测：重启时不出故障", "§9.6.3 精确模型（重启也暴露）", "§9.6.3 一阶模型"]
    vals = [rep.useful_share, p.useful, p.useful_book_exact, p.useful_first_order]
    colours = [PALETTE["blue"], PALETTE["green"], PALETTE["sky"], PALETTE["grey"]]
    y = list(range(len(vals)))[::-1]
    bottom.barh(y, vals, color=colours, height=0.6)
    bottom.errorbar(vals[0], y[0], xerr=rep.stderr, color=PALETTE["ink"], capsize=3, lw=1)
    for yy, v in zip(y, vals, strict=True):
        bottom.text(v + 0.01 + (rep.stderr if yy == y[0] else 0), yy, f"{v:.3f}", va="center", fontsize="small")
    bottom.set_yticks(y, labels)
    bottom.set_xlim(0, 1)
    bottom.set_xlabel("有效训练占墙钟时间的比例（误差棒：±1 个标准误差）")
    return fig
