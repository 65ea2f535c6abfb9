"""Self-contained HTML animations: ``FuncAnimation.to_jshtml`` made offline-safe, small and reproducible."""

from __future__ import annotations

import base64
import hashlib
import io
import re
from collections.abc import Callable
from typing import Any, Final

import matplotlib as mpl
import numpy as np
from matplotlib.animation import FuncAnimation
from matplotlib.figure import Figure

from ..units import check_positive
from ._style import ensure_setup

__all__ = ["anim_html", "check_int", "check_key", "jshtml"]

_ANIM_ID = re.compile(r"_anim_img([0-9a-f]{32})")
_FA_LINK = re.compile(r"<link\b[^>]*font-awesome[^>]*>\s*", re.IGNORECASE | re.DOTALL)
_FRAME = re.compile(r'^\s*frames\[\d+\] = "data:image/', re.MULTILINE)
_PNG_FRAME = re.compile(r'frames\[(\d+)\] = "data:image/png;base64,([^"]*)"')
_KEY_OK: Final = re.compile(r"^[A-Za-z0-9_]{1,64}$")


def check_int(name: str, value: object, lo: int, hi: int) -> int:
    """``int(value)`` or ``ValueError`` naming ``name`` unless it is an integer (not a bool) in ``lo … hi``."""
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise ValueError(f"{name} must be an integer in {lo} … {hi}, got {value!r}")
    if not lo <= int(value) <= hi:
        raise ValueError(f"{name} must be an integer in {lo} … {hi}, got {value!r}")
    return int(value)


def check_key(key: object) -> str | None:
    if key is not None and (not isinstance(key, str) or not _KEY_OK.match(key)):
        raise ValueError(f"key must be 1–64 characters from [A-Za-z0-9_], got {key!r}")
    return key


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
    check_key(key)
    if colors is not None:
        colors = check_int("colors", colors, 16, 256)
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


def jshtml(
    draw: Callable[[Figure, int], None],
    frames: int,
    *,
    figsize: tuple[float, float],
    key: str | None,
    interval: int,
    dpi: float,
) -> str:
    """Draw ``frames`` states with ``draw(fig, i)`` into one figure and return the post-processed HTML.

    ``interval`` in ms (100 … 10 000), ``dpi`` in 40 … 200; ``key`` as in :func:`anim_html`.
    """
    check_key(key)
    ms = check_int("interval", interval, 100, 10_000)
    res = check_positive("dpi", dpi)
    if not 40 <= res <= 200:
        raise ValueError(f"dpi must be in 40 … 200, got {dpi!r}")
    ensure_setup()
    # a figure outside pyplot: nothing to close, nothing for the inline backend to show twice
    fig = Figure(figsize=figsize, dpi=res)

    def frame(i: int) -> list[Any]:
        draw(fig, i)
        return []

    anim = FuncAnimation(fig, frame, frames=list(range(frames)), init_func=lambda: frame(0), interval=ms,
                         repeat=False, cache_frame_data=False)
    # Animation.save takes its dpi from savefig.dpi, not from the figure
    with mpl.rc_context({"savefig.dpi": res, "savefig.bbox": None}):
        raw = anim.to_jshtml(default_mode="once")
    fig.clear()
    got = len(_FRAME.findall(raw))
    if got != frames:
        raise RuntimeError(f"animation lost frames ({got} of {frames}): raise animation.embed_limit")
    return anim_html(raw, key)
