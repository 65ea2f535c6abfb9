"""The cluster: what a training step asks of it (§1, §9.6.1).

:mod:`~clusterlab.cluster.training`
    per-step collectives of DDP, ZeRO-1/2/3 and FSDP, and the size of a Llama-style model.
"""

from __future__ import annotations

from . import training

__all__ = ["training"]
