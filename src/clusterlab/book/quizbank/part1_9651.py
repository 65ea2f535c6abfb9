"""Self-check questions for §9.6.5.1 (5D 并行配平), ``book/part1/9.6.5-1-parallel-5d.ipynb``.

Keys come from :mod:`clusterlab.cluster.parallel`, :mod:`clusterlab.cluster.pipeline` and
:mod:`clusterlab.cluster.planning`. Distractors name the misconceptions of the section: the original text's 26 GB
(ZeRO-2 over 8 ranks) for a 2,048-way group, EP counted as GPUs of its own, the bubble without the interleaving
factor or over the wrong denominator, a small message volume taken for a short time. Transfer questions use
numbers the chapter does not print.
"""

from __future__ import annotations

from typing import Final

from ...cluster import parallel, pipeline, planning
from ...cluster.planning import cases
from ..quiz import Choice, Numeric, choice, numeric

__all__ = ["questions"]

PSI_7B: Final = 7e9  # the original text's 7B row
Question = Numeric | Choice


def questions() -> list[Question]:
    """Self-check of §9.6.5.1: erratum 11, erratum 12 in a new layout, the interleaved bubble, micro-batches from
    the batch, hard vs soft constraints, and the volume-vs-time misconception."""
    z2 = parallel.model_state_memory(PSI_7B, zero_stage=2, dp=2048, model_parallel=2).total / 1e9
    q1 = numeric(
        "原文的 7B 行是 TP 1 × PP 2 × DP 2048，并说“ZeRO-2 后 26 GB”。按 ZeRO 论文的记法（bf16 参数 2 B、梯度 2 B、"
        "优化器 12 B），每张卡的模型状态实际是多少 GB？（只计模型状态，不计激活）",
        z2,
        unit="GB",
        wrong=(
            (parallel.model_state_memory(PSI_7B, zero_stage=2, dp=8).total / 1e9,
             "这是 ZeRO-2 在 8 路数据并行上的值——原文的 26 GB 只对 $N_d = 8$ 成立。"),
            (parallel.model_state_memory(PSI_7B, zero_stage=2, dp=2048).total / 1e9,
             "你没有按 PP 2 把参数先切成两半：每个 rank 只持有 Ψ/2。"),
            (parallel.model_state_memory(PSI_7B).total / 1e9, "这是不分片时的 16Ψ，一张 80 GB 的卡装不下。"),
        ),
        explanation=f"$2\\Psi' + 14\\Psi'/N$，$\\Psi' = 3.5\\times10^9$，$N = 2048$：{z2:.2f} GB。",
    )

    gpus, tp, pp, ep = 3072, 4, 8, 16
    dense_dp = gpus // (tp * pp)
    q2 = numeric(
        f"一个 MoE 模型在 {gpus} 张卡上按 TP {tp} × PP {pp} 切分，专家并行 EP = {ep}，按 Megatron 的约定 EP 与"
        "数据并行共用 rank。稠密部分（注意力等）的数据并行度 DP 是多少？",
        float(dense_dp),
        unit="路",
        rel_tol=0.0,
        abs_tol=0.01,
        wrong=(
            (float(gpus // (tp * pp * ep)), "你把 EP 当成了另占一批卡的轴：这其实是每个专家的副本数（expert-DP），"
             "稠密部分的 DP 仍是 G/(TP·PP)。"),
            (float(gpus // tp), "PP 也占卡：DP = G/(TP·PP)。"),
        ),
        explanation=f"DP = {gpus}/({tp}×{pp}) = {dense_dp}；其中 EP {ep} × expert-DP {dense_dp // ep}。",
        transfer=True,
    )

    p, m, v = 12, 24, 2
    b = pipeline.bubble(p, m, chunks=v)
    q3 = numeric(
        f"流水线 p = {p} 段、每步 m = {m} 个 micro-batch，用交错调度、每段 v = {v} 个模型块。空泡时间相对理想计算时间是"
        "百分之几？",
        100 * b.of_ideal,
        unit="%",
        wrong=(
            (100 * pipeline.bubble(p, m).of_ideal, "漏了交错调度：空泡要再除以 v。"),
            (100 * b.of_total, "这是占总时间的比例 $(p-1)/(vm+p-1)$；题目问相对理想计算时间。"),
        ),
        explanation=f"$(p-1)/(v\\,m)$ = {p - 1}/({v}×{m}) = {100 * b.of_ideal:.1f}%。",
        transfer=True,
    )

    model = planning.Shape(48, 6144, 24576, 48, 8, 32000, 4096)
    batch = 11 * 2**20
    plan = planning.estimate(model, cases.h100_system(1024), batch // 4096, planning.Layout(8, 4, 32))
    q4 = numeric(
        f"全局批 {batch // 2**20}M（{batch:,}）token、序列长 4,096，1,024 张卡按 TP 8 × PP 4 × DP 32 切分，"
        "每个 micro-batch 一条序列。每条流水线每步有多少个 micro-batch？",
        float(plan.micro_batches),
        unit="个",
        rel_tol=0.0,
        abs_tol=0.01,
        wrong=(
            (batch / 4096 / 1024,
             "你把序列数除以了全部 1,024 张卡，得到的甚至不是整数——micro-batch 的个数必须是整数，这就是信号："
             "只有 DP 把批切开，同一条流水线上的 TP 与 PP rank 处理的是同一批数据，要除以 DP 而不是总卡数。"),
            (float(batch // 4096 // 1024),
             "你除以了全部卡数（又取了整）；只有 DP 把批切开，TP 与 PP 的 rank 处理同一批数据。"),
            (float(batch // 4096 // (32 * 4)), "PP 不切批：同一条流水线的各段处理同样的 micro-batch。"),
        ),
        explanation=f"{batch:,}/4096 = {batch // 4096} 条序列，分给 32 个副本，每个 {plan.micro_batches} 个。",
        transfer=True,
    )

    q5 = choice(
        "下面哪些是 5D 配平的**硬约束**（违反就跑不起来）？",
        [
            ("每卡的模型状态 + 激活放得进显存", True, "对：装不下就无法启动。"),
            ("TP 整除注意力头数与 KV 头数", True, "对：每个 TP rank 必须拿到整数个头。"),
            ("空泡小于 10%", False, "空泡是软目标：大一点只是慢，不是跑不起来。"),
            ("DP 尽可能大", False, "这是经验上的偏好，不是约束。"),
        ],
        multiple=True,
        explanation="硬约束决定可行集合，软目标（步时、空泡、扩展效率）只在可行方案中排序。",
    )

    q6 = choice(
        "某方案的流水线每步只发几百 MB，张量并行却发几十 GB。据此可以断定什么？",
        [
            ("流水线并行几乎不花时间，应尽量加大 PP", False,
             "误解“量小即时间短”：PP 的主要代价是空泡，它按计算时间的 $(p-1)/(vm)$ 计，与字节无关。"),
            ("TP 一定是瓶颈，应把 TP 降到 1", False, "TP 走 NVLink，带宽高一个数量级；要比较的是链路上的时间，"
             "并且 TP 降下来显存可能装不下。"),
            ("只凭字节数不能判断：要把每个轴放到它的链路上算时间，并加上空泡", True,
             "对：本节的规划器正是这样排序的。"),
        ],
        explanation="时间 = 字节/链路带宽 + 延迟，且空泡与暴露的通信一样是步时的一部分。",
        transfer=True,
    )
    return [q1, q2, q3, q4, q5, q6]
