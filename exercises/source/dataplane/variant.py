"""由学号生成本套习题每人不同的数据（纯 Python；学生版笔记本里原样附带，评分时用同一段代码重算）。"""

import hashlib
import random

SET = "dataplane"
LABELS = {
    "c": "第 2 题的缓存比例 c（缓存容量 ÷ 本节点每轮要读的数据）",
    "load": "第 3 题一个工作进程准备一批的时间（秒）",
    "step": "第 3 题 GPU 每步的计算时间（秒）",
    "params": "第 4 题模型的参数量",
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
        "c": rng.choice([0.2, 0.3, 0.35, 0.6, 0.65, 0.8, 0.85, 0.9]),
        "load": rng.choice([0.7, 0.95, 1.3, 1.7, 2.2, 2.9]),
        "step": rng.choice([0.15, 0.2, 0.3, 0.45]),
        "params": rng.choice([1.3e9, 2.7e9, 6.7e9, 13e9, 34e9, 70e9]),
    }


def show_data(data):
    print("你的数据（data）：")
    for key, value in data.items():
        print(f"  data[{key!r}] = {value!r}    # {LABELS[key]}")
