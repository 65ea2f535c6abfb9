"""The α-β calculator: an ipywidgets panel for live Jupyter use, and its read-out as plain text
(:func:`_calculator_text`), every number from :mod:`clusterlab.communication.collectives`."""

from __future__ import annotations

import html
import math
from collections.abc import Callable, Sequence
from typing import Any

from ..book import labels
from ..communication import collectives
from ..units import fmt_num, fmt_seconds
from ..validate import int_in_range, non_negative, positive
from ._algorithms import _candidates_for, _hier_fits
from ._axes import (
    RANKS_MAX,
    _alg_name,
    _check_algorithm,
    _rate_text,
    _size_text,
)

__all__ = ["alpha_beta_calculator"]


def _calculator_text(
    op: str,
    algorithm: str,
    ranks: int,
    size: float,
    latency: float,
    bandwidth: float,
    *,
    ranks_per_node: int | None = None,
) -> str:
    """The calculator's read-out as plain text (raises ``ValueError`` for inputs the model does not cover).

    α-β time and its split into latency and bandwidth terms
    (the parts of one :func:`clusterlab.communication.collectives.cost`), algbw and busbw, and the fastest algorithm
    among those modelled for ``op``
    (:func:`clusterlab.communication.collectives.best_algorithm`; hierarchical only with ``ranks_per_node``).
    ``ranks_per_node`` is used only by ``algorithm="hierarchical"`` and the comparison.
    """
    op = collectives.check_op(op)
    algorithm = _check_algorithm(algorithm, op, collectives.ALGORITHMS)
    n = int_in_range("ranks", ranks, 2, RANKS_MAX)
    s = positive("size", size)
    alpha = non_negative("latency", latency)
    beta = positive("bandwidth", bandwidth)
    hier: dict[str, Any] = {}
    if ranks_per_node is not None:
        hier["ranks_per_node"] = int_in_range("ranks_per_node", ranks_per_node, 2, RANKS_MAX)
    if algorithm == "hierarchical" and not _hier_fits(n, hier):
        raise ValueError(f"ranks_per_node must split ranks = {n} into at least 2 whole nodes for algorithm "
                         f"'hierarchical', got ranks_per_node={ranks_per_node!r}")
    extra = hier if algorithm == "hierarchical" else {}
    c = collectives.cost(op, s, n, alpha, beta, algorithm, **extra)
    total, lat, band = c.time, c.latency, c.bandwidth
    alg_bw = collectives.algbw(s, total)
    bus_bw = collectives.busbw(op, s, n, total)
    n_star = collectives.crossover_size(alpha, beta)
    here = _candidates_for(op, n, None, hier)
    choice = collectives.best_algorithm(op, s, n, alpha, beta, here, **(hier if "hierarchical" in here else {}))
    regime = "延迟主导 latency-bound" if lat > band else "带宽主导 bandwidth-bound"

    def pct(x: float) -> str:
        return f"{fmt_num(100 * x / total)} %" if total > 0 else "—"

    lines = [
        f"{labels.op_name(op)} · {_alg_name[algorithm]} · N = {n} · S = {_size_text(s)}",
        f"α = {fmt_seconds(alpha)} · β = {_rate_text(beta, '每方向 per direction')}",
        "",
        f"α-β 时间 T = {fmt_seconds(total, 4)}",
        f"  延迟项 latency = {fmt_seconds(lat, 4)}（{pct(lat)}）",
        f"  带宽项 bandwidth = {fmt_seconds(band, 4)}（{pct(band)}）",
        f"  → {regime}；n* = α·β = {_size_text(n_star)}",
        "",
        f"algbw = S/T = {_size_text(alg_bw)}/s",
        f"busbw = algbw × {labels.BUSBW_FORMULA[op]} = {_size_text(bus_bw)}/s（对比 β = {_size_text(beta)}/s）",
        "",
        f"最快的算法 best：{_alg_name[choice.best]}（{fmt_seconds(choice.time(choice.best), 4)}）",
    ]
    t_best = choice.time(choice.best)
    for a, t_a in sorted(choice.times, key=lambda kv: kv[1]):
        gap = "最快" if a == choice.best else f"慢 {fmt_seconds(t_a - t_best)}，{fmt_num(t_a / t_best)}×"
        lines.append(f"  {_alg_name[a]}：{fmt_seconds(t_a, 4)}（{gap}）")
    return "\n".join(lines)


def _calculator_html(
    op: str, algorithm: str, ranks: int, size: float, latency: float, bandwidth: float, ranks_per_node: int | None
) -> str:
    """HTML for the widget: the text of :func:`_calculator_text`, or the reason the model does not apply."""
    try:
        text = _calculator_text(op, algorithm, ranks, size, latency, bandwidth, ranks_per_node=ranks_per_node)
    except ValueError as err:
        text = f"无法计算 / not modelled：{err}"
    return f"<pre style='font-size:13px;line-height:1.45'>{html.escape(text)}</pre>"


def _series(lo_exp: int, hi_exp: int, steps: Sequence[float] = (1.0, 2.0, 5.0)) -> list[float]:
    """``m × 10^e`` for every step ``m`` and exponent, parsed from decimal text so ``5e-06`` stays exact."""
    return [float(f"{m}e{e}") for e in range(lo_exp, hi_exp + 1) for m in steps]


def _options(values: Sequence[float], current: float, fmt: Callable[[float], str]) -> list[tuple[str, float]]:
    """Slider options (label, value): ``values`` plus ``current``, sorted, without two equal labels."""
    vals = sorted({*values, current})
    out: dict[str, float] = {}
    for v in vals:
        label = fmt(v)
        if label not in out or math.isclose(v, current):
            out[label] = v
    return sorted(((k, v) for k, v in out.items()), key=lambda kv: kv[1])


def alpha_beta_calculator(
    *,
    op: str = "all_reduce",
    algorithm: str = "ring",
    ranks: int = 8,
    size: float = 14e9,
    latency: float = 5e-6,
    bandwidth: float = 25e9,
    ranks_per_node: int = 8,
) -> Any:
    """An ipywidgets panel for live Jupyter use: drop-downs for op and algorithm, sliders for N, S, α, β and
    ranks per node (hierarchical); the read-out (:func:`_calculator_text`) shows the α-β time, its latency
    and bandwidth terms, algbw / busbw and the fastest algorithm, and updates on every change.

    Inputs are SI (bytes, s, B/s per direction) and are validated like the charts. Returns an
    ``ipywidgets.VBox`` (children: the controls box and the ``HTML`` read-out). In the static book the
    callbacks do not run.
    """
    op = collectives.check_op(op)
    algorithm = _check_algorithm(algorithm, op, collectives.ALGORITHMS)
    n0 = int_in_range("ranks", ranks, 2, 1 << 16)
    s0 = positive("size", size)
    a0 = positive("latency", latency)
    b0 = positive("bandwidth", bandwidth)
    g0 = int_in_range("ranks_per_node", ranks_per_node, 2, 64)
    import ipywidgets as widgets

    wide = {"description_width": "initial"}
    layout = widgets.Layout(width="430px")
    w_op = widgets.Dropdown(options=[(labels.op_name(o), o) for o in collectives.OPS], value=op,
                            description="操作 op", style=wide, layout=layout)
    w_alg = widgets.Dropdown(options=[(_alg_name[a], a) for a in collectives.ALGORITHMS], value=algorithm,
                             description="算法 algorithm", style=wide, layout=layout)
    rank_values = sorted({1 << k for k in range(1, 17)} | {3 << k for k in range(0, 15)} | {n0})
    w_n = widgets.SelectionSlider(options=[(str(v), v) for v in rank_values], value=n0,
                                  description="rank 数 N", style=wide, layout=layout, continuous_update=False)
    w_s = widgets.SelectionSlider(options=_options(_series(0, 11), s0, _size_text), value=s0,
                                  description="消息大小 S", style=wide, layout=layout, continuous_update=False)
    w_a = widgets.SelectionSlider(options=_options(_series(-8, -2), a0, fmt_seconds), value=a0,
                                  description="延迟 α", style=wide, layout=layout, continuous_update=False)
    rates = _series(8, 12, (1.0, 1.25, 2.0, 2.5, 5.0))
    w_b = widgets.SelectionSlider(options=_options(rates, b0, _rate_text), value=b0,
                                  description="带宽 β（每方向）", style=wide, layout=layout, continuous_update=False)
    w_g = widgets.SelectionSlider(options=[(str(v), v) for v in sorted({2, 4, 8, 16, 32, 64} | {g0})], value=g0,
                                  description="每节点 rank 数（hierarchical）", style=wide, layout=layout,
                                  continuous_update=False)
    out = widgets.HTML()

    def update(_change: object = None) -> None:
        out.value = _calculator_html(w_op.value, w_alg.value, int(w_n.value), float(w_s.value), float(w_a.value),
                                     float(w_b.value), int(w_g.value))

    for w in (w_op, w_alg, w_n, w_s, w_a, w_b, w_g):
        w.observe(update, names="value")
    update()
    return widgets.VBox([widgets.VBox([w_op, w_alg, w_n, w_s, w_a, w_b, w_g]), out])
