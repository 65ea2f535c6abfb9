"""Rows for the page 「模型与现实」: every published run against the planner, and the sources behind them.

Built from :func:`clusterlab.cluster.planning.reality.compare` and the catalogue (:data:`clusterlab.specs.RUNS`);
wording in Chinese, numbers formatted here and nowhere else.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from .. import specs
from ..cluster.planning.reality import Check

__all__ = ["CONVENTION_NAMES", "OPTION_NAMES", "measurement", "run_rows", "source_rows"]

CONVENTION_NAMES = {"6n": "6N", "palm": "PaLM（6N + 12Lhs）", "8n": "8N", "megatron2021": "Megatron 2021（含重算）",
                    "megatron-mfu": "Megatron MFU", "paper-other": "论文自定", "none": "—"}
OPTION_NAMES = {"micro_batch": "micro-batch", "virtual_stages": "交错深度", "recompute": "重算",
                "zero_stage": "ZeRO 阶段"}


def measurement(run: specs.PublishedRun) -> str:
    """What the paper printed, in its own terms."""
    m = run.measured
    if m.kind == "step_time":
        return f"{m.value:.1f} s/步"
    if m.kind == "tokens_per_second":
        return f"{m.value / run.gpus:,.0f} token/s/卡"
    if m.kind == "flops_per_gpu":
        return f"{m.value / 1e12:.0f} TFLOP/s/卡，{CONVENTION_NAMES[m.convention]}"
    return f"MFU {100 * m.value:.1f} %，{CONVENTION_NAMES[m.convention]}"


def _mark(run: specs.PublishedRun) -> str:
    return "" if run.source.verified and run.measured.source.verified else "（需核实）"


def run_rows(checks: Iterable[Check]) -> list[list[str]]:
    """One row per run: run, accelerator, GPUs, layout, the paper's measurement, the step time it implies, the
    planner's step time, the error, and the range over the options the paper leaves open."""
    rows = [["训练", "硬件", "GPU", "切法", "论文的测量", "折算步时", "预测", "误差", "未公开选项的范围"]]
    for c in checks:
        run = specs.RUNS[c.name]
        span = (f"{c.low:.1f}–{c.high:.1f} s（{'、'.join(OPTION_NAMES[u] for u in c.unknown)}）"
                if c.unknown and c.high > c.low * 1.0005 else "—")
        rows.append([c.name + _mark(run), c.hardware, f"{c.gpus:,}", c.layout.replace("CP1 ", ""),
                     measurement(run), f"{c.measured:.2f} s", f"{c.predicted:.2f} s", f"{100 * c.error:+.0f} %", span])
    return rows


def source_rows(checks: Sequence[Check]) -> list[list[str]]:
    """One row per source of the runs compared: the reference, how many runs use it, whether it is confirmed."""
    seen: dict[str, list[specs.PublishedRun]] = {}
    for c in checks:
        run = specs.RUNS[c.name]
        seen.setdefault(run.source.ref, []).append(run)
    rows = [["来源", "训练数", "核实"]]
    for ref, runs in seen.items():
        ok = all(r.source.verified for r in runs)
        rows.append([ref, str(len(runs)), "已核实" if ok else "需核实"])
    return rows
