"""由学号生成本套习题每人不同的数据（纯 Python；学生版笔记本里原样附带，评分时用同一段代码重算）。"""

import hashlib
import random

SET = "fault-tolerance"
LABELS = {
    "S": "第 2 题每张卡的缓冲区 S（字节）",
    "mttr": "第 3 题的 MTTR（秒）",
    "G": "第 1、7 题作业的卡数 G",
    "lr": "第 4 题的学习率 lr",
    "grad": "第 4 题三个参数的梯度（相差约四个数量级）",
    "k_mid": "第 6 题在一轮中间中断的步数",
    "k_edge": "第 6 题恰好在一轮结束时中断的步数",
    "delta7": "第 7 题写一次 checkpoint 的时间 δ（秒）",
    "fit_days": "第 1 题估计故障率用的前多少天（其后的 30 天留作检验）",
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
        "mttr": rng.choice([1200, 1800, 2400, 3300, 3600, 4800]),
        "G": rng.choice([256, 512, 1024, 2048, 4096]),
        "lr": rng.choice([0.001, 0.002, 0.005, 0.01, 0.02, 0.05]),
        "grad": [rng.choice([0.1, 0.2, 0.3, 0.5, 0.8]), -rng.choice([1, 2, 5]) * 1e-4, rng.choice([2.0, 5.0, 8.0])],
        "k_mid": rng.choice([k for k in range(7, 30) if k % 6]),
        "k_edge": rng.choice([6, 12, 18, 24]),
        "delta7": rng.choice([20, 30, 45, 60, 90, 120]),
        "fit_days": rng.choice([60, 90, 120, 150, 180, 210, 240, 270, 300]),
    }


def show_data(data):
    print("你的数据（data）：")
    for key, value in data.items():
        print(f"  data[{key!r}] = {value!r}    # {LABELS[key]}")
