"""What every frame of a collective's picture shares: rank letters and slot labels, the layout of the cards (a
ring, or the binary tree), and the precomputed states of a trace (:func:`make_scene`). Drawn by
:mod:`clusterlab.viz._collective`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

import numpy as np
import numpy.typing as npt
from matplotlib import colors as mcolors

from ..book.labels import OPS, SIMULATED_ALGORITHM_NAMES
from ..communication.ring import RingTrace
from ..communication.trace import CollectiveTrace, from_ring_trace
from ..units import fmt_bytes
from ..validate import int_in_range, non_negative, positive
from ._style import PALETTE, byte_unit

if TYPE_CHECKING:
    pass

__all__ = ["FIGSIZE", "RANKS_LIMIT", "TEXT_MODE_MAX", "as_collective", "chunk_label", "make_scene", "rank_letter",
           "slot_label"]

#: Largest N the picture supports at all (``max_ranks`` may not exceed it).
RANKS_LIMIT: Final = 16
#: Up to this many inputs per box, a box spells them all out (``a₀+b₀+c₀+d₀``).
TEXT_MODE_MAX: Final = 4
FIGSIZE: Final = (8.4, 4.8)
_PIC_AXES: Final = (0.0, 0.0, 0.55, 0.91)  # the picture's axes in figure coordinates

_SUB: Final = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")
_LETTERS: Final = "abcdefghijklmnopqrstuvwxyz"

#: phase → (Chinese, English, colour)
_PHASE_COLOURS: Final = {
    "broadcast": PALETTE["blue"],
    "reduce": PALETTE["vermillion"],
    "reduce_scatter": PALETTE["vermillion"],
    "all_gather": PALETTE["blue"],
    "all_to_all": "#A4487F",
    "send_recv": PALETTE["green"],
}
_PHASE: Final = {
    "inputs": ("初始输入", "Inputs", PALETTE["ink"]),
    **{k: (OPS[k].zh, OPS[k].title, colour) for k, colour in _PHASE_COLOURS.items()},
}
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
            "trace must be a clusterlab.communication.trace.CollectiveTrace (from primitives.simulate) or a "
            f"clusterlab.communication.ring.RingTrace, got {type(trace).__name__}"
        )
    check_ranks_limit(out.ranks, max_ranks)
    return out


def check_ranks_limit(ranks: int, max_ranks: int) -> None:
    limit = int_in_range("max_ranks", max_ranks, 2, RANKS_LIMIT)
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
    return non_negative("latency", latency), positive("bandwidth", bandwidth)


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
        zh, en = OPS[tr.op].zh, OPS[tr.op].title
        size = fmt_bytes(tr.buffer_bytes, byte_unit(tr.buffer_bytes))
        extra = {"send_recv": f"rank {tr.root} → rank {tr.peer}，",
                 "broadcast": f"根 rank {tr.root}，c = {k} 块，",
                 "reduce": f"根 rank {tr.root}，c = {k} 块，"}.get(tr.op, "")
        title = f"{zh} {en}（{SIMULATED_ALGORITHM_NAMES[tr.algorithm]}，{extra}N = {n}，S = {size}）"
    return _Scene(tr, held, labels, geo, reducing, subscript, title, active, tuple(gone))


def make_scene(trace: CollectiveTrace, title: str | None = None) -> _Scene:
    """Precompute what every frame of ``trace`` shares (contributions, labels, layout)."""
    return _scene(trace, title)
