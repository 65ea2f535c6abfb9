"""由学号生成本套习题每人不同的数据（纯 Python；学生版笔记本里原样附带，评分时用同一段代码重算）。"""

import hashlib
import random

SET = "algorithms"
LABELS = {
    "alpha": "第 2 题的每步延迟 α（秒）",
    "t_ms": "第 4 题 all_reduce_perf 一行的时间（毫秒）",
    "nic_gbps": "第 2、3 题网卡链路的单向速率（Gb/s，比特每秒）",
    "S": "第 3 题每个 rank 的梯度缓冲区 S（字节）",
    "G": "第 3 题每台机器的 rank 数 G（N = 1024 = G × M）",
    "nvlink_gbs": "第 3 题机内 NVLink 的标称带宽（GB/s，两个方向之和）",
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
        "nic_gbps": rng.choice([200, 400, 800]),
        "S": rng.choice([2.6, 5.4, 13.4, 14.0, 16.0, 26.0, 28.0]) * 1e9,
        "G": rng.choice([4, 8, 16]),
        "nvlink_gbs": rng.choice([300, 600, 900]),
    }


def show_data(data):
    print("你的数据（data）：")
    for key, value in data.items():
        print(f"  data[{key!r}] = {value!r}    # {LABELS[key]}")
