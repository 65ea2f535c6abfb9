"""clusterlab — the solver package of the cluster-training teaching kit.

Three layers, arrows pointing one way: **compute** (pure numpy, SI units, no plotting) ← **presentation**
(:mod:`~clusterlab.viz`, :mod:`~clusterlab.book`) ← **content** (the book's notebooks and exercises).

Compute
    :mod:`~clusterlab.units` — SI constants and conversions, formatting for prose.
    :mod:`~clusterlab.validate` — the argument checks every compute function uses (positive, non_negative,
    int_in_range, fraction, choice).
    :mod:`~clusterlab.communication` — collective communication:
    ``collectives`` (traffic, busbw, α-β time per algorithm, chooser), ``ring`` (ring all-reduce simulator; chunked
    ring model and its discrete-event simulation), ``chunking`` (terms and exact optimum of the chunked ring),
    ``primitives`` (every collective step by step), ``trace`` (the generic trace), ``trees`` (NCCL's binary tree),
    ``algorithms`` (two-level all-reduce, tree vs ring, NHR, algbw/busbw of a measurement), ``buffers`` (per-rank
    buffers, chunk bounds, byte counters).
    :mod:`~clusterlab.cluster` — ``training`` (per-step traffic of DDP / ZeRO / FSDP, model sizes).
    :mod:`~clusterlab.faults` — ``checkpoint`` (save plans, Young/Daly, waste, Monte Carlo), ``reliability`` (MTBF,
    sourced failure rates, goodput), ``slowlink`` (one slow link in a ring), ``incident`` (the time one failure
    costs), ``recovery`` (resuming a real training run from a checkpoint).
Presentation
    :mod:`~clusterlab.viz` — every figure, animation and widget (the only place that imports matplotlib).
    :mod:`~clusterlab.book` — ``publish`` (glue for the prose), ``quiz`` / ``questions`` (self-check quizzes),
    ``quizbank`` (one bank per section), ``tables`` (rows of strings), ``labels`` (the Chinese names).

Units (:mod:`~clusterlab.units`): sizes in bytes (``KB``, ``MB``, ``GB``, ``TB`` = 1e3 … 1e12; ``KiB``, ``MiB``,
``GiB`` = 2¹⁰ … 2³⁰), times in seconds (``MINUTE`` = 60, ``HOUR`` = 3600, ``DAY`` = 86 400), bandwidths in bytes per
second per direction (``gbit_per_s``, ``gbyte_per_s``, :class:`~clusterlab.units.Link`), rates of failures per
component-hour where a source quotes them so.

Modules of the former flat layout (``clusterlab.communication.collectives``, ``clusterlab.faults.checkpoint``, …)
remain reachable as
attributes of this package for one release, with a ``DeprecationWarning`` naming the new place.
"""

from __future__ import annotations

import importlib
import warnings
from types import ModuleType
from typing import Final

from . import cluster, communication, faults, units, validate

__all__ = ["cluster", "communication", "faults", "units", "validate"]
__version__ = "0.1.0"

#: former flat module name → its module now
_MOVED: Final = {
    "collectives": "clusterlab.communication.collectives",
    "ring": "clusterlab.communication.ring",
    "primitives": "clusterlab.communication.primitives",
    "algorithms": "clusterlab.communication.algorithms",
    "chunking": "clusterlab.communication.chunking",
    "training": "clusterlab.cluster.training",
    "checkpoint": "clusterlab.faults.checkpoint",
    "reliability": "clusterlab.faults.reliability",
    "recovery": "clusterlab.faults.recovery",
    "quiz": "clusterlab.book.quiz",
    "quizbank": "clusterlab.book.quizbank",
    "tables": "clusterlab.book.tables",
}


def __getattr__(name: str) -> ModuleType:
    target = _MOVED.get(name)
    if target is None:
        raise AttributeError(f"module 'clusterlab' has no attribute {name!r}")
    warnings.warn(f"clusterlab.{name} has moved to {target}; import it from there", DeprecationWarning, stacklevel=2)
    return importlib.import_module(target)
