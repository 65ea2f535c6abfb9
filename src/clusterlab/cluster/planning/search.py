"""The planner: every layout of the GPUs, each with the options that make it fastest (§9.6.5.1).

Layouts: ``G = t·c·p·d`` with ``t`` dividing the GPUs per node, ``c`` dividing the sequence, every ``p`` and every
expert-parallel size ``e`` dividing ``d·c`` (at most the expert count). For each layout the options named in
``search`` are chosen, the rest taken from ``options``:

* ``micro_batch`` ∈ {1, 2, 4} sequences (4 only below 4,096 tokens), dividing the replica's share of the batch;
* ``virtual_stages`` ∈ {1, 2, 4, 8} where interleaving is allowed (micro-batches a multiple of the stages, at
  least ``v`` layers on every stage), raised while it helps;
* ``recompute`` (none or full; selective only without a fused attention kernel, which already recomputes the
  scores) and ``zero_stage`` (1, 2, 3 resident, 3 re-gathering, from the fastest to the smallest): for each
  recomputation level the first ZeRO choice that fits is its fastest, and the levels are compared.

A layout that breaks a structural rule (TP, PP, EP, CP sizes) is kept with its reasons under ``options``;
feasible plans come first, by step time, then the others by the number of broken rules.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable
from dataclasses import replace

from ...validate import int_in_range
from .options import Options
from .shape import Shape
from .step import Estimate, Layout, _reasons, _split, estimate, memory
from .system import System

__all__ = ["SEARCHED", "best", "layouts", "plan"]

SEARCHED = ("micro_batch", "virtual_stages", "recompute", "zero_stage")
STRUCTURAL = frozenset({"tp-heads", "tp-kv", "tp-ffn", "tp-node", "pp-layers", "ep-experts", "ep-dp", "cp-seq",
                        "cp-short"})
# ZeRO choices from the fastest to the smallest: (stage, parameters resident)
_ZERO_LADDER = ((1, False), (2, False), (3, True), (3, False))


@functools.lru_cache(maxsize=65536)
def _options(base: Options, mb: int, v: int, r: str, z: int, res: bool) -> Options:
    return replace(base, micro_batch=mb, virtual_stages=v, recompute=r, zero_stage=z, zero3_resident=res)


def _divisors(n: int) -> list[int]:
    small = [k for k in range(1, math.isqrt(n) + 1) if n % k == 0]
    return sorted({*small, *(n // k for k in small)})


def layouts(shape: Shape, system: System) -> Iterable[Layout]:
    """Every candidate layout of the system's GPUs (see the module docstring)."""
    g = system.gpus
    for t in (k for k in _divisors(g) if system.gpus_per_node % k == 0):
        for c in (k for k in _divisors(g // t) if shape.seq_len % k == 0):
            for p in _divisors(g // (t * c)):
                d = g // (t * c * p)
                eps = [k for k in _divisors(d * c) if k <= shape.experts] if shape.is_moe else [1]
                for e in eps:
                    yield Layout(t, p, d, c, e)


def best(shape: Shape, system: System, global_batch: int, layout: Layout, options: Options | None = None,
         search: tuple[str, ...] = SEARCHED) -> Estimate:
    """The fastest feasible estimate of ``layout`` over the searched options, or the estimate under ``options``
    with its reasons when no choice fits."""
    base = options or Options()
    bad = [r for r in _reasons(shape, system, global_batch, layout, base) if r.code in STRUCTURAL]
    if bad:
        return estimate(shape, system, global_batch, layout, base)
    share = global_batch // layout.dp if global_batch % layout.dp == 0 else 0
    mbs = [base.micro_batch]
    if "micro_batch" in search:
        # the micro-batch sizes the published runs of the catalogue state: 1, 2 or 4 sequences at 2,048 tokens
        # (Megatron-LM 2021 Table 2, Korthikanti 2022, BLOOM, GPT-NeoX), 1 at 4,096 (Nemotron-4); 4 only below 4,096
        mbs = [b for b in (1, 2, 4) if share and share % b == 0 and (b < 4 or shape.seq_len < 4096)] or [1]
    rows = [r for r in ("none", "selective", "full") if "recompute" in search or r == base.recompute]
    if base.flash_attention and "recompute" in search:
        rows.remove("selective")  # a fused attention kernel already recomputes the scores: nothing to gain
    zeros = [z for z in _ZERO_LADDER if "zero_stage" in search or z == (base.zero_stage, base.zero3_resident)] \
        or [(base.zero_stage, base.zero3_resident)]
    champion: Estimate | None = None
    fallback: Estimate | None = None
    usable = base.memory_fraction * system.device.memory
    for mb in mbs:
        m = max(1, share // mb) if share else 1
        vs = [base.virtual_stages]
        if "virtual_stages" in search:
            vs = [1]
            if layout.pp > 1 and m % layout.pp == 0:
                least = min(_split(shape, layout.pp))
                vs += [v for v in (2, 4, 8) if v <= least]
        previous = math.inf
        for v in vs:
            found: list[Estimate] = []
            for r in rows:  # per recomputation level, the first ZeRO choice that fits is its fastest
                for z, res in zeros:
                    o = _options(base, mb, v, r, z, res)
                    if fallback is None:
                        fallback = estimate(shape, system, global_batch, layout, o)
                    if memory(shape, system, global_batch, layout, o).total > usable:
                        continue
                    est = estimate(shape, system, global_batch, layout, o)
                    if est.feasible:
                        found.append(est)
                        break
            if not found:
                continue
            top = min(found, key=lambda x: x.step_time)
            if champion is None or top.step_time < champion.step_time:
                champion = top
            if top.step_time >= previous:
                break
            previous = top.step_time
    if champion is not None:
        return champion
    assert fallback is not None
    return fallback


def plan(shape: Shape, system: System, global_batch: int, *, options: Options | None = None,
         search: tuple[str, ...] = SEARCHED) -> tuple[Estimate, ...]:
    """Every layout (:func:`layouts`) at its best options (:func:`best`); feasible first by step time, then the
    infeasible by the number of reasons. ``global_batch`` in sequences."""
    if not isinstance(shape, Shape):
        raise ValueError("shape must be a Shape")
    if not isinstance(system, System):
        raise ValueError("system must be a System")
    int_in_range("global_batch", global_batch, 1)
    unknown = set(search) - set(SEARCHED)
    if unknown:
        raise ValueError(f"search must name options among {SEARCHED}, got {sorted(unknown)}")
    out = [best(shape, system, global_batch, lay, options, search) for lay in layouts(shape, system)]
    return tuple(sorted(out, key=lambda x: (not x.feasible, len(x.reasons), x.step_time, x.layout.tp,
                                            x.layout.cp, x.layout.pp, x.layout.dp, x.layout.ep)))
