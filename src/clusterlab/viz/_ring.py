"""Ring all-reduce, drawn step by step from a :class:`clusterlab.communication.ring.RingTrace`.

Thin wrappers around the collective engine of :mod:`clusterlab.viz._collective` (one engine draws every
collective): the trace is converted with :func:`clusterlab.communication.primitives.from_ring_trace`, which keeps the
ring module's chunk numbering. State 0 is the input, state ``k`` (1 … 2(N−1)) the buffers after step ``k``.
The N ranks sit on a circle, clockwise from the top; rank ``r`` sends to ``r + 1 (mod N)``. Each rank's
buffer is drawn as N chunk boxes: for N ≤ 4 as text (``a₂+b₂+c₂``), for larger N as a light-green fill whose
height is the share k/N of the inputs it holds. Fully reduced chunks are green with a dark-green edge.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from matplotlib.figure import Figure

from ..communication.ring import RingTrace, simulate_all_reduce
from ..communication.trace import from_ring_trace
from ..units import fmt_bytes
from ..validate import int_in_range
from ._anim import anim_html, check_key
from ._collective import animation_html, draw, png
from ._scene import (
    FIGSIZE,
    RANKS_LIMIT,
    TEXT_MODE_MAX,
    check_cost,
    check_ranks_limit,
    check_title,
    chunk_label,
    make_scene,
    rank_letter,
)
from ._style import byte_unit, ensure_setup

if TYPE_CHECKING:
    from IPython.display import HTML

__all__ = [
    "RANKS_LIMIT",
    "TEXT_MODE_MAX",
    "anim_html",
    "chunk_label",
    "rank_letter",
    "ring_animation",
    "ring_animation_html",
    "ring_explorer",
    "ring_step_figure",
]


def _check_trace(trace: object, max_ranks: int) -> RingTrace:
    if not isinstance(trace, RingTrace):
        raise ValueError(
            "trace must be a clusterlab.communication.ring.RingTrace (from simulate_all_reduce), "
            f"got {type(trace).__name__}"
        )
    check_ranks_limit(trace.ranks, max_ranks)
    return trace


def _title(trace: RingTrace, title: str | None) -> str:
    if title is not None:
        return title
    return f"环形 All-Reduce（N = {trace.ranks}，S = {fmt_bytes(trace.buffer_bytes, byte_unit(trace.buffer_bytes))}）"


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
    k = int_in_range("step", step, 0, tr.num_steps)
    cost = check_cost(latency, bandwidth)
    head = check_title(title)
    ensure_setup()
    import matplotlib.pyplot as plt

    fig = plt.figure(figsize=FIGSIZE)
    draw(fig, make_scene(from_ring_trace(tr), _title(tr, head)), k, cost, None)
    return fig


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
    cost = check_cost(latency, bandwidth)
    head = check_title(title)
    check_key(key)
    scene = make_scene(from_ring_trace(tr), _title(tr, head))
    return animation_html(scene, cost, key=key, interval=interval, dpi=dpi)


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
    top = int_in_range("max_ranks", max_ranks, 2, RANKS_LIMIT)
    size = int_in_range("length", length, 1, 1 << 20)
    cost = check_cost(latency, bandwidth)
    if dtype not in ("float32", "float64", "int32", "int64"):
        raise ValueError(f"dtype must be one of float32, float64, int32, int64, got {dtype!r}")
    import ipywidgets as widgets

    ensure_setup()
    start = min(4, top)
    scenes: dict[int, Any] = {}
    cache: dict[tuple[int, int], bytes] = {}

    def scene_for(n: int) -> Any:
        if n not in scenes:
            data = np.repeat(np.arange(1, n + 1, dtype=dtype)[:, None], size, axis=1)
            tr = simulate_all_reduce(data)
            scenes[n] = make_scene(from_ring_trace(tr), _title(tr, None))
        return scenes[n]

    def image(n: int, step: int) -> bytes:
        if (n, step) not in cache:
            cache[(n, step)] = png(scene_for(n), step, cost, 80)
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
