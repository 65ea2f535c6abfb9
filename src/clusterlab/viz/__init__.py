"""Every figure, animation and widget of the book; the only place that imports matplotlib or ipywidgets.

Importing this module configures matplotlib once (:func:`setup`): a CJK font with per-glyph fallback
(``font.family = ["DejaVu Sans", "Noto Sans CJK SC"]``), the house style and deterministic output.

Ring all-reduce
    :func:`ring_step_figure` (one state), :func:`ring_animation` (all states as self-contained HTML,
    no kernel, no network), :func:`ring_explorer` (ipywidgets, live Jupyter only).
Traffic charts
    :func:`naive_vs_ring_load` (per-rank load, naive vs ring, from
    :func:`clusterlab.collectives.rank_traffic`), :func:`volume_and_time_vs_ranks` (ring volume and α-β time vs N).
"""

from __future__ import annotations

from ._charts import naive_vs_ring_load, volume_and_time_vs_ranks
from ._ring import (
    anim_html,
    chunk_label,
    rank_letter,
    ring_animation,
    ring_animation_html,
    ring_explorer,
    ring_step_figure,
)
from ._style import CJK_FAMILIES, PALETTE, CJKFontError, cjk_family, save_figure, setup

__all__ = [
    "CJK_FAMILIES",
    "PALETTE",
    "CJKFontError",
    "anim_html",
    "chunk_label",
    "cjk_family",
    "naive_vs_ring_load",
    "rank_letter",
    "ring_animation",
    "ring_animation_html",
    "ring_explorer",
    "ring_step_figure",
    "save_figure",
    "setup",
    "volume_and_time_vs_ranks",
]

setup()
