"""The compute side of a training step: FLOPs per token, step time, exposed communication and MFU (集群篇 §4).

FLOPs per token (PaLM, Chowdhery et al., arXiv:2204.02311, App. B): ``6N + 12·L·H·Q·T`` — ``6N`` for the matrix
multiplies of the forward (2N) and backward (4N) pass over ``N`` parameters, plus the attention scores and their
weighted sum, ``12·L·H·Q·T`` with ``L`` layers, ``H`` heads of width ``Q`` (``H·Q = d``) and sequence length ``T``.
Recomputation is not counted (it is work the hardware does, not the model).

Step time (a stated model): the compute of one GPU, ``F/(peak·η)`` at a kernel efficiency ``η``, plus the part of
the communication time ``C`` that is not hidden behind it, ``(1 − overlap)·C`` with ``overlap`` ∈ [0, 1] a stated
parameter (at most the compute time can hide communication).

MFU (PaLM §4.1): observed tokens per second × model FLOPs per token ÷ (GPUs × peak FLOP/s). With the step model
above, ``MFU = η · compute/(compute + exposed)``: the ratio ``compute/(compute + exposed)`` — which the original
text calls MFU — is only the *compute fraction*; it ignores how efficiently the kernels use the peak.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..validate import fraction, int_in_range, non_negative, positive

__all__ = ["FlopsPerToken", "StepTime", "flops_per_token", "mfu", "step_time", "step_time_sweep"]


@dataclass(frozen=True)
class FlopsPerToken:
    """Model FLOPs per token: ``dense = 6N`` and ``attention = 12·L·d·T``; ``total`` their sum."""

    params: float
    dense: float
    attention: float

    @property
    def total(self) -> float:
        return self.dense + self.attention

    @property
    def attention_share(self) -> float:
        """The attention term relative to ``6N``."""
        return self.attention / self.dense


def flops_per_token(params: float, layers: int, hidden: int, seq_len: int) -> FlopsPerToken:
    """PaLM App. B: ``6N + 12·L·d·T`` FLOPs per token of training (``d = H·Q``). Llama-2-7B at ``T = 4096``:
    the attention term adds about 16 % to ``6N``."""
    n = positive("params", params)
    n_layers = int_in_range("layers", layers, 1)
    d = int_in_range("hidden", hidden, 1)
    t = int_in_range("seq_len", seq_len, 1)
    return FlopsPerToken(n, 6 * n, 12 * n_layers * d * t)


@dataclass(frozen=True)
class StepTime:
    """One training step of one GPU (s): ``compute`` at the efficiency, ``comm`` the communication time on the
    links, ``hidden`` the part of it overlapped with compute, ``exposed`` the rest; ``total = compute + exposed``.

    ``flops``: model FLOPs of the step per GPU; ``peak``: FLOP/s of one GPU; ``efficiency``: η.
    """

    flops: float
    peak: float
    efficiency: float
    comm: float
    overlap: float

    @property
    def ideal(self) -> float:
        """Compute time at peak, ``F/peak``."""
        return self.flops / self.peak

    @property
    def compute(self) -> float:
        return self.ideal / self.efficiency

    @property
    def hidden(self) -> float:
        return min(self.overlap * self.comm, self.compute)

    @property
    def exposed(self) -> float:
        return self.comm - self.hidden

    @property
    def total(self) -> float:
        return self.compute + self.exposed

    @property
    def compute_fraction(self) -> float:
        """``compute/(compute + exposed)`` — the original text's "MFU", a compute fraction."""
        return self.compute / self.total

    @property
    def mfu(self) -> float:
        """PaLM's MFU: ``F/(peak·total)`` = achieved model FLOP/s over peak (≤ η ≤ 1)."""
        return self.ideal / self.total


def step_time(
    flops: float, peak_flops: float, *, efficiency: float = 1.0, comm: float = 0.0, overlap: float = 0.0
) -> StepTime:
    """Step time of one GPU that must do ``flops`` model FLOPs at ``peak_flops`` FLOP/s and kernel efficiency
    ``efficiency`` ∈ (0, 1], with ``comm`` seconds of communication of which a share ``overlap`` ∈ [0, 1] runs
    under the compute (capped at the compute time)."""
    return StepTime(
        positive("flops", flops),
        positive("peak_flops", peak_flops),
        fraction("efficiency", efficiency, low_open=True),
        non_negative("comm", comm),
        fraction("overlap", overlap),
    )


def step_time_sweep(
    flops: float, peak_flops: float, overlaps: Sequence[float], *, efficiency: float = 1.0, comm: float = 0.0
) -> tuple[StepTime, ...]:
    """:func:`step_time` for each overlap in ``overlaps`` (the overlap is a stated parameter, not a constant)."""
    if len(overlaps) == 0:
        raise ValueError("overlaps must hold at least one value in [0, 1]")
    return tuple(step_time(flops, peak_flops, efficiency=efficiency, comm=comm, overlap=o) for o in overlaps)


def mfu(tokens_per_second: float, flops_per_token: float, gpus: int, peak_flops: float) -> float:
    """PaLM §4.1: ``tokens/s × FLOPs/token ÷ (GPUs × peak)``. PaLM 540B: 46.2 % (57.8 % counting recomputation,
    HFU)."""
    tps = positive("tokens_per_second", tokens_per_second)
    fpt = positive("flops_per_token", flops_per_token)
    g = int_in_range("gpus", gpus, 1)
    peak = positive("peak_flops", peak_flops)
    return tps * fpt / (g * peak)
