"""由学号生成本套习题每人不同的数据（纯 Python；学生版笔记本里原样附带，评分时用同一段代码重算）。"""

import hashlib
import random

SET = "algorithms"
LABELS = {
    "alpha": "第 2、6 题的每步延迟 α（秒）",
    "nic_gbps": "第 2、3、6 题网卡链路的单向速率（Gb/s，比特每秒）",
    "N2": "第 2 题的 rank 数 N",
    "eta": "第 2 题树能跑到的带宽比例 η",
    "S": "第 3 题每个 rank 的梯度缓冲区 S（字节）",
    "G": "第 3 题每台机器的 rank 数 G",
    "M": "第 3 题机器台数 M（N = G × M）",
    "nvlink_gbs": "第 3 题机内 NVLink 的标称带宽（GB/s，两个方向之和）",
    "run4": "第 4 题你用的那次运行（\"two_nodes\" 或 \"tas\"）",
    "held4": "第 4 题留出的那一行的 size（字节）",
    "cases5": "第 5 题的三组 (N, S 字节)",
    "picks": "第 6 题同事的调优日志：(N, S 字节, 他选的算法)",
}


def _rng(student_id):
    student_id = str(student_id).strip()
    if not student_id:
        raise ValueError("请先在“学号”单元格的引号里填写你的学号，再运行")
    digest = hashlib.sha256(f"{SET}|{student_id}".encode("utf-8")).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def _times(size, n, alpha, beta, bug=""):
    depth = (n - 1).bit_length() if bug != "tree_floor" else n.bit_length() - 1
    k = n.bit_length() - 1
    p = 1 << k
    hd = 2 * k * alpha + 2 * size * (p - 1) / (p * beta)
    if n != p and bug != "no_fold":
        hd += 2 * alpha + 2 * size / beta
    return {
        "ring": 2 * (n - 1) * alpha + 2 * size * (n - 1) / (n * beta),
        "tree": 2 * depth * alpha + 2 * size / beta,
        "halving_doubling": hd,
    }


def _pick(size, n, alpha, beta, bug=""):
    t = _times(size, n, alpha, beta, bug)
    return min(("ring", "tree", "halving_doubling"), key=lambda name: t[name])


def _picks(rng, alpha, beta):
    bug = rng.choice(["no_fold", "tree_floor"])
    other = "tree_floor" if bug == "no_fold" else "no_fold"
    while True:
        rows = []
        for _ in range(10):
            n = rng.choice([3, 5, 6, 12, 24, 48, 96, 100, 200, 1000, 16, 64])
            size = float(f"{10 ** rng.uniform(3, 9.5):.3g}")
            t = sorted(_times(size, n, alpha, beta).values())
            tb = sorted(_times(size, n, alpha, beta, bug).values())
            if t[1] - t[0] > 1e-3 * t[0] and tb[1] - tb[0] > 1e-3 * tb[0]:
                rows.append((n, size, _pick(size, n, alpha, beta, bug)))
        wrong = [r for r in rows if r[2] != _pick(r[1], r[0], alpha, beta)]
        # a rate left in bits (8 times too fast) must flag other rows than the right one (with the missing fold
        # the same rows are wrong at any rate: nearly every N that is not a power of two)
        wrong_bits = [r for r in rows if r[2] != _pick(r[1], r[0], alpha, 8 * beta)]
        other_ok = all(r[2] == _pick(r[1], r[0], alpha, beta, other) for r in rows)
        if len(rows) >= 8 and 1 <= len(wrong) <= 4 and not other_ok \
                and (wrong_bits != wrong or bug == "no_fold"):
            return rows


# 第 5 题的 (N, S)：α = 5 µs、β = 50 GB/s 时三种答案各一组；第一组靠近树与环的分界（β 错成 1/8 时答案会变），
# 每组最快与次快之间至少差 2 %
CASES5_NEAR = [(6, 8e5), (6, 1e6), (6, 2e6), (12, 4e6), (12, 8e6), (12, 1e7)]
CASES5_RING = [(6, 1e8), (6, 1e9), (12, 2e8), (12, 1e9), (24, 1e9)]
CASES5_HD = [(16, 1e6), (16, 1e7), (64, 1e7), (64, 1e8), (32, 1e7)]


def student_data(student_id):
    """这个学号的数据（dict）。"""
    rng = _rng(student_id)
    alpha = rng.choice([2e-6, 3e-6, 4e-6, 5e-6, 6e-6, 8e-6, 10e-6])
    nic = rng.choice([200, 400, 800])
    # 第 4 题：用哪次运行、留出哪一行（抽取的次数与先前的版本相同，其余各题的数据因此不变）
    run4 = "two_nodes" if rng.choice([4, 6, 16, 32]) <= 6 else "tas"
    held4 = 2 * 2 ** rng.choice([28, 29, 30, 31, 32])  # 512 MiB 到 8 GiB
    rng.choice([25.0, 50.0, 100.0])
    rng.uniform(0.55, 0.95)
    return {
        "alpha": alpha,
        "nic_gbps": nic,
        "N2": rng.choice([96, 384, 1536, 3000, 6144]),
        "eta": rng.choice([0.6, 0.7, 0.8, 0.9]),
        "S": rng.choice([2.6, 5.4, 13.4, 14.0, 16.0, 26.0, 28.0]) * 1e9,
        "G": rng.choice([4, 8]),
        "M": rng.choice([6, 12, 48, 100, 250]),
        "nvlink_gbs": rng.choice([300, 600, 900]),
        "run4": run4,
        "held4": held4,
        "cases5": rng.sample([rng.choice(CASES5_NEAR), rng.choice(CASES5_RING), rng.choice(CASES5_HD)], 3),
        "picks": _picks(rng, alpha, nic * 1e9 / 8),
    }


def show_data(data):
    print("你的数据（data）：")
    for key, value in data.items():
        if key == "picks":
            print(f"  data['picks']    # {LABELS[key]}，共 {len(value)} 条：")
            for row in value:
                print(f"      {row!r}")
            continue
        print(f"  data[{key!r}] = {value!r}    # {LABELS[key]}")
