"""How a notebook's stored outputs are compared with a fresh run: text exactly, images with a tolerance.

The book stores every notebook with its outputs, and the tests re-run each notebook and compare (nbval). Text,
stdout and every glued value must match exactly (after the sanitising rules of ``tests/nbval_sanitize.cfg``). A
rendered image cannot: the numbers behind a figure are the same on every CPU, but the curve a figure draws may pass
through numpy's ``log`` or ``exp`` (a logarithmic axis, a smooth curve), whose last bits depend on the CPU's SIMD
level, and a last-bit move of a line can change the antialiasing of a few pixels. So images are compared as
matplotlib's own test suite and pytest-mpl do: decode both PNGs and take the root-mean-square difference of the
pixel values on the 0–255 scale (:func:`image_rms`); the images match when it is at most :data:`IMAGE_RMS_TOL` and the
sizes agree. A figure that changes visibly — a moved line, a new label, another size — has an RMS far above that.

Animations are HTML documents with their frames embedded as base64 PNGs: :func:`same_html` compares the HTML with
the frames cut out exactly, and the frames one by one as images.

Sources: ``matplotlib.testing.compare.calculate_rms`` and ``compare_images`` (matplotlib 3.11 documentation,
"Testing"); pytest-mpl's ``--mpl-default-tolerance`` (RMS, default 2).
"""

from __future__ import annotations

import base64
import binascii
import io
import re
from collections.abc import Iterable
from typing import Any, Final

import numpy as np

__all__ = ["IMAGE_KEYS", "IMAGE_RMS_TOL", "decode_png", "image_rms", "same_html", "same_image"]

#: MIME keys whose payload is a base64 PNG (a shown figure, a glued figure)
IMAGE_KEYS: Final = ("image/png", "application/papermill.record/image/png")
#: largest RMS pixel difference (0–255 scale) for two renderings of the same figure; see the module docstring
IMAGE_RMS_TOL: Final = 0.1

_FRAME: Final = re.compile(r"data:image/png;base64,([A-Za-z0-9+/=\\n]+)")


def decode_png(data: str | bytes) -> np.ndarray:
    """A base64 PNG (as stored in a notebook) → an array of 8-bit RGBA values, shape (height, width, 4)."""
    from PIL import Image

    raw = base64.b64decode(data if isinstance(data, bytes) else "".join(data.split()))
    with Image.open(io.BytesIO(raw)) as im:
        return np.asarray(im.convert("RGBA"), dtype=np.int16)


def image_rms(a: str | bytes, b: str | bytes) -> float:
    """Root-mean-square difference of two base64 PNGs' RGBA values (0–255 scale); inf if their sizes differ."""
    x, y = decode_png(a), decode_png(b)
    if x.shape != y.shape:
        return float("inf")
    d = (x - y).astype(np.int64)
    return float(np.sqrt(np.mean(d * d)))


def same_image(a: str | bytes, b: str | bytes, tol: float = IMAGE_RMS_TOL) -> bool:
    """Whether two stored PNGs show the same figure: byte-equal, or equal sizes and RMS ≤ ``tol``."""
    if a == b:
        return True
    try:
        return image_rms(a, b) <= tol
    except (OSError, ValueError, binascii.Error):
        return False


def _frames(html: str) -> tuple[str, list[str]]:
    frames: list[str] = []

    def cut(m: re.Match[str]) -> str:
        frames.append(m.group(1).replace("\\n", ""))
        return "data:image/png;base64,FRAME"

    return _FRAME.sub(cut, html), frames


def same_html(a: str, b: str, tol: float = IMAGE_RMS_TOL) -> bool:
    """Whether two HTML outputs are the same up to their embedded PNG frames, which must match as images."""
    if a == b:
        return True
    text_a, frames_a = _frames(a)
    text_b, frames_b = _frames(b)
    return (text_a == text_b and len(frames_a) == len(frames_b)
            and all(same_image(x, y, tol) for x, y in zip(frames_a, frames_b, strict=True)))


def images_of(outputs: Iterable[Any]) -> list[tuple[str, str]]:
    """``(mime key, payload)`` of every image in a cell's outputs, in order."""
    out: list[tuple[str, str]] = []
    for o in outputs:
        data = o.get("data", {}) if hasattr(o, "get") else {}
        for key in IMAGE_KEYS:
            if key in data:
                payload = data[key]
                out.append((key, "".join(payload) if isinstance(payload, list) else payload))
    return out
