"""§9.6.5.1: the 5D planner's ranking as a figure, its precomputed grid as a static widget, and a live form.

Everything drawn comes from :mod:`clusterlab.cluster.planning` (estimates of :func:`~clusterlab.cluster.planning.plan`,
the grid of :mod:`clusterlab.cluster.planning.cases`); the static widget's script only looks up the precomputed rows of
the selected grid point (no model in JavaScript).
"""

from __future__ import annotations

import hashlib
import html
import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..cluster.planning import Estimate
from ..cluster.planning import cases as planner_cases
from ..cluster.planning.cases import PlanGrid
from ..validate import int_in_range
from ._style import PALETTE, new_figure

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["PlanGridWidget", "plan_grid_widget", "plan_ranking", "planner_explorer"]

_PARTS = (("compute", "计算", "sky"), ("bubble", "空泡", "yellow"), ("tp", "TP 通信", "vermillion"),
          ("cp", "CP 通信", "purple"), ("ep", "EP 通信", "orange"), ("pp", "PP 通信", "green"),
          ("dp", "DP 通信（未藏住的部分）", "blue"), ("optimizer", "优化器", "grey"))


def plan_ranking(plans: Sequence[Estimate], *, top: int = 12, marks: Sequence[Estimate] = (),
                 memory_limit: float = 0.0) -> Figure:
    """Left: the ``top`` fastest feasible plans (plus ``marks`` if not among them), each bar the step time split
    into compute, bubble and exposed communication per axis; right: every plan's memory per GPU against its step
    time, feasible (filled) and infeasible (open), with ``memory_limit`` (B) as a line when > 0."""
    int_in_range("top", top, 1, 40)
    feasible = [p for p in plans if p.feasible]
    if not feasible:
        raise ValueError("plans must contain at least one feasible plan")
    shown = feasible[:top] + [m for m in marks if m not in feasible[:top]]
    fig = new_figure((10, 1.4 + 0.34 * len(shown)))
    ax1, ax2 = fig.subplots(1, 2, gridspec_kw={"width_ratios": [1.35, 1]})
    y = list(range(len(shown)))
    left = [0.0] * len(shown)
    for key, label, colour in _PARTS:
        w = [getattr(p, key) for p in shown]
        if any(v > 0 for v in w):
            ax1.barh(y, w, left=left, color=PALETTE[colour], label=label, height=0.7)
            left = [a + b for a, b in zip(left, w, strict=True)]
    names = [("★ " if p in marks else "") + p.layout.label() for p in shown]
    ax1.set_yticks(y, names, fontsize=7.5)
    ax1.invert_yaxis()
    ax1.set_xlabel("一步的时间（s）")
    ax1.set_title(f"最快的 {min(top, len(feasible))} 个可行方案（★：公开配置）", fontsize=9)
    ax1.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.5 / len(shown) - 0.08), ncol=4)
    bad = [p for p in plans if not p.feasible]
    ax2.scatter([p.memory.total / 1e9 for p in bad], [p.step_time for p in bad], s=12, facecolors="none",
                edgecolors=PALETTE["grey"], label=f"不可行（{len(bad)} 个）")
    ax2.scatter([p.memory.total / 1e9 for p in feasible], [p.step_time for p in feasible], s=14,
                color=PALETTE["blue"], label=f"可行（{len(feasible)} 个）")
    for m in marks:
        ax2.scatter([m.memory.total / 1e9], [m.step_time], marker="*", s=120, color=PALETTE["vermillion"],
                    zorder=5)
    if memory_limit > 0:
        ax2.axvline(memory_limit / 1e9, color=PALETTE["vermillion"], linestyle="--", linewidth=1,
                    label="可用显存")
    ax2.set_xscale("log")
    ax2.set_yscale("log")
    ax2.set_xlabel("每卡显存（GB）")
    ax2.set_ylabel("一步的时间（s）")
    ax2.legend(fontsize=7)
    ax2.set_title("全部枚举的方案", fontsize=9)
    return fig


def _value_text(control: str, v: Any) -> str:
    if control == "gpus":
        return f"{int(v):,}"
    if control == "memory":
        return f"{v / 1e9:g} GB"
    if control == "batch":
        return f"{v / 2**20:g}M token"
    return str(v)


_LABELS = {"model": "模型", "gpus": "GPU 数", "memory": "每卡显存", "batch": "全局批"}


class PlanGridWidget:
    """Self-contained HTML (four select boxes and a table of the three best plans) over a precomputed
    :class:`~clusterlab.cluster.planning.cases.PlanGrid`; plain-text repr: the grid's size."""

    def __init__(self, grid: PlanGrid) -> None:
        self.grid = grid
        rows = [[pt.feasible, pt.total, [[b[0], round(b[1], 3), round(100 * b[2], 1), round(b[3] / 1e9, 1),
                                          round(b[4], 3), round(b[5], 3), round(b[6], 3)] for b in pt.best]]
                for pt in grid.points]
        axes = (grid.models, grid.gpus, grid.memories, grid.batches)
        self._axes = axes
        self._payload = json.dumps({"sizes": [len(a) for a in axes], "rows": rows}, separators=(",", ":"),
                                   ensure_ascii=False)
        self._uid = "plx-" + hashlib.sha1(self._payload.encode()).hexdigest()[:10]

    def __repr__(self) -> str:
        controls = ", ".join(planner_cases.GRID_CONTROLS)
        return f"PlanGridWidget({len(self.grid.points)} grid points, controls: {controls})"

    def _repr_html_(self) -> str:
        uid = self._uid
        selects = []
        defaults = {"model": 1, "gpus": min(1, len(self.grid.gpus) - 1), "memory": min(1, len(self.grid.memories) - 1),
                    "batch": len(self.grid.batches) - 1}
        for c, (control, axis) in enumerate(zip(planner_cases.GRID_CONTROLS, self._axes, strict=True)):
            d = min(defaults[control], len(axis) - 1)
            opts = "".join(f'<option value="{i}"{" selected" if i == d else ""}>'
                           f"{html.escape(_value_text(control, v))}</option>" for i, v in enumerate(axis))
            selects.append(f'<label style="display:inline-block;margin:2px 10px 2px 0">{_LABELS[control]} '
                           f'<select data-c="{c}">{opts}</select></label>')
        head = "".join(f"<th>{h}</th>" for h in ("#", "方案", "步时 s", "MFU %", "显存 GB"))
        script = f"""<script>(function(){{
var D={self._payload};var root=document.getElementById("{uid}");
var sel=root.querySelectorAll("select");var body=root.querySelector("tbody");var note=root.querySelector("p");
function cell(t){{var td=document.createElement("td");td.textContent=t;return td;}}
function show(){{var i=0;for(var c=0;c<sel.length;c++){{i=i*D.sizes[c]+parseInt(sel[c].value,10);}}
var r=D.rows[i];while(body.firstChild){{body.removeChild(body.firstChild);}}
for(var k=0;k<r[2].length;k++){{var b=r[2][k];var tr=document.createElement("tr");
tr.appendChild(cell(String(k+1)));tr.appendChild(cell(b[0]));tr.appendChild(cell(b[1].toFixed(2)));
tr.appendChild(cell(b[2].toFixed(1)));tr.appendChild(cell(b[3].toFixed(1)));body.appendChild(tr);}}
note.textContent=r[2].length?("可行 "+r[0]+" / 枚举 "+r[1]+" 个方案；最快方案：计算 "+r[2][0][4].toFixed(2)+
" s，空泡 "+r[2][0][5].toFixed(2)+" s，暴露的通信 "+r[2][0][6].toFixed(2)+" s"):
("枚举 "+r[1]+" 个方案，没有一个可行");}}
for(var c=0;c<sel.length;c++){{sel[c].addEventListener("change",show);}}show();}})();</script>"""
        return (f'<div id="{uid}" class="planner-explorer" style="max-width:100%;overflow-x:auto;font-size:0.9em">'
                f'<div>{"".join(selects)}</div>'
                f'<table style="margin-top:6px"><thead><tr>{head}</tr></thead><tbody></tbody></table>'
                f'<p style="margin:4px 0"></p></div>{script}')


def plan_grid_widget(grid: PlanGrid) -> PlanGridWidget:
    """The static explorer over ``grid`` (see :class:`PlanGridWidget`)."""
    if not isinstance(grid, PlanGrid):
        raise ValueError("grid must be a PlanGrid")
    return PlanGridWidget(grid)


def planner_explorer(*, model: str = "70B", gpus: int = 4096, memory: float = 80e9, batch: int = 16 * 2**20) -> Any:
    """An ipywidgets form for live Jupyter use: model, GPU count, memory per GPU and global batch; every change
    re-runs :func:`clusterlab.cluster.planning.cases.grid_point` (the planner) and redraws the table. Returns an
    ``ipywidgets.VBox``; in the static book it does not run."""
    import ipywidgets as widgets

    names = dict(planner_cases.GRID_MODELS)
    if model not in names:
        raise ValueError(f"model must be one of {', '.join(names)}; got {model!r}")
    lay = widgets.Layout(width="360px")
    w = [
        widgets.Dropdown(options=list(names), value=model, description=_LABELS["model"], layout=lay),
        widgets.Dropdown(options=[(f"{g:,}", g) for g in (512, 1024, 2048, 4096, 8192, 16384)], value=gpus,
                         description=_LABELS["gpus"], layout=lay),
        widgets.Dropdown(options=[(f"{m:g} GB", m * 1e9) for m in (24, 40, 80, 96, 141, 192)], value=memory,
                         description=_LABELS["memory"], layout=lay),
        widgets.Dropdown(options=[(f"{b}M token", b * 2**20) for b in (1, 2, 4, 8, 16, 32)], value=batch,
                         description=_LABELS["batch"], layout=lay),
    ]
    out = widgets.HTML()

    def update(_change: object = None) -> None:
        pt = planner_cases.grid_point(names[w[0].value], int(w[1].value), float(w[2].value), int(w[3].value),
                                      top=5)
        rows = "".join(f"<tr><td>{i + 1}</td><td>{html.escape(b[0])}</td><td>{b[1]:.2f}</td>"
                       f"<td>{100 * b[2]:.1f}</td><td>{b[3] / 1e9:.1f}</td></tr>" for i, b in enumerate(pt.best))
        out.value = (f"<p>可行 {pt.feasible} / 枚举 {pt.total}</p><table><tr><th>#</th><th>方案</th><th>步时 s</th>"
                     f"<th>MFU %</th><th>显存 GB</th></tr>{rows}</table>")

    for x in w:
        x.observe(update, names="value")
    update()
    return widgets.VBox([widgets.VBox(w), out])
