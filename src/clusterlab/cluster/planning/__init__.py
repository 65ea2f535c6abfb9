"""The 5D planner's model (§4, §7, §9.6.5.1).

:mod:`.shape` the transformer and its FLOPs per layer kind; :mod:`.system` the accelerator and the network's levels;
:mod:`.devices` kernel facts per catalogue accelerator; :mod:`.kernels` a layer's compute time from its GEMM shapes;
:mod:`.comm` hierarchical collectives returning one :class:`Cost`; :mod:`.stages` uneven pipeline splits;
:mod:`.options` the choices and the structured reasons; :mod:`.step` memory and step time of one layout;
:mod:`.search` the planner; :mod:`.reality` the model against published runs; :mod:`.handcalc` the by-hand
model a student works in the planner exercise.
"""

from __future__ import annotations

from .comm import Cost
from .devices import KERNEL_FACTS, device
from .options import REASONS, Options, Reason
from .search import SEARCHED, best, layouts, plan
from .shape import Shape
from .stages import split_layers
from .step import Estimate, Layout, StageMemory, estimate
from .system import Device, Level, System

__all__ = ["KERNEL_FACTS", "REASONS", "SEARCHED", "Cost", "Device", "Estimate", "Layout", "Level", "Options",
           "Reason", "Shape", "StageMemory", "System", "best", "device", "estimate", "layouts", "plan",
           "split_layers"]
