"""Self-check questions for §9.6.4 (大规模故障率与容错设计), ``book/part1/9.6.4-failures.ipynb``.

Given data are the module constants below (the same literals as in the notebook): the Llama 3 snapshot
(arXiv:2407.21783 §3.3.4: 466 interruptions = 47 planned + 419 unexpected in 54 days on up to 16384 H100), the
original text's assumed rate ``3e-6`` per GPU-hour, and the save/restart times of the worked example. Every key is
computed by :mod:`clusterlab.faults.reliability` or :mod:`clusterlab.faults.checkpoint`. Distractors are the original
text's
numbers (``λ = 3e-6``, "16384 卡 ≈ 20 h", its interval formula ``T = sqrt(55.8/(4f))``) and the usual slips:
counting planned maintenance as failures, forgetting to divide by ``G``, scaling the wrong way, per GPU-day instead
of per GPU-hour, forgetting the factor 2 of Young's formula or the restart term ``R/M``.
"""

from __future__ import annotations

import math
from typing import Final

from ... import units
from ...faults import checkpoint, reliability
from ..quiz import Choice, Numeric, choice, numeric

__all__ = [
    "GPUS_HALF",
    "LLAMA3_DAYS",
    "LLAMA3_GPUS",
    "LLAMA3_PLANNED",
    "LLAMA3_UNEXPECTED",
    "RESTART_TIME",
    "SAVE_TIME",
    "SEED_RATE",
    "T_GPUS",
    "T_GPUS_MTBF",
    "T_RESTART_TIME",
    "T_SAVE_TIME",
    "llama3_rate",
    "s964_questions",
]

SEED_RATE: Final = 3e-6  # failures per GPU-hour, the original text's assumption
LLAMA3_UNEXPECTED: Final = 419  # unexpected interruptions in the snapshot
LLAMA3_PLANNED: Final = 47  # planned (automated maintenance) interruptions
LLAMA3_DAYS: Final = 54  # length of the snapshot
LLAMA3_GPUS: Final = 16384  # "up to 16K H100": the largest job, so the rate below is a lower bound
GPUS_HALF: Final = 8192
SAVE_TIME: Final = 56.0  # δ, s: the sharded save of §9.6.3's example
RESTART_TIME: Final = 600.0  # R, s: detect, reschedule, load (assumed, order of MegaScale's < 10 min)
# transfer: job sizes and times the chapter does not work through
T_GPUS_MTBF: Final = 3072
T_GPUS: Final = 6144
T_SAVE_TIME: Final = 30.0  # δ, s
T_RESTART_TIME: Final = 1200.0  # R, s

Question = Numeric | Choice


def llama3_rate(include_planned: bool = False) -> float:
    """Interruptions per GPU-hour of the Llama 3 snapshot (unexpected only, unless ``include_planned``)."""
    events = LLAMA3_UNEXPECTED + (LLAMA3_PLANNED if include_planned else 0)
    return reliability.rate_from_events(events, LLAMA3_GPUS, LLAMA3_DAYS * 24)


def _hours(seconds: float) -> float:
    return seconds / units.HOUR


def s964_questions() -> list[Question]:
    """Self-check of §9.6.4: rate from the Llama 3 log, MTBF at another scale, Young's interval, the loss at the
    optimum, what the original text's rate predicts, its 20 h, Table 5, and what independence hides."""
    lam = llama3_rate()
    lam_all = llama3_rate(include_planned=True)
    unit = 1e-5  # the rate question is answered in units of 1e-5 per GPU-hour
    hours = LLAMA3_DAYS * 24

    q_rate = numeric(
        f"Llama 3 的 {LLAMA3_DAYS} 天快照里有 {LLAMA3_PLANNED + LLAMA3_UNEXPECTED} 次作业中断，其中 "
        f"{LLAMA3_PLANNED} 次是计划内维护、{LLAMA3_UNEXPECTED} 次是非计划中断；作业最多用到 "
        f"{LLAMA3_GPUS} 张 H100。按全部卡计，每张 GPU 每小时的非计划中断率 λ 是多少？"
        "（以 $10^{-5}$ /GPU·h 为单位填写，例如 1.5 表示 $1.5\\times10^{-5}$）",
        lam / unit,
        unit="×10⁻⁵ /GPU·h",
        wrong=(
            (SEED_RATE / unit, "这是原文假设的 $3\\times10^{-6}$，不是由 Llama 3 的记录算出的。"),
            (lam_all / unit, "你把 47 次计划内维护也算成了故障；λ 只数非计划中断。"),
            (lam * 24 / unit, "这是每 GPU·**天**的速率；题目要每 GPU·小时。"),
            (LLAMA3_UNEXPECTED / hours / unit, "你没有除以卡数 $G$：这是整个作业每小时的中断率。"),
        ),
        explanation=f"$\\lambda = {LLAMA3_UNEXPECTED} / ({LLAMA3_GPUS} \\times {LLAMA3_DAYS} \\times 24\\,"
        f"\\text{{h}}) \\approx {lam / unit:.2f}\\times10^{{-5}}$ /GPU·h，是原文假设的 {lam / SEED_RATE:.1f} 倍。"
        "实际在用的卡若少于 16384 张，真实速率还要更高，所以这是下界。",
    )

    m_t = _hours(reliability.job_mtbf(T_GPUS_MTBF, lam))
    m_full = _hours(reliability.job_mtbf(LLAMA3_GPUS, lam))
    ratio = LLAMA3_GPUS / T_GPUS_MTBF
    q_mtbf = numeric(
        f"用 Llama 3 的速率 λ ≈ {lam / unit:.2f}×10⁻⁵ /GPU·h，一个 {T_GPUS_MTBF} 卡的同步训练作业平均多少小时"
        "遇到一次非计划中断（作业 MTBF）？",
        m_t,
        unit="h",
        wrong=(
            (_hours(reliability.job_mtbf(T_GPUS_MTBF, SEED_RATE)),
             "你用了 $3\\times10^{-6}$ /GPU·h 这个偏低的假设速率；公开数据给出的速率高好几倍。"),
            (m_full, f"你以为 MTBF 是集群的固定属性；这是 {LLAMA3_GPUS} 卡时的值，卡少了 MTBF 要按比例变长。"),
            (m_full / ratio, f"缩放方向反了：卡数是 {LLAMA3_GPUS} 卡的 1/{ratio:g}，MTBF 应乘 {ratio:g}，不是除。"),
        ),
        explanation=f"$\\text{{MTBF}} = 1/(G\\lambda)$ = {m_t:.2f} h；{LLAMA3_GPUS} 卡时是 {m_full:.2f} h。",
        transfer=True,
    )

    mtbf_s = reliability.job_mtbf(T_GPUS, lam)
    t_young = checkpoint.young_interval(T_SAVE_TIME, mtbf_s)
    t_daly = checkpoint.daly_interval(T_SAVE_TIME, mtbf_s)
    seed_mtbf_s = reliability.job_mtbf(LLAMA3_GPUS, SEED_RATE)
    seed_t_mtbf_s = reliability.job_mtbf(T_GPUS, SEED_RATE)
    seed_formula = math.sqrt(55.8 / (4 * (units.HOUR / mtbf_s))) * 60  # the original text's T, in minutes
    q_young = numeric(
        f"一个 {T_GPUS} 卡的同步作业，单卡故障率取 Llama 3 的 λ ≈ {lam / unit:.2f}×10⁻⁵ /GPU·h；改用异步写出后，"
        f"一次 checkpoint 阻塞训练 δ = {T_SAVE_TIME:.0f} s。按 Young 公式，最优 checkpoint 间隔是多少**分钟**？",
        t_young / 60,
        rel_tol=0.05,
        unit="min",
        wrong=(
            (checkpoint.young_interval(T_SAVE_TIME, seed_t_mtbf_s) / 60,
             "你用了 $3\\times10^{-6}$ /GPU·h 这个偏低的假设速率，MTBF 被高估好几倍，间隔也就偏长。"),
            (math.sqrt(T_SAVE_TIME * mtbf_s) / 60, "漏了根号里的 2：$T^* = \\sqrt{2\\delta M}$。"),
            (seed_formula, "这是 $T = \\sqrt{60\\delta_{\\min}/(4f)}$ 一类的写法：它混用了小时与分钟，"
             "还把重启时间放进了随间隔变化的项。"),
            (math.sqrt(2 * T_SAVE_TIME * reliability.job_mtbf(LLAMA3_GPUS, lam)) / 60,
             f"你用了 {LLAMA3_GPUS} 卡的 MTBF；{T_GPUS} 卡的作业 MTBF 更长。"),
        ),
        explanation=f"$M = 1/(G\\lambda)$ = {_hours(mtbf_s):.2f} h，$T^* = \\sqrt{{2\\delta M}}$ = "
        f"{t_young / 60:.1f} min（Daly 的高阶修正给 {t_daly / 60:.1f} min，两者都算对）。",
        transfer=True,
    )

    w_opt = checkpoint.optimal_wasted_fraction(T_SAVE_TIME, mtbf_s, T_RESTART_TIME)
    w_exact = checkpoint.expected_wasted_fraction(t_daly, T_SAVE_TIME, mtbf_s, T_RESTART_TIME)
    q_waste = numeric(
        f"接上题，每次故障后的恢复（发现、重新调度、加载）耗时 R = {T_RESTART_TIME / 60:.0f} min。"
        "在最优间隔下，一阶模型 $W = \\sqrt{2\\delta/M} + R/M$ 给出多少百分比的墙钟时间被浪费？",
        100 * w_opt,
        rel_tol=0.03,
        unit="%",
        wrong=(
            (100 * checkpoint.optimal_wasted_fraction(T_SAVE_TIME, seed_t_mtbf_s, T_RESTART_TIME),
             "你用了 $3\\times10^{-6}$ /GPU·h 这个偏低的假设速率；用公开数据的速率，损失要大得多。"),
            (100 * checkpoint.optimal_wasted_fraction(T_SAVE_TIME, mtbf_s),
             "漏了恢复时间项 $R/M$：它不影响最优间隔，但每次故障都要付。"),
            (100 * T_RESTART_TIME / mtbf_s, "只算了恢复时间；保存开销与重做的工作合起来是 $\\sqrt{2\\delta/M}$。"),
        ),
        explanation=f"$\\sqrt{{2\\delta/M}}$ = {100 * math.sqrt(2 * T_SAVE_TIME / mtbf_s):.1f}%，"
        f"$R/M$ = {100 * T_RESTART_TIME / mtbf_s:.1f}%，合计 {100 * w_opt:.1f}%"
        f"（指数分布下的精确值为 {100 * w_exact:.1f}%）。异步保存把 $\\delta$ 压下来之后，恢复时间 $R$ "
        "成了损失的大头：缩短恢复比再加快保存更划算。",
        transfer=True,
    )

    predicted = SEED_RATE * LLAMA3_GPUS * hours
    q_count = numeric(
        f"如果原文的 λ = 3×10⁻⁶ /GPU·h 是对的，{LLAMA3_GPUS} 卡的作业在 {LLAMA3_DAYS} 天里"
        "应当遇到多少次非计划中断（期望值）？",
        predicted,
        unit="次",
        wrong=(
            (float(LLAMA3_UNEXPECTED), "这是 Llama 3 实际记录到的次数；题目问原文的 λ 预测多少次。"),
            (float(LLAMA3_UNEXPECTED + LLAMA3_PLANNED), "这是实际记录到的全部中断（含计划内维护）。"),
            (LLAMA3_DAYS / _hours(seed_mtbf_s), "天数和小时混用了：54 天是 1296 小时。"),
        ),
        explanation=f"$G\\lambda t$ = {LLAMA3_GPUS} × 3×10⁻⁶ × {hours} h ≈ {predicted:.0f} 次，而实际记录到 "
        f"{LLAMA3_UNEXPECTED} 次，约为预测的 {LLAMA3_UNEXPECTED / predicted:.1f} 倍。",
    )

    seed_20h = _hours(seed_mtbf_s)
    meta = [reliability.failure_source(k).rate / SEED_RATE for k in ("llama3", "rsc1", "rsc2")]
    lo_ratio, hi_ratio = min(meta), max(meta)
    opt_ratio = reliability.failure_source("opt175b").rate / SEED_RATE
    q_seed = choice(
        "原文的表说 16384 卡的 MTBF 约为 20 小时。下面哪一种说法正确？",
        [
            ("算术错了：3×10⁻⁶ × 16384 的倒数不是 20 小时", False,
             f"算术没错：1/(16384 × 3×10⁻⁶) = {seed_20h:.1f} h。错在 λ。"),
            (f"算术对，但 λ 偏低：按 Llama 3 的记录，16384 卡每 {m_full:.1f} 小时就有一次非计划中断",
             True, f"对：λ 被低估了约 {lam / SEED_RATE:.1f} 倍，20 h 应为约 {m_full:.1f} h。"),
            ("20 小时是对的，Llama 3 多出来的中断都是计划内维护", False,
             f"计划内维护只有 {LLAMA3_PLANNED} 次；只算 {LLAMA3_UNEXPECTED} 次非计划中断，MTBF 也只有 "
             f"{m_full:.1f} h。"),
            ("MTBF 与卡数无关，20 小时对任何规模都成立", False,
             "同步作业任何一张卡出故障都会中断，MTBF = 1/(Gλ) 随卡数成反比下降。"),
        ],
        explanation=f"原文的表格算术无误，问题在于假设的单卡速率偏低：比 Meta 两个研究集群与 Llama 3 的速率低 "
        f"{lo_ratio:.1f}–{hi_ratio:.0f} 倍，比 OPT-175B 的重启率低 {opt_ratio:.0f} 倍。",
    )

    q_table5 = choice(
        "Llama 3 论文表 5 按根因列出了 419 次非计划中断。本书为什么只引用论文正文的结论"
        "（约 78% 归因于硬件、GPU 问题占 58.7%），而不用表中的计数自己重算这些比例？",
        [
            ("各行百分比之和不到 100%，且有的行与其计数对不上", True,
             "对：计数与百分比至少一列有误，按哪一列重算结果都不同；只能引用作者的原话并注明出处。"),
            ("表 5 只列了计划内维护，不包括非计划中断", False, "表 5 列的正是 419 次非计划中断的根因。"),
            ("论文没有给出各类的计数", False, "计数是给了的，问题在于计数与百分比不一致。"),
        ],
        explanation="引用时保留论文的措辞与出处，并说明表中数字不自洽，比给出一个看似精确的重算结果更诚实。",
    )

    q_indep = choice(
        "MTBF = 1/(Gλ) 假设各卡独立、故障率恒定。下面哪些情形会让真实的作业中断统计偏离这个模型？（多选）",
        [
            ("一台交换机故障，让它下面的 32 张卡同时掉线", True,
             "共因故障：按卡数是 32 次故障，作业却只中断 1 次；“每卡速率”与“中断次数”不能直接互换。"),
            ("午后气温升高，所有卡的故障风险同时上升", True,
             "风险同步变化使故障在时间上成簇，间隔不再服从指数分布。"),
            ("各卡彼此独立，但少数卡的 λ 是其余卡的 10 倍，且作业始终用同一批卡", False,
             "独立故障的速率直接相加，与各卡是否相同无关：总速率仍是 $\\sum\\lambda_i = G\\bar\\lambda$。"
             "差异要到换卡时才显现（可能换回坏卡）。"),
            ("作业规模从 8192 卡加倍到 16384 卡", False, "这正是模型本身的预测：MTBF 减半，不是偏离。"),
        ],
        multiple=True,
        explanation="独立性保证的是“速率相加、间隔服从指数分布”；共因故障和同步变化的风险破坏的正是这两点。",
    )
    return [q_rate, q_mtbf, q_young, q_waste, q_count, q_seed, q_table5, q_indep]
