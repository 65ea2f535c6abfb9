"""Collective communication: what moves, how long it takes, and how the algorithms do it (§9.6.1, §1, §2, §2.1,
§2.2).

:mod:`~clusterlab.communication.cost`
    the one value every communication model returns: :class:`~clusterlab.communication.cost.Cost`, its latency and
    bandwidth terms per link (``.latency``, ``.bandwidth``, ``.time``; costs add and scale).
:mod:`~clusterlab.communication.collectives`
    traffic per rank, nccl-tests bus-bandwidth factors, α-β time of every op under ring, naive, tree,
    halving-doubling and hierarchical algorithms, the algorithm chooser.
:mod:`~clusterlab.communication.schemes`
    three ways to all-reduce (every rank gathers from every other, through a root, ring) by total and
    busiest-rank bytes.
:mod:`~clusterlab.communication.ring`
    ring all-reduce on real numpy buffers with a compact trace; the chunked (pipelined) ring: closed form
    ``T(c)`` and its discrete-event simulation.
:mod:`~clusterlab.communication.chunking`
    the chunked ring's terms, its exact optimum :func:`~clusterlab.communication.chunking.best_chunks`, the flat
    bottom, closed form vs simulation.
:mod:`~clusterlab.communication.primitives`
    every collective step by step on real buffers (:func:`~clusterlab.communication.primitives.simulate`).
:mod:`~clusterlab.communication.trace`
    the generic trace those simulators return (steps of messages, states, bytes, α-β time).
:mod:`~clusterlab.communication.trees`
    NCCL's binary tree.
:mod:`~clusterlab.communication.algorithms`
    what a communication library computes before it moves a byte: two-level all-reduce phase by phase, tree
    vs ring at reduced tree efficiency, HCCL's NHR, algbw and busbw of a
    measurement, the bandwidth a ring sees with several NICs per node.
:mod:`~clusterlab.communication.overlap`
    overlapping communication with computation (§9.6.2): the step-time model, a two-stream timeline engine, bucketed
    data-parallel backward, bucket-size sweep, FSDP / ZeRO-3 prefetch depth, the tokens per rank above which the
    backward can hide its all-reduce (``overlap_threshold``).
:mod:`~clusterlab.communication.overlap_explore`
    the §9.6.2 explorer's model: a uniform model through both overlap simulators, one setting or a grid.
:mod:`~clusterlab.communication.compression`
    gradient compressors (fp32, bf16, int8, sign, top-k), error feedback, a compressed data-parallel training run,
    ZeRO++ volumes, DDP's all-reduce dtype.
:mod:`~clusterlab.communication.buffers`
    per-rank buffers shared by the simulators: input checks, chunk boundaries, byte counters.
"""

from __future__ import annotations

from . import (
    algorithms,
    buffers,
    chunking,
    collectives,
    compression,
    cost,
    overlap,
    overlap_explore,
    primitives,
    ring,
    schemes,
    trace,
    trees,
)

__all__ = [
    "algorithms",
    "buffers",
    "chunking",
    "collectives",
    "compression",
    "cost",
    "overlap",
    "overlap_explore",
    "primitives",
    "ring",
    "schemes",
    "trace",
    "trees",
]
