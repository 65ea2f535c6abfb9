"""Small, pure table builders for the book: rows of strings, rendered as Markdown or HTML.

A table is a list of rows, the first row being the header (``list[list[str]]``). The builders here turn
results of the compute modules into such rows; :func:`to_markdown` and :func:`to_html` render them, and
:class:`Table` wraps them so that a notebook cell whose last expression is a ``Table`` displays it
(``_repr_html_`` for the rendered book, a Markdown ``repr`` as the plain-text fallback).

Builders
--------
:func:`ring_schedule_table`
    one row per ring step: phase, step within the phase ``s``, and the chunk every rank``r`` sends to
    ``r+1`` (from :attr:`clusterlab.communication.ring.RingTrace.steps`).
:func:`contribution_table`
    after a given step: how many ranks' inputs each rank's copy of each chunk contains
    (from :meth:`clusterlab.communication.ring.RingTrace.contributions_after`).
:func:`algorithm_comparison_table`
    naive (through rank 0) vs ring all-reduce for several rank counts: bytes on the busiest link and
    α-β time (from :mod:`clusterlab.communication.collectives`).
:func:`ring_scaling_table`
    ring all-reduce for several rank counts: per-rank send volume, ``2(N−1)/N``, latency term
    ``2(N−1)α``, bandwidth term ``2S(N−1)/(Nβ)`` and their sum.
:func:`primitive_table`, :func:`magnitude_table`
    §9.6.1: the seven primitives with their volumes, and the per-step traffic of DDP / ZeRO / FSDP on given links.
:func:`algorithm_rows`, :func:`busbw_factor_rows`
    §2.2: one all-reduce under each algorithm (steps, bytes, latency and bandwidth terms), nccl-tests factors.
:func:`terms_rows`, :func:`comparison_rows`
    §2.1: the terms of the chunked ring's ``T(c)``, and closed form vs discrete-event simulation.

Names of ops, algorithms and phases come from :mod:`clusterlab.book.labels`. Sizes are printed in GB (1e9 B) and times
with :func:`clusterlab.units.fmt_seconds`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence

from ..cluster import training
from ..communication import collectives
from ..communication.chunking import ChunkComparison, PipelineTerms
from ..communication.cost import Cost
from ..communication.ring import RingTrace
from ..lab.variants import SettingSummary
from ..units import bytes_to, fmt_bytes, fmt_num, fmt_seconds
from ..validate import int_in_range, non_negative, positive
from . import labels
from .table import Table, to_html, to_markdown

__all__ = [
    "BUSBW_OPS",
    "Table",
    "algorithm_comparison_table",
    "algorithm_rows",
    "busbw_factor_rows",
    "comparison_rows",
    "contribution_table",
    "machine_settings_rows",
    "magnitude_table",
    "primitive_formula",
    "primitive_table",
    "ring_scaling_table",
    "ring_schedule_table",
    "terms_rows",
    "to_html",
    "to_markdown",
]

# --------------------------------------------------------------------------------------------------------
# ring schedule
# --------------------------------------------------------------------------------------------------------
def ring_schedule_table(trace: RingTrace) -> list[list[str]]:
    """The ring schedule of ``trace``: one row per step.

    Columns: ``步`` (1 … 2(N−1)), ``阶段``, ``s`` (step within the phase, 0 … N−2, the ``s`` of the rules
    ``(r − s) mod N`` and ``(r + 1 − s) mod N``), then one column per rank``r`` giving the chunk it sends
    to ``r + 1 (mod N)``, written ``块 c``.
    """
    n = trace.ranks
    header = ["步", "阶段", "s"] + [f"rank {r}→{(r + 1) % n}" for r in range(n)]
    rows = [header]
    for st in trace.steps:
        chunk_of = {snd.src: snd.chunk for snd in st.sends}
        rows.append(
            [str(st.index + 1), labels.RING_PHASE_NAMES[st.phase], str(st.phase_step)]
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
    header = ["rank"] + [f"块 {c}" for c in range(n)]
    rows = [header]
    counts = contrib.sum(axis=2)
    for r in range(n):
        cells = []
        for c in range(n):
            k = int(counts[r, c])
            cells.append(f"{k}/{n} ✔" if k == n else f"{k}/{n}")
        rows.append([f"rank {r}", *cells])
    return rows


# --------------------------------------------------------------------------------------------------------
# α-β comparisons
# --------------------------------------------------------------------------------------------------------
def _checked_ranks(ranks: Iterable[int]) -> list[int]:
    out = [int_in_range("ranks", n, 2) for n in ranks]
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
    direction (formulas: :mod:`clusterlab.communication.collectives`).
    """
    s = non_negative("size", size)
    alpha = non_negative("latency", latency)
    beta = positive("bandwidth", bandwidth)
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
    latency term ``2(N−1)α``; bandwidth term ``2S(N−1)/(Nβ)``; total α-β time. All three are the parts of
    one :func:`clusterlab.communication.collectives.cost`.
    """
    s = non_negative("size", size)
    alpha = non_negative("latency", latency)
    beta = positive("bandwidth", bandwidth)
    header = ["N", "步数 2(N−1)", "每卡发送 (GB)", "2(N−1)/N", "延迟项", "带宽项", "总时间"]
    rows = [header]
    for n in _checked_ranks(ranks):
        c = collectives.cost("all_reduce", s, n, alpha, beta)
        lat, bw, total = c.latency, c.bandwidth, c.time
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


# --------------------------------------------------------------------------------------------------------
# §9.6.1 collective primitives and the magnitude of training traffic
# --------------------------------------------------------------------------------------------------------
#: op → (what the ranks hold at the end, use in training); short: the table cells do not wrap
_PRIMITIVES: dict[str, tuple[str, str]] = {
    "broadcast": ("人人得到根的 S", "初始参数从 rank 0 发出"),
    "reduce": ("根得到 N 份之和", "损失、指标汇到一个 rank"),
    "all_reduce": ("人人得到 N 份之和", "DDP 梯度同步；张量并行"),
    "reduce_scatter": ("rank r 得到和的第 r 块", "ZeRO、FSDP 的梯度归约"),
    "all_gather": ("人人得到 N 块拼成的 S", "ZeRO、FSDP 收集参数"),
    "all_to_all": ("rank r 收齐各 rank 的第 r 段", "MoE 分发 token；Ulysses"),
    "send_recv": ("另一个 rank 得到 S", "流水线段间传激活"),
}

#: closed forms the busiest rank's send volume (in units of S) and the step count are matched against
_VOLUME_FORMS: tuple[tuple[str, Callable[[int], float]], ...] = (
    ("S", lambda n: 1.0),
    ("2S(N−1)/N", lambda n: 2 * (n - 1) / n),
    ("S(N−1)/N", lambda n: (n - 1) / n),
    ("S(N−1)", lambda n: float(n - 1)),
    ("2S", lambda n: 2.0),
)
_STEP_FORMS: tuple[tuple[str, Callable[[int], float]], ...] = (
    ("1", lambda n: 1),
    ("N−1", lambda n: n - 1),
    ("2(N−1)", lambda n: 2 * (n - 1)),
)
_PROBE_RANKS = range(2, 17)


def _closed_form(values: dict[int, float], forms: tuple[tuple[str, Callable[[int], float]], ...], what: str) -> str:
    """The first closed form ``f(N)`` that equals ``values[N]`` for every probed ``N``."""
    for text, f in forms:
        if all(math.isclose(v, f(n), rel_tol=1e-12, abs_tol=1e-12) for n, v in values.items()):
            return text
    raise ValueError(f"no closed form in the table matches the {what}: {values}")


def primitive_formula(op: str) -> tuple[str, str]:
    """``(send volume, steps)`` of ``op`` under the ring/chain algorithm as closed forms in ``S`` and ``N``.

    Read off :mod:`clusterlab.communication.collectives`: :func:`~clusterlab.communication.collectives.send_volume`
    with ``S = 1`` and
    :func:`~clusterlab.communication.collectives.steps` are evaluated for ``N = 2 … 16`` and matched against a short
    list of
    candidate formulas (``S``, ``2S(N−1)/N``, ``S(N−1)/N``, …); a ``ValueError`` means the model changed.
    """
    if op not in _PRIMITIVES:
        raise ValueError(f"op must be one of {', '.join(_PRIMITIVES)}; got {op!r}")
    vol = {n: collectives.send_volume(op, 1.0, n) for n in _PROBE_RANKS}
    stp = {n: float(collectives.steps(op, n)) for n in _PROBE_RANKS}
    return _closed_form(vol, _VOLUME_FORMS, f"send volume of {op}"), _closed_form(stp, _STEP_FORMS, f"steps of {op}")


def primitive_table(size: float | None = None, ranks: int = 8) -> list[list[str]]:
    """Definition 9.6.1: the seven primitives, one row each, in the order of
    :data:`clusterlab.communication.collectives.OPS`.

    Columns: name; what the ranks hold at the end; bytes the busiest rank sends under the standard algorithm,
    as a closed form (:func:`primitive_formula`); sequential steps; with ``size`` given, that volume for ``size``
    bytes on ``ranks``ranks; use in training. ``S`` is one rank's full buffer (see
    :mod:`clusterlab.communication.collectives`).
    """
    n = int_in_range("ranks", ranks, 2)
    s = None if size is None else non_negative("size", size)
    header = ["原语", "结束时", "最忙的 rank 发送", "步数"]
    if s is not None:
        header.append(f"N = {n}、S = {_fmt_size(s)}")
    header.append("训练中用在哪")
    rows = [header]
    for op in collectives.OPS:
        semantics, use = _PRIMITIVES[op]
        name = labels.OPS[op].zh
        vol, stp = primitive_formula(op)
        row = [name, semantics, vol, stp]
        if s is not None:
            row.append(_fmt_size(collectives.send_volume(op, s, n)))
        row.append(use)
        rows.append(row)
    return rows


def _fmt_size(b: float) -> str:
    return fmt_bytes(b, "GB", 4) if b >= 1e9 else fmt_bytes(b, "MB", 4)


def magnitude_table(
    params: float,
    ranks: int,
    layer: float,
    links: Sequence[tuple[str, float]],
    *,
    param_bytes: float = 2,
    latency: float = 0.0,
) -> list[list[str]]:
    """Example 9.6.1's summary: per-rank bytes and time of each data-parallel collective on each link.

    Rows (from :func:`clusterlab.cluster.training.step_traffic` for ``params`` Ψ on ``ranks`` N, ``param_bytes`` per
    element): DDP all-reduce; ZeRO-1/2 reduce-scatter of gradients, all-gather of parameters and their sum;
    ZeRO-3 / FSDP per step (two all-gathers and a reduce-scatter); one FSDP all-gather of a ``layer``-parameter
    layer. ``links``: ``(label, β in B/s per direction)``; times are ring α-β times with α = ``latency``
    (0: bandwidth term only).
    """
    n = int_in_range("ranks", ranks, 2)
    n_layer = positive("layer", layer)
    b = positive("param_bytes", param_bytes)
    alpha = non_negative("latency", latency)
    link_list = [(str(label), positive("links bandwidth", beta)) for label, beta in links]
    if not link_list:
        raise ValueError("links must hold at least one (label, bandwidth) pair")
    ddp = training.step_traffic("ddp", params, n, param_bytes=b)
    zero2 = training.step_traffic("zero2", params, n, param_bytes=b)
    zero3 = training.step_traffic("zero3", params, n, param_bytes=b)
    layer_ag = training.Call("all_gather", "parameters", "forward", n_layer * b, n)
    entries: list[tuple[str, str, float, list[training.Call]]] = [
        ("DDP 梯度", "全归约", ddp.send, list(ddp.calls)),
        ("ZeRO-1/2 梯度", "归约-散播", zero2.calls[0].send, [zero2.calls[0]]),
        ("ZeRO-1/2 参数", "全收集", zero2.calls[1].send, [zero2.calls[1]]),
        ("ZeRO-1/2 合计", "归约-散播 + 全收集", zero2.send, list(zero2.calls)),
        ("ZeRO-3/FSDP 合计", "全收集 ×2 + 归约-散播", zero3.send, list(zero3.calls)),
        ("FSDP 一层参数", "全收集", layer_ag.send, [layer_ag]),
    ]
    header = ["场景", "原语", "每个 rank 发送"] + [label for label, _ in link_list]
    rows = [header]
    for scene, prim, vol, calls in entries:
        times = [fmt_seconds(sum(c.cost(alpha, beta).time for c in calls)) for _, beta in link_list]
        rows.append([scene, prim, _fmt_size(vol), *times])
    return rows


# --------------------------------------------------------------------------------------------------------
# §2.2 algorithm costs and bus-bandwidth factors
# --------------------------------------------------------------------------------------------------------
def algorithm_rows(
    size: float,
    ranks: int,
    latency: float,
    bandwidth: float,
    algorithms: Sequence[str] = ("ring", "tree", "halving_doubling"),
    *,
    ranks_per_node: int | None = None,
    intra_latency: float | None = None,
    intra_bandwidth: float | None = None,
) -> list[list[str]]:
    """One all-reduce, one row per algorithm: steps, bytes each rank sends, latency term, bandwidth term, total.

    The latency term is the α-β time with ``size = 0``, the bandwidth term the time with every latency 0, the
    total the full time (all from :func:`clusterlab.communication.collectives.alpha_beta_time`); the fastest row is
    marked
    ``★``. ``hierarchical`` needs ``ranks_per_node`` and uses ``intra_latency``/``intra_bandwidth`` for the
    intra-node phases; its bytes column adds the intra-node and the NIC bytes.
    """
    s = non_negative("size", size)
    algs = list(algorithms)
    if not algs:
        raise ValueError("algorithms must name at least one algorithm")
    rows = [["算法", "步数", "每个 rank 发送 (GB)", "延迟项", "带宽项", "总时间"]]
    times: list[float] = []
    body: list[list[str]] = []
    for a in algs:
        c = _all_reduce_cost(a, s, ranks, latency, bandwidth, ranks_per_node, intra_latency, intra_bandwidth)
        lat, bw, total = c.latency, c.bandwidth, c.time
        g = ranks_per_node if a == "hierarchical" else None
        t = collectives.traffic("all_reduce", s, ranks, a, ranks_per_node=g)
        times.append(total)
        body.append([labels.algorithm_name(a, "table"), str(t.steps), fmt_num(bytes_to(t.send_max, "GB"), 4),
                     fmt_seconds(lat), fmt_seconds(bw), fmt_seconds(total)])
    best = min(range(len(times)), key=lambda i: times[i])
    body[best][0] += " ★"
    return rows + body


def _all_reduce_cost(
    algorithm: str,
    size: float,
    ranks: int,
    latency: float,
    bandwidth: float,
    ranks_per_node: int | None,
    intra_latency: float | None,
    intra_bandwidth: float | None,
) -> Cost:
    if algorithm == "hierarchical":
        return collectives.cost(
            "all_reduce", size, ranks, latency, bandwidth, algorithm, ranks_per_node=ranks_per_node,
            intra_latency=intra_latency, intra_bandwidth=intra_bandwidth,
        )
    return collectives.cost("all_reduce", size, ranks, latency, bandwidth, algorithm)


#: ops in the order of nccl-tests ``doc/PERFORMANCE.md``
BUSBW_OPS: tuple[str, ...] = ("all_reduce", "reduce_scatter", "all_gather", "all_to_all", "broadcast", "reduce")


def busbw_factor_rows(ranks_list: Iterable[int], ops: Sequence[str] = BUSBW_OPS) -> list[list[str]]:
    """nccl-tests bus-bandwidth factors: one row per op, one column per rank count (plus the formula)."""
    ns = [int_in_range("ranks", n, 2) for n in ranks_list]
    if not ns:
        raise ValueError("ranks_list must hold at least one rank count (an integer >= 2)")
    formulas = labels.BUSBW_FORMULA
    rows = [["原语", "因子", *[f"N = {n}" for n in ns]]]
    for op in ops:
        if op not in formulas:
            raise ValueError(f"ops must be chosen from {', '.join(formulas)}; got {op!r}")
        factors = [fmt_num(collectives.busbw_factor(op, n), 4) for n in ns]
        rows.append([labels.op_name(op, "api"), formulas[op], *factors])
    return rows


# --------------------------------------------------------------------------------------------------------
# §2.1 chunked ring: terms of T(c), closed form vs simulation
# --------------------------------------------------------------------------------------------------------
def terms_rows(terms: Iterable[PipelineTerms], *, unit: str = "MB") -> list[list[str]]:
    """Rows of strings (header first) for :class:`clusterlab.book.tables.Table`: c, chunk size, slots K,
    latency part, bandwidth part, total."""
    out = [["块数 c", f"每块（{unit}）", "τ 槽数 K", "延迟部分 Kα", "带宽部分 K·b/β", "合计 T(c)"]]
    for t in terms:
        out.append(
            [
                str(t.chunks),
                fmt_num(bytes_to(t.chunk_bytes, unit), 4),
                str(t.slots),
                fmt_seconds(t.latency_part, 4),
                fmt_seconds(t.bandwidth_part, 5),
                fmt_seconds(t.time, 5),
            ]
        )
    if len(out) == 1:
        raise ValueError("terms must hold at least one PipelineTerms")
    return out


def comparison_rows(rows: Iterable[ChunkComparison], *, unit: str = "MB") -> list[list[str]]:
    """Rows of strings (header first) for :class:`clusterlab.book.tables.Table`: c, chunk size, closed form,
    simulation, relative difference, stage busy share."""
    out = [["块数 c", f"每块（{unit}）", "闭式 T(c)", "模拟 makespan", "相对差", "每段忙碌占比"]]
    for r in rows:
        out.append(
            [
                str(r.chunks),
                fmt_num(bytes_to(r.chunk_bytes, unit), 4),
                fmt_seconds(r.closed_form, 5),
                fmt_seconds(r.simulated, 5),
                f"{r.relative_difference:.0e}" if r.relative_difference else "0",
                f"{100 * r.busy_fraction:.1f}%",
            ]
        )
    if len(out) == 1:
        raise ValueError("rows must hold at least one comparison")
    return out


def machine_settings_rows(summary: Iterable[SettingSummary], parameters: int) -> list[list[str]]:
    """Rows of §9.6.5.2's table: per start-up setting, OpenBLAS's kernel, numpy's SIMD level for float32 ``tanh``,
    and how many of ``parameters`` differ from the first setting with the BLAS and the fixed-order backend."""
    n = int_in_range("parameters", parameters, 1)
    rows = [["启动设置", "OpenBLAS 内核", "numpy tanh", "BLAS 写法：不同的参数", "最大差", "固定顺序：不同的参数"]]
    for s in summary:
        rows.append([labels.MACHINE_SETTING_NAMES[s.setting], s.openblas_core, s.simd_tanh_f32,
                     f"{s.blas_differing}/{n}", f"{s.blas_max_ulp} ULP", f"{s.fixed_differing}/{n}"])
    return rows

