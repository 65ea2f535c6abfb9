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
"""

from __future__ import annotations

from . import dataplane, ecmp, loader, lossless, network, training

__all__ = ["dataplane", "ecmp", "loader", "lossless", "network", "training"]
