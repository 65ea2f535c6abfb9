"""The whole-cluster ledger of one training step: FLOPs, compute, exposed communication, bubble, data stalls, MFU,
tokens per second and days for a token budget (集群篇 §7).

The ledger combines the pieces the earlier sections compute and adds no new formula of its own:

* model FLOPs per token, ``6N`` by default or :func:`clusterlab.cluster.compute.flops_per_token` (PaLM App. B) when
  the attention term is wanted;
* the bytes each rank sends per step along each parallelism axis (:mod:`clusterlab.cluster.parallel`), placed on
  the link that carries it;
* the step-time model of :func:`clusterlab.cluster.compute.step_time`: compute ``T_c = F/(peak·η)``, communication
  ``C = Σ_axis C_axis`` (the axes are added: a stated, conservative model), a part ``Σ ρ_axis·C_axis`` of it hidden
  under the compute (never more than ``T_c``), the rest exposed;
* the pipeline bubble of :func:`clusterlab.cluster.pipeline.bubble`, idle time ``T_c·(p−1)/(v·m)`` (Megatron's
  bubble relative to the ideal compute time, Narayanan et al., arXiv:2104.04473, §2.2);
* a data stall per step, the time the GPU waits for its batch (:mod:`clusterlab.cluster.loader`, §6).

Step and MFU::

    T_step = T_c + exposed + bubble + stall
    MFU    = F / (peak · T_step)          (PaLM, Chowdhery et al., arXiv:2204.02311, §4.1)

so that ``T_step = ideal + efficiency loss + exposed + bubble + stall`` with ``ideal = F/peak`` — the waterfall of
the page. MFU is computed once, from the whole step: a given "MFU" must not be used as η and then have the exposed
communication added on top (the double count of the original §7). Throughput ``tokens/T_step``; days for a budget
of ``D`` tokens ``D/(tokens/s)/86 400``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Final

from ..communication.cost import Cost, link_cost
from ..units import DAY
from ..validate import fraction, int_in_range, non_negative, positive
from . import compute
from .parallel import LinkLoad
from .pipeline import Bubble
from .planning import Estimate, Shape, System

__all__ = ["LOSSES", "CommLine", "Ledger", "comm_line", "from_estimate", "from_link", "ledger", "overlap_sweep"]

#: the losses between the ideal compute and the step, in the waterfall's order
LOSSES: Final = ("efficiency", "communication", "bubble", "data")


@dataclass(frozen=True)
class CommLine:
    """One line of communication in the ledger: its α-β ``cost`` per step on the links it uses (one
    :class:`~clusterlab.communication.cost.Cost`, the value every communication model returns), ``overlap`` the
    share of its time hidden under the compute (``None``: the ledger's overlap). ``send`` (bytes a rank sends per
    step), ``time`` (s) and ``bandwidth`` (B/s per direction) are read off the cost."""

    name: str
    cost: Cost
    overlap: float | None = None

    @property
    def send(self) -> float:
        return self.cost.bytes

    @property
    def time(self) -> float:
        return self.cost.time

    @property
    def bandwidth(self) -> float:
        """The link's B/s for a one-link line; otherwise the bytes over the bandwidth part of the time (∞ if none)."""
        terms = self.cost.terms
        if len(terms) == 1 and terms[0].bandwidth is not None:
            return terms[0].bandwidth
        b = self.cost.bandwidth
        return self.send / b if b > 0 else math.inf


def comm_line(name: str, send: float, bandwidth: float, *, latency: float = 0.0,
              overlap: float | None = None) -> CommLine:
    """A :class:`CommLine` of ``send`` bytes per step on ``bandwidth`` B/s (per direction, bytes — divide a Gb/s
    figure by 8 first), plus ``latency`` seconds of latency per step; ``overlap`` ∈ [0, 1] or ``None``."""
    s = non_negative("send", send)
    bw = positive("bandwidth", bandwidth)
    lat = non_negative("latency", latency)
    o = None if overlap is None else fraction("overlap", overlap)
    return CommLine(str(name), link_cost(str(name), 1, s, lat, bw), o)


def from_link(load: LinkLoad, *, name: str | None = None, overlap: float | None = None) -> CommLine:
    """A :class:`CommLine` from a :class:`clusterlab.cluster.parallel.LinkLoad` (its bytes, bandwidth and time,
    latency included)."""
    if not isinstance(load, LinkLoad):
        raise ValueError(f"load must be a parallel.LinkLoad, got {type(load).__name__}")
    o = None if overlap is None else fraction("overlap", overlap)
    return CommLine(name or f"{load.volume.axis}（{load.link}）", load.cost, o)


@dataclass(frozen=True)
class Ledger:
    """The ledger of one training step of the whole cluster (times in s, per GPU; every GPU runs the same step).

    Given: ``params`` N, ``tokens_per_step``, ``gpus``, ``peak_flops`` (FLOP/s of one GPU), ``efficiency`` η (the
    share of the peak the kernels reach while computing), ``flops_per_token``, the communication ``lines`` and the
    default ``overlap``, the pipeline ``bubble_of_ideal`` ((p−1)/(v·m), 0 without pipeline) and the data ``stall``.
    Everything else is derived.
    """

    params: float
    tokens_per_step: float
    gpus: int
    peak_flops: float
    efficiency: float
    flops_per_token: float
    lines: tuple[CommLine, ...]
    overlap: float
    bubble_of_ideal: float
    stall: float

    # ---- FLOPs ------------------------------------------------------------------------------------------------
    @property
    def flops_per_step(self) -> float:
        """Model FLOPs of one step of the whole cluster, ``flops_per_token × tokens_per_step``."""
        return self.flops_per_token * self.tokens_per_step

    @property
    def flops_per_gpu(self) -> float:
        return self.flops_per_step / self.gpus

    # ---- communication ------------------------------------------------------------------------------------------
    @property
    def comm(self) -> float:
        """Communication time of the step on the links, all lines added (s)."""
        return sum(line.time for line in self.lines)

    def line_overlap(self, line: CommLine) -> float:
        return self.overlap if line.overlap is None else line.overlap

    @property
    def effective_overlap(self) -> float:
        """``Σ ρ_i·C_i / Σ C_i`` (the ledger's overlap when there is no communication)."""
        c = self.comm
        return sum(self.line_overlap(x) * x.time for x in self.lines) / c if c > 0 else self.overlap

    @property
    def step_time(self) -> compute.StepTime:
        """Compute and communication of the step by :func:`clusterlab.cluster.compute.step_time`."""
        return compute.step_time(self.flops_per_gpu, self.peak_flops, efficiency=self.efficiency, comm=self.comm,
                                 overlap=min(1.0, self.effective_overlap))

    # ---- the waterfall ------------------------------------------------------------------------------------------
    @property
    def ideal(self) -> float:
        """Compute time at the peak, ``F/peak``."""
        return self.step_time.ideal

    @property
    def compute(self) -> float:
        """Compute time at the efficiency, ``ideal/η``."""
        return self.step_time.compute

    @property
    def efficiency_loss(self) -> float:
        return self.compute - self.ideal

    @property
    def hidden(self) -> float:
        return self.step_time.hidden

    @property
    def exposed(self) -> float:
        return self.step_time.exposed

    @property
    def uncapped_exposed(self) -> float:
        """``Σ (1 − ρ_i)·C_i``: the exposed time if hiding were not limited by the compute time (an error: at most
        ``T_c`` can hide, so ``exposed ≥ C − T_c``)."""
        return sum((1 - self.line_overlap(x)) * x.time for x in self.lines)

    @property
    def bubble(self) -> float:
        """Pipeline idle time, ``compute × (p−1)/(v·m)``."""
        return self.compute * self.bubble_of_ideal

    @property
    def step(self) -> float:
        return self.compute + self.exposed + self.bubble + self.stall

    @property
    def losses(self) -> dict[str, float]:
        """The time lost to each cause of :data:`LOSSES` (s); ``ideal + Σ losses = step``."""
        return {"efficiency": self.efficiency_loss, "communication": self.exposed, "bubble": self.bubble,
                "data": self.stall}

    @property
    def bottleneck(self) -> str:
        """The largest loss of :data:`LOSSES` (the first of them on a tie)."""
        loss = self.losses
        return max(LOSSES, key=lambda k: loss[k])

    # ---- rates ------------------------------------------------------------------------------------------------
    @property
    def mfu(self) -> float:
        """PaLM's MFU: model FLOP/s achieved over the peak, ``ideal/step`` (≤ η ≤ 1)."""
        return self.ideal / self.step

    @property
    def compute_fraction(self) -> float:
        """``compute/step`` — what the original §4 calls "MFU"; MFU = η × this when there is no bubble or stall."""
        return self.compute / self.step

    @property
    def achieved_flops(self) -> float:
        """Model FLOP/s one GPU achieves, ``MFU × peak``."""
        return self.flops_per_gpu / self.step

    @property
    def tokens_per_second(self) -> float:
        return self.tokens_per_step / self.step

    def days(self, token_budget: float) -> float:
        """Days of training to consume ``token_budget`` tokens at this step time."""
        return positive("token_budget", token_budget) / self.tokens_per_second / DAY

    def with_overlap(self, overlap: float) -> Ledger:
        """The same ledger with another default overlap ∈ [0, 1] (lines with their own overlap keep it)."""
        return replace(self, overlap=fraction("overlap", overlap))


def ledger(
    params: float,
    tokens_per_step: float,
    gpus: int,
    peak_flops: float,
    *,
    efficiency: float = 1.0,
    comm: Sequence[CommLine | LinkLoad] = (),
    overlap: float = 0.0,
    bubble: Bubble | None = None,
    stall: float = 0.0,
    flops_per_token: float | None = None,
) -> Ledger:
    """The ledger of one step: ``params`` N parameters, ``tokens_per_step`` tokens of the whole cluster, ``gpus``
    GPUs of ``peak_flops`` FLOP/s each (dense bf16: A100 312e12, H100 SXM 989e12), kernel ``efficiency`` η ∈ (0, 1],
    communication ``comm`` (lines or :class:`~clusterlab.cluster.parallel.LinkLoad`) of which a share ``overlap`` ∈
    [0, 1] is hidden, an optional pipeline ``bubble`` and a data ``stall`` (s per step). ``flops_per_token``:
    ``6·params`` unless given (e.g. ``compute.flops_per_token(...).total`` with the attention term).

    The original §7: ``ledger(7e9, 512*4096, 512, 400e12, efficiency=0.45,
    comm=[comm_line("ZeRO-3", 28e9, 25e9)], overlap=0.8)`` — step 0.956 + 0.224 s, MFU 36.4 %, not 45 %.
    """
    n = positive("params", params)
    tokens = positive("tokens_per_step", tokens_per_step)
    g = int_in_range("gpus", gpus, 1)
    peak = positive("peak_flops", peak_flops)
    eta = fraction("efficiency", efficiency, low_open=True)
    rho = fraction("overlap", overlap)
    st = non_negative("stall", stall)
    fpt = 6 * n if flops_per_token is None else positive("flops_per_token", flops_per_token)
    if bubble is not None and not isinstance(bubble, Bubble):
        raise ValueError(f"bubble must be a pipeline.Bubble or None, got {type(bubble).__name__}")
    lines = []
    for c in comm:
        if isinstance(c, LinkLoad):
            lines.append(from_link(c))
        elif isinstance(c, CommLine):
            lines.append(c)
        else:
            raise ValueError(f"comm must hold CommLine or parallel.LinkLoad items, got {type(c).__name__}")
    bub = 0.0 if bubble is None else bubble.of_ideal
    return Ledger(n, tokens, g, peak, eta, fpt, tuple(lines), rho, bub, st)


def overlap_sweep(base: Ledger, overlaps: Sequence[float]) -> tuple[Ledger, ...]:
    """``base`` at each overlap of ``overlaps`` (the overlap is a stated parameter, erratum 23)."""
    if len(overlaps) == 0:
        raise ValueError("overlaps must hold at least one value in [0, 1]")
    return tuple(base.with_overlap(o) for o in overlaps)


def from_estimate(estimate: Estimate, shape: Shape, system: System, global_batch: int, *, stall: float = 0.0
                  ) -> Ledger:
    """The ledger of a planner estimate (:func:`clusterlab.cluster.planning.estimate`): one model, two views.

    FLOPs per token are PaLM's (:meth:`~clusterlab.cluster.planning.Shape.model_flops_per_token`); the efficiency is
    what the planner's kernels reach on this layout, ``ideal/compute`` (recomputation included); every axis is a
    line with its link time and the share the planner hides (``1 − exposed/time``), the optimizer step a line that
    hides nothing; the bubble is the planner's, relative to its compute. Then ``step`` equals the planner's step
    time plus ``stall``, and ``mfu`` its MFU (without stall)."""
    if not isinstance(estimate, Estimate):
        raise ValueError(f"estimate must be a planning.Estimate, got {type(estimate).__name__}")
    int_in_range("global_batch", global_batch, 1)
    fpt = shape.model_flops_per_token()
    tokens = float(global_batch * shape.seq_len)
    peak = system.device.peak
    ideal = fpt * tokens / system.gpus / peak
    exposed = {"tp": estimate.tp, "cp": estimate.cp, "ep": estimate.ep, "pp": estimate.pp, "dp": estimate.dp}
    lines = []
    for axis, cost in estimate.costs:
        if cost.time <= 0:
            continue
        hide = min(1.0, max(0.0, 1.0 - exposed[axis] / cost.time))
        lines.append(CommLine(axis.upper(), cost, hide))
    if estimate.optimizer > 0:
        lines.append(CommLine("优化器", Cost((), estimate.optimizer), 0.0))
    eta = min(1.0, ideal / estimate.compute)
    return Ledger(shape.params, tokens, system.gpus, peak, eta, fpt, tuple(lines), 0.0,
                  estimate.bubble / estimate.compute, non_negative("stall", stall))
