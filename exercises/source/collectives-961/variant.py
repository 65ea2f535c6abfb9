"""由学号生成本套习题每人不同的数据（纯 Python；学生版笔记本里原样附带，评分时用同一段代码重算）。"""

import hashlib
import random

SET = "collectives-961"
LABELS = {
    "S": "第 2 题的 bf16 梯度大小 S（字节）",
    "N2": "第 2 题的 rank 数 N",
    "params": "第 3 题模型的参数个数 Ψ",
    "ranks": "第 3 题数据并行组的 rank 数 N",
    "alpha": "第 4、5 题每条消息的固定延迟 α（秒）",
    "ib_gbps": "第 4、5 题 InfiniBand 的单向速率（Gb/s，比特每秒）",
    "total_bytes": "第 5 题要全归约的梯度总字节数",
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
    return {
        "S": rng.choice([1.3, 2.7, 6.7, 7.0, 8.0, 13.0, 34.0]) * 2e9,
        "N2": rng.choice([4, 6, 12, 16, 24]),
        "params": rng.choice([1.3, 2.7, 6.7, 7.0, 13.0, 34.0, 70.0]) * 1e9,
        "ranks": rng.choice([8, 16, 32, 64, 128]),
        "alpha": rng.choice([2, 3, 5, 8, 10]) * 1e-6,
        "ib_gbps": rng.choice([100, 200, 400, 800]),
        "total_bytes": rng.choice([0.5, 1.0, 2.0, 4.0]) * 1e9,
    }


def show_data(data):
    print("你的数据（data）：")
    for key, value in data.items():
        print(f"  data[{key!r}] = {value!r}    # {LABELS[key]}")
