"""Self-check questions for part 2 (集群篇): §1 why gradient synchronisation is a problem, §2 ring all-reduce.

Given data are the module constants below (the same as in the notebooks); every key comes from
:mod:`clusterlab.communication.collectives` or :mod:`clusterlab.communication.ring`. Distractors are the slips readers
make: bits for
bytes, GiB for GB, forgetting ``(N−1)/N``, counting send and receive twice, one phase instead of two, the
seed's wording. ``c01_questions()`` belongs to ``book/part2/01-gradient-sync.ipynb``, ``c02_questions()``
to ``book/part2/02-ring-allreduce.ipynb``.
"""

from __future__ import annotations

from typing import Final

import numpy as np

from ... import units, validate
from ...communication import collectives, ring
from ..quiz import Choice, Numeric, choice, numeric

__all__ = [
    "BYTES_FP16",
    "BYTES_FP32",
    "LATENCY",
    "LINK_GBIT",
    "MEASURED_TIME",
    "PARAMS",
    "RANKS",
    "RANKS_LARGE",
    "SMALL_MESSAGE",
    "T_BETA_GBYTE",
    "T_LATENCY",
    "T_MESSAGE",
    "T_NAIVE_PARAMS",
    "T_NAIVE_RANKS",
    "T_RANKS_LARGE",
    "T_RANKS_STEPS",
    "T_RING_PARAMS",
    "T_RING_RANKS",
    "UNEVEN_LENGTH",
    "UNEVEN_RANKS",
    "c01_questions",
    "c02_questions",
    "gradient_bytes",
    "link_bandwidth",
]

PARAMS: Final = 7e9  # Ψ of a 7B model
BYTES_FP16: Final = 2  # bytes per fp16/bf16 gradient element
BYTES_FP32: Final = 4
RANKS: Final = 8  # one node, eight GPUs
RANKS_LARGE: Final = 1024
LINK_GBIT: Final = 200  # 200 Gb/s RoCE NIC, quoted per direction
LATENCY: Final = 5e-6  # α, s (assumed order of magnitude for one RDMA message)
SMALL_MESSAGE: Final = 1e6  # 1 MB
MEASURED_TIME: Final = 1.12  # s, a hypothetical measured all-reduce time of 14 GB on 8 ranks
UNEVEN_RANKS: Final = 4
UNEVEN_LENGTH: Final = 10  # float32 elements per rank, not divisible by UNEVEN_RANKS
# transfer: scenarios the chapters do not work through
T_NAIVE_PARAMS: Final = 3e9  # a 3B model for the naive scheme …
T_NAIVE_RANKS: Final = 16  # … on two nodes
T_RANKS_LARGE: Final = 512
T_LATENCY: Final = 8e-6  # α, s
T_BETA_GBYTE: Final = 50  # GB/s per direction (a 400 Gb/s NIC)
T_MESSAGE: Final = 1e9  # 1 GB
T_RING_PARAMS: Final = 6e9  # a 6B model, fp16 gradients: S = 12 GB …
T_RING_RANKS: Final = 32  # … on 32 ranks
T_RANKS_STEPS: Final = 384

Question = Numeric | Choice


def gradient_bytes(params: float = PARAMS, bytes_per_element: int = BYTES_FP16) -> float:
    """S = Ψ × bytes per element (the gradient buffer of one rank), in bytes."""
    psi = validate.positive("params", params)
    return psi * validate.positive("bytes_per_element", bytes_per_element)


def link_bandwidth() -> float:
    """β of the 200 Gb/s NIC in B/s per direction (25 GB/s)."""
    return units.gbit_per_s(LINK_GBIT)


def _gb(x: float) -> float:
    return units.bytes_to(x, "GB")


# --------------------------------------------------------------------------------------------------------
# §1
# --------------------------------------------------------------------------------------------------------
def c01_questions() -> list[Question]:
    """Self-check of §1: gradient size, the naive scheme's root load and time, ring vs latency at scale."""
    s = gradient_bytes()
    s32 = gradient_bytes(bytes_per_element=BYTES_FP32)
    beta = link_bandwidth()
    beta_txt = f"{units.fmt_bytes(beta)}/s"
    alpha_txt = units.fmt_seconds(LATENCY)
    # the naive scheme on a job the chapter does not work through
    s_n = gradient_bytes(T_NAIVE_PARAMS)
    naive = collectives.traffic("all_reduce", s_n, T_NAIVE_RANKS, algorithm="naive")
    t_naive = collectives.alpha_beta_time("all_reduce", s_n, T_NAIVE_RANKS, LATENCY, beta, algorithm="naive")
    t_ring = collectives.alpha_beta_time("all_reduce", s_n, T_NAIVE_RANKS, LATENCY, beta)
    ring_vol = collectives.send_volume("all_reduce", s_n, T_NAIVE_RANKS)

    # latency and bandwidth terms of the ring at large N, and the message size where they are equal
    beta_t = units.gbyte_per_s(T_BETA_GBYTE)
    beta_t_txt = f"{units.fmt_bytes(beta_t)}/s"
    alpha_t_txt = units.fmt_seconds(T_LATENCY)
    c_msg = collectives.cost("all_reduce", T_MESSAGE, T_RANKS_LARGE, T_LATENCY, beta_t)
    lat_big = c_msg.latency
    per_byte_big = collectives.cost("all_reduce", 1.0, T_RANKS_LARGE, T_LATENCY, beta_t).bandwidth  # s per byte
    crossover = lat_big / per_byte_big
    bw_msg = c_msg.bandwidth

    q_size = numeric(
        "一个 7B 模型（$\\Psi = 7\\times10^9$ 个参数）的梯度以 fp16 存放，"
        "一个 rank 上的梯度缓冲区 $S$ 有多少 GB（1 GB = $10^9$ B）？",
        _gb(s),
        unit="GB",
        wrong=(
            (_gb(s32), "这是 fp32（每元素 4 字节）的大小；题目问的是 fp16，每元素 2 字节。"),
            (
                _gb(8 * s),
                "单位混了：这是以 Gb（比特）计的数，1 字节 = 8 比特。"
                "也可能你算的是训练态（每参数 16 字节），那包括权重和优化器状态，不只是梯度。",
            ),
            (units.bytes_to(s, "GiB"), "这是以 GiB（$2^{30}$ B）计的数；本书的 GB 是 $10^9$ B。"),
        ),
        explanation=f"$S = \\Psi \\times 2$ B = {units.fmt_bytes(s)}（fp32 时为 {units.fmt_bytes(s32)}）。",
    )
    q_root = numeric(
        f"朴素方案换一个作业：3B 模型的 fp16 梯度 $S$ = {units.fmt_bytes(s_n)}，"
        f"{T_NAIVE_RANKS} 个 rank 都把它发给 0 号卡，"
        "0 号卡求和后再发回去。0 号卡一共要**接收**多少 GB？",
        _gb(naive.recv_max),
        unit="GB",
        wrong=(
            (_gb(s_n * T_NAIVE_RANKS), "0 号卡不用接收自己的那一份：只有 $N-1$ 个 rank 向它发送。"),
            (_gb(naive.critical), "这是接收与发送之和；题目只问接收。"),
            (_gb(ring_vol), "这是环形算法每个 rank 的发送量，不是朴素方案的根。"),
            (_gb(s_n), "这只是一个 rank 发来的量；0 号卡要收 $N-1$ 份。"),
        ),
        explanation=f"$S(N-1)$ = {units.fmt_num(_gb(s_n))} GB × {T_NAIVE_RANKS - 1} = "
        f"{units.fmt_bytes(naive.recv_max)}；它还要再发出同样多，"
        f"经过它网卡的合计 {units.fmt_bytes(naive.critical)}。",
        transfer=True,
    )
    q_time = numeric(
        f"接上题：0 号卡的网卡是 {LINK_GBIT} Gb/s（每个方向），"
        f"每条消息的固定延迟 $\\alpha$ = {alpha_txt}。"
        "按 α-β 模型，先收齐、再发出，朴素方案一次全归约要多少秒？",
        t_naive,
        unit="s",
        wrong=(
            (
                naive.recv_max / beta,
                "你只算了一个阶段：0 号卡先收 $S(N-1)$，再发 $S(N-1)$，两段先后进行。",
            ),
            (t_ring, "这是环形算法的时间；朴素方案的瓶颈是 0 号卡一条链路上的 $2S(N-1)$ 字节。"),
            (
                naive.critical / (beta / 8),
                f"带宽换算错了：{LINK_GBIT} Gb/s 每个方向是 {beta_txt}，比特换字节只需除以 8 一次。",
            ),
        ),
        explanation=f"$t = 2\\alpha + 2S(N-1)/\\beta$ = {units.fmt_seconds(t_naive)}，"
        f"约是环形算法（{units.fmt_seconds(t_ring)}）的 {units.fmt_num(t_naive / t_ring)} 倍。",
        transfer=True,
    )
    q_cross = numeric(
        f"环形全归约在 $N$ = {T_RANKS_LARGE} 个 rank 上运行，$\\alpha$ = {alpha_t_txt}，"
        f"$\\beta$ = {beta_t_txt}（每方向）。消息多大（MB）时，"
        "延迟项 $2(N-1)\\alpha$ 恰好等于带宽项 $2S(N-1)/(N\\beta)$？",
        units.bytes_to(crossover, "MB"),
        unit="MB",
        wrong=(
            (
                units.bytes_to(crossover / 8, "MB"),
                f"你把 β = {beta_t_txt} 又除了 8：题目给的已经是字节每秒（GB/s），不是比特每秒（Gb/s）。",
            ),
            (
                units.bytes_to(2 * (T_RANKS_LARGE - 1) * T_LATENCY * beta_t, "MB"),
                "带宽项里漏了因子 $2(N-1)/N$。令 $2(N-1)\\alpha = 2S(N-1)/(N\\beta)$，"
                "两边的 $2(N-1)$ 约掉，得 $S = N\\alpha\\beta$。",
            ),
            (
                units.bytes_to(T_LATENCY * beta_t, "MB"),
                "$\\alpha\\beta$ 是单条消息的平衡点；环有 $2(N-1)$ 步，每步只搬 $S/N$，所以要乘 $N$。",
            ),
        ),
        explanation=f"$S^* = N\\alpha\\beta$ = {units.fmt_bytes(crossover, 'MB')}。"
        f"小于它的消息在 {T_RANKS_LARGE} 个 rank 的环上主要花在延迟上。",
        transfer=True,
    )
    q_dominant = choice(
        f"同一个环（$N$ = {T_RANKS_LARGE}，$\\alpha$ = {alpha_t_txt}，$\\beta$ = {beta_t_txt}）"
        f"全归约一条 {units.fmt_bytes(T_MESSAGE)} 的消息。耗时主要由哪一项决定？",
        [
            (
                "延迟项 $2(N-1)\\alpha$：rank 数上了几百，环总是延迟主导",
                lat_big > bw_msg,
                f"你把“千卡规模下小消息延迟主导”推广成了“大规模总是延迟主导”。决定胜负的是 $S$ 与 $N\\alpha\\beta$ "
                f"之比：这里 $S$ = {units.fmt_bytes(T_MESSAGE)} 大于 {units.fmt_bytes(crossover, 'MB')}，"
                f"延迟项 {units.fmt_seconds(lat_big)} 只是带宽项 {units.fmt_seconds(bw_msg)} 的一小部分。",
            ),
            (
                "带宽项 $2S(N-1)/(N\\beta)$",
                bw_msg > lat_big,
                f"对：$S$ 大于平衡点 $N\\alpha\\beta$ = {units.fmt_bytes(crossover, 'MB')}，带宽项 "
                f"{units.fmt_seconds(bw_msg)}，延迟项 {units.fmt_seconds(lat_big)}。",
            ),
            (
                "两项一样大：环的两项都随 $N$ 增长",
                False,
                f"只有延迟项随 $N$ 增长；带宽项 $2S(N-1)/(N\\beta)$ 趋于 $2S/\\beta$，与 $N$ 几乎无关。"
                f"这里两项相差约 {units.fmt_num(bw_msg / lat_big)} 倍。",
            ),
        ],
        explanation="比较 $S$ 与平衡点 $N\\alpha\\beta$：小于它延迟主导，大于它带宽主导。梯度同步的消息通常"
        "在 GB 量级，远大于平衡点；只有规模上千、消息又小于 $N\\alpha\\beta$ 时，才轮到延迟项主导。",
        transfer=True,
    )
    q_nccl = choice(
        "关于 NCCL 在大规模集群上做全归约，下面哪一种说法正确？",
        [
            (
                "规模越大越应该用环，NCCL 在千卡上只用 Ring",
                False,
                "环的步数是 $2(N-1)$，千卡时小消息几乎全是延迟；NCCL 并不只用环。",
            ),
            (
                "NCCL 提供 Ring、Tree（双二叉树）、CollNet、NVLS/NVLSTree、PAT 等算法，"
                "按消息大小、规模和拓扑自动选择",
                True,
                "对：不设置 NCCL_ALGO 时，由 NCCL 的代价模型为每次调用选择算法。",
            ),
            (
                "树形算法的步数随 $N$ 线性增长，所以只适合小规模",
                False,
                "二叉树的深度是 $\\log_2 N$，步数按对数增长；线性增长的是环。",
            ),
        ],
        explanation="大消息时环是带宽最优的；规模大、消息小时，树形或交换机内归约的延迟优势更重要。",
    )
    return [q_size, q_root, q_time, q_cross, q_dominant, q_nccl]


# --------------------------------------------------------------------------------------------------------
# §2
# --------------------------------------------------------------------------------------------------------
def _complete_chunk_after_reduce_scatter(ranks: int, rank: int) -> int:
    """The chunk whose copy on ``rank`` holds all inputs after reduce-scatter (read from the simulator)."""
    trace = ring.simulate_all_reduce(np.ones((ranks, ranks), dtype=np.float32))
    contrib = trace.contributions_after(ranks - 1)
    (complete,) = np.flatnonzero(contrib[rank].all(axis=1))
    return int(complete)


def _uneven_trace() -> ring.RingTrace:
    return ring.simulate_all_reduce(np.ones((UNEVEN_RANKS, UNEVEN_LENGTH), dtype=np.float32))


def c02_questions() -> list[Question]:
    """Self-check of §2: per-rank volume, steps, the schedule, uneven chunks, busbw, the lower bound."""
    s = gradient_bytes()
    beta = link_bandwidth()
    s_t = gradient_bytes(T_RING_PARAMS)
    vol = collectives.send_volume("all_reduce", s_t, T_RING_RANKS)
    recv = collectives.recv_volume("all_reduce", s_t, T_RING_RANKS)
    rs_vol = collectives.send_volume("reduce_scatter", s_t, T_RING_RANKS)
    steps_big = collectives.steps("all_reduce", T_RANKS_STEPS)
    rs_steps_big = collectives.steps("reduce_scatter", T_RANKS_STEPS)
    factor_small = collectives.busbw_factor("all_reduce", RANKS)

    q_vol = numeric(
        f"一个 {T_RING_PARAMS / 1e9:g}B 模型的 fp16 梯度 $S$ = {units.fmt_bytes(s_t)}，"
        f"在 $N$ = {T_RING_RANKS} 个 rank 上做环形全归约。"
        "每个 rank 一共**发送**多少 GB？",
        _gb(vol),
        unit="GB",
        wrong=(
            (_gb(2 * s_t), "这是 $2S$，漏了因子 $(N-1)/N$：每步只发一块 $S/N$，共 $2(N-1)$ 步。"),
            (_gb(vol + recv), "这是发送与接收之和；题目只问发送（接收量与发送量相等）。"),
            (_gb(rs_vol), "这只是归约-散播一个阶段；全收集还要再发同样多。"),
            (
                _gb(2 * (T_RING_RANKS - 1) * s_t),
                "这是 $2(N-1)S$：全部 rank 的发送量之和（所有链路上的总流量），题目问的是一个 rank。",
            ),
            (_gb(8 * vol), "这是以 Gb（比特）计的数：把字节乘了 8。"),
        ),
        explanation=f"$2S(N-1)/N$ = 2 × {units.fmt_num(_gb(s_t))} GB × {T_RING_RANKS - 1}/{T_RING_RANKS} = "
        f"{units.fmt_bytes(vol, 'GB', 5)}。",
        transfer=True,
    )
    q_steps = numeric(
        f"$N$ = {T_RANKS_STEPS} 个 rank 的环形全归约，一共有多少个先后进行的通信步？",
        steps_big,
        rel_tol=0.0,
        abs_tol=0.5,
        unit="步",
        wrong=(
            (rs_steps_big, "这只是一个阶段的 $N-1$ 步；归约-散播与全收集合计 $2(N-1)$ 步。"),
            (2 * T_RANKS_STEPS, "每个阶段是 $N-1$ 步而不是 $N$ 步：第一步发出的块已经带着一份输入。"),
            (T_RANKS_STEPS, "步数不是 $N$：两个阶段各 $N-1$ 步。"),
        ),
        explanation=f"$2(N-1)$ = {steps_big}；每一步都要付一次延迟 $\\alpha$。",
        transfer=True,
    )
    rank = 2
    chunk = _complete_chunk_after_reduce_scatter(UNEVEN_RANKS, rank)
    q_chunk = numeric(
        f"$N$ = {UNEVEN_RANKS}。归约-散播阶段的规则：第 $s$ 步（$s = 0, 1, 2$）rank $r$ 把块 "
        "$(r-s) \\bmod N$ 发给 rank $r+1$，接收方把它加到自己的那一块上。"
        f"这一阶段结束时，rank {rank} 手里哪一块已经是全部 {UNEVEN_RANKS} 个 rank 之和？（填块号）",
        chunk,
        rel_tol=0.0,
        abs_tol=0.5,
        wrong=(
            (rank, f"rank {rank} 自己的块 {rank} 在第 0 步就被发走了，它的完整和最后落在 rank {rank - 1} 上。"),
            (rank - 1, "方向反了：块沿编号增大的方向走，块 $c$ 的完整和落在 rank $c-1$ 上。"),
        ),
        explanation="块 $c$ 从 rank $c$ 出发，每步前进一跳并多带上一份输入；"
        "$N-1$ 步后停在 rank $c+N-1 \\equiv c-1$。所以 rank $r$ 持有完整的块 $(r+1) \\bmod N$，"
        f"rank {rank} 持有块 {chunk}。",
    )
    uneven = _uneven_trace()
    sent = [int(b) for b in uneven.bytes_sent]
    q_uneven = numeric(
        f"每个 rank 有 {UNEVEN_LENGTH} 个 float32 元素（$S$ = {uneven.buffer_bytes} B），"
        f"$N$ = {UNEVEN_RANKS}，按 `np.array_split` 切块（前面的块各多一个元素）。"
        "环形全归约中**发送最多**的那个 rank 发送多少字节？",
        max(sent),
        rel_tol=0.0,
        abs_tol=0.5,
        unit="B",
        wrong=(
            (
                collectives.send_volume("all_reduce", uneven.buffer_bytes, UNEVEN_RANKS),
                "这是公式 $2S(N-1)/N$，它只是各 rank 的平均；块不等长时各 rank 不同。",
            ),
            (2 * uneven.buffer_bytes, "这是 $2S$；每个阶段每个 rank 都有一块不用发。"),
            (min(sent), "这是发送最少的 rank。"),
        ),
        explanation="rank $r$ 在归约-散播中发出除块 $r+1$ 以外的所有块，在全收集中发出除块 $r+2$ 以外的所有块，"
        "所以它发送 $2S$ 减去这两块的字节数。各 rank 依次发送 "
        + "、".join(str(b) for b in sent)
        + " B，总和恰为 $2(N-1)S$。",
    )
    algbw = s / MEASURED_TIME
    busbw = algbw * collectives.busbw_factor("all_reduce", RANKS)
    q_busbw = numeric(
        f"在 {RANKS} 个 rank 上全归约 {units.fmt_bytes(s)} 的缓冲区，实测用时 "
        f"{units.fmt_num(MEASURED_TIME)} s。按 nccl-tests 的定义，总线带宽 busbw 是多少 GB/s？",
        _gb(busbw),
        unit="GB/s",
        wrong=(
            (_gb(algbw), "这是算法带宽 algbw = S/t；busbw 还要乘以 $2(N-1)/N$。"),
            (_gb(busbw) * 8, "这是以 Gb/s（比特）计的数。"),
            (_gb(beta), "这是链路的标称速率，不是由实测时间算出的 busbw。"),
        ),
        explanation=f"algbw = {units.fmt_num(_gb(algbw))} GB/s，busbw = algbw × $2(N-1)/N$ = "
        f"{units.fmt_num(_gb(busbw))} GB/s，可以直接与每方向 {units.fmt_bytes(beta)}/s 的链路相比。",
        transfer=True,
    )
    q_bound = choice(
        "关于全归约每个 rank 的通信量下界（只用点对点消息、求和在 rank 上完成），下面哪一种说法正确？",
        [
            (
                "下界是 $S$，环形算法用了两倍的下界",
                False,
                "这是“每个字节让每个 rank 见到一次就够”的直觉（种子教材也这么写）。可求和必须在某个 rank 上做："
                "点对点实现中每个元素至少要传 $2(N-1)$ 次，总量 $2(N-1)S$ 由 $N$ 个 rank 分摊。",
            ),
            (
                "下界是 $2S(N-1)/N$，环形算法恰好达到它",
                True,
                "对：这是紧下界（Patarasuk & Yuan 2009），环形算法带宽最优。",
            ),
            (
                "下界是 $2S$：归约与广播各要把整个缓冲区发一遍，环只是接近它",
                False,
                "这是把全归约想成“先归约、再广播”两遍完整数据。每个阶段每个 rank 都有一块已在本地，"
                "不必发出，所以下界是 $2S(N-1)/N < 2S$，环恰好达到。",
            ),
            (
                "只要算法足够聪明，点对点也能做到每个 rank 只发 $S$",
                False,
                "做不到：每个 rank 约 $S$ 只有交换机内归约（SHARP、NVLS）才能实现，那时求和发生在交换机里。",
            ),
        ],
        explanation="每个元素需要 $N-1$ 次把输入带出去的传输和 $N-1$ 次把结果送到的传输，"
        "合计 $2(N-1)S$ 字节；$N$ 个 rank 分摊，最忙的 rank 至少发 $2S(N-1)/N$。",
    )
    q_growth = choice(
        f"缓冲区 $S$ 固定，rank 数 $N$ 从 {RANKS} 增加到 {RANKS_LARGE}。"
        "环形全归约的哪些量大致与 $N$ 成正比地增长？（多选）",
        [
            ("通信步数 $2(N-1)$", True, "对：每个阶段 $N-1$ 步。"),
            ("延迟项 $2(N-1)\\alpha$", True, "对：每一步付一次 $\\alpha$。"),
            (
                "每个 rank 的发送量 $2S(N-1)/N$",
                False,
                f"它从 ${units.fmt_num(factor_small)}S$ 只涨到接近 $2S$，有上界。",
            ),
            ("所有链路上的字节总数 $2(N-1)S$", True, "对：每个 rank 发 $2S(N-1)/N$，共 $N$ 个 rank。"),
            ("每一块的大小 $S/N$", False, "块随 $N$ 变小，正是它抵消了步数的增长。"),
        ],
        multiple=True,
        explanation="块变小（$S/N$）与步数变多（$2(N-1)$）相互抵消，所以每个 rank 的发送量几乎不变；"
        "但每步的固定延迟不会变小，延迟项随 $N$ 线性增长。",
    )
    return [q_vol, q_steps, q_chunk, q_uneven, q_busbw, q_bound, q_growth]
