"""由学号生成本套习题每人不同的数据（纯 Python；学生版笔记本里原样附带，评分时用同一段代码重算）。"""

import hashlib
import random

SET = "checkpoint"
LABELS = {
    "bw_gbs": "第 1 题存储的聚合写带宽（GB/s）",
    "delta": "第 2–6 题保存一次的时间 δ（秒）",
    "ranks": "第 1 题的 rank 数 N",
    "restart": "第 3、5、6 题每次故障后的恢复时间 R（秒）",
    "mtbf_h": "第 4 题作业的 MTBF（小时）",
    "step_s": "第 6 题一个训练步的时间（秒）",
    "interval7": "第 7 题的 checkpoint 间隔（秒）",
    "mtbf7": "第 7 题的 MTBF（秒）",
    "restart7": "第 7 题每次故障后的恢复时间 R（秒）",
    "held_row": "第 4 题留出的那一行（BigScience 表的第几个数据行，从 0 数起）",
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
        "bw_gbs": rng.choice([1, 2, 4, 5, 8, 10, 20]),
        "delta": rng.choice([30, 40, 45, 50, 56, 75, 90, 120]),  # not 60: W(120 s) = W(7200 s) there
        "ranks": rng.choice([64, 128, 256, 512]),
        "restart": rng.choice([120, 180, 300, 600]),
        "mtbf_h": rng.choice([2, 3, 4, 6, 8]),
        "step_s": rng.choice([7.0, 9.5, 11.0, 13.0, 17.0, 23.0]),
        "interval7": rng.choice([600, 900, 1200]),
        "mtbf7": rng.choice([1800, 2400, 3000]),
        "restart7": rng.choice([1200, 1800, 2400, 3000]),
        "held_row": rng.randint(0, 6),
    }


def show_data(data):
    print("你的数据（data）：")
    for key, value in data.items():
        print(f"  data[{key!r}] = {value!r}    # {LABELS[key]}")
