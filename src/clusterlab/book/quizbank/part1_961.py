"""Self-check questions for §9.6.1 (集合通信原语与通信量的量级), ``book/part1/9.6.1-collectives.ipynb``.

Given data are the module constants below (the ``T_`` ones describe a 13B / 16-rank / 200 Gb/s scenario the
chapter does not work through, so those questions ask for transfer); every key is computed by
:mod:`clusterlab.communication.collectives`, :mod:`clusterlab.cluster.training` or :mod:`clusterlab.units`. Distractors
are the misconceptions the seed also holds
(ZeRO-2 "省一半", "FSDP 每层 KB–MB、延迟主导", "S 是下界"), each named in its feedback, and the usual slips:
bits for bytes,
bidirectional for per-direction bandwidth, forgetting ``(N−1)/N``, one phase instead of two.
"""

from __future__ import annotations

import math
from typing import Final

from ... import units
from ...cluster import training
from ...communication import collectives
from ..quiz import Choice, Numeric, choice, numeric

__all__ = [
    "BUCKET_BYTES",
    "BYTES_BF16",
    "BYTES_FP32",
    "FFN_HIDDEN",
    "HIDDEN",
    "IB_GBIT",
    "LATENCY",
    "NVLINK_A100_BIDIR_GBYTE",
    "NVLINK_H100_BIDIR_GBYTE",
    "PARAMS",
    "RANKS",
    "RANKS_BUCKET",
    "SMALL_TENSOR_BYTES",
    "TOTAL_SMALL_BYTES",
    "T_FFN_HIDDEN",
    "T_HIDDEN",
    "T_LATENCY",
    "T_NIC_GBIT",
    "T_PARAMS",
    "T_RANKS",
    "ib_bandwidth",
    "nvlink_bandwidth",
    "s961_questions",
]

PARAMS: Final = 7e9  # Ψ of a 7B model
BYTES_BF16: Final = 2
BYTES_FP32: Final = 4
RANKS: Final = 8
IB_GBIT: Final = 400  # InfiniBand NDR port, Gb/s per direction
NVLINK_A100_BIDIR_GBYTE: Final = 600  # A100 NVLink, GB/s, both directions together
NVLINK_H100_BIDIR_GBYTE: Final = 900  # H100 NVLink, GB/s, both directions together
LATENCY: Final = 5e-6  # α, s (assumed order of magnitude of one message's fixed cost)
HIDDEN: Final = 4096  # Llama-2-7B d
FFN_HIDDEN: Final = 11008  # Llama-2-7B d_ff
RANKS_BUCKET: Final = 64
TOTAL_SMALL_BYTES: Final = 1e9  # 1 GB of gradients …
SMALL_TENSOR_BYTES: Final = 10e3  # … in 10 KB tensors
BUCKET_BYTES: Final = 25 * units.MiB  # PyTorch DDP bucket_cap_mb = 25
# transfer: a scenario the chapter does not work through (Llama-2-13B, 16 ranks, a slower NIC)
T_PARAMS: Final = 13e9  # Ψ of a 13B model
T_RANKS: Final = 16
T_HIDDEN: Final = 5120  # Llama-2-13B d
T_FFN_HIDDEN: Final = 13824  # Llama-2-13B d_ff
T_NIC_GBIT: Final = 200  # RoCE NIC, Gb/s per direction
T_LATENCY: Final = 3e-6  # α, s

Question = Numeric | Choice


def ib_bandwidth() -> float:
    """β of a 400 Gb/s InfiniBand port in B/s per direction (50 GB/s)."""
    return units.gbit_per_s(IB_GBIT)


def nvlink_bandwidth(bidirectional_gbyte: float) -> float:
    """β per direction (B/s) of an NVLink total quoted for both directions (A100: 600 GB/s → 300 GB/s)."""
    return units.Link.from_bidirectional(units.gbyte_per_s(bidirectional_gbyte)).per_direction


def _gb(x: float) -> float:
    return units.bytes_to(x, "GB")


def s961_questions() -> list[Question]:
    """Self-check of §9.6.1: ZeRO-2 traffic, NVLink direction, FSDP layer size and time, α·β (all five in a
    13B / 16-rank / 200 Gb/s scenario the chapter does not work through), bucketing, the lower bound, FSDP
    across nodes, which primitives move S(N−1)/N."""
    s = T_PARAMS * BYTES_BF16
    beta_nic = units.gbit_per_s(T_NIC_GBIT)
    beta_ib = ib_bandwidth()
    beta_a100 = nvlink_bandwidth(NVLINK_A100_BIDIR_GBYTE)
    beta_h100 = nvlink_bandwidth(NVLINK_H100_BIDIR_GBYTE)

    # --- ZeRO-2 per step ---------------------------------------------------------------------------------
    zero2 = training.step_traffic("zero2", T_PARAMS, T_RANKS, param_bytes=BYTES_BF16)
    zero3 = training.step_traffic("zero3", T_PARAMS, T_RANKS, param_bytes=BYTES_BF16)
    rs_only = zero2.calls[0].send
    q_zero2 = numeric(
        f"13B 模型（bf16 梯度与参数），{T_RANKS} 个 rank 做 ZeRO-2 数据并行。每个训练步里，每个 rank 为数据并行"
        "一共要**发送**多少 GB？（环形算法；只算梯度归约与参数收集）",
        _gb(zero2.send),
        unit="GB",
        wrong=(
            (
                _gb(rs_only),
                "你以为 ZeRO-2 只做归约-散播、因而比 DDP 省一半。可是每个 rank 更新完自己那段参数后，还要全收集"
                "更新后的参数，又是同样多：合计与 DDP 相同（ZeRO 论文 §7.2.1）。",
            ),
            (_gb(2 * s), "漏了因子 $(N-1)/N$：每个阶段每个 rank 都有一段不用发出。"),
            (_gb(zero3.send), "这是 ZeRO-3（前向、反向各全收集一次参数，再归约-散播梯度）的量。"),
            (_gb(2 * zero2.send), "这是发送与接收之和；题目只问发送。"),
        ),
        explanation=f"归约-散播梯度 {units.fmt_bytes(rs_only, 'GB', 4)} + 全收集参数 "
        f"{units.fmt_bytes(zero2.calls[1].send, 'GB', 4)} = {units.fmt_bytes(zero2.send, 'GB', 4)}，"
        "与 DDP 的一次全归约一样多；ZeRO-2 省的是显存，不是带宽。",
        transfer=True,
    )

    # --- NVLink: per direction ----------------------------------------------------------------------------
    ar = collectives.send_volume("all_reduce", s, RANKS)
    t_h100 = collectives.cost("all_reduce", s, RANKS, LATENCY, beta_h100).bandwidth
    q_h100 = numeric(
        f"这个 13B 模型的 {units.fmt_bytes(s)} bf16 梯度在一台 {RANKS} 卡 H100 服务器内做环形全归约。H100 的 NVLink "
        f"标称 {NVLINK_H100_BIDIR_GBYTE} GB/s（两个方向合计）。只算带宽项，要多少毫秒？",
        t_h100 * 1e3,
        unit="ms",
        wrong=(
            (
                ar / units.gbyte_per_s(NVLINK_H100_BIDIR_GBYTE) * 1e3,
                f"你把 {NVLINK_H100_BIDIR_GBYTE} GB/s 当成了每方向的带宽，它是两个方向之和；环的每一步一个方向在发、"
                f"另一个方向在收，要用每方向的 {units.fmt_bytes(beta_h100)}/s。",
            ),
            (
                ar / beta_a100 * 1e3,
                f"这是 A100（每方向 {units.fmt_bytes(beta_a100)}/s）的时间；H100 每方向 "
                f"{units.fmt_bytes(beta_h100)}/s。",
            ),
            (s / beta_h100 * 1e3, "发送量不是 $S$：全归约每个 rank 发送 $2S(N-1)/N$。"),
        ),
        explanation=f"$2S(N-1)/N$ = {units.fmt_bytes(ar, 'GB', 4)}，除以每方向 {units.fmt_bytes(beta_h100)}/s，"
        f"得 {units.fmt_seconds(t_h100)}。",
        transfer=True,
    )

    # --- FSDP: one Llama-2-13B layer -----------------------------------------------------------------------
    layer = training.layer_params(T_HIDDEN, T_FFN_HIDDEN)
    layer_bytes = layer * BYTES_BF16
    q_layer = numeric(
        f"Llama-2-13B 的一个解码层：$d$ = {T_HIDDEN}，SwiGLU 前馈宽度 $d_{{ff}}$ = {T_FFN_HIDDEN}，"
        "注意力有 $W_q, W_k, W_v, W_o$ 四个 $d\\times d$ 矩阵，前馈有三个 $d\\times d_{ff}$ 矩阵（忽略归一化）。"
        "这一层的参数以 bf16 存放有多少 MB？",
        units.bytes_to(layer_bytes, "MB"),
        unit="MB",
        wrong=(
            (units.bytes_to(layer, "MB"), "这是参数个数（百万个），还要乘以每个 bf16 元素的 2 字节。"),
            (units.bytes_to(layer * BYTES_FP32, "MB"), "这是 fp32（每元素 4 字节）的大小。"),
            (
                units.bytes_to(training.layer_params(T_HIDDEN, T_FFN_HIDDEN, gated=False) * BYTES_BF16, "MB"),
                "SwiGLU 前馈有三个矩阵（门控 $W_1$、$W_3$ 与输出 $W_2$），不是两个。",
            ),
            (units.bytes_to(4 * T_HIDDEN * T_HIDDEN * BYTES_BF16, "MB"), "这只是注意力的四个矩阵，前馈层更大。"),
        ),
        explanation=f"$4d^2 + 3\\,d\\,d_{{ff}}$ = {units.fmt_num(layer / 1e6, 4)} M 个参数，"
        f"× 2 B = {units.fmt_bytes(layer_bytes, 'MB', 5)}：几百 MB，不是“每层只有 KB–MB”。",
        transfer=True,
    )
    c_layer = collectives.cost("all_gather", layer_bytes, T_RANKS, T_LATENCY, beta_nic)
    t_layer, lat_layer = c_layer.time, c_layer.latency
    q_layer_t = numeric(
        f"接上题：FSDP 在 {T_RANKS} 个 rank 上全收集这一层的参数（每个 rank 原有 1/{T_RANKS}），走 {T_NIC_GBIT} Gb/s "
        f"的 RoCE 网卡（每方向），$\\alpha$ = {units.fmt_seconds(T_LATENCY)}。按环形算法的 α-β 模型要多少毫秒？",
        t_layer * 1e3,
        unit="ms",
        wrong=(
            (
                layer_bytes / beta_nic * 1e3,
                "漏了因子 $(N-1)/N$：每个 rank 本来就有自己那 1/N，只需收（也只需发）其余的 $(N-1)/N$。",
            ),
            (
                t_layer * 8 * 1e3,
                f"带宽换算错了：{T_NIC_GBIT} Gb/s 每方向是 {units.fmt_bytes(beta_nic)}/s，比特换字节除以 8 一次。",
            ),
            (
                lat_layer * 1e3,
                "这只是延迟项 $(N-1)\\alpha$：你以为 FSDP 的每层消息小、延迟主导。几百 MB 的消息远大于 "
                "$\\alpha\\beta$，时间几乎全是带宽项。",
            ),
        ),
        explanation=f"$(N-1)\\alpha + S(N-1)/(N\\beta)$ = {units.fmt_seconds(t_layer)}，其中延迟项只有 "
        f"{units.fmt_seconds(lat_layer)}：带宽主导。",
        transfer=True,
    )

    # --- α·β ---------------------------------------------------------------------------------------------
    n_star = collectives.crossover_size(T_LATENCY, beta_nic)
    q_cross = numeric(
        f"单条消息的耗时 $t = \\alpha + m/\\beta$。$\\alpha$ = {units.fmt_seconds(T_LATENCY)}，$\\beta$ = "
        f"{T_NIC_GBIT} Gb/s（每方向）。消息多大（KB）时，固定延迟恰好等于传输时间？",
        units.bytes_to(n_star, "KB"),
        unit="KB",
        wrong=(
            (
                units.bytes_to(n_star * 8, "KB"),
                f"你把 {T_NIC_GBIT} Gb/s 当成了 {T_NIC_GBIT} GB/s（比特与字节差 8 倍）。",
            ),
            (
                units.bytes_to(n_star * T_RANKS, "KB"),
                f"这是 {T_RANKS} 个 rank 的环上的分界 $N\\alpha\\beta$；题目问的是单条消息。",
            ),
            (units.bytes_to(n_star / 8, "KB"), f"比特换字节除了两次 8：β 应是每方向 {units.fmt_bytes(beta_nic)}/s。"),
            (units.bytes_to(T_LATENCY * beta_nic * 2, "KB"), "令 $\\alpha = m/\\beta$，不需要因子 2。"),
        ),
        explanation=f"$n^* = \\alpha\\beta$ = {units.fmt_bytes(n_star, 'KB')}。小于它的消息主要在付延迟，"
        "大于它的主要在搬字节。",
        transfer=True,
    )

    # --- bucketing ------------------------------------------------------------------------------------------
    pieces = round(TOTAL_SMALL_BYTES / SMALL_TENSOR_BYTES)
    t_pieces = collectives.bucketed_time("all_reduce", TOTAL_SMALL_BYTES, pieces, RANKS_BUCKET, LATENCY, beta_ib)
    c_total = collectives.cost("all_reduce", TOTAL_SMALL_BYTES, RANKS_BUCKET, LATENCY, beta_ib)
    t_bw = c_total.bandwidth
    q_bucket = numeric(
        f"某模型有 {units.fmt_bytes(TOTAL_SMALL_BYTES)} 梯度，分散在 {units.fmt_num(pieces, 6)} 个各 "
        f"{units.fmt_bytes(SMALL_TENSOR_BYTES, 'KB')} 的小张量里。{RANKS_BUCKET} 个 rank、$\\alpha$ = "
        f"{units.fmt_seconds(LATENCY)}、$\\beta$ = {IB_GBIT} Gb/s。如果**每个张量单独**做一次环形全归约，"
        "按 α-β 模型一共要多少秒？",
        t_pieces,
        unit="s",
        wrong=(
            (t_bw, f"这只是带宽项；每次调用还要付 $2(N-1)$ 次 $\\alpha$，一共调用了 {units.fmt_num(pieces, 6)} 次。"),
            (
                pieces * 2 * LATENCY + t_bw,
                "每次环形全归约有 $2(N-1)$ 步，每一步都付一次 $\\alpha$，不是每次调用只付两次。",
            ),
            (
                pieces * (RANKS_BUCKET - 1) * LATENCY + t_bw,
                "全归约有两个阶段（归约-散播与全收集），共 $2(N-1)$ 步。",
            ),
        ),
        explanation=f"每次调用的延迟项 $2(N-1)\\alpha$ = "
        f"{units.fmt_seconds(c_total.latency)}，"
        f"乘以 {units.fmt_num(pieces, 6)} 次；带宽项总共只有 {units.fmt_seconds(t_bw)}。"
        f"合计 {units.fmt_num(t_pieces, 4)} s。"
        f"把小张量装进 {units.fmt_num(BUCKET_BYTES / units.MiB)} MiB 的桶里，调用次数降到 "
        f"{math.ceil(TOTAL_SMALL_BYTES / BUCKET_BYTES)} 次。",
    )

    # --- concepts ------------------------------------------------------------------------------------------
    q_bound = choice(
        "只用点对点消息、求和在 rank 上完成时，全归约中最忙的 rank 至少要发送多少？",
        [
            (
                "$S$：每个字节被每个 rank 看到一次即可，环用了两倍",
                False,
                "这是“每个字节只要让每个 rank 看到一次”的直觉。可求和必须在某个 rank 上做：每份输入先要"
                "被送去参与求和（$N-1$ 次），结果再送回（又 $N-1$ 次）。每个 rank 约 $S$ 要靠交换机内归约。",
            ),
            ("$2S(N-1)/N$：这是紧下界，环形算法恰好达到", True, "对（Patarasuk & Yuan 2009；集群篇 §2 的定理）。"),
            ("$S(N-1)$：每个 rank 要收齐其余 $N-1$ 份", False, "这是朴素方案根节点的负担，环把它摊给了所有 rank。"),
        ],
        explanation="每个元素至少要传 $2(N-1)$ 次：$N-1$ 次把输入带去求和，$N-1$ 次把结果送回。"
        "每个 rank 约 $S$ 只有交换机内归约（SHARP、NVLS）才做得到。",
    )
    q_fsdp = choice(
        "关于 FSDP（完全分片）在多机训练中的通信，哪一种说法正确？",
        [
            (
                "分片通信天然只发生在节点内，只有梯度同步走 InfiniBand",
                False,
                "这是把 FSDP 与 HSDP 混为一谈。FULL_SHARD 在整个数据并行组内分片，组跨节点时，"
                "全收集与归约-散播都要过网卡；只有 HYBRID_SHARD 才把分片留在节点内。",
            ),
            (
                "分片跨越整个数据并行组；组跨节点时，每层的全收集和归约-散播都要走跨机网络",
                True,
                "对：Llama 3 把 FSDP 作为最外层并行，跨越多跳网络（§3.3.2）。"
                "想把分片通信留在节点内，要显式选择 HYBRID_SHARD（HSDP）或 ZeRO++ 的 hpZ。",
            ),
            (
                "FSDP 每层只收集几 KB 的参数，所以跨机也没关系",
                False,
                f"以为每层很小是低估了层的大小：Llama-2-13B 的一层约 {units.fmt_bytes(layer_bytes, 'MB')}（bf16），"
                "每层的收集都是带宽主导的大消息。",
            ),
        ],
        explanation="环的每一步等最慢的一段链路：只要环里有一段走网卡，整次集合通信就按网卡的速率算。",
    )
    q_which = choice(
        "按本节的标准算法，哪些原语里最忙的 rank 发送 $S(N-1)/N$？（多选；$S$ 是一个 rank 的完整缓冲区）",
        [
            ("归约-散播（Reduce-Scatter）", True, "对：环上 $N-1$ 步，每步一段 $S/N$。"),
            ("全收集（All-Gather）", True, "对：它是归约-散播的转置。"),
            ("全交换（All-to-All）", True, "对：每个 rank 把 $N-1$ 段 $S/N$ 分别交给其余各 rank。"),
            ("全归约（All-Reduce）", False, "全归约 = 归约-散播 + 全收集，发送 $2S(N-1)/N$。"),
            ("广播（Broadcast）", False, "流水线链上除末尾外每个 rank 都把完整的 $S$ 转发一次。"),
        ],
        multiple=True,
        explanation="三者的 nccl-tests 总线带宽因子都是 $(n-1)/n$；全归约是 $2(n-1)/n$，广播与归约是 1。",
    )
    return [q_zero2, q_h100, q_layer, q_layer_t, q_cross, q_bucket, q_bound, q_fsdp, q_which]
