"""由学号生成本套习题每人不同的数据（纯 Python；学生版笔记本里原样附带，评分时用同一段代码重算）。"""

import hashlib
import random

SET = "chunking"
LABELS = {
    "alpha": "第 3、6 题每份数据在每一段上的固定开销 α（秒）",
    "S": "第 3、6 题的 FP16 梯度大小 S（字节）",
    "n7": "第 7 题的 rank 数 N",
    "c7": "第 7 题每块切成的份数 c",
    "h7": "第 7 题的段数 h",
    "tau7": "第 7 题每份每段的耗时（秒）",
    "small_row": "第 8 题用拟合外推的一个小消息行（NCCL_TESTS 的下标，从 0 数起）",
    "big_row": "第 8 题用分块模型计算的大消息行（NCCL_TESTS 的下标，从 0 数起）",
    "min8": "第 8 题拟合窗口的下限（字节）：只用 size ≥ 它的行",
    "held8": "第 8 题留出、不参加拟合的一行（NCCL_TESTS 的下标，从 0 数起）",
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
        "alpha": rng.choice([2, 3, 4, 5, 6, 8, 10]) * 1e-6,
        "S": rng.choice([2.6, 5.4, 13.4, 14.0, 16.0, 26.0, 28.0]) * 1e9,
        "n7": rng.choice([4, 5, 6, 8]),
        "c7": rng.choice([1, 2]),
        "h7": rng.choice([3, 4, 5]),
        "tau7": rng.choice([1e-4, 2e-4, 5e-4, 1e-3]),
        "small_row": rng.randint(0, 7),
        "big_row": rng.randint(26, 28),
        "min8": rng.choice([2**23, 2**24, 2**25]),
        "held8": rng.randint(23, 28),
    }


def show_data(data):
    print("你的数据（data）：")
    for key, value in data.items():
        print(f"  data[{key!r}] = {value!r}    # {LABELS[key]}")
