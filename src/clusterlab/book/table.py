"""Rendering of the book's tables: rows of strings (the first row is the header) as Markdown or HTML, and
:class:`Table`, which displays itself in a notebook (``_repr_html_`` for the rendered book, a Markdown ``repr`` as the
plain-text fallback). The row builders live in :mod:`clusterlab.book.tables`, which re-exports these names.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

__all__ = ["Table", "check_rows", "to_html", "to_markdown"]


def check_rows(rows: Sequence[Sequence[str]]) -> list[list[str]]:
    if len(rows) < 1:
        raise ValueError("rows must hold at least the header row")
    width = len(rows[0])
    if width < 1:
        raise ValueError("rows[0] (the header) must have at least one column")
    out: list[list[str]] = []
    for i, row in enumerate(rows):
        if len(row) != width:
            raise ValueError(f"rows[{i}] has {len(row)} cells, the header has {width}")
        out.append([str(c) for c in row])
    return out


def _md_cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def to_markdown(rows: Sequence[Sequence[str]]) -> str:
    """GitHub/MyST pipe table; the first row is the header. ``|`` inside cells is escaped."""
    checked = check_rows(rows)
    header, body = checked[0], checked[1:]
    lines = ["| " + " | ".join(_md_cell(c) for c in header) + " |"]
    lines.append("|" + "|".join("---" for _ in header) + "|")
    lines += ["| " + " | ".join(_md_cell(c) for c in row) + " |" for row in body]
    return "\n".join(lines)


_CJK = re.compile(r"[\u4e00-\u9fff]")


def _td(cell: str) -> str:
    """A body cell; running text (Chinese, ≥ 10 characters) gets class ``wrap``: the page may break it."""
    wrap = len(cell) >= 10 and _CJK.search(cell) is not None
    return f'<td class="wrap">{html.escape(cell)}</td>' if wrap else f"<td>{html.escape(cell)}</td>"


def to_html(rows: Sequence[Sequence[str]], caption: str = "") -> str:
    """A plain ``<table>`` (first row in ``<thead>``); every cell is HTML-escaped; cells of running text may wrap."""
    checked = check_rows(rows)
    header, body = checked[0], checked[1:]
    parts = ['<table class="clusterlab-table">']
    if caption:
        parts.append(f"<caption>{html.escape(caption)}</caption>")
    parts.append("<thead><tr>" + "".join(f"<th>{html.escape(c)}</th>" for c in header) + "</tr></thead>")
    parts.append("<tbody>")
    for row in body:
        parts.append("<tr>" + "".join(_td(c) for c in row) + "</tr>")
    parts.append("</tbody></table>")
    return "\n".join(parts)


@dataclass(frozen=True)
class Table:
    """Rows of strings (``rows[0]`` is the header) that display themselves in a notebook."""

    rows: tuple[tuple[str, ...], ...]
    caption: str = ""

    def __init__(self, rows: Iterable[Sequence[str]], caption: str = "") -> None:
        checked = check_rows(list(rows))
        object.__setattr__(self, "rows", tuple(tuple(r) for r in checked))
        object.__setattr__(self, "caption", str(caption))

    @property
    def header(self) -> tuple[str, ...]:
        return self.rows[0]

    @property
    def body(self) -> tuple[tuple[str, ...], ...]:
        return self.rows[1:]

    def to_markdown(self) -> str:
        return to_markdown(self.rows)

    def to_html(self) -> str:
        return to_html(self.rows, self.caption)

    def _repr_html_(self) -> str:
        return self.to_html()

    def __repr__(self) -> str:
        return self.to_markdown()

    __str__ = __repr__
