"""由学号生成本套习题每人不同的数据（纯 Python；学生版笔记本里原样附带，评分时用同一段代码重算）。

第 2–4 题的“测量表”是**合成**的：按两段 α-β 模型（消息小于 8192 B 走一组 α、β，大于等于走另一组）算出时间，
再乘上每点独立的对数正态噪声（σ = 3 %）。第 5 题的计时记录同样是合成的。第 6 题用的是真实测量（见题目）。
"""

import hashlib
import math
import random

SET = "mpi-lab"
SIZES = [1000, 4000, 16000, 64000, 256000, 1000000, 4000000, 16000000, 64000000]  # B，每个 rank 的缓冲区 S
SWITCH = 8192  # B，每步消息的协议切换点
# 第 6 题的真实测量：正文 §2.3 的测量程序（communication.mpibench）在一台繁忙的 2 核 AMD EPYC Linux 机器上测得
# （MPICH 5.0.2，mpi4py，N = 2，每点重复 7 次），原样摘出、未加扰动。每段：(操作, MPICH 算法, [(S 字节, 中位 s, 下四分位 s, 上四分位 s), ...])
REAL = [
    ('all_reduce', 'ring', [
        (1000, 5.0145e-06, 4.894e-06, 5.325e-06),
        (4000, 5.836e-06, 5.31e-06, 6.7553e-06),
        (16000, 7.7145e-06, 7.5592e-06, 7.802e-06),
        (64000, 3.1449e-05, 3.0697e-05, 3.3538e-05),
        (256000, 0.0031496, 0.00014102, 0.010162),
        (1000000, 0.00055119, 0.00046484, 0.0038844),
        (4000000, 0.013966, 0.010301, 0.017928),
        (16000000, 0.048785, 0.046276, 0.06425),
        (64000000, 0.33977, 0.26989, 0.36835),
    ]),
    ('reduce_scatter', 'pairwise', [
        (1000, 8.1855e-06, 8.11e-06, 8.3683e-06),
        (4000, 9.628e-06, 9.3875e-06, 9.8608e-06),
        (16000, 1.9291e-05, 1.5213e-05, 3.7721e-05),
        (64000, 2.8173e-05, 2.727e-05, 3.478e-05),
        (256000, 0.00012074, 0.00010171, 0.00070235),
        (1000000, 0.00042643, 0.00038577, 0.0044673),
        (4000000, 0.0088874, 0.0071777, 0.0097464),
        (16000000, 0.012941, 0.012102, 0.014366),
        (64000000, 0.063962, 0.060444, 0.073985),
    ]),
    ('all_gather', 'recursive_doubling', [
        (1000, 5.971e-06, 5.33e-06, 6.5475e-06),
        (4000, 6.738e-06, 6.4167e-06, 6.903e-06),
        (16000, 6.051e-06, 5.7985e-06, 7.0708e-06),
        (64000, 3.7279e-05, 3.2661e-05, 3.9584e-05),
        (256000, 0.00013851, 8.567e-05, 0.00015225),
        (1000000, 0.00031184, 0.00029452, 0.001933),
        (4000000, 0.004169, 0.0025439, 0.0077235),
        (16000000, 0.011077, 0.0092093, 0.011833),
        (64000000, 0.040023, 0.039772, 0.042103),
    ]),
    ('broadcast', 'binomial', [
        (1000, 2.565e-06, 2.51e-06, 2.8477e-06),
        (4000, 3.397e-06, 2.9357e-06, 3.4393e-06),
        (16000, 9.993e-06, 9.7805e-06, 1.0011e-05),
        (64000, 1.5439e-05, 1.5098e-05, 1.6326e-05),
        (256000, 4.1237e-05, 3.9829e-05, 4.2074e-05),
        (1000000, 0.0002336, 0.00017031, 0.00025949),
        (4000000, 0.0043431, 0.0037048, 0.0066376),
        (16000000, 0.0083937, 0.0079518, 0.010932),
        (64000000, 0.024601, 0.019918, 0.027688),
    ]),
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
    "real_rows": "第 6 题那一组的真实测量：[(S 字节, 中位时间 s, 下四分位 s, 上四分位 s), ...]，N = 2",
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
        "real_rows": [tuple(r) for r in REAL[case][2]],
    }


def show_data(data):
    print("你的数据（data）：")
    for key, value in data.items():
        if key == "real_rows":
            print(f"  data[{key!r}]    # {LABELS[key]}：")
            for row in value:
                print(f"      {row!r}")
        elif key in ("trace",):
            print(f"  data[{key!r}] = [...]    # {LABELS[key]}（{len(value)} 次重复，每次 {len(value[0])} 个 rank）")
        else:
            print(f"  data[{key!r}] = {value!r}    # {LABELS[key]}")
