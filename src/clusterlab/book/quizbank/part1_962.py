"""Self-check questions for §9.6.2 (通信与计算重叠), shown in ``book/part1/9.6.2-overlap.ipynb``.

Given data are the module constants below; every key comes from :mod:`clusterlab.communication.overlap`,
:mod:`clusterlab.communication.collectives` or :mod:`clusterlab.communication.compression`. Distractors are the
slips readers make: hiding ``(1 − r)`` instead of ``r`` of the communication, hiding more than there is
computation, exposed / communication taken for the overlap ratio, one α per bucket instead of ``2(N−1)``,
the original's "DDP already sends bf16", top-k values without their indices, ZeRO-3's 3M for ZeRO++, the forward
counted as compute that hides the gradient all-reduce.
More than a third of the questions use numbers the chapter does not print.
"""

from __future__ import annotations

from typing import Final

from ...communication import collectives, compression, overlap
from ..quiz import Choice, Numeric, choice, numeric

__all__ = ["questions"]

# the original's example 9.6.2
EX_COMPUTE: Final = 20.0  # s
EX_COMM: Final = 8.0  # s
EX_RATIO: Final = 0.6
# transfer: numbers and situations the chapter does not print
T_COMPUTE: Final = 11.0  # s
T_COMM: Final = 9.0  # s
T_RATIO: Final = 0.75
M_COMPUTE: Final = 36.0  # s, measured step
M_COMM: Final = 14.0  # s
M_EXPOSED: Final = 4.9  # s
S_COMPUTE: Final = 6.5  # s: communication-bound step
S_COMM: Final = 9.5  # s
B_RANKS: Final = 48
B_ALPHA: Final = 8e-6  # s per hop
B_BUCKETS: Final = 150
DDP_PARAMS: Final = 13e9
ZPP_PARAMS: Final = 13e9
ZPP_GPUS_PER_NODE: Final = 8
TOPK_PARAMS: Final = 3e9
TOPK_RATIO: Final = 0.003
TH_FLOPS: Final = 400e12  # FLOP/s achieved per rank
TH_BETA: Final = 25e9  # B/s per direction (a 200 Gb/s NIC)
TH_BYTES: Final = 2  # bf16 gradients

Question = Numeric | Choice


def questions() -> list[Question]:
    """Self-check of §9.6.2: overlap model (example and transfer), overlap ratio from a measurement, latency of
    many buckets, DDP's dtype, ZeRO++ volume, top-k bytes, the tokens per rank that overlap needs, which bucket is
    exposed, why the first bucket is small."""
    ex = overlap.overlap_step(EX_COMPUTE, EX_COMM, EX_RATIO)
    q_example = numeric(
        f"每步计算 {EX_COMPUTE:g} s、通信 {EX_COMM:g} s，重叠率 {100 * EX_RATIO:g}%。一步要多少秒？",
        ex.step,
        unit="s",
        rel_tol=0.01,
        wrong=(
            (ex.no_overlap, "这是完全不重叠的时间 $t_c + t_m$。"),
            (ex.full_overlap, "这是完全重叠的时间 $\\max(t_c, t_m)$。"),
            (EX_COMPUTE + EX_RATIO * EX_COMM, "把重叠率当成了暴露的比例：暴露的是 $(1-r)t_m$，不是 $r\\,t_m$。"),
        ),
        explanation=f"隐藏 {ex.hidden:g} s，暴露 {ex.exposed:g} s，一步 = 计算 + 暴露 = {ex.step:g} s。",
    )
    tr = overlap.overlap_step(T_COMPUTE, T_COMM, T_RATIO)
    q_efficiency = numeric(
        f"另一个配置每步计算 {T_COMPUTE:g} s、通信 {T_COMM:g} s，重叠率 {100 * T_RATIO:g}%。"
        "计算效率 $t_c / t_\\text{step}$ 是百分之几？",
        100 * tr.efficiency,
        unit="%",
        rel_tol=0.01,
        wrong=(
            (100 * tr.efficiency_no_overlap, "这是不重叠时的效率；题目给了重叠率。"),
            (100 * T_COMPUTE / (T_COMPUTE + T_RATIO * T_COMM), "暴露的是 $(1-r)t_m$，不是 $r\\,t_m$。"),
            (100 * T_RATIO, "重叠率不是计算效率：效率还取决于通信与计算之比。"),
        ),
        explanation=f"暴露 {tr.exposed:g} s，一步 {tr.step:g} s，效率 {T_COMPUTE:g}/{tr.step:g} = "
        f"{100 * tr.efficiency:.1f}%。",
        transfer=True,
    )
    me = overlap.overlap_from_exposed(M_COMPUTE, M_COMM, M_EXPOSED)
    q_ratio = numeric(
        f"profiler 显示：每步计算 {M_COMPUTE:g} s，通信内核合计 {M_COMM:g} s，其中 {M_EXPOSED:g} s 没有与计算重叠。"
        "重叠率是百分之几？",
        100 * me.ratio,
        unit="%",
        rel_tol=0.01,
        wrong=(
            (100 * M_EXPOSED / M_COMM, "这是暴露的比例；重叠率是隐藏的比例 $1 - e/t_m$。"),
            (100 * M_EXPOSED / M_COMPUTE, "重叠率以通信时间为分母，不是计算时间。"),
            (100 * (1 - M_EXPOSED / M_COMPUTE), "重叠率以通信时间为分母，不是计算时间。"),
        ),
        explanation=f"隐藏 {me.hidden:g} s，$r$ = {me.hidden:g}/{M_COMM:g} = {100 * me.ratio:.0f}%。",
        transfer=True,
    )
    sb = overlap.overlap_step(S_COMPUTE, S_COMM, 1.0)
    q_bound = numeric(
        f"每步计算 {S_COMPUTE:g} s、通信 {S_COMM:g} s，假设重叠做到了极致。一步最少要多少秒？",
        sb.step,
        unit="s",
        rel_tol=0.01,
        wrong=(
            (S_COMPUTE, "计算只有这么长，能遮住的通信不超过计算时间；剩下的通信仍然暴露。"),
            (S_COMPUTE + S_COMM, "这是不重叠的时间。"),
            (S_COMM - S_COMPUTE, "一步至少包含全部计算。"),
        ),
        explanation=f"完全重叠时一步 = $\\max(t_c, t_m)$ = {sb.step:g} s：这一步受通信限制，只能少传或传得更快。",
        transfer=True,
    )
    per_bucket = collectives.traffic("all_reduce", 1.0, B_RANKS).steps * B_ALPHA  # the ring's latency steps
    q_latency = numeric(
        f"{B_RANKS} 个 rank 做环形全归约，每一跳的延迟 α = {B_ALPHA * 1e6:g} µs。梯度被分成 {B_BUCKETS} 个桶，"
        "每个桶一次全归约。仅延迟项一共多少**毫秒**？",
        1e3 * B_BUCKETS * per_bucket,
        unit="ms",
        rel_tol=0.01,
        wrong=(
            (1e3 * B_BUCKETS * (B_RANKS - 1) * B_ALPHA, "漏了因子 2：环形全归约是归约-散播加全收集，"
             "共 $2(N-1)$ 步。"),
            (1e3 * B_BUCKETS * 2 * B_RANKS * B_ALPHA, "环形全归约是 $2(N-1)$ 步，不是 $2N$ 步。"),
            (1e3 * B_BUCKETS * B_ALPHA, "每个桶付的不是一次 α，而是 $2(N-1)$ 次。"),
        ),
        explanation=f"每个桶 $2(N-1)\\alpha$ = {1e3 * per_bucket:g} ms，乘以 {B_BUCKETS} 个桶。",
        transfer=True,
    )
    ddp_bytes = compression.ddp_allreduce_bytes(DDP_PARAMS, "fp32")
    q_ddp = numeric(
        f"{DDP_PARAMS / 1e9:g}B 模型，参数保持 fp32，前向与反向在 bf16 autocast 下计算；DDP 没有注册任何通信钩子。"
        "每步全归约的梯度缓冲有多少 GB？",
        ddp_bytes / 1e9,
        unit="GB",
        rel_tol=0.01,
        wrong=(
            (compression.ddp_allreduce_bytes(DDP_PARAMS, "fp32", hook="bf16") / 1e9,
             "这是注册了 bf16_compress_hook 之后的大小。DDP 按梯度本身的精度通信，fp32 参数的梯度是 fp32"
             "（原文“DDP 默认已是 bf16”是错的）。"),
            (2 * 7 / 8 * ddp_bytes / 1e9, "这是 8 卡环形全归约每个 rank 的发送量，题目问的是缓冲大小 $S$。"),
        ),
        explanation=f"$S$ = {DDP_PARAMS:.0e} × 4 B = {ddp_bytes / 1e9:g} GB；bf16 需要显式注册通信钩子。",
        transfer=True,
    )
    zpp = compression.zeropp_volume(ZPP_PARAMS, ZPP_GPUS_PER_NODE, qwz=True, hpz=True, qgz=True)
    base = compression.zeropp_volume(ZPP_PARAMS, ZPP_GPUS_PER_NODE)
    q_zpp = numeric(
        "13B 模型（fp16 权重 $M$ = 2 B × 参数数）用 ZeRO++ 的三项优化（qwZ、hpZ、qgZ）训练。"
        "按论文的记账方式（忽略 $(N-1)/N$），每步每个 rank 的跨节点通信约多少 GB？",
        zpp.cross_node / 1e9,
        unit="GB",
        rel_tol=0.01,
        wrong=(
            (base.cross_node / 1e9, "这是 ZeRO-3 的 $3M$：前向全收集、反向全收集、梯度归约-散播。"),
            (zpp.gradient / 1e9, "这只是 qgZ 的梯度部分 $0.25M$；qwZ 的前向全收集还有 $0.5M$。"),
            ((zpp.cross_node + zpp.backward_gather) / 1e9, "hpZ 让反向全收集留在节点内，不再跨节点。"),
        ),
        explanation=f"$0.5M + 0 + 0.25M = 0.75M$ = {zpp.cross_node / 1e9:g} GB，是 ZeRO-3 的 1/4。",
        transfer=True,
    )
    topk = compression.bytes_per_value("topk", ratio=TOPK_RATIO) * TOPK_PARAMS
    q_topk = numeric(
        f"{TOPK_PARAMS / 1e8:g} 亿个梯度分量，top-k 只发绝对值最大的 {100 * TOPK_RATIO:g}%"
        "（值用 fp32，下标用 32 位整数）。"
        "每个 worker 每步发送多少 MB？",
        topk / 1e6,
        unit="MB",
        rel_tol=0.01,
        wrong=(
            (topk / 2e6, "漏了下标：稀疏消息要告诉接收方每个值属于哪个分量，下标和值一样占 4 字节。"),
            (4 * TOPK_PARAMS / 1e6, "这是不压缩的 fp32 梯度。"),
            (TOPK_RATIO * TOPK_PARAMS / 1e6, "这是分量的个数，不是字节数。"),
        ),
        explanation=f"{TOPK_RATIO * TOPK_PARAMS:g} 个分量 × (4 + 4) B = {topk / 1e6:g} MB。",
        transfer=True,
    )
    th = overlap.overlap_threshold(TH_FLOPS, TH_BETA, TH_BYTES)
    q_threshold = numeric(
        f"每个 rank 实际算力 {TH_FLOPS / 1e12:g} TFLOP/s，网卡单向 {TH_BETA / 1e9:g} GB/s，梯度为 bf16，rank 很多"
        "（取 $N \\to \\infty$）。每个 rank 每步至少要处理多少个 token，反向才可能盖住梯度的全归约？",
        th.tokens,
        unit="token",
        rel_tol=0.01,
        wrong=(
            (2 * th.tokens, "反向每个参数每个 token 约 4 FLOP（两次矩阵乘），用前向的 2 FLOP 会把门槛算高一倍。"),
            (th.tokens / 2, "环形全归约每个 rank 要发出约 2 倍梯度的字节，不是 1 倍。"),
            (th.tokens * 4 / 6, "前向时梯度还没有产生，全归约只能与反向重叠：不能把前向的 2 FLOP 也算进遮挡它的计算。"),
        ),
        explanation=f"$B^* \\approx Cb/(2\\beta)$ = {TH_FLOPS / 1e12:g}e12 × {TH_BYTES} / (2 × {TH_BETA / 1e9:g}e9) = "
        f"{th.tokens:.0f} 个 token。",
        transfer=True,
    )
    ddp = overlap.simulate_ddp([1.0, 1.0, 1.0], [1.0, 1.0, 1.0], 2, 0.0, 1.0, bucket_cap=1.0, first_bucket_cap=None)
    exposed_layer = ddp.buckets[-1].layers
    q_last = choice(
        "DDP 分桶重叠时，哪个桶的全归约无论如何都无法被计算遮住？",
        [
            ("装着第一层梯度的桶", exposed_layer == (0,), "对：反向最后才算到第一层，这个桶封口时已没有计算可以遮挡。"),
            ("装着最后一层梯度的桶", False, "最后一层的梯度最先产生，它的全归约有整个剩余的反向来遮挡。"),
            ("最大的那个桶", False, "是否暴露取决于它何时封口，而不是大小。"),
            ("每个桶都会部分暴露", False, "前面的桶可以完全藏在后续层的反向里。"),
        ],
        explanation="反向从最后一层往前算，第一层的梯度最后产生，所以最后一个桶的全归约总在计算结束之后。",
    )
    q_first = choice(
        "PyTorch DDP 的第一个桶只有 1 MiB，其余每桶上限 25 MiB。第一个桶小的主要目的是什么？",
        [
            ("让第一次全归约尽早开始", True, "对：反向刚开始时只要攒够 1 MiB 就能发出去，网卡更早开工。"),
            ("减少总的通信字节", False, "分桶不改变总字节，只改变消息个数和开始时间。"),
            ("减少延迟项 α 的次数", False, "小桶只会增加消息个数。"),
            ("让最后一个桶更小、不再暴露", False, "首桶装的是最后几层的梯度，与最后一个桶无关。"),
        ],
        explanation="小首桶让通信流尽早开始；之后用大桶摊薄延迟。",
    )
    return [q_example, q_efficiency, q_ratio, q_bound, q_latency, q_ddp, q_zpp, q_topk, q_threshold, q_last,
            q_first]
