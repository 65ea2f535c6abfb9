"""Any collective, drawn step by step from a :class:`clusterlab.communication.trace.CollectiveTrace` (or a
:class:`clusterlab.communication.ring.RingTrace`): one engine for every picture and animation of a collective.

One picture per state: state 0 is the start, state ``k`` the buffers after step ``k``. Ring-type algorithms
put the N ranks on a circle, clockwise from the top (rank ``r`` sends to ``r + 1``); the tree all-reduce draws
the binary tree, root on top. Every rank is a card of slot boxes (all-to-all: a send and a receive column).
A box shows what it holds: as text (``a₂+b₂``: rank letters a, b, c, … with the piece as subscript; ``b₂…f₂``
for a run of five or more ranks) or, for reductions with more than four inputs per box and several boxes, as
a light-green fill whose height is the share k/N of the inputs it holds, with the piece number inside. In
reductions a complete box (all N inputs) is green with a dark-green edge; in the data-moving primitives a box
is tinted with the colour of the rank whose data it holds, and an empty box is blank. Arrows show the sends
of the step that produced the state; the receiving box gets a thick outline, the sending box a dashed one.
The side panel gives the phase (Chinese and English), the step counter, the rule of the phase, the
cumulative α-β time and the bytes each rank has sent.
"""

from __future__ import annotations

import io
import math
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt
from matplotlib import colors as mcolors
from matplotlib.axes import Axes
from matplotlib.collections import PatchCollection
from matplotlib.figure import Figure
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch, Patch, Rectangle
from matplotlib.path import Path

from ..communication import collectives
from ..communication.ring import RingTrace
from ..communication.trace import CollectiveTrace
from ..units import fmt_bytes, fmt_seconds
from ..validate import int_in_range
from ._anim import check_key, jshtml
from ._frame_text import arrow_text, collective_frame_text, phase_key, rule
from ._scene import (
    _EMPTY_EDGE,
    _FULL_EDGE,
    _FULL_FACE,
    _FULL_FILL,
    _PART_FILL,
    _PHASE,
    _PIC_AXES,
    _RAMP,
    _STEP_FORMULA,
    _VOLUME_FORMULA,
    FIGSIZE,
    _Geometry,
    _Scene,
    _scene,
    _tint,
    as_collective,
    check_cost,
    check_title,
    rank_letter,
)
from ._style import BYTE_DIV as _BYTE_DIV
from ._style import PALETTE, byte_unit, ensure_setup

if TYPE_CHECKING:
    from IPython.display import HTML

__all__ = [
    "animation_html",
    "collective_animation",
    "collective_animation_html",
    "collective_step_figure",
    "draw",
    "png",
]


# --------------------------------------------------------------------------------------------------------
# drawing
# --------------------------------------------------------------------------------------------------------
def _arc(
    geo: _Geometry, src: int, dst: int, rad: float
) -> tuple[npt.NDArray[np.float64], tuple[float, float]]:
    """Points of the curved arrow from card ``src`` to card ``dst`` and its midpoint.

    The curve is the quadratic Bézier of matplotlib's ``arc3`` connection between the two card centres,
    cut where it leaves the first card and enters the second (plus a small gap).
    """
    a = np.array(geo.center(src))
    b = np.array(geo.center(dst))
    d = b - a
    ctrl = (a + b) / 2 + rad * np.array([d[1], -d[0]])
    t = np.linspace(0.0, 1.0, 241)[:, None]
    pts = (1 - t) ** 2 * a + 2 * (1 - t) * t * ctrl + t**2 * b
    gap = 0.14 if not geo.tree else 0.08

    def inside(centre: npt.NDArray[np.float64]) -> npt.NDArray[np.bool_]:
        hit: npt.NDArray[np.bool_] = (np.abs(pts[:, 0] - centre[0]) <= geo.card_w / 2 + gap) & (
            np.abs(pts[:, 1] - centre[1]) <= geo.card_h / 2 + gap
        )
        return hit

    keep = ~(inside(a) | inside(b))
    mid = pts[len(pts) // 2]
    return pts[keep], (float(mid[0]), float(mid[1]))


def _curvature(geo: _Geometry, src: int, dst: int) -> tuple[float, bool]:
    """Curvature of the arrow ``src → dst`` and whether it joins ring neighbours."""
    n = geo.n
    if geo.tree:
        return 0.0, False
    if (dst - src) % n not in (1, n - 1):
        return -0.22, False  # a chord: the two directions of a pair bend to opposite sides
    if n == 2:
        return -0.45, True
    # neighbours: bulge away from the centre whichever way the message goes
    a, b = np.array(geo.center(src)), np.array(geo.center(dst))
    d = b - a
    out = float(np.dot((a + b) / 2, np.array([d[1], -d[0]])))
    return (0.32 if out > 0 else -0.32), True


def _draw_cards(ax: Axes, scene: _Scene, step: int) -> None:
    tr, geo = scene.tr, scene.geo
    n = tr.ranks
    held = scene.held[step]
    counts = held.sum(axis=2)  # [rank, slot] → how many inputs the box holds
    this = tr.steps[step - 1] if step > 0 else None
    colour = _PHASE[phase_key(tr, step)][2]
    sent = {(s.src, s.chunk) for s in this.sends} if this else set()
    received = {(s.dst, s.into) for s in this.sends} if this else set()

    ax.set_aspect("equal")
    ax.set_axis_off()
    x0, x1, y0, y1 = geo.limits
    ax.set_xlim(x0, x1)
    ax.set_ylim(y0, y1)
    if not geo.tree:
        radius = math.hypot(*geo.center(0))
        theta = np.linspace(0, 2 * np.pi, 361)
        ax.plot(radius * np.cos(theta), radius * np.sin(theta), color="#DDDDDD", lw=1.2, zorder=0)
    else:
        t = tr.tree
        assert t is not None
        for r in range(n):
            if t.parent[r] >= 0:
                (ax_, ay), (bx, by) = geo.center(r), geo.center(t.parent[r])
                ax.plot([ax_, bx], [ay, by], color="#DDDDDD", lw=1.2, zorder=0)

    cards: list[Patch] = []
    card_edge: list[str] = []
    plain: dict[str, list[Any]] = {"patches": [], "face": [], "edge": [], "ls": []}
    marked: dict[str, list[Any]] = {"patches": [], "face": [], "edge": [], "lw": [], "ls": []}
    fills: list[Patch] = []
    fs = geo.font_scale
    text_size = (8.6 if n <= 3 else 7.8) * fs
    for r in range(n):
        cx, cy = geo.center(r)
        cards.append(FancyBboxPatch((cx - geo.card_w / 2, cy - geo.card_h / 2), geo.card_w, geo.card_h,
                                    boxstyle="round,pad=0.06,rounding_size=0.08"))
        idle = r not in scene.active
        card_edge.append("#D0D0D0" if idle else "#9A9A9A")
        head_y = cy + geo.card_h / 2 - 0.17
        ax.text(cx, head_y, f"rank {r} · {rank_letter(r)}", ha="center", va="center", fontsize=9 * fs,
                fontweight="bold", color=PALETTE["grey"] if idle else PALETTE["ink"], zorder=3)
        if geo.groups > 1:
            for j, name in enumerate(scene.tr.groups):
                word = {"send": "发送", "recv": "接收"}.get(name, name)
                ax.text(cx - geo.card_w / 2 + (j + 0.5) * geo.box_w, head_y - 0.27, word, ha="center",
                        va="center", fontsize=7.5 * fs, color=PALETTE["grey"], zorder=3)
        for c in range(tr.slots):
            x, y = geo.box(r, c)
            k = int(counts[r, c])
            full = scene.reducing and k == n
            if not geo.text:
                face = _FULL_FILL if full else "white"
                if not full:  # white box, filled from the bottom in proportion to the k of N inputs it holds
                    fills.append(Rectangle((x, y), geo.box_w, geo.box_h * k / n))
            elif k == 0:
                face = "white"
            elif scene.reducing:
                face = _FULL_FACE if full else mcolors.to_hex(_RAMP((k - 1) / max(n - 1, 1) * 0.8))
            else:
                face = _tint(int(np.flatnonzero(held[r, c])[0]), faded=(r, c) in scene.gone[step - 1 if step else 0])
            edge = _FULL_EDGE if full else ("#8C8C8C" if k else _EMPTY_EDGE)
            rect = Rectangle((x, y), geo.box_w, geo.box_h)
            if (r, c) in received or (r, c) in sent:
                got = (r, c) in received
                marked["patches"].append(rect)
                marked["face"].append("none" if not full and not geo.text else face)
                marked["edge"].append(colour)
                marked["lw"].append(2.4 if got else 1.6)
                marked["ls"].append("-" if got else "--")
                if not full and not geo.text:
                    plain["patches"].append(Rectangle((x, y), geo.box_w, geo.box_h))
                    plain["face"].append(face)
                    plain["edge"].append("none")
                    plain["ls"].append("-")
            else:
                plain["patches"].append(rect)
                plain["face"].append(face)
                plain["edge"].append(edge)
                plain["ls"].append("-" if k else (0, (2, 2)))
            label = scene.labels[step][r][c] if geo.text else str(int(tr.pieces[r, c]))
            if label:
                ink = _FULL_EDGE if full and geo.text else PALETTE["ink"]
                if (r, c) in scene.gone[step - 1 if step else 0]:
                    ink = "#9A9A9A"
                ax.text(x + geo.box_w / 2, y + geo.box_h / 2, label, ha="center", va="center",
                        fontsize=text_size if geo.text else 8 * fs, fontweight="bold" if full else "normal",
                        color=ink, zorder=3)
    # collections: one draw call each and no per-patch data-limit updates
    ax.add_collection(PatchCollection(cards, facecolors="white", edgecolors=card_edge, linewidths=0.9,
                                      zorder=1), autolim=False)
    ax.add_collection(PatchCollection(plain["patches"], facecolors=plain["face"], edgecolors=plain["edge"],
                                      linewidths=0.8, linestyles=plain["ls"], zorder=2), autolim=False)
    if fills:
        ax.add_collection(PatchCollection(fills, facecolors=_PART_FILL, edgecolors="none", zorder=2.2),
                          autolim=False)
    if marked["patches"]:
        ax.add_collection(PatchCollection(marked["patches"], facecolors=marked["face"],
                                          edgecolors=marked["edge"], linewidths=marked["lw"],
                                          linestyles=marked["ls"], zorder=2.5), autolim=False)
    if this is None:
        return
    for snd in this.sends:
        rad, neighbours = _curvature(geo, snd.src, snd.dst)
        pts, (mx, my) = _arc(geo, snd.src, snd.dst, rad)
        if len(pts) >= 2:
            ax.add_artist(FancyArrowPatch(path=Path(pts), arrowstyle="-|>,head_length=6,head_width=3.5",
                                          color=colour, lw=1.8, shrinkA=0, shrinkB=0, zorder=4))
        if neighbours:  # the label sits just outside the arc, so short arrows stay visible
            norm = math.hypot(mx, my) or 1.0
            mx, my = mx * (1 + 0.3 / norm), my * (1 + 0.3 / norm)
        ax.text(mx, my, arrow_text(scene, step, snd), ha="center", va="center", fontsize=8 * fs, color=colour,
                fontweight="bold", zorder=5,
                bbox={"boxstyle": "round,pad=0.18", "facecolor": "white", "edgecolor": colour, "lw": 0.8})


def _draw_info(ax_text: Axes, ax_bar: Axes, scene: _Scene, step: int, cost: tuple[float, float] | None) -> None:
    tr = scene.tr
    n, total = tr.ranks, tr.num_steps
    key = phase_key(tr, step)
    zh, en, colour = _PHASE[key]
    ax_text.set_axis_off()
    y = 0.0  # running offset below the top of the panel, in points

    def line(text: str, gap: float, **kw: Any) -> None:
        nonlocal y
        ax_text.annotate(text, xy=(0, 1), xycoords="axes fraction", xytext=(0, -y),
                         textcoords="offset points", va="top", ha="left", **kw)
        y += gap

    def swatch(text: str, **box: Any) -> None:
        nonlocal y
        ax_text.annotate("   ", xy=(0, 1), xycoords="axes fraction", xytext=(3, -y - 2),
                         textcoords="offset points", va="top", ha="left", fontsize=8, color=PALETTE["ink"],
                         bbox={"boxstyle": "square,pad=0.25", **box})
        ax_text.annotate(text, xy=(0, 1), xycoords="axes fraction", xytext=(27, -y - 2),
                         textcoords="offset points", va="top", ha="left", fontsize=9, color=PALETTE["ink"])
        y += 17

    line(f"{zh}  {en}", 22, fontsize=13, fontweight="bold", color=colour)
    if step == 0:
        formula = _STEP_FORMULA.get((tr.op, tr.algorithm))
        counter = f"第 0 / {total} 步（共 {formula + ' = ' if formula else ''}{total} 步）"
    else:
        st = tr.steps[step - 1]
        counter = f"第 {step} / {total} 步"
        if len(tr.phases) > 1:
            counter += f"（本阶段第 {st.phase_step + 1} / {tr.phase_length(st.phase)} 步）"
    line(counter, 17, fontsize=10.5, color=PALETTE["ink"])
    line(rule(tr, key), 21, fontsize=9, color=PALETTE["grey"])
    if scene.reducing:
        swatch(f"已含全部 {n} 份输入：归约完成", facecolor=_FULL_FACE if scene.geo.text else _FULL_FILL,
               edgecolor=_FULL_EDGE, lw=1.0)
    else:
        swatch("底色 = 数据来自哪个 rank；空框：尚无数据", facecolor=_tint(tr.root), edgecolor="#8C8C8C", lw=0.8)
    swatch("粗框：本步收到的块；虚框：本步发出的块", facecolor="white",
           edgecolor=colour if step else PALETTE["grey"], lw=2.0)
    if len(tr.groups) > 1:
        swatch("淡色灰字：发送缓冲里已发出的块", facecolor=_tint(tr.root, faded=True), edgecolor="#8C8C8C", lw=0.8)
    if not scene.geo.text:
        swatch("框内数字 = 块号；浅绿填充的高度 = 已含输入 k/N", facecolor=_PART_FILL, edgecolor="#8C8C8C", lw=0.8)
    if cost is not None:
        alpha, beta = cost
        y += 4
        line(f"累计 α-β 时间：{fmt_seconds(tr.time_after(step, alpha, beta))}", 17, fontsize=10.5,
             fontweight="bold", color=PALETTE["ink"])
        values = f"α = {fmt_seconds(alpha)}，β = {fmt_bytes(beta, byte_unit(beta))}/s"
        if all(st.port_bytes == st.max_bytes for st in tr.steps):
            line(f"每步 α + 最大块/β；{values}", 15, fontsize=8.5, color=PALETTE["grey"])
        else:  # a rank sends or receives two messages in one step (tree): its port sets the time
            line("每步 α + B/β，B = 本步一个 rank 最多收或发的字节", 13, fontsize=8.5, color=PALETTE["grey"])
            line(values, 15, fontsize=8.5, color=PALETTE["grey"])

    sent = tr.bytes_sent_after(step)
    top = float(tr.bytes_sent.max())
    unit = byte_unit(top if top > 0 else 1.0)
    div = _BYTE_DIV[unit]
    ranks = np.arange(n)
    ax_bar.barh(ranks, sent / div, color=colour if step else PALETTE["grey"], height=0.66, zorder=2)
    ax_bar.axvline(top / div, color=PALETTE["ink"], lw=1.0, ls="--", zorder=3)
    ax_bar.set_xlim(0, top / div * 1.05 if top > 0 else 1.0)
    ax_bar.set_ylim(n - 0.5, -0.5)
    ax_bar.set_yticks(ranks, [f"rank {r}" for r in ranks], fontsize=8 if n <= 8 else 6.5)
    ax_bar.tick_params(axis="x", labelsize=8)
    ax_bar.tick_params(axis="y", length=0)
    ax_bar.set_xlabel(f"累计发送量（{unit}）", fontsize=9)
    ax_bar.grid(axis="y", visible=False)
    model = "ring" if tr.algorithm != "tree" else None
    if model is None:
        head = f"已发送（虚线：最忙 rank 的终值 {fmt_bytes(top, unit)}）"
    else:
        formula = _VOLUME_FORMULA[tr.op]
        ideal = collectives.send_volume(tr.op, tr.buffer_bytes, n, model)
        if math.isclose(top, ideal):
            head = f"已发送（虚线：{formula} = {fmt_bytes(top, unit)}）"
        else:  # blocks of unequal length: the busiest rank sends a little more than the formula
            head = f"已发送（虚线：终值 {fmt_bytes(top, unit)}；{formula} = {fmt_bytes(ideal, unit)}）"
    ax_bar.set_title(head, fontsize=9, fontweight="normal", loc="left")
    if n <= 8 and top > 0:
        for r in ranks:
            v = float(sent[r])
            inside = v >= 0.4 * top
            ax_bar.text(v / div + (-0.015 if inside else 0.015) * top / div, float(r), fmt_bytes(v, unit),
                        va="center", ha="right" if inside else "left", fontsize=7.5,
                        color="white" if inside else PALETTE["ink"], zorder=4)


def draw(fig: Figure, scene: _Scene, step: int, cost: tuple[float, float] | None, title: str | None) -> None:
    """Draw state ``step`` of ``scene`` into ``fig`` (cleared first): picture, text panel, bytes panel."""
    fig.clear()
    ax_pic = fig.add_axes(_PIC_AXES)
    ax_text = fig.add_axes((0.555, 0.45, 0.44, 0.455))
    ax_bar = fig.add_axes((0.635, 0.095, 0.31, 0.28))
    fig.text(0.02, 0.955, title if title is not None else scene.title, fontsize=13, fontweight="bold",
             va="center", color=PALETTE["ink"])
    _draw_cards(ax_pic, scene, step)
    _draw_info(ax_text, ax_bar, scene, step, cost)


def png(scene: _Scene, step: int, cost: tuple[float, float] | None, dpi: float) -> bytes:
    """One state as PNG bytes (no pyplot figure involved)."""
    fig = Figure(figsize=FIGSIZE, dpi=dpi)
    draw(fig, scene, step, cost, None)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", metadata={"Software": None})
    fig.clear()
    return buf.getvalue()


# --------------------------------------------------------------------------------------------------------
# public
# --------------------------------------------------------------------------------------------------------
def collective_step_figure(
    trace: CollectiveTrace | RingTrace,
    step: int,
    *,
    latency: float | None = None,
    bandwidth: float | None = None,
    max_ranks: int = 8,
    title: str | None = None,
) -> Figure:
    """One state of any collective as a matplotlib figure (a pyplot figure: close it when done).

    ``trace`` from :func:`clusterlab.communication.primitives.simulate` (or a
    :class:`~clusterlab.communication.ring.RingTrace`). ``step``
    0 shows the start, ``step`` k the buffers after step k with that step's sends. ``latency`` α (s) and
    ``bandwidth`` β (B/s per direction) are optional and go together: when given, the cumulative α-β time
    (:meth:`~clusterlab.communication.trace.CollectiveTrace.time_after`) is shown. Raises ``ValueError`` if
    ``trace.ranks > max_ranks`` or ``step`` is outside 0 … number of steps.
    """
    tr = as_collective(trace, max_ranks)
    k = int_in_range("step", step, 0, tr.num_steps)
    cost = check_cost(latency, bandwidth)
    head = check_title(title)
    ensure_setup()
    import matplotlib.pyplot as plt

    fig = plt.figure(figsize=FIGSIZE)
    draw(fig, _scene(tr, head), k, cost, None)
    return fig


def animation_html(
    scene: _Scene, cost: tuple[float, float] | None, *, key: str | None, interval: int, dpi: float
) -> str:
    """All states of ``scene`` as one self-contained HTML animation."""
    states = range(scene.tr.num_steps + 1)
    return jshtml(lambda fig, i: draw(fig, scene, i, cost, None), len(states), figsize=FIGSIZE,
                  key=key, interval=interval, dpi=dpi, alts=[collective_frame_text(scene, i, cost) for i in states])


def collective_animation_html(
    trace: CollectiveTrace | RingTrace,
    *,
    latency: float | None = None,
    bandwidth: float | None = None,
    max_ranks: int = 8,
    title: str | None = None,
    key: str | None = None,
    interval: int = 1500,
    dpi: float = 100,
) -> str:
    """The HTML of :func:`collective_animation` as a string (self-contained, deterministic)."""
    tr = as_collective(trace, max_ranks)
    cost = check_cost(latency, bandwidth)
    head = check_title(title)
    check_key(key)
    return animation_html(_scene(tr, head), cost, key=key, interval=interval, dpi=dpi)


def collective_animation(
    trace: CollectiveTrace | RingTrace,
    *,
    latency: float | None = None,
    bandwidth: float | None = None,
    max_ranks: int = 8,
    title: str | None = None,
    key: str | None = None,
    interval: int = 1500,
    dpi: float = 100,
) -> HTML:
    """Any collective step by step as a self-contained HTML animation (slider and buttons, no kernel).

    One PNG frame per state (``num_steps + 1``) drawn by :func:`collective_step_figure`'s code: arrows, phase
    in Chinese and English (广播 Broadcast, 归约 Reduce, 归约-散播 Reduce-Scatter, 全收集 All-Gather,
    全交换 All-to-All, 点对点 Send/Recv), step counter, bytes sent per rank and, with ``latency`` and
    ``bandwidth``, the cumulative α-β time. Built with ``FuncAnimation.to_jshtml(default_mode="once")``, then
    made offline-safe and deterministic by :func:`anim_html` (``key`` fixes the element id; by default it is a
    hash of the content; palette-compressed frames). ``interval`` in ms per frame. Each frame carries a text
    alternative with that state's numbers (:func:`clusterlab.viz._frame_text.collective_frame_text`).
    """
    from IPython.display import HTML

    return HTML(  # type: ignore[no-untyped-call]
        collective_animation_html(trace, latency=latency, bandwidth=bandwidth, max_ranks=max_ranks, title=title,
                                  key=key, interval=interval, dpi=dpi)
    )
