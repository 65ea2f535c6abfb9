"""The 5D planner's model: shapes, hardware levels, kernels, communication, memory and step time, the search."""

from __future__ import annotations

from .comm import Cost
from .options import REASONS, Options, Reason
from .search import SEARCHED, best, layouts, plan
from .shape import Shape
from .stages import split_layers
from .step import Estimate, Layout, StageMemory, estimate
from .system import Device, Level, System

__all__ = [
           "REASONS",
           "SEARCHED",
           "Cost",
           "Device",
           "Estimate",
           "Layout",
           "Level",
           "Options",
           "Reason",
           "Shape",
           "StageMemory",
           "System",
           "best",
           "estimate",
           "layouts",
           "plan",
           "split_layers",
]
