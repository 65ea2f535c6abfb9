"""Self-check questions for all of §9.6 (即时自测 · 9.6), ``book/part1/9.6-selftest.ipynb``.

The original text's four questions (Q1 per-rank volumes and ZeRO-2, Q2 overlap from an exposed time, Q3 MTBF of
many cards, Q4 sources of non-bitwise reproducibility), with the corrected ZeRO-2 reasoning (ZeRO-2 per step =
reduce-scatter of the gradients + all-gather of the parameters = 2Ψ, the same as DDP: ZeRO §7.2.1), plus questions
so that every section 9.6.1–9.6.5 is covered. Given data are the module constants; every key is computed by
:mod:`clusterlab` (collectives, training, overlap, checkpoint, reliability, parallel). :func:`groups` names the
questions of each section, in bank order, for the page's 参考要点.
"""

from __future__ import annotations

from typing import Final

from ... import units
from ...cluster import parallel, training
from ...communication import collectives, overlap
from ...faults import checkpoint, reliability
from ..quiz import Choice, Numeric, choice, numeric

__all__ = [
    "GROUPS",
    "Q1_GRAD_BYTES",
    "Q1_PARAMS",
    "Q1_RANKS",
    "Q2B_COMM",
    "Q2B_COMPUTE",
    "Q2B_RATIO",
    "Q2_COMM",
    "Q2_COMPUTE",
    "Q2_EXPOSED",
    "Q3_DAYS",
    "Q3_EVENT_GPUS",
    "Q3_GPUS",
    "Q5_DP",
    "Q5_PARAMS",
    "Q5_PP",
    "Q6_MTBF_H",
    "Q6_SAVE",
    "SEED_RATE",
    "groups",
    "questions",
]

# Q1 (transfer): a 1.3B model, fp16 gradients, 16 ranks — numbers the chapter does not print
Q1_PARAMS: Final = 1.3e9
Q1_GRAD_BYTES: Final = 2  # B per gradient element (fp16)
Q1_RANKS: Final = 16
# Q2: the original's self-test Q2
Q2_COMPUTE: Final = 30.0  # s
Q2_COMM: Final = 12.0  # s
Q2_EXPOSED: Final = 4.8  # s
# Q2b (transfer): more communication than compute
Q2B_COMPUTE: Final = 20.0  # s
Q2B_COMM: Final = 25.0  # s
Q2B_RATIO: Final = 0.9
# checkpoint interval (transfer)
Q6_SAVE: Final = 30.0  # δ, s
Q6_MTBF_H: Final = 5.0  # M, h
# Q3 (transfer): failures at a scale the chapter's tables do not list
Q3_GPUS: Final = 4096
Q3_EVENT_GPUS: Final = 2048
Q3_DAYS: Final = 7
SEED_RATE: Final = 3e-6  # /GPU·h, the original text's assumption
# 5D balancing (transfer): the original's 7B row (TP 1 × PP 2 × DP 2048) changed to PP 4 × DP 1024
Q5_PARAMS: Final = 7e9
Q5_DP: Final = 1024
Q5_PP: Final = 4

#: section → number of questions of that section, in bank order
GROUPS: Final = (("9.6.1", 4), ("9.6.2", 3), ("9.6.3", 2), ("9.6.4", 3), ("9.6.5", 2))

Question = Numeric | Choice


def _gb(x: float) -> float:
    return x / 1e9


def _comm_questions() -> list[Question]:
    s = Q1_PARAMS * Q1_GRAD_BYTES
    k = Q1_RANKS
    ar = _gb(collectives.send_volume("all_reduce", s, k))
    rs = _gb(collectives.send_volume("reduce_scatter", s, k))
    zero2 = _gb(training.step_traffic("zero2", Q1_PARAMS, k, param_bytes=Q1_GRAD_BYTES).send)
    zero3 = _gb(training.step_traffic("zero3", Q1_PARAMS, k, param_bytes=Q1_GRAD_BYTES).send)
    size = f"{Q1_PARAMS / 1e9:.1f}B 参数的模型，fp16 梯度 $S$ = {_gb(s):.1f} GB，{k} 个 rank"
    q_ar = numeric(
        f"{size}。环形全归约时每个 rank 发送多少 GB？",
        ar, unit="GB",
        wrong=(
            (_gb(2 * s), "这是 $2S$，漏了因子 $(k-1)/k$：每个 rank 不必发出自己负责的那一块。"),
            (rs, "这只是归约-散播一个阶段；全归约还有全收集，共 $2S(k-1)/k$。"),
            (_gb(s * (k - 1)), "这是经过根的朴素做法里根的收（或发）量 $S(k-1)$，不是环。"),
        ),
        explanation=f"$2S(k-1)/k$ = 2 × {_gb(s):.1f} × {k - 1}/{k} = {ar:.4g} GB。",
        transfer=True,
    )
    q_rs = numeric(
        f"同上（{k} 个 rank、$S$ = {_gb(s):.1f} GB），只做归约-散播时每个 rank 发送多少 GB？",
        rs, unit="GB",
        wrong=(
            (ar, "这是全归约的量；归约-散播只有它的一半。"),
            (_gb(s / k), "这是每个 rank 最后拿到的那一片 $S/k$，不是它发出的字节。"),
            (_gb(s), "$S$ 是 $k$ 很大时的近似；精确值是 $S(k-1)/k$。"),
        ),
        explanation=f"$S(k-1)/k$ = {rs:.4g} GB；全归约 = 归约-散播 + 全收集，正好两倍。",
        transfer=True,
    )
    q_zero2 = numeric(
        "同上，改用 ZeRO-2（bf16 参数，每个参数 2 B）。一个训练步里每个 rank 为梯度与参数同步一共发送多少 GB？",
        zero2, unit="GB",
        wrong=(
            (rs, "这是原文的说法“只归约-散播梯度，流量减半”。更新后的参数分片还要全收集回每个 rank，"
                 "总量 $2\\Psi$ 与 DDP 相同（勘误）。"),
            (zero3, "这是 ZeRO-3 的 $3\\Psi$：它在前向、反向各收集一次参数。"),
            (_gb(2 * s), "漏了因子 $(k-1)/k$。"),
        ),
        explanation=f"梯度归约-散播 {rs:.4g} GB + 参数全收集 {rs:.4g} GB = {zero2:.4g} GB，与 DDP 的全归约"
        f"（{ar:.4g} GB）相同；ZeRO-2 省的是显存（ZeRO §7.2.1）。",
        transfer=True,
    )
    q_why = choice(
        "ZeRO-2 为什么可以用归约-散播代替 DDP 的全归约来处理梯度？",
        [
            ("每个 rank 只更新自己那 $1/k$ 参数，只需要那一片梯度的和", True,
             "对：优化器状态和梯度都按 rank 分片，每片只在一个 rank 上更新。"),
            ("因为这样通信量减半", False,
             "原文如此说，但更新后的参数还要全收集，每步合计仍是 $2\\Psi$，与 DDP 相同（勘误）。"),
            ("因为归约-散播不需要跨节点", False, "分片跨整个数据并行组，组跨节点时归约-散播同样走网卡。"),
            ("因为梯度在 ZeRO-2 里不需要求和", False,
             "每一片梯度仍要在所有 rank 之间求和，只是结果只留在一个 rank 上。"),
        ],
        explanation="全归约 = 归约-散播 + 全收集。ZeRO-2 把全收集从梯度挪到了更新后的参数上，字节数不变。",
    )
    return [q_ar, q_rs, q_zero2, q_why]


def _overlap_questions() -> list[Question]:
    o = overlap.overlap_from_exposed(Q2_COMPUTE, Q2_COMM, Q2_EXPOSED)
    q_ratio = numeric(
        f"某步计算 {Q2_COMPUTE:.0f} s、通信 {Q2_COMM:.0f} s，实测暴露的通信 {Q2_EXPOSED} s。重叠率是多少（%）？",
        100 * o.ratio, unit="%",
        wrong=(
            (100 * Q2_EXPOSED / Q2_COMM, "这是暴露的比例 $e/t_m$；重叠率是被藏起的比例 $1 - e/t_m$。"),
            (100 * o.hidden / Q2_COMPUTE, "分母应是通信时间，不是计算时间。"),
        ),
        explanation=f"藏起 {Q2_COMM:.0f} − {Q2_EXPOSED} = {o.hidden:.1f} s，重叠率 {o.hidden:.1f}/{Q2_COMM:.0f} = "
        f"{100 * o.ratio:.0f}%。",
    )
    q_step = numeric(
        "接上题，这一步实际用多少秒？",
        o.step, unit="s",
        wrong=(
            (o.no_overlap, "这是完全不重叠时的 $t_c + t_m$。"),
            (o.full_overlap, "这是完全重叠时的 $\\max(t_c, t_m)$。"),
            (Q2_COMPUTE + o.hidden, "加上的应是暴露的通信，不是藏起的那部分。"),
        ),
        explanation=f"$t_c + e$ = {Q2_COMPUTE:.0f} + {Q2_EXPOSED} = {o.step:.1f} s（不重叠时 {o.no_overlap:.0f} s）。",
    )
    b = overlap.overlap_step(Q2B_COMPUTE, Q2B_COMM, Q2B_RATIO)
    q_cap = numeric(
        f"另一步计算 {Q2B_COMPUTE:.0f} s、通信 {Q2B_COMM:.0f} s，框架声称能把 {100 * Q2B_RATIO:.0f}% 的通信藏进计算。"
        "这一步至少要多少秒？",
        b.step, unit="s",
        wrong=(
            (Q2B_COMPUTE + (1 - Q2B_RATIO) * Q2B_COMM,
             "藏起的通信不能超过计算本身：最多藏 $t_c$，不是 $r\\,t_m$。"),
            (b.no_overlap, "这是完全不重叠。"),
            (Q2B_COMPUTE, "通信比计算长，一步不可能短于通信时间。"),
        ),
        explanation=f"$\\min(r t_m, t_c)$ = {b.hidden:.0f} s 被藏起，一步 = {Q2B_COMPUTE:.0f} + {b.exposed:.0f} = "
        f"{b.step:.0f} s = $\\max(t_c, t_m)$：通信比计算长时，重叠率再高也省不到计算以下。",
        transfer=True,
    )
    return [q_ratio, q_step, q_cap]


def _checkpoint_questions() -> list[Question]:
    m = Q6_MTBF_H * units.HOUR
    t = checkpoint.young_interval(Q6_SAVE, m)
    q_young = numeric(
        f"一次 checkpoint 阻塞训练 δ = {Q6_SAVE:.0f} s，作业 MTBF 为 {Q6_MTBF_H:.0f} h。按 Young 公式，"
        "最优间隔是多少**分钟**？",
        t / 60, unit="min", rel_tol=0.05,
        wrong=(
            (checkpoint.young_interval(Q6_SAVE, m) / 60 / 2 ** 0.5, "漏了根号里的 2：$T^* = \\sqrt{2\\delta M}$。"),
            (checkpoint.young_interval(Q6_SAVE, Q6_MTBF_H) / 60,
             "单位混用：$M$ 要和 $\\delta$ 一样用秒（原文例 9.6.3 的错误之一）。"),
            (Q6_MTBF_H * 60 / 2, "这是“MTBF 的一半”，不是最优间隔。"),
        ),
        explanation=f"$\\sqrt{{2 \\times {Q6_SAVE:.0f} \\times {m:.0f}}}$ s = {t:.0f} s ≈ {t / 60:.1f} min"
        f"（Daly 的修正给 {checkpoint.daly_interval(Q6_SAVE, m) / 60:.1f} min，也算对）。",
        transfer=True,
    )
    q_r = choice(
        "恢复时间 $R$（MTTR）从 3 分钟变成 30 分钟。最优 checkpoint 间隔怎么变？",
        [
            ("不变：$R$ 每次故障都要付，与上次保存在何时无关", True,
             "对：$W(T) = \\delta/T + (T/2 + R)/M$ 对 $T$ 求导时 $R$ 消失，最优浪费多出 $R/M$。"),
            ("变短：恢复越慢越要勤存", False, "$R$ 不随间隔变化，勤存只多付保存时间。"),
            ("变长：恢复慢时保存的相对代价变小", False, "$T^* = \\sqrt{2\\delta M}$ 里没有 $R$。"),
        ],
        explanation="对付慢恢复要缩短恢复本身（自动检测、热备、快速加载），而不是改间隔。",
    )
    return [q_young, q_r]


def _failure_questions() -> list[Question]:
    lam = reliability.failure_source("llama3").rate
    m = reliability.job_mtbf(Q3_GPUS, lam) / units.HOUR
    q_mtbf = numeric(
        f"用 Llama 3 记录的单卡非计划中断率 λ ≈ {lam / 1e-5:.2f}×10⁻⁵ /GPU·h，{Q3_GPUS} 卡的同步作业平均"
        "多少小时中断一次？",
        m, unit="h",
        wrong=(
            (reliability.job_mtbf(Q3_GPUS, SEED_RATE) / units.HOUR,
             "这是用原文假设的 $3\\times10^{-6}$ 算的；公开记录的速率高出数倍。"),
            (1 / lam, "这是单张卡的 $1/\\lambda$，忘了除以卡数 $G$。"),
            (Q3_GPUS * lam, "这是作业每小时的中断次数 $G\\lambda$，不是它的倒数。"),
        ),
        explanation=f"$M = 1/(G\\lambda)$ = 1/({Q3_GPUS} × {lam:.3g}) = {m:.2f} h。",
        transfer=True,
    )
    hours = Q3_DAYS * units.DAY / units.HOUR
    events = Q3_EVENT_GPUS * lam * hours
    q_events = numeric(
        f"同一速率下，{Q3_EVENT_GPUS} 卡的作业连续跑 {Q3_DAYS} 天，期望遇到几次非计划中断？",
        events, unit="次",
        wrong=(
            (Q3_EVENT_GPUS * SEED_RATE * hours, "这是原文的 λ 给出的次数。"),
            (Q3_EVENT_GPUS * lam * Q3_DAYS, "天和小时混用了：要乘小时数。"),
            (lam * hours, "漏了卡数：这是单张卡的期望次数。"),
        ),
        explanation=f"$G\\lambda t$ = {Q3_EVENT_GPUS} × {lam:.3g} × {hours:.0f} h ≈ {events:.1f} 次。",
        transfer=True,
    )
    q_why = choice(
        "万卡作业的 MTBF 为什么远小于单卡？",
        [
            ("任何一个故障源失效都会中断同步作业；独立故障的速率相加，作业的速率是 $G\\lambda$", True,
             "对：$M = 1/(G\\lambda)$，卡数翻倍，MTBF 减半。"),
            ("大集群用的卡质量更差", False, "推导里每张卡的 λ 都一样；缩短 MTBF 的是卡数。"),
            ("运气：规模大时更容易碰上坏卡", False, "这不是运气，而是期望值：中断次数按 $G\\lambda t$ 增长。"),
            ("MTBF 与卡数无关，只是万卡作业跑得更久", False, "作业 MTBF 与作业时长无关，与卡数成反比。"),
        ],
        explanation="把故障看作常态来设计：检测、恢复、checkpoint 间隔都按 $1/(G\\lambda)$ 来定。",
    )
    return [q_mtbf, q_events, q_why]


def _balance_questions() -> list[Question]:
    mem = parallel.model_state_memory(Q5_PARAMS, zero_stage=2, dp=Q5_DP, model_parallel=Q5_PP).total
    q_mem = numeric(
        "原文的 5D 示例表给 7B 模型的分法是 TP 1 × PP 2 × DP 2048，并注“ZeRO-2 后 26 GB”。"
        f"同样 4096 张卡，改成 TP 1 × PP {Q5_PP} × DP {Q5_DP}。"
        "按 ZeRO 的记账（混合精度 Adam，每参数 16 B，$K$ = 12），这个配置下每张卡的模型状态是多少 GB？",
        _gb(mem), unit="GB",
        wrong=(
            (_gb(parallel.model_state_memory(Q5_PARAMS, zero_stage=2, dp=8).total),
             "26.25 GB 只在数据并行 8 路、不切流水线时成立；这里切了流水线，数据并行也远不止 8 路。"),
            (_gb(parallel.model_state_memory(Q5_PARAMS, zero_stage=2, dp=Q5_DP).total),
             f"漏了流水线：PP {Q5_PP} 时每张卡只放 1/{Q5_PP} 的层，$\\Psi' = \\Psi/{Q5_PP}$。"),
            (_gb(parallel.model_state_memory(Q5_PARAMS).total), "这是完全不分片的 16Ψ。"),
        ),
        explanation=f"$\\Psi' = \\Psi/{Q5_PP}$，ZeRO-2：$2\\Psi' + 14\\Psi'/N_d$ = {_gb(mem):.2f} GB"
        "（仅模型状态，不含激活）。",
        transfer=True,
    )
    q_bits = choice(
        "为什么多卡训练很难做到“逐位可复现”？选出所有成立的来源。（多选）",
        [
            ("卡数或归约算法一变，每个元素的浮点加法顺序就变了，而浮点加法不满足结合律", True,
             "对：环、树、不同 $N$ 的求和顺序都不同，末位随之不同。"),
            ("一些 GPU 核函数用原子加累加，结果取决于线程到达的先后", True, "对：这是算子层面的非确定性。"),
            ("张量并行度不同时，每个 rank 初始化和 dropout 掩码的切分方式不同", True,
             "对：同一个种子在不同切分下生成的不是同一组随机数。"),
            ("数据加载的多个工作进程若不固定采样器与种子，批次的组成会变", True, "对：数据顺序也是随机性的来源。"),
            ("浮点加法不满足交换律", False, "$a + b = b + a$ 在 IEEE 754 下成立；不成立的是结合律。"),
            ("只要固定随机种子，剩下的差异只可能来自硬件故障", False, "种子不管归约顺序和非确定性算子。"),
        ],
        multiple=True,
        explanation="逐位可复现只能在同一并行配置、确定性算子下追求；跨配置时追求的是统计上的可复现。",
    )
    return [q_mem, q_bits]


def questions() -> list[Question]:
    """即时自测 9.6: the original's Q1–Q4 (Q1 with the corrected ZeRO-2 reasoning) and questions on 9.6.1–9.6.5."""
    qs = _comm_questions() + _overlap_questions() + _checkpoint_questions() + _failure_questions()
    qs += _balance_questions()
    assert len(qs) == sum(n for _, n in GROUPS)
    return qs


def groups() -> list[tuple[str, list[Question]]]:
    """``[(section, its questions)]`` in bank order (see :data:`GROUPS`)."""
    qs, out, i = questions(), [], 0
    for sec, n in GROUPS:
        out.append((sec, qs[i : i + n]))
        i += n
    return out
