"""Self-check questions for 集群篇 §7 (一张账本收尾), shown in ``book/part2/07-ledger.ipynb``.

Keys come from :mod:`clusterlab.cluster.ledger` and :mod:`~clusterlab.cluster.compute`; distractors are the slips
the original §7 makes or invites: "MFU" used as the kernel efficiency and then the exposed communication added on
top (the double count), the forward pass alone (2N) counted, the FLOPs not divided over the GPUs, bits taken for
bytes, ZeRO-3 taken as 2Ψ, hiding more communication than there is compute, seconds not converted to days.
Questions marked ``transfer=True`` use numbers or situations the chapter does not print.
"""

from __future__ import annotations

from typing import Final

from ... import specs
from ...cluster import compute, ledger, parallel
from ...units import DAY, HOUR
from ..quiz import Choice, Numeric, choice, numeric

__all__ = ["c07_questions"]

# q1: MFU from a measured step
PSI_13B: Final = 13e9
GPUS_Q1: Final = 1024
H100_PEAK: Final = specs.ACCELERATORS["H100 SXM"].peak_bf16  # FLOP/s, bf16 dense
TOKENS_Q1: Final = 4e6  # tokens per step
STEP_Q1: Final = 0.9  # s, measured
# q2: the double count
PSI_70B: Final = 70e9
GPUS_Q2: Final = 2048
TOKENS_Q2: Final = 8e6
ETA_Q2: Final = 0.4  # "MFU 40 %" read as the kernel efficiency
EXPOSED_Q2: Final = 1.0  # s of communication, nothing hidden
# q3: hiding is capped by the compute
COMPUTE_Q3: Final = 1.1  # s
COMM_Q3: Final = 1.87  # s
OVERLAP_Q3: Final = 0.8
# q4: bits and bytes
PSI_7B: Final = 7e9
RANKS_Q4: Final = 512
NIC_BITS: Final = 400e9  # bit/s per direction
# q5: days for a budget
GPUS_Q5: Final = 512
A100_PEAK: Final = specs.ACCELERATORS["A100 80GB SXM"].peak_bf16  # FLOP/s, bf16 dense
TOKENS_Q5: Final = 2 ** 21  # tokens per step (2 M)
ETA_Q5: Final = 0.5
BUDGET_Q5: Final = 1e12  # tokens
# q6: Llama 3 Table 4, 8,192-GPU row
LLAMA3_TFLOPS_8K: Final = 430e12  # achieved model FLOP/s per GPU

Question = Numeric | Choice


def c07_questions() -> list[Question]:
    """Self-check of 集群篇 §7: MFU from a measured step, the double count, the cap on hiding, bits vs bytes in the
    communication line, days for a token budget, a Llama 3 row, reading the bottleneck, ZeRO-3 in the ledger."""
    fpt = 6 * PSI_13B
    tps = TOKENS_Q1 / STEP_Q1
    mfu1 = compute.mfu(tps, fpt, GPUS_Q1, H100_PEAK)
    q1 = numeric(
        f"一个 {PSI_13B / 1e9:.0f}B 参数的模型在 {GPUS_Q1} 张 H100"
        f"（bf16 稠密峰值 {H100_PEAK / 1e12:.0f} TFLOP/s）上训练，"
        f"每步 {TOKENS_Q1 / 1e6:.0f} × 10⁶ 个 token，实测一步 {STEP_Q1} s。按 6N 计每 token 的 FLOPs，MFU 是百分之几？"
        "（允许 2% 相对误差）",
        100 * mfu1,
        unit="%",
        wrong=(
            (100 * compute.mfu(tps, 2 * PSI_13B, GPUS_Q1, H100_PEAK),
             "2N 只是前向；训练一个 token 要前向 2N、反向 4N，共 6N。"),
            (100 * compute.mfu(tps, fpt, 1, H100_PEAK), "FLOPs 要分到所有 GPU 上：分母是 GPU 数 × 单卡峰值。"),
            (100 * compute.mfu(tps, fpt, GPUS_Q1, A100_PEAK),
             "这是 A100 的峰值；H100 SXM 的 bf16 稠密峰值是 989 TFLOP/s。"),
        ),
        explanation="MFU = token/s × 6N ÷ (GPU 数 × 峰值)。",
        transfer=True,
    )
    led2 = ledger.ledger(PSI_70B, TOKENS_Q2, GPUS_Q2, H100_PEAK, efficiency=ETA_Q2,
                         comm=[ledger.comm_line("DP", EXPOSED_Q2 * 25e9, 25e9)])
    q2 = numeric(
        f"{PSI_70B / 1e9:.0f}B 模型、{GPUS_Q2} 张 H100（{H100_PEAK / 1e12:.0f} TFLOP/s）、"
        f"每步 {TOKENS_Q2 / 1e6:.0f} × 10⁶ token"
        f"（6N）。有人把“MFU {ETA_Q2:.0%}”当作计算的效率算出计算时间，再加上 {EXPOSED_Q2:.1f} s 没有藏住的通信。"
        "这一步真实的 MFU（PaLM 定义）是百分之几？（允许 2% 相对误差）",
        100 * led2.mfu,
        unit="%",
        wrong=(
            (100 * ETA_Q2, "这就是重复计数：40% 被当作核函数效率用了一次，加上暴露的通信后一步更长，MFU 只会更低。"),
            (100 * led2.compute_fraction, "这是计算占一步时间的比例；MFU 还要乘上核函数效率。"),
        ),
        explanation="MFU = 理想计算时间 ÷ (计算时间 + 暴露的通信)，理想计算时间 = FLOPs ÷ 峰值。",
        transfer=True,
    )
    st3 = compute.step_time(COMPUTE_Q3, 1.0, comm=COMM_Q3, overlap=OVERLAP_Q3)
    q3 = numeric(
        f"一步的计算要 {COMPUTE_Q3} s，通信在链路上要 {COMM_Q3} s，号称 {OVERLAP_Q3:.0%} 的通信能藏在计算下面。"
        "暴露在关键路径上的通信有几秒？",
        st3.exposed,
        unit="s",
        rel_tol=0.01,
        wrong=(
            ((1 - OVERLAP_Q3) * COMM_Q3,
             f"计算只有 {COMPUTE_Q3} s，最多藏住这么多通信；{OVERLAP_Q3:.0%} × {COMM_Q3} s 已经超过了计算时间。"),
            (COMM_Q3, "这是完全不重叠的情形。"),
        ),
        explanation="藏住的部分 = min(ρ·C, 计算时间)；暴露 = C − 藏住的部分。",
        transfer=True,
    )
    z3 = parallel.dp_volume("zero3", PSI_7B, RANKS_Q4, layers=32)
    ddp = parallel.dp_volume("ddp", PSI_7B, RANKS_Q4)
    bw = NIC_BITS / 8
    q4 = numeric(
        f"{PSI_7B / 1e9:.0f}B 模型、{RANKS_Q4} 路 ZeRO-3（参数、梯度都是 bf16），每张卡一块 {NIC_BITS / 1e9:.0f} Gb/s"
        "（单向）的网卡。账本里这一行通信在网卡上要几秒？（不计重叠与延迟，允许 2% 误差）",
        z3.send / bw,
        unit="s",
        wrong=(
            (z3.send / NIC_BITS, "Gb/s 是比特：400 Gb/s = 50 GB/s，要除以 8。"),
            (ddp.send / bw, "这是 2Ψ（DDP 或 ZeRO-1/2）；ZeRO-3 是两次全收集加一次归约-散播，3Ψ。"),
        ),
        explanation="3 × Ψ × 2 B × (N−1)/N ÷ 50 GB/s。",
        transfer=True,
    )
    led5 = ledger.ledger(PSI_7B, TOKENS_Q5, GPUS_Q5, A100_PEAK, efficiency=ETA_Q5)
    q5 = numeric(
        f"{PSI_7B / 1e9:.0f}B 模型（6N）、{GPUS_Q5} 张 A100（{A100_PEAK / 1e12:.0f} TFLOP/s）、"
        f"每步 {TOKENS_Q5:,} 个 token，核函数效率 {ETA_Q5:.0%}，通信全部藏住。"
        f"处理 {BUDGET_Q5 / 1e12:.0f} × 10¹² 个 token 要多少天？（允许 2% 相对误差）",
        led5.days(BUDGET_Q5),
        unit="天",
        wrong=(
            (led5.days(BUDGET_Q5) * DAY / HOUR, "这是小时数；一天 24 小时。"),
            (led5.days(BUDGET_Q5) * ETA_Q5, "忘了核函数效率：计算时间 = 理想时间 ÷ η。"),
            (BUDGET_Q5 / TOKENS_Q5 / DAY, "把每步 token 数当成了每秒 token 数；还要除以步时。"),
        ),
        explanation="步时 = 6N × 每步 token ÷ (GPU 数 × 峰值 × η)；天数 = 预算 ÷ (每步 token ÷ 步时) ÷ 86 400。",
        transfer=True,
    )
    q6 = numeric(
        "Llama 3 论文表 4：8,192 张 H100 训练 405B 模型时每张 GPU 实现 430 TFLOP/s。按 H100 的 bf16 稠密峰值 "
        f"{H100_PEAK / 1e12:.0f} TFLOP/s，MFU 是百分之几？（允许 2% 相对误差）",
        100 * LLAMA3_TFLOPS_8K / H100_PEAK,
        unit="%",
        wrong=(
            (100 * LLAMA3_TFLOPS_8K / (2 * H100_PEAK),
             "1,979 TFLOP/s 是含 2:4 稀疏的峰值（稠密的两倍）；稠密训练要和稠密峰值比。"),
            (100 * LLAMA3_TFLOPS_8K / A100_PEAK, "312 TFLOP/s 是 A100 的峰值。"),
        ),
        explanation="MFU = 每卡实现的模型 FLOP/s ÷ 峰值；论文表 4 给出 43%。",
        transfer=True,
    )
    q7 = choice(
        "账本显示：MFU 只有 20%，暴露的通信几乎为 0，流水线空泡很小，"
        "但监控里 GPU 利用率隔一阵就掉到 0。瓶颈最可能在哪？",
        (
            ("数据供给：GPU 在等批次（看加载器的预取与缓存命中）", True,
             "对：间歇掉零而通信与空泡都小，正是“等数据”那一项。"),
            ("通信：应该加大重叠比例", False, "账本里暴露的通信几乎为 0，重叠再多也省不下时间。"),
            ("计算：核函数效率太低", False, "效率低会让 GPU 一直忙而慢，不会让利用率间歇掉到 0。"),
            ("流水线空泡：应该加大 micro-batch 数", False, "空泡在账本里已经很小。"),
        ),
        explanation="账本按项列出时间：效率损失、暴露的通信、空泡、等数据；最大的那一项就是瓶颈。",
    )
    q8 = choice(
        "原文 §7 的账本写“ZeRO-3 梯度量 28GB/卡”（7B、bf16）。ZeRO-3 每个 rank 每步实际发送多少？",
        (
            ("约 3Ψ·2 B ≈ 42 GB：前向、反向各全收集一次参数，再归约-散播一次梯度", True,
             "对：3Ψ，是 DDP 的 1.5 倍（ZeRO §7.2.2）。"),
            ("28 GB：与 DDP 的 2Ψ 相同", False, "28 GB 是 2Ψ（DDP 或 ZeRO-1/2）；ZeRO-3 多一次参数全收集。"),
            ("14 GB：只归约-散播梯度", False, "还有前向、反向两次参数全收集。"),
            ("224 GB：连优化器状态一起传", False, "优化器状态从不通信，只在本地更新自己那一片。"),
        ),
        explanation="ZeRO-3 = 2 次全收集 + 1 次归约-散播 = 3Ψ；优化器状态不通信。",
    )
    return [q1, q2, q3, q4, q5, q6, q7, q8]
