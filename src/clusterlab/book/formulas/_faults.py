"""Sheet entries of failures, checkpoints and reproducibility: 集群篇 §5, §9.6.3, §9.6.4 and §9.6.5.2 (group
``faults``)."""

from __future__ import annotations

from typing import Final

import numpy as np

from ...faults import checkpoint, determinism, recovery, reliability, slowlink
from ._base import ALPHA, BETA, MTBF, RESTART, SAVE, Formula, Symbol

_INTERVAL = Symbol("interval", "T", "checkpoint 间隔（两次保存之间的计算）", "s", 1.0, 1e5)
_SLOWDOWN = Symbol("slowdown", "k", "慢链路慢的倍数", "—", 1.0, 100.0)


def _slow_ring(size: float, ranks: int, latency: float, bandwidth: float, slowdown: float) -> float:
    links = [bandwidth] * (ranks - 1) + [bandwidth / slowdown]
    return slowlink.ring_with_slow_link(size, links, latency).total_time


def _adam_first_step(grad: float, lr: float, eps: float) -> float:
    zero = np.zeros(1)
    param, _, _ = recovery.adam_update(zero, np.array([grad]), zero, zero, 1, lr, eps=eps)
    return float(param[0])


def _error_bound(additions: int, abs_sum: int) -> float:
    return float(determinism.error_bound(np.array([[abs_sum], [0.0]]), additions=additions)[0])


FORMULAS: Final[tuple[Formula, ...]] = (
    # ---------------------------------------------------------------- failure rates (§9.6.4, §5)
    Formula(
        "mtbf", "faults", "作业 MTBF：$G$ 个独立故障源",
        r"M = \frac{1}{G\lambda}", "秒 s（λ 以 /GPU·h 给出）",
        (Symbol("components", "G", "故障源（GPU）数", "—", 1, 1_000_000, True),
         Symbol("rate", r"\lambda", "单卡故障率", "/GPU·h", 1e-8, 1e-2)),
        "clusterlab.faults.reliability.job_mtbf",
        lambda components, rate: reliability.job_mtbf(components, rate),
        "{prf:ref}`def-964-mtbf`",
    ),
    Formula(
        "failure-rate", "faults", "由公开记录估计单卡故障率",
        r"\lambda = \frac{n}{G\,t}", "/GPU·h",
        (Symbol("events", "n", "记录到的中断次数", "次", 0.0, 1e5),
         Symbol("components", "G", "故障源（GPU）数", "—", 1, 1_000_000, True),
         Symbol("hours", "t", "记录的时长", "h", 1.0, 1e5)),
        "clusterlab.faults.reliability.rate_from_events",
        lambda events, components, hours: reliability.rate_from_events(events, components, hours),
        "{ref}`§9.6.4 <sec-964-llama3>`",
    ),
    # ---------------------------------------------------------------- checkpoint interval (§9.6.3)
    Formula(
        "waste", "faults", "一阶模型：间隔 $T$ 时浪费的墙钟时间比例",
        r"W(T) = \frac{\delta}{T} + \frac{T/2 + R}{M}", "比例",
        (_INTERVAL, SAVE, MTBF, RESTART), "clusterlab.faults.checkpoint.wasted_fraction",
        lambda interval, save_time, mtbf, restart_time: checkpoint.wasted_fraction(
            interval, save_time, mtbf, restart_time),
        "{prf:ref}`thm-963-young`",
    ),
    Formula(
        "young", "faults", "Young 的最优 checkpoint 间隔", r"T^* = \sqrt{2\delta M}", "秒 s",
        (SAVE, MTBF), "clusterlab.faults.checkpoint.young_interval",
        lambda save_time, mtbf: checkpoint.young_interval(save_time, mtbf),
        "{prf:ref}`thm-963-young`",
    ),
    Formula(
        "daly", "faults", "Daly 的高阶修正（$\\delta < 2M$）",
        r"T^*_\text{D} = \sqrt{2\delta M}\left(1 + \tfrac{\sqrt{x}}{3} + \tfrac{x}{9}\right) - \delta,\ "
        r"x = \tfrac{\delta}{2M}", "秒 s",
        (SAVE, MTBF), "clusterlab.faults.checkpoint.daly_interval",
        lambda save_time, mtbf: checkpoint.daly_interval(save_time, mtbf),
        "{ref}`§9.6.3 <sec-963-young>`",
        valid=lambda save_time, mtbf: save_time < 2 * mtbf,
    ),
    Formula(
        "waste-opt", "faults", "最优间隔下浪费的墙钟时间比例（一阶）",
        r"W^* = \sqrt{\frac{2\delta}{M}} + \frac{R}{M}", "比例",
        (SAVE, MTBF, RESTART), "clusterlab.faults.checkpoint.optimal_wasted_fraction",
        lambda save_time, mtbf, restart_time: checkpoint.optimal_wasted_fraction(save_time, mtbf, restart_time),
        "{prf:ref}`thm-963-young`",
    ),
    Formula(
        "waste-exact", "faults", "指数故障下浪费比例的精确值",
        r"W = 1 - \frac{T}{E},\quad E = M\,e^{R/M}\left(e^{(T+\delta)/M} - 1\right)", "比例",
        (_INTERVAL, SAVE, MTBF, RESTART), "clusterlab.faults.checkpoint.expected_wasted_fraction",
        lambda interval, save_time, mtbf, restart_time: checkpoint.expected_wasted_fraction(
            interval, save_time, mtbf, restart_time),
        "{prf:ref}`thm-963-exact`",
        # e^{(T+δ+R)/M} must be a double: beyond e^700 the function overflows (W is 1 to double precision there)
        valid=lambda interval, save_time, mtbf, restart_time: (interval + save_time + restart_time) / mtbf < 700,
        note="$E$ 是算完 $T$、存完 $\\delta$ 的一段平均要花的墙钟时间（故障后重来，恢复中也可能再出故障）",
    ),
    Formula(
        "goodput", "faults", "有效训练时间比例（一阶，间隔 $T$）",
        r"\left(1 - \tfrac{(T+\delta)/2 + R}{M}\right)\tfrac{T}{T+\delta}", "比例",
        (_INTERVAL, SAVE, MTBF, Symbol("mttr", "R", "MTTR（恢复时间）", "s", 0.0, 1e4)),
        "clusterlab.faults.reliability.goodput",
        lambda interval, save_time, mtbf, mttr: reliability.goodput(interval, save_time, mtbf, mttr).useful,
        "{prf:ref}`ex-c05-goodput`",
        valid=lambda interval, save_time, mtbf, mttr: (interval + save_time) / 2 + mttr < mtbf,
    ),
    # ---------------------------------------------------------------- slow links (§5)
    Formula(
        "slow-ring", "faults", "一条链路慢 $k$ 倍时的环形全归约",
        r"T = 2(N-1)\left(\alpha + \frac{kS}{N\beta}\right)", "秒 s",
        (Symbol("size", "S", "每个 rank 的缓冲区", "B", 0.0, 1e12), Symbol("ranks", "N", "rank 数", "—", 2, 256, True),
         ALPHA, BETA, _SLOWDOWN),
        "clusterlab.faults.slowlink.ring_with_slow_link",
        _slow_ring, "{numref}`fig-c05-slow`",
        note="每一步等最慢的链路：整个环按慢链路的速度走",
    ),
    Formula(
        "slow-throughput", "faults", "慢链路下的相对吞吐（上界：原本藏住的通信仍藏住）",
        r"\frac{1}{(1-f) + kf}", "比例",
        (Symbol("exposed_fraction", "f", "一步中暴露的通信所占比例", "—", 0.0, 1.0), _SLOWDOWN),
        "clusterlab.faults.slowlink.throughput_with_slow_link",
        lambda exposed_fraction, slowdown: slowlink.throughput_with_slow_link(exposed_fraction, slowdown),
        "{ref}`§5 <sec-c05>`",
    ),
    Formula(
        "slow-step", "faults", "慢链路下的一步：重叠窗口 $w$ 的长度不变",
        r"t = t_c + \max\left(0,\ kC - w\right)", "秒 s",
        (Symbol("compute", "t_c", "计算时间", "s", 1e-3, 100.0),
         Symbol("communication", "C", "通信时间", "s", 0.0, 100.0),
         Symbol("overlap", "w", "可藏通信的计算窗口（不超过 $t_c$）", "s", 0.0, 100.0), _SLOWDOWN),
        "clusterlab.faults.slowlink.step_with_slow_link",
        lambda compute, communication, overlap, slowdown: slowlink.step_with_slow_link(
            compute, communication, overlap, slowdown).slow_step,
        "{ref}`§5 <sec-c05>`",
        valid=lambda compute, overlap, **_: overlap <= compute,
        note="$k = 1$ 即健康时的一步",
    ),
    # ---------------------------------------------------------------- recovery (§5)
    Formula(
        "adam-first-step", "faults", "优化器状态丢失后 Adam 的第一步（$m = v = 0$，$t = 1$）",
        r"\Delta\theta = -\,\text{lr}\cdot\frac{g}{\lvert g\rvert + \epsilon}", "参数的单位",
        (Symbol("grad", "g", "梯度", "—", -10.0, 10.0), Symbol("lr", r"\text{lr}", "学习率", "—", 1e-6, 1.0),
         Symbol("eps", r"\epsilon", "Adam 的 ε", "—", 1e-12, 1e-6)),
        "clusterlab.faults.recovery.adam_update",
        _adam_first_step, "{prf:ref}`def-c05-four-pieces`",
        note="梯度不为零的每个参数都几乎走满一个学习率",
    ),
    # ---------------------------------------------------------------- summation error (§9.6.5.2)
    Formula(
        "sum-error-bound", "faults", "浮点求和误差的上界（float32，$u = 2^{-24}$）",
        r"\lvert \hat s - s\rvert \le \gamma_k \sum_i \lvert x_i\rvert,\quad \gamma_k = \frac{ku}{1 - ku}",
        "与 $x$ 同单位",
        (Symbol("additions", "k", "从一个输入到结果最多经过的加法次数", "—", 1, 1024, True),
         Symbol("abs_sum", r"\sum_i \lvert x_i\rvert", "各项绝对值之和（测试取 float32 能精确表示的整数）", "—",
                0, 2**24, True)),
        "clusterlab.faults.determinism.error_bound",
        _error_bound, "{prf:ref}`thm-9652-bound`",
        note="逐个相加（环）$k = N-1$，成对求和 $k = \\lceil\\log_2 N\\rceil$（`summation.longest_chain`）",
    ),
)
