"""One training step of one layout: memory of the busiest stage and the step time, term by term (§4, §7, §9.6.5.1).

**Stages.** The layers are split by :func:`.stages.split_layers` on their training FLOPs (MoE and dense layers
differ), the output layer counted on the last stage; the first stage also holds the embedding.

**Time of one micro-batch on stage i**, ``T_i``: its layers (:func:`.kernels.layer_time`, forward + backward +
recomputation) + the output layer on the last stage + the exposed part of its TP, CP and EP communication.
**Pipeline** (1F1B, ``m`` micro-batches, ``v`` virtual stages): ``m·max T_i + (Σ T_i − max T_i)/v`` — for equal
stages ``(m + (p−1)/v)·T``, Narayanan et al. 2021 §2.2; unequal stages pay their imbalance on every micro-batch.
**PP transfers**: the activation forward and its gradient backward at each of the ``v`` chunk boundaries per
micro-batch, ``S/t`` bytes each with the scatter/gather optimisation (§4.1 of the same paper), on the critical path.
**DP**: per bucket of ``bucket_params`` parameters, a reduce-scatter of the gradients and an all-gather of the
parameters (ZeRO-1/2, the distributed optimizer; DDP's all-reduce costs the same), ZeRO-3 re-gathering the
parameters for each micro-batch's forward and backward unless they stay resident; with ``dp_overlap`` the
reduce-scatter hides under the last micro-batch's backward pass and the all-gather under the first forward pass,
the excess is exposed (ZeRO-3: each micro-batch's gathers hide under its compute). **Optimizer**: Adam reads and
writes its shard of the states once, at the memory bandwidth.

**Memory of stage i** (bytes): model states by ZeRO stage (Rajbhandari et al. 2020, §3.1, with ``grad_bytes`` as
chosen — Llama 3 reduces gradients in fp32, 4 B); activations per layer and micro-batch derived for the shape
(Korthikanti et al. 2022 Table 2 generalised: attention ``6h + 4h_kv`` B per token — the QKV input, Q, K, V and
the attention output a fused kernel keeps — MLP ``2h + 6f`` gated (the first GEMM's ``2f``-wide output and the
activation's ``f``-wide output) or ``2h + 4f`` otherwise, norms ``4h`` — for GPT-3's shape the 34 B of the
paper — all ``/t`` with sequence parallelism, ``2h`` with full recomputation); the first stage holds
``min(m, p)`` micro-batches under 1F1B, ``p + (p−1)/v`` interleaved (Korthikanti §4.2.3), the last stage one,
plus the fp32 logits ``4·b·s·V/t``.

**MFU** by PaLM's definition (model FLOPs, :meth:`.shape.Shape.model_flops_per_token`) and **HFU** with what the
hardware really computes (recomputation included).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field

from ...validate import int_in_range
from . import comm
from .comm import Cost
from .kernels import gemm_time, layer_time
from .options import Options, Reason
from .shape import Shape
from .stages import Split, split_layers
from .system import System

__all__ = ["ZERO3_LIVE_PARAMS", "Estimate", "Layout", "StageMemory", "estimate", "memory"]

ZERO3_LIVE_PARAMS = 1e9  # DeepSpeed ZeRO-3 config default, stage3_max_live_parameters


@dataclass(frozen=True)
class Layout:
    tp: int
    pp: int
    dp: int
    cp: int = 1
    ep: int = 1

    def __post_init__(self) -> None:
        for k in ("tp", "pp", "dp", "cp", "ep"):
            int_in_range(k, getattr(self, k), 1)

    @property
    def gpus(self) -> int:
        return self.tp * self.pp * self.dp * self.cp

    def sizes(self) -> dict[str, int]:
        return {"tp": self.tp, "cp": self.cp, "ep": self.ep, "dp": self.dp // self.ep if self.ep > 1 else self.dp,
                "pp": self.pp}

    def label(self) -> str:
        out = f"TP{self.tp} CP{self.cp} PP{self.pp} DP{self.dp}"
        return out + (f" EP{self.ep}" if self.ep > 1 else "")


@dataclass(frozen=True)
class StageMemory:
    """Bytes on one GPU of a stage: ``params``, ``grads``, ``optimizer``, ``activations``, ``other`` (logits,
    one layer's working set while recomputing or gathering)."""

    params: float
    grads: float
    optimizer: float
    activations: float
    other: float

    @property
    def states(self) -> float:
        return self.params + self.grads + self.optimizer

    @property
    def total(self) -> float:
        return self.states + self.activations + self.other


@dataclass(frozen=True)
class Estimate:
    """A layout under its options: ``split`` (layers per stage), ``micro_batches`` m, ``memory`` (busiest stage),
    time terms (s) — ``compute`` (m × the busiest stage's micro-batch compute), ``bubble`` (the pipeline's fill and
    drain plus the imbalance of unequal stages), exposed ``tp``, ``cp``, ``ep``, ``pp``, ``dp`` and ``optimizer`` —
    the link ``costs`` of the busiest stage's GPU per step before any overlap (one :class:`~.comm.Cost` per axis),
    ``mfu`` (PaLM) and ``hfu``, and ``reasons`` (empty when feasible)."""

    layout: Layout
    options: Options
    split: Split
    micro_batches: int
    memory: StageMemory
    compute: float
    bubble: float
    tp: float
    cp: float
    ep: float
    pp: float
    dp: float
    optimizer: float
    mfu: float
    hfu: float
    costs: tuple[tuple[str, Cost], ...] = field(repr=False, default=())
    reasons: tuple[Reason, ...] = ()

    @property
    def feasible(self) -> bool:
        return not self.reasons

    @property
    def exposed(self) -> float:
        return self.tp + self.cp + self.ep + self.pp + self.dp + self.optimizer

    @property
    def step_time(self) -> float:
        return self.compute + self.bubble + self.exposed


@functools.lru_cache(maxsize=1024)
def _layer_kinds(shape: Shape) -> tuple[bool, ...]:
    return tuple(shape.is_moe_layer(i) for i in range(shape.layers))


@functools.lru_cache(maxsize=1024)
def _split(shape: Shape, pp: int) -> Split:
    dense = 3 * (shape.gemm_flops(False) + shape.attention_core_flops / 2)
    moe = 3 * (shape.gemm_flops(True) + shape.attention_core_flops / 2)
    costs = [(moe if k else dense) / dense for k in _layer_kinds(shape)]
    return split_layers(costs, pp, head=3 * shape.head_flops / dense)


@functools.lru_cache(maxsize=1024)
def _kind_counts(shape: Shape, pp: int) -> tuple[tuple[int, int], ...]:
    """(dense layers, MoE layers) of each stage."""
    kinds = _layer_kinds(shape)
    split = _split(shape, pp) if pp <= shape.layers else (shape.layers,)
    out, first = [], 0
    for n in split:
        moe = sum(kinds[first:first + n])
        out.append((n - moe, moe))
        first += n
    return tuple(out)


def activation_bytes(shape: Shape, moe: bool, tokens: float, o: Options, tp: int) -> float:
    """Activation bytes one layer stores for one micro-batch of ``tokens`` tokens (per rank), see the module doc."""
    h, hk, t = shape.hidden, shape.kv_hidden, tp
    sp = t if o.sequence_parallel else 1
    if o.recompute == "full":
        return 2.0 * h * tokens / sp
    attn = 6 * h + 4 * hk
    scores = 0.0 if o.flash_attention or o.recompute == "selective" else 5.0 * shape.heads * shape.seq_len
    per = 6 if shape.gated_mlp else 4
    if moe:
        mlp = (shape.top_k + shape.shared_experts) * (2 * h + per * shape.expert_width)
    else:
        mlp = 2 * h + per * shape.ffn_hidden
    # norms (4h) and the inputs kept by sequence parallelism are split by sp, the rest by t
    return tokens * (4 * h / sp + (attn + mlp) / t + scores / t) * o.act_bytes / 2


def estimate(shape: Shape, system: System, global_batch: int, layout: Layout, options: Options | None = None
             ) -> Estimate:
    """The :class:`Estimate` of ``layout`` for a global batch of ``global_batch`` sequences."""
    o = options or Options()
    sh, L = shape, layout
    t, p, d, c, e = L.tp, L.pp, L.dp, L.cp, L.ep
    if L.gpus != system.gpus:
        raise ValueError(f"layout must use all {system.gpus} GPUs, got tp·pp·dp·cp = {L.gpus}")
    int_in_range("global_batch", global_batch, 1)
    reasons = _reasons(sh, system, global_batch, L, o)
    pe = min(p, sh.layers)  # more stages than layers is refused (a reason); price it as one layer a stage
    split = _split(sh, pe)
    m = max(1, math.ceil(global_batch / (d * o.micro_batch)))
    v = max(1, o.virtual_stages)
    dev = system.device
    tokens = o.micro_batch * sh.seq_len  # per micro-batch of one replica
    rows = tokens / c
    sizes, order = L.sizes(), comm.ORDERS[o.order]
    if "ep" not in order:
        sizes["dp"] = d
    st = {a: comm.stride(a, sizes, order) if a in order else 1 for a in ("tp", "cp", "ep", "dp", "pp")}

    # --- per-micro-batch communication of one layer -------------------------------------------------------
    act = rows * sh.hidden * o.act_bytes
    # TP: per layer 2 all-reduces forward and 2 backward (Megatron-LM Fig. 4), or as many all-gather +
    # reduce-scatter pairs with sequence parallelism: 8 reduce-scatter-sized passes of the activation either way,
    # 12 when the forward pass is recomputed
    tp_layer = comm.reduce_scatter(act, t, st["tp"], system) * (12 if o.recompute == "full" else 8)
    if o.parallel_block:
        tp_layer = tp_layer * 0.5
    kv_chunk = 2 * o.micro_batch * (sh.seq_len / c) * sh.kv_hidden * o.act_bytes
    cp_layer = comm.send(kv_chunk, st["cp"], system) * (3 * (c - 1)) if c > 1 else comm.ZERO
    ep_group_step = st["ep"] if e > 1 else 1
    tok_dispatch = rows / t * sh.top_k * sh.hidden * o.act_bytes  # each TP rank dispatches its S/t tokens
    ep_layer = comm.all_to_all(tok_dispatch, e, ep_group_step, system) * 4 if e > 1 else comm.ZERO
    if e > 1 and o.node_limit and system.gpus_per_node < e * ep_group_step:
        nodes_spanned = max(1, e * ep_group_step // system.gpus_per_node)
        ep_layer = ep_layer * min(1.0, o.node_limit / min(sh.top_k, nodes_spanned) if sh.top_k else 1.0)

    # --- stage times ---------------------------------------------------------------------------------------
    per_kind = {}
    for k in {False, True} if sh.is_moe else {False}:
        lt = layer_time(sh, k, dev, tokens=tokens, tp=t, cp=c, ep=e, sequence_parallel=o.sequence_parallel,
                        causal=o.causal, flash=o.flash_attention)
        comp_k = lt.training(o.recompute)
        overlapping = (o.tp_overlap > 0 and t > 1) or (o.ep_overlap > 0 and k and e > 1)
        if overlapping and o.comm_sms:  # the compute under the overlapped traffic runs on the SMs left to it
            if o.comm_sms >= dev.sms:
                raise ValueError(f"comm_sms must be below the device's {dev.sms} SMs, got {o.comm_sms}")
            comp_k *= dev.sms / (dev.sms - o.comm_sms)
        # ring attention: each K/V chunk send hides under one block of attention
        cp_k = max(0.0, cp_layer.time - 3 * lt.attention) if c > 1 else 0.0
        # overlapped traffic hides under the layer's own compute at most; the rest stays exposed
        tp_k = tp_layer.time - min(o.tp_overlap * tp_layer.time, comp_k)
        left = max(0.0, comp_k - (tp_layer.time - tp_k))  # compute not already covering TP traffic
        ep_k = ep_layer.time - min(o.ep_overlap * ep_layer.time, left) if k else 0.0
        per_kind[k] = (comp_k, tp_k, cp_k, ep_k)
    head = 3 * gemm_time(rows, sh.vocab / t, sh.hidden, dev)
    stage_t: list[float] = []
    stage_exposed: list[tuple[float, float, float]] = []
    dk = per_kind[False]
    mk = per_kind.get(True, dk)
    for i, (nd, nm) in enumerate(_kind_counts(sh, pe)):
        tp_i, cp_i, ep_i = nd * dk[1] + nm * mk[1], nd * dk[2] + nm * mk[2], nd * dk[3] + nm * mk[3]
        comp = nd * dk[0] + nm * mk[0] + (head if i == pe - 1 else 0.0)
        stage_t.append(comp + tp_i + cp_i + ep_i)
        stage_exposed.append((tp_i, cp_i, ep_i))
    busiest = max(range(pe), key=lambda i: stage_t[i])
    t_max = stage_t[busiest]
    tp_x, cp_x, ep_x = stage_exposed[busiest]
    comp_max = t_max - tp_x - cp_x - ep_x
    if o.schedule == "dualpipe" and p > 1:
        # DeepSeek-V3 Table 2: (p/2 − 1)(F&B + B − 3W) with F ≈ T/3, B ≈ 2T/3, W ≈ B/2: (p/2 − 1)·2T/3
        bubble = max(0.0, p / 2 - 1) * 2 * t_max / 3
    else:
        bubble = (sum(stage_t) - t_max) / v

    # --- pipeline transfers --------------------------------------------------------------------------------
    pp_cost = comm.send(act / t, st["pp"], system) * (2 * m * v) if p > 1 else comm.ZERO

    # --- data parallelism ----------------------------------------------------------------------------------
    mem, dense_psi, routed_psi = _memory(sh, system, L, o, split, m, v, rows)
    n_dense, n_routed = d * c, max(1, d * c // e)
    dp_step = st["dp"] if "dp" in order else 1
    fwd_mb = comp_max / 3  # forward = 2 of the 6 FLOPs per parameter and token (Kaplan et al. 2020 §2.1)
    bwd_mb = comp_max - fwd_mb
    dp_cost, dp_exposed = comm.ZERO, 0.0
    for psi, n, step_ in ((dense_psi, n_dense, min(st["cp"], dp_step)), (routed_psi, n_routed, dp_step)):
        if n <= 1 or psi <= 0:
            continue
        buckets = _buckets(psi, n, o, min(_layer_unit(sh, t, e), ZERO3_LIVE_PARAMS))
        rs = comm.reduce_scatter(psi / buckets * o.grad_bytes, n, step_, system) * buckets
        ag = comm.reduce_scatter(psi / buckets * o.param_bytes, n, step_, system) * buckets
        if o.zero_stage == 3 and not o.zero3_resident:
            per_mb = (ag * 2 + rs)
            dp_cost = dp_cost + per_mb * m
            dp_exposed += m * max(0.0, per_mb.time - comp_max) if o.dp_overlap else m * per_mb.time
            continue
        if o.zero_stage >= 2 and m > 1:  # sharded gradients cannot accumulate: reduce-scatter every micro-batch
            dp_cost = dp_cost + rs * m + ag
            rs_x = m * max(0.0, rs.time - bwd_mb) if o.dp_overlap else m * rs.time
            dp_exposed += rs_x + (max(0.0, ag.time - fwd_mb) if o.dp_overlap else ag.time)
            continue
        dp_cost = dp_cost + rs + ag
        if o.dp_overlap:
            dp_exposed += max(0.0, rs.time - bwd_mb) + max(0.0, ag.time - fwd_mb)
        else:
            dp_exposed += rs.time + ag.time
    shard = (dense_psi / (n_dense if o.zero_stage >= 1 else 1) + routed_psi / (n_routed if o.zero_stage >= 1 else 1))
    opt_time = shard * 2 * (o.optimizer_bytes + o.param_bytes + o.grad_bytes) / dev.memory_bandwidth

    pp_x = pp_cost.time * (1 - o.pp_overlap)
    step = m * comp_max + bubble + m * (tp_x + cp_x + ep_x) + pp_x + dp_exposed + opt_time
    model_flops = sh.model_flops_per_token() * global_batch * sh.seq_len / system.gpus
    hw_per_token = model_flops * (4 / 3 if o.recompute == "full" else 1.0)
    mfu = model_flops / (dev.peak * step)
    hfu = hw_per_token / (dev.peak * step)
    usable = o.memory_fraction * dev.memory
    if mem.total > usable:
        reasons.append(Reason("memory", (("need", mem.total), ("have", usable))))
    nd_b, nm_b = _kind_counts(sh, pe)[busiest]  # the busiest stage's dense and MoE layers
    costs = (("tp", tp_layer * ((nd_b + nm_b) * m)), ("cp", cp_layer * ((nd_b + nm_b) * m)),
             ("ep", ep_layer * (nm_b * m)), ("pp", pp_cost), ("dp", dp_cost))
    return Estimate(L, o, split, m, mem, m * comp_max, bubble, m * tp_x, m * cp_x, m * ep_x, pp_x,
                    dp_exposed, opt_time, mfu, hfu, costs, tuple(reasons))


def _layer_unit(sh: Shape, t: int, e: int, kinds: tuple[bool, ...] | None = None) -> float:
    """Parameters per rank that ZeRO-3 gathers at once: the largest layer of ``kinds`` (dense ``False``, MoE
    ``True``; default: the model's) — FSDP's unit of one transformer block, DeepSpeed's module-wise fetch."""
    ks = kinds if kinds is not None else ((False, True) if sh.is_moe else (False,))
    return max(sh.layer_params(k) + (sh.experts * sh.expert_params / e if k else 0) for k in ks) / t


def _buckets(psi: float, n: int, o: Options, zero3_unit: float) -> int:
    """Collective calls that move ``psi`` parameters over ``n`` data-parallel ranks. ZeRO-1/2 and DDP: Megatron-Core's
    default bucket holds ``max(40 M, 1 M · n)`` parameters ("larger DP sizes need larger buckets to ensure
    collectives do not become latency-bound"), and without overlap the whole buffer is one bucket
    (``DistributedDataParallelConfig.bucket_size``, megatron/core/distributed/distributed_data_parallel_config.py);
    ZeRO-3: one call per ``zero3_unit`` parameters (a layer, at most the live-parameter cap). ``bucket_params``
    set explicitly overrides both."""
    if o.bucket_params:
        return max(1, math.ceil(psi / o.bucket_params))
    if o.zero_stage >= 3 and not o.zero3_resident:
        return max(1, math.ceil(psi / zero3_unit))
    if not o.dp_overlap:
        return 1
    return max(1, math.ceil(psi / max(40e6, 1e6 * n)))


def memory(shape: Shape, system: System, global_batch: int, layout: Layout, options: Options | None = None
           ) -> StageMemory:
    """Memory of the busiest stage (first or last) of ``layout``: what :func:`estimate` checks, without the time."""
    o = options or Options()
    pe = min(layout.pp, shape.layers)
    m = max(1, math.ceil(global_batch / (layout.dp * o.micro_batch)))
    rows = o.micro_batch * shape.seq_len / layout.cp
    return _memory(shape, system, layout, o, _split(shape, pe), m, max(1, o.virtual_stages), rows)[0]


def _memory(sh: Shape, system: System, L: Layout, o: Options, split: Split, m: int, v: int, rows: float
            ) -> tuple[StageMemory, float, float]:
    """Memory of the busiest of the first and last stage, and the dense / routed parameters of the stage that
    data parallelism synchronises (per GPU, before ZeRO sharding)."""
    t, p, d, c, e = L.tp, L.pp, L.dp, L.cp, L.ep
    n_dense, n_routed = d * c, max(1, d * c // e)
    out: list[tuple[StageMemory, float, float]] = []
    pe = min(p, sh.layers)
    counts = _kind_counts(sh, pe)
    for i in sorted({0, pe - 1}):
        nd, nm = counts[min(i, len(counts) - 1)]
        ks = [False] * (nd > 0) + [True] * (nm > 0)
        dense = (nd * sh.layer_params(False) + nm * sh.layer_params(True)) / t
        routed = nm * sh.experts * sh.expert_params / (t * e)
        if i == 0:
            dense += sh.vocab * sh.hidden / t
        if i == pe - 1 and (p > 1 or not sh.tied_embeddings):
            dense += sh.vocab * sh.hidden / t
        a, b = _states(dense, n_dense, o), _states(routed, n_routed, o)
        per_layer = [n * activation_bytes(sh, k, rows, o, t) for k, n in ((False, nd), (True, nm)) if n]
        if i == 0:
            held = min(m, p) if v == 1 else min(m * 1.0, p + (p - 1) / v)
        else:
            held = 1.0
        acts = sum(per_layer) * held
        other = 0.0
        if i == pe - 1:
            other += 4.0 * rows * sh.vocab / t  # fp32 logits of one micro-batch
        if o.recompute == "full" and per_layer:
            full = Options(**{**o.__dict__, "recompute": "none"})
            other += max(activation_bytes(sh, k, rows, full, t) for k in ks)
        if o.zero_stage >= 3 and not o.zero3_resident and ks:
            # the gathered parameters in use and the next ones prefetched: two layers, at most the live-parameter
            # cap of DeepSpeed ZeRO-3 (stage3_max_live_parameters, default 1e9)
            other += min(2 * _layer_unit(sh, t, e, tuple(ks)), ZERO3_LIVE_PARAMS) * o.param_bytes
        copies = 2.0 if o.schedule == "dualpipe" and p > 1 else 1.0  # DualPipe keeps two copies of the weights
        out.append((StageMemory(copies * (a[0] + b[0]), a[1] + b[1], a[2] + b[2], acts, other), dense, routed))
    return max(out, key=lambda x: x[0].total)


def _states(psi: float, n: int, o: Options) -> tuple[float, float, float]:
    """Parameters, gradients and optimizer states of ``psi`` parameters sharded over ``n`` ranks by ZeRO stage."""
    z = o.zero_stage
    par = psi * o.param_bytes / (n if z >= 3 and not o.zero3_resident else 1)
    gra = psi * o.grad_bytes / (n if z >= 2 else 1)
    opt = psi * o.optimizer_bytes / (n if z >= 1 else 1)
    return par, gra, opt


def _reasons(sh: Shape, system: System, batch: int, L: Layout, o: Options) -> list[Reason]:
    t, p, d, c, e = L.tp, L.pp, L.dp, L.cp, L.ep
    r: list[Reason] = []
    if sh.heads % t:
        r.append(Reason("tp-heads", (("tp", t), ("heads", sh.heads))))
    if sh.kv_heads % t and t % sh.kv_heads:
        r.append(Reason("tp-kv", (("tp", t), ("kv_heads", sh.kv_heads))))
    if sh.ffn_hidden % t or (sh.is_moe and sh.expert_width % t):
        r.append(Reason("tp-ffn", (("tp", t), ("ffn_hidden", sh.ffn_hidden))))
    if system.gpus_per_node % t:
        r.append(Reason("tp-node", (("tp", t), ("gpus_per_node", system.gpus_per_node))))
    if p > sh.layers:
        r.append(Reason("pp-layers", (("pp", p), ("layers", sh.layers))))
    if e > 1 and (sh.experts % e):
        r.append(Reason("ep-experts", (("ep", e), ("experts", sh.experts))))
    if (d * c) % e:
        r.append(Reason("ep-dp", (("ep", e), ("dp", d), ("cp", c))))
    if sh.seq_len % c:
        r.append(Reason("cp-seq", (("cp", c), ("seq_len", sh.seq_len))))
    elif c > 1 and sh.seq_len // c < o.min_cp_tokens:
        r.append(Reason("cp-short", (("cp", c), ("tokens", sh.seq_len // c), ("min", o.min_cp_tokens))))
    if batch % (d * o.micro_batch):
        r.append(Reason("batch", (("global_batch", batch), ("dp", d), ("micro_batch", o.micro_batch))))
    v = o.virtual_stages
    if v > 1 and p <= sh.layers:
        m = max(1, batch // (d * o.micro_batch))
        if p == 1 or m % p or min(_split(sh, p)) < v:
            r.append(Reason("interleave", (("v", v), ("micro_batches", m), ("pp", p))))
    return r
