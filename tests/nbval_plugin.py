"""pytest plugin for nbval runs (loaded with ``-p tests.nbval_plugin``).

Stored outputs are compared as :mod:`clusterlab.book.outputs` describes: plain text, stdout/stderr and every glued
value (``application/papermill.record/*``) exactly, after the sanitising rules; images — figures shown by a cell
(``image/png``, which nbval alone would not compare at all) and glued figures
(``application/papermill.record/image/png``) — by the RMS difference of their pixels, within
:data:`~clusterlab.book.outputs.IMAGE_RMS_TOL`. Skipped: ``text/html`` (animations and quizzes: element ids,
embedded frames), ``application/javascript`` and ``image/svg+xml``.
"""

from __future__ import annotations

from typing import Any

from nbformat import NotebookNode
from nbval.plugin import IPyNbCell

from clusterlab.book.outputs import IMAGE_KEYS, IMAGE_RMS_TOL, image_rms, images_of

SKIP = ("text/html", "application/javascript", "image/svg+xml")

_compare_text = IPyNbCell.compare_outputs


def _without_images(outputs: list[Any]) -> list[Any]:
    out = []
    for o in outputs:
        if "data" in o and any(k in o["data"] for k in IMAGE_KEYS):
            o = NotebookNode(o)
            o["data"] = NotebookNode({k: v for k, v in o["data"].items() if k not in IMAGE_KEYS})
        out.append(o)
    return out


def compare_outputs(self: Any, test: list[Any], ref: list[Any], skip_compare: Any = None) -> bool:
    """nbval's comparison for everything but images, then every image against its stored rendering."""
    if not _compare_text(self, _without_images(test), _without_images(ref), skip_compare):
        return False
    new, old = images_of(test), images_of(ref)
    if [k for k, _ in new] != [k for k, _ in old]:
        self.comparison_traceback.append(
            f"images differ in number or kind: stored {[k for k, _ in old]}, new {[k for k, _ in new]}")
        return False
    for (key, a), (_, b) in zip(new, old, strict=True):
        if a == b:
            continue
        rms = image_rms(a, b)
        if not rms <= IMAGE_RMS_TOL:
            self.comparison_traceback.append(
                f"mismatch {key!r}: the figure changed (RMS pixel difference {rms:.3g} > {IMAGE_RMS_TOL} on 0–255)")
            return False
    return True


IPyNbCell.compare_outputs = compare_outputs


def pytest_collectstart(collector: Any) -> None:
    if getattr(collector, "path", None) is not None and collector.path.suffix == ".ipynb":
        skip = getattr(collector, "skip_compare", None)
        if skip is not None:
            collector.skip_compare = tuple(k for k in tuple(skip) + SKIP if k not in IMAGE_KEYS)
