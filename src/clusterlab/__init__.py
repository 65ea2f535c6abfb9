"""clusterlab — the solver package of the cluster-training teaching kit.

Compute modules (``units``, ``collectives``, ``ring``, …) are pure numpy and speak SI units (bytes,
seconds, bytes/s). Plotting, animation and widgets live in :mod:`clusterlab.viz` only; quiz specs in
:mod:`clusterlab.quiz`; notebook helpers in :mod:`clusterlab.book`.
"""

from . import collectives, ring, units

__all__ = ["collectives", "ring", "units"]
__version__ = "0.1.0"
