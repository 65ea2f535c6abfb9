"""The §9.6.2 explorer: a live ipywidgets form in Jupyter and a precomputed, self-contained grid for the static page.

Both show what :mod:`clusterlab.communication.overlap_explore` computed; the static widget's script only looks up
the precomputed numbers of the selected grid point (no model in JavaScript).
"""

from __future__ import annotations

import hashlib
import html
import json
import math
from typing import Any

from ..communication import overlap_explore
from ..communication.overlap_explore import CONTROLS, ExplorerGrid
from ..units import MiB
from ..validate import int_in_range, non_negative, positive

__all__ = ["OverlapGridWidget", "overlap_explorer", "overlap_grid_widget"]

_LABELS = {
    "layers": "层数",
    "grad_bytes": "梯度合计（fp32）",
    "latency": "延迟 α",
    "bandwidth": "带宽 β（单向）",
    "bucket_cap": "DDP 桶的上限",
    "depth": "FSDP 预取深度",
}


def _value_text(control: str, v: float) -> str:
    if control == "grad_bytes":
        return f"{v / 1e9:g} GB"
    if control == "latency":
        return f"{v * 1e6:g} µs"
    if control == "bandwidth":
        return f"{v / 1e9:g} GB/s"
    if control == "bucket_cap":
        return "一个桶（∞）" if math.isinf(v) else f"{v / MiB:g} MiB"
    return f"{int(v)}"


_ROWS = (
    ("DDP 一步（前向 + 反向 + 暴露的通信）", "ddp_step", 1e3, "ms"),
    ("DDP 通信合计", "ddp_comm", 1e3, "ms"),
    ("DDP 暴露的通信", "ddp_exposed", 1e3, "ms"),
    ("DDP 重叠率", "ddp_ratio", 100.0, "%"),
    ("DDP 桶数", "ddp_buckets", 1.0, ""),
    ("FSDP 前向（含暴露的全收集）", "fsdp_step", 1e3, "ms"),
    ("FSDP 暴露的全收集", "fsdp_exposed", 1e3, "ms"),
    ("FSDP 预取多占的显存", "fsdp_extra_bytes", 1e-6, "MB"),
)


class OverlapGridWidget:
    """Self-contained HTML (select boxes, a read-out table and two bars) over a precomputed
    :class:`~clusterlab.communication.overlap_explore.ExplorerGrid`; plain-text repr: the grid's size."""

    def __init__(self, grid: ExplorerGrid) -> None:
        self.grid = grid
        rows = [[round(s[key] * scale, 4) for _, key, scale, _ in _ROWS] + [round(s["ddp_compute"] * 1e3, 4),
                                                                            round(s["fsdp_compute"] * 1e3, 4)]
                for s in grid.summaries]
        digits = [0 if key == "ddp_buckets" else 1 for _, key, _, _ in _ROWS]
        self._payload = json.dumps({"sizes": [len(a) for a in grid.axes], "digits": digits, "rows": rows},
                                   separators=(",", ":"))
        self._uid = "ovx-" + hashlib.sha1(self._payload.encode()).hexdigest()[:10]

    def __repr__(self) -> str:
        return f"OverlapGridWidget({len(self.grid.summaries)} grid points, controls: {', '.join(CONTROLS)})"

    def _repr_html_(self) -> str:
        uid = self._uid
        selects = []
        for c, (control, axis) in enumerate(zip(CONTROLS, self.grid.axes, strict=True)):
            default = len(axis) // 2 if control != "bucket_cap" else min(1, len(axis) - 1)
            opts = "".join(f'<option value="{i}"{" selected" if i == default else ""}>'
                           f"{html.escape(_value_text(control, v))}</option>" for i, v in enumerate(axis))
            selects.append(f'<label style="display:inline-block;margin:2px 10px 2px 0">{_LABELS[control]} '
                           f'<select data-c="{c}">{opts}</select></label>')
        table = "".join(f'<tr><td>{html.escape(label)}</td><td style="text-align:right" data-r="{r}"></td>'
                        f"<td>{unit}</td></tr>" for r, (label, _k, _s, unit) in enumerate(_ROWS))
        bars = ('<div style="margin-top:6px;font-size:0.9em">DDP 一步：<span style="color:#0072B2">■ 计算</span> '
                '<span style="color:#D55E00">■ 暴露的通信</span></div>'
                f'<div id="{uid}-bar" style="display:flex;height:14px;max-width:100%;background:#eee"></div>')
        script = f"""<script>(function(){{
var D={self._payload};var root=document.getElementById("{uid}");
var sel=root.querySelectorAll("select");var cells=root.querySelectorAll("td[data-r]");
var bar=document.getElementById("{uid}-bar");
function show(){{var i=0;for(var c=0;c<sel.length;c++){{i=i*D.sizes[c]+parseInt(sel[c].value,10);}}
var r=D.rows[i];for(var k=0;k<cells.length;k++){{var v=r[k];
cells[k].textContent=v.toFixed(Math.abs(v)>=100?0:D.digits[k]);}}
var step=r[0],comp=r[8],exp=r[2];
bar.innerHTML='<div style="width:'+(100*comp/step).toFixed(2)+'%;background:#0072B2"></div>'+
'<div style="width:'+(100*exp/step).toFixed(2)+'%;background:#D55E00"></div>';}}
for(var c=0;c<sel.length;c++){{sel[c].addEventListener("change",show);}}show();}})();</script>"""
        return (f'<div id="{uid}" class="overlap-explorer" style="max-width:100%;overflow-x:auto">'
                f'<div>{"".join(selects)}</div>'
                f'<table style="margin-top:6px"><tbody>{table}</tbody></table>{bars}</div>{script}')


def overlap_grid_widget(grid: ExplorerGrid) -> OverlapGridWidget:
    """The static explorer over ``grid`` (see :class:`OverlapGridWidget`)."""
    if not isinstance(grid, ExplorerGrid):
        raise ValueError("grid must be an ExplorerGrid")
    return OverlapGridWidget(grid)


def overlap_explorer(
    *,
    layers: int = 48,
    grad_bytes: float = 2e9,
    latency: float = 20e-6,
    bandwidth: float = 50e9,
    bucket_cap: float = 25 * MiB,
    depth: int = 1,
    ranks: int = 64,
) -> Any:
    """An ipywidgets form for live Jupyter use: sliders for the six controls; every change re-runs
    :func:`clusterlab.communication.overlap_explore.explore_point` and redraws both timelines with
    :func:`clusterlab.viz.overlap_timelines`. Returns an ``ipywidgets.VBox``; in the static book it does not run."""
    int_in_range("layers", layers, 1)
    positive("grad_bytes", grad_bytes)
    non_negative("latency", latency)
    positive("bandwidth", bandwidth)
    int_in_range("depth", depth, 0)
    import ipywidgets as widgets
    import matplotlib.pyplot as plt

    from ._overlap import overlap_timelines

    wide = {"description_width": "initial"}
    lay = widgets.Layout(width="430px")

    def slider(desc: str, options: list[tuple[str, float]], value: float) -> Any:
        opts = sorted({*options, (_value_text(_key[desc], value), value)}, key=lambda o: o[1])
        return widgets.SelectionSlider(options=opts, value=value, description=desc, style=wide, layout=lay,
                                       continuous_update=False)

    _key = {_LABELS[c]: c for c in CONTROLS}
    w = [
        slider(_LABELS["layers"], [(str(v), v) for v in (6, 12, 24, 48, 96, 192)], layers),
        slider(_LABELS["grad_bytes"], [(_value_text("grad_bytes", v), v) for v in (1e8, 5e8, 1e9, 2e9, 4e9, 8e9)],
               grad_bytes),
        slider(_LABELS["latency"], [(_value_text("latency", v), v) for v in (1e-6, 5e-6, 20e-6, 50e-6)], latency),
        slider(_LABELS["bandwidth"], [(_value_text("bandwidth", v), v) for v in (12.5e9, 25e9, 50e9, 100e9)],
               bandwidth),
        slider(_LABELS["bucket_cap"], [(_value_text("bucket_cap", v), v)
                                       for v in (MiB, 5 * MiB, 25 * MiB, 100 * MiB, 400 * MiB, math.inf)], bucket_cap),
        slider(_LABELS["depth"], [(str(v), v) for v in (0, 1, 2, 3, 4)], depth),
    ]
    out = widgets.Output()

    def update(_change: object = None) -> None:
        p = overlap_explore.explore_point(int(w[0].value), float(w[1].value), float(w[2].value), float(w[3].value),
                                          float(w[4].value), int(w[5].value), ranks=ranks)
        s = p.summary()
        out.clear_output(wait=True)
        fig = overlap_timelines([
            (f"DDP：一步 {1e3 * s['ddp_step']:.1f} ms，暴露 {1e3 * s['ddp_exposed']:.1f} ms，"
             f"重叠率 {100 * s['ddp_ratio']:.0f}%", p.ddp.timeline),
            (f"FSDP 前向：{1e3 * s['fsdp_step']:.1f} ms，暴露 {1e3 * s['fsdp_exposed']:.1f} ms，"
             f"多占 {s['fsdp_extra_bytes'] / 1e6:.0f} MB", p.fsdp.timeline),
        ])
        out.append_display_data(fig)
        plt.close(fig)

    for x in w:
        x.observe(update, names="value")
    update()
    return widgets.VBox([widgets.VBox(w), out])
