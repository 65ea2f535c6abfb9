"""由学号生成本套习题每人不同的数据（纯 Python；学生版笔记本里原样附带，评分时用同一段代码重算）。"""

import hashlib
import random

SET = "ring-allreduce"
LABELS = {
    "P": "第 1 题模型参数个数",
    "S": "第 2–5 题 FP16 梯度大小 S（字节）= 2P",
    "N": "第 2–5 题参与 all-reduce 的 rank 数 N",
    "chunks": "第 3 题不均匀分块时各块的字节数（块 0, 1, …, N−1）",
    "link_gbps": "第 4 题 InfiniBand 链路单向速率（Gb/s，比特每秒）",
    "alpha": "第 4、5 题每条消息的固定延迟 α（秒）",
    "budget_s": "第 5 题 all-reduce 的时间预算（秒）",
    "trace_ranks": "第 7 题日志里的 rank 数",
    "trace": "第 7 题同事记录的发送日志：(步, 发送方, 接收方, 块号)",
    "held8": "第 8 题拟合时留出、用来检验预测的 nccl-tests 数据行（从 0 数起）",
}
LINKS_GBPS = (100, 200, 400, 800)


def _rng(student_id):
    student_id = str(student_id).strip()
    if not student_id:
        raise ValueError("请先在“学号”单元格的引号里填写你的学号，再运行")
    digest = hashlib.sha256(f"{SET}|{student_id}".encode("utf-8")).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def _trace(rng, n):
    """环形 all-reduce 的发送日志，其中埋了一处错误。"""
    rows = []
    for s in range(2 * (n - 1)):
        for r in range(n):
            chunk = (r - s) % n if s < n - 1 else (r + 1 - (s - n + 1)) % n
            rows.append([s, r, (r + 1) % n, chunk])
    bad = rng.randrange(n, len(rows))
    kind = rng.choice(["chunk", "dst"])
    s, r, dst, chunk = rows[bad]
    if kind == "chunk":
        rows[bad][3] = (chunk + rng.choice([1, n - 1])) % n
    else:
        rows[bad][2] = (dst + 1) % n
    return [tuple(row) for row in rows]


def student_data(student_id):
    """这个学号的数据（dict）。"""
    rng = _rng(student_id)
    params = rng.choice([1.3, 2.7, 6.7, 7.0, 8.0, 13.0, 14.0, 32.0, 34.0, 70.0]) * 1e9
    size = 2 * params
    n = rng.choice([5, 6, 12, 24, 48])
    n_u = rng.choice([5, 6, 7])
    length = rng.choice([k for k in range(37, 98) if k % n_u])
    chunks = [2 * (length // n_u + (1 if c < length % n_u else 0)) for c in range(n_u)]
    alpha = rng.choice([2e-6, 3e-6, 4e-6, 5e-6, 6e-6, 8e-6, 10e-6])
    target = rng.randrange(len(LINKS_GBPS))
    beta = LINKS_GBPS[target] * 1e9 / 8
    t_target = 2 * (n - 1) * alpha + 2 * size * (n - 1) / n / beta
    trace_ranks = rng.choice([4, 5, 6])
    return {
        "P": params,
        "S": size,
        "N": n,
        "chunks": chunks,
        "link_gbps": rng.choice([100, 200, 400, 800]),
        "alpha": alpha,
        "budget_s": float(f"{1.3 * t_target:.3g}"),
        "trace_ranks": trace_ranks,
        "trace": _trace(rng, trace_ranks),
        "held8": rng.choice([1, 2, 3]),
    }


def show_data(data):
    print("你的数据（data）：")
    for key, value in data.items():
        if key == "trace":
            print(f"  data['trace']    # {LABELS[key]}，共 {len(value)} 条：")
            for k in range(0, len(value), 6):
                print("      " + "  ".join(str(row) for row in value[k:k + 6]))
            continue
        print(f"  data[{key!r}] = {value!r}    # {LABELS[key]}")
