"""The book's formula sheet, generated from the package so that it cannot drift from the code.

Every :class:`Formula` holds the LaTeX the reader sees, its symbols with units and the range in which the formula
holds, the ``clusterlab`` function that computes it (by dotted name, and a call of it) and the link to the place in
the book where it is derived. ``tests/unit/test_formulas.py`` transcribes every entry's LaTeX into plain Python and
evaluates both at many points of each symbol's range (hypothesis): the sheet is proved equal to the code.

The sheet is grouped by chapter (:data:`GROUPS`, one module per group); :func:`group_markdown` renders one group
as a MyST list, each formula a labelled display equation (``eq-c08-<key>``) that the build numbers with the page's
section (8-1, 8-2 …, ``book/_ext/numbering.py``), followed by its symbols, the computing function and a
``{ref}``/``{prf:ref}`` link to the derivation. A notebook glues it and places it with ``{glue:md}``
(``:format: myst``), so the links are checked by the build. No formula appears twice: where two pages use one
formula, the entry names both places or says so in its note.

Units: SI at every function (B, s, B/s, FLOP, FLOP/s); the only exception is the failure rate λ per GPU-hour,
which :func:`clusterlab.faults.reliability.job_mtbf` takes as published.
"""

from __future__ import annotations

from typing import Final

from . import _comm, _data, _faults, _ledger, _network, _parallel
from ._base import Formula, Symbol

__all__ = ["FORMULAS", "GROUPS", "GROUP_SOURCES", "Formula", "Symbol", "by_key", "group", "group_markdown",
           "sheet_markdown"]

#: the sheet's groups, one per chapter, in reading order: key → Chinese title
GROUPS: Final = {
    "comm": "集合通信：字节与时间",
    "network": "参数面网络",
    "parallel": "并行：通信、显存与计算",
    "faults": "故障、checkpoint 与可复现",
    "data": "存储与数据面",
    "ledger": "一张账本",
}

#: the pages each group collects, as MyST links (the first line of the group on the sheet)
GROUP_SOURCES: Final = {
    "comm": "{ref}`§1 <sec-c01>`、{ref}`§2 <sec-c02>`、{ref}`§2.1 <sec-c021>`、{ref}`§2.2 <sec-c022>`、"
            "{ref}`§9.6.1 <sec-961>`、{ref}`§9.6.2 <sec-962>`",
    "network": "{ref}`§3 <sec-c03>`",
    "parallel": "{ref}`§4 <sec-c04>`、{ref}`§9.6.5.1 <sec-9651>`",
    "faults": "{ref}`§5 <sec-c05>`、{ref}`§9.6.3 <sec-963>`、{ref}`§9.6.4 <sec-964>`、{ref}`§9.6.5.2 <sec-9652>`",
    "data": "{ref}`§6 <sec-c06>`",
    "ledger": "{ref}`§7 <sec-c07>`、{ref}`模型与现实 <sec-model-reality>`",
}

FORMULAS: Final[tuple[Formula, ...]] = (
    *_comm.FORMULAS, *_network.FORMULAS, *_parallel.FORMULAS, *_faults.FORMULAS, *_data.FORMULAS,
    *_ledger.FORMULAS,
)


def by_key(key: str) -> Formula:
    """The formula with ``key`` (``ValueError`` naming the keys if there is none)."""
    for f in FORMULAS:
        if f.key == key:
            return f
    raise ValueError(f"key must be one of {', '.join(f.key for f in FORMULAS)}; got {key!r}")


def group(name: str) -> tuple[Formula, ...]:
    """The formulas of one group of :data:`GROUPS`, in sheet order."""
    if name not in GROUPS:
        raise ValueError(f"name must be one of {', '.join(GROUPS)}; got {name!r}")
    return tuple(f for f in FORMULAS if f.group == name)


def _symbols_text(symbols: tuple[Symbol, ...]) -> str:
    seen: dict[str, str] = {}
    for s in symbols:
        unit = "" if s.unit == "—" else f"，{s.unit}"
        seen.setdefault(s.tex, f"${s.tex}$ {s.meaning}{unit}")
    return "；".join(seen.values())


def sheet_markdown(formulas: tuple[Formula, ...] | list[Formula], *, links: bool = True) -> str:
    """The formulas as a MyST list, one item per formula: its name (result unit), the formula as a display equation
    labelled :attr:`Formula.label`, then the symbols with units, the note, the computing function (module and
    name, e.g. ``collectives.send_volume``) and, unless ``links=False``, the link to the derivation. A list wraps on
    a phone where a four-column table would not."""
    if not formulas:
        raise ValueError("formulas must hold at least one formula")
    items = []
    for f in formulas:
        func = ".".join(f.function.split(".")[-2:])
        note = f"{f.note}。" if f.note else ""
        tail = f"计算：`{func}`" + (f"；推导：{f.where}" if links else "")
        items.append(f"- **{f.name}**（{f.result}）\n\n  $${f.latex}$$ ({f.label})\n\n"
                     f"  {_symbols_text(f.symbols)}。{note}{tail}")
    return "\n\n".join(items)


def group_markdown(name: str) -> str:
    """One group of the sheet: the pages it collects (:data:`GROUP_SOURCES`), then :func:`sheet_markdown`."""
    return f"出自 {GROUP_SOURCES[name]}。\n\n" + sheet_markdown(group(name))
