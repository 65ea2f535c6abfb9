"""Self-check questions for 集群篇 §4 (三种并行的通信量账本), shown in ``book/part2/04-parallelism.ipynb``.

Every numeric question transfers the chapter to a configuration it does not print (a 13B model on 64 ranks,
40 layers on 5 stages, 8 stages with 24 micro-batches, a 1,024-GPU H100 run, a 0.8 s step). Keys come from
:mod:`clusterlab.cluster.parallel`, :mod:`~clusterlab.cluster.pipeline` and :mod:`~clusterlab.cluster.compute`;
distractors are the slips the original text makes or invites: ZeRO-3 as "~2V", "每层 2 次" all-reduces, Megatron's
``(p−1)/m`` read as a share of the total time, the interleaving factor forgotten, ``6N`` without the attention term,
ZeRO's shards divided by the DP size but not by the model-parallel size, overlap ignored or taken as complete.
"""

from __future__ import annotations

from typing import Final

from ... import specs
from ...cluster import compute, context, parallel, pipeline
from ..quiz import Choice, Numeric, choice, numeric

__all__ = ["c04_questions"]

PSI_13B: Final = 13e9  # parameters
DP_RANKS: Final = 64
LAYERS: Final = 40
HIDDEN: Final = 5120
STAGES_TP: Final = 5  # pipeline stages of the TP question
MICRO_TP: Final = 16
SEQ: Final = 2048  # tokens
MICRO_BATCH: Final = 2  # sequences
TP: Final = 4
STAGES: Final = 8
MICRO: Final = 24
CHUNKS: Final = 2
GPUS: Final = 1024
H100_PEAK: Final = specs.ACCELERATORS["H100 SXM"].peak_bf16  # FLOP/s, bf16 dense
SEQ_MFU: Final = 4096
TOKENS_PER_S: Final = 4.6e6
MP: Final = 8  # TP × PP of the memory question
DP_MEM: Final = 16
COMPUTE_S: Final = 0.8  # s
COMM_S: Final = 0.6  # s
OVERLAP: Final = 0.5
CP_MODEL: Final = specs.MODELS["Llama 3 70B"]  # 64 query heads, 8 K/V heads of 128
CP_SEQ: Final = 65536  # tokens
CP_RANKS: Final = 8

Question = Numeric | Choice


def c04_questions() -> list[Question]:
    """Self-check of 集群篇 §4: ZeRO-3 volume, TP calls and bytes, both bubble conventions, interleaving, MFU,
    ZeRO-2 memory under model parallelism, step time with overlap, and what the original "MFU" measures."""
    z3 = parallel.dp_volume("zero3", PSI_13B, DP_RANKS, layers=LAYERS)
    ddp = parallel.dp_volume("ddp", PSI_13B, DP_RANKS)
    q_z3 = numeric(
        f"一个 {PSI_13B / 1e9:.0f}B 参数的模型用 ZeRO-3 在 {DP_RANKS} 个 rank 上做数据并行，参数和梯度都以 bf16"
        "（2 B）通信。每个 rank 每步发送多少 GB？（环算法，允许 2% 误差）",
        z3.send / 1e9,
        unit="GB",
        wrong=(
            (ddp.send / 1e9,
             "这是 DDP（或 ZeRO-1/2）的 2Ψ。ZeRO-3 前向、反向各全收集一次参数，再归约-散播一次梯度：3Ψ。"),
            (z3.send / 1e9 * 16 / 3, "优化器状态从不通信；通信的只有 2 B 的参数（两次）和 2 B 的梯度（一次）。"),
            (z3.send / 1e9 / LAYERS, "这是一层的量；ZeRO-3 每层各发一次，整步是所有层之和。"),
        ),
        explanation="3 × Ψ × 2 B × (N−1)/N，按层分成 3L 次调用。",
        transfer=True,
    )
    layers_stage = LAYERS // STAGES_TP
    tp = parallel.tp_volume(HIDDEN, SEQ, MICRO_BATCH, layers_stage, MICRO_TP, TP)
    q_calls = numeric(
        f"{LAYERS} 层的模型切成 {STAGES_TP} 段流水线，每步 {MICRO_TP} 个 micro-batch，每段内 TP = {TP}（不开序列并行、"
        "不重算）。一个 TP rank 每步发起多少次 all-reduce？",
        tp.calls,
        unit="次",
        abs_tol=0.5,
        wrong=(
            (tp.calls / 2,
             "原文表里“每层 2 次”只数了前向；反向传播时 f 与 g 对调，又是两次：每层每个 micro-batch 4 次。"),
            (4 * LAYERS * MICRO_TP, "一个 rank 只持有本段的层：要除以流水线段数。"),
            (4 * layers_stage, "每个 micro-batch 都要走一遍前向和反向：还要乘 micro-batch 数。"),
        ),
        explanation=f"4 × ({LAYERS}/{STAGES_TP}) × {MICRO_TP} = {tp.calls}。",
    )
    q_tp_bytes = numeric(
        f"接上题，隐藏维度 h = {HIDDEN}，序列长 {SEQ}，micro-batch {MICRO_BATCH} 条序列，激活 bf16。一次 all-reduce 中"
        "每个 TP rank 发送多少 MB？（MB = 10⁶ B，允许 2% 误差）",
        tp.send_per_call / 1e6,
        unit="MB",
        wrong=(
            (tp.size / 1e6, "这是激活张量本身的大小 S；环全归约每个 rank 要发 2S(t−1)/t。"),
            (2 * tp.size / 1e6, "忘了 (t−1)/t：t = 4 时每个 rank 发 2S × 3/4。"),
        ),
        explanation="S = b·s·h·2 B，环全归约每个 rank 发 2S(t−1)/t。",
        transfer=True,
    )
    bub = pipeline.bubble(STAGES, MICRO)
    q_bubble = numeric(
        f"p = {STAGES} 段、每步 m = {MICRO} 个 micro-batch 的 1F1B 流水线，各段前向、反向耗时相同。"
        "空泡占**一步总时间**的百分之几？（允许 2% 相对误差）",
        100 * bub.of_total,
        unit="%",
        wrong=(
            (100 * bub.of_ideal,
             "(p−1)/m 是空泡相对**理想计算时间**的比例（Megatron 的写法）；占总时间是 (p−1)/(m+p−1)。"),
            (100 * (STAGES - 1) / (MICRO + STAGES), "分母是 m + p − 1：填充和排空共 p − 1 个时隙。"),
        ),
        explanation=f"({STAGES}−1)/({MICRO}+{STAGES}−1)。",
        transfer=True,
    )
    inter = pipeline.bubble(STAGES, MICRO, chunks=CHUNKS)
    q_inter = numeric(
        f"同一流水线改用交错调度，每段 v = {CHUNKS} 个模型块。空泡相对**理想计算时间**是百分之几？（允许 2% 相对误差）",
        100 * inter.of_ideal,
        unit="%",
        wrong=(
            (100 * bub.of_ideal, "交错调度把每段的空泡时间除以 v：(p−1)/(v·m)。"),
            (100 * inter.of_total, "这是占总时间的比例；题目问的是相对理想计算时间。"),
        ),
        explanation="Narayanan 等 2021 §2.2：(p−1)/(v·m)。",
        transfer=True,
    )
    fpt = compute.flops_per_token(PSI_13B, LAYERS, HIDDEN, SEQ_MFU)
    mfu = compute.mfu(TOKENS_PER_S, fpt.total, GPUS, H100_PEAK)
    q_mfu = numeric(
        f"{GPUS} 张 H100（bf16 稠密峰值 {H100_PEAK / 1e12:.0f} TFLOP/s）训练一个 {PSI_13B / 1e9:.0f}B 参数、"
        f"{LAYERS} 层、h = {HIDDEN} 的模型，序列长 {SEQ_MFU}，实测每秒 {TOKENS_PER_S / 1e6:.1f} M token。"
        "按 PaLM 的定义（含注意力项），MFU 是百分之几？（允许 2% 相对误差）",
        100 * mfu,
        unit="%",
        wrong=(
            (100 * compute.mfu(TOKENS_PER_S, fpt.dense, GPUS, H100_PEAK),
             "只算了 6N；PaLM 的每 token FLOPs 还有注意力的 12·L·h·T。"),
            (100 * compute.mfu(TOKENS_PER_S, fpt.total * 4 / 3, GPUS, H100_PEAK),
             "按全重算多计了一次前向（8N），那是硬件利用率 HFU；MFU 只数模型本身需要的 FLOPs。"),
        ),
        explanation="MFU = token/s × (6N + 12·L·h·T) ÷ (GPU 数 × 峰值)。",
        transfer=True,
    )
    mem = parallel.model_state_memory(PSI_13B, zero_stage=2, dp=DP_MEM, model_parallel=MP)
    q_mem = numeric(
        f"{PSI_13B / 1e9:.0f}B 模型，TP × PP = {MP}，数据并行 {DP_MEM} 路用 ZeRO-2，混合精度 Adam（2+2+12 B/参数）。"
        "每张 GPU 上的模型状态有多少 GB？（不含激活，允许 2% 误差）",
        mem.total / 1e9,
        unit="GB",
        wrong=(
            (parallel.model_state_memory(PSI_13B, zero_stage=2, dp=DP_MEM).total / 1e9,
             "忘了先按模型并行切：每个 rank 只持有 Ψ/(t·p) 个参数，ZeRO 再在数据并行组内分片。"),
            (parallel.model_state_memory(PSI_13B, zero_stage=3, dp=DP_MEM, model_parallel=MP).total / 1e9,
             "这是 ZeRO-3（参数也分片）；ZeRO-2 每个 rank 仍持有完整的 2 B bf16 参数。"),
            (16 * PSI_13B / MP / 1e9, "没有分片：ZeRO-2 把梯度和优化器状态在数据并行组内切成 N 份。"),
        ),
        explanation="2Ψ' + 14Ψ'/N，Ψ' = Ψ/(t·p)。",
    )
    flops = COMPUTE_S * H100_PEAK  # model FLOPs that take COMPUTE_S at peak (efficiency 1)
    st = compute.step_time(flops, H100_PEAK, comm=COMM_S, overlap=OVERLAP)
    q_step = numeric(
        f"一步的计算要 {COMPUTE_S} s，通信在链路上要 {COMM_S} s，其中 {OVERLAP:.0%} 能被计算藏住。一步要多少秒？",
        st.total,
        unit="s",
        wrong=(
            (COMPUTE_S + COMM_S, "这是完全不重叠的情形。"),
            (COMPUTE_S, "只有一半的通信藏得住；另一半暴露在关键路径上。"),
        ),
        explanation="计算 + (1 − 重叠) × 通信。",
        transfer=True,
    )
    q_def = choice(
        "原文写“MFU = 计算时间 / (计算时间 + 暴露的通信时间)”。这个比值是什么？",
        (
            ("计算占一步时间的比例；MFU 还要再乘核函数效率 η", True,
             "对：MFU = η × 计算占比。通信全藏住时，这个比值是 1，MFU 仍只有 η。"),
            ("就是 PaLM 定义的 MFU", False,
             "PaLM 的 MFU 是实测 token/s × 每 token 模型 FLOPs ÷ 峰值 FLOP/s，要和峰值比。"),
            ("硬件 FLOPs 利用率 HFU", False, "HFU 数的是硬件实际做的 FLOPs（含重算），同样要和峰值比。"),
            ("nvidia-smi 显示的 GPU 利用率（GPU-Util）", False,
             "GPU-Util 是采样窗口内有核函数在运行的时间比例；NCCL 的通信核也算在内，所以通信全暴露时它也可能"
             "接近 100%。这个比值只数计算时间。"),
        ),
        explanation="PaLM §4.1：MFU 与峰值比，所以它既扣掉暴露的通信，也扣掉核函数没用满峰值的部分。",
    )
    m = CP_MODEL
    s_kv = context.kv_bytes(CP_SEQ, m.kv_heads, m.head_size)
    cp_send = s_kv * (CP_RANKS - 1) / CP_RANKS
    q_cp = numeric(
        f"一个 {m.heads} 个查询头、{m.kv_heads} 个 K/V 头（每头 {m.head_size} 维）的模型，一条 {CP_SEQ:,} token 的序列"
        f"按 CP = {CP_RANKS} 切开，不开张量并行，K/V 为 bf16。用 Llama 3 的做法（注意力前全收集 K/V），每个 rank 每层"
        "前向发送多少 MB？（MB = 10⁶ B，允许 2% 误差）",
        cp_send / 1e6,
        unit="MB",
        wrong=(
            (s_kv / 1e6, "这是全收集的输出、整条序列的 K/V；自己那一份 S/c 不用发，每个 rank 发 S(c−1)/c。"),
            (s_kv / CP_RANKS / 1e6, "这是自己持有的一块（环的一步）；全收集要把这一块送到其余 c−1 个 rank。"),
            (cp_send * m.heads / m.kv_heads / 1e6,
             "按查询头数算了 K/V：分组查询注意力下 K/V 只有 K/V 头那么多，这正是全收集划算的原因。"),
            (cp_send / 2 / 1e6, "K 和 V 各一份：因子 2 不能漏。"),
        ),
        explanation="S = 2·s·n_kv·d·2 B，全收集每个 rank 发 S(c−1)/c；环分 c−1 步传同样多的字节。",
        transfer=True,
    )
    return [q_z3, q_calls, q_tp_bytes, q_bubble, q_inter, q_mfu, q_mem, q_step, q_cp, q_def]
