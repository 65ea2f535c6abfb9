"""由学号生成本套习题每人不同的数据（纯 Python；学生版笔记本里原样附带，评分时用同一段代码重算）。

第 2–4 题的“测量表”是**合成**的：按两段 α-β 模型（消息小于 8192 B 走一组 α、β，大于等于走另一组）算出时间，
再乘上每点独立的对数正态噪声（σ = 3 %）。第 5 题的计时记录同样是合成的。第 6 题用的是真实测量（mpi_lab_busy_n2.txt，见题目）。
"""

import hashlib
import math
import random

SET = "mpi-lab"
SIZES = [1000, 4000, 16000, 64000, 256000, 1000000, 4000000, 16000000, 64000000]  # B，每个 rank 的缓冲区 S
SWITCH = 8192  # B，每步消息的协议切换点
# 第 6 题的真实测量在 mpi_lab_busy_n2.txt（题面的 BUSY_CSV 逐行引用它）：正文 §2.3 的测量程序（lab.mpibench）
# 在一台繁忙的 2 核 AMD EPYC Linux 机器上测得，N = 2。这里只列出四组各自的（操作, MPICH 算法）。
REAL = [
    ('all_reduce', 'ring'),
    ('reduce_scatter', 'pairwise'),
    ('all_gather', 'recursive_doubling'),
    ('broadcast', 'binomial'),
]
# 第 6 题可以留出的行（在那一组里按文件顺序从 0 数起）：离散度不大于 0.5，且不是最小或最大的 S
HELD6 = [
    [1, 2, 3, 7],
    [1, 3, 6, 7],
    [1, 2, 3, 4, 7],
    [1, 2, 3, 4, 5, 7],
]
LABELS = {
    "ranks": "第 2–5 题的 rank 数 N",
    "table": "第 2–3 题：环形全归约的测量表 [(S 字节, 中位时间 s), ...]，按 S 从小到大",
    "fit_sizes": "第 2 题用来拟合的 S（字节）",
    "held_sizes": "第 3 题留出、只用来检验预测的 S（字节）",
    "buckets": "第 4 题一步里各个梯度桶的大小（字节）",
    "trace": "第 5 题的计时记录：每次重复一个列表，元素是 (rank, 开始时刻 s, 结束时刻 s)",
    "trace_size": "第 5 题那次全归约的 S（字节）",
    "real_case": "第 6 题用真实测量表的哪一组（0–3）",
    "real_op": "第 6 题那一组的操作",
    "real_alg": "第 6 题那一组的 MPICH 算法",
    "held6": "第 6 题留出的一行：你那一组里按文件顺序的第几行（从 0 数起）",
}


def _rng(student_id):
    student_id = str(student_id).strip()
    if not student_id:
        raise ValueError("请先在“学号”单元格的引号里填写你的学号，再运行")
    digest = hashlib.sha256(f"{SET}|{student_id}".encode("utf-8")).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def _ring_time(size, n, a1, b1, a2, b2):
    steps, nbytes = 2 * (n - 1), 2 * size * (n - 1) / n
    small = nbytes / steps < SWITCH
    return steps * (a1 if small else a2) + nbytes / (b1 if small else b2)


def student_data(student_id):
    """这个学号的数据（dict）。"""
    rng = _rng(student_id)
    n = rng.choice([4, 6, 8])
    a1, b1 = rng.choice([1.5, 2.0, 3.0]), rng.choice([1.5, 2.0, 3.0])
    a2, b2 = rng.choice([10.0, 20.0, 40.0]), rng.choice([5.0, 8.0, 12.0])
    table = []
    for z in SIZES:
        t = _ring_time(z, n, a1 * 1e-6, b1 * 1e9, a2 * 1e-6, b2 * 1e9) * math.exp(rng.gauss(0.0, 0.03))
        table.append((z, float(f"{t:.4e}")))
    buckets = sorted(rng.sample([2000, 12000, 50000, 200000, 800000, 3000000, 25000000, 100000000], 5))
    true_t = _ring_time(buckets[2], n, a1 * 1e-6, b1 * 1e9, a2 * 1e-6, b2 * 1e9)
    trace, clock = [], 0.0
    for _ in range(7):
        arrive = [clock + rng.uniform(0.0, 4.0) * true_t for _ in range(n)]
        end = max(arrive) + true_t * math.exp(rng.gauss(0.0, 0.02))
        trace.append([(r, round(arrive[r], 9), round(end + rng.uniform(0.0, 0.05) * true_t, 9)) for r in range(n)])
        clock = end + 1e-3
    case = rng.randint(0, 3)
    return {
        "ranks": n,
        "table": table,
        "fit_sizes": SIZES[0::2],
        "held_sizes": SIZES[1::2],
        "buckets": buckets,
        "trace": trace,
        "trace_size": buckets[2],
        "real_case": case,
        "real_op": REAL[case][0],
        "real_alg": REAL[case][1],
        "held6": rng.choice(HELD6[case]),
    }


def show_data(data):
    print("你的数据（data）：")
    for key, value in data.items():
        if key in ("trace",):
            print(f"  data[{key!r}] = [...]    # {LABELS[key]}（{len(value)} 次重复，每次 {len(value[0])} 个 rank）")
        else:
            print(f"  data[{key!r}] = {value!r}    # {LABELS[key]}")
