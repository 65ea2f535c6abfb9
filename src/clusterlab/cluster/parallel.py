"""Per-step communication of each parallelism axis, and the memory one GPU needs (集群篇 §4).

One function per axis, each returning an :class:`AxisVolume` — the collective, how many calls one rank issues per
step, the buffer ``S`` of one call and the bytes each rank sends per step — so that a planner or a whole-cluster
ledger can put every axis on its own link. Sizes in bytes, times in seconds, bandwidth in B/s per direction.

Notation: ``Ψ`` parameters; ``b`` micro-batch size in sequences, ``s`` sequence length in tokens, ``h`` hidden
size, ``a`` attention heads, ``L`` layers (on the rank: ``L/p`` under pipeline parallelism), ``m`` micro-batches per
step, ``t`` / ``p`` / ``N`` / ``e`` / ``c`` the tensor / pipeline / data / expert / context parallel sizes, ``B``
bytes per activation element (bf16: 2).

==========  =================================  ========================  ==========================================
axis        collective                         calls per step            bytes each rank sends per step
==========  =================================  ========================  ==========================================
DP          DDP all-reduce; ZeRO-1/2 RS + AG;  1; 2; 3 per layer         ``2Ψb(N−1)/N``; same; ``3Ψb(N−1)/N``
            ZeRO-3 AG (fwd) + AG (bwd) + RS                              (:mod:`~clusterlab.cluster.training`)
TP          all-reduce of the activation       ``4·L·m`` (2 fwd + 2 bwd) ``4·L·m · 2S(t−1)/t``, ``S = b·s·h·B``
TP + SP     all-gather + reduce-scatter        ``8·L·m``                 the same bytes
PP          send/recv at the stage boundary    ``2m`` (act. + grad.)     ``2m·S`` (``2m·S/t`` with scatter/gather)
EP          all-to-all (dispatch + combine)    ``4·L_moe·m``             ``4·L_moe·m · S_e(e−1)/e``,
                                                                         ``S_e = b·s·k·h·B`` (top-k routing)
CP          ring exchange of K/V chunks        ``3(c−1)·L·m``            ``3(c−1)·L·m · 2b(s/c)h_kv·B``
==========  =================================  ========================  ==========================================

Sources: ZeRO (Rajbhandari et al., arXiv:1910.02054) §7.2.1–7.2.2 for DP; Megatron-LM (Shoeybi et al.,
arXiv:1909.08053) §3 and Fig. 4 for the four all-reduces of a TP layer (six with activation recomputation, ZeRO §8);
Korthikanti et al. (arXiv:2205.05198) §4.2.2 for sequence parallelism and Table 2 for the activation memory;
Narayanan et al. (arXiv:2104.04473) §4.1 for the pipeline scatter/gather optimisation. EP assumes uniform routing
(a token's expert lives on another rank with probability ``(e−1)/e``); CP's backward pass is modelled as sending the
K/V chunks again plus their gradients (twice the forward), a stated model rather than a measured count.

Memory of model states per GPU (ZeRO §3.1 and Fig. 1, mixed-precision Adam): parameters ``2Ψ``, gradients ``2Ψ``,
optimizer states ``KΨ`` with ``K = 12`` (fp32 master weights, momentum, variance); stage 1 shards the optimizer
states over the ``N`` data-parallel ranks, stage 2 also the gradients, stage 3 also the parameters. ``Ψ`` here is the
share of one model-parallel rank, ``Ψ/(t·p)``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from ..communication import collectives
from ..communication.cost import Cost, link_cost
from ..validate import choice, int_in_range, non_negative, positive
from . import training

__all__ = [
    "AXES",
    "RECOMPUTE",
    "ActivationMemory",
    "AxisVolume",
    "LinkLoad",
    "ModelStateMemory",
    "activation_memory",
    "cp_volume",
    "dp_volume",
    "ep_volume",
    "model_state_memory",
    "on_link",
    "pp_volume",
    "tp_volume",
]

AXES: Final = ("dp", "tp", "pp", "ep", "cp")
RECOMPUTE: Final = ("none", "selective", "full")
ZERO_STAGES: Final = (0, 1, 2, 3)
OPTIMIZER_BYTES: Final = 12  # K of ZeRO §3.1: fp32 master weights, momentum and variance


@dataclass(frozen=True)
class AxisVolume:
    """The communication one rank issues along one parallelism axis in one training step.

    ``ops``: the collectives, in the order issued; ``ranks``: the group size; ``calls``: calls per step;
    ``size``: the buffer ``S`` of one call in bytes (the all-gather output, the all-reduce buffer, the message);
    ``send``: bytes this rank sends per step; ``latency_steps``: the α-steps per step (ring algorithms); :meth:`cost`
    prices both on a link.
    """

    axis: str
    ops: tuple[str, ...]
    ranks: int
    calls: int
    size: float
    send: float
    latency_steps: int

    @property
    def send_per_call(self) -> float:
        """Bytes this rank sends in one call."""
        return self.send / self.calls

    def cost(self, latency: float, bandwidth: float, *, link: str | None = None) -> Cost:
        """The step's α-β cost on a link of ``latency`` s per step and ``bandwidth`` B/s per direction, nothing
        overlapped: ``latency_steps·α + send/β`` (the link named after the axis unless ``link`` is given)."""
        return link_cost(self.axis if link is None else link, self.latency_steps, self.send,
                         non_negative("latency", latency), positive("bandwidth", bandwidth))


def _steps(op: str, ranks: int) -> int:
    return collectives.steps(op, ranks) if ranks > 1 else 0


def dp_volume(
    scheme: str,
    params: float,
    ranks: int,
    *,
    layers: int = 1,
    param_bytes: float = 2,
    grad_bytes: float | None = None,
) -> AxisVolume:
    """Data parallelism: the collectives of :func:`clusterlab.cluster.training.step_traffic` for ``scheme``.

    ``params``: the parameters this rank's data-parallel group synchronises (``Ψ/(t·p)`` under model
    parallelism). DDP and ZeRO-1/2 send ``2Ψb(N−1)/N`` per rank (ZeRO §7.2.1); ZeRO-3 sends ``3Ψb(N−1)/N``, 1.5×
    (§7.2.2), and issues its two all-gathers and its reduce-scatter once per layer: ``3·layers`` calls of ``Ψb/L``
    bytes each. Optimizer states are never communicated.
    """
    traffic = training.step_traffic(scheme, params, ranks, param_bytes=param_bytes, grad_bytes=grad_bytes)
    n_layers = int_in_range("layers", layers, 1)
    per = n_layers if scheme == "zero3" else 1
    ops = traffic.ops()
    size = max(c.size for c in traffic.calls) / per
    steps = per * sum(_steps(op, traffic.ranks) for op in ops)
    return AxisVolume("dp", ops, traffic.ranks, per * len(ops), size, traffic.send, steps)


def _activation(micro_batch: int, seq_len: int, hidden: int, act_bytes: float) -> float:
    b = int_in_range("micro_batch", micro_batch, 1)
    s = int_in_range("seq_len", seq_len, 1)
    h = int_in_range("hidden", hidden, 1)
    return b * s * h * positive("act_bytes", act_bytes)


def tp_volume(
    hidden: int,
    seq_len: int,
    micro_batch: int,
    layers: int,
    micro_batches: int,
    tp: int,
    *,
    act_bytes: float = 2,
    sequence_parallel: bool = False,
    recompute: bool = False,
) -> AxisVolume:
    """Tensor parallelism (Megatron-LM): per layer and micro-batch, the attention block and the MLP each all-reduce
    the activation ``S = b·s·h·B`` once in the forward pass (operator ``g``) and once in the backward pass
    (operator ``f``) — four all-reduces (Megatron-LM Fig. 4), six when the forward pass is recomputed.

    With sequence parallelism (Korthikanti et al. §4.2.2) each all-reduce becomes an all-gather plus a
    reduce-scatter: twice the calls, the same bytes, ``2S(t−1)/t`` per replaced all-reduce. ``layers``: the
    layers this rank holds (``L/p``).
    """
    s_act = _activation(micro_batch, seq_len, hidden, act_bytes)
    n_layers = int_in_range("layers", layers, 1)
    m = int_in_range("micro_batches", micro_batches, 1)
    t = int_in_range("tp", tp, 1)
    reduces = (6 if recompute else 4) * n_layers * m
    if sequence_parallel:
        ops: tuple[str, ...] = ("all_gather", "reduce_scatter")
        send = reduces * 2 * collectives.send_volume("all_gather", s_act, t) if t > 1 else 0.0
        steps = reduces * (_steps("all_gather", t) + _steps("reduce_scatter", t))
        return AxisVolume("tp", ops, t, 2 * reduces, s_act, send, steps)
    send = reduces * collectives.send_volume("all_reduce", s_act, t) if t > 1 else 0.0
    return AxisVolume("tp", ("all_reduce",), t, reduces, s_act, send, reduces * _steps("all_reduce", t))


def pp_volume(
    hidden: int,
    seq_len: int,
    micro_batch: int,
    micro_batches: int,
    pp: int,
    *,
    act_bytes: float = 2,
    tp: int = 1,
    scatter_gather: bool = True,
) -> AxisVolume:
    """Pipeline parallelism: an interior stage sends each micro-batch's output activation ``S = b·s·h·B`` to the
    next stage and the gradient of its input, also ``S``, to the previous one: ``2m`` messages, ``2m·S`` bytes per
    step (first and last stage send half). With ``tp`` ranks per stage and the scatter/gather optimisation of
    Narayanan et al. §4.1, each of them sends ``S/t`` and the stage re-assembles the tensor over NVLink.
    """
    s_act = _activation(micro_batch, seq_len, hidden, act_bytes)
    m = int_in_range("micro_batches", micro_batches, 1)
    p = int_in_range("pp", pp, 1)
    t = int_in_range("tp", tp, 1)
    size = s_act / t if scatter_gather else s_act
    if p == 1:
        return AxisVolume("pp", ("send_recv",), 1, 0, size, 0.0, 0)
    return AxisVolume("pp", ("send_recv",), p, 2 * m, size, 2 * m * size, 2 * m)


def ep_volume(
    hidden: int,
    tokens: int,
    moe_layers: int,
    micro_batches: int,
    ep: int,
    *,
    top_k: int = 1,
    act_bytes: float = 2,
) -> AxisVolume:
    """Expert parallelism: per MoE layer and micro-batch, an all-to-all sends each of the rank's ``tokens`` to its
    ``top_k`` experts (dispatch) and another brings the results back (combine); the backward pass repeats both —
    four all-to-alls of ``S_e = tokens·k·h·B``. With uniform routing a share ``(e−1)/e`` leaves the rank.
    """
    h = int_in_range("hidden", hidden, 1)
    n_tok = int_in_range("tokens", tokens, 1)
    n_layers = int_in_range("moe_layers", moe_layers, 1)
    m = int_in_range("micro_batches", micro_batches, 1)
    e = int_in_range("ep", ep, 1)
    k = int_in_range("top_k", top_k, 1)
    size = n_tok * k * h * positive("act_bytes", act_bytes)
    calls = 4 * n_layers * m
    send = calls * collectives.send_volume("all_to_all", size, e) if e > 1 else 0.0
    return AxisVolume("ep", ("all_to_all",), e, calls, size, send, calls * _steps("all_to_all", e))


def cp_volume(
    kv_hidden: int,
    seq_len: int,
    micro_batch: int,
    layers: int,
    micro_batches: int,
    cp: int,
    *,
    act_bytes: float = 2,
) -> AxisVolume:
    """Context parallelism (ring attention): each rank holds ``s/c`` tokens and passes its K/V chunk,
    ``2·b·(s/c)·h_kv·B`` bytes, around the ring in ``c−1`` steps per layer in the forward pass; the backward pass is
    modelled as the K/V chunks again plus their gradients, ``2(c−1)`` more — ``3(c−1)`` chunk sends per layer and
    micro-batch. ``kv_hidden``: width of K (and of V), ``h`` without grouped-query attention.
    """
    kv = int_in_range("kv_hidden", kv_hidden, 1)
    s = int_in_range("seq_len", seq_len, 1)
    b = int_in_range("micro_batch", micro_batch, 1)
    n_layers = int_in_range("layers", layers, 1)
    m = int_in_range("micro_batches", micro_batches, 1)
    c = int_in_range("cp", cp, 1)
    chunk = 2 * b * (s / c) * kv * positive("act_bytes", act_bytes)
    calls = 3 * (c - 1) * n_layers * m
    return AxisVolume("cp", ("send_recv",), c, calls, chunk, calls * chunk, calls)


@dataclass(frozen=True)
class ModelStateMemory:
    """Model states one GPU holds (bytes): parameters, gradients, optimizer states; ``total`` their sum."""

    zero_stage: int
    params: float
    grads: float
    optimizer: float

    @property
    def total(self) -> float:
        return self.params + self.grads + self.optimizer


def model_state_memory(
    params: float,
    *,
    zero_stage: int = 0,
    dp: int = 1,
    model_parallel: int = 1,
    param_bytes: float = 2,
    grad_bytes: float = 2,
    optimizer_bytes: float = OPTIMIZER_BYTES,
) -> ModelStateMemory:
    """ZeRO §3.1 / Fig. 1 with ``Ψ' = Ψ/model_parallel`` (``t·p``): stage 0 ``(2+2+K)Ψ'``; stage 1
    ``2Ψ' + 2Ψ' + KΨ'/N``; stage 2 ``2Ψ' + (2+K)Ψ'/N``; stage 3 ``(2+2+K)Ψ'/N``. ``K = 12`` for mixed-precision
    Adam, so 16Ψ bytes without any sharding (112 GB for 7 × 10⁹ parameters).
    """
    psi = positive("params", params) / int_in_range("model_parallel", model_parallel, 1)
    stage = int_in_range("zero_stage", zero_stage, 0, 3)
    n = int_in_range("dp", dp, 1)
    p = psi * positive("param_bytes", param_bytes)
    g = psi * positive("grad_bytes", grad_bytes)
    o = psi * non_negative("optimizer_bytes", optimizer_bytes)
    return ModelStateMemory(
        stage, p / n if stage >= 3 else p, g / n if stage >= 2 else g, o / n if stage >= 1 else o
    )


@dataclass(frozen=True)
class ActivationMemory:
    """Activations held for the backward pass (bytes): ``per_layer`` for one micro-batch, ``layers`` layers'
    worth held at once, ``total`` their product."""

    per_layer: float
    layers: int
    recompute: str
    tp: int
    sequence_parallel: bool

    @property
    def total(self) -> float:
        return self.per_layer * self.layers


def activation_memory(
    seq_len: int,
    micro_batch: int,
    hidden: int,
    heads: int,
    layers: int,
    *,
    tp: int = 1,
    sequence_parallel: bool = False,
    recompute: str = "none",
) -> ActivationMemory:
    """Activation memory per GPU, Korthikanti et al. 2022, Table 2 (16-bit activations, 1-byte dropout masks):

    ======================  ======================================
    no recomputation        ``sbh(10 + 24/t + 5as/(ht))``  (``t = 1``: ``sbh(34 + 5as/h)``, §4.1 Eq. 1)
    + sequence parallelism  ``sbh/t · (34 + 5as/h)``
    selective recompute     ``sbh(10 + 24/t)``; with sequence parallelism ``34·sbh/t``
    full recompute          ``2sbh`` (the layer input only); with sequence parallelism ``2sbh/t``
    ======================  ======================================

    ``layers``: how many layers' worth one GPU holds. Under 1F1B the first stage keeps ``p`` micro-batches of
    ``L/p`` layers in flight, ``L`` layers' worth whatever ``p`` is (§4.2.3), so pass the model's ``L``.
    Embeddings, the output layer and the loss are left out.
    """
    s = int_in_range("seq_len", seq_len, 1)
    b = int_in_range("micro_batch", micro_batch, 1)
    h = int_in_range("hidden", hidden, 1)
    a = int_in_range("heads", heads, 1)
    n_layers = int_in_range("layers", layers, 1)
    t = int_in_range("tp", tp, 1)
    mode = choice("recompute", recompute, RECOMPUTE)
    sbh = s * b * h
    attn = 5 * a * s / h
    if mode == "full":
        per = 2 * sbh / (t if sequence_parallel else 1)
    elif mode == "selective":
        per = 34 * sbh / t if sequence_parallel else sbh * (10 + 24 / t)
    elif sequence_parallel:
        per = sbh / t * (34 + attn)
    else:
        per = sbh * (10 + 24 / t + attn / t)
    return ActivationMemory(per, n_layers, mode, t, sequence_parallel)


@dataclass(frozen=True)
class LinkLoad:
    """One axis's step volume placed on a link: ``bandwidth`` (B/s per direction) and ``latency`` (s per α-step);
    ``cost`` its α-β cost on that link with nothing overlapped, ``time`` that cost's total."""

    volume: AxisVolume
    link: str
    bandwidth: float
    latency: float

    @property
    def cost(self) -> Cost:
        return self.volume.cost(self.latency, self.bandwidth, link=self.link)

    @property
    def time(self) -> float:
        return self.cost.time


def on_link(volume: AxisVolume, link: str, bandwidth: float, *, latency: float = 0.0) -> LinkLoad:
    """Put ``volume`` on the link named ``link`` (e.g. ``"NVLink"``, ``"RoCE"``) of ``bandwidth`` B/s per
    direction."""
    return LinkLoad(volume, link, positive("bandwidth", bandwidth), non_negative("latency", latency))
