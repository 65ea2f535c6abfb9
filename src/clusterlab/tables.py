"""Small, pure table builders for the book: rows of strings, rendered as Markdown or HTML.

A table is a list of rows, the first row being the header (``list[list[str]]``). The builders here turn
results of the compute modules into such rows; :func:`to_markdown` and :func:`to_html` render them, and
:class:`Table` wraps them so that a notebook cell whose last expression is a ``Table`` displays it
(``_repr_html_`` for the rendered book, a Markdown ``repr`` as the plain-text fallback).

Builders
--------
:func:`ring_schedule_table`
    one row per ring step: phase, step within the phase ``s``, and the chunk every rank ``r`` sends to
    ``r+1`` (from :attr:`clusterlab.ring.RingTrace.steps`).
:func:`contribution_table`
    after a given step: how many ranks' inputs each rank's copy of each chunk contains
    (from :meth:`clusterlab.ring.RingTrace.contributions_after`).
:func:`algorithm_comparison_table`
    naive (through rank 0) vs ring all-reduce for several rank counts: bytes on the busiest link and
    α-β time (from :mod:`clusterlab.collectives`).
:func:`ring_scaling_table`
    ring all-reduce for several rank counts: per-rank send volume, ``2(N−1)/N``, latency term
    ``2(N−1)α``, bandwidth term ``2S(N−1)/(Nβ)`` and their sum.

Sizes are printed in GB (1e9 B) and times with :func:`clusterlab.units.fmt_seconds`.
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from . import collectives
from .ring import RingTrace
from .units import bytes_to, check_nonnegative, check_positive, check_ranks, fmt_num, fmt_seconds

__all__ = [
    "Table",
    "algorithm_comparison_table",
    "contribution_table",
    "ring_scaling_table",
    "ring_schedule_table",
    "to_html",
    "to_markdown",
]

_PHASE_NAMES = {"reduce_scatter": "①归约-散播", "all_gather": "②全收集"}


def _check_rows(rows: Sequence[Sequence[str]]) -> list[list[str]]:
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
    checked = _check_rows(rows)
    header, body = checked[0], checked[1:]
    lines = ["| " + " | ".join(_md_cell(c) for c in header) + " |"]
    lines.append("|" + "|".join("---" for _ in header) + "|")
    lines += ["| " + " | ".join(_md_cell(c) for c in row) + " |" for row in body]
    return "\n".join(lines)


def to_html(rows: Sequence[Sequence[str]], caption: str = "") -> str:
    """A plain ``<table>`` (first row in ``<thead>``); every cell is HTML-escaped."""
    checked = _check_rows(rows)
    header, body = checked[0], checked[1:]
    parts = ['<table class="clusterlab-table">']
    if caption:
        parts.append(f"<caption>{html.escape(caption)}</caption>")
    parts.append("<thead><tr>" + "".join(f"<th>{html.escape(c)}</th>" for c in header) + "</tr></thead>")
    parts.append("<tbody>")
    for row in body:
        parts.append("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>")
    parts.append("</tbody></table>")
    return "\n".join(parts)


@dataclass(frozen=True)
class Table:
    """Rows of strings (``rows[0]`` is the header) that display themselves in a notebook."""

    rows: tuple[tuple[str, ...], ...]
    caption: str = ""

    def __init__(self, rows: Iterable[Sequence[str]], caption: str = "") -> None:
        checked = _check_rows(list(rows))
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


# --------------------------------------------------------------------------------------------------------
# ring schedule
# --------------------------------------------------------------------------------------------------------
def ring_schedule_table(trace: RingTrace) -> list[list[str]]:
    """The ring schedule of ``trace``: one row per step.

    Columns: ``步`` (1 … 2(N−1)), ``阶段``, ``s`` (step within the phase, 0 … N−2, the ``s`` of the rules
    ``(r − s) mod N`` and ``(r + 1 − s) mod N``), then one column per rank ``r`` giving the chunk it sends
    to ``r + 1 (mod N)``, written ``块 c``.
    """
    n = trace.ranks
    header = ["步", "阶段", "s"] + [f"秩 {r}→{(r + 1) % n}" for r in range(n)]
    rows = [header]
    for st in trace.steps:
        chunk_of = {snd.src: snd.chunk for snd in st.sends}
        rows.append(
            [str(st.index + 1), _PHASE_NAMES[st.phase], str(st.phase_step)]
            + [f"块 {chunk_of[r]}" for r in range(n)]
        )
    return rows


def contribution_table(trace: RingTrace, step: int) -> list[list[str]]:
    """After ``step`` steps: how many ranks' inputs each rank's copy of each chunk contains.

    One row per rank, one column per chunk; a cell reads ``k/N``, with a ``✔`` when the copy is the
    complete sum (all ``N`` inputs). Built from :meth:`RingTrace.contributions_after`.
    """
    contrib = trace.contributions_after(step)  # validates step
    n = trace.ranks
    header = ["秩"] + [f"块 {c}" for c in range(n)]
    rows = [header]
    counts = contrib.sum(axis=2)
    for r in range(n):
        cells = []
        for c in range(n):
            k = int(counts[r, c])
            cells.append(f"{k}/{n} ✔" if k == n else f"{k}/{n}")
        rows.append([f"秩 {r}", *cells])
    return rows


# --------------------------------------------------------------------------------------------------------
# α-β comparisons
# --------------------------------------------------------------------------------------------------------
def _checked_ranks(ranks: Iterable[int]) -> list[int]:
    out = [check_ranks(n) for n in ranks]
    if not out:
        raise ValueError("ranks must hold at least one rank count (an integer >= 2)")
    return out


def algorithm_comparison_table(
    size: float, ranks: Iterable[int], latency: float, bandwidth: float
) -> list[list[str]]:
    """Naive (through rank 0) vs ring all-reduce of ``size`` bytes for each rank count in ``ranks``.

    Columns: N; bytes rank 0 receives in the naive scheme, ``S(N−1)`` (GB); naive α-β time
    ``2α + 2S(N−1)/β``; bytes each rank sends in the ring, ``2S(N−1)/N`` (GB); ring α-β time
    ``2(N−1)α + 2S(N−1)/(Nβ)``; the ratio naive/ring. ``latency`` α in s, ``bandwidth`` β in B/s per
    direction (formulas: :mod:`clusterlab.collectives`).
    """
    s = check_nonnegative("size", size)
    alpha = check_nonnegative("latency", latency)
    beta = check_positive("bandwidth", bandwidth)
    header = ["N", "朴素：0 号卡接收 (GB)", "朴素：α-β 时间", "环：每卡发送 (GB)", "环：α-β 时间", "朴素/环"]
    rows = [header]
    for n in _checked_ranks(ranks):
        naive = collectives.traffic("all_reduce", s, n, algorithm="naive")
        t_naive = collectives.alpha_beta_time("all_reduce", s, n, alpha, beta, algorithm="naive")
        t_ring = collectives.alpha_beta_time("all_reduce", s, n, alpha, beta)
        ratio = t_naive / t_ring if t_ring > 0 else float("nan")
        rows.append(
            [
                str(n),
                fmt_num(bytes_to(naive.recv_max, "GB"), 4),
                fmt_seconds(t_naive),
                fmt_num(bytes_to(collectives.send_volume("all_reduce", s, n), "GB"), 4),
                fmt_seconds(t_ring),
                f"{fmt_num(ratio, 3)}×",
            ]
        )
    return rows


def ring_scaling_table(
    size: float, ranks: Iterable[int], latency: float, bandwidth: float
) -> list[list[str]]:
    """Ring all-reduce of ``size`` bytes for each rank count in ``ranks``.

    Columns: N; steps ``2(N−1)``; per-rank send volume ``2S(N−1)/N`` (GB); the factor ``2(N−1)/N``;
    latency term ``2(N−1)α``; bandwidth term ``2S(N−1)/(Nβ)``; total α-β time. All three come from
    :func:`clusterlab.collectives.alpha_beta_time`: the latency term with ``size = 0``, the bandwidth
    term with ``latency = 0``.
    """
    s = check_nonnegative("size", size)
    alpha = check_nonnegative("latency", latency)
    beta = check_positive("bandwidth", bandwidth)
    header = ["N", "步数 2(N−1)", "每卡发送 (GB)", "2(N−1)/N", "延迟项", "带宽项", "总时间"]
    rows = [header]
    for n in _checked_ranks(ranks):
        lat = collectives.alpha_beta_time("all_reduce", 0.0, n, alpha, beta)
        bw = collectives.alpha_beta_time("all_reduce", s, n, 0.0, beta)
        total = collectives.alpha_beta_time("all_reduce", s, n, alpha, beta)
        rows.append(
            [
                str(n),
                str(collectives.steps("all_reduce", n)),
                fmt_num(bytes_to(collectives.send_volume("all_reduce", s, n), "GB"), 4),
                fmt_num(collectives.busbw_factor("all_reduce", n), 4),
                fmt_seconds(lat),
                fmt_seconds(bw),
                fmt_seconds(total),
            ]
        )
    return rows
