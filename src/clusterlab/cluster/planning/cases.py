"""The scenarios of §9.6.5.1, as data for the planner: the original text's 4,096-GPU table, H100 systems and the
explorer's grid.

The original text (seed §9.6.5) gives four "example" layouts on 4,096 GPUs: 7B TP 1 × PP 2 × DP 2,048; 70B TP 4 ×
PP 8 × DP 128; 400B+ TP 8 × PP 16 × DP 32; MoE TP 8 × PP 8 × EP 8 × DP 8. The shapes chosen here are published ones
from the catalogue (:data:`clusterlab.specs.MODELS`: Llama 2 7B and 70B, Llama 3 405B, Mixtral 8x22B), all at a
sequence of 8,192 tokens and 2,048 sequences (16M tokens) per step, on DGX H100 nodes (NVLink 450 GB/s and one
400 Gb/s NIC per GPU, per direction; a non-blocking network). The MoE row reads, as Megatron-Core counts it, dense
DP 64 = EP 8 × expert-DP 8.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, replace
from typing import Final

from ... import specs
from ...validate import int_in_range, positive
from .devices import device
from .search import plan
from .shape import Shape
from .step import Layout
from .system import System

__all__ = ["GRID_CONTROLS", "GRID_MODELS", "SEED_BATCH", "SEED_GPUS", "SEED_SEQ", "SEED_TABLE", "GridPoint",
           "PlanGrid", "SeedRow", "grid_point", "h100_system", "plan_grid"]

SEED_GPUS: Final = 4096
SEED_SEQ: Final = 8192
SEED_BATCH: Final = 16 * 2**20 // SEED_SEQ  # 2,048 sequences: 16M tokens per step


def _shape(name: str) -> Shape:
    return replace(Shape.of(specs.MODELS[name]), seq_len=SEED_SEQ)


@dataclass(frozen=True)
class SeedRow:
    """One row of the original text's table: its size class, a published shape and the layout it gives."""

    label: str
    shape: Shape
    layout: Layout


SEED_TABLE: Final = (
    SeedRow("7B", _shape("Llama 2 7B"), Layout(1, 2, 2048)),
    SeedRow("70B", _shape("Llama 2 70B"), Layout(4, 8, 128)),
    SeedRow("400B+（稠密）", _shape("Llama 3 405B"), Layout(8, 16, 32)),
    SeedRow("MoE（8 专家，top-2）", _shape("Mixtral 8x22B"), Layout(8, 8, 64, 1, 8)),
)


def h100_system(gpus: int, *, memory: float = 80e9) -> System:
    """``gpus`` H100 on DGX H100 nodes (:data:`clusterlab.specs.NODES`), ``memory`` B per GPU (the explorer varies
    it to stand for 40, 80 or 141 GB parts)."""
    node = specs.NODES["DGX H100"]
    dev = replace(device(node.accelerator), memory=positive("memory", memory))
    return System.simple(int_in_range("gpus", gpus, 1), dev, node.gpus_per_node, node.intra_bandwidth,
                         node.nic_bandwidth)


#: the explorer's models (the original text's four size classes)
GRID_MODELS: Final = tuple((row.label, row.shape) for row in SEED_TABLE)
GRID_CONTROLS: Final = ("model", "gpus", "memory", "batch")


@dataclass(frozen=True)
class GridPoint:
    """The planner's result at one grid point: how many layouts were feasible, and the best ``top`` of them as
    ``(label, step time s, MFU, memory per GPU B, compute s, bubble s, exposed communication s)``."""

    feasible: int
    total: int
    best: tuple[tuple[str, float, float, float, float, float, float], ...]


@dataclass(frozen=True)
class PlanGrid:
    """The explorer's axes (model labels, GPU counts, memory per GPU in B, global batch in tokens) and one
    :class:`GridPoint` per combination, in ``itertools.product`` order."""

    models: tuple[str, ...]
    gpus: tuple[int, ...]
    memories: tuple[float, ...]
    batches: tuple[int, ...]
    points: tuple[GridPoint, ...]

    def index(self, model: str, gpus: int, memory: float, batch: int) -> int:
        """Position of one grid point (``ValueError`` if a value is not on the grid)."""
        i = 0
        for name, axis, v in (("model", self.models, model), ("gpus", self.gpus, gpus),
                              ("memory", self.memories, memory), ("batch", self.batches, batch)):
            if v not in axis:
                raise ValueError(f"{name}: {v!r} is not on the grid {axis!r}")
            i = i * len(axis) + axis.index(v)
        return i


def grid_point(shape: Shape, gpus: int, memory: float, batch_tokens: int, *, top: int = 3) -> GridPoint:
    """The planner on ``gpus`` H100 with ``memory`` B each and ``batch_tokens`` tokens per step; the best ``top``
    feasible layouts."""
    seqs = int_in_range("batch_tokens", batch_tokens, shape.seq_len) // shape.seq_len
    plans = plan(shape, h100_system(gpus, memory=memory), seqs)
    ok = [p for p in plans if p.feasible]
    best = tuple((p.layout.label(), p.step_time, p.mfu, p.memory.total, p.compute, p.bubble, p.exposed)
                 for p in ok[:top])
    return GridPoint(len(ok), len(plans), best)


def plan_grid(gpus: tuple[int, ...], memories: tuple[float, ...], batches: tuple[int, ...], *,
              top: int = 3) -> PlanGrid:
    """:func:`grid_point` for every model of :data:`GRID_MODELS` and every combination of the given values."""
    for name, axis in (("gpus", gpus), ("memories", memories), ("batches", batches)):
        if not axis:
            raise ValueError(f"{name} must hold at least one value")
    points = tuple(grid_point(m, g, mem, b, top=top)
                   for (_, m), g, mem, b in itertools.product(GRID_MODELS, gpus, memories, batches))
    return PlanGrid(tuple(label for label, _ in GRID_MODELS), tuple(gpus), tuple(memories), tuple(batches), points)
