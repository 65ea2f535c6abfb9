"""由学号生成本套习题每人不同的数据（纯 Python；学生版笔记本里原样附带，评分时用同一段代码重算）。"""

import hashlib
import random

SET = "ledger"
LABELS = {
    "flops_gpu": "第 1 题每张 GPU 每步的模型 FLOPs",
    "peak": "第 1 题每张 GPU 的峰值（FLOP/s）",
    "eta": "第 1 题核函数效率 η",
    "comm": "第 1 题每步通信在链路上的时间 C（秒）",
    "rho": "第 1 题被计算藏住的通信比例 ρ",
    "stages": "第 1 题流水线段数 p",
    "micro": "第 1 题每步的 micro-batch 数 m",
    "stall": "第 1 题每步等数据的时间 W（秒）",
    "params": "第 2、3 题模型参数量 Ψ",
    "tokens": "第 2、3 题每步的 token 数（全局）",
    "peak2": "第 2、3 题每张 GPU 的 bf16 稠密峰值（FLOP/s）",
    "eta2": "第 2、3 题核函数效率 η",
    "rho2": "第 2、3 题被计算藏住的通信比例 ρ",
    "nic_gbps": "第 2、3 题每张 GPU 网卡的单向速率（Gb/s，比特）",
    "budget": "第 2、3 题 token 预算",
    "deadline": "第 3 题工期（天）",
    "gpus_fix": "第 2 题的 GPU 数",
    "mpt_model": "第 4 题：MPT 测量表里的模型",
    "held_out_seq": "第 4 题：留出的那一行（8 张 GPU）的序列长（token）",
}


# 第 4 题：每个模型在 MPT 测量表里有 8 张 GPU 的几个序列长；留出的一行取其中之一（两端以外，使拟合用到两侧的点）
HELD_OUT = {
    "13b": [2048, 4096, 16384],
    "7b": [2048, 4096, 8192, 32768],
    "3b": [1024, 4096, 8192, 16384, 32768],
    "1b": [1024, 2048, 4096, 8192, 16384, 32768],
    "760m": [1024, 2048, 4096, 8192, 16384],
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
    params = rng.choice([3e9, 7e9, 13e9])
    tokens = rng.choice([2**21, 2**22, 2**23])
    nic = rng.choice([200, 400])
    budget = rng.choice([0.5e12, 1e12, 2e12])
    # 工期取 ZeRO-3 纯数据并行时“一步不短于通信时间”给出的下限的若干倍，保证有解
    floor_days = budget / tokens * (3 * params * 2) / (nic * 1e9 / 8) / 86400
    return {
        "flops_gpu": rng.choice([1.5e14, 2.7e14, 4.4e14, 8.1e14]),
        "peak": rng.choice([312e12, 989e12]),
        "eta": rng.choice([0.35, 0.45, 0.55, 0.65]),
        "comm": rng.choice([0.3, 0.6, 0.9, 1.4]),
        "rho": rng.choice([0.3, 0.6, 0.85, 0.95]),
        "stages": rng.choice([1, 4, 8]),
        "micro": rng.choice([16, 24, 32, 64]),
        "stall": rng.choice([0.0, 0.05, 0.2]),
        "params": params,
        "tokens": tokens,
        "peak2": rng.choice([312e12, 989e12]),
        "eta2": rng.choice([0.4, 0.5, 0.6]),
        "rho2": rng.choice([0.5, 0.7, 0.9]),
        "nic_gbps": nic,
        "budget": budget,
        "deadline": round(floor_days * rng.choice([2.0, 3.0, 4.0]) + 0.05, 1),
        "gpus_fix": rng.choice([64, 128, 256, 512]),
        "mpt_model": (model := rng.choice(list(HELD_OUT))),
        "held_out_seq": rng.choice(HELD_OUT[model]),
    }


def show_data(data):
    print("你的数据（data）：")
    for key, value in data.items():
        print(f"  data[{key!r}] = {value!r}    # {LABELS[key]}")
