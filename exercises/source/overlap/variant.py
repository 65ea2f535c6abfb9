"""由学号生成本套习题每人不同的数据（纯 Python；学生版笔记本里原样附带，评分时用同一段代码重算）。"""

import hashlib
import random

SET = "overlap"
LABELS = {
    "t_compute": "第 1 题每步的计算时间 t_c（秒）",
    "t_comm": "第 1 题每步的通信时间 t_m（秒）",
    "ratio": "第 1 题的重叠率 r（比例）",
    "exposed": "第 1 题实测的暴露通信时间（秒）",
    "durations_ms": "第 2 题四个桶各自的全归约时间（毫秒）",
    "bw_gbs": "第 3、7 题网络的单向带宽 β（GB/s）",
    "q4_values": "第 4 题要量化的梯度（一个列表）",
    "seed": "第 5 题生成梯度的随机数种子",
    "k": "第 5 题 top-k 每步保留的分量数 k",
    "params_b": "第 6 题模型的参数量（十亿，B）",
    "cap7_mib": "第 7 题的桶上限（MiB）",
    "held8": "第 8 题留出的测量点（从 0 数起）",
    "cfg8": "第 8 题要算每步暴露时间的配置",
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
    t_comm = rng.choice([4.0, 5.0, 6.0, 7.5, 9.0])
    # 第 2 题：取到第三个全归约在反向结束（40 ms）之后才结束为止，最后一个桶要排队
    while True:
        durations = [rng.choice([3.0, 5.0, 8.0, 10.0, 12.0, 15.0]) for _ in range(4)]
        end = 0.0
        for ready, d in zip([6.0, 14.0, 27.0], durations):
            end = max(end, ready) + d
        if end >= 41.0:
            break
    return {
        "t_compute": rng.choice([12.0, 15.0, 18.0, 24.0, 30.0]),
        "t_comm": t_comm,
        "ratio": rng.choice([0.4, 0.5, 0.7, 0.8]),
        "exposed": round(t_comm * rng.choice([0.15, 0.25, 0.35, 0.45]), 3),
        "durations_ms": durations,
        "bw_gbs": rng.choice([5, 10, 12.5, 25, 50]),
        "q4_values": [round(rng.uniform(-2.0, 2.0), 4) for _ in range(6)],
        "seed": rng.randrange(1000, 10000),
        "k": rng.choice([2, 3, 5, 8]),
        "params_b": rng.choice([1.3, 3, 7, 13, 34, 70]),
        "cap7_mib": rng.choice([8, 88]),  # 有一个桶恰好在 MB 与 MiB 之间封口：单位错了一步时间就不同
        "held8": rng.choice([1, 2, 3, 4]),  # 4 MB、25 MB、100 MB 或整个梯度：留一个不参加拟合
        "cfg8": rng.choice(["1n2g", "2n1g", "2n2g"]),
    }


def show_data(data):
    print("你的数据（data）：")
    for key, value in data.items():
        print(f"  data[{key!r}] = {value!r}    # {LABELS[key]}")
