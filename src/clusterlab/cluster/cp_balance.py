"""Load balance of context parallelism under a causal mask (§9.6.5.1).

Context parallelism (CP) gives each of ``c`` ranks a share of a sequence of ``L`` tokens; attention needs every
query against the keys before it. Under a causal mask the query at position ``q`` (0-based) meets ``q + 1`` keys,
so the work is not spread evenly by position: a rank holding the positions ``a … b−1`` computes
``Σ (q + 1) = (b(b+1) − a(a+1))/2`` query-key pairs. Three ways to deal the tokens:

* ``contiguous``: rank ``i`` takes the ``i``-th of ``c`` equal chunks; its work grows as ``2i + 1`` (plus a
  ``1/(2n)`` share per chunk of ``n`` tokens), so the last rank does almost twice the mean, ``(2c−1)/c`` of it in the
  limit, and every rank waits for it;
* ``zigzag``: the sequence is cut into ``2c`` chunks and rank ``i`` takes chunks ``i`` and ``2c−1−i`` — an early
  (cheap) chunk and a late (expensive) one, the same total for every rank, exactly (Llama 3, arXiv:2407.21783,
  §3.3.2, does this; the Ultra-Scale Playbook calls it zig-zag ring attention);
* ``striped``: rank ``i`` takes the positions ``i, i + c, i + 2c, …`` (Brandon et al., "Striped Attention",
  arXiv:2311.09431): nearly balanced, the last rank ahead by ``L/c`` pairs per rank index.

Pairs are counted per token, as an ideal kernel that skips every masked pair would; a blockwise kernel computes
whole tiles, so its imbalance differs by the partly masked tiles on the diagonal.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

import numpy as np
import numpy.typing as npt

from ..validate import choice, int_in_range

__all__ = ["SCHEMES", "CausalBalance", "causal_work"]

SCHEMES: Final = ("contiguous", "zigzag", "striped")


@dataclass(frozen=True)
class CausalBalance:
    """The causal attention work of ``ranks`` CP ranks on ``seq_len`` tokens dealt by ``scheme``: ``work[i]``,
    the query-key pairs rank ``i`` computes (read-only array); ``imbalance`` = max / mean (1 = balanced), the factor
    by which the slowest rank stretches the attention time against a perfect split; ``efficiency`` = its
    inverse."""

    scheme: str
    ranks: int
    seq_len: int
    work: npt.NDArray[np.float64]

    @property
    def total(self) -> float:
        """All pairs, ``L(L+1)/2``, whatever the scheme."""
        return float(self.work.sum())

    @property
    def mean(self) -> float:
        return self.total / self.ranks

    @property
    def slowest(self) -> int:
        return int(np.argmax(self.work))

    @property
    def imbalance(self) -> float:
        return float(self.work.max()) / self.mean

    @property
    def efficiency(self) -> float:
        return 1.0 / self.imbalance


def _pairs(a: npt.NDArray[np.float64], b: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """Query-key pairs of the positions ``a … b−1`` under a causal mask."""
    return (b * (b + 1) - a * (a + 1)) / 2


def causal_work(ranks: int, seq_len: int, *, scheme: str = "zigzag") -> CausalBalance:
    """The work per rank of causal attention over ``seq_len`` tokens split over ``ranks`` (c ≥ 1) CP ranks by
    ``scheme`` in :data:`SCHEMES`; ``seq_len`` must split into whole chunks (``c`` of them for ``contiguous`` and
    ``striped``, ``2c`` for ``zigzag``).

    >>> round(causal_work(4, 8192, scheme="contiguous").imbalance, 4), causal_work(4, 8192).imbalance
    (1.7499, 1.0)
    """
    k = choice("scheme", scheme, SCHEMES)
    c = int_in_range("ranks", ranks, 1)
    n_chunks = 2 * c if k == "zigzag" else c
    L = int_in_range("seq_len", seq_len, n_chunks)
    if L % n_chunks:
        raise ValueError(f"seq_len must be a multiple of {n_chunks} for {k} over {c} ranks, got {seq_len!r}")
    i = np.arange(c, dtype=np.float64)
    if k == "contiguous":
        n = L / c
        work = _pairs(i * n, (i + 1) * n)
    elif k == "zigzag":
        h = L / (2 * c)
        j = 2 * c - 1 - i
        work = _pairs(i * h, (i + 1) * h) + _pairs(j * h, (j + 1) * h)
    else:
        per = L // c  # positions i + c·r for r = 0 … per−1, each meeting i + c·r + 1 keys
        work = per * (i + 1) + c * per * (per - 1) / 2
    work = np.asarray(work, dtype=np.float64)
    work.setflags(write=False)
    return CausalBalance(k, c, L, work)
