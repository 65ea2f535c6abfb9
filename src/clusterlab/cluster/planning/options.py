"""The choices a training run makes beyond its layout, and the reasons a layout is refused (§9.6.5.1).

A planner that needs the user to know the right options finds nothing; here every option either has a default
that practice uses or is searched (:mod:`.search`): ZeRO stage, recomputation, micro-batch size and interleaving
depth become part of a plan, and a plan says what it chose. Pin any of them by passing a value.

Reasons are codes with their data (:class:`Reason`); the wording lives in the book layer
(:mod:`clusterlab.book.labels`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ...validate import choice, fraction, int_in_range, non_negative, positive
from .comm import ORDERS

__all__ = ["REASONS", "RECOMPUTE", "Options", "Reason"]

RECOMPUTE = ("none", "selective", "full")
SCHEDULES = ("1f1b", "dualpipe")
REASONS = {
    "tp-heads": "TP does not divide the attention heads",
    "tp-kv": "TP and the K/V heads: neither divides the other",
    "tp-ffn": "TP does not divide the MLP width",
    "tp-node": "TP leaves the node",
    "pp-layers": "more pipeline stages than layers",
    "ep-experts": "EP does not divide the experts",
    "ep-dp": "EP does not divide the data-parallel × context-parallel ranks",
    "cp-seq": "CP does not divide the sequence",
    "cp-short": "CP leaves too few tokens per rank",
    "batch": "the global batch does not split into whole micro-batches per replica",
    "interleave": "interleaving needs the micro-batches to be a multiple of the stages and layers per chunk",
    "memory": "the busiest stage does not fit in memory",
}


@dataclass(frozen=True)
class Reason:
    """Why a plan is infeasible: ``code`` (a key of :data:`REASONS`) and the numbers behind it (``data``)."""

    code: str
    data: tuple[tuple[str, float], ...] = field(default=())

    def __post_init__(self) -> None:
        choice("code", self.code, tuple(REASONS))

    def get(self, key: str) -> float:
        return dict(self.data)[key]


@dataclass(frozen=True)
class Options:
    """Everything but the layout. ``zero_stage`` 0–3 (over the data × context parallel ranks; experts over their own
    data-parallel ranks); ``zero3_resident``: ZeRO-3 keeps the gathered parameters through the step (one
    all-gather per step, full parameters in memory — Llama 3 §3.3.2 keeps them after the forward pass) instead of
    gathering them for every micro-batch's forward and backward; bytes per parameter of the weights, gradients and
    optimizer states; ``micro_batch`` sequences; ``virtual_stages`` v (interleaved 1F1B); ``recompute``;
    ``flash_attention`` (no attention scores stored; the backward recomputes them inside the kernel);
    ``tp_overlap``, ``ep_overlap``: shares of TP and EP communication hidden under compute (0: none, as Megatron-LM
    2021; Megatron-Core can overlap TP with its GEMMs, DeepSeek-V3's DualPipe hides the all-to-all) — never more
    than the layer's own compute time: what is left over stays exposed; ``comm_sms``: streaming multiprocessors
    the communication kernels occupy while they overlap, which the compute under them cannot use (DeepSeek-V3
    §3.2.2: 20 of the H800's 132);
    ``pp_overlap``: share of the pipeline transfers hidden (MegaScale decouples them, DeepSeek-V3's DualPipe
    overlaps them); ``schedule``: ``1f1b`` (interleaved when ``virtual_stages`` > 1) or ``dualpipe`` (DeepSeek-V3
    §3.2.1, Table 2: bubble ``(p/2 − 1)(F&B + B − 3W)``, two copies of the parameters); ``parallel_block``:
    attention and MLP side by side (PaLM §2), one TP reduction per layer and pass instead of two;
    ``dp_overlap``: gradient reduce-scatter overlaps the last micro-batch's backward pass and the parameter
    all-gather the first forward pass (Megatron-Core's ``overlap_grad_reduce`` / ``overlap_param_gather``);
    ``order``: rank order (:data:`.comm.ORDERS`); ``node_limit``: each token's experts on at most this many nodes
    (DeepSeek-V3 §2.1.2: 4), so a token crosses the network at most that many times; ``bucket_params``:
    parameters per data-parallel collective; 0 (default) follows the code bases — Megatron-Core's
    ``max(40 M, 1 M × DP)`` with overlap and one bucket without it, ZeRO-3 a layer at a time
    (:func:`.step._buckets`); ``memory_fraction`` of the GPU memory a plan may
    use (the rest: the CUDA context, NCCL buffers, the caching allocator's fragmentation) — a modelling margin, not a
    measured value: 0.9 leaves 8 GB of an 80 GB card, the order of what PyTorch reports as reserved but unallocated
    in long runs (需核实 per run); ``min_cp_tokens``: the fewest tokens a context-parallel rank may hold — a search
    bound we chose (the published CP runs keep ≥ 8,192 per rank: Llama 3 §3.3.2, CP 16 at 131,072 tokens) so that
    the attention blocks stay large enough for the kernel model to apply."""

    zero_stage: int = 1
    zero3_resident: bool = False
    param_bytes: float = 2.0
    grad_bytes: float = 4.0
    optimizer_bytes: float = 12.0
    act_bytes: float = 2.0
    micro_batch: int = 1
    virtual_stages: int = 1
    recompute: str = "none"
    flash_attention: bool = True
    sequence_parallel: bool = True
    tp_overlap: float = 0.0
    ep_overlap: float = 0.0
    comm_sms: int = 0
    pp_overlap: float = 0.0
    dp_overlap: bool = True
    schedule: str = "1f1b"
    parallel_block: bool = False
    order: str = "megatron"
    node_limit: int = 0
    bucket_params: float = 0.0
    memory_fraction: float = 0.9
    min_cp_tokens: int = 1024
    causal: bool = True

    def __post_init__(self) -> None:
        int_in_range("zero_stage", self.zero_stage, 0, 3)
        positive("param_bytes", self.param_bytes)
        positive("grad_bytes", self.grad_bytes)
        non_negative("optimizer_bytes", self.optimizer_bytes)
        positive("act_bytes", self.act_bytes)
        int_in_range("micro_batch", self.micro_batch, 1)
        int_in_range("virtual_stages", self.virtual_stages, 1)
        choice("recompute", self.recompute, RECOMPUTE)
        fraction("tp_overlap", self.tp_overlap)
        fraction("ep_overlap", self.ep_overlap)
        int_in_range("comm_sms", self.comm_sms, 0)
        fraction("pp_overlap", self.pp_overlap)
        choice("schedule", self.schedule, SCHEDULES)
        choice("order", self.order, tuple(ORDERS))
        int_in_range("node_limit", self.node_limit, 0)
        non_negative("bucket_params", self.bucket_params)
        fraction("memory_fraction", self.memory_fraction, low_open=True)
        int_in_range("min_cp_tokens", self.min_cp_tokens, 1)
