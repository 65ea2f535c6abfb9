"""Published layouts and the original text's 4,096-GPU table, as data for :mod:`clusterlab.cluster.planner` (§9.6.5.1).

Sources (the book's references page lists them with the exact table):

* Llama 3 405B — Grattafiori et al., "The Llama 3 Herd of Models", arXiv:2407.21783, Table 3 (shape: 126 layers,
  model dimension 16,384, FFN 53,248, 128 heads, 8 KV heads, vocabulary 128,000 → 128,256 in the release) and
  Table 4 (layouts: 8,192 GPUs TP 8 CP 1 PP 16 DP 64; 16,384 GPUs TP 8 CP 1 PP 16 DP 128, sequence 8,192;
  16,384 GPUs TP 8 CP 16 PP 16 DP 8, sequence 131,072; 16M tokens per batch). §3.3.2: one layer fewer on the first
  and the last stage, an interleaved schedule (the number of virtual stages used is not in the table: we take
  v = 4, **需核实**), FSDP sharding optimizer states and gradients, gradients reduce-scattered in fp32.
  H100: 80 GB HBM3, 989 TFLOP/s dense bf16, NVLink 450 GB/s per direction, 400 Gb/s RoCE per GPU.
* Megatron-LM — Narayanan et al., "Efficient Large-Scale Language Model Training on GPU Clusters Using
  Megatron-LM", SC'21, arXiv:2104.04473, Table 1 (GPT models, vocabulary 51,200, sequence 2,048; rows 145.6B,
  310.1B, 529.6B and 1T: heads / hidden / layers / TP / PP / GPUs / batch size; **需核实** against the PDF — values
  from the paper as read by the authors of this book, layer/hidden counts confirmed by a secondary copy).
  A100 80 GB, 312 TFLOP/s, NVLink 300 GB/s per direction, 8 × 200 Gb/s HDR InfiniBand per node (25 GB/s per GPU);
  no ZeRO, activation recomputation, no sequence parallelism (2021).
* The original text's table (seed §9.6.5): 7B TP 1 × PP 2 × DP 2,048; 70B TP 4 × PP 8 × DP 128; 400B+ TP 8 × PP 16 ×
  DP 32; MoE TP 8 × PP 8 × EP 8 × DP 8. Shapes chosen here: Llama-2-7B, Llama-2-70B, Llama 3 405B and
  Mixtral-8x22B-like (8 experts, top-2), sequence 8,192, 16M tokens per step, H100 nodes as above.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Final

from .planner import Accelerator, Cluster, PlanOptions, Transformer, plan
from .planning.cases import GridPoint, PlanGrid  # one definition of the explorer grid

__all__ = [
    "A100",
    "H100",
    "LLAMA3",
    "MEGATRON",
    "SEED_TABLE",
    "Case",
    "GridPoint",
    "PlanGrid",
    "SeedRow",
    "a100_cluster",
    "grid_point",
    "h100_cluster",
    "plan_grid",
]

H100: Final = Accelerator(memory=80e9, peak_flops=989e12)
A100: Final = Accelerator(memory=80e9, peak_flops=312e12)


def h100_cluster(gpus: int, *, memory: float = 80e9) -> Cluster:
    """H100 nodes of 8 GPUs: NVLink 450 GB/s per direction, one 400 Gb/s NIC per GPU (50 GB/s per direction)."""
    return Cluster(gpus, 8, Accelerator(memory, H100.peak_flops), 450e9, 400e9 / 8)


def a100_cluster(gpus: int) -> Cluster:
    """A100 nodes of 8 GPUs (Selene-like): NVLink 300 GB/s per direction, 200 Gb/s HDR per GPU (25 GB/s)."""
    return Cluster(gpus, 8, A100, 300e9, 200e9 / 8)


@dataclass(frozen=True)
class Case:
    """A published layout: the model, the cluster, the global batch in tokens, the planner options that match the
    publication's setup, and the layout it reports (``tp, pp, dp, cp``)."""

    name: str
    source: str
    model: Transformer
    cluster: Cluster
    global_batch_tokens: int
    options: PlanOptions
    tp: int
    pp: int
    dp: int
    cp: int = 1
    reported_mfu: float | None = None


LLAMA3_405B: Final = Transformer(126, 16384, 53248, 128, 8, 128256, 8192)
LLAMA3_405B_LONG: Final = Transformer(126, 16384, 53248, 128, 8, 128256, 131072)
_LLAMA3_OPTIONS: Final = PlanOptions(zero_stage=2, grad_bytes=4.0, chunks=4, trim_ends=1)
_BATCH_16M: Final = 16 * 2**20  # "16M" tokens per batch (Table 4); 2,048 sequences of 8,192

LLAMA3: Final = (
    Case("Llama 3 405B，8,192 卡", "arXiv:2407.21783 表 4", LLAMA3_405B, h100_cluster(8192), _BATCH_16M,
         _LLAMA3_OPTIONS, 8, 16, 64, 1, 0.43),
    Case("Llama 3 405B，16,384 卡", "arXiv:2407.21783 表 4", LLAMA3_405B, h100_cluster(16384), _BATCH_16M,
         _LLAMA3_OPTIONS, 8, 16, 128, 1, 0.41),
    Case("Llama 3 405B，16,384 卡，131,072 token", "arXiv:2407.21783 表 4", LLAMA3_405B_LONG, h100_cluster(16384),
         _BATCH_16M, _LLAMA3_OPTIONS, 8, 16, 8, 16, 0.38),
)


def _gpt(layers: int, hidden: int, heads: int) -> Transformer:
    return Transformer(layers, hidden, 4 * hidden, heads, heads, 51200, 2048, gated_mlp=False, tied_embeddings=True)


_MEGATRON_OPTIONS: Final = PlanOptions(zero_stage=0, sequence_parallel=False)
MEGATRON: Final = (
    Case("GPT 145.6B，1,536 卡", "arXiv:2104.04473 表 1", _gpt(80, 12288, 96), a100_cluster(1536), 2304 * 2048,
         _MEGATRON_OPTIONS, 8, 8, 24),
    Case("GPT 310.1B，1,920 卡", "arXiv:2104.04473 表 1", _gpt(96, 16384, 128), a100_cluster(1920), 2160 * 2048,
         _MEGATRON_OPTIONS, 8, 16, 15),
    Case("GPT 529.6B，2,520 卡", "arXiv:2104.04473 表 1", _gpt(105, 20480, 128), a100_cluster(2520), 2520 * 2048,
         _MEGATRON_OPTIONS, 8, 35, 9),
    Case("GPT 1T，3,072 卡", "arXiv:2104.04473 表 1", _gpt(128, 25600, 160), a100_cluster(3072), 3072 * 2048,
         _MEGATRON_OPTIONS, 8, 64, 6),
)


@dataclass(frozen=True)
class SeedRow:
    """One row of the original text's 4,096-GPU table: a model shape for its size class and the layout it gives
    (``ep`` inside ``dp``: the text's "DP 8" of the MoE row is the expert-data-parallel size)."""

    label: str
    model: Transformer
    tp: int
    pp: int
    dp: int
    ep: int = 1


SEED_GPUS: Final = 4096
SEED_BATCH_TOKENS: Final = _BATCH_16M
SEED_TABLE: Final = (
    SeedRow("7B", Transformer(32, 4096, 11008, 32, 32, 32000, 8192), 1, 2, 2048),
    SeedRow("70B", Transformer(80, 8192, 28672, 64, 8, 32000, 8192), 4, 8, 128),
    SeedRow("400B+（稠密）", LLAMA3_405B, 8, 16, 32),
    SeedRow("MoE（8 专家，top-2）", Transformer(56, 6144, 16384, 48, 8, 32768, 8192, experts=8, top_k=2), 8, 8, 64, 8),
)
SEED_OPTIONS: Final = PlanOptions(chunks=4, trim_ends=1)


#: the explorer's models (the original text's four size classes)
GRID_MODELS: Final = tuple((row.label, row.model) for row in SEED_TABLE)
GRID_CONTROLS: Final = ("model", "gpus", "memory", "batch")


def grid_point(model: Transformer, gpus: int, memory: float, batch: int, *, top: int = 3,
               options: PlanOptions = SEED_OPTIONS) -> GridPoint:
    """Run :func:`clusterlab.cluster.planner.plan` on H100 nodes with ``memory`` B per GPU and keep the best
    ``top`` feasible plans."""
    plans = plan(model, h100_cluster(gpus, memory=memory), batch, options=options)
    ok = [p for p in plans if p.feasible]
    best = tuple((p.label(), p.step_time, p.mfu, p.memory_per_gpu, p.parts.compute, p.parts.bubble,
                  p.parts.exposed) for p in ok[:top])
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
