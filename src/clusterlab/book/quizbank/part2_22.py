"""Self-check questions for 集群篇 §2.2 (``book/part2/02-2-nccl-hccl.ipynb``): what NCCL / HCCL do.

Given data are the module constants below (the same as in the notebook); every key comes from
:mod:`clusterlab.communication.collectives` or :mod:`clusterlab.communication.algorithms`. Distractors are the slips
readers make: the
single-message balance ``αβ`` or the ring's own ``Nαβ`` instead of the tree/ring crossover, the whole buffer
instead of ``S/G`` on the NIC of a two-level all-reduce, the all-reduce factor applied to an all-gather, the
per-rank size where nccl-tests means the total array, the power-of-two formula for ``N`` that is not one,
the claim that NCCL and HCCL share the same algorithms, algorithms or transports taken for protocols. The
``T_`` constants (an H100 node, a 13B job on 2048 GPUs) are not worked through in the section: transfer.
"""

from __future__ import annotations

from typing import Final

from ... import units
from ...communication import algorithms, collectives
from ..quiz import Choice, Numeric, choice, numeric

__all__ = [
    "AG_SIZE",
    "AG_TIME",
    "GPUS_PER_NODE",
    "HD_RANKS",
    "HD_SIZE",
    "INTER_LATENCY",
    "INTER_NIC_GBIT",
    "INTRA_LATENCY",
    "NVLINK_BIDIR_GBYTE",
    "PARAMS",
    "RANKS_LARGE",
    "RANKS_NODE",
    "SMALL_MESSAGE",
    "T_INTRA_LATENCY",
    "T_NVLINK_BIDIR_GBYTE",
    "T_PARAMS",
    "T_RANKS_LARGE",
    "UNEVEN_RANKS",
    "c022_questions",
    "gradient_bytes",
    "inter_bandwidth",
    "intra_bandwidth",
]

PARAMS: Final = 7e9  # Ψ of a 7B model
BYTES_FP16: Final = 2
RANKS_NODE: Final = 8  # one node of eight GPUs
GPUS_PER_NODE: Final = 8  # G
RANKS_LARGE: Final = 1024  # 128 nodes × 8 GPUs
NVLINK_BIDIR_GBYTE: Final = 600  # A100 NVLink, quoted bidirectional → 300 GB/s per direction
INTER_NIC_GBIT: Final = 400  # one 400 Gb/s NIC per GPU → 50 GB/s per direction
INTRA_LATENCY: Final = 2e-6  # α inside a node (assumed order of magnitude)
INTER_LATENCY: Final = 5e-6  # α across nodes (assumed order of magnitude)
AG_SIZE: Final = 2**30  # nccl-tests size column: 1 GiB, the total all-gather array
AG_TIME: Final = 4e-3  # s, a hypothetical measurement on 8 GPUs
HD_RANKS: Final = 12  # not a power of two
HD_SIZE: Final = 100e6  # 100 MB
SMALL_MESSAGE: Final = 1e6  # 1 MB
UNEVEN_RANKS: Final = 1000  # not a power of two
# transfer: an H100 node and a larger job the section does not work through
T_NVLINK_BIDIR_GBYTE: Final = 900  # H100 NVLink, quoted bidirectional → 450 GB/s per direction
T_INTRA_LATENCY: Final = 3e-6  # α inside an H100 node (assumed)
T_PARAMS: Final = 13e9  # a 13B model, fp16 gradients
T_RANKS_LARGE: Final = 2048  # 256 nodes × 8 GPUs

Question = Numeric | Choice


def gradient_bytes() -> float:
    """S of the 7B fp16 gradients: Ψ × 2 B = 14 GB."""
    return PARAMS * BYTES_FP16


def intra_bandwidth() -> float:
    """NVLink per direction (B/s): the bidirectional 600 GB/s halved."""
    return units.Link.from_bidirectional(units.gbyte_per_s(NVLINK_BIDIR_GBYTE)).per_direction


def inter_bandwidth() -> float:
    """One 400 Gb/s NIC per direction (B/s): 50 GB/s."""
    return units.gbit_per_s(INTER_NIC_GBIT)


def _gb(x: float) -> float:
    return units.bytes_to(x, "GB")


def _mb(x: float) -> float:
    return units.bytes_to(x, "MB")


def c022_questions() -> list[Question]:
    """Self-check of §2.2: crossover, two-level bytes on the NIC, busbw of an all-gather, halving-doubling
    off a power of two, the chooser at N = 1000, NCCL vs HCCL, NCCL's protocols."""
    b_in, b_out = intra_bandwidth(), inter_bandwidth()
    a_in, a_out = INTRA_LATENCY, INTER_LATENCY
    n8 = RANKS_NODE

    # 1. tree/ring crossover inside one H100 node
    b_h = units.Link.from_bidirectional(units.gbyte_per_s(T_NVLINK_BIDIR_GBYTE)).per_direction
    a_h = T_INTRA_LATENCY
    cross = collectives.tree_ring_crossover(n8, a_h, b_h)
    q_cross = numeric(
        f"一台 H100 机器内 $N$ = {n8} 张卡，NVLink 每方向 $\\beta$ = {units.fmt_bytes(b_h)}/s，"
        f"$\\alpha$ = {units.fmt_seconds(a_h)}。按本节的模型（树：$2\\lceil\\log_2 N\\rceil\\alpha + 2S/\\beta$；"
        "环：$2(N-1)\\alpha + 2S(N-1)/(N\\beta)$），全归约的消息小于多少 MB 时树比环快？",
        _mb(cross),
        unit="MB",
        wrong=(
            (_mb(a_h * b_h), "$\\alpha\\beta$ 是单条消息延迟与传输时间相等的尺寸，不是两种算法的分界。"),
            (_mb(n8 * a_h * b_h), "$N\\alpha\\beta$ 是环自己的延迟项与带宽项相等的尺寸（§1）；"
             "树的延迟项并不为零，还要减去它。"),
            (_mb(n8 * a_h * b_h * (n8 - 1)), "漏掉了树自己的 $2\\lceil\\log_2 N\\rceil$ 步延迟。"),
            (_mb(cross * 8), "比特与字节混了：NVLink 的 GB/s 已经是字节。"),
            (_mb(collectives.tree_ring_crossover(n8, a_h, 2 * b_h)),
             f"你把 {T_NVLINK_BIDIR_GBYTE} GB/s 当成了每方向的带宽；它是两个方向之和。"),
        ),
        explanation="令两式相等，带宽项之差 $2S/(N\\beta)$ 等于延迟项之差 $2\\alpha(N-1-\\lceil\\log_2 N\\rceil)$，"
        f"得 $S^* = N\\alpha\\beta(N-1-\\lceil\\log_2 N\\rceil)$ = {units.fmt_bytes(cross, 'MB')}。",
        transfer=True,
    )

    # 2. two-level all-reduce: bytes on one NIC
    s_t = T_PARAMS * BYTES_FP16
    h = algorithms.hierarchical_breakdown(
        s_t, T_RANKS_LARGE, GPUS_PER_NODE, a_out, b_out, intra_latency=a_in, intra_bandwidth=b_in
    )
    flat = collectives.send_volume("all_reduce", s_t, T_RANKS_LARGE)
    q_inter = numeric(
        f"两级全归约：{T_RANKS_LARGE} 张卡 = {h.nodes} 台机器 × 每台 {GPUS_PER_NODE} 张，每张卡一块网卡。"
        f"13B 模型的 fp16 梯度 $S$ = {units.fmt_bytes(s_t)}。先在机内做归约-散播，再让每张卡在 {h.nodes} 台机器之间"
        "对自己负责的那一份做环形全归约，最后机内全收集。节点间阶段里，**每块网卡**发送多少 GB？",
        _gb(h.inter_bytes),
        unit="GB",
        wrong=(
            (_gb(h.inter_unsplit_bytes), f"这是把整份 $S$ 放在节点间做全归约：归约-散播之后每张卡只负责 "
             f"$S/G$，{GPUS_PER_NODE} 块网卡各走一份，所以要除以 $G$——差了 {GPUS_PER_NODE} 倍。"
             "（如果你算的是扁平环每个 rank 的总发送量，它与此几乎相等，但大部分走的是机内 NVLink。）"),
            (_gb(s_t / GPUS_PER_NODE), "这是每张卡负责的那一份 $S/G$；对它做环形全归约还要乘 $2(M-1)/M$。"),
            (_gb(h.intra_bytes), "这是机内两个阶段在 NVLink 上发送的量，不经过网卡。"),
        ),
        explanation=f"$2(S/G)(M-1)/M$ = 2 × {units.fmt_bytes(s_t / GPUS_PER_NODE)} × {h.nodes - 1}/{h.nodes} = "
        f"{units.fmt_bytes(h.inter_bytes, 'GB', 4)}。机内发送 {units.fmt_bytes(h.intra_bytes)}，两者之和恰好等于"
        f"扁平环的 {units.fmt_bytes(flat)}：字节并没有变少，只是大部分换到了更快的链路上。",
        transfer=True,
    )

    # 3. busbw of an all-gather as nccl-tests reports it
    rep = algorithms.measured_bandwidth("all_gather", AG_SIZE, n8, AG_TIME)
    wrong_factor = rep.algbw * collectives.busbw_factor("all_reduce", n8)
    q_busbw = numeric(
        f"nccl-tests 的 `all_gather_perf` 在 {n8} 张卡上报告：size = {AG_SIZE} B（即 1 GiB），time = "
        f"{units.fmt_seconds(AG_TIME)}。它的 busbw 列应是多少 GB/s（1 GB = $10^9$ B）？",
        _gb(rep.busbw),
        unit="GB/s",
        wrong=(
            (_gb(rep.algbw), "这是 algbw = S/t；busbw 还要乘以全收集的因子 $(N-1)/N$。"),
            (_gb(wrong_factor), "$2(N-1)/N$ 是全归约的因子；全收集只有 $(N-1)/N$。"),
            (_gb(rep.busbw / n8), "nccl-tests 全收集的 size 是整个输出数组（每个 rank count × 类型大小 × $N$），"
             "不必再除以 $N$。"),
            (_gb(rep.busbw) * 8, "这是以 Gb/s（比特）计的数。"),
        ),
        explanation=f"algbw = {units.fmt_num(_gb(rep.algbw))} GB/s，busbw = algbw × {n8 - 1}/{n8} = "
        f"{units.fmt_num(_gb(rep.busbw))} GB/s，可与每方向 {units.fmt_bytes(b_in)}/s 的 NVLink 相比，"
        f"约 {units.fmt_num(100 * rep.utilisation(b_in))}%。",
        transfer=True,
    )

    # 4. halving-doubling when N is not a power of two
    t_hd = collectives.alpha_beta_time("all_reduce", HD_SIZE, HD_RANKS, a_out, b_out, "halving_doubling")
    p = 1 << (HD_RANKS.bit_length() - 1)
    t_pow2_formula = 2 * (p.bit_length() - 1) * a_out + 2 * HD_SIZE * (p - 1) / p / b_out
    t_ring = collectives.alpha_beta_time("all_reduce", HD_SIZE, HD_RANKS, a_out, b_out)
    q_hd = numeric(
        f"递归减半-倍增全归约，$N$ = {HD_RANKS}（不是 2 的幂），$S$ = {units.fmt_bytes(HD_SIZE, 'MB')}，"
        f"$\\alpha$ = {units.fmt_seconds(a_out)}，$\\beta$ = {units.fmt_bytes(b_out)}/s。"
        "多出来的 rank 先把整份数据交给一个伙伴、最后再取回结果。α-β 时间是多少 ms？",
        t_hd * 1e3,
        unit="ms",
        wrong=(
            (t_pow2_formula * 1e3, f"只算了 $p$ = {p} 个 rank 之间的减半-倍增，漏了多出来的 rank"
             "先交出、后取回整份数据的 $2\\alpha + 2S/\\beta$。"),
            (t_ring * 1e3, "这是环形算法的时间：在这个规模上它反而更快。"),
        ),
        explanation=f"$p = 2^{{\\lfloor\\log_2 N\\rfloor}}$ = {p}：$2\\log_2 p\\,\\alpha + 2S(p-1)/(p\\beta)$ 再加 "
        f"$2\\alpha + 2S/\\beta$，共 {units.fmt_seconds(t_hd)}；环只要 {units.fmt_seconds(t_ring)}。"
        "额外的 $2S/\\beta$ 正是 HCCL 文档所说“非 2 的幂时引入额外通信量”。",
        transfer=True,
    )

    # 5. the chooser at N = 1000
    pick = collectives.best_algorithm("all_reduce", SMALL_MESSAGE, UNEVEN_RANKS, a_out, b_out)
    names = {"ring": "环（ring）", "tree": "双二叉树（tree）", "halving_doubling": "递归减半-倍增"}
    q_choose = choice(
        f"$N$ = {UNEVEN_RANKS} 个 rank（不是 2 的幂）全归约 {units.fmt_bytes(SMALL_MESSAGE, 'MB')}，"
        f"$\\alpha$ = {units.fmt_seconds(a_out)}，$\\beta$ = {units.fmt_bytes(b_out)}/s。"
        "按本节的 α-β 模型，三种算法中哪一种最快？",
        [
            (names[a], a == pick.best,
             ("对：" if a == pick.best else "") + f"它的时间是 {units.fmt_seconds(pick.time(a))}。")
            for a in ("ring", "tree", "halving_doubling")
        ],
        explanation="小消息、大规模时延迟项决定胜负：环有 $2(N-1)$ 步；减半-倍增与树的步数都约为 $2\\log_2 N$，"
        "但 $N$ 不是 2 的幂时减半-倍增还要多搬一份 $2S$。",
    )

    # 6. erratum 25: NCCL vs HCCL
    q_same = choice(
        "关于 NCCL（NVIDIA GPU）与 HCCL（昇腾 NPU）两套通信库，下面哪一种说法正确？",
        [
            ("两者的算法与数学完全同源，只有拓扑适配和调优经验不同",
             False, "这是把“用同一种代价模型”当成了“用同一组算法”（种子教材也这样写）。分析框架（α-β 模型）"
             "相同，但可选的算法集合并不相同。"),
            ("两者都用 α-β 模型估时，但算法集合不同（如 HCCL 有 H-D_R、NHR，NCCL 有 NVLS、PAT）",
             True, "对：HCCL 文档明确采用 α-β（Hockney）模型；两者的机间算法清单却各不相同。"),
            ("两边的算法一一对应，只是名字不同：HCCL 的 H-D_R 就是 NCCL 的 Tree",
             False, "两者步数都是对数量级，但不是同一个算法：H-D_R 是递归减半-倍增（成对交换、每步数据量减半），"
             "NCCL 的 Tree 是双二叉树（沿树归约再广播、分块流水）；$N$ 不是 2 的幂时 H-D_R 还要多搬一份数据。"),
            ("NCCL 也提供递归减半-倍增全归约，只是默认不启用",
             False, "`NCCL_ALGO` 的可选值里没有递归减半-倍增；那是 HCCL（H-D_R）与 MPI 的常用算法。"),
        ],
        explanation="同一套代价分析，在不同硬件上得出不同的最优算法：HCCL 的 H-D_R、NHR、NB 在 NCCL 里没有对应，"
        "NCCL 的 NVLS 依赖 NVSwitch 的交换机内归约。",
    )

    # 7. NCCL's protocols (erratum 26)
    q_proto = choice(
        "NCCL 为每次调用除了选算法，还要选“协议”。`NCCL_PROTO` 可选的协议是哪一组？",
        [
            ("LL、LL128、Simple", True, "对：低延迟的 LL、LL128 与高带宽的 Simple。"),
            ("点对点（P2P）与简单算法", False, "这是把 NCCL 的 P2P 传输、Simple 协议与“算法”混在了一起"
             "（种子教材的写法）。协议名是 LL、LL128 与 Simple。"),
            ("Ring 与 Tree", False, "这些是算法（`NCCL_ALGO`），不是协议。"),
            ("P2P（NVLink/PCIe）、SHM、NET（IB/RoCE）", False,
             "这些是 NCCL 的传输方式（transport），由拓扑决定数据走哪条路；与 `NCCL_PROTO` 无关。"),
        ],
        explanation="算法决定数据经过哪些 rank、走多少步；协议决定每一步怎样打包与同步。"
        "NCCL 为每个（算法，协议）组合各估一个延迟和带宽，再挑时间最短的。",
    )
    return [q_cross, q_inter, q_busbw, q_hd, q_choose, q_same, q_proto]
