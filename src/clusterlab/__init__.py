"""clusterlab — the solver package of the cluster-training teaching kit.

Compute modules are pure numpy and speak SI units (bytes, seconds, bytes/s):
``units`` (constants, conversions, validation), ``collectives`` (traffic, busbw, α-β cost models and the
algorithm chooser), ``ring`` (ring all-reduce simulator; chunked-ring model and its discrete-event simulation),
``primitives`` (step-by-step simulators of every collective), ``algorithms`` (cost breakdowns for the NCCL/HCCL
section), ``checkpoint`` (save plans, Young/Daly, wasted time, Monte Carlo), ``reliability`` (MTBF, sourced failure
rates, slow links, goodput). Plotting, animation and widgets live in :mod:`clusterlab.viz` only; quiz specs in
:mod:`clusterlab.quiz` and :mod:`clusterlab.quizbank`; tables in :mod:`clusterlab.tables`; notebook helpers in
:mod:`clusterlab.book`.
"""

from . import checkpoint, collectives, primitives, reliability, ring, units

__all__ = ["checkpoint", "collectives", "primitives", "reliability", "ring", "units"]
__version__ = "0.1.0"
