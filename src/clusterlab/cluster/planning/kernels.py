"""The compute time of one layer for one micro-batch on one GPU, from the shapes it multiplies (集群篇 §4).

Instead of one kernel efficiency η for everything, each piece of a layer is priced by what it is:

* **matrix multiplies** ``(M × K) · (K × N)`` at ``gemm_efficiency`` of the peak on large shapes, times the share of
  the GPU a shape can fill: the output is cut into tiles of 128 × 256 and the tiles run in waves of one per
  streaming multiprocessor, so a GEMM whose tiles leave the last wave half empty, or whose edges leave tiles
  half full, loses that share (NVIDIA, *Matrix Multiplication Background User's Guide*, "Tile quantization" and
  "Wave quantization", docs.nvidia.com/deeplearning/performance/dl-performance-matrix-multiplication);
* **the attention core** (``QKᵀ``, softmax, ``·V``) at ``attention_efficiency``; a causal mask skips half of the
  square (FlashAttention-2 skips the masked blocks, Dao 2023, arXiv:2307.08691, §3.1);
* **element-wise work** (norms, activation function, residual adds, rotary embedding, dropout) moves bytes, not
  FLOPs: about what the layer stores for the backward pass is written once and read once in the forward pass and
  twice as much moves in the backward pass, ``2 × 34·b·s·h`` bytes per layer in the forward (Korthikanti et al.
  2022, arXiv:2205.05198, Table 2, the activations without attention scores; ``/t`` with sequence parallelism), at
  the memory bandwidth; without a fused attention kernel the ``a·s²`` scores also travel (about 12 B each in the
  forward pass) and the core runs as batched GEMMs over the full square.

Backward = 2× forward for the GEMMs and the attention core. Tensor parallelism ``t`` splits every GEMM's N (column
parallel) or K (row parallel) and the heads; K/V heads are replicated when ``t`` exceeds their number (each rank
needs at least one, Megatron-Core's GQA under TP); context parallelism ``c`` gives each rank ``s/c`` of the queries
against all ``s`` keys; experts see ``top_k·tokens·e/E`` tokens each.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

from .shape import Shape
from .system import Device

__all__ = ["LayerTime", "gemm_time", "layer_time"]

ELEMENTWISE_BYTES = 68  # per b·s·h and layer, forward: the 34 B Korthikanti et al. store, written and read once
SCORE_BYTES = 12  # per attention score without a fused kernel, forward: QKᵀ written, softmax read + written,
#                   dropout read + written + its 1-byte mask, read by ·V (2-byte elements)


def gemm_time(m: float, n: float, k: float, device: Device, batch: float = 1) -> float:
    """Seconds for ``batch`` ``(m × k)·(k × n)`` multiplies in one launch on ``device`` (``2mnk`` FLOPs each), tile
    and wave quantised."""
    if m <= 0 or n <= 0 or k <= 0 or batch <= 0:
        return 0.0
    tiles = math.ceil(m / device.tile_m) * math.ceil(n / device.tile_n) * math.ceil(batch)
    waves = math.ceil(tiles / device.sms)
    fill = (m * n * batch) / (waves * device.sms * device.tile_m * device.tile_n)
    return 2.0 * m * n * k * batch / (device.peak * device.gemm_efficiency * fill)


@dataclass(frozen=True)
class LayerTime:
    """One layer, one micro-batch, one GPU (s): forward ``gemm``, ``attention`` and ``elementwise`` parts, and the
    FLOPs the GPU does in the forward pass (``flops``); :attr:`forward` and :attr:`backward` (2× the GEMMs and the
    attention core, 2× the element-wise traffic)."""

    gemm: float
    attention: float
    elementwise: float
    flops: float

    @property
    def forward(self) -> float:
        return self.gemm + self.attention + self.elementwise

    @property
    def backward(self) -> float:
        return 2.0 * self.forward

    def training(self, recompute: str) -> float:
        """Forward + backward + what ``recompute`` runs again (all of the forward, or the attention core)."""
        redo = {"none": 0.0, "selective": self.attention, "full": self.forward}[recompute]
        return self.forward + self.backward + redo


@functools.lru_cache(maxsize=65536)
def layer_time(shape: Shape, moe: bool, device: Device, *, tokens: int, tp: int = 1, cp: int = 1, ep: int = 1,
               sequence_parallel: bool = True, causal: bool = True, flash: bool = True) -> LayerTime:
    """One layer's forward pieces for a micro-batch of ``tokens`` tokens (``b·s``) on one GPU of a ``tp``-way
    tensor-parallel, ``cp``-way context-parallel group (``ep`` expert-parallel ranks share the experts)."""
    h, t = shape.hidden, tp
    rows = tokens / cp  # the tokens this rank holds
    if shape.attention_weights is None:
        kv_heads = max(1.0, shape.kv_heads / t)  # K/V heads per rank, replicated when t > n_kv
        in_n = shape.heads * shape.qk_dim / t + kv_heads * (shape.qk_dim + shape.v_dim)
    else:  # latent attention: the projections other than the output one, split by t
        in_n = (shape.attention_weights / h - shape.attention_out) / t
    out_k = shape.attention_out / t
    g = gemm_time(rows, in_n, h, device) + gemm_time(rows, h, out_k, device)
    flops = 2 * rows * (in_n * h + h * out_k)
    mats = shape.mlp_matrices
    if not moe:
        g += gemm_time(rows, (mats - 1) * shape.ffn_hidden / t, h, device)
        g += gemm_time(rows, h, shape.ffn_hidden / t, device)
        flops += 2 * rows * mats * h * shape.ffn_hidden / t
    else:
        f = shape.expert_width
        per_expert = rows * shape.top_k * ep / shape.experts  # tokens each local expert receives
        local = shape.experts / ep
        g += local * (gemm_time(per_expert, (mats - 1) * f / t, h, device) + gemm_time(per_expert, h, f / t, device))
        if shape.shared_experts:
            fs = shape.shared_experts * f
            g += gemm_time(rows, (mats - 1) * fs / t, h, device) + gemm_time(rows, h, fs / t, device)
        g += gemm_time(rows, shape.experts, h, device)  # router
        flops += 2 * rows * ((shape.top_k + shape.shared_experts) * mats * h * f / t + h * shape.experts)
    heads = shape.heads / t
    if flash:
        core = shape.attention_core_flops * rows / t * (0.5 if causal else 1.0)
        attention = core / (device.peak * device.attention_efficiency)
    else:  # batched GEMMs over the full square, and the scores written, softmaxed, dropped out and read again
        core = shape.attention_core_flops * rows / t
        attention = (gemm_time(rows, shape.seq_len, shape.qk_dim, device, batch=heads)
                     + gemm_time(rows, shape.v_dim, shape.seq_len, device, batch=heads))
        attention += SCORE_BYTES * heads * rows * shape.seq_len / device.memory_bandwidth
    elementwise = ELEMENTWISE_BYTES * rows * h / (t if sequence_parallel else 1) / device.memory_bandwidth
    return LayerTime(g, attention, elementwise, flops + core)
