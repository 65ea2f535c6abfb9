"""The book's formula sheet, generated from the package so that it cannot drift from the code.

Every :class:`Formula` holds the LaTeX the reader sees, its symbols with units and the range in which the formula
holds, the ``clusterlab`` function that computes it (by dotted name, and a call of it), a plain-Python reference
that transcribes the LaTeX term by term, and the label of the place in the book where it is derived.
``tests/unit/test_formulas.py`` evaluates both at many points of each symbol's range (hypothesis): the sheet is
proved equal to the code. :func:`sheet_markdown` renders one group as a MyST table (math in ``$…$``, a
``{ref}``/``{prf:ref}`` link per row); a notebook glues it and places it with ``{glue:md}`` (``:format: myst``),
so the links are checked by the build.

Units: SI at every function (B, s, B/s, FLOP, FLOP/s); the only exception is the failure rate λ per GPU-hour,
which :func:`clusterlab.faults.reliability.job_mtbf` takes as published.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from ..cluster import compute, dataplane, network, parallel, pipeline, training
from ..communication import algorithms, chunking, collectives, overlap
from ..faults import checkpoint, reliability

__all__ = ["FORMULAS", "GROUPS", "Formula", "Symbol", "by_key", "evaluate", "group", "sheet_markdown"]


@dataclass(frozen=True)
class Symbol:
    """One argument of a formula: ``arg`` (keyword of :attr:`Formula.compute`), its LaTeX, meaning, unit, and the
    closed range ``[low, high]`` it is tested on (``integer``: whole numbers only)."""

    arg: str
    tex: str
    meaning: str
    unit: str
    low: float
    high: float
    integer: bool = False


@dataclass(frozen=True)
class Formula:
    """One row of the sheet. ``compute`` calls ``function``; ``reference`` is the LaTeX in plain Python; both take
    the symbols as keyword arguments. ``valid`` (optional) restricts the joint range (e.g. an even radix).
    ``where``: the MyST link to the derivation; ``result``: what the formula gives, with its unit."""

    key: str
    group: str
    name: str
    latex: str
    result: str
    symbols: tuple[Symbol, ...]
    function: str
    compute: Callable[..., float]
    reference: Callable[..., float]
    where: str
    valid: Callable[..., bool] | None = None

    def holds(self, **values: float) -> bool:
        return self.valid is None or bool(self.valid(**values))


#: the sheet's groups, in reading order: key → Chinese title
GROUPS: Final = {
    "comm": "集合通信：字节与时间",
    "parallel": "并行：显存与计算",
    "faults": "故障与 checkpoint",
    "infra": "网络与数据面",
}

# symbols used by several formulas
_S = Symbol("size", "S", "每个 rank 的缓冲区", "B", 1.0, 1e12)
_N = Symbol("ranks", "N", "rank 数", "—", 2, 4096, True)
_A = Symbol("latency", r"\alpha", "每步延迟", "s", 0.0, 1e-3)
_B = Symbol("bandwidth", r"\beta", "单方向带宽", "B/s", 1e6, 1e12)
_PSI = Symbol("params", r"\Psi", "参数个数", "—", 1e6, 1e12)
_BYTES = Symbol("param_bytes", r"b_\text{p}", "每个参数的字节（bf16 为 2）", "B", 1, 4, True)
_H = Symbol("hidden", "h", "隐藏维", "—", 64, 16384, True)
_SEQ = Symbol("seq_len", "s", "序列长度", "token", 1, 131072, True)
_MB = Symbol("micro_batch", "b", "micro-batch 的序列数", "—", 1, 64, True)
_M = Symbol("micro_batches", "m", "每步 micro-batch 数", "—", 1, 512, True)
_L = Symbol("layers", "L", "本 rank 的层数", "—", 1, 256, True)
_DELTA = Symbol("save_time", r"\delta", "一次保存阻塞训练的时间", "s", 1e-3, 1e4)
_MTBF = Symbol("mtbf", "M", "作业 MTBF", "s", 60.0, 1e8)
_R = Symbol("restart_time", "R", "MTTR（恢复时间）", "s", 0.0, 1e4)
_ACT = 2  # bytes per activation element (bf16), the default of clusterlab.cluster.parallel


def _log2_ceil(n: int) -> int:
    return math.ceil(math.log2(n) - 1e-12)


def _zero_mem(stage: int) -> Callable[..., float]:
    def f(params: float, dp: int) -> float:
        return parallel.model_state_memory(params, zero_stage=stage, dp=dp).total

    return f


_DP = Symbol("dp", r"N_d", "数据并行路数", "—", 1, 4096, True)
_K_OPT = 12  # K of ZeRO §3.1 (fp32 master weights, momentum, variance)

FORMULAS: Final[tuple[Formula, ...]] = (
    # ---------------------------------------------------------------- communication
    Formula(
        "ar-send", "comm", "环形全归约：每个 rank 发送", r"V_\text{AR} = \frac{2S(N-1)}{N}", "字节 B",
        (_S, _N), "clusterlab.communication.collectives.send_volume",
        lambda size, ranks: collectives.send_volume("all_reduce", size, ranks),
        lambda size, ranks: 2 * size * (ranks - 1) / ranks,
        "{ref}`§2 <sec-c02-volume>`",
    ),
    Formula(
        "rs-send", "comm", "归约-散播：每个 rank 发送", r"V_\text{RS} = \frac{S(N-1)}{N}", "字节 B",
        (_S, _N), "clusterlab.communication.collectives.send_volume",
        lambda size, ranks: collectives.send_volume("reduce_scatter", size, ranks),
        lambda size, ranks: size * (ranks - 1) / ranks,
        "{prf:ref}`def-961-primitives`",
    ),
    Formula(
        "ag-send", "comm", "全收集：每个 rank 发送（$S$ 为输出）", r"V_\text{AG} = \frac{S(N-1)}{N}", "字节 B",
        (_S, _N), "clusterlab.communication.collectives.send_volume",
        lambda size, ranks: collectives.send_volume("all_gather", size, ranks),
        lambda size, ranks: size * (ranks - 1) / ranks,
        "{ref}`§9.6.1 <sec-961-identities>`",
    ),
    Formula(
        "ar-ring-time", "comm", "环形全归约的 α-β 时间",
        r"T_\text{ring} = 2(N-1)\alpha + \frac{2S(N-1)}{N\beta}", "秒 s",
        (_S, _N, _A, _B), "clusterlab.communication.collectives.alpha_beta_time",
        lambda size, ranks, latency, bandwidth: collectives.alpha_beta_time(
            "all_reduce", size, ranks, latency, bandwidth, "ring"),
        lambda size, ranks, latency, bandwidth: 2 * (ranks - 1) * latency
        + 2 * size * (ranks - 1) / (ranks * bandwidth),
        "{prf:ref}`def-alpha-beta`",
    ),
    Formula(
        "ar-tree-time", "comm", "双二叉树全归约（流水线）",
        r"T_\text{tree} = 2\lceil\log_2 N\rceil\alpha + \frac{2S}{\beta}", "秒 s",
        (_S, Symbol("ranks", "N", "rank 数", "—", 3, 4096, True), _A, _B),
        "clusterlab.communication.collectives.alpha_beta_time",
        lambda size, ranks, latency, bandwidth: collectives.alpha_beta_time(
            "all_reduce", size, ranks, latency, bandwidth, "tree"),
        lambda size, ranks, latency, bandwidth: 2 * _log2_ceil(ranks) * latency + 2 * size / bandwidth,
        "{ref}`§2.2 <sec-c022-tree>`",
    ),
    Formula(
        "ar-hd-time", "comm", "递归减半-倍增全归约（$N$ 为 2 的幂）",
        r"T_\text{HD} = 2\log_2 N\,\alpha + \frac{2S(N-1)}{N\beta}", "秒 s",
        (_S, Symbol("ranks", "N", "rank 数（2 的幂）", "—", 2, 4096, True), _A, _B),
        "clusterlab.communication.collectives.alpha_beta_time",
        lambda size, ranks, latency, bandwidth: collectives.alpha_beta_time(
            "all_reduce", size, ranks, latency, bandwidth, "halving_doubling"),
        lambda size, ranks, latency, bandwidth: 2 * math.log2(ranks) * latency
        + 2 * size * (ranks - 1) / (ranks * bandwidth),
        "{ref}`§2.2 <sec-c022-hd>`",
        valid=lambda ranks, **_: ranks & (ranks - 1) == 0,
    ),
    Formula(
        "tree-ring-crossover", "comm", "树与环的分界：小于它树更快",
        r"S^* = N\alpha\beta\,(N - 1 - \lceil\log_2 N\rceil)", "字节 B",
        (Symbol("ranks", "N", "rank 数", "—", 4, 4096, True), _A, _B),
        "clusterlab.communication.collectives.tree_ring_crossover",
        lambda ranks, latency, bandwidth: collectives.tree_ring_crossover(ranks, latency, bandwidth),
        lambda ranks, latency, bandwidth: ranks * latency * bandwidth * (ranks - 1 - _log2_ceil(ranks)),
        "{ref}`§2.2 <sec-c022-crossover>`",
    ),
    Formula(
        "hier-time", "comm", "两级全归约：节点内 $G$ 卡、$M$ 个节点",
        r"T = 2(G-1)\left(\alpha_\text{in} + \tfrac{S}{G\beta_\text{in}}\right)"
        r" + 2(M-1)\left(\alpha + \tfrac{S}{GM\beta}\right)", "秒 s",
        (_S, Symbol("gpus", "G", "每节点 rank 数", "—", 2, 16, True),
         Symbol("nodes", "M", "节点数", "—", 2, 256, True), _A, _B,
         Symbol("intra_latency", r"\alpha_\text{in}", "节点内每步延迟", "s", 0.0, 1e-4),
         Symbol("intra_bandwidth", r"\beta_\text{in}", "节点内单方向带宽", "B/s", 1e9, 1e12)),
        "clusterlab.communication.collectives.alpha_beta_time",
        lambda size, gpus, nodes, latency, bandwidth, intra_latency, intra_bandwidth: collectives.alpha_beta_time(
            "all_reduce", size, gpus * nodes, latency, bandwidth, "hierarchical", ranks_per_node=gpus,
            intra_latency=intra_latency, intra_bandwidth=intra_bandwidth),
        lambda size, gpus, nodes, latency, bandwidth, intra_latency, intra_bandwidth: (
            2 * (gpus - 1) * (intra_latency + size / (gpus * intra_bandwidth))
            + 2 * (nodes - 1) * (latency + size / (gpus * nodes * bandwidth))),
        "{ref}`§2.2 <sec-c022-hier>`",
    ),
    Formula(
        "msg-crossover", "comm", "单条消息延迟与传输相等的大小", r"n^* = \alpha\beta", "字节 B",
        (_A, _B), "clusterlab.communication.collectives.crossover_size",
        lambda latency, bandwidth: collectives.crossover_size(latency, bandwidth),
        lambda latency, bandwidth: latency * bandwidth,
        "{ref}`§9.6.1 <sec-961-bucketing>`",
    ),
    Formula(
        "chunked-ring", "comm",
        r"分 $c$ 块、每跳 $h$ 段的环形全归约，$K = 2(N-1)\max(c,h) + \min(c,h) - 1$",
        r"T(c) = K\left(\alpha + \tfrac{S}{Nc\beta}\right)", "秒 s",
        (_S, Symbol("ranks", "N", "rank 数", "—", 2, 1024, True),
         Symbol("chunks", "c", "块数", "—", 1, 4096, True), _A, _B,
         Symbol("stages", "h", "相邻两卡之间的段数", "—", 1, 8, True)),
        "clusterlab.communication.chunking.pipelined_terms",
        lambda size, ranks, chunks, latency, bandwidth, stages: chunking.pipelined_terms(
            size, ranks, chunks, latency, bandwidth, stages=stages).time,
        lambda size, ranks, chunks, latency, bandwidth, stages: (
            2 * (ranks - 1) * max(chunks, stages) + min(chunks, stages) - 1)
        * (latency + size / (ranks * chunks * bandwidth)),
        "{prf:ref}`thm-c021-pipelined`",
    ),
    Formula(
        "busbw", "comm", "nccl-tests 的全归约 busbw（实测 $t$）",
        r"\text{busbw} = \frac{S}{t}\cdot\frac{2(N-1)}{N}", "B/s",
        (_S, _N, Symbol("time", "t", "实测耗时", "s", 1e-6, 1e3)),
        "clusterlab.communication.algorithms.measured_bandwidth",
        lambda size, ranks, time: algorithms.measured_bandwidth("all_reduce", size, ranks, time).busbw,
        lambda size, ranks, time: size / time * 2 * (ranks - 1) / ranks,
        "{ref}`§2 <sec-c02-busbw>`",
    ),
    Formula(
        "overlap-step", "comm", "重叠率 $r$ 时的一步",
        r"t_\text{step} = t_c + t_m - \min(r\,t_m,\ t_c)", "秒 s",
        (Symbol("compute_time", "t_c", "计算时间", "s", 0.0, 1e3),
         Symbol("comm_time", "t_m", "通信时间", "s", 0.0, 1e3),
         Symbol("overlap_ratio", "r", "被藏起的通信比例", "—", 0.0, 1.0)),
        "clusterlab.communication.overlap.overlap_step",
        lambda compute_time, comm_time, overlap_ratio: overlap.overlap_step(
            compute_time, comm_time, overlap_ratio).step,
        lambda compute_time, comm_time, overlap_ratio: compute_time + comm_time
        - min(overlap_ratio * comm_time, compute_time),
        "{prf:ref}`def-962-overlap`",
    ),
    Formula(
        "overlap-ratio", "comm", "由暴露时间 $e$ 反推重叠率",
        r"r = 1 - \frac{e}{t_m}", "比例",
        (Symbol("compute_time", "t_c", "计算时间", "s", 0.0, 1e3),
         Symbol("comm_time", "t_m", "通信时间", "s", 1e-3, 1e3),
         Symbol("exposed_time", "e", "暴露的通信时间", "s", 0.0, 1e3)),
        "clusterlab.communication.overlap.overlap_from_exposed",
        lambda compute_time, comm_time, exposed_time: overlap.overlap_from_exposed(
            compute_time, comm_time, exposed_time).ratio,
        lambda compute_time, comm_time, exposed_time: 1 - exposed_time / comm_time,
        "{prf:ref}`def-962-overlap`",
        valid=lambda compute_time, comm_time, exposed_time: exposed_time <= comm_time
        and comm_time - exposed_time <= compute_time,
    ),
    # ---------------------------------------------------------------- parallelism, memory, compute
    Formula(
        "dp-zero2", "parallel", "DDP、ZeRO-1/2 每步每个 rank 发送",
        r"V = \frac{2\Psi b_\text{p}(N-1)}{N}", "字节 B",
        (_PSI, _N, _BYTES), "clusterlab.cluster.training.step_traffic",
        lambda params, ranks, param_bytes: training.step_traffic(
            "zero2", params, ranks, param_bytes=param_bytes).send,
        lambda params, ranks, param_bytes: 2 * params * param_bytes * (ranks - 1) / ranks,
        "{ref}`勘误 <erratum-961-zero2>`",
    ),
    Formula(
        "dp-zero3", "parallel", "ZeRO-3 每步每个 rank 发送",
        r"V = \frac{3\Psi b_\text{p}(N-1)}{N}", "字节 B",
        (_PSI, _N, _BYTES), "clusterlab.cluster.training.step_traffic",
        lambda params, ranks, param_bytes: training.step_traffic(
            "zero3", params, ranks, param_bytes=param_bytes).send,
        lambda params, ranks, param_bytes: 3 * params * param_bytes * (ranks - 1) / ranks,
        "{ref}`§4 <sec-c04-dp>`",
    ),
    Formula(
        "mem-zero1", "parallel", "ZeRO-1 每卡模型状态（$K$ = 12）",
        r"4\Psi + \frac{K\Psi}{N_d}", "字节 B",
        (_PSI, _DP), "clusterlab.cluster.parallel.model_state_memory",
        _zero_mem(1), lambda params, dp: 4 * params + _K_OPT * params / dp,
        "{numref}`tbl-c04-memory`",
    ),
    Formula(
        "mem-zero2", "parallel", "ZeRO-2 每卡模型状态",
        r"2\Psi + \frac{(2+K)\Psi}{N_d}", "字节 B",
        (_PSI, _DP), "clusterlab.cluster.parallel.model_state_memory",
        _zero_mem(2), lambda params, dp: 2 * params + (2 + _K_OPT) * params / dp,
        "{numref}`tbl-c04-memory`",
    ),
    Formula(
        "mem-zero3", "parallel", "ZeRO-3 每卡模型状态（$N_d$ = 1 即不分片的 16Ψ）",
        r"\frac{(2+2+K)\Psi}{N_d}", "字节 B",
        (_PSI, _DP), "clusterlab.cluster.parallel.model_state_memory",
        _zero_mem(3), lambda params, dp: (4 + _K_OPT) * params / dp,
        "{numref}`tbl-c04-memory`",
    ),
    Formula(
        "tp-volume", "parallel", "张量并行每步每个 rank 发送，bf16 激活 $S_a = 2bsh$",
        r"V = 4Lm\cdot\frac{2S_a(t-1)}{t}", "字节 B",
        (_H, _SEQ, _MB, _L, _M, Symbol("tp", "t", "张量并行路数", "—", 2, 64, True)),
        "clusterlab.cluster.parallel.tp_volume",
        lambda hidden, seq_len, micro_batch, layers, micro_batches, tp: parallel.tp_volume(
            hidden, seq_len, micro_batch, layers, micro_batches, tp).send,
        lambda hidden, seq_len, micro_batch, layers, micro_batches, tp: 4 * layers * micro_batches
        * 2 * (micro_batch * seq_len * hidden * _ACT) * (tp - 1) / tp,
        "{ref}`§4 <sec-c04-tp>`",
    ),
    Formula(
        "pp-volume", "parallel", "流水线中间段每步发送（scatter/gather），$S_a = 2bsh$",
        r"V = \frac{2m\,S_a}{t}", "字节 B",
        (_H, _SEQ, _MB, _M, Symbol("pp", "p", "流水线段数", "—", 2, 128, True),
         Symbol("tp", "t", "张量并行路数", "—", 1, 64, True)),
        "clusterlab.cluster.parallel.pp_volume",
        lambda hidden, seq_len, micro_batch, micro_batches, pp, tp: parallel.pp_volume(
            hidden, seq_len, micro_batch, micro_batches, pp, tp=tp).send,
        lambda hidden, seq_len, micro_batch, micro_batches, pp, tp: 2 * micro_batches
        * micro_batch * seq_len * hidden * _ACT / tp,
        "{ref}`§4 <sec-c04-pp>`",
    ),
    Formula(
        "ep-volume", "parallel", r"专家并行每步每个 rank 发送（均匀路由），$S_e = 2n_\text{tok}kh$",
        r"V = 4L_\text{moe}m\cdot\frac{S_e(e-1)}{e}", "字节 B",
        (_H, Symbol("tokens", r"n_\text{tok}", "每个 micro-batch 本 rank 的 token 数", "token", 1, 1_000_000, True),
         Symbol("moe_layers", r"L_\text{moe}", "MoE 层数", "—", 1, 128, True), _M,
         Symbol("ep", "e", "专家并行路数", "—", 2, 256, True),
         Symbol("top_k", "k", "每个 token 选的专家数", "—", 1, 8, True)),
        "clusterlab.cluster.parallel.ep_volume",
        lambda hidden, tokens, moe_layers, micro_batches, ep, top_k: parallel.ep_volume(
            hidden, tokens, moe_layers, micro_batches, ep, top_k=top_k).send,
        lambda hidden, tokens, moe_layers, micro_batches, ep, top_k: 4 * moe_layers * micro_batches
        * (tokens * top_k * hidden * _ACT) * (ep - 1) / ep,
        "{ref}`§4 <sec-c04-ep-cp>`",
    ),
    Formula(
        "cp-volume", "parallel", "上下文并行（环形注意力）每步发送",
        r"V = 3(c-1)Lm\cdot 4b\tfrac{s}{c}h_\text{kv}", "字节 B",
        (Symbol("kv_hidden", r"h_\text{kv}", "K（或 V）的宽度", "—", 64, 16384, True), _SEQ, _MB, _L, _M,
         Symbol("cp", "c", "上下文并行路数", "—", 1, 64, True)),
        "clusterlab.cluster.parallel.cp_volume",
        lambda kv_hidden, seq_len, micro_batch, layers, micro_batches, cp: parallel.cp_volume(
            kv_hidden, seq_len, micro_batch, layers, micro_batches, cp).send,
        lambda kv_hidden, seq_len, micro_batch, layers, micro_batches, cp: 3 * (cp - 1) * layers
        * micro_batches * 2 * micro_batch * (seq_len / cp) * kv_hidden * _ACT,
        "{ref}`§4 <sec-c04-ep-cp>`",
    ),
    Formula(
        "bubble-total", "parallel", "流水线空泡占总时间（GPipe 的口径）",
        r"\frac{p-1}{vm + p - 1}", "比例",
        (Symbol("stages", "p", "流水线段数", "—", 1, 128, True), _M,
         Symbol("chunks", "v", "每段的模型块数（交错）", "—", 1, 8, True)),
        "clusterlab.cluster.pipeline.bubble",
        lambda stages, micro_batches, chunks: pipeline.bubble(stages, micro_batches, chunks=chunks).of_total,
        lambda stages, micro_batches, chunks: (stages - 1) / (chunks * micro_batches + stages - 1),
        "{ref}`勘误 <erratum-c04-bubble>`",
    ),
    Formula(
        "bubble-ideal", "parallel", "流水线空泡相对理想计算时间（Megatron 的口径）",
        r"\frac{p-1}{vm}", "比例",
        (Symbol("stages", "p", "流水线段数", "—", 1, 128, True), _M,
         Symbol("chunks", "v", "每段的模型块数（交错）", "—", 1, 8, True)),
        "clusterlab.cluster.pipeline.bubble",
        lambda stages, micro_batches, chunks: pipeline.bubble(stages, micro_batches, chunks=chunks).of_ideal,
        lambda stages, micro_batches, chunks: (stages - 1) / (chunks * micro_batches),
        "{ref}`勘误 <erratum-c04-bubble>`",
    ),
    Formula(
        "flops-token", "parallel", "每 token 的训练 FLOPs（PaLM）",
        r"F_\text{tok} = 6\Psi + 12\,L\,d\,T", "FLOP",
        (_PSI, Symbol("layers", "L", "模型的总层数", "—", 1, 256, True),
         Symbol("hidden", "d", "隐藏维", "—", 64, 16384, True),
         Symbol("seq_len", "T", "序列长度", "token", 1, 131072, True)),
        "clusterlab.cluster.compute.flops_per_token",
        lambda params, layers, hidden, seq_len: compute.flops_per_token(params, layers, hidden, seq_len).total,
        lambda params, layers, hidden, seq_len: 6 * params + 12 * layers * hidden * seq_len,
        "{ref}`§4 <sec-c04-compute>`",
    ),
    Formula(
        "mfu", "parallel", "MFU（PaLM 的定义）",
        r"\text{MFU} = \frac{\text{tokens/s}\cdot F_\text{tok}}{G\cdot P}", "比例",
        (Symbol("tokens_per_second", "tokens/s", "实测吞吐", "token/s", 1.0, 1e8),
         Symbol("flops_per_token", r"F_\text{tok}", "每 token FLOPs", "FLOP", 1e6, 1e13),
         Symbol("gpus", "G", "GPU 数", "—", 1, 100_000, True),
         Symbol("peak_flops", "P", "单卡峰值", "FLOP/s", 1e12, 1e16)),
        "clusterlab.cluster.compute.mfu",
        lambda tokens_per_second, flops_per_token, gpus, peak_flops: compute.mfu(
            tokens_per_second, flops_per_token, gpus, peak_flops),
        lambda tokens_per_second, flops_per_token, gpus, peak_flops: tokens_per_second * flops_per_token
        / (gpus * peak_flops),
        "{ref}`勘误 <erratum-c04-mfu>`",
    ),
    Formula(
        "step-time", "parallel", "一步的时间：效率 $\\eta$、重叠比例 $o$",
        r"t = t_c + C - \min(oC,\ t_c),\ t_c = \tfrac{F}{P\eta}", "秒 s",
        (Symbol("flops", "F", "本卡一步的模型 FLOPs", "FLOP", 1e9, 1e18),
         Symbol("peak_flops", "P", "单卡峰值", "FLOP/s", 1e12, 1e16),
         Symbol("efficiency", r"\eta", "核函数效率", "—", 0.01, 1.0),
         Symbol("comm", "C", "通信时间", "s", 0.0, 100.0),
         Symbol("overlap", "o", "重叠比例", "—", 0.0, 1.0)),
        "clusterlab.cluster.compute.step_time",
        lambda flops, peak_flops, efficiency, comm, overlap: compute.step_time(
            flops, peak_flops, efficiency=efficiency, comm=comm, overlap=overlap).total,
        lambda flops, peak_flops, efficiency, comm, overlap: flops / (peak_flops * efficiency) + comm
        - min(overlap * comm, flops / (peak_flops * efficiency)),
        "{ref}`§4 <sec-c04-compute>`",
    ),
    # ---------------------------------------------------------------- faults
    Formula(
        "mtbf", "faults", "作业 MTBF：$G$ 个独立故障源",
        r"M = \frac{1}{G\lambda}", "秒 s（λ 以 /GPU·h 给出）",
        (Symbol("components", "G", "故障源（GPU）数", "—", 1, 1_000_000, True),
         Symbol("rate", r"\lambda", "单卡故障率", "/GPU·h", 1e-8, 1e-2)),
        "clusterlab.faults.reliability.job_mtbf",
        lambda components, rate: reliability.job_mtbf(components, rate),
        lambda components, rate: 3600.0 / (components * rate),
        "{prf:ref}`def-964-mtbf`",
    ),
    Formula(
        "young", "faults", "Young 的最优 checkpoint 间隔", r"T^* = \sqrt{2\delta M}", "秒 s",
        (_DELTA, _MTBF), "clusterlab.faults.checkpoint.young_interval",
        lambda save_time, mtbf: checkpoint.young_interval(save_time, mtbf),
        lambda save_time, mtbf: math.sqrt(2 * save_time * mtbf),
        "{prf:ref}`thm-963-young`",
    ),
    Formula(
        "daly", "faults", "Daly 的高阶修正（$\\delta < 2M$）",
        r"T^*_\text{D} = \sqrt{2\delta M}\left(1 + \tfrac{\sqrt{x}}{3} + \tfrac{x}{9}\right) - \delta,\ "
        r"x = \tfrac{\delta}{2M}", "秒 s",
        (_DELTA, _MTBF), "clusterlab.faults.checkpoint.daly_interval",
        lambda save_time, mtbf: checkpoint.daly_interval(save_time, mtbf),
        lambda save_time, mtbf: math.sqrt(2 * save_time * mtbf)
        * (1 + math.sqrt(save_time / (2 * mtbf)) / 3 + save_time / (2 * mtbf) / 9) - save_time,
        "{ref}`§9.6.3 <sec-963-young>`",
        valid=lambda save_time, mtbf: save_time < 2 * mtbf,
    ),
    Formula(
        "waste-opt", "faults", "最优间隔下浪费的墙钟时间比例（一阶）",
        r"W^* = \sqrt{\frac{2\delta}{M}} + \frac{R}{M}", "比例",
        (_DELTA, _MTBF, _R), "clusterlab.faults.checkpoint.optimal_wasted_fraction",
        lambda save_time, mtbf, restart_time: checkpoint.optimal_wasted_fraction(save_time, mtbf, restart_time),
        lambda save_time, mtbf, restart_time: math.sqrt(2 * save_time / mtbf) + restart_time / mtbf,
        "{prf:ref}`thm-963-young`",
    ),
    Formula(
        "goodput", "faults", "有效训练时间比例（一阶，间隔 $T$）",
        r"\left(1 - \tfrac{(T+\delta)/2 + R}{M}\right)\tfrac{T}{T+\delta}", "比例",
        (Symbol("interval", "T", "checkpoint 间隔", "s", 1.0, 1e5), _DELTA, _MTBF,
         Symbol("mttr", "R", "MTTR（恢复时间）", "s", 0.0, 1e4)),
        "clusterlab.faults.reliability.goodput",
        lambda interval, save_time, mtbf, mttr: reliability.goodput(interval, save_time, mtbf, mttr).useful,
        lambda interval, save_time, mtbf, mttr: (1 - ((interval + save_time) / 2 + mttr) / mtbf)
        * interval / (interval + save_time),
        "{prf:ref}`ex-c05-goodput`",
        valid=lambda interval, save_time, mtbf, mttr: (interval + save_time) / 2 + mttr < mtbf,
    ),
    # ---------------------------------------------------------------- network and data plane
    Formula(
        "fat-tree-2", "infra", "两层无阻塞叶脊最多接的主机（$k$ 为偶数）", r"H_2 = \frac{k^2}{2}", "台",
        (Symbol("radix", "k", "交换机口数", "—", 2, 1024, True),),
        "clusterlab.cluster.network.max_hosts",
        lambda radix: network.max_hosts(radix, 2), lambda radix: radix**2 / 2,
        "{prf:ref}`thm-c03-capacity`",
        valid=lambda radix: radix % 2 == 0,
    ),
    Formula(
        "fat-tree-3", "infra", "三层无阻塞胖树最多接的主机（$k$ 为偶数）", r"H_3 = \frac{k^3}{4}", "台",
        (Symbol("radix", "k", "交换机口数", "—", 2, 1024, True),),
        "clusterlab.cluster.network.max_hosts",
        lambda radix: network.max_hosts(radix, 3), lambda radix: radix**3 / 4,
        "{prf:ref}`thm-c03-capacity`",
        valid=lambda radix: radix % 2 == 0,
    ),
    Formula(
        "lru-shuffled", "infra", "每轮打乱时 LRU 缓存的命中率（缓存占数据集 $c$）",
        r"h(c) = c + (1-c)\ln(1-c)", "比例",
        (Symbol("cache_fraction", "c", "缓存能放下的数据比例", "—", 0.0, 0.999999),),
        "clusterlab.cluster.dataplane.shuffled_lru_hit_rate",
        lambda cache_fraction: dataplane.shuffled_lru_hit_rate(cache_fraction),
        lambda cache_fraction: 0.0 if cache_fraction == 0 else cache_fraction
        + (1 - cache_fraction) * math.log(1 - cache_fraction),
        "{prf:ref}`thm-c06-shuffled`",
    ),
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
    """The sheet as a MyST list, one item per formula: name (result unit) and the formula, then the symbols with
    units, the computing function (module and name, e.g. ``collectives.send_volume``) and, unless ``links=False``,
    the link to the derivation. A list wraps on a phone where a four-column table would not."""
    if not formulas:
        raise ValueError("formulas must hold at least one formula")
    items = []
    for f in formulas:
        func = ".".join(f.function.split(".")[-2:])
        tail = f"计算：`{func}`" + (f"；推导：{f.where}" if links else "")
        items.append(f"- **{f.name}**（{f.result}）：${f.latex}$\n\n  {_symbols_text(f.symbols)}。{tail}")
    return "\n\n".join(items)


def evaluate(formula: Formula, values: Mapping[str, Any]) -> tuple[float, float]:
    """``(compute(**values), reference(**values))`` — what the test compares."""
    return float(formula.compute(**values)), float(formula.reference(**values))
