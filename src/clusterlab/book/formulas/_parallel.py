"""Sheet entries of parallelism, memory and compute: 集群篇 §4 and §9.6.5.1 (group ``parallel``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from ...cluster import compute, parallel, pipeline, training
from ._base import (
    CHUNKS,
    DP,
    GPUS,
    HIDDEN,
    MICRO,
    MICROS,
    PARAM_BYTES,
    PEAK,
    PSI,
    SEQ,
    STAGE_LAYERS,
    STAGES,
    Formula,
    N,
    Symbol,
)

_K_OPT = 12  # K of ZeRO §3.1 (fp32 master weights, momentum, variance)
_HEADS = Symbol("heads", "a", "注意力头数", "—", 1, 128, True)
_HELD = Symbol("layers", "L", "一张卡同时存激活的层数（1F1B 下为模型的总层数）", "—", 1, 256, True)
_TP = Symbol("tp", "t", "张量并行路数", "—", 1, 64, True)
_ACT_SYMBOLS = (SEQ, MICRO, HIDDEN, _HEADS, _HELD, _TP)
_F = Symbol("forward_time", "F", "一段一个 micro-batch 的前向时间", "s", 1e-3, 10.0)
_B = Symbol("input_grad_time", "B", "对输入的梯度（反向的前一半）", "s", 1e-3, 10.0)
_W = Symbol("weight_grad_time", "W", "对权重的梯度（反向的后一半）", "s", 1e-3, 10.0)
_FB = Symbol("overlapped_time", r"F\&B", "一对前向、反向块同时执行的时间", "s", 1e-3, 30.0)
_HALF = Symbol("half_stages", "p/2", "DualPipe 段数的一半", "—", 1, 64, True)
_ACT_WHERE = "{ref}`§4 <sec-c04-memory>`"


def _zero_mem(stage: int) -> Callable[..., float]:
    def f(params: float, dp: int) -> float:
        return parallel.model_state_memory(params, zero_stage=stage, dp=dp).total

    return f


def _split_idle(schedule: str) -> Callable[..., float]:
    """One stage's idle time under ``schedule`` (the steady state: m = p)."""

    def f(stages: int, forward_time: float, input_grad_time: float, weight_grad_time: float) -> float:
        return pipeline.split_backward_bubble(stages, stages, schedule=schedule, forward_time=forward_time,
                                              input_grad_time=input_grad_time, weight_grad_time=weight_grad_time).idle

    return f


def _act(sequence_parallel: bool, recompute: str) -> Callable[..., float]:
    def f(seq_len: int, micro_batch: int, hidden: int, heads: int, layers: int, tp: int) -> float:
        return parallel.activation_memory(seq_len, micro_batch, hidden, heads, layers, tp=tp,
                                          sequence_parallel=sequence_parallel, recompute=recompute).total

    return f


FORMULAS: Final[tuple[Formula, ...]] = (
    # ---------------------------------------------------------------- data parallelism and memory
    Formula(
        "dp-zero2", "parallel", "DDP、ZeRO-1/2 每步每个 rank 发送",
        r"V = \frac{2\Psi b_\text{p}(N-1)}{N}", "字节 B",
        (PSI, N, PARAM_BYTES), "clusterlab.cluster.training.step_traffic",
        lambda params, ranks, param_bytes: training.step_traffic(
            "zero2", params, ranks, param_bytes=param_bytes).send,
        "{ref}`勘误 <erratum-961-zero2>`",
    ),
    Formula(
        "dp-zero3", "parallel", "ZeRO-3 每步每个 rank 发送",
        r"V = \frac{3\Psi b_\text{p}(N-1)}{N}", "字节 B",
        (PSI, N, PARAM_BYTES), "clusterlab.cluster.training.step_traffic",
        lambda params, ranks, param_bytes: training.step_traffic(
            "zero3", params, ranks, param_bytes=param_bytes).send,
        "{ref}`§4 <sec-c04-dp>`",
    ),
    Formula(
        "mem-zero1", "parallel", "ZeRO-1 每卡模型状态（$K$ = 12）",
        r"4\Psi + \frac{K\Psi}{N_d}", "字节 B",
        (PSI, DP), "clusterlab.cluster.parallel.model_state_memory",
        _zero_mem(1), "{numref}`tbl-c04-memory`",
    ),
    Formula(
        "mem-zero2", "parallel", "ZeRO-2 每卡模型状态",
        r"2\Psi + \frac{(2+K)\Psi}{N_d}", "字节 B",
        (PSI, DP), "clusterlab.cluster.parallel.model_state_memory",
        _zero_mem(2), "{numref}`tbl-c04-memory`",
    ),
    Formula(
        "mem-zero3", "parallel", "ZeRO-3 每卡模型状态（$N_d$ = 1 即不分片的 16Ψ）",
        r"\frac{(2+2+K)\Psi}{N_d}", "字节 B",
        (PSI, DP), "clusterlab.cluster.parallel.model_state_memory",
        _zero_mem(3), "{numref}`tbl-c04-memory`",
        note="张量并行与流水线先把参数切成 $tp$ 份时，$\\Psi$ 换成 $\\Psi' = \\Psi/(tp)$",
    ),
    # ---------------------------------------------------------------- activations (Korthikanti et al. 2022, Table 2)
    Formula(
        "act-tp", "parallel", "激活显存：张量并行、不重算（$t = 1$ 即不并行的 $34 + 5as/h$）",
        r"M_\text{act} = L\,sbh\left(10 + \frac{24}{t} + \frac{5as}{ht}\right)", "字节 B",
        _ACT_SYMBOLS, "clusterlab.cluster.parallel.activation_memory",
        _act(False, "none"), _ACT_WHERE,
        note="16 位激活、1 字节 dropout 掩码，GPT-3 形状（MLP 宽 $4h$）；$5as/h$ 是注意力分数与 softmax",
    ),
    Formula(
        "act-sp", "parallel", "激活显存：张量并行加序列并行、不重算",
        r"M_\text{act} = \frac{L\,sbh}{t}\left(34 + \frac{5as}{h}\right)", "字节 B",
        _ACT_SYMBOLS, "clusterlab.cluster.parallel.activation_memory",
        _act(True, "none"), _ACT_WHERE,
    ),
    Formula(
        "act-selective", "parallel", "激活显存：选择性重算或 FlashAttention（不存注意力分数），不加序列并行",
        r"M_\text{act} = L\,sbh\left(10 + \frac{24}{t}\right)", "字节 B",
        _ACT_SYMBOLS, "clusterlab.cluster.parallel.activation_memory",
        _act(False, "selective"), _ACT_WHERE,
    ),
    Formula(
        "act-selective-sp", "parallel", "激活显存：选择性重算（或 FlashAttention）加序列并行",
        r"M_\text{act} = \frac{34\,L\,sbh}{t}", "字节 B",
        _ACT_SYMBOLS, "clusterlab.cluster.parallel.activation_memory",
        _act(True, "selective"), _ACT_WHERE,
    ),
    # ---------------------------------------------------------------- per-axis volumes
    Formula(
        "tp-volume", "parallel", "张量并行每步每个 rank 发送，bf16 激活 $S_a = 2bsh$",
        r"V = 4Lm\cdot\frac{2S_a(t-1)}{t}", "字节 B",
        (HIDDEN, SEQ, MICRO, STAGE_LAYERS, MICROS, Symbol("tp", "t", "张量并行路数", "—", 2, 64, True)),
        "clusterlab.cluster.parallel.tp_volume",
        lambda hidden, seq_len, micro_batch, layers, micro_batches, tp: parallel.tp_volume(
            hidden, seq_len, micro_batch, layers, micro_batches, tp).send,
        "{ref}`§4 <sec-c04-tp>`",
    ),
    Formula(
        "pp-volume", "parallel", "流水线中间段每步发送（scatter/gather），$S_a = 2bsh$",
        r"V = \frac{2m\,S_a}{t}", "字节 B",
        (HIDDEN, SEQ, MICRO, MICROS, Symbol("pp", "p", "流水线段数", "—", 2, 128, True), _TP),
        "clusterlab.cluster.parallel.pp_volume",
        lambda hidden, seq_len, micro_batch, micro_batches, pp, tp: parallel.pp_volume(
            hidden, seq_len, micro_batch, micro_batches, pp, tp=tp).send,
        "{ref}`§4 <sec-c04-pp>`",
    ),
    Formula(
        "ep-volume", "parallel", r"专家并行每步每个 rank 发送（均匀路由），$S_e = 2n_\text{tok}kh$",
        r"V = 4L_\text{moe}m\cdot\frac{S_e(e-1)}{e}", "字节 B",
        (HIDDEN, Symbol("tokens", r"n_\text{tok}", "每个 micro-batch 本 rank 的 token 数", "token", 1, 1_000_000, True),
         Symbol("moe_layers", r"L_\text{moe}", "本 rank 的 MoE 层数", "—", 1, 128, True), MICROS,
         Symbol("ep", "e", "专家并行路数", "—", 2, 256, True),
         Symbol("top_k", "k", "每个 token 选的专家数", "—", 1, 8, True)),
        "clusterlab.cluster.parallel.ep_volume",
        lambda hidden, tokens, moe_layers, micro_batches, ep, top_k: parallel.ep_volume(
            hidden, tokens, moe_layers, micro_batches, ep, top_k=top_k).send,
        "{ref}`§4 <sec-c04-ep-cp>`",
    ),
    Formula(
        "cp-volume", "parallel", "上下文并行（环形注意力）每步发送",
        r"V = 3(c-1)Lm\cdot 4b\tfrac{s}{c}h_\text{kv}", "字节 B",
        (Symbol("kv_hidden", r"h_\text{kv}", "K（或 V）的宽度", "—", 64, 16384, True), SEQ, MICRO, STAGE_LAYERS, MICROS,
         Symbol("cp", "c", "上下文并行路数", "—", 1, 64, True)),
        "clusterlab.cluster.parallel.cp_volume",
        lambda kv_hidden, seq_len, micro_batch, layers, micro_batches, cp: parallel.cp_volume(
            kv_hidden, seq_len, micro_batch, layers, micro_batches, cp).send,
        "{ref}`§4 <sec-c04-ep-cp>`",
    ),
    # ---------------------------------------------------------------- pipeline bubble
    Formula(
        "bubble-total", "parallel", "流水线空泡占总时间（GPipe 的口径）",
        r"\frac{p-1}{vm + p - 1}", "比例",
        (STAGES, MICROS, CHUNKS), "clusterlab.cluster.pipeline.bubble",
        lambda stages, micro_batches, chunks: pipeline.bubble(stages, micro_batches, chunks=chunks).of_total,
        "{ref}`勘误 <erratum-c04-bubble>`",
    ),
    Formula(
        "bubble-ideal", "parallel", "流水线空泡相对理想计算时间（Megatron 的口径）",
        r"\frac{p-1}{vm}", "比例",
        (STAGES, MICROS, CHUNKS), "clusterlab.cluster.pipeline.bubble",
        lambda stages, micro_batches, chunks: pipeline.bubble(stages, micro_batches, chunks=chunks).of_ideal,
        "{ref}`勘误 <erratum-c04-bubble>`",
        note="两种口径互换：$r_\\text{总} = r_\\text{理想}/(1 + r_\\text{理想})$",
    ),
    Formula(
        "bubble-split-1f1b", "parallel", "反向拆成 B 与 W 时 1F1B 每段的空闲时间",
        r"(p-1)(F+B+W)", "秒 s",
        (STAGES, _F, _B, _W), "clusterlab.cluster.pipeline.split_backward_bubble",
        _split_idle("1f1b"),
        "{ref}`§9.6.5.1 <sec-9651-zero-bubble>`",
        note="与 $m$ 无关（$m \\ge p$ 的稳态）；$F = B = W$ 时除以 $m(F+B+W)$ 就是 $(p-1)/m$。",
    ),
    Formula(
        "bubble-zb-h1", "parallel", "零空泡调度 ZB-H1 每段的空闲时间（Qi 等 2023 §3.1）",
        r"\max\bigl(0,\ (p-1)(F+B-W)\bigr)", "秒 s",
        (STAGES, _F, _B, _W), "clusterlab.cluster.pipeline.split_backward_bubble",
        _split_idle("zb-h1"),
        "{ref}`§9.6.5.1 <sec-9651-zero-bubble>`",
    ),
    Formula(
        "bubble-dualpipe", "parallel", "DualPipe 每段的空闲时间（DeepSeek-V3 表 2，$p$ 为偶数）",
        r"\max\bigl(0,\ (p/2-1)(F\&B + B - 2W)\bigr)", "秒 s",
        (_HALF, _F, _B, _W, _FB), "clusterlab.cluster.pipeline.split_backward_bubble",
        lambda half_stages, forward_time, input_grad_time, weight_grad_time, overlapped_time:
        pipeline.split_backward_bubble(
            2 * half_stages, 2 * half_stages, schedule="dualpipe", forward_time=forward_time,
            input_grad_time=input_grad_time, weight_grad_time=weight_grad_time,
            overlapped_time=overlapped_time).idle,
        "{ref}`§9.6.5.1 <sec-9651-zero-bubble>`",
        note="论文表 2 写作 $(p/2-1)(F\\&B + B - 3W)$，其中的 $B$ 是完整的反向，即这里的 $B + W$。",
    ),
    # ---------------------------------------------------------------- compute
    Formula(
        "flops-token", "parallel", "每 token 的训练 FLOPs（PaLM）",
        r"F_\text{tok} = 6\Psi + 12\,L\,d\,T", "FLOP",
        (PSI, Symbol("layers", "L", "模型的总层数", "—", 1, 256, True),
         Symbol("hidden", "d", "隐藏维", "—", 64, 16384, True),
         Symbol("seq_len", "T", "序列长度", "token", 1, 131072, True)),
        "clusterlab.cluster.compute.flops_per_token",
        lambda params, layers, hidden, seq_len: compute.flops_per_token(params, layers, hidden, seq_len).total,
        "{ref}`§4 <sec-c04-compute>`",
    ),
    Formula(
        "mfu", "parallel", "MFU（PaLM 的定义，由实测吞吐）",
        r"\text{MFU} = \frac{\text{tokens/s}\cdot F_\text{tok}}{G\cdot P}", "比例",
        (Symbol("tokens_per_second", r"\text{tokens/s}", "实测吞吐", "token/s", 1.0, 1e8),
         Symbol("flops_per_token", r"F_\text{tok}", "每 token FLOPs", "FLOP", 1e6, 1e13), GPUS, PEAK),
        "clusterlab.cluster.compute.mfu",
        lambda tokens_per_second, flops_per_token, gpus, peak_flops: compute.mfu(
            tokens_per_second, flops_per_token, gpus, peak_flops),
        "{ref}`勘误 <erratum-c04-mfu>`",
    ),
)
