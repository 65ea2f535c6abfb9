"""Self-check questions for 集群篇 §5 (``book/part2/05-fault-tolerance.ipynb``): fault tolerance at scale.

Given data are the module constants below (the same as in the notebook); every key comes from
:mod:`clusterlab.faults.reliability`, :mod:`clusterlab.faults.checkpoint` or :mod:`clusterlab.faults.recovery`.
Distractors are the slips
readers make: the original text's optimistic failure rate, forgetting that a job fails ``G`` times as often as
one GPU, hours for days, averaging the link bandwidths of a ring, dropping the 2 from Young's ``sqrt(2δM)`` or
mixing minutes and hours in it, leaving the restart (MTTR) or the redone work out of the goodput, and the belief
that a checkpoint only needs the weights.
"""

from __future__ import annotations

from typing import Final

import numpy as np

from ... import units
from ...faults import checkpoint, reliability, slowlink
from ...faults.slowlink import slowdown_for_throughput, throughput_with_slow_link
from ..quiz import Choice, Numeric, choice, numeric

__all__ = [
    "EXPOSED_FRACTION",
    "GPUS",
    "GPUS_LARGE",
    "LINK_GBYTE",
    "MTTR",
    "RANKS",
    "SAVE_TIME",
    "SIZE",
    "SLOW_FACTOR",
    "TARGET_THROUGHPUT",
    "T_EXPOSED_FRACTION",
    "T_GPUS",
    "T_TARGET_THROUGHPUT",
    "c05_questions",
    "llama3_rate",
]

GPUS: Final = 1024  # a "thousand-GPU" job
GPUS_LARGE: Final = 16384  # Llama 3 scale
SAVE_TIME: Final = 60.0  # δ = 1 min (s)
MTTR: Final = 1800.0  # 30 min from failure to computing again (s)
RANKS: Final = 8  # ring all-reduce over 8 ranks
SIZE: Final = 14e9  # 7B fp16 gradients, bytes per rank
LINK_GBYTE: Final = 25  # 200 Gb/s per direction = 25 GB/s
SLOW_FACTOR: Final = 10  # one link at 1/10 speed
EXPOSED_FRACTION: Final = 0.2  # share of the step spent in exposed communication
TARGET_THROUGHPUT: Final = 0.7  # "throughput drops by 30 %"
# transfer: a job size and a slowdown the section does not work through
T_GPUS: Final = 1536
T_EXPOSED_FRACTION: Final = 0.3
T_TARGET_THROUGHPUT: Final = 0.75

Question = Numeric | Choice


def llama3_rate() -> float:
    """Unexpected interruptions per GPU-hour in Llama 3's 54-day snapshot (419 on up to 16 384 GPUs)."""
    return reliability.failure_source("llama3").rate


def _h(seconds: float) -> float:
    return seconds / units.HOUR


def c05_questions() -> list[Question]:
    """Self-check of §5: job MTBF, a slow link, Young's interval, goodput, a degraded link's cost, the four
    pieces of a checkpoint, Adam without its moments, resuming without the RNG state."""
    lam = llama3_rate()
    seed = reliability.failure_source("seed").rate
    m = reliability.job_mtbf(T_GPUS, lam)
    m_large = reliability.job_mtbf(GPUS_LARGE, lam)

    q_mtbf = numeric(
        f"Llama 3 在 54 天里、最多 {GPUS_LARGE} 张 H100 上记录了 419 次非计划中断。按同样的每卡故障率"
        f"（约 {lam:.3g} 次/卡·小时），一个 {T_GPUS} 卡的同步训练作业平均每隔多少**小时**被中断一次？",
        _h(m),
        unit="h",
        wrong=(
            (_h(reliability.job_mtbf(T_GPUS, seed)),
             "你用了 3×10⁻⁶ /卡·小时这个偏低的假设速率（种子教材的数），它比公开数据乐观好几倍。"),
            (_h(m_large), f"你以为 MTBF 是集群的固定属性；这是 {GPUS_LARGE} 卡的值，卡数少到 "
             f"1/{units.fmt_num(GPUS_LARGE / T_GPUS)}，MTBF 长到 {units.fmt_num(GPUS_LARGE / T_GPUS)} 倍。"),
            (_h(m_large) * T_GPUS / GPUS_LARGE, "缩放方向反了：卡越少，MTBF 越长。"),
            (1 / lam, "这是单张卡的 MTBF $1/\\lambda$；作业里任何一张卡出故障都会打断它，要再除以卡数 $G$。"),
            (m / 86400, "这是以天计的数；题目问小时。"),
        ),
        explanation=f"$\\text{{MTBF}} = 1/(G\\lambda)$ = 1/({T_GPUS} × {lam:.3g}) h ≈ {units.fmt_num(_h(m))} h，"
        f"约 {units.fmt_num(m / 86400)} 天。",
        transfer=True,
    )

    beta = units.gbyte_per_s(LINK_GBYTE)
    healthy = slowlink.ring_with_slow_link(SIZE, [beta] * RANKS)
    slow = slowlink.ring_with_slow_link(SIZE, [beta] * (RANKS - 1) + [beta / SLOW_FACTOR])
    mean_beta = float(np.mean([beta] * (RANKS - 1) + [beta / SLOW_FACTOR]))
    q_slow = numeric(
        f"环形全归约：$N$ = {RANKS}，每个 rank $S$ = {units.fmt_bytes(SIZE)}，$\\alpha$ = 0。{RANKS - 1} 条链路每方向 "
        f"{LINK_GBYTE} GB/s，剩下一条降到 1/{SLOW_FACTOR}。一次全归约要多少秒？",
        slow.total_time,
        unit="s",
        wrong=(
            (healthy.total_time, "这是全部链路健康时的时间。环是同步的：每一步都要等最慢的那条链路。"),
            (
                2 * SIZE * (RANKS - 1) / RANKS / mean_beta,
                "你用了各链路带宽的平均值。每一步所有链路同时传一块，步长由最慢的链路决定，不是平均。",
            ),
            (2 * SIZE / (beta / SLOW_FACTOR), "漏了因子 $(N-1)/N$：每个 rank 发送 $2S(N-1)/N$。"),
        ),
        explanation=f"慢链路每步要 $S/(N\\beta_{{slow}})$，{2 * (RANKS - 1)} 步合计 "
        f"$2S(N-1)/(N\\beta_{{slow}})$ = {units.fmt_seconds(slow.total_time)}，是健康时的 "
        f"{units.fmt_num(slow.total_time / healthy.total_time)} 倍；其余链路有 "
        f"{units.fmt_num(100 * float(slow.idle_fraction()[0]))}% 的时间在等。",
    )

    t_star = checkpoint.young_interval(SAVE_TIME, m)
    q_young = numeric(
        f"接第 1 题：{T_GPUS} 卡作业的 MTBF 按 Llama 3 的速率计算，写一次 checkpoint 要 $\\delta$ = 1 min。"
        "按 Young 公式，最优 checkpoint 间隔是多少**小时**？",
        _h(t_star),
        unit="h",
        wrong=(
            (_h((SAVE_TIME * m) ** 0.5), "漏了根号里的 2：Young 的间隔是 $\\sqrt{2\\delta M}$。"),
            ((2 * 1 * _h(m)) ** 0.5, "单位混了：$\\delta$ 用分钟、$M$ 用小时，结果既不是分钟也不是小时。先统一成秒。"),
            (_h(m) / 2, "这是 $M/2$，不是最优间隔；间隔要在写盘开销 $\\delta/T$ 与丢失进度 $T/(2M)$ 之间折中。"),
        ),
        explanation=f"$T^* = \\sqrt{{2\\delta M}}$ = √(2 × {units.fmt_num(SAVE_TIME)} s × {units.fmt_num(m, 4)} s) ≈ "
        f"{units.fmt_num(t_star, 4)} s ≈ {units.fmt_num(_h(t_star))} h，落在原文 0.5–2 h 的区间里。",
        transfer=True,
    )

    t_large = checkpoint.young_interval(SAVE_TIME, m_large)
    g = reliability.goodput(t_large, SAVE_TIME, m_large, MTTR)
    no_mttr = reliability.goodput(t_large, SAVE_TIME, m_large, 0.0)
    q_goodput = numeric(
        f"{GPUS_LARGE} 卡、Llama 3 的故障率，$\\delta$ = 1 min，间隔取 Young 最优值；每次故障从发生到重新开始计算"
        f"（MTTR）要 {units.fmt_num(MTTR / 60)} min，另外平均要重算半个间隔的进度。"
        "按一阶模型，有效训练占墙钟时间的百分之几？",
        100 * g.useful,
        rel_tol=0.01,
        unit="%",
        wrong=(
            (100 * no_mttr.useful, "你忘了 MTTR：每次故障还要付检测、定位、重启、加载的时间。"),
            (100 * (1 - g.save - g.recovery), "你忘了重算丢失的进度：平均每次故障丢掉半个间隔。"),
            (100 * (1 - g.lost_work - g.recovery), "你忘了写 checkpoint 本身占的时间。"),
        ),
        explanation=f"MTBF = {units.fmt_num(_h(m_large))} h，$T^*$ = {units.fmt_num(t_large / 60)} min。"
        f"写盘占 {units.fmt_num(100 * g.save)}%，重算占 {units.fmt_num(100 * g.lost_work)}%，"
        f"恢复占 {units.fmt_num(100 * g.recovery)}%，剩下 {units.fmt_num(100 * g.useful)}%。"
        "规模越大，MTTR 的分量越重。",
        transfer=True,
    )

    f_t, tp_t = T_EXPOSED_FRACTION, T_TARGET_THROUGHPUT
    k = slowdown_for_throughput(f_t, tp_t)
    q_degraded = numeric(
        f"一个训练步里有 {units.fmt_num(100 * f_t)}% 的时间在等没被计算掩盖的通信（带宽受限的环形"
        f"集合通信）。环上一条链路慢到原来的 $1/k$，吞吐降到原来的 {units.fmt_num(100 * tp_t)}%。"
        "$k$ 是多少？",
        k,
        wrong=(
            (1 / tp_t, "你把整步都当成了通信；只有暴露的那部分通信会变慢 $k$ 倍。"),
            (1 + (1 - tp_t) / f_t,
             f"吞吐是步长的倒数：步长变为 $1/{units.fmt_num(tp_t)}$ 倍，而不是增加 "
             f"{units.fmt_num(100 * (1 - tp_t))}%。"),
        ),
        explanation=f"步长 $(1-f) + kf = 1/{units.fmt_num(tp_t)}$，解得 $k$ ≈ {units.fmt_num(k)}"
        f"（验算：吞吐 = {units.fmt_num(throughput_with_slow_link(f_t, k))}）。"
        "一条只慢了一两倍的链路就足以吃掉四分之一的吞吐，而且不会触发任何超时。",
        transfer=True,
    )

    q_pieces = choice(
        "要让从 checkpoint 恢复的训练与不中断的训练**逐位相同**，checkpoint 里必须有哪些东西？（多选）",
        [
            ("模型权重", True, "当然需要。"),
            ("优化器状态（Adam 的 $m$、$v$ 与步数）", True, "对：丢了它，恢复后的头几步步长会变成约 lr。"),
            ("所有随机数发生器的状态（dropout、数据打乱……）", True, "对：重新播种会重放旧的随机数，实验悄悄变了。"),
            ("数据加载器的位置（轮次、本轮中的位置、本轮的顺序）", True, "对：丢了它会重复一些样本、跳过另一些。"),
            ("训练日志与损失曲线", False, "日志对排查有用，但训练的下一步不依赖它。"),
        ],
        multiple=True,
        explanation="四件套：权重、优化器状态、RNG 状态、数据位置。本节的实验里，四件全部恢复时损失曲线与不中断的"
        "运行逐位相同，缺任何一件都会从恢复后的第一步起分岔。",
    )
    q_adam = choice(
        "恢复时丢了 Adam 的状态（$m = v = 0$，步数从 0 重新计）。第一步里，一个梯度 $g \\ne 0$ 的参数移动多少？",
        [
            ("0：动量是 0，所以不动", False, "偏差校正把 $m$ 放大了 $1/(1-\\beta_1)$ 倍，第一步并不为 0。"),
            ("约 $\\text{lr}\\cdot\\text{sign}(g)$，与 $|g|$ 无关", True,
             "对：$\\hat m = g$、$\\hat v = g^2$，更新是 $\\text{lr}\\cdot g/(|g|+\\epsilon)$。"),
            ("约 $\\text{lr}\\cdot g$，和 SGD 一样", False,
             "Adam 除以了 $\\sqrt{\\hat v} = |g|$，步长与梯度大小无关。"),
            ("与中断前的最后一步相同", False, "中断前的步长由累积的 $v$ 决定，通常远小于 lr。"),
        ],
        explanation="正常训练时 $\\hat v$ 记着很多步的梯度平方，步长常常只有 lr 的几十分之一；清零后每个参数都一下子"
        "走满 lr，损失因此跳变。",
    )
    q_rng = choice(
        "恢复时权重、优化器状态与数据位置都对，只是随机数发生器按初始种子重新播种了。会怎样？",
        [
            ("报错，无法继续训练", False, "不会报错：重新播种是完全合法的操作。"),
            ("与不中断的训练逐位相同", False, "dropout 掩码与之后的打乱顺序都变了，从恢复后的第一步起就不同。"),
            ("照常训练、损失照常下降，但已是另一个实验，无法与不中断的运行逐位对照", True,
             "对：这正是它危险的地方——什么都没坏，只是结果不可复现。"),
            ("损失立刻大幅跳变", False, "跳变是丢掉优化器状态的症状；丢 RNG 只会让曲线悄悄走上另一条轨迹。"),
        ],
        explanation="重新播种让发生器回到第 0 步的状态，恢复后的 dropout 掩码和打乱顺序重放的是训练开头用过的随机数，"
        "而不是中断处接下来的那些。训练本身没有错，损失照样下降，但它已经不是原来那次运行的延续：要逐位对照，"
        "checkpoint 必须保存每个发生器（Python、NumPy、框架的 CPU 与 GPU 发生器、数据加载器）的状态，恢复时原样装回。",
    )
    return [q_mtbf, q_slow, q_young, q_goodput, q_degraded, q_pieces, q_adam, q_rng]
