"""由学号生成本套习题每人不同的数据（纯 Python；学生版笔记本里原样附带，评分时用同一段代码重算）。"""

import hashlib
import random

SET = "planner"
LABELS = {
    "psi_b": "第 1 题参数量（十亿个，Ψ = psi_b × 10⁹）",
    "t1": "第 1 题张量并行路数 t",
    "p1": "第 1 题流水线段数 p",
    "d1": "第 1 题数据并行路数 d",
    "zero1": "第 1 题 ZeRO 阶段（0 表示不分片）",
    "pb": "第 1 题空泡：流水线段数 p",
    "mb": "第 1 题空泡：每个副本每步的 micro-batch 数 m",
    "vb": "第 1 题空泡：交错调度每段的模型块数 v",
    "job": "第 2、3 题的模型（形状见下面几项）",
    "layers": "第 2、3 题层数 L",
    "hidden": "第 2、3 题隐藏维度 h",
    "ffn": "第 2、3 题 FFN 宽度 f（SwiGLU，三个矩阵）",
    "heads": "第 2、3 题注意力头数 a",
    "kv_heads": "第 2、3 题 KV 头数 a_kv",
    "vocab": "第 2、3 题词表大小 V",
    "seq": "第 2、3 题序列长度 s（token）",
    "gpus": "第 2、3 题 GPU 数 G（每节点 8 张）",
    "mem_gb": "第 2、3 题每卡显存（GB）",
    "batch_m": "第 2、3 题全局批（token 数 = batch_m × 2²⁰）",
    "row": "第 4 题公开配置表的行号",
    "v4": "第 4 题假设的交错块数 v",
}

JOBS = (  # (名称, L, h, f, a, a_kv, V)：SwiGLU 的稠密模型
    ("类 20B", 44, 6144, 16384, 48, 48, 50304),
    ("类 34B", 48, 8192, 22016, 64, 64, 32000),
    ("类 72B", 80, 8192, 24576, 64, 64, 152064),
    ("类 175B", 96, 12288, 32768, 96, 96, 50304),
)


def _rng(student_id):
    student_id = str(student_id).strip()
    if not student_id:
        raise ValueError("请先在“学号”单元格的引号里填写你的学号，再运行")
    digest = hashlib.sha256(f"{SET}|{student_id}".encode("utf-8")).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def student_data(student_id):
    """这个学号的数据（dict）。"""
    rng = _rng(student_id)
    name, layers, hidden, ffn, heads, kv_heads, vocab = rng.choice(JOBS)
    return {
        "psi_b": rng.choice([6.7, 13, 22, 46, 90, 180, 340]),
        "t1": rng.choice([1, 2, 4, 8]),
        "p1": rng.choice([1, 2, 4, 8, 16]),
        "d1": rng.choice([8, 16, 32, 64, 128]),
        "zero1": rng.randint(0, 3),
        "pb": rng.randint(3, 16),
        "mb": rng.randint(4, 64),
        "vb": rng.choice([2, 3, 4]),
        "job": name,
        "layers": layers,
        "hidden": hidden,
        "ffn": ffn,
        "heads": heads,
        "kv_heads": kv_heads,
        "vocab": vocab,
        "seq": rng.choice([4096, 8192]),
        "gpus": rng.choice([256, 512, 1024, 2048]),
        "mem_gb": rng.choice([40, 80]),
        "batch_m": rng.choice([4, 8]),
        "row": rng.randint(0, 6),
        "v4": rng.choice([2, 3, 4]),
    }


def show_data(data):
    print("你的数据（data）：")
    for key, value in data.items():
        print(f"  data[{key!r}] = {value!r}    # {LABELS[key]}")
