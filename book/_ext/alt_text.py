"""Text alternatives for the book's figures, taken from what the reader sees beside them.

myst-nb gives a notebook's image output ``alt="<file path>"`` unless the cell sets one; a screen reader then reads
"../_images/3f2a….png". Every figure of the book is drawn by ``clusterlab.viz`` and published with a numbered
caption that states what it shows and its key numbers (glued from the same computation), so the caption is the
figure's text alternative: each image whose alt is missing or is a file name gets the caption's text (formulas as
their TeX source). An image
outside a captioned figure gets "插图：" and the title of its section. A cell can still set its own alt (myst-nb's
``mystnb: image: alt:`` cell metadata), which is kept.

The animation players are raw HTML: ``clusterlab.viz`` writes one text per frame from the data the frame is drawn
from (the step, its messages, the bytes and the time so far) into the player, and ``_static/a11y.js`` (loaded on
every page) shows the text of the frame on screen as the image's alt and names the slider.
"""

from __future__ import annotations

import re
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx

FILE_LIKE = re.compile(r"(^|/)[^/\s]+\.(png|jpe?g|gif|svg|webp)$", re.IGNORECASE)


def _needs_alt(image: nodes.image) -> bool:
    alt = str(image.get("alt", "")).strip()
    return not alt or alt == image.get("uri") or bool(FILE_LIKE.search(alt))


def _caption_text(figure: nodes.Element) -> str:
    for child in figure.children:
        if isinstance(child, nodes.caption):
            return " ".join(child.astext().split())
    return ""


def _section_title(node: nodes.Node) -> str:
    parent = node.parent
    while parent is not None:
        if isinstance(parent, nodes.section) and parent.children and isinstance(parent[0], nodes.title):
            return " ".join(parent[0].astext().split())
        parent = parent.parent
    return ""


def add_alt_text(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    for image in doctree.findall(nodes.image):
        if not _needs_alt(image):
            continue
        figure = image.parent
        while figure is not None and not isinstance(figure, nodes.figure):
            figure = figure.parent
        caption = _caption_text(figure) if figure is not None else ""
        if caption:
            image["alt"] = f"图：{caption}"
        else:
            title = _section_title(image)
            image["alt"] = f"插图：{title}" if title else "插图"


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("doctree-resolved", add_alt_text)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
