"""由学号生成本套习题每人不同的数据（纯 Python；学生版笔记本里原样附带，评分时用同一段代码重算）。"""

import hashlib
import random

SET = "algorithms"
LABELS = {
    "alpha": "第 2 题的每步延迟 α（秒）",
    "t_ms": "第 4 题 all_reduce_perf 一行的时间（毫秒）",
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
        "t_ms": rng.choice([6.5, 7.0, 7.5, 8.0, 8.5, 9.0, 10.0]),
    }


def show_data(data):
    print("你的数据（data）：")
    for key, value in data.items():
        print(f"  data[{key!r}] = {value!r}    # {LABELS[key]}")
