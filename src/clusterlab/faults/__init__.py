"""Faults and fault tolerance: checkpoints, failures at scale, recovery (§9.6.3, §9.6.4, §5).

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
"""

from __future__ import annotations

from . import checkpoint, incident, recovery, reliability, slowlink

__all__ = ["checkpoint", "incident", "recovery", "reliability", "slowlink"]
