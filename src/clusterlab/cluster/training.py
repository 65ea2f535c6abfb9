"""Communication of data-parallel training per step (DDP, ZeRO-1/2/3, FSDP) and the size of a transformer layer.

Notation as in the rest of the package: ``Ψ`` parameters, ``N`` data-parallel ranks, sizes in bytes, times in
seconds, bandwidth β in B/s per direction.

Per-step collectives of one data-parallel group (Rajbhandari et al., *ZeRO*, arXiv:1910.02054, §7):

==========  ==========================================================  ===============================
scheme      collectives per step                                        bytes each rank sends (ring)
==========  ==========================================================  ===============================
``ddp``     all-reduce of the gradients                                 ``2Ψ·b·(N−1)/N``
``zero1``   reduce-scatter of the gradients + all-gather of the         ``Ψ·b_g·(N−1)/N + Ψ·b·(N−1)/N``
``zero2``   updated parameters (§7.2.1: "Ψ + Ψ = 2Ψ, exactly the same
            as the baseline data parallel")
``zero3``   all-gather of the parameters in the forward pass, again in  ``(2Ψ·b + Ψ·b_g)·(N−1)/N``
            the backward pass, reduce-scatter of the gradients
            (§7.2.2: "3Ψ … 1.5x")
==========  ==========================================================  ===============================

``b`` is ``param_bytes`` (bytes per parameter element as communicated, 2 for bf16) and ``b_g`` is
``grad_bytes`` (default ``b``; Llama 3 reduce-scatters gradients in fp32, ``b_g = 4``, arXiv:2407.21783 §3.3.2).
PyTorch FSDP with ``FULL_SHARD`` communicates like ``zero3``; a ring all-reduce *is* a reduce-scatter followed by an
all-gather, which is why ZeRO-1/2 cost the same bytes as DDP. In ZeRO-3 / FSDP the all-gathers and the
reduce-scatter are issued per layer (per wrapped unit), many calls per step; the byte totals above are their sums.

Layer size: a Llama-style decoder layer has the attention projections ``W_q, W_k, W_v, W_o`` (``4d²`` without
grouped-query attention) and the SwiGLU MLP ``W_1, W_2, W_3`` (``3·d·d_ff``); the two RMSNorm weights add ``2d``.
``d_ff`` comes from ``int(2·4d/3)`` rounded up to a multiple of 256 (``meta-llama/llama``, ``llama/model.py``,
``FeedForward``): ``d = 4096`` gives ``11008``. Llama(-2)-7B: ``d = 4096``, 32 layers, vocabulary 32 000.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from ..communication import collectives
from ..communication.cost import ZERO, Cost
from ..validate import int_in_range, positive

__all__ = [
    "LLAMA2_7B",
    "SCHEMES",
    "Call",
    "ModelShape",
    "StepTraffic",
    "layer_params",
    "model_params",
    "step_traffic",
    "swiglu_hidden",
]

SCHEMES: Final = ("ddp", "zero1", "zero2", "zero3")


@dataclass(frozen=True)
class Call:
    """One collective call of a training step: ``op`` on a buffer of ``size`` bytes over ``ranks`` ranks.

    ``tensor`` is ``"gradients"`` or ``"parameters"``; ``when`` is ``"backward"``, ``"forward"`` or
    ``"after_step"`` (after the optimizer step). ``size`` is the ``S`` of :mod:`clusterlab.communication.collectives`:
    one
    rank's full buffer (the all-gather output, the reduce-scatter input).
    """

    op: str
    tensor: str
    when: str
    size: float
    ranks: int

    @property
    def send(self) -> float:
        """Bytes each rank sends (ring algorithm)."""
        return collectives.send_volume(self.op, self.size, self.ranks)

    def cost(self, latency: float, bandwidth: float) -> Cost:
        """α-β cost of this call (ring) on a link of ``latency`` s and ``bandwidth`` B/s per direction."""
        return collectives.cost(self.op, self.size, self.ranks, latency, bandwidth)


@dataclass(frozen=True)
class StepTraffic:
    """All data-parallel collectives of one training step of ``scheme`` (see the module docstring)."""

    scheme: str
    params: float
    ranks: int
    param_bytes: float
    grad_bytes: float
    calls: tuple[Call, ...]

    @property
    def send(self) -> float:
        """Bytes each rank sends in one step (sum over :attr:`calls`)."""
        return sum(c.send for c in self.calls)

    @property
    def in_psi(self) -> float:
        """The step's volume in units of ``Ψ`` bytes-per-parameter-element, ignoring ``(N−1)/N``.

        ``send / (Ψ·b·(N−1)/N)``: 2 for DDP and ZeRO-1/2, 3 for ZeRO-3 when ``grad_bytes == param_bytes`` — the
        way the ZeRO paper counts (§7).
        """
        unit = self.params * self.param_bytes * (self.ranks - 1) / self.ranks
        return self.send / unit

    def cost(self, latency: float, bandwidth: float) -> Cost:
        """The calls one after the other (nothing overlapped): the sum of their α-β costs."""
        total = ZERO
        for c in self.calls:
            total = total + c.cost(latency, bandwidth)
        return total

    def ops(self) -> tuple[str, ...]:
        return tuple(c.op for c in self.calls)


def step_traffic(
    scheme: str, params: float, ranks: int, *, param_bytes: float = 2, grad_bytes: float | None = None
) -> StepTraffic:
    """The per-step collectives of ``scheme`` in ``SCHEMES`` for ``params`` (Ψ) parameters on ``ranks`` (N).

    ``param_bytes``: bytes per parameter element as communicated (bf16: 2); ``grad_bytes``: bytes per gradient
    element as reduced (default ``param_bytes``). Per-rank send volumes (ring): DDP ``2Ψb(N−1)/N``; ZeRO-1/2
    ``(Ψb_g + Ψb)(N−1)/N`` — the same as DDP when ``b_g = b`` (ZeRO §7.2.1); ZeRO-3 ``(2Ψb + Ψb_g)(N−1)/N``,
    1.5× DDP (ZeRO §7.2.2).
    """
    if scheme not in SCHEMES:
        raise ValueError(f"scheme must be one of {', '.join(SCHEMES)}; got {scheme!r}")
    psi = positive("params", params)
    n = int_in_range("ranks", ranks, 2)
    b = positive("param_bytes", param_bytes)
    bg = b if grad_bytes is None else positive("grad_bytes", grad_bytes)
    if scheme == "ddp":
        calls: tuple[Call, ...] = (Call("all_reduce", "gradients", "backward", psi * bg, n),)
    elif scheme in ("zero1", "zero2"):
        calls = (
            Call("reduce_scatter", "gradients", "backward", psi * bg, n),
            Call("all_gather", "parameters", "after_step", psi * b, n),
        )
    else:
        calls = (
            Call("all_gather", "parameters", "forward", psi * b, n),
            Call("all_gather", "parameters", "backward", psi * b, n),
            Call("reduce_scatter", "gradients", "backward", psi * bg, n),
        )
    return StepTraffic(scheme, psi, n, b, bg, calls)


def swiglu_hidden(hidden: int, *, multiple_of: int = 256) -> int:
    """Llama's SwiGLU width: ``int(2·4d/3)`` rounded up to a multiple of ``multiple_of`` (``d = 4096`` → 11008).

    Source: ``meta-llama/llama``, ``llama/model.py``, ``FeedForward.__init__`` (``hidden_dim = 4 * dim``, then
    ``int(2 * hidden_dim / 3)``, then rounded up to ``multiple_of = 256``).
    """
    d = int_in_range("hidden", hidden, 1)
    m = int_in_range("multiple_of", multiple_of, 1)
    raw = int(2 * (4 * d) / 3)
    return m * ((raw + m - 1) // m)


def layer_params(
    hidden: int, ffn_hidden: int, *, kv_hidden: int | None = None, gated: bool = True, norms: bool = False
) -> int:
    """Parameters of one decoder layer: attention ``2d² + 2·d·d_kv`` (``4d²`` when ``d_kv = d``, i.e. no
    grouped-query attention) plus MLP ``3·d·d_ff`` (gated, SwiGLU) or ``2·d·d_ff``; ``norms`` adds the two
    RMSNorm weight vectors, ``2d``. Llama-2-7B (``d = 4096``, ``d_ff = 11008``): ``4d² + 3·d·d_ff`` = 202 375 168.
    """
    d = int_in_range("hidden", hidden, 1)
    f = int_in_range("ffn_hidden", ffn_hidden, 1)
    kv = d if kv_hidden is None else int_in_range("kv_hidden", kv_hidden, 1)
    attention = 2 * d * d + 2 * d * kv
    mlp = (3 if gated else 2) * d * f
    return attention + mlp + (2 * d if norms else 0)


@dataclass(frozen=True)
class ModelShape:
    """Shape of a Llama-style decoder-only model (untied input and output embeddings, no biases)."""

    hidden: int
    ffn_hidden: int
    layers: int
    vocab: int

    def __post_init__(self) -> None:
        for name in ("hidden", "ffn_hidden", "layers", "vocab"):
            int_in_range(name, getattr(self, name), 1)

    @property
    def layer_params(self) -> int:
        """Weights of one layer's matrices, ``4d² + 3·d·d_ff`` (norms excluded)."""
        return layer_params(self.hidden, self.ffn_hidden)

    @property
    def params(self) -> int:
        """All parameters: :func:`model_params`."""
        return model_params(self.hidden, self.ffn_hidden, self.layers, self.vocab)


def model_params(hidden: int, ffn_hidden: int, layers: int, vocab: int) -> int:
    """All parameters of a Llama-style model: ``L·(4d² + 3·d·d_ff + 2d) + 2·V·d + d`` (layers with norms, input
    embedding and output projection, final norm). Llama-2-7B: 6 738 415 616.
    """
    n_layers = int_in_range("layers", layers, 1)
    v = int_in_range("vocab", vocab, 1)
    d = int_in_range("hidden", hidden, 1)
    return n_layers * layer_params(d, ffn_hidden, norms=True) + 2 * v * d + d


#: Llama-2-7B (also Llama-1-7B): d = 4096, 32 layers, 32 heads, vocabulary 32 000, d_ff = 11008
LLAMA2_7B: Final = ModelShape(hidden=4096, ffn_hidden=11008, layers=32, vocab=32000)

