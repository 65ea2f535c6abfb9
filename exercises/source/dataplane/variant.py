"""由学号生成本套习题每人不同的数据（纯 Python；学生版笔记本里原样附带，评分时用同一段代码重算）。"""

import hashlib
import random

SET = "dataplane"
LABELS = {
    "load": "第 3 题一个工作进程准备一批的时间（秒）",
    "step": "第 3 题 GPU 每步的计算时间（秒）",
    "params": "第 4 题模型的参数量",
    "dataset_gb": "第 2 题本节点每轮要读的数据量（GB）",
    "cache_gb": "第 2 题本地缓存的容量（GB）",
    "trace": "第 3 题设计：每批的加载时间（秒）",
    "max_wait_s": "第 3 题设计：GPU 等数据的总时间上限（秒）",
    "gpus4": "第 4 题 A100 的张数",
    "mfu4": "第 4 题的 MFU",
    "write_s4": "第 4 题 checkpoint 要在多少秒内写完",
    "n5": "第 5 题的分片数 n",
    "cap5": "第 5 题的缓存容量（分片数）",
    "held6": "第 6 题留出的那一种配置（MLPERF_SUMMARY 里按出现的顺序，从 0 数起）",
    "acc6": "第 6 题设计：要喂饱的模拟 H100 张数",
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
    load = rng.choice([0.7, 0.95, 1.3, 1.7, 2.2, 2.9])
    step = rng.choice([0.15, 0.2, 0.3, 0.45])
    params = rng.choice([1.3e9, 2.7e9, 6.7e9, 13e9, 34e9, 70e9])
    dataset_gb = rng.choice([800, 1500, 2400, 3200, 5000, 6400])
    base = rng.choice([0.6, 0.9, 1.2])
    trace = [round(base * rng.uniform(0.8, 1.2), 3) for _ in range(40)]
    for k in rng.sample(range(5, 40), 3):
        trace[k] = round(trace[k] * rng.choice([4, 6, 8]), 3)
    # 工作进程再多也躲不掉的等待：max_k (L_k − k·G)；上限比它宽一些，保证有解
    floor_wait = max(lk - k * step for k, lk in enumerate(trace))
    return {
        "load": load,
        "step": step,
        "params": params,
        "dataset_gb": dataset_gb,
        "cache_gb": round(dataset_gb * rng.choice([0.15, 0.45, 0.55, 0.7, 0.75, 0.95]), 1),
        "trace": trace,
        "max_wait_s": round(floor_wait + rng.choice([0.5, 1.0, 1.5, 2.5]), 2),
        "gpus4": rng.choice([16, 48, 96, 200, 512]),
        "mfu4": rng.choice([0.3, 0.35, 0.45, 0.55]),
        "write_s4": rng.choice([20, 45, 60, 90]),
        "n5": rng.randint(30, 90),
        "cap5": rng.randint(5, 25),
        "held6": rng.randint(0, 9),
        "acc6": rng.choice([128, 256, 512, 1024, 2048]),
    }


def show_data(data):
    print("你的数据（data）：")
    for key, value in data.items():
        print(f"  data[{key!r}] = {value!r}    # {LABELS[key]}")
