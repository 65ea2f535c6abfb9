"""Self-check questions for 集群篇 §2.3 (``book/part2/02-3-mpi-lab.ipynb``): measuring collectives on real MPI.

Given data are the module constants below (measurements invented for the questions, not the page's reference run);
every key comes from :mod:`clusterlab.lab.mpifit` or :mod:`clusterlab.communication.collectives`.
Distractors are the slips a reader makes: dividing bytes by time without the algorithm's ``2(N−1)/N``, the
all-gather factor for an all-reduce, counting ring steps as ``N−1``, pricing recursive doubling with ring bytes,
trusting timings taken with more ranks than cores.
"""

from __future__ import annotations

from typing import Final

from ... import units
from ...communication import collectives
from ...lab import mpifit
from ..quiz import Choice, Numeric, choice, numeric

__all__ = ["BUSBW_RANKS", "BUSBW_SIZE", "BUSBW_TIME", "FIT_POINTS", "FIT_RANKS", "PRED_ALPHA", "PRED_BETA",
           "PRED_RANKS", "PRED_SIZE", "REGIME_LARGE", "REGIME_RANKS", "REGIME_SIZE", "REGIME_SMALL", "STEP_RANKS",
           "c023_questions", "fitted_ring", "regime_ring_time"]

FIT_RANKS: Final = 4
#: two measured ring all-reduce points on 4 ranks: (S bytes, median time s) — invented for the question
FIT_POINTS: Final = ((8e3, 60e-6), (32e6, 30e-3))
BUSBW_RANKS: Final = 4
BUSBW_SIZE: Final = 64e6  # B, one rank's buffer
BUSBW_TIME: Final = 40e-3  # s, measured median
STEP_RANKS: Final = 16
PRED_RANKS: Final = 8
PRED_SIZE: Final = 3e6  # B
PRED_ALPHA: Final = 12e-6  # s, fitted α
PRED_BETA: Final = 3e9  # B/s, fitted β

REGIME_RANKS: Final = 8
REGIME_SIZE: Final = 48e3  # B, one rank's buffer
REGIME_SMALL: Final = (2.5e-6, 2e9)  # (α s, β B/s) below MPICH's switch (per-step message < 8192 B)
REGIME_LARGE: Final = (25e-6, 8e9)  # (α s, β B/s) from the switch up

Question = Numeric | Choice


def regime_ring_time(by_buffer: bool = False) -> float:
    """Ring all-reduce time of :data:`REGIME_SIZE` on :data:`REGIME_RANKS` ranks under the two-regime model, the
    regime picked by the per-step message (or, the slip, by the buffer ``S``)."""
    m = REGIME_SIZE if by_buffer else mpifit.message_size("all_reduce", "ring", REGIME_SIZE, REGIME_RANKS)
    alpha, beta = REGIME_SMALL if m < mpifit.MPICH_SHM_SWITCH else REGIME_LARGE
    return mpifit.cost_terms("all_reduce", "ring", REGIME_SIZE, REGIME_RANKS).priced(alpha, beta).time


def fitted_ring() -> mpifit.Fit:
    """α and β of the ring through the two points of :data:`FIT_POINTS` (an exact fit)."""
    return mpifit.fit("all_reduce", "ring", [(z, FIT_RANKS, t) for z, t in FIT_POINTS])


def c023_questions() -> list[Question]:
    """Self-check of §2.3: fit β from two points, busbw of a measurement, ring vs recursive-doubling steps,
    a prediction from fitted α and β, the regime of a two-regime model, oversubscription, a slow rank."""
    n = FIT_RANKS
    f = fitted_ring()
    (s1, t1), (s2, t2) = FIT_POINTS
    slope_naive = (s2 - s1) / (t2 - t1)  # β if one forgets the 2(N−1)/N
    q_fit = numeric(
        f"在 $N$ = {n} 个 rank 上测得环形全归约的中位时间：$S$ = {units.fmt_bytes(s1, 'KB')} 时 "
        f"{units.fmt_seconds(t1)}，$S$ = {units.fmt_bytes(s2, 'MB')} 时 {units.fmt_seconds(t2)}。"
        "用环的模型 $t = 2(N-1)\\alpha + 2S(N-1)/(N\\beta)$ 过这两点，$\\beta$ 是多少 GB/s？（允许 1% 相对误差）",
        units.bytes_to(f.bandwidth, "GB"),
        rel_tol=0.01,
        unit="GB/s",
        wrong=(
            (units.bytes_to(slope_naive, "GB"), "直接用 ΔS/Δt 当 β，漏了环每个 rank 要发送 $2S(N-1)/N$ 字节。"),
            (units.bytes_to(f.bandwidth, "GB") * 8, "这是以 Gb/s（比特）计的数。"),
        ),
        explanation=f"两式相减消去 α：$\\Delta t = 2\\Delta S(N-1)/(N\\beta)$，得 $\\beta$ = "
        f"{units.fmt_bytes(f.bandwidth)}/s；再代回得 $\\alpha$ = {units.fmt_seconds(f.latency)}。",
        transfer=True,
    )

    sample = mpifit.Sample("all_reduce", "ring", BUSBW_RANKS, BUSBW_SIZE, BUSBW_TIME, BUSBW_TIME, BUSBW_TIME,
                           BUSBW_TIME, BUSBW_TIME, 1)
    bus = mpifit.busbw(sample)
    q_bus = numeric(
        f"一次全归约，$N$ = {BUSBW_RANKS}，每个 rank 的缓冲区 $S$ = {units.fmt_bytes(BUSBW_SIZE, 'MB')}，"
        f"中位时间 {units.fmt_seconds(BUSBW_TIME)}。按 nccl-tests 的约定，busbw 是多少 GB/s？（允许 1% 相对误差）",
        units.bytes_to(bus, "GB"),
        rel_tol=0.01,
        unit="GB/s",
        wrong=(
            (units.bytes_to(BUSBW_SIZE / BUSBW_TIME, "GB"), "这是 algbw = S/t，还没乘全归约的因子 $2(N-1)/N$。"),
            (units.bytes_to(BUSBW_SIZE / BUSBW_TIME * (BUSBW_RANKS - 1) / BUSBW_RANKS, "GB"),
             "$(N-1)/N$ 是全收集与归约-散播的因子；全归约是 $2(N-1)/N$。"),
        ),
        explanation=f"algbw = {units.fmt_bytes(BUSBW_SIZE / BUSBW_TIME)}/s，乘 "
        f"{collectives.busbw_factor('all_reduce', BUSBW_RANKS):.2f} 得 {units.fmt_bytes(bus)}/s。",
        transfer=True,
    )

    ring = mpifit.cost_terms("all_reduce", "ring", 0.0, STEP_RANKS)
    rd = mpifit.cost_terms("all_reduce", "recursive_doubling", 0.0, STEP_RANKS)
    q_steps = numeric(
        f"$N$ = {STEP_RANKS} 时，极小消息（带宽项可以忽略）的全归约，环的延迟项是递归倍增的几倍？"
        "（按本节的模型，允许 1% 相对误差）",
        ring.steps / rd.steps,
        rel_tol=0.01,
        wrong=(
            ((STEP_RANKS - 1) / rd.steps, "环的全归约是归约-散播加全收集，共 $2(N-1)$ 步，不是 $N-1$ 步。"),
            (ring.steps / (2 * rd.steps + 2), "递归倍增只有 $\\log_2 N$ 步（每步交换整份数据）；"
             "$2\\log_2 N$ 步是减半-倍增，而且 $N$ 是 2 的幂，不必折叠。"),
        ),
        explanation=f"环 $2(N-1)$ = {ring.steps:.0f} 步，递归倍增 $\\log_2 N$ = {rd.steps:.0f} 步。"
        "rank 数越多，差距越大：这就是小消息时延迟项随 $N$ 增长的效果。",
        transfer=True,
    )

    pred = mpifit.cost_terms("all_reduce", "recursive_doubling", PRED_SIZE, PRED_RANKS)
    t_pred = pred.priced(PRED_ALPHA, PRED_BETA).time
    t_wrong = mpifit.cost_terms("all_reduce", "reduce_scatter_allgather", PRED_SIZE, PRED_RANKS).priced(
        PRED_ALPHA, PRED_BETA).time
    q_pred = numeric(
        f"拟合得到 $\\alpha$ = {units.fmt_seconds(PRED_ALPHA)}、$\\beta$ = {units.fmt_bytes(PRED_BETA)}/s。"
        f"用递归倍增的模型预测 $N$ = {PRED_RANKS}、$S$ = {units.fmt_bytes(PRED_SIZE, 'MB')} 的全归约要多少 ms？"
        "（允许 1% 相对误差）",
        t_pred * 1e3,
        rel_tol=0.01,
        unit="ms",
        wrong=(
            (t_wrong * 1e3, "这是减半-倍增（reduce_scatter_allgather）的模型：它每步只交换一部分数据；"
             "递归倍增每一步都交换整份 $S$。"),
            ((pred.steps * PRED_ALPHA + PRED_SIZE / PRED_BETA) * 1e3, "带宽项要乘步数：每步都发整份 $S$。"),
        ),
        explanation=f"$\\log_2 N\\,\\alpha + S\\log_2 N/\\beta$ = {pred.steps:.0f} × {units.fmt_seconds(PRED_ALPHA)} + "
        f"{pred.bytes / PRED_SIZE:.0f} × {units.fmt_bytes(PRED_SIZE, 'MB')} / {units.fmt_bytes(PRED_BETA)}/s。",
        transfer=True,
    )

    c = mpifit.cost_terms("all_reduce", "ring", REGIME_SIZE, REGIME_RANKS)
    (a1, b1), (a2, b2) = REGIME_SMALL, REGIME_LARGE
    q_regime = numeric(
        f"两段模型：每步消息小于 {mpifit.MPICH_SHM_SWITCH:.0f} B 时 $\\alpha$ = {units.fmt_seconds(a1)}、"
        f"$\\beta$ = {units.fmt_bytes(b1)}/s，否则 $\\alpha$ = {units.fmt_seconds(a2)}、"
        f"$\\beta$ = {units.fmt_bytes(b2)}/s。"
        f"$N$ = {REGIME_RANKS}、$S$ = {units.fmt_bytes(REGIME_SIZE, 'KB')} 的环形全归约要多少 µs？（允许 1% 相对误差）",
        regime_ring_time() * 1e6,
        rel_tol=0.01,
        unit="µs",
        wrong=(
            (regime_ring_time(by_buffer=True) * 1e6, "按缓冲区 $S$ 选了段；决定协议的是每步的消息 $S/N$。"),
            ((REGIME_RANKS - 1) * a1 * 1e6 + c.bytes / b1 * 1e6, "环的全归约是 $2(N-1)$ 步，不是 $N-1$ 步。"),
        ),
        explanation=f"环每步发 $S/N$ = {units.fmt_bytes(REGIME_SIZE / REGIME_RANKS, 'KB')}，小于切换点，用第一段："
        f"{c.steps:.0f} × {units.fmt_seconds(a1)} + {c.bytes / REGIME_SIZE:.2f} × "
        f"{units.fmt_bytes(REGIME_SIZE, 'KB')} / {units.fmt_bytes(b1)}/s。",
        transfer=True,
    )

    q_over = choice(
        "在一台 2 核的机器上用 `mpiexec -n 4` 测 MPICH 的全归约，1 KB 的时间比 `-n 2` 时大了上百倍。最可能的原因是？",
        [
            ("rank 比核多：MPICH 等待时忙轮询，四个进程轮流占两个核，谁被换下谁就拖住所有人", True,
             "对：这测的是操作系统的调度，不是通信。"),
            ("环的延迟项从 2 步变成 6 步", False, "步数只多了 3 倍，解释不了上百倍。"),
            ("1 KB 放不进缓存", False, "1 KB 远小于任何一级缓存。"),
            ("消息太小，MPI 拒绝使用共享内存", False, "同一台机器上 MPICH 一直走共享内存。"),
        ],
        explanation="本节的测量在这种情形下自动标记 oversubscribed，拟合出的 α 只能说明调度有多慢。",
    )

    q_slow = choice(
        "4 个 rank 做环形全归约，其中一个 rank 每次调用前都要多花 20 ms（比如数据加载慢）。"
        "其余 rank 看到的全归约时间会怎样？",
        [
            ("每个 rank 都多等约 20 ms：集合通信要等最慢的参与者", True, "对：环上的每一步都需要它的数据。"),
            ("只有它的两个邻居变慢，另一个 rank 不受影响", False, "全归约结束前每个 rank 都需要所有人的数据。"),
            ("时间不变：它的延迟被其余三个 rank 平均掉了", False, "集合通信没有“平均”，只有“等”。"),
        ],
        explanation="这就是 §5 讨论的慢节点：一个 rank 慢，整个集合通信一起慢。",
    )
    return [q_fit, q_bus, q_steps, q_pred, q_regime, q_over, q_slow]
