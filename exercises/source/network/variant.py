"""由学号生成本套习题每人不同的数据（纯 Python；学生版笔记本里原样附带，评分时用同一段代码重算）。"""

import hashlib
import math
import random

SET = "network"
LABELS = {
    "radix": "第 1–3 题交换机的口数 k",
    "oversub": "第 1、3 题叶交换机的收敛比 o₁（下行口 : 上行口）",
    "nodes": "第 1、3 题两层网络的 8 卡服务器台数（每卡一块网卡）",
    "nic_gbps": "第 1、2、4、6 题每块网卡的线速（Gb/s，每方向，比特）",
    "nodes_big": "第 2 题三层网络的 8 卡服务器台数",
    "pod_oversub": "第 2 题汇聚层（pod 之上）的收敛比 o₂",
    "nvlink_bidir": "第 4 题每张 GPU 的 NVLink 带宽（GB/s，双向合计）",
    "nics": "第 4 题每台 8 卡服务器的计算网卡块数",
    "flows": "第 5 题跨叶长流的条数 n",
    "uplinks": "第 5 题叶交换机的上行口数 m",
    "cable_m": "第 6 题线缆长度（米）",
    "rtt_us": "第 6 题往返时间（微秒）",
    "loss": "第 6 题每包丢失概率 p",
    "flows7": "第 7 题的流数 n",
    "uplinks7": "第 7 题的上行口数 m",
    "l3_pods": "第 8 题作业占用的 Llama 3 集群 pod 数（每个 pod 3072 张 GPU）",
    "l3_msg_gb": "第 8 题 all-to-all 中每张 GPU 发出的数据量（GB）",
    "design_gpus": "第 9 题要接的 GPU 数",
    "min_gbs": "第 9 题每卡经过最高一层时至少要分到的带宽（GB/s，单向）",
    "small10": "第 10 题拟合固定开销 o 所用的最大消息（字节，含）",
    "large10": "第 10 题拟合带宽 B 所用的最小消息（字节，含）",
    "s10": "第 10 题用两种模型预测的那一行的消息大小（字节）",
    "mtu10": "第 10 题换用的较小的路径 MTU（字节）",
}


def _rng(student_id):
    student_id = str(student_id).strip()
    if not student_id:
        raise ValueError("请先在“学号”单元格的引号里填写你的学号，再运行")
    digest = hashlib.sha256(f"{SET}|{student_id}".encode("utf-8")).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def _down(k, o):
    return math.floor(k * o / (1 + o) + 1e-9)


def student_data(student_id):
    """这个学号的数据（dict）。"""
    rng = _rng(student_id)
    radix = rng.choice([32, 48, 64])
    oversub = rng.choice([2, 3])  # 收敛比 2 时 k = 32、64 分不整，取整方向有区别
    cap2 = radix * _down(radix, oversub)          # 两层的容量（台主机）
    cap2_nb = radix * _down(radix, 1)             # 两层无阻塞的容量
    pod_oversub = rng.choice([1, 3, 7])
    cap3 = radix * _down(radix, pod_oversub) * _down(radix, 1)
    return {
        "radix": radix,
        "oversub": oversub,
        "nodes": rng.randint(max(4, cap2 // 32), cap2 // 8),
        "nic_gbps": rng.choice([100, 200, 400, 800]),
        "nodes_big": rng.randint(cap2_nb // 8 + 1, min(cap3 // 8, 8 * cap2_nb // 8)),
        "pod_oversub": pod_oversub,
        "nvlink_bidir": rng.choice([300, 600, 900, 1800]),
        "nics": rng.choice([4, 8]),
        "flows": rng.randint(4, 48),
        "uplinks": rng.choice([8, 16, 24, 32, 48]),
        "cable_m": rng.choice([5, 10, 30, 50, 100, 200, 300]),
        "rtt_us": rng.choice([4, 6, 8, 10, 15, 20]),
        "loss": rng.choice([1e-5, 3e-5, 1e-4, 3e-4, 1e-3]),
        "flows7": rng.randint(4, 10),
        "uplinks7": rng.choice([16, 24, 32]),
        "l3_pods": rng.choice([2, 3, 4, 5]),
        "l3_msg_gb": rng.choice([0.5, 1.5, 2, 4, 6, 12]),
        "design_gpus": rng.randint(1500, 40000),
        "min_gbs": rng.choice([5, 7, 10, 16, 20, 40]),
        "small10": rng.choice([64, 128, 256]),
        "large10": rng.choice([16384, 65536, 262144]),
        "s10": rng.choice([512, 1024, 2048, 4096]),
        "mtu10": rng.choice([256, 512]),
    }


def show_data(data):
    print("你的数据（data）：")
    for key, value in data.items():
        print(f"  data[{key!r}] = {value!r}    # {LABELS[key]}")
