"""Self-contained HTML animations: ``FuncAnimation.to_jshtml`` made offline-safe, small, reproducible and readable in
a narrow column.

The player matplotlib writes has English controls and a fixed-width layout. :func:`anim_html` gives its buttons
Chinese tooltips (播放, 暂停, 上一帧, …), its repeat modes Chinese labels (单次 / 循环 / 往返), and replaces its
style sheet by one that scales the frame to the column (``max-width: 100%; height: auto``) and lets the button row
and the mode row wrap (flex-wrap), so that no control is cut off on a 390 px wide phone screen.

Each frame can carry its own text alternative, written by whoever draws it from the same data (a collective's step,
its sends and bytes; a time line's events): the frame image gets the first one as its ``alt`` and all of them as a
JSON list in ``data-alts``, from which ``book/_static/a11y.js`` sets the ``alt`` of the frame on show.
"""

from __future__ import annotations

import base64
import hashlib
import html as _html
import io
import json
import re
from collections.abc import Callable, Sequence
from typing import Any, Final

import matplotlib as mpl
from matplotlib.animation import FuncAnimation
from matplotlib.figure import Figure

from ..validate import int_in_range, positive
from ._style import ensure_setup

__all__ = ["CONTROL_LABELS", "MODE_LABELS", "PLAYER_CSS", "anim_html", "check_alts", "check_key", "jshtml",
           "localise_player"]

_ANIM_ID = re.compile(r"_anim_img([0-9a-f]{32})")
_FA_LINK = re.compile(r"<link\b[^>]*font-awesome[^>]*>\s*", re.IGNORECASE | re.DOTALL)
_FRAME = re.compile(r'^\s*frames\[\d+\] = "data:image/', re.MULTILINE)
_PNG_FRAME = re.compile(r'frames\[(\d+)\] = "data:image/png;base64,([^"]*)"')
_KEY_OK: Final = re.compile(r"^[A-Za-z0-9_]{1,64}$")
_PLAYER_STYLE: Final = re.compile(r"<style>[^<]*\.anim-buttons[^<]*</style>")
_ATTR: Final = re.compile(r'\b(title|aria-label)="([^"]*)"')
_MODE_LABEL: Final = re.compile(r'(<label for="_anim_radio[123]_[0-9a-f]{32}">)([^<]*)(</label>)')

#: Tooltips and screen-reader labels of the player's controls, English (as matplotlib writes them) → Chinese.
CONTROL_LABELS: Final = {
    "Decrease speed": "减速",
    "First frame": "第一帧",
    "Previous frame": "上一帧",
    "Play backwards": "倒放",
    "Pause": "暂停",
    "Play": "播放",
    "Next frame": "下一帧",
    "Last frame": "最后一帧",
    "Increase speed": "加速",
    "Repetition mode": "播放方式",
}
#: The three repeat modes.
MODE_LABELS: Final = {"Once": "单次", "Loop": "循环", "Reflect": "往返"}
#: The player's style sheet: the frame scales down to the column, the control rows wrap instead of overflowing.
PLAYER_CSS: Final = (
    "<style>\n"
    ".animation{display:inline-block;max-width:100%;text-align:center;}\n"
    ".animation img{display:block;max-width:100%;height:auto;margin:0 auto;}\n"
    "input[type=range].anim-slider{width:374px;max-width:100%;margin-left:auto;margin-right:auto;}\n"
    ".anim-buttons{display:flex;flex-wrap:wrap;justify-content:center;gap:2px;margin:8px 0;}\n"
    ".anim-buttons button{padding:0;width:36px;min-height:28px;flex:0 0 auto;}\n"
    ".anim-state{display:flex;flex-wrap:wrap;justify-content:center;align-items:center;gap:4px 12px;}\n"
    ".anim-state label{margin:0;}\n"
    ".anim-state input{margin:0 2px 0 0;vertical-align:middle;}\n"
    "</style>\n"
)


def check_key(key: object) -> str | None:
    if key is not None and (not isinstance(key, str) or not _KEY_OK.match(key)):
        raise ValueError(f"key must be 1–64 characters from [A-Za-z0-9_], got {key!r}")
    return key


def check_alts(alts: object, frames: int | None = None) -> list[str] | None:
    """``alts`` as a list of one non-empty string per frame (``frames`` of them when given), or None."""
    if alts is None:
        return None
    if isinstance(alts, str) or not isinstance(alts, Sequence):
        raise ValueError(f"alts must be a sequence of strings (one per frame) or None, got {type(alts).__name__}")
    out = list(alts)
    if not all(isinstance(a, str) and a.strip() for a in out):
        raise ValueError("alts must hold one non-empty string per frame")
    if frames is not None and len(out) != frames:
        raise ValueError(f"alts must hold one text per frame: {frames} frames, got {len(out)} texts")
    return out


def localise_player(html: str) -> str:
    """The player of ``to_jshtml`` with Chinese tooltips and mode labels and a style sheet that fits a narrow
    column (see the module docstring). ``ValueError`` if ``html`` holds no such player (or one whose controls this
    function does not know: the English labels would stay)."""
    if len(_PLAYER_STYLE.findall(html)) != 1:
        raise ValueError("html must hold one to_jshtml player style sheet")
    out = _PLAYER_STYLE.sub(lambda _m: PLAYER_CSS.strip("\n"), html)
    out = _ATTR.sub(lambda m: f'{m.group(1)}="{CONTROL_LABELS.get(m.group(2), m.group(2))}"', out)
    out = _MODE_LABEL.sub(lambda m: m.group(1) + MODE_LABELS.get(m.group(2), m.group(2)) + m.group(3), out)
    left = [w for w in (*CONTROL_LABELS, *MODE_LABELS) if f'"{w}"' in out or f">{w}<" in out]
    if left:
        raise ValueError(f"html must be a to_jshtml player whose controls are known; still in English: {left}")
    return out


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


def anim_html(raw: str, key: str | None = None, *, colors: int | None = 64, alts: Sequence[str] | None = None) -> str:
    """Make ``FuncAnimation.to_jshtml`` output offline-safe, small and reproducible.

    Drops the Font Awesome ``<link>`` to maxcdn (the book theme bundles Font Awesome); localises the player and
    lets it fit a narrow column (:func:`localise_player`); re-encodes PNG frames
    with a palette of ``colors`` colours (``None`` keeps them as they are); replaces the random uuid4 element
    id by ``key`` (1–64 of ``[A-Za-z0-9_]``) or, if ``key`` is None, by a hash of the content. Two identical
    animations on one page need distinct keys. ``alts``, one text per frame, become the frame image's ``alt``
    (the first) and its ``data-alts`` (all, as JSON).
    """
    check_key(key)
    texts = check_alts(alts)
    if colors is not None:
        colors = int_in_range("colors", colors, 16, 256)
    html = _FA_LINK.sub("", raw)
    ids = set(_ANIM_ID.findall(html))
    if len(ids) != 1:
        raise ValueError(f"raw must be one to_jshtml animation (found {len(ids)} element ids)")
    html = localise_player(html)
    (old,) = ids
    if texts is not None:
        got = len(_FRAME.findall(html))
        if len(texts) != got:
            raise ValueError(f"alts must hold one text per frame: {got} frames, got {len(texts)} texts")
        tag = f'<img id="_anim_img{old}">'
        if html.count(tag) != 1:
            raise ValueError("raw must hold the player's frame image once")
        listed = _html.escape(json.dumps(texts, ensure_ascii=False), quote=True)
        html = html.replace(tag, f'<img id="_anim_img{old}" alt="{_html.escape(texts[0], quote=True)}" '
                                 f'data-alts="{listed}">')
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
    alts: Sequence[str] | None = None,
) -> str:
    """Draw ``frames`` states with ``draw(fig, i)`` into one figure and return the post-processed HTML.

    ``interval`` in ms (100 … 10 000), ``dpi`` in 40 … 200; ``key`` and ``alts`` (one text per frame) as in
    :func:`anim_html`.
    """
    check_key(key)
    texts = check_alts(alts, frames)
    ms = int_in_range("interval", interval, 100, 10_000)
    res = positive("dpi", dpi)
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
    return anim_html(raw, key, alts=texts)
