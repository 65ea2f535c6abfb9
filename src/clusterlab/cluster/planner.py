"""A 5D parallelism planner: enumerate TP × CP × PP × DP (× EP inside DP), keep what fits, rank by step time (§9.6.5.1).

Convention (Megatron-Core's rank order ``tp-cp-ep-dp-pp``): the world is ``G = t·c·p·d``; expert parallelism does
not take GPUs of its own but splits the data-parallel group, so ``e`` divides ``d`` and the experts are replicated
over ``d·c/e`` "expert-data-parallel" ranks. The original text's MoE row "TP 8 × PP 8 × EP 8 × DP 8" therefore reads
dense DP 64 = EP 8 × expert-DP 8.

**Hard constraints** (a plan that breaks one is kept, marked infeasible, with a reason for each broken rule):
``t`` divides the attention heads, the KV heads, the FFN width and the GPUs per node (TP stays on NVLink);
``p`` divides the layers; ``e`` divides the experts and ``d``; ``c`` divides the sequence length; the global batch
is a whole number of sequences that splits into ``d`` replicas of whole micro-batches; the memory of one GPU
(model states by ZeRO stage + activations held under 1F1B + one layer's working activations) fits in
``memory_fraction`` of the accelerator's memory.

**Step time** (a stated model, each term from a compute module): compute = hardware FLOPs per GPU ÷ (peak · η)
(:func:`clusterlab.cluster.compute.flops_per_token`, ``6N_active + 12·L·h·s``, plus the recomputed forward:
``+2N + 4Lhs`` for full recomputation, ``+4Lhs`` for selective); the pipeline bubble ``(p−1)/(v·m)`` of the
compute time (:func:`clusterlab.cluster.pipeline.bubble`, Megatron's ratio to ideal time; ``v`` at most the layers
of a stage); communication per axis from :mod:`clusterlab.cluster.parallel` on its link — a group whose ranks fit in
one node (TP always; CP, EP, DP when ``t·c``, ``t·c·e``, ``t·c·d`` divide the node) on ``intra_bandwidth``, the rest
on ``inter_bandwidth`` (B/s per GPU and direction), plus a latency per ring step or message. TP, EP and PP transfers
are exposed; a share ``overlap`` of DP runs under the compute (:func:`clusterlab.cluster.compute.step_time`, at most
the compute time); each CP chunk send hides under one block of attention (``4·b·(s/c)²·h/t`` FLOPs) and only the
excess is exposed. A CP rank must keep at least ``min_cp_tokens`` tokens. MFU (PaLM) = model FLOPs ÷ (peak · step).

Limits: uniform stages (the embedding and output layer are added to the busiest stage's memory only), no
interleaving memory, no logits memory, uniform expert routing, EP and CP on the same link model as
the others. It ranks plans; it does not replace a benchmark of the best two or three.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from typing import Final

from ..validate import choice, fraction, int_in_range, non_negative, positive
from . import compute, parallel, pipeline

__all__ = [
    "Accelerator",
    "Cluster",
    "Memory",
    "Plan",
    "PlanOptions",
    "StepParts",
    "Transformer",
    "clear_caches",
    "divisors",
    "evaluate",
    "memory_per_gpu",
    "plan",
]

SCHEMES: Final = ("ddp", "zero1", "zero2", "zero3")


def divisors(n: int) -> tuple[int, ...]:
    """The positive divisors of ``n`` ≥ 1, ascending."""
    n = int_in_range("n", n, 1)
    small = [k for k in range(1, math.isqrt(n) + 1) if n % k == 0]
    return tuple(sorted({*small, *(n // k for k in small)}))


@dataclass(frozen=True)
class Transformer:
    """A decoder-only transformer. ``ffn_hidden``: width of the MLP (of one expert for MoE); ``gated_mlp``: three
    matrices (SwiGLU, Llama) instead of two (GPT); ``experts`` > 1 makes every layer's MLP a mixture of ``experts``
    experts of which ``top_k`` run per token; ``tied_embeddings``: input and output embedding share one matrix."""

    layers: int
    hidden: int
    ffn_hidden: int
    heads: int
    kv_heads: int
    vocab: int
    seq_len: int
    experts: int = 1
    top_k: int = 1
    gated_mlp: bool = True
    tied_embeddings: bool = False

    def __post_init__(self) -> None:
        for name in ("layers", "hidden", "ffn_hidden", "heads", "kv_heads", "vocab", "seq_len", "experts"):
            int_in_range(name, getattr(self, name), 1)
        int_in_range("top_k", self.top_k, 1, self.experts)
        int_in_range("kv_heads", self.kv_heads, 1, self.heads)
        if self.hidden % self.heads or self.heads % self.kv_heads:
            raise ValueError(f"hidden must be a multiple of heads and heads of kv_heads, got hidden={self.hidden}, "
                             f"heads={self.heads}, kv_heads={self.kv_heads}")

    @property
    def kv_hidden(self) -> int:
        """Width of K (and of V): ``kv_heads · hidden/heads``."""
        return self.kv_heads * (self.hidden // self.heads)

    @property
    def attention_params(self) -> float:
        """Q, K, V, O projections and two norms, one layer."""
        return 2.0 * self.hidden * self.hidden + 2.0 * self.hidden * self.kv_hidden + 2.0 * self.hidden

    @property
    def expert_params(self) -> float:
        """One MLP (one expert), one layer."""
        return (3.0 if self.gated_mlp else 2.0) * self.hidden * self.ffn_hidden

    @property
    def embedding_params(self) -> float:
        return self.vocab * self.hidden * (1.0 if self.tied_embeddings else 2.0)

    @property
    def dense_params(self) -> float:
        """Everything but the experts' MLPs: attention, router, embeddings (and the MLP of a dense model)."""
        mlp = self.expert_params if self.experts == 1 else self.hidden * self.experts
        return self.layers * (self.attention_params + mlp) + self.embedding_params

    @property
    def moe_params(self) -> float:
        """The experts' MLPs of all layers (0 for a dense model)."""
        return self.layers * self.experts * self.expert_params if self.experts > 1 else 0.0

    @property
    def params(self) -> float:
        return self.dense_params + self.moe_params

    @property
    def active_params(self) -> float:
        """Parameters one token goes through (``top_k`` experts per layer)."""
        return self.dense_params + self.layers * self.top_k * self.expert_params * (self.experts > 1)


@dataclass(frozen=True)
class Accelerator:
    """One GPU: ``memory`` in bytes, ``peak_flops`` dense bf16 FLOP/s."""

    memory: float
    peak_flops: float

    def __post_init__(self) -> None:
        positive("memory", self.memory)
        positive("peak_flops", self.peak_flops)


@dataclass(frozen=True)
class Cluster:
    """``gpus`` GPUs, ``gpus_per_node`` per node; bandwidths in B/s per GPU and direction (NVLink inside a node,
    the NIC between nodes)."""

    gpus: int
    gpus_per_node: int
    accelerator: Accelerator
    intra_bandwidth: float
    inter_bandwidth: float

    def __post_init__(self) -> None:
        int_in_range("gpus", self.gpus, 1)
        int_in_range("gpus_per_node", self.gpus_per_node, 1)
        if not isinstance(self.accelerator, Accelerator):
            raise ValueError("accelerator must be an Accelerator")
        positive("intra_bandwidth", self.intra_bandwidth)
        positive("inter_bandwidth", self.inter_bandwidth)


@dataclass(frozen=True)
class PlanOptions:
    """What the planner assumes. ``zero_stage`` 0–3 over the DP×CP group; bytes per parameter of the bf16 weights,
    the gradients and the optimizer states (``K`` = 12 for mixed-precision Adam); ``micro_batch`` sequences per
    micro-batch; ``recompute`` in ``parallel.RECOMPUTE``; ``efficiency`` η of the kernels; ``overlap`` share of DP
    and CP communication hidden under compute; ``memory_fraction`` of the GPU memory the plan may use (the rest:
    communication buffers, fragmentation); ``chunks`` v of the interleaved schedule; ``trim_ends``: layers the first and
    the last stage may each give up to make room for the embedding and output layer (Llama 3 §3.3.2: one each), so
    that ``p`` must divide ``L`` or ``L + 2·trim_ends``."""

    zero_stage: int = 1
    param_bytes: float = 2.0
    grad_bytes: float = 2.0
    optimizer_bytes: float = 12.0
    micro_batch: int = 1
    recompute: str = "full"
    sequence_parallel: bool = True
    efficiency: float = 0.6
    overlap: float = 0.5
    memory_fraction: float = 0.9
    chunks: int = 1
    trim_ends: int = 0
    min_cp_tokens: int = 4096
    intra_latency: float = 5e-6
    inter_latency: float = 20e-6

    def __post_init__(self) -> None:
        int_in_range("zero_stage", self.zero_stage, 0, 3)
        positive("param_bytes", self.param_bytes)
        positive("grad_bytes", self.grad_bytes)
        positive("optimizer_bytes", self.optimizer_bytes)
        int_in_range("micro_batch", self.micro_batch, 1)
        choice("recompute", self.recompute, parallel.RECOMPUTE)
        fraction("efficiency", self.efficiency, low_open=True)
        fraction("overlap", self.overlap)
        fraction("memory_fraction", self.memory_fraction, low_open=True)
        int_in_range("chunks", self.chunks, 1)
        int_in_range("trim_ends", self.trim_ends, 0)
        int_in_range("min_cp_tokens", self.min_cp_tokens, 1)
        non_negative("intra_latency", self.intra_latency)
        non_negative("inter_latency", self.inter_latency)

    def stage_layers(self, layers: int, pp: int) -> float:
        """Layers of a middle stage: ``L/p``, or ``(L + 2·trim_ends)/p`` when only that divides evenly."""
        if pp == 1 or layers % pp == 0 or (layers + 2 * self.trim_ends) % pp:
            return layers / pp
        return (layers + 2 * self.trim_ends) / pp


@dataclass(frozen=True)
class Memory:
    """Bytes one GPU of the busiest (first) stage holds: ``states`` (parameters, gradients, optimizer, from
    :func:`clusterlab.cluster.parallel.model_state_memory` for the dense and the expert part), ``activations`` held
    for the backward pass and ``working`` (one layer at the selective level — attention scores are never stored, as
    with flash attention — while it is recomputed; 0 without recomputation)."""

    params: float
    grads: float
    optimizer: float
    activations: float
    working: float

    @property
    def states(self) -> float:
        return self.params + self.grads + self.optimizer

    @property
    def total(self) -> float:
        return self.states + self.activations + self.working




@functools.lru_cache(maxsize=4096)
def _activation(model: Transformer, o: PlanOptions, tp: int) -> tuple[float, float]:
    """Per-layer activations held (at ``o.recompute``) and while recomputing (selective level), one micro-batch."""
    def per(recompute: str) -> float:
        return parallel.activation_memory(model.seq_len, o.micro_batch, model.hidden, model.heads, 1, tp=tp,
                                          sequence_parallel=o.sequence_parallel, recompute=recompute).per_layer
    return per(o.recompute), per("selective")


_tp_volume = functools.lru_cache(maxsize=65536)(parallel.tp_volume)
_cp_volume = functools.lru_cache(maxsize=65536)(parallel.cp_volume)
_ep_volume = functools.lru_cache(maxsize=65536)(parallel.ep_volume)
_pp_volume = functools.lru_cache(maxsize=65536)(parallel.pp_volume)
_dp_volume = functools.lru_cache(maxsize=65536)(parallel.dp_volume)
_flops = functools.lru_cache(maxsize=256)(compute.flops_per_token)
_CACHES: Final = (_activation, _tp_volume, _cp_volume, _ep_volume, _pp_volume, _dp_volume, _flops)


def clear_caches() -> None:
    """Forget the memoised per-axis volumes (for honest timings)."""
    for f in _CACHES:
        f.cache_clear()


def memory_per_gpu(
    model: Transformer,
    tp: int,
    pp: int,
    dp: int,
    cp: int = 1,
    ep: int = 1,
    *,
    micro_batches: float = 1.0,
    options: PlanOptions | None = None,
) -> Memory:
    """Memory of one GPU under ``tp``, ``pp``, ``dp``, ``cp``, ``ep`` with ``micro_batches`` per step and replica
    (stages split evenly, ``L/p`` as a real number; ZeRO shards the dense part over ``d·c`` ranks, the experts over
    ``d·c/e``). Non-increasing in every axis."""
    o = options or PlanOptions()
    t, p, d = int_in_range("tp", tp, 1), int_in_range("pp", pp, 1), int_in_range("dp", dp, 1)
    c, e = int_in_range("cp", cp, 1), int_in_range("ep", ep, 1)
    m = positive("micro_batches", micro_batches)
    extra = model.vocab * model.hidden * (2.0 if p == 1 and not model.tied_embeddings else 1.0)
    lay = o.stage_layers(model.layers, p) / model.layers  # share of the layers on the busiest stage
    dense = (model.dense_params - model.embedding_params) * lay + extra

    def states(psi: float, n: int, mp: int) -> parallel.ModelStateMemory:
        return parallel.model_state_memory(psi, zero_stage=o.zero_stage, dp=n, model_parallel=mp,
                                           param_bytes=o.param_bytes, grad_bytes=o.grad_bytes,
                                           optimizer_bytes=o.optimizer_bytes)

    parts = [states(dense, d * c, t)]
    if model.moe_params:
        parts.append(states(model.moe_params * lay, max(1, d * c // e), t * e))
    per_layer, work = _activation(model, o, t)
    held = o.stage_layers(model.layers, p) * min(p, m)  # 1F1B: the first stage keeps min(p, m) micro-batches
    return Memory(sum(x.params for x in parts), sum(x.grads for x in parts), sum(x.optimizer for x in parts),
                  per_layer / c * held, 0.0 if o.recompute == "none" else work / c)


@dataclass(frozen=True)
class StepParts:
    """One step of one GPU (s): ``compute`` (hardware FLOPs at η), ``bubble``, exposed communication per axis
    (``tp``, ``cp``, ``ep``, ``pp``, ``dp``; DP and CP after the overlap), and ``comm`` (all axes on their links,
    before any overlap)."""

    compute: float
    bubble: float
    tp: float
    cp: float
    ep: float
    pp: float
    dp: float
    comm: float

    @property
    def exposed(self) -> float:
        return self.tp + self.cp + self.ep + self.pp + self.dp

    @property
    def total(self) -> float:
        return self.compute + self.bubble + self.exposed


@dataclass(frozen=True)
class Plan:
    """One layout: the five sizes, ``micro_batches`` m per step and replica, ``memory`` (:class:`Memory`),
    ``parts`` (:class:`StepParts`), ``mfu`` (PaLM), ``reasons`` (Chinese, one per broken hard constraint) and
    ``loads``: each axis's step volume on its link (TP, CP, EP if any, PP, then DP: dense, experts)."""

    tp: int
    pp: int
    dp: int
    cp: int
    ep: int
    micro_batches: int
    memory: Memory
    parts: StepParts
    mfu: float
    reasons: tuple[str, ...] = field(default=())
    loads: tuple[parallel.LinkLoad, ...] = field(default=(), repr=False)

    @property
    def feasible(self) -> bool:
        return not self.reasons

    @property
    def memory_per_gpu(self) -> float:
        return self.memory.total

    @property
    def step_time(self) -> float:
        return self.parts.total

    @property
    def gpus(self) -> int:
        return self.tp * self.cp * self.pp * self.dp

    @property
    def expert_dp(self) -> int:
        """Replicas of each expert: ``d·c/e``."""
        return self.dp * self.cp // self.ep

    def label(self) -> str:
        parts = [f"TP{self.tp}", f"CP{self.cp}", f"PP{self.pp}", f"DP{self.dp}"]
        return " ".join(parts + ([f"(EP{self.ep}×eDP{self.expert_dp})"] if self.ep > 1 else []))


def _load(volume: parallel.AxisVolume, cluster: Cluster, o: PlanOptions, span: int) -> parallel.LinkLoad:
    """``volume`` on the link of a group whose ranks lie within ``span`` consecutive GPUs."""
    if cluster.gpus_per_node % span == 0:
        return parallel.on_link(volume, "NVLink", cluster.intra_bandwidth, latency=o.intra_latency)
    return parallel.on_link(volume, "网络", cluster.inter_bandwidth, latency=o.inter_latency)


def _reasons(model: Transformer, cluster: Cluster, batch: int, tp: int, pp: int, dp: int, cp: int, ep: int,
             o: PlanOptions) -> list[str]:
    r = []
    if model.heads % tp or model.kv_heads % tp or model.ffn_hidden % tp:
        r.append(f"TP {tp} 不整除注意力头数 {model.heads}、KV 头数 {model.kv_heads} 或 FFN 宽度 {model.ffn_hidden}")
    if cluster.gpus_per_node % tp:
        r.append(f"TP {tp} 不在一个节点（{cluster.gpus_per_node} 张卡）之内")
    if model.layers % pp and (model.layers + 2 * o.trim_ends) % pp:
        extra = f" + 2×{o.trim_ends}" if o.trim_ends else ""
        r.append(f"PP {pp} 不整除层数 {model.layers}{extra}")
    if model.experts % ep or dp % ep:
        r.append(f"EP {ep} 不整除专家数 {model.experts} 或 DP {dp}")
    if model.seq_len % cp:
        r.append(f"CP {cp} 不整除序列长度 {model.seq_len}")
    elif cp > 1 and model.seq_len // cp < o.min_cp_tokens:
        r.append(f"CP {cp} 使每个 rank 只剩 {model.seq_len // cp} 个 token（少于 {o.min_cp_tokens}）")
    if batch % model.seq_len or (batch // model.seq_len) % (dp * o.micro_batch):
        r.append(f"全局批 {batch} token 不能分成 DP {dp} 份整数个 micro-batch")
    return r


def evaluate(
    model: Transformer,
    cluster: Cluster,
    global_batch_tokens: int,
    tp: int,
    pp: int,
    dp: int,
    cp: int = 1,
    ep: int = 1,
    *,
    options: PlanOptions | None = None,
) -> Plan:
    """The :class:`Plan` of one layout (``tp·cp·pp·dp`` must equal the GPU count); see the module docstring."""
    o = options or PlanOptions()
    batch = int_in_range("global_batch_tokens", global_batch_tokens, 1)
    t, p, d = int_in_range("tp", tp, 1), int_in_range("pp", pp, 1), int_in_range("dp", dp, 1)
    c, e = int_in_range("cp", cp, 1), int_in_range("ep", ep, 1)
    if t * c * p * d != cluster.gpus:
        raise ValueError(f"tp·cp·pp·dp must equal the GPU count {cluster.gpus}, got {t}·{c}·{p}·{d} = {t * c * p * d}")
    reasons = _reasons(model, cluster, batch, t, p, d, c, e, o)
    seqs = max(1, batch // model.seq_len)
    m = max(1, math.ceil(seqs / (d * o.micro_batch)))
    mem = memory_per_gpu(model, t, p, d, c, e, micro_batches=m, options=o)
    usable = o.memory_fraction * cluster.accelerator.memory
    if mem.total > usable:
        reasons.append(f"每卡显存 {mem.total / 1e9:.1f} GB 超过可用的 {usable / 1e9:.1f} GB")
    # compute: model FLOPs (6N + 12Lhs) plus the recomputed forward
    fpt = _flops(model.active_params, model.layers, model.hidden, model.seq_len)
    redo = {"none": 0.0, "selective": fpt.attention / 3, "full": fpt.dense / 3 + fpt.attention / 3}[o.recompute]
    tokens_gpu = batch / cluster.gpus
    peak = cluster.accelerator.peak_flops
    lay = max(1, round(o.stage_layers(model.layers, p)))
    seq_c = max(1, model.seq_len // c)
    tpv = _tp_volume(model.hidden, seq_c, o.micro_batch, lay, m, t, sequence_parallel=o.sequence_parallel,
                             recompute=o.recompute == "full")
    cpv = _cp_volume(model.kv_hidden, model.seq_len, o.micro_batch, lay, m, c)
    epv = (_ep_volume(model.hidden, o.micro_batch * seq_c, lay, m, e, top_k=model.top_k)
           if model.experts > 1 else None)
    ppv = _pp_volume(model.hidden, seq_c, o.micro_batch, m, p, tp=t)
    scheme = SCHEMES[o.zero_stage]
    groups = [(model.dense_params / (t * p), d * c)]
    if model.moe_params:
        groups.append((model.moe_params / (t * p * e), max(1, d * c // e)))
    dpv = [_dp_volume(scheme, psi, n, layers=lay, param_bytes=o.param_bytes, grad_bytes=o.grad_bytes)
           for psi, n in groups if n > 1]
    span_tc = t * c
    loads = [_load(tpv, cluster, o, t), _load(cpv, cluster, o, span_tc)]
    if epv:
        loads.append(_load(epv, cluster, o, span_tc * e))
    loads += [_load(ppv, cluster, o, span_tc * d * p)] + [_load(x, cluster, o, span_tc * d) for x in dpv]
    t_tp = loads[0].time
    # ring attention: each K/V chunk send runs under one block of attention, 4·b·(s/c)²·h/t FLOPs
    block = 4 * o.micro_batch * seq_c**2 * model.hidden / t / (peak * o.efficiency)
    t_cp_link = loads[1].time
    t_cp = max(0.0, t_cp_link - cpv.calls * block)
    t_ep = loads[2].time if epv else 0.0
    v = max(1, min(o.chunks, lay))
    t_pp = loads[2 + bool(epv)].time * v
    t_dp = sum(x.time for x in loads[3 + bool(epv):])
    st = compute.step_time((fpt.total + redo) * tokens_gpu, peak, efficiency=o.efficiency, comm=t_dp,
                           overlap=o.overlap)
    bub = pipeline.bubble(p, m, chunks=v).of_ideal * st.compute
    parts = StepParts(st.compute, bub, t_tp, t_cp, t_ep, t_pp, st.exposed, t_tp + t_cp_link + t_ep + t_pp + t_dp)
    mfu = fpt.total * tokens_gpu / (peak * parts.total)
    return Plan(t, p, d, c, e, m, mem, parts, mfu, tuple(reasons), tuple(loads))


def plan(
    model: Transformer,
    cluster: Cluster,
    global_batch_tokens: int,
    *,
    options: PlanOptions | None = None,
) -> tuple[Plan, ...]:
    """Every factorisation ``G = t·c·p·d`` with ``t`` dividing the GPUs per node and ``c`` dividing the sequence
    length (other sizes are structurally impossible and not listed), and every ``e`` dividing ``d`` and at most the
    expert count, evaluated by :func:`evaluate`; feasible plans first, by step time, then the infeasible ones
    (fewest broken rules first). Ties break on ``(t, c, p, d, e)``."""
    if not isinstance(model, Transformer):
        raise ValueError("model must be a Transformer")
    if not isinstance(cluster, Cluster):
        raise ValueError("cluster must be a Cluster")
    o = options or PlanOptions()
    if not isinstance(o, PlanOptions):
        raise ValueError("options must be a PlanOptions")
    int_in_range("global_batch_tokens", global_batch_tokens, 1)
    g = cluster.gpus
    out = []
    for t in (k for k in divisors(g) if cluster.gpus_per_node % k == 0):
        for c in (k for k in divisors(g // t) if model.seq_len % k == 0):
            for p in divisors(g // (t * c)):
                d = g // (t * c * p)
                for e in (k for k in divisors(d) if k <= model.experts):
                    out.append(evaluate(model, cluster, global_batch_tokens, t, p, d, c, e, options=o))
    return tuple(sorted(out, key=lambda x: (not x.feasible, len(x.reasons), x.step_time, x.tp, x.cp, x.pp, x.dp,
                                            x.ep)))
