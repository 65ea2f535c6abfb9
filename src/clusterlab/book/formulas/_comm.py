"""Sheet entries of collective communication: 集群篇 §1–§2.3 and §9.6.1–§9.6.2 (group ``comm``)."""

from __future__ import annotations

from typing import Final

from ...cluster import training
from ...communication import algorithms, chunking, collectives, compression, overlap, schemes
from ._base import ALPHA, BETA, PSI, Formula, N, S, Symbol

_A_POS = Symbol("latency", r"\alpha", "每步延迟", "s", 1e-9, 1e-3)
_N_TREE = Symbol("ranks", "N", "rank 数", "—", 3, 4096, True)
_M_MSG = Symbol("size", "m", "消息大小", "B", 0.0, 1e12)
_D = Symbol("hidden", "d", "隐藏维", "—", 64, 65536, True)

FORMULAS: Final[tuple[Formula, ...]] = (
    # ---------------------------------------------------------------- α-β model, volumes (§1, §2, §9.6.1)
    Formula(
        "p2p-time", "comm", "一条消息的 α-β 时间", r"t = \alpha + \frac{m}{\beta}", "秒 s",
        (_M_MSG, ALPHA, BETA), "clusterlab.communication.collectives.alpha_beta_time",
        lambda size, latency, bandwidth: collectives.alpha_beta_time("send_recv", size, 2, latency, bandwidth),
        "{prf:ref}`def-alpha-beta`",
    ),
    Formula(
        "msg-crossover", "comm", "单条消息延迟与传输相等的大小", r"n^* = \alpha\beta", "字节 B",
        (ALPHA, BETA), "clusterlab.communication.collectives.crossover_size",
        lambda latency, bandwidth: collectives.crossover_size(latency, bandwidth),
        "{ref}`§9.6.1 <sec-961-bucketing>`",
    ),
    Formula(
        "naive-time", "comm", "经过一个根的全归约（朴素方案）",
        r"t_\text{naive} = 2\alpha + \frac{2S(N-1)}{\beta}", "秒 s",
        (S, N, ALPHA, BETA), "clusterlab.communication.collectives.alpha_beta_time",
        lambda size, ranks, latency, bandwidth: collectives.alpha_beta_time(
            "all_reduce", size, ranks, latency, bandwidth, "naive"),
        "{ref}`§1 <sec-c01-naive>`",
    ),
    Formula(
        "ar-send", "comm", "环形全归约：每个 rank 发送", r"V_\text{AR} = \frac{2S(N-1)}{N}", "字节 B",
        (S, N), "clusterlab.communication.collectives.send_volume",
        lambda size, ranks: collectives.send_volume("all_reduce", size, ranks),
        "{ref}`§2 <sec-c02-volume>`",
    ),
    Formula(
        "rs-ag-send", "comm", "归约-散播与全收集：每个 rank 发送（全收集的 $S$ 为输出）",
        r"V_\text{RS} = V_\text{AG} = \frac{S(N-1)}{N}", "字节 B",
        (S, N), "clusterlab.communication.collectives.send_volume",
        lambda size, ranks: collectives.send_volume("reduce_scatter", size, ranks),
        "{ref}`§9.6.1 <sec-961-identities>`",
        note="两者之和即全归约的发送量：全归约 = 归约-散播 + 全收集",
    ),
    Formula(
        "ring-total", "comm", "环或经过根：一次全归约在所有链路上合计", r"V_\text{总} = 2(N-1)S", "字节 B",
        (S, N), "clusterlab.communication.schemes.all_reduce_scheme_volume",
        lambda size, ranks: schemes.all_reduce_scheme_volume("ring", size, ranks).total,
        "{ref}`§9.6.1 <sec-961-ring-bound>`",
    ),
    Formula(
        "direct-total", "comm", "人人收集：一次全归约在所有链路上合计", r"V_\text{总} = N(N-1)S", "字节 B",
        (S, N), "clusterlab.communication.schemes.all_reduce_scheme_volume",
        lambda size, ranks: schemes.all_reduce_scheme_volume("direct", size, ranks).total,
        "{ref}`§9.6.1 <sec-961-ring-bound>`",
    ),
    Formula(
        "ar-ring-time", "comm", "环形全归约的 α-β 时间",
        r"T_\text{ring} = 2(N-1)\alpha + \frac{2S(N-1)}{N\beta}", "秒 s",
        (S, N, ALPHA, BETA), "clusterlab.communication.collectives.alpha_beta_time",
        lambda size, ranks, latency, bandwidth: collectives.alpha_beta_time(
            "all_reduce", size, ranks, latency, bandwidth, "ring"),
        "{ref}`§1 <sec-c01-ring>`",
    ),
    Formula(
        "rs-ag-time", "comm", "环形归约-散播或全收集的 α-β 时间",
        r"T = (N-1)\alpha + \frac{S(N-1)}{N\beta}", "秒 s",
        (S, N, ALPHA, BETA), "clusterlab.communication.collectives.alpha_beta_time",
        lambda size, ranks, latency, bandwidth: collectives.alpha_beta_time(
            "all_gather", size, ranks, latency, bandwidth, "ring"),
        "{ref}`勘误 <erratum-961-fsdp-layer>`",
    ),
    Formula(
        "bucketed", "comm", "梯度分成 $k$ 个桶依次全归约",
        r"T_k = 2k(N-1)\alpha + \frac{2S(N-1)}{N\beta}", "秒 s",
        (S, Symbol("buckets", "k", "桶数", "—", 1, 100_000, True), N, ALPHA, BETA),
        "clusterlab.communication.collectives.bucketed_time",
        lambda size, buckets, ranks, latency, bandwidth: collectives.bucketed_time(
            "all_reduce", size, buckets, ranks, latency, bandwidth),
        "{ref}`§9.6.1 <sec-961-bucketing>`",
    ),
    Formula(
        "multi-nic", "comm", "跨节点的环用上每节点 $k$ 块网卡时看到的带宽",
        r"\beta = \min\left(\beta_\text{in},\ k\,\beta_\text{NIC}\right)", "B/s",
        (Symbol("intra_bandwidth", r"\beta_\text{in}", "节点内单方向带宽", "B/s", 1e9, 1e12),
         Symbol("nic_bandwidth", r"\beta_\text{NIC}", "一块网卡的单方向带宽", "B/s", 1e9, 1e11),
         Symbol("nics", "k", "每节点用上的网卡数", "—", 1, 64, True)),
        "clusterlab.communication.algorithms.multi_nic_bandwidth",
        lambda intra_bandwidth, nic_bandwidth, nics: algorithms.multi_nic_bandwidth(
            intra_bandwidth, nic_bandwidth, nics),
        "{ref}`勘误 <erratum-961-fsdp-nodes>`",
    ),
    Formula(
        "swiglu-width", "comm", "Llama 的 SwiGLU 前馈宽度",
        r"d_\text{ff} = 256\left\lceil \frac{\lfloor 8d/3 \rfloor}{256} \right\rceil", "—",
        (_D,), "clusterlab.cluster.training.swiglu_hidden",
        lambda hidden: training.swiglu_hidden(hidden),
        "{ref}`勘误 <erratum-961-fsdp-layer>`",
    ),
    Formula(
        "layer-params", "comm", "Llama 式解码层的参数（不含归一化）",
        r"P_\text{层} = 4d^2 + 3\,d\,d_\text{ff}", "个",
        (_D, Symbol("ffn_hidden", r"d_\text{ff}", "前馈宽度", "—", 64, 262144, True)),
        "clusterlab.cluster.training.layer_params",
        lambda hidden, ffn_hidden: training.layer_params(hidden, ffn_hidden),
        "{ref}`勘误 <erratum-961-fsdp-layer>`",
    ),
    Formula(
        "busbw", "comm", "nccl-tests 的全归约 busbw（实测 $t$）",
        r"\text{busbw} = \frac{S}{t}\cdot\frac{2(N-1)}{N}", "B/s",
        (S, N, Symbol("time", "t", "实测耗时", "s", 1e-6, 1e3)),
        "clusterlab.communication.algorithms.measured_bandwidth",
        lambda size, ranks, time: algorithms.measured_bandwidth("all_reduce", size, ranks, time).busbw,
        "{ref}`§2 <sec-c02-busbw>`",
    ),
    # ---------------------------------------------------------------- chunking (§2.1)
    Formula(
        "chain-time", "comm", "一条消息经 $h$ 段先存后发、切成 $c$ 块",
        r"T_\text{chain}(c) = (c + h - 1)\left(\alpha + \frac{S'}{c\beta}\right)", "秒 s",
        (Symbol("size", "S'", "整条消息", "B", 0.0, 1e12), Symbol("chunks", "c", "块数", "—", 1, 4096, True),
         ALPHA, BETA, Symbol("stages", "h", "段数", "—", 1, 8, True)),
        "clusterlab.communication.chunking.chain_time",
        lambda size, chunks, latency, bandwidth, stages: chunking.chain_time(
            size, chunks, latency, bandwidth, stages=stages),
        "{ref}`§2.1 <sec-c021-model>`",
    ),
    Formula(
        "chunked-ring", "comm",
        r"分 $c$ 块、每跳 $h$ 段的环形全归约，$K = 2(N-1)\max(c,h) + \min(c,h) - 1$",
        r"T(c) = K\left(\alpha + \tfrac{S}{Nc\beta}\right)", "秒 s",
        (S, Symbol("ranks", "N", "rank 数", "—", 2, 1024, True),
         Symbol("chunks", "c", "块数", "—", 1, 4096, True), ALPHA, BETA,
         Symbol("stages", "h", "相邻两卡之间的段数", "—", 1, 8, True)),
        "clusterlab.communication.chunking.pipelined_terms",
        lambda size, ranks, chunks, latency, bandwidth, stages: chunking.pipelined_terms(
            size, ranks, chunks, latency, bandwidth, stages=stages).time,
        "{prf:ref}`thm-c021-pipelined`",
        note="$h = 1$ 时即不分段的 $2(N-1)(c\\alpha + S/(N\\beta))$",
    ),
    Formula(
        "chunk-sweet", "comm", "分块的甜点：$c \\ge h$ 一支的最优块数",
        r"c^* = \max\left(h,\ \sqrt{\frac{(h-1)S}{2N(N-1)\alpha\beta}}\right)", "块",
        (S, Symbol("ranks", "N", "rank 数", "—", 2, 1024, True), _A_POS, BETA,
         Symbol("stages", "h", "相邻两卡之间的段数", "—", 1, 8, True)),
        "clusterlab.communication.chunking.best_chunks",
        lambda size, ranks, latency, bandwidth, stages: chunking.best_chunks(
            size, ranks, latency, bandwidth, stages=stages).sweet_spot,
        "{ref}`§2.1 <sec-c021-optimum>`",
        note="最好的整数块数在它两侧的整数里挑（`best_chunks.chunks`），消息很小时可能少于 $h$",
    ),
    # ---------------------------------------------------------------- algorithms (§2.2)
    Formula(
        "ar-tree-time", "comm", "双二叉树全归约（流水线）",
        r"T_\text{tree} = 2\lceil\log_2 N\rceil\alpha + \frac{2S}{\beta}", "秒 s",
        (S, _N_TREE, ALPHA, BETA), "clusterlab.communication.collectives.alpha_beta_time",
        lambda size, ranks, latency, bandwidth: collectives.alpha_beta_time(
            "all_reduce", size, ranks, latency, bandwidth, "tree"),
        "{ref}`§2.2 <sec-c022-tree>`",
    ),
    Formula(
        "ar-hd-time", "comm", r"递归减半-倍增全归约，$p = 2^{\lfloor\log_2 N\rfloor}$",
        r"T_\text{HD} = 2\log_2 p\,\alpha + \frac{2S(p-1)}{p\beta} + [N \ne p]\left(2\alpha + \frac{2S}{\beta}\right)",
        "秒 s",
        (S, N, ALPHA, BETA), "clusterlab.communication.collectives.alpha_beta_time",
        lambda size, ranks, latency, bandwidth: collectives.alpha_beta_time(
            "all_reduce", size, ranks, latency, bandwidth, "halving_doubling"),
        "{ref}`§2.2 <sec-c022-hd>`",
        note="$[N \\ne p]$ 在 $N$ 不是 2 的幂时为 1：多出的 $N-p$ 个 rank 先交出数据、最后取回结果",
    ),
    Formula(
        "tree-ring-crossover", "comm", "树与环的分界：小于它树更快",
        r"S^* = N\alpha\beta\,(N - 1 - \lceil\log_2 N\rceil)", "字节 B",
        (Symbol("ranks", "N", "rank 数", "—", 4, 4096, True), ALPHA, BETA),
        "clusterlab.communication.collectives.tree_ring_crossover",
        lambda ranks, latency, bandwidth: collectives.tree_ring_crossover(ranks, latency, bandwidth),
        "{ref}`§2.2 <sec-c022-crossover>`",
    ),
    Formula(
        "tree-crossover-e", "comm", "树只达到 $e\\beta$ 时的分界",
        r"S^*(e) = \frac{\big(2(N-1) - 2\lceil\log_2 N\rceil\big)\alpha\beta}{2/e - 2(N-1)/N}", "字节 B",
        (N, ALPHA, BETA, Symbol("tree_efficiency", "e", "树的带宽折扣", "—", 0.05, 1.0)),
        "clusterlab.communication.algorithms.tree_ring_crossover_at",
        lambda ranks, latency, bandwidth, tree_efficiency: algorithms.tree_ring_crossover_at(
            ranks, latency, bandwidth, tree_efficiency=tree_efficiency),
        "{ref}`§2.2 <sec-c022-crossover>`",
    ),
    Formula(
        "hier-time", "comm", "两级全归约：节点内 $G$ 卡、$M$ 个节点",
        r"T = 2(G-1)\left(\alpha_\text{in} + \tfrac{S}{G\beta_\text{in}}\right)"
        r" + 2(M-1)\left(\alpha + \tfrac{S}{GM\beta}\right)", "秒 s",
        (S, Symbol("gpus", "G", "每节点 rank 数", "—", 2, 16, True),
         Symbol("nodes", "M", "节点数", "—", 2, 256, True), ALPHA, BETA,
         Symbol("intra_latency", r"\alpha_\text{in}", "节点内每步延迟", "s", 0.0, 1e-4),
         Symbol("intra_bandwidth", r"\beta_\text{in}", "节点内单方向带宽", "B/s", 1e9, 1e12)),
        "clusterlab.communication.collectives.alpha_beta_time",
        lambda size, gpus, nodes, latency, bandwidth, intra_latency, intra_bandwidth: collectives.alpha_beta_time(
            "all_reduce", size, gpus * nodes, latency, bandwidth, "hierarchical", ranks_per_node=gpus,
            intra_latency=intra_latency, intra_bandwidth=intra_bandwidth),
        "{ref}`§2.2 <sec-c022-hier>`",
    ),
    Formula(
        "nhr-time", "comm", "HCCL 的 NHR 全归约（任意 $N$）",
        r"T_\text{NHR} = 2\lceil\log_2 N\rceil\alpha + \frac{2S(N-1)}{N\beta}", "秒 s",
        (S, N, ALPHA, BETA), "clusterlab.communication.algorithms.nhr_all_reduce_time",
        lambda size, ranks, latency, bandwidth: algorithms.nhr_all_reduce_time(size, ranks, latency, bandwidth),
        "{ref}`§2.2 <sec-c022-libs>`",
    ),
    # ---------------------------------------------------------------- overlap and compression (§9.6.2)
    Formula(
        "overlap-step", "comm", "重叠率 $r$ 时的一步",
        r"t_\text{step} = t_c + t_m - \min(r\,t_m,\ t_c)", "秒 s",
        (Symbol("compute_time", "t_c", "计算时间", "s", 0.0, 1e3),
         Symbol("comm_time", "t_m", "通信时间", "s", 0.0, 1e3),
         Symbol("overlap_ratio", "r", "被藏起的通信比例", "—", 0.0, 1.0)),
        "clusterlab.communication.overlap.overlap_step",
        lambda compute_time, comm_time, overlap_ratio: overlap.overlap_step(
            compute_time, comm_time, overlap_ratio).step,
        "{prf:ref}`def-962-overlap`",
        note="{ref}`§4 <sec-c04-compute>` 的步时 $T_c + C - \\min(\\rho C, T_c)$ 是同一个式子",
    ),
    Formula(
        "overlap-ratio", "comm", "由暴露时间 $e$ 反推重叠率",
        r"r = 1 - \frac{e}{t_m}", "比例",
        (Symbol("compute_time", "t_c", "计算时间", "s", 0.0, 1e3),
         Symbol("comm_time", "t_m", "通信时间", "s", 1e-3, 1e3),
         Symbol("exposed_time", "e", "暴露的通信时间", "s", 0.0, 1e3)),
        "clusterlab.communication.overlap.overlap_from_exposed",
        lambda compute_time, comm_time, exposed_time: overlap.overlap_from_exposed(
            compute_time, comm_time, exposed_time).ratio,
        "{prf:ref}`def-962-overlap`",
        valid=lambda compute_time, comm_time, exposed_time: exposed_time <= comm_time
        and comm_time - exposed_time <= compute_time,
    ),
    Formula(
        "zeropp", "comm", "ZeRO++ 三项全开：每个 rank 每步跨节点发送，$M = 2\\Psi$",
        r"V_\text{跨节点} = \underbrace{0.5M}_\text{qwZ} + \underbrace{0}_\text{hpZ} + \underbrace{0.25M}_\text{qgZ}",
        "字节 B",
        (PSI,), "clusterlab.communication.compression.zeropp_volume",
        lambda params: compression.zeropp_volume(params, 8, qwz=True, hpz=True, qgz=True).cross_node,
        "{ref}`§9.6.2 <sec-962-zeropp>`",
        note="ZeRO-3 是 $3M$；按论文的记账，不计环的 $(N-1)/N$",
    ),
)
