"""House style, CJK fonts and deterministic output for every figure of the book.

Fonts: matplotlib (≥ 3.6) falls back glyph by glyph along ``font.family``. With
``["DejaVu Sans", "Noto Sans CJK SC"]`` Latin letters, digits and the minus sign keep the DejaVu look and
Chinese characters come from the CJK face, so no ``axes.unicode_minus`` hack is needed.

The CJK face is found in this order:

1. the Noto Sans CJK SC OpenType files shipped by the pinned PyPI package ``mpl-font`` (SIL OFL 1.1), so a
   fresh machine without any system CJK font renders Chinese after ``pip install``; the files are located
   without importing ``mpl_font`` (its import switches the global font to its own choice). They are registered
   under the family name :data:`BUNDLED_FAMILY`, which no system font carries: a machine with Debian's
   ``fonts-noto-cjk`` (family "Noto Sans CJK SC" too) still draws every figure with the bundled files, so the
   stored PNGs are the same bytes with and without system CJK fonts;
2. a system family: Noto Sans CJK SC, Source Han Sans SC, WenQuanYi Micro Hei, Microsoft YaHei, PingFang SC.

If none is available :func:`setup` raises :class:`CJKFontError` (message in Chinese and English).
"""

from __future__ import annotations

import dataclasses
import importlib.util
import math
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, Final

import matplotlib as mpl
from cycler import cycler
from matplotlib import font_manager, ft2font
from matplotlib.figure import Figure
from matplotlib.typing import RcKeyType

__all__ = [
    "BUNDLED_FAMILY",
    "CJK_FAMILIES",
    "PALETTE",
    "CJKFontError",
    "cjk_family",
    "ensure_setup",
    "new_figure",
    "save_figure",
    "setup",
]

#: System families tried after the bundled font, most preferred first (Linux, Windows, macOS).
CJK_FAMILIES: Final = (
    "Noto Sans CJK SC",
    "Source Han Sans SC",
    "WenQuanYi Micro Hei",
    "Microsoft YaHei",
    "PingFang SC",
)

#: The family name under which the bundled ``mpl-font`` files are registered; no system font has it.
BUNDLED_FAMILY: Final = "clusterlab Noto Sans CJK SC"

#: Font files of ``mpl-font`` registered when present (relative to the package directory).
_BUNDLED_FONTS: Final = ("fonts/noto/NotoSansCJKsc-Regular.otf", "fonts/noto/NotoSansCJKsc-Bold.otf")

#: Okabe–Ito colours (colour-blind safe), by role.
PALETTE: Final = {
    "orange": "#E69F00",
    "sky": "#56B4E9",
    "green": "#009E73",
    "yellow": "#F0E442",
    "blue": "#0072B2",
    "vermillion": "#D55E00",
    "purple": "#CC79A7",
    "grey": "#6E6E6E",
    "ink": "#222222",
}

_HOUSE_RC: Final[dict[RcKeyType, Any]] = {
    "figure.dpi": 100,
    "figure.facecolor": "white",
    "savefig.dpi": 150,
    "savefig.facecolor": "white",
    "font.size": 10,
    "axes.titlesize": 11,
    "axes.titleweight": "bold",
    "axes.labelsize": 10,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "axes.axisbelow": True,
    "grid.alpha": 0.35,
    "grid.linewidth": 0.6,
    "legend.frameon": False,
    "legend.fontsize": 9,
    "xtick.labelsize": 9,
    "ytick.labelsize": 9,
    "axes.prop_cycle": cycler(
        color=[PALETTE[k] for k in ("blue", "vermillion", "green", "orange", "purple", "sky", "yellow")]
    ),
    # deterministic output: fixed SVG ids, text as paths (no font needed by the reader), bounded animations
    "svg.hashsalt": "clusterlab",
    "svg.fonttype": "path",
    "animation.embed_limit": 8.0,  # MB of base64 frames per animation; larger means a design error
    "animation.frame_format": "png",
}

_state: dict[str, str] = {}


class CJKFontError(RuntimeError):
    """No font with Chinese glyphs could be found."""


def _bundled_font_files() -> list[Path]:
    """The ``mpl-font`` OTF files, found without importing the package (its import changes rcParams)."""
    try:
        spec = importlib.util.find_spec("mpl_font")
    except (ImportError, ValueError):
        return []
    if spec is None or not spec.submodule_search_locations:
        return []
    root = Path(next(iter(spec.submodule_search_locations)))
    return [root / rel for rel in _BUNDLED_FONTS if (root / rel).is_file()]


def _known_families() -> set[str]:
    return {entry.name for entry in font_manager.fontManager.ttflist}


def _register(files: Iterable[Path]) -> str:
    """Add the bundled font files to matplotlib's font manager under :data:`BUNDLED_FAMILY` (once each), with
    the style and weight read from each file; return that family name.

    ``FontManager.addfont`` would register them under their own name "Noto Sans CJK SC", which a system font
    of the same name (Debian's ``NotoSansCJK-Regular.ttc``) can win in ``findfont``'s scoring.
    """
    manager = font_manager.fontManager
    known = {(entry.fname, entry.name) for entry in manager.ttflist}
    for path in files:
        if (str(path), BUNDLED_FAMILY) not in known:
            entry = font_manager.ttfFontProperty(ft2font.FT2Font(str(path)))
            manager.ttflist.append(dataclasses.replace(entry, name=BUNDLED_FAMILY))
    return BUNDLED_FAMILY


def _find_cjk_family(bundled: Sequence[Path], families: Sequence[str]) -> str:
    """Register ``bundled`` font files if any, else pick the first available system family."""
    if bundled:
        return _register(bundled)
    available = _known_families()
    for family in families:
        if family in available:
            return family
    raise CJKFontError(
        "找不到中文字体：请安装 PyPI 包 mpl-font（pip install mpl-font==1.1.0），或安装系统字体 "
        f"{'、'.join(families)} 之一。"
        " / No CJK font found: install the PyPI package mpl-font (pip install mpl-font==1.1.0) or one of the "
        f"system fonts {', '.join(families)}."
    )


def setup() -> str:
    """Configure matplotlib for the book; idempotent. Returns the CJK family in use.

    Registers the CJK font once, then (re)applies the house style: ``font.family = ["DejaVu Sans", <CJK>]``,
    ``svg.fonttype = "path"``, a fixed ``svg.hashsalt``, Okabe–Ito colours, light grid, an
    ``animation.embed_limit`` of 8 MB. PNG output carries no date; :func:`save_figure` also drops the
    version stamp so saved files are byte-identical across runs. Called on ``import clusterlab.viz``; call
    it again after ``matplotlib.rcdefaults()``.
    """
    family = _state.get("family")
    if family is None:
        family = _find_cjk_family(_bundled_font_files(), CJK_FAMILIES)
        _state["family"] = family
    mpl.rcParams.update(_HOUSE_RC)
    mpl.rcParams["font.family"] = ["DejaVu Sans", family]
    return family


def ensure_setup() -> str:
    """Run :func:`setup` only if the CJK font is no longer in ``font.family`` (e.g. after
    ``matplotlib.rcdefaults()``); otherwise leave the caller's rcParams untouched."""
    family = _state.get("family")
    if family is None or family not in list(mpl.rcParams["font.family"]):
        return setup()
    return family


def cjk_family() -> str:
    """The CJK family chosen by :func:`setup` (calls it if needed)."""
    return _state.get("family") or setup()


def new_figure(figsize: tuple[float, float]) -> Figure:
    """A pyplot figure in the house style with constrained layout (what every static chart starts from)."""
    ensure_setup()
    import matplotlib.pyplot as plt

    return plt.figure(figsize=figsize, layout="constrained")


def save_figure(fig: Figure, path: str | Path, *, dpi: float | None = None) -> Path:
    """Save ``fig`` to ``path`` (format from the suffix: png, svg or pdf) without dates or version stamps,
    so that two runs write byte-identical files. Returns the path."""
    out = Path(path)
    fmt = out.suffix.lower().lstrip(".")
    if fmt not in ("png", "svg", "pdf"):
        raise ValueError(f"path must end in .png, .svg or .pdf, got {str(path)!r}")
    metadata: dict[str, Any]
    if fmt == "png":
        metadata = {"Software": None}
    elif fmt == "svg":
        metadata = {"Date": None, "Creator": None}
    else:
        metadata = {"CreationDate": None, "ModDate": None, "Creator": None, "Producer": None}
    fig.savefig(out, format=fmt, dpi=dpi if dpi is not None else "figure", metadata=metadata)
    return out


# --------------------------------------------------------------------------------------------------------
# small helpers shared by the drawing modules
# --------------------------------------------------------------------------------------------------------
_BYTE_UNITS: Final = ("B", "KB", "MB", "GB", "TB")
#: Divisor of each decimal byte unit.
BYTE_DIV: Final = {"B": 1.0, "KB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12}


def byte_unit(nbytes: float) -> str:
    """The decimal unit that shows ``nbytes`` with 1–999 before the point (``B`` … ``TB``)."""
    v = abs(float(nbytes))
    unit = "B"
    for i, name in enumerate(_BYTE_UNITS):
        if v >= 1000.0**i:
            unit = name
    return unit


def time_unit(seconds: float) -> tuple[float, str]:
    """A scale and unit label (``s``, ``ms`` or ``µs``) for an axis whose largest value is ``seconds``."""
    v = abs(float(seconds))
    if not math.isfinite(v) or v >= 1.0:
        return 1.0, "s"
    if v >= 1e-3:
        return 1e-3, "ms"
    return 1e-6, "µs"
