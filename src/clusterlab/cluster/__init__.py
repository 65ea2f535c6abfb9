"""The cluster: what a training step asks of it (§1, §9.6.1).

:mod:`~clusterlab.cluster.training`
    per-step collectives of DDP, ZeRO-1/2/3 and FSDP, and the size of a Llama-style model.
:mod:`~clusterlab.cluster.dataplane`
    the node-local shard cache in front of object storage (LRU / static, sequential / shuffled, per node) (§6).
:mod:`~clusterlab.cluster.loader`
    a prefetching data loader feeding the GPU, tokens consumed, pre-tokenised vs on-the-fly, data vs checkpoint
    storage load (§6).
:mod:`~clusterlab.cluster.network`
    sizing a leaf-spine / fat-tree from the switch radix (switches, cables, hops, bisection), rail wiring, NVLink vs
    NIC bandwidth of A100 / H100 nodes (§3).
:mod:`~clusterlab.cluster.ecmp`
    ECMP hash collisions of n flows on m uplinks: probability, idle links, busiest-link load (§3).
:mod:`~clusterlab.cluster.lossless`
    PFC headroom and go-back-N goodput under loss (§3).
:mod:`~clusterlab.cluster.parallel`
    per-step communication of each parallelism axis (DP/ZeRO, TP ± SP, PP, EP, CP) and the memory of model states
    (ZeRO stages) and activations per GPU (§4).
:mod:`~clusterlab.cluster.context`
    context parallelism two ways, ring attention and Llama 3's all-gather of K/V: bytes, cost, exposed time (§4).
:mod:`~clusterlab.cluster.cp_balance`
    the causal-attention work of each context-parallel rank under contiguous, zig-zag and striped splits (§9.6.5.1).
:mod:`~clusterlab.cluster.pipeline`
    the pipeline bubble under both conventions, interleaving, a simulated GPipe / 1F1B schedule (§4).
:mod:`~clusterlab.cluster.compute`
    FLOPs per token (6N + attention), step time with a stated overlap, MFU by PaLM's definition (§4).
:mod:`~clusterlab.cluster.planning`
    the 5D planner (§9.6.5.1): shapes, hardware levels, GEMM-shaped kernel times, hierarchical collectives priced as
    one :class:`~clusterlab.cluster.planning.Cost`, uneven stages, memory and step time, the option search,
    structured reasons, the book's scenarios (``planning.cases``) and the model against published runs
    (``planning.reality``), and the by-hand model of the planner exercise (``planning.handcalc``).
:mod:`~clusterlab.cluster.ledger`
    the whole-cluster ledger of one step: FLOPs, compute, exposed communication, bubble, data stall, MFU,
    tokens/s, days for a token budget, the bottleneck (§7).
"""

from __future__ import annotations

from . import (
    compute,
    context,
    cp_balance,
    dataplane,
    ecmp,
    ledger,
    loader,
    lossless,
    network,
    parallel,
    pipeline,
    planning,
    training,
)

__all__ = [
    "compute",
    "context",
    "cp_balance",
    "dataplane",
    "ecmp",
    "ledger",
    "loader",
    "lossless",
    "network",
    "parallel",
    "pipeline",
    "planning",
    "training",
]
