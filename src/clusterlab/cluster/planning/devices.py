"""Kernel facts of each accelerator in the catalogue: streaming multiprocessors (for wave quantisation) and the
fractions of the dense peak that the best library kernels reach on large shapes (§4).

These are properties of a chip and its libraries, measured outside any training run, so the step model can be held
against published runs without fitting to them:

* SMs: A100 108 (NVIDIA A100 Tensor Core GPU Architecture whitepaper, 2020, "GA100 full: 128 SMs; A100: 108");
  H100 SXM5 132 (NVIDIA H100 Tensor Core GPU Architecture whitepaper, 2022); H800 and H200 use the same GH100
  configuration; B200 148 (需核实). TPU v4: two TensorCores of four 128×128 MXUs (Jouppi et al. 2023, "TPU v4",
  ISCA, §2), counted here as 8 units of 128 × 128 tiles.
* Large-GEMM efficiency: cuBLAS on B200 reaches 1,610–1,652 of 2,250 TFLOP/s on 8,192-sized bf16 GEMMs (72–73 %,
  pyptx.dev "Performance", cuBLAS reference timings); for A100 (0.80) and H100 (0.70) we use the commonly quoted
  sustained fractions (需核实: a cuBLAS measurement of our own on each chip would replace them); TPU v4 0.80 (需核实).
* Attention efficiency (fused kernels, forward + backward): FlashAttention-2 reaches 50–73 % of the A100 peak
  (Dao 2023, arXiv:2307.08691, abstract and §4.1) — 0.60; on H100 FlashAttention-2 reaches about 35 % and
  FlashAttention-3 up to 75 % in the forward pass (Shah et al. 2024, arXiv:2407.08608, §4.1) — 0.50 for training
  kernels of 2024 (需核实).
"""

from __future__ import annotations

from typing import Any, Final

from .system import Device

__all__ = ["KERNEL_FACTS", "device"]

#: accelerator name (as in :data:`clusterlab.specs.ACCELERATORS`) → (SMs, GEMM efficiency, attention efficiency)
KERNEL_FACTS: Final = {
    "A100 40GB SXM": (108, 0.80, 0.60),
    "A100 80GB SXM": (108, 0.80, 0.60),
    "H100 SXM": (132, 0.70, 0.50),
    "H800 SXM": (132, 0.70, 0.50),
    "H200 SXM": (132, 0.70, 0.50),
    "B200 (HGX, 1000 W)": (148, 0.72, 0.50),
    "TPU v4": (8, 0.80, 0.60),
}
_TILES: Final = {"TPU v4": (128, 128)}


def device(spec: Any, precision: str = "bf16") -> Device:
    """The step model's :class:`Device` for a catalogue accelerator; ``precision`` sets the GEMM peak (``fp8``:
    the fp8 tensor peak; attention stays in bf16)."""
    if spec.name not in KERNEL_FACTS:
        raise ValueError(f"spec must be an accelerator of the catalogue, one of {tuple(KERNEL_FACTS)}, "
                         f"got {spec.name!r}")
    sms, gemm, attn = KERNEL_FACTS[spec.name]
    peak = spec.peak(precision)
    tile_m, tile_n = _TILES.get(spec.name, (128, 256))
    # attention runs in bf16: express its efficiency against the GEMM peak
    return Device(spec.name, spec.memory, peak, spec.memory_bandwidth, sms, gemm, attn * spec.peak_bf16 / peak,
                  tile_m, tile_n)
