"""The book's Chinese names for what the compute layer calls by code names: one table for tables, figures and
animations.

Every entry keeps the Chinese name apart from the English forms, and each medium composes what it prints: a
table row reads ``全归约 AllReduce`` (the spelling of NCCL's API), a chart legend ``全归约 all-reduce``, an
animation title ``全归约 All-Reduce``. The cost-model algorithms have two wordings, a longer one for tables and a
shorter one for figures.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from ..cluster.planning.options import Options, Reason

__all__ = [
    "ACCUMULATOR_NAMES",
    "ALGORITHMS",
    "BUSBW_FORMULA",
    "CHECKPOINT_STRATEGY_NAMES",
    "MACHINE_SETTING_NAMES",
    "OPS",
    "PLAN_REASONS",
    "RECOMPUTE_NAMES",
    "RING_PHASE_NAMES",
    "SIMULATED_ALGORITHM_NAMES",
    "SUMMATION_ORDER_NAMES",
    "AlgorithmLabel",
    "OpLabel",
    "algorithm_name",
    "op_name",
    "plan_options",
    "reason_text",
]


@dataclass(frozen=True)
class OpLabel:
    """Names of one collective: ``zh`` (Chinese), ``api`` (NCCL's API spelling), ``text`` (lower case, as in
    running text), ``title`` (capitalised, for titles)."""

    zh: str
    api: str
    text: str
    title: str


@dataclass(frozen=True)
class AlgorithmLabel:
    """Names of one cost-model algorithm: ``table`` (tables of the book), ``figure`` (legends and titles)."""

    table: str
    figure: str


#: every op of :data:`clusterlab.communication.collectives.OPS`
OPS: Final[dict[str, OpLabel]] = {
    "broadcast": OpLabel("广播", "Broadcast", "broadcast", "Broadcast"),
    "reduce": OpLabel("归约", "Reduce", "reduce", "Reduce"),
    "all_reduce": OpLabel("全归约", "AllReduce", "all-reduce", "All-Reduce"),
    "reduce_scatter": OpLabel("归约-散播", "ReduceScatter", "reduce-scatter", "Reduce-Scatter"),
    "all_gather": OpLabel("全收集", "AllGather", "all-gather", "All-Gather"),
    "all_to_all": OpLabel("全交换", "AlltoAll", "all-to-all", "All-to-All"),
    "send_recv": OpLabel("点对点", "SendRecv", "send/recv", "Send/Recv"),
}

#: every algorithm of :data:`clusterlab.communication.collectives.ALGORITHMS`
ALGORITHMS: Final[dict[str, AlgorithmLabel]] = {
    "ring": AlgorithmLabel("环（ring）", "环形 ring"),
    "naive": AlgorithmLabel("朴素（经 0 号卡）", "朴素 naive（经 rank 0）"),
    "tree": AlgorithmLabel("双二叉树（tree）", "双二叉树 tree"),
    "halving_doubling": AlgorithmLabel("递归减半-倍增（halving-doubling）", "减半-加倍 halving-doubling"),
    "hierarchical": AlgorithmLabel("两级（节点内 + 节点间）", "分层 hierarchical"),
}

#: the algorithms :func:`clusterlab.communication.primitives.simulate` runs step by step
SIMULATED_ALGORITHM_NAMES: Final[dict[str, str]] = {
    "chain": "流水线链",
    "ring": "环形",
    "tree": "单棵二叉树",
    "pairwise": "两两交换",
    "direct": "直接发送",
}

#: the orders of summation of :mod:`clusterlab.faults.determinism` (§9.6.5)
#: how a child process was started (:data:`clusterlab.lab.variants.SETTINGS`)
MACHINE_SETTING_NAMES: Final[dict[str, str]] = {
    "as-is": "本机原样",
    "numpy-baseline": "numpy 限于基线指令",
    "openblas-auto": "OpenBLAS 自选内核",
    "openblas-haswell": "OpenBLAS 用 Haswell",
    "openblas-prescott": "OpenBLAS 用 Prescott",
}

SUMMATION_ORDER_NAMES: Final[dict[str, str]] = {
    "ring": "环形",
    "tree": "二叉树",
    "pairwise": "两两求和",
    "sequential": "按 rank 顺序",
    "arrival": "按到达顺序",
}

#: the accumulators of :func:`clusterlab.faults.summation.accumulation_precision`
ACCUMULATOR_NAMES: Final[dict[str, str]] = {
    "float32": "全程 fp32 累加",
    "bf16-reduction": "片内 fp32、片间 bf16 合并",
    "bfloat16": "每次加法后舍入成 bf16",
}

#: the two phases of ring all-reduce, numbered as the schedule tables print them
RING_PHASE_NAMES: Final[dict[str, str]] = {"reduce_scatter": "①归约-散播", "all_gather": "②全收集"}

#: nccl-tests bus-bandwidth factor of each op as a formula (the value is
#: :func:`clusterlab.communication.collectives.busbw_factor`)
BUSBW_FORMULA: Final[dict[str, str]] = {
    "all_reduce": "2(N−1)/N",
    "reduce_scatter": "(N−1)/N",
    "all_gather": "(N−1)/N",
    "all_to_all": "(N−1)/N",
    "broadcast": "1",
    "reduce": "1",
    "send_recv": "1",
}

#: :data:`clusterlab.faults.checkpoint.STRATEGIES` as the figures and tables print them
CHECKPOINT_STRATEGY_NAMES: Final[dict[str, str]] = {
    "full_every_rank": "全量：每个 rank 各存一份",
    "full_rank0": "全量：只由 rank 0 存",
    "sharded": "分片",
    "async": "异步（分片）",
    "recompute_on_load": "加载时重算（分片）",
}


def op_name(op: str, form: str = "text") -> str:
    """``"全归约 all-reduce"``: the Chinese name followed by the English ``form`` (``api``, ``text`` or ``title``)."""
    label = OPS[op]
    return f"{label.zh} {getattr(label, form)}"


def algorithm_name(algorithm: str, medium: str = "figure") -> str:
    """The name of a cost-model algorithm in a ``table`` or a ``figure``."""
    return str(getattr(ALGORITHMS[algorithm], medium))


#: the Chinese wording of the planner's reasons (:data:`clusterlab.cluster.planning.REASONS`); ``{name}`` fields
#: are filled from the reason's data
PLAN_REASONS: Final = {
    "tp-heads": "TP {tp:.0f} 不整除注意力头数 {heads:.0f}",
    "tp-kv": "TP {tp:.0f} 与 K/V 头数 {kv_heads:.0f} 互不整除",
    "tp-ffn": "TP {tp:.0f} 不整除 FFN 宽度 {ffn_hidden:.0f}",
    "tp-node": "TP {tp:.0f} 不在一个节点（{gpus_per_node:.0f} 张卡）之内",
    "pp-layers": "PP {pp:.0f} 多于层数 {layers:.0f}",
    "ep-experts": "EP {ep:.0f} 不整除专家数 {experts:.0f}",
    "ep-dp": "EP {ep:.0f} 不整除 DP {dp:.0f} × CP {cp:.0f}",
    "cp-seq": "CP {cp:.0f} 不整除序列长度 {seq_len:.0f}",
    "cp-short": "CP {cp:.0f} 使每个 rank 只剩 {tokens:.0f} 个 token（少于 {min:.0f}）",
    "batch": "全局批 {global_batch:.0f} 条不能分成 DP {dp:.0f} 份、每份整数个 {micro_batch:.0f} 条的 micro-batch",
    "interleave": "交错 v = {v:.0f} 需要 micro-batch 数（{micro_batches:.0f}）是段数 {pp:.0f} 的倍数且每段至少 v 层",
    "memory": "每卡显存 {need_gb:.1f} GB 超过可用的 {have_gb:.1f} GB",
}
RECOMPUTE_NAMES: Final = {"none": "不重算", "selective": "选择性重算", "full": "全部重算"}


def reason_text(reason: Reason) -> str:
    """A planner reason (:class:`clusterlab.cluster.planning.Reason`) in Chinese."""
    if not isinstance(reason, Reason):
        raise ValueError(f"reason must be a planning.Reason, got {reason!r}")
    data = dict(reason.data)
    if reason.code == "memory":
        data = {"need_gb": data["need"] / 1e9, "have_gb": data["have"] / 1e9}
    return PLAN_REASONS[reason.code].format(**data)


def plan_options(options: Options, *, short: bool = False) -> str:
    """What a plan chose beyond its layout, in Chinese: ZeRO stage, recomputation, micro-batch and interleaving
    (``short``: the compact form for narrow table columns, e.g. ``ZeRO-1 · 不重算 · b 1 · v 4``)."""
    if not isinstance(options, Options):
        raise ValueError(f"options must be planning.Options, got {options!r}")
    if short:
        zero_short = "DDP" if options.zero_stage == 0 else f"ZeRO-{options.zero_stage}" + (
            "常驻" if options.zero_stage == 3 and options.zero3_resident else "")
        return " · ".join((zero_short, RECOMPUTE_NAMES[options.recompute], f"b {options.micro_batch}",
                           f"v {options.virtual_stages}"))
    z = options.zero_stage
    zero = "DDP" if z == 0 else f"ZeRO-{z}" + ("（参数常驻）" if z == 3 and options.zero3_resident else "")
    v = options.virtual_stages
    parts = [zero, RECOMPUTE_NAMES[options.recompute], f"micro-batch {options.micro_batch}",
             f"交错 v = {v}" if v > 1 else "不交错"]
    return "、".join(parts)
