"""Splitting the layers over pipeline stages when they do not divide evenly (集群篇 §4, §9.6.5.1).

A pipeline runs at the pace of its busiest stage, so a split minimises the largest stage cost. Stage ``i`` holds
a run of consecutive layers; the last stage also computes the output layer and the loss (``head`` in units of one
layer's cost), the first stage the embedding lookup (no matrix multiply). Among the splits with the smallest
bottleneck we give the first stage the fewest layers: under 1F1B it holds the most micro-batches' activations
(``p`` against 1 on the last stage, Narayanan et al. 2021, §2.2), so that is where memory is tightest.

Llama 3 405B, 126 layers on 16 stages (Grattafiori et al. 2024, arXiv:2407.21783, §3.3.2: "we remove one layer
from the first and the last stages"): with the output layer worth 0.66 of a layer the split is 7 + 14 × 8 + 7.
DeepSeek-V3, 61 layers on 16 stages (arXiv:2412.19437, §3.2): 13 stages of 4 layers and 3 of 3.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

from ...validate import int_in_range, non_negative, positive

__all__ = ["Split", "split_layers"]


class Split(tuple[int, ...]):
    """Layers per stage (a tuple), with the busiest stage's cost in layer units as ``bottleneck``."""

    bottleneck: float

    def __new__(cls, counts: Sequence[int], bottleneck: float) -> Split:
        obj = super().__new__(cls, tuple(counts))
        obj.bottleneck = bottleneck
        return obj


def _stages_needed(costs: Sequence[float], head: float, cap: float) -> int:
    """Stages a greedy packing from the last layer backwards needs under ``cap`` (``len+1`` when impossible)."""
    n, used, load = len(costs), 1, head
    for c in reversed(costs):
        if c > cap or head > cap:
            return n + 1
        if load + c > cap + 1e-12:
            used, load = used + 1, 0.0
        load += c
    return used


@functools.lru_cache(maxsize=4096)
def _split(costs: tuple[float, ...], pp: int, head: float) -> Split:
    n = len(costs)
    if pp == 1:
        return Split((n,), sum(costs) + head)
    lo, hi = max(max(costs), head + costs[-1]), sum(costs) + head
    for _ in range(60):  # bisection on the bottleneck; the packing count is monotone in the cap
        mid = (lo + hi) / 2
        if _stages_needed(costs, head, mid) <= pp:
            hi = mid
        else:
            lo = mid
    cap = hi
    counts: list[int] = []
    i = n  # layers not yet placed: costs[:i]
    for stage in range(pp - 1, -1, -1):
        load, k = head if stage == pp - 1 else 0.0, 0
        while i - k > stage and (k == 0 or load + costs[i - k - 1] <= cap + 1e-12):
            load += costs[i - k - 1]
            k += 1
        if stage == 0:
            k = i
        counts.append(k)
        i -= k
    counts.reverse()
    loads = []
    j = 0
    for s, k in enumerate(counts):
        loads.append(sum(costs[j:j + k]) + (head if s == pp - 1 else 0.0))
        j += k
    return Split(counts, max(loads))


def split_layers(costs: Sequence[float] | int, pp: int, *, head: float = 0.0) -> Split:
    """The split of the layers (``costs``: one cost per layer, or a layer count for equal costs of 1) over ``pp``
    stages with the smallest bottleneck, the last stage also carrying ``head``; fewest layers first among equals.

    >>> split_layers(126, 16, head=0.66)
    (7, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 7)
    """
    if isinstance(costs, int):
        cs = (1.0,) * int_in_range("costs", costs, 1)
    else:
        cs = tuple(positive("costs", c) for c in costs)
        if not cs:
            raise ValueError("costs must hold at least one layer")
    p = int_in_range("pp", pp, 1, len(cs))
    return _split(cs, p, non_negative("head", head))
