"""Self-check questions for the page 「模型与现实」, shown in ``book/model-reality.ipynb``.

Keys come from :mod:`clusterlab.specs` (a paper's measurement turned into seconds per step with its own FLOP
convention) and :mod:`clusterlab.cluster.planning` (the uneven split of the layers); distractors are the slips the
page warns about: a hardware FLOP rate read with the model-FLOP count, the peak used instead of the achieved rate,
the batch in tokens taken for sequences, an even split rounded up.
"""

from __future__ import annotations

from typing import Final

from ... import specs
from ...cluster.planning import split_layers
from ..quiz import Choice, Numeric, choice, numeric

__all__ = ["questions"]

RUN_Q1: Final = "Megatron-LM 2021, GPT 1008.0B, 3072 GPUs"
LAYERS_Q3, STAGES_Q3, HEAD_Q3 = 61, 16, 1.5  # a 61-layer model on 16 stages, output layer worth 1.5 layers

Question = Numeric | Choice


def questions() -> list[Question]:
    """Turn a published TFLOP/s into seconds per step; the same run on PaLM's MFU scale; an uneven split; why a
    model that fits dense runs is optimistic on MoE runs."""
    run = specs.RUNS[RUN_Q1]
    tokens = run.global_batch * run.seq_len
    flops = run.flops_per_token()
    achieved = run.measured.value
    step = run.step_time()
    palm = specs.model_flops_per_token(run.model, "palm", seq_len=run.seq_len)
    q1 = numeric(
        f"Megatron-LM 论文表 1 的最后一行：1T 参数的 GPT（{run.model.layers} 层，h = {run.model.hidden:,}，"
        f"词表 {run.model.vocab:,}），{run.gpus:,} 张 A100，全局批 {run.global_batch:,} 条、每条 {run.seq_len:,} "
        f"token，每卡 {achieved / 1e12:.0f} TFLOP/s。论文按 96·B·s·L·h²·(1 + s/(6h) + V/(16·L·h)) 计每步的 "
        "FLOPs（含全部重算）。一步要几秒？（允许 2% 相对误差）",
        step,
        unit="s",
        wrong=(
            (tokens * palm / (run.gpus * achieved), "这是按 PaLM 的模型 FLOPs（6N + 12Lhs）算的；论文的 TFLOP/s "
             "数的是含重算的硬件 FLOPs，要用论文自己的口径折算。"),
            (tokens * flops / (run.gpus * run.node.accelerator.peak_bf16), "这是按峰值 312 TFLOP/s 算的理想时间；"
             "要用实测的每卡速率。"),
            (run.global_batch * flops / (run.gpus * achieved), "B 是条数，每条还有 s 个 token。"),
        ),
        explanation="步时 = B·s × 每 token FLOPs ÷ (GPU 数 × 每卡实测 FLOP/s)，FLOPs 用论文自己的口径。",
    )
    q2 = numeric(
        "接上题：同一次训练按 PaLM 的 MFU 定义（模型 FLOPs 6N + 12Lhs、不计重算，除以 bf16 稠密峰值 312 TFLOP/s）"
        "是百分之几？（允许 2% 相对误差）",
        100 * run.mfu(),
        unit="%",
        wrong=(
            (100 * achieved / run.node.accelerator.peak_bf16, "这是硬件 FLOPs 的利用率（含重算的那一遍前向）；"
             "MFU 只数模型本身的 FLOPs。"),
        ),
        explanation="MFU = B·s·(6N + 12Lhs) ÷ (步时 × GPU 数 × 峰值)；重算的 FLOPs 不算。",
    )
    split = split_layers(LAYERS_Q3, STAGES_Q3, head=HEAD_Q3)
    plain = split_layers(LAYERS_Q3, STAGES_Q3)
    q3 = numeric(
        f"{LAYERS_Q3} 层的模型切成 {STAGES_Q3} 段流水线，最后一段还要算输出层（按计算量约合 {HEAD_Q3} 层）。"
        "按“最忙的一段尽量轻”来分，最后一段放几层 Transformer 层？",
        float(split[-1]),
        unit="层",
        rel_tol=0.0,
        abs_tol=0.01,
        wrong=(
            (float(plain[-1]), "这是不算输出层时的分法；末段还要算输出层，应当少放几层。"),
            (LAYERS_Q3 / STAGES_Q3, "层不能拆开：每段放整数层。"),
        ),
        explanation=f"最忙一段的负担最少是 {split.bottleneck:g} 层：末段 {split[-1]} 层 + 输出层 {HEAD_Q3} 层，"
                    f"中间每段 {max(split[1:-1])} 层，首段 {split[0]} 层。",
        transfer=True,
    )
    q4 = choice(
        "本页的模型对稠密训练的误差中位数在 10% 以内，对 MoE 训练却乐观 20%–55%。哪一项最不可能是原因？",
        (
            ("MoE 层的核函数效率按大 GEMM 计，没有计入按专家分组的小矩阵乘与 token 重排", False,
             "这正是模型没有计入的：每个专家分到的 token 少、重排是纯访存。"),
            ("专家负载不均：最忙的专家决定一层的时间，模型按均匀路由算", False, "模型确实按均匀路由算。"),
            ("模型把 MoE 的总参数当作激活参数计算了 FLOPs", True,
             "不是：模型只按 top-k 个路由专家和共享专家计 FLOPs（激活参数），总参数只用于显存与梯度同步。"),
            ("全交换的启动延迟与路由的计算没有计入或计得偏少", False, "这也是可能的遗漏。"),
        ),
        explanation="读误差要先看模型计入了什么：FLOPs 按激活参数，慢的部分来自模型之外的开销。",
        transfer=True,
    )
    return [q1, q2, q3, q4]
