"""Sheet entries of the whole-step ledger: 集群篇 §7 and the appendix 「模型与现实」 (group ``ledger``).

:func:`clusterlab.cluster.ledger.ledger` takes a model, a cluster and communication lines. The entries that state a
line of the ledger in terms of the compute time ``T_c`` (or the ideal time ``T_0``) build a ledger of one GPU of
1 FLOP/s and one token per step whose FLOPs per token are ``T_0``: its ideal time is ``T_0`` exactly, and every
other line follows from the ledger's own definitions.
"""

from __future__ import annotations

import dataclasses
from typing import Final

from ... import specs
from ...cluster import ledger, pipeline
from ._base import CHUNKS, COMPUTE, GPUS, PEAK, STAGES, Formula, Symbol

_TOKENS = Symbol("tokens", r"D_\text{步}", "整个集群每步的 token 数", "token", 1.0, 1e9)
_ETA = Symbol("efficiency", r"\eta", "核函数效率", "—", 0.01, 1.0)
_COMM = Symbol("comm", "C", "通信在链路上的时间", "s", 0.0, 100.0)
_RHO = Symbol("overlap", r"\rho", "可与计算重叠的比例", "—", 0.0, 1.0)
_MICROS = Symbol("micro_batches", "m", "每步 micro-batch 数", "—", 1, 512, True)
_STALL = Symbol("stall", "W", "每步等数据的时间", "s", 0.0, 10.0)
_WHERE = "{prf:ref}`def-c07-ledger`"


def _book(ideal: float, efficiency: float = 1.0, lines: tuple[ledger.CommLine, ...] = (), *, overlap: float = 0.0,
          bubble: pipeline.Bubble | None = None, stall: float = 0.0, tokens: float = 1.0) -> ledger.Ledger:
    """A ledger whose ideal compute time is ``ideal`` seconds (one GPU of 1 FLOP/s, ``tokens`` per step)."""
    return ledger.ledger(1.0, tokens, 1, 1.0, efficiency=efficiency, comm=lines, overlap=overlap, bubble=bubble,
                         stall=stall, flops_per_token=ideal / tokens)


def _one_line(comm: float, overlap: float) -> tuple[ledger.CommLine, ...]:
    """One line of ``comm`` seconds (``comm`` bytes on a 1 B/s link) hidden by the ledger's overlap ``ρ``."""
    return (ledger.comm_line("C", comm, 1.0, overlap=overlap),)


def _exposed(compute_time: float, send_1: float, bandwidth_1: float, overlap_1: float, send_2: float,
             bandwidth_2: float, overlap_2: float) -> float:
    lines = (ledger.comm_line("1", send_1, bandwidth_1, overlap=overlap_1),
             ledger.comm_line("2", send_2, bandwidth_2, overlap=overlap_2))
    return _book(compute_time, lines=lines).exposed


def _megatron_flops(layers: int, hidden: int, seq_len: int, vocab: int) -> float:
    shape = dataclasses.replace(specs.MODELS["GPT-3 175B"], layers=layers, hidden=hidden, heads=1, kv_heads=1,
                                vocab=vocab, seq_len=seq_len)
    return specs.model_flops_per_token(shape, "megatron2021")


FORMULAS: Final[tuple[Formula, ...]] = (
    Formula(
        "ledger-compute", "ledger", "账本的计算时间：理想时间除以核函数效率",
        r"T_c = \frac{T_0}{\eta},\quad T_0 = \frac{F}{G P},\quad F = c\,D_\text{步}", "秒 s",
        (Symbol("flops_per_token", "c", "每 token 的模型 FLOPs（默认 $6\\Psi$）", "FLOP", 1e6, 1e13), _TOKENS,
         GPUS, PEAK, _ETA),
        "clusterlab.cluster.ledger.Ledger.compute",
        lambda flops_per_token, tokens, gpus, peak_flops, efficiency: ledger.ledger(
            flops_per_token / 6, tokens, gpus, peak_flops, efficiency=efficiency,
            flops_per_token=flops_per_token).compute,
        "{prf:ref}`def-c07-ledger`，{ref}`§4 <sec-c04-compute>`",
    ),
    Formula(
        "ledger-exposed", "ledger", "暴露的通信：藏住的部分不超过计算时间（此处两条通信线）",
        r"E = C - \min\Big(\sum_i \rho_i C_i,\ T_c\Big),\quad C = \sum_i C_i,\ C_i = \frac{V_i}{\beta_i}", "秒 s",
        (COMPUTE,
         Symbol("send_1", "V_1", "第 1 个并行轴每个 rank 每步发送", "B", 0.0, 1e12),
         Symbol("bandwidth_1", r"\beta_1", "它走的链路的单方向带宽", "B/s", 1e9, 1e12),
         Symbol("overlap_1", r"\rho_1", "它可与计算重叠的比例", "—", 0.0, 1.0),
         Symbol("send_2", "V_2", "第 2 个并行轴每个 rank 每步发送", "B", 0.0, 1e12),
         Symbol("bandwidth_2", r"\beta_2", "它走的链路的单方向带宽", "B/s", 1e9, 1e12),
         Symbol("overlap_2", r"\rho_2", "它可与计算重叠的比例", "—", 0.0, 1.0)),
        "clusterlab.cluster.ledger.Ledger.exposed",
        _exposed, _WHERE,
    ),
    Formula(
        "ledger-bubble", "ledger", "流水线空泡的时间（$p$ 段、$m$ 个 micro-batch、每段 $v$ 块）",
        r"B = T_c\,\frac{p-1}{v\,m}", "秒 s",
        (COMPUTE, STAGES, _MICROS, CHUNKS), "clusterlab.cluster.ledger.Ledger.bubble",
        lambda compute_time, stages, micro_batches, chunks: _book(
            compute_time, bubble=pipeline.bubble(stages, micro_batches, chunks=chunks)).bubble,
        _WHERE,
    ),
    Formula(
        "ledger-step", "ledger", "一步 = 计算 + 暴露的通信 + 空泡 + 等数据",
        r"T_\text{步} = T_c + E + B + W = T_0 + (T_c - T_0) + E + B + W", "秒 s",
        (COMPUTE, _COMM, _RHO, STAGES, _MICROS, CHUNKS, _STALL), "clusterlab.cluster.ledger.Ledger.step",
        lambda compute_time, comm, overlap, stages, micro_batches, chunks, stall: _book(
            compute_time, lines=_one_line(comm, overlap), bubble=pipeline.bubble(stages, micro_batches, chunks=chunks),
            stall=stall).step,
        _WHERE,
        note="$E$ 按 {eq}`eq-c08-ledger-exposed`（此处一条通信线），$B$ 按 {eq}`eq-c08-ledger-bubble`；"
        "$T_c - T_0$ 是核函数效率的损失",
    ),
    Formula(
        "ledger-mfu", "ledger", "MFU（PaLM 的定义），只在整步上算一次",
        r"\text{MFU} = \frac{F/G}{P\,T_\text{步}} = \frac{T_0}{T_\text{步}}", "比例",
        (Symbol("ideal", "T_0", "理想计算时间（按峰值）", "s", 1e-3, 100.0), _ETA, _COMM, _RHO, STAGES, _MICROS,
         CHUNKS, _STALL),
        "clusterlab.cluster.ledger.Ledger.mfu",
        lambda ideal, efficiency, comm, overlap, stages, micro_batches, chunks, stall: _book(
            ideal, efficiency, _one_line(comm, overlap), bubble=pipeline.bubble(stages, micro_batches, chunks=chunks),
            stall=stall).mfu,
        "{prf:ref}`def-c07-ledger`，{ref}`§4 <sec-c04-compute>`",
        note="$T_\\text{步}$ 按 {eq}`eq-c08-ledger-step`，$T_c = T_0/\\eta$；没有空泡与等待时即"
        " {ref}`§4 <sec-c04-compute>` 的 $\\eta\\,T_c/T_\\text{步}$，所以 $\\text{MFU} \\le \\eta$",
    ),
    Formula(
        "ledger-days", "ledger", "训练完 $Z$ 个 token 要几天",
        r"\text{天数} = \frac{Z}{D_\text{步}/T_\text{步}} \Big/ 86\,400\ \text{s}", "天",
        (Symbol("budget", "Z", "token 预算", "token", 1e6, 1e14), _TOKENS,
         Symbol("step", r"T_\text{步}", "一步的时间", "s", 1e-3, 100.0)),
        "clusterlab.cluster.ledger.Ledger.days",
        lambda budget, tokens, step: _book(step, tokens=tokens).days(budget),
        _WHERE,
        note="$D_\\text{步}/T_\\text{步}$ 是每秒的 token 数（`Ledger.tokens_per_second`）",
    ),
    Formula(
        "flops-megatron2021", "ledger", "Megatron-LM 2021 的每 token FLOPs 口径（GPT 形状、全部重算：硬件 FLOPs）",
        r"F_\text{tok} = 96\,L h^2\left(1 + \frac{s}{6h} + \frac{V}{16Lh}\right)", "FLOP",
        (Symbol("layers", "L", "模型的总层数", "—", 1, 256, True),
         Symbol("hidden", "h", "隐藏维", "—", 64, 32768, True),
         Symbol("seq_len", "s", "序列长度", "token", 1, 131072, True),
         Symbol("vocab", "V", "词表大小", "—", 1000, 300_000, True)),
        "clusterlab.specs.model_flops_per_token",
        _megatron_flops, "{prf:ref}`def-mr-step`",
        note="与 PaLM 的 {eq}`eq-c08-flops-token` 是两种口径：读论文的 TFLOP/s 或 MFU 时要用论文自己的",
    ),
)
