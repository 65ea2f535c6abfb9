"""由学号生成本套习题每人不同的数据（纯 Python；学生版笔记本里原样附带，评分时用同一段代码重算）。"""

import hashlib
import random

SET = "failures"
LABELS = {
    "delta": "第 3、5 题保存一次的时间 δ（秒）",
    "restart": "第 3、5 题每次故障后的恢复时间 R（秒）",
    "G_list": "第 1 题的四种作业规模 G（卡数，从小到大）",
    "log_gpus": "第 2 题日志所记作业的卡数",
    "log_days": "第 2 题日志覆盖的天数",
    "log_unexpected": "第 2 题日志里非计划中断的条数",
    "log_planned": "第 2 题日志里计划内维护的条数",
    "log_seed": "第 2 题生成日志时刻的随机数种子",
    "G_sim": "第 4 题模拟的卡数 G",
    "counted": "第 2 题计入中断率的类别（Llama 3 表 5 的 Category 列的值）",
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
        "delta": rng.choice([30, 40, 45, 56, 60, 75, 90, 120]),
        "restart": rng.choice([300, 420, 600, 900, 1200]),
        "G_list": [rng.choice([8, 16]), rng.choice([256, 512, 1024]), rng.choice([4096, 8192]),
                   rng.choice([16384, 24576, 32768])],
        "log_gpus": rng.choice([512, 1024, 2048]),
        "log_days": rng.choice([14, 21, 30, 45]),
        "log_unexpected": rng.randint(20, 60),
        "log_planned": rng.randint(2, 8),
        "log_seed": rng.randint(100, 9999),
        "G_sim": rng.choice([128, 256, 384, 512, 768, 1024]),
        "counted": rng.choice([["GPU", "Host", "Network"],
                               ["GPU", "Dependency", "Network", "Unplanned Maintenance", "Host", "Unknown"],
                               ["GPU", "Host", "Network", "Unplanned Maintenance"]]),
    }


def show_data(data):
    print("你的数据（data）：")
    for key, value in data.items():
        print(f"  data[{key!r}] = {value!r}    # {LABELS[key]}")
