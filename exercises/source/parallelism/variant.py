"""由学号生成本套习题每人不同的数据（纯 Python；学生版笔记本里原样附带，评分时用同一段代码重算）。"""

import hashlib
import random

SET = "parallelism"
LABELS = {
    "params_b": "第 1、4 题模型参数量（十亿个，Ψ = params_b × 10⁹）",
    "layers": "第 1、4 题层数 L",
    "hidden": "第 1、4 题隐藏维度 h",
    "tp": "第 1 题张量并行路数 t",
    "pp": "第 1 题流水线段数 p",
    "dp": "第 1 题数据并行路数 N（ZeRO-3）",
    "seq": "第 1、4 题序列长度 s（token）",
    "micro_batches": "第 1 题每步的 micro-batch 数 m（每个 micro-batch 一条序列）",
    "p2": "第 2、3 题流水线段数 p",
    "m2": "第 2、3 题每步的 micro-batch 数 m",
    "v": "第 2 题交错调度每段的模型块数 v",
    "tf": "第 3 题一次前向的耗时（s）",
    "tb": "第 3 题一次反向的耗时（s）",
    "gpus": "第 4 题 GPU 数",
    "peak_tflops": "第 4 题每张 GPU 的 bf16 稠密峰值（TFLOP/s）",
    "tokens_m": "第 4 题每步的 token 数（百万个）",
    "eta": "第 4 题核函数效率 η（达到峰值的比例）",
    "comm_s": "第 4 题每步通信在链路上的时间（s）",
    "rho": "第 4 题被计算藏住的通信比例 ρ",
    "target_pct": "第 2 题设计：空泡占总时间的上限（百分数）",
    "mt_row": "第 6 题留出的 Megatron-LM 表 1 的行号（从 0 数起）",
    "mt_tokens_b": "第 6 题训练总 token 数（十亿个，× 10⁹）",
}


def _rng(student_id):
    student_id = str(student_id).strip()
    if not student_id:
        raise ValueError("请先在“学号”单元格的引号里填写你的学号，再运行")
    digest = hashlib.sha256(f"{SET}|{student_id}".encode("utf-8")).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def student_data(student_id):
    """这个学号的数据（dict）。"""
    rng = _rng(student_id)
    params_b, layers, hidden = rng.choice([(7, 32, 4096), (13, 40, 5120), (34, 48, 8192), (70, 80, 8192)])
    pp = rng.choice([p for p in (2, 4, 8) if layers % p == 0])
    return {
        "params_b": params_b,
        "layers": layers,
        "hidden": hidden,
        "tp": rng.choice([2, 4, 8]),
        "pp": pp,
        "dp": rng.choice([8, 16, 32, 64]),
        "seq": rng.choice([2048, 4096, 8192]),
        "micro_batches": rng.choice([8, 16, 24, 32, 48]),
        "p2": rng.randint(3, 12),
        "m2": rng.randint(6, 48),
        "v": rng.choice([2, 3, 4]),
        "tf": rng.choice([0.01, 0.02, 0.03, 0.05]),
        "tb": rng.choice([0.02, 0.04, 0.06, 0.1]),
        "gpus": rng.choice([256, 512, 1024, 2048]),
        "peak_tflops": rng.choice([312, 989]),
        "tokens_m": rng.choice([1, 2, 4, 8]),
        "eta": rng.choice([0.4, 0.5, 0.6, 0.7]),
        "comm_s": rng.choice([0.2, 0.4, 0.8, 1.2]),
        "rho": rng.choice([0.25, 0.5, 0.75, 0.9]),
        "target_pct": rng.choice([4, 6, 8, 10, 12, 15, 20]),
        "mt_row": rng.randint(0, 9),
        "mt_tokens_b": rng.choice([300, 450, 1000, 2000, 3000]),
    }


def show_data(data):
    print("你的数据（data）：")
    for key, value in data.items():
        print(f"  data[{key!r}] = {value!r}    # {LABELS[key]}")
