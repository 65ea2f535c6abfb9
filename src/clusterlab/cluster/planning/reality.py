"""The model held against published training runs (集群篇 §4, §7, §9.6.5.1; the book's page 「模型与现实」).

For each run of :data:`clusterlab.specs.RUNS` the planner gets what the paper states — shape, hardware, layout,
batch, sequence, ZeRO stage, recomputation, micro-batch, precision — and, from :data:`PRACTICE`, the published
facts about how that code base schedules its work (fused attention or not, whether the data-parallel reduction
overlaps the backward pass, how ranks are ordered, what the network's tiers are, what is hidden under compute).
Whatever the paper leaves open (recomputation "unknown", the interleaving depth, the micro-batch) the planner
chooses, as it would for a new run (:func:`.search.best`). Nothing is fitted to the measured times: the kernel
constants come from :mod:`.devices`, the latencies from NCCL's own model.

:func:`compare` returns one :class:`Check` per run: the step time the paper implies
(:meth:`clusterlab.specs.PublishedRun.step_time`, with its own FLOP convention), the planner's, the error, and MFU
on one scale (PaLM's definition, bf16 peak) for both.
"""

from __future__ import annotations

import itertools
import statistics
from dataclasses import dataclass, replace
from typing import Any, Final

from .devices import device
from .options import Options
from .search import SEARCHED, best
from .shape import Shape
from .step import Estimate, Layout, estimate
from .system import Level, System

__all__ = ["PRACTICE", "Check", "compare", "exchange_bandwidth", "setup", "summary"]

#: NCCL per-step latencies, Simple protocol (NCCL 2.20 src/graph/tuning.cc, hwLat: NVLink 3.4 µs, network 14 µs)
NVLINK_LATENCY, NET_LATENCY = 3.4e-6, 14e-6

#: what the code base of each family of runs does, as its papers state it: (name prefix, options, note)
PRACTICE: Final[tuple[tuple[str, dict[str, Any], str], ...]] = (
    ("Megatron-LM 2021", {"flash_attention": False, "dp_overlap": False},
     "2021: no fused attention kernel; the data-parallel all-reduce runs after the backward pass (run notes)."),
    ("Korthikanti 2022", {"flash_attention": False},
     "2022: Megatron's unfused attention with selective recomputation of the scores (§5)."),
    ("MT-NLG", {"flash_attention": False, "dp_overlap": False},
     "DeepSpeed's pipeline engine reduces gradients after the pipeline flush (需核实); no fused attention."),
    ("Megatron-LM (MegaScale", {"dp_overlap": False},
     "The baseline of MegaScale Table 2: overlapping the DP, PP and TP traffic is what MegaScale adds (§3.2)."),
    ("Llama 3", {"order": "llama3", "zero_stage": 1},
     "[TP, CP, PP, DP] rank order with DP outermost, crossing 3,072-GPU pods joined at 1:7 (§3.3.1–3.3.2); "
     "gradients accumulated in FP32 across micro-batches and reduce-scattered once (§3.3.2, numerical stability): "
     "the traffic and gradient memory of ZeRO-1 with 4-byte gradients, optimizer states sharded."),
    ("BLOOM", {"flash_attention": False, "dp_overlap": False},
     "Megatron-DeepSpeed 2022: no fused attention; ZeRO-1 gradient reduction after the flush (需核实)."),
    ("OPT", {"flash_attention": False},
     "fairseq/FSDP 2022: no fused attention; FSDP gathers each layer's parameters for forward and backward."),
    ("PaLM", {"flash_attention": False, "parallel_block": True, "dp_overlap": True},
     "Parallel attention/MLP blocks (§2); fully sharded data parallelism inside a pod over ICI (§4)."),
    ("Nemotron-4", {},
     "Megatron-Core: distributed optimizer, DP reduce-scatter overlapped with the backward pass (run notes)."),
    ("MegaScale", {"tp_overlap": 1.0, "pp_overlap": 1.0},
     "TP/SP communication fused with the GEMMs and PP transfers decoupled and overlapped (§3.2)."),
    ("DeepSeek-V3", {"schedule": "dualpipe", "ep_overlap": 1.0, "pp_overlap": 1.0, "node_limit": 4, "comm_sms": 20,
                     "optimizer_bytes": 8.0},
     "DualPipe hides the EP all-to-all and PP transfers under compute, with 20 of 132 SMs kept for the "
     "communication kernels; tokens routed to at most 4 nodes (§3.2); AdamW's two moments kept in BF16 beside FP32 "
     "master weights, 8 bytes of optimizer state per parameter (§3.3.3)."),
    ("GPT-NeoX", {"flash_attention": False, "dp_overlap": False},
     "2022: no fused attention; DeepSpeed reduces gradients after the pipeline flush (需核实)."),
)


def _practice(name: str) -> tuple[dict[str, Any], str]:
    for prefix, opts, note in PRACTICE:
        if name.startswith(prefix):
            return opts, note
    return {}, ""


def _system(run: Any) -> System:
    node, g = run.node, run.gpus
    dev = device(node.accelerator, "fp8" if run.precision == "fp8" else "bf16")
    gpn = node.gpus_per_node
    if run.name.startswith("PaLM"):
        # ICI joins every chip of a pod (3,072 in PaLM's two pods): one level per pod, the data-centre network
        # between pods (its per-chip bandwidth is not published: the hosts' network is taken as the pod's ICI,
        # and the cross-pod gradient exchange is overlapped with the next step, §4 — 需核实)
        pod = Level("ICI", 3072, node.intra_bandwidth, NVLINK_LATENCY)
        return System(g, dev, (pod, Level("DCN", 6144, node.nic_bandwidth, NET_LATENCY)))
    levels = [Level("NVLink", gpn, node.intra_bandwidth, NVLINK_LATENCY)]
    whole = -(-g // gpn) * gpn
    if run.name.startswith("Llama 3"):
        levels.append(Level("pod", 3072, node.nic_bandwidth, NET_LATENCY))
        levels.append(Level("集群", max(24576, whole), node.nic_bandwidth / 7, NET_LATENCY))
    elif g > gpn:
        levels.append(Level("网络", whole, node.nic_bandwidth, NET_LATENCY))
    return System(g, dev, tuple(levels))


def setup(run: Any) -> tuple[Shape, System, Layout, Options, tuple[str, ...], str]:
    """The planner's inputs for a published run: shape, system, layout, options, the options left to search, and
    the note on the code base's practice."""
    shape = replace(Shape.of(run.model), seq_len=run.seq_len)
    practice, note = _practice(run.name)
    known: dict[str, Any] = {}
    search = list(SEARCHED)
    if run.zero_stage is not None:
        known["zero_stage"] = run.zero_stage
        search.remove("zero_stage")
    if run.recompute != "unknown":
        known["recompute"] = run.recompute
        search.remove("recompute")
    # the interleaving depth is chosen only where the paper says it interleaves (otherwise plain 1F1B)
    if run.micro_batch is not None:
        known["micro_batch"] = run.micro_batch
        search.remove("micro_batch")
    if run.virtual_stages is not None or "nterleaved" not in run.notes:
        known["virtual_stages"] = run.virtual_stages or 1
        search.remove("virtual_stages")
    if run.sequence_parallel is not None:
        known["sequence_parallel"] = run.sequence_parallel
    if run.precision == "fp16" or run.precision == "bf16":
        known["grad_bytes"] = known.get("grad_bytes", 4.0)
    known.update(practice)  # how the code base schedules its work refines the run's own fields
    search = [f for f in search if f not in practice]
    layout = Layout(run.tp, run.pp, run.dp, run.cp, run.ep)
    return shape, _system(run), layout, Options(**known), tuple(search), note


@dataclass(frozen=True)
class Check:
    """One published run against the model: ``measured`` and ``predicted`` seconds per step, ``error``
    (predicted/measured − 1), MFU of both on PaLM's scale, and the planner's :class:`Estimate`."""

    name: str
    hardware: str
    gpus: int
    layout: str
    measured: float
    predicted: float
    measured_mfu: float
    predicted_mfu: float
    estimate: Estimate
    note: str
    low: float
    high: float
    unknown: tuple[str, ...]
    moe: bool = False

    @property
    def error(self) -> float:
        return self.predicted / self.measured - 1


def _range(shape: Shape, system: System, batch: int, layout: Layout, o: Options, search: tuple[str, ...],
           chosen: Estimate) -> tuple[float, float]:
    """Fastest and slowest feasible step time over the scheduling options the paper leaves open (micro-batch,
    interleaving, recomputation; the ZeRO stage stays at the one chosen)."""
    grid: dict[str, tuple[Any, ...]] = {"micro_batch": (1, 2, 4), "virtual_stages": (1, 2, 4, 8),
                                        "recompute": ("none", "full")}
    times = [chosen.step_time]
    o = replace(o, zero_stage=chosen.options.zero_stage, zero3_resident=chosen.options.zero3_resident)
    fields = [f for f in SEARCHED if f in search and f in grid]
    for values in itertools.product(*(grid[f] for f in fields)):
        est = estimate(shape, system, batch, layout, replace(o, **dict(zip(fields, values, strict=True))))
        if est.feasible:
            times.append(est.step_time)
    return min(times), max(times)


def compare(runs: Any = None) -> tuple[Check, ...]:
    """A :class:`Check` for every run (default: the whole catalogue); ``low``/``high``: the range of the step time
    over the options the paper does not publish (``unknown``)."""
    from ... import specs  # the catalogue is data; imported here so the model does not depend on it

    out = []
    for run in (runs if runs is not None else specs.RUNS.values()):
        shape, sys_, layout, o, search, note = setup(run)
        est = best(shape, sys_, run.global_batch, layout, o, search)
        measured = run.step_time()
        mfu_scale = run.mfu() * measured
        low, high = _range(shape, sys_, run.global_batch, layout, o, search, est)
        out.append(Check(run.name, run.node.accelerator.name, run.gpus, layout.label(), measured, est.step_time,
                         run.mfu(), mfu_scale / est.step_time, est, note, low, high, search, shape.is_moe))
    return tuple(out)


def summary(checks: tuple[Check, ...]) -> dict[str, float]:
    """Median and largest absolute error, and the median signed error."""
    errs = [c.error for c in checks]
    return {"median_abs": statistics.median(abs(e) for e in errs), "max_abs": max(abs(e) for e in errs),
            "median": statistics.median(errs), "runs": float(len(errs))}


def exchange_bandwidth(check: Check) -> tuple[float, float]:
    """Bytes per second per GPU of the data-parallel exchange: ``(implied, modelled)``. ``implied`` charges the
    exchange with all of the measured step time the model does not give to something else (measured − predicted +
    the exposed data-parallel time), ``modelled`` is the model's own rate (bytes / the exchange's priced time). For
    a run whose data-parallel exchange is exposed, ``implied`` below ``modelled`` says how much slower the code base
    moved the same bytes."""
    cost = dict(check.estimate.costs)["dp"]
    spent = check.measured - (check.predicted - check.estimate.dp)
    if cost.bytes <= 0 or spent <= 0:
        raise ValueError(f"check must have an exposed data-parallel exchange and time left for it, got {check.name!r}")
    return cost.bytes / spent, cost.bytes / cost.time
