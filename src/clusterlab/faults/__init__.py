"""Faults and fault tolerance: checkpoints, failures at scale, recovery, determinism (§9.6.3, §9.6.4, §9.6.5, §5).

:mod:`~clusterlab.faults.checkpoint`
    bytes and time of a save per strategy, Young's and Daly's intervals, wasted time (first order and exact),
    Monte Carlo of a failing run.
:mod:`~clusterlab.faults.reliability`
    job MTBF of many components, sourced failure rates (:data:`~clusterlab.faults.reliability.FAILURE_DATA`),
    goodput.
:mod:`~clusterlab.faults.slowlink`
    one slow link in a synchronous ring, and the throughput of the job.
:mod:`~clusterlab.faults.incident`
    the time one failure costs: detect, locate, restart, load, catch up.
:mod:`~clusterlab.faults.recovery`
    resuming a real (small) training run from a checkpoint with and without each of its four pieces.
:mod:`~clusterlab.faults.determinism`
    float32 gradients summed in the ring simulator's, the NCCL tree's, pairwise and arrival order: bits, ULP
    distances, the exactly rounded sum, error bounds, run-to-run identity, float64 accumulation.
:mod:`~clusterlab.faults.divergence`
    two data-parallel training runs that differ only in the all-reduce order.
:mod:`~clusterlab.faults.summation`
    one element summed step by step (partial sums and their bits), one global batch summed under different
    data-parallel layouts.
"""

from __future__ import annotations

from . import checkpoint, determinism, divergence, incident, recovery, reliability, slowlink, summation

__all__ = ["checkpoint", "determinism", "divergence", "incident", "recovery", "reliability", "slowlink", "summation"]
