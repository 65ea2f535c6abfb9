"""由学号生成本套习题每人不同的数据（纯 Python；学生版笔记本里原样附带，评分时用同一段代码重算）。"""

import hashlib
import random

SET = "ring-allreduce"
LABELS = {
    "P": "模型参数个数",
    "S": "FP16 梯度大小 S（字节）= 2P",
    "link_gbps": "InfiniBand 链路单向速率（Gb/s，比特每秒）",
    "alpha": "每条消息的固定延迟 α（秒）",
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
    params = rng.choice([1.3, 2.7, 6.7, 7.0, 8.0, 13.0, 14.0, 32.0, 34.0, 70.0]) * 1e9
    return {
        "P": params,
        "S": 2 * params,
        "link_gbps": rng.choice([100, 200, 400, 800]),
        "alpha": rng.choice([2, 3, 4, 5, 6, 8, 10]) * 1e-6,
    }


def show_data(data):
    print("你的数据（data）：")
    for key, value in data.items():
        print(f"  data[{key!r}] = {value!r}    # {LABELS[key]}")
