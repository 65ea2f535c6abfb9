"""由学号生成本套习题每人不同的数据（纯 Python；学生版笔记本里原样附带，评分时用同一段代码重算）。"""

import hashlib
import random

SET = "fault-tolerance"
LABELS = {
    "S": "第 2 题每张卡的缓冲区 S（字节）",
    "mttr": "第 3 题的 MTTR（秒）",
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
    }


def show_data(data):
    print("你的数据（data）：")
    for key, value in data.items():
        print(f"  data[{key!r}] = {value!r}    # {LABELS[key]}")
