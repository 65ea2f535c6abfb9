"""Self-check questions for §9.6.3 (checkpoint 策略与恢复时间), shown in ``book/part1/9.6.3-checkpoint.ipynb``.

Given data are the module constants below (the same as in the notebook: the original text's example 9.6.3;
the ``T_`` constants describe a 13B job and a 2048-GPU job the chapter does not work through, for transfer);
every key comes from :mod:`clusterlab.faults.checkpoint` or :mod:`clusterlab.faults.reliability`. Distractors are the
slips
readers make and the original text's own numbers: the per-rank shard taken for the total, the aggregate
bandwidth taken per rank, bits for bytes, the original's 5.3 h interval and 7.5 % overhead, forgetting the
factor 2 in ``sqrt(2δM)``, forgetting the restart term ``R/M``, the 16K-GPU MTBF used for a smaller job,
scaling the MTBF the wrong way, two factors of 1/4 taken to cancel in ``T*``.
"""

from __future__ import annotations

import math
from typing import Final

from ... import units, validate
from ...faults import checkpoint, reliability
from ..quiz import Choice, Numeric, choice, format_number, numeric

__all__ = [
    "BYTES_PER_PARAM",
    "FAILURES_PER_HOUR",
    "LLAMA3_GPUS",
    "PARAMS",
    "RANKS",
    "RESTART",
    "SEED_INTERVAL_H",
    "SEED_SAVE_MIN",
    "STORAGE",
    "T_GPUS",
    "T_PARAMS",
    "T_RANKS",
    "T_STORAGE",
    "questions",
    "save_time",
    "seed_optimal_interval_h",
    "seed_overhead_fraction",
    "state_bytes",
]

PARAMS: Final = 7e9  # Ψ of a 7B model
BYTES_PER_PARAM: Final = 16  # mixed-precision Adam: 2 + 2 + 12 bytes (ZeRO §3.1)
RANKS: Final = 128
STORAGE: Final = 2e9  # aggregate write bandwidth of the parallel file system, B/s (shared by all ranks)
RESTART: Final = 3 * 60.0  # s: detect, reschedule, load, rebuild the data pipeline (the original's 3 min)
FAILURES_PER_HOUR: Final = 0.5  # the original text's f
SEED_INTERVAL_H: Final = 2.0  # the original text's "每 2 小时存一次"
SEED_LOSS_MIN: Final = 5.0  # the original text's "单次故障平均损失 5 分钟"
SEED_SAVE_MIN: Final = 0.93  # the original text's rounded save time in minutes
LLAMA3_GPUS: Final = 16_384  # Llama 3: up to 16K H100 (arXiv:2407.21783 §3.3)
# transfer: a job the chapter does not work through
T_PARAMS: Final = 13e9  # Ψ of a 13B model
T_RANKS: Final = 256
T_STORAGE: Final = 5e9  # aggregate write bandwidth, B/s
T_GPUS: Final = 2048  # a mid-sized job for the MTBF question

Question = Numeric | Choice


def state_bytes() -> float:
    """Model state of the 7B example: ``Ψ × 16`` B = 112 GB."""
    return PARAMS * BYTES_PER_PARAM


def save_time(strategy: str = "sharded") -> float:
    """Wall time (s) until one checkpoint of the example is durable under ``strategy``."""
    return checkpoint.save_plan(strategy, state_bytes(), RANKS, STORAGE).save_time


def seed_optimal_interval_h(failures_per_hour: float = FAILURES_PER_HOUR) -> float:
    """The original text's (wrong) optimum ``T = sqrt(60 · 0.93 / (4f))`` in hours (5.28 h at f = 0.5/h):
    it charges ``60/T`` saves per hour with ``T`` in hours and puts the restart into the T-dependent term."""
    f = validate.positive("failures_per_hour", failures_per_hour)
    return math.sqrt(60 * SEED_SAVE_MIN / (4 * f))


def seed_overhead_fraction(failures_per_hour: float = FAILURES_PER_HOUR) -> float:
    """The original text's overhead ``f·(5 + 3) + (60/120)·0.93`` minutes per hour, as a fraction (7.44 %)."""
    f = validate.positive("failures_per_hour", failures_per_hour)
    per_hour_min = f * (SEED_LOSS_MIN + RESTART / 60) + (60 / (SEED_INTERVAL_H * 60)) * SEED_SAVE_MIN
    return per_hour_min / 60


def questions() -> list[Question]:
    """Self-check of §9.6.3: shard size, save time, Young's interval, overhead, the 2 h interval, MTBF,
    what R and M do to the optimum."""
    s = state_bytes()
    sharded = checkpoint.save_plan("sharded", s, RANKS, STORAGE)
    delta = sharded.save_time
    mtbf = units.HOUR / FAILURES_PER_HOUR
    t_young = checkpoint.young_interval(delta, mtbf)
    t_daly = checkpoint.daly_interval(delta, mtbf)
    w_star = checkpoint.optimal_wasted_fraction(delta, mtbf, RESTART)
    t_seed = SEED_INTERVAL_H * units.HOUR
    w_seed_interval = checkpoint.wasted_fraction(t_seed, delta, mtbf, RESTART)
    llama = reliability.failure_source("llama3")
    m_128 = reliability.job_mtbf(RANKS, llama.rate)
    m_job = reliability.job_mtbf(T_GPUS, llama.rate)
    m_16k = reliability.job_mtbf(LLAMA3_GPUS, llama.rate)
    m_seed_lambda = reliability.job_mtbf(T_GPUS, reliability.failure_source("seed").rate)
    s_t = T_PARAMS * BYTES_PER_PARAM
    t_sharded = checkpoint.save_plan("sharded", s_t, T_RANKS, T_STORAGE)
    t_every = checkpoint.save_plan("full_every_rank", s_t, T_RANKS, T_STORAGE)
    t_recompute = checkpoint.save_plan("recompute_on_load", s_t, T_RANKS, T_STORAGE)
    gb = units.fmt_bytes
    minutes = 60.0

    q_total = numeric(
        f"一个 13B 模型用混合精度 Adam 训练（每个参数 16 B 的训练状态），{T_RANKS} 个 rank 做**分片** checkpoint。"
        "一次 checkpoint **所有 rank 合计**写入多少 GB？",
        units.bytes_to(t_sharded.total_bytes, "GB"),
        unit="GB",
        wrong=(
            (
                units.bytes_to(t_sharded.per_rank_bytes, "GB"),
                "这是每个 rank 写的分片 $S/N$：你以为分片减少了写入量。分片只是把同一份状态分给多个 rank 去写，"
                "合计一个字节也没少。",
            ),
            (units.bytes_to(t_every.total_bytes, "GB"), "这是每个 rank 都存一整份的合计：$N$ 份完全相同的副本。"),
            (
                units.bytes_to(t_recompute.total_bytes, "GB"),
                "这是加载时重算（不存可由 fp32 主副本重建的 bf16 权重）的写入量；题目问的是普通分片。",
            ),
            (units.bytes_to(T_PARAMS * 2, "GB"), "这只是 bf16 权重；checkpoint 还要存 fp32 主副本与 Adam 的两个矩。"),
        ),
        explanation=f"合计 = 状态本身 = {gb(t_sharded.total_bytes)}；每个 rank 只写 "
        f"{gb(t_sharded.per_rank_bytes)}。",
        transfer=True,
    )
    q_time = numeric(
        f"接上题：并行文件系统的**聚合**写带宽是 {gb(T_STORAGE)}/s（{T_RANKS} 个 rank 共享）。"
        "分片 checkpoint 要写多少秒？",
        t_sharded.save_time,
        unit="s",
        wrong=(
            (
                t_sharded.per_rank_bytes / T_STORAGE,
                f"你以为每个 rank 各有 {gb(T_STORAGE)}/s；那是所有 rank 共享的总带宽：$N$ 个分片同时写，"
                "总量仍是整份状态。",
            ),
            (t_every.save_time, "这是每个 rank 各存一整份的时间：合计写了 $N$ 份。"),
            (8 * t_sharded.save_time, "单位混了：按 Gb/s（比特）算了；题目给的是 GB/s（字节）。"),
        ),
        explanation=f"$t = {gb(s_t)} \\div {gb(T_STORAGE)}/\\text{{s}}$ = {units.fmt_seconds(t_sharded.save_time)}，"
        "与分成多少片无关——瓶颈是存储的聚合带宽。",
        transfer=True,
    )
    q_young = numeric(
        f"保存一次要 $\\delta$ = {units.fmt_num(delta)} s，按原文的假设每小时故障 "
        f"$f$ = {FAILURES_PER_HOUR} 次（$M = 1/f$）。按 Young 的一阶公式，最优 checkpoint 间隔是多少**分钟**？",
        t_young / minutes,
        rel_tol=0.05,
        unit="min",
        wrong=(
            (
                seed_optimal_interval_h() * 60,
                "这是原文的 5.3 小时：它把“每小时保存 $60/T$ 次”里的 $T$ 当成分钟、别处又当成小时，"
                "还把重启时间算进了随 $T$ 变化的项。间隔比 MTBF 还长，大多数间隔根本走不完。",
            ),
            (
                math.sqrt(delta * mtbf) / minutes,
                "漏了因子 2：$dW/dT = -\\delta/T^2 + 1/(2M) = 0$ 给出 $T^* = \\sqrt{2\\delta M}$。",
            ),
            (
                math.sqrt(delta * mtbf / 2) / minutes,
                "因子 2 放错了位置：每次故障平均损失半个间隔 $T/2$，求导得 $T^* = \\sqrt{2\\delta M}$。",
            ),
            (
                math.sqrt(2 * delta / 60 * mtbf / 3600),
                "单位混了：$\\delta$ 用了分钟、$M$ 用了小时，开方后的单位既不是分钟也不是小时。"
                "先把两者换成同一单位。",
            ),
        ),
        explanation=f"$T^* = \\sqrt{{2\\delta M}} = \\sqrt{{2 \\times {units.fmt_num(delta)} \\times "
        f"{units.fmt_num(mtbf)}}}$ s = {units.fmt_seconds(t_young)}；Daly 的高阶修正给出 "
        f"{units.fmt_seconds(t_daly)}，两者都算对。",
    )
    q_overhead = numeric(
        f"接上题：在最优间隔下，保存与故障（重启 $R$ = {units.fmt_seconds(RESTART)}）一共浪费多少比例的墙钟时间？"
        "按一阶模型 $W(T) = \\delta/T + (T/2 + R)/M$ 计算，填百分数。",
        100 * w_star,
        unit="%",
        wrong=(
            (
                100 * seed_overhead_fraction(),
                "这是原文的 7.5%：它假设单次故障只损失 5 分钟，却每 2 小时才存一次，自相矛盾。",
            ),
            (
                100 *checkpoint.optimal_wasted_fraction(delta, mtbf),
                "漏了重启项 $R/M$：它不影响最优间隔，但每次故障都要付。",
            ),
            (100 * w_seed_interval, "这是按原文的 2 小时间隔算出的浪费，不是最优间隔下的。"),
        ),
        explanation=f"$W(T^*) = \\sqrt{{2\\delta/M}} + R/M$ = {units.fmt_num(100 * w_star)}%；"
        f"其中重启项 $R/M$ = {units.fmt_num(100 * RESTART / mtbf)}%。",
    )
    q_two_hours = numeric(
        f"原文的例子每 {units.fmt_num(SEED_INTERVAL_H)} 小时存一次，$f$ = {FAILURES_PER_HOUR} 次/小时，"
        f"$\\delta$ = {units.fmt_num(delta)} s，$R$ = {units.fmt_seconds(RESTART)}。"
        "按同一个一阶模型，浪费的时间占墙钟时间的百分之几？",
        100 * w_seed_interval,
        unit="%",
        wrong=(
            (100 * seed_overhead_fraction(), "这是原文的 7.5%：每次故障平均要丢半个间隔，即 60 分钟，不是 5 分钟。"),
            (
                100 *checkpoint.wasted_fraction(t_seed, delta, mtbf),
                "漏了重启项 $R/M$。",
            ),
            (
                100 * (delta / t_seed + (t_seed + RESTART) / mtbf),
                "每次故障平均损失的是半个间隔 $T/2$（故障在间隔内均匀出现），不是整个间隔。",
            ),
        ),
        explanation=f"$W = \\delta/T + (T/2 + R)/M$ = {units.fmt_num(100 * w_seed_interval)}%："
        "一半以上的时间都花在重做丢掉的工作上。",
    )
    q_mtbf = numeric(
        f"Llama 3 报告的中断率折合每 GPU 每小时 {format_number(llama.rate)} 次。"
        f"一个 {T_GPUS} 卡的作业（任何一张卡故障都会中断作业），平均多少**小时**故障一次？",
        m_job / units.HOUR,
        unit="h",
        wrong=(
            (m_16k / units.HOUR, f"这是 {LLAMA3_GPUS} 卡作业的 MTBF；故障率与卡数成正比，卡少 MTBF 就长。"),
            (
                m_16k * T_GPUS / LLAMA3_GPUS / units.HOUR,
                f"缩放方向反了：卡数从 {LLAMA3_GPUS} 减到 {T_GPUS}，MTBF 应变长 {LLAMA3_GPUS // T_GPUS} 倍，不是变短。",
            ),
            (1 / FAILURES_PER_HOUR, "这是本节例子里假设的 $f$ = 0.5 次/小时；题目给的是单卡速率，要乘卡数。"),
            (
                m_seed_lambda / units.HOUR,
                "你用了 $\\lambda = 3\\times10^{-6}$ /GPU·h 这个偏低的速率（§9.6.4 的勘误），"
                "题目给的是 Llama 3 的速率。",
            ),
        ),
        explanation=f"$M = 1/(G\\lambda)$ = {units.fmt_num(m_job / units.HOUR)} h；"
        f"若保存仍要 {units.fmt_num(delta)} s，$T^* = \\sqrt{{2\\delta M}}$ = "
        f"{units.fmt_seconds(checkpoint.young_interval(delta, m_job))}。",
        transfer=True,
    )
    q_restart = choice(
        f"其余条件不变，把重启时间 $R$ 从 {units.fmt_seconds(RESTART)} 延长到 "
        f"{units.fmt_seconds(2 * RESTART)}。一阶模型下的最优间隔 $T^*$ 会怎样？",
        [
            (
                "不变",
                math.isclose(
                    _argmin_interval(delta, mtbf, 2 * RESTART), _argmin_interval(delta, mtbf, RESTART), rel_tol=1e-9
                ),
                "对：$R/M$ 与 $T$ 无关，求导时消失。$R$ 只把整条曲线抬高 $R/M$。",
            ),
            ("变为 $\\sqrt{2}$ 倍", False, "$R$ 不在 $T^* = \\sqrt{2\\delta M}$ 里。"),
            ("变短：恢复越慢，越该勤存", False, "直觉如此，但每次故障付的 $R$ 与上次存在何时无关，存得勤也省不掉。"),
            ("变长", False, "$R$ 不改变两项 $\\delta/T$ 与 $T/(2M)$ 的平衡。"),
        ],
        explanation="$W(T) = \\delta/T + T/(2M) + R/M$：只有前两项随 $T$ 变化。",
    )
    t_base = checkpoint.young_interval(delta, m_128)
    t_new = checkpoint.young_interval(delta / 4, m_128 / 4)
    w_base = checkpoint.optimal_wasted_fraction(delta, m_128)
    w_new = checkpoint.optimal_wasted_fraction(delta / 4, m_128 / 4)
    q_scale = choice(
        "一个作业换上异步 checkpoint，阻塞训练的保存时间 $\\delta$ 降为原来的 1/4；同时它扩到 4 倍的卡数"
        "（单卡故障率不变）。按一阶模型，Young 最优间隔 $T^*$ 与最优浪费 $\\sqrt{2\\delta/M}$（不计 $R$）怎么变？",
        [
            (
                "间隔缩短为 1/4，浪费不变",
                math.isclose(t_new, t_base / 4) and math.isclose(w_new, w_base),
                "对：$\\delta$ 与 $M$ 都变为 1/4，$T^* = \\sqrt{2\\delta M}$ 变为 1/4，"
                "而 $\\sqrt{2\\delta/M}$ 中两者相消。",
            ),
            (
                "间隔不变：保存快了可以多存，卡多了要多存，两者抵消",
                False,
                "这是把两个因素当成相互抵消了。它们在 $T^* = \\sqrt{2\\delta M}$ 里是相乘的，"
                "都让间隔变短；相消的是浪费 $\\sqrt{2\\delta/M}$ 里的比值。",
            ),
            (
                "间隔缩短为 1/2，浪费减半",
                False,
                "只算了一个因素：卡数乘 4 使 $M$ 变为 1/4，$T^*$ 变为 1/2；$\\delta$ 变为 1/4 又使它再减半。",
            ),
            (
                "间隔缩短为 1/16，浪费不变",
                False,
                "$T^*$ 与 $\\sqrt{\\delta M}$ 成正比，不是与 $\\delta M$ 成正比：两个 1/4 相乘再开方得 1/4。",
            ),
        ],
        explanation="$M = 1/(G\\lambda)$：卡数乘 4，$M$ 除以 4。$T^* \\propto \\sqrt{\\delta M}$ 除以 4；"
        "最优浪费 $\\sqrt{2\\delta/M}$ 不变——更快的保存恰好抵掉了更频繁的故障。",
        transfer=True,
    )
    return [q_total, q_time, q_young, q_overhead, q_two_hours, q_mtbf, q_restart, q_scale]


def _argmin_interval(save_time: float, mtbf: float, restart_time: float) -> float:
    """The interval that minimises the first-order waste on a fine log grid (checks that R drops out)."""
    t_star = checkpoint.young_interval(save_time, mtbf)
    grid = [t_star * 10 ** (k / 2000 - 1) for k in range(4001)]
    return min(grid, key=lambda t: checkpoint.wasted_fraction(t, save_time, mtbf, restart_time))
