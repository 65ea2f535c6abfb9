"""The layout model a student works by hand (§9.6.5.1's exercise set ``planner``, questions 2 and 3).

A paper-and-pencil version of the planner, with every simplification stated, so that a layout can be checked and
compared in a few lines:

* **Job**: a dense gated-MLP model (``L`` layers, width ``h``, FFN ``f``, ``a`` heads, ``a_kv`` K/V heads, vocabulary
  ``V``), sequences of ``s`` tokens, ``G`` GPUs with ``mem`` bytes each, a global batch of ``B`` tokens; ZeRO-1,
  full recomputation, sequence parallelism, one sequence per micro-batch, no context parallelism.
* **Hard constraints** (:func:`violations`): ``product`` (t·p·d ≠ G), ``node`` (t does not divide the GPUs of a
  node), ``heads`` (t does not divide a, a_kv or f), ``layers`` (p does not divide L), ``batch`` (B/s not an integer
  number of sequences divisible by d) and, only when the batch divides, ``memory`` (the first stage needs more than
  ``margin`` × mem).
* **Memory of the first stage** (:func:`first_stage_memory`): parameters per layer ``P = 2h² + 2h·h_kv + 2h + 3hf``;
  ``Ψ₁ = (L/p)·P + V·h·(2 if p = 1 else 1)``; states ``4Ψ₁/t + 12Ψ₁/(t·d)``; stored inputs ``2sh/t`` per layer and
  micro-batch for ``min(p, m)`` micro-batches in flight (1F1B); one layer's working set while recomputing ``34sh/t``.
* **Step time** (:func:`step_time`): compute ``C = N_f·B/G / (peak·η)`` with ``N_f = 8Ψ + 16Lhs`` FLOPs per token
  under full recomputation; bubble ``C(p − 1)/m``; TP ``6(L/p)·m·2S(t − 1)/t / β_NVLink``; PP ``2mS/t / β_net``
  (p > 1); DP ``T = 2Ψ/(tp)·2(d − 1)/d / β_net`` of which ``T − min(T/2, C)`` is exposed; ``S = 2sh`` bytes.

What it leaves out, and the planner (:func:`.step.estimate`) includes: uneven stages, kernel shapes, latencies, the
network's tiers, the output layer's compute, the optimizer. The exercise's hidden check compares the layout a
student picks with this model against the planner's best (:func:`planner_ratio`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from ... import specs
from ...validate import fraction, int_in_range, positive

__all__ = ["CONSTRAINTS", "PLANNER_OPTIONS", "Job", "feasible_layouts", "first_stage_memory", "planner_ratio",
           "planner_times", "step_time", "violations"]

CONSTRAINTS = ("product", "node", "heads", "layers", "batch", "memory")
#: the DGX H100 node of the catalogue: dense bf16 peak (FLOP/s), NVLink and NIC bandwidth per GPU (B/s per direction)
_NODE: Final = specs.NODES["DGX H100"]
PEAK, NVLINK, NET = _NODE.accelerator.peak_bf16, _NODE.intra_bandwidth, _NODE.nic_bandwidth
ETA = 0.6  # the exercise's one kernel efficiency: a stated simplification, not a measured value


@dataclass(frozen=True)
class Job:
    """A training job as the exercise states it (SI: bytes, tokens)."""

    layers: int
    hidden: int
    ffn: int
    heads: int
    kv_heads: int
    vocab: int
    seq: int
    gpus: int
    memory: float
    batch_tokens: int
    per_node: int = 8
    margin: float = 0.9

    def __post_init__(self) -> None:
        for k in ("layers", "hidden", "ffn", "heads", "kv_heads", "vocab", "seq", "gpus", "batch_tokens", "per_node"):
            int_in_range(k, getattr(self, k), 1)
        positive("memory", self.memory)
        fraction("margin", self.margin, low_open=True)

    @property
    def layer_params(self) -> int:
        h = self.hidden
        return 2 * h * h + 2 * h * (self.kv_heads * h // self.heads) + 2 * h + 3 * h * self.ffn

    @property
    def params(self) -> int:
        return self.layers * self.layer_params + 2 * self.vocab * self.hidden

    def micro_batches(self, d: int) -> int:
        return self.batch_tokens // self.seq // d


def _layout(t: int, p: int, d: int) -> None:
    for k, x in (("t", t), ("p", p), ("d", d)):
        int_in_range(k, x, 1)


def first_stage_memory(job: Job, t: int, p: int, d: int) -> float:
    """Bytes on one GPU of the first stage (the fullest) of layout ``(t, p, d)``."""
    _layout(t, p, d)
    h, s = job.hidden, job.seq
    psi1 = job.layers / p * job.layer_params + job.vocab * h * (2 if p == 1 else 1)
    states = 4 * psi1 / t + 12 * psi1 / (t * d)
    acts = 2 * s * h / t * (job.layers / p) * min(p, job.micro_batches(d))
    return states + acts + 34 * s * h / t


def violations(job: Job, t: int, p: int, d: int) -> frozenset[str]:
    """The hard constraints of :data:`CONSTRAINTS` that layout ``(t, p, d)`` breaks (empty: feasible)."""
    _layout(t, p, d)
    bad = set()
    if t * p * d != job.gpus:
        bad.add("product")
    if job.per_node % t:
        bad.add("node")
    if job.heads % t or job.kv_heads % t or job.ffn % t:
        bad.add("heads")
    if job.layers % p:
        bad.add("layers")
    if job.batch_tokens % job.seq or (job.batch_tokens // job.seq) % d:
        bad.add("batch")
    elif first_stage_memory(job, t, p, d) > job.margin * job.memory:
        bad.add("memory")
    return frozenset(bad)


def step_time(job: Job, t: int, p: int, d: int) -> float:
    """Seconds per step of layout ``(t, p, d)`` by the by-hand model (module docstring)."""
    _layout(t, p, d)
    h, L, s = job.hidden, job.layers, job.seq
    m = max(1, job.micro_batches(d))
    c = (8 * job.params + 16 * L * h * s) * job.batch_tokens / job.gpus / (PEAK * ETA)
    size = 2 * s * h
    tp = 6 * (L / p) * m * 2 * size * (t - 1) / t / NVLINK
    pp = 2 * m * size / t / NET if p > 1 else 0.0
    dp = 2 * job.params / (t * p) * 2 * (d - 1) / d / NET
    return c * (1 + (p - 1) / m) + tp + pp + dp - min(dp / 2, c)


def feasible_layouts(job: Job, tps: tuple[int, ...] = (1, 2, 4, 8)) -> tuple[tuple[int, int, int], ...]:
    """Every ``(t, p, d)`` with ``t`` in ``tps`` that breaks no hard constraint."""
    out = []
    for t in tps:
        for p in range(1, job.layers + 1):
            if job.gpus % (t * p) == 0 and not violations(job, t, p, job.gpus // (t * p)):
                out.append((t, p, job.gpus // (t * p)))
    return tuple(out)


#: the planner's options for the exercise's job (its stated choices: ZeRO-1, full recomputation, sequence
#: parallelism, plain 1F1B, one sequence per micro-batch, 2-byte gradients)
PLANNER_OPTIONS = {"zero_stage": 1, "recompute": "full", "sequence_parallel": True, "virtual_stages": 1,
                   "micro_batch": 1, "grad_bytes": 2.0}


def planner_times(job: Job, layouts: tuple[tuple[int, int, int], ...]) -> tuple[float, ...]:
    """The planner's step time (:func:`.step.estimate`, H100 nodes, :data:`PLANNER_OPTIONS`) of each layout."""
    from .cases import h100_system
    from .options import Options
    from .shape import Shape
    from .step import Layout, estimate

    shape = Shape(job.layers, job.hidden, job.ffn, job.heads, job.kv_heads, job.vocab, job.seq)
    system = h100_system(job.gpus, memory=job.memory)
    o = Options(**PLANNER_OPTIONS)  # type: ignore[arg-type]
    batch = job.batch_tokens // job.seq
    return tuple(estimate(shape, system, batch, Layout(t, p, d), o).step_time for t, p, d in layouts)


def planner_ratio(job: Job, layout: tuple[int, int, int]) -> float:
    """The planner's step time of ``layout`` over the fastest of :func:`feasible_layouts` (≥ 1 when ``layout`` is one
    of them): how far a by-hand choice is from the planner's choice among the layouts the job allows."""
    cands = feasible_layouts(job)
    if not cands:
        raise ValueError("job has no layout that meets the hard constraints")
    mine, *others = planner_times(job, (tuple(layout), *cands))  # type: ignore[arg-type]
    return mine / min(others)
