"""Ring all-reduce, drawn step by step from a :class:`clusterlab.ring.RingTrace`.

One picture per state: state 0 is the input, state ``k`` (1 … 2(N−1)) the buffers after step ``k``. The N
ranks sit on a circle, clockwise from the top; rank ``r`` sends to ``r + 1 (mod N)``. Each rank's buffer is
drawn as N chunk boxes. A box shows which ranks' inputs it already contains: for N ≤ 4 as text
(``a₂+b₂+c₂``: rank letters a, b, c, … with the chunk as subscript), for larger N as a light-green fill
whose height is the share k/N of the inputs it holds, with the chunk number inside. Fully reduced chunks
(all N inputs) are green with a dark-green edge. Arrows show the sends of the step that produced the
state, labelled with the chunk sent; the receiving box gets a thick outline, the sending box a dashed one.
"""

from __future__ import annotations

import base64
import hashlib
import io
import math
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

import matplotlib as mpl
import numpy as np
import numpy.typing as npt
from matplotlib import colors as mcolors
from matplotlib.animation import FuncAnimation
from matplotlib.axes import Axes
from matplotlib.collections import PatchCollection
from matplotlib.figure import Figure
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch, Patch, Rectangle
from matplotlib.path import Path

from ..ring import RingStep, RingTrace, simulate_all_reduce
from ..units import check_nonnegative, check_positive, fmt_bytes, fmt_seconds
from ._style import BYTE_DIV as _BYTE_DIV
from ._style import PALETTE, byte_unit, ensure_setup

if TYPE_CHECKING:
    from IPython.display import HTML

__all__ = [
    "anim_html",
    "ring_animation",
    "ring_animation_html",
    "ring_explorer",
    "ring_step_figure",
]

#: Largest N the picture supports at all (``max_ranks`` may not exceed it).
RANKS_LIMIT: Final = 16
#: Up to this N every chunk box spells out its contributions (``a₀+b₀+c₀``); above it, colours.
TEXT_MODE_MAX: Final = 4

_SUB: Final = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")
_LETTERS: Final = "abcdefghijklmnopqrstuvwxyz"

_PHASE: Final = {
    "inputs": ("初始输入", "Inputs", PALETTE["ink"]),
    "reduce_scatter": ("归约-散播", "Reduce-Scatter", PALETTE["vermillion"]),
    "all_gather": ("全收集", "All-Gather", PALETTE["blue"]),
}
_RULE: Final = {
    "inputs": "缓冲区切成 N 块；a₂ = rank 0（a）输入的第 2 块",
    "reduce_scatter": "接收方把收到的块加到自己的副本上（+=）",
    "all_gather": "接收方用收到的完整块覆盖自己的副本（=）",
}
_FULL_FACE: Final = "#BFE6D7"
_FULL_EDGE: Final = "#00785A"
_FULL_FILL: Final = "#6CC3A0"
_PART_FILL: Final = "#B3DECB"
# pale grey-blue → green: the share of the N inputs a chunk already holds
_RAMP: Final = mcolors.LinearSegmentedColormap.from_list(
    "clusterlab_reduce", ["#FFFFFF", "#E3EEF2", "#7CC7AE"]
)


def rank_letter(rank: int) -> str:
    """``0 → 'a'``, ``1 → 'b'``, …: the letter that names rank ``rank``'s input in the pictures."""
    return _LETTERS[rank % len(_LETTERS)]


def chunk_label(contributors: npt.NDArray[np.bool_] | list[bool], chunk: int) -> str:
    """``'a₀+c₀'``: the inputs a copy of chunk ``chunk`` holds, rank letters with the chunk as subscript."""
    sub = str(chunk).translate(_SUB)
    return "+".join(f"{rank_letter(k)}{sub}" for k, held in enumerate(contributors) if held)


# --------------------------------------------------------------------------------------------------------
# validation
# --------------------------------------------------------------------------------------------------------
def _check_int(name: str, value: object, lo: int, hi: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise ValueError(f"{name} must be an integer in {lo} … {hi}, got {value!r}")
    if not lo <= int(value) <= hi:
        raise ValueError(f"{name} must be an integer in {lo} … {hi}, got {value!r}")
    return int(value)


def _check_trace(trace: object, max_ranks: int) -> RingTrace:
    if not isinstance(trace, RingTrace):
        raise ValueError(
            "trace must be a clusterlab.ring.RingTrace (from simulate_all_reduce), "
            f"got {type(trace).__name__}"
        )
    limit = _check_int("max_ranks", max_ranks, 2, RANKS_LIMIT)
    if trace.ranks > limit:
        raise ValueError(
            f"trace.ranks must be <= max_ranks = {limit} for a readable picture, got {trace.ranks} ranks; "
            f"simulate fewer ranks (or raise max_ranks up to {RANKS_LIMIT})"
        )
    return trace


def _check_cost(latency: float | None, bandwidth: float | None) -> tuple[float, float] | None:
    if latency is None and bandwidth is None:
        return None
    if latency is None or bandwidth is None:
        missing = "latency" if latency is None else "bandwidth"
        raise ValueError(f"{missing} must be given together with the other α-β parameter (or neither)")
    return check_nonnegative("latency", latency), check_positive("bandwidth", bandwidth)


def _check_title(title: object) -> str | None:
    if title is not None and not isinstance(title, str):
        raise ValueError(f"title must be a string or None, got {type(title).__name__}")
    return title


# --------------------------------------------------------------------------------------------------------
# geometry
# --------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class _Layout:
    """Ring geometry in data units of the (equal-aspect) ring axes.

    A card per rank: a header line, then the N chunk boxes, one per row (text mode) or in a grid of
    ``cols`` columns (colour mode).
    """

    n: int
    text: bool
    cols: int
    radius: float
    box_w: float
    box_h: float
    head_h: float

    @property
    def rows(self) -> int:
        return -(-self.n // self.cols)

    @property
    def card_w(self) -> float:
        return self.box_w * self.cols

    @property
    def card_h(self) -> float:
        return self.head_h + self.box_h * self.rows

    def center(self, rank: int) -> tuple[float, float]:
        theta = math.pi / 2 - 2 * math.pi * rank / self.n
        return self.radius * math.cos(theta), self.radius * math.sin(theta)

    def box(self, rank: int, chunk: int) -> tuple[float, float]:
        """Lower-left corner of the box of ``chunk`` in ``rank``'s card."""
        cx, cy = self.center(rank)
        left, top = cx - self.card_w / 2, cy + self.card_h / 2 - self.head_h
        row, col = divmod(chunk, self.cols)
        return left + col * self.box_w, top - (row + 1) * self.box_h

    @property
    def extent(self) -> tuple[float, float]:
        """Half width and half height of the drawing."""
        return self.radius + self.card_w / 2 + 0.35, self.radius + self.card_h / 2 + 0.2


def _fit_radius(lay: _Layout, gap: float) -> float:
    """Smallest ring radius at which every two cards are at least ``gap`` apart (horizontally or
    vertically), so that an arrow and its label fit between neighbours."""
    angles = [math.pi / 2 - 2 * math.pi * r / lay.n for r in range(lay.n)]
    radius = 1.0
    while True:
        ok = True
        for i in range(lay.n):
            for j in range(i + 1, lay.n):
                dx = abs(math.cos(angles[i]) - math.cos(angles[j])) * radius - lay.card_w
                dy = abs(math.sin(angles[i]) - math.sin(angles[j])) * radius - lay.card_h
                if max(dx, dy) < gap:
                    ok = False
                    break
            if not ok:
                break
        if ok:
            return radius
        radius += 0.05


def _layout(n: int) -> _Layout:
    if n <= TEXT_MODE_MAX:
        box_w = 0.42 + 0.3 * n  # room for "a₀+b₀+c₀+d₀"
        lay = _Layout(n, True, 1, 1.0, box_w, 0.3, 0.34)
        floor = {2: 1.45, 3: 1.75, 4: 2.05}[n]
        return _Layout(n, True, 1, max(floor, _fit_radius(lay, 0.5)), box_w, 0.3, 0.34)
    cols = 3 if n <= 6 else 4
    box = 0.42
    lay = _Layout(n, False, cols, 1.0, box, box, 0.34)
    return _Layout(n, False, cols, _fit_radius(lay, 0.8), box, box, 0.34)


# --------------------------------------------------------------------------------------------------------
# drawing
# --------------------------------------------------------------------------------------------------------
def _phase_key(trace: RingTrace, step: int) -> str:
    return "inputs" if step == 0 else trace.steps[step - 1].phase


def _arc(lay: _Layout, src: int, dst: int, rad: float) -> tuple[npt.NDArray[np.float64], tuple[float, float]]:
    """Points of the curved arrow from card ``src`` to card ``dst`` and its midpoint.

    The curve is the quadratic Bézier of matplotlib's ``arc3`` connection between the two card centres,
    cut where it leaves the first card and enters the second (plus a small gap).
    """
    a = np.array(lay.center(src))
    b = np.array(lay.center(dst))
    d = b - a
    ctrl = (a + b) / 2 + rad * np.array([d[1], -d[0]])
    t = np.linspace(0.0, 1.0, 241)[:, None]
    pts = (1 - t) ** 2 * a + 2 * (1 - t) * t * ctrl + t**2 * b
    gap = 0.14

    def inside(centre: npt.NDArray[np.float64]) -> npt.NDArray[np.bool_]:
        hit: npt.NDArray[np.bool_] = (np.abs(pts[:, 0] - centre[0]) <= lay.card_w / 2 + gap) & (
            np.abs(pts[:, 1] - centre[1]) <= lay.card_h / 2 + gap
        )
        return hit

    keep = ~(inside(a) | inside(b))
    mid = pts[len(pts) // 2]
    return pts[keep], (float(mid[0]), float(mid[1]))


def _draw_ring(ax: Axes, trace: RingTrace, step: int) -> None:
    n = trace.ranks
    lay = _layout(n)
    contrib = trace.contributions_after(step)
    counts = contrib.sum(axis=2)  # [rank, chunk] → how many inputs the copy holds
    this: RingStep | None = trace.steps[step - 1] if step > 0 else None
    colour = _PHASE[_phase_key(trace, step)][2]
    sent = {(s.src, s.chunk) for s in this.sends} if this else set()
    received = {(s.dst, s.chunk) for s in this.sends} if this else set()

    ax.set_aspect("equal")
    ax.set_axis_off()
    half_w, half_h = lay.extent
    ax.set_xlim(-half_w, half_w)
    ax.set_ylim(-half_h, half_h)
    theta = np.linspace(0, 2 * np.pi, 361)
    ax.plot(lay.radius * np.cos(theta), lay.radius * np.sin(theta), color="#DDDDDD", lw=1.2, zorder=0)

    cards: list[Patch] = []
    plain: dict[str, list[Any]] = {"patches": [], "face": [], "edge": []}
    marked: dict[str, list[Any]] = {"patches": [], "face": [], "edge": [], "lw": [], "ls": []}
    fills: list[Patch] = []
    text_size = 8.6 if n <= 3 else 7.8
    for r in range(n):
        cx, cy = lay.center(r)
        cards.append(
            FancyBboxPatch(
                (cx - lay.card_w / 2, cy - lay.card_h / 2),
                lay.card_w,
                lay.card_h,
                boxstyle="round,pad=0.06,rounding_size=0.08",
            )
        )
        ax.text(cx, cy + lay.card_h / 2 - lay.head_h / 2, f"rank {r} · {rank_letter(r)}", ha="center",
                va="center", fontsize=9, fontweight="bold", color=PALETTE["ink"], zorder=3)
        for c in range(n):
            x, y = lay.box(r, c)
            k = int(counts[r, c])
            full = k == n
            if lay.text:
                face = _FULL_FACE if full else mcolors.to_hex(_RAMP((k - 1) / max(n - 1, 1) * 0.8))
            else:
                # white box, filled from the bottom in proportion to the k of N inputs it holds
                face = _FULL_FILL if full else "white"
                if not full:
                    fills.append(Rectangle((x, y), lay.box_w, lay.box_h * k / n))
            rect = Rectangle((x, y), lay.box_w, lay.box_h)
            if (r, c) in received or (r, c) in sent:
                got = (r, c) in received
                marked["patches"].append(rect)
                marked["face"].append("none" if not full and not lay.text else face)
                marked["edge"].append(colour)
                marked["lw"].append(2.4 if got else 1.6)
                marked["ls"].append("-" if got else "--")
                if not full and not lay.text:
                    plain["patches"].append(Rectangle((x, y), lay.box_w, lay.box_h))
                    plain["face"].append(face)
                    plain["edge"].append("none")
            else:
                plain["patches"].append(rect)
                plain["face"].append(face)
                plain["edge"].append(_FULL_EDGE if full else "#8C8C8C")
            label = chunk_label(contrib[r, c], c) if lay.text else str(c)
            ax.text(x + lay.box_w / 2, y + lay.box_h / 2, label, ha="center", va="center",
                    fontsize=text_size if lay.text else 8, fontweight="bold" if full else "normal",
                    color=_FULL_EDGE if full and lay.text else PALETTE["ink"], zorder=3)
    # collections: one draw call each and no per-patch data-limit updates
    ax.add_collection(PatchCollection(cards, facecolors="white", edgecolors="#9A9A9A", linewidths=0.9,
                                      zorder=1), autolim=False)
    ax.add_collection(PatchCollection(plain["patches"], facecolors=plain["face"], edgecolors=plain["edge"],
                                      linewidths=0.8, zorder=2), autolim=False)
    if fills:
        ax.add_collection(PatchCollection(fills, facecolors=_PART_FILL, edgecolors="none", zorder=2.2),
                          autolim=False)
    if marked["patches"]:
        ax.add_collection(PatchCollection(marked["patches"], facecolors=marked["face"],
                                          edgecolors=marked["edge"], linewidths=marked["lw"],
                                          linestyles=marked["ls"], zorder=2.5), autolim=False)

    if this is None:
        return
    rad = -0.32 if n > 2 else -0.45  # negative: the arcs bulge outwards
    for snd in this.sends:
        pts, (mx, my) = _arc(lay, snd.src, snd.dst, rad)
        if len(pts) >= 2:
            ax.add_artist(FancyArrowPatch(path=Path(pts), arrowstyle="-|>,head_length=6,head_width=3.5",
                                          color=colour, lw=1.8, shrinkA=0, shrinkB=0, zorder=4))
        # the label sits just outside the arc, so short arrows stay visible
        norm = math.hypot(mx, my) or 1.0
        mx, my = mx * (1 + 0.3 / norm), my * (1 + 0.3 / norm)
        ax.text(mx, my, f"块 {snd.chunk}", ha="center", va="center", fontsize=8, color=colour,
                fontweight="bold", zorder=5,
                bbox={"boxstyle": "round,pad=0.18", "facecolor": "white", "edgecolor": colour, "lw": 0.8})


def _draw_info(
    ax_text: Axes, ax_bar: Axes, trace: RingTrace, step: int, cost: tuple[float, float] | None
) -> None:
    n, total = trace.ranks, trace.num_steps
    key = _phase_key(trace, step)
    zh, en, colour = _PHASE[key]
    ax_text.set_axis_off()
    y = 0.0  # running offset below the top of the panel, in points

    def line(text: str, gap: float, **kw: Any) -> None:
        nonlocal y
        ax_text.annotate(text, xy=(0, 1), xycoords="axes fraction", xytext=(0, -y),
                         textcoords="offset points", va="top", ha="left", **kw)
        y += gap

    def swatch(sample: str, text: str, **box: Any) -> None:
        nonlocal y
        ax_text.annotate(sample, xy=(0, 1), xycoords="axes fraction", xytext=(3, -y - 2),
                         textcoords="offset points", va="top", ha="left", fontsize=8, color=PALETTE["ink"],
                         bbox={"boxstyle": "square,pad=0.25", **box})
        ax_text.annotate(text, xy=(0, 1), xycoords="axes fraction", xytext=(27, -y - 2),
                         textcoords="offset points", va="top", ha="left", fontsize=9, color=PALETTE["ink"])
        y += 17

    line(f"{zh}  {en}", 22, fontsize=13, fontweight="bold", color=colour)
    if step == 0:
        counter = f"第 0 / {total} 步（共 2(N−1) = {total} 步）"
    else:
        st = trace.steps[step - 1]
        counter = f"第 {step} / {total} 步（本阶段第 {st.phase_step + 1} / {n - 1} 步）"
    line(counter, 17, fontsize=10.5, color=PALETTE["ink"])
    line(_RULE[key], 21, fontsize=9, color=PALETTE["grey"])
    swatch("   ", f"已含全部 {n} 份输入：归约完成",
           facecolor=_FULL_FACE if n <= TEXT_MODE_MAX else _FULL_FILL, edgecolor=_FULL_EDGE, lw=1.0)
    swatch("   ", "粗框：本步收到的块；虚框：本步发出的块", facecolor="white",
           edgecolor=colour if step else PALETTE["grey"], lw=2.0)
    if not n <= TEXT_MODE_MAX:
        swatch("   ", "框内数字 = 块号；浅绿填充的高度 = 已含输入 k/N", facecolor=_PART_FILL,
               edgecolor="#8C8C8C", lw=0.8)
    if cost is not None:
        alpha, beta = cost
        y += 4
        line(f"累计 α-β 时间：{fmt_seconds(trace.time_after(step, alpha, beta))}", 17, fontsize=10.5,
             fontweight="bold", color=PALETTE["ink"])
        line(f"每步 α + 最大块/β；α = {fmt_seconds(alpha)}，β = {fmt_bytes(beta, byte_unit(beta))}/s", 15,
             fontsize=8.5, color=PALETTE["grey"])

    sent = trace.bytes_sent_after(step)
    final = trace.bytes_sent_after(total)
    top = float(final.max())
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
    ideal = 2 * trace.buffer_bytes * (n - 1) / n
    if math.isclose(top, ideal):
        head = f"已发送（虚线：2S(N−1)/N = {fmt_bytes(top, unit)}）"
    else:  # chunks of unequal length: the busiest rank sends a little more than 2S(N−1)/N
        head = f"已发送（虚线：终值 {fmt_bytes(top, unit)}；2S(N−1)/N = {fmt_bytes(ideal, unit)}）"
    ax_bar.set_title(head, fontsize=9, fontweight="normal", loc="left")
    if n <= 8 and top > 0:
        for r in ranks:
            v = float(sent[r])
            inside = v >= 0.4 * top
            ax_bar.text(v / div + (-0.015 if inside else 0.015) * top / div, float(r), fmt_bytes(v, unit),
                        va="center", ha="right" if inside else "left", fontsize=7.5,
                        color="white" if inside else PALETTE["ink"], zorder=4)


_FIGSIZE: Final = (8.4, 4.8)


def _draw(
    fig: Figure,
    trace: RingTrace,
    step: int,
    cost: tuple[float, float] | None,
    title: str | None,
) -> None:
    fig.clear()
    ax_ring = fig.add_axes((0.0, 0.0, 0.55, 0.91))
    ax_text = fig.add_axes((0.555, 0.45, 0.44, 0.455))
    ax_bar = fig.add_axes((0.635, 0.095, 0.31, 0.28))
    head = title if title is not None else f"环形 All-Reduce（N = {trace.ranks}，S = " \
        f"{fmt_bytes(trace.buffer_bytes, byte_unit(trace.buffer_bytes))}）"
    fig.text(0.02, 0.955, head, fontsize=13, fontweight="bold", va="center", color=PALETTE["ink"])
    _draw_ring(ax_ring, trace, step)
    _draw_info(ax_text, ax_bar, trace, step, cost)


def ring_step_figure(
    trace: RingTrace,
    step: int,
    *,
    latency: float | None = None,
    bandwidth: float | None = None,
    max_ranks: int = 8,
    title: str | None = None,
) -> Figure:
    """One state of ring all-reduce as a matplotlib figure (a pyplot figure: close it when done).

    ``step`` 0 shows the inputs, ``step`` k (1 … 2(N−1)) the buffers after step k with that step's sends.
    ``latency`` α (s) and ``bandwidth`` β (B/s per direction) are optional and go together: when given, the
    cumulative α-β time ``Σ (α + largest message/β)`` (:meth:`RingTrace.time_after`) is shown.
    Raises ``ValueError`` if ``trace.ranks > max_ranks`` or ``step`` is outside 0 … 2(N−1).
    """
    tr = _check_trace(trace, max_ranks)
    k = _check_int("step", step, 0, tr.num_steps)
    cost = _check_cost(latency, bandwidth)
    head = _check_title(title)
    ensure_setup()
    import matplotlib.pyplot as plt

    fig = plt.figure(figsize=_FIGSIZE)
    _draw(fig, tr, k, cost, head)
    return fig


# --------------------------------------------------------------------------------------------------------
# animation
# --------------------------------------------------------------------------------------------------------
_ANIM_ID = re.compile(r"_anim_img([0-9a-f]{32})")
_FA_LINK = re.compile(r"<link\b[^>]*font-awesome[^>]*>\s*", re.IGNORECASE | re.DOTALL)
_FRAME = re.compile(r'^\s*frames\[\d+\] = "data:image/', re.MULTILINE)
_PNG_FRAME = re.compile(r'frames\[(\d+)\] = "data:image/png;base64,([^"]*)"')
_KEY_OK = re.compile(r"^[A-Za-z0-9_]{1,64}$")


def _shrink_png(data: bytes, colors: int) -> bytes:
    """Re-encode a PNG frame with an adaptive palette of ``colors`` colours (about 3× smaller for line art and
    text; no dithering, so flat areas stay flat and the output is deterministic)."""
    from PIL import Image

    with Image.open(io.BytesIO(data)) as im:
        rgb = im.convert("RGB")
    # maximum-coverage keeps the few flat UI colours exact (median cut greys out small green areas)
    pal = rgb.quantize(colors=colors, method=Image.Quantize.MAXCOVERAGE, dither=Image.Dither.NONE)
    out = io.BytesIO()
    pal.save(out, format="PNG", optimize=True)
    return out.getvalue()


def anim_html(raw: str, key: str | None = None, *, colors: int | None = 64) -> str:
    """Make ``FuncAnimation.to_jshtml`` output offline-safe, small and reproducible.

    Drops the Font Awesome ``<link>`` to maxcdn (the book theme bundles Font Awesome); re-encodes PNG frames
    with a palette of ``colors`` colours (``None`` keeps them as they are); replaces the random uuid4 element
    id by ``key`` (1–64 of ``[A-Za-z0-9_]``) or, if ``key`` is None, by a hash of the content. Two identical
    animations on one page need distinct keys.
    """
    if key is not None and (not isinstance(key, str) or not _KEY_OK.match(key)):
        raise ValueError(f"key must be 1–64 characters from [A-Za-z0-9_], got {key!r}")
    if colors is not None:
        colors = _check_int("colors", colors, 16, 256)
    html = _FA_LINK.sub("", raw)
    ids = set(_ANIM_ID.findall(html))
    if len(ids) != 1:
        raise ValueError(f"raw must be one to_jshtml animation (found {len(ids)} element ids)")
    (old,) = ids
    if colors is not None:
        ncol = colors

        def shrink(m: re.Match[str]) -> str:
            png = base64.b64decode(m.group(2).replace("\\\n", ""))
            small = base64.b64encode(_shrink_png(png, ncol)).decode("ascii")
            return f'frames[{m.group(1)}] = "data:image/png;base64,{small}"'

        html = _PNG_FRAME.sub(shrink, html)
    placeholder = "@@ANIM_ID@@"
    html = html.replace(old, placeholder)
    new = key if key is not None else "c" + hashlib.sha256(html.encode("utf-8")).hexdigest()[:24]
    return html.replace(placeholder, new)


def ring_animation_html(
    trace: RingTrace,
    *,
    latency: float | None = None,
    bandwidth: float | None = None,
    max_ranks: int = 8,
    title: str | None = None,
    key: str | None = None,
    interval: int = 1500,
    dpi: float = 100,
) -> str:
    """The HTML of :func:`ring_animation` as a string (self-contained, deterministic)."""
    tr = _check_trace(trace, max_ranks)
    cost = _check_cost(latency, bandwidth)
    head = _check_title(title)
    if key is not None and (not isinstance(key, str) or not _KEY_OK.match(key)):
        raise ValueError(f"key must be 1–64 characters from [A-Za-z0-9_], got {key!r}")
    ms = _check_int("interval", interval, 100, 10_000)
    res = check_positive("dpi", dpi)
    if not 40 <= res <= 200:
        raise ValueError(f"dpi must be in 40 … 200, got {dpi!r}")
    ensure_setup()
    # a figure outside pyplot: nothing to close, nothing for the inline backend to show twice
    fig = Figure(figsize=_FIGSIZE, dpi=res)

    def frame(step: int) -> list[Any]:
        _draw(fig, tr, step, cost, head)
        return []

    frames = list(range(tr.num_steps + 1))
    anim = FuncAnimation(fig, frame, frames=frames, init_func=lambda: frame(0), interval=ms, repeat=False,
                         cache_frame_data=False)
    # Animation.save takes its dpi from savefig.dpi, not from the figure
    with mpl.rc_context({"savefig.dpi": res, "savefig.bbox": None}):
        raw = anim.to_jshtml(default_mode="once")
    fig.clear()
    got = len(_FRAME.findall(raw))
    if got != len(frames):
        raise RuntimeError(f"animation lost frames ({got} of {len(frames)}): raise animation.embed_limit")
    return anim_html(raw, key)


def ring_animation(
    trace: RingTrace,
    *,
    latency: float | None = None,
    bandwidth: float | None = None,
    max_ranks: int = 8,
    title: str | None = None,
    key: str | None = None,
    interval: int = 1500,
    dpi: float = 100,
) -> HTML:
    """Step-by-step ring all-reduce as a self-contained HTML animation (slider and buttons, no kernel).

    ``2(N−1) + 1`` PNG frames drawn by :func:`ring_step_figure`'s code: the inputs, then every step of
    reduce-scatter and all-gather (arrows, phase in Chinese and English, step counter, bytes sent per rank
    and, with ``latency`` and ``bandwidth``, the cumulative α-β time). Built with
    ``FuncAnimation.to_jshtml(default_mode="once")``, then made offline-safe and deterministic by
    :func:`anim_html` (``key`` fixes the element id; by default it is a hash of the content). ``interval``
    in ms per frame. For N = 4 the page weighs about 0.2 MB. Raises ``ValueError`` if
    ``trace.ranks > max_ranks``.
    """
    from IPython.display import HTML

    return HTML(  # type: ignore[no-untyped-call]
        ring_animation_html(
            trace,
            latency=latency,
            bandwidth=bandwidth,
            max_ranks=max_ranks,
            title=title,
            key=key,
            interval=interval,
            dpi=dpi,
        )
    )


# --------------------------------------------------------------------------------------------------------
# live widget
# --------------------------------------------------------------------------------------------------------
def _png(trace: RingTrace, step: int, cost: tuple[float, float] | None, dpi: float) -> bytes:
    fig = Figure(figsize=_FIGSIZE, dpi=dpi)
    _draw(fig, trace, step, cost, None)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", metadata={"Software": None})
    fig.clear()
    return buf.getvalue()


def ring_explorer(
    max_ranks: int = 8,
    length: int = 8,
    *,
    latency: float | None = None,
    bandwidth: float | None = None,
    dtype: str = "float32",
) -> Any:
    """An ipywidgets control for live Jupyter use: a slider for N (2 … ``max_ranks``) and a slider with a
    Play button for the step; the picture of :func:`ring_step_figure` is redrawn on every change.

    Each of the N simulated ranks holds ``length`` elements of ``dtype`` (this sets S and the bytes shown;
    the picture shows which inputs a chunk holds, not values). Returns an ``ipywidgets.VBox``. In the static
    book the callbacks do not run; use :func:`ring_animation` there.
    """
    top = _check_int("max_ranks", max_ranks, 2, RANKS_LIMIT)
    size = _check_int("length", length, 1, 1 << 20)
    cost = _check_cost(latency, bandwidth)
    if dtype not in ("float32", "float64", "int32", "int64"):
        raise ValueError(f"dtype must be one of float32, float64, int32, int64, got {dtype!r}")
    import ipywidgets as widgets

    ensure_setup()
    start = min(4, top)
    traces: dict[int, RingTrace] = {}
    cache: dict[tuple[int, int], bytes] = {}

    def trace_for(n: int) -> RingTrace:
        if n not in traces:
            data = np.repeat(np.arange(1, n + 1, dtype=dtype)[:, None], size, axis=1)
            traces[n] = simulate_all_reduce(data)
        return traces[n]

    def image(n: int, step: int) -> bytes:
        if (n, step) not in cache:
            cache[(n, step)] = _png(trace_for(n), step, cost, 80)
        return cache[(n, step)]

    ranks = widgets.IntSlider(value=start, min=2, max=top, description="N（rank 数）",
                              style={"description_width": "initial"}, continuous_update=False)
    step = widgets.IntSlider(value=0, min=0, max=2 * (start - 1), description="步",
                             continuous_update=True)
    play = widgets.Play(value=0, min=0, max=2 * (start - 1), interval=1200, description="播放")
    widgets.jslink((play, "value"), (step, "value"))
    picture = widgets.Image(value=image(start, 0), format="png")

    def on_ranks(change: dict[str, Any]) -> None:
        n = int(change["new"])
        step.max = play.max = 2 * (n - 1)
        step.value = min(step.value, step.max)
        picture.value = image(n, step.value)

    def on_step(change: dict[str, Any]) -> None:
        picture.value = image(ranks.value, int(change["new"]))

    ranks.observe(on_ranks, names="value")
    step.observe(on_step, names="value")
    return widgets.VBox([widgets.HBox([ranks, play, step]), picture])

