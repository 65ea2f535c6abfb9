"""由学号生成本套习题每人不同的数据（纯 Python；学生版笔记本里原样附带，评分时用同一段代码重算）。"""

import hashlib
import random

SET = "collectives-961"
LABELS = {
    "S": "第 2 题的 bf16 梯度大小 S（字节）",
    "N2": "第 2 题的 rank 数 N",
    "params": "第 3、8 题模型的参数个数 Ψ",
    "ranks": "第 3 题数据并行组的 rank 数 N",
    "alpha": "第 4、5、6 题每条消息的固定延迟 α（秒）",
    "ib_gbps": "第 4、5、6 题 InfiniBand 的单向速率（Gb/s，比特每秒）",
    "d": "第 4 题解码层的隐藏维 d",
    "d_ff": "第 4 题 SwiGLU 前馈宽度 d_ff",
    "N4": "第 4 题全收集的 rank 数 N",
    "total_bytes": "第 5、6 题要全归约的梯度总字节数",
    "N5": "第 5 题的 rank 数 N",
    "tiny_kb": "第 5 题每个小张量的大小（KB，1 KB = 1000 B）",
    "bucket_mib": "第 5 题桶的上限（MiB）",
    "N6": "第 6 题的 rank 数 N",
    "share_pct": "第 6 题延迟项最多占带宽项的百分数",
    "N7": "第 7 题的 rank 数 N",
    "m7": "第 7 题每个 rank 的元素个数",
    "held8": "第 8 题留出的那一行的 size（字节，256 MiB 到 8 GiB 之一）",
}

# 第 4 题的层形状 (d, d_ff)：正文没有算过的几种
SHAPES = [(2048, 5632), (2560, 6912), (3072, 8192), (5120, 13824), (6144, 16384)]


def _rng(student_id):
    student_id = str(student_id).strip()
    if not student_id:
        raise ValueError("请先在“学号”单元格的引号里填写你的学号，再运行")
    digest = hashlib.sha256(f"{SET}|{student_id}".encode("utf-8")).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def student_data(student_id):
    """这个学号的数据（dict）。"""
    rng = _rng(student_id)
    data = {
        "S": rng.choice([1.3, 2.7, 6.7, 7.0, 8.0, 13.0, 34.0]) * 2e9,
        "N2": rng.choice([4, 6, 12, 16, 24]),
        "params": rng.choice([1.3, 2.7, 6.7, 7.0, 13.0, 34.0, 70.0]) * 1e9,
        "ranks": rng.choice([8, 16, 32, 64, 128]),
        "alpha": rng.choice([2, 3, 5, 8, 10]) * 1e-6,
        "ib_gbps": rng.choice([100, 200, 400, 800]),
    }
    data["d"], data["d_ff"] = rng.choice(SHAPES)
    data["N4"] = rng.choice([512, 1024, 2048, 4096])  # one flat ring over many nodes: the latency term shows
    data["total_bytes"] = rng.choice([0.5, 1.0, 2.0, 4.0]) * 1e9
    data["N5"] = rng.choice([12, 24, 48, 96, 128])
    data["tiny_kb"] = rng.choice([2, 4, 5, 20, 40])
    data["bucket_mib"] = rng.choice([4, 8, 16, 32, 50])
    # 第 6 题：取到“一次调用就满足约束、最优的桶不止一个”的组合为止
    while True:
        n6 = rng.choice([6, 12, 20, 24, 40])
        share = rng.choice([2, 5, 10, 20])
        beta = data["ib_gbps"] * 1e9 / 8
        bound = share / 100 * data["total_bytes"] / (n6 * data["alpha"] * beta)
        # the bound is not (nearly) an integer: the answer never hinges on how the division is rounded
        if 4 <= bound <= 2000 and 0.01 < bound % 1 < 0.99:
            break
    data["N6"], data["share_pct"] = n6, share
    data["N7"] = rng.choice([4, 5, 6, 7, 8])
    data["m7"] = data["N7"] * rng.choice([3, 5, 7, 11]) + rng.randrange(1, data["N7"])
    data["held8"] = 2 ** rng.choice([28, 29, 30, 31, 32, 33])  # 日志里 size ≥ 256 MiB 的六行之一
    return data


def show_data(data):
    print("你的数据（data）：")
    for key, value in data.items():
        print(f"  data[{key!r}] = {value!r}    # {LABELS[key]}")
