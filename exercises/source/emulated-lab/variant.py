"""由学号生成本套习题每人不同的数据（纯 Python；学生版笔记本里原样附带，评分时用同一段代码重算）。

第 2 题的测量表是**合成**的：按两段 α-β 模型（每步消息小于切点走小消息段，令牌桶的突发让它几乎不受整形；
大于等于切点走大消息段，β 是整形链路双向时的载荷速率，略打折扣）算出环形全归约的时间，再乘上每点独立的
对数正态噪声（σ = 2 %）。第 5 题的逐对乒乓同样是合成的（σ = 1.5 %）。第 4 题用真实测量（two_leaves_4x1.txt，见题目）。
"""

import hashlib
import math
import random

SET = "emulated-lab"
SIZES = [16 * 2**k for k in range(19)]  # B，每个 rank 的缓冲区 S：16 B … 4 MiB，每次翻倍（与正文的扫描相同）
PING_BYTES = 1048576  # 第 5 题乒乓的消息（B）
# 第 7 题可买的上联速率（Mbit/s）
UPLINKS = (25, 40, 50, 60, 80, 90, 95, 100, 120, 150, 160, 175, 180, 190, 200, 250, 300, 320, 350, 375, 400)
LABELS = {
    "rate_mbit": "第 1–3 题节点链路整形到的速率（Mbit/s，每方向）",
    "mtu1": "第 1 题的 MTU（字节）",
    "n1": "第 1 题环形全归约的节点数 N",
    "s1": "第 1 题全归约的 S（字节）",
    "nodes2": "第 2 题测量时的节点数 N（每节点 1 个 rank，一个叶，MTU 1500）",
    "table2": "第 2 题：环形全归约的测量表 [(S 字节, 中位时间 s), ...]，按 S 从小到大",
    "n3": "第 3 题要预测的节点数",
    "uplink3_mbit": "第 3 题两个叶之间上联的速率（Mbit/s，每方向）",
    "s3": "第 3 题要预测的 S（字节）",
    "start4": "第 4 题拟合用 2 节点表的哪些行：从第 start4 行起隔一行取一行（从 0 数起）",
    "s4": "第 4 题单独报告的 S（字节，4 节点表里的一行）",
    "n5": "第 5 题的节点数",
    "floor5_us": "第 5 题乒乓的单程软件底噪（µs）",
    "pairs5": "第 5 题逐对乒乓：[(i, j, 单程时间 s), ...]，每对节点一次，1 MiB 消息，MTU 1500",
    "n6": "第 6 题的节点数 N",
    "rates6_mbit": "第 6 题各节点链路的速率（Mbit/s，每方向；按节点顺序）",
    "mtu6": "第 6 题的 MTU（字节）",
    "alpha6_us": "第 6 题每步的 α（µs）",
    "s6": "第 6 题全归约的 S（字节）",
    "n7": "第 7 题的节点数（前一半在叶 0，其余在叶 1）",
    "rate7_mbit": "第 7 题节点链路的速率（Mbit/s，每方向，MTU 1500）",
    "alpha7_us": "第 7 题每步的 α（µs）",
    "s7": "第 7 题全归约的 S（字节）",
    "slack7_pct": "第 7 题允许两个叶比一个叶慢的百分数",
    "options7_mbit": "第 7 题可买的上联速率（Mbit/s，每方向）",
}


def _rng(student_id):
    student_id = str(student_id).strip()
    if not student_id:
        raise ValueError("请先在“学号”单元格的引号里填写你的学号，再运行")
    digest = hashlib.sha256(f"{SET}|{student_id}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def _payload(rate_bps, mtu, both_ways):
    return rate_bps / 8 * (mtu - 52) / (mtu + 14 + (33 if both_ways else 0))


def _ring_time(size, n, a1, b1, a2, b2, split):
    steps, nbytes = 2 * (n - 1), 2 * size * (n - 1) / n
    small = size / n < split
    return steps * (a1 if small else a2) + nbytes / (b1 if small else b2)


def student_data(student_id):
    """这个学号的数据（dict）。"""
    rng = _rng(student_id)
    rate = rng.choice([50, 80, 100, 150, 200, 250])
    n2 = rng.choice([2, 3])
    # 第 2 题的“真”模型：小消息段 α 几 µs、β 约 100 MB/s（突发不受整形）；大消息段 β 是双向载荷速率的 97–100 %
    a1, b1 = rng.choice([4.0, 6.0, 9.0]) * 1e-6, rng.choice([60.0, 100.0, 150.0]) * 1e6
    a2 = rng.choice([10.0, 20.0, 40.0]) * 1e-6
    b2 = _payload(rate * 1e6, 1500, True) * rng.choice([0.97, 0.98, 0.99, 1.0])
    split = rng.choice([200.0, 400.0, 800.0]) / n2 * 2  # 每步消息的切点（B），落在两个测量大小之间
    table = []
    for z in SIZES:
        t = _ring_time(z, n2, a1, b1, a2, b2, split) * math.exp(rng.gauss(0.0, 0.02))
        table.append((z, float(f"{t:.5e}")))
    n5 = rng.choice([5, 6, 8])
    slow5 = rng.randrange(n5)
    rate5 = rng.choice([100, 200]) * 1e6
    k5 = rng.choice([2, 3, 4, 5])
    floor5 = rng.choice([5.0, 8.0, 12.0])
    pairs = []
    for i in range(n5):
        for j in range(i + 1, n5):
            r = min(rate5 / k5 if x == slow5 else rate5 for x in (i, j))
            t = (floor5 * 1e-6 + PING_BYTES / _payload(r, 1500, False)) * math.exp(rng.gauss(0.0, 0.015))
            pairs.append((i, j, float(f"{t:.5e}")))
    n6 = rng.choice([4, 6, 8])
    base6 = rng.choice([100, 200, 400])
    rates6 = [base6] * n6
    rates6[rng.randrange(n6)] = base6 // rng.choice([2, 4])
    n7 = rng.choice([4, 6, 8])
    return {
        "rate_mbit": rate,
        "mtu1": rng.choice([1500, 4000, 9000]),
        "n1": rng.choice([3, 4, 6, 8]),
        "s1": rng.choice([4, 16, 64]) * 10**6,
        "nodes2": n2,
        "table2": table,
        "n3": rng.choice([4, 6, 8]),
        "uplink3_mbit": rate * rng.choice([0.25, 0.4, 0.5, 0.75]),
        "s3": rng.choice([262144, 1048576, 4194304, 16777216]),
        "start4": rng.choice([0, 1]),
        "s4": rng.choice(SIZES[10:]),
        "n5": n5,
        "floor5_us": floor5,
        "pairs5": pairs,
        "n6": n6,
        "rates6_mbit": rates6,
        "mtu6": rng.choice([1500, 9000]),
        "alpha6_us": rng.choice([10.0, 25.0, 50.0]),
        "s6": rng.choice([1, 4, 16]) * 10**6,
        "n7": n7,
        "rate7_mbit": rng.choice([100, 200, 400]),
        "alpha7_us": rng.choice([10.0, 20.0, 40.0]),
        "s7": rng.choice([1, 4, 16]) * 10**6,
        "slack7_pct": rng.choice([5, 10, 20]),
        "options7_mbit": list(UPLINKS),
    }


def show_data(data):
    print("你的数据（data）：")
    for key, value in data.items():
        if key == "table2":
            print(f"  data[{key!r}] = [...]    # {LABELS[key]}（{len(value)} 行）")
            for z, t in value:
                print(f"      ({z}, {t!r}),")
        elif key == "pairs5":
            print(f"  data[{key!r}] = [...]    # {LABELS[key]}（{len(value)} 对）")
            for i, j, t in value:
                print(f"      ({i}, {j}, {t!r}),")
        else:
            print(f"  data[{key!r}] = {value!r}    # {LABELS[key]}")
