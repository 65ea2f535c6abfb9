"""由学号生成本套习题每人不同的数据（纯 Python；学生版笔记本里原样附带，评分时用同一段代码重算）。"""

import hashlib
import random

SET = "determinism"
LABELS = {
    "n1": "第 1 题参与求和的项数（rank 数）n",
    "fmt1": "第 1 题累加所用的浮点格式",
    "need2": "第 2 题的可复现要求",
    "cost_det": "第 2 题打开确定性算子的吞吐损失（%）",
    "cost_algo": "第 2 题固定集合通信算法与协议的吞吐损失（%）",
    "cost_fp64": "第 2 题改用 float64 累加的吞吐损失（%）",
    "n3": "第 3 题的 rank 数",
    "len3": "第 3 题每个 rank 的梯度元素个数",
    "seed3": "第 3 题生成梯度的种子",
    "held_run": "第 4 题留出的那次 MLPerf 运行（0–4，从 0 数起）",
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
        "n1": rng.choice([12, 24, 48, 96, 200, 384, 1000, 4096]),
        "fmt1": rng.choice(["float32", "float64"]),
        "need2": rng.choice(["bitwise-same-layout", "statistical"]),
        "cost_det": rng.choice([5, 10, 20, 35, 60]),
        "cost_algo": rng.choice([1, 2, 4, 8]),
        "cost_fp64": rng.choice([3, 6, 12]),
        "n3": rng.choice([5, 6, 7, 9, 10, 12]),
        "len3": rng.choice([997, 1000, 1531, 2048, 3001]),
        "seed3": rng.randint(1, 10_000),
        "held_run": rng.randint(0, 4),
    }


def show_data(data):
    print("你的数据（data）：")
    for key, value in data.items():
        print(f"  data[{key!r}] = {value!r}    # {LABELS[key]}")
