"""Rows for the page 「模型与现实」: every published run against the planner, and the sources behind them.

Built from :func:`clusterlab.cluster.planning.reality.compare` and the catalogue (:data:`clusterlab.specs.RUNS`);
wording in Chinese, numbers formatted here and nowhere else.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from .. import specs
from ..cluster.planning.reality import Check

__all__ = ["CONVENTION_NAMES", "OPTION_NAMES", "measurement", "run_rows", "short_name", "source_rows"]

CONVENTION_NAMES = {"6n": "6N", "palm": "PaLM 口径", "8n": "8N", "megatron2021": "含重算",
                    "megatron-mfu": "Megatron 口径", "paper-other": "论文自定", "none": "—"}
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
        return f"{m.value / 1e12:.0f} TFLOP/s/卡（{CONVENTION_NAMES[m.convention]}）"
    return f"MFU {100 * m.value:.1f} %（{CONVENTION_NAMES[m.convention]}）"


def _mark(run: specs.PublishedRun) -> str:
    return "" if run.source.verified and run.measured.source.verified else "（需核实）"


def short_name(name: str) -> str:
    """A run's name for narrow tables, e.g. ``"Llama 3 405B：16384 卡, 序列 8192"``."""
    head, rest = _split_name(name)
    return f"{head}：{rest}".replace("sequence ", "序列 ")


def _split_name(name: str) -> tuple[str, str]:
    """``"Megatron-LM 2021, GPT 1.7B, 32 GPUs"`` → ``("Megatron-LM 2021", "GPT 1.7B, 32 卡")``."""
    head, _, rest = name.partition(", ")
    return head, rest.replace(" GPUs", " 卡").replace(" H800", " 卡").replace(" TPU v4", " 芯片") or head


def run_rows(checks: Iterable[Check]) -> list[list[str]]:
    """One row per run: the run (paper, model, GPUs and accelerator), layout, global batch × sequence, the paper's
    measurement, the step time it implies, the planner's step time, the error (the range over unpublished options
    is in the figure) and MFU on one scale (PaLM's definition, bf16 dense peak) measured and predicted."""
    rows = [["训练", "切法，批×序列", "论文的测量", "步时：折算 / 预测", "误差", "MFU：实测 / 预测"]]
    for c in checks:
        run = specs.RUNS[c.name]
        head, rest = _split_name(c.name)
        rows.append([f"{head}：{rest}，{c.hardware.split()[0]}{_mark(run)}",
                     f"{c.layout.replace('CP1 ', '')}，{run.global_batch:,}×{run.seq_len:,}", measurement(run),
                     f"{c.measured:.2f} / {c.predicted:.2f} s", f"{100 * c.error:+.0f} %",
                     f"{100 * c.measured_mfu:.0f} / {100 * c.predicted_mfu:.0f} %"])
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
