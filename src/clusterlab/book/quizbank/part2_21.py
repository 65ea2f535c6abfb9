"""Self-check questions for 集群篇 §2.1 (分块数的甜点), ``book/part2/02-1-chunking.ipynb``.

Given data are the module constants below (the same as in the notebook); every key comes from
:mod:`clusterlab.communication.ring` or :mod:`clusterlab.communication.chunking`. Distractors are the slips readers
make: taking the
single-chain optimum for the ring, dropping ``(h−1)``, bits for bytes, forgetting that a block is ``S/N``,
using the stall-free formula when ``c < h``, algorithms or transports taken for NCCL's protocols. The 13B /
16-rank / 400 Gb/s job (``T_`` constants) is not worked through in the section: those questions ask for transfer.
"""

from __future__ import annotations

import math
from typing import Final

from ... import units
from ...communication import chunking, ring
from ..quiz import Choice, Numeric, choice, numeric

__all__ = [
    "BYTES_FP16",
    "HAND_CHUNKS",
    "HAND_RANKS",
    "HAND_SIZE",
    "LATENCY",
    "LINK_GBIT",
    "MANY_CHUNKS",
    "PARAMS",
    "RANKS",
    "STAGES",
    "T_LINK_GBIT",
    "T_PARAMS",
    "T_RANKS",
    "c021_questions",
    "gradient_bytes",
    "link_bandwidth",
]

PARAMS: Final = 7e9  # Ψ of a 7B model
BYTES_FP16: Final = 2
RANKS: Final = 8
LINK_GBIT: Final = 200  # per direction
LATENCY: Final = 5e-6  # α per chunk per stage (assumption of the section)
STAGES: Final = 3  # h: GPU → NIC, network, NIC → GPU (assumption of the section)
MANY_CHUNKS: Final = 100
HAND_SIZE: Final = 8e6  # 8 MB, a case small enough to do by hand
HAND_RANKS: Final = 4
HAND_CHUNKS: Final = 2
# transfer: a job the section does not work through (13B fp16 gradients, 16 ranks, 400 Gb/s)
T_PARAMS: Final = 13e9
T_RANKS: Final = 16
T_LINK_GBIT: Final = 400  # per direction

Question = Numeric | Choice


def gradient_bytes() -> float:
    """S = Ψ × 2 B (fp16 gradients of one rank)."""
    return PARAMS * BYTES_FP16


def link_bandwidth() -> float:
    """β = 200 Gb/s per direction in B/s (25 GB/s)."""
    return units.gbit_per_s(LINK_GBIT)


def c021_questions() -> list[Question]:
    """Self-check of §2.1: single stage, the optimum and its chunk size, a hand case with c < h, protocols."""
    s = gradient_bytes()
    beta = link_bandwidth()
    n, h, a = RANKS, STAGES, LATENCY
    beta_txt = f"{units.fmt_bytes(beta)}/s"
    alpha_txt = units.fmt_seconds(a)

    # 1. single stage: chunking only adds latency
    t1 = ring.pipelined_time(s, n, 1, a, beta, stages=1)
    tc = ring.pipelined_time(s, n, MANY_CHUNKS, a, beta, stages=1)
    extra_ms = (tc - t1) * 1e3
    q_single = numeric(
        f"单段链路（$h$ = 1）上的环形全归约：$N$ = {n}，$S$ = {units.fmt_bytes(s)}，"
        f"$\\alpha$ = {alpha_txt}，$\\beta$ = {beta_txt}。每块切成 $c$ = {MANY_CHUNKS} 份，"
        "比不切（$c$ = 1）多花多少毫秒？",
        extra_ms,
        rel_tol=0.005,
        unit="ms",
        wrong=(
            ((MANY_CHUNKS - 1) * a * 1e3, "你只算了一步：环有 $2(N-1)$ 步，每一步都多付 $(c-1)$ 次 $\\alpha$。"),
            ((n - 1) * (MANY_CHUNKS - 1) * a * 1e3, "这只是一个阶段；归约-散播与全收集各 $N-1$ 步。"),
            (
                2 * (n - 1) * MANY_CHUNKS * a * 1e3,
                "不切时每步本来就有一次 $\\alpha$，多出来的是 $(c-1)$ 次，不是 $c$ 次。",
            ),
            (0.0, "切块不会让带宽项变小（它已经是下界），却让每步多出 $(c-1)$ 次 $\\alpha$。"),
        ),
        explanation=f"$T(c) = 2(N-1)(c\\alpha + S/(N\\beta))$，所以多出 $2(N-1)(c-1)\\alpha$ = "
        f"{units.fmt_num(extra_ms)} ms。单段链路上每一步所有链路都在忙，切块只增加消息数。",
        transfer=True,
    )

    # 2. continuous optimum of a job the section does not work through
    s_t = T_PARAMS * BYTES_FP16
    beta_t = units.gbit_per_s(T_LINK_GBIT)
    n_t = T_RANKS
    opt = chunking.best_chunks(s_t, n_t, a, beta_t, stages=h)
    chain = math.sqrt((h - 1) * s_t / (a * beta_t))
    no_h = math.sqrt(s_t / (2 * n_t * (n_t - 1) * a * beta_t))
    bits = math.sqrt((h - 1) * s_t / (2 * n_t * (n_t - 1) * a * (8 * beta_t)))
    q_opt = numeric(
        f"按本节的分段流水线模型（每对相邻 rank 之间 $h$ = {h} 段，每段每块耗时 $\\alpha + b/\\beta$），"
        f"换一个作业：13B 模型的 fp16 梯度 $S$ = {units.fmt_bytes(s_t)}，$N$ = {n_t}，$\\alpha$ = {alpha_txt}，"
        f"$\\beta$ = {T_LINK_GBIT} Gb/s（每方向）。连续意义下的最优块数 $c^*$ 约是多少？",
        opt.continuous,
        abs_tol=1.0,
        wrong=(
            (chain, "这是单条消息穿过 $h$ 段的最优值 $\\sqrt{(h-1)S/(\\alpha\\beta)}$；环上每块只有 $S/N$，"
             "而且每条路径要走 $2(N-1)$ 步。"),
            (no_h, "漏了因子 $(h-1)$：填充与排空的代价是 $(h-1)$ 个块时，不是 1 个。"),
            (bits, f"把 {T_LINK_GBIT} Gb/s 当成了 {T_LINK_GBIT} GB/s：先除以 8 换成字节。"),
            (float(h), "只有中等大小的消息最优值才恰好等于 $h$；这里消息很大，填充代价值得用更多块摊薄。"),
        ),
        explanation=f"$c^* = \\sqrt{{(h-1)S/(2N(N-1)\\alpha\\beta)}}$ = {units.fmt_num(opt.continuous)}，"
        f"最好的整数是 {opt.chunks}。",
        transfer=True,
    )

    # 3. chunk size at the integer optimum
    chunk_mb = units.bytes_to(opt.chunk_bytes, "MB")
    q_size = numeric(
        f"接上题：取最好的整数块数 $c$ = {opt.chunks}，每块多少 MB（1 MB = $10^6$ B）？",
        chunk_mb,
        unit="MB",
        wrong=(
            (
                units.bytes_to(s_t / opt.chunks, "MB"),
                "被切的是每一块 $S/N$，不是整份 $S$：每块 $S/(Nc)$。"
                "（如果你算的是 Mb，那是把字节当成了比特。）",
            ),
            (units.bytes_to(s_t / n_t, "MB"), "这是不切时一块的大小 $S/N$。"),
            (units.bytes_to(opt.chunk_bytes, "MiB"), "这是以 MiB（$2^{20}$ B）计的数；题目用 MB = $10^6$ B。"),
        ),
        explanation=f"$b = S/(Nc)$ = {units.fmt_bytes(opt.chunk_bytes, 'MB')}。",
        transfer=True,
    )

    # 4. a hand case with c < h
    t_hand = ring.pipelined_time(HAND_SIZE, HAND_RANKS, HAND_CHUNKS, a, beta, stages=h)
    tau = a + HAND_SIZE / (HAND_RANKS * HAND_CHUNKS * beta)
    steps = 2 * (HAND_RANKS - 1)
    q_hand = numeric(
        f"$N$ = {HAND_RANKS}，$S$ = {units.fmt_bytes(HAND_SIZE, 'MB')}，每块切成 $c$ = {HAND_CHUNKS} 份，"
        f"$h$ = {h} 段，$\\alpha$ = {alpha_txt}，$\\beta$ = {beta_txt}。按本节的模型，一次全归约要多少微秒？",
        t_hand * 1e6,
        unit="µs",
        wrong=(
            ((steps * HAND_CHUNKS + h - 1) * tau * 1e6,
             "这是 $c \\ge h$ 时的公式；这里 $c < h$，每一步都要等它的第一块穿过全部 $h$ 段。"),
            (steps * HAND_CHUNKS * h * tau * 1e6, "你让每块依次走完全部段才放下一块，没有流水线。"),
            (steps * h * tau * 1e6, "少了最后一步里其余 $c-1$ 块的 $(c-1)\\tau$。"),
        ),
        explanation=f"$\\tau = \\alpha + S/(Nc\\beta)$ = {units.fmt_seconds(tau)}；$c < h$ 时 "
        f"$T = (2(N-1)h + c - 1)\\tau$ = {2 * (HAND_RANKS - 1) * h + HAND_CHUNKS - 1} $\\tau$ = "
        f"{units.fmt_seconds(t_hand)}。",
        transfer=True,
    )

    q_why = choice(
        "在普通的 α-β 环模型里（相邻两卡之间只有一段链路），为什么把每块再切成 $c$ 份不能让全归约变快？",
        [
            (
                "块切小了，每块的有效带宽会下降",
                False,
                "把“小消息跑不满带宽”当成了 β 变小。模型里 β 与消息大小无关；小消息显得慢，"
                "正是每块多付的 $\\alpha$，已经算在 $c\\alpha$ 里了。",
            ),
            (
                "每一步所有链路都已在忙，带宽项已是下界；切块只会多付 $\\alpha$",
                True,
                "对：没有空闲的链路可以让流水线填满，能变的只有延迟项，而它随 $c$ 增长。",
            ),
            (
                "其实能变快：一小块到了右邻就能继续转发，相邻几步可以重叠",
                False,
                "这是把多段路径上的流水线搬到了单段链路上。单段时每一步里每条链路都已在发，"
                "没有空闲的链路可供重叠；闭式与逐块的离散事件模拟都给出 "
                "$T(c) = 2(N-1)(c\\alpha + S/(N\\beta))$，随 $c$ 单调增加。",
            ),
        ],
        explanation="切块之所以有用，是因为数据在相邻两卡之间要经过几段先存后发的环节（$h > 1$），"
        "切块让这几段同时工作。",
    )
    q_proto = choice(
        "NCCL 通过环境变量 `NCCL_PROTO` 可以限定使用哪些**协议**。它们是：",
        [
            (
                "点对点（P2P）与简单算法",
                False,
                "种子教材这样写，是把 NCCL 的 P2P 传输、Simple 协议与“算法”三者混在了一起。"
                "协议名是 LL、LL128 与 Simple；P2P 是一种传输方式。",
            ),
            ("Ring、Tree、CollNet、NVLS、PAT", False, "这些是**算法**，由 `NCCL_ALGO` 限定。"),
            ("LL、LL128、Simple", True, "对：NCCL 文档不建议用户设置它，除非怀疑某个协议有缺陷。"),
            (
                "P2P（NVLink/PCIe）、SHM、NET（IB/RoCE）",
                False,
                "这些是 NCCL 的**传输方式**（transport），由拓扑决定数据走哪条路；协议决定的是数据怎样打包、"
                "怎样通知对方到达，两者是正交的。",
            ),
        ],
        explanation="协议决定一块数据怎样打包、怎样通知对方“到了”：LL 与 LL128 把标志位和数据放在一起，"
        "延迟低但有效载荷比例较小；Simple 用整块缓冲区和单独的同步，适合大消息。",
    )
    quad = chunking.best_chunks(s_t, n_t, 4 * a, beta_t, stages=h).continuous / opt.continuous
    q_alpha = choice(
        "大消息区间（$c^* > h$）里，每块每段的固定开销 $\\alpha$ 变为原来的 4 倍，其他不变。"
        "最优块数 $c^*$ 变为原来的：",
        [
            ("2 倍", abs(quad - 2) < 1e-9, "方向反了：每块更贵，就该切得更少。"),
            ("1/4", abs(quad - 0.25) < 1e-9, "$c^*$ 与 $\\alpha$ 的平方根成反比，不是与 $\\alpha$ 成反比。"),
            ("1/2", abs(quad - 0.5) < 1e-9, "对：$c^* \\propto 1/\\sqrt{\\alpha}$。"),
            ("不变", abs(quad - 1) < 1e-9, "$c^*$ 由填充代价与每块开销的平衡决定，$\\alpha$ 一变它就变。"),
        ],
        explanation="$c^* = \\sqrt{(h-1)S/(2N(N-1)\\alpha\\beta)}$："
        "$S$ 变大要多切，$\\alpha$、$\\beta$、$N$ 变大要少切。",
    )
    return [q_single, q_opt, q_size, q_hand, q_why, q_proto, q_alpha]
