"""Sheet entries of the data plane: 集群篇 §6 (group ``data``)."""

from __future__ import annotations

from typing import Final

from ...cluster import dataplane, loader
from ._base import GPUS, PEAK, PSI, Formula, Symbol

FORMULAS: Final[tuple[Formula, ...]] = (
    Formula(
        "lru-shuffled", "data", "每轮打乱时 LRU 缓存的命中率（缓存占数据集 $c$）",
        r"h(c) = c + (1-c)\ln(1-c)", "比例",
        (Symbol("cache_fraction", "c", "缓存能放下的数据比例", "—", 0.0, 0.999999),),
        "clusterlab.cluster.dataplane.shuffled_lru_hit_rate",
        lambda cache_fraction: dataplane.shuffled_lru_hit_rate(cache_fraction),
        "{prf:ref}`thm-c06-shuffled`",
    ),
    Formula(
        "loader-bound", "data", "预取加载器下平均每步的下界（$W$ 个工作进程）",
        r"\bar t \ge \begin{cases} \max\left(G,\ \bar L/W\right), & W \ge 1 \\ G + \bar L, & W = 0 \end{cases}",
        "秒 s",
        (Symbol("mean_load_time", r"\bar L", "一个工作进程准备一批的平均时间", "s", 0.0, 100.0),
         Symbol("step_time", "G", "GPU 每步的计算时间", "s", 1e-3, 100.0),
         Symbol("workers", "W", "工作进程数（0：在训练进程里加载）", "—", 0, 64, True)),
        "clusterlab.cluster.loader.steady_step_time",
        lambda mean_load_time, step_time, workers: loader.steady_step_time(mean_load_time, step_time, workers),
        "{prf:ref}`def-c06-loader`",
        note="预取深度 $W\\cdot p$ 只藏住偶发的慢批次，补不上平均供给",
    ),
    Formula(
        "token-demand", "data", "稠密模型训练时每秒消耗的 token（6N 规则）",
        r"\text{tokens/s} = \frac{G\,P\cdot\text{MFU}}{6\Psi}", "token/s",
        (PSI, GPUS, PEAK, Symbol("mfu", r"\text{MFU}", "模型 FLOPs 利用率", "—", 0.01, 1.0)),
        "clusterlab.cluster.loader.token_rate",
        lambda params, gpus, peak_flops, mfu: loader.token_rate(params, gpus, peak_flops, mfu),
        "{ref}`§6 <sec-c06>`",
        note="即 MFU 的定义 {eq}`eq-c08-mfu` 取 $F_\\text{tok} = 6\\Psi$、对吞吐解出",
    ),
)
