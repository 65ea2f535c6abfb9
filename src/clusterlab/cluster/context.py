"""Context parallelism: two ways for the ``c`` ranks of a CP group to see the K/V of the whole sequence (集群篇 §4).

Each rank holds ``s/c`` tokens of one sequence (its queries, keys and values). Attention needs every key and value
the mask lets a query see, so the K/V must travel. Per attention layer, forward pass, one micro-batch of ``b``
sequences, with ``n_kv`` K/V heads of width ``d`` split over ``t`` tensor-parallel ranks and ``B`` bytes per
element, the K/V of the whole sequence that one rank's heads need is

    ``S = 2·b·s·(n_kv/t)·d·B``  (K and V),

and each rank owns ``S/c`` of it. Both schemes move the same bytes, ``S(c−1)/c`` per rank; they differ in what can
hide that transfer and in how much K/V a rank holds at once:

``"all_gather"`` (Llama 3, Grattafiori et al. 2024, arXiv:2407.21783 §3.3.2)
    one all-gather of the K/V before attention (:func:`clusterlab.communication.collectives.cost` with op
    ``all_gather``, output ``S``); attention then runs on the local queries against the full K/V, so any mask
    (causal, document) is a local matter. The all-gather is *exposed*: attention waits for it. A rank holds the
    whole ``S`` during attention.
``"ring"`` (Ring Attention, Liu, Zaharia & Abbeel 2023, arXiv:2310.01889)
    ``c−1`` send/recv steps of one chunk ``S/c`` around the ring (``collectives.cost`` with op ``send_recv``, ``c−1``
    times); while chunk ``j`` arrives, the rank computes attention against chunk ``j−1``. Exposed per step:
    ``max(0, t_step − t_attn/c)``. A rank holds two chunks at once (the one in use and the one arriving), ``2S/c``.

Attention compute of one rank (forward, one layer): ``4·b·s²·(a/t)·d / c`` FLOPs for ``a`` query heads, halved
under a causal mask (the product ``QKᵀ`` and the product with ``V``, two FLOPs per multiply-add), at
``flops`` FLOP/s achieved. Under a causal mask this is the *mean* over ranks: with contiguous blocks rank ``i``
does ``(2i+1)/c²`` of the work, the last rank ``(2c−1)/c`` times the mean; Llama 3 cuts the sequence into ``2c``
chunks and gives rank ``i`` chunks ``i`` and ``2c−1−i``, which evens it out
(:func:`clusterlab.cluster.cp_balance.causal_work` counts both); the prices here assume such a balanced split.

Backward pass (:attr:`ContextParallelCost.step_send`): both schemes send the K/V once more and return the K/V
gradients (all-gather: a second all-gather plus a reduce-scatter; ring: K/V again plus the gradients around the
ring, as :func:`clusterlab.cluster.parallel.cp_volume` counts), ``3·S(c−1)/c`` per layer in all. How a given
implementation keeps or re-gathers the K/V for the backward pass is not published in this detail — 需核实.

Bytes, seconds, B/s per direction, FLOP/s.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from ..communication import collectives
from ..communication.cost import Cost
from ..validate import choice, int_in_range, non_negative, positive

__all__ = [
    "SCHEMES",
    "ContextParallelCost",
    "attention_flops",
    "context_parallel",
    "kv_bytes",
]

#: the two implementations of context parallelism this module prices
SCHEMES: Final = ("all_gather", "ring")


def _heads_per_rank(name: str, heads: int, tensor_parallel: int) -> int:
    if heads % tensor_parallel:
        raise ValueError(f"{name} must be a multiple of tensor_parallel, got {name}={heads}, "
                         f"tensor_parallel={tensor_parallel}")
    return heads // tensor_parallel


def kv_bytes(seq_len: int, kv_heads: int, head_dim: int, *, micro_batch: int = 1, tensor_parallel: int = 1,
             act_bytes: float = 2) -> float:
    """``S = 2·b·s·(n_kv/t)·d·B``: K and V of the whole sequence for one rank's K/V heads, one layer, in bytes.

    ``kv_heads`` must be a multiple of ``tensor_parallel`` (each tensor-parallel rank owns whole K/V heads).
    """
    s = int_in_range("seq_len", seq_len, 1)
    kv = int_in_range("kv_heads", kv_heads, 1)
    d = int_in_range("head_dim", head_dim, 1)
    b = int_in_range("micro_batch", micro_batch, 1)
    t = int_in_range("tensor_parallel", tensor_parallel, 1)
    per_rank = _heads_per_rank("kv_heads", kv, t)
    return 2.0 * b * s * per_rank * d * positive("act_bytes", act_bytes)


def attention_flops(seq_len: int, heads: int, head_dim: int, cp: int, *, micro_batch: int = 1,
                    tensor_parallel: int = 1, causal: bool = True) -> float:
    """FLOPs of one rank's attention (scores and the weighted sum of V), one layer, forward pass:
    ``4·b·s²·(a/t)·d/c``, halved when ``causal`` (the mean over ranks)."""
    s = int_in_range("seq_len", seq_len, 1)
    a = int_in_range("heads", heads, 1)
    d = int_in_range("head_dim", head_dim, 1)
    c = int_in_range("cp", cp, 1)
    b = int_in_range("micro_batch", micro_batch, 1)
    t = int_in_range("tensor_parallel", tensor_parallel, 1)
    full = 4.0 * b * s * s * _heads_per_rank("heads", a, t) * d / c
    return full / 2 if causal else full


@dataclass(frozen=True)
class ContextParallelCost:
    """One attention layer of one rank under context parallelism, forward pass.

    ``kv_bytes`` = ``S``; ``forward``: the α-β cost of the K/V transfer (all-gather, or ``c−1`` ring steps), not
    overlapped; ``attention_time``: the rank's attention compute (mean over ranks under a causal mask);
    ``exposed``: the part of ``forward.time`` that compute does not hide; ``kv_memory``: K/V bytes the rank holds
    at once during attention.
    """

    scheme: str
    ranks: int
    kv_bytes: float
    forward: Cost
    attention_time: float
    exposed: float
    kv_memory: float

    @property
    def chunk_bytes(self) -> float:
        """``S/c``: the K/V one rank owns (one ring step's message)."""
        return self.kv_bytes / self.ranks

    @property
    def send(self) -> float:
        """Bytes one rank sends for this layer's forward pass: ``S(c−1)/c`` in both schemes."""
        return self.forward.bytes

    @property
    def step_send(self) -> float:
        """Forward and backward: ``3·S(c−1)/c`` (the module docstring says what the backward sends)."""
        return 3 * self.send

    @property
    def exposed_fraction(self) -> float:
        """``exposed / attention_time``: how much the transfer adds to the attention it feeds."""
        return self.exposed / self.attention_time


def context_parallel(
    scheme: str,
    seq_len: int,
    heads: int,
    kv_heads: int,
    head_dim: int,
    cp: int,
    latency: float,
    bandwidth: float,
    flops: float,
    *,
    micro_batch: int = 1,
    tensor_parallel: int = 1,
    act_bytes: float = 2,
    causal: bool = True,
) -> ContextParallelCost:
    """Price one attention layer's K/V transfer under ``scheme`` (``"all_gather"`` or ``"ring"``) on ``cp`` ranks.

    ``latency`` α (s) and ``bandwidth`` β (B/s per direction) of the links between the CP ranks; ``flops``: the
    attention kernel's achieved FLOP/s. ``heads`` query heads and ``kv_heads`` K/V heads of width ``head_dim``
    (grouped-query attention: ``kv_heads < heads``), both multiples of ``tensor_parallel``; ``heads`` a multiple of
    ``kv_heads``. all-gather: ``exposed = (c−1)α + S(c−1)/(cβ)``, memory ``S``; ring: ``exposed =
    (c−1)·max(0, α + S/(cβ) − t_attn/c)``, memory ``2S/c``.

    >>> r = context_parallel("ring", 131072, 128, 8, 128, 16, 5e-6, 50e9, 400e12)
    >>> round(r.send / 1e9, 3), r.exposed
    (0.503, 0.0)
    """
    sch = choice("scheme", scheme, SCHEMES)
    c = int_in_range("cp", cp, 2)
    a = int_in_range("heads", heads, 1)
    kv = int_in_range("kv_heads", kv_heads, 1, a)
    if a % kv:
        raise ValueError(f"heads must be a multiple of kv_heads, got heads={a}, kv_heads={kv}")
    alpha = non_negative("latency", latency)
    beta = positive("bandwidth", bandwidth)
    f = positive("flops", flops)
    s_kv = kv_bytes(seq_len, kv, head_dim, micro_batch=micro_batch, tensor_parallel=tensor_parallel,
                    act_bytes=act_bytes)
    t_attn = attention_flops(seq_len, a, head_dim, c, micro_batch=micro_batch, tensor_parallel=tensor_parallel,
                             causal=causal) / f
    if sch == "all_gather":
        comm = collectives.cost("all_gather", s_kv, c, alpha, beta)
        return ContextParallelCost(sch, c, s_kv, comm, t_attn, comm.time, s_kv)
    one = collectives.cost("send_recv", s_kv / c, 2, alpha, beta)
    comm = one * (c - 1)
    exposed = (c - 1) * max(0.0, one.time - t_attn / c)
    return ContextParallelCost(sch, c, s_kv, comm, t_attn, exposed, 2 * s_kv / c)
