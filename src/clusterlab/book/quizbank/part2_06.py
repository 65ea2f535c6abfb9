"""Self-check questions for 集群篇 §6 (``book/part2/06-data-plane.ipynb``): storage and the data plane.

Given data are the module constants below; every key comes from :mod:`clusterlab.cluster.dataplane`,
:mod:`clusterlab.cluster.loader` or :mod:`clusterlab.faults.checkpoint`. Distractors are the slips readers make:
taking the LRU hit rate for the cache fraction, believing the original text's "near 100 % from epoch 2", the
fetch volume of the wrong policy, trusting prefetch to fix a mean deficit, multiplying ``num_workers`` and
``prefetch_factor`` the wrong way, dropping the 6 (or the GPU count) of the 6N rule, and mixing GB with GiB.
Most numbers differ from the chapter's, so the questions test transfer, not recall.
"""

from __future__ import annotations

import math
from typing import Final

from ... import specs, units
from ...cluster import dataplane, loader
from ..quiz import Choice, Numeric, choice, numeric

__all__ = [
    "CACHE_FRACTION",
    "GPUS",
    "LOAD_TIME",
    "MFU",
    "PARAMS",
    "PEAK",
    "SAVE_TIME",
    "STATE_BYTES",
    "STATIC_CACHE",
    "STATIC_DATA",
    "STEP_TIME",
    "c06_questions",
]

CACHE_FRACTION: Final = 0.4  # LRU cache holds 40 % of the node's data, shuffled every epoch
STATIC_DATA: Final = 3e12  # a node reads 3 TB per epoch
STATIC_CACHE: Final = 1.2e12  # with a 1.2 TB static cache
SHARD: Final = 1e9  # 1 GB shards
LOAD_TIME: Final = 0.9  # s for one worker to prepare one batch
STEP_TIME: Final = 0.25  # s of GPU compute per step
PARAMS: Final = 13e9  # a 13B dense model
GPUS: Final = 8  # one node
PEAK: Final = specs.ACCELERATORS["A100 80GB SXM"].peak_bf16  # A100 BF16 dense peak, FLOP/s
MFU: Final = 0.4
STATE_BYTES: Final = 70e9 * 16  # 70B model, 16 bytes per parameter of training state
SAVE_TIME: Final = 60.0  # the checkpoint must be written within 60 s

Question = Numeric | Choice


def _pct(x: float) -> float:
    return 100.0 * x


def c06_questions() -> list[Question]:
    """Self-check of §6: LRU under shuffling, a static cache's fetch volume, workers needed, batches in flight,
    tokens per second, checkpoint burst bandwidth, sequential LRU, and what pinned memory does."""
    h = dataplane.shuffled_lru_hit_rate(CACHE_FRACTION)
    q_lru = numeric(
        f"一个节点每个 epoch 读同样一批分片，顺序每轮重新打乱；本地 LRU 缓存放得下其中的 "
        f"{units.fmt_num(_pct(CACHE_FRACTION))}%。分片很多时，第 2 个 epoch 起的命中率约是百分之几？",
        _pct(h),
        unit="%",
        wrong=(
            (_pct(CACHE_FRACTION), "这是静态缓存（不淘汰）的命中率 $c$；LRU 在打乱顺序下更差。"),
            (100.0, "这是缓存放得下全部数据时的情形；这里只放得下一部分。"),
            (_pct(CACHE_FRACTION**2), "$c^2$ 不是这个问题的答案；从上一轮到这一轮之间见过的不同分片数决定是否命中。"),
        ),
        explanation=f"$h(c) = c + (1-c)\\ln(1-c)$ = {units.fmt_num(CACHE_FRACTION)} + "
        f"{units.fmt_num(1 - CACHE_FRACTION)} × ln {units.fmt_num(1 - CACHE_FRACTION)} ≈ {units.fmt_num(_pct(h))}%。",
        transfer=True,
    )

    n = dataplane.shard_count(STATIC_DATA, SHARD)
    cap = dataplane.cache_capacity(STATIC_CACHE, SHARD)
    static = dataplane.simulate_shard_cache(n, cap, 2, order="shuffled", policy="static", shard_bytes=SHARD)
    lru_seq = dataplane.simulate_shard_cache(n, cap, 2, order="sequential", shard_bytes=SHARD)
    fetched_tb = units.bytes_to(float(static.fetched_bytes[1]), "TB")
    q_static = numeric(
        f"一个节点每个 epoch 读 {units.fmt_num(STATIC_DATA / 1e12)} TB（1 GB 的分片），本地是 "
        f"{units.fmt_num(STATIC_CACHE / 1e12)} TB 的**静态**缓存（先放进来的分片一直留着）。"
        "第 2 个 epoch 要从对象存储取回多少 TB？",
        fetched_tb,
        unit="TB",
        wrong=(
            (units.bytes_to(float(lru_seq.fetched_bytes[1]), "TB"),
             "这是顺序读的 LRU：每次都未命中，整份数据重取一遍。"),
            (0.0, "缓存放不下全部数据，没被缓存的分片每轮都要重取。"),
            (STATIC_CACHE / 1e12, "这是缓存命中的部分；题目问的是未命中、要重取的部分。"),
            (units.bytes_to(STATIC_DATA * (1 - dataplane.shuffled_lru_hit_rate(STATIC_CACHE / STATIC_DATA)), "TB"),
             "你套用了 LRU 在打乱顺序下的命中率 $h(c)$；静态缓存不淘汰，命中率就是 $c$。"),
        ),
        explanation=f"命中率 $c$ = {units.fmt_num(cap)}/{units.fmt_num(n)}，未命中的 "
        f"{units.fmt_num(n - cap)} 个分片每轮都要重取，共 {units.fmt_num(fetched_tb)} TB。",
        transfer=True,
    )

    need = math.ceil(LOAD_TIME / STEP_TIME)
    q_workers = numeric(
        f"一个工作进程准备一批要 {units.fmt_num(LOAD_TIME)} s，GPU 每步算 {units.fmt_num(STEP_TIME)} s。"
        "长期看 GPU 不等数据，至少要几个工作进程（`num_workers`）？",
        float(need),
        rel_tol=0.0,
        abs_tol=0.01,
        wrong=(
            (1.0, "预取（`prefetch_factor`）只能藏住偶发的慢批次，补不上平均供给的不足。"),
            (float(need - 1),
             f"{need - 1} 个进程每 {units.fmt_num(LOAD_TIME / (need - 1))} s 才交出一批，仍慢于 GPU。"),
            (LOAD_TIME / STEP_TIME, "进程数只能取整数，而且要向上取整。"),
        ),
        explanation=f"每步至少 $\\max(G, \\bar L/W)$；要 $\\bar L/W \\le G$，$W \\ge$ {units.fmt_num(LOAD_TIME)}/"
        f"{units.fmt_num(STEP_TIME)} = {units.fmt_num(LOAD_TIME / STEP_TIME)}，取 {need}。"
        f"核对：{need} 个进程时下界是 {units.fmt_num(loader.steady_step_time(LOAD_TIME, STEP_TIME, need))} s。",
        transfer=True,
    )

    workers, factor = 6, 3
    q_depth = numeric(
        f"`DataLoader(num_workers={workers}, prefetch_factor={factor})` 最多同时有多少个批次在途"
        "（已派发、尚未被训练循环取走）？",
        float(workers * factor),
        rel_tol=0.0,
        abs_tol=0.01,
        wrong=(
            (float(factor), "`prefetch_factor` 是**每个**工作进程提前准备的批次数。"),
            (float(workers + factor), "是乘积，不是和。"),
            (float(workers), "每个进程不止准备一批。"),
        ),
        explanation=f"PyTorch 文档：每个工作进程提前加载 `prefetch_factor` 批，合计 {workers} × {factor} = "
        f"{workers * factor} 批。",
        transfer=True,
    )

    tps = loader.token_rate(PARAMS, GPUS, PEAK, MFU)
    q_tokens = numeric(
        f"{units.fmt_num(PARAMS / 1e9)}B 的稠密模型在一台 {GPUS} 卡 A100 节点上训练（BF16 稠密峰值 "
        f"{units.fmt_num(PEAK / 1e12)} TFLOP/s，MFU {units.fmt_num(_pct(MFU))}%）。"
        "按 6N 规则，这台节点每秒消耗多少 token？",
        tps,
        unit="token/s",
        wrong=(
            (tps * 6, "漏了 6N 里的 6：每个 token 约 6N 次浮点运算。"),
            (tps * 3, "只算了前向的 2N；反向还要约 4N。"),
            (tps / GPUS, "这是一张卡的；题目问整台节点。"),
        ),
        explanation=f"tokens/s = {GPUS} × {units.fmt_num(PEAK)} × {units.fmt_num(MFU)} / (6 × "
        f"{units.fmt_num(PARAMS)}) ≈ {units.fmt_num(tps)}。预分词的分片读这么多 token 只需几十 KB/s。",
    )

    burst = STATE_BYTES / SAVE_TIME
    q_burst = numeric(
        f"70B 模型的训练状态按每参数 16 字节计，要在 {units.fmt_num(SAVE_TIME)} s 内写完一份 checkpoint。"
        "存储的聚合写带宽至少要多少 GB/s（GB = 10⁹ B）？",
        burst / 1e9,
        unit="GB/s",
        wrong=(
            (burst / 2**30, "这是 GiB/s；题目用 GB = 10⁹ B。"),
            (STATE_BYTES / 3600 / 1e9, "这是把一份 checkpoint 摊到一小时里的平均带宽，不是保存时的峰值。"),
            (70e9 * 2 / SAVE_TIME / 1e9, "只算了 bf16 权重；checkpoint 要存完整的训练状态（含优化器状态）。"),
        ),
        explanation=f"{units.fmt_num(STATE_BYTES / 1e9)} GB ÷ {units.fmt_num(SAVE_TIME)} s ≈ "
        f"{units.fmt_num(burst / 1e9)} GB/s，比读训练数据的流量高好几个数量级。",
        transfer=True,
    )

    q_seq = choice(
        "数据集有 3 TB，节点的 LRU 缓存 2 TB，每个 epoch 按**相同顺序**读全部数据。第 2 个 epoch 起的命中率是？",
        [
            ("约 67%：缓存放得下三分之二", False, "那是静态缓存的命中率；LRU 在循环访问下表现完全不同。"),
            ("接近 100%：第 1 个 epoch 已经把数据拉到本地", False, "缓存放不下全部数据，读过的会被淘汰。"),
            ("0%：每个分片都在下次被读之前被淘汰", True,
             "对：LRU 只留最近的 2 TB，而同一个分片要隔 3 TB 的读取才会再被读到。"),
            ("约 30%：套用 LRU 的命中率 $h(c) = c + (1-c)\\ln(1-c)$，$c = 2/3$", False,
             "$h(c)$ 是每轮**重新打乱**顺序时的结果；按相同顺序循环读，没有任何分片能活到被再次读取。"),
        ],
        explanation="循环访问是 LRU 最坏的情形：缓存比循环小一点点，命中率就从 100% 掉到 0。",
    )
    q_pin = choice(
        "`DataLoader(pin_memory=True)` 配合 `tensor.to('cuda', non_blocking=True)`，主要带来什么？",
        [
            ("PCIe 带宽翻倍", False, "带宽不变；变的是拷贝能否与计算重叠。"),
            ("批次放在锁页内存里，GPU 可直接 DMA，主机到显存的拷贝能异步进行、与计算重叠", True,
             "对：可换页内存要先由驱动拷进临时的锁页缓冲区。"),
            ("数据不再经过主机内存，直接从 SSD 进显存", False, "那是另一类技术（如 GPUDirect Storage）。"),
            ("锁页内存越多越好，没有代价", False, "锁页内存不能换出，占多了会挤压主机上的其他进程。"),
        ],
        explanation="GPU 的 DMA 引擎只能从锁页（page-locked）内存读数据。批次若在可换页内存里，"
        "驱动要先把它拷进一块临时的锁页缓冲区，再发起传输，这一步是同步的；"
        "`pin_memory=True` 让工作进程直接把批次放进锁页内存，"
        "`non_blocking=True` 再把拷贝排进 CUDA 流，与上一步的计算重叠。PCIe 的带宽并没有变，省下的是等待。",
    )
    return [q_lru, q_static, q_workers, q_depth, q_tokens, q_burst, q_seq, q_pin]
