"""Three ways to all-reduce, compared by the bytes they move (§9.6.1 "环为什么能到达下界").

What the ring saves is not bytes on the wire compared with a root that gathers and sends back (both move
``2(N−1)S`` over all links) but the load of the busiest rank and the waiting: every rank works in every step.
Compared with every rank gathering from every other, it also saves total bytes (``N(N−1)S`` vs ``2(N−1)S``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from ..validate import choice, int_in_range, non_negative
from .collectives import traffic

__all__ = ["ALL_REDUCE_SCHEMES", "SchemeVolume", "all_reduce_scheme_volume"]

#: all-reduce schemes compared by :func:`all_reduce_scheme_volume` (§9.6.1: total bytes vs the busiest rank)
ALL_REDUCE_SCHEMES: Final = ("direct", "root", "ring")


@dataclass(frozen=True)
class SchemeVolume:
    """Bytes of one all-reduce under ``scheme``: over all links together (``total``) and at the busiest rank."""

    scheme: str
    size: float
    ranks: int
    total: float
    send_max: float
    recv_max: float


def all_reduce_scheme_volume(scheme: str, size: float, ranks: int) -> SchemeVolume:
    """Total and busiest-rank bytes of an all-reduce of ``size`` = S bytes per rank on ``ranks`` = N ranks.

    * ``"direct"`` — every rank sends its whole buffer to each of the other ``N−1`` and sums what it receives:
      total over all links ``N(N−1)S``; every rank sends and receives ``S(N−1)``.
    * ``"root"`` — gather to one root, which sums and sends the result back
      (:func:`.collectives.traffic`, ``"naive"``): total ``2(N−1)S``; the root receives ``S(N−1)``, then sends
      ``S(N−1)``; every other rank ``S`` each way.
    * ``"ring"`` — reduce-scatter then all-gather: total ``2(N−1)S`` as for ``root``, but every rank sends and
      receives ``2S(N−1)/N``, all ranks at once.

    ``scheme`` one of :data:`ALL_REDUCE_SCHEMES`; ``size`` ≥ 0 in bytes; ``ranks`` an integer ≥ 2.
    """
    choice("scheme", scheme, ALL_REDUCE_SCHEMES)
    s = non_negative("size", size)
    n = int_in_range("ranks", ranks, 2)
    if scheme == "direct":
        per_rank = s * (n - 1)
        return SchemeVolume(scheme, s, n, total=n * per_rank, send_max=per_rank, recv_max=per_rank)
    t = traffic("all_reduce", s, n, "naive" if scheme == "root" else "ring")
    return SchemeVolume(scheme, s, n, total=t.total, send_max=t.send_max, recv_max=t.recv_max)
