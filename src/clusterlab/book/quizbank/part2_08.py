"""Self-check questions for 集群篇 §8 (``book/part2/08-summary.ipynb``): one question per thread of the part.

Given data are the module constants; every key comes from the compute layer (collectives, network, checkpoint,
pipeline), through the same functions the formula sheet (:mod:`clusterlab.book.formulas`) names. The numbers
differ from every page of the part, so the numeric questions test transfer: the reader picks the formula from the
sheet and applies it. Distractors: the bandwidth term without the latency term, ``2S/β`` for the ring, the
two-tier capacity for a three-tier fabric, forgetting the restart term ``R/M``, and the other bubble convention.
"""

from __future__ import annotations

from typing import Final

from ... import units
from ...cluster import network, pipeline
from ...communication import collectives
from ...faults import checkpoint
from ..quiz import Choice, Numeric, choice, numeric

__all__ = [
    "AR_BANDWIDTH",
    "AR_LATENCY",
    "AR_RANKS",
    "AR_SIZE",
    "BUBBLE_M",
    "BUBBLE_P",
    "FT_MTBF",
    "FT_RESTART",
    "FT_SAVE",
    "RADIX",
    "c08_questions",
]

AR_SIZE: Final = 2e9  # B
AR_RANKS: Final = 128
AR_LATENCY: Final = 8e-6  # s per step
AR_BANDWIDTH: Final = units.gbit_per_s(400)  # B/s per direction
RADIX: Final = 48  # ports per switch
FT_SAVE: Final = 60.0  # δ, s
FT_MTBF: Final = 3 * units.HOUR  # M, s
FT_RESTART: Final = 600.0  # R, s
BUBBLE_P: Final = 12
BUBBLE_M: Final = 36

Question = Numeric | Choice


def c08_questions() -> list[Question]:
    """Self-check of §8: ring time, three-tier capacity, waste at the optimum, bubble, and the ordering of axes."""
    t = collectives.alpha_beta_time("all_reduce", AR_SIZE, AR_RANKS, AR_LATENCY, AR_BANDWIDTH, "ring")
    bw = collectives.send_volume("all_reduce", AR_SIZE, AR_RANKS) / AR_BANDWIDTH
    q_ring = numeric(
        f"{AR_RANKS} 个 rank 用环形全归约同步 {AR_SIZE / 1e9:.0f} GB，每步延迟 α = {AR_LATENCY * 1e6:.0f} µs，"
        "网卡 400 Gb/s（每方向）。按 α-β 模型要多少毫秒？",
        t * 1e3, unit="ms", rel_tol=0.005,
        wrong=(
            (bw * 1e3, "只算了带宽项；环要走 $2(N-1)$ 步，每步付一次 α。"),
            (2 * AR_SIZE / AR_BANDWIDTH * 1e3 + 2 * (AR_RANKS - 1) * AR_LATENCY * 1e3,
             "带宽项是 $2S(N-1)/(N\\beta)$，不是 $2S/\\beta$。"),
            (collectives.alpha_beta_time("all_reduce", AR_SIZE, AR_RANKS, AR_LATENCY, 400e9, "ring") * 1e3,
             "把 400 Gb/s 当成了 400 GB/s：Gb/s 是比特，每方向 50 GB/s。"),
        ),
        explanation=f"$2(N-1)\\alpha$ = {2 * (AR_RANKS - 1) * AR_LATENCY * 1e3:.2f} ms，"
        f"$2S(N-1)/(N\\beta)$ = {bw * 1e3:.2f} ms，合计 {t * 1e3:.2f} ms。",
        transfer=True,
    )
    cap3 = network.max_hosts(RADIX, 3)
    q_cap = numeric(
        f"用 {RADIX} 口交换机搭三层无阻塞胖树，最多能接多少块网卡（主机端口）？",
        cap3, unit="个", rel_tol=1e-9,
        wrong=(
            (network.max_hosts(RADIX, 2), "这是两层的 $k^2/2$。"),
            (RADIX**3 / 2, "三层是 $k^3/4$：每层都要留一半端口向上。"),
            (RADIX**3 / 8, "多除了一个 2：核心层的口全部向下。"),
        ),
        explanation=f"$k^3/4$ = {RADIX}³/4 = {cap3:,}（两层时 $k^2/2$ = {network.max_hosts(RADIX, 2):,}）。",
        transfer=True,
    )
    w = checkpoint.optimal_wasted_fraction(FT_SAVE, FT_MTBF, FT_RESTART)
    q_waste = numeric(
        f"作业 MTBF {FT_MTBF / units.HOUR:.0f} h，一次保存阻塞 {FT_SAVE:.0f} s，"
        f"恢复（MTTR）{FT_RESTART / 60:.0f} 分钟。按最优间隔存 checkpoint，一阶模型下损失多少百分比的墙钟时间？",
        100 * w, unit="%", rel_tol=0.01,
        wrong=(
            (100 * checkpoint.optimal_wasted_fraction(FT_SAVE, FT_MTBF), "漏了恢复项 $R/M$。"),
            (100 * FT_RESTART / FT_MTBF, "只算了恢复；保存与重做合起来还有 $\\sqrt{2\\delta/M}$。"),
            (100 * checkpoint.optimal_wasted_fraction(FT_SAVE, FT_MTBF / units.HOUR * 60, FT_RESTART / 60),
             "单位混用了：$\\delta$、$M$、$R$ 要用同一个时间单位。"),
        ),
        explanation=f"$\\sqrt{{2\\delta/M}} + R/M$ = {100 * (w - FT_RESTART / FT_MTBF):.1f}% + "
        f"{100 * FT_RESTART / FT_MTBF:.1f}% = {100 * w:.1f}%：规模越大，MTTR 这一项越是主角。",
        transfer=True,
    )
    b = pipeline.bubble(BUBBLE_P, BUBBLE_M)
    q_bubble = numeric(
        f"流水线 {BUBBLE_P} 段、每步 {BUBBLE_M} 个 micro-batch（不交错）。空泡占一步总时间的百分比是多少？",
        100 * b.of_total, unit="%", rel_tol=0.01,
        wrong=(
            (100 * b.of_ideal, "这是 Megatron 的口径 $(p-1)/m$：相对理想计算时间，不是占总时间。"),
        ),
        explanation=f"$(p-1)/(m+p-1)$ = {BUBBLE_P - 1}/{BUBBLE_M + BUBBLE_P - 1} = {100 * b.of_total:.1f}%"
        f"（相对理想计算时间是 {100 * b.of_ideal:.1f}%）。",
        transfer=True,
    )
    q_axes = choice(
        "一台 8 卡节点内有 NVLink、节点间是每卡一块网卡。哪种放法符合三种并行的通信特点？",
        [
            ("TP 留在节点内，DP 与 PP 跨节点", True,
             "对：TP 每层每个 micro-batch 都要全归约激活，只有 NVLink 喂得起；"
             "DP 每步一次、量大，PP 只传段边界的激活。"),
            ("DP 留在节点内，TP 跨节点，因为 DP 的字节最多", False,
             "DP 字节多但每步只同步一次、可与反向重叠；"
             "TP 的全归约在关键路径上、次数多，跨节点会拖慢每一层。"),
            ("PP 留在节点内，因为它对延迟最敏感", False,
             "PP 每个 micro-batch 只发一次激活，是三者中最省的，适合跨节点。"),
        ],
        explanation="通信最密的轴放在最快的链路上，最稀的放在最外层。",
    )
    return [q_ring, q_cap, q_waste, q_bubble, q_axes]
