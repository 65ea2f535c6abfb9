"""The catalogue's record types: a fact's :class:`Source`, accelerators, nodes, model shapes and published training
runs with what they measured, and the FLOP conventions papers use to turn a measurement into seconds per step.

Units are SI throughout: bytes, bytes per second (per GPU and per direction for links), FLOP/s, seconds.

FLOP conventions (:data:`CONVENTIONS`, FLOPs of one *training* token; ``N`` = parameters a token multiplies by —
all active parameters but the input embedding table of an untied model, which is a lookup (:attr:`ModelSpec.
matmul_params`); ``L`` layers, ``h`` hidden size, ``s`` sequence length, ``V`` vocabulary):

===================  ===========================================================================================
``6n``               ``6N`` — forward 2N + backward 4N (Kaplan et al. 2020); model FLOPs, no attention scores,
                     no recomputation.
``palm``             ``6N + 6·L·s·a·(d_qk + d_v)`` with ``a`` heads of widths ``d_qk``/``d_v`` — for ordinary
                     attention ``6N + 12·L·h·s`` (Chowdhery et al. 2022, PaLM, App. B); model FLOPs (MFU).
``8n``               ``8·P`` with ``P`` all active parameters — one extra forward for full recomputation, no
                     attention (the TFLOP/s Megatron-DeepSpeed logs for BLOOM: ``model_size·4·2·seqlen·batch``).
``megatron2021``     ``96·L·h²·(1 + s/(6h) + V/(16·L·h))`` (Narayanan et al. 2021, §5.1: per step ``96·B·s·L·h²·…``);
                     a GPT shape (MLP 4h, multi-head attention) with full recomputation: hardware FLOPs.
``megatron-mfu``     ``72·L·h²·(1 + s/(6h) + V/(12·L·h))`` (Korthikanti et al. 2022, §6: model FLOPs of the
                     same GPT shape, no recomputation).
``paper-other``      the paper's own count, given in :attr:`Measured.flops_per_token`.
===================  ===========================================================================================

:meth:`PublishedRun.step_time` turns a measurement into seconds per optimizer step with the paper's own convention:
``step_time`` as printed; ``tokens_per_second``: ``B·s / value``; ``flops_per_gpu``: ``B·s·F/(G·value)``; ``mfu``:
``B·s·F/(G·value·peak)`` — ``B`` sequences of ``s`` tokens per step, ``F`` the convention's FLOPs per token, ``G``
GPUs, ``peak`` the FLOP/s the paper divided by (default: the accelerator's dense bf16 peak).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from ..validate import choice, fraction, int_in_range, positive

__all__ = [
    "ATTENTIONS",
    "CONVENTIONS",
    "HIDES",
    "KINDS",
    "PRECISIONS",
    "RECOMPUTE",
    "AcceleratorSpec",
    "Measured",
    "ModelSpec",
    "NodeSpec",
    "PublishedRun",
    "Source",
    "model_flops_per_token",
]

#: FLOP counts papers use (``none`` in :class:`Measured`: a time or a throughput, no count needed)
CONVENTIONS: Final = ("6n", "palm", "8n", "megatron2021", "megatron-mfu", "paper-other")
KINDS: Final = ("step_time", "tokens_per_second", "flops_per_gpu", "mfu")
ATTENTIONS: Final = ("mha", "gqa", "mqa", "mla")
RECOMPUTE: Final = ("none", "selective", "full", "unknown")
PRECISIONS: Final = ("bf16", "fp16", "fp8")
#: how a run hides communication, as its paper states it (:attr:`PublishedRun.hides`): ``dp-overlap`` data-parallel
#: reduce/gather under compute; ``dp-exposed`` stated *not* overlapped; ``tp-overlap`` TP/SP collectives fused with or
#: hidden under GEMMs; ``pp-overlap`` pipeline send/receive off the critical path; ``ep-overlap`` expert all-to-all
#: under compute; ``dualpipe`` bidirectional pipeline pairing forward and backward chunks; ``hierarchical-dp`` data
#: parallelism reduced per level (inside a pod, then host to host across pods); ``node-limited-routing`` each token's
#: experts on at most a few nodes
HIDES: Final = ("dp-overlap", "dp-exposed", "tp-overlap", "pp-overlap", "ep-overlap", "dualpipe", "hierarchical-dp",
                "node-limited-routing")


@dataclass(frozen=True)
class Source:
    """Where a fact comes from: ``ref`` names the paper and table (or the documentation page and section);
    ``verified`` is False when the value could not be confirmed in a source read while writing (the book then
    marks it 需核实); ``note`` says what was confirmed, what was derived and what is direction- or unit-sensitive."""

    ref: str
    verified: bool = True
    note: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.ref, str) or not self.ref.strip():
            raise ValueError(f"ref must be a non-empty string naming the source, got {self.ref!r}")
        if not isinstance(self.verified, bool):
            raise ValueError(f"verified must be True or False, got {self.verified!r}")


def _positive_or_none(name: str, value: float | None) -> None:
    if value is not None:
        positive(name, value)


def _int_or_none(name: str, value: int | None, minimum: int, maximum: int | None = None) -> None:
    if value is not None:
        int_in_range(name, value, minimum, maximum)


@dataclass(frozen=True, kw_only=True)
class AcceleratorSpec:
    """One accelerator: ``memory`` (B, as marketed: decimal GB unless the vendor states GiB),
    ``memory_bandwidth`` (B/s), ``peak_bf16`` and ``peak_fp8`` dense tensor FLOP/s (no sparsity; ``None`` when
    the chip has no fp8); ``architecture`` the chip generation (Ampere, Hopper, Blackwell, TPU v4, Da Vinci)."""

    name: str
    architecture: str
    memory: float
    memory_bandwidth: float
    peak_bf16: float
    peak_fp8: float | None
    source: Source

    def __post_init__(self) -> None:
        positive("memory", self.memory)
        positive("memory_bandwidth", self.memory_bandwidth)
        positive("peak_bf16", self.peak_bf16)
        _positive_or_none("peak_fp8", self.peak_fp8)

    def peak(self, precision: str = "bf16") -> float:
        """Dense peak FLOP/s in ``precision`` (``bf16`` and ``fp16`` share the bf16 peak)."""
        p = choice("precision", precision, PRECISIONS)
        if p == "fp8":
            if self.peak_fp8 is None:
                raise ValueError(f"precision fp8 is not available on {self.name}")
            return self.peak_fp8
        return self.peak_bf16


@dataclass(frozen=True, kw_only=True)
class NodeSpec:
    """A server type: ``gpus_per_node`` accelerators; ``intra_bandwidth`` B/s per GPU per direction inside the
    node (NVLink, ICI), ``nic_bandwidth`` B/s per GPU per direction to the network. ``nics``, ``nic_line_rate``
    (bit/s per NIC) and ``nvlink_links`` describe the hardware behind those numbers where published."""

    name: str
    accelerator: AcceleratorSpec
    gpus_per_node: int
    intra_bandwidth: float
    nic_bandwidth: float
    source: Source
    nics: int | None = None
    nic_line_rate: float | None = None
    nvlink_links: int | None = None

    def __post_init__(self) -> None:
        int_in_range("gpus_per_node", self.gpus_per_node, 1)
        positive("intra_bandwidth", self.intra_bandwidth)
        positive("nic_bandwidth", self.nic_bandwidth)
        _int_or_none("nics", self.nics, 1)
        _positive_or_none("nic_line_rate", self.nic_line_rate)
        _int_or_none("nvlink_links", self.nvlink_links, 1)
        if self.nics is not None and self.nic_line_rate is not None:
            implied = self.nic_line_rate / 8 * self.nics / self.gpus_per_node
            if abs(implied - self.nic_bandwidth) > 1e-9 * implied:
                raise ValueError(f"nic_bandwidth must equal nic_line_rate/8·nics/gpus_per_node = {implied!r} B/s, "
                                 f"got {self.nic_bandwidth!r}")


@dataclass(frozen=True, kw_only=True)
class ModelSpec:
    """A decoder-only transformer's shape.

    ``ffn_hidden``: MLP width of a dense layer; for a mixture of experts, ``experts`` routed experts of width
    ``moe_ffn_hidden`` (default ``ffn_hidden``) of which ``top_k`` run per token, plus ``shared_experts`` that every
    token uses, in every layer after the ``dense_layers`` leading dense ones. ``gated_mlp``: three matrices
    (SwiGLU) instead of two. ``head_dim`` defaults to ``hidden/heads``. Multi-head latent attention (``mla``,
    DeepSeek-V2/V3) needs ``q_lora_rank`` (0: no query compression), ``kv_lora_rank``, ``rope_head_dim`` (the
    decoupled RoPE part of a query/key head) and ``v_head_dim``; ``head_dim`` is then the no-RoPE part.
    ``published_params``: the count the source states, for comparison with :attr:`params`.
    """

    name: str
    layers: int
    hidden: int
    ffn_hidden: int
    heads: int
    kv_heads: int
    vocab: int
    seq_len: int
    source: Source
    experts: int = 1
    top_k: int = 1
    shared_experts: int = 0
    moe_ffn_hidden: int | None = None
    dense_layers: int = 0
    gated_mlp: bool = True
    tied_embeddings: bool = False
    attention: str = "mha"
    head_dim: int | None = None
    q_lora_rank: int | None = None
    kv_lora_rank: int | None = None
    rope_head_dim: int | None = None
    v_head_dim: int | None = None
    published_params: float | None = None

    def __post_init__(self) -> None:
        for name in ("layers", "hidden", "ffn_hidden", "heads", "vocab", "seq_len", "experts"):
            int_in_range(name, getattr(self, name), 1)
        int_in_range("kv_heads", self.kv_heads, 1, self.heads)
        int_in_range("top_k", self.top_k, 1, self.experts)
        int_in_range("shared_experts", self.shared_experts, 0)
        _int_or_none("moe_ffn_hidden", self.moe_ffn_hidden, 1)
        _int_or_none("head_dim", self.head_dim, 1)
        _positive_or_none("published_params", self.published_params)
        int_in_range("dense_layers", self.dense_layers, 0, self.layers - 1)
        a = choice("attention", self.attention, ATTENTIONS)
        if self.experts == 1 and (self.top_k != 1 or self.shared_experts or self.dense_layers
                                  or self.moe_ffn_hidden is not None):
            raise ValueError("top_k, shared_experts, dense_layers and moe_ffn_hidden describe a mixture of experts: "
                             f"they need experts > 1, got experts={self.experts}")
        if self.head_dim is None and self.hidden % self.heads:
            raise ValueError(f"hidden must be a multiple of heads unless head_dim is given, got hidden={self.hidden}, "
                             f"heads={self.heads}")
        if self.heads % self.kv_heads:
            raise ValueError(f"heads must be a multiple of kv_heads, got heads={self.heads}, kv_heads={self.kv_heads}")
        mla = (self.q_lora_rank, self.kv_lora_rank, self.rope_head_dim, self.v_head_dim)
        if a == "mla":
            for name, v in zip(("q_lora_rank", "kv_lora_rank", "rope_head_dim", "v_head_dim"), mla, strict=True):
                if v is None:
                    raise ValueError(f"{name} is required for attention mla")
                int_in_range(name, v, 0 if name == "q_lora_rank" else 1)
        elif any(v is not None for v in mla):
            raise ValueError(f"q_lora_rank, kv_lora_rank, rope_head_dim and v_head_dim need attention mla, got {a}")
        expected = {"mha": self.kv_heads == self.heads, "mqa": self.kv_heads == 1,
                    "gqa": 1 < self.kv_heads < self.heads, "mla": self.kv_heads == self.heads}[a]
        if not expected:
            raise ValueError(f"attention {a} does not fit kv_heads={self.kv_heads} with heads={self.heads} "
                             "(mha and mla: kv_heads = heads; mqa: 1; gqa: between)")

    # --- widths -------------------------------------------------------------------------------------------------
    @property
    def head_size(self) -> int:
        """Width of one query/key head without the RoPE part (``hidden/heads`` unless ``head_dim`` is given)."""
        return self.head_dim if self.head_dim is not None else self.hidden // self.heads

    @property
    def qk_head_dim(self) -> int:
        """Width of the query·key product of one head (MLA: no-RoPE part + RoPE part)."""
        return self.head_size + (self.rope_head_dim or 0)

    @property
    def value_head_dim(self) -> int:
        """Width of one value head."""
        return self.v_head_dim if self.v_head_dim is not None else self.head_size

    @property
    def expert_ffn_hidden(self) -> int:
        """MLP width of one routed (and one shared) expert."""
        return self.moe_ffn_hidden if self.moe_ffn_hidden is not None else self.ffn_hidden

    @property
    def moe_layers(self) -> int:
        """Layers whose MLP is a mixture of experts (0 for a dense model)."""
        return self.layers - self.dense_layers if self.experts > 1 else 0

    # --- parameters ---------------------------------------------------------------------------------------------
    @property
    def attention_params(self) -> float:
        """One layer's attention projections and its two norms (no biases)."""
        h, a = float(self.hidden), float(self.heads)
        if self.attention == "mla":
            qlr, kvlr = float(self.q_lora_rank or 0), float(self.kv_lora_rank or 0)
            q = h * a * self.qk_head_dim if qlr == 0 else h * qlr + qlr + qlr * a * self.qk_head_dim
            kv = h * (kvlr + (self.rope_head_dim or 0)) + kvlr + kvlr * a * (self.head_size + self.value_head_dim)
            o = a * self.value_head_dim * h
            return q + kv + o + 2 * h
        q_o = 2 * h * a * self.head_size
        kv = 2 * h * self.kv_heads * self.head_size
        return q_o + kv + 2 * h

    def mlp_params(self, width: int) -> float:
        """One MLP of ``width``: ``3·h·width`` gated, ``2·h·width`` otherwise."""
        return (3.0 if self.gated_mlp else 2.0) * self.hidden * width

    @property
    def embedding_params(self) -> float:
        """Input embedding and output layer (one matrix if tied)."""
        return float(self.vocab) * self.hidden * (1 if self.tied_embeddings else 2)

    @property
    def params(self) -> float:
        """All parameters (router included; biases and position embeddings left out)."""
        dense = (self.layers - self.moe_layers) * self.mlp_params(self.ffn_hidden)
        per_moe = ((self.experts + self.shared_experts) * self.mlp_params(self.expert_ffn_hidden)
                   + self.hidden * self.experts)
        return self.layers * self.attention_params + dense + self.moe_layers * per_moe + self.embedding_params

    @property
    def active_params(self) -> float:
        """Parameters one token goes through: ``top_k`` routed plus the shared experts in each MoE layer."""
        if self.experts == 1:
            return self.params
        dense = self.dense_layers * self.mlp_params(self.ffn_hidden)
        per_moe = ((self.top_k + self.shared_experts) * self.mlp_params(self.expert_ffn_hidden)
                   + self.hidden * self.experts)
        return self.layers * self.attention_params + dense + self.moe_layers * per_moe + self.embedding_params

    @property
    def matmul_params(self) -> float:
        """Active parameters that take part in a matrix multiply: all but the input embedding table of an untied
        model (a lookup); a tied table is the output layer's matrix and counts."""
        return self.active_params - (0.0 if self.tied_embeddings else float(self.vocab) * self.hidden)

    def attention_flops_per_token(self, seq_len: int | None = None) -> float:
        """Attention scores and their weighted sum, forward and backward: ``6·L·s·a·(d_qk + d_v)`` per token
        (``12·L·h·s`` for ordinary attention; PaLM App. B, no causal halving)."""
        s = self.seq_len if seq_len is None else int_in_range("seq_len", seq_len, 1)
        return 6.0 * self.layers * s * self.heads * (self.qk_head_dim + self.value_head_dim)


def model_flops_per_token(model: ModelSpec, convention: str, *, seq_len: int | None = None) -> float:
    """FLOPs per training token of ``model`` under ``convention`` (one of :data:`CONVENTIONS` but ``paper-other``,
    which only the paper can supply), at ``seq_len`` (default: the model's). Formulas in the module docstring."""
    c = choice("convention", convention, CONVENTIONS)
    s = model.seq_len if seq_len is None else int_in_range("seq_len", seq_len, 1)
    if c == "6n":
        return 6.0 * model.matmul_params
    if c == "palm":
        return 6.0 * model.matmul_params + model.attention_flops_per_token(s)
    if c == "8n":
        return 8.0 * model.active_params
    big_l, h, v = float(model.layers), float(model.hidden), float(model.vocab)
    if c == "megatron2021":
        return 96.0 * big_l * h * h * (1 + s / (6 * h) + v / (16 * big_l * h))
    if c == "megatron-mfu":
        return 72.0 * big_l * h * h * (1 + s / (6 * h) + v / (12 * big_l * h))
    raise ValueError("convention paper-other has no formula: the paper's FLOPs per token go in "
                     "Measured.flops_per_token")


@dataclass(frozen=True, kw_only=True)
class Measured:
    """What a paper measured for a run: ``kind`` (one of :data:`KINDS`) and ``value`` in SI units (s, tokens/s,
    FLOP/s per GPU, or MFU as a fraction); ``convention`` the FLOP count the paper used (:data:`CONVENTIONS`; ``none``
    for a time or a throughput); ``flops_per_token`` the paper's own count when the convention is ``paper-other``;
    ``peak`` the FLOP/s per GPU an MFU was divided by when it is not the accelerator's dense bf16 peak."""

    kind: str
    value: float
    convention: str
    source: Source
    flops_per_token: float | None = None
    peak: float | None = None

    def __post_init__(self) -> None:
        k = choice("kind", self.kind, KINDS)
        if k == "mfu":
            fraction("value", self.value, low_open=True)
        else:
            positive("value", self.value)
        c = choice("convention", self.convention, (*CONVENTIONS, "none"))
        if k in ("flops_per_gpu", "mfu") and c == "none":
            raise ValueError(f"convention must name a FLOP count for a {k} measurement, got none")
        if (c == "paper-other") != (self.flops_per_token is not None):
            raise ValueError("flops_per_token must be given exactly when convention is paper-other")
        _positive_or_none("flops_per_token", self.flops_per_token)
        _positive_or_none("peak", self.peak)


@dataclass(frozen=True, kw_only=True)
class PublishedRun:
    """A training run as its paper reports it: the layout (``gpus = tp·cp·pp·dp``; ``ep`` splits ``dp·cp`` as in
    Megatron-Core), ``virtual_stages`` per pipeline rank (None: not published), ``micro_batch`` and ``global_batch``
    in sequences of ``seq_len`` tokens, ZeRO stage (None: not published; FSDP full sharding is 3), recomputation,
    sequence parallelism, precision of the matrix multiplies, and the measurement. ``reported_step_time``: seconds
    per step the paper prints besides the measurement (None if it prints none). ``notes``: how the run hides
    communication (DualPipe, overlapped all-to-all, hierarchical DP, …) and what the entry assumes; ``hides``: the
    same as tags of :data:`HIDES` (only what the paper states; empty when it says nothing)."""

    name: str
    model: ModelSpec
    node: NodeSpec
    gpus: int
    tp: int
    pp: int
    dp: int
    global_batch: int
    seq_len: int
    recompute: str
    precision: str
    measured: Measured
    source: Source
    cp: int = 1
    ep: int = 1
    virtual_stages: int | None = None
    micro_batch: int | None = None
    zero_stage: int | None = None
    sequence_parallel: bool | None = None
    reported_step_time: float | None = None
    notes: str = ""
    hides: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        g = int_in_range("gpus", self.gpus, 1)
        for name in ("tp", "pp", "dp", "cp", "ep"):
            int_in_range(name, getattr(self, name), 1)
        if self.tp * self.cp * self.pp * self.dp != g:
            raise ValueError(f"gpus must equal tp·cp·pp·dp = {self.tp * self.cp * self.pp * self.dp}, got {g}")
        if (self.dp * self.cp) % self.ep:
            raise ValueError(f"ep must divide dp·cp = {self.dp * self.cp}, got {self.ep}")
        if self.ep > 1 and (self.model.experts == 1 or self.model.experts % self.ep):
            raise ValueError(f"ep must divide the model's {self.model.experts} experts, got {self.ep}")
        if self.pp > self.model.layers:
            raise ValueError(f"pp must be at most the model's {self.model.layers} layers, got {self.pp}")
        b = int_in_range("global_batch", self.global_batch, 1)
        s = int_in_range("seq_len", self.seq_len, 1)
        if s % self.cp:
            raise ValueError(f"seq_len must be a multiple of cp = {self.cp}, got {s}")
        _int_or_none("virtual_stages", self.virtual_stages, 1)
        _int_or_none("micro_batch", self.micro_batch, 1)
        _int_or_none("zero_stage", self.zero_stage, 0, 3)
        per_replica = self.dp * (self.micro_batch or 1)
        if b % per_replica:
            raise ValueError(f"global_batch must be a multiple of dp·micro_batch = {per_replica}, got {b}")
        choice("recompute", self.recompute, RECOMPUTE)
        choice("precision", self.precision, PRECISIONS)
        if self.sequence_parallel is not None and not isinstance(self.sequence_parallel, bool):
            raise ValueError(f"sequence_parallel must be True, False or None, got {self.sequence_parallel!r}")
        _positive_or_none("reported_step_time", self.reported_step_time)
        if not isinstance(self.hides, tuple):
            raise ValueError(f"hides must be a tuple of tags, got {self.hides!r}")
        for tag in self.hides:
            choice("hides", tag, HIDES)
        if "dp-overlap" in self.hides and "dp-exposed" in self.hides:
            raise ValueError("hides cannot hold both dp-overlap and dp-exposed")
        m = self.measured
        if m.kind == "flops_per_gpu" and m.value > self.node.accelerator.peak(self.precision):
            raise ValueError(f"measured.value must be at most the {self.precision} peak "
                             f"{self.node.accelerator.peak(self.precision)!r} FLOP/s, got {m.value!r}")

    @property
    def tokens_per_step(self) -> int:
        """``global_batch · seq_len``."""
        return self.global_batch * self.seq_len

    @property
    def micro_batches(self) -> int | None:
        """Micro-batches per pipeline per step, ``global_batch/(dp·micro_batch)`` (None if the micro-batch is not
        published)."""
        return None if self.micro_batch is None else self.global_batch // (self.dp * self.micro_batch)

    def flops_per_token(self, convention: str | None = None) -> float:
        """FLOPs per token under ``convention`` (default: the paper's) at this run's sequence length."""
        c = self.measured.convention if convention is None else convention
        if c == "paper-other" and convention is None and self.measured.flops_per_token is not None:
            return self.measured.flops_per_token
        if c == "none":
            raise ValueError("convention must name a FLOP count; this run's measurement is a time or a throughput")
        return model_flops_per_token(self.model, c, seq_len=self.seq_len)

    def step_time(self) -> float:
        """Seconds per optimizer step implied by the measurement, with the paper's own FLOP convention
        (formulas in the module docstring)."""
        m = self.measured
        if m.kind == "step_time":
            return m.value
        if m.kind == "tokens_per_second":
            return self.tokens_per_step / m.value
        flops = self.tokens_per_step * self.flops_per_token()
        if m.kind == "flops_per_gpu":
            return flops / (self.gpus * m.value)
        peak = m.peak if m.peak is not None else self.node.accelerator.peak_bf16
        return flops / (self.gpus * m.value * peak)

    def mfu(self, convention: str = "palm") -> float:
        """Model FLOPs utilization implied by :meth:`step_time` under ``convention`` (default PaLM's), against the
        accelerator's dense bf16 peak — one scale on which runs of different papers compare."""
        flops = self.tokens_per_step * model_flops_per_token(self.model, convention, seq_len=self.seq_len)
        return flops / (self.step_time() * self.gpus * self.node.accelerator.peak_bf16)
