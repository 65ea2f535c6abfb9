"""Any collective, drawn step by step from a :class:`clusterlab.primitives.CollectiveTrace` (or a
:class:`clusterlab.ring.RingTrace`): one engine for every picture and animation of a collective.

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
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

import numpy as np
import numpy.typing as npt
from matplotlib import colors as mcolors
from matplotlib.axes import Axes
from matplotlib.collections import PatchCollection
from matplotlib.figure import Figure
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch, Patch, Rectangle
from matplotlib.path import Path

from .. import collectives
from ..primitives import CollectiveTrace, Send, from_ring_trace
from ..ring import RingTrace
from ..units import check_nonnegative, check_positive, fmt_bytes, fmt_seconds
from ._anim import check_int, check_key, jshtml
from ._style import BYTE_DIV as _BYTE_DIV
from ._style import PALETTE, byte_unit, ensure_setup

if TYPE_CHECKING:
    from IPython.display import HTML

__all__ = [
    "RANKS_LIMIT",
    "chunk_label",
    "collective_animation",
    "collective_animation_html",
    "collective_step_figure",
    "rank_letter",
    "slot_label",
]

#: Largest N the picture supports at all (``max_ranks`` may not exceed it).
RANKS_LIMIT: Final = 16
#: Up to this many inputs per box, a box spells them all out (``a₀+b₀+c₀+d₀``).
TEXT_MODE_MAX: Final = 4
FIGSIZE: Final = (8.4, 4.8)
_PIC_AXES: Final = (0.0, 0.0, 0.55, 0.91)  # the picture's axes in figure coordinates

_SUB: Final = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")
_LETTERS: Final = "abcdefghijklmnopqrstuvwxyz"

#: phase → (Chinese, English, colour)
_PHASE: Final = {
    "inputs": ("初始输入", "Inputs", PALETTE["ink"]),
    "broadcast": ("广播", "Broadcast", PALETTE["blue"]),
    "reduce": ("归约", "Reduce", PALETTE["vermillion"]),
    "reduce_scatter": ("归约-散播", "Reduce-Scatter", PALETTE["vermillion"]),
    "all_gather": ("全收集", "All-Gather", PALETTE["blue"]),
    "all_to_all": ("全交换", "All-to-All", "#A4487F"),
    "send_recv": ("点对点", "Send/Recv", PALETTE["green"]),
}
_OP: Final = {
    "broadcast": ("广播", "Broadcast"),
    "reduce": ("归约", "Reduce"),
    "all_reduce": ("全归约", "All-Reduce"),
    "reduce_scatter": ("归约-散播", "Reduce-Scatter"),
    "all_gather": ("全收集", "All-Gather"),
    "all_to_all": ("全交换", "All-to-All"),
    "send_recv": ("点对点", "Send/Recv"),
}
_ALG: Final = {"chain": "流水线链", "ring": "环形", "tree": "单棵二叉树", "pairwise": "两两交换", "direct": "直接发送"}
_STEP_FORMULA: Final = {
    ("all_reduce", "ring"): "2(N−1)",
    ("all_reduce", "tree"): "2⌈log₂N⌉",
    ("reduce_scatter", "ring"): "N−1",
    ("all_gather", "ring"): "N−1",
    ("all_to_all", "pairwise"): "N−1",
    ("broadcast", "chain"): "(N−1)+(c−1)",
    ("reduce", "chain"): "(N−1)+(c−1)",
}
#: the dashed line of the bytes panel: what the collectives model says the busiest rank sends
_VOLUME_FORMULA: Final = {
    "all_reduce": "2S(N−1)/N",
    "reduce_scatter": "S(N−1)/N",
    "all_gather": "S(N−1)/N",
    "all_to_all": "S(N−1)/N",
    "broadcast": "S",
    "reduce": "S",
    "send_recv": "S",
}
_FULL_FACE: Final = "#BFE6D7"
_FULL_EDGE: Final = "#00785A"
_FULL_FILL: Final = "#6CC3A0"
_PART_FILL: Final = "#B3DECB"
_EMPTY_EDGE: Final = "#C4C4C4"
# pale grey-blue → green: the share of the N inputs a chunk already holds
_RAMP: Final = mcolors.LinearSegmentedColormap.from_list(
    "clusterlab_reduce", ["#FFFFFF", "#E3EEF2", "#7CC7AE"]
)
# one pale tint per source rank (Okabe–Ito hues mixed with white) for the data-moving primitives
_TINT_BASE: Final = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#999999")


def _tint(rank: int, *, faded: bool = False) -> str:
    """A pale tint of rank ``rank``'s colour (paler still when ``faded``)."""
    w = 0.88 if faded else 0.68
    r, g, b = ((1 - w) * v + w for v in mcolors.to_rgb(_TINT_BASE[rank % len(_TINT_BASE)]))
    return mcolors.to_hex((r, g, b))


def rank_letter(rank: int) -> str:
    """``0 → 'a'``, ``1 → 'b'``, …: the letter that names rank ``rank``'s input in the pictures."""
    return _LETTERS[rank % len(_LETTERS)]


def chunk_label(contributors: npt.NDArray[np.bool_] | list[bool], chunk: int) -> str:
    """``'a₀+c₀'``: the inputs a copy of chunk ``chunk`` holds, rank letters with the chunk as subscript."""
    sub = str(chunk).translate(_SUB)
    return "+".join(f"{rank_letter(k)}{sub}" for k, held in enumerate(contributors) if held)


def slot_label(contributors: npt.NDArray[np.bool_] | list[bool], piece: int, *, subscript: bool = True) -> str:
    """Like :func:`chunk_label`, without the subscript if ``subscript`` is False, and with runs of three or
    more consecutive ranks written ``b₂…f₂`` once more than :data:`TEXT_MODE_MAX` ranks contribute."""
    sub = str(piece).translate(_SUB) if subscript else ""
    ranks = [k for k, held in enumerate(contributors) if held]
    if len(ranks) <= TEXT_MODE_MAX:
        return "+".join(f"{rank_letter(k)}{sub}" for k in ranks)
    parts: list[str] = []
    i = 0
    while i < len(ranks):
        j = i
        while j + 1 < len(ranks) and ranks[j + 1] == ranks[j] + 1:
            j += 1
        if j - i >= 2:
            parts.append(f"{rank_letter(ranks[i])}{sub}…{rank_letter(ranks[j])}{sub}")
        else:
            parts.extend(f"{rank_letter(k)}{sub}" for k in ranks[i : j + 1])
        i = j + 1
    return "+".join(parts)


# --------------------------------------------------------------------------------------------------------
# validation
# --------------------------------------------------------------------------------------------------------
def as_collective(trace: object, max_ranks: int) -> CollectiveTrace:
    """A :class:`CollectiveTrace` (a :class:`RingTrace` is converted) with at most ``max_ranks`` ranks."""
    if isinstance(trace, RingTrace):
        out = from_ring_trace(trace)
    elif isinstance(trace, CollectiveTrace):
        out = trace
    else:
        raise ValueError(
            "trace must be a clusterlab.primitives.CollectiveTrace (from primitives.simulate) or a "
            f"clusterlab.ring.RingTrace, got {type(trace).__name__}"
        )
    check_ranks_limit(out.ranks, max_ranks)
    return out


def check_ranks_limit(ranks: int, max_ranks: int) -> None:
    limit = check_int("max_ranks", max_ranks, 2, RANKS_LIMIT)
    if ranks > limit:
        raise ValueError(
            f"trace.ranks must be <= max_ranks = {limit} for a readable picture, got {ranks} ranks; "
            f"simulate fewer ranks (or raise max_ranks up to {RANKS_LIMIT})"
        )


def check_cost(latency: float | None, bandwidth: float | None) -> tuple[float, float] | None:
    if latency is None and bandwidth is None:
        return None
    if latency is None or bandwidth is None:
        missing = "latency" if latency is None else "bandwidth"
        raise ValueError(f"{missing} must be given together with the other α-β parameter (or neither)")
    return check_nonnegative("latency", latency), check_positive("bandwidth", bandwidth)


def check_title(title: object) -> str | None:
    if title is not None and not isinstance(title, str):
        raise ValueError(f"title must be a string or None, got {type(title).__name__}")
    return title


# --------------------------------------------------------------------------------------------------------
# geometry
# --------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class _Geometry:
    """Card positions and box grid in data units of the (equal-aspect) picture axes.

    A card per rank: a header line (plus a line of column titles when the slots form several buffers),
    then the slot boxes in a grid of ``cols`` columns.
    """

    n: int
    text: bool
    slots: int
    groups: int
    cols: int
    box_w: float
    box_h: float
    head_h: float
    centers: tuple[tuple[float, float], ...]
    tree: bool

    @property
    def rows(self) -> int:
        return -(-self.slots // self.cols)

    @property
    def card_w(self) -> float:
        return self.box_w * self.cols

    @property
    def card_h(self) -> float:
        return self.head_h + self.box_h * self.rows

    def center(self, rank: int) -> tuple[float, float]:
        return self.centers[rank]

    def cell(self, slot: int) -> tuple[int, int]:
        """(row, column) of a slot: one column per buffer when there are several, else row by row."""
        if self.groups > 1:
            per = self.slots // self.groups
            return slot % per, slot // per
        return divmod(slot, self.cols)

    def box(self, rank: int, slot: int) -> tuple[float, float]:
        """Lower-left corner of ``slot``'s box in ``rank``'s card."""
        cx, cy = self.center(rank)
        left, top = cx - self.card_w / 2, cy + self.card_h / 2 - self.head_h
        row, col = self.cell(slot)
        return left + col * self.box_w, top - (row + 1) * self.box_h

    @property
    def font_scale(self) -> float:
        """1, or less when the drawing is so large that the picture axes shrink it below the scale at which
        the texts were sized (ring of 8 ranks): texts then shrink with the cards."""
        x0, x1, y0, y1 = self.limits
        inch_per_unit = min(_PIC_AXES[2] * FIGSIZE[0] / (x1 - x0), _PIC_AXES[3] * FIGSIZE[1] / (y1 - y0))
        return min(1.0, inch_per_unit / 0.48)

    @property
    def limits(self) -> tuple[float, float, float, float]:
        xs = [c[0] for c in self.centers]
        ys = [c[1] for c in self.centers]
        pad_x, pad_y = (0.35, 0.2) if not self.tree else (0.25, 0.25)
        return (min(xs) - self.card_w / 2 - pad_x, max(xs) + self.card_w / 2 + pad_x,
                min(ys) - self.card_h / 2 - pad_y, max(ys) + self.card_h / 2 + pad_y)


def _ring_centers(n: int, radius: float) -> tuple[tuple[float, float], ...]:
    out = []
    for r in range(n):
        theta = math.pi / 2 - 2 * math.pi * r / n
        out.append((radius * math.cos(theta), radius * math.sin(theta)))
    return tuple(out)


def _fit_radius(n: int, card_w: float, card_h: float, gap: float) -> float:
    """Smallest ring radius at which every two cards are at least ``gap`` apart (horizontally or
    vertically), so that an arrow and its label fit between neighbours."""
    angles = [math.pi / 2 - 2 * math.pi * r / n for r in range(n)]
    radius = 1.0
    while True:
        ok = all(
            max(abs(math.cos(angles[i]) - math.cos(angles[j])) * radius - card_w,
                abs(math.sin(angles[i]) - math.sin(angles[j])) * radius - card_h) >= gap
            for i in range(n) for j in range(i + 1, n)
        )
        if ok:
            return radius
        radius += 0.05


def _geometry(tr: CollectiveTrace, text: bool, max_chars: int) -> _Geometry:
    n, k, g = tr.ranks, tr.slots, len(tr.groups)
    if text:
        box_w, box_h = 0.42 + 0.1 * (max_chars + 1), 0.3  # 0.42 + 0.3N: room for "a₀+b₀+c₀+d₀"
        cols = g if g > 1 else (1 if k <= 4 else 2)
        box_w = max(box_w, 1.1 / cols, 0.75 if g > 1 else 0.0)  # the card is as wide as its header
    else:
        box_w = box_h = 0.42
        cols = 3 if k <= 6 else 4
    head_h = 0.34 + (0.24 if g > 1 else 0.0)
    rows = -(-k // cols)
    card_w, card_h = box_w * cols, head_h + box_h * rows
    if tr.tree is not None:
        tree = tr.tree
        # tidy layout: leaves one column apart in in-order, every parent centred over its children
        xs = [0.0] * n
        leaves = 0

        def place(r: int) -> None:
            nonlocal leaves
            kids = sorted(tree.children[r], key=lambda c: (c - tree.root) % n)
            for c in kids:
                place(c)
            if kids:
                xs[r] = sum(xs[c] for c in kids) / len(kids)
            else:
                xs[r] = float(leaves)
                leaves += 1

        place(tree.root)
        dx, dy = card_w + 0.35, card_h + 0.8
        mid = (min(xs) + max(xs)) / 2
        centers = tuple(((xs[r] - mid) * dx, (tree.height / 2 - tree.depth[r]) * dy) for r in range(n))
        return _Geometry(n, text, k, g, cols, box_w, box_h, head_h, centers, True)
    if text:
        floor = {2: 1.45, 3: 1.75, 4: 2.05}.get(n, 0.0)
        radius = max(floor, _fit_radius(n, card_w, card_h, 0.5))
    else:
        radius = _fit_radius(n, card_w, card_h, 0.8)
    return _Geometry(n, text, k, g, cols, box_w, box_h, head_h, _ring_centers(n, radius), False)


# --------------------------------------------------------------------------------------------------------
# scene: everything about a trace that does not change from frame to frame
# --------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class _Scene:
    tr: CollectiveTrace
    held: tuple[npt.NDArray[np.bool_], ...]  # contributions for states 0 … T
    labels: tuple[tuple[tuple[str, ...], ...], ...]  # [state][rank][slot]
    geo: _Geometry
    reducing: bool
    subscript: bool
    title: str
    active: frozenset[int]
    gone: tuple[frozenset[tuple[int, int]], ...]  # [state] → (rank, send slot) already sent before that state

    @property
    def chunked(self) -> bool:
        """Arrows are labelled with the chunk number (one buffer cut into several chunks)."""
        return self.subscript and len(self.tr.groups) == 1


def _scene(tr: CollectiveTrace, title: str | None) -> _Scene:
    n, k = tr.ranks, tr.slots
    held = tuple(tr.contributions_after(s) for s in range(tr.num_steps + 1))
    most = max(int(h.sum(axis=2).max()) for h in held)
    subscript = k // len(tr.groups) > 1
    labels = tuple(
        tuple(tuple(slot_label(h[r, c], int(tr.pieces[r, c]), subscript=subscript) for c in range(k))
              for r in range(n))
        for h in held
    )
    text = most <= TEXT_MODE_MAX or k == len(tr.groups)
    max_chars = max((len(lab) for st in labels for row in st for lab in row), default=2)
    geo = _geometry(tr, text, max(max_chars, 2))
    reducing = any(st.reduces for st in tr.steps)
    active = frozenset(r for st in tr.steps for s in st.sends for r in (s.src, s.dst))
    gone: list[frozenset[tuple[int, int]]] = [frozenset()]
    for st in tr.steps:  # only a separate send buffer keeps what it sent: mark it as sent
        new = {(s.src, s.chunk) for s in st.sends} if len(tr.groups) > 1 else set()
        gone.append(gone[-1] | new)
    if title is None:
        zh, en = _OP[tr.op]
        size = fmt_bytes(tr.buffer_bytes, byte_unit(tr.buffer_bytes))
        extra = {"send_recv": f"rank {tr.root} → rank {tr.peer}，",
                 "broadcast": f"根 rank {tr.root}，c = {k} 块，",
                 "reduce": f"根 rank {tr.root}，c = {k} 块，"}.get(tr.op, "")
        title = f"{zh} {en}（{_ALG[tr.algorithm]}，{extra}N = {n}，S = {size}）"
    return _Scene(tr, held, labels, geo, reducing, subscript, title, active, tuple(gone))


# --------------------------------------------------------------------------------------------------------
# drawing
# --------------------------------------------------------------------------------------------------------
def _phase_key(tr: CollectiveTrace, step: int) -> str:
    return "inputs" if step == 0 else tr.steps[step - 1].phase


def _rule(tr: CollectiveTrace, key: str) -> str:
    c = tr.slots
    if key == "inputs":
        if tr.op in ("all_reduce", "reduce_scatter") and tr.algorithm == "ring":
            return "缓冲区切成 N 块；a₂ = rank 0（a）输入的第 2 块"
        if tr.op == "all_reduce":
            key = "b…f = b+c+d+e+f" if tr.ranks > TEXT_MODE_MAX else "a+b = a、b 两份输入之和"
            return f"部分和逐层加到根，再逐层发回；{key}"
        if tr.op == "broadcast":
            return f"根 rank {tr.root} 的消息切成 c = {c} 块，沿链逐块向下游转发"
        if tr.op == "reduce":
            return f"缓冲区切成 c = {c} 块，沿链逐块加向根 rank {tr.root}"
        if tr.op == "all_gather":
            return "每个 rank 只有自己的一块；b₁ = rank 1（b）的那块"
        if tr.op == "all_to_all":
            return "发送缓冲的第 j 块归 rank j；a₁ = a 要给 rank 1 的块"
        return f"rank {tr.root} 把整个缓冲区发给 rank {tr.peer}"
    tree = tr.algorithm == "tree"
    rules = {
        "reduce_scatter": "接收方把收到的块加到自己的副本上（+=）",
        "all_gather": "接收方用收到的完整块覆盖自己的副本（=）",
        "broadcast": "父节点把完整结果发给子节点，子节点覆盖（=）" if tree
        else "接收方存下收到的块（=），下一步转发给下游",
        "reduce": "子节点把部分和发给父节点，父节点相加（+=）" if tree
        else "接收方把部分和加到自己的块上（+=），再往根传",
        "all_to_all": "第 s 步：rank r 把给 rank r+s 的块直接发过去",
        "send_recv": "接收方存下整条消息（=）",
    }
    return rules[key]


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


def _arrow_text(scene: _Scene, step: int, snd: Send) -> str:
    if scene.chunked:
        return f"块 {snd.chunk}"
    return scene.labels[step - 1][snd.src][snd.chunk]


def _draw_cards(ax: Axes, scene: _Scene, step: int) -> None:
    tr, geo = scene.tr, scene.geo
    n = tr.ranks
    held = scene.held[step]
    counts = held.sum(axis=2)  # [rank, slot] → how many inputs the box holds
    this = tr.steps[step - 1] if step > 0 else None
    colour = _PHASE[_phase_key(tr, step)][2]
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
        ax.text(mx, my, _arrow_text(scene, step, snd), ha="center", va="center", fontsize=8 * fs, color=colour,
                fontweight="bold", zorder=5,
                bbox={"boxstyle": "round,pad=0.18", "facecolor": "white", "edgecolor": colour, "lw": 0.8})


def _draw_info(ax_text: Axes, ax_bar: Axes, scene: _Scene, step: int, cost: tuple[float, float] | None) -> None:
    tr = scene.tr
    n, total = tr.ranks, tr.num_steps
    key = _phase_key(tr, step)
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
    line(_rule(tr, key), 21, fontsize=9, color=PALETTE["grey"])
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


def make_scene(trace: CollectiveTrace, title: str | None = None) -> _Scene:
    """Precompute what every frame of ``trace`` shares (contributions, labels, layout)."""
    return _scene(trace, title)


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

    ``trace`` from :func:`clusterlab.primitives.simulate` (or a :class:`~clusterlab.ring.RingTrace`). ``step``
    0 shows the start, ``step`` k the buffers after step k with that step's sends. ``latency`` α (s) and
    ``bandwidth`` β (B/s per direction) are optional and go together: when given, the cumulative α-β time
    (:meth:`~clusterlab.primitives.CollectiveTrace.time_after`) is shown. Raises ``ValueError`` if
    ``trace.ranks > max_ranks`` or ``step`` is outside 0 … number of steps.
    """
    tr = as_collective(trace, max_ranks)
    k = check_int("step", step, 0, tr.num_steps)
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
    return jshtml(lambda fig, i: draw(fig, scene, i, cost, None), scene.tr.num_steps + 1, figsize=FIGSIZE,
                  key=key, interval=interval, dpi=dpi)


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
    hash of the content; palette-compressed frames). ``interval`` in ms per frame.
    """
    from IPython.display import HTML

    return HTML(  # type: ignore[no-untyped-call]
        collective_animation_html(trace, latency=latency, bandwidth=bandwidth, max_ranks=max_ranks, title=title,
                                  key=key, interval=interval, dpi=dpi)
    )
